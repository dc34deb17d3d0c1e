//! Incremental updates: `RouteTable::update` after one HTTPRoute, one Service or (with
//! `MeshBinding::Workloads`) one headless Service's EndpointSlice changed, in
//! mesh clusters of 5,000 and 50,000 HTTPRoutes (five per Service: 1,000 and 10,000
//! Services), each measured from the fully built table (so every iteration is the same
//! change), beside a full build of the 5,000-route snapshot; one route change also with
//! `BuildOptions::keep_lowered_routes` at 5,000, 50,000 and 100,000 routes. Figures in benches/README.md
//! ("Incremental updates").
#![allow(clippy::unwrap_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use gamma_benches::manifests::{
    endpoint_slice_yaml, mesh_cluster, mesh_route_yaml, workload_cluster,
};
use gamma_benches::svc_ip;
use gamma_model::{AnyResource, ObjectKey, Snapshot};
use gamma_resolve::{BuildOptions, MeshBinding, RouteTable};

/// The snapshot before and after the change, the table built before, and the change.
struct Case {
    table: RouteTable,
    after: Snapshot,
    key: ObjectKey,
    previous: Option<std::sync::Arc<AnyResource>>,
}

fn case(routes: usize, service: bool, options: &BuildOptions) -> Case {
    let per = 5;
    let services = routes.div_ceil(per);
    let mut after = Snapshot::from_resources(mesh_cluster(routes, per));
    let table = RouteTable::build(&after, options);
    let yaml = if service {
        format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: svc-0, namespace: team-0}}\n\
             spec: {{clusterIP: {}, ports: [{{port: 80, name: http}}, {{port: 8080, name: alt}}]}}\n",
            svc_ip(0)
        )
    } else {
        mesh_route_yaml(0, per, services, 2)
    };
    let object = gamma_model::decode(&yaml).unwrap().remove(0);
    let key = ObjectKey::of(&object);
    let previous = after.upsert(object);
    Case {
        table,
        after,
        key,
        previous,
    }
}

/// [`workload_cluster`] built with `options`, and headless Service svc-0's EndpointSlice with
/// its third endpoint moved.
fn slice_case(routes: usize, options: &BuildOptions) -> Case {
    let mut after = Snapshot::from_resources(workload_cluster(routes, 5));
    let table = RouteTable::build(&after, options);
    let object = gamma_model::decode(&endpoint_slice_yaml(0, 1))
        .unwrap()
        .remove(0);
    let key = ObjectKey::of(&object);
    let previous = after.upsert(object);
    Case {
        table,
        after,
        key,
        previous,
    }
}

fn update(c: &mut Criterion) {
    let mut g = c.benchmark_group("update");
    g.sample_size(20);
    let options = BuildOptions::default();
    for (name, routes, service) in [
        ("one-route-change-5k-routes", 5_000, false),
        ("one-route-change-50k-routes", 50_000, false),
        ("one-service-change-50k-routes", 50_000, true),
    ] {
        let c = case(routes, service, &options);
        bench_change(&mut g, name, &c, &options);
    }
    // With `BuildOptions::keep_lowered_routes` (what `gamma_controller` turns on for tables it
    // updates): the route-change target's configuration, at three cluster sizes.
    let kept = BuildOptions::default().with_keep_lowered_routes(true);
    for (name, routes) in [
        ("one-route-change-5k-routes-keep-lowered-routes", 5_000),
        ("one-route-change-50k-routes-keep-lowered-routes", 50_000),
        ("one-route-change-100k-routes-keep-lowered-routes", 100_000),
    ] {
        let c = case(routes, false, &kept);
        bench_change(&mut g, name, &c, &kept);
    }
    // MeshBinding::Workloads: an EndpointSlice of a headless Service moves one endpoint
    let workloads = BuildOptions::default().with_mesh_binding(MeshBinding::Workloads);
    let c = slice_case(50_000, &workloads);
    bench_change(
        &mut g,
        "one-endpoint-slice-change-50k-routes",
        &c,
        &workloads,
    );
    let c = case(5_000, false, &options);
    g.bench_function("full-build-5k-routes", |b| {
        b.iter(|| black_box(RouteTable::build(&c.after, &options)))
    });
    g.finish();
}

/// One `RouteTable::update` of `c`'s change per iteration, always from the same table (so
/// every iteration is the same change).
fn bench_change(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    c: &Case,
    options: &BuildOptions,
) {
    g.bench_function(name, |b| {
        b.iter(|| {
            black_box(
                c.table
                    .update(&c.after, options, &c.key, c.previous.as_deref()),
            )
        })
    });
}

criterion_group!(benches, update);
criterion_main!(benches);
