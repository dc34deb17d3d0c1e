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

// GEP-1294 route types: the TCPRoute loses the Service port to the HTTPRoute, and is named on
// the explanation of a request to that Service, in text and in JSON, beside the candidates.
#[test]
fn explain_names_the_route_kind_that_lost_the_port() {
    let args = ["explain", "-f", "-", "--to", "10.96.0.1:80", "GET", "/b"];
    let e = run_with_stdin(&args, Some(INPUT));
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(
        e.stdout.contains(
            "excluded:  TCPRoute app/raw is not bound: a HTTPRoute is attached to the same \
             Service port and takes precedence"
        ),
        "{}",
        e.stdout
    );
    assert!(
        e.stdout.contains("HTTPRoute app/web rule 1 match 0"),
        "{}",
        e.stdout
    );
    let mut json = args.to_vec();
    json.extend(["-o", "json"]);
    let j = run_with_stdin(&json, Some(INPUT));
    assert_eq!(j.code, 0, "{}", j.stderr);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).expect("JSON");
    let excluded = v["excluded"].as_array().expect("an excluded list");
    assert_eq!(excluded.len(), 1, "{v}");
}
