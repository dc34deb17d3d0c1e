//! Helpers of the tests on a real API server: a client as gammactl connects, the dynamic API
//! of a kind, and a cluster's objects dumped to files (to compare `--kubeconfig` with `-f`).

use std::path::Path;

use gamma_mesh::cluster::kinds::api_resource;
use gamma_mesh::model::ResourceKind;
use kube::api::{Api, DynamicObject, ListParams};

/// A client of the cluster of `kubeconfig` (its current context), as gammactl connects.
pub async fn client(kubeconfig: &Path) -> kube::Client {
    gamma_mesh::cluster::list::connect(Some(kubeconfig), None)
        .await
        .unwrap()
}

/// The API of `kind` at its first modelled version, in `namespace` when the kind is namespaced
/// and one is given, else across the cluster.
pub fn api(
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

/// Every object of `kinds`, as the API server returns them (plain lists, not gamma-kube's,
/// without `managedFields`), written to `dir` one JSON file each; how many.
pub async fn dump(
    client: &kube::Client,
    kinds: impl IntoIterator<Item = ResourceKind>,
    dir: &Path,
) -> usize {
    std::fs::create_dir_all(dir).unwrap();
    let mut n = 0;
    for kind in kinds {
        let version = kind.api_versions()[0];
        let Ok(list) = api(client, kind, None).list(&ListParams::default()).await else {
            continue; // a kind these CRDs do not serve at that version
        };
        for mut o in list {
            o.metadata.managed_fields = None;
            let mut v = serde_json::to_value(&o).unwrap();
            v["apiVersion"] = version.into();
            v["kind"] = kind.as_str().into();
            std::fs::write(
                dir.join(format!("{n:05}.json")),
                serde_json::to_string_pretty(&v).unwrap(),
            )
            .unwrap();
            n += 1;
        }
    }
    n
}
