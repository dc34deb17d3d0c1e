//! `gammactl --kubeconfig` judges each kind under what its own CRD declares, as gamma-kube's
//! runtime does (docs/kube.md, "Mixed bundles"): on a real API server (tools/kube-testenv)
//! with the Gateway API v1.6.1 CRDs (experimental channel) and HTTPRoute's replaced by
//! v1.7.0's, an HTTPRoute with `retry.attempts: 0` (v1.7) and a GRPCRoute with v1.6's session
//! persistence (`sessionName`) are both stored, and `validate` finds both valid, naming the
//! kinds judged by another bundle than the HTTPRoute CRD's; `--bundle-version v1.7` still sets
//! one bundle for every kind, under which the GRPCRoute is invalid. Reported ignored (with the
//! reason) when Go is absent, unless GAMMA_REQUIRE_TESTENV=1.

mod common;

use common::run;
use gamma_mesh::cluster::kinds::api_resource;
use gamma_mesh::model::ResourceKind;
use gamma_testenv::harness::{experimental_server, release_trees};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
use serde_json::{Value, json};

gamma_testenv::test_main! {
    #[tokio] a_cluster_of_two_bundles_is_judged_kind_by_kind if release_trees && experimental_server,
}

const HTTPROUTES: &str = "gateway.networking.k8s.io_httproutes.yaml";

async fn create(client: &kube::Client, value: Value) {
    let kind = ResourceKind::from_kind_name(value["kind"].as_str().unwrap()).unwrap();
    let ar = api_resource(kind, value["apiVersion"].as_str().unwrap());
    let api: Api<DynamicObject> = match value["metadata"]["namespace"].as_str() {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &ar),
        None => Api::all_with(client.clone(), &ar),
    };
    let object: DynamicObject = serde_json::from_value(value).unwrap();
    // a CRD just replaced takes a moment to serve its new schema
    for _ in 0..40 {
        if api.create(&PostParams::default(), &object).await.is_ok() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    panic!("{object:?} not created");
}

async fn a_cluster_of_two_bundles_is_judged_kind_by_kind() {
    let env = gamma_testenv::TestEnv::start_release("v1.6.1", gamma_testenv::Channel::Experimental)
        .unwrap_or_else(|e| panic!("{e}"));
    let client = gamma_mesh::cluster::list::connect(Some(env.kubeconfig()), None)
        .await
        .unwrap();
    // HTTPRoute's CRD of v1.7.0 over v1.6.1's
    let tree = gamma_testenv::upstream::release_tree("v1.7.0").unwrap_or_else(|e| panic!("{e}"));
    let text =
        std::fs::read_to_string(tree.join("config/crd/experimental").join(HTTPROUTES)).unwrap();
    let crd: Value = serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .find(|d| d["kind"] == "CustomResourceDefinition")
        .unwrap();
    let crds: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &ApiResource::from_gvk(&GroupVersionKind::gvk(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
        )),
    );
    let name = crd["metadata"]["name"].as_str().unwrap();
    let current = crds.get(name).await.unwrap();
    let mut crd: DynamicObject = serde_json::from_value(crd.clone()).unwrap();
    crd.metadata.resource_version = current.metadata.resource_version;
    crds.replace(name, &PostParams::default(), &crd)
        .await
        .unwrap();

    let ns = "kinds";
    create(
        &client,
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
    )
    .await;
    for s in ["web", "rpc"] {
        create(
            &client,
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": s, "namespace": ns},
                   "spec": {"ports": [{"port": 80}]}}),
        )
        .await;
    }
    create(
        &client,
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
               "metadata": {"name": "no-retries", "namespace": ns},
               "spec": {"parentRefs": [{"group": "", "kind": "Service", "name": "web", "port": 80}],
                        "rules": [{"retry": {"attempts": 0},
                                   "backendRefs": [{"name": "web", "port": 80}]}]}}),
    )
    .await;
    create(
        &client,
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GRPCRoute",
               "metadata": {"name": "sticky", "namespace": ns},
               "spec": {"parentRefs": [{"group": "", "kind": "Service", "name": "rpc", "port": 80}],
                        "rules": [{"sessionPersistence": {"type": "Cookie", "sessionName": "s"},
                                   "backendRefs": [{"name": "rpc", "port": 80}]}]}}),
    )
    .await;

    let kubeconfig = env.kubeconfig().to_str().unwrap();
    let each = run(&["validate", "--kubeconfig", kubeconfig, "-o", "json"]);
    assert_eq!(each.code, 0, "{}\n{}", each.stdout, each.stderr);
    let report: Value = serde_json::from_str(&each.stdout).unwrap();
    assert_eq!(
        report["gatewayApi"], "v1.7",
        "the HTTPRoute CRD's: {report}"
    );
    assert_eq!(report["errors"], 0, "{report}");
    let kinds = report["kinds"].as_array().unwrap();
    assert!(
        kinds.contains(
            &json!({"kind": "GRPCRoute", "gatewayApi": "v1.6", "channel": "experimental"})
        ),
        "{kinds:?}"
    );
    assert!(!kinds.iter().any(|k| k["kind"] == "HTTPRoute"), "{kinds:?}");
    assert!(
        each.stderr.contains("its kind is judged under the former"),
        "{}",
        each.stderr
    );
    // One bundle for every kind, as the flag says: v1.7's rules refuse v1.6's session cookie.
    let one = run(&[
        "validate",
        "--kubeconfig",
        kubeconfig,
        "-q",
        "--bundle-version",
        "v1.7",
    ]);
    assert_eq!(one.code, 1, "{}", one.stdout);
    assert!(
        one.stdout.contains("GRPCRoute kinds/sticky"),
        "{}",
        one.stdout
    );
    env.stop().unwrap();
}
