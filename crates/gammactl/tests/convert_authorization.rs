//! `gammactl convert authorization-policy --to istio|linkerd` on the authorization fixture
//! (tests/fixtures/authorization.yaml: policies `db` and `ops` on the `app: db` Pods, whose
//! Service port 5432 leads to Pod port 15432).

mod common;

use common::{check, run};

const FIXTURE: &str = "crates/gammactl/tests/fixtures/authorization.yaml";

#[test]
fn convert_authorization_policy_to_istio_prints_policies_and_a_located_report() {
    let r = check(
        "convert-authz-istio",
        &[
            "convert",
            "authorization-policy",
            "--to",
            "istio",
            "-f",
            FIXTURE,
        ],
        0,
    );
    assert!(
        r.stdout
            .contains("apiVersion: security.istio.io/v1\nkind: AuthorizationPolicy\n")
    );
    assert!(
        r.stdout.contains("- cluster.local/ns/shop/sa/web"),
        "{}",
        r.stdout
    );
    // The `*` ServiceAccount of policy ops is a principal prefix: reported at its line.
    assert!(
        r.stderr.contains(&format!(
            "{FIXTURE}:54: WIDENED ACCESS: approximated: XAuthorizationPolicy shop/ops rule 0"
        )),
        "{}",
        r.stderr
    );
    assert!(r.stderr.ends_with("2 XAuthorizationPolicies translated into 2 Istio objects; 1 widened, 0 narrowed, 0 other findings\n"), "{}", r.stderr);
}

#[test]
fn convert_authorization_policy_to_linkerd_gives_a_server_per_port_and_reports_the_others() {
    let r = check(
        "convert-authz-linkerd",
        &[
            "convert",
            "authorization-policy",
            "--to",
            "linkerd",
            "-f",
            FIXTURE,
        ],
        0,
    );
    // Port 15432 comes from the rule and from the Service's EndpointSlice; both policies
    // select app: db, so they share one Server.
    assert_eq!(
        r.stdout.matches("\nkind: Server\n").count(),
        1,
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("port: 15432"));
    assert!(
        r.stdout
            .contains("- '*.ops.serviceaccount.identity.linkerd.cluster.local'")
            || r.stdout
                .contains("- \"*.ops.serviceaccount.identity.linkerd.cluster.local\""),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("keep the default policy all-unauthenticated"),
        "{}",
        r.stderr
    );

    // With the cluster's default `deny`, ports without a Server are denied as the engine
    // denies them; only policy ops (no ports) loses the other ports: narrowed.
    let r = run(&[
        "convert",
        "authorization-policy",
        "--to",
        "linkerd",
        "--linkerd-default-policy",
        "deny",
        "-f",
        FIXTURE,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("narrowed access: approximated: XAuthorizationPolicy shop/ops"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("XAuthorizationPolicy shop/db:"),
        "{}",
        r.stderr
    );
}

#[test]
fn convert_authorization_policy_json_is_a_kubernetes_list() {
    let r = run(&[
        "convert",
        "authorization-policy",
        "--to",
        "linkerd",
        "-f",
        FIXTURE,
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["kind"], "List");
    let kinds: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "Server",
            "MeshTLSAuthentication",
            "MeshTLSAuthentication",
            "AuthorizationPolicy",
            "AuthorizationPolicy"
        ]
    );
}

#[test]
fn a_baseline_of_deny_adds_an_istio_root_namespace_policy() {
    let r = run(&[
        "convert",
        "authorization-policy",
        "--to",
        "istio",
        "--baseline",
        "deny",
        "--istio-root-namespace",
        "mesh-root",
        "-f",
        FIXTURE,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("name: gamma-baseline-deny\n  namespace: mesh-root\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn convert_authorization_policy_without_a_mesh_is_a_usage_error() {
    let r = run(&["convert", "authorization-policy", "-f", FIXTURE]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--to"), "{}", r.stderr);
}
