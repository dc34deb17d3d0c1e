//! [`Snapshot`]: an indexed, cloneable set of cluster objects, the one input the engines read.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::sync::Arc;

use crate::gateway::{
    Gateway, GatewayClass, GrpcRoute, HttpRoute, ParentKind, ParentReference, ReferenceGrant,
    TcpRoute, TlsRoute, UdpRoute,
};
use crate::k8s::{EndpointSlice, Namespace, Service};
use crate::resource::{ObjectRef, Resource, ResourceKind};
use crate::xmesh::XMesh;

/// The identity of a parent a route refers to, after upstream defaulting: group, kind,
/// namespace (empty for cluster-scoped) and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParentKey {
    /// The parent's API group (`""` for Services).
    pub group: String,
    /// The parent's kind.
    pub kind: String,
    /// The parent's namespace.
    pub namespace: String,
    /// The parent's name.
    pub name: String,
}

impl ParentKey {
    /// The key of `parent_ref` as written in a route in `route_namespace`.
    pub fn of(parent_ref: &ParentReference, route_namespace: &str) -> Self {
        ParentKey {
            group: parent_ref.group_or_default().to_owned(),
            kind: parent_ref.kind_or_default().to_owned(),
            namespace: parent_ref.namespace_or(route_namespace).to_owned(),
            name: parent_ref.name.clone(),
        }
    }

    /// The key of a core Service.
    pub fn service(namespace: &str, name: &str) -> Self {
        ParentKey {
            group: String::new(),
            kind: "Service".into(),
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// The key of a Gateway.
    pub fn gateway(namespace: &str, name: &str) -> Self {
        ParentKey {
            group: crate::gateway::GROUP.into(),
            kind: "Gateway".into(),
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

/// An immutable-by-default, indexed set of cluster objects, keyed by (kind, namespace, name).
///
/// Iteration is always in [`ObjectRef`] order, whatever order objects were inserted in, so every
/// engine reading a snapshot is deterministic. Cloning is cheap (objects are shared). Use
/// [`Snapshot::upsert`] and [`Snapshot::remove`] to apply watch events.
///
/// ```
/// use gamma_model::{Snapshot, decode};
/// let snap = Snapshot::from_resources(decode(r#"
/// apiVersion: v1
/// kind: Service
/// metadata: {name: web, namespace: shop}
/// spec: {clusterIP: 10.96.0.10, ports: [{name: http, port: 80}]}
/// "#).unwrap());
/// let svc = snap.service_by_ip("10.96.0.10".parse().unwrap()).unwrap();
/// assert_eq!(svc.metadata.name, "web");
/// ```
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    objects: BTreeMap<ObjectRef, Arc<Resource>>,
    services_by_ip: BTreeMap<IpAddr, BTreeSet<ObjectRef>>,
    routes_by_parent: BTreeMap<ParentKey, BTreeSet<ObjectRef>>,
}

impl Snapshot {
    /// An empty snapshot.
    pub fn new() -> Self {
        Snapshot::default()
    }

    /// A snapshot of `resources`; later duplicates (same kind, namespace, name) replace earlier
    /// ones.
    pub fn from_resources(resources: impl IntoIterator<Item = Resource>) -> Self {
        let mut s = Snapshot::new();
        for r in resources {
            s.upsert(r);
        }
        s
    }

    /// Inserts or replaces an object; returns the previous version.
    pub fn upsert(&mut self, resource: Resource) -> Option<Arc<Resource>> {
        let key = ObjectRef::of(&resource);
        let previous = self.remove(&key);
        self.index(&key, &resource);
        self.objects.insert(key, Arc::new(resource));
        previous
    }

    /// Removes an object; returns it if it was present.
    pub fn remove(&mut self, key: &ObjectRef) -> Option<Arc<Resource>> {
        let old = self.objects.remove(key)?;
        self.unindex(key, &old);
        Some(old)
    }

    fn index(&mut self, key: &ObjectRef, resource: &Resource) {
        match resource {
            Resource::Service(svc) => {
                for ip in svc.frontend_ips() {
                    self.services_by_ip
                        .entry(ip)
                        .or_default()
                        .insert(key.clone());
                }
            }
            _ => {
                for p in parent_keys(resource, &key.namespace) {
                    self.routes_by_parent
                        .entry(p)
                        .or_default()
                        .insert(key.clone());
                }
            }
        }
    }

    fn unindex(&mut self, key: &ObjectRef, resource: &Resource) {
        match resource {
            Resource::Service(svc) => {
                for ip in svc.frontend_ips() {
                    if let Some(set) = self.services_by_ip.get_mut(&ip) {
                        set.remove(key);
                        if set.is_empty() {
                            self.services_by_ip.remove(&ip);
                        }
                    }
                }
            }
            _ => {
                for p in parent_keys(resource, &key.namespace) {
                    if let Some(set) = self.routes_by_parent.get_mut(&p) {
                        set.remove(key);
                        if set.is_empty() {
                            self.routes_by_parent.remove(&p);
                        }
                    }
                }
            }
        }
    }

    /// The object with this identity.
    pub fn get(&self, key: &ObjectRef) -> Option<&Resource> {
        self.objects.get(key).map(|r| &**r)
    }

    /// The number of objects.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Whether there are no objects.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Every object, in deterministic order.
    pub fn iter(&self) -> impl Iterator<Item = (&ObjectRef, &Resource)> {
        self.objects.iter().map(|(k, v)| (k, &**v))
    }

    /// Every object of one kind, in (namespace, name) order.
    pub fn of_kind(&self, kind: ResourceKind) -> impl Iterator<Item = &Resource> {
        let start = ObjectRef::new(kind, "", "");
        self.objects
            .range(start..)
            .take_while(move |(k, _)| k.kind == kind)
            .map(|(_, v)| &**v)
    }

    /// The Service whose frontend includes `ip`. When (invalidly) several do, the first in
    /// (namespace, name) order.
    pub fn service_by_ip(&self, ip: IpAddr) -> Option<&Service> {
        let key = self.services_by_ip.get(&ip)?.iter().next()?;
        match self.get(key)? {
            Resource::Service(s) => Some(s),
            _ => None,
        }
    }

    /// Every Service claiming `ip`, in (namespace, name) order.
    pub fn services_by_ip(&self, ip: IpAddr) -> impl Iterator<Item = &Service> {
        self.services_by_ip
            .get(&ip)
            .into_iter()
            .flatten()
            .filter_map(|k| match self.get(k) {
                Some(Resource::Service(s)) => Some(s),
                _ => None,
            })
    }

    /// The routes (of every kind) with a parentRef naming `parent`, in [`ObjectRef`] order.
    pub fn routes_for_parent(&self, parent: &ParentKey) -> impl Iterator<Item = &Resource> {
        self.routes_by_parent
            .get(parent)
            .into_iter()
            .flatten()
            .filter_map(|k| self.get(k))
    }

    /// Every parent key some route refers to, in order.
    pub fn referenced_parents(&self) -> impl Iterator<Item = &ParentKey> {
        self.routes_by_parent.keys()
    }
}

macro_rules! typed_accessors {
    ($( $iter:ident, $get:ident, $variant:ident, $ty:ty, namespaced: $ns:tt; )+) => {
        impl Snapshot {
            $(
                #[doc = concat!("Every `", stringify!($variant), "`, in (namespace, name) order.")]
                pub fn $iter(&self) -> impl Iterator<Item = &$ty> {
                    self.of_kind(ResourceKind::$variant).filter_map(|r| match r {
                        Resource::$variant(o) => Some(o),
                        _ => None,
                    })
                }
                typed_accessors!(@get $get, $variant, $ty, $ns);
            )+
        }
    };
    (@get $get:ident, $variant:ident, $ty:ty, true) => {
        #[doc = concat!("The `", stringify!($variant), "` `namespace/name`.")]
        pub fn $get(&self, namespace: &str, name: &str) -> Option<&$ty> {
            match self.get(&ObjectRef::new(ResourceKind::$variant, namespace, name))? {
                Resource::$variant(o) => Some(o),
                _ => None,
            }
        }
    };
    (@get $get:ident, $variant:ident, $ty:ty, false) => {
        #[doc = concat!("The `", stringify!($variant), "` named `name`.")]
        pub fn $get(&self, name: &str) -> Option<&$ty> {
            match self.get(&ObjectRef::new(ResourceKind::$variant, "", name))? {
                Resource::$variant(o) => Some(o),
                _ => None,
            }
        }
    };
}

typed_accessors! {
    http_routes, http_route, HttpRoute, HttpRoute, namespaced: true;
    grpc_routes, grpc_route, GrpcRoute, GrpcRoute, namespaced: true;
    tls_routes, tls_route, TlsRoute, TlsRoute, namespaced: true;
    tcp_routes, tcp_route, TcpRoute, TcpRoute, namespaced: true;
    udp_routes, udp_route, UdpRoute, UdpRoute, namespaced: true;
    gateways, gateway, Gateway, Gateway, namespaced: true;
    gateway_classes, gateway_class, GatewayClass, GatewayClass, namespaced: false;
    reference_grants, reference_grant, ReferenceGrant, ReferenceGrant, namespaced: true;
    services, service, Service, Service, namespaced: true;
    namespaces, namespace, Namespace, Namespace, namespaced: false;
    endpoint_slices, endpoint_slice, EndpointSlice, EndpointSlice, namespaced: true;
    xmeshes, xmesh, XMesh, XMesh, namespaced: false;
    traffic_splits, traffic_split, TrafficSplit, crate::smi::TrafficSplit, namespaced: true;
    http_route_groups, http_route_group, HttpRouteGroup, crate::smi::HttpRouteGroup, namespaced: true;
    smi_tcp_routes, smi_tcp_route, SmiTcpRoute, crate::smi::SmiTcpRoute, namespaced: true;
    smi_udp_routes, smi_udp_route, SmiUdpRoute, crate::smi::SmiUdpRoute, namespaced: true;
    traffic_targets, traffic_target, TrafficTarget, crate::smi::TrafficTarget, namespaced: true;
}

impl Snapshot {
    /// The EndpointSlices of Service `namespace/name` (by the `kubernetes.io/service-name` label).
    pub fn endpoint_slices_for(
        &self,
        namespace: &str,
        service: &str,
    ) -> impl Iterator<Item = &EndpointSlice> {
        let start = ObjectRef::new(ResourceKind::EndpointSlice, namespace, "");
        self.objects
            .range(start..)
            .take_while(move |(k, _)| {
                k.kind == ResourceKind::EndpointSlice && k.namespace == namespace
            })
            .filter_map(move |(_, r)| match &**r {
                Resource::EndpointSlice(e) if e.service_name() == Some(service) => Some(e),
                _ => None,
            })
    }

    /// Whether the route kinds' parentRefs make `parent_ref` a Service parent (helper for
    /// engines that only index mesh routes).
    pub fn is_service_parent(parent_ref: &ParentReference) -> bool {
        parent_ref.parent_kind() == ParentKind::Service
    }
}

fn parent_keys(resource: &Resource, namespace: &str) -> BTreeSet<ParentKey> {
    let refs: &[ParentReference] = match resource {
        Resource::HttpRoute(r) => &r.spec.parent_refs,
        Resource::GrpcRoute(r) => &r.spec.parent_refs,
        Resource::TlsRoute(r) => &r.spec.parent_refs,
        Resource::TcpRoute(r) => &r.spec.parent_refs,
        Resource::UdpRoute(r) => &r.spec.parent_refs,
        _ => &[],
    };
    refs.iter().map(|p| ParentKey::of(p, namespace)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode;

    const CLUSTER: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: b, namespace: ns}
spec: {clusterIP: 10.0.0.2, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: a, namespace: ns}
spec: {clusterIP: 10.0.0.1, clusterIPs: [10.0.0.1, "fd00::1"], ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{group: "", kind: Service, name: a}]
"#;

    #[test]
    fn iteration_order_is_independent_of_insertion_order() {
        let docs = decode(CLUSTER).unwrap();
        let forward = Snapshot::from_resources(docs.clone());
        let backward = Snapshot::from_resources(docs.into_iter().rev());
        let f: Vec<_> = forward.iter().map(|(k, _)| k.clone()).collect();
        let b: Vec<_> = backward.iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(f, b);
        let names: Vec<_> = forward
            .services()
            .map(|s| s.metadata.name.as_str())
            .collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn services_are_found_by_any_cluster_ip_and_unindexed_on_remove() {
        let mut snap = Snapshot::from_resources(decode(CLUSTER).unwrap());
        let v6: IpAddr = "fd00::1".parse().unwrap();
        assert_eq!(snap.service_by_ip(v6).unwrap().metadata.name, "a");
        snap.remove(&ObjectRef::new(ResourceKind::Service, "ns", "a"));
        assert!(snap.service_by_ip(v6).is_none());
    }

    #[test]
    fn routes_are_indexed_by_defaulted_parent() {
        let mut snap = Snapshot::from_resources(decode(CLUSTER).unwrap());
        let parent = ParentKey::service("ns", "a");
        assert_eq!(snap.routes_for_parent(&parent).count(), 1);
        snap.remove(&ObjectRef::new(ResourceKind::HttpRoute, "ns", "r"));
        assert_eq!(snap.routes_for_parent(&parent).count(), 0);
    }
}
