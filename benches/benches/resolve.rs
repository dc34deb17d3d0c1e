//! Resolve latency: the engine vs a pre-sorted linear scan vs the naive oracle.
//! Method and results: benches/README.md.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gamma_benches::hostile::{hostile, hot_port_only, hot_request};
use gamma_benches::regex_mix::{MixRequest, regex_mix, regex_mix_request};
use gamma_benches::{LinearScan, Rng, many_services, one_port, one_port_request, svc_ip};
use gamma_resolve::reference as oracle;
use gamma_resolve::{BuildOptions, Request, RouteTable};

fn one_port_resolve(c: &mut Criterion) {
    let mut g = c.benchmark_group("resolve/one-port");
    for rules in [10usize, 10_000] {
        let input = one_port(rules);
        let table = RouteTable::from_input(&input, &BuildOptions::default());
        let scan = LinearScan::new(&input);
        let mut rng = Rng::new(7);
        let reqs: Vec<(String, String)> = (0..1024)
            .map(|_| one_port_request(rng.below(rules)))
            .collect();
        let dst = svc_ip(0);
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new("engine", rules), &rules, |b, _| {
            b.iter(|| {
                let (p, t) = &reqs[i & 1023];
                i += 1;
                let h = [("x-tenant", t.as_str())];
                let req = Request::http(dst, 80, "GET", p).with_headers(&h);
                black_box(table.resolve(black_box(&req), i as u64));
            })
        });
        g.bench_with_input(BenchmarkId::new("linear-scan", rules), &rules, |b, _| {
            b.iter(|| {
                let (p, t) = &reqs[i & 1023];
                i += 1;
                let h = [("x-tenant", t.as_str())];
                black_box(scan.resolve(black_box(p), &h));
            })
        });
        if rules <= 10_000 {
            g.sample_size(10);
            g.bench_with_input(BenchmarkId::new("naive-oracle", rules), &rules, |b, _| {
                b.iter(|| {
                    let (p, t) = &reqs[i & 1023];
                    i += 1;
                    let h = [("x-tenant", t.as_str())];
                    let req = Request::http(dst, 80, "GET", p).with_headers(&h);
                    black_box(oracle::resolve(
                        &input,
                        oracle::Policy::default(),
                        &req,
                        i as u64,
                    ));
                })
            });
            g.sample_size(100);
        }
    }
    g.finish();
}

fn many_services_resolve(c: &mut Criterion) {
    let input = many_services(10_000, 5);
    let table = RouteTable::from_input(&input, &BuildOptions::default());
    let mut rng = Rng::new(11);
    let reqs: Vec<(usize, String, String)> = (0..4096)
        .map(|_| {
            let j = rng.below(10_000);
            let (p, t) = one_port_request(j + rng.below(5));
            (j, p, t)
        })
        .collect();
    let mut i = 0usize;
    c.bench_function("resolve/10k-services-x-5-rules", |b| {
        b.iter(|| {
            let (j, p, t) = &reqs[i & 4095];
            i += 1;
            let h = [("x-tenant", t.as_str())];
            let req = Request::http(svc_ip(*j), 80, "GET", p).with_headers(&h);
            black_box(table.resolve(black_box(&req), i as u64));
        })
    });
}

/// The hostile snapshot (`routes` HTTPRoutes of one to three rules, a tenth of them on
/// one Service port): requests to the hot port, the engine over the whole table against the
/// pre-sorted linear scan of that port's matches.
fn hostile_resolve(c: &mut Criterion) {
    let mut g = c.benchmark_group("resolve/hostile");
    for routes in [1_000usize, 10_000, 100_000] {
        let (input, shape) = hostile(routes);
        let table = RouteTable::from_input(&input, &BuildOptions::default());
        let scan = LinearScan::new(&hot_port_only(&input));
        drop(input);
        let mut rng = Rng::new(13);
        let reqs: Vec<_> = (0..1024)
            .map(|_| hot_request(&mut rng, shape.hot_routes))
            .collect();
        let headers: Vec<Vec<(&str, &str)>> = reqs.iter().map(|q| q.header_refs()).collect();
        let dst = svc_ip(0);
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::new("engine", routes), &routes, |b, _| {
            b.iter(|| {
                let h = headers[i & 1023].as_slice();
                let req = Request::http(dst, 80, "GET", &reqs[i & 1023].path).with_headers(&h);
                i += 1;
                black_box(table.resolve(black_box(&req), i as u64));
            })
        });
        g.bench_with_input(BenchmarkId::new("linear-scan", routes), &routes, |b, _| {
            b.iter(|| {
                let h = headers[i & 1023].as_slice();
                let p = reqs[i & 1023].path.as_str();
                i += 1;
                black_box(scan.resolve(black_box(p), h));
            })
        });
    }
    g.finish();
}

/// The regex mix (10,000 rules on one port, 2% of them regex paths over 190 distinct
/// patterns): path hits (random rules), regex-only hits and 404s (every regex of the port
/// tried).
fn regex_mix_resolve(c: &mut Criterion) {
    let mut g = c.benchmark_group("resolve/regex-mix-10000");
    let rules = 10_000;
    let table = RouteTable::from_input(&regex_mix(rules), &BuildOptions::default());
    let dst = svc_ip(0);
    for (name, kind) in [
        ("path-hit", MixRequest::PathHit),
        ("regex-only-hit", MixRequest::RegexHit),
        ("404", MixRequest::NotFound),
    ] {
        let mut rng = Rng::new(17);
        let reqs: Vec<(String, String)> = (0..1024)
            .map(|_| regex_mix_request(&mut rng, rules, kind))
            .collect();
        let mut i = 0usize;
        g.bench_function(name, |b| {
            b.iter(|| {
                let (p, t) = &reqs[i & 1023];
                i += 1;
                let h = [("x-tenant", t.as_str())];
                let req = Request::http(dst, 80, "GET", p).with_headers(&h);
                black_box(table.resolve(black_box(&req), i as u64));
            })
        });
    }
    g.finish();
}

/// `RouteTable::trace` through the chain of `gamma_benches::chain` (listener, a, mid, then
/// b-v1 delivered, or b-v2 and delivered to c), and its exact distribution.
fn chain_trace(c: &mut Criterion) {
    let table = gamma_benches::chain::chain3();
    let dst: std::net::IpAddr = gamma_benches::chain::CHAIN_GATEWAY.parse().unwrap();
    let mut g = c.benchmark_group("trace/chain-3");
    let mut i = 0u64;
    g.bench_function("trace", |b| {
        b.iter(|| {
            i = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let req = Request::http(dst, 80, "GET", "/api/orders");
            black_box(table.trace(black_box(&req), i));
        })
    });
    g.bench_function("trace_distribution", |b| {
        b.iter(|| {
            let req = Request::http(dst, 80, "GET", "/api/orders");
            black_box(table.trace_distribution(black_box(&req)).ok());
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    chain_trace,
    one_port_resolve,
    regex_mix_resolve,
    many_services_resolve,
    hostile_resolve
);
criterion_main!(benches);
