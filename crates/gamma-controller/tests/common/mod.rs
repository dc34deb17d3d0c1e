//! Set-up shared by the status-write tests of an embedding gateway controller: the two
//! GatewayClasses (ours, `example.com/gateway`, and another controller's), the other
//! controller's Gateway, a Service with a route on our Gateway, the reconciler, the clock,
//! and the API server's side of a reconciliation (its writes applied).
#![allow(dead_code)] // each test binary uses its own subset
#![allow(clippy::panic)]

use gamma_arbiter::{ArbiterConfig, Identity};
use gamma_controller::{Reconciler, ReconcilerConfig, Reconciliation};
use gamma_model::meta::Time;
use gamma_model::{AnyResource, Snapshot, decode};

/// Our controller name.
pub const ME: &str = "example.com/gateway";
/// Another gateway controller's.
pub const OTHER: &str = "other.example/gateway";

/// GatewayClass `ours` (run by [`ME`]) and GatewayClass `theirs` (by [`OTHER`]).
pub const CLASSES: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: ours}
spec: {controllerName: example.com/gateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: theirs}
spec: {controllerName: other.example/gateway}
"#;

/// Gateway `infra/NAME` of `class` at `generation`, with one HTTP listener on port 80 and
/// ListenerSets admitted from every namespace.
pub fn gateway(name: &str, class: &str, generation: u32) -> String {
    format!(
        r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: {name}, namespace: infra, generation: {generation}}}
spec:
  gatewayClassName: {class}
  allowedListeners: {{namespaces: {{from: All}}}}
  listeners: [{{name: http, port: 80, protocol: HTTP}}]
"#
    )
}

/// Service `infra/web` with one port (`port`, named `port_name` when given) and HTTPRoute
/// `infra/r` on Gateway `infra/gw` to it.
pub fn web_and_route(port: u16, port_name: Option<&str>) -> String {
    let name = port_name.map_or(String::new(), |n| format!("name: {n}, "));
    format!(
        r#"
apiVersion: v1
kind: Service
metadata: {{name: web, namespace: infra}}
spec: {{clusterIP: 10.96.0.5, ports: [{{{name}port: {port}}}]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: r, namespace: infra, generation: 1}}
spec:
  parentRefs: [{{name: gw}}]
  rules: [{{backendRefs: [{{name: web, port: {port}}}]}}]
"#
    )
}

/// A snapshot of the YAML documents `parts`, joined.
pub fn snapshot(parts: &[&str]) -> Snapshot {
    Snapshot::from_resources(decode(&parts.join("---\n")).unwrap())
}

/// A reconciler for [`ME`].
pub fn reconciler() -> Reconciler {
    Reconciler::new(ReconcilerConfig::new(
        ArbiterConfig::default(),
        Identity::new(ME),
    ))
    .unwrap()
}

/// The reconciliations' clock.
pub fn now() -> Time {
    Time::parse("2026-02-01T00:00:00Z").unwrap()
}

/// `snapshot` with every Gateway, ListenerSet and BackendTLSPolicy status write of `r`
/// applied, as the API server would store them.
pub fn apply(snapshot: &mut Snapshot, r: &Reconciliation) {
    for (key, status) in &r.listener_set_status_updates {
        let Some(AnyResource::ListenerSet(mut ls)) = snapshot.get(key).cloned() else {
            panic!("{key:?}")
        };
        ls.status = Some(status.clone());
        snapshot.upsert(ls.into());
    }
    for (key, status) in &r.backend_tls_policy_status_updates {
        let Some(AnyResource::BackendTlsPolicy(mut p)) = snapshot.get(key).cloned() else {
            panic!("{key:?}")
        };
        p.status = Some(status.clone());
        snapshot.upsert(p.into());
    }
    for (key, status) in &r.gateway_status_updates {
        let Some(AnyResource::Gateway(mut g)) = snapshot.get(key).cloned() else {
            panic!("{key:?}")
        };
        g.status = Some(status.clone());
        snapshot.upsert(g.into());
    }
}
