//! Each kind judged under what its own CRD declares, on a real Kubernetes API server
//! (tools/kube-testenv): the Gateway API v1.6.1 CRDs (experimental channel) with HTTPRoute's
//! replaced by v1.7.0's. The API server stores an HTTPRoute with `retry.attempts: 0` (v1.7's
//! minimum; v1.6's is 1) and a GRPCRoute with v1.6's session persistence (`sessionName`;
//! v1.7 requires `cookie` for the Cookie type), and refuses v1.7's `cookie` on the GRPCRoute.
//! The runtime judges each kind by its own CRD's bundle ([`gamma_kube::bundle::Crds::kinds`]),
//! so it accepts both routes, where one bundle for every kind would refuse one of them
//! (gamma-resolve's tests/kind_bundles.rs); it exports the kinds judged by another bundle than
//! the default. Beside it, without a
//! server: the same CRDs, as observed, give that map.

mod common;

use common::*;
use gamma_arbiter::Identity;
use gamma_kube::metrics::Metrics;
use gamma_model::ResourceKind;
use gamma_model::validate::{Bundle, Channel, KindBundles, Release};
use gamma_testenv::TestEnv;
use gamma_testenv::harness::{experimental_server, release_trees};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::PostParams;
use serde_json::{Value, json};

gamma_testenv::test_main! {
    #[tokio] each_route_kind_is_judged_by_its_own_crds_bundle_on_a_real_api_server
        if release_trees && experimental_server,
    the_crds_of_two_releases_give_each_kind_its_own_bundle if release_trees,
}

const ISTIO: &str = "istio.io/gateway-controller";
const V1_6: Bundle = Bundle::new(Release::V1_6, Channel::Experimental);
const V1_7: Bundle = Bundle::new(Release::V1_7, Channel::Experimental);
const HTTPROUTES: &str = "gateway.networking.k8s.io_httproutes.yaml";

/// The experimental CRD documents of release `release`.
fn crds_of(release: Release) -> Vec<Value> {
    let tree = gamma_testenv::upstream::release_tree(release.reference_patch())
        .unwrap_or_else(|e| panic!("{e}"));
    crd_documents(&tree.join("config/crd/experimental"))
}

/// The v1.7.0 HTTPRoute CRD.
fn v1_7_httproutes() -> Vec<Value> {
    let tree = gamma_testenv::upstream::release_tree(V1_7.release.reference_patch())
        .unwrap_or_else(|e| panic!("{e}"));
    let text =
        std::fs::read_to_string(tree.join("config/crd/experimental").join(HTTPROUTES)).unwrap();
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .filter(|d| d["kind"] == "CustomResourceDefinition")
        .collect()
}

/// The map the runtime must come to: v1.7 (HTTPRoute's, the default) with every other kind of
/// the v1.6 CRDs gamma-rs reads at v1.6.
fn expected(crds: &[CustomResourceDefinition]) -> KindBundles {
    let mut kinds = KindBundles::new(V1_7);
    for crd in crds {
        if let Some((kind, _)) = gamma_kube::kinds::of_crd(crd)
            && kind != ResourceKind::HttpRoute
        {
            kinds.set(kind, V1_6);
        }
    }
    kinds
}

fn typed(docs: &[Value]) -> Vec<CustomResourceDefinition> {
    docs.iter()
        .map(|d| serde_json::from_value(d.clone()).unwrap())
        .collect()
}

fn the_crds_of_two_releases_give_each_kind_its_own_bundle() {
    let mut old = typed(&crds_of(V1_6.release));
    let new = typed(&v1_7_httproutes());
    old.retain(|c| c.metadata.name != new[0].metadata.name);
    let all: Vec<CustomResourceDefinition> = old.iter().chain(&new).cloned().collect();
    let mut forward = gamma_kube::bundle::Crds::default();
    for c in &all {
        forward.observe(c);
    }
    let mut backward = gamma_kube::bundle::Crds::default();
    for c in all.iter().rev() {
        backward.observe(c);
    }
    let kinds = forward.kinds().unwrap();
    assert_eq!(Some(&kinds), backward.kinds().as_ref(), "any order");
    assert_eq!(kinds, expected(&all));
    assert_eq!(kinds.of(ResourceKind::HttpRoute), V1_7);
    assert_eq!(kinds.of(ResourceKind::GrpcRoute), V1_6);
    assert_eq!(kinds.of(ResourceKind::Gateway), V1_6);
}

fn grpc_route(ns: &str, name: &str, session: Value) -> Value {
    json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GRPCRoute",
           "metadata": {"name": name, "namespace": ns},
           "spec": {"parentRefs": [{"group": "", "kind": "Service", "name": "rpc", "port": 80}],
                    "rules": [{"sessionPersistence": session,
                               "backendRefs": [{"name": "back", "port": 80}]}]}})
}

/// `Accepted` of istio's entry for `parent` on the route.
async fn accepted(
    client: &kube::Client,
    kind: ResourceKind,
    ns: &str,
    name: &str,
    parent: &str,
) -> Option<String> {
    let r = get_route(client, kind, ns, name).await?;
    condition(&r, ISTIO, parent, "Accepted")
}

async fn each_route_kind_is_judged_by_its_own_crds_bundle_on_a_real_api_server() {
    let env = TestEnv::start_release(
        V1_6.release.reference_patch(),
        gamma_testenv::Channel::Experimental,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let client = client(&env).await;
    install_over(&client, &v1_7_httproutes()).await;
    let ns = env.namespace_name("kinds");
    create_value(&client, namespace(&ns, json!({"gamma.rs/mesh": "istio"}))).await;
    for s in ["web", "rpc", "back"] {
        create_value(&client, service(&ns, s)).await;
    }
    // v1.7's HTTPRoute CRD: retries disabled with `attempts: 0`.
    let retries = json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
        "metadata": {"name": "no-retries", "namespace": ns},
        "spec": {"parentRefs": [{"group": "", "kind": "Service", "name": "web", "port": 80}],
                 "rules": [{"retry": {"attempts": 0}, "backendRefs": [{"name": "back", "port": 80}]}]}});
    let created = eventually(60, "the v1.7 HTTPRoute CRD served", || {
        let client = client.clone();
        let retries = retries.clone();
        async move {
            let api = api_of(&client, ResourceKind::HttpRoute, Some(&ns_of(&retries)));
            api.create(
                &PostParams::default(),
                &serde_json::from_value(retries).unwrap(),
            )
            .await
            .ok()
        }
    })
    .await;
    assert_eq!(created.data["spec"]["rules"][0]["retry"]["attempts"], 0);
    // v1.6's GRPCRoute CRD: the session cookie in v1.6's shape is stored, v1.7's `cookie` is
    // not declared: pruned (the request names no field validation: the server's default).
    create_value(
        &client,
        grpc_route(&ns, "sticky", json!({"type": "Cookie", "sessionName": "s"})),
    )
    .await;
    let pruned = create_value(
        &client,
        grpc_route(
            &ns,
            "v1-7-cookie",
            json!({"type": "Cookie", "cookie": {"name": "s"}}),
        ),
    )
    .await;
    let stored = &pruned.data["spec"]["rules"][0]["sessionPersistence"];
    assert!(stored.get("cookie").is_none(), "{stored}");

    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = Metrics::register(&mut registry);
    let run_metrics = metrics.clone();
    let me = Identity::of_mesh(&sample_config(), "istio").unwrap();
    let mut running = Running::ready(&client, &sample_config(), me, move |c| {
        c.metrics = run_metrics;
    })
    .await;
    let listed = gamma_kube::list::list_all(&client).await.unwrap();
    let want = listed.kind_bundles.clone().unwrap();
    assert_eq!(want.of(ResourceKind::HttpRoute), V1_7);
    assert_eq!(want.of(ResourceKind::GrpcRoute), V1_6);
    until(&mut running.state, 30, "each kind's bundle", |s| {
        s.kinds.as_ref() == Some(&want)
    })
    .await;
    for (kind, name, parent) in [
        (ResourceKind::HttpRoute, "no-retries", "web"),
        (ResourceKind::GrpcRoute, "sticky", "rpc"),
    ] {
        eventually(60, &format!("{kind} {name} accepted"), || async {
            (accepted(&client, kind, &ns, name, parent).await.as_deref() == Some("True"))
                .then_some(())
        })
        .await;
    }
    // (One bundle for every kind would refuse one of them: gamma-resolve's
    // tests/kind_bundles.rs builds the same two routes under each.)
    // Exported per kind where it differs from the default.
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    assert!(
        text.contains(
            "gamma_gateway_api_kind_bundle_info{kind=\"GRPCRoute\",release=\"v1.6\",channel=\"experimental\"} 1"
        ),
        "{text}"
    );
    assert!(
        !text.contains("gamma_gateway_api_kind_bundle_info{kind=\"HTTPRoute\""),
        "{text}"
    );
    let state = running.state.borrow().clone();
    assert_eq!(state.bundle, Some(V1_7));
    running.stop().await;
}

fn ns_of(v: &Value) -> String {
    v["metadata"]["namespace"].as_str().unwrap().to_owned()
}
