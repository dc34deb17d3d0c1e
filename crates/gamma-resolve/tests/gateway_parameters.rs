//! Gateway `spec.infrastructure.parametersRef` (Gateway API v1.7.0 GatewayInfrastructure;
//! conformance `GatewayInvalidParametersRef`): "If the referent cannot be found, refers to an
//! unsupported kind, or when the data within that resource is malformed, the Gateway SHOULD be
//! rejected with the "Accepted" status condition set to "False" and an "InvalidParameters"
//! reason". gamma-rs judges it from its input: a core ConfigMap in the snapshot, and the kinds
//! the embedder declares it supports.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::manifest::WEB_BEHIND_GW;
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot, decode};
use gamma_resolve::gateway_status::INVALID_PARAMETERS;
use gamma_resolve::{BuildOptions, Request, RouteTable};

fn gateway(parameters: &str) -> String {
    format!(
        r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: infra}}
spec:
  gatewayClassName: example
  addresses: [{{type: IPAddress, value: 192.0.2.1}}]
  infrastructure: {{parametersRef: {parameters}}}
  listeners: [{{name: http, port: 80, protocol: HTTP}}]
{WEB_BEHIND_GW}"#
    )
}

const PARAMS: &str = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: params, namespace: infra}
data: {replicas: "2"}
"#;

const CONFIG_MAP_REF: &str = r#"{group: "", kind: ConfigMap, name: params}"#;

fn snapshot(docs: &[&str]) -> Snapshot {
    common::manifest::snapshot(&docs.join("\n---\n"))
}

/// The Gateway's `Accepted` (status, reason, message).
fn accepted(t: &RouteTable) -> (bool, String, String) {
    let g = &t.gateway_status()[0];
    let c = g.condition("Accepted").unwrap();
    (c.status, c.reason.clone(), c.message.clone())
}

fn answers(t: &RouteTable) -> String {
    format!(
        "{:?}",
        t.resolve(
            &Request::http("192.0.2.1".parse().unwrap(), 80, "GET", "/"),
            0
        )
    )
}

// "If the referent cannot be found": a ConfigMap missing from the Gateway's namespace rejects
// the Gateway, which binds nothing; with the ConfigMap it is accepted and serves.
#[test]
fn a_parameters_ref_to_a_missing_config_map_is_invalid_parameters() {
    let options = BuildOptions::default();
    let missing = RouteTable::build(&snapshot(&[&gateway(CONFIG_MAP_REF)]), &options);
    let (ok, reason, message) = accepted(&missing);
    assert!(!ok);
    assert_eq!(reason, INVALID_PARAMETERS);
    assert_eq!(
        message,
        "spec.infrastructure.parametersRef: ConfigMap infra/params does not exist"
    );
    assert!(missing.gateway_status()[0].listeners.is_empty());
    let present = RouteTable::build(&snapshot(&[&gateway(CONFIG_MAP_REF), PARAMS]), &options);
    assert!(accepted(&present).0);
    assert_ne!(answers(&missing), answers(&present));
    // a ConfigMap of that name in another namespace does not count
    let elsewhere = PARAMS.replace("namespace: infra", "namespace: other");
    let t = RouteTable::build(&snapshot(&[&gateway(CONFIG_MAP_REF), &elsewhere]), &options);
    assert_eq!(accepted(&t).1, INVALID_PARAMETERS);
}

// "refers to an unsupported kind": only when the embedder declares its kinds; a declared kind
// gamma-rs has no input for is the embedder's to resolve, and is not refused.
#[test]
fn an_undeclared_parameters_kind_is_invalid_only_when_the_embedder_declares_its_kinds() {
    let s = snapshot(&[&gateway("{group: example.com, kind: Proxy, name: p}")]);
    assert!(accepted(&RouteTable::build(&s, &BuildOptions::default())).0);
    let declared = BuildOptions::default().with_gateway_parameter_kinds([("", "ConfigMap")]);
    let (ok, reason, message) = accepted(&RouteTable::build(&s, &declared));
    assert!(!ok);
    assert_eq!(reason, INVALID_PARAMETERS);
    assert!(
        message.contains("example.com/Proxy is not a supported kind"),
        "{message}"
    );
    let ours = BuildOptions::default().with_gateway_parameter_kinds([("example.com", "Proxy")]);
    assert!(accepted(&RouteTable::build(&s, &ours)).0);
}

// docs/incremental.md: a ConfigMap change rebuilds the Gateways naming it, and the update is
// what a build of the new snapshot gives (status and traffic).
#[test]
fn creating_and_deleting_the_parameters_config_map_updates_as_a_build_does() {
    let options = BuildOptions::default().with_keep_lowered_routes(true);
    let before = snapshot(&[&gateway(CONFIG_MAP_REF)]);
    let table = RouteTable::build(&before, &options);
    let mut after = before.clone();
    let cm = decode(PARAMS).unwrap().remove(0);
    after.upsert(cm.clone());
    let key = ObjectKey::of(&cm);
    assert_eq!(key.kind, ResourceKind::ConfigMap);
    let updated = table.update(&after, &options, &key, None);
    let built = RouteTable::build(&after, &options);
    assert_eq!(accepted(&updated), accepted(&built));
    assert!(accepted(&updated).0);
    assert_eq!(answers(&updated), answers(&built));
    // and back
    let previous: Option<&AnyResource> = after.get(&key);
    let previous = previous.cloned();
    let mut gone = after.clone();
    gone.remove(&key);
    let again = updated.update(&gone, &options, &key, previous.as_ref());
    assert_eq!(
        accepted(&again),
        accepted(&RouteTable::build(&gone, &options))
    );
    assert_eq!(accepted(&again).1, INVALID_PARAMETERS);
}
