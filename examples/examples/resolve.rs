//! Resolving requests with `gamma_mesh::resolve`: what a conformant mesh does with one request.
//!
//! Loads the sample cluster (`examples/manifests/`), compiles every route into a
//! [`RouteTable`] once, then resolves a few requests to the `shop/checkout` Service
//! (cluster IP `10.96.10.20`) and prints each decision:
//!
//! - the 90/10 weighted canary split, sampled at 100 entropies spread evenly over the `u64`
//!   range (the caller supplies the entropy, so the split is reproducible);
//! - a header-selected canary, a `301` redirect, a `404` and a passthrough;
//!
//! and finally the step-by-step explanation of the header canary (which candidate rules lost,
//! and why).
//!
//! Run it with:
//!
//! ```sh
//! cargo run -p gamma-examples --example resolve
//! ```
//!
//! The expected results are in `examples/manifests/README.md` ("Requests: expected resolution");
//! the tests at the bottom check this example against that table.

use std::fmt::Write as _;
use std::net::{IpAddr, Ipv4Addr};

use gamma_mesh::resolve::{BuildOptions, Decision, Request, RouteTable};

/// `shop/checkout`'s cluster IP in the sample.
const CHECKOUT: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 96, 10, 20));

/// The `i`-th of `n` entropies: the midpoints of `n` equal slices of the `u64` range. The
/// resolver maps entropy onto backend weights proportionally, so sampling a 90/10 split at
/// 100 such points gives exactly 90 and 10. A data plane would use a random `u64` per
/// request (or a hash of a session key, for stickiness).
fn spread_entropy(i: u32, n: u32) -> u64 {
    let slice = (2 * u128::from(i) + 1) << 64;
    u64::try_from(slice / (2 * u128::from(n.max(1)))).unwrap_or(u64::MAX)
}

/// How often each backend (or other outcome) was picked for `request` over `n` entropies, in
/// order of first appearance.
fn sample(table: &RouteTable, request: &Request<'_>, n: u32) -> Vec<(String, u32)> {
    let mut counts: Vec<(String, u32)> = Vec::new();
    for i in 0..n {
        let outcome = match table.resolve(request, spread_entropy(i, n)) {
            Decision::Forward(f) => f.backend.to_string(),
            other => other.to_string(),
        };
        match counts.iter_mut().find(|(o, _)| *o == outcome) {
            Some((_, c)) => *c += 1,
            None => counts.push((outcome, 1)),
        }
    }
    counts
}

/// The requests this example resolves, with a label for people.
fn requests() -> Vec<(&'static str, Request<'static>)> {
    // Headers are anything implementing `HeaderLookup`: here a static slice of pairs.
    static CANARY: [(&str, &str); 1] = [("x-canary", "true")];
    vec![
        (
            "GET /api/orders with x-canary: true (header canary)",
            Request::http(CHECKOUT, 80, "GET", "/api/orders")
                .from_namespace("shop")
                .with_headers(&CANARY),
        ),
        (
            "GET /api/v1/checkout (moved: redirect)",
            Request::http(CHECKOUT, 80, "GET", "/api/v1/checkout")
                .from_namespace("shop")
                .with_host("checkout.shop.svc.cluster.local"),
        ),
        (
            "GET /healthz (routes attached, none matches)",
            Request::http(CHECKOUT, 80, "GET", "/healthz").from_namespace("shop"),
        ),
        (
            "GET /metrics on port 9090 (no route on that port)",
            Request::http(CHECKOUT, 9090, "GET", "/metrics").from_namespace("shop"),
        ),
    ]
}

/// The canary split request: no header, so the `api-split` rule's weights decide.
fn split_request() -> Request<'static> {
    Request::http(CHECKOUT, 80, "GET", "/api/orders").from_namespace("shop")
}

/// Everything this example prints.
fn report(table: &RouteTable) -> String {
    let mut out = String::new();
    let stats = table.stats();
    let _ = writeln!(
        out,
        "route table: {} routes, {} rules, {} bindings\n",
        stats.routes, stats.rules, stats.bindings
    );

    let _ = writeln!(
        out,
        "GET /api/orders from shop to {CHECKOUT}:80, sampled at 100 entropies:"
    );
    for (outcome, count) in sample(table, &split_request(), 100) {
        let _ = writeln!(out, "  {count:>3} x {outcome}");
    }

    let requests = requests();
    for (label, request) in &requests {
        // Entropy only matters for weighted picks; these rules have one backend or none.
        let _ = writeln!(out, "\n{label}:\n  {}", table.resolve(request, 0));
    }

    // The slow, allocating twin of `resolve`: every candidate in precedence order and why.
    if let Some((label, canary)) = requests.first() {
        let _ = writeln!(out, "\nexplain {label}:");
        for line in table.explain(canary, 0).to_string().lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}

fn main() -> Result<(), gamma_examples::BoxError> {
    let snapshot = gamma_examples::sample_snapshot()?;
    // Build once per snapshot; resolving is then allocation-free and read-only.
    let table = RouteTable::build(&snapshot, &BuildOptions::default());
    print!("{}", report(&table));
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Expectations come from examples/manifests/README.md ("Requests: expected resolution")
    //! and the weights written in examples/manifests/30-routes-shop.yaml, not from the resolver.

    use super::*;
    use gamma_mesh::resolve::{RespondReason, Status};

    fn table() -> RouteTable {
        let snapshot = gamma_examples::sample_snapshot().unwrap();
        RouteTable::build(&snapshot, &BuildOptions::default())
    }

    #[test]
    fn the_canary_split_sends_ninety_percent_to_v1_and_ten_to_v2() {
        // README row 1; Gateway API BackendRef.weight (share = weight / sum of weights): 90/10.
        let counts = sample(&table(), &split_request(), 100);
        let mut counts: Vec<(&str, u32)> = counts.iter().map(|(o, c)| (o.as_str(), *c)).collect();
        counts.sort();
        assert_eq!(
            counts,
            [("shop/checkout-v1:80", 90), ("shop/checkout-v2:80", 10)]
        );
    }

    #[test]
    fn each_request_gets_the_decision_the_sample_readme_lists() {
        let table = table();
        let reqs = requests();
        let decide = |i: usize| table.resolve(&reqs[i].1, 0);

        // Row 2: the header canary (Gateway API HTTPRouteRule.matches precedence, most header
        // matches: one header match beats none).
        let Decision::Forward(f) = decide(0) else {
            panic!("canary: {}", decide(0))
        };
        assert_eq!(
            (f.backend.namespace, f.backend.name),
            ("shop", "checkout-v2")
        );
        assert_eq!(f.rule.route.name, "checkout-canary");

        // Row 4: 301 to /api/v2/checkout on the request's host, port 80 not written (Gateway API
        // HTTPRequestRedirectFilter).
        let Decision::Redirect(r) = decide(1) else {
            panic!("redirect: {}", decide(1))
        };
        assert_eq!(r.status, 301);
        assert_eq!(
            r.location.to_string(),
            "http://checkout.shop.svc.cluster.local/api/v2/checkout"
        );

        // Row 7: routes are attached but none matches: 404 (Gateway API ParentReference).
        let Decision::Respond(resp) = decide(2) else {
            panic!("404: {}", decide(2))
        };
        assert_eq!(resp.status, Status::Http(404));
        assert_eq!(resp.reason, RespondReason::NoMatchingRule);

        // Row 8: the routes set `port: 80`, so port 9090 is plain Service behaviour (GAMMA Service
        // facets).
        assert_eq!(decide(3), Decision::Passthrough);
    }

    #[test]
    fn the_printed_report_shows_the_split_and_explains_why_the_canary_won() {
        let text = report(&table());
        assert!(text.contains("   90 x shop/checkout-v1:80"), "{text}");
        assert!(text.contains("   10 x shop/checkout-v2:80"), "{text}");
        assert!(
            text.contains("redirect 301 to http://checkout.shop.svc.cluster.local/api/v2/checkout"),
            "{text}"
        );
        // The explanation names the winner and lists the candidate that lost to it: the
        // younger `checkout-qa-pin` with the same match (Gateway API HTTPRouteRule.matches
        // precedence, oldest Route, creationTimestamp).
        let explain = text.split("explain ").nth(1).unwrap();
        let winner = explain.lines().find(|l| l.contains("winner:")).unwrap();
        assert!(winner.contains("shop/checkout-canary"), "{explain}");
        assert!(explain.contains("shop/checkout-qa-pin"), "{explain}");
    }
}
