//! A controller built on kube-rs imports gamma-rs's modules and main types beside kube-rs's own
//! (and tokio's, which every kube-rs controller uses) with no aliases: no gamma-rs name
//! collides with the kube-rs name it is used next to. Should a rename bring a clash back, this
//! file stops compiling (two imports of one name, E0252).

use std::any::type_name;

// The facade's modules, imported by name as the README does.
use gamma_mesh::{arbiter, cluster, controller, model, resolve, smi};
// The controller runtime's modules and main types, through the facade.
use gamma_mesh::arbiter::{Arbiter, ArbiterConfig, Identity, Ownership, Verdict};
use gamma_mesh::cluster::{LeaseConfig, RunConfig, RunError, Runner, State};
use gamma_mesh::cluster::{
    bundle, convert, crd_extension, kinds, list, metrics, snapshot_store, status, watches,
};
use gamma_mesh::controller::{Reconciler, ReconcilerConfig};
use gamma_mesh::model::{AnyResource, ObjectKey, ResourceKind, Snapshot};
use gamma_mesh::resolve::{Decision, Request, RouteTable};
use gamma_mesh::smi::{AccessDecision, Authorizer, ServiceAccountRef};
use k8s_openapi::api::core::v1::{Service, ServiceAccount};
use kube::api::DynamicObject;
use kube::runtime::Controller;
use kube::runtime::reflector::{ObjectRef, Store, store};
use kube::runtime::utils::Backoff;
use kube::runtime::{reflector, watcher};
use kube::{Api, Client, Config, Error, Resource, ResourceExt};
use kube::{api, client, config, core, discovery, error, runtime};
use tokio::runtime::Runtime;
use tokio::sync::watch;

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
        type_name::<Runner>(),
        type_name::<RunError>(),
        type_name::<State>(),
        type_name::<snapshot_store::SnapshotStore>(),
        type_name::<status::WriteBackoff>(),
        type_name::<status::StatusWriter>(),
        type_name::<metrics::Metrics>(),
        type_name::<list::ConnectError>(),
        type_name::<bundle::Crds>(),
        type_name::<watches::Message>(),
        type_name::<crd_extension::Availability>(),
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
        type_name::<Error>(),
        type_name::<Store<DynamicObject>>(),
        type_name::<Service>(),
        type_name::<ServiceAccount>(),
    ];
    // tokio's beside them: the runtime and the watch channel every controller meets
    let tokio = [type_name::<Runtime>(), type_name::<watch::Sender<State>>()];
    for t in tokio {
        assert!(crate_of(t).starts_with("tokio"), "{t} is not tokio's");
    }
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
        .chain(&tokio)
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

/// The facade's modules and kube-rs's (and tokio's `watch`) are used side by side under the
/// names imported above, each reaching its own crate.
#[test]
fn facade_modules_and_kube_modules_import_side_by_side_without_aliases() {
    // gamma-rs's modules, by the names imported at the top
    let ours = [
        type_name::<model::Snapshot>(),
        type_name::<resolve::RouteTable>(),
        type_name::<arbiter::Arbiter>(),
        type_name::<controller::Reconciler>(),
        type_name::<cluster::RunConfig>(),
        type_name::<smi::Authorizer>(),
        type_name::<convert::Error>(),
    ];
    for t in ours {
        assert!(crate_of(t).starts_with("gamma_"), "{t} is not gamma-rs's");
    }
    assert_eq!(
        kinds::api_resource(ResourceKind::Service, "v1").plural,
        "services"
    );
    // kube-rs's and tokio's modules, by theirs
    let theirs = [
        type_name::<api::DynamicObject>(),
        type_name::<client::Client>(),
        type_name::<config::Config>(),
        type_name::<core::ObjectMeta>(),
        type_name::<discovery::Discovery>(),
        type_name::<error::Error>(),
        type_name::<runtime::Controller<DynamicObject>>(),
        type_name::<reflector::Store<DynamicObject>>(),
        type_name::<watcher::Config>(),
        type_name::<watch::Receiver<()>>(),
    ];
    for t in theirs {
        assert!(
            crate_of(t).starts_with("kube")
                || crate_of(t).starts_with("k8s_openapi")
                || crate_of(t) == "tokio",
            "{t} is not kube-rs's or tokio's"
        );
    }
    // kube-rs's `store` (the reflector's constructor) and `Backoff` (its trait) stay in reach
    let (reader, _writer) = store::<k8s_openapi::api::core::v1::ConfigMap>();
    assert!(reader.is_empty());
    let none: Option<Box<dyn Backoff>> = None;
    assert!(none.is_none());
}
