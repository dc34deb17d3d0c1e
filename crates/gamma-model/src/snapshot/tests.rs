use super::*;
use crate::decode;
use crate::resource::ResourceKind;

const CLUSTER: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: b, namespace: ns}
spec: {clusterIP: 10.0.0.2, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: a, namespace: ns}
spec: {clusterIP: 10.0.0.1, clusterIPs: [10.0.0.1, "fd00::1"], ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{group: "", kind: Service, name: a}]
"#;

#[test]
fn iteration_order_is_independent_of_insertion_order() {
    let docs = decode(CLUSTER).unwrap();
    let forward = Snapshot::from_resources(docs.clone());
    let backward = Snapshot::from_resources(docs.into_iter().rev());
    let f: Vec<_> = forward.iter().map(|(k, _)| k.clone()).collect();
    let b: Vec<_> = backward.iter().map(|(k, _)| k.clone()).collect();
    assert_eq!(f, b);
    let names: Vec<_> = forward
        .services()
        .map(|s| s.metadata.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b"]);
}

#[test]
fn services_are_found_by_any_cluster_ip_and_unindexed_on_remove() {
    let mut snap = Snapshot::from_resources(decode(CLUSTER).unwrap());
    let v6: IpAddr = "fd00::1".parse().unwrap();
    assert_eq!(snap.service_by_ip(v6).unwrap().metadata.name, "a");
    snap.remove(&ObjectKey::new(ResourceKind::Service, "ns", "a"));
    assert!(snap.service_by_ip(v6).is_none());
}

#[test]
fn validation_verdicts_are_kept_per_object_and_options() {
    use crate::validate::{Channel, ValidateOptions};
    let route = |port: &str| {
        decode(&format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
             metadata: {{name: r, namespace: ns}}\n\
             spec: {{rules: [{{backendRefs: [{{name: b{port}}}]}}]}}\n"
        ))
        .unwrap()
        .remove(0)
    };
    let verdict = |s: &Snapshot, opts: &ValidateOptions| {
        let v: Vec<bool> = s
            .validated_routes(ResourceKind::HttpRoute, opts)
            .map(|(_, ok)| ok)
            .collect();
        v
    };
    let std = ValidateOptions::default();
    let exp = ValidateOptions::channel(Channel::Experimental);
    // a Service backendRef without a port is invalid (Gateway API BackendObjectReference)
    let mut snap = Snapshot::from_resources([route("")]);
    assert_eq!(verdict(&snap, &std), [false]);
    assert_eq!(verdict(&snap, &std), [false]);
    let before = snap.clone();
    // an upsert starts afresh: the kept verdict was the old object's
    snap.upsert(route(", port: 80"));
    assert_eq!(verdict(&snap, &std), [true]);
    assert_eq!(verdict(&snap, &exp), [true]);
    assert_eq!(verdict(&before, &std), [false]);
    // a cache: equality ignores it
    assert_eq!(before, Snapshot::from_resources([route("")]));
}

#[test]
fn routes_are_indexed_by_defaulted_parent() {
    let mut snap = Snapshot::from_resources(decode(CLUSTER).unwrap());
    let parent = ParentKey::service("ns", "a");
    assert_eq!(snap.routes_for_parent(&parent).count(), 1);
    snap.remove(&ObjectKey::new(ResourceKind::HttpRoute, "ns", "r"));
    assert_eq!(snap.routes_for_parent(&parent).count(), 0);
}

#[test]
fn lookups_by_namespace_service_and_class() {
    let snap = Snapshot::from_resources(
        decode(&format!(
            "{CLUSTER}---
apiVersion: v1
kind: Namespace
metadata: {{name: ns, labels: {{team: a}}}}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {{name: a-1, namespace: ns, labels: {{kubernetes.io/service-name: a}}}}
addressType: IPv4
endpoints: []
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {{name: b-1, namespace: ns, labels: {{kubernetes.io/service-name: b}}}}
addressType: IPv4
endpoints: []
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: ns}}
spec: {{gatewayClassName: mesh, listeners: []}}
"
        ))
        .unwrap(),
    );
    assert_eq!(snap.namespace_labels("ns").unwrap()["team"], "a");
    assert!(snap.namespace_labels("other").is_none());
    let slices: Vec<_> = snap
        .endpoint_slices_for("ns", "a")
        .map(|e| e.metadata.name.as_str())
        .collect();
    assert_eq!(slices, ["a-1"]);
    assert_eq!(snap.routes_for_service("ns", "a").count(), 1);
    assert_eq!(snap.in_namespace(ResourceKind::Service, "ns").count(), 2);
    assert_eq!(snap.gateways_of_class("mesh").count(), 1);
    assert_eq!(snap.gateways_of_class("other").count(), 0);
}

mod properties {
    //! Determinism (decisions do not depend on input order):
    //! the snapshot, its iteration and every index depend only on the final set of objects.

    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    const NAMES: &[&str] = &["a", "b", "c"];
    const NAMESPACES: &[&str] = &["x", "y"];
    const IPS: &[&str] = &["10.0.0.1", "10.0.0.2", "10.0.0.3", "fd00::1"];

    fn pick(from: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
        prop::sample::select(from)
    }

    fn resource(value: serde_json::Value) -> AnyResource {
        let kind = ResourceKind::from_type(
            value["apiVersion"].as_str().unwrap(),
            value["kind"].as_str().unwrap(),
        )
        .unwrap();
        AnyResource::from_value_tracked(kind, value).unwrap()
    }

    /// One object; `version` varies the content under the same identity.
    fn object() -> impl Strategy<Value = AnyResource> {
        prop_oneof![
            (
                pick(NAMES),
                pick(NAMESPACES),
                prop::collection::vec(pick(IPS), 0..3)
            )
                .prop_map(|(name, ns, ips)| {
                    let mut spec = json!({"ports": [{"port": 80}]});
                    if let Some(first) = ips.first() {
                        spec["clusterIP"] = json!(first);
                        spec["clusterIPs"] = json!(ips);
                    }
                    resource(json!({"apiVersion": "v1", "kind": "Service",
                        "metadata": {"name": name, "namespace": ns}, "spec": spec}))
                }),
            (
                pick(NAMES),
                pick(NAMESPACES),
                prop::collection::vec(
                    (
                        pick(NAMES),
                        prop::option::of(pick(NAMESPACES)),
                        any::<bool>()
                    ),
                    0..3
                )
            )
                .prop_map(|(name, ns, parents)| {
                    let refs: Vec<_> = parents
                        .into_iter()
                        .map(|(p, pns, service)| {
                            let mut r = if service {
                                json!({"group": "", "kind": "Service", "name": p})
                            } else {
                                json!({"name": p})
                            };
                            if let Some(pns) = pns {
                                r["namespace"] = json!(pns);
                            }
                            r
                        })
                        .collect();
                    // the same names as backends (a mirror for the second), so the
                    // backend index has entries to keep
                    let backends: Vec<_> = refs
                        .iter()
                        .map(|r| {
                            let mut b = json!({"name": r["name"], "port": 80});
                            if let Some(pns) = r.get("namespace") {
                                b["namespace"] = pns.clone();
                            }
                            b
                        })
                        .collect();
                    let mut rule =
                        json!({"backendRefs": backends.first().into_iter().collect::<Vec<_>>()});
                    if let Some(m) = backends.get(1) {
                        rule["filters"] = json!([{"type": "RequestMirror",
                            "requestMirror": {"backendRef": m}}]);
                    }
                    resource(json!({"apiVersion": "gateway.networking.k8s.io/v1",
                        "kind": "HTTPRoute", "metadata": {"name": name, "namespace": ns},
                        "spec": {"parentRefs": refs, "rules": [rule]}}))
                }),
            (pick(NAMES), pick(NAMESPACES), pick(NAMES)).prop_map(|(name, ns, svc)| {
                resource(
                    json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                    "metadata": {"name": name, "namespace": ns,
                        "labels": {"kubernetes.io/service-name": svc}},
                    "addressType": "IPv4", "endpoints": []}),
                )
            }),
            (pick(NAMESPACES), pick(NAMES)).prop_map(|(name, label)| {
                resource(json!({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": name, "labels": {"team": label}}}))
            }),
            // addresses asked for and, when reported, the ones bound (which decide)
            (
                pick(NAMES),
                pick(NAMESPACES),
                prop::collection::vec(pick(IPS), 0..3),
                prop::option::of(prop::collection::vec(pick(IPS), 0..2)),
            )
                .prop_map(|(name, ns, wanted, bound)| {
                    let spec_addresses: Vec<_> =
                        wanted.iter().map(|ip| json!({"value": ip})).collect();
                    let mut gw = json!({"apiVersion": "gateway.networking.k8s.io/v1",
                        "kind": "Gateway", "metadata": {"name": name, "namespace": ns},
                        "spec": {"gatewayClassName": "mesh", "addresses": spec_addresses,
                            "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}});
                    if let Some(bound) = bound {
                        let status: Vec<_> = bound.iter().map(|ip| json!({"value": ip})).collect();
                        gw["status"] = json!({"addresses": status});
                    }
                    resource(gw)
                }),
        ]
    }

    /// A set of objects with distinct identities (the last of each identity wins, as in
    /// `from_resources`).
    fn object_set() -> impl Strategy<Value = Vec<AnyResource>> {
        prop::collection::vec(object(), 0..24).prop_map(|objects| {
            let mut by_key = BTreeMap::new();
            for o in objects {
                by_key.insert(ObjectKey::of(&o), o);
            }
            by_key.into_values().collect()
        })
    }

    /// Everything observable about a snapshot through its public API.
    fn observe(snap: &Snapshot) -> Vec<String> {
        let mut out: Vec<String> = snap.iter().map(|(k, r)| format!("{k} {r:?}")).collect();
        for ip in IPS {
            let ip: IpAddr = ip.parse().unwrap();
            let first = snap.service_by_ip(ip).map(|s| s.metadata.name.clone());
            let all: Vec<_> = snap.services_by_ip(ip).map(|s| &s.metadata.name).collect();
            // the keys are those of the same Services, in the same order
            let keys: Vec<_> = snap.service_keys_by_ip(ip).map(|k| &k.name).collect();
            assert_eq!(keys, all, "{ip}");
            // the Gateways reachable at it: those a scan of every Gateway finds
            let gateways: Vec<_> = snap.gateway_keys_by_ip(ip).cloned().collect();
            let scan: Vec<_> = snap
                .iter()
                .filter(|(_, r)| match r {
                    AnyResource::Gateway(g) => g.frontend_addresses().contains(&ip),
                    _ => false,
                })
                .map(|(k, _)| k.clone())
                .collect();
            assert_eq!(gateways, scan, "{ip}");
            out.push(format!("gateways at {ip}: {gateways:?}"));
            out.push(format!("ip {ip}: {first:?} {all:?}"));
        }
        for p in snap.referenced_parents() {
            let routes: Vec<_> = snap.routes_for_parent(p).map(ObjectKey::of).collect();
            // the index holds the stored objects themselves, never a stale version
            for r in snap.routes_for_parent_shared(p) {
                let stored = snap.get_shared(&ObjectKey::of(r));
                assert!(stored.is_some_and(|s| Arc::ptr_eq(s, r)), "{p:?}");
            }
            out.push(format!("parent {p:?}: {routes:?}"));
        }
        // a pass over one kind (which skips kinds the snapshot has none of) is the scan
        for kind in ResourceKind::ALL.iter().copied() {
            let scanned = snap.iter().filter(|(k, _)| k.kind == kind).count();
            assert_eq!(snap.of_kind(kind).count(), scanned, "{kind:?}");
        }
        for ns in NAMESPACES {
            for name in NAMES {
                let slices: Vec<_> = snap
                    .endpoint_slices_for(ns, name)
                    .map(|e| &e.metadata.name)
                    .collect();
                let routes = snap.routes_for_service(ns, name).count();
                out.push(format!("{ns}/{name}: slices {slices:?}, routes {routes}"));
                // the backend index is the scan it saves
                let indexed: Vec<_> = snap
                    .routes_for_backend(ns, name)
                    .map(ObjectKey::of)
                    .collect();
                let scanned: Vec<_> = snap
                    .iter()
                    .filter(|(k, r)| {
                        backend_keys(r, &k.namespace).contains(&(ns.to_string(), name.to_string()))
                    })
                    .map(|(k, _)| k.clone())
                    .collect();
                assert_eq!(indexed, scanned, "{ns}/{name}");
                let in_ns: BTreeSet<_> = snap
                    .routes_with_backends_in(ns)
                    .filter(|(b, _)| *b == *name)
                    .map(|(_, r)| ObjectKey::of(r))
                    .collect();
                assert_eq!(in_ns, scanned.iter().cloned().collect::<BTreeSet<_>>());
                out.push(format!("{ns}/{name}: backend of {indexed:?}"));
            }
            out.push(format!("labels {ns}: {:?}", snap.namespace_labels(ns)));
        }
        // Digests: each is its object's, the object the one stored under its key, and
        // every route and Service has one.
        let stored = |r: &Arc<AnyResource>| {
            snap.get_shared(&ObjectKey::of(r))
                .is_some_and(|s| Arc::ptr_eq(s, r))
        };
        for kind in ResourceKind::ALL.iter().copied() {
            let mut digests = 0;
            for (r, d) in snap.route_digests(kind) {
                assert_eq!(Some(d), RouteDigest::of(r).as_ref());
                assert!(stored(r));
                out.push(format!("digest {} {d:?}", ObjectKey::of(r)));
                digests += 1;
            }
            let routes = snap
                .of_kind(kind)
                .filter(|r| RouteDigest::of(r).is_some())
                .count();
            assert_eq!(digests, routes, "{kind:?}");
        }
        let mut digests = 0;
        for (r, d) in snap.service_digests() {
            assert_eq!(Some(d), ServiceDigest::of(r).as_ref());
            assert!(stored(r));
            out.push(format!("digest {} {d:?}", ObjectKey::of(r)));
            digests += 1;
        }
        assert_eq!(digests, snap.services().count());
        out
    }

    proptest! {
        #[test]
        fn any_insertion_order_gives_the_same_snapshot(
            (objects, shuffled) in object_set().prop_flat_map(|o| {
                let s = Just(o.clone()).prop_shuffle();
                (Just(o), s)
            })
        ) {
            let a = Snapshot::from_resources(objects);
            let b = Snapshot::from_resources(shuffled);
            prop_assert_eq!(observe(&a), observe(&b));
            prop_assert_eq!(a, b);
        }

        #[test]
        fn interleaved_upserts_and_removes_end_in_the_same_snapshot(
            objects in object_set(),
            noise in prop::collection::vec(object(), 0..16),
            order in prop::collection::vec(any::<prop::sample::Index>(), 0..64),
        ) {
            // A history: noise objects come and go, final objects are upserted (maybe after
            // a noise version of the same identity, maybe removed and re-added); the history
            // ends with exactly `objects`.
            let expected = Snapshot::from_resources(objects.clone());
            let mut ops: Vec<(bool, AnyResource)> = Vec::new();
            for n in &noise {
                ops.push((true, n.clone()));
            }
            for o in &objects {
                ops.push((true, o.clone()));
            }
            // Shuffle deterministically from the generated indices.
            for (i, idx) in order.iter().enumerate() {
                if ops.is_empty() { break; }
                let len = ops.len();
                ops.swap(i % len, idx.index(len));
            }
            let mut snap = Snapshot::new();
            for (_, r) in &ops {
                snap.upsert(r.clone());
                if order.len() % 3 == 0 {
                    // Sometimes remove right away and re-add: must be a no-op overall.
                    snap.remove(&ObjectKey::of(r));
                    snap.upsert(r.clone());
                }
            }
            // Remove every identity not in the final set, then settle the final versions.
            let keep: BTreeSet<ObjectKey> = objects.iter().map(ObjectKey::of).collect();
            for (_, r) in &ops {
                let k = ObjectKey::of(r);
                if !keep.contains(&k) {
                    snap.remove(&k);
                }
            }
            for o in objects.iter().rev() {
                snap.upsert(o.clone());
            }
            prop_assert_eq!(observe(&snap), observe(&expected));
            prop_assert_eq!(snap, expected);
        }
    }
}
