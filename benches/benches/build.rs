//! Build cost: RouteTable::from_input for 10,000 rules (regex-free), reported per rule in
//! benches/README.md.
#![allow(clippy::unwrap_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gamma_benches::{many_services, one_port};
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

criterion_group!(benches, build);
criterion_main!(benches);
