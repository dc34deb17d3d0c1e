//! SMI TrafficTarget authorization, checked against smi-spec
//! `apis/traffic-access/v1alpha1..v1alpha3`: "Access control in this specification is additive,
//! all traffic is denied by default" once a TrafficTarget selects a destination.

use gamma_model::{ObjectKey, ResourceKind, Snapshot, decode};
use gamma_smi::{AccessRequest, Authorizer, ServiceAccountRef};

fn authz(yaml: &str) -> Authorizer {
    Authorizer::build(&Snapshot::from_resources(decode(yaml).unwrap()))
}

fn id(s: &str) -> ServiceAccountRef {
    s.parse().unwrap()
}

/// The v1alpha3 "Example implementation for L7", with the sources spread over namespaces.
const L7: &str = r#"
apiVersion: specs.smi-spec.io/v1alpha4
kind: TCPRoute
metadata: {name: api-service-port, namespace: default}
spec: {matches: {ports: [8080]}}
---
apiVersion: specs.smi-spec.io/v1alpha4
kind: HTTPRouteGroup
metadata: {name: api-service-routes, namespace: default}
spec:
  matches:
  - {name: api, pathRegex: /api, methods: ["*"]}
  - {name: metrics, pathRegex: /metrics, methods: [GET]}
  - {name: canary, pathRegex: "/v[0-9]+/items", headers: {x-canary: "true|yes"}}
---
apiVersion: access.smi-spec.io/v1alpha3
kind: TrafficTarget
metadata: {name: api-service-metrics, namespace: default}
spec:
  destination: {kind: ServiceAccount, name: api-service, namespace: default}
  rules:
  - {kind: TCPRoute, name: api-service-port}
  - {kind: HTTPRouteGroup, name: api-service-routes, matches: [metrics]}
  sources:
  - {kind: ServiceAccount, name: prometheus, namespace: monitoring}
---
apiVersion: access.smi-spec.io/v1alpha3
kind: TrafficTarget
metadata: {name: api-service-api, namespace: default}
spec:
  destination: {kind: ServiceAccount, name: api-service, namespace: default}
  rules:
  - {kind: TCPRoute, name: api-service-port}
  - {kind: HTTPRouteGroup, name: api-service-routes, matches: [api, canary]}
  sources:
  - {kind: ServiceAccount, name: website-service}
  - {kind: ServiceAccount, name: payments-service, namespace: payments}
"#;

// The spec's table: website /api *, payments /api *, prometheus /metrics GET.
#[test]
fn the_spec_l7_example_allows_exactly_its_table() {
    let a = authz(L7);
    let api = id("default/api-service");
    let allow = |src: &str, m: &str, p: &str| {
        a.authorize(&id(src), &api, &AccessRequest::http(m, p).on_port(8080))
    };
    let v = allow("default/website-service", "DELETE", "/api/orders");
    assert!(v.allowed, "{}", v.explanation);
    assert_eq!(
        v.by,
        Some(ObjectKey::new(
            ResourceKind::TrafficTarget,
            "default",
            "api-service-api"
        ))
    );
    assert!(allow("payments/payments-service", "POST", "/api").allowed);
    let prom = allow("monitoring/prometheus", "GET", "/metrics");
    assert!(prom.allowed);
    assert_eq!(prom.by.unwrap().name, "api-service-metrics");
    // Everything else is denied by default.
    assert!(!allow("monitoring/prometheus", "POST", "/metrics").allowed);
    assert!(!allow("monitoring/prometheus", "GET", "/api").allowed);
    assert!(!allow("default/website-service", "GET", "/metrics").allowed);
}

// A source is a ServiceAccount *in a namespace*: omitted means the TrafficTarget's namespace.
#[test]
fn a_source_in_another_namespace_is_a_different_identity() {
    let a = authz(L7);
    let api = id("default/api-service");
    let req = AccessRequest::http("GET", "/api").on_port(8080);
    assert!(
        a.authorize(&id("payments/payments-service"), &api, &req)
            .allowed
    );
    let v = a.authorize(&id("default/payments-service"), &api, &req);
    assert!(!v.allowed);
    assert!(
        v.explanation.contains("not among its sources"),
        "{}",
        v.explanation
    );
    assert!(
        !a.authorize(&id("other/website-service"), &api, &req)
            .allowed
    );
}

// traffic-specs: pathRegex "is anchored (^) to the beginning of the URI".
#[test]
fn path_regex_rules_are_anchored_at_the_start_of_the_path() {
    let a = authz(L7);
    let api = id("default/api-service");
    let web = id("default/website-service");
    let req = |p: &str| AccessRequest::http("GET", p).on_port(8080);
    assert!(a.authorize(&web, &api, &req("/api")).allowed);
    assert!(a.authorize(&web, &api, &req("/api/v1/x")).allowed);
    assert!(!a.authorize(&web, &api, &req("/v1/api")).allowed);
}

// traffic-specs v1alpha2+: header filters are regexes, ANDed with path and methods.
#[test]
fn header_rules_need_every_header_regex_to_match() {
    let a = authz(L7);
    let api = id("default/api-service");
    let web = id("default/website-service");
    let base = || AccessRequest::http("PUT", "/v2/items/7").on_port(8080);
    assert!(!a.authorize(&web, &api, &base()).allowed);
    assert!(
        a.authorize(&web, &api, &base().header("X-Canary", "yes"))
            .allowed
    );
    assert!(
        !a.authorize(&web, &api, &base().header("x-canary", "yesss"))
            .allowed
    );
}

// traffic-specs: "Methods can either be specific (GET) or * to match all methods".
#[test]
fn method_rules_admit_listed_methods_and_star_admits_all() {
    let a = authz(L7);
    let api = id("default/api-service");
    let prom = id("monitoring/prometheus");
    for (m, ok) in [("GET", true), ("HEAD", false), ("DELETE", false)] {
        let v = a.authorize(
            &prom,
            &api,
            &AccessRequest::http(m, "/metrics").on_port(8080),
        );
        assert_eq!(v.allowed, ok, "{m}: {}", v.explanation);
    }
    let web = id("default/website-service");
    for m in ["GET", "OPTIONS", "PATCH"] {
        assert!(
            a.authorize(&web, &api, &AccessRequest::http(m, "/api").on_port(8080))
                .allowed
        );
    }
}

// traffic-access v1alpha3: TCPRoute `matches.ports` limit the ports; the L7 example pairs the
// port rule with HTTPRouteGroup rules, so HTTP on another port is denied.
#[test]
fn tcp_route_rules_limit_ports_for_tcp_and_http() {
    let a = authz(L7);
    let api = id("default/api-service");
    let web = id("default/website-service");
    assert!(a.authorize(&web, &api, &AccessRequest::tcp(8080)).allowed);
    let v = a.authorize(&web, &api, &AccessRequest::tcp(9090));
    assert!(!v.allowed);
    assert!(
        v.explanation.contains("no TCPRoute rule admits port 9090"),
        "{}",
        v.explanation
    );
    assert!(
        !a.authorize(
            &web,
            &api,
            &AccessRequest::http("GET", "/api").on_port(9090)
        )
        .allowed
    );
    let unknown_port = a.authorize(&web, &api, &AccessRequest::http("GET", "/api"));
    assert!(!unknown_port.allowed, "{}", unknown_port.explanation);
}

// traffic-access v1alpha3 "Example implementation for L4": TCP and UDP allowed on 8301 and
// 8302, UDP blocked on 8300.
#[test]
fn the_spec_l4_example_allows_tcp_and_udp_per_port() {
    let a = authz(
        r#"
apiVersion: specs.smi-spec.io/v1alpha4
kind: TCPRoute
metadata: {name: tcp-ports}
spec: {matches: {ports: [8301, 8302, 8300]}}
---
apiVersion: specs.smi-spec.io/v1alpha4
kind: UDPRoute
metadata: {name: udp-ports}
spec: {matches: {ports: [8301, 8302]}}
---
apiVersion: access.smi-spec.io/v1alpha3
kind: TrafficTarget
metadata: {name: protocol-specific}
spec:
  destination: {kind: ServiceAccount, name: server, namespace: default}
  rules: [{kind: TCPRoute, name: tcp-ports}, {kind: UDPRoute, name: udp-ports}]
  sources: [{kind: ServiceAccount, name: client, namespace: default}]
"#,
    );
    let (c, s) = (id("default/client"), id("default/server"));
    for p in [8301, 8302] {
        assert!(a.authorize(&c, &s, &AccessRequest::tcp(p)).allowed);
        assert!(a.authorize(&c, &s, &AccessRequest::udp(p)).allowed);
    }
    assert!(a.authorize(&c, &s, &AccessRequest::tcp(8300)).allowed);
    assert!(!a.authorize(&c, &s, &AccessRequest::udp(8300)).allowed);
    // HTTP is TCP traffic: with TCPRoute rules only, it is allowed on their ports.
    assert!(
        a.authorize(&c, &s, &AccessRequest::http("GET", "/").on_port(8301))
            .allowed
    );
}

#[test]
fn no_traffic_target_at_all_allows_everything() {
    let a = authz(L7);
    let v = a.authorize(
        &id("x/anyone"),
        &id("default/unprotected"),
        &AccessRequest::http("DELETE", "/everything"),
    );
    assert!(v.allowed);
    assert_eq!(v.by, None);
    assert!(
        v.explanation.contains("no TrafficTarget selects"),
        "{}",
        v.explanation
    );
    let empty = Authorizer::build(&Snapshot::new());
    assert!(
        empty
            .authorize(&id("a/b"), &id("c/d"), &AccessRequest::tcp(1))
            .allowed
    );
}

// traffic-access v1alpha1: top-level fields, destination.port; rule `matches` omitted → all.
#[test]
fn v1alpha1_targets_use_destination_port_and_all_matches_when_none_are_named() {
    let a = authz(
        r#"
apiVersion: specs.smi-spec.io/v1alpha1
kind: HTTPRouteGroup
metadata: {name: the-routes, namespace: default}
matches:
- {name: metrics, pathRegex: /metrics, methods: [GET]}
- {name: health, pathRegex: /ping, methods: ["*"]}
---
apiVersion: access.smi-spec.io/v1alpha1
kind: TrafficTarget
metadata: {name: path-specific, namespace: default}
destination: {kind: ServiceAccount, name: service-a, namespace: default, port: 8080}
specs: [{kind: HTTPRouteGroup, name: the-routes}]
sources: [{kind: ServiceAccount, name: prometheus, namespace: default}]
"#,
    );
    let (p, d) = (id("default/prometheus"), id("default/service-a"));
    assert!(
        a.authorize(
            &p,
            &d,
            &AccessRequest::http("GET", "/metrics").on_port(8080)
        )
        .allowed
    );
    assert!(
        a.authorize(&p, &d, &AccessRequest::http("POST", "/ping").on_port(8080))
            .allowed
    );
    let other_port = a.authorize(
        &p,
        &d,
        &AccessRequest::http("GET", "/metrics").on_port(9090),
    );
    assert!(!other_port.allowed);
    assert!(other_port.explanation.contains("only allows port 8080"));
}

#[test]
fn missing_references_admit_nothing_and_are_reported() {
    let a = authz(
        r#"
apiVersion: access.smi-spec.io/v1alpha2
kind: TrafficTarget
metadata: {name: t, namespace: default}
spec:
  destination: {kind: ServiceAccount, name: api}
  rules: [{kind: HTTPRouteGroup, name: gone}]
  sources: [{kind: ServiceAccount, name: web}]
"#,
    );
    let v = a.authorize(
        &id("default/web"),
        &id("default/api"),
        &AccessRequest::http("GET", "/"),
    );
    assert!(!v.allowed, "{}", v.explanation);
    assert!(v.explanation.contains("denied by default"));
    assert_eq!(a.report().findings().len(), 1, "{}", a.report());
    assert_eq!(a.report().findings()[0].field, "spec.rules[0]");
}

#[test]
fn identities_parse_as_namespace_slash_name() {
    assert_eq!(id("ns/sa"), ServiceAccountRef::new("ns", "sa"));
    for bad in ["ns", "/sa", "ns/", "a/b/c"] {
        assert!(bad.parse::<ServiceAccountRef>().is_err(), "{bad}");
    }
}
