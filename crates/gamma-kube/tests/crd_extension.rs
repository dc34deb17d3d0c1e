//! The `controllers` CRD extension on a real API server (tools/kube-testenv, Gateway API
//! v1.6.1): without it the API server refuses `parentRefs[].controllers` under strict field
//! validation and prunes it otherwise; the patch `crd_extension` makes declares it in every
//! served version of every route CRD, so that a strict create keeps it; a second application
//! changes nothing; the inverse restores the upstream schemas; the bundle's `safe-upgrades`
//! admission policy admits both; a reinstall of the upstream CRDs is seen as a removal; and the
//! runtime says whether the field is declared (docs/ownership.md, "The `controllers` field on a
//! real cluster").
//!
//! The standard-channel server of this test binary is never patched; the experimental one is
//! patched by tests that take `EXPERIMENTAL` first, one at a time. Reported ignored (with the
//! reason) when Go is absent, unless GAMMA_REQUIRE_TESTENV=1.

mod common;

use std::time::Duration;

use common::{client, eventually, until};
use gamma_arbiter::Identity;
use gamma_controller::ReconcilerConfig;
use gamma_kube::crd_extension::{self, Availability, Direction, EXTENSION_ANNOTATION, ROUTE_CRDS};
use gamma_kube::kinds::api_resource;
use gamma_kube::{RunConfig, Runner};
use gamma_model::ResourceKind;
use gamma_model::validate::{Bundle, Channel as ModelChannel, Release};
use gamma_testenv::Channel;
use gamma_testenv::harness::{experimental_server, release_trees, standard_server};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

gamma_testenv::test_main! {
    #[tokio] without_the_extension_a_strict_create_with_controllers_is_refused_and_a_lenient_one_pruned
        if standard_server,
    #[tokio] with_the_extension_a_strict_create_keeps_controllers_at_every_served_version
        if experimental_server,
    #[tokio] applying_the_extension_twice_changes_nothing if experimental_server,
    #[tokio] removing_the_extension_restores_the_upstream_schemas if experimental_server,
    #[tokio] the_safe_upgrades_admission_policy_admits_the_patches if experimental_server,
    #[tokio] reinstalling_the_upstream_crds_is_seen_as_a_removal if experimental_server,
    #[tokio] the_runtime_says_whether_the_route_crds_declare_the_field if experimental_server,
    the_printed_patch_of_every_release_and_channel_fits_its_upstream_manifests if release_trees,
}

/// Held by every test that patches the experimental server's CRDs.
static EXPERIMENTAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The release tree the test servers install (`config/crd/<channel>/`).
fn crd_dir(channel: Channel) -> std::path::PathBuf {
    let root = gamma_testenv::upstream::v1_6_1().expect("the v1.6.1 tree (the testenv has it)");
    std::path::Path::new(&root)
        .join("config/crd")
        .join(channel.as_str())
}

/// The upstream manifest of a CRD, as JSON, in the form a CRD read from the API server has
/// (through k8s-openapi's types, which write `maximum: 65535` as `65535.0`).
fn upstream_crd(channel: Channel, name: &str) -> Value {
    let (plural, group) = name.split_once('.').unwrap();
    let file = crd_dir(channel).join(format!("{group}_{plural}.yaml"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
    let crd: CustomResourceDefinition = serde_saphyr::from_str(&text).unwrap();
    serde_json::to_value(crd).unwrap()
}

/// A route of `kind` with one Service parent naming `controllers`, valid under v1.6.1 (the
/// kinds that need rules have one).
fn route(kind: ResourceKind, namespace: &str, name: &str, controllers: &[&str]) -> Value {
    let mut spec = json!({"parentRefs": [{
        "group": "", "kind": "Service", "name": "web", "port": 80, "controllers": controllers,
    }]});
    match kind {
        ResourceKind::TlsRoute => {
            spec["hostnames"] = json!(["web.example.com"]);
            spec["rules"] = json!([{"backendRefs": [{"name": "web", "port": 443}]}]);
        }
        ResourceKind::TcpRoute | ResourceKind::UdpRoute => {
            spec["rules"] = json!([{"backendRefs": [{"name": "web", "port": 80}]}]);
        }
        _ => {}
    }
    json!({
        "apiVersion": kind.api_versions()[0], "kind": kind.as_str(),
        "metadata": {"name": name, "namespace": namespace}, "spec": spec,
    })
}

fn routes_api(
    client: &kube::Client,
    kind: ResourceKind,
    api_version: &str,
    ns: &str,
) -> Api<DynamicObject> {
    Api::namespaced_with(client.clone(), ns, &api_resource(kind, api_version))
}

/// How a write treats unknown fields: the API server's `fieldValidation`.
#[derive(Clone, Copy)]
enum Fields {
    Strict,
    Warn,
}

/// Creates `object` (of `kind`, at its `apiVersion`) in `ns`, with `fields` validation; a
/// server-side dry run with `dry_run` (nothing stored).
async fn create(
    client: &kube::Client,
    ns: &str,
    object: &Value,
    fields: Fields,
    dry_run: bool,
) -> Result<Value, kube::Error> {
    let kind = ResourceKind::from_kind_name(object["kind"].as_str().unwrap()).unwrap();
    let url = collection(kind, object["apiVersion"].as_str().unwrap(), ns);
    let params = PostParams {
        dry_run,
        ..PostParams::default()
    };
    let request = kube::core::Request::new(url)
        .create(&params, serde_json::to_vec(object).unwrap())
        .unwrap();
    send(client, request, fields).await
}

/// Replaces the status of `object` (as stored: with its resourceVersion), strictly.
async fn replace_status(
    client: &kube::Client,
    ns: &str,
    object: &Value,
) -> Result<Value, kube::Error> {
    let kind = ResourceKind::from_kind_name(object["kind"].as_str().unwrap()).unwrap();
    let url = collection(kind, object["apiVersion"].as_str().unwrap(), ns);
    let name = object["metadata"]["name"].as_str().unwrap();
    let request = kube::core::Request::new(url)
        .replace_subresource(
            "status",
            name,
            &PostParams::default(),
            serde_json::to_vec(object).unwrap(),
        )
        .unwrap();
    send(client, request, Fields::Strict).await
}

fn collection(kind: ResourceKind, api_version: &str, ns: &str) -> String {
    let ar = api_resource(kind, api_version);
    format!(
        "/apis/{}/{}/namespaces/{ns}/{}",
        ar.group, ar.version, ar.plural
    )
}

async fn send(
    client: &kube::Client,
    mut request: http::Request<Vec<u8>>,
    fields: Fields,
) -> Result<Value, kube::Error> {
    let uri = request.uri().to_string();
    let sep = if uri.contains('?') { '&' } else { '?' };
    let mode = match fields {
        Fields::Strict => "Strict",
        Fields::Warn => "Warn",
    };
    *request.uri_mut() = format!("{uri}{sep}fieldValidation={mode}").parse().unwrap();
    let text = client.request_text(request).await?;
    Ok(serde_json::from_str(&text).unwrap())
}

async fn create_namespace(client: &kube::Client, name: &str) {
    let api: Api<DynamicObject> =
        Api::all_with(client.clone(), &api_resource(ResourceKind::Namespace, "v1"));
    let ns: DynamicObject = serde_json::from_value(
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}),
    )
    .unwrap();
    api.create(&PostParams::default(), &ns).await.unwrap();
}

/// The route kinds whose CRD `client`'s server has installed, each at its newest served version.
async fn installed_routes(client: &kube::Client) -> Vec<(ResourceKind, String)> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut out = Vec::new();
    for (kind, name) in ROUTE_CRDS {
        if let Some(crd) = api.get_opt(name).await.unwrap()
            && let Some((k, version)) = gamma_kube::kinds::of_crd(&crd)
        {
            assert_eq!(k, kind);
            out.push((kind, version.to_owned()));
        }
    }
    assert!(!out.is_empty());
    out
}

/// Every served version of a route CRD, by name.
async fn served_versions(client: &kube::Client, crd: &str) -> Vec<String> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let crd = api.get(crd).await.unwrap();
    crd.spec
        .versions
        .iter()
        .filter(|v| v.served)
        .map(|v| format!("{}/{}", crd.spec.group, v.name))
        .collect()
}

async fn crd_json(client: &kube::Client, name: &str) -> Value {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    serde_json::to_value(api.get(name).await.unwrap()).unwrap()
}

/// Waits until the API server serves `kind` with the field declared: a CRD change reaches the
/// handlers of every version shortly after it is stored, not with the write.
async fn until_declared(client: &kube::Client, namespace: &str, kind: ResourceKind, version: &str) {
    let probe = format!("probe-{}", kind.as_str().to_lowercase());
    let mut object = route(kind, namespace, &probe, &["example.net/probe"]);
    object["apiVersion"] = version.into();
    eventually(30, "the field declared in the serving schema", || async {
        create(client, namespace, &object, Fields::Strict, true)
            .await
            .ok()
            .map(|_| ())
    })
    .await;
}

// Without the extension (the upstream CRDs), `controllers` is an unknown field: refused by a
// strict create (kubectl's default), pruned from a lenient one, and the cluster reads as not
// declaring it.
async fn without_the_extension_a_strict_create_with_controllers_is_refused_and_a_lenient_one_pruned()
 {
    let env = gamma_testenv::server(Channel::Standard);
    let client = client(env).await;
    let ns = env.namespace_name("no-extension");
    create_namespace(&client, &ns).await;
    let crds = crd_extension::read(&client).await.unwrap();
    assert!(
        matches!(Availability::of(&crds), Availability::NotDeclared { ref lacking } if !lacking.is_empty()),
        "{:?}",
        Availability::of(&crds)
    );
    // `list_all` (what `gammactl --kubeconfig` reads) says the same
    let listed = gamma_kube::list::list_all(&client).await.unwrap();
    assert_eq!(listed.parent_ref_controllers, Availability::of(&crds));
    for (kind, version) in installed_routes(&client).await {
        let name = kind.as_str().to_lowercase();
        let mut object = route(kind, &ns, &name, &["linkerd.io/policy-controller"]);
        object["apiVersion"] = version.clone().into();
        let refused = create(&client, &ns, &object, Fields::Strict, false)
            .await
            .unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("unknown field \"spec.parentRefs[0].controllers\""),
            "{kind}: {refused}"
        );
        let stored = create(&client, &ns, &object, Fields::Warn, false)
            .await
            .unwrap();
        assert!(
            stored["spec"]["parentRefs"][0].get("controllers").is_none(),
            "{kind}: {stored}"
        );
    }
}

// The install patch declares the field in every served version of every route CRD: a strict
// create with `controllers` succeeds at each of them, the field round-trips (spec and status),
// and the cluster reads as declaring it.
async fn with_the_extension_a_strict_create_keeps_controllers_at_every_served_version() {
    let env = gamma_testenv::server(Channel::Experimental);
    let _one_at_a_time = EXPERIMENTAL.lock().await;
    let client = client(env).await;
    let ns = env.namespace_name("extension");
    create_namespace(&client, &ns).await;
    let applied = crd_extension::apply(&client, Direction::Install, false)
        .await
        .unwrap();
    assert_eq!(applied.len(), installed_routes(&client).await.len());
    assert!(Availability::of(applied.iter().map(|a| &a.state)).is_declared());
    assert!(Availability::of(&crd_extension::read(&client).await.unwrap()).is_declared());
    let listed = gamma_kube::list::list_all(&client).await.unwrap();
    assert!(listed.parent_ref_controllers.is_declared());
    for (kind, name) in ROUTE_CRDS {
        let versions = served_versions(&client, name).await;
        for api_version in versions {
            until_declared(&client, &ns, kind, &api_version).await;
            let object_name = format!(
                "{}-{}",
                kind.as_str().to_lowercase(),
                api_version.rsplit('/').next().unwrap()
            );
            let mut object = route(
                kind,
                &ns,
                &object_name,
                &[
                    "linkerd.io/policy-controller",
                    "istio.io/gateway-controller",
                ],
            );
            object["apiVersion"] = api_version.clone().into();
            let created = create(&client, &ns, &object, Fields::Strict, false)
                .await
                .unwrap_or_else(|e| panic!("{kind} {api_version}: {e}"));
            assert_eq!(
                created["spec"]["parentRefs"][0]["controllers"],
                object["spec"]["parentRefs"][0]["controllers"],
                "{kind} {api_version}"
            );
            // status: parents[].parentRef carries it too
            let mut with_status = created.clone();
            with_status["status"] = json!({"parents": [{
                "parentRef": object["spec"]["parentRefs"][0],
                "controllerName": "linkerd.io/policy-controller",
                "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted",
                                "message": "", "lastTransitionTime": "2026-01-05T10:00:00Z",
                                "observedGeneration": 1}],
            }]});
            let stored = replace_status(&client, &ns, &with_status)
                .await
                .unwrap_or_else(|e| panic!("{kind} {api_version} status: {e}"));
            assert_eq!(
                stored["status"]["parents"][0]["parentRef"]["controllers"],
                object["spec"]["parentRefs"][0]["controllers"],
                "{kind} {api_version}"
            );
            // and gamma-model decodes what the server stored
            let api = routes_api(&client, kind, &api_version, &ns);
            let decoded =
                gamma_kube::watches::decode_object(kind, "", api.get(&object_name).await.unwrap())
                    .unwrap();
            let parent = &decoded.as_route().unwrap().parent_refs[0];
            assert_eq!(
                parent.controllers.as_deref(),
                Some(
                    &[
                        "linkerd.io/policy-controller".to_owned(),
                        "istio.io/gateway-controller".to_owned()
                    ][..]
                )
            );
        }
    }
    // What the server refuses inside the field is what gamma-model's validation refuses: the
    // schema is generated from gamma-model's.
    for bad in [
        vec!["not-a-controller-name".to_owned()],
        vec!["a.io/x".to_owned(), "a.io/x".to_owned()],
        (0..17).map(|i| format!("example.net/c{i}")).collect(),
    ] {
        let list: Vec<&str> = bad.iter().map(String::as_str).collect();
        let object = route(ResourceKind::HttpRoute, &ns, "bad", &list);
        let model = gamma_model::AnyResource::from_value(object.clone()).unwrap();
        assert!(gamma_model::Validate::validate(&model).is_err(), "{bad:?}");
        let refused = create(&client, &ns, &object, Fields::Strict, true).await;
        assert!(refused.is_err(), "{bad:?}");
    }
}

// Applying the extension twice changes nothing: the second `apply` sends no patch, and the
// printed patch sent again (JSON patch `add` replaces a member that exists) makes the API
// server store nothing: same resourceVersion and generation.
async fn applying_the_extension_twice_changes_nothing() {
    let env = gamma_testenv::server(Channel::Experimental);
    let _one_at_a_time = EXPERIMENTAL.lock().await;
    let client = client(env).await;
    crd_extension::apply(&client, Direction::Install, false)
        .await
        .unwrap();
    let before: Vec<Value> =
        futures::future::join_all(ROUTE_CRDS.iter().map(|(_, n)| crd_json(&client, n))).await;
    let again = crd_extension::apply(&client, Direction::Install, false)
        .await
        .unwrap();
    assert!(again.iter().all(|a| a.patch.is_empty()), "{again:?}");
    // the offline patch of this release and channel, as `gammactl crd-extension controllers`
    // prints it, sent to an already extended cluster
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in crd_extension::upstream_crds(Bundle::new(Release::V1_6, ModelChannel::Experimental))
    {
        let patch = crd.patch(Direction::Install).unwrap();
        let patch: json_patch::Patch =
            serde_json::from_value(serde_json::to_value(&patch).unwrap()).unwrap();
        api.patch(
            &crd.name,
            &PatchParams::default(),
            &Patch::Json::<()>(patch),
        )
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", crd.name));
    }
    let after: Vec<Value> =
        futures::future::join_all(ROUTE_CRDS.iter().map(|(_, n)| crd_json(&client, n))).await;
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(
            b["metadata"]["resourceVersion"],
            a["metadata"]["resourceVersion"]
        );
        assert_eq!(b["metadata"]["generation"], a["metadata"]["generation"]);
    }
}

// The inverse patch (`--remove`) restores every route CRD's schemas to the upstream manifest's,
// and removes the annotation; a strict create with `controllers` is refused again. Removing
// twice changes nothing.
async fn removing_the_extension_restores_the_upstream_schemas() {
    let env = gamma_testenv::server(Channel::Experimental);
    let _one_at_a_time = EXPERIMENTAL.lock().await;
    let client = client(env).await;
    crd_extension::apply(&client, Direction::Install, false)
        .await
        .unwrap();
    let removed = crd_extension::apply(&client, Direction::Remove, false)
        .await
        .unwrap();
    assert!(removed.iter().all(|a| !a.patch.is_empty()));
    for (_, name) in ROUTE_CRDS {
        let live = crd_json(&client, name).await;
        let upstream = upstream_crd(Channel::Experimental, name);
        let schemas = |crd: &Value| -> Vec<Value> {
            crd["spec"]["versions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["schema"].clone())
                .collect()
        };
        assert_eq!(schemas(&live), schemas(&upstream), "{name}");
        assert!(
            live["metadata"]["annotations"]
                .get(EXTENSION_ANNOTATION)
                .is_none()
        );
    }
    let again = crd_extension::apply(&client, Direction::Remove, false)
        .await
        .unwrap();
    assert!(again.iter().all(|a| a.patch.is_empty()), "{again:?}");
    let ns = env.namespace_name("removed");
    create_namespace(&client, &ns).await;
    let object = route(ResourceKind::HttpRoute, &ns, "r", &["a.io/x"]);
    eventually(30, "the field undeclared in the serving schema", || async {
        create(&client, &ns, &object, Fields::Strict, true)
            .await
            .err()
            .map(|_| ())
    })
    .await;
}

// The bundle's `safe-upgrades` ValidatingAdmissionPolicy (installed from the release, and
// checked to be enforcing) admits the install and the remove patches: they keep the
// bundle-version and channel annotations it reads.
async fn the_safe_upgrades_admission_policy_admits_the_patches() {
    let env = gamma_testenv::server(Channel::Experimental);
    let _one_at_a_time = EXPERIMENTAL.lock().await;
    let client = client(env).await;
    let text = std::fs::read_to_string(
        crd_dir(Channel::Experimental).join("gateway.networking.k8s.io_vap_safeupgrades.yaml"),
    )
    .unwrap();
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    let mut created = Vec::new();
    for doc in docs {
        let kind = doc["kind"].as_str().unwrap().to_owned();
        let ar = kube::core::ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk(
            "admissionregistration.k8s.io",
            "v1",
            &kind,
        ));
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &ar);
        let object: DynamicObject = serde_json::from_value(doc.clone()).unwrap();
        api.create(&PostParams::default(), &object).await.unwrap();
        created.push((api, object.metadata.name.unwrap()));
    }
    // enforcing: a patch dropping the bundle-version annotation is refused
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let drop_bundle: json_patch::Patch = serde_json::from_value(json!([{
        "op": "remove", "path": "/metadata/annotations/gateway.networking.k8s.io~1bundle-version"
    }]))
    .unwrap();
    let dry = PatchParams {
        dry_run: true,
        ..PatchParams::default()
    };
    eventually(30, "the safe-upgrades policy enforcing", || async {
        match crds
            .patch(
                ROUTE_CRDS[0].1,
                &dry,
                &Patch::Json::<()>(drop_bundle.clone()),
            )
            .await
        {
            Err(e) if e.to_string().contains("safe-upgrades") => Some(()),
            _ => None,
        }
    })
    .await;
    let installed = crd_extension::apply(&client, Direction::Install, false).await;
    let removed = crd_extension::apply(&client, Direction::Remove, false).await;
    for (api, name) in created.into_iter().rev() {
        api.delete(&name, &Default::default()).await.unwrap();
    }
    let installed = installed.unwrap();
    assert!(
        installed.iter().all(|a| a.state.declares()),
        "{installed:?}"
    );
    let removed = removed.unwrap();
    assert!(removed.iter().all(|a| !a.state.declares()), "{removed:?}");
}

// Reinstalling the upstream CRDs as `kubectl apply --server-side --force-conflicts` does (a
// Gateway API upgrade) replaces `spec.versions`, which removes the field, and leaves the
// annotation, which the manifest does not name: the cluster reads as `Removed`, not as never
// extended; and a route stored with `controllers` reads without it.
async fn reinstalling_the_upstream_crds_is_seen_as_a_removal() {
    let env = gamma_testenv::server(Channel::Experimental);
    let _one_at_a_time = EXPERIMENTAL.lock().await;
    let client = client(env).await;
    let ns = env.namespace_name("reinstalled");
    create_namespace(&client, &ns).await;
    crd_extension::apply(&client, Direction::Install, false)
        .await
        .unwrap();
    let version = "gateway.networking.k8s.io/v1";
    until_declared(&client, &ns, ResourceKind::HttpRoute, version).await;
    let api = routes_api(&client, ResourceKind::HttpRoute, version, &ns);
    let object = route(
        ResourceKind::HttpRoute,
        &ns,
        "r",
        &["linkerd.io/policy-controller"],
    );
    create(&client, &ns, &object, Fields::Strict, false)
        .await
        .unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let name = ROUTE_CRDS[0].1;
    let manifest = upstream_crd(Channel::Experimental, name);
    let params = PatchParams::apply("kubectl").force();
    crds.patch(name, &params, &Patch::Apply(&manifest))
        .await
        .unwrap();
    let states = crd_extension::read(&client).await.unwrap();
    let http = states.iter().find(|c| c.name == name).unwrap();
    assert!(http.annotated && !http.declares(), "{http:?}");
    match Availability::of(&states) {
        Availability::Removed { annotated, lacking } => {
            assert_eq!(annotated, vec![name.to_owned()]);
            assert!(lacking.iter().all(|l| l.starts_with(name)), "{lacking:?}");
        }
        other => panic!("{other:?}"),
    }
    let read = eventually(30, "the field pruned on read", || async {
        let o = api.get("r").await.unwrap();
        o.data["spec"]["parentRefs"][0]
            .get("controllers")
            .is_none()
            .then_some(o)
    })
    .await;
    assert_eq!(read.data["spec"]["parentRefs"][0]["name"], "web");
    // installing again brings the field back
    crd_extension::apply(&client, Direction::Install, false)
        .await
        .unwrap();
    assert!(Availability::of(&crd_extension::read(&client).await.unwrap()).is_declared());
}

// The runtime reads from the CRDs whether the field is declared: on the upstream CRDs it says
// so (state, and the gauge at 0; level 1 then reads only the route annotation, which
// gamma-controller's tests check); installing the extension while it runs turns the gauge to 1.
async fn the_runtime_says_whether_the_route_crds_declare_the_field() {
    let env = gamma_testenv::server(Channel::Experimental);
    let _one_at_a_time = EXPERIMENTAL.lock().await;
    let client = client(env).await;
    crd_extension::apply(&client, Direction::Remove, false)
        .await
        .unwrap();
    let config = common::sample_config();
    let me = Identity::of_mesh(&config, "linkerd").unwrap();
    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = gamma_kube::metrics::Metrics::register(&mut registry);
    let mut run_config = RunConfig::new(ReconcilerConfig::new(config, me));
    run_config.metrics = metrics.clone();
    let runtime = Runner::new(run_config, client.clone());
    let mut state = runtime.state();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(runtime.run(async move {
        let _ = stopped.await;
    }));
    until(&mut state, 60, "ready, the field undeclared", |s| {
        s.ready
            && matches!(
                s.parent_ref_controllers,
                Some(Availability::NotDeclared { .. })
            )
    })
    .await;
    assert_eq!(metrics.parent_ref_controllers_declared.get(), 0);
    crd_extension::apply(&client, Direction::Install, false)
        .await
        .unwrap();
    until(&mut state, 60, "the field declared", |s| {
        s.parent_ref_controllers == Some(Availability::Declared)
    })
    .await;
    assert_eq!(metrics.parent_ref_controllers_declared.get(), 1);
    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(30), task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    assert!(
        text.contains("gamma_parent_ref_controllers_declared 1"),
        "{text}"
    );
}

/// Every route CRD manifest of `channel` in release tree `dir`, as JSON, by CRD name.
fn manifests(dir: &std::path::Path, channel: ModelChannel) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (_, name) in ROUTE_CRDS {
        let (plural, group) = name.split_once('.').unwrap();
        let file = dir
            .join("config/crd")
            .join(channel.as_str())
            .join(format!("{group}_{plural}.yaml"));
        if let Ok(text) = std::fs::read_to_string(&file) {
            out.push((name.to_owned(), serde_saphyr::from_str(&text).unwrap()));
        }
    }
    out
}

// The patch printed without a cluster (`gammactl crd-extension controllers`, from gamma-model's
// table of served versions) is the one read from each release's own manifests, for every
// supported release and channel: the same CRDs, versions, indices and served flags. Applied
// to the manifest (RFC 6902, in process) it declares the field in every served version, a
// second application changes nothing, and the inverse gives the manifest back.
fn the_printed_patch_of_every_release_and_channel_fits_its_upstream_manifests() {
    let trees = gamma_testenv::upstream::all_trees().expect("the test's precondition");
    let apply = |doc: &Value, ops: &[crd_extension::PatchOp]| -> Value {
        let patch: json_patch::Patch =
            serde_json::from_value(serde_json::to_value(ops).unwrap()).unwrap();
        let mut doc = doc.clone();
        json_patch::patch(&mut doc, &patch).unwrap();
        doc
    };
    for (version, dir) in trees {
        let release = Release::parse(version).unwrap();
        for channel in [ModelChannel::Standard, ModelChannel::Experimental] {
            let offline = crd_extension::upstream_crds(Bundle::new(release, channel));
            let files = manifests(&dir, channel);
            let names = |v: Vec<&String>| v.into_iter().cloned().collect::<Vec<String>>();
            assert_eq!(
                names(offline.iter().map(|c| &c.name).collect()),
                names(files.iter().map(|(n, _)| n).collect()),
                "{version} {channel:?}"
            );
            for (printed, (name, manifest)) in offline.iter().zip(&files) {
                let mut read = crd_extension::CrdState::from_crd(manifest).unwrap();
                assert_eq!(
                    read.bundle_version.as_deref(),
                    Some(version),
                    "{name} {version}"
                );
                read.bundle_version = None;
                assert_eq!(printed, &read, "{name} {version} {channel:?}");
                let install = printed.patch(Direction::Install).unwrap();
                let once = apply(manifest, &install);
                let state = crd_extension::CrdState::from_crd(&once).unwrap();
                assert!(state.declares() && state.annotated, "{name} {version}");
                assert!(
                    state
                        .versions
                        .iter()
                        .filter(|v| v.served)
                        .all(|v| v.spec == crd_extension::FieldState::Current
                            && v.status == crd_extension::FieldState::Current),
                    "{name} {version}: {state:?}"
                );
                let mut unversioned = state.clone();
                unversioned.bundle_version = None;
                assert_eq!(
                    unversioned,
                    printed.after(Direction::Install),
                    "{name} {version}"
                );
                assert_eq!(apply(&once, &install), once, "{name} {version}: twice");
                assert!(state.patch(Direction::Install).unwrap().is_empty());
                let remove = printed
                    .after(Direction::Install)
                    .patch(Direction::Remove)
                    .unwrap();
                assert_eq!(
                    apply(&once, &remove),
                    *manifest,
                    "{name} {version}: removed"
                );
            }
        }
    }
}
