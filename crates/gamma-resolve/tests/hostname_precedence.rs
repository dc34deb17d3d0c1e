//! Routes on one listener whose listener∩route hostnames are equal (Gateway API HTTPRoute,
//! GRPCRoute and TLSRoute `hostnames`; feature `GatewayRouteHostnameIntersectionPrecedence`):
//! up to v1.6 the intersection alone ranks them, and the rest of the precedence (then age)
//! decides; from v1.7 the route's own hostname ranks next, so on a listener `abc.example.com`
//! a newer `abc.example.com` route beats an older `*.example.com` one. Decided at build time
//! from [`BuildOptions::release`], overridable with [`BuildOptions::with_hostname_precedence`].
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::manifest::{outcome, snapshot};
use gamma_model::validate::Release;
use gamma_resolve::*;

/// A Gateway listener `abc.example.com`, an older route for `*.example.com` to `wild`, a newer
/// one for `abc.example.com` to `exact`; both match every path.
fn manifests(kind: &str, protocol: &str, port: u16) -> String {
    let rules = "[{backendRefs: [{name: BACKEND, port: 80}]}]";
    let tls = if protocol == "TLS" {
        ", tls: {mode: Passthrough}"
    } else {
        ""
    };
    let route = |name: &str, host: &str, backend: &str, created: &str| {
        format!(
            "---\napiVersion: gateway.networking.k8s.io/v1\nkind: {kind}\nmetadata: {{name: {name}, namespace: infra, creationTimestamp: \"{created}\"}}\nspec:\n  parentRefs: [{{name: gw}}]\n  hostnames: [\"{host}\"]\n  rules: {}\n",
            rules.replace("BACKEND", backend)
        )
    };
    format!(
        "apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: infra}}
spec:
  gatewayClassName: example
  addresses: [{{type: IPAddress, value: 192.0.2.1}}]
  listeners:
  - {{name: l, port: {port}, protocol: {protocol}, hostname: abc.example.com{tls}}}
---
apiVersion: v1
kind: Service
metadata: {{name: wild, namespace: infra}}
spec: {{clusterIP: 10.96.1.1, ports: [{{port: 80}}]}}
---
apiVersion: v1
kind: Service
metadata: {{name: exact, namespace: infra}}
spec: {{clusterIP: 10.96.1.2, ports: [{{port: 80}}]}}
{}{}",
        route(
            "older-wildcard",
            "*.example.com",
            "wild",
            "2026-01-01T00:00:00Z"
        ),
        route(
            "newer-exact",
            "abc.example.com",
            "exact",
            "2026-06-01T00:00:00Z"
        ),
    )
}

fn winner(yaml: &str, options: &BuildOptions, protocol: &str, port: u16) -> String {
    let table = RouteTable::build(&snapshot(yaml), options);
    let dst = "192.0.2.1".parse().unwrap();
    let req = match protocol {
        "TLS" => Request::connection(dst, port, Protocol::Tls).with_sni("abc.example.com"),
        "GRPC" => Request::grpc(dst, port, "/svc.Echo/Call").with_host("abc.example.com"),
        _ => Request::http(dst, port, "GET", "/").with_host("abc.example.com"),
    };
    outcome(&table.resolve(&req, 0))
}

fn under(release: Release) -> BuildOptions {
    let mut o = BuildOptions::default();
    o.release = release;
    o
}

// Gateway API v1.7 HTTPRoute hostnames: "When multiple HTTPRoutes attach to the same Listener and
// yield identical Listener/Route intersected hostnames, implementations SHOULD evaluate
// precedence using the original hostnames configured on the Route".
#[test]
fn on_equal_intersections_v1_7_ranks_by_the_routes_own_hostname_and_v1_6_by_age() {
    let yaml = manifests("HTTPRoute", "HTTP", 80);
    assert_eq!(winner(&yaml, &under(Release::V1_7), "HTTP", 80), "exact");
    assert_eq!(winner(&yaml, &BuildOptions::default(), "HTTP", 80), "exact");
    assert_eq!(winner(&yaml, &under(Release::V1_6), "HTTP", 80), "wild");
    assert_eq!(winner(&yaml, &under(Release::V1_5), "HTTP", 80), "wild");
}

#[test]
fn the_release_rule_can_be_overridden_either_way() {
    let yaml = manifests("HTTPRoute", "HTTP", 80);
    let v1_7_as_v1_6 =
        under(Release::V1_7).with_hostname_precedence(HostnamePrecedence::Intersection);
    assert_eq!(winner(&yaml, &v1_7_as_v1_6, "HTTP", 80), "wild");
    let v1_6_as_v1_7 =
        under(Release::V1_6).with_hostname_precedence(HostnamePrecedence::RouteHostname);
    assert_eq!(winner(&yaml, &v1_6_as_v1_7, "HTTP", 80), "exact");
}

// The rule of the release of each route kind's own CRD: a v1.7 HTTPRoute CRD beside v1.6
// GRPCRoute one ranks HTTPRoutes by their own hostname and GRPCRoutes by age, and the other
// way round.
#[test]
fn each_route_kind_follows_the_rule_of_its_own_crds_release() {
    use gamma_model::ResourceKind;
    use gamma_model::validate::{Bundle, Channel, KindBundles};
    let v1_6 = Bundle::new(Release::V1_6, Channel::Standard);
    let v1_7 = Bundle::new(Release::V1_7, Channel::Standard);
    let http = manifests("HTTPRoute", "HTTP", 80);
    let grpc = manifests("GRPCRoute", "HTTP", 80);
    let kinds = KindBundles::new(v1_6).with_kind(ResourceKind::HttpRoute, v1_7);
    let options = BuildOptions::default().with_bundles(&kinds);
    assert_eq!(winner(&http, &options, "HTTP", 80), "exact");
    assert_eq!(winner(&grpc, &options, "GRPC", 80), "wild");
    let kinds = KindBundles::new(v1_7).with_kind(ResourceKind::HttpRoute, v1_6);
    let options = BuildOptions::default().with_bundles(&kinds);
    assert_eq!(winner(&http, &options, "HTTP", 80), "wild");
    assert_eq!(winner(&grpc, &options, "GRPC", 80), "exact");
}

// Gateway API v1.7 GRPCRoute hostnames: the same rule.
#[test]
fn grpc_routes_follow_the_same_rule() {
    let yaml = manifests("GRPCRoute", "HTTP", 80);
    assert_eq!(winner(&yaml, &under(Release::V1_7), "GRPC", 80), "exact");
    assert_eq!(winner(&yaml, &under(Release::V1_6), "GRPC", 80), "wild");
}

// Gateway API v1.7 TLSRoute hostnames: the same rule, on SNI.
#[test]
fn tls_routes_follow_the_same_rule() {
    let yaml = manifests("TLSRoute", "TLS", 443);
    assert_eq!(winner(&yaml, &under(Release::V1_7), "TLS", 443), "exact");
    assert_eq!(winner(&yaml, &under(Release::V1_6), "TLS", 443), "wild");
}

// `explain` says what ordered the two candidates of one hostname group: the route hostname's
// rank under v1.7, nothing more under v1.6 (age decides there).
#[test]
fn explain_names_the_route_hostname_rank_that_decided() {
    let yaml = manifests("HTTPRoute", "HTTP", 80);
    let dst = "192.0.2.1".parse().unwrap();
    let req = Request::http(dst, 80, "GET", "/").with_host("abc.example.com");
    let v1_7 = RouteTable::build(&snapshot(&yaml), &under(Release::V1_7)).explain(&req, 0);
    let ranks: Vec<_> = v1_7
        .candidates
        .iter()
        .map(|c| (c.route.as_str(), c.route_hostname.as_deref()))
        .collect();
    assert_eq!(
        ranks,
        [
            ("HTTPRoute infra/newer-exact", Some("exact, 15 characters")),
            (
                "HTTPRoute infra/older-wildcard",
                Some("wildcard, 13 characters")
            ),
        ]
    );
    assert!(
        v1_7.to_string()
            .contains("host abc.example.com (route hostname exact, 15 characters)"),
        "{v1_7}"
    );
    let v1_6 = RouteTable::build(&snapshot(&yaml), &under(Release::V1_6)).explain(&req, 0);
    assert!(v1_6.candidates.iter().all(|c| c.route_hostname.is_none()));
    assert_eq!(
        v1_6.candidates.first().map(|c| c.route.as_str()),
        Some("HTTPRoute infra/older-wildcard")
    );
}
