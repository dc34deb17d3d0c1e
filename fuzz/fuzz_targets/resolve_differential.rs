//! `resolve_differential`: the indexed engine against the naive reference matcher of
//! gamma-resolve's test tree; any disagreement is a crash.
//!
//! The oracle covers Service (mesh) parents only, so Gateways are removed from the lowered input
//! before both sides see it; requests still go to any address.
#![no_main]

// The oracle is test code of gamma-resolve (tests/common/oracle.rs); it is compiled in here
// unchanged rather than duplicated. (Asked upstream: expose it behind a `reference` feature.)
#[allow(dead_code, unused_imports)]
#[path = "../../crates/gamma-resolve/tests/common/oracle.rs"]
mod oracle;

use gamma_fuzz::{cluster, frame, generate::Gen, request};
use gamma_resolve::{BuildOptions, MeshHostnames, MeshReferenceGrants, RouteTable};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (values, mut u) = frame::resources(data);
    let (snapshot, _) = cluster::snapshot(&values);
    let mut input = gamma_resolve::lower(&snapshot);
    input.gateways.clear();
    let mut g = Gen::new(&mut u, 10_000);
    let policy = oracle::Policy {
        match_host_header: g.chance(96),
        enforce_grants: g.chance(96),
    };
    let mut options = BuildOptions::default();
    if policy.match_host_header {
        options = options.with_mesh_hostnames(MeshHostnames::MatchHostHeader);
    }
    if policy.enforce_grants {
        options = options.with_mesh_reference_grants(MeshReferenceGrants::Enforce);
    }
    let table = RouteTable::from_input(&input, &options);
    let n = 1 + g.below(16);
    for _ in 0..n {
        let owned = request::request(&mut g, &[]);
        let req = owned.as_request();
        let got = oracle::Outcome::of(&table.resolve(&req, owned.entropy));
        let want = oracle::resolve(&input, policy, &req, owned.entropy);
        assert_eq!(
            got, want,
            "engine and oracle disagree on {req:?}\ninput: {input:#?}"
        );
    }
});
