//! One test per mesh (GAMMA) rule, named after the rule; upstream Gateway API sources cited.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use gamma_model::RouteKind;
use gamma_resolve::input::*;
use gamma_resolve::status::{
    ACCEPTED, CONFLICTED, NO_MATCHING_PARENT, PARTIALLY_INVALID, RESOLVED_REFS,
};
use gamma_resolve::*;

const SVC_IP: &str = "10.96.0.10";
const OTHER_IP: &str = "10.96.0.20";

/// Producer namespace "app" with Service "web" (ports 80 "http", 8080 "http-alt") and backends
/// "v1", "v2".
fn base() -> TableInput {
    TableInput::new().with_services(vec![
        service("app", "web", SVC_IP, &[(80, "http"), (8080, "http-alt")]),
        service("app", "other", OTHER_IP, &[(80, "http")]),
        service("app", "v1", "10.96.1.1", &[(80, "")]),
        service("app", "v2", "10.96.1.2", &[(80, "")]),
        service("client", "local", "10.96.2.1", &[(80, "")]),
    ])
}

fn to(backend_name: &str) -> Vec<BackendIr> {
    vec![backend("app", backend_name, 80, 1)]
}

fn table(routes: Vec<RouteIr>) -> RouteTable {
    table_with(routes, &BuildOptions::default())
}

fn table_with(routes: Vec<RouteIr>, opts: &BuildOptions) -> RouteTable {
    let mut input = base();
    input.routes = routes;
    RouteTable::from_input(&input, opts)
}

fn get<'a>(dst: &str, port: u16, path: &'a str) -> Request<'a> {
    Request::http(ip(dst), port, "GET", path)
}

/// The backend name a decision forwards to, or a short description of the decision.
fn outcome(d: &Decision<'_>) -> String {
    match d {
        Decision::Forward(f) => f.backend.name.to_string(),
        Decision::Respond(r) => format!("{}", r.status),
        Decision::Redirect(r) => format!("redirect {}", r.location),
        Decision::Passthrough => "passthrough".into(),
        _ => "other".into(),
    }
}

fn simple(ns: &str, name: &str, backend_name: &str) -> RouteIr {
    http(
        ns,
        name,
        vec![svc_parent("app", "web")],
        vec![rule(vec![prefix("/")], to(backend_name))],
    )
}

// GEP-1294 hostnames field; GAMMA Service facets: binding is by the destination cluster IP and
// port, never by Host.
#[test]
fn binds_by_cluster_ip_not_host_header() {
    let t = table(vec![simple("app", "r", "v1")]);
    let r = get(SVC_IP, 80, "/").with_host("other.app.svc.cluster.local");
    assert_eq!(outcome(&t.resolve(&r, 0)), "v1");
    // MeshFrontendHostname: Host naming the routed Service does not pull traffic for another IP.
    let r = get(OTHER_IP, 80, "/").with_host("web.app");
    assert_eq!(outcome(&t.resolve(&r, 0)), "passthrough");
}

// GEP-1294 hostnames field: every cluster IP of the Service (dual stack) binds.
#[test]
fn any_cluster_ip_of_the_service_binds() {
    let mut input = base();
    input.services[0].cluster_ips.push(ip("fd00::10"));
    input.routes = vec![simple("app", "r", "v1")];
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    assert_eq!(outcome(&t.resolve(&get("fd00::10", 80, "/"), 0)), "v1");
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "v1");
}

// GEP-1294 multiple routes for a Service; GAMMA request flow: traffic to pod IPs or Services
// without routes is plain Kubernetes.
#[test]
fn unbound_destination_passes_through() {
    let t = table(vec![simple("app", "r", "v1")]);
    assert_eq!(
        outcome(&t.resolve(&get("10.244.0.5", 80, "/"), 0)),
        "passthrough"
    );
    assert_eq!(
        outcome(&t.resolve(&get(SVC_IP, 9999, "/"), 0)),
        "passthrough"
    );
}

// Gateway API ParentReference: headless Services have no frontend and bind nothing; the route gets
// NoMatchingParent.
#[test]
fn headless_service_is_not_a_parent() {
    let mut input = base();
    input
        .services
        .push(service("app", "headless", "None", &[(80, "http")]));
    input.routes = vec![http(
        "app",
        "r",
        vec![svc_parent("app", "headless")],
        vec![rule(vec![prefix("/")], to("v1"))],
    )];
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    assert_eq!(t.stats().bindings, 0);
    let st = &t.parent_conditions()[0];
    assert_eq!(st.condition(ACCEPTED).unwrap().reason, NO_MATCHING_PARENT);
}

// GEP-1294 / ServiceSpec.clusterIP: only `clusterIP: None` is headless. A Service whose
// manifest has no cluster IP yet (the API server allocates it) is a parent: its routes are
// Accepted, they just bind no address until it has one.
#[test]
fn a_service_without_cluster_ip_is_an_accepted_parent() {
    let mut input = base();
    input
        .services
        .push(service("app", "unallocated", "", &[(80, "http")]));
    input.routes = vec![http(
        "app",
        "r",
        vec![svc_parent("app", "unallocated")],
        vec![rule(vec![prefix("/")], to("v1"))],
    )];
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    let st = &t.parent_conditions()[0];
    assert!(st.condition(ACCEPTED).unwrap().status);
    assert_eq!(t.stats().bindings, 0);
}

// ParentReference.group: the core group is "". `kind: Service` with no group (defaulting to
// gateway.networking.k8s.io) or with `group: core` is not a Service: the table says so and
// names the fix; the opt-in compatibility policy reads `core` as the core group (Linkerd does).
#[test]
fn a_misgrouped_service_parent_is_reported_not_a_service() {
    let misgrouped = |gk: &str| ParentRefIr {
        kind: ParentRefKind::Other(gk.into()),
        ..svc_parent("app", "web")
    };
    let mut input = base();
    input.routes = vec![http(
        "app",
        "r",
        vec![
            misgrouped("core/Service"),
            misgrouped("gateway.networking.k8s.io/Service"),
        ],
        vec![rule(vec![prefix("/")], to("v1"))],
    )];
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    assert_eq!(t.parent_conditions().len(), 2);
    for st in t.parent_conditions() {
        let c = st.condition(ACCEPTED).unwrap();
        assert!(!c.status);
        assert_eq!(c.reason, NO_MATCHING_PARENT);
        assert!(
            c.message
                .starts_with("not a Service (did you mean group: \"\"?)"),
            "{}",
            c.message
        );
    }
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "passthrough");

    let t = RouteTable::from_input(&input, &BuildOptions::default().with_core_group_alias(true));
    let core = &t.parent_conditions()[0];
    assert_eq!(core.parent_index, 0);
    assert!(core.condition(ACCEPTED).unwrap().status);
    assert!(!t.parent_conditions()[1].condition(ACCEPTED).unwrap().status);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "v1");
}

// Route status ResolvedRefs: a condition has one reason, but every unresolved backendRef is
// reported in its message with its own reason, across rules: a missing Service is
// BackendNotFound, and a missing port on an existing Service says which port (and the ports
// the Service has).
#[test]
fn every_broken_backend_ref_is_reported_with_its_own_reason() {
    let t = table(vec![http(
        "app",
        "r",
        vec![svc_parent("app", "web")],
        vec![
            rule(
                vec![prefix("/a")],
                vec![
                    backend("app", "missing", 80, 1),
                    backend("app", "v1", 80, 1),
                    backend("app", "v2", 9090, 1),
                ],
            ),
            rule(vec![prefix("/b")], vec![backend("app", "gone", 80, 1)]),
        ],
    )]);
    let st = &t.parent_conditions()[0];
    let c = st.condition(RESOLVED_REFS).unwrap();
    assert!(!c.status);
    assert_eq!(c.reason, "BackendNotFound");
    assert_eq!(
        c.message,
        "rule 0: backendRefs[0]: BackendNotFound (app/missing); \
         rule 0: backendRefs[2]: BackendNotFound (app/v2): the Service has no port 9090 (its ports: 80); \
         rule 1: backendRefs[0]: BackendNotFound (app/gone)"
    );
    // explain names the picked backend and why it is invalid (entropy 0 picks backendRefs[0])
    let ex = t.explain(&get(SVC_IP, 80, "/a"), 0);
    assert_eq!(
        ex.backend_pick.as_deref(),
        Some(
            "weights [1, 1, 1]: the picked backend is invalid: backendRefs[0] app/missing:80 \
             (weighted pick from entropy 0; rule 0): BackendNotFound (app/missing)"
        )
    );
    let ex = t.explain(&get(SVC_IP, 80, "/a"), u64::MAX);
    assert!(
        ex.backend_pick
            .as_deref()
            .unwrap()
            .ends_with("backendRefs[2] app/v2:9090 (weighted pick from entropy 18446744073709551615; rule 0): BackendNotFound (app/v2): the Service has no port 9090 (its ports: 80)"),
        "{:?}",
        ex.backend_pick
    );
}

// A route invalid as a whole is left out of the table; a request to the Service it named is
// resolved by the other routes, and the table says the invalid one was left out (explain
// lists it), instead of silently showing another route kind as if it were the only one.
#[test]
fn a_route_left_out_for_invalidity_stays_visible_for_its_service() {
    let mut grpc = http(
        "app",
        "bad",
        vec![svc_parent("app", "web")],
        vec![rule(vec![prefix("/")], to("v2"))],
    );
    grpc.kind = RouteKind::Grpc;
    grpc.invalid = Some(Invalid {
        reason: "UnsupportedValue",
        message: "spec.hostnames[0]: must be a hostname".into(),
    });
    let t = table(vec![
        grpc,
        http(
            "app",
            "ok",
            vec![svc_parent("app", "web")],
            vec![rule(vec![prefix("/")], to("v1"))],
        ),
    ]);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "v1");
    let want = "GRPCRoute app/bad was left out: spec.hostnames[0]: must be a hostname";
    assert_eq!(t.left_out_at(ip(SVC_IP)).collect::<Vec<_>>(), [want]);
    assert_eq!(
        t.left_out_for_service("app", "web").collect::<Vec<_>>(),
        [want]
    );
    assert_eq!(t.left_out_at(ip(OTHER_IP)).count(), 0);
    let ex = t.explain(&get(SVC_IP, 80, "/"), 0);
    assert_eq!(ex.left_out, [want]);
    assert!(ex.to_string().contains(&format!("left out:  {want}")));
}

// Gateway API ParentReference: ExternalName Services are neither parents nor backends.
#[test]
fn external_name_service_is_not_a_parent_or_backend() {
    let mut input = base();
    let mut ext = service("app", "ext", "10.96.9.9", &[(80, "http")]);
    ext.external_name = true;
    input.services.push(ext);
    input.routes = vec![
        http(
            "app",
            "r",
            vec![svc_parent("app", "ext")],
            vec![rule(vec![prefix("/")], to("v1"))],
        ),
        http(
            "app",
            "s",
            vec![svc_parent("app", "web")],
            vec![rule(vec![prefix("/")], to("ext"))],
        ),
    ];
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    assert_eq!(
        outcome(&t.resolve(&get("10.96.9.9", 80, "/"), 0)),
        "passthrough"
    );
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "HTTP 500");
}

// GEP-1294 ports (conformance MeshPorts): parentRef.port limits the route to that Service port.
#[test]
fn parent_port_limits_route_to_that_service_port() {
    let mut r = simple("app", "r", "v1");
    r.parents[0].port = Some(80);
    let t = table(vec![r]);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "v1");
    assert_eq!(
        outcome(&t.resolve(&get(SVC_IP, 8080, "/"), 0)),
        "passthrough"
    );
}

// GEP-1294 ports: no port means every port of the Service.
#[test]
fn parent_without_port_applies_to_every_port() {
    let t = table(vec![simple("app", "r", "v1")]);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "v1");
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 8080, "/"), 0)), "v1");
}

// GEP-1294 ports: sectionName is the Service port name; port and sectionName must name the same
// port.
#[test]
fn section_name_is_the_service_port_name() {
    let mut r = simple("app", "r", "v1");
    r.parents[0].section_name = Some("http-alt".into());
    let t = table(vec![r.clone()]);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "passthrough");
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 8080, "/"), 0)), "v1");
    r.parents[0].port = Some(80);
    let t = table(vec![r]);
    assert_eq!(t.stats().bindings, 0);
    assert_eq!(
        t.parent_conditions()[0].condition(ACCEPTED).unwrap().reason,
        NO_MATCHING_PARENT
    );
}

// GEP-1294 namespace boundaries: consumer routes apply only to clients in the route's namespace.
#[test]
fn consumer_routes_apply_only_to_their_namespace() {
    let producer = simple("app", "prod", "v1");
    let mut consumer = simple("client", "cons", "v2");
    consumer.rules[0].backends = smallvec![backend("app", "v2", 80, 1)];
    let t = table(vec![producer, consumer]);
    let from = |ns: &'static str| get(SVC_IP, 80, "/").from_namespace(ns);
    assert_eq!(outcome(&t.resolve(&from("client"), 0)), "v2");
    assert_eq!(outcome(&t.resolve(&from("app"), 0)), "v1");
    assert_eq!(outcome(&t.resolve(&from("elsewhere"), 0)), "v1");
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "v1");
}

// GEP-1294 namespace boundaries: consumer routes replace producer routes for their namespace: no
// merge, no fallback.
#[test]
fn consumer_routes_replace_producer_routes_without_fallback() {
    let producer = simple("app", "prod", "v1");
    let consumer = http(
        "client",
        "cons",
        vec![svc_parent("app", "web")],
        vec![rule(
            vec![prefix("/only")],
            vec![backend("app", "v2", 80, 1)],
        )],
    );
    let t = table(vec![producer, consumer]);
    let r = get(SVC_IP, 80, "/other").from_namespace("client");
    assert_eq!(outcome(&t.resolve(&r, 0)), "HTTP 404");
    let r = get(SVC_IP, 80, "/only/x").from_namespace("client");
    assert_eq!(outcome(&t.resolve(&r, 0)), "v2");
}

// GEP-1294 namespace boundaries: with only consumer routes, other clients see plain Kubernetes
// behaviour.
#[test]
fn consumer_routes_only_leave_other_clients_unrouted() {
    let consumer = simple("client", "cons", "v2");
    let t = table(vec![consumer]);
    assert_eq!(
        outcome(&t.resolve(&get(SVC_IP, 80, "/").from_namespace("app"), 0)),
        "passthrough"
    );
}

// Gateway API ParentReference and HTTPRouteRule.matches: when routes are bound, a request matching
// none of them gets 404.
#[test]
fn unmatched_request_gets_404() {
    let r = http(
        "app",
        "r",
        vec![svc_parent("app", "web")],
        vec![rule(vec![exact("/a")], to("v1"))],
    );
    let t = table(vec![r]);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/b"), 0)), "HTTP 404");
}

// GEP-1294 route types: GRPCRoute > HTTPRoute > TLSRoute > TCPRoute on one Service port; losers
// Conflicted.
#[test]
fn route_kind_precedence_on_a_service_port_and_conflicted_losers() {
    let grpc = route(
        RouteKind::Grpc,
        "app",
        "g",
        vec![svc_parent("app", "web")],
        vec![rule(
            vec![MatchIr::Grpc {
                service: None,
                method: None,
                headers: vec![],
            }],
            to("v2"),
        )],
    );
    let httpr = simple("app", "h", "v1");
    let tcp = route(
        RouteKind::Tcp,
        "app",
        "t",
        vec![svc_parent("app", "web")],
        vec![rule(vec![], to("v1"))],
    );
    let t = table(vec![tcp.clone(), httpr.clone(), grpc]);
    let g = Request::grpc(ip(SVC_IP), 80, "/pkg.S/M");
    assert_eq!(outcome(&t.resolve(&g, 0)), "v2");
    // an HTTP request cannot match GRPCRoute rules: 404, no fallback to the HTTPRoute
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "HTTP 404");
    for st in t.parent_conditions() {
        let acc = st.condition(ACCEPTED).unwrap();
        if st.kind == RouteKind::Grpc {
            assert!(acc.status);
        } else {
            assert!(!acc.status, "{st:?}");
            assert_eq!(acc.reason, CONFLICTED);
        }
    }
    // without the GRPCRoute, HTTP wins over TCP
    let t = table(vec![tcp, httpr]);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "v1");
    let tcp_st = t
        .parent_conditions()
        .iter()
        .find(|s| s.kind == RouteKind::Tcp)
        .unwrap();
    assert_eq!(tcp_st.condition(ACCEPTED).unwrap().reason, CONFLICTED);
}

// GEP-1294 route types; Gateway API route conditions: a route that wins on one port and loses on
// another stays Accepted.
#[test]
fn route_losing_on_one_port_only_stays_accepted() {
    let mut httpr = simple("app", "h", "v1");
    httpr.parents[0].port = Some(80);
    let tcp = route(
        RouteKind::Tcp,
        "app",
        "t",
        vec![svc_parent("app", "web")],
        vec![rule(vec![], to("v1"))],
    );
    let t = table(vec![httpr, tcp]);
    let tcp_st = t
        .parent_conditions()
        .iter()
        .find(|s| s.kind == RouteKind::Tcp)
        .unwrap();
    assert!(tcp_st.condition(ACCEPTED).unwrap().status);
    let c = Request::connection(ip(SVC_IP), 8080, Protocol::Tcp);
    assert_eq!(outcome(&t.resolve(&c, 0)), "v1");
}

// GEP-1294 multiple routes for a Service: a backendRef naming the parent Service goes to its
// endpoints (no recursion).
#[test]
fn backend_ref_to_parent_service_is_not_routed_again() {
    let mut input = base();
    input.routes = vec![http(
        "app",
        "self",
        vec![svc_parent("app", "web")],
        vec![rule(vec![prefix("/")], vec![backend("app", "web", 80, 1)])],
    )];
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    let d = t.resolve(&get(SVC_IP, 80, "/x"), 0);
    let Decision::Forward(f) = d else {
        panic!("{d:?}")
    };
    assert_eq!(
        (f.backend.namespace, f.backend.name, f.backend.port),
        ("app", "web", Some(80))
    );
}

// GEP-1294 namespace boundaries: mesh backendRefs across namespaces need no ReferenceGrant by
// default; a policy switch enforces it (500 + RefNotPermitted).
#[test]
fn cross_namespace_backend_reference_grant_policy() {
    let r = http(
        "app",
        "r",
        vec![svc_parent("app", "web")],
        vec![rule(
            vec![prefix("/")],
            vec![backend("client", "local", 80, 1)],
        )],
    );
    let t = table(vec![r.clone()]);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "local");
    let opts = BuildOptions::default().with_mesh_reference_grants(MeshReferenceGrants::Enforce);
    let t = table_with(vec![r.clone()], &opts);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "HTTP 500");
    let refs = t.parent_conditions()[0].condition(RESOLVED_REFS).unwrap();
    assert_eq!(
        (refs.status, refs.reason.as_str()),
        (false, "RefNotPermitted")
    );
    // with a grant in the target namespace it resolves
    let mut input = base();
    input.routes = vec![r];
    input.grants.push(GrantIr {
        namespace: "client".into(),
        from: vec![(
            "gateway.networking.k8s.io".into(),
            "HTTPRoute".into(),
            "app".into(),
        )],
        to: vec![(String::new(), "Service".into(), None)],
    });
    let t = RouteTable::from_input(&input, &opts);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "local");
}

// GEP-1294 hostnames field: hostnames on mesh routes are ignored by default; MatchHostHeader makes
// them filter.
#[test]
fn mesh_hostnames_ignored_by_default_and_matched_under_policy() {
    let mut r = simple("app", "r", "v1");
    r.hostnames = vec!["bar.com".into()];
    let t = table(vec![r.clone()]);
    assert_eq!(
        outcome(&t.resolve(&get(SVC_IP, 80, "/").with_host("foo"), 0)),
        "v1"
    );
    let opts = BuildOptions::default().with_mesh_hostnames(MeshHostnames::MatchHostHeader);
    let t = table_with(vec![r], &opts);
    assert_eq!(
        outcome(&t.resolve(&get(SVC_IP, 80, "/").with_host("foo"), 0)),
        "HTTP 404"
    );
    assert_eq!(
        outcome(&t.resolve(&get(SVC_IP, 80, "/").with_host("bar.com"), 0)),
        "v1"
    );
    assert_eq!(
        outcome(&t.resolve(&get(SVC_IP, 80, "/").with_host("BAR.com:80"), 0)),
        "v1"
    );
}

// GEP-1294 implicit backendRef; Gateway API HTTPRouteRule.backendRefs: a known Service without
// ready endpoints gets 503 for its share.
#[test]
fn backend_without_ready_endpoints_gets_503() {
    let mut input = base();
    input.services[2].ready = Some(false);
    input.routes = vec![simple("app", "r", "v1")];
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "HTTP 503");
}

// GEP-1294 implicit backendRef: a mesh rule without backendRefs (and no answering filter) returns
// 500; never the parent Service.
#[test]
fn rule_without_backends_gets_500() {
    let r = http(
        "app",
        "r",
        vec![svc_parent("app", "web")],
        vec![rule(vec![prefix("/")], vec![])],
    );
    let t = table(vec![r]);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "HTTP 500");
}

// Gateway API HTTPRouteRule.backendRefs: an invalid backend keeps its weighted share, which
// gets 500.
#[test]
fn invalid_backend_share_gets_500_proportionally() {
    let r = http(
        "app",
        "r",
        vec![svc_parent("app", "web")],
        vec![rule(
            vec![prefix("/")],
            vec![
                backend("app", "v1", 80, 1),
                backend("app", "missing", 80, 1),
            ],
        )],
    );
    let t = table(vec![r]);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "v1");
    assert_eq!(
        outcome(&t.resolve(&get(SVC_IP, 80, "/"), u64::MAX)),
        "HTTP 500"
    );
    // entropy at the midpoints of n equal slices of the u64 range
    let n = 1000u128;
    let mid = |i: u128| u64::try_from((2 * i + 1) * (1u128 << 64) / (2 * n)).unwrap();
    let errors = (0..n)
        .filter(|i| outcome(&t.resolve(&get(SVC_IP, 80, "/"), mid(*i))) == "HTTP 500")
        .count();
    assert_eq!(errors, 500);
    let refs = t.parent_conditions()[0].condition(RESOLVED_REFS).unwrap();
    assert_eq!(
        (refs.status, refs.reason.as_str()),
        (false, "BackendNotFound")
    );
    // HTTPRoute stays Accepted with an invalid backend (GEP-1364)
    assert!(t.parent_conditions()[0].condition(ACCEPTED).unwrap().status);
}

// Gateway API BackendRef.weight: weight 0 gets nothing; all weights zero gives 500.
#[test]
fn zero_weights_get_nothing_and_all_zero_gets_500() {
    let r = http(
        "app",
        "r",
        vec![svc_parent("app", "web")],
        vec![rule(
            vec![prefix("/")],
            vec![backend("app", "v1", 80, 0), backend("app", "v2", 80, 3)],
        )],
    );
    let t = table(vec![r]);
    for e in [0, 1 << 40, u64::MAX] {
        assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), e)), "v2");
    }
    let r = http(
        "app",
        "r",
        vec![svc_parent("app", "web")],
        vec![rule(
            vec![prefix("/")],
            vec![backend("app", "v1", 80, 0), backend("app", "v2", 80, 0)],
        )],
    );
    let t = table(vec![r]);
    let d = t.resolve(&get(SVC_IP, 80, "/"), 7);
    assert_eq!(outcome(&d), "HTTP 500");
    let Decision::Respond(resp) = d else { panic!() };
    assert_eq!(resp.reason, RespondReason::AllWeightsZero);
}

// Gateway API GRPCRouteRule.matches and HTTPRouteRule.backendRefs: gRPC gets UNIMPLEMENTED where
// HTTP gets 404 and UNAVAILABLE for 500/503.
#[test]
fn grpc_status_equivalents() {
    let g = route(
        RouteKind::Grpc,
        "app",
        "g",
        vec![svc_parent("app", "web")],
        vec![rule(
            vec![MatchIr::Grpc {
                service: Some(StrMatch::Exact("pkg.S".into())),
                method: None,
                headers: vec![],
            }],
            vec![backend("app", "missing", 80, 1)],
        )],
    );
    let t = table(vec![g]);
    let d = t.resolve(&Request::grpc(ip(SVC_IP), 80, "/pkg.Other/M"), 0);
    assert_eq!(d.status(), Some(Status::Grpc(GrpcCode::Unimplemented)));
    let d = t.resolve(&Request::grpc(ip(SVC_IP), 80, "/pkg.S/M"), 0);
    assert_eq!(d.status(), Some(Status::Grpc(GrpcCode::Unavailable)));
}

// Gateway API route conditions: some rules invalid -> Accepted=True + PartiallyInvalid "Dropped
// Rule"; all invalid -> Accepted=False with the rule's reason.
#[test]
fn dropped_rules_report_partially_invalid() {
    let mut r = http(
        "app",
        "r",
        vec![svc_parent("app", "web")],
        vec![
            rule(vec![prefix("/a")], to("v1")),
            rule(vec![prefix("/b")], to("v2")),
        ],
    );
    r.rules[1].invalid = Some(Invalid {
        reason: "IncompatibleFilters",
        message: "bad".into(),
    });
    let t = table(vec![r.clone()]);
    let st = &t.parent_conditions()[0];
    assert!(st.condition(ACCEPTED).unwrap().status);
    let pi = st.condition(PARTIALLY_INVALID).unwrap();
    assert!(pi.status && pi.message.starts_with("Dropped Rule"));
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/b"), 0)), "HTTP 404");
    r.rules[0].invalid = Some(Invalid {
        reason: "UnsupportedValue",
        message: "bad".into(),
    });
    let t = table(vec![r]);
    let acc = t.parent_conditions()[0]
        .condition(ACCEPTED)
        .unwrap()
        .clone();
    assert_eq!(
        (acc.status, acc.reason.as_str()),
        (false, "UnsupportedValue")
    );
    assert!(
        t.parent_conditions()[0]
            .condition(PARTIALLY_INVALID)
            .is_none()
    );
}

// GEP-2644 conflict management: among TCPRoutes on one Service port, the oldest wins.
#[test]
fn tcp_routes_oldest_wins() {
    let a = created(
        route(
            RouteKind::Tcp,
            "app",
            "a",
            vec![svc_parent("app", "web")],
            vec![rule(vec![], to("v1"))],
        ),
        20,
    );
    let b = created(
        route(
            RouteKind::Tcp,
            "app",
            "b",
            vec![svc_parent("app", "web")],
            vec![rule(vec![], to("v2"))],
        ),
        10,
    );
    let t = table(vec![a, b]);
    let c = Request::connection(ip(SVC_IP), 80, Protocol::Tcp);
    assert_eq!(outcome(&t.resolve(&c, 0)), "v2");
}

// GEP-2643 TLSRoute; GEP-1294 hostnames field: in mesh, TLSRoute hostnames are ignored by default
// (the oldest route wins); with MatchHostHeader they are matched against SNI.
#[test]
fn tls_routes_by_sni() {
    let mut a = route(
        RouteKind::Tls,
        "app",
        "a",
        vec![svc_parent("app", "web")],
        vec![rule(vec![], to("v1"))],
    );
    a.hostnames = vec!["a.example.com".into()];
    let mut b = route(
        RouteKind::Tls,
        "app",
        "b",
        vec![svc_parent("app", "web")],
        vec![rule(vec![], to("v2"))],
    );
    b.hostnames = vec!["*.example.com".into()];
    let opts = BuildOptions::default().with_mesh_hostnames(MeshHostnames::MatchHostHeader);
    let t = table_with(vec![a, b], &opts);
    let c = |sni: &'static str| Request::connection(ip(SVC_IP), 80, Protocol::Tls).with_sni(sni);
    assert_eq!(outcome(&t.resolve(&c("a.example.com"), 0)), "v1");
    assert_eq!(outcome(&t.resolve(&c("x.example.com"), 0)), "v2");
    assert_eq!(
        outcome(&t.resolve(&c("example.org"), 0)),
        "connection rejected"
    );
}

// GEP-1294 route types: UDPRoutes are orthogonal to the TCP kind precedence and bind UDP ports
// only.
#[test]
fn udp_routes_bind_udp_ports() {
    let mut input = base();
    input.services.push(ServiceIr {
        namespace: "app".into(),
        name: "dns".into(),
        cluster_ips: vec![ip("10.96.0.53")],
        headless: false,
        ports: vec![
            ServicePortIr {
                name: Some("udp".into()),
                port: 53,
                protocol: L4::Udp,
                app_protocol: None,
            },
            ServicePortIr {
                name: Some("tcp".into()),
                port: 53,
                protocol: L4::Tcp,
                app_protocol: None,
            },
        ],
        ..ServiceIr::default()
    });
    input.routes = vec![route(
        RouteKind::Udp,
        "app",
        "u",
        vec![svc_parent("app", "dns")],
        vec![rule(vec![], to("v1"))],
    )];
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    let udp = Request::connection(ip("10.96.0.53"), 53, Protocol::Udp);
    assert_eq!(outcome(&t.resolve(&udp, 0)), "v1");
    let tcp = Request::connection(ip("10.96.0.53"), 53, Protocol::Tcp);
    assert_eq!(outcome(&t.resolve(&tcp, 0)), "passthrough");
}

// API: an embedder builds only the (route, parent) pairs it owns.
#[test]
fn build_options_include_only_owned_pairs() {
    let mine = simple("app", "mine", "v1");
    let mut theirs = simple("app", "theirs", "v2");
    theirs.rules[0].matches = smallvec![exact("/theirs")];
    let opts = BuildOptions::default().with_include([RouteParentKey {
        kind: RouteKind::Http,
        namespace: "app".into(),
        name: "mine".into(),
        parent_index: 0,
    }]);
    let t = table_with(vec![mine, theirs], &opts);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/theirs"), 0)), "v1");
    assert_eq!(t.parent_conditions().len(), 1);
    assert_eq!(t.parent_conditions()[0].name, "mine");
}

// Gateway API HTTPRouteRule.filters: ExtensionRef filters are never skipped: by default the rule
// answers 500 and reports InvalidKind; with ExtensionRefs::PassThrough they are handed to the
// embedder.
#[test]
fn extension_ref_filters_are_never_skipped() {
    let mut r = simple("app", "r", "v1");
    r.rules[0].filters.extensions = vec!["example.com/Auth/a".into()];
    let t = table(vec![r.clone()]);
    assert_eq!(outcome(&t.resolve(&get(SVC_IP, 80, "/"), 0)), "HTTP 500");
    let refs = t.parent_conditions()[0].condition(RESOLVED_REFS).unwrap();
    assert_eq!(refs.reason, "InvalidKind");
    let t = table_with(
        vec![r],
        &BuildOptions::default().with_extension_refs(ExtensionRefs::PassThrough),
    );
    let Decision::Forward(f) = t.resolve(&get(SVC_IP, 80, "/"), 0) else {
        panic!()
    };
    assert_eq!(f.extensions, ["example.com/Auth/a".to_string()]);
}

// Gateway API HTTPHeaderFilter and HTTPRequestMirrorFilter: header modifiers, mirrors, timeouts are
// carried in the Forward decision; a mirror whose backend does not resolve is not configured.
#[test]
fn forward_carries_filters_and_drops_unresolved_mirrors() {
    let mut r = simple("app", "r", "v1");
    r.rules[0].filters.request_headers.set = vec![("x-a".into(), "1".into())];
    r.rules[0].filters.mirrors = vec![
        MirrorIr {
            backend: backend("app", "v2", 80, 1),
            fraction: (50, 100),
        },
        MirrorIr {
            backend: backend("app", "nope", 80, 1),
            fraction: (100, 100),
        },
    ];
    r.rules[0].timeouts = Some(RuleTimeouts::new(
        Some(std::time::Duration::from_secs(10)),
        None,
    ));
    r.rules[0].retry = Some(RetryPolicy::new([503], None, None));
    let t = table(vec![r]);
    let Decision::Forward(f) = t.resolve(&get(SVC_IP, 80, "/"), 0) else {
        panic!()
    };
    assert_eq!(
        f.request_headers.set,
        [("x-a".to_string(), "1".to_string())]
    );
    assert_eq!(f.mirrors.len(), 1);
    assert_eq!(
        (f.mirrors[0].name.as_str(), f.mirrors[0].numerator),
        ("v2", 50)
    );
    // GEP-1742 timeouts and GEP-1731 retry reach the data plane typed, attempts defaulted
    assert_eq!(
        f.timeouts.and_then(|t| t.request),
        Some(std::time::Duration::from_secs(10))
    );
    assert_eq!(
        f.retry.map(|r| (r.attempts(), r.is_disabled())),
        Some((1, false))
    );
    assert_eq!(
        serde_json::to_value(f.timeouts).unwrap(),
        serde_json::json!({"request": "10s"})
    );
    let refs = t.parent_conditions()[0].condition(RESOLVED_REFS).unwrap();
    assert_eq!(refs.reason, "BackendNotFound");
}
