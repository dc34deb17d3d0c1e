//! Prints live heap bytes per rule and build time (the fastest of three builds) for each
//! fixture, the hostile snapshot at 1k/10k/100k routes included, then the live heap of a
//! table built from a 10,000-route mesh snapshot without and with
//! `BuildOptions::keep_lowered_routes` (method in benches/README.md).
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::alloc::System;
use std::time::Instant;

use gamma_benches::counting::{INSTRUMENTED_SYSTEM, Region, StatsAlloc, allocations, live_bytes};
use gamma_benches::hostile::hostile;
use gamma_benches::regex_mix::{regex_mix, regex_mix_yaml};
use gamma_benches::{many_services, one_port};
use gamma_resolve::{BuildOptions, RouteTable};

#[global_allocator]
static ALLOC: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() {
    let mut scenarios = vec![
        (
            "one port, 10,000 rules".to_string(),
            one_port(10_000),
            10_000usize,
        ),
        (
            "regex mix, one port, 10,000 rules (2% regex paths)".to_string(),
            regex_mix(10_000),
            10_000,
        ),
        (
            "10,000 Services x 5 rules".to_string(),
            many_services(10_000, 5),
            50_000,
        ),
    ];
    // Hostile snapshot: HTTPRoutes of one to three rules, a tenth of them on one Service port;
    // the full shape is 100,000 routes, the smaller sizes show the growth
    for routes in [1_000, 10_000, 100_000] {
        let (input, shape) = hostile(routes);
        let label = format!("{routes} routes ({} on one port)", shape.hot_routes);
        scenarios.push((label, input, shape.rules));
    }
    for (label, input, rules) in scenarios {
        let region = Region::new(ALLOC);
        let table = RouteTable::from_input(&input, &BuildOptions::default());
        let change = region.change();
        let (allocs, live) = (allocations(&change), live_bytes(&change));
        let stats = table.stats();
        drop(table);
        // Wall time: the fastest of three more builds. The first build after a large table was
        // freed can pay the allocator's cleanup (a 1,000-route build once took 45 ms instead
        // of 2 ms), and the machine is shared.
        let dt = (0..3)
            .map(|_| {
                let t0 = Instant::now();
                let table = RouteTable::from_input(&input, &BuildOptions::default());
                let dt = t0.elapsed();
                drop(table);
                dt
            })
            .min()
            .unwrap();
        println!(
            "{label}: {} candidates, {} bindings; live heap {} bytes = {:.0} bytes/rule; {} allocations during build; build {:?} = {:.0} ns/rule",
            stats.candidates,
            stats.bindings,
            live,
            live as f64 / rules as f64,
            allocs,
            dt,
            dt.as_nanos() as f64 / rules as f64
        );
    }
    kept_routes_memory();
    snapshot_build_allocations();
}

/// Live heap bytes per rule of a table built from a snapshot
/// ([`mesh_cluster`](gamma_benches::manifests::mesh_cluster): 10,000
/// HTTPRoutes of three rules, five per Service) with the default options and with
/// `BuildOptions::keep_lowered_routes`: the difference is what keeping every route lowered
/// costs. A first build fills the snapshot's kept validation verdicts, which are not the
/// table's.
fn kept_routes_memory() {
    let snapshot =
        gamma_model::Snapshot::from_resources(gamma_benches::manifests::mesh_cluster(10_000, 5));
    drop(RouteTable::build(&snapshot, &BuildOptions::default()));
    let mut per_rule = Vec::new();
    for keep in [false, true] {
        let options = BuildOptions::default().with_keep_lowered_routes(keep);
        let region = Region::new(ALLOC);
        let table = RouteTable::build(&snapshot, &options);
        let live = live_bytes(&region.change());
        let rules = table.stats().rules;
        drop(table);
        let bytes = live as f64 / rules as f64;
        println!(
            "10,000-route mesh snapshot, keep_lowered_routes {keep}: {rules} rules; live heap {live} bytes = {bytes:.0} bytes/rule"
        );
        per_rule.push(bytes);
    }
    if let [off, on] = per_rule[..] {
        println!(
            "keeping every route lowered: {:.0} bytes/rule more",
            on - off
        );
    }
}

/// Heap allocations of a build from a snapshot of the regex mix (10,000 rules on one port, 190
/// distinct path regexes): the first build (which validates every route and parses every
/// regex), a later plain `build` of the same snapshot (the validation verdicts kept, the
/// regexes parsed again) and a later `build_reusing` the previous table (its regexes and
/// regex sets taken). An allocation costs the system allocator about a hundred instructions,
/// and as much again to free, so the count explains part of a build's instruction count.
fn snapshot_build_allocations() {
    let snapshot = gamma_model::Snapshot::from_resources(
        gamma_model::decode(&regex_mix_yaml(10_000)).unwrap(),
    );
    let options = BuildOptions::default();
    let mut previous: Option<RouteTable> = None;
    for (build, reuse) in [
        ("first", false),
        ("later plain", false),
        ("later reusing", true),
    ] {
        let region = Region::new(ALLOC);
        let table = match &previous {
            Some(p) if reuse => RouteTable::build_reusing(&snapshot, &options, p),
            _ => RouteTable::build(&snapshot, &options),
        };
        let change = region.change();
        let rules = table.stats().rules;
        println!(
            "regex mix snapshot, {build} build: {} allocations ({} reallocations), {} frees for {rules} rules = {:.1} allocations/rule",
            allocations(&change),
            change.reallocations,
            change.deallocations,
            allocations(&change) as f64 / rules as f64
        );
        previous = Some(table);
    }
}
