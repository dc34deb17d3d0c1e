//! SMI watches (feature `smi`) on a real Kubernetes API server (tools/kube-testenv): an SMI
//! kind is skipped while its CRD is absent and watched once a CRD serving it is Established.

mod common;

use common::*;
use gamma_arbiter::Identity;
use gamma_model::ResourceKind;
use gamma_testenv::Channel;
use gamma_testenv::harness::standard_server;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use serde_json::json;

gamma_testenv::test_main! {
    #[tokio] smi_kinds_are_watched_once_their_crd_is_installed if standard_server,
}

/// A minimal TrafficSplit CRD (SMI `split.smi-spec.io`, v1alpha4), schema left open: the test
/// is of the watch, not of SMI's schema.
fn traffic_split_crd() -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "trafficsplits.split.smi-spec.io"},
        "spec": {
            "group": "split.smi-spec.io",
            "names": {"kind": "TrafficSplit", "plural": "trafficsplits", "singular": "trafficsplit", "listKind": "TrafficSplitList"},
            "scope": "Namespaced",
            "versions": [{"name": "v1alpha4", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    }))
    .unwrap()
}

/// SMI kinds are CRDs: the runtime lists TrafficSplit as missing until its CRD is installed,
/// then watches it at the newest SMI version the CRD serves and is ready again.
async fn smi_kinds_are_watched_once_their_crd_is_installed() {
    let env = gamma_testenv::server(Channel::Standard);
    let client = client(env).await;
    let config = sample_config();
    let me = Identity::of_mesh(&config, "istio").unwrap();
    let (mut state, stop, task) = spawn_runtime(&client, &config, me, |_| {});
    until(&mut state, 60, "ready, TrafficSplit missing", |s| {
        s.ready && s.missing.contains(&ResourceKind::TrafficSplit)
    })
    .await;
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    crds.create(&PostParams::default(), &traffic_split_crd())
        .await
        .unwrap();
    until(&mut state, 60, "TrafficSplit watched", |s| {
        s.ready
            && !s.missing.contains(&ResourceKind::TrafficSplit)
            && s.watching.get(&ResourceKind::TrafficSplit) == Some(&"split.smi-spec.io/v1alpha4")
    })
    .await;
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
}
