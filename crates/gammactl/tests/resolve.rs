//! `gammactl resolve` and `gammactl explain` on the sample cluster, against the outcomes its
//! README (examples/manifests/README.md, "Requests: expected resolution") lists.

mod common;

use common::{check, run, run_with_stdin};

const M: &str = "examples/manifests";
const FIXTURES: &str = "crates/gammactl/tests/fixtures";

#[test]
fn explain_the_canary_request_step_by_step() {
    // README row 2: PathPrefix /api + 1 header beats + 0 headers (Gateway API HTTPRouteRule.matches
    // precedence, most header matches); checkout-qa-pin loses on creationTimestamp.
    let r = check(
        "explain-canary",
        &[
            "explain",
            "-f",
            M,
            "--from",
            "shop",
            "--to",
            "10.96.10.20:80",
            "--header",
            "x-canary=true",
            "GET",
            "/api/orders",
        ],
        0,
    );
    assert!(
        r.stdout
            .contains("binding:   Service shop/checkout port 80")
    );
    assert!(r.stdout.contains(
        "shop/checkout-canary rule 0 (canary-by-header) match 0: PathPrefix /api, header x-canary \"true\" -> MATCH, wins"
    ));
    assert!(r.stdout.contains("shop/checkout-qa-pin rule 0 (pin-canary-to-v1) match 0: PathPrefix /api, header x-canary \"true\" -> matches, but ranks below"));
    assert!(r.stdout.contains("decision:  forward to shop/checkout-v2"));
}

#[test]
fn explain_a_gateway_request_names_the_listener() {
    // README row 23: exact listener hostname beats the wildcard (Gateway API listener selection).
    let r = check(
        "explain-gateway",
        &[
            "explain",
            "-f",
            M,
            "--to",
            "gateway/edge/public:80",
            "--host",
            "shop.example.com",
            "GET",
            "/api/checkout/cart",
        ],
        0,
    );
    assert!(
        r.stdout
            .contains("route set: listener shop of Gateway edge/public")
    );
    assert!(r.stdout.contains("forward to shop/checkout:80"));
}

#[test]
fn the_sample_requests_resolve_as_the_sample_readme_says() {
    let r = check(
        "resolve-sample-requests",
        &[
            "resolve",
            "-f",
            M,
            "-o",
            "text",
            "--requests",
            &format!("{FIXTURES}/sample-requests.jsonl"),
        ],
        0,
    );
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 25);
    // (row, text the README's expected column implies)
    let expected = [
        (1, "forward to shop/checkout-v1"),
        (2, "forward to shop/checkout-v2"),
        (3, "forward to shop/checkout-v2"),
        (
            4,
            "redirect 301 to http://checkout.shop.svc.cluster.local/api/v2/checkout",
        ),
        (5, "path rewritten to /api/v2/orders"),
        (6, "HTTP 503"),
        (7, "HTTP 404"),
        (8, "pass through"),
        (9, "forward to shop/checkout-v1"),
        (10, "forward to shop/checkout-v1"),
        (11, "HTTP 404"),
        (12, "forward to shop/catalog"),
        (13, "HTTP 404"),
        (14, "forward to shop/cart"),
        (15, "forward to payments/payments-v2:50051"),
        (16, "forward to payments/payments:50051"),
        (17, "forward to payments/ledger-db:5432"),
        (18, "pass through"),
        (19, "forward to inventory/stock"),
        (20, "forward to legacy/billing"),
        (21, "forward to batch/reports"),
        (22, "forward to batch/scheduler"),
        (23, "forward to shop/checkout:80"),
        (24, "forward to web/frontend:80"),
        (25, "HTTP 404"),
    ];
    for (row, text) in expected {
        let line = lines[row - 1];
        assert!(line.starts_with(&format!("{row}: ")), "{line}");
        assert!(
            line.contains(text),
            "row {row}: expected {text:?} in {line:?}"
        );
    }
}

#[test]
fn request_lines_answer_one_json_decision_per_line() {
    let r = run(&[
        "resolve",
        "-f",
        M,
        "--requests",
        &format!("{FIXTURES}/sample-requests.jsonl"),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let decisions: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON value"))
        .collect();
    assert_eq!(decisions.len(), 25);
    assert_eq!(decisions[1]["decision"], "forward");
    assert_eq!(decisions[1]["backend"]["name"], "checkout-v2");
    assert_eq!(decisions[3]["decision"], "redirect");
    assert_eq!(decisions[7]["decision"], "passthrough");
}

#[test]
fn an_unknown_request_field_is_an_error_on_its_line_and_exit_1() {
    let file = format!("{FIXTURES}/unknown-field.jsonl");
    let r = check(
        "resolve-unknown-field",
        &["resolve", "-f", M, "--requests", &file],
        1,
    );
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "one answer per request line");
    let first: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(first["decision"], "forward");
    let second: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(second["decision"], "error");
    assert_eq!(second["line"], 2);
    assert!(
        r.stderr
            .contains(&format!("{file}:2: unknown field `heders`")),
        "{}",
        r.stderr
    );
}

#[test]
fn a_headless_service_has_no_address_to_send_to() {
    let r = run(&["resolve", "-f", M, "--to", "ledger-db.payments:5432"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("Service payments/ledger-db has no cluster IP"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_service_name_is_looked_up_to_its_cluster_ip() {
    // README row 3: producer routes apply from a namespace without its own consumer routes.
    let r = run(&[
        "resolve",
        "-f",
        M,
        "--from",
        "batch",
        "--to",
        "checkout.shop:80",
        "-H",
        "x-canary=true",
        "-o",
        "json",
        "GET",
        "/api/orders",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(d["backend"]["name"], "checkout-v2");
    assert_eq!(d["rule"]["route"]["name"], "checkout-canary");
}

#[test]
fn sampling_shows_the_weighted_split() {
    // README row 1: 90/10 split (Gateway API BackendRef.weight).
    let r = check(
        "resolve-sample-split",
        &[
            "resolve",
            "-f",
            M,
            "--from",
            "shop",
            "--to",
            "checkout.shop:80",
            "--sample",
            "100",
            "GET",
            "/api/orders",
        ],
        0,
    );
    assert!(r.stdout.contains(" 90   90.0%"), "{}", r.stdout);
    assert!(r.stdout.contains(" 10   10.0%"), "{}", r.stdout);
}

#[test]
fn an_invalid_backend_keeps_its_share_as_500s() {
    // README row 19: stock-v2 does not exist; its 20% is not absorbed (Gateway API
    // HTTPRouteRule.backendRefs).
    let r = run(&[
        "resolve",
        "-f",
        M,
        "--to",
        "10.96.40.10:8080",
        "--sample",
        "10",
        "-o",
        "json",
        "GET",
        "/items/sku-1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(d["samples"], 10);
    assert_eq!(d["outcomes"][0]["outcome"], "inventory/stock:8080");
    assert_eq!(d["outcomes"][0]["count"], 8);
    assert_eq!(d["outcomes"][1]["count"], 2);
    assert!(
        d["outcomes"][1]["outcome"]
            .as_str()
            .unwrap()
            .starts_with("HTTP 500")
    );
}

#[test]
fn requests_can_come_from_standard_input() {
    let r = run_with_stdin(
        &["resolve", "-f", M, "--requests", "-"],
        Some("{\"to\": \"10.96.10.50:80\", \"method\": \"GET\", \"path\": \"/api/cart\"}\n\n"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1, "blank lines are skipped");
    assert!(r.stdout.contains("\"name\":\"cart\""));
}

#[test]
fn bad_request_flags_are_usage_errors() {
    for args in [
        &["resolve", "-f", M, "GET", "/"][..],
        &["resolve", "-f", M, "--to", "checkout", "GET", "/"],
        &[
            "resolve",
            "-f",
            M,
            "--to",
            "checkout.shop:80",
            "--header",
            "novalue",
            "GET",
            "/",
        ],
        &[
            "resolve",
            "-f",
            M,
            "--to",
            "checkout.shop:80",
            "--protocol",
            "sctp",
        ],
        &[
            "resolve",
            "-f",
            M,
            "--requests",
            "x.jsonl",
            "--to",
            "checkout.shop:80",
        ],
        &["resolve", "-f", "-", "--requests", "-"],
        &[
            "resolve",
            "-f",
            M,
            "--to",
            "checkout.shop:80",
            "--sample",
            "0",
            "GET",
            "/",
        ],
        &["explain", "-f", M, "GET", "/"],
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "gammactl {args:?}: {}{}", r.stdout, r.stderr);
    }
}

#[test]
fn broken_manifests_stop_resolution_with_exit_1() {
    let r = run(&[
        "resolve",
        "-f",
        M,
        "-f",
        &format!("{FIXTURES}/malformed.yaml"),
        "--to",
        "10.96.10.20:80",
        "GET",
        "/",
    ]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.is_empty());
    assert!(
        r.stderr.contains("malformed.yaml:11: syntax error"),
        "{}",
        r.stderr
    );
}

#[test]
fn explain_a_port_without_routes_passes_through() {
    // README row 8: the routes set `port: 80`; port 9090 binds nothing (GEP-1294).
    let r = check(
        "explain-passthrough",
        &[
            "explain",
            "-f",
            M,
            "--from",
            "shop",
            "--to",
            "10.96.10.20:9090",
            "GET",
            "/metrics",
        ],
        0,
    );
    assert!(r.stdout.contains("decision:  pass through"), "{}", r.stdout);
}

#[test]
fn explain_an_invalid_backend_pick() {
    // README row 19: an entropy in the last fifth picks the missing stock-v2 (Gateway API
    // HTTPRouteRule.backendRefs: 500).
    let r = check(
        "explain-invalid-backend",
        &[
            "explain",
            "-f",
            M,
            "--to",
            "10.96.40.10:8080",
            "--entropy",
            "18000000000000000000",
            "GET",
            "/items/sku-1",
        ],
        0,
    );
    assert!(
        r.stdout.contains("decision:  respond HTTP 500"),
        "{}",
        r.stdout
    );
}
