//! The request scheme: a RequestRedirect without `scheme` keeps the request's, and omits that
//! scheme's well-known port from `Location` (Gateway API reference, `HTTPRequestRedirectFilter`
//! `scheme` and `port`). Requests through a listener of protocol HTTPS (which terminates TLS)
//! are https.

mod common;

use common::{run, run_with_stdin};

const F: &str = "crates/gammactl/tests/fixtures/https-redirect.yaml";

fn location(to: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "resolve",
        "-f",
        F,
        "--to",
        to,
        "--host",
        "www.example.com",
        "-o",
        "json",
    ];
    args.extend_from_slice(extra);
    args.push("/old/x");
    let r = run(&args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["decision"], "redirect", "{v}");
    v["location"].as_str().unwrap().to_owned()
}

#[test]
fn a_redirect_through_an_https_listener_keeps_https_and_omits_443() {
    assert_eq!(
        location("gateway/edge/public:443", &[]),
        "https://www.example.com/new/x"
    );
    // Not the well-known port of https: kept.
    assert_eq!(
        location("gateway/edge/public:8443", &[]),
        "https://www.example.com:8443/new/x"
    );
    // The plain listener stays http.
    assert_eq!(
        location("gateway/edge/public:80", &[]),
        "http://www.example.com/new/x"
    );
    let r = run(&[
        "explain",
        "-f",
        F,
        "--to",
        "gateway/edge/public:443",
        "--host",
        "www.example.com",
        "/old/x",
    ]);
    assert!(
        r.stdout
            .starts_with("request:   GET /old/x (https) to gateway/edge/public:443"),
        "{}",
        r.stdout
    );
}

#[test]
fn the_scheme_flag_sets_a_mesh_request_scheme() {
    // A mesh route has no listener: the client's scheme is what the flag says.
    assert_eq!(
        location("web.edge:443", &[]),
        "http://www.example.com:443/new/x"
    );
    assert_eq!(
        location("web.edge:443", &["--scheme", "https"]),
        "https://www.example.com/new/x"
    );
}

#[test]
fn request_lines_carry_a_scheme() {
    let r = run_with_stdin(
        &["resolve", "-f", F, "--requests", "-"],
        Some(
            "{\"to\":\"web.edge:443\",\"host\":\"web.edge\",\"path\":\"/old/a\",\"scheme\":\"https\"}\n\
             {\"to\":\"web.edge:443\",\"host\":\"web.edge\",\"path\":\"/old/a\"}\n",
        ),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["location"], "https://web.edge/new/a");
    assert_eq!(lines[1]["location"], "http://web.edge:443/new/a");
    let schema = run(&["schema", "request"]);
    assert!(schema.stdout.contains("\"scheme\""), "{}", schema.stdout);
}
