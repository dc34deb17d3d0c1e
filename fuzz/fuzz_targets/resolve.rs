//! `resolve`: generated snapshots and requests through `RouteTable::build`, `resolve` and
//! `explain`.
//!
//! Properties: never panics; `parent_conditions`, decisions and explanations render and
//! serialize; `explain` names the same winning rule as `resolve` (explain walks the
//! candidates itself, its winner must be resolve's); the table decides and reports exactly as
//! the table of the same snapshot lowered whole (`lower_with`, then `from_input`), which
//! reads no rule in place.
#![no_main]

use gamma_fuzz::{cluster, frame, generate::Gen, request};
use gamma_model::validate::ValidateOptions;
use gamma_resolve::{BuildOptions, MeshHostnames, MeshReferenceGrants, RouteTable};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (values, mut u) = frame::resources(data);
    let (snapshot, addresses) = cluster::snapshot(&values);
    let mut g = Gen::new(&mut u, 10_000);
    let mut options = BuildOptions::default();
    if g.chance(96) {
        options = options.with_mesh_hostnames(MeshHostnames::MatchHostHeader);
    }
    if g.chance(96) {
        options = options.with_mesh_reference_grants(MeshReferenceGrants::Enforce);
    }
    // any seed: the keyed hashes and their probe bound must hold for all of them
    options = options.with_hash_seed(g.word());
    let table = RouteTable::build(&snapshot, &options);
    let opts = ValidateOptions::channel(options.channel);
    let lowered = RouteTable::from_input(&gamma_resolve::lower_with(&snapshot, &opts), &options);
    assert_eq!(
        table.parent_conditions(),
        lowered.parent_conditions(),
        "a build from the snapshot and one from its whole lowering report differently"
    );
    let _ = serde_json::to_string(table.parent_conditions()).expect("conditions serialize");
    let _ = table.stats();
    let n = 1 + g.below(16);
    for _ in 0..n {
        let owned = request::request(&mut g, &addresses);
        let req = owned.as_request();
        let decision = table.resolve(&req, owned.entropy);
        assert_eq!(
            decision,
            lowered.resolve(&req, owned.entropy),
            "a build from the snapshot and one from its whole lowering decide {req:?} differently"
        );
        let _ = serde_json::to_string(&decision).expect("decision serializes");
        let explanation = table.explain(&req, owned.entropy);
        let _ = explanation.to_string();
        let _ = serde_json::to_string(&explanation).expect("explanation serializes");
        assert_eq!(
            explanation.winner,
            decision.rule().map(|r| r.to_string()),
            "explain and resolve disagree on the winner for {req:?}"
        );
    }
});
