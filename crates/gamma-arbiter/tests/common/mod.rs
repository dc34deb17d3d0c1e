//! Builders shared by the integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use gamma_arbiter::{Config, Identity, MeshRegistration};
use gamma_model::gateway::{
    Gateway, GatewayClass, GatewaySpec, HttpRoute, HttpRouteSpec, LabelSelector, ParentReference,
};
use gamma_model::k8s::{Namespace, Service, ServiceSpec};
use gamma_model::meta::ObjectMeta;
use gamma_model::xmesh::XMesh;
use gamma_model::{ObjectRef, Resource, ResourceKind};

pub const ISTIO: &str = "istio.io/gateway-controller";
pub const ISTIO_ALIAS: &str = "istio.io/mesh-controller";
pub const LINKERD: &str = "linkerd.io/policy-controller";
pub const GATEWAY: &str = "example.com/gateway-controller";

pub fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

pub fn selector(key: &str, value: &str) -> LabelSelector {
    LabelSelector {
        match_labels: labels(&[(key, value)]),
        ..LabelSelector::default()
    }
}

/// istio (alias istio.io/mesh-controller, selects istio-injection=enabled) and linkerd
/// (selects linkerd.io/inject=enabled); `default` names the default mesh, if any.
pub fn config(default: Option<&str>) -> Config {
    let mut istio = MeshRegistration::new("istio", ISTIO)
        .with_aliases([ISTIO_ALIAS])
        .with_selector(selector("istio-injection", "enabled"));
    let mut linkerd = MeshRegistration::new("linkerd", LINKERD)
        .with_selector(selector("linkerd.io/inject", "enabled"));
    match default {
        Some("istio") => istio = istio.as_default(),
        Some("linkerd") => linkerd = linkerd.as_default(),
        _ => {}
    }
    Config::new([istio, linkerd])
}

pub fn istio() -> Identity {
    Identity::new(ISTIO).with_aliases([ISTIO_ALIAS])
}

pub fn linkerd() -> Identity {
    Identity::new(LINKERD)
}

pub fn gateway_controller() -> Identity {
    Identity::new(GATEWAY)
}

pub fn namespace(name: &str, l: &[(&str, &str)]) -> Resource {
    let mut n = Namespace::new(name);
    n.metadata.labels = labels(l);
    Resource::Namespace(n)
}

pub fn service(ns: &str, name: &str, l: &[(&str, &str)], a: &[(&str, &str)]) -> Resource {
    let mut meta = ObjectMeta::namespaced(ns, name);
    meta.labels = labels(l);
    meta.annotations = labels(a);
    Resource::Service(Service::new(
        meta,
        ServiceSpec {
            cluster_ip: Some("10.96.0.1".into()),
            ..ServiceSpec::default()
        },
    ))
}

pub fn route_with(
    ns: &str,
    name: &str,
    parents: Vec<ParentReference>,
    a: &[(&str, &str)],
    generation: i64,
) -> Resource {
    let mut meta = ObjectMeta::namespaced(ns, name);
    meta.annotations = labels(a);
    meta.generation = Some(generation);
    Resource::HttpRoute(HttpRoute::new(
        meta,
        HttpRouteSpec {
            parent_refs: parents,
            ..HttpRouteSpec::default()
        },
    ))
}

pub fn route(ns: &str, name: &str, parents: Vec<ParentReference>) -> Resource {
    route_with(ns, name, parents, &[], 1)
}

pub fn svc_parent(name: &str) -> ParentReference {
    ParentReference::service(name)
}

pub fn svc_parent_in(ns: &str, name: &str) -> ParentReference {
    ParentReference {
        namespace: Some(ns.into()),
        ..ParentReference::service(name)
    }
}

pub fn gateway(ns: &str, name: &str, class: &str) -> Resource {
    Resource::Gateway(Gateway::new(
        ObjectMeta::namespaced(ns, name),
        GatewaySpec {
            gateway_class_name: class.into(),
            ..GatewaySpec::default()
        },
    ))
}

pub fn class(name: &str, controller: &str) -> Resource {
    Resource::GatewayClass(GatewayClass::new(
        ObjectMeta::cluster_scoped(name),
        controller,
    ))
}

pub fn xmesh(name: &str, controller: &str) -> Resource {
    Resource::XMesh(XMesh::new(name, controller))
}

pub fn http_route_ref(ns: &str, name: &str) -> ObjectRef {
    ObjectRef::new(ResourceKind::HttpRoute, ns, name)
}
