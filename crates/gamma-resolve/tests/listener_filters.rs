//! Listener pre-routing filters end to end (decode -> Snapshot -> RouteTable::build ->
//! resolve and explain): GEP-5224 and the Gateway API v1.7 ListenerFilters field docs. The
//! filters of the listener a request arrives through (a Gateway's or a ListenerSet's) are
//! carried on its decision, to run before route matching; "Requests MUST NOT be interpreted as
//! changing which Listener handles the request", so the listener, route and backend are those
//! of the same table without filters.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::manifest::snapshot;
use gamma_model::validate::{Bundle, Channel, Release};
use gamma_resolve::listener_filter::ListenerFilter;
use gamma_resolve::*;
use proptest::prelude::*;

const GW_IP: &str = "192.0.2.10";

fn experimental() -> BuildOptions {
    BuildOptions::default().with_bundle(Bundle::new(Release::V1_7, Channel::Experimental))
}

/// A Gateway with two HTTP listeners on port 80 (`a.example.com`, and `*.example.com` with
/// `filters`), one on 81 with `filters` in a ListenerSet, routes on each, and the Services.
fn manifests(filters: &str) -> String {
    format!(
        r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: infra}}
spec:
  gatewayClassName: example
  addresses: [{{type: IPAddress, value: {GW_IP}}}]
  allowedListeners: {{namespaces: {{from: Same}}}}
  listeners:
  - name: exact
    port: 80
    protocol: HTTP
    hostname: a.example.com
  - name: wild
    port: 80
    protocol: HTTP
    hostname: "*.example.com"{filters}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {{name: extra, namespace: infra, creationTimestamp: "2026-01-01T00:00:00Z"}}
spec:
  parentRef: {{name: gw}}
  listeners:
  - name: more
    port: 81
    protocol: HTTP{filters}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: on-exact, namespace: infra}}
spec:
  parentRefs: [{{name: gw, sectionName: exact}}]
  rules:
  - backendRefs: [{{name: a, port: 8080}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: on-wild, namespace: infra}}
spec:
  parentRefs: [{{name: gw, sectionName: wild}}]
  rules:
  - matches: [{{path: {{type: PathPrefix, value: /v2}}}}]
    backendRefs: [{{name: b, port: 8080}}]
  - backendRefs: [{{name: a, port: 8080, weight: 1}}, {{name: b, port: 8080, weight: 3}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: on-set, namespace: infra}}
spec:
  parentRefs: [{{group: gateway.networking.k8s.io, kind: ListenerSet, name: extra}}]
  rules:
  - matches: [{{path: {{type: PathPrefix, value: /set}}}}]
    backendRefs: [{{name: b, port: 8080}}]
---
apiVersion: v1
kind: Service
metadata: {{name: a, namespace: infra}}
spec: {{clusterIP: 10.96.0.20, ports: [{{port: 8080}}]}}
---
apiVersion: v1
kind: Service
metadata: {{name: b, namespace: infra}}
spec: {{clusterIP: 10.96.0.21, ports: [{{port: 8080}}]}}
"#
    )
}

const AUTH_AND_WAF: &str = r#"
    filters:
      requests:
      - type: ExternalAuth
        externalAuth: {protocol: GRPC, grpc: {}, backendRef: {name: authz, port: 9000}}
      - type: ExtensionRef
        extensionRef: {group: example.com, kind: Waf, name: strict}"#;

const AUTH_ONLY: &str = r#"
    filters:
      requests:
      - type: ExternalAuth
        externalAuth: {protocol: HTTP, http: {}, backendRef: {name: authz, namespace: auth, port: 8000}}"#;

fn table(filters: &str, options: &BuildOptions) -> RouteTable {
    RouteTable::build(&snapshot(&manifests(filters)), options)
}

fn req<'a>(port: u16, host: &'a str, path: &'a str) -> Request<'a> {
    Request::http(GW_IP.parse().unwrap(), port, "GET", path).with_host(host)
}

/// Everything of a decision but its listener filters, as JSON.
fn without_filters(d: &Decision<'_>) -> serde_json::Value {
    let mut v = serde_json::to_value(d).unwrap();
    v.as_object_mut().unwrap().remove("listenerFilters");
    v
}

#[test]
fn a_request_through_a_listener_with_filters_carries_them_in_order() {
    let options = experimental().with_extension_refs(ExtensionRefs::PassThrough);
    let t = table(AUTH_AND_WAF, &options);
    let d = t.resolve(&req(80, "b.example.com", "/v2/x"), 0);
    let Decision::Forward(f) = d else {
        panic!("{d}")
    };
    assert_eq!(f.rule.route.name, "on-wild");
    let filters = f.listener_filters.expect("the wild listener's filters");
    assert!(filters.applicable());
    let [
        ListenerFilter::ExternalAuth { external_auth },
        ListenerFilter::ExtensionRef { extension_ref },
    ] = &filters.requests[..]
    else {
        panic!("{filters:?}")
    };
    // lowered: the backendRef defaulted to a core Service in the Gateway's namespace
    let b = &external_auth.backend_ref;
    assert_eq!(
        (
            b.group.as_deref(),
            b.kind.as_deref(),
            b.namespace.as_deref()
        ),
        (Some(""), Some("Service"), Some("infra"))
    );
    assert_eq!(
        (
            &*extension_ref.group,
            &*extension_ref.kind,
            &*extension_ref.name
        ),
        ("example.com", "Waf", "strict")
    );
    // camelCase JSON, beside the rest of the decision
    let json = serde_json::to_value(d).unwrap();
    assert_eq!(
        json["listenerFilters"]["requests"][0]["type"],
        "ExternalAuth"
    );
    assert_eq!(
        json["listenerFilters"]["requests"][0]["externalAuth"]["backendRef"]["name"],
        "authz"
    );
    assert_eq!(
        json["listenerFilters"]["requests"][1]["extensionRef"]["kind"],
        "Waf"
    );
}

#[test]
fn only_the_listener_that_has_filters_carries_them() {
    let t = table(AUTH_ONLY, &experimental());
    // a.example.com selects the exact listener, which has none
    let d = t.resolve(&req(80, "a.example.com", "/"), 0);
    assert_eq!(d.rule().unwrap().route.name, "on-exact");
    assert!(d.listener_filters().is_none(), "{d:?}");
    // mesh traffic to a Service never does
    let d = t.resolve(
        &Request::http("10.96.0.20".parse().unwrap(), 8080, "GET", "/"),
        0,
    );
    assert!(d.listener_filters().is_none());
}

#[test]
fn a_listener_set_listener_carries_its_own_filters() {
    let t = table(AUTH_ONLY, &experimental());
    let d = t.resolve(&req(81, "any.example.org", "/set"), 0);
    assert_eq!(d.rule().unwrap().route.name, "on-set");
    let f = d
        .listener_filters()
        .expect("the ListenerSet listener's filters");
    let [ListenerFilter::ExternalAuth { external_auth }] = &f.requests[..] else {
        panic!("{f:?}")
    };
    assert_eq!(
        external_auth.backend_ref.namespace.as_deref(),
        Some("auth"),
        "a namespace written is kept"
    );
}

#[test]
fn a_request_no_rule_matches_carries_them_too() {
    // the filters run before routing, whatever routing then finds: 404 and gRPC UNIMPLEMENTED
    let t = table(AUTH_ONLY, &experimental());
    let d = t.resolve(&req(81, "x.example.org", "/elsewhere"), 0);
    assert_eq!(d.status(), Some(Status::Http(404)), "{d}");
    assert!(d.listener_filters().is_some(), "{d:?}");
    let d = t.resolve(
        &Request::grpc(GW_IP.parse().unwrap(), 81, "/pkg.Svc/Get").with_host("x.example.org"),
        0,
    );
    assert!(matches!(d.status(), Some(Status::Grpc(_))), "{d}");
    assert!(d.listener_filters().is_some(), "{d:?}");
    // a TCP connection to the listener's port has no HTTP stream for them to run on
    let d = t.resolve(
        &Request::connection(GW_IP.parse().unwrap(), 81, Protocol::Tcp),
        0,
    );
    assert!(d.listener_filters().is_none(), "{d:?}");
}

#[test]
fn extension_ref_listener_filters_follow_the_tables_extension_ref_policy() {
    // Reject (the default): the engine cannot apply the filter and never skips it, so every
    // HTTP request through the listener fails before routing
    let t = table(AUTH_AND_WAF, &experimental());
    let d = t.resolve(&req(80, "b.example.com", "/"), 0);
    let Decision::Respond(r) = d else {
        panic!("{d}")
    };
    assert_eq!(r.reason, RespondReason::UnsupportedListenerFilter);
    assert_eq!(r.status, Status::Http(500));
    assert_eq!(r.rule, None);
    assert!(!r.listener_filters.unwrap().applicable());
    // the listener without filters is not affected
    let d = t.resolve(&req(80, "a.example.com", "/"), 0);
    assert!(matches!(d, Decision::Forward(_)), "{d}");
    // an ExternalAuth filter alone is carried under either policy
    let t = table(AUTH_ONLY, &experimental());
    assert!(matches!(
        t.resolve(&req(80, "b.example.com", "/"), 0),
        Decision::Forward(_)
    ));
}

#[test]
fn listener_selection_is_the_same_with_and_without_filters() {
    let options = experimental().with_extension_refs(ExtensionRefs::PassThrough);
    let plain = table("", &options);
    for filters in [AUTH_ONLY, AUTH_AND_WAF] {
        let with = table(filters, &options);
        for (port, host, path) in [
            (80, "a.example.com", "/"),
            (80, "b.example.com", "/"),
            (80, "b.example.com", "/v2"),
            (80, "example.org", "/"),
            (81, "c.example.org", "/x"),
            (81, "c.example.org", "/set/x"),
            (82, "b.example.com", "/"),
        ] {
            let r = req(port, host, path);
            for entropy in [0, 1, u64::MAX / 2, u64::MAX] {
                let (a, b) = (plain.resolve(&r, entropy), with.resolve(&r, entropy));
                assert_eq!(
                    without_filters(&a),
                    without_filters(&b),
                    "{port} {host} {path}"
                );
                assert!(a.listener_filters().is_none());
            }
            // explain names the same binding, route set and candidates
            let (ea, eb) = (plain.explain(&r, 0), with.explain(&r, 0));
            assert_eq!(
                (&ea.binding, &ea.route_set, &ea.candidates, &ea.winner),
                (&eb.binding, &eb.route_set, &eb.candidates, &eb.winner)
            );
        }
    }
}

#[test]
fn explain_shows_the_filters_as_a_step_before_route_matching() {
    let options = experimental().with_extension_refs(ExtensionRefs::PassThrough);
    let t = table(AUTH_AND_WAF, &options);
    let ex = t.explain(&req(80, "b.example.com", "/v2"), 0);
    assert_eq!(
        ex.listener_filters,
        [
            "ExternalAuth GRPC infra/authz:9000",
            "ExtensionRef example.com/Waf strict"
        ]
    );
    let text = ex.to_string();
    let filters_at = text
        .find("listener filters (run before routing")
        .expect(&text);
    let candidates_at = text.find("candidates, in precedence order").expect(&text);
    assert!(filters_at < candidates_at, "{text}");
    let json = serde_json::to_value(&ex).unwrap();
    assert_eq!(
        json["listenerFilters"][0],
        "ExternalAuth GRPC infra/authz:9000"
    );
    assert_eq!(
        json["decisionJson"]["listenerFilters"]["requests"][1]["type"],
        "ExtensionRef"
    );
    // none for a listener without filters
    let ex = t.explain(&req(80, "a.example.com", "/"), 0);
    assert!(ex.listener_filters.is_empty());
    assert!(!ex.to_string().contains("listener filters"));
}

proptest! {
    /// GEP-5224: adding filters to listeners never changes the chosen listener, route or
    /// backend, for any request and entropy (ExternalAuth, and ExtensionRef passed through).
    #[test]
    fn adding_listener_filters_never_changes_listener_route_or_backend(
        port in prop::sample::select(vec![80u16, 81, 82]),
        host in prop::sample::select(vec!["a.example.com", "b.example.com", "x.example.org", ""]),
        path in prop::sample::select(vec!["/", "/v2", "/v2/a", "/set", "/v3"]),
        grpc in any::<bool>(),
        entropy in any::<u64>(),
        filters in prop::sample::select(vec![AUTH_ONLY, AUTH_AND_WAF]),
    ) {
        let options = experimental().with_extension_refs(ExtensionRefs::PassThrough);
        let (plain, with) = (table("", &options), table(filters, &options));
        let ip = GW_IP.parse().unwrap();
        let mut r = if grpc {
            Request::grpc(ip, port, "/pkg.Svc/Get")
        } else {
            Request::http(ip, port, "GET", path)
        };
        if !host.is_empty() {
            r = r.with_host(host);
        }
        let (a, b) = (plain.resolve(&r, entropy), with.resolve(&r, entropy));
        prop_assert_eq!(a.rule(), b.rule());
        prop_assert_eq!(without_filters(&a), without_filters(&b));
    }
}
