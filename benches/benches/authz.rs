//! gamma-authz: one decision (`Authorizer::decide`) and one explanation (`explain`) for a Pod
//! selected by three policies, in clusters of 100 and 10,000 XAuthorizationPolicies
//! (`gamma_benches::authz`): the cost must not grow with policies that do not select the Pod.
//! Also the build of 10,000 policies over 10,000 Pods.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gamma_authz::Identity;
use gamma_authz::{Authorizer, Config};
use gamma_benches::authz::{authz_cluster, denied_peer, measured};

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("authz");
    let allowed = Identity::service_account("cluster.local", "other", "anyone");
    let denied = denied_peer();
    for n in [100usize, 10_000] {
        let (snapshot, a) = authz_cluster(n);
        let w = measured(&a);
        assert_eq!(a.policies_selecting(w).len(), 3);
        g.bench_function(format!("decide-denied/{n}-policies"), |b| {
            b.iter(|| a.decide(black_box(Some(&denied)), black_box(w), black_box(5432)))
        });
        g.bench_function(format!("decide-allowed/{n}-policies"), |b| {
            b.iter(|| a.decide(black_box(Some(&allowed)), black_box(w), black_box(5432)))
        });
        g.bench_function(format!("explain-denied/{n}-policies"), |b| {
            b.iter(|| a.explain(black_box(Some(&denied)), black_box(w), black_box(5432)))
        });
        if n == 10_000 {
            g.sample_size(10);
            g.bench_function("build/10000-policies", |b| {
                b.iter(|| Authorizer::build(black_box(&snapshot), Config::default()))
            });
        }
    }
    g.finish();
}

criterion_group!(authz, benches);
criterion_main!(authz);
