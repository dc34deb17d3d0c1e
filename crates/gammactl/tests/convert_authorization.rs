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

/// `-o json`: the report on standard error is one JSON document in the form `convert smi -o
/// json` uses (`findings` and `summary`), holding the findings the text lists, in its order
/// (widened access first), each with its label, policy, field, message, file and line, and the
/// text's counts.
#[test]
fn convert_authorization_policy_json_reports_the_findings_as_structured_json_in_the_texts_order() {
    // The Namespace defined, so that standard error holds the report alone.
    const SHOP: &str = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n";
    for mesh in ["istio", "linkerd"] {
        let args = |json: bool| {
            let mut a = vec![
                "convert",
                "authorization-policy",
                "--to",
                mesh,
                "-f",
                FIXTURE,
                "-f",
                "-",
            ];
            if json {
                a.extend(["-o", "json"]);
            }
            common::run_with_stdin(&a, Some(SHOP))
        };
        let r = args(true);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let report: serde_json::Value =
            serde_json::from_str(&r.stderr).unwrap_or_else(|e| panic!("{mesh}: {e}: {}", r.stderr));
        let findings = report["findings"].as_array().unwrap();
        let text = args(false);
        assert_eq!(text.code, 0, "{}", text.stderr);
        let lines: Vec<&str> = text
            .stderr
            .lines()
            .filter(|l| !l.starts_with("WARNING:") && !l.contains(" translated into "))
            .collect();
        assert_eq!(lines.len(), findings.len(), "{mesh}: {}", text.stderr);
        assert!(!findings.is_empty(), "{mesh}");
        for (line, f) in lines.iter().zip(findings) {
            // `FILE:LINE: LABEL SEVERITY: POLICY rule N FIELD: MESSAGE (DIRECTIONS)`.
            let label = match f["severity"].as_str().unwrap() {
                "widened" => "WIDENED ACCESS:",
                "narrowed" => "narrowed access:",
                "not-mappable" => "not mappable:",
                "approximated" => "approximated:",
                "exact" => "exact:",
                other => panic!("severity {other}"),
            };
            let object = &f["object"];
            let mut expected = match (&f["file"], &f["line"]) {
                (serde_json::Value::String(file), line) => format!("{file}:{line}: {label}"),
                _ => label.to_owned(),
            };
            expected.push_str(&format!(" {}:", f["translation"].as_str().unwrap()));
            if !object.is_null() {
                expected.push_str(&format!(
                    " {} {}/{}",
                    object["kind"].as_str().unwrap(),
                    object["namespace"].as_str().unwrap(),
                    object["name"].as_str().unwrap()
                ));
            }
            assert!(line.starts_with(&expected), "{line} / {expected}");
            assert!(
                line.contains(f["message"].as_str().unwrap()),
                "{line} / {f}"
            );
            if let Some(rule) = f["rule"].as_u64() {
                assert!(line.contains(&format!(" rule {rule}")), "{line} / {f}");
            }
            let field = f["field"].as_str().unwrap();
            assert!(
                line.contains(&format!(" {field}: ")) || field.is_empty(),
                "{line}"
            );
            for d in f["directions"].as_array().unwrap() {
                assert!(line.contains(d.as_str().unwrap()), "{line} / {f}");
            }
        }
        let severities: Vec<&str> = findings
            .iter()
            .map(|f| f["severity"].as_str().unwrap())
            .collect();
        let rank = |s: &str| match s {
            "widened" => 0,
            "narrowed" => 1,
            _ => 2,
        };
        assert!(
            severities.windows(2).all(|w| rank(w[0]) <= rank(w[1])),
            "access changes first: {severities:?}"
        );
        let s = &report["summary"];
        let count = |n: &serde_json::Value, one: &str, many: &str| {
            format!("{n} {}", if n == 1 { one } else { many })
        };
        assert!(
            text.stderr.ends_with(&format!(
                "{} translated into {} {} {}; {} widened, {} narrowed, {}\n",
                count(
                    &s["policies"],
                    "XAuthorizationPolicy",
                    "XAuthorizationPolicies"
                ),
                s["objects"],
                if mesh == "istio" { "Istio" } else { "Linkerd" },
                if s["objects"] == 1 {
                    "object"
                } else {
                    "objects"
                },
                s["widened"],
                s["narrowed"],
                count(&s["other"], "other finding", "other findings"),
            )),
            "{}",
            text.stderr
        );
        assert_eq!(s["mesh"], mesh);
        assert_eq!(s["policies"], 2);
        let widened = severities.iter().filter(|s| **s == "widened").count();
        assert_eq!(s["widened"], widened);
        assert!(
            widened >= 1,
            "policy ops' `*` ServiceAccount widens: {severities:?}"
        );
    }
    // The `*` ServiceAccount of policy ops, at its line, as the text report places it.
    let r = common::run_with_stdin(
        &[
            "convert",
            "authorization-policy",
            "--to",
            "istio",
            "-f",
            FIXTURE,
            "-f",
            "-",
            "-o",
            "json",
        ],
        Some(SHOP),
    );
    let report: serde_json::Value = serde_json::from_str(&r.stderr).unwrap();
    let widened = &report["findings"][0];
    assert_eq!(widened["severity"], "widened");
    assert_eq!(
        widened["object"],
        serde_json::json!({"kind": "XAuthorizationPolicy", "namespace": "shop", "name": "ops"})
    );
    assert_eq!(widened["file"], FIXTURE);
    assert_eq!(widened["line"], 54);
    assert_eq!(widened["translation"], "approximated");
    assert_eq!(widened["rule"], 0);
    assert_eq!(widened["directions"], serde_json::json!(["widened"]));
    assert_eq!(
        widened["pods"],
        serde_json::json!([
            {"kind": "Pod", "namespace": "shop", "name": "db-0"},
            {"kind": "Pod", "namespace": "shop", "name": "db-1"}
        ])
    );
}
