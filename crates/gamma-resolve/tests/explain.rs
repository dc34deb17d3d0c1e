//! Explanations and bad input.
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
use gamma_resolve::*;

const IP: &str = "10.96.0.10";

fn table() -> RouteTable {
    let input = TableInput::new()
        .with_services(vec![
            service("app", "web", IP, &[(80, "http")]),
            service("app", "a", "10.96.1.1", &[(80, "")]),
            service("app", "b", "10.96.1.2", &[(80, "")]),
        ])
        .with_routes(vec![
            http(
                "app",
                "r",
                vec![svc_parent("app", "web")],
                vec![
                    rule(
                        vec![with_headers(prefix("/v1"), &[("x-canary", "yes")])],
                        vec![backend("app", "b", 80, 1)],
                    ),
                    rule(vec![prefix("/v1")], vec![backend("app", "a", 80, 1)]),
                    rule(vec![exact("/admin")], vec![backend("app", "a", 80, 1)]),
                ],
            ),
            http(
                "client",
                "c",
                vec![svc_parent("app", "web")],
                vec![rule(vec![prefix("/")], vec![backend("app", "b", 80, 1)])],
            ),
        ]);
    RouteTable::from_input(&input, &BuildOptions::default())
}

// The explanation names the binding, the route set, every candidate in precedence
// order with the first failed condition, and the winner; it agrees with resolve().
#[test]
fn explanation_lists_candidates_in_order_with_first_failure() {
    let t = table();
    let req = Request::http(ip(IP), 80, "GET", "/v1/users").from_namespace("app");
    let ex = t.explain(&req, 0);
    assert!(
        ex.binding.contains("Service app/web port 80"),
        "{}",
        ex.binding
    );
    assert!(
        ex.route_set
            .as_deref()
            .unwrap()
            .starts_with("producer routes"),
        "{ex:?}"
    );
    let c = &ex.candidates;
    assert_eq!(c.len(), 3);
    // exact /admin first (Gateway API HTTPRouteRule.matches precedence, Exact path), then /v1 with
    // a header, then /v1 alone
    assert_eq!(c[0].condition, "Exact /admin");
    // a failed condition names the expected and the actual value
    assert_eq!(
        c[0].failed.as_deref(),
        Some("path: expected Exact /admin, got \"/v1/users\"")
    );
    assert_eq!(
        c[1].failed.as_deref(),
        Some("header x-canary: expected \"yes\", got none")
    );
    // every condition of a match beyond the path is listed, checked against the request
    let header = &c[1].conditions;
    assert_eq!(header.len(), 1, "{header:?}");
    assert_eq!(
        (header[0].field.as_str(), header[0].expected.as_str()),
        ("header x-canary", "\"yes\"")
    );
    assert_eq!(
        (header[0].actual.as_deref(), header[0].matched),
        (None, false)
    );
    assert!(c[2].conditions.is_empty());
    assert_eq!(c[2].failed, None);
    assert_eq!(c[2].rule, 1);
    assert_eq!(ex.winner.as_deref(), Some("HTTPRoute app/r rule 1"));
    assert_eq!(ex.winner, t.resolve(&req, 0).rule().map(|r| r.to_string()));
    let text = ex.to_string();
    assert!(
        text.contains("MATCH") && text.contains("decision:  forward to app/a:80"),
        "{text}"
    );
    let json = serde_json::to_value(&ex).unwrap();
    assert_eq!(json["decisionJson"]["decision"], "forward");
}

// GEP-1294 namespace boundaries in explanations: a consumer namespace's set is named as such.
#[test]
fn explanation_names_consumer_route_set() {
    let t = table();
    let req = Request::http(ip(IP), 80, "GET", "/x").from_namespace("client");
    let ex = t.explain(&req, 0);
    assert!(
        ex.route_set
            .unwrap()
            .starts_with("consumer routes of namespace client")
    );
    let ex = t.explain(&Request::http(ip("10.1.2.3"), 80, "GET", "/"), 0);
    assert!(ex.binding.starts_with("nothing is bound"));
    assert_eq!(
        ex.decision,
        "pass through: no route is bound to the destination"
    );
}

// Bad input: 64 KiB paths, 10,000 headers and invalid UTF-8 header values resolve
// without panicking (bounded work: one hash probe per configured prefix length).
#[test]
fn pathological_requests_resolve_without_panic() {
    let t = table();
    let long = format!("/v1/{}", "a/".repeat(32 * 1024));
    let req = Request::http(ip(IP), 80, "GET", &long);
    assert!(matches!(t.resolve(&req, 0), Decision::Forward(_)));
    let slashes = "/".repeat(64 * 1024);
    let req = Request::http(ip(IP), 80, "GET", &slashes);
    assert!(matches!(t.resolve(&req, 0), Decision::Respond(_)));
    let many: Vec<(String, String)> = (0..10_000)
        .map(|i| (format!("h{i}"), "v".to_string()))
        .collect();
    let req = Request::http(ip(IP), 80, "GET", "/v1").with_headers(&many);
    assert!(matches!(t.resolve(&req, 0), Decision::Forward(_)));
    let raw: Vec<(String, Vec<u8>)> = vec![("x-canary".into(), vec![0xff, 0xfe, b'y'])];
    let req = Request::http(ip(IP), 80, "GET", "/v1").with_headers(&raw);
    let Decision::Forward(f) = t.resolve(&req, 0) else {
        panic!()
    };
    assert_eq!(f.backend.name, "a");
    let weird_host = "\u{0}:\u{ffff}@[::1:99999";
    let req = Request::http(ip(IP), 80, "GET", "/v1").with_host(weird_host);
    let _ = t.resolve(&req, 0);
    let _ = t.explain(&req, 0);
}

// Bad input at build time: invalid regexes and oversized patterns drop the match/rule instead
// of failing the table or panicking.
#[test]
fn invalid_regexes_are_dropped_not_fatal() {
    let bad = MatchIr::Http {
        path: PathMatchIr::Regex("(".into()),
        method: None,
        headers: vec![],
        query: vec![],
    };
    let huge = MatchIr::Http {
        path: PathMatchIr::Regex("(a{1000}){1000}".into()),
        method: None,
        headers: vec![],
        query: vec![],
    };
    let input = TableInput::new()
        .with_services(vec![
            service("app", "web", IP, &[(80, "http")]),
            service("app", "a", "10.96.1.1", &[(80, "")]),
        ])
        .with_routes(vec![http(
            "app",
            "r",
            vec![svc_parent("app", "web")],
            vec![rule(
                vec![bad, huge, exact("/ok")],
                vec![backend("app", "a", 80, 1)],
            )],
        )]);
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    let Decision::Forward(_) = t.resolve(&Request::http(ip(IP), 80, "GET", "/ok"), 0) else {
        panic!()
    };
    assert_eq!(t.stats().regexes, 0);
}

// Gateway API GRPCRoute cross serving: on a Gateway listener GRPCRoutes and HTTPRoutes coexist; a
// gRPC request that no GRPCRoute takes falls through to the HTTPRoutes. The explanation lists the
// gRPC candidates first, then the HTTPRoute candidates the request fell through to, and agrees with
// resolve().
#[test]
fn explanation_lists_http_candidates_a_grpc_request_falls_through_to() {
    const GW_IP: &str = "192.0.2.10";
    let grpc = route(
        RouteKind::Grpc,
        "app",
        "g",
        vec![gw_parent("app", "gw")],
        vec![rule(
            vec![MatchIr::Grpc {
                service: Some(StrMatch::Exact("pkg.Other".into())),
                method: None,
                headers: vec![],
            }],
            vec![backend("app", "a", 80, 1)],
        )],
    );
    let input = TableInput::new()
        .with_services(vec![
            service("app", "a", "10.96.1.1", &[(80, "")]),
            service("app", "b", "10.96.1.2", &[(80, "")]),
        ])
        .with_gateways(vec![GatewayIr {
            namespace: "app".into(),
            name: "gw".into(),
            addresses: vec![ip(GW_IP)],
            listeners: vec![ListenerIr {
                name: "http".into(),
                port: 80,
                ..ListenerIr::default()
            }],
            ..GatewayIr::default()
        }])
        .with_routes(vec![
            grpc,
            http(
                "app",
                "h",
                vec![gw_parent("app", "gw")],
                vec![
                    rule(vec![exact("/nope")], vec![backend("app", "a", 80, 1)]),
                    rule(vec![prefix("/pkg.S")], vec![backend("app", "b", 80, 1)]),
                ],
            ),
        ]);
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    let req = Request::grpc(ip(GW_IP), 80, "/pkg.S/M");
    let ex = t.explain(&req, 0);
    let rows: Vec<(&str, Option<&str>)> = ex
        .candidates
        .iter()
        .map(|c| (c.route.as_str(), c.failed.as_deref()))
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                "GRPCRoute app/g",
                Some("gRPC service/method: expected service pkg.Other, got \"pkg.S/M\"")
            ),
            (
                "HTTPRoute app/h",
                Some("path: expected Exact /nope, got \"/pkg.S/M\"")
            ),
            ("HTTPRoute app/h", None),
        ],
        "{ex}"
    );
    assert_eq!(ex.winner.as_deref(), Some("HTTPRoute app/h rule 1"));
    assert_eq!(ex.winner, t.resolve(&req, 0).rule().map(|r| r.to_string()));
}
