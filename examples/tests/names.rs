//! A controller built on kube-rs imports gamma-rs's main types beside kube-rs's own with no
//! aliases: no gamma-rs name collides with the kube-rs name it is used next to. Should a
//! rename bring a clash back, this file stops compiling (two imports of one name, E0252).

use std::any::type_name;

use gamma_kube::{LeaseConfig, RunConfig, Runtime, State};
use gamma_mesh::arbiter::{Arbiter, ArbiterConfig, Identity, Ownership, Verdict};
use gamma_mesh::controller::{Reconciler, ReconcilerConfig};
use gamma_mesh::model::{AnyResource, ObjectKey, ResourceKind, Snapshot};
use gamma_mesh::resolve::{Decision, Request, RouteTable};
use gamma_smi::{AccessDecision, Authorizer, ServiceAccountRef};
use k8s_openapi::api::core::v1::{Service, ServiceAccount};
use kube::api::DynamicObject;
use kube::runtime::Controller;
use kube::runtime::reflector::ObjectRef;
use kube::{Api, Client, Config, Resource, ResourceExt};

/// The crate that defines a type, from its path.
fn crate_of(path: &str) -> &str {
    path.split("::").next().unwrap_or(path)
}

/// An object's name through kube-rs's `Resource`/`ResourceExt` traits, which gamma-rs's
/// `AnyResource` enum must not shadow.
fn kube_name<K: Resource + ResourceExt>(k: &K) -> String {
    k.name_any()
}

#[test]
fn gamma_and_kube_main_types_import_side_by_side_without_aliases() {
    let gamma = [
        type_name::<AnyResource>(),
        type_name::<ObjectKey>(),
        type_name::<ResourceKind>(),
        type_name::<Snapshot>(),
        type_name::<Arbiter>(),
        type_name::<ArbiterConfig>(),
        type_name::<Identity>(),
        type_name::<Ownership>(),
        type_name::<Verdict>(),
        type_name::<Reconciler>(),
        type_name::<ReconcilerConfig>(),
        type_name::<Decision<'static>>(),
        type_name::<Request<'static>>(),
        type_name::<RouteTable>(),
        type_name::<RunConfig>(),
        type_name::<LeaseConfig>(),
        type_name::<Runtime>(),
        type_name::<State>(),
        // SMI access control beside the arbiter: a ServiceAccount reference and an access
        // decision, not a second `Identity` and `Verdict`
        type_name::<ServiceAccountRef>(),
        type_name::<AccessDecision>(),
        type_name::<Authorizer>(),
    ];
    let kube = [
        type_name::<Config>(),
        type_name::<Client>(),
        type_name::<Api<DynamicObject>>(),
        type_name::<ObjectRef<DynamicObject>>(),
        type_name::<Controller<DynamicObject>>(),
        type_name::<Service>(),
        type_name::<ServiceAccount>(),
    ];
    for t in gamma {
        assert!(crate_of(t).starts_with("gamma_"), "{t} is not gamma-rs's");
    }
    for t in kube {
        assert!(
            crate_of(t).starts_with("kube") || crate_of(t) == "k8s_openapi",
            "{t} is not kube-rs's"
        );
    }
    // the last path segments (what a `use` imports) are pairwise distinct across both lists
    let mut last: Vec<&str> = gamma
        .iter()
        .chain(&kube)
        .map(|t| {
            t.split('<')
                .next()
                .unwrap_or(t)
                .rsplit("::")
                .next()
                .unwrap_or(t)
        })
        .collect();
    last.sort_unstable();
    let before = last.len();
    last.dedup();
    assert_eq!(last.len(), before, "a name is defined by both: {last:?}");

    let service = kube::api::ApiResource {
        group: String::new(),
        version: "v1".into(),
        api_version: "v1".into(),
        kind: "Service".into(),
        plural: "services".into(),
    };
    let mut object = DynamicObject::new("web", &service);
    object.metadata.namespace = Some("shop".into());
    let key = ObjectKey::new(ResourceKind::Service, "shop", kube_name(&object));
    assert_eq!(key.to_string(), "Service shop/web");
}
