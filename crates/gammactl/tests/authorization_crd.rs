//! The XAuthorizationPolicy CRD `gammactl crd-extension authorization-policy` prints, installed
//! on a real Kubernetes API server (tools/kube-testenv): the server accepts exactly the objects
//! gamma-model's validation accepts on each case below (the GEP's target rules, the SPIFFE
//! path, the required fields), and keeps `sources: []` apart from an omitted list. Reported
//! ignored (with the reason) when Go is absent, unless GAMMA_REQUIRE_TESTENV=1.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use gamma_testenv::harness::standard_server;

gamma_testenv::test_main! {
    #[tokio] the_printed_crd_admits_what_gamma_model_validates_on_a_real_api_server
        if standard_server,
}

use common::run;
use gamma_mesh::cluster::kinds::api_resource;
use gamma_mesh::model::{AnyResource, ResourceKind, Validate};
use kube::api::{Api, DeleteParams, DynamicObject, PostParams};
use serde_json::{Value, json};

/// A client of the cluster of `kubeconfig` (its current context), as gammactl connects.
async fn client(kubeconfig: &std::path::Path) -> kube::Client {
    gamma_mesh::cluster::list::connect(Some(kubeconfig), None)
        .await
        .unwrap()
}

fn policy(name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": "gateway.networking.x-k8s.io/v1alpha1",
        "kind": "XAuthorizationPolicy",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    })
}

fn spec(targets: Value, rules: Value) -> Value {
    json!({"targetRefs": targets, "action": "ALLOW", "enforcementLevel": "Network", "rules": rules})
}

async fn the_printed_crd_admits_what_gamma_model_validates_on_a_real_api_server() {
    let env = gamma_testenv::server(gamma_testenv::Channel::Standard);
    let client = client(env.kubeconfig()).await;
    let printed = run(&["crd-extension", "authorization-policy", "-o", "json"]);
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    let crd: DynamicObject = serde_json::from_str(&printed.stdout).unwrap();
    let crds_ar = kube::core::ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
    ));
    let crds: Api<DynamicObject> = Api::all_with(client.clone(), &crds_ar);
    crds.create(&PostParams::default(), &crd)
        .await
        .expect("the API server takes the CRD");

    let ar = api_resource(
        ResourceKind::XAuthorizationPolicy,
        ResourceKind::XAuthorizationPolicy.api_versions()[0],
    );
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &ar);
    // Established: the list answers.
    let mut ready = false;
    for _ in 0..100 {
        if api.list(&Default::default()).await.is_ok() {
            ready = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        ready,
        "the XAuthorizationPolicy CRD never became established"
    );

    let pod = json!([{"group": "", "kind": "Pod", "selector": {"matchLabels": {"app": "db"}}}]);
    let cases: Vec<(&str, Value, bool)> = vec![
        (
            "valid",
            spec(
                pod.clone(),
                json!([{"sources": [{"type": "ServiceAccount", "serviceAccount": {"name": "web"}}], "networkAttributes": {"ports": [5432]}}]),
            ),
            true,
        ),
        (
            "spiffe-with-path",
            spec(
                pod.clone(),
                json!([{"sources": [{"type": "SPIFFE", "spiffe": "spiffe://td.example/ns/a/sa/b"}]}]),
            ),
            true,
        ),
        (
            "spiffe-without-path",
            spec(
                pod.clone(),
                json!([{"sources": [{"type": "SPIFFE", "spiffe": "spiffe://td.example"}]}]),
            ),
            false,
        ),
        (
            "spiffe-with-service-account",
            spec(
                pod.clone(),
                json!([{"sources": [{"type": "SPIFFE", "spiffe": "spiffe://td/x", "serviceAccount": {"name": "a"}}]}]),
            ),
            false,
        ),
        (
            "pod-with-name",
            spec(
                json!([{"group": "", "kind": "Pod", "name": "db-0", "selector": {}}]),
                json!([]),
            ),
            false,
        ),
        (
            "pod-without-selector",
            spec(json!([{"group": "", "kind": "Pod"}]), json!([])),
            false,
        ),
        (
            "two-pod-targets",
            spec(
                json!([{"group": "", "kind": "Pod", "selector": {}}, {"group": "", "kind": "Pod", "selector": {}}]),
                json!([]),
            ),
            false,
        ),
        (
            "service-with-selector",
            spec(
                json!([{"group": "", "kind": "Service", "name": "db", "selector": {}}]),
                json!([]),
            ),
            false,
        ),
        (
            "service-without-name",
            spec(json!([{"group": "", "kind": "Service"}]), json!([])),
            false,
        ),
        (
            "port-zero",
            spec(pod.clone(), json!([{"networkAttributes": {"ports": [0]}}])),
            false,
        ),
        (
            "action-deny",
            json!({"targetRefs": pod.clone(), "action": "DENY", "enforcementLevel": "Network"}),
            false,
        ),
        (
            "no-enforcement-level",
            json!({"targetRefs": pod.clone(), "action": "ALLOW"}),
            false,
        ),
    ];
    for (name, spec, want) in cases {
        let value = policy(name, spec);
        let model: Vec<AnyResource> = gamma_mesh::model::decode(&value.to_string()).unwrap();
        let model_ok = model[0].validate().is_ok();
        assert_eq!(model_ok, want, "{name}: gamma-model validation");
        let object: DynamicObject = serde_json::from_value(value).unwrap();
        let server = api.create(&PostParams::default(), &object).await;
        assert_eq!(
            server.is_ok(),
            want,
            "{name}: the API server answered {server:?}"
        );
    }

    // `sources: []` ("allow nothing") is stored and read back as an empty list, apart from an
    // omitted `sources` ("any source").
    let both = policy("empty-and-omitted", spec(pod, json!([{"sources": []}, {}])));
    let object: DynamicObject = serde_json::from_value(both).unwrap();
    let stored = api.create(&PostParams::default(), &object).await.unwrap();
    let read = api
        .get(&stored.metadata.name.clone().unwrap())
        .await
        .unwrap();
    assert_eq!(read.data["spec"]["rules"][0]["sources"], json!([]));
    assert!(
        read.data["spec"]["rules"][1].get("sources").is_none(),
        "{:?}",
        read.data
    );

    crds.delete(
        "xauthorizationpolicies.gateway.networking.x-k8s.io",
        &DeleteParams::default(),
    )
    .await
    .unwrap();
}
