//! Helpers for the end-to-end tests that start from manifests (decode -> `Snapshot` ->
//! `RouteTable::build`): the fixtures are the tests' own YAML, so a decode error panics.

use gamma_model::Snapshot;
use gamma_resolve::status::RouteCondition;
use gamma_resolve::{BuildOptions, Decision, RouteTable};

/// Service `infra/web` (ClusterIP 10.96.0.5, port 80) and HTTPRoute `infra/r` on Gateway
/// `infra/gw` sending to it, as YAML documents to append to a Gateway's: the traffic a test of
/// that Gateway's status probes.
pub const WEB_BEHIND_GW: &str = r#"
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {clusterIP: 10.96.0.5, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
"#;

/// The snapshot of `yaml`'s objects.
pub fn snapshot(yaml: &str) -> Snapshot {
    Snapshot::from_resources(gamma_model::decode(yaml).unwrap())
}

/// The table of `yaml`'s objects, built with the default options.
pub fn table(yaml: &str) -> RouteTable {
    RouteTable::build(&snapshot(yaml), &BuildOptions::default())
}

/// A decision in one word: the backend's name, the status code, the redirect, or the kind.
pub fn outcome(d: &Decision<'_>) -> String {
    match d {
        Decision::Forward(f) => f.backend.name.to_string(),
        Decision::Respond(r) => format!("{}", r.status),
        Decision::Redirect(r) => format!("redirect {} {}", r.status, r.location),
        Decision::Passthrough => "passthrough".into(),
        _ => "other".into(),
    }
}

/// The condition `type_` of route `name`'s parentRef `index`.
pub fn route_condition(t: &RouteTable, name: &str, index: usize, type_: &str) -> RouteCondition {
    t.parent_conditions()
        .iter()
        .find(|s| s.name == name && s.parent_index == index)
        .and_then(|s| s.condition(type_))
        .cloned()
        .unwrap_or_else(|| {
            panic!(
                "no {type_} for {name}[{index}]: {:?}",
                t.parent_conditions()
            )
        })
}
