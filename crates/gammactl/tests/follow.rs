//! `--follow` on `explain` and `resolve`: a Gateway route to a Service with mesh routes of its
//! own, followed hop by hop (docs/chains.md), on the fixture `chain.yaml`.

mod common;

use common::{check, run};

const CHAIN: &str = "crates/gammactl/tests/fixtures/chain.yaml";

// GEP-1294: each later hop is the backend Service's frontend (cluster IP, backendRef port),
// resolved from the caller's namespace, with the header edits and rewrite of the hop before
// (HTTPHeaderFilter, HTTPURLRewriteFilter).
#[test]
fn explain_follow_explains_every_hop() {
    let r = check(
        "explain-follow",
        &[
            "explain",
            "-f",
            CHAIN,
            "--to",
            "192.0.2.1:80",
            "--host",
            "shop.example",
            "--entropy",
            "9223372036854775807",
            "--follow",
            "GET",
            "/api",
        ],
        0,
    );
    assert!(r.stdout.contains(
        "hop 2:     GET /api to 10.96.0.10:80 host shop.example from infra, headers edited: x-via=edge"
    ));
    assert!(
        r.stdout
            .contains("route set: consumer routes of namespace infra for Service shop/a port 80")
    );
    assert!(
        r.stdout
            .contains("hop 4:     GET /v2/api to 10.96.0.22:8080")
    );
    assert!(r.stdout.contains("end:       delivered to shop/c:9090"));
}

// Gateway API BackendRef.weight: a 1:3 split at the third hop gives 1/4 and 3/4 end to end;
// 8 evenly spread samples land exactly so.
#[test]
fn resolve_sample_follow_shows_the_end_to_end_split() {
    let r = check(
        "resolve-sample-follow",
        &[
            "resolve",
            "-f",
            CHAIN,
            "--to",
            "192.0.2.1:80",
            "--sample",
            "8",
            "--follow",
            "GET",
            "/api",
        ],
        0,
    );
    assert!(r.stdout.contains("6   75.0%"));
    assert!(
        r.stdout
            .contains("  75.0%  3/4           delivered to shop/c:9090")
    );
}

// `-o json` carries the hops: requests, frontends, route sets, outcomes and what was sent on.
#[test]
fn resolve_follow_json_carries_the_hops() {
    let r = run(&[
        "resolve",
        "-f",
        CHAIN,
        "--to",
        "192.0.2.1:80",
        "--follow",
        "-o",
        "json",
        "GET",
        "/admin",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    let hops = v["hops"].as_array().expect("hops");
    assert_eq!(hops.len(), 2);
    assert_eq!(hops[1]["request"]["destination"], "10.96.0.10");
    assert_eq!(hops[1]["request"]["sourceNamespace"], "infra");
    assert_eq!(hops[1]["routeSet"]["namespace"], "infra");
    assert_eq!(hops[0]["forwarded"]["headerEdits"][0]["name"], "x-via");
    assert_eq!(v["end"]["end"], "delivered");
    assert_eq!(v["end"]["backend"]["name"], "admin");
    let text = run(&[
        "resolve",
        "-f",
        CHAIN,
        "--to",
        "192.0.2.1:80",
        "--follow",
        "GET",
        "/admin",
    ]);
    assert!(text.stdout.contains("end:     delivered to infra/admin:80"));
}
