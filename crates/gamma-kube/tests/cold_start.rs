//! A controller restarting on a large, converged cluster, on a real Kubernetes API server
//! (tools/kube-testenv): how long from process start until the first complete table and
//! ownership decision, how that compares with just listing and decoding the same objects in
//! the same kind of process, that it writes nothing when every status is already right, and
//! how much memory it holds.
//!
//! The fixture (routes over Services in namespaces, each route with one Service parent, every
//! namespace owned by one mesh) is created once and converged by a first runtime. Each
//! measurement then runs in a fresh process (this test binary run again, in a child mode), so
//! that the memory figures are the controller's alone, not the fixture builder's:
//! - **list**: connect, then [`gamma_kube::list::list_all`] (every kind the engines read,
//!   listed), each object decoded into a [`gamma_model::Snapshot`]: the floor of any cold
//!   start;
//! - **reflector**: connect, then a kube-rs reflector store of each kind of the fixture's
//!   objects (HTTPRoutes, Services, Namespaces, as `DynamicObject`s without `managedFields`):
//!   the memory a controller built on kube-rs alone holds for the same objects, the
//!   yardstick of the memory figure;
//! - **run**: connect, start the runtime, wait for its first complete reconciliation (every
//!   kind listed, everything decided, nothing pending), then 3 s more: resident memory at
//!   start, peak, and steady, and the writes made (0 expected).
//!
//! The CI run is 500 routes over 100 Services in 10 namespaces; `GAMMA_KUBE_LOAD=full` runs
//! 50,000 routes over 10,000 Services in 1,000 namespaces, and
//! `GAMMA_KUBE_LOAD=ROUTES,SERVICES,NAMESPACES` any other size. Figures and method:
//! benches/README.md and benches/records/kube.md.

mod common;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use common::*;
use gamma_arbiter::Identity;
use gamma_kube::kinds::api_resource;
use gamma_model::ResourceKind;
use gamma_testenv::Channel;
use gamma_testenv::harness::{run, standard_server, trial};
use kube::api::{Api, DynamicObject};
use serde_json::json;

/// Set in a child process: the kubeconfig of the server to measure against.
const CHILD_KUBECONFIG: &str = "GAMMA_KUBE_COLD_START_KUBECONFIG";
/// Set in a child process: `list` or `run`.
const CHILD_MODE: &str = "GAMMA_KUBE_COLD_START_MODE";
/// The line a child prints its figures on (JSON after it).
const FIGURES: &str = "cold-start-figures: ";

fn main() -> ExitCode {
    if let (Ok(kubeconfig), Ok(mode)) = (std::env::var(CHILD_KUBECONFIG), std::env::var(CHILD_MODE))
    {
        return child(&kubeconfig, &mode);
    }
    run(vec![trial(
        "a_restart_on_a_converged_cluster_decides_everything_without_writing",
        || tokio_main(a_restart_on_a_converged_cluster_decides_everything_without_writing()),
        &[standard_server],
    )])
}

fn tokio_main<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(f)
}

/// (routes, services, namespaces) of this run: `GAMMA_KUBE_LOAD=full`, or
/// `GAMMA_KUBE_LOAD=ROUTES,SERVICES,NAMESPACES` for another size.
fn size() -> (usize, usize, usize) {
    let load = std::env::var("GAMMA_KUBE_LOAD").unwrap_or_default();
    let custom: Vec<usize> = load.split(',').filter_map(|n| n.parse().ok()).collect();
    match (load.as_str(), custom.as_slice()) {
        ("full", _) => (50_000, 10_000, 1_000),
        (_, &[routes, services, namespaces]) if routes > 0 && services > 0 && namespaces > 0 => {
            (routes, services, namespaces)
        }
        _ => (500, 100, 10),
    }
}

/// A line of /proc/self/status (`VmRSS`, `VmHWM`, `RssAnon`), in bytes; 0 where there is no
/// procfs. `RssAnon` is the resident heap and stacks without the binary's code pages, which a
/// debug build has many of: the memory per route is computed from it.
fn proc_status_bytes(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// The child processes: one measurement each, its figures printed as one JSON line.
fn child(kubeconfig: &str, mode: &str) -> ExitCode {
    let started = Instant::now();
    let figures = tokio_main(async move {
        let client = client_at(std::path::Path::new(kubeconfig), None).await;
        let connected = started.elapsed();
        let rss_start = proc_status_bytes("VmRSS");
        let anon_start = proc_status_bytes("RssAnon");
        // The peak from here on (Linux: 5 resets VmHWM to the current RSS).
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        match mode {
            "list" => {
                let listed = gamma_kube::list::list_all(&client).await.unwrap();
                // Decoded into a snapshot, as the runtime holds them.
                let snapshot = gamma_model::Snapshot::from_resources(
                    listed
                        .objects
                        .into_iter()
                        .map(|v| gamma_model::AnyResource::from_value(v).unwrap()),
                );
                let objects = snapshot.len();
                json!({
                    "connectedSecs": connected.as_secs_f64(),
                    "listedSecs": started.elapsed().as_secs_f64(),
                    "objects": objects,
                    "rssStart": rss_start,
                    "rssPeak": proc_status_bytes("VmHWM"),
                })
            }
            "reflector" => {
                // The yardstick of the memory figure: what a kube-rs controller built without
                // gamma-rs holds for the same cluster, a reflector store per kind of the
                // fixture's objects, with `managedFields` dropped as kube-rs recommends for
                // large caches (gamma-kube's lists leave them out too).
                use futures::StreamExt;
                use kube::runtime::{WatchStreamExt, reflector, watcher};
                let kinds = [
                    ResourceKind::HttpRoute,
                    ResourceKind::Service,
                    ResourceKind::Namespace,
                ];
                let mut stores = Vec::new();
                for kind in kinds {
                    let ar = api_resource(kind, kind.api_versions()[0]);
                    let api: Api<DynamicObject> = Api::all_with(client.clone(), &ar);
                    let writer = reflector::store::Writer::new(ar);
                    stores.push(writer.as_reader());
                    let events = watcher(api, watcher::Config::default())
                        .default_backoff()
                        .modify(|o: &mut DynamicObject| o.metadata.managed_fields = None)
                        .reflect(writer)
                        .applied_objects();
                    tokio::spawn(events.for_each(|_| std::future::ready(())));
                }
                for store in &stores {
                    store.wait_until_ready().await.unwrap();
                }
                let listed = started.elapsed();
                let rss_peak = proc_status_bytes("VmHWM");
                tokio::time::sleep(Duration::from_secs(3)).await;
                json!({
                    "connectedSecs": connected.as_secs_f64(),
                    "listedSecs": listed.as_secs_f64(),
                    "objects": stores.iter().map(|s| s.len()).sum::<usize>(),
                    "rssPeak": rss_peak,
                    "anonStart": anon_start,
                    "anonSteady": proc_status_bytes("RssAnon"),
                })
            }
            _ => {
                let config = sample_config();
                let me = Identity::of_mesh(&config, "istio").unwrap();
                let (mut state, stop, task) = spawn_runtime(&client, &config, me, |_| {});
                // Every kind listed and decoded into the snapshot: what follows is deciding.
                until(&mut state, 1200, "every kind listed", |s| s.ready).await;
                let listed = started.elapsed();
                until(&mut state, 1200, "the first complete decision", |s| {
                    s.ready && s.leader && s.reconciles >= 1 && s.pending == 0
                })
                .await;
                let decided = started.elapsed();
                let rss_decided = proc_status_bytes("VmRSS");
                let rss_peak = proc_status_bytes("VmHWM");
                tokio::time::sleep(Duration::from_secs(3)).await;
                let settled = state.borrow().clone();
                let rss_steady = proc_status_bytes("VmRSS");
                let anon_steady = proc_status_bytes("RssAnon");
                stop.send(true).unwrap();
                task.await.unwrap().unwrap();
                json!({
                    "connectedSecs": connected.as_secs_f64(),
                    "listedSecs": listed.as_secs_f64(),
                    "decidedSecs": decided.as_secs_f64(),
                    "writes": settled.writes,
                    "reconciles": settled.reconciles,
                    "rssStart": rss_start,
                    "rssDecided": rss_decided,
                    "rssPeak": rss_peak,
                    "rssSteady": rss_steady,
                    "anonStart": anon_start,
                    "anonSteady": anon_steady,
                })
            }
        }
    });
    println!("{FIGURES}{figures}");
    ExitCode::SUCCESS
}

/// Runs this test binary again in child mode `mode` against `kubeconfig`; its figures.
fn measure(kubeconfig: &std::path::Path, mode: &str) -> serde_json::Value {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env(CHILD_KUBECONFIG, kubeconfig)
        .env(CHILD_MODE, mode)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child {mode} failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(FIGURES))
        .unwrap_or_else(|| panic!("child {mode} printed no figures:\n{stdout}"));
    serde_json::from_str(line).unwrap()
}

/// Gateway API status is written only when it changes: a controller restarting on a cluster
/// whose statuses are all right decides everything and writes nothing. The time it takes is
/// compared with the floor, listing and decoding the same objects.
async fn a_restart_on_a_converged_cluster_decides_everything_without_writing() {
    let env = gamma_testenv::server(Channel::Standard);
    let (routes, services, namespaces) = size();
    let client = client(env).await;
    let config = sample_config();
    let me = Identity::of_mesh(&config, "istio").unwrap();

    let built = Instant::now();
    let names: Vec<String> = (0..namespaces)
        .map(|i| env.namespace_name(&format!("cold{i}")))
        .collect();
    let namespace_objects = names
        .iter()
        .map(|ns| namespace(ns, json!({"gamma.rs/mesh": "istio"})));
    create_all(&client, namespace_objects, 32).await;
    create_mesh_routes(&client, &names, services, routes).await;
    // Converged by a first runtime: every status right.
    let (mut state, stop, task) = spawn_runtime(&client, &config, me, |_| {});
    until(&mut state, 3600, "the fixture converged", |s| {
        s.ready && s.pending == 0 && s.writes >= routes as u64
    })
    .await;
    assert_eq!(state.borrow().writes, routes as u64);
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
    let fixture = built.elapsed();

    let list = measure(env.kubeconfig(), "list");
    let reflector = measure(env.kubeconfig(), "reflector");
    let runs = measure(env.kubeconfig(), "run");
    let secs = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap();
    let bytes = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap();
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let steady = bytes(&runs, "anonSteady").saturating_sub(bytes(&runs, "anonStart"));
    let bare = bytes(&reflector, "anonSteady").saturating_sub(bytes(&reflector, "anonStart"));

    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "cold start: {routes} routes over {services} Services in {namespaces} namespaces \
         (fixture built and converged in {:.1} s); list and decode only: {:.2} s ({} objects, \
         peak {:.1} MiB); runtime: every kind listed {:.2} s, first complete decision {:.2} s \
         after process start ({:.2}x), {} writes; resident: peak {:.1} MiB, steady {:.1} MiB over \
         {:.1} MiB at start; heap (RssAnon) steady {:.1} MiB over {:.1} MiB at start: {:.0} \
         bytes per route; a bare kube-rs reflector of the same objects ({} cached, listed in \
         {:.2} s): heap {:.0} bytes per route ({:.2}x the runtime's)",
        fixture.as_secs_f64(),
        secs(&list, "listedSecs"),
        list["objects"],
        mib(bytes(&list, "rssPeak")),
        secs(&runs, "listedSecs"),
        secs(&runs, "decidedSecs"),
        secs(&runs, "decidedSecs") / secs(&list, "listedSecs"),
        runs["writes"],
        mib(bytes(&runs, "rssPeak")),
        mib(bytes(&runs, "rssSteady")),
        mib(bytes(&runs, "rssStart")),
        mib(bytes(&runs, "anonSteady")),
        mib(bytes(&runs, "anonStart")),
        steady as f64 / routes as f64,
        reflector["objects"],
        secs(&reflector, "listedSecs"),
        bare as f64 / routes as f64,
        bare as f64 / steady.max(1) as f64,
    );
    assert_eq!(runs["writes"], 0, "writes on a converged cluster");
    assert!(bytes(&list, "objects") >= (routes + services + namespaces) as u64);
    assert!(bytes(&reflector, "objects") >= (routes + services + namespaces) as u64);
}
