//! Chains (`RouteTable::trace`, `trace_distribution`): a Gateway's route forwards to a Service
//! whose own mesh routes (GEP-1294: bound to its cluster IPs and port) decide the next hop.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::ip;
use common::manifest::table;
use gamma_resolve::*;

/// Gateway infra/gw -> shop/a (mesh, from infra: the consumer route of infra) -> shop/mid
/// (mesh, from shop: a 1:3 split to b-v1 and b-v2, b-v2's share rewritten and header-edited)
/// -> b-v2 (mesh: needs the headers the hops before set) -> c (no routes; its own route sends
/// to itself).
const CHAIN: &str = include_str!("fixtures/chain.yaml");

fn service<'a>(t: &BackendTarget<'a>) -> (&'a str, &'a str, Option<u16>) {
    (t.namespace, t.name, t.port)
}

fn end_backend<'a>(e: &TraceEnd<'a>) -> Option<(&'a str, Option<u16>)> {
    match e {
        TraceEnd::Delivered { backend }
        | TraceEnd::Cycle { backend, .. }
        | TraceEnd::DepthLimit { backend } => Some((backend.name, backend.port)),
        _ => None,
    }
}

// GEP-1294: mesh routes bind to a Service's cluster IPs and port; a Gateway route's backend
// that is such a Service has its routes apply to the next hop, from the Gateway's namespace
// (its consumer routes win there, namespace boundaries), with the rewrite and header edits of
// the hop before (HTTPURLRewriteFilter, HTTPHeaderFilter) carried along.
#[test]
fn a_gateway_request_is_followed_through_every_hop() {
    let t = table(CHAIN);
    let req = Request::http(ip("192.0.2.1"), 80, "GET", "/api?q=1").with_host("shop.example");
    // entropy in the upper three quarters: b-v2 at the second hop
    let trace = t.trace(&req, u64::MAX / 2);
    assert_eq!(trace.hops.len(), 5, "{trace:#?}");
    let [gw, a, mid, b, c] = &trace.hops[..] else {
        unreachable!()
    };
    assert!(matches!(
        gw.frontend,
        Some(Frontend::Listener { gateway: "gw", .. })
    ));
    // hop 2: Service a from the Gateway's namespace: the consumer route of infra applies
    assert_eq!(a.request.destination, ip("10.96.0.10"));
    assert_eq!(a.request.source_namespace.as_deref(), Some("infra"));
    assert_eq!(
        a.route_set,
        Some(RouteSetKind::Consumer { namespace: "infra" })
    );
    // hop 3: mid, called from a's namespace: its producer split
    assert_eq!(mid.request.destination, ip("10.96.0.11"));
    assert_eq!(mid.request.source_namespace.as_deref(), Some("shop"));
    assert_eq!(mid.route_set, Some(RouteSetKind::Producer));
    let HopOutcome::Forward { backend, .. } = &mid.outcome else {
        panic!("{:?}", mid.outcome)
    };
    assert_eq!(service(backend), ("shop", "b-v2", Some(8080)));
    // the rewrite keeps the query; both header edits reach b-v2, whose match needs them
    assert_eq!(b.request.destination, ip("10.96.0.22"));
    assert_eq!(b.request.path, "/v2/api?q=1");
    assert_eq!(b.request.host.as_deref(), Some("shop.example"));
    let edits: Vec<(&str, Option<&str>)> = b
        .request
        .header_edits
        .iter()
        .map(|h| (h.name.as_str(), h.value.as_deref()))
        .collect();
    assert_eq!(edits, [("x-track", Some("v2")), ("x-via", Some("edge"))]);
    // c's own route sends to c itself: its endpoints, where the chain ends
    assert_eq!(c.request.destination, ip("10.96.0.30"));
    assert!(matches!(&c.outcome, HopOutcome::Forward { rule, .. } if rule.route.name == "c-self"));
    assert_eq!(
        trace.end,
        TraceEnd::Delivered {
            backend: BackendTarget {
                group: "",
                kind: "Service",
                namespace: "shop",
                name: "c",
                port: Some(9090)
            }
        }
    );
    // the first hop is `resolve` itself
    assert_eq!(HopOutcome::of(&t.resolve(&req, u64::MAX / 2)), gw.outcome);
}

// GEP-1294 namespace boundaries: with `NextClient::Original` every hop is sent from the
// original client's namespace (none here), so a's producer routes apply at once.
#[test]
fn the_next_client_namespace_is_an_option() {
    let t = table(CHAIN);
    let req = Request::http(ip("192.0.2.1"), 80, "GET", "/admin");
    let caller = t.trace(&req, 0);
    assert_eq!(end_backend(&caller.end), Some(("admin", Some(80))));
    let opts = TraceOptions::default().with_next_client(NextClient::Original);
    let original = t.trace_with(&req, 0, &opts);
    assert_eq!(original.hops[1].route_set, Some(RouteSetKind::Producer));
    assert_eq!(end_backend(&original.end), Some(("b-v1", Some(8080))));
}

// GEP-1294 multiple routes for a Service: a backendRef naming the route's own parent Service
// reaches its endpoints, not its routes again (c-self); and with `gateway_to_mesh` off, a
// Gateway route's backend is its endpoints (endpoint routing), so the chain ends at a.
#[test]
fn own_service_and_endpoint_routing_end_the_chain() {
    let t = table(CHAIN);
    let to_c = Request::http(ip("10.96.0.30"), 9090, "GET", "/").from_namespace("shop");
    let trace = t.trace(&to_c, 0);
    assert_eq!(trace.hops.len(), 1);
    assert_eq!(end_backend(&trace.end), Some(("c", Some(9090))));
    let req = Request::http(ip("192.0.2.1"), 80, "GET", "/api");
    let opts = TraceOptions::default().with_gateway_to_mesh(false);
    let trace = t.trace_with(&req, 0, &opts);
    assert_eq!(trace.hops.len(), 1);
    assert_eq!(end_backend(&trace.end), Some(("a", Some(80))));
}

// Gateway API BackendRef.weight: share = weight / sum at each split; chained splits multiply.
// mid's split is 1:3; b-v1 has no routes; b-v2 forwards to c.
#[test]
fn the_distribution_is_exact_and_matches_a_sweep() {
    let t = table(CHAIN);
    let req = Request::http(ip("192.0.2.1"), 80, "GET", "/api").with_host("shop.example");
    let dist = t.trace_distribution(&req).unwrap();
    let shares: Vec<_> = dist
        .ends
        .iter()
        .map(|e| (end_backend(&e.end), e.share.to_string()))
        .collect();
    assert_eq!(
        shares,
        [
            (Some(("b-v1", Some(8080))), "1/4".to_string()),
            (Some(("c", Some(9090))), "3/4".to_string())
        ]
    );
    // a sweep of 2⁶⁴/n-spaced midpoints: trace reaches each end exactly share × n times
    let n = 64u64;
    let mut counts: Vec<(TraceEnd<'_>, u64)> = Vec::new();
    for i in 0..n {
        let e = (2 * i + 1) << 57; // (2i+1) · 2⁶⁴ / 2n
        let end = t.trace(&req, e).end;
        match counts.iter_mut().find(|(x, _)| *x == end) {
            Some((_, c)) => *c += 1,
            None => counts.push((end, 1)),
        }
    }
    for share in &dist.ends {
        let count = counts
            .iter()
            .find(|(e, _)| *e == share.end)
            .map_or(0, |c| c.1);
        assert_eq!(
            u128::from(count) * share.share.denominator(),
            u128::from(n) * share.share.numerator(),
            "{}",
            share.end
        );
    }
}

/// x -> y -> x: a loop; z -> z2 -> ... a long chain.
const LOOPS: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: x, namespace: ns}
spec: {clusterIP: 10.96.1.1, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: y, namespace: ns}
spec: {clusterIP: 10.96.1.2, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: x, namespace: ns}
spec:
  parentRefs: [{group: "", kind: Service, name: x}]
  rules: [{backendRefs: [{name: y, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: y, namespace: ns}
spec:
  parentRefs: [{group: "", kind: Service, name: y}]
  rules: [{backendRefs: [{name: x, port: 80}]}]
"#;

// A routing loop is reported, never followed: the trace stops where a hop would repeat.
#[test]
fn a_cycle_is_reported_not_looped() {
    let t = table(LOOPS);
    let req = Request::http(ip("10.96.1.1"), 80, "GET", "/").from_namespace("ns");
    let trace = t.trace(&req, 7);
    assert_eq!(trace.hops.len(), 2);
    assert!(matches!(
        trace.end,
        TraceEnd::Cycle {
            revisits: 0,
            backend: BackendTarget { name: "x", .. }
        }
    ));
    let dist = t.trace_distribution(&req).unwrap();
    assert_eq!(dist.ends.len(), 1);
    assert_eq!(dist.ends[0].share, Fraction::ONE);
}

fn long_chain(n: usize) -> String {
    let mut y = String::new();
    for i in 0..n {
        y.push_str(&format!(
            "---\napiVersion: v1\nkind: Service\nmetadata: {{name: s{i}, namespace: ns}}\n\
             spec: {{clusterIP: 10.96.2.{}, ports: [{{port: 80}}]}}\n",
            i + 1
        ));
        if i + 1 < n {
            y.push_str(&format!(
                "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
                 metadata: {{name: s{i}, namespace: ns}}\nspec:\n  parentRefs: [{{group: \"\", kind: Service, name: s{i}}}]\n  \
                 rules: [{{backendRefs: [{{name: s{}, port: 80}}]}}]\n",
                i + 1
            ));
        }
    }
    y
}

// The depth limit (default 8 hops, configurable) ends a long chain, reporting the backend
// that would have been next.
#[test]
fn a_long_chain_stops_at_the_depth_limit() {
    let t = table(&long_chain(12));
    let req = Request::http(ip("10.96.2.1"), 80, "GET", "/");
    let trace = t.trace(&req, 0);
    assert_eq!(trace.hops.len(), 8);
    assert_eq!(end_backend(&trace.end), Some(("s8", Some(80))));
    assert!(matches!(trace.end, TraceEnd::DepthLimit { .. }));
    let longer = t.trace_with(&req, 0, &TraceOptions::default().with_max_hops(20));
    assert_eq!(longer.hops.len(), 11);
    assert!(matches!(longer.end, TraceEnd::Delivered { .. }));
    // a chain that is too long for the limit never makes the first hop disappear
    let one = t.trace_with(&req, 0, &TraceOptions::default().with_max_hops(0));
    assert_eq!(one.hops.len(), 1);
}

/// s0 -> s1 -> ... -> s8, each hop a two-way split (ports 80 and 81 of the next Service).
fn binary_chain(w: (u32, u32)) -> RouteTable {
    let mut y = String::new();
    for i in 0..9 {
        y.push_str(&format!(
            "---\napiVersion: v1\nkind: Service\nmetadata: {{name: s{i}, namespace: ns}}\n\
             spec: {{clusterIP: 10.96.3.{}, ports: [{{port: 80}}, {{port: 81}}]}}\n",
            i + 1
        ));
        if i < 8 {
            y.push_str(&format!(
                "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
                 metadata: {{name: s{i}, namespace: ns}}\nspec:\n  parentRefs: [{{group: \"\", kind: Service, name: s{i}}}]\n  \
                 rules: [{{backendRefs: [{{name: s{n}, port: 80, weight: {a}}}, {{name: s{n}, port: 81, weight: {b}}}]}}]\n",
                n = i + 1,
                a = w.0,
                b = w.1
            ));
        }
    }
    table(&y)
}

// Gateway API BackendRef.weight: weighted splits behind weighted splits multiply; the walk is
// bounded (TraceOptions::max_paths) and a share too fine for 128 bits is refused, never
// rounded and never a panic.
#[test]
fn branching_is_bounded_and_overflow_refused() {
    let req = Request::http(ip("10.96.3.1"), 80, "GET", "/");
    let even = binary_chain((1, 1));
    let d = even.trace_distribution(&req).unwrap();
    // 2⁸ paths end at s8:80 or s8:81, half each
    assert_eq!(d.ends.len(), 2);
    assert!(
        d.ends
            .iter()
            .all(|e| e.share == Fraction::new(1, 2).unwrap())
    );
    assert_eq!(
        even.trace_distribution_with(&req, &TraceOptions::default().with_max_paths(100)),
        Err(DistributionError::TooManyPaths { limit: 100 })
    );
    // (999,999 + 1,000,000)⁸ > 2¹²⁸, and 1,999,999 is coprime to both weights
    let fine = binary_chain((999_999, 1_000_000));
    assert_eq!(
        fine.trace_distribution(&req),
        Err(DistributionError::Overflow)
    );
    // the trace itself needs no fractions
    assert_eq!(fine.trace(&req, 12345).hops.len(), 8);
}
