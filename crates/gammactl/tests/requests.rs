//! How `resolve` and `explain` read a request as people type it: positional METHOD PATH, and
//! destinations that bind nothing or name a port the Service does not have.

mod common;

use common::{check, run};

const M: &str = "examples/manifests";
const CHECKOUT: &str = "10.96.10.20:80";

/// The JSON decision of `resolve ARGS -o json` (exit 0).
fn decision(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["resolve", "-f", M, "--from", "shop", "-o", "json"];
    args.extend_from_slice(extra);
    let r = run(&args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    serde_json::from_str(&r.stdout).expect("one JSON decision")
}

#[test]
fn a_lone_path_positional_is_the_path_with_method_get() {
    // shop/checkout routes PathPrefix /api; `/` would reach no rule of it. Reading `/api/orders`
    // as the method (and `/` as the path) would answer a different request.
    let alone = decision(&["--to", CHECKOUT, "/api/orders"]);
    let both = decision(&["--to", CHECKOUT, "GET", "/api/orders"]);
    assert_eq!(alone, both);
    assert_eq!(alone["rule"]["route"]["name"], "checkout");
    let r = run(&["explain", "-f", M, "--to", CHECKOUT, "/api/orders"]);
    assert!(
        r.stdout.starts_with("request:   GET /api/orders to"),
        "{}",
        r.stdout
    );
}

#[test]
fn method_and_path_in_one_argument_are_split() {
    let one = decision(&["--to", CHECKOUT, "GET /api/orders"]);
    let two = decision(&["--to", CHECKOUT, "GET", "/api/orders"]);
    assert_eq!(one, two);
}

#[test]
fn positionals_that_cannot_be_method_path_are_usage_errors() {
    for args in [
        &["/api/orders", "GET"][..],
        &["GET /a /b"][..],
        &["GET api"][..],
        &["GET", "api"][..],
    ] {
        let mut all = vec!["resolve", "-f", M, "--to", CHECKOUT];
        all.extend_from_slice(args);
        let r = run(&all);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stdout.is_empty());
    }
}

#[test]
fn methods_are_case_sensitive_and_kept_as_written() {
    // RFC 9110 section 9.1: the method token is case-sensitive. shop/catalog's rule 0 matches
    // `method: GET` only, so `get` must not be upper-cased into a match.
    let r = run(&[
        "explain",
        "-f",
        M,
        "--to",
        "10.96.10.40:80",
        "get",
        "/api/catalog/items",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("request:   get /api/catalog/items to"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("-> no: method: expected GET, got \"get\"")
            && r.stdout
                .contains("decision:  respond HTTP 404: no rule matched"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("warning: method \"get\" is not \"GET\": HTTP methods are case-sensitive"),
        "{}",
        r.stderr
    );
    // (the sample's bundle, so that the API server would store every object: no warning but
    // the method's would be printed)
    let upper = run(&[
        "resolve",
        "-f",
        M,
        "--channel",
        "experimental",
        "--crd-extension",
        "controllers",
        "--to",
        "10.96.10.40:80",
        "GET",
        "/api/catalog/items",
    ]);
    assert!(upper.stderr.is_empty(), "{}", upper.stderr);
    assert!(
        upper.stdout.starts_with("forward to shop/catalog:80"),
        "{}",
        upper.stdout
    );
}

#[test]
fn a_cluster_ip_on_a_port_the_service_lacks_names_its_ports() {
    let r = check(
        "resolve-no-such-port",
        &["resolve", "-f", M, "--to", "10.96.10.20:1234"],
        1,
    );
    assert!(r.stdout.is_empty());
    assert!(
        r.stderr.contains(
            "Service shop/checkout (10.96.10.20) has no port 1234; its ports: 80/TCP (http), \
             9090/TCP (metrics)"
        ),
        "{}",
        r.stderr
    );
    let by_name = run(&["resolve", "-f", M, "--to", "checkout.shop:1234"]);
    assert_eq!(by_name.code, 1);
    assert!(
        by_name
            .stderr
            .contains("has no port 1234; its ports: 80/TCP"),
        "{}",
        by_name.stderr
    );
}

#[test]
fn an_ip_that_binds_nothing_passes_through_with_the_reason() {
    // GEP-1294: only a Service frontend (cluster IP) binds mesh routes; traffic to a pod IP is
    // not addressed to anything the mesh routes, which gamma-resolve decides as Passthrough.
    let r = check(
        "resolve-unbound-ip",
        &["resolve", "-f", M, "--to", "10.244.1.50:5432"],
        0,
    );
    assert!(r.stdout.starts_with("pass through"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("10.244.1.50 is not the cluster IP of any Service"),
        "{}",
        r.stdout
    );
    let json = run(&["resolve", "-f", M, "--to", "10.244.1.50:5432", "-o", "json"]);
    assert_eq!(json.code, 0);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["decision"], "passthrough");
    assert!(json.stderr.contains("binds no Service frontend"));
}

#[test]
fn authorize_reads_method_and_path_the_same_way() {
    let base = [
        "authorize",
        "-f",
        "examples/manifests/smi",
        "--source",
        "monitoring/prometheus",
        "--destination",
        "store/website",
        "--port",
        "9090",
        "-o",
        "json",
    ];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        run(&args)
    };
    let two = with(&["POST", "/metrics"]);
    let one = with(&["POST /metrics"]);
    assert_eq!(two.code, 0, "{}", two.stderr);
    assert_eq!(one.stdout, two.stdout);
    // A lone path is GET on that path, not the method "/metrics".
    let alone = with(&["/metrics"]);
    let get = with(&["GET", "/metrics"]);
    assert_eq!(alone.stdout, get.stdout);
    assert_eq!(with(&["/metrics", "GET"]).code, 2);
}
