//! gamma-kube under faults, on a real Kubernetes API server (tools/kube-testenv), each test on
//! a private server of its own (a restart, a compaction or a deleted CRD would disturb other
//! tests), one at a time. Each fault must end converged with nothing lost and nothing
//! clobbered: Gateway API `RouteStatus.parents` is shared by every controller of a route, and
//! each controller may change only the entries with its own `controllerName`.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use common::*;
use gamma_arbiter::Identity;
use gamma_model::{ObjectKey, ResourceKind};
use gamma_testenv::harness::standard_server;
use gamma_testenv::{Channel, Options, TestEnv};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};

gamma_testenv::test_main! {
    #[tokio] api_server_restarted_mid_run_converges_with_nothing_lost if standard_server,
    #[tokio] expired_watch_relists_and_misses_no_deletion if standard_server,
    #[tokio] concurrent_writer_conflicts_and_keeps_its_entry if standard_server,
    #[tokio] crd_deleted_and_recreated_is_watched_again if standard_server,
    #[tokio] full_status_is_reported_and_never_evicts_another_entry if standard_server,
}

/// One private server at a time: each is a kube-apiserver and an etcd.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const ISTIO: &str = "istio.io/gateway-controller";
const GATEWAY: &str = "example.com/gateway-controller";

/// A private server of the standard channel (the tests' precondition `standard_server` says one
/// can start).
fn private(options: Options) -> Arc<TestEnv> {
    Arc::new(TestEnv::start_with(Channel::Standard, options).unwrap_or_else(|e| panic!("{e}")))
}

/// Namespace `ns` for mesh istio (the `gamma.rs/mesh` label), Services `front` (the parent),
/// `back` and `back2` (backends).
async fn mesh_namespace(client: &kube::Client, ns: &str) {
    create_value(client, namespace(ns, json!({"gamma.rs/mesh": "istio"}))).await;
    for s in ["front", "back", "back2"] {
        create_value(client, service(ns, s)).await;
    }
}

fn istio() -> Identity {
    Identity::of_mesh(&sample_config(), "istio").unwrap()
}

/// An entry of `controller` for Gateway `gateway`, with `message`.
fn foreign_entry(controller: &str, gateway: &str, message: &str) -> Value {
    json!({
        "parentRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": gateway},
        "controllerName": controller,
        "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted",
                        "message": message, "observedGeneration": 1,
                        "lastTransitionTime": "2026-01-01T00:00:00Z"}],
    })
}

async fn accepted_by(client: &kube::Client, ns: &str, name: &str, controller: &str) -> bool {
    get_route(client, ResourceKind::HttpRoute, ns, name)
        .await
        .and_then(|r| condition(&r, controller, "front", "Accepted"))
        .as_deref()
        == Some("True")
}

async fn resolved_refs(client: &kube::Client, ns: &str, name: &str) -> Option<String> {
    let r = get_route(client, ResourceKind::HttpRoute, ns, name).await?;
    condition(&r, ISTIO, "front", "ResolvedRefs")
}

/// The API server restarted mid-run (same etcd data, same URL): the runtime's watches
/// reconnect (relisting where their resourceVersion is too old), and changes made after the
/// restart are reconciled: a new route gets its status, a deleted backend shows as
/// ResolvedRefs=False (Gateway API HTTPRoute status, `ResolvedRefs`). Nothing written before is
/// lost: a foreign entry stays.
async fn api_server_restarted_mid_run_converges_with_nothing_lost() {
    let _serial = SERIAL.lock().await;
    let mut options = Options::default();
    options.restartable = true;
    let env = private(options);
    let client = client(&env).await;
    let ns = env.namespace_name("restart");
    mesh_namespace(&client, &ns).await;
    let mut route = http_route(&ns, "r1", "front", "back", 1);
    route["status"] = json!({"parents": [foreign_entry(GATEWAY, "gw-0", "kept")]});
    create_value(&client, route).await;

    let (mut state, stop, task) = spawn_runtime(&client, &sample_config(), istio(), |_| {});
    until(&mut state, 60, "the first status write", |s| {
        s.ready && s.pending == 0 && s.writes >= 1
    })
    .await;
    assert!(accepted_by(&client, &ns, "r1", ISTIO).await);

    let restarting = env.clone();
    tokio::task::spawn_blocking(move || restarting.restart())
        .await
        .unwrap()
        .unwrap();
    // Changes once the server is back: a new route, a backend gone.
    create_value(&client, http_route(&ns, "r2", "front", "back2", 0)).await;
    api_of(&client, ResourceKind::Service, Some(&ns))
        .delete("back", &DeleteParams::default())
        .await
        .unwrap();
    eventually(
        60,
        "r2 accepted and r1's missing backend reported",
        || async {
            (accepted_by(&client, &ns, "r2", ISTIO).await
                && resolved_refs(&client, &ns, "r1").await.as_deref() == Some("False"))
            .then_some(())
        },
    )
    .await;
    let r1 = get_route(&client, ResourceKind::HttpRoute, &ns, "r1")
        .await
        .unwrap();
    assert_eq!(
        condition(&r1, GATEWAY, "gw-0", "Accepted").as_deref(),
        Some("True")
    );
    assert_eq!(parents(&r1).len(), 2, "{:?}", parents(&r1));
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
}

/// A TCP proxy in front of the API server that can be unplugged: the runtime's connections
/// drop and new ones are refused, while the test's own client (direct) goes on.
struct Proxy {
    url: String,
    plugged: tokio::sync::watch::Sender<bool>,
}

async fn proxy(server_url: &str) -> Proxy {
    let target = server_url.trim_start_matches("https://").to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    // The serving certificate is for 127.0.0.1, whatever the port.
    let url = format!("https://{}", listener.local_addr().unwrap());
    let (plugged, rx) = tokio::sync::watch::channel(true);
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let mut rx = rx.clone();
            if !*rx.borrow() {
                continue;
            }
            let target = target.clone();
            tokio::spawn(async move {
                let Ok(mut outbound) = TcpStream::connect(&target).await else {
                    return;
                };
                tokio::select! {
                    _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                    _ = rx.wait_for(|p| !*p) => {}
                }
            });
        }
    });
    Proxy { url, plugged }
}

/// A watch expired: while the runtime is cut off from the API server, a backend is deleted,
/// a route created, and etcd compacted past the runtime's resourceVersions (as the API
/// server's compactor does every five minutes). Reconnected, its watches are refused with 410
/// Gone and list again (Kubernetes API concepts, "Efficient detection of changes": a client
/// must relist after 410); the relist replaces each kind at once, so the deletion it never saw
/// as an event is not missed.
async fn expired_watch_relists_and_misses_no_deletion() {
    let _serial = SERIAL.lock().await;
    // Without the watch cache every watch is served from etcd, where compaction expires it.
    let mut options = Options::default();
    options.watch_cache = false;
    let env = private(options);
    let client = client(&env).await;
    let proxy = proxy(env.server_url()).await;
    let cut_off = client_at(env.kubeconfig(), Some(&proxy.url)).await;
    let ns = env.namespace_name("expired");
    mesh_namespace(&client, &ns).await;
    create_value(&client, http_route(&ns, "r1", "front", "back", 0)).await;

    let (mut state, stop, task) = spawn_runtime(&cut_off, &sample_config(), istio(), |_| {});
    until(&mut state, 60, "the first status write", |s| {
        s.ready && s.pending == 0 && s.writes >= 1
    })
    .await;
    assert_eq!(
        resolved_refs(&client, &ns, "r1").await.as_deref(),
        Some("True")
    );
    let relists_before = state.borrow().relists;

    proxy.plugged.send(false).unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    api_of(&client, ResourceKind::Service, Some(&ns))
        .delete("back", &DeleteParams::default())
        .await
        .unwrap();
    create_value(&client, http_route(&ns, "r2", "front", "back2", 0)).await;
    let compacting = env.clone();
    let revision = tokio::task::spawn_blocking(move || compacting.compact_etcd())
        .await
        .unwrap()
        .unwrap();
    assert!(revision > 0);
    proxy.plugged.send(true).unwrap();

    until(&mut state, 90, "relists after 410 Gone", |s| {
        s.relists > relists_before && s.pending == 0
    })
    .await;
    eventually(60, "the deletion seen through the relist", || async {
        (resolved_refs(&client, &ns, "r1").await.as_deref() == Some("False")
            && accepted_by(&client, &ns, "r2", ISTIO).await)
            .then_some(())
    })
    .await;
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
}

/// Another controller writes the same route's status again and again while the runtime makes
/// its first write: the runtime's writes meet 409 Conflict (the resourceVersion precondition),
/// re-read, re-merge and retry, and in the end both controllers' entries are there, the other
/// one's exactly as it last wrote it; no write ever changed both.
async fn concurrent_writer_conflicts_and_keeps_its_entry() {
    let _serial = SERIAL.lock().await;
    let env = private(Options::default());
    let client = client(&env).await;
    let ns = env.namespace_name("conflict");
    mesh_namespace(&client, &ns).await;
    create_value(&client, http_route(&ns, "r1", "front", "back", 1)).await;
    let key = ObjectKey::new(ResourceKind::HttpRoute, ns.clone(), "r1");
    let history = History::record(&client, &[ResourceKind::HttpRoute]).await;

    // The other controller: a polite read-modify-write with the resourceVersion precondition
    // of its own entry, as fast as it can, until told to stop.
    let done = Arc::new(AtomicBool::new(false));
    let last = Arc::new(AtomicU64::new(0));
    let api = api_of(&client, ResourceKind::HttpRoute, Some(&ns));
    let writer = {
        let (done, last, api) = (done.clone(), last.clone(), api.clone());
        tokio::spawn(async move {
            let mut n = 0u64;
            while !done.load(Ordering::SeqCst) {
                n += 1;
                // Bounded: a writer that never gets through fails the test, never hangs it.
                for attempt in 0.. {
                    assert!(
                        attempt < 200,
                        "the other controller's write {n} never got through"
                    );
                    let mut o = api.get_status("r1").await.unwrap();
                    let mut entries: Vec<Value> = o.data["status"]["parents"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    entries.retain(|e| e["controllerName"] != GATEWAY);
                    entries.push(foreign_entry(GATEWAY, "gw-0", &format!("write {n}")));
                    o.data["status"] = json!({ "parents": entries });
                    match api.replace_status("r1", &PostParams::default(), &o).await {
                        Ok(_) => break,
                        Err(kube::Error::Api(s)) if s.is_conflict() => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
                last.store(n, Ordering::SeqCst);
            }
        })
    };
    eventually(30, "the other controller writing", || async {
        (last.load(Ordering::SeqCst) >= 5).then_some(())
    })
    .await;
    let (mut state, stop, task) = spawn_runtime(&client, &sample_config(), istio(), |c| {
        c.debounce = Duration::from_millis(5);
    });
    // A runtime that sees its own writes at once may write only once and win that race, so
    // the test makes it write again and again: each spec change (a new generation) needs a
    // status write, racing the other writer, until one meets 409 (bounded, never hangs).
    let mut weight = 1;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while state.borrow().conflicts == 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no conflict in 120 s: {:?}",
            *state.borrow()
        );
        weight = 3 - weight;
        let spec = json!({"spec": {"rules": [{"backendRefs": [
            {"name": "back", "port": 80, "weight": weight}
        ]}]}});
        api.patch("r1", &PatchParams::default(), &Patch::Merge(spec))
            .await
            .unwrap();
        let _ = tokio::time::timeout(
            Duration::from_millis(500),
            state.wait_for(|s| s.conflicts > 0),
        )
        .await;
    }
    done.store(true, Ordering::SeqCst);
    tokio::time::timeout(Duration::from_secs(60), writer)
        .await
        .expect("the other controller stops")
        .unwrap();
    let n = last.load(Ordering::SeqCst);
    eventually(60, "istio's entry", || async {
        accepted_by(&client, &ns, "r1", ISTIO).await.then_some(())
    })
    .await;
    until(&mut state, 30, "caught up", |s| s.pending == 0).await;

    let r1 = get_route(&client, ResourceKind::HttpRoute, &ns, "r1")
        .await
        .unwrap();
    let theirs: Vec<_> = parents(&r1)
        .into_iter()
        .filter(|p| p.controller_name == GATEWAY)
        .collect();
    assert_eq!(theirs.len(), 1, "{:?}", parents(&r1));
    assert_eq!(theirs[0].conditions[0].message, format!("write {n}"));
    assert_eq!(parents(&r1).len(), 2);
    history.assert_one_controller_per_write();
    // Once the other controller's entry appeared, no version lacks it.
    let versions = history.versions(&key);
    let first = versions
        .iter()
        .position(|r| parents(r).iter().any(|p| p.controller_name == GATEWAY))
        .unwrap();
    for v in &versions[first..] {
        assert!(
            parents(v).iter().any(|p| p.controller_name == GATEWAY),
            "resourceVersion {:?} lost the other controller's entry",
            v.metadata().resource_version
        );
    }
    eprintln!(
        "{} conflicts met, {} writes by the other controller",
        state.borrow().conflicts,
        n
    );
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
}

/// A CRD deleted and created again (apiextensions: deleting a CRD deletes its objects): the
/// kind leaves the runtime's watches and snapshot, is watched again once its CRD is back and
/// Established, and a route of it created again gets its status. Routes of other kinds are
/// not written meanwhile.
async fn crd_deleted_and_recreated_is_watched_again() {
    let _serial = SERIAL.lock().await;
    let env = private(Options::default());
    let client = client(&env).await;
    let ns = env.namespace_name("crd");
    mesh_namespace(&client, &ns).await;
    // On another Service than the GRPCRoute's: on the same port a GRPCRoute takes precedence
    // over an HTTPRoute (GEP-1294 route types), and the HTTPRoute's status would follow the CRD.
    create_value(&client, http_route(&ns, "r1", "front", "back", 0)).await;
    let grpc = json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GRPCRoute",
        "metadata": {"name": "g1", "namespace": ns},
        "spec": {"parentRefs": [{"group": "", "kind": "Service", "name": "back2", "port": 80}],
                 "rules": [{"backendRefs": [{"name": "back", "port": 80}]}]}});
    create_value(&client, grpc.clone()).await;
    let grpc_accepted = || async {
        get_route(&client, ResourceKind::GrpcRoute, &ns, "g1")
            .await
            .and_then(|r| condition(&r, ISTIO, "back2", "Accepted"))
            .as_deref()
            == Some("True")
    };

    let (mut state, stop, task) = spawn_runtime(&client, &sample_config(), istio(), |_| {});
    eventually(60, "both routes accepted", || async {
        (grpc_accepted().await && accepted_by(&client, &ns, "r1", ISTIO).await).then_some(())
    })
    .await;
    until(&mut state, 30, "caught up", |s| s.pending == 0).await;
    let r1_version = get_route(&client, ResourceKind::HttpRoute, &ns, "r1")
        .await
        .unwrap()
        .metadata()
        .resource_version
        .clone();

    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let name = "grpcroutes.gateway.networking.k8s.io";
    let saved = crds.get(name).await.unwrap();
    crds.delete(name, &DeleteParams::default()).await.unwrap();
    until(&mut state, 60, "GRPCRoute dropped", |s| {
        s.missing.contains(&ResourceKind::GrpcRoute)
            && !s.watching.contains_key(&ResourceKind::GrpcRoute)
    })
    .await;
    eventually(60, "the CRD gone", || async {
        crds.get_opt(name).await.unwrap().is_none().then_some(())
    })
    .await;

    let mut again = CustomResourceDefinition {
        metadata: kube::api::ObjectMeta {
            name: Some(name.to_owned()),
            annotations: saved.metadata.annotations.clone(),
            labels: saved.metadata.labels.clone(),
            ..Default::default()
        },
        spec: saved.spec.clone(),
        status: None,
    };
    again.metadata.annotations.get_or_insert_default();
    crds.create(&PostParams::default(), &again).await.unwrap();
    until(&mut state, 60, "GRPCRoute watched again", |s| {
        s.ready && s.watching.contains_key(&ResourceKind::GrpcRoute)
    })
    .await;
    // The CRD's deletion took its objects; the route is created again and written again.
    eventually(30, "GRPCRoute served again", || async {
        let api = api_of(&client, ResourceKind::GrpcRoute, Some(&ns));
        api.list(&Default::default()).await.ok().map(|_| ())
    })
    .await;
    create_value(&client, grpc).await;
    eventually(60, "g1 accepted again", || async {
        grpc_accepted().await.then_some(())
    })
    .await;
    until(&mut state, 30, "caught up", |s| s.pending == 0).await;
    let r1 = get_route(&client, ResourceKind::HttpRoute, &ns, "r1")
        .await
        .unwrap();
    assert_eq!(
        r1.metadata().resource_version,
        r1_version,
        "the HTTPRoute was written while the GRPCRoute CRD came and went"
    );
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
}

/// `status.parents` holds at most 32 entries (Gateway API RouteStatus, `maxItems: 32`). A
/// route whose list is full of other controllers' entries gets no entry from the runtime:
/// it never evicts another controller's entry (they would evict it back: a status fight), and
/// it reports the route (State::status_full, a warning, gamma_status_entries_dropped_total).
/// When another controller frees a slot, the runtime's entry is written.
async fn full_status_is_reported_and_never_evicts_another_entry() {
    let _serial = SERIAL.lock().await;
    let env = private(Options::default());
    let client = client(&env).await;
    let ns = env.namespace_name("full");
    mesh_namespace(&client, &ns).await;
    // 32 parentRefs: Service front and Gateways gw-0..gw-30; 32 entries of two gateway
    // controllers (two for gw-0).
    let mut route = http_route(&ns, "r1", "front", "back", 31);
    let mut entries: Vec<Value> = (0..31)
        .map(|i| foreign_entry(GATEWAY, &format!("gw-{i}"), "full"))
        .collect();
    entries.push(foreign_entry("example.net/other-gateway", "gw-0", "full"));
    route["status"] = json!({ "parents": entries });
    let created = create_value(&client, route).await;
    let key = ObjectKey::new(ResourceKind::HttpRoute, ns.clone(), "r1");

    let metrics = gamma_kube::metrics::Metrics::default();
    let (mut state, stop, task) = spawn_runtime(&client, &sample_config(), istio(), |c| {
        c.metrics = metrics.clone();
    });
    until(&mut state, 60, "the route reported full", |s| {
        s.ready && s.pending == 0 && s.status_full.contains(&key)
    })
    .await;
    assert!(metrics.entries_dropped.get() >= 1);
    let r1 = get_route(&client, ResourceKind::HttpRoute, &ns, "r1")
        .await
        .unwrap();
    assert_eq!(
        r1.metadata().resource_version,
        created.metadata.resource_version,
        "a full status was written"
    );

    // The other gateway controller leaves: one slot free.
    let api = api_of(&client, ResourceKind::HttpRoute, Some(&ns));
    let mut o = api.get_status("r1").await.unwrap();
    let mut entries = o.data["status"]["parents"].as_array().cloned().unwrap();
    entries.retain(|e| e["controllerName"] != "example.net/other-gateway");
    o.data["status"] = json!({ "parents": entries });
    api.replace_status("r1", &PostParams::default(), &o)
        .await
        .unwrap();
    eventually(60, "istio's entry in the freed slot", || async {
        accepted_by(&client, &ns, "r1", ISTIO).await.then_some(())
    })
    .await;
    until(&mut state, 30, "no longer full", |s| {
        !s.status_full.contains(&key)
    })
    .await;
    let r1 = get_route(&client, ResourceKind::HttpRoute, &ns, "r1")
        .await
        .unwrap();
    let ps = parents(&r1);
    assert_eq!(ps.len(), 32);
    assert_eq!(
        ps.iter().filter(|p| p.controller_name == GATEWAY).count(),
        31
    );
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
}
