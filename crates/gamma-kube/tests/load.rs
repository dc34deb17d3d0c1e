//! gamma-kube under load on a real Kubernetes API server (tools/kube-testenv): many
//! HTTPRoutes over many Services, created at once while two mesh runtimes run. Measures the
//! time to converge and the status writes per owned (route, parent): the target is one write
//! each (Gateway API status is written only when it changes), and none after convergence.
//!
//! The CI run is 500 routes over 100 Services; `GAMMA_KUBE_LOAD=full` runs the full 5,000
//! routes over 1,000 Services (figures in benches/records/kube.md).

mod common;

use std::time::{Duration, Instant};

use common::*;
use gamma_arbiter::Identity;
use gamma_kube::kinds::api_resource;
use gamma_kube::watches::decode_object;
use gamma_model::ResourceKind;
use gamma_testenv::Channel;
use gamma_testenv::harness::standard_server;
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use serde_json::json;

gamma_testenv::test_main! {
    #[tokio] many_routes_created_at_once_converge_with_one_write_per_owned_pair if standard_server,
}

const NAMESPACES: usize = 10;

/// (routes, services) of this run.
fn size() -> (usize, usize) {
    match std::env::var("GAMMA_KUBE_LOAD").as_deref() {
        Ok("full") => (5000, 1000),
        _ => (500, 100),
    }
}

/// The mesh that owns namespace `i` (the `gamma.rs/mesh` label) and its controller name.
fn mesh_of(i: usize) -> (&'static str, &'static str) {
    if i.is_multiple_of(2) {
        ("istio", "istio.io/gateway-controller")
    } else {
        ("linkerd", "linkerd.io/policy-controller")
    }
}

/// Routes whose owner's entry says Accepted=True.
async fn accepted(client: &kube::Client, prefix: &str) -> usize {
    let version = ResourceKind::HttpRoute.api_versions()[0];
    let api: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &api_resource(ResourceKind::HttpRoute, version),
    );
    let mut n = 0;
    for o in api.list(&ListParams::default()).await.unwrap() {
        let ns = o.metadata.namespace.clone().unwrap_or_default();
        let Some(i) = ns
            .strip_prefix(prefix)
            .and_then(|rest| rest.split('-').next())
            .and_then(|i| i.parse::<usize>().ok())
        else {
            continue;
        };
        let r = decode_object(ResourceKind::HttpRoute, version, o).unwrap();
        let owner = mesh_of(i).1;
        let ps = parents(&r);
        if ps.len() == 1
            && condition(&r, owner, &ps[0].parent_ref.name, "Accepted").as_deref() == Some("True")
        {
            n += 1;
        }
    }
    n
}

/// Gateway API status is written when it changes, once per (route, parent) here (each route
/// has one Service parent, whose owner is decided by its Namespace's label): many routes
/// created at once converge with one write per owned pair, and no write after convergence.
async fn many_routes_created_at_once_converge_with_one_write_per_owned_pair() {
    let env = gamma_testenv::server(Channel::Standard);
    let (routes, services) = size();
    let client = client(env).await;
    let config = sample_config();
    let mut runtimes = Vec::new();
    for mesh in ["istio", "linkerd"] {
        let me = Identity::of_mesh(&config, mesh).unwrap();
        runtimes.push(spawn_runtime(&client, &config, me, |_| {}));
    }
    for (state, _, _) in &mut runtimes {
        until(state, 60, "ready", |s| s.ready && s.pending == 0).await;
    }
    let prefix = "load";
    let namespaces: Vec<String> = (0..NAMESPACES)
        .map(|i| env.namespace_name(&format!("{prefix}{i}")))
        .collect();
    let started = Instant::now();
    for (i, ns) in namespaces.iter().enumerate() {
        create_value(
            &client,
            namespace(ns, json!({"gamma.rs/mesh": mesh_of(i).0})),
        )
        .await;
    }
    // Services, then the routes over them, 32 requests in flight.
    create_mesh_routes(&client, &namespaces, services, routes).await;
    let created = started.elapsed();

    eventually(600, "every route accepted by its owner", || async {
        (accepted(&client, prefix).await == routes).then_some(())
    })
    .await;
    // Converged: both runtimes caught up and no write for a while.
    let mut last = Vec::new();
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now: Vec<(u64, usize)> = runtimes
            .iter()
            .map(|(s, _, _)| (s.borrow().writes, s.borrow().pending))
            .collect();
        if now == last && now.iter().all(|(_, p)| *p == 0) {
            break;
        }
        last = now;
    }
    let converged = started.elapsed();
    let writes: u64 = runtimes.iter().map(|(s, _, _)| s.borrow().writes).sum();
    let conflicts: u64 = runtimes.iter().map(|(s, _, _)| s.borrow().conflicts).sum();
    let reconciles: u64 = runtimes.iter().map(|(s, _, _)| s.borrow().reconciles).sum();

    // A change that touches nothing owned: every runtime reconciles, none writes.
    let before: Vec<u64> = runtimes
        .iter()
        .map(|(s, _, _)| s.borrow().reconciles)
        .collect();
    api_of(&client, ResourceKind::Namespace, None)
        .patch(
            &namespaces[0],
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"annotations": {"example.com/note": "x"}}})),
        )
        .await
        .unwrap();
    for ((state, _, _), b) in runtimes.iter_mut().zip(&before) {
        until(state, 60, "a reconcile after the no-op change", |s| {
            s.reconciles > *b && s.pending == 0
        })
        .await;
    }
    let after: u64 = runtimes.iter().map(|(s, _, _)| s.borrow().writes).sum();

    // Written past the test harness's capture, so the figures show in `cargo test`'s output.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "load: {routes} routes over {services} Services in {NAMESPACES} namespaces: created in {:.1} s, converged {:.1} s after the first create; {writes} status writes for {routes} owned pairs ({:.3} per pair), {conflicts} conflicts, {reconciles} reconciliations; {} writes after convergence",
        created.as_secs_f64(),
        converged.as_secs_f64(),
        writes as f64 / routes as f64,
        after - writes,
    );
    assert_eq!(
        writes, routes as u64,
        "status writes per owned (route, parent) should be one"
    );
    assert_eq!(after, writes, "writes after convergence");
    for (_, stop, task) in runtimes {
        stop.send(true).unwrap();
        task.await.unwrap().unwrap();
    }
}
