//! Zero heap allocations per authorization decision (`gamma_authz::Authorizer::decide`),
//! allowed and denied, proven with a counting global allocator. One test function only: the
//! counter is process-wide.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::alloc::System;

use gamma_authz::Identity;
use gamma_benches::authz::{authz_cluster, denied_peer, measured};
use gamma_benches::counting::{INSTRUMENTED_SYSTEM, Region, StatsAlloc, allocations};

#[global_allocator]
static ALLOC: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[test]
fn decide_allocates_nothing() {
    let (_, a) = authz_cluster(1_000);
    let w = measured(&a);
    let allowed = Identity::service_account("cluster.local", "other", "anyone");
    let denied = denied_peer();
    let mut verdicts = (0usize, 0usize);
    let region = Region::new(ALLOC);
    for port in [5432u16, 9000, 9001, 9002] {
        for peer in [Some(&allowed), Some(&denied), None] {
            let d = std::hint::black_box(a.decide(peer, w, port));
            if d.allowed() {
                verdicts.0 += 1;
            } else {
                verdicts.1 += 1;
            }
        }
    }
    let n = allocations(&region.change());
    assert_eq!(n, 0, "decide allocated {n} times");
    assert!(verdicts.0 > 0 && verdicts.1 > 0, "{verdicts:?}");
    // The counter does count: explain allocates its explanation.
    let region = Region::new(ALLOC);
    std::hint::black_box(a.explain(Some(&denied), w, 5432));
    assert!(allocations(&region.change()) > 0);
}
