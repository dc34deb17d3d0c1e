//! `gammactl explain` names the routes and rules of the route set it used that are not in it,
//! and why: the table view's exclusions (here a route kind that lost the Service port).

mod common;

use common::run_with_stdin;

const INPUT: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: web, namespace: app}
spec: {clusterIP: 10.96.0.1, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: web, port: 80}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /a}}]
    backendRefs: [{name: web, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /b}}]
    backendRefs: [{name: web, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: raw, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: web, port: 80}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
"#;

/// `gammactl ARGS` (with `stdin`) in text and with `-o json`, both exiting 0: the text, and
/// the JSON form's `excluded` list.
fn explain(args: &[&str], stdin: Option<&str>) -> (String, Vec<serde_json::Value>) {
    let e = run_with_stdin(args, stdin);
    assert_eq!(e.code, 0, "{}", e.stderr);
    let json = [args, &["-o", "json"]].concat();
    let j = run_with_stdin(&json, stdin);
    assert_eq!(j.code, 0, "{}", j.stderr);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).expect("JSON");
    let excluded = v["excluded"].as_array().expect("an excluded list").clone();
    (e.stdout, excluded)
}

// GEP-1294 route types: the TCPRoute loses the Service port to the HTTPRoute, and is named on
// the explanation of a request to that Service, in text and in JSON, beside the candidates.
#[test]
fn explain_names_the_route_kind_that_lost_the_port() {
    let args = ["explain", "-f", "-", "--to", "10.96.0.1:80", "GET", "/b"];
    let (text, excluded) = explain(&args, Some(INPUT));
    assert!(
        text.contains(
            "excluded:  TCPRoute app/raw is not bound: a HTTPRoute is attached to the same \
             Service port and takes precedence"
        ),
        "{text}"
    );
    assert!(text.contains("HTTPRoute app/web rule 1 match 0"), "{text}");
    assert_eq!(excluded.len(), 1, "{excluded:?}");
}

// Gateway API route conflict resolution: of two TLSRoutes on one listener with the same SNI
// hostname the older takes the connections; explain names the younger as shadowed on that
// hostname, in text and in JSON.
#[test]
fn explain_names_a_tlsroute_an_older_one_shadows_on_its_hostname() {
    let args = [
        "explain",
        "-f",
        "crates/gammactl/tests/fixtures/tls-shadowed.yaml",
        "--to",
        "192.0.2.1:443",
        "--protocol",
        "tls",
        "--sni",
        "db.example.com",
    ];
    let (text, excluded) = explain(&args, None);
    let line = "TLSRoute infra/young is shadowed on hostname db.example.com: TLSRoute infra/old \
                rule 0 is older and takes those connections";
    assert!(text.contains(&format!("excluded:  {line}")), "{text}");
    assert_eq!(excluded, [serde_json::Value::from(line)]);
}
