//! A chain for `RouteTable::trace` (docs/chains.md), gamma-resolve's `tests/chains.rs` fixture:
//! Gateway `infra/gw` forwards to Service `shop/a`, whose consumer route for `infra` sends to
//! `shop/mid`, whose producer route splits 1:3 between `shop/b-v1` (no routes: delivered after
//! three hops) and `shop/b-v2` (a header edit and a path rewrite; its own route forwards to
//! `shop/c`, whose own route sends to itself: five hops).

use gamma_model::Snapshot;
use gamma_resolve::{BuildOptions, RouteTable};

/// The Gateway's address.
pub const CHAIN_GATEWAY: &str = "192.0.2.1";

/// The fixture of gamma-resolve's chain tests (`tests/chains.rs`), shared so the bench traces
/// the chain the tests check.
const CHAIN: &str = include_str!("../../crates/gamma-resolve/tests/fixtures/chain.yaml");

/// The chain's table.
pub fn chain3() -> RouteTable {
    let resources = gamma_model::decode(CHAIN).unwrap_or_default();
    RouteTable::build(
        &Snapshot::from_resources(resources),
        &BuildOptions::default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_resolve::{Request, TraceEnd};

    // The fixture is the chain it claims, both ways the split goes (GEP-1294: each hop resolved
    // at the backend Service's frontend): shop/b-v1 after three hops (entropy at the bottom of
    // the range: the first, 1/4 share), shop/c after five (the top: b-v2's 3/4; c's own route
    // to itself is the last hop).
    #[test]
    fn the_chain_ends_at_b_v1_after_three_hops_or_at_c_after_five() {
        let table = chain3();
        let dst = CHAIN_GATEWAY
            .parse()
            .unwrap_or(std::net::Ipv4Addr::LOCALHOST.into());
        let req = Request::http(dst, 80, "GET", "/api/orders");
        for (e, hops, end) in [(0, 3, "b-v1"), (u64::MAX, 5, "c")] {
            let trace = table.trace(&req, e);
            assert_eq!(trace.hops.len(), hops, "entropy {e}");
            assert!(
                matches!(trace.end, TraceEnd::Delivered { backend } if backend.name == end),
                "entropy {e}: {}",
                trace.end
            );
        }
    }
}
