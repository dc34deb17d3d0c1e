//! Gateway status writes for an embedding gateway controller (Gateway API GatewayStatus): the
//! Gateways whose GatewayClass names `me` get their computed status merged into what is
//! stored, nothing when unchanged, and no other controller's Gateway is touched.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{CLASSES, apply, gateway, now, reconciler, snapshot, web_and_route};
use gamma_model::gateway::ConditionStatus;
use gamma_model::meta::Time;

/// Our Gateway `infra/gw`, its addresses and a `Programmed` condition (the data plane's) as
/// stored.
const OUR_GATEWAY: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra, generation: 3}
spec:
  gatewayClassName: ours
  listeners: [{name: http, port: 80, protocol: HTTP}]
status:
  addresses: [{type: IPAddress, value: 192.0.2.1}]
  conditions:
  - {type: Programmed, status: "True", reason: Programmed, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
"#;

// GatewayStatus: the Gateway's controller writes Accepted and per listener attachedRoutes,
// supportedKinds and conditions; the addresses stay as stored; Programmed, stored without a
// generation and not supplied, is refreshed to Unknown at the Gateway's (never left stale); a
// Gateway of another controller's class gets nothing.
#[test]
fn a_gateway_controller_gets_merged_status_writes_for_its_own_gateways_only() {
    let mut r = reconciler();
    let mut snapshot = snapshot(&[
        CLASSES,
        &gateway("other", "theirs", 1),
        OUR_GATEWAY,
        &web_and_route(80, None),
    ]);
    let out = r.reconcile(&snapshot, now());
    assert_eq!(
        out.gateway_status_updates.len(),
        1,
        "{:?}",
        out.gateway_status_updates
    );
    let (key, status) = &out.gateway_status_updates[0];
    assert_eq!((key.namespace.as_str(), key.name.as_str()), ("infra", "gw"));
    let types: Vec<&str> = status.conditions.iter().map(|c| c.type_.as_str()).collect();
    assert_eq!(types, ["Programmed", "Accepted"]);
    let accepted = &status.conditions[1];
    assert_eq!(accepted.status, ConditionStatus::True);
    assert_eq!(accepted.observed_generation, Some(3));
    let programmed = &status.conditions[0];
    assert_eq!(
        (&programmed.status, programmed.observed_generation),
        (&ConditionStatus::Unknown, Some(3))
    );
    assert_eq!(status.addresses[0].value, "192.0.2.1");
    assert_eq!(status.listeners[0].name, "http");
    assert_eq!(status.listeners[0].attached_routes, 1);
    let kinds: Vec<&str> = status.listeners[0]
        .supported_kinds
        .iter()
        .map(|k| k.kind.as_str())
        .collect();
    assert_eq!(kinds, ["HTTPRoute", "GRPCRoute"]);
    // once written, the next reconciliation has nothing to write
    apply(&mut snapshot, &out);
    let later = Time::parse("2026-02-01T00:05:00Z").unwrap();
    let again = r.reconcile(&snapshot, later);
    assert!(
        again.gateway_status_updates.is_empty(),
        "{:?}",
        again.gateway_status_updates
    );
}

// One verdict per object: a Gateway of our class that the API server would refuse (two
// listeners named `http`: "Listener name must be unique within the Gateway") gets
// Accepted=False reason Invalid (GatewayConditionReason Invalid) with that error, no listener
// entries, and the route naming it Accepted=False NoMatchingParent; `Programmed` stays ours
// to write.
#[test]
fn a_gateway_the_api_server_would_refuse_is_written_accepted_false_invalid() {
    const REFUSED: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra, generation: 2}
spec:
  gatewayClassName: ours
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: http, port: 8080, protocol: HTTP}
"#;
    let mut r = reconciler();
    let out = r.reconcile(
        &snapshot(&[CLASSES, REFUSED, &web_and_route(80, None)]),
        now(),
    );
    let [(key, status)] = &out.gateway_status_updates[..] else {
        panic!("{:?}", out.gateway_status_updates)
    };
    assert_eq!(key.name, "gw");
    let types: Vec<&str> = status.conditions.iter().map(|c| c.type_.as_str()).collect();
    assert_eq!(types, ["Accepted"]);
    let accepted = &status.conditions[0];
    assert_eq!(
        (&accepted.status, accepted.reason.as_str()),
        (&ConditionStatus::False, "Invalid")
    );
    assert_eq!(
        accepted.message,
        "spec.listeners: Listener name must be unique within the Gateway"
    );
    assert!(status.listeners.is_empty(), "{status:?}");
    let [(_, route)] = &out.status_updates[..] else {
        panic!("{:?}", out.status_updates)
    };
    let c = &route.parents[0].conditions[0];
    assert_eq!(
        (c.type_.as_str(), &c.status, c.reason.as_str()),
        ("Accepted", &ConditionStatus::False, "NoMatchingParent")
    );
}
