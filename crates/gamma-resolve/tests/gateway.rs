//! Gateway parents end to end (decode -> Snapshot -> RouteTable::build -> resolve and route
//! conditions): the rules of the Gateway API route and listener status, by route kind.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::manifest::{route_condition, table};
use gamma_model::RouteKind;
use gamma_resolve::status::{
    ACCEPTED, NO_MATCHING_PARENT, NOT_ALLOWED_BY_LISTENERS, RESOLVED_REFS, RouteCondition,
};
use gamma_resolve::*;

/// The condition `type_` of the route `name`'s first parentRef.
fn cond(t: &RouteTable, name: &str, type_: &str) -> RouteCondition {
    route_condition(t, name, 0, type_)
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

/// A Gateway whose listeners test `allowedRoutes.kinds` and protocols, with one HTTPRoute per
/// listener (by sectionName).
const KINDS_GATEWAY: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.1}]
  listeners:
  - name: only-foo
    port: 80
    protocol: HTTP
    hostname: foo.example.com
    allowedRoutes: {kinds: [{kind: FooRoute}]}
  - name: only-grpc
    port: 80
    protocol: HTTP
    hostname: grpc.example.com
    allowedRoutes: {kinds: [{kind: GRPCRoute}]}
  - name: tcp-on-http
    port: 80
    protocol: HTTP
    hostname: tcp.example.com
    allowedRoutes: {kinds: [{kind: TCPRoute}]}
  - name: mixed
    port: 80
    protocol: HTTP
    hostname: mixed.example.com
    allowedRoutes: {kinds: [{kind: HTTPRoute}, {group: example.com, kind: HTTPRoute}]}
  - name: custom
    port: 8080
    protocol: example.com/PROXY
---
apiVersion: v1
kind: Service
metadata: {name: ok, namespace: infra}
spec: {clusterIP: 10.96.1.1, ports: [{port: 80}]}
"#;

fn http_route(name: &str, section: &str) -> String {
    format!(
        r#"
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: {name}, namespace: infra}}
spec:
  parentRefs: [{{name: gw, sectionName: {section}}}]
  rules: [{{backendRefs: [{{name: ok, port: 80}}]}}]
"#
    )
}

// Listener.allowedRoutes.kinds: a non-empty list limits attachment to the listed kinds the
// listener supports; invalid entries never widen it, so a listener listing only kinds it
// cannot serve (FooRoute, or TCPRoute on HTTP) admits no route: NotAllowedByListeners
// (RouteConditionReason: "the route is not allowed by the listeners"), and its traffic is 404.
#[test]
fn allowed_route_kinds_limit_attachment_and_unsupported_kinds_admit_nothing() {
    let yaml = format!(
        "{KINDS_GATEWAY}{}{}{}{}",
        http_route("foo", "only-foo"),
        http_route("grpc", "only-grpc"),
        http_route("tcp", "tcp-on-http"),
        http_route("mixed", "mixed"),
    );
    let t = table(&yaml);
    for name in ["foo", "grpc", "tcp"] {
        let c = cond(&t, name, ACCEPTED);
        assert_eq!(
            (c.status, c.reason.as_str()),
            (false, NOT_ALLOWED_BY_LISTENERS),
            "{name}"
        );
    }
    assert!(cond(&t, "mixed", ACCEPTED).status);
    let ip = GW_IP.parse().unwrap();
    let get = |host| Request::http(ip, 80, "GET", "/").with_host(host);
    assert_eq!(
        t.resolve(&get("foo.example.com"), 0).status(),
        Some(Status::Http(404))
    );
    assert_eq!(
        t.resolve(&get("tcp.example.com"), 0).status(),
        Some(Status::Http(404))
    );
    let Decision::Forward(f) = t.resolve(&get("mixed.example.com"), 0) else {
        panic!()
    };
    assert_eq!(f.backend.name, "ok");
}

// RouteConditionReason NoMatchingParent: "a Route ParentRef specifies a Port and/or
// SectionName that does not match any Listeners in the Gateway"; a listener that exists but
// does not accept the route (here: an implementation-specific protocol gamma-rs does not
// serve) is NotAllowedByListeners instead.
#[test]
fn no_matching_parent_only_for_a_section_or_port_that_names_no_listener() {
    let port = r#"
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: port, namespace: infra}
spec:
  parentRefs: [{name: gw, port: 81}]
  rules: [{backendRefs: [{name: ok, port: 80}]}]
"#;
    let yaml = format!(
        "{KINDS_GATEWAY}{}{}{port}",
        http_route("nosuch", "nosuch"),
        http_route("custom", "custom"),
    );
    let t = table(&yaml);
    for name in ["nosuch", "port"] {
        let c = cond(&t, name, ACCEPTED);
        assert_eq!(
            (c.status, c.reason.as_str()),
            (false, NO_MATCHING_PARENT),
            "{name}"
        );
    }
    let c = cond(&t, "custom", ACCEPTED);
    assert_eq!(
        (c.status, c.reason.as_str()),
        (false, NOT_ALLOWED_BY_LISTENERS)
    );
    // the unsupported listener binds nothing: its port is passthrough
    let ip = GW_IP.parse().unwrap();
    let d = t.resolve(&Request::http(ip, 8080, "GET", "/"), 0);
    assert!(matches!(d, Decision::Passthrough), "{d:?}");
}

// HTTPRouteRule.matches: "When no rules matching a request have been successfully attached to
// the parent a request is coming from, a HTTP 404 status code MUST be returned": a Gateway
// listener with no route attached answers 404 (and rejects L4 connections); only an address
// that binds nothing is passthrough.
#[test]
fn listener_without_routes_answers_404() {
    let t = table(&format!("{KINDS_GATEWAY}{L4_GATEWAY_LISTENERLESS}"));
    let ip = GW_IP.parse().unwrap();
    let get = Request::http(ip, 80, "GET", "/").with_host("mixed.example.com");
    let d = t.resolve(&get, 0);
    let Decision::Respond(r) = d else {
        panic!("{d:?}")
    };
    assert_eq!(r.status, Status::Http(404));
    assert_eq!(r.reason, RespondReason::NoMatchingRule);
    let other: std::net::IpAddr = "192.0.2.2".parse().unwrap();
    let d = t.resolve(&Request::connection(other, 9000, Protocol::Tcp), 0);
    assert_eq!(d.status(), Some(Status::Reject));
    let d = t.resolve(&Request::http(other, 81, "GET", "/"), 0);
    assert!(matches!(d, Decision::Passthrough), "{d:?}");
    let d = t.resolve(
        &Request::http("192.0.2.3".parse().unwrap(), 80, "GET", "/"),
        0,
    );
    assert!(matches!(d, Decision::Passthrough), "{d:?}");
}

/// A second Gateway with a TCP listener and no route.
const L4_GATEWAY_LISTENERLESS: &str = r#"
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: tcp, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.2}]
  listeners: [{name: tcp, port: 9000, protocol: TCP}]
"#;

const STATUS_GATEWAYS: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.1}]
  listeners:
  - {name: web, port: 80, protocol: HTTP, hostname: a.example.com}
  - name: kinds
    port: 80
    protocol: HTTP
    hostname: k.example.com
    allowedRoutes: {kinds: [{kind: FooRoute}, {kind: HTTPRoute}]}
  - name: https
    port: 443
    protocol: HTTPS
    hostname: s.example.com
    tls: {certificateRefs: [{name: cert}]}
  - name: https-cross
    port: 443
    protocol: HTTPS
    hostname: x.example.com
    tls: {certificateRefs: [{name: cert, namespace: certs}]}
  - name: https-kind
    port: 443
    protocol: HTTPS
    hostname: y.example.com
    tls: {certificateRefs: [{group: example.com, kind: Vault, name: v}]}
  - {name: custom, port: 8080, protocol: example.com/PROXY}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: clash, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.9}]
  listeners:
  # HTTPS and TLS with one hostname on one port: the CRD admits them (its uniqueness rule
  # compares port, protocol and hostname), but SNI cannot tell them apart
  - {name: a, port: 443, protocol: HTTPS, hostname: same.example.com, tls: {certificateRefs: [{name: cert}]}}
  - {name: b, port: 443, protocol: TLS, hostname: same.example.com, tls: {mode: Passthrough}}
  - {name: t, port: 9000, protocol: TCP}
  - {name: h, port: 9000, protocol: HTTP}
---
apiVersion: v1
kind: Service
metadata: {name: ok, namespace: infra}
spec: {clusterIP: 10.96.1.1, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: web}, {name: gw, sectionName: kinds}]
  rules: [{backendRefs: [{name: ok, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r2, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: web}]
  hostnames: [other.org]
  rules: [{backendRefs: [{name: ok, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r3, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: web}, {name: clash, sectionName: a}]
  hostnames: [a.example.com, same.example.com]
  rules: [{backendRefs: [{name: ok, port: 80}]}]
"#;

fn listener_cond<'t>(
    t: &'t RouteTable,
    gw: &str,
    listener: &str,
    type_: &str,
) -> &'t RouteCondition {
    let g = t.gateway_status().iter().find(|g| g.name == gw).unwrap();
    g.listener(listener).unwrap().condition(type_).unwrap()
}

fn reason(c: &RouteCondition) -> (bool, &str) {
    (c.status, c.reason.as_str())
}

// ListenerStatus.attachedRoutes: "the number of Routes with the Accepted condition set to
// True that have been attached to this Listener", by allowedRoutes and parentRefs, counted
// even when the listener itself is not accepted; a route whose hostnames intersect no
// listener hostname is not attached. ListenerStatus.supportedKinds lists only the valid kinds.
#[test]
fn listener_attached_routes_and_supported_kinds() {
    let t = table(STATUS_GATEWAYS);
    let gw = t.gateway_status().iter().find(|g| g.name == "gw").unwrap();
    assert_eq!(
        gw.addresses,
        vec![GW_IP.parse::<std::net::IpAddr>().unwrap()]
    );
    let web = gw.listener("web").unwrap();
    assert_eq!(web.attached_routes, 2, "r1 and r3; not r2 (no hostname)");
    assert_eq!(web.supported_kinds, vec![RouteKind::Http, RouteKind::Grpc]);
    let kinds = gw.listener("kinds").unwrap();
    assert_eq!(kinds.supported_kinds, vec![RouteKind::Http]);
    // r1 (no hostnames) on the HTTPRoute entry of `kinds`
    assert_eq!(kinds.attached_routes, 1);
    assert_eq!(gw.listener("custom").unwrap().supported_kinds, vec![]);
    // counted on a Conflicted (not accepted) listener too
    let clash = t
        .gateway_status()
        .iter()
        .find(|g| g.name == "clash")
        .unwrap();
    assert_eq!(clash.listener("a").unwrap().attached_routes, 1);
}

// ListenerConditionReason: ResolvedRefs=False with InvalidRouteKinds for an unsupported kind,
// InvalidCertificateRef for a certificateRef that is not a core Secret, RefNotPermitted for a
// Secret in another namespace without a ReferenceGrant (GatewayTLSConfig.certificateRefs).
#[test]
fn listener_resolved_refs_and_accepted_reasons() {
    let t = table(STATUS_GATEWAYS);
    let c = |l, ty| reason(listener_cond(&t, "gw", l, ty));
    assert_eq!(c("web", RESOLVED_REFS), (true, "ResolvedRefs"));
    assert_eq!(c("web", ACCEPTED), (true, "Accepted"));
    assert_eq!(c("web", "Conflicted"), (false, "NoConflicts"));
    assert_eq!(c("kinds", RESOLVED_REFS), (false, "InvalidRouteKinds"));
    assert!(
        listener_cond(&t, "gw", "kinds", RESOLVED_REFS)
            .message
            .contains("gateway.networking.k8s.io/FooRoute")
    );
    assert_eq!(c("https", RESOLVED_REFS), (true, "ResolvedRefs"));
    assert_eq!(c("https-cross", RESOLVED_REFS), (false, "RefNotPermitted"));
    assert_eq!(
        c("https-kind", RESOLVED_REFS),
        (false, "InvalidCertificateRef")
    );
    // a protocol gamma-rs does not serve: its Accepted is the embedding controller's (which
    // may serve it), so gamma-rs neither accepts nor rejects the listener or the Gateway for it
    let gw = t.gateway_status().iter().find(|g| g.name == "gw").unwrap();
    let custom = gw.listener("custom").unwrap();
    assert!(custom.condition(ACCEPTED).is_none());
    assert_eq!(
        reason(custom.condition(RESOLVED_REFS).unwrap()),
        (true, "ResolvedRefs")
    );
    assert_eq!(reason(gw.condition(ACCEPTED).unwrap()), (true, "Accepted"));

    let grant = r#"
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: certs, namespace: certs}
spec:
  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}]
  to: [{group: "", kind: Secret}]
"#;
    let t = table(&format!("{STATUS_GATEWAYS}{grant}"));
    assert!(listener_cond(&t, "gw", "https-cross", RESOLVED_REFS).status);
}

// Gateway Listener docs: listeners that share a protocol and port must differ in hostname
// (HTTP, HTTPS, TLS); HTTP/HTTPS/TLS sharing a port with TCP are not distinct. Indistinct
// listeners are Conflicted (HostnameConflict, ProtocolConflict), none is picked as the winner,
// none is accepted or serves traffic, and a Gateway left with no listener is not accepted.
#[test]
fn indistinct_listeners_are_conflicted_and_serve_nothing() {
    let t = table(STATUS_GATEWAYS);
    let c = |l, ty| reason(listener_cond(&t, "clash", l, ty));
    for l in ["a", "b"] {
        assert_eq!(c(l, "Conflicted"), (true, "HostnameConflict"), "{l}");
        assert!(!listener_cond(&t, "clash", l, ACCEPTED).status, "{l}");
    }
    for l in ["t", "h"] {
        assert_eq!(c(l, "Conflicted"), (true, "ProtocolConflict"), "{l}");
    }
    let clash = t
        .gateway_status()
        .iter()
        .find(|g| g.name == "clash")
        .unwrap();
    assert_eq!(
        reason(clash.condition(ACCEPTED).unwrap()),
        (false, "ListenersNotValid")
    );
    let ip = "192.0.2.9".parse().unwrap();
    let req = Request::http(ip, 443, "GET", "/").with_host("same.example.com");
    assert!(matches!(t.resolve(&req, 0), Decision::Passthrough));
    // the distinct Gateway still serves its listeners
    let req = Request::http(GW_IP.parse().unwrap(), 80, "GET", "/").with_host("a.example.com");
    assert!(matches!(t.resolve(&req, 0), Decision::Forward(_)));
}
