//! The runtime's convergence time beside its physical limit, measured in one run on a real
//! Kubernetes API server (tools/kube-testenv): a bare kube-rs client writing the very same
//! status updates, with the same status-subresource `PUT` and `resourceVersion`
//! precondition, as many in flight as the runtime allows itself
//! ([`gamma_kube::RunConfig::writes_in_flight`]).
//!
//! One runtime owns every route (each route has one Service parent in a namespace labelled for
//! its mesh), so the runtime must make exactly one write per route, as the bare client does:
//! 1. **cold**: the fixture is created without status; a runtime starts and converges it, and
//!    stops;
//! 2. **yardstick**: the statuses it wrote are recorded, every status is emptied (not timed),
//!    and the bare client writes the recorded statuses back (timed), on the same objects;
//! 3. **cold again**: every status is emptied again (not timed); a fresh runtime converges it.
//!    The two cold runs bracket the yardstick, so that the order of the runs favours neither;
//! 4. **mass change**: every route's spec is changed at once while that runtime runs; it
//!    converges again (one write per route, each at the new generation).
//!
//! After the cold convergence and after the mass change, the runtime's own duration histograms
//! (`gamma_kube::metrics`: reconciliations, and the merge, encode, request and apply phases of
//! status writes) are read and their split is reported beside the times; their counts are
//! checked against the writes made, so that no write escapes the instrumentation.
//!
//! The CI run is 500 routes over 100 Services; `GAMMA_KUBE_LOAD=full` runs 5,000 routes over
//! 1,000 Services. Figures and method: benches/README.md and benches/records/kube.md.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::*;
use futures::StreamExt;
use gamma_arbiter::Identity;
use gamma_kube::kinds::api_resource;
use gamma_kube::metrics::{Metrics, ReconcileLabels, WritePhase, WritePhaseLabels};
use gamma_model::ResourceKind;
use gamma_testenv::Channel;
use gamma_testenv::harness::standard_server;
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

gamma_testenv::test_main! {
    #[tokio] the_runtime_converges_within_a_small_factor_of_a_bare_client_writing_the_same_statuses if standard_server,
}

const NAMESPACES: usize = 10;

/// (routes, services) of this run.
fn size() -> (usize, usize) {
    match std::env::var("GAMMA_KUBE_LOAD").as_deref() {
        Ok("full") => (5000, 1000),
        _ => (500, 100),
    }
}

fn routes_api(client: &kube::Client) -> Api<DynamicObject> {
    let version = ResourceKind::HttpRoute.api_versions()[0];
    Api::all_with(
        client.clone(),
        &api_resource(ResourceKind::HttpRoute, version),
    )
}

/// Every HTTPRoute in `namespaces`, as stored, by (namespace, name).
async fn list_routes(
    client: &kube::Client,
    namespaces: &[String],
) -> BTreeMap<(String, String), DynamicObject> {
    routes_api(client)
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|o| {
            let ns = o.metadata.namespace.clone()?;
            namespaces
                .contains(&ns)
                .then(|| ((ns, o.metadata.name.clone().unwrap_or_default()), o))
        })
        .collect()
}

/// Writes `status` into each of `objects` through the status subresource with its
/// `resourceVersion` as precondition (what [`gamma_kube`]'s status writer sends), `in_flight`
/// at a time; returns the wall-clock time from the first request to the last answer.
async fn put_statuses(
    client: &kube::Client,
    objects: Vec<(DynamicObject, Value)>,
    in_flight: usize,
) -> Duration {
    let started = Instant::now();
    futures::stream::iter(objects)
        .for_each_concurrent(in_flight, |(mut object, status)| {
            let client = client.clone();
            async move {
                let ns = object.metadata.namespace.clone().unwrap();
                let name = object.metadata.name.clone().unwrap();
                object.data["status"] = status;
                let version = ResourceKind::HttpRoute.api_versions()[0];
                let api: Api<DynamicObject> = Api::namespaced_with(
                    client,
                    &ns,
                    &api_resource(ResourceKind::HttpRoute, version),
                );
                api.replace_status(&name, &PostParams::default(), &object)
                    .await
                    .unwrap_or_else(|e| panic!("status of {ns}/{name}: {e}"));
            }
        })
        .await;
    started.elapsed()
}

/// Waits until the runtime has made `writes` status writes and has nothing pending; returns
/// when that was first seen. The state is the runtime's own (no listing load on the server).
async fn converged(rx: &mut tokio::sync::watch::Receiver<gamma_kube::State>, writes: u64) {
    until(rx, 1200, "converged", |s| {
        s.ready && s.pending == 0 && s.writes >= writes
    })
    .await;
}

/// Seconds and samples of one histogram.
#[derive(Debug, Clone, Copy, Default)]
struct Spent {
    seconds: f64,
    count: u64,
}

impl std::ops::Sub for Spent {
    type Output = Spent;
    fn sub(self, before: Spent) -> Spent {
        Spent {
            seconds: self.seconds - before.seconds,
            count: self.count - before.count,
        }
    }
}

/// Where the runtime's time went, from its histograms: reconciliations (both modes), then each
/// status write phase in [`WritePhase::ALL`] order.
#[derive(Debug, Clone, Copy, Default)]
struct Split {
    reconcile: Spent,
    phases: [Spent; 4],
}

impl Split {
    fn of(metrics: &Metrics) -> Split {
        let spent = |h: &prometheus_client::metrics::histogram::Histogram| Spent {
            seconds: h.sum(),
            count: h.count(),
        };
        let mut split = Split::default();
        for mode in ["full", "change"] {
            if let Some(h) = metrics.reconcile_duration.get(&ReconcileLabels { mode }) {
                let s = spent(&h);
                split.reconcile.seconds += s.seconds;
                split.reconcile.count += s.count;
            }
        }
        for (i, phase) in WritePhase::ALL.into_iter().enumerate() {
            if let Some(h) = metrics
                .status_write_duration
                .get(&WritePhaseLabels::of(phase))
            {
                split.phases[i] = spent(&h);
            }
        }
        split
    }

    fn phase(&self, phase: WritePhase) -> Spent {
        let i = WritePhase::ALL.iter().position(|p| *p == phase).unwrap();
        self.phases[i]
    }

    /// The split since `before`.
    fn since(&self, before: &Split) -> Split {
        let mut phases = self.phases;
        for (p, b) in phases.iter_mut().zip(before.phases) {
            *p = *p - b;
        }
        Split {
            reconcile: self.reconcile - before.reconcile,
            phases,
        }
    }

    /// Each part's seconds, samples, share of `wall` and mean; the requests overlap
    /// (`in_flight` at once), so their share is of `in_flight` times `wall`.
    fn describe(&self, wall: Duration, in_flight: usize) -> String {
        let wall = wall.as_secs_f64();
        let part = |name: &str, s: Spent, overlap: f64| {
            format!(
                "{name} {:.3} s in {} ({:.1}% of the wall time{}, {:.2} ms each)",
                s.seconds,
                s.count,
                100.0 * s.seconds / overlap / wall,
                if overlap > 1.0 {
                    format!(" at {overlap} in flight")
                } else {
                    String::new()
                },
                1e3 * s.seconds / s.count.max(1) as f64,
            )
        };
        let mut parts = vec![part("reconcile", self.reconcile, 1.0)];
        for phase in WritePhase::ALL {
            let overlap = if phase == WritePhase::Request {
                in_flight as f64
            } else {
                1.0
            };
            parts.push(part(phase.as_str(), self.phase(phase), overlap));
        }
        parts.join("; ")
    }

    /// Every write the runtime made is seen by the instrumentation: one `apply` per write the
    /// API server accepted, one `encode` per `PUT` (each accepted or answered 409), one
    /// `request` per `PUT` and per re-read, and a re-merge only after a 409.
    fn check_counts(&self, what: &str, writes: u64, conflicts: u64) {
        let [merge, encode, request, apply] = WritePhase::ALL.map(|p| self.phase(p).count);
        assert_eq!(apply, writes, "{what}: an apply per write accepted");
        assert_eq!(encode, writes + conflicts, "{what}: a body encoded per PUT");
        assert_eq!(
            request,
            encode + merge,
            "{what}: a round trip per PUT and per re-read (each followed by a merge)"
        );
        assert!(
            merge <= conflicts,
            "{what}: {merge} merges after {conflicts} conflicts"
        );
    }
}

/// Every route's entry for `controller` says Accepted=True at the route's generation.
fn all_accepted_at_generation(
    routes: &BTreeMap<(String, String), DynamicObject>,
    controller: &str,
) -> bool {
    routes.values().all(|o| {
        let generation = o.metadata.generation.unwrap_or_default();
        o.data["status"]["parents"].as_array().is_some_and(|ps| {
            ps.iter().any(|p| {
                p["controllerName"] == controller
                    && p["conditions"].as_array().is_some_and(|cs| {
                        cs.iter().any(|c| {
                            c["type"] == "Accepted"
                                && c["status"] == "True"
                                && c["observedGeneration"] == generation
                        })
                    })
            })
        })
    })
}

/// One cold convergence: a runtime started on routes without status, timed until it has made
/// one write per route with nothing pending. The runtime is left running.
struct ColdRun {
    /// From the runtime's start to convergence.
    time: Duration,
    /// From the runtime's start until every kind was listed.
    listed: Duration,
    /// The runtime's state at convergence.
    state: gamma_kube::State,
    /// Where its time went, from its own histograms.
    split: Split,
    metrics: Metrics,
    state_rx: tokio::sync::watch::Receiver<gamma_kube::State>,
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<Result<(), gamma_kube::RunError>>,
}

async fn cold_run(
    client: &kube::Client,
    config: &gamma_arbiter::ArbiterConfig,
    me: &Identity,
    routes: usize,
) -> ColdRun {
    let metrics = Metrics::default();
    let started = Instant::now();
    let (mut state_rx, stop, task) = spawn_runtime(client, config, me.clone(), |c| {
        c.metrics = metrics.clone();
    });
    until(&mut state_rx, 1200, "every kind listed", |s| s.ready).await;
    let listed = started.elapsed();
    converged(&mut state_rx, routes as u64).await;
    let time = started.elapsed();
    let state = state_rx.borrow().clone();
    ColdRun {
        time,
        listed,
        state,
        split: Split::of(&metrics),
        metrics,
        state_rx,
        stop,
        task,
    }
}

/// Empties the status of every one of `stored` (not timed: it prepares a cold run or the
/// yardstick).
async fn empty_statuses(client: &kube::Client, stored: BTreeMap<(String, String), DynamicObject>) {
    let emptied = stored
        .into_values()
        .map(|o| (o, json!({"parents": []})))
        .collect();
    put_statuses(client, emptied, 32).await;
}

/// The yardstick of the runtime's convergence is the API server itself: the same N status
/// writes made by a bare client, at the same concurrency. Gateway API status is written only
/// when it changes (one write per owned (route, parent) here), so the runtime's extra cost is
/// its own: watching, snapshot upserts, table builds, ownership, merges.
async fn the_runtime_converges_within_a_small_factor_of_a_bare_client_writing_the_same_statuses() {
    let env = gamma_testenv::server(Channel::Standard);
    let (routes, services) = size();
    let client = client(env).await;
    let config = sample_config();
    let me = Identity::of_mesh(&config, "istio").unwrap();
    let controller = "istio.io/gateway-controller";
    let in_flight = gamma_kube::RunConfig::new(gamma_controller::ReconcilerConfig::new(
        config.clone(),
        me.clone(),
    ))
    .writes_in_flight;

    // The fixture, without any runtime running: every namespace belongs to istio.
    let namespaces: Vec<String> = (0..NAMESPACES)
        .map(|i| env.namespace_name(&format!("speed{i}")))
        .collect();
    for ns in &namespaces {
        create_value(&client, namespace(ns, json!({"gamma.rs/mesh": "istio"}))).await;
    }
    let created = Instant::now();
    create_mesh_routes(&client, &namespaces, services, routes).await;
    let create_time = created.elapsed();

    // 1. Cold, first run: an empty status everywhere; this runtime stops once converged.
    let first = cold_run(&client, &config, &me, routes).await;
    first.stop.send(true).unwrap();
    first.task.await.unwrap().unwrap();
    let stored = list_routes(&client, &namespaces).await;
    assert!(all_accepted_at_generation(&stored, controller));

    // 2. The yardstick, on the very objects the runtime just wrote (same spec, same size): the
    // statuses it wrote, emptied, then written back by a bare client with the same
    // precondition and concurrency.
    let mut recorded: BTreeMap<(String, String), Value> = stored
        .iter()
        .map(|(k, o)| (k.clone(), o.data["status"].clone()))
        .collect();
    empty_statuses(&client, stored).await;
    let bare_writes: Vec<(DynamicObject, Value)> = list_routes(&client, &namespaces)
        .await
        .into_iter()
        .map(|(k, o)| (o, recorded.remove(&k).unwrap()))
        .collect();
    assert_eq!(bare_writes.len(), routes);
    let bare = put_statuses(&client, bare_writes, in_flight).await;
    let stored = list_routes(&client, &namespaces).await;
    assert!(all_accepted_at_generation(&stored, controller));

    // 3. Cold, second run: emptied again, a fresh runtime converges it. The two cold runs
    // bracket the yardstick, so that neither client is favoured by coming first or last on a
    // server whose state drifts (etcd's history grows with every write).
    empty_statuses(&client, stored).await;
    let second = cold_run(&client, &config, &me, routes).await;
    assert!(all_accepted_at_generation(
        &list_routes(&client, &namespaces).await,
        controller
    ));
    let ColdRun {
        time: cold,
        listed,
        state: cold_state,
        split: cold_split,
        metrics,
        state_rx: mut state,
        stop,
        task,
    } = second;

    // 4. A mass change: every route's spec at once (a path match added), while the second
    // runtime runs.
    let patched = Instant::now();
    let patches = (0..routes).map(|r| {
        let (ns, svc) = route_service(r, services, NAMESPACES);
        (namespaces[ns].clone(), format!("route-{r}"), svc)
    });
    futures::stream::iter(patches)
        .for_each_concurrent(32, |(ns, name, svc)| {
            let client = client.clone();
            async move {
                let version = ResourceKind::HttpRoute.api_versions()[0];
                let api: Api<DynamicObject> = Api::namespaced_with(
                    client,
                    &ns,
                    &api_resource(ResourceKind::HttpRoute, version),
                );
                let spec = json!({"spec": {"rules": [{
                    "matches": [{"path": {"type": "PathPrefix", "value": "/v2"}}],
                    "backendRefs": [{"name": svc, "port": 80}]}]}});
                api.patch(&name, &PatchParams::default(), &Patch::Merge(spec))
                    .await
                    .unwrap();
            }
        })
        .await;
    let patch_time = patched.elapsed();
    converged(&mut state, 2 * routes as u64).await;
    let mass = patched.elapsed();
    let mass_state = state.borrow().clone();
    let mass_split = Split::of(&metrics).since(&cold_split);
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
    assert!(all_accepted_at_generation(
        &list_routes(&client, &namespaces).await,
        controller
    ));

    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "convergence: {routes} routes over {services} Services (created in {:.1} s); \
         bare client, {routes} status PUTs at {in_flight} in flight: {:.2} s; \
         runtime cold, before the bare client: {:.2} s ({:.2}x), {} writes, {} conflicts; \
         after it: {:.2} s ({:.2}x), {} writes, {} conflicts, {} reconciliations; \
         the two cold runs' mean: {:.2}x; \
         mass change: spec patches {:.2} s, converged {:.2} s after the first patch ({:.2}x the \
         bare client's patches and writes, {:.2} s), {} writes, {} conflicts",
        create_time.as_secs_f64(),
        bare.as_secs_f64(),
        first.time.as_secs_f64(),
        first.time.as_secs_f64() / bare.as_secs_f64(),
        first.state.writes,
        first.state.conflicts,
        cold.as_secs_f64(),
        cold.as_secs_f64() / bare.as_secs_f64(),
        cold_state.writes,
        cold_state.conflicts,
        cold_state.reconciles,
        (first.time + cold).as_secs_f64() / 2.0 / bare.as_secs_f64(),
        patch_time.as_secs_f64(),
        mass.as_secs_f64(),
        mass.as_secs_f64() / (patch_time + bare).as_secs_f64(),
        (patch_time + bare).as_secs_f64(),
        mass_state.writes - cold_state.writes,
        mass_state.conflicts - cold_state.conflicts,
    );
    // Where the runtime's time went, beside a bare PUT's mean round trip (its wall time
    // times the requests in flight, over the requests).
    let _ = writeln!(
        std::io::stderr(),
        "split, cold ({:.2} s, every kind listed after {:.2} s): {}\n\
         split, mass change ({:.2} s): {}\n\
         bare client: {:.2} ms a PUT round trip ({:.2} s x {in_flight} in flight / {routes})",
        cold.as_secs_f64(),
        listed.as_secs_f64(),
        cold_split.describe(cold, in_flight),
        mass.as_secs_f64(),
        mass_split.describe(mass, in_flight),
        1e3 * bare.as_secs_f64() * in_flight as f64 / routes as f64,
        bare.as_secs_f64(),
    );
    first
        .split
        .check_counts("first cold run", first.state.writes, first.state.conflicts);
    cold_split.check_counts("cold", cold_state.writes, cold_state.conflicts);
    mass_split.check_counts(
        "mass change",
        mass_state.writes - cold_state.writes,
        mass_state.conflicts - cold_state.conflicts,
    );
    // The guarantees the speed must not cost: one write per owned pair, per change.
    assert_eq!(
        first.state.writes, routes as u64,
        "writes when cold, first run"
    );
    assert_eq!(cold_state.writes, routes as u64, "writes when cold");
    assert_eq!(
        mass_state.writes - cold_state.writes,
        routes as u64,
        "writes after the mass change"
    );
}
