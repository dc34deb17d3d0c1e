//! Hostile input: a snapshot of 100,000 routes, 10,000 of them attached to one Service
//! port, builds and resolves correctly. The table built from the whole snapshot must decide a
//! sample of requests exactly as the naive reference matcher (`gamma_resolve::reference`)
//! decides them on the routes of the requested Service alone (binding by cluster IP and port,
//! GEP-1294 hostnames field; producer routes, GEP-1294 namespace boundaries; rule precedence
//! including the creationTimestamp and `namespace/name` tie-breaks, Gateway API
//! HTTPRouteRule.matches precedence).
//!
//! Size: the full 100,000 routes by default (`HOSTILE_ROUTES` overrides it). Measured on the
//! shared 2-core machine in a debug build at load average ~4.5: generating the input 0.8 s,
//! building the table 3.5 s; the reference matcher, even restricted to the hot port's 10,000
//! routes, costs ~50 ms per request (it scans and sorts every rule), so the hot sample is 100
//! requests (~5 s); the whole test takes ~10 s at load average ~6. Build and resolve costs per
//! size (1k, 10k, 100k routes) are measured in release by the `instructions` and `memory`
//! binaries and the `resolve` bench (benches/records/growth-and-hostile.md); this test pins correctness
//! at full size.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeSet;

use gamma_benches::hostile::{HOT_SERVICE, cold_request, hostile, hot_port_only, hot_request};
use gamma_benches::{Rng, svc_ip};
use gamma_resolve::input::TableInput;
use gamma_resolve::reference::{self, Outcome, Policy};
use gamma_resolve::{BuildOptions, Request, RouteTable};

const HOT_SAMPLE: usize = 100;
const COLD_SAMPLE: usize = 50;

fn routes() -> usize {
    std::env::var("HOSTILE_ROUTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// The routes of Service `name`, that Service and the Services they forward to: all the
/// reference needs for requests to it.
fn service_only(input: &TableInput, name: &str) -> TableInput {
    let routes: Vec<_> = input
        .routes
        .iter()
        .filter(|r| r.parents.iter().any(|p| p.name == name))
        .cloned()
        .collect();
    let needed: BTreeSet<&str> = routes
        .iter()
        .flat_map(|r| &r.rules)
        .flat_map(|rule| &rule.backends)
        .map(|b| b.name.as_str())
        .chain([name])
        .collect();
    TableInput::new()
        .with_services(
            input
                .services
                .iter()
                .filter(|s| needed.contains(s.name.as_str()))
                .cloned()
                .collect(),
        )
        .with_routes(routes)
}

#[test]
fn hostile_snapshot_resolves_like_the_reference_matcher() {
    let n = routes();
    let (input, shape) = hostile(n);
    assert_eq!(input.routes.len(), n);
    assert_eq!(shape.hot_routes, n / 10);
    let table = RouteTable::from_input(&input, &BuildOptions::default());
    let stats = table.stats();
    // every route and rule of the fixture is usable and compiled
    assert_eq!(stats.routes, n);
    assert_eq!(stats.rules, shape.rules);

    let policy = Policy::default();
    let hot = hot_port_only(&input);
    assert_eq!(hot.routes.len(), shape.hot_routes);
    let mut rng = Rng::new(2026);
    let mut forwarded = 0;
    let mut not_found = 0;
    // winners by sibling parity: both must occur, or ages never decided anything
    let mut winners = BTreeSet::new();
    for i in 0..HOT_SAMPLE {
        let q = hot_request(&mut rng, shape.hot_routes);
        let h = q.header_refs();
        let h = h.as_slice();
        let req = Request::http(svc_ip(0), 80, "GET", &q.path).with_headers(&h);
        let entropy = rng.next_u64();
        let got = Outcome::of(&table.resolve(&req, entropy));
        let want = reference::resolve(&hot, policy, &req, entropy);
        assert_eq!(got, want, "request {i}: {q:?}");
        match &got {
            Outcome::Forward { route, .. } => {
                forwarded += 1;
                let k: usize = route.2.trim_start_matches("hot-").parse().unwrap();
                winners.insert(k % 2);
            }
            Outcome::Respond { route: None, .. } => not_found += 1,
            other => panic!("unexpected decision {other:?}"),
        }
    }
    assert!(forwarded > HOT_SAMPLE / 2, "{forwarded} forwarded");
    assert!(not_found > 0, "the sample has misses");
    assert_eq!(winners.len(), 2, "even and odd siblings both win");

    for i in 0..COLD_SAMPLE {
        let (s, path) = cold_request(&mut rng, &shape);
        let name = &input.services[s].name;
        assert_ne!(name, HOT_SERVICE);
        let only = service_only(&input, name);
        let req = Request::http(svc_ip(s), 80, "GET", &path);
        let got = Outcome::of(&table.resolve(&req, i as u64));
        let want = reference::resolve(&only, policy, &req, i as u64);
        assert_eq!(got, want, "cold request {i} to {name}: {path}");
    }
}
