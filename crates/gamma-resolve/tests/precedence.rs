//! One test per matching/precedence rule (HTTPRoute CRD v1.6.1; Gateway API HTTPRouteRule.matches
//! precedence), through the whole engine.
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

fn table(routes: Vec<RouteIr>) -> RouteTable {
    let input = TableInput::new()
        .with_services(vec![
            service("app", "web", IP, &[(80, "http")]),
            service("app", "a", "10.96.1.1", &[(80, "")]),
            service("app", "b", "10.96.1.2", &[(80, "")]),
            service("app", "c", "10.96.1.3", &[(80, "")]),
        ])
        .with_routes(routes);
    RouteTable::from_input(&input, &BuildOptions::default())
}

fn r(name: &str, rules: Vec<RuleIr>) -> RouteIr {
    http("app", name, vec![svc_parent("app", "web")], rules)
}

fn to(n: &str) -> Vec<BackendIr> {
    vec![backend("app", n, 80, 1)]
}

/// Which backend a request goes to (or the status).
fn pick(t: &RouteTable, method: &str, path: &str, headers: &[(&str, &str)]) -> String {
    let req = Request::http(ip(IP), 80, method, path).with_headers(&headers);
    match t.resolve(&req, 0) {
        Decision::Forward(f) => f.backend.name.to_string(),
        other => other.status().map(|s| s.to_string()).unwrap_or_default(),
    }
}

// Gateway API HTTPRouteRule.matches precedence, Exact path and conformance
// httproute-path-match-order: Exact beats any prefix.
#[test]
fn exact_path_beats_prefix() {
    let t = table(vec![r(
        "x",
        vec![
            rule(vec![prefix("/match/")], to("a")),
            rule(vec![exact("/match")], to("b")),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/match", &[]), "b");
    assert_eq!(pick(&t, "GET", "/match/exact", &[]), "a");
}

// Gateway API HTTPRouteRule.matches precedence, longest PathPrefix: the longest PathPrefix wins (on
// segment boundaries).
#[test]
fn longest_prefix_wins() {
    let t = table(vec![r(
        "x",
        vec![
            rule(vec![prefix("/match/prefix/")], to("a")),
            rule(vec![prefix("/match/prefix/one")], to("b")),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/match/prefix/one/any", &[]), "b");
    assert_eq!(pick(&t, "GET", "/match/prefix/onex", &[]), "a");
}

// HTTPRoute rule precedence ("most characters in a matching path") with PathMatch's "the
// trailing `/` is ignored": `/a/` and `/a` accept exactly the same paths, so they tie on path
// and the next criteria decide: method, then headers, then query, then rule order.
#[test]
fn prefixes_accepting_the_same_paths_tie_and_fall_through_to_method_headers_query() {
    let t = table(vec![r(
        "x",
        vec![
            rule(vec![prefix("/a/")], to("a")),
            rule(vec![with_method(prefix("/a"), "GET")], to("b")),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/a/x", &[]), "b");
    assert_eq!(pick(&t, "POST", "/a/x", &[]), "a");

    let t = table(vec![r(
        "x",
        vec![
            rule(vec![prefix("/a/")], to("a")),
            rule(vec![with_headers(prefix("/a"), &[("x-v", "1")])], to("b")),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/a", &[("x-v", "1")]), "b");
    assert_eq!(pick(&t, "GET", "/a", &[]), "a");

    let t = table(vec![r(
        "x",
        vec![
            rule(vec![prefix("/a/")], to("a")),
            rule(vec![with_query(prefix("/a"), &[("q", "1")])], to("b")),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/a/b?q=1", &[]), "b");

    // nothing else differs: rule order decides, not the written `/`
    let t = table(vec![r(
        "x",
        vec![
            rule(vec![prefix("/a")], to("a")),
            rule(vec![prefix("/a/")], to("b")),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/a/b", &[]), "a");
    // a longer normalised prefix still wins
    let t = table(vec![r(
        "x",
        vec![
            rule(vec![with_method(prefix("/a/"), "GET")], to("a")),
            rule(vec![prefix("/a/b")], to("b")),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/a/b", &[]), "b");
}

// Gateway API HTTPPathMatch: PathPrefix matches whole segments: /v2 matches /v2, /v2/, /v2/x but
// not /v2example.
#[test]
fn path_prefix_is_segment_based() {
    let t = table(vec![r(
        "x",
        vec![
            rule(vec![prefix("/")], to("a")),
            rule(vec![prefix("/v2")], to("b")),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/v2", &[]), "b");
    assert_eq!(pick(&t, "GET", "/v2/", &[]), "b");
    assert_eq!(pick(&t, "GET", "/v2/example", &[]), "b");
    assert_eq!(pick(&t, "GET", "/v2example", &[]), "a");
    assert_eq!(pick(&t, "GET", "/foo/v2/example", &[]), "a");
}

// Gateway API HTTPRouteRule.matches precedence, method match: a match with a method condition wins
// over one without.
#[test]
fn method_match_wins_tie() {
    let t = table(vec![r(
        "x",
        vec![
            rule(vec![prefix("/p")], to("a")),
            rule(vec![with_method(prefix("/p"), "POST")], to("b")),
        ],
    )]);
    assert_eq!(pick(&t, "POST", "/p", &[]), "b");
    assert_eq!(pick(&t, "GET", "/p", &[]), "a");
}

// Gateway API HTTPRouteRule.matches precedence, most header matches and the worked conformance
// case: most header matches wins.
#[test]
fn more_header_matches_win_and_worked_example() {
    let t = table(vec![r(
        "x",
        vec![
            rule(
                vec![
                    prefix("/"),
                    with_headers(prefix("/"), &[("version", "one")]),
                ],
                to("a"),
            ),
            rule(
                vec![
                    prefix("/v2"),
                    with_headers(prefix("/"), &[("version", "two")]),
                ],
                to("b"),
            ),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/", &[("version", "two")]), "b");
    assert_eq!(pick(&t, "GET", "/", &[("version", "one")]), "a");
    assert_eq!(pick(&t, "GET", "/v2/x", &[]), "b");
}

// Gateway API HTTPRouteRule.matches precedence, most query param matches: most query-param matches
// wins.
#[test]
fn more_query_matches_win() {
    let t = table(vec![r(
        "x",
        vec![
            rule(vec![with_query(prefix("/"), &[("a", "1")])], to("a")),
            rule(
                vec![with_query(prefix("/"), &[("a", "1"), ("b", "2")])],
                to("b"),
            ),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/?a=1&b=2", &[]), "b");
    assert_eq!(pick(&t, "GET", "/?a=1", &[]), "a");
    assert_eq!(pick(&t, "GET", "/?b=2", &[]), "HTTP 404");
}

// Gateway API HTTPRouteRule.matches precedence, oldest Route: across routes, the oldest
// creationTimestamp wins.
#[test]
fn oldest_route_wins_across_routes() {
    let t = table(vec![
        created(r("aaa", vec![rule(vec![prefix("/")], to("a"))]), 200),
        created(r("zzz", vec![rule(vec![prefix("/")], to("b"))]), 100),
    ]);
    assert_eq!(pick(&t, "GET", "/", &[]), "b");
}

// Gateway API HTTPRouteRule.matches precedence, namespace/name order: then "{namespace}/{name}"
// alphabetically (as one string).
#[test]
fn namespace_name_breaks_timestamp_ties() {
    let t = table(vec![
        created(r("b", vec![rule(vec![prefix("/")], to("b"))]), 100),
        created(r("a", vec![rule(vec![prefix("/")], to("a"))]), 100),
    ]);
    assert_eq!(pick(&t, "GET", "/", &[]), "a");
}

// Gateway API HTTPRouteRule.matches precedence, first matching rule: inside the route, the first
// matching rule in list order wins.
#[test]
fn first_rule_in_list_order_wins() {
    let t = table(vec![r(
        "x",
        vec![
            rule(vec![prefix("/")], to("a")),
            rule(vec![prefix("/")], to("b")),
        ],
    )]);
    assert_eq!(pick(&t, "GET", "/", &[]), "a");
}

// Gateway API HTTPRouteRule.matches precedence, most query param matches then oldest Route then
// namespace/name order then first matching rule: match-level criteria beat route age: a newer route
// with a longer prefix wins.
#[test]
fn precedence_is_global_across_routes_not_first_route() {
    let t = table(vec![
        created(r("old", vec![rule(vec![prefix("/")], to("a"))]), 1),
        created(r("new", vec![rule(vec![prefix("/api")], to("b"))]), 2),
    ]);
    assert_eq!(pick(&t, "GET", "/api/x", &[]), "b");
}

// Gateway API HTTPHeaderMatch: header names are case-insensitive; among case-equivalent entries
// only the first counts (so it also counts once for precedence).
#[test]
fn header_names_case_insensitive_first_duplicate_counts() {
    let t = table(vec![r(
        "x",
        vec![rule(
            vec![with_headers(prefix("/"), &[("Foo", "1"), ("foo", "2")])],
            to("a"),
        )],
    )]);
    assert_eq!(pick(&t, "GET", "/", &[("FOO", "1")]), "a");
    assert_eq!(pick(&t, "GET", "/", &[("foo", "2")]), "HTTP 404");
    // the request's first value wins for repeated request headers
    assert_eq!(
        pick(&t, "GET", "/", &[("foo", "2"), ("foo", "1")]),
        "HTTP 404"
    );
}

// Regex matches are full matches (anchored).
#[test]
fn regex_path_is_a_full_match() {
    let m = MatchIr::Http {
        path: PathMatchIr::Regex("/v[0-9]+".into()),
        method: None,
        headers: vec![],
        query: vec![],
    };
    let t = table(vec![r("x", vec![rule(vec![m], to("a"))])]);
    assert_eq!(pick(&t, "GET", "/v12", &[]), "a");
    assert_eq!(pick(&t, "GET", "/v12/x", &[]), "HTTP 404");
    assert_eq!(pick(&t, "GET", "/x/v12", &[]), "HTTP 404");
}

// Implementation choice (Gateway API HTTPPathMatch leaves it open): regex paths rank below every
// prefix.
#[test]
fn regex_path_ranks_below_prefixes() {
    let m = MatchIr::Http {
        path: PathMatchIr::Regex("/api/.*".into()),
        method: None,
        headers: vec![],
        query: vec![],
    };
    let t = table(vec![r(
        "x",
        vec![rule(vec![m], to("a")), rule(vec![prefix("/")], to("b"))],
    )]);
    assert_eq!(pick(&t, "GET", "/api/x", &[]), "b");
}

// Gateway API GRPCRouteRule.matches: GRPCRoute precedence: service characters, then method
// characters, then headers.
#[test]
fn grpc_precedence_service_then_method_then_headers() {
    let gm = |s: Option<&str>, m: Option<&str>, h: &[(&str, &str)]| MatchIr::Grpc {
        service: s.map(|s| StrMatch::Exact(s.into())),
        method: m.map(|m| StrMatch::Exact(m.into())),
        headers: h
            .iter()
            .map(|(k, v)| (k.to_string().into(), StrMatch::Exact(v.to_string().into())))
            .collect(),
    };
    let g = route(
        RouteKind::Grpc,
        "app",
        "g",
        vec![svc_parent("app", "web")],
        vec![
            rule(vec![gm(None, Some("VeryLongMethodName"), &[])], to("a")),
            rule(vec![gm(Some("pkg.S"), None, &[])], to("b")),
            rule(vec![gm(Some("pkg.S"), Some("Get"), &[])], to("c")),
            rule(vec![gm(Some("pkg.S"), None, &[("x", "1")])], to("a")),
        ],
    );
    let t = table(vec![g]);
    let call = |p: &'static str, h: &'static [(&'static str, &'static str)]| {
        let req = Request::grpc(ip(IP), 80, p).with_headers(&h);
        match t.resolve(&req, 0) {
            Decision::Forward(f) => f.backend.name.to_string(),
            other => other.status().map(|s| s.to_string()).unwrap_or_default(),
        }
    };
    assert_eq!(call("/pkg.S/Get", &[]), "c");
    assert_eq!(call("/pkg.S/VeryLongMethodName", &[]), "b");
    assert_eq!(call("/pkg.S/Other", &[("x", "1")]), "a");
    assert_eq!(call("/other.S/VeryLongMethodName", &[]), "a");
    assert_eq!(call("/other.S/Nope", &[]), "gRPC UNIMPLEMENTED");
}

// Gateway API hostname intersection and HTTPRoute hostnames precedence: with MatchHostHeader, an
// exact hostname beats a wildcard, which beats a route without hostnames, regardless of path
// length.
#[test]
fn hostname_specificity_is_the_first_criterion() {
    let mut exact_host = r("e", vec![rule(vec![prefix("/")], to("a"))]);
    exact_host.hostnames = vec!["foo.example.com".into()];
    let mut wild = r("w", vec![rule(vec![prefix("/long/path")], to("b"))]);
    wild.hostnames = vec!["*.example.com".into()];
    let none = r("n", vec![rule(vec![exact("/long/path/x")], to("c"))]);
    let input = TableInput::new()
        .with_services(vec![
            service("app", "web", IP, &[(80, "http")]),
            service("app", "a", "10.96.1.1", &[(80, "")]),
            service("app", "b", "10.96.1.2", &[(80, "")]),
            service("app", "c", "10.96.1.3", &[(80, "")]),
        ])
        .with_routes(vec![exact_host, wild, none]);
    let t = RouteTable::from_input(
        &input,
        &BuildOptions::default().with_mesh_hostnames(MeshHostnames::MatchHostHeader),
    );
    let go = |host: &'static str| {
        let req = Request::http(ip(IP), 80, "GET", "/long/path/x").with_host(host);
        match t.resolve(&req, 0) {
            Decision::Forward(f) => f.backend.name.to_string(),
            other => format!("{other}"),
        }
    };
    assert_eq!(go("foo.example.com"), "a");
    assert_eq!(go("bar.example.com"), "b");
    assert_eq!(go("other.org"), "c");
}
