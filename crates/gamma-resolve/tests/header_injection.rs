//! Header values with CR, LF or NUL are never programmed, on either channel: the rule is
//! refused with `UnsupportedValue` naming the field. The experimental CRDs forbid such values
//! (HTTPHeader.value pattern `^[!-~]+([\t ]?[!-~]+)*$`); the standard CRDs admit them, and
//! programming one into a data plane is header injection (RFC 9110 section 5.5: a field value
//! never contains CR, LF or NUL).
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use gamma_model::Snapshot;
use gamma_model::validate::Channel;
use gamma_resolve::status::{ACCEPTED, PARTIALLY_INVALID};
use gamma_resolve::*;

const ROUTE: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: web, namespace: app}
spec: {clusterIP: 10.96.0.11, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: web}]
  rules:
  - matches: [{path: {value: /inject}}]
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier: {set: [{name: x-b, value: "ok\r\nX-Evil: 1"}]}
    backendRefs: [{name: web, port: 80}]
  - matches: [{path: {value: /ok}}]
    backendRefs: [{name: web, port: 80}]
"#;

fn table(channel: Channel) -> RouteTable {
    let snap = Snapshot::from_resources(gamma_model::decode(ROUTE).unwrap());
    let mut opts = BuildOptions::default();
    opts.channel = channel;
    RouteTable::build(&snap, &opts)
}

// Standard channel: the CRD admits the value, so the route exists; gamma-rs drops the one rule
// (Gateway API RouteConditionPartiallyInvalid: "Dropped Rule") and serves the others.
#[test]
fn header_values_with_control_characters_are_never_programmed() {
    let t = table(Channel::Standard);
    let st = &t.parent_conditions()[0];
    assert!(st.condition(ACCEPTED).unwrap().status);
    let pi = st.condition(PARTIALLY_INVALID).unwrap();
    assert_eq!(pi.reason, "UnsupportedValue");
    assert!(pi.message.starts_with("Dropped Rule"), "{}", pi.message);
    assert!(
        pi.message
            .contains("spec.rules[0].filters[0].requestHeaderModifier.set[0].value"),
        "{}",
        pi.message
    );
    let ip = "10.96.0.11".parse().unwrap();
    let d = t.resolve(&Request::http(ip, 80, "GET", "/inject"), 0);
    assert_eq!(d.status(), Some(Status::Http(404)), "{d:?}");
    let d = t.resolve(&Request::http(ip, 80, "GET", "/ok"), 0);
    assert!(matches!(d, Decision::Forward(_)), "{d:?}");
}

// Experimental channel: the CRD's pattern (HTTPHeader.value) refuses the value, so the API
// server would refuse the whole route: it is left out, Accepted=False with the field named, and
// none of its rules is served (one verdict per object, docs/validation.md).
#[test]
fn a_route_the_experimental_crd_refuses_for_a_header_value_is_left_out_whole() {
    let t = table(Channel::Experimental);
    let st = &t.parent_conditions()[0];
    let accepted = st.condition(ACCEPTED).unwrap();
    assert!(!accepted.status);
    assert_eq!(accepted.reason, "UnsupportedValue");
    assert!(
        accepted
            .message
            .contains("spec.rules[0].filters[0].requestHeaderModifier.set[0].value"),
        "{}",
        accepted.message
    );
    assert!(st.condition(PARTIALLY_INVALID).is_none());
    let ip = "10.96.0.11".parse().unwrap();
    assert!(t.left_out_at(ip).any(|l| l.contains("HTTPRoute app/r")));
    let d = t.resolve(&Request::http(ip, 80, "GET", "/ok"), 0);
    assert!(
        matches!(d, Decision::Passthrough),
        "the route's other rule is not served either: {d:?}"
    );
}

// The same through the two-step API (`lower`, then `RouteTable::from_input`) with default
// validation options: refusing CR, LF and NUL is not an option a caller can forget to set.
#[test]
fn lowering_with_default_options_never_programs_control_characters() {
    let snap = Snapshot::from_resources(gamma_model::decode(ROUTE).unwrap());
    let t = RouteTable::from_input(&gamma_resolve::lower(&snap), &BuildOptions::default());
    let ip = "10.96.0.11".parse().unwrap();
    let d = t.resolve(&Request::http(ip, 80, "GET", "/inject"), 0);
    assert_eq!(d.status(), Some(Status::Http(404)), "{d:?}");
    let d = t.resolve(&Request::http(ip, 80, "GET", "/ok"), 0);
    assert!(matches!(d, Decision::Forward(_)), "{d:?}");
}
