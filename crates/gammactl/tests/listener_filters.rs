//! Listener pre-routing filters (Gateway API v1.7 experimental, GEP-5224) through the real
//! binary: `explain` shows a listener's filters as the step before route matching, and the
//! decision carries them (text and JSON).

mod common;

use common::{check, run};

const INPUT: &str = "crates/gammactl/tests/fixtures/listener-filters.yaml";

// ListenerFilters: "Implementations MUST execute the filters in the exact order they appear
// here"; "Requests MUST NOT be interpreted as changing which Listener handles the request".
#[test]
fn explain_shows_listener_filters_before_route_matching() {
    check(
        "explain-listener-filters",
        &[
            "explain",
            "-f",
            INPUT,
            "--channel",
            "experimental",
            "--to",
            "gateway/infra/edge:80",
            "--host",
            "api.example.com",
            "GET",
            "/orders/7",
        ],
        0,
    );
}

// The same request through the listener without filters: no filter step, the same route.
#[test]
fn a_listener_without_filters_shows_no_filter_step() {
    let r = run(&[
        "explain",
        "-f",
        INPUT,
        "--channel",
        "experimental",
        "--to",
        "gateway/infra/edge:80",
        "--host",
        "www.example.com",
        "GET",
        "/orders/7",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("listener filters"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("decision:  forward to infra/orders:8080 (by HTTPRoute infra/api rule 0)"),
        "{}",
        r.stdout
    );
}

// An ExtensionRef listener filter the engine cannot apply is never skipped: the request fails
// before routing (500), as a route's ExtensionRef filter does.
#[test]
fn explain_json_carries_the_filters_and_an_extension_ref_fails_the_request() {
    let r = run(&[
        "explain",
        "-f",
        INPUT,
        "--channel",
        "experimental",
        "--to",
        "gateway/infra/edge:81",
        "--host",
        "any.example.com",
        "-o",
        "json",
        "GET",
        "/orders/7",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect(&r.stdout);
    let ex = if v.is_array() { &v[0] } else { &v };
    assert_eq!(
        ex["listenerFilters"][0], "ExtensionRef example.com/Waf strict",
        "{}",
        r.stdout
    );
    let d = &ex["decisionJson"];
    assert_eq!(d["reason"], "UnsupportedListenerFilter", "{}", r.stdout);
    assert_eq!(d["listenerFilters"]["requests"][0]["type"], "ExtensionRef");
}
