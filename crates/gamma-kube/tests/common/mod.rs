//! Helpers shared by the tests on a real API server (tools/kube-testenv).
#![allow(dead_code)] // each test binary uses its own subset

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use gamma_arbiter::ArbiterConfig;
use gamma_kube::State;
use gamma_kube::kinds::api_resource;
use gamma_kube::watches::decode_object;
use gamma_model::gateway::{PolicyAncestorStatus, RouteParentStatus};
use gamma_model::{AnyResource, ObjectKey, ResourceKind};
use kube::api::{Api, DynamicObject, PostParams};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use serde_json::{Value, json};

/// A client for the server of `kubeconfig`, optionally at another URL (a proxy in front of it).
pub async fn client_at(kubeconfig: &std::path::Path, url: Option<&str>) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(kubeconfig).unwrap();
    let mut config = kube::Config::from_custom_kubeconfig(
        kubeconfig,
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .unwrap();
    if let Some(url) = url {
        config.cluster_url = url.parse().unwrap();
    }
    kube::Client::try_from(config).unwrap()
}

/// A client for `env`'s server.
pub async fn client(env: &gamma_testenv::TestEnv) -> kube::Client {
    client_at(env.kubeconfig(), None).await
}

/// The API of `kind` at its newest modelled version, in `namespace` (or cluster-wide).
pub fn api_of(
    client: &kube::Client,
    kind: ResourceKind,
    namespace: Option<&str>,
) -> Api<DynamicObject> {
    let ar = api_resource(kind, kind.api_versions()[0]);
    match namespace {
        Some(ns) if kind.is_namespaced() => Api::namespaced_with(client.clone(), ns, &ar),
        _ => Api::all_with(client.clone(), &ar),
    }
}

/// Creates `value` (an object as JSON; `status`, if any, written after through the status
/// subresource, as only that accepts it).
pub async fn create_value(client: &kube::Client, mut value: Value) -> DynamicObject {
    let r = AnyResource::from_value(value.clone()).unwrap();
    let status = value.as_object_mut().unwrap().remove("status");
    let object: DynamicObject = serde_json::from_value(value).unwrap();
    let api = api_of(client, r.kind(), r.metadata().namespace.as_deref());
    let created = api
        .create(&PostParams::default(), &object)
        .await
        .unwrap_or_else(|e| panic!("creating {:?}: {e}", ObjectKey::of(&r)));
    match status {
        Some(status) => {
            let mut with = created;
            with.data["status"] = status;
            api.replace_status(&r.metadata().name, &PostParams::default(), &with)
                .await
                .unwrap()
        }
        None => created,
    }
}

/// Creates `objects`, `in_flight` requests at a time.
pub async fn create_all(
    client: &kube::Client,
    objects: impl IntoIterator<Item = Value>,
    in_flight: usize,
) {
    futures::stream::iter(objects)
        .for_each_concurrent(in_flight, |o| {
            let client = client.clone();
            async move {
                create_value(&client, o).await;
            }
        })
        .await;
}

/// The Service a route of [`create_mesh_routes`] sends to: `(namespace index, name)`.
pub fn route_service(route: usize, services: usize, namespaces: usize) -> (usize, String) {
    let s = route % services;
    (s % namespaces, format!("svc-{s}"))
}

/// The load fixture in existing `namespaces`: Services `svc-S` spread over them round-robin,
/// then HTTPRoutes `route-R`, each with the one Service parent it sends to (`svc-(R mod
/// services)`, [`route_service`]), 32 requests in flight.
pub async fn create_mesh_routes(
    client: &kube::Client,
    namespaces: &[String],
    services: usize,
    routes: usize,
) {
    let n = namespaces.len();
    let service_objects = (0..services).map(|s| service(&namespaces[s % n], &format!("svc-{s}")));
    create_all(client, service_objects, 32).await;
    let route_objects = (0..routes).map(|r| {
        let (ns, svc) = route_service(r, services, n);
        http_route(&namespaces[ns], &format!("route-{r}"), &svc, &svc, 0)
    });
    create_all(client, route_objects, 32).await;
}

/// A Namespace with `labels`.
pub fn namespace(name: &str, labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}})
}

/// A ClusterIP Service with port 80.
pub fn service(namespace: &str, name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Service",
           "metadata": {"name": name, "namespace": namespace},
           "spec": {"ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}})
}

/// An HTTPRoute whose parents are Service `parent` (port 80) and then `extra` more parentRefs
/// (Gateways named `gw-0`...), sending to Service `backend`.
pub fn http_route(namespace: &str, name: &str, parent: &str, backend: &str, extra: usize) -> Value {
    let mut parents = vec![json!({"group": "", "kind": "Service", "name": parent, "port": 80})];
    parents.extend((0..extra).map(|i| json!({"name": format!("gw-{i}")})));
    json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
           "metadata": {"name": name, "namespace": namespace},
           "spec": {"parentRefs": parents,
                    "rules": [{"backendRefs": [{"name": backend, "port": 80}]}]}})
}

/// The sample arbiter configuration (examples/gamma-config.yaml): meshes istio and linkerd.
pub fn sample_config() -> ArbiterConfig {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/gamma-config.yaml");
    serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Waits (at most `secs` seconds) until `rx`'s state satisfies `f`.
pub async fn until(
    rx: &mut tokio::sync::watch::Receiver<State>,
    secs: u64,
    what: &str,
    f: impl Fn(&State) -> bool,
) {
    let done = tokio::time::timeout(Duration::from_secs(secs), rx.wait_for(|s| f(s)))
        .await
        .is_ok();
    assert!(done, "timed out waiting for {what}: {:?}", *rx.borrow());
}

/// Polls (every 100 ms, at most `secs` seconds) until `f` gives `Some`.
pub async fn eventually<T, F, Fut>(secs: u64, what: &str, mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(t) = f().await {
            return t;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A route read back and decoded.
pub async fn get_route(
    client: &kube::Client,
    kind: ResourceKind,
    ns: &str,
    name: &str,
) -> Option<AnyResource> {
    let o = api_of(client, kind, Some(ns))
        .get_opt(name)
        .await
        .unwrap()?;
    Some(decode_object(kind, kind.api_versions()[0], o).unwrap())
}

/// The `status.parents` entries of a route.
pub fn parents(r: &AnyResource) -> Vec<RouteParentStatus> {
    r.route_status()
        .map(|s| s.parents.clone())
        .unwrap_or_default()
}

/// The status of condition `type_` of `controller`'s entry for the parentRef named `parent`.
pub fn condition(r: &AnyResource, controller: &str, parent: &str, type_: &str) -> Option<String> {
    parents(r)
        .iter()
        .find(|p| p.controller_name == controller && p.parent_ref.name == parent)?
        .conditions
        .iter()
        .find(|c| c.type_ == type_)
        .map(|c| {
            serde_json::to_value(&c.status)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
}

/// Every version of every route of `kinds`, recorded from a watch (one per kind) started now.
#[derive(Clone, Default)]
pub struct History(Arc<Mutex<Vec<AnyResource>>>);

impl History {
    /// Starts recording; the tasks end with the test's runtime.
    pub async fn record(client: &kube::Client, kinds: &[ResourceKind]) -> History {
        let history = History::default();
        for &kind in kinds {
            let version = kind.api_versions()[0];
            let api = api_of(client, kind, None);
            let h = history.clone();
            let (synced_tx, synced) = tokio::sync::oneshot::channel();
            tokio::spawn(async move {
                let mut synced_tx = Some(synced_tx);
                // With backoff, as the runtime's watches: without it, once the test's
                // server is gone at the end of a test, the watcher retries at once, forever,
                // never yielding, and dropping the test's tokio runtime waits for it (a hang
                // seen in the concurrent-writer fault test).
                let mut s = watcher::watcher(api, watcher::Config::default())
                    .default_backoff()
                    .boxed();
                while let Some(e) = s.next().await {
                    match e {
                        Ok(Event::Apply(o) | Event::InitApply(o)) => {
                            h.0.lock()
                                .unwrap()
                                .push(decode_object(kind, version, o).unwrap());
                        }
                        Ok(Event::InitDone) => {
                            if let Some(tx) = synced_tx.take() {
                                let _ = tx.send(());
                            }
                        }
                        _ => {}
                    }
                }
            });
            synced.await.unwrap();
        }
        history
    }

    /// The recorded versions of `route`, in resourceVersion order, one per version.
    pub fn versions(&self, route: &ObjectKey) -> Vec<AnyResource> {
        let mut out: Vec<AnyResource> = self
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|r| ObjectKey::of(r) == *route)
            .cloned()
            .collect();
        let rv = |r: &AnyResource| -> u64 {
            r.metadata()
                .resource_version
                .as_deref()
                .unwrap_or("0")
                .parse()
                .unwrap_or(0)
        };
        out.sort_by_key(rv);
        out.dedup_by_key(|r| rv(r));
        out
    }

    /// Every route recorded.
    pub fn routes(&self) -> Vec<ObjectKey> {
        let mut keys: Vec<ObjectKey> = self.0.lock().unwrap().iter().map(ObjectKey::of).collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// Asserts that no recorded write changed the entries of more than one controller: each
    /// write is one controller's read-modify-write of its own entries, never another's.
    pub fn assert_one_controller_per_write(&self) {
        for route in self.routes() {
            let versions = self.versions(&route);
            for pair in versions.windows(2) {
                let (a, b) = (parents(&pair[0]), parents(&pair[1]));
                let changed: std::collections::BTreeSet<&String> = a
                    .iter()
                    .filter(|e| !b.contains(e))
                    .chain(b.iter().filter(|e| !a.contains(e)))
                    .map(|e| &e.controller_name)
                    .collect();
                assert!(
                    changed.len() <= 1,
                    "{route:?}: one write changed the entries of {changed:?}"
                );
            }
        }
    }
}

/// Starts a runtime for `me` (a mesh of the sample configuration, or any controller name);
/// returns its state, and a sender that stops it.
pub fn spawn_runtime(
    client: &kube::Client,
    config: &ArbiterConfig,
    me: gamma_arbiter::Identity,
    tune: impl FnOnce(&mut gamma_kube::RunConfig),
) -> (
    tokio::sync::watch::Receiver<State>,
    tokio::sync::watch::Sender<bool>,
    tokio::task::JoinHandle<Result<(), gamma_kube::RunError>>,
) {
    let mut run_config =
        gamma_kube::RunConfig::new(gamma_controller::ReconcilerConfig::new(config.clone(), me));
    tune(&mut run_config);
    let rt = gamma_kube::Runner::new(run_config, client.clone());
    let state = rt.state();
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let task = tokio::spawn(rt.run(async move {
        let _ = stopped.wait_for(|s| *s).await;
    }));
    (state, stop, task)
}

/// Namespace `ns` and GatewayClass `ns` run by `controller` (cluster-scoped, named after the
/// namespace: unique on a shared server).
pub async fn namespace_and_class(client: &kube::Client, ns: &str, controller: &str) {
    create_value(client, namespace(ns, json!({}))).await;
    create_value(
        client,
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
               "metadata": {"name": ns}, "spec": {"controllerName": controller}}),
    )
    .await;
}

/// Gateway `ns/gw` of class `ns` (see [`namespace_and_class`]) with these `spec` fields.
pub fn gateway_of_class(ns: &str, spec: Value) -> Value {
    let mut spec = spec;
    spec["gatewayClassName"] = ns.into();
    json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
           "metadata": {"name": "gw", "namespace": ns}, "spec": spec})
}

/// Service `ns/web` (port 443) and HTTPRoute `ns/r` on Gateway `gw` sending to it: the backend
/// a BackendTLSPolicy on `web` applies to.
pub async fn web_behind_gateway(client: &kube::Client, ns: &str) {
    create_value(
        client,
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "web", "namespace": ns},
               "spec": {"ports": [{"name": "https", "port": 443, "protocol": "TCP"}]}}),
    )
    .await;
    create_value(
        client,
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
               "metadata": {"name": "r", "namespace": ns},
               "spec": {"parentRefs": [{"name": "gw"}],
                        "rules": [{"backendRefs": [{"name": "web", "port": 443}]}]}}),
    )
    .await;
}

/// The `status.ancestors` entries of a policy (none for another kind).
pub fn ancestors(r: &AnyResource) -> Vec<PolicyAncestorStatus> {
    match r {
        AnyResource::BackendTlsPolicy(p) => p
            .status
            .as_ref()
            .map(|s| s.ancestors.clone())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// A runtime started by [`Running::ready`]: its state, and how to stop it.
pub struct Running {
    pub state: tokio::sync::watch::Receiver<State>,
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<Result<(), gamma_kube::RunError>>,
}

impl Running {
    /// [`spawn_runtime`], once its state says ready (within 60 s).
    pub async fn ready(
        client: &kube::Client,
        config: &ArbiterConfig,
        me: gamma_arbiter::Identity,
        tune: impl FnOnce(&mut gamma_kube::RunConfig),
    ) -> Running {
        let (mut state, stop, task) = spawn_runtime(client, config, me, tune);
        until(&mut state, 60, "ready", |s| s.ready).await;
        Running { state, stop, task }
    }

    /// Stops it and waits for it to end, which must be cleanly.
    pub async fn stop(self) {
        self.stop.send(true).unwrap();
        self.task.await.unwrap().unwrap();
    }
}

/// The CRD documents of `dir/*.yaml`, in file name order (as `kubectl apply -f dir` takes
/// them).
pub fn crd_documents(dir: &std::path::Path) -> Vec<Value> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
        out.extend(
            docs.into_iter()
                .filter(|d| d["kind"] == "CustomResourceDefinition"),
        );
    }
    out
}

/// Installs `crds` over the cluster's: each replaced whole (what `kubectl replace` does, so
/// fields a release dropped go too), or created when the cluster lacks it.
pub async fn install_over(client: &kube::Client, crds: &[Value]) {
    let api: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> = Api::all(client.clone());
    for doc in crds {
        let mut crd: k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition = serde_json::from_value(doc.clone()).unwrap();
        let name = crd.metadata.name.clone().unwrap();
        match api.get_opt(&name).await.unwrap() {
            Some(current) => {
                crd.metadata.resource_version = current.metadata.resource_version;
                api.replace(&name, &PostParams::default(), &crd)
                    .await
                    .unwrap_or_else(|e| panic!("replacing CRD {name}: {e}"));
            }
            None => {
                api.create(&PostParams::default(), &crd)
                    .await
                    .unwrap_or_else(|e| panic!("creating CRD {name}: {e}"));
            }
        }
    }
}
