//! The embedding API on the sample cluster (examples/manifests, examples/gamma-config.yaml):
//! two meshes reconcile, write status, reach a fixed point, and hand a namespace over
//! make-before-break.

use std::path::PathBuf;

use gamma_arbiter::Directive;
use gamma_arbiter::{ArbiterConfig, Identity};
use gamma_controller::{Reconciler, ReconcilerConfig, Reconciliation};
use gamma_model::gateway::RouteStatus;
use gamma_model::meta::Time;
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot, decode};

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn sample() -> (ArbiterConfig, Snapshot) {
    let config: ArbiterConfig = serde_saphyr::from_str(
        &std::fs::read_to_string(examples().join("gamma-config.yaml")).unwrap(),
    )
    .unwrap();
    let mut objects = Vec::new();
    for e in std::fs::read_dir(examples().join("manifests")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "yaml") {
            objects.extend(decode(&std::fs::read_to_string(p).unwrap()).unwrap());
        }
    }
    (config, Snapshot::from_resources(objects))
}

fn controller(config: &ArbiterConfig, mesh: &str) -> Reconciler {
    Reconciler::new(ReconcilerConfig::new(
        config.clone(),
        Identity::of_mesh(config, mesh).unwrap(),
    ))
    .unwrap()
}

fn t(s: i64) -> Time {
    Time::from_unix(1_767_607_200 + s, 0)
}

/// Writes the status updates into the snapshot, as the API server would.
fn apply(snap: &mut Snapshot, r: &Reconciliation) -> Vec<ObjectKey> {
    let mut changed = vec![];
    for (route, status) in &r.status_updates {
        let mut obj = snap.get(route).unwrap().clone();
        *obj.route_status_mut()
            .expect("status updates are for routes") = Some(status.clone());
        snap.upsert(obj);
        changed.push(route.clone());
    }
    changed
}

fn http(ns: &str, name: &str) -> ObjectKey {
    ObjectKey::new(ResourceKind::HttpRoute, ns, name)
}

fn status_of<'a>(snap: &'a Snapshot, r: &ObjectKey) -> &'a RouteStatus {
    match snap.get(r).unwrap() {
        AnyResource::HttpRoute(x) => x.status.as_ref().unwrap(),
        _ => unreachable!(),
    }
}

// README "Expected status entries": istio writes for its 6 owned pairs' routes and the billing
// conflict; stock gets Accepted=True and ResolvedRefs=False/BackendNotFound at generation 3.
#[test]
fn istio_writes_exactly_its_entries_on_the_sample() {
    let (config, snap) = sample();
    let mut istio = controller(&config, "istio");
    let r = istio.reconcile(&snap, t(0));
    let mut routes: Vec<String> = r
        .status_updates
        .iter()
        .map(|(r, _)| format!("{}/{}", r.namespace, r.name))
        .collect();
    routes.sort();
    assert_eq!(
        routes,
        [
            "batch/reports",
            "inventory/stock",
            "legacy/billing",
            "shop/catalog",
            "shop/checkout",
            "shop/checkout-canary",
            "shop/checkout-qa-pin"
        ]
    );
    for (_, s) in &r.status_updates {
        assert_eq!(s.parents.len(), 1);
        assert_eq!(s.parents[0].controller_name, "istio.io/gateway-controller");
    }
    let stock = &r
        .status_updates
        .iter()
        .find(|(r, _)| r.name == "stock")
        .unwrap()
        .1;
    let c = &stock.parents[0].conditions;
    let get = |t: &str| c.iter().find(|c| c.type_ == t).unwrap();
    assert_eq!(get("Accepted").status.as_str(), "True");
    assert_eq!(get("ResolvedRefs").reason, "BackendNotFound");
    assert!(c.iter().all(|c| c.observed_generation == Some(3)));
    let programmed = r
        .decisions
        .iter()
        .filter(|(_, _, d)| *d == Directive::Program)
        .count();
    assert_eq!(programmed, 6);
}

// Gateway API RouteStatus.parents: two meshes writing through the merge reach a fixed point and
// keep each other's entries.
#[test]
fn two_meshes_reach_a_fixed_point_on_the_sample() {
    let (config, mut snap) = sample();
    let mut istio = controller(&config, "istio");
    let mut linkerd = controller(&config, "linkerd");
    let a = istio.reconcile(&snap, t(0));
    apply(&mut snap, &a);
    let b = linkerd.reconcile(&snap, t(1));
    apply(&mut snap, &b);
    assert!(istio.reconcile(&snap, t(2)).status_updates.is_empty());
    assert!(linkerd.reconcile(&snap, t(3)).status_updates.is_empty());
    let catalog = status_of(&snap, &http("shop", "catalog"));
    let names: Vec<&str> = catalog
        .parents
        .iter()
        .map(|p| p.controller_name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "istio.io/gateway-controller",
            "linkerd.io/policy-controller"
        ]
    );
    let billing = status_of(&snap, &http("legacy", "billing"));
    assert_eq!(billing.parents.len(), 2);
    assert!(
        billing
            .parents
            .iter()
            .all(|p| p.conditions[0].reason == "OwnershipConflict")
    );
}

// Handoff through the incremental path: namespace shop moves from istio to linkerd;
// istio retains until linkerd's entries show Accepted=True at the current generation.
#[test]
fn relabelling_a_namespace_hands_off_make_before_break() {
    let (config, mut snap) = sample();
    let mut istio = controller(&config, "istio");
    let mut linkerd = controller(&config, "linkerd");
    let a = istio.reconcile(&snap, t(0));
    apply(&mut snap, &a);
    let b = linkerd.reconcile(&snap, t(1));
    apply(&mut snap, &b);

    let ns = ObjectKey::new(ResourceKind::Namespace, "", "shop");
    let mut shop = snap.get(&ns).unwrap().clone();
    shop.metadata_mut()
        .labels
        .insert("gamma.rs/mesh".into(), "linkerd".into());
    snap.upsert(shop);

    let checkout = http("shop", "checkout");
    let directive_of = |r: &Reconciliation, route: &ObjectKey| {
        r.decisions
            .iter()
            .find(|(p, _, _)| &p.route == route)
            .map(|(_, _, d)| d.clone())
            .unwrap()
    };
    // istio sees the change first: it retains, and its status entry stays as it is (the make
    // comes before the break: removing it now would leave the route with no owner's entry).
    let a = istio.reconcile_change(&snap, &ns, t(10));
    assert!(matches!(
        directive_of(&a, &checkout),
        Directive::Retain { .. }
    ));
    let written = apply(&mut snap, &a);
    assert!(!written.contains(&checkout));
    assert!(
        status_of(&snap, &checkout)
            .parents
            .iter()
            .any(|p| p.controller_name == "istio.io/gateway-controller")
    );
    // linkerd takes over and writes Accepted=True.
    let b = linkerd.reconcile_change(&snap, &ns, t(11));
    assert_eq!(directive_of(&b, &checkout), Directive::Program);
    let written = apply(&mut snap, &b);
    // istio observes the route status change, stops, and removes its entry.
    assert!(written.contains(&checkout));
    let mut removed = false;
    for route in written {
        let r = istio.reconcile_change(&snap, &route, t(12));
        if route == checkout {
            assert_eq!(directive_of(&r, &checkout), Directive::Ignore);
            removed = apply(&mut snap, &r).contains(&checkout);
        } else {
            apply(&mut snap, &r);
        }
    }
    assert!(removed, "istio's entry was not removed after the handoff");
    let full = istio.reconcile(&snap, t(13));
    assert!(full.status_updates.is_empty());
    assert!(
        full.decisions
            .iter()
            .all(|(_, _, d)| !matches!(d, Directive::Retain { .. }))
    );
    let s = status_of(&snap, &checkout);
    assert_eq!(s.parents.len(), 1);
    assert_eq!(s.parents[0].controller_name, "linkerd.io/policy-controller");
}

// A writer that meets a conflict re-merges what `me` wants into the status it reads back
// (Gateway API: status.parents is an atomic list shared by every controller): merging each
// update's desired entries into the copy it was computed from gives the update again.
#[test]
fn every_status_update_carries_the_desired_entries_it_was_merged_from() {
    let (config, snap) = sample();
    let mut istio = controller(&config, "istio");
    let me = Identity::of_mesh(&config, "istio").unwrap();
    let r = istio.reconcile(&snap, t(0));
    assert_eq!(r.desired.len(), r.status_updates.len());
    for (route, status) in &r.status_updates {
        let desired = &r.desired[route];
        let stored = match snap.get(route).unwrap() {
            AnyResource::HttpRoute(x) => x.status.clone().unwrap_or_default(),
            _ => unreachable!(),
        };
        let generation = snap.get(route).unwrap().metadata().generation_or_zero();
        let again = gamma_arbiter::merge(&stored, desired, &me, generation, t(0));
        assert_eq!(again.as_ref(), Some(status), "{route:?}");
    }
}

/// What a table decides for GET requests to every Service port of the snapshot (from no, the
/// same and another namespace) and the conditions it reports.
fn table_fingerprint(table: &gamma_resolve::RouteTable, snap: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for svc in snap.services() {
        for ip in svc.frontend_ips() {
            for p in &svc.spec.ports {
                let Ok(port) = u16::try_from(p.port) else {
                    continue;
                };
                for path in ["/", "/api", "/v2/x"] {
                    for src in [None, svc.metadata.namespace.as_deref(), Some("web")] {
                        let mut req = gamma_resolve::Request::http(ip, port, "GET", path);
                        if let Some(ns) = src {
                            req = req.from_namespace(ns);
                        }
                        out.push(format!("{req:?}: {:?}", table.resolve(&req, 7)));
                    }
                }
            }
        }
    }
    out.extend(table.parent_conditions().iter().map(|c| format!("{c:?}")));
    out
}

// reconcile_change updates the table instead of rebuilding it: after each object of the
// sample is removed and put back (Namespaces moving routes between meshes, Services, routes,
// EndpointSlices, the Gateway), the table of what istio programs is the one a full build of
// the same snapshot gives for the pairs it programs (its handoffs included: a fresh
// reconciler would not know them).
#[test]
fn reconcile_change_updates_the_table_as_a_full_build_gives_it() {
    let (config, mut snap) = sample();
    let mut istio = controller(&config, "istio");
    istio.reconcile(&snap, t(0));
    let keys: Vec<ObjectKey> = snap.iter().map(|(k, _)| k.clone()).collect();
    for (i, key) in keys.iter().enumerate() {
        let object = snap.get(key).unwrap().clone();
        for step in 0..2 {
            if step == 0 {
                snap.remove(key);
            } else {
                snap.upsert(object.clone());
            }
            let now = t(1 + i64::try_from(i).unwrap());
            let changed = istio.reconcile_change(&snap, key, now);
            let programmed = changed
                .decisions
                .iter()
                .filter(|(_, _, d)| matches!(d, Directive::Program | Directive::Retain { .. }))
                .filter_map(|(p, _, _)| {
                    Some(gamma_resolve::RouteParentKey {
                        kind: gamma_model::RouteKind::ALL
                            .into_iter()
                            .find(|k| k.resource_kind() == p.route.kind)?,
                        namespace: p.route.namespace.clone(),
                        name: p.route.name.clone(),
                        parent_index: p.parent_index,
                    })
                });
            let options = gamma_resolve::BuildOptions::default().with_include(programmed);
            let full = gamma_resolve::RouteTable::build(&snap, &options);
            let (a, b) = (
                table_fingerprint(&changed.table, &snap),
                table_fingerprint(&full, &snap),
            );
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x, y, "{key:?} step {step}");
            }
            assert_eq!(a.len(), b.len(), "{key:?} step {step}");
        }
    }
}

/// The Accepted condition `status` writes for `route`'s only parent, as (status, reason).
fn accepted(r: &Reconciliation, route: &ObjectKey) -> Option<(String, String)> {
    let (_, s) = r.status_updates.iter().find(|(k, _)| k == route)?;
    let c = s
        .parents
        .first()?
        .conditions
        .iter()
        .find(|c| c.type_ == "Accepted")?;
    Some((format!("{:?}", c.status), c.reason.clone()))
}

// Workload binding (MeshBinding::Workloads, beyond the spec; docs/workloads.md) through the
// reconciler's build options: a route on a headless Service is accepted, and an EndpointSlice
// change that makes its only endpoint shared with another headless Service with routes turns
// it into Accepted=False, Conflicted on the incremental path.
#[test]
fn workload_binding_is_a_reconciler_build_option() {
    let (config, mut snap) = sample();
    let yaml = r#"
apiVersion: v1
kind: Namespace
metadata: {name: data}
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: data}
spec: {clusterIP: None, ports: [{name: sql, port: 5432}]}
---
apiVersion: v1
kind: Service
metadata: {name: replica, namespace: data}
spec: {clusterIP: None, ports: [{name: sql, port: 5432}]}
---
apiVersion: v1
kind: Service
metadata: {name: proxy, namespace: data}
spec: {clusterIP: 10.96.77.1, ports: [{name: sql, port: 5432}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: db-1, namespace: data, labels: {kubernetes.io/service-name: db}}
addressType: IPv4
endpoints: [{addresses: [10.1.0.9]}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: replica-1, namespace: data, labels: {kubernetes.io/service-name: replica}}
addressType: IPv4
endpoints: [{addresses: [10.1.0.8]}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: db, namespace: data, generation: 1}
spec:
  parentRefs: [{group: "", kind: Service, name: db, port: 5432}]
  rules: [{backendRefs: [{name: proxy, port: 5432}]}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: replica, namespace: data, generation: 1}
spec:
  parentRefs: [{group: "", kind: Service, name: replica, port: 5432}]
  rules: [{backendRefs: [{name: proxy, port: 5432}]}]
"#;
    for o in decode(yaml).unwrap() {
        snap.upsert(o);
    }
    let mut cfg = ReconcilerConfig::new(
        config.clone(),
        Identity::of_mesh(&config, "linkerd").unwrap(),
    );
    cfg.build = cfg
        .build
        .with_mesh_binding(gamma_resolve::MeshBinding::Workloads);
    let mut linkerd = Reconciler::new(cfg).unwrap();
    let route = ObjectKey::new(ResourceKind::TcpRoute, "data", "db");
    let first = linkerd.reconcile(&snap, t(1));
    assert_eq!(
        accepted(&first, &route),
        Some(("True".into(), "Accepted".into()))
    );
    apply(&mut snap, &first);
    // the replica's endpoint moves onto db's only endpoint
    let moved = decode(
        "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\n\
         metadata: {name: replica-1, namespace: data, labels: {kubernetes.io/service-name: replica}}\n\
         addressType: IPv4\nendpoints: [{addresses: [10.1.0.9]}]\n",
    )
    .unwrap()
    .remove(0);
    let key = ObjectKey::of(&moved);
    snap.upsert(moved);
    let second = linkerd.reconcile_change(&snap, &key, t(2));
    assert_eq!(
        accepted(&second, &route),
        Some(("False".into(), "Conflicted".into()))
    );
}

// docs/ownership.md, "The `controllers` field on a real cluster": a controller learns from the
// CRDs, after it was made, whether `parentRefs[].controllers` can be stored. Setting
// `ignore_parent_ref_controllers` drops the earlier decisions, so the next reconciliation,
// even an incremental one for an unrelated object, decides every pair as a controller
// configured that way from the start does (shop/cart names Linkerd only in `controllers`).
#[test]
fn learning_that_the_crds_lack_controllers_re_decides_every_pair_at_the_next_reconciliation() {
    let (config, snap) = sample();
    let mut linkerd = controller(&config, "linkerd");
    linkerd.reconcile(&snap, t(0));
    let cart = http("shop", "cart");
    let before = linkerd.decisions().unwrap().verdict(&cart, 0).cloned();
    assert!(linkerd.set_ignore_parent_ref_controllers(true));
    assert!(!linkerd.set_ignore_parent_ref_controllers(true));
    assert!(linkerd.decisions().is_none());
    let unrelated = ObjectKey::new(ResourceKind::Namespace, "", "default");
    linkerd.reconcile_change(&snap, &unrelated, t(1));
    let ignoring = config.clone().with_ignore_parent_ref_controllers(true);
    let mut fresh = controller(&ignoring, "linkerd");
    fresh.reconcile(&snap, t(1));
    let after = linkerd.decisions().unwrap();
    assert_eq!(after, fresh.decisions().unwrap());
    assert_ne!(after.verdict(&cart, 0).cloned(), before);
}
