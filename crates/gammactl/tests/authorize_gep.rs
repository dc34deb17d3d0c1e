//! `gammactl authorize --from-identity ID --to IP:PORT` (XAuthorizationPolicy, GEP-3779
//! proposal) and `gammactl crd-extension authorization-policy`, run as the real binary.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{check, run};
use serde_json::Value;

const FIXTURE: &str = "crates/gammactl/tests/fixtures/authorization.yaml";

fn json(from: &str, to: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "authorize",
        "-f",
        FIXTURE,
        "--from-identity",
        from,
        "--to",
        to,
        "-o",
        "json",
    ];
    args.extend_from_slice(extra);
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

// A denial names each selecting policy and each rule's first failing criterion.
#[test]
fn a_denial_is_explained_policy_by_policy_and_rule_by_rule() {
    check(
        "authorize-gep-denied",
        &[
            "authorize",
            "-f",
            FIXTURE,
            "--from-identity",
            "cluster.local/ns/shop/sa/api",
            "--to",
            "10.0.0.10:15432",
        ],
        0,
    );
}

#[test]
fn json_carries_the_verdict_and_the_reason() {
    let allow = json(
        "spiffe://cluster.local/ns/shop/sa/web",
        "10.0.0.10:15432",
        &[],
    );
    assert_eq!(allow["verdict"], "allow");
    assert_eq!(
        allow["reason"],
        "allowed by XAuthorizationPolicy shop/db rule 0"
    );
    // The port-scoped rule leaves the Pod's other ports denied.
    let other_port = json(
        "spiffe://cluster.local/ns/shop/sa/web",
        "10.0.0.10:9090",
        &[],
    );
    assert_eq!(other_port["verdict"], "deny");
    let rules = &other_port["destinations"][0]["policies"];
    assert_eq!(rules[0]["rules"][0]["failed"], "port");
    assert_eq!(rules[1]["rules"][0]["failed"], "namespace");
    // The Linkerd form of an ops account: the second policy allows it on any port.
    let ops = json(
        "admin.ops.serviceaccount.identity.linkerd.cluster.local",
        "10.0.0.11:9090",
        &[],
    );
    assert_eq!(ops["verdict"], "allow");
    assert_eq!(
        ops["reason"],
        "allowed by XAuthorizationPolicy shop/ops rule 0"
    );
}

#[test]
fn a_workload_no_policy_selects_gets_the_baseline() {
    let allow = json("unauthenticated", "10.0.0.20:6379", &[]);
    assert_eq!(allow["verdict"], "allow");
    assert!(
        allow["reason"]
            .as_str()
            .unwrap()
            .contains("baseline (allow)"),
        "{allow}"
    );
    assert!(allow.get("peer").is_none());
    let deny = json("unauthenticated", "10.0.0.20:6379", &["--baseline", "deny"]);
    assert_eq!(deny["verdict"], "deny");
}

// A Service IP and port lead to every Pod behind it, at the EndpointSlice's port.
#[test]
fn a_service_address_is_decided_at_each_of_its_pods() {
    let v = json(
        "spiffe://cluster.local/ns/shop/sa/web",
        "10.96.0.10:5432",
        &[],
    );
    assert_eq!(v["verdict"], "allow");
    assert_eq!(v["service"], "shop/db");
    let pods: Vec<(&str, u64)> = v["destinations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["workload"]["name"].as_str().unwrap(),
                d["port"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(pods, [("db-0", 15432), ("db-1", 15432)]);
    assert_eq!(v["reason"], "allowed at all 2 Pods of Service shop/db");
    let denied = json(
        "spiffe://cluster.local/ns/shop/sa/api",
        "10.96.0.10:5432",
        &[],
    );
    assert_eq!(denied["verdict"], "deny");
    assert!(
        denied["reason"]
            .as_str()
            .unwrap()
            .starts_with("denied at 2 of 2 Pods of Service shop/db")
    );
}

#[test]
fn bad_identities_and_addresses_are_usage_or_input_errors() {
    for (from, to, code) in [
        ("shop/web", "10.0.0.10:15432", 2),
        ("spiffe://cluster.local", "10.0.0.10:15432", 2),
        ("spiffe://cluster.local/ns/shop/sa/web", "shop/db", 2),
        ("spiffe://cluster.local/ns/shop/sa/web", "192.0.2.1:80", 1),
    ] {
        let r = run(&[
            "authorize",
            "-f",
            FIXTURE,
            "--from-identity",
            from,
            "--to",
            to,
        ]);
        assert_eq!(r.code, code, "{from} {to}: {}", r.stderr);
    }
    // --from-identity and the SMI request arguments do not mix.
    let r = run(&[
        "authorize",
        "-f",
        FIXTURE,
        "--from-identity",
        "unauthenticated",
        "--to",
        "10.0.0.10:1",
        "--port",
        "1",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

// The printed CRD: structural, with the GEP's required fields and rules as CEL, and a schema
// that refuses what gamma-model's validation refuses (a SPIFFE ID without a path).
#[test]
fn the_printed_crd_is_structural_and_carries_the_geps_rules() {
    let r = run(&["crd-extension", "authorization-policy", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let crd: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        crd["metadata"]["name"],
        "xauthorizationpolicies.gateway.networking.x-k8s.io"
    );
    let version = &crd["spec"]["versions"][0];
    assert_eq!(version["name"], "v1alpha1");
    let schema = &version["schema"]["openAPIV3Schema"];
    let text = schema.to_string();
    for banned in ["$ref", "anyOf", "\"null\"", "$defs", "\"default\""] {
        assert!(!text.contains(banned), "{banned} in {text}");
    }
    let spec = &schema["properties"]["spec"];
    assert_eq!(
        spec["required"],
        serde_json::json!(["targetRefs", "action", "enforcementLevel"])
    );
    assert_eq!(
        spec["properties"]["action"]["enum"],
        serde_json::json!(["ALLOW"])
    );
    let target = &spec["properties"]["targetRefs"]["items"];
    assert!(
        target["x-kubernetes-validations"]
            .to_string()
            .contains("Selector may only be set when targeting Pods.")
    );
    let spiffe = spec["properties"]["rules"]["items"]["properties"]["sources"]["items"]["properties"]["spiffe"]["pattern"]
        .as_str()
        .unwrap();
    let re = |id: &str| regex::Regex::new(spiffe).unwrap().is_match(id);
    assert!(re("spiffe://cluster.local/ns/a/sa/b"));
    assert!(!re("spiffe://cluster.local"));
    assert!(!re("spiffe://cluster.local/"));
    let yaml = run(&["crd-extension", "authorization-policy"]);
    assert_eq!(yaml.code, 0);
    assert!(
        yaml.stdout
            .starts_with("# XAuthorizationPolicy: a proposal model of GEP-3779")
    );
}
