//! Decode and validate 1,000 HTTPRoutes, from YAML and from JSON.
//!
//! `cargo bench -p gamma-benches --bench model`; results and method in `benches/README.md`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gamma_benches::manifests::{http_routes_json, http_routes_yaml};
use gamma_model::{AnyResource, Validate, decode};
use std::hint::black_box;

const ROUTES: usize = 1_000;

fn validate_all(objects: &[AnyResource]) -> usize {
    objects.iter().filter(|o| o.validate().is_err()).count()
}

fn bench(c: &mut Criterion) {
    let yaml = http_routes_yaml(ROUTES);
    let json = http_routes_json(ROUTES);
    // The inputs are what they claim to be: 1,000 valid routes.
    let decoded = decode(&yaml).expect("bench YAML decodes");
    assert_eq!(decoded.len(), ROUTES);
    assert_eq!(validate_all(&decoded), 0, "bench routes are valid");
    assert_eq!(decode(&json).expect("bench JSON decodes"), decoded);

    let mut g = c.benchmark_group("httproutes_1000");
    g.sample_size(20);
    g.throughput(Throughput::Elements(ROUTES as u64));
    for (format, input) in [("yaml", &yaml), ("json", &json)] {
        g.bench_with_input(BenchmarkId::new("decode", format), input, |b, input| {
            b.iter(|| decode(black_box(input)).map(|v| v.len()))
        });
        g.bench_with_input(
            BenchmarkId::new("decode_validate", format),
            input,
            |b, input| {
                b.iter(|| {
                    let objects = decode(black_box(input)).unwrap_or_default();
                    validate_all(&objects)
                })
            },
        );
    }
    g.bench_function("validate", |b| b.iter(|| validate_all(black_box(&decoded))));
    // Baselines: the parsers alone, into untyped values (what decode adds is the typing, the
    // limits and the positions).
    g.bench_with_input(
        BenchmarkId::new("parse_untyped", "yaml"),
        &yaml,
        |b, input| {
            b.iter(|| {
                serde_saphyr::from_multiple::<serde_json::Value>(black_box(input)).map(|v| v.len())
            })
        },
    );
    g.bench_with_input(
        BenchmarkId::new("parse_untyped", "json"),
        &json,
        |b, input| b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(input)).is_ok()),
    );
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
