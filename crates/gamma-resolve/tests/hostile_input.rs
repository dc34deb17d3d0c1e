//! Hostile input, end to end from manifests: regexes that would compile into huge
//! automata, and requests with 1 MiB paths, 10,000 headers, invalid UTF-8 and percent-encoded
//! slashes. Each resolves to a defined decision without panicking; no timing assertions (the
//! bound is structural: one hash probe per configured prefix length, first-match header lookup).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::net::IpAddr;

use common::manifest::outcome;
use gamma_resolve::status::{ACCEPTED, PARTIALLY_INVALID};
use gamma_resolve::*;

const IP: &str = "10.96.0.11";

fn ip() -> IpAddr {
    IP.parse().unwrap()
}

fn table(rules: &str) -> RouteTable {
    let yaml = format!(
        r#"
apiVersion: v1
kind: Service
metadata: {{name: echo, namespace: app}}
spec: {{clusterIP: {IP}, ports: [{{name: http, port: 80}}]}}
---
apiVersion: v1
kind: Service
metadata: {{name: a, namespace: app}}
spec: {{clusterIP: 10.96.0.12, ports: [{{port: 80}}]}}
---
apiVersion: v1
kind: Service
metadata: {{name: b, namespace: app}}
spec: {{clusterIP: 10.96.0.13, ports: [{{port: 80}}]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: r, namespace: app}}
spec:
  parentRefs: [{{group: "", kind: Service, name: echo}}]
  rules:
{rules}
"#
    );
    common::manifest::table(&yaml)
}

fn get(t: &RouteTable, path: &str) -> String {
    let req = Request::http(ip(), 80, "GET", path);
    let d = outcome(&t.resolve(&req, 0));
    // explain walks the same candidates and must cope with the same input.
    let _ = t.explain(&req, 0).to_string();
    d
}

// Regexes: a pattern the regex crate would compile into a huge automaton is refused by
// the compiled-size limit (gamma_resolve REGEX_SIZE_LIMIT) while building, never by exhausting
// memory; the rule is dropped with reason UnsupportedValue (Gateway API HTTPPathMatch and route
// conditions) and the rest of the route still routes.
#[test]
fn regexes_past_the_size_limit_drop_their_rule_with_unsupported_value() {
    for huge in [
        "(a{1000}){1000}",
        "((a{100}){100}){100}",
        "(?:[\\s\\S]{999}){999}",
        "\\p{L}{500}\\w{500}\\p{Greek}{500}",
    ] {
        let rules = format!(
            r#"  - matches: [{{path: {{type: RegularExpression, value: '{huge}'}}}}]
    backendRefs: [{{name: a, port: 80}}]
  - matches: [{{path: {{type: PathPrefix, value: /ok}}}}]
    backendRefs: [{{name: b, port: 80}}]
"#
        );
        let t = table(&rules);
        assert_eq!(t.stats().regexes, 0, "{huge} compiled");
        let st = &t.parent_conditions()[0];
        assert!(st.condition(ACCEPTED).unwrap().status, "{huge}");
        let pi = st.condition(PARTIALLY_INVALID).unwrap();
        assert_eq!(pi.reason, "UnsupportedValue", "{huge}");
        assert_eq!(get(&t, "/ok"), "b", "{huge}");
        assert_eq!(get(&t, &"a".repeat(1000)), "HTTP 404", "{huge}");
    }
}

// A regex header match just under the limit still compiles and matches in linear time (the
// regex crate guarantees O(pattern × input); no backtracking on `(a+)+`).
#[test]
fn nested_quantifiers_match_without_backtracking_blowup() {
    let t = table(
        r#"  - matches: [{path: {type: RegularExpression, value: '/(a+)+b'}}]
    backendRefs: [{name: a, port: 80}]
"#,
    );
    assert_eq!(t.stats().regexes, 1);
    // The classic catastrophic-backtracking input for (a+)+b; a backtracking engine would not
    // return in any reasonable time.
    let evil = format!("/{}c", "a".repeat(64 * 1024));
    assert_eq!(get(&t, &evil), "HTTP 404");
    assert_eq!(get(&t, "/aaab"), "a");
}

const PREFIX_RULES: &str = r#"  - matches: [{path: {type: PathPrefix, value: /api/v1}}]
    backendRefs: [{name: a, port: 80}]
  - matches: [{path: {type: Exact, value: /api}}]
    backendRefs: [{name: b, port: 80}]
"#;

// Requests with 1 MB paths: a defined decision for a 1 MiB path under a configured
// prefix, a 1 MiB path of slashes, and a 1 MiB path matching nothing (Gateway API HTTPPathMatch
// segment-boundary PathPrefix).
#[test]
fn one_mebibyte_paths_get_a_defined_decision() {
    let t = table(PREFIX_RULES);
    let under = format!("/api/v1/{}", "x/".repeat(512 * 1024));
    assert!(under.len() >= 1 << 20);
    assert_eq!(get(&t, &under), "a");
    assert_eq!(get(&t, &"/".repeat(1 << 20)), "HTTP 404");
    assert_eq!(get(&t, &format!("/api{}", "v".repeat(1 << 20))), "HTTP 404");
    let query = format!("/api?{}", "q=1&".repeat(256 * 1024));
    assert_eq!(get(&t, &query), "b");
}

// Percent-encoded slashes: paths are compared as received (gamma_resolve::path docs);
// `%2F` is not a segment boundary, so `/api%2Fv1` is neither under PathPrefix `/api/v1` nor
// Exact `/api`, and `/api/v1%2F..%2Fadmin` stays under `/api/v1` (no decoding that could escape
// the prefix). Gateway API HTTPPathMatch forbids `%2f`/`%2F` in configured prefixes for this
// reason.
#[test]
fn percent_encoded_slashes_are_not_segment_boundaries() {
    let t = table(PREFIX_RULES);
    assert_eq!(get(&t, "/api%2Fv1"), "HTTP 404");
    assert_eq!(get(&t, "/api%2fv1/x"), "HTTP 404");
    assert_eq!(get(&t, "/api/v1%2F..%2Fadmin"), "HTTP 404");
    assert_eq!(get(&t, "/api/v1/%2F..%2Fadmin"), "a");
    assert_eq!(get(&t, "/api/v1/../admin"), "a");
    assert_eq!(get(&t, "/api%2F"), "HTTP 404");
}

const HEADER_RULES: &str = r#"  - matches: [{headers: [{name: x-canary, value: "yes"}]}]
    backendRefs: [{name: a, port: 80}]
  - matches: [{headers: [{name: x-re, type: RegularExpression, value: "v[0-9]+"}]}]
    backendRefs: [{name: a, port: 80}]
  - backendRefs: [{name: b, port: 80}]
"#;

// 10,000 headers: a request with 10,000 headers resolves, and the first of
// case-equivalent names counts (Gateway API HTTPHeaderMatch) even when it is the last of 10,000.
#[test]
fn ten_thousand_headers_get_a_defined_decision() {
    let t = table(HEADER_RULES);
    let mut many: Vec<(String, String)> = (0..10_000)
        .map(|i| (format!("x-h{i}"), "v".into()))
        .collect();
    let req = Request::http(ip(), 80, "GET", "/").with_headers(&many);
    assert_eq!(outcome(&t.resolve(&req, 0)), "b");
    many.push(("X-Canary".into(), "yes".into()));
    many.push(("x-canary".into(), "no".into()));
    let req = Request::http(ip(), 80, "GET", "/").with_headers(&many);
    assert_eq!(outcome(&t.resolve(&req, 0)), "a");
    let _ = t.explain(&req, 0).to_string();
    // 10,000 copies of the matched name: the first decides.
    let dup: Vec<(String, String)> = std::iter::once(("x-canary".to_string(), "no".to_string()))
        .chain((0..10_000).map(|_| ("x-canary".to_string(), "yes".to_string())))
        .collect();
    let req = Request::http(ip(), 80, "GET", "/").with_headers(&dup);
    assert_eq!(outcome(&t.resolve(&req, 0)), "b");
}

// Invalid UTF-8: header values are bytes; an invalid sequence never equals an Exact
// value written in the route and never matches a regex (documented in gamma_resolve::headers),
// so the request falls through to the next rule instead of failing.
#[test]
fn invalid_utf8_header_values_match_nothing_and_fall_through() {
    let t = table(HEADER_RULES);
    for value in [
        vec![0xff, 0xfe],
        b"yes\xff".to_vec(),
        vec![b'v', b'1', 0x80],
        vec![0xc0, 0xaf],
    ] {
        let headers: Vec<(String, Vec<u8>)> =
            vec![("x-canary".into(), value.clone()), ("x-re".into(), value)];
        let req = Request::http(ip(), 80, "GET", "/").with_headers(&headers);
        assert_eq!(outcome(&t.resolve(&req, 0)), "b");
        let _ = t.explain(&req, 0).to_string();
    }
    // A valid value after the invalid one under another name still counts.
    let headers: Vec<(String, Vec<u8>)> = vec![
        ("x-re".into(), vec![0xff]),
        ("x-canary".into(), b"yes".to_vec()),
    ];
    let req = Request::http(ip(), 80, "GET", "/").with_headers(&headers);
    assert_eq!(outcome(&t.resolve(&req, 0)), "a");
}
