//! `resolve --follow` and `explain --follow` with `--from-identity`: the followed request ends
//! with the XAuthorizationPolicy (GEP-3779, proposal) verdict at the Pods behind the backend
//! Service it reaches, on the Pod's port, as `authorize --from-identity` decides it; without an
//! identity they say that authorization was not evaluated. Run as the real binary on the
//! fixture `trace-authorization.yaml`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{check, run};
use serde_json::Value;

const FIXTURE: &str = "crates/gammactl/tests/fixtures/trace-authorization.yaml";
const WEB: &str = "spiffe://cluster.local/ns/shop/sa/web";

fn json(command: &str, to: &str, extra: &[&str]) -> Value {
    let mut args = vec![command, "-f", FIXTURE, "--to", to, "--follow", "-o", "json"];
    args.extend_from_slice(extra);
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

// The route sends /api on Service front to Service api, whose selector and targetPort lead to
// Pod api-0 on port 8080: the policy's port-scoped rule admits web there.
#[test]
fn explain_follow_ends_with_the_verdict_where_the_request_is_delivered() {
    let r = check(
        "explain-follow-authorization",
        &[
            "explain",
            "-f",
            FIXTURE,
            "--to",
            "10.96.0.31:80",
            "--follow",
            "--from-identity",
            WEB,
            "GET",
            "/api/orders",
        ],
        0,
    );
    assert!(r.stdout.ends_with(
        "end:       delivered to shop/api:80\n\
         authorization: allowed: Service shop/api leads to one Pod: allowed by XAuthorizationPolicy shop/api rule 0\n\
         \x20 Pod shop/api-0 port 8080: allow\n"
    ), "{}", r.stdout);
}

#[test]
fn resolve_follow_json_carries_the_verdict_and_the_reason_beside_the_trace() {
    let allowed = json(
        "resolve",
        "10.96.0.31:80",
        &["--from-identity", WEB, "GET", "/api"],
    );
    assert_eq!(allowed["end"]["end"], "delivered", "{allowed}");
    assert_eq!(allowed["end"]["backend"]["name"], "api");
    let a = &allowed["authorization"];
    assert_eq!(a["evaluated"], true);
    assert_eq!(a["verdict"], "allow");
    assert_eq!(a["at"], "Service shop/api:80");
    assert_eq!(a["peer"], WEB);
    assert_eq!(a["destinations"][0]["workload"]["name"], "api-0");
    assert_eq!(a["destinations"][0]["port"], 8080);

    // Another account (Istio's principal form) is denied: no source names it.
    let denied = json(
        "resolve",
        "10.96.0.31:80",
        &[
            "--from-identity",
            "cluster.local/ns/shop/sa/cache",
            "GET",
            "/api",
        ],
    );
    let d = &denied["authorization"];
    assert_eq!(d["verdict"], "deny");
    assert!(
        d["reason"]
            .as_str()
            .unwrap()
            .ends_with("no rule matched: shop/api rule 0: no source names the peer"),
        "{d}"
    );
    assert_eq!(
        d["destinations"][0]["policies"][0]["rules"][0]["failed"],
        "source"
    );
}

#[test]
fn explain_follow_json_carries_the_verdict() {
    let v = json(
        "explain",
        "10.96.0.31:80",
        &["--from-identity", "unauthenticated", "GET", "/api"],
    );
    assert_eq!(v["trace"]["hops"].as_array().unwrap().len(), 1);
    assert_eq!(v["authorization"]["verdict"], "deny");
    assert!(v["authorization"].get("peer").is_none());
}

// No route takes the request to Service db: it reaches the Service's Pods as plain
// Kubernetes routes it, and is decided there (db-0 on its EndpointSlice port; no policy
// selects it, so the baseline applies).
#[test]
fn a_request_no_route_takes_is_decided_at_the_services_pods() {
    let allow = json("resolve", "10.96.0.10:5432", &["--from-identity", WEB]);
    assert_eq!(allow["end"]["end"], "passthrough", "{allow}");
    let a = &allow["authorization"];
    assert_eq!(a["verdict"], "allow");
    assert_eq!(a["at"], "10.96.0.10:5432");
    assert_eq!(a["destinations"][0]["port"], 15432);
    let deny = json(
        "resolve",
        "10.96.0.10:5432",
        &["--from-identity", WEB, "--baseline", "deny"],
    );
    assert_eq!(deny["authorization"]["verdict"], "deny");
}

#[test]
fn without_an_identity_authorization_is_said_not_to_be_evaluated() {
    let r = run(&[
        "resolve",
        "-f",
        FIXTURE,
        "--to",
        "10.96.0.31:80",
        "--follow",
        "GET",
        "/api",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.ends_with(
            "authorization: not evaluated (give --from-identity ID for the XAuthorizationPolicy verdict)\n"
        ),
        "{}",
        r.stdout
    );
    let v = json("explain", "10.96.0.31:80", &["GET", "/api"]);
    assert_eq!(v["authorization"]["evaluated"], false);
    assert!(v["authorization"].get("verdict").is_none());
}

// A request answered on the way (no rule matches: 404) reaches no workload.
#[test]
fn a_request_answered_on_the_way_is_not_decided() {
    let v = json(
        "resolve",
        "10.96.0.31:80",
        &["--from-identity", WEB, "GET", "/other"],
    );
    let a = &v["authorization"];
    assert_eq!(a["evaluated"], false, "{v}");
    assert!(
        a["reason"]
            .as_str()
            .unwrap()
            .starts_with("not evaluated: the request reaches no workload"),
        "{a}"
    );
}

#[test]
fn from_identity_needs_follow_and_a_valid_identity_and_no_sample() {
    for (args, code) in [
        (vec!["--from-identity", WEB], 2),
        (vec!["--follow", "--from-identity", "shop/web"], 2),
        (vec!["--follow", "--from-identity", WEB, "--sample", "4"], 2),
        (vec!["--follow", "--trust-domain", "example.org"], 2),
    ] {
        let mut all = vec!["resolve", "-f", FIXTURE, "--to", "10.96.0.31:80"];
        all.extend(args.iter().copied());
        all.extend(["GET", "/api"]);
        let r = run(&all);
        assert_eq!(r.code, code, "{args:?}: {}", r.stderr);
    }
}
