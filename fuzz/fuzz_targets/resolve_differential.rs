//! `resolve_differential`: the indexed engine against the naive reference matcher
//! (`gamma_resolve::reference`, feature `reference`); any disagreement is a crash.
//!
//! Both sides see the lowered input cut down to what the reference models
//! (`reference::modelled`): mesh parents, and HTTPRoutes on the HTTP listeners of Gateways and
//! their ListenerSets (GEP-1713: `allowedListeners`, listener conflicts and precedence).
//! Requests go to cluster IPs and to the Gateways' addresses.
#![no_main]

use gamma_fuzz::{cluster, frame, generate::Gen, request};
use gamma_resolve::RouteTable;
use gamma_resolve::reference as oracle;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (values, mut u) = frame::resources(data);
    let (snapshot, _) = cluster::snapshot(&values);
    let input = oracle::modelled(&gamma_resolve::lower(&snapshot));
    let addresses: Vec<_> = input
        .gateways
        .iter()
        .flat_map(|g| g.addresses.iter().copied())
        .collect();
    let mut g = Gen::new(&mut u, 10_000);
    let policy = oracle::Policy::default()
        .with_match_host_header(g.chance(96))
        .with_enforce_grants(g.chance(96));
    // any seed: decisions must not depend on the keyed hashes' seed
    let options = policy.build_options().with_hash_seed(g.word());
    let table = RouteTable::from_input(&input, &options);
    let n = 1 + g.below(16);
    for _ in 0..n {
        let owned = request::request(&mut g, &addresses);
        let req = owned.as_request();
        let got = oracle::Outcome::of(&table.resolve(&req, owned.entropy));
        let want = oracle::resolve(&input, policy, &req, owned.entropy);
        assert_eq!(
            got, want,
            "engine and oracle disagree on {req:?}\ninput: {input:#?}"
        );
    }
});
