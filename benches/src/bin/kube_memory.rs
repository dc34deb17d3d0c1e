//! Prints the live heap bytes per route of what gamma-kube's controller holds on a converged
//! mesh cluster of the shape of gamma-kube's cold-start test (`tests/cold_start.rs`): N
//! HTTPRoutes over N/5 Services in N/50 Namespaces, each route with one Service parentRef on
//! port 80, one rule with one backendRef and the `status.parents` entry gamma-rs wrote, split
//! by what holds the bytes: the decoded snapshot (kind by kind, and the routes' status), the
//! validation verdicts the snapshot keeps, the route table, the arbiter's decisions and the
//! reconciler's state between reconciliations. Method in benches/README.md ("Methods",
//! "Memory").
//!
//! The objects are built as the API server returns them to a list (metadata with uid,
//! resourceVersion, generation and creationTimestamp, the CRD and core defaults filled in,
//! no `managedFields`, which gamma-kube drops) and decoded through
//! `AnyResource::from_value`, the last step of gamma-kube's `decode_object`, into a
//! `Snapshot` one `upsert` at a time, as gamma-kube's snapshot store fills it. The statuses
//! are the ones a first reconciliation of the same objects without status asks to write, so
//! the measured reconciliation finds the cluster converged (it prints its status writes: 0).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::alloc::System;
use std::collections::BTreeMap;
use std::sync::Arc;

use gamma_arbiter::{Arbiter, ArbiterConfig, Identity, PairKey};
use gamma_benches::Rng;
use gamma_benches::counting::{INSTRUMENTED_SYSTEM, Region, Stats, StatsAlloc, live_bytes};
use gamma_controller::{Reconciler, ReconcilerConfig};
use gamma_model::gateway::RouteStatus;
use gamma_model::meta::Time;
use gamma_model::{AnyResource, ObjectKey, Snapshot};
use gamma_resolve::RouteTable;
use gamma_resolve::status::RouteCondition;
use serde_json::{Value, json};

#[global_allocator]
static ALLOC: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The arbiter configuration gamma-kube's tests run with (`common::sample_config`).
const CONFIG: &str = include_str!("../../../examples/gamma-config.yaml");

/// When the objects were created, and when the controller reconciles.
const CREATED: &str = "2026-12-07T05:22:13Z";
const NOW: &str = "2026-12-07T05:40:00Z";

fn main() {
    let config: ArbiterConfig = serde_saphyr::from_str(CONFIG).unwrap();
    let me = Identity::of_mesh(&config, "istio").unwrap();
    let now = Time::parse(NOW).unwrap();
    for routes in [5_000, 50_000] {
        measure(&Cluster::new(routes), &config, &me, now);
    }
}

/// The cold-start fixture: `routes` HTTPRoutes `route-R` over `routes / 5` Services `svc-S`
/// spread round-robin over `routes / 50` Namespaces labelled for mesh `istio`; route R sends
/// to, and has as its parent, Service `svc-(R mod services)`.
struct Cluster {
    routes: usize,
    services: usize,
    namespaces: Vec<String>,
}

impl Cluster {
    fn new(routes: usize) -> Cluster {
        // Named as gamma-testenv names them: hint, process id, counter.
        let namespaces = (0..routes / 50)
            .map(|i| format!("cold{i}-2b41f-{}", i + 1))
            .collect();
        Cluster {
            routes,
            services: routes / 5,
            namespaces,
        }
    }

    /// Metadata as the API server returns it: uid, resourceVersion and creationTimestamp on
    /// every object, generation on custom resources (`serial` numbers the object).
    fn metadata(name: &str, namespace: Option<&str>, serial: usize, generation: bool) -> Value {
        let mut rng = Rng::new(serial as u64 + 1);
        let (a, b) = (rng.next_u64(), rng.next_u64());
        let uid = format!(
            "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            b >> 52,
            b & 0xffff_ffff_ffff
        );
        let mut m = json!({"name": name, "uid": uid,
                           "resourceVersion": (2_000_000 + serial).to_string(),
                           "creationTimestamp": CREATED});
        if let Some(ns) = namespace {
            m["namespace"] = ns.into();
        }
        if generation {
            m["generation"] = 1.into();
        }
        m
    }

    fn namespace(&self, i: usize) -> Value {
        let name = &self.namespaces[i];
        let mut metadata = Self::metadata(name, None, i, false);
        metadata["labels"] = json!({"gamma.rs/mesh": "istio", "kubernetes.io/metadata.name": name});
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": metadata,
               "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
    }

    fn service(&self, s: usize) -> Value {
        let ns = &self.namespaces[s % self.namespaces.len()];
        let ip = format!("10.96.{}.{}", 1 + s / 250, 1 + s % 250);
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": Self::metadata(&format!("svc-{s}"), Some(ns), 100_000 + s, false),
               "spec": {"clusterIP": ip, "clusterIPs": [ip], "internalTrafficPolicy": "Cluster",
                        "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                        "ports": [{"name": "http", "port": 80, "protocol": "TCP",
                                   "targetPort": 80}],
                        "sessionAffinity": "None", "type": "ClusterIP"},
               "status": {"loadBalancer": {}}})
    }

    /// Route `r` with the CRD's defaults filled in (backendRef group, kind and weight, the
    /// rule's `PathPrefix /` match) and `status` if given.
    fn route(&self, r: usize, status: Option<&RouteStatus>) -> Value {
        let s = r % self.services;
        let ns = &self.namespaces[s % self.namespaces.len()];
        let svc = format!("svc-{s}");
        let mut route = json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
            "metadata": Self::metadata(&format!("route-{r}"), Some(ns), 1_000_000 + r, true),
            "spec": {"parentRefs": [{"group": "", "kind": "Service", "name": svc, "port": 80}],
                     "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                                "backendRefs": [{"group": "", "kind": "Service", "name": svc,
                                                 "port": 80, "weight": 1}]}]}});
        if let Some(status) = status {
            route["status"] = serde_json::to_value(status).unwrap();
        }
        route
    }
}

/// Heap blocks still live at the end of the measured stretch: every block costs glibc malloc
/// a header and rounding beyond its requested bytes, which `live_bytes` does not see.
fn live_blocks(stats: &Stats) -> isize {
    stats.allocations as isize - stats.deallocations as isize
}

/// Live bytes and live blocks of `region` so far.
fn live(region: &Region<'_, System>) -> (isize, isize) {
    let change = region.change();
    (live_bytes(&change), live_blocks(&change))
}

/// Decoded as gamma-kube's `decode_object` decodes a listed or watched object.
fn decode(value: Value) -> AnyResource {
    AnyResource::from_value(value).unwrap()
}

/// The status of every route as a reconciliation of the routes without status writes it.
fn converged_statuses(
    cluster: &Cluster,
    config: &ArbiterConfig,
    me: &Identity,
    now: Time,
) -> Vec<RouteStatus> {
    let mut snapshot = Snapshot::new();
    for i in 0..cluster.namespaces.len() {
        snapshot.upsert(decode(cluster.namespace(i)));
    }
    for s in 0..cluster.services {
        snapshot.upsert(decode(cluster.service(s)));
    }
    for r in 0..cluster.routes {
        snapshot.upsert(decode(cluster.route(r, None)));
    }
    let mut reconciler =
        Reconciler::new(ReconcilerConfig::new(config.clone(), me.clone())).unwrap();
    let first = reconciler.reconcile(&snapshot, now);
    let mut statuses: Vec<Option<RouteStatus>> = (0..cluster.routes).map(|_| None).collect();
    for (key, status) in first.status_updates {
        let r: usize = key.name.strip_prefix("route-").unwrap().parse().unwrap();
        statuses[r] = Some(status);
    }
    statuses
        .into_iter()
        .map(|s| s.expect("every route is given a status"))
        .collect()
}

/// Live bytes and blocks: `a - b`.
fn minus(a: (isize, isize), b: (isize, isize)) -> (isize, isize) {
    (a.0 - b.0, a.1 - b.1)
}

fn measure(cluster: &Cluster, config: &ArbiterConfig, me: &Identity, now: Time) {
    let n = cluster.routes;
    let statuses = converged_statuses(cluster, config, me, now);
    let mut rows: Vec<(String, (isize, isize))> = Vec::new();

    // What the listed JSON of each kind weighs (serialized), for comparison.
    let json_bytes = |values: &mut dyn Iterator<Item = Value>| -> usize {
        values.map(|v| serde_json::to_vec(&v).unwrap().len()).sum()
    };
    let ns_json = json_bytes(&mut (0..cluster.namespaces.len()).map(|i| cluster.namespace(i)));
    let svc_json = json_bytes(&mut (0..cluster.services).map(|s| cluster.service(s)));
    let route_json = json_bytes(&mut (0..n).map(|r| cluster.route(r, Some(&statuses[r]))));

    // 1. The snapshot, filled kind by kind as the runtime's lists fill it. Each object's JSON is
    // built and freed inside the region, so what stays is the decoded object and its indexes.
    let mut snapshot = Snapshot::new();
    let region = Region::new(ALLOC);
    for i in 0..cluster.namespaces.len() {
        snapshot.upsert(decode(cluster.namespace(i)));
    }
    let namespaces = live(&region);
    for s in 0..cluster.services {
        snapshot.upsert(decode(cluster.service(s)));
    }
    let with_services = live(&region);
    for (r, status) in statuses.iter().enumerate() {
        snapshot.upsert(decode(cluster.route(r, Some(status))));
    }
    let snapshot_total = live(&region);
    let services = minus(with_services, namespaces);
    let routes = minus(snapshot_total, with_services);
    // The same routes without status, in a snapshot of their own (a route's index entries
    // derive from the route alone): the difference is what the status costs.
    let mut bare = Snapshot::new();
    let region = Region::new(ALLOC);
    for r in 0..n {
        bare.upsert(decode(cluster.route(r, None)));
    }
    let bare_routes = live(&region);
    drop(bare);
    // The decoded routes alone, without a snapshot: the rest of the snapshot's bytes for them
    // are its keys and indexes.
    let region = Region::new(ALLOC);
    let mut decoded = Vec::with_capacity(n);
    for (r, status) in statuses.iter().enumerate() {
        decoded.push(decode(cluster.route(r, Some(status))));
    }
    let objects = live(&region);
    drop(decoded);
    rows.push((format!("snapshot: {n} HTTPRoutes"), routes));
    rows.push(("  the decoded objects alone (in a Vec)".into(), objects));
    rows.push((
        "  their status (with status minus without)".into(),
        minus(routes, bare_routes),
    ));
    rows.push((format!("snapshot: {} Services", cluster.services), services));
    rows.push((
        format!("snapshot: {} Namespaces", cluster.namespaces.len()),
        namespaces,
    ));

    // 2. The route table, with the build options gamma-kube's runtime uses
    // (`ReconcilerConfig::new`: keep_lowered_routes on). The first build also fills the
    // validation verdicts the snapshot keeps; they stay after the table is dropped.
    let build = ReconcilerConfig::new(config.clone(), me.clone()).build;
    let region = Region::new(ALLOC);
    drop(RouteTable::build(&snapshot, &build));
    let verdicts = live(&region);
    rows.push(("validation verdicts kept in the snapshot".into(), verdicts));
    let region = Region::new(ALLOC);
    let table = RouteTable::build(&snapshot, &build);
    let table_bytes = live(&region);
    let rules = table.stats().rules;
    drop(table);
    rows.push((
        "route table (keep_lowered_routes on, as gamma-kube runs)".into(),
        table_bytes,
    ));
    let lean = build.clone().with_keep_lowered_routes(false);
    let region = Region::new(ALLOC);
    let table = RouteTable::build(&snapshot, &lean);
    let lean_bytes = live(&region);
    drop(table);
    rows.push((
        "  (the same table, keep_lowered_routes off)".into(),
        lean_bytes,
    ));

    // 3. What the reconciler keeps: the arbiter's decisions, the objects as last seen (its
    // `seen`: each object's key and `Arc`, shared with the snapshot), its table and the
    // table conditions.
    let arbiter = Arbiter::new(config.clone()).unwrap();
    let region = Region::new(ALLOC);
    let decisions = arbiter.decide_all(&snapshot);
    let decisions_bytes = live(&region);
    drop(decisions);
    rows.push(("arbiter decisions (decide_all)".into(), decisions_bytes));
    let region = Region::new(ALLOC);
    let seen: BTreeMap<ObjectKey, Arc<AnyResource>> = snapshot
        .iter_shared()
        .map(|(k, o)| (k.clone(), Arc::clone(o)))
        .collect();
    let seen_bytes = live(&region);
    drop(seen);
    rows.push((
        "the objects as last seen (keys and shared objects)".into(),
        seen_bytes,
    ));
    // what that was before: a copy of the snapshot, every index and key (the runtime also
    // made one per reconcile)
    let region = Region::new(ALLOC);
    let copy = snapshot.clone();
    let copy_bytes = live(&region);
    drop(copy);
    rows.push((
        "  (a copy of the snapshot instead: objects shared, indexes copied)".into(),
        copy_bytes,
    ));
    // The reconciler's table conditions per (route, parent), a map of the shape it keeps
    // (`gamma_controller::Reconciler::conditions`), from a table whose conditions are rendered.
    let table = RouteTable::build(&snapshot, &build);
    let rendered = table.parent_conditions().len();
    let region = Region::new(ALLOC);
    let conditions: BTreeMap<PairKey, Vec<RouteCondition>> = table
        .parent_conditions()
        .iter()
        .map(|ps| {
            let route = ObjectKey::new(
                ps.kind.resource_kind(),
                ps.namespace.clone(),
                ps.name.clone(),
            );
            let pair = PairKey {
                route,
                parent_index: ps.parent_index,
            };
            (pair, ps.conditions.clone())
        })
        .collect();
    let conditions_bytes = live(&region);
    drop(conditions);
    drop(table);
    let region = Region::new(ALLOC);
    let mut reconciler =
        Reconciler::new(ReconcilerConfig::new(config.clone(), me.clone())).unwrap();
    let reconciliation = reconciler.reconcile(&snapshot, now);
    let with_result = live(&region);
    let writes = reconciliation.status_updates.len();
    let pairs = reconciliation.decisions.len();
    drop(reconciliation);
    let retained = live(&region);
    rows.push((
        "reconciler after a full reconcile (kept between reconciliations)".into(),
        retained,
    ));
    rows.push((
        "  its state beyond table, decisions and the objects as last seen".into(),
        minus(
            minus(minus(retained, table_bytes), decisions_bytes),
            seen_bytes,
        ),
    ));
    rows.push((
        "    of which its table conditions per pair (a map of the same shape)".into(),
        conditions_bytes,
    ));
    rows.push((
        "the reconciliation's result (freed after the writes)".into(),
        minus(with_result, retained),
    ));
    rows.push((
        "held between reconciliations: snapshot + verdicts + reconciler".into(),
        (
            snapshot_total.0 + verdicts.0 + retained.0,
            snapshot_total.1 + verdicts.1 + retained.1,
        ),
    ));
    drop(reconciler);

    println!(
        "{n} routes, {} Services, {} Namespaces ({rules} rules, {pairs} route-parent pairs decided, {rendered} parent statuses rendered, {writes} status writes: converged; size_of::<AnyResource>() = {} bytes)",
        cluster.services,
        cluster.namespaces.len(),
        std::mem::size_of::<AnyResource>()
    );
    println!(
        "  listed JSON without managedFields: {:.0} bytes/route, {:.0} bytes/Service, {:.0} bytes/Namespace",
        route_json as f64 / n as f64,
        svc_json as f64 / cluster.services as f64,
        ns_json as f64 / cluster.namespaces.len() as f64
    );
    for (what, (bytes, blocks)) in rows {
        println!(
            "  {what}: {bytes} bytes in {blocks} blocks = {:.0} bytes, {:.1} blocks per route",
            bytes as f64 / n as f64,
            blocks as f64 / n as f64
        );
    }
}
