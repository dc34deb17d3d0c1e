//! gamma-kube on a real Kubernetes API server (tools/kube-testenv: kube-apiserver v1.37 with
//! the Gateway API v1.6.1 experimental-channel CRDs), one server for this test binary and a
//! fresh namespace per test. Reported ignored (with the reason) when Go is absent, unless
//! GAMMA_REQUIRE_TESTENV=1.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gamma_arbiter::{ArbiterConfig, Identity};
use gamma_controller::ReconcilerConfig;
use gamma_kube::kinds::{WATCHED, api_resource};
use gamma_kube::watches::decode_object;
use gamma_kube::{RunConfig, Runner, State};
use gamma_model::{AnyResource, ResourceKind};
use gamma_model::{DecodeOptions, decode_documents};
use gamma_testenv::Channel;
use gamma_testenv::harness::experimental_server;
use kube::api::{Api, DynamicObject, ListParams, PostParams};
use serde_json::Value;

gamma_testenv::test_main! {
    #[tokio] every_upstream_example_reads_back_as_decode_gives_from_the_file if experimental_server,
    #[tokio] three_controllers_share_the_sample_cluster_without_clobbering if experimental_server,
}

async fn client(env: &gamma_testenv::TestEnv) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig()).unwrap();
    let config = kube::Config::from_custom_kubeconfig(
        kubeconfig,
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .unwrap();
    kube::Client::try_from(config).unwrap()
}

fn api(client: &kube::Client, r: &AnyResource) -> Api<DynamicObject> {
    let ar = api_resource(r.kind(), r.api_version());
    match &r.metadata().namespace {
        Some(ns) if r.kind().is_namespaced() => Api::namespaced_with(client.clone(), ns, &ar),
        _ => Api::all_with(client.clone(), &ar),
    }
}

async fn create(client: &kube::Client, r: &AnyResource) {
    let mut value = serde_json::to_value(r).unwrap();
    // Status is written through the status subresource, never on create.
    let status = value.as_object_mut().unwrap().remove("status");
    let object: DynamicObject = serde_json::from_value(value).unwrap();
    let api = api(client, r);
    let created = api
        .create(&PostParams::default(), &object)
        .await
        .unwrap_or_else(|e| panic!("creating {:?}: {e}", gamma_model::ObjectKey::of(r)));
    if let Some(status) = status {
        let mut with = created;
        with.data["status"] = status;
        api.replace_status(&r.metadata().name, &PostParams::default(), &with)
            .await
            .unwrap();
    }
}

async fn ensure_namespace(client: &kube::Client, name: &str) {
    let ns: DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}
    }))
    .unwrap();
    let api: Api<DynamicObject> =
        Api::all_with(client.clone(), &api_resource(ResourceKind::Namespace, "v1"));
    match api.create(&PostParams::default(), &ns).await {
        Ok(_) => {}
        Err(kube::Error::Api(s)) if s.is_already_exists() => {}
        Err(e) => panic!("namespace {name}: {e}"),
    }
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether every field of `expected` is in `actual` with the same value. The API server adds
/// fields (CRD defaults, server-set metadata) but must not change or drop any.
fn assert_subset(expected: &Value, actual: &Value, path: &str) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, v) in e {
                let Some(av) = a.get(k) else {
                    panic!("{path}.{k}: lost on the round trip: {v}");
                };
                assert_subset(v, av, &format!("{path}.{k}"));
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            assert_eq!(e.len(), a.len(), "{path}: array length changed");
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                assert_subset(ev, av, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(expected, actual, "{path}: value changed"),
    }
}

/// Gateway API: every upstream example is a valid object; created on the API server and read
/// back through gamma-kube's decoding, it is what `decode` gives from the file (plus the
/// fields the server fills in: CRD defaults and server-set metadata).
async fn every_upstream_example_reads_back_as_decode_gives_from_the_file() {
    let upstream = gamma_testenv::upstream::v1_6_1().expect("the test's precondition");
    let env = gamma_testenv::server(Channel::Experimental);
    let client = client(env).await;
    let mut checked = 0;
    for file in yaml_files(&Path::new(&upstream).join("examples")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let decoded = decode_documents(&text, &DecodeOptions::skipping_unsupported())
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        // Each file in its own namespace; cluster-scoped names get the namespace as prefix.
        let ns = env.namespace_name("example");
        ensure_namespace(&client, &ns).await;
        let mut objects: Vec<AnyResource> = decoded
            .into_resources()
            .into_iter()
            .filter(|r| WATCHED.contains(&r.kind()))
            .collect();
        for r in &mut objects {
            let kind = r.kind();
            let m = r.metadata_mut();
            if kind.is_namespaced() {
                m.namespace = Some(ns.clone());
            } else {
                m.name = format!("{ns}-{}", m.name);
            }
        }
        objects.sort_by_key(|r| r.kind() != ResourceKind::Namespace);
        for r in &objects {
            create(&client, r).await;
        }
        for expected in &objects {
            let read = api(&client, expected)
                .get(&expected.metadata().name)
                .await
                .unwrap();
            let actual = decode_object(expected.kind(), expected.api_version(), read)
                .unwrap_or_else(|(n, e)| panic!("{}: {n}: {e}", file.display()));
            assert_eq!(actual.api_version(), expected.api_version());
            let at = format!(
                "{}: {:?}",
                file.display(),
                gamma_model::ObjectKey::of(expected)
            );
            assert_subset(
                &serde_json::to_value(expected).unwrap(),
                &serde_json::to_value(&actual).unwrap(),
                &at,
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} objects checked");
    eprintln!("{checked} upstream objects round-tripped through the API server");
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Waits (bounded) until `rx`'s state satisfies `f`.
async fn until(
    rx: &mut tokio::sync::watch::Receiver<State>,
    what: &str,
    f: impl Fn(&State) -> bool,
) {
    let done = tokio::time::timeout(Duration::from_secs(60), rx.wait_for(|s| f(s)))
        .await
        .is_ok();
    assert!(done, "timed out waiting for {what}: {:?}", *rx.borrow());
}

/// The status entries of every route, as (route, controllerName, parent name) triples.
fn entries(objects: &[AnyResource]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for r in objects {
        if let Some(status) = r.route_status() {
            for p in &status.parents {
                out.push((
                    format!(
                        "{}/{}",
                        r.metadata().namespace_or_default(),
                        r.metadata().name
                    ),
                    p.controller_name.clone(),
                    p.parent_ref.name.clone(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// Every route of the cluster, read through gamma-kube's decoding.
async fn routes(client: &kube::Client) -> Vec<AnyResource> {
    let mut out = Vec::new();
    for kind in WATCHED.into_iter().filter(ResourceKind::is_route) {
        let version = kind.api_versions()[0];
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &api_resource(kind, version));
        for o in api.list(&ListParams::default()).await.unwrap() {
            out.push(decode_object(kind, version, o).unwrap());
        }
    }
    out
}

/// Gateway API status.parents is an atomic list shared by every controller: three controllers
/// (two meshes, one gateway) writing concurrently end with exactly the entries the pure
/// reconciler gives at its fixed point, never change each other's entries (checked on every
/// resourceVersion of every route, from a watch), and stop writing once converged.
async fn three_controllers_share_the_sample_cluster_without_clobbering() {
    let env = gamma_testenv::server(Channel::Experimental);
    let client = client(env).await;
    let config: ArbiterConfig = serde_saphyr::from_str(
        &std::fs::read_to_string(examples().join("gamma-config.yaml")).unwrap(),
    )
    .unwrap();
    let mut objects = Vec::new();
    for file in yaml_files(&examples().join("manifests")) {
        if file.parent().unwrap().ends_with("manifests") {
            objects.extend(gamma_model::decode(&std::fs::read_to_string(file).unwrap()).unwrap());
        }
    }
    // Record every version of every route from a watch started before anyone writes.
    let history = std::sync::Arc::new(std::sync::Mutex::new(Vec::<AnyResource>::new()));
    let mut recorders = Vec::new();
    for kind in WATCHED.into_iter().filter(ResourceKind::is_route) {
        let version = kind.api_versions()[0];
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &api_resource(kind, version));
        let history = history.clone();
        recorders.push(tokio::spawn(async move {
            use futures::StreamExt;
            let mut s =
                kube::runtime::watcher(api, kube::runtime::watcher::Config::default()).boxed();
            while let Some(Ok(e)) = s.next().await {
                if let kube::runtime::watcher::Event::Apply(o)
                | kube::runtime::watcher::Event::InitApply(o) = e
                {
                    history
                        .lock()
                        .unwrap()
                        .push(decode_object(kind, version, o).unwrap());
                }
            }
        }));
    }
    objects.sort_by_key(|r| r.kind() != ResourceKind::Namespace);
    for r in &objects {
        create(&client, r).await;
    }
    // The objects as the server stores them (it prunes fields its CRDs do not have, such as
    // the sample's proposed `parentRefs[].controllers`): the input of the expected outcome.
    let mut stored = Vec::new();
    for r in &objects {
        let o = api(&client, r).get(&r.metadata().name).await.unwrap();
        stored.push(decode_object(r.kind(), r.api_version(), o).unwrap());
    }
    let identities = [
        Identity::of_mesh(&config, "istio").unwrap(),
        Identity::of_mesh(&config, "linkerd").unwrap(),
        Identity::new("example.com/gateway-controller"),
    ];
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut runtimes = Vec::new();
    let mut states = Vec::new();
    for me in &identities {
        let rt = Runner::new(
            RunConfig::new(ReconcilerConfig::new(config.clone(), me.clone())),
            client.clone(),
        );
        states.push(rt.state());
        let mut stopped = stopped.clone();
        runtimes.push(tokio::spawn(rt.run(async move {
            let _ = stopped.wait_for(|s| *s).await;
        })));
    }
    // Converged: every runtime ready, caught up, and its last write echoed back (a write makes
    // a watch event, hence another reconcile; converged means that one wrote nothing).
    let mut last = Vec::new();
    for s in &mut states {
        until(s, "ready and caught up", |s| {
            s.ready && s.leader && s.pending == 0 && s.reconciles > 0
        })
        .await;
    }
    // Wait until no runtime has changes pending for two consecutive rounds of the state.
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now: Vec<(u64, usize)> = states
            .iter()
            .map(|s| (s.borrow().writes, s.borrow().pending))
            .collect();
        if now == last && now.iter().all(|(_, p)| *p == 0) {
            break;
        }
        last = now;
    }
    let writes_at_fixed_point: Vec<u64> = states.iter().map(|s| s.borrow().writes).collect();
    assert!(
        writes_at_fixed_point.iter().all(|&w| w > 0),
        "{writes_at_fixed_point:?}"
    );

    // The pure reconcilers' fixed point on the same objects is the expected outcome.
    let mut snapshot = gamma_model::Snapshot::from_resources(stored);
    let mut reconcilers: Vec<_> = identities
        .iter()
        .map(|me| {
            gamma_controller::Reconciler::new(ReconcilerConfig::new(config.clone(), me.clone()))
                .unwrap()
        })
        .collect();
    let now = gamma_model::meta::Time::now();
    for _round in 0..5 {
        let mut wrote = false;
        for r in &mut reconcilers {
            for (route, status) in r.reconcile(&snapshot, now).status_updates {
                let mut obj = snapshot.get(&route).unwrap().clone();
                *obj.route_status_mut().expect("a route") = Some(status);
                snapshot.upsert(obj);
                wrote = true;
            }
        }
        if !wrote {
            break;
        }
    }
    let expected: Vec<AnyResource> = snapshot.iter().map(|(_, r)| r.clone()).collect();
    let live = routes(&client).await;
    assert_eq!(entries(&live), entries(&expected));

    // A change that touches nothing (an unrelated annotation) makes every runtime reconcile
    // again: none writes.
    let before: Vec<u64> = states.iter().map(|s| s.borrow().reconciles).collect();
    let ns_api: Api<DynamicObject> =
        Api::all_with(client.clone(), &api_resource(ResourceKind::Namespace, "v1"));
    ns_api
        .patch(
            "shop",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(
                serde_json::json!({"metadata": {"annotations": {"example.com/note": "x"}}}),
            ),
        )
        .await
        .unwrap();
    for (s, b) in states.iter_mut().zip(&before) {
        until(s, "a reconcile after the no-op change", |s| {
            s.reconciles > *b && s.pending == 0
        })
        .await;
    }
    let after: Vec<u64> = states.iter().map(|s| s.borrow().writes).collect();
    assert_eq!(after, writes_at_fixed_point, "writes after the fixed point");

    // No version of any route changed the entries of more than one controller: each write is
    // one controller's, and it touched only its own entries.
    let history = history.lock().unwrap().clone();
    let mut by_route: BTreeMap<String, Vec<&AnyResource>> = BTreeMap::new();
    for r in &history {
        by_route
            .entry(format!("{:?}", gamma_model::ObjectKey::of(r)))
            .or_default()
            .push(r);
    }
    for (route, versions) in &mut by_route {
        versions.sort_by_key(|r| {
            r.metadata()
                .resource_version
                .as_deref()
                .unwrap_or("")
                .parse::<u64>()
                .unwrap_or(0)
        });
        versions.dedup_by_key(|r| r.metadata().resource_version.clone());
        for pair in versions.windows(2) {
            let (a, b) = (entries(&[pair[0].clone()]), entries(&[pair[1].clone()]));
            let changed: std::collections::BTreeSet<&String> = a
                .iter()
                .filter(|e| !b.contains(e))
                .chain(b.iter().filter(|e| !a.contains(e)))
                .map(|(_, c, _)| c)
                .collect();
            assert!(
                changed.len() <= 1,
                "{route}: one write changed the entries of {changed:?}"
            );
        }
    }
    stop.send(true).unwrap();
    for rt in runtimes {
        rt.await.unwrap().unwrap();
    }
    for r in recorders {
        r.abort();
    }
}
