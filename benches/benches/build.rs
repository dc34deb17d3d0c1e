//! Build cost: `RouteTable::from_input` for 10,000 rules (regex-free), and `RouteTable::build`
//! from a `Snapshot` of the regex mix (10,000 rules, 2% regex paths over 190 patterns, from
//! its manifests): a first build, a later build through `build_reusing`, each also with
//! `BuildOptions::keep_lowered_routes`. Reported per rule in benches/README.md.
#![allow(clippy::unwrap_used, missing_docs)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use gamma_benches::regex_mix::regex_mix_yaml;
use gamma_benches::{many_services, one_port};
use gamma_model::Snapshot;
use gamma_resolve::{BuildOptions, RouteTable};

fn build(c: &mut Criterion) {
    let mut g = c.benchmark_group("build");
    g.sample_size(10);
    let one = one_port(10_000);
    g.bench_function("one-port-10k-rules", |b| {
        b.iter(|| black_box(RouteTable::from_input(&one, &BuildOptions::default())))
    });
    let many = many_services(2_000, 5);
    g.bench_function("2k-services-x-5-rules", |b| {
        b.iter(|| black_box(RouteTable::from_input(&many, &BuildOptions::default())))
    });
    g.finish();
}

/// The regex mix from a `Snapshot`. A first build gets a snapshot of its own (made outside the
/// timing), because a snapshot keeps the validation verdicts a build asked for and a second
/// build of it would not validate again; a later build reuses the previous table of the same
/// snapshot, as a controller's rebuild does.
fn build_from_snapshot(c: &mut Criterion) {
    let resources = gamma_model::decode(&regex_mix_yaml(10_000)).unwrap();
    let mut g = c.benchmark_group("build-from-snapshot/regex-mix-10k-rules");
    g.sample_size(10);
    for keep in [false, true] {
        let options = BuildOptions::default().with_keep_lowered_routes(keep);
        let suffix = if keep { "-keep-lowered-routes" } else { "" };
        g.bench_function(format!("first{suffix}"), |b| {
            // by reference: the snapshot is dropped outside the timing, the table returned is too
            b.iter_batched_ref(
                || Snapshot::from_resources(resources.clone()),
                |snapshot| RouteTable::build(snapshot, &options),
                BatchSize::LargeInput,
            )
        });
        let snapshot = Snapshot::from_resources(resources.clone());
        let previous = RouteTable::build(&snapshot, &options);
        g.bench_function(format!("build-reusing{suffix}"), |b| {
            b.iter(|| black_box(RouteTable::build_reusing(&snapshot, &options, &previous)))
        });
    }
    g.finish();
}

criterion_group!(benches, build, build_from_snapshot);
criterion_main!(benches);
