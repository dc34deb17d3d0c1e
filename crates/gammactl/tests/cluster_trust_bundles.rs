//! ClusterTrustBundle CA references (Gateway API v1.7 experimental, GEP-5075) read from files:
//! a bundle in the files resolves by name; files that hold any ClusterTrustBundle hold every
//! one that matters, so a reference to one they lack is `InvalidCACertificateRef` and its
//! connections fail with a 5xx (BackendTLSPolicyValidation.caCertificateRefs).

mod common;

use common::run;

const INPUT: &str = "crates/gammactl/tests/fixtures/cluster-trust-bundles.yaml";

fn resolve(path: &str) -> serde_json::Value {
    let r = run(&[
        "resolve",
        "-f",
        INPUT,
        "--channel",
        "experimental",
        "--to",
        "gateway/infra/edge:80",
        "-o",
        "json",
        "GET",
        path,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect(&r.stdout);
    if v.is_array() { v[0].clone() } else { v }
}

#[test]
fn a_cluster_trust_bundle_in_the_files_resolves_by_name() {
    let d = resolve("/good");
    let d = d.get("decision").filter(|d| d.is_object()).unwrap_or(&d);
    assert_eq!(d["decision"], "forward", "{d}");
    assert_eq!(d["backendTls"]["clusterTrustBundles"][0], "roots", "{d}");
}

#[test]
fn a_cluster_trust_bundle_the_files_lack_fails_its_connections() {
    let d = resolve("/gone");
    let d = d.get("decision").filter(|d| d.is_object()).unwrap_or(&d);
    assert_eq!(d["reason"], "InvalidBackendTls", "{d}");
    // and the policy's status says why
    let r = run(&[
        "status",
        "-f",
        INPUT,
        "--channel",
        "experimental",
        "--as",
        "example.com/gateway",
        "--now",
        "2026-01-01T00:00:00Z",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("InvalidCACertificateRef"), "{}", r.stdout);
}
