//! Gateway parents end to end (decode -> Snapshot -> RouteTable::build -> resolve and route
//! conditions): the rules of the Gateway API route and listener status, by route kind.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use gamma_model::Snapshot;
use gamma_resolve::status::{ACCEPTED, RESOLVED_REFS, RouteCondition};
use gamma_resolve::*;

fn snapshot(yaml: &str) -> Snapshot {
    Snapshot::from_resources(gamma_model::decode(yaml).unwrap())
}

fn table(yaml: &str) -> RouteTable {
    RouteTable::build(&snapshot(yaml), &BuildOptions::default())
}

/// The condition `type_` of the route `name`'s first parentRef.
fn cond(t: &RouteTable, name: &str, type_: &str) -> RouteCondition {
    t.parent_conditions()
        .iter()
        .find(|s| s.name == name)
        .and_then(|s| s.condition(type_))
        .cloned()
        .unwrap_or_else(|| panic!("no {type_} for {name}: {:?}", t.parent_conditions()))
}

const GW_IP: &str = "192.0.2.1";

/// A Gateway with one listener of each L4 protocol, and a Service to route to.
const L4_GATEWAY: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.1}]
  listeners:
  - {name: tcp, port: 9000, protocol: TCP}
  - {name: tls, port: 9443, protocol: TLS, tls: {mode: Passthrough}}
  - {name: udp, port: 5353, protocol: UDP}
---
apiVersion: v1
kind: Service
metadata: {name: ok, namespace: infra}
spec: {clusterIP: 10.96.1.1, ports: [{port: 80}, {port: 53, protocol: UDP}]}
"#;

fn l4_route(kind: &str, name: &str, section: &str, backend: &str, port: u16) -> String {
    let (version, hostnames) = if kind == "TLSRoute" {
        // TLSRoute v1: spec.hostnames has at least one item
        ("v1", "\n  hostnames: [svc.example.com]")
    } else {
        ("v1alpha2", "")
    };
    format!(
        r#"
---
apiVersion: gateway.networking.k8s.io/{version}
kind: {kind}
metadata: {{name: {name}, namespace: infra}}
spec:{hostnames}
  parentRefs: [{{name: gw, sectionName: {section}}}]
  rules: [{{backendRefs: [{{name: {backend}, port: {port}}}]}}]
"#
    )
}

// RouteParentStatus.conditions: "A Route MUST be considered Accepted if at least one of the
// Route's rules is implemented by the Gateway"; an unresolved backendRef is ResolvedRefs=False
// with its reason, for TCPRoute, TLSRoute and UDPRoute as for HTTPRoute. TCPRouteRule.backendRefs:
// the implementation "MUST actively reject connection attempts to this backend".
#[test]
fn l4_route_with_missing_backend_stays_accepted_and_rejects_connections() {
    let yaml = format!(
        "{L4_GATEWAY}{}{}{}",
        l4_route("TCPRoute", "tcp", "tcp", "missing", 80),
        l4_route("TLSRoute", "tls", "tls", "missing", 80),
        l4_route("UDPRoute", "udp", "udp", "missing", 53),
    );
    let t = table(&yaml);
    for name in ["tcp", "tls", "udp"] {
        let accepted = cond(&t, name, ACCEPTED);
        assert!(accepted.status, "{name}: {accepted:?}");
        assert_eq!(accepted.reason, "Accepted");
        let refs = cond(&t, name, RESOLVED_REFS);
        assert!(!refs.status, "{name}: {refs:?}");
        assert_eq!(refs.reason, "BackendNotFound", "{name}");
    }
    let ip = GW_IP.parse().unwrap();
    let tls_sni = "svc.example.com";
    for req in [
        Request::connection(ip, 9000, Protocol::Tcp),
        Request::connection(ip, 9443, Protocol::Tls).with_sni(tls_sni),
        Request::connection(ip, 5353, Protocol::Udp),
    ] {
        let d = t.resolve(&req, 0);
        let Decision::Respond(r) = d else {
            panic!("{:?}: {d:?}", req.protocol)
        };
        assert_eq!(r.status, Status::Reject);
        assert_eq!(r.reason, RespondReason::InvalidBackend);
    }
}

// The same rule for a backend in another namespace without a ReferenceGrant
// (RefNotPermitted) and a backendRef of an unknown kind (InvalidKind): Accepted=True,
// ResolvedRefs=False with the reason, connections rejected.
#[test]
fn l4_route_with_unpermitted_or_wrong_kind_backend_stays_accepted() {
    let cross = r#"
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: cross, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: tcp}]
  rules: [{backendRefs: [{name: other, namespace: elsewhere, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: other, namespace: elsewhere}
spec: {clusterIP: 10.96.1.2, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata: {name: kind, namespace: infra}
spec:
  hostnames: [svc.example.com]
  parentRefs: [{name: gw, sectionName: tls}]
  rules: [{backendRefs: [{group: example.com, kind: Bucket, name: b, port: 80}]}]
"#;
    let t = table(&format!("{L4_GATEWAY}{cross}"));
    for (name, reason) in [("cross", "RefNotPermitted"), ("kind", "InvalidKind")] {
        assert!(cond(&t, name, ACCEPTED).status, "{name}");
        let refs = cond(&t, name, RESOLVED_REFS);
        assert_eq!((refs.status, refs.reason.as_str()), (false, reason));
    }
    let ip = GW_IP.parse().unwrap();
    let d = t.resolve(&Request::connection(ip, 9000, Protocol::Tcp), 0);
    assert_eq!(d.status(), Some(Status::Reject));
}

// A resolvable L4 backend is forwarded to, and the route has ResolvedRefs=True (the control
// case of the two tests above).
#[test]
fn l4_route_with_valid_backend_forwards() {
    let t = table(&format!(
        "{L4_GATEWAY}{}",
        l4_route("TCPRoute", "tcp", "tcp", "ok", 80)
    ));
    assert!(cond(&t, "tcp", RESOLVED_REFS).status);
    let ip = GW_IP.parse().unwrap();
    let Decision::Forward(f) = t.resolve(&Request::connection(ip, 9000, Protocol::Tcp), 0) else {
        panic!()
    };
    assert_eq!(f.backend.name, "ok");
}
