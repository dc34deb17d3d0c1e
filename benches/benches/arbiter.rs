//! gamma-arbiter: full ownership decision over a large cluster, and one incremental change.
//!
//! Cluster: 1,000 namespaces, 10,000 Services (10 per namespace), 50,000 routes (5 per
//! Service; every 10th route is a consumer route in the next namespace, every 20th names its
//! owners in the `gamma.rs/controllers` annotation, every 50th also has a Gateway parent).
//! Namespaces spread over the ladder: a third carry `gamma.rs/mesh`, a fifth match a
//! registration selector, some match both selectors (Conflict), the rest fall to the default.
//! One Service in 20 is annotated `gamma.rs/controller`, one in 20 delegates to a waypoint.

use criterion::{Criterion, criterion_group, criterion_main};
#[path = "support/arbiter_cluster.rs"]
mod arbiter_cluster;

use arbiter_cluster::{NAMESPACES, ROUTES_PER_SERVICE, SERVICES_PER_NS, cluster, config, service};
use gamma_arbiter::Arbiter;
use gamma_model::k8s::Namespace;
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot};

fn benches(c: &mut Criterion) {
    let objects = cluster();
    let snap = Snapshot::from_resources(objects.clone());
    let arbiter = Arbiter::new(config()).expect("valid config");
    assert_eq!(
        snap.http_routes().count(),
        NAMESPACES * SERVICES_PER_NS * ROUTES_PER_SERVICE
    );
    let mut g = c.benchmark_group("arbiter");
    g.sample_size(20);
    g.bench_function("decide_all/50k_routes_10k_services_1k_namespaces", |b| {
        b.iter(|| arbiter.decide_all(std::hint::black_box(&snap)))
    });
    g.finish();

    // One incremental change: Service ns-500/svc-5000 gains (then loses) the
    // gamma.rs/controller annotation; its 5 routes are re-decided.
    let key = ObjectKey::new(ResourceKind::Service, "ns-500", "svc-5000");
    let mut other = snap.clone();
    other.upsert(service("ns-500", 5000, true));
    let snaps = [&snap, &other];
    let mut decisions = arbiter.decide_all(&snap);
    // The first update builds the dependency index; time the steady state.
    arbiter.update(&mut decisions, &other, &key);
    let mut flip = 0usize;
    let mut g = c.benchmark_group("arbiter");
    g.bench_function("update/one_service_annotation", |b| {
        b.iter(|| {
            flip ^= 1;
            let changed = arbiter.update(&mut decisions, snaps[flip & 1], &key);
            std::hint::black_box(changed)
        })
    });
    // A Namespace relabel: the Service parents of the 50 routes in that namespace.
    let ns_key = ObjectKey::new(ResourceKind::Namespace, "", "ns-501");
    let mut relabelled = snap.clone();
    let mut ns = Namespace::new("ns-501");
    ns.metadata
        .labels
        .insert("gamma.rs/mesh".into(), "linkerd".into());
    relabelled.upsert(AnyResource::Namespace(ns));
    let ns_snaps = [&snap, &relabelled];
    let mut decisions = arbiter.decide_all(&snap);
    arbiter.update(&mut decisions, &relabelled, &ns_key);
    g.bench_function("update/one_namespace_relabel", |b| {
        b.iter(|| {
            flip ^= 1;
            let changed = arbiter.update(&mut decisions, ns_snaps[flip & 1], &ns_key);
            std::hint::black_box(changed)
        })
    });
    g.finish();
}

criterion_group!(arbiter_benches, benches);
criterion_main!(arbiter_benches);
