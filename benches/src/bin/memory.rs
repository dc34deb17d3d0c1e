//! Prints build time and live heap bytes per rule (method in benches/README.md).
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::alloc::System;
use std::time::Instant;

use gamma_benches::counting::{INSTRUMENTED_SYSTEM, Region, StatsAlloc, allocations, live_bytes};
use gamma_benches::{many_services, one_port};
use gamma_resolve::{BuildOptions, RouteTable};

#[global_allocator]
static ALLOC: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() {
    for (label, input, rules) in [
        ("one port, 10,000 rules", one_port(10_000), 10_000usize),
        (
            "10,000 Services x 5 rules",
            many_services(10_000, 5),
            50_000,
        ),
    ] {
        let region = Region::new(ALLOC);
        let t0 = Instant::now();
        let table = RouteTable::from_input(&input, &BuildOptions::default());
        let dt = t0.elapsed();
        let change = region.change();
        let (allocs, live) = (allocations(&change), live_bytes(&change));
        let stats = table.stats();
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
        drop(table);
    }
}
