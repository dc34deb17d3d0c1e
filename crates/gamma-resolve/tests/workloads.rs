//! Workload binding (`MeshBinding::Workloads`, beyond the Gateway API spec; `docs/workloads.md`):
//! the routes of a headless Service bound at its ready endpoints on each Service port's
//! `targetPort`. Upstream (GEP-1294) binds mesh routes to cluster IPs only, and that stays the
//! default.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::net::IpAddr;

use gamma_model::{ObjectKey, ResourceKind, RouteKind, Snapshot};
use gamma_resolve::{
    BuildOptions, Decision, MeshBinding, Protocol, Request, RespondReason, RouteTable,
};
use proptest::prelude::*;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn snapshot(yaml: &str) -> Snapshot {
    Snapshot::from_resources(gamma_model::decode(yaml).unwrap())
}

fn workloads() -> BuildOptions {
    BuildOptions::default().with_mesh_binding(MeshBinding::Workloads)
}

/// `ports` of the Service as YAML flow entries, `cluster_ip` `None` for headless.
fn service(ns: &str, name: &str, cluster_ip: &str, ports: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Service\nmetadata: {{name: {name}, namespace: {ns}}}\n\
         spec: {{clusterIP: {cluster_ip}, ports: [{ports}]}}\n---\n"
    )
}

/// An EndpointSlice of Service `svc`; `endpoints` and `ports` as YAML flow entries.
fn slice(ns: &str, name: &str, svc: &str, family: &str, endpoints: &str, ports: &str) -> String {
    format!(
        "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\n\
         metadata: {{name: {name}, namespace: {ns}, labels: {{kubernetes.io/service-name: {svc}}}}}\n\
         addressType: {family}\nendpoints: [{endpoints}]\nports: [{ports}]\n---\n"
    )
}

/// An HTTPRoute `name` in `ns` with parent Service `parent` sending `/` to `backend`.
fn route(ns: &str, name: &str, parent: &str, backend: &str) -> String {
    format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
         metadata: {{name: {name}, namespace: {ns}}}\n\
         spec:\n  parentRefs: [{{group: \"\", kind: Service, name: {parent}}}]\n\
         \x20 rules:\n  - backendRefs: [{{name: {backend}, port: 80}}]\n---\n"
    )
}

/// A headless Service `name` in `app`, port 80 -> targetPort 8080.
fn headless_8080(name: &str) -> String {
    service(
        "app",
        name,
        "None",
        "{name: http, port: 80, targetPort: 8080}",
    )
}

/// A headless Service `db` (port 80 -> targetPort 8080) with two ready endpoints, one
/// without conditions, one not ready, and a route to backend `v2`.
fn headless_db() -> String {
    [
        headless_8080("db"),
        service("app", "v2", "10.96.0.2", "{name: http, port: 80}"),
        slice(
            "app",
            "db-1",
            "db",
            "IPv4",
            "{addresses: [10.1.0.1], conditions: {ready: true}}, {addresses: [10.1.0.2]}, \
             {addresses: [10.1.0.3], conditions: {ready: false}}",
            "{name: http, port: 8080}",
        ),
        route("app", "r", "db", "v2"),
    ]
    .concat()
}

fn backend_name(d: &Decision<'_>) -> Option<String> {
    match d {
        Decision::Forward(f) => Some(f.backend.name.to_string()),
        _ => None,
    }
}

// GEP-1294: mesh routes bind to a Service's cluster IPs only; a headless Service has none and
// is not a parent (Accepted=False, NoMatchingParent), so its endpoints pass through.
#[test]
fn by_default_nothing_binds_on_endpoint_ips() {
    let t = RouteTable::build(&snapshot(&headless_db()), &BuildOptions::default());
    let d = t.resolve(&Request::http(ip("10.1.0.1"), 8080, "GET", "/"), 0);
    assert_eq!(d, Decision::Passthrough);
    let s = &t.parent_conditions()[0];
    let c = s.condition("Accepted").unwrap();
    assert_eq!((c.status, c.reason.as_str()), (false, "NoMatchingParent"));
}

// MeshBinding::Workloads (beyond the spec): the ready endpoints (EndpointSlice API:
// `conditions.ready` unset counts as ready) bind on the targetPort; a not-ready endpoint,
// and the Service port on an endpoint address, stay unbound.
#[test]
fn opt_in_binds_ready_endpoints_on_the_target_port_only() {
    let t = RouteTable::build(&snapshot(&headless_db()), &workloads());
    for addr in ["10.1.0.1", "10.1.0.2"] {
        let d = t.resolve(&Request::http(ip(addr), 8080, "GET", "/"), 0);
        assert_eq!(backend_name(&d).as_deref(), Some("v2"), "{addr}: {d}");
    }
    let not_ready = t.resolve(&Request::http(ip("10.1.0.3"), 8080, "GET", "/"), 0);
    assert_eq!(not_ready, Decision::Passthrough);
    let service_port = t.resolve(&Request::http(ip("10.1.0.1"), 80, "GET", "/"), 0);
    assert_eq!(service_port, Decision::Passthrough);
    let s = &t.parent_conditions()[0];
    assert!(s.condition("Accepted").unwrap().status, "{s:?}");
}

// ServicePort.targetPort: a name is resolved per EndpointSlice (the slice's port of the
// Service port's name carries the number for its pods); unset, the Service port itself.
#[test]
fn named_target_ports_resolve_per_slice_and_unset_ones_use_the_service_port() {
    let yaml = [
        service(
            "app",
            "db",
            "None",
            "{name: http, port: 80, targetPort: web}, {name: admin, port: 9000}",
        ),
        service("app", "v2", "10.96.0.2", "{name: http, port: 80}"),
        slice(
            "app",
            "db-1",
            "db",
            "IPv4",
            "{addresses: [10.1.0.1]}",
            "{name: http, port: 7070}, {name: admin, port: 9000}",
        ),
        slice(
            "app",
            "db-2",
            "db",
            "IPv4",
            "{addresses: [10.1.0.2]}",
            "{name: http, port: 7171}, {name: admin, port: 9000}",
        ),
        route("app", "r", "db", "v2"),
    ]
    .concat();
    let t = RouteTable::build(&snapshot(&yaml), &workloads());
    let at = |a: &str, p: u16| backend_name(&t.resolve(&Request::http(ip(a), p, "GET", "/"), 0));
    assert_eq!(at("10.1.0.1", 7070).as_deref(), Some("v2"));
    assert_eq!(at("10.1.0.2", 7171).as_deref(), Some("v2"));
    assert_eq!(at("10.1.0.1", 7171), None, "another slice's port");
    assert_eq!(at("10.1.0.1", 9000).as_deref(), Some("v2"));
}

// EndpointSlice addressType: IPv4 and IPv6 slices of one dual-stack Service both bind.
#[test]
fn dual_stack_endpoints_bind_in_both_families() {
    let yaml = [
        service("app", "db", "None", "{name: http, port: 80}"),
        service("app", "v2", "10.96.0.2", "{name: http, port: 80}"),
        slice(
            "app",
            "db-4",
            "db",
            "IPv4",
            "{addresses: [10.1.0.1]}",
            "{name: http, port: 80}",
        ),
        slice(
            "app",
            "db-6",
            "db",
            "IPv6",
            "{addresses: ['fd00::1']}",
            "{name: http, port: 80}",
        ),
        route("app", "r", "db", "v2"),
    ]
    .concat();
    let t = RouteTable::build(&snapshot(&yaml), &workloads());
    for a in ["10.1.0.1", "fd00::1"] {
        let d = t.resolve(&Request::http(ip(a), 80, "GET", "/"), 0);
        assert_eq!(backend_name(&d).as_deref(), Some("v2"), "{a}");
    }
    let ex = t.explain(&Request::http(ip("fd00::1"), 80, "GET", "/"), 0);
    assert!(ex.binding.contains("[fd00::1]:80"), "{}", ex.binding);
    assert!(ex.binding.contains("Service app/db"), "{}", ex.binding);
}

fn two_headless(shared_only: bool) -> String {
    let db_eps = if shared_only {
        "{addresses: [10.1.0.9]}"
    } else {
        "{addresses: [10.1.0.9]}, {addresses: [10.1.0.1]}"
    };
    [
        service("app", "db", "None", "{name: http, port: 80}"),
        service("app", "db-alias", "None", "{name: http, port: 80}"),
        service("app", "v2", "10.96.0.2", "{name: http, port: 80}"),
        slice(
            "app",
            "db-1",
            "db",
            "IPv4",
            db_eps,
            "{name: http, port: 80}",
        ),
        slice(
            "app",
            "db-alias-1",
            "db-alias",
            "IPv4",
            "{addresses: [10.1.0.9]}",
            "{name: http, port: 80}",
        ),
        route("app", "r", "db", "v2"),
        route("app", "s", "db-alias", "v2"),
    ]
    .concat()
}

// Beyond the spec, so the rule is ours (docs/workloads.md): an address and port that is a
// ready endpoint of several headless Services with routes binds none of them; the request gets
// a typed answer, explain names both, and each route's Accepted condition says so
// (Accepted=False, Conflicted, when none of its Service's endpoints is its alone).
#[test]
fn an_endpoint_of_several_headless_services_is_a_conflict() {
    let t = RouteTable::build(&snapshot(&two_headless(true)), &workloads());
    let req = Request::http(ip("10.1.0.9"), 80, "GET", "/");
    match t.resolve(&req, 0) {
        Decision::Respond(r) => assert_eq!(r.reason, RespondReason::WorkloadConflict),
        d => panic!("{d}"),
    }
    let ex = t.explain(&req, 0);
    assert!(
        ex.binding.contains("app/db, app/db-alias"),
        "{}",
        ex.binding
    );
    for s in t.parent_conditions() {
        let c = s.condition("Accepted").unwrap();
        assert_eq!(
            (c.status, c.reason.as_str()),
            (false, "Conflicted"),
            "{s:?}"
        );
        assert!(c.message.contains("10.1.0.9:80"), "{}", c.message);
    }
    // input order does not matter: the same answer from the reversed snapshot
    let mut reversed = gamma_model::decode(&two_headless(true)).unwrap();
    reversed.reverse();
    let r = RouteTable::build(&Snapshot::from_resources(reversed), &workloads());
    assert_eq!(r.parent_conditions(), t.parent_conditions());
    assert_eq!(r.resolve(&req, 0), t.resolve(&req, 0));
}

// The Service that still has an endpoint of its own stays Accepted (RouteParentStatus: a route
// is accepted if at least one of its rules is implemented), its message naming the conflict.
#[test]
fn a_service_with_endpoints_of_its_own_stays_accepted_beside_a_conflict() {
    let t = RouteTable::build(&snapshot(&two_headless(false)), &workloads());
    let own = t.resolve(&Request::http(ip("10.1.0.1"), 80, "GET", "/"), 0);
    assert_eq!(backend_name(&own).as_deref(), Some("v2"));
    let by_name = |n: &str| {
        t.parent_conditions()
            .iter()
            .find(|s| s.name == n)
            .and_then(|s| s.condition("Accepted"))
            .cloned()
            .unwrap()
    };
    let r = by_name("r");
    assert!(r.status && r.message.contains("10.1.0.9:80"), "{r:?}");
    let s = by_name("s");
    assert_eq!((s.status, s.reason.as_str()), (false, "Conflicted"));
}

// GEP-1294: a Service with a cluster IP binds there only; its endpoints stay passthrough even
// under the policy (only headless Services bind endpoints).
#[test]
fn endpoints_of_a_service_with_a_cluster_ip_stay_passthrough() {
    let yaml = [
        service("app", "web", "10.96.0.1", "{name: http, port: 80}"),
        slice(
            "app",
            "web-1",
            "web",
            "IPv4",
            "{addresses: [10.1.0.1]}",
            "{name: http, port: 80}",
        ),
        route("app", "r", "web", "web"),
    ]
    .concat();
    let t = RouteTable::build(&snapshot(&yaml), &workloads());
    let d = t.resolve(&Request::http(ip("10.1.0.1"), 80, "GET", "/"), 0);
    assert_eq!(d, Decision::Passthrough);
    let vip = t.resolve(&Request::http(ip("10.96.0.1"), 80, "GET", "/"), 0);
    assert!(matches!(vip, Decision::Forward(_)));
}

// An EndpointSlice change of addresses only rebinds the Service's endpoints from the frontends
// the table keeps: no route set is built (the table's counts stay), and the result decides and
// reports as a full build (conflicts appear and go with the addresses).
#[test]
fn an_endpoint_slice_update_rebinds_without_building() {
    let options = workloads();
    let mut snap = snapshot(&two_headless(false));
    let table = RouteTable::build(&snap, &options);
    let before = table.stats();
    let moved = slice(
        "app",
        "db-alias-1",
        "db-alias",
        "IPv4",
        "{addresses: [10.1.0.7]}",
        "{name: http, port: 80}",
    );
    let obj = gamma_model::decode(&moved).unwrap().remove(0);
    let key = ObjectKey::new(ResourceKind::EndpointSlice, "app", "db-alias-1");
    let previous = snap.upsert(obj);
    let updated = table.update(&snap, &options, &key, previous.as_deref());
    let built = RouteTable::build(&snap, &options);
    let after = updated.stats();
    assert_eq!(
        (after.route_sets, after.rules, after.routes),
        (before.route_sets, before.rules, before.routes)
    );
    assert_eq!(updated.parent_conditions(), built.parent_conditions());
    for a in ["10.1.0.1", "10.1.0.7", "10.1.0.9"] {
        let req = Request::http(ip(a), 80, "GET", "/");
        assert_eq!(updated.resolve(&req, 0), built.resolve(&req, 0), "{a}");
    }
    let alias = updated.resolve(&Request::http(ip("10.1.0.7"), 80, "GET", "/"), 0);
    assert_eq!(backend_name(&alias).as_deref(), Some("v2"));
    // and the old table still answers as before
    let old = table.resolve(&Request::http(ip("10.1.0.9"), 80, "GET", "/"), 0);
    assert!(matches!(old, Decision::Respond(_)));
}

// GEP-1294 producer and consumer routes: an endpoint request resolves with the Service's route
// sets exactly as a request to a cluster IP of the same Service would (same decision, for any
// routes, paths and client namespaces).
proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn an_endpoint_request_decides_as_a_cluster_ip_request(
        routes in proptest::collection::vec(
            (0usize..2, 0usize..3, 0usize..3, 0usize..2),
            1..6,
        ),
        path in 0usize..3,
        client in 0usize..3,
    ) {
        const PATHS: &[&str] = &["/", "/a", "/a/b"];
        const NS: &[&str] = &["app", "other"];
        let mut yaml = String::new();
        yaml.push_str(&service("app", "v1", "10.96.0.11", "{name: http, port: 80}"));
        yaml.push_str(&service("app", "v2", "10.96.0.12", "{name: http, port: 80}"));
        yaml.push_str(&slice(
            "app", "db-1", "db", "IPv4", "{addresses: [10.1.0.1]}", "{name: http, port: 8080}",
        ));
        for (i, (ns, p, b, kind)) in routes.iter().enumerate() {
            let backend = ["v1", "v2", "missing"][*b];
            let r = if *kind == 0 {
                format!(
                    "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
                     metadata: {{name: r{i}, namespace: {}}}\n\
                     spec:\n  parentRefs: [{{group: \"\", kind: Service, name: db, namespace: app}}]\n\
                     \x20 rules:\n  - matches: [{{path: {{type: PathPrefix, value: {}}}}}]\n\
                     \x20   backendRefs: [{{name: {backend}, namespace: app, port: 80}}]\n---\n",
                    NS[*ns], PATHS[*p]
                )
            } else {
                format!(
                    "apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\n\
                     metadata: {{name: g{i}, namespace: {}}}\n\
                     spec:\n  parentRefs: [{{group: \"\", kind: Service, name: db, namespace: app}}]\n\
                     \x20 rules:\n  - backendRefs: [{{name: {backend}, namespace: app, port: 80}}]\n---\n",
                    NS[*ns]
                )
            };
            yaml.push_str(&r);
        }
        let headless = format!(
            "{yaml}{}",
            service("app", "db", "None", "{name: http, port: 80, targetPort: 8080}")
        );
        let with_vip = format!(
            "{yaml}{}",
            service("app", "db", "10.96.0.1", "{name: http, port: 80, targetPort: 8080}")
        );
        let w = RouteTable::build(&snapshot(&headless), &workloads());
        let c = RouteTable::build(&snapshot(&with_vip), &BuildOptions::default());
        let src = [None, Some("app"), Some("other")][client];
        let reqs = |dst: IpAddr, port: u16| {
            let mut v = vec![
                Request::http(dst, port, "GET", PATHS[path]),
                Request::grpc(dst, port, "/pkg.S/Get"),
                Request::connection(dst, port, Protocol::Tcp),
            ];
            if let Some(ns) = src {
                v = v.into_iter().map(|r| r.from_namespace(ns)).collect();
            }
            v
        };
        for (e, v) in reqs(ip("10.1.0.1"), 8080).iter().zip(reqs(ip("10.96.0.1"), 80)) {
            for entropy in [0u64, u64::MAX / 3] {
                prop_assert_eq!(w.resolve(e, entropy), c.resolve(&v, entropy));
            }
        }
        // and every route's conditions are the same
        prop_assert_eq!(w.parent_conditions(), c.parent_conditions());
        prop_assert!(w.parent_conditions().iter().all(|s| s.kind == RouteKind::Http || s.kind == RouteKind::Grpc));
    }
}

/// A Service `front` (cluster IP 10.96.0.1) whose route sends `/` to the headless Service `db`
/// (port 80 -> targetPort 8080; ready endpoints `db_eps`), whose own route splits 1:3 between
/// `v2` and `v3`; `alias_eps`, when given, are the endpoints of a second headless Service
/// `db-alias` with routes (a conflict where they are db's too).
fn front_to_headless(db_eps: &str, alias_eps: Option<&str>) -> String {
    let mut yaml = [
        service("app", "front", "10.96.0.1", "{name: http, port: 80}"),
        headless_8080("db"),
        service("app", "v2", "10.96.0.2", "{name: http, port: 80}"),
        service("app", "v3", "10.96.0.3", "{name: http, port: 80}"),
        slice("app", "db-1", "db", "IPv4", db_eps, "{name: http, port: 8080}"),
        route("app", "f", "front", "db"),
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
         metadata: {name: split, namespace: app}\n\
         spec:\n  parentRefs: [{group: \"\", kind: Service, name: db}]\n\
         \x20 rules:\n  - backendRefs: [{name: v2, port: 80, weight: 1}, {name: v3, port: 80, weight: 3}]\n---\n"
            .to_owned(),
    ]
    .concat();
    if let Some(eps) = alias_eps {
        yaml += &headless_8080("db-alias");
        yaml += &slice(
            "app",
            "db-alias-1",
            "db-alias",
            "IPv4",
            eps,
            "{name: http, port: 8080}",
        );
        yaml += &route("app", "s", "db-alias", "v2");
    }
    yaml
}

fn ends(t: &RouteTable, req: &Request<'_>) -> Vec<(String, String)> {
    t.trace_distribution(req)
        .unwrap()
        .ends
        .iter()
        .map(|e| (e.end.to_string(), e.share.to_string()))
        .collect()
}

// docs/workloads.md (beyond the spec): under workload binding a call to a headless Service
// lands on one of its ready endpoints, where that Service's routes apply (every ready endpoint
// leads to the same route sets, those of the Service port), so a trace follows it there: the
// next hop is sent to the lowest ready endpoint on the port's targetPort and resolves with the
// Service's routes, and the split composes end to end. With the default binding (GEP-1294:
// routes bind to cluster IPs only) the headless Service is a final backend.
#[test]
fn a_trace_follows_a_headless_backend_to_its_endpoints_under_workload_binding() {
    let yaml = front_to_headless("{addresses: [10.1.0.2]}, {addresses: [10.1.0.1]}", None);
    let req = Request::http(ip("10.96.0.1"), 80, "GET", "/").from_namespace("app");
    let t = RouteTable::build(&snapshot(&yaml), &workloads());
    let trace = t.trace(&req, 0);
    assert_eq!(trace.hops.len(), 2, "{trace:?}");
    let next = &trace.hops[1];
    assert_eq!(
        (next.request.destination, next.request.port),
        (ip("10.1.0.1"), 8080)
    );
    assert_eq!(
        next.frontend.map(|f| f.to_string()).as_deref(),
        Some("Service app/db port 80")
    );
    // the hop equals resolve on its request (the endpoint request decides as a cluster IP one)
    let hop_req = Request::http(ip("10.1.0.1"), 8080, "GET", "/").from_namespace("app");
    assert_eq!(
        next.outcome,
        gamma_resolve::HopOutcome::of(&t.resolve(&hop_req, next.entropy))
    );
    assert!(
        trace.end.to_string().starts_with("delivered to app/v"),
        "{}",
        trace.end
    );
    assert_eq!(
        ends(&t, &req),
        [
            ("delivered to app/v2:80".to_owned(), "1/4".to_owned()),
            ("delivered to app/v3:80".to_owned(), "3/4".to_owned())
        ]
    );
    let default = RouteTable::build(&snapshot(&yaml), &BuildOptions::default());
    let trace = default.trace(&req, 0);
    assert_eq!(trace.hops.len(), 1, "{trace:?}");
    assert_eq!(trace.end.to_string(), "delivered to app/db:80");
    assert_eq!(
        ends(&default, &req),
        [("delivered to app/db:80".to_owned(), "1/1".to_owned())]
    );
}

// docs/workloads.md: an endpoint that is a ready endpoint of several headless Services with
// routes is a conflict. A trace into such a Service goes to an endpoint that is its alone when
// it has one, and otherwise to a conflicted one, where the request gets WorkloadConflict.
#[test]
fn a_trace_into_a_headless_backend_prefers_its_own_endpoints_to_conflicted_ones() {
    let req = Request::http(ip("10.96.0.1"), 80, "GET", "/").from_namespace("app");
    let yaml = front_to_headless(
        "{addresses: [10.1.0.1]}, {addresses: [10.1.0.5]}",
        Some("{addresses: [10.1.0.1]}"),
    );
    let t = RouteTable::build(&snapshot(&yaml), &workloads());
    let trace = t.trace(&req, 0);
    assert_eq!(
        trace.hops[1].request.destination,
        ip("10.1.0.5"),
        "{trace:?}"
    );
    assert!(trace.end.to_string().starts_with("delivered to app/v"));
    let shared_only = front_to_headless("{addresses: [10.1.0.1]}", Some("{addresses: [10.1.0.1]}"));
    let t = RouteTable::build(&snapshot(&shared_only), &workloads());
    let trace = t.trace(&req, 0);
    assert_eq!(trace.hops.len(), 2, "{trace:?}");
    match &trace.hops[1].outcome {
        gamma_resolve::HopOutcome::Respond(r) => {
            assert_eq!(r.reason, RespondReason::WorkloadConflict)
        }
        o => panic!("{o}"),
    }
}
