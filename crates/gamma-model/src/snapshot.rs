//! [`Snapshot`]: an indexed, cloneable set of cluster objects, the one input the engines read.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::sync::Arc;

use crate::chunked::Chunked;
use crate::digest::{RouteDigest, ServiceDigest};
use crate::gateway::{
    Gateway, GatewayClass, GrpcRoute, HttpRoute, ParentKind, ParentReference, ReferenceGrant,
    TcpRoute, TlsRoute, UdpRoute,
};
use crate::k8s::{ConfigMap, EndpointSlice, Namespace, Secret, Service};
use crate::resource::{AnyResource, ObjectKey, ResourceKind};
use crate::validate::ValidateOptions;
use crate::verdict::Verdicts;
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
/// Iteration is always in [`ObjectKey`] order, whatever order objects were inserted in, so every
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
///
/// Two snapshots are equal when they hold equal objects (their indexes, derived from the objects,
/// are then equal too, whatever the order of the `upsert`s and `remove`s that built them) and
/// agree on [`Snapshot::secrets_complete`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    objects: BTreeMap<ObjectKey, Arc<AnyResource>>,
    /// Whether the snapshot holds every TLS Secret there is ([`Snapshot::secrets_complete`]).
    secrets_complete: bool,
    /// Every route (the kinds with a [`RouteDigest`]) and its digest, in key order.
    /// (In sorted runs rather than a `BTreeMap`: a full pass over them is the point, see
    /// [`Chunked`].)
    route_digests: Chunked<ObjectKey, (Arc<AnyResource>, RouteDigest, Arc<Verdicts>)>,
    /// Every Service and its digest, in key order.
    service_digests: Chunked<ObjectKey, (Arc<AnyResource>, ServiceDigest)>,
    services_by_ip: BTreeMap<IpAddr, BTreeSet<ObjectKey>>,
    routes_by_parent: BTreeMap<ParentKey, BTreeSet<ObjectKey>>,
    /// Routes by the (namespace, name) of every backendRef and `RequestMirror` backend they
    /// name (any kind: readers filter).
    routes_by_backend: BTreeMap<(String, String), BTreeSet<ObjectKey>>,
    /// EndpointSlices by (namespace, `kubernetes.io/service-name`).
    slices_by_service: BTreeMap<(String, String), BTreeSet<ObjectKey>>,
}

impl Snapshot {
    /// An empty snapshot.
    pub fn new() -> Self {
        Snapshot::default()
    }

    /// A snapshot of `resources`; later duplicates (same kind, namespace, name) replace earlier
    /// ones.
    pub fn from_resources(resources: impl IntoIterator<Item = AnyResource>) -> Self {
        let mut s = Snapshot::new();
        for r in resources {
            s.upsert(r);
        }
        s
    }

    /// Whether the snapshot holds every `kubernetes.io/tls` Secret a listener's
    /// `tls.certificateRefs` may name: set by whoever collected the objects (a controller
    /// watching Secrets, a tool given the Secrets as files), never inferred from the Secrets
    /// it holds. When `true`, a reference to a Secret the snapshot does not hold is a Secret
    /// that does not exist (Gateway API GatewayTLSConfig.certificateRefs:
    /// `InvalidCertificateRef`), even when it holds no Secret at all; when `false` (the
    /// default: Secrets are optional input) such a reference is not judged.
    pub fn secrets_complete(&self) -> bool {
        self.secrets_complete
    }

    /// Sets [`Snapshot::secrets_complete`].
    pub fn set_secrets_complete(&mut self, complete: bool) {
        self.secrets_complete = complete;
    }

    /// With [`Snapshot::secrets_complete`] set to `complete`.
    ///
    /// ```
    /// use gamma_model::Snapshot;
    /// let snap = Snapshot::new().with_secrets_complete(true);
    /// assert!(snap.secrets_complete() && snap.secrets().next().is_none());
    /// ```
    pub fn with_secrets_complete(mut self, complete: bool) -> Self {
        self.secrets_complete = complete;
        self
    }

    /// Inserts or replaces an object; returns the previous version.
    pub fn upsert(&mut self, resource: AnyResource) -> Option<Arc<AnyResource>> {
        let key = ObjectKey::of(&resource);
        let previous = self.remove(&key);
        self.index(&key, &resource);
        let shared = Arc::new(resource);
        if let Some(digest) = RouteDigest::of(&shared) {
            let verdicts = Arc::new(Verdicts::default());
            self.route_digests
                .insert(key.clone(), (Arc::clone(&shared), digest, verdicts));
        } else if let Some(digest) = ServiceDigest::of(&shared) {
            self.service_digests
                .insert(key.clone(), (Arc::clone(&shared), digest));
        }
        self.objects.insert(key, shared);
        previous
    }

    /// Removes an object; returns it if it was present.
    pub fn remove(&mut self, key: &ObjectKey) -> Option<Arc<AnyResource>> {
        let old = self.objects.remove(key)?;
        self.route_digests.remove(key);
        self.service_digests.remove(key);
        self.unindex(key, &old);
        Some(old)
    }

    // Every index entry is derived from the object alone (never from other objects), so indexing
    // and unindexing are exact inverses and the indexes depend only on the current set of
    // objects, not on the order of the events that built it.
    fn index(&mut self, key: &ObjectKey, resource: &AnyResource) {
        match resource {
            AnyResource::Service(svc) => {
                for ip in svc.frontend_ips() {
                    insert(&mut self.services_by_ip, ip, key);
                }
            }
            AnyResource::EndpointSlice(slice) => {
                if let Some(service) = slice.service_name() {
                    let k = (key.namespace.clone(), service.to_owned());
                    insert(&mut self.slices_by_service, k, key);
                }
            }
            _ => {
                for p in parent_keys(resource, &key.namespace) {
                    insert(&mut self.routes_by_parent, p, key);
                }
                for b in backend_keys(resource, &key.namespace) {
                    insert(&mut self.routes_by_backend, b, key);
                }
            }
        }
    }

    fn unindex(&mut self, key: &ObjectKey, resource: &AnyResource) {
        match resource {
            AnyResource::Service(svc) => {
                for ip in svc.frontend_ips() {
                    remove(&mut self.services_by_ip, &ip, key);
                }
            }
            AnyResource::EndpointSlice(slice) => {
                if let Some(service) = slice.service_name() {
                    let k = (key.namespace.clone(), service.to_owned());
                    remove(&mut self.slices_by_service, &k, key);
                }
            }
            _ => {
                for p in parent_keys(resource, &key.namespace) {
                    remove(&mut self.routes_by_parent, &p, key);
                }
                for b in backend_keys(resource, &key.namespace) {
                    remove(&mut self.routes_by_backend, &b, key);
                }
            }
        }
    }

    /// The object with this identity.
    pub fn get(&self, key: &ObjectKey) -> Option<&AnyResource> {
        self.objects.get(key).map(|r| &**r)
    }

    /// The object with this identity, shared: cloning the `Arc` keeps it without copying.
    pub fn get_shared(&self, key: &ObjectKey) -> Option<&Arc<AnyResource>> {
        self.objects.get(key)
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
    pub fn iter(&self) -> impl Iterator<Item = (&ObjectKey, &AnyResource)> {
        self.objects.iter().map(|(k, v)| (k, &**v))
    }

    /// Every object of one kind, in (namespace, name) order.
    pub fn of_kind(&self, kind: ResourceKind) -> impl Iterator<Item = &AnyResource> {
        let start = ObjectKey::new(kind, "", "");
        self.objects
            .range(start..)
            .take_while(move |(k, _)| k.kind == kind)
            .map(|(_, v)| &**v)
    }

    /// Every object of one kind, in (namespace, name) order, shared (see [`Snapshot::get_shared`]).
    pub fn of_kind_shared(&self, kind: ResourceKind) -> impl Iterator<Item = &Arc<AnyResource>> {
        let start = ObjectKey::new(kind, "", "");
        self.objects
            .range(start..)
            .take_while(move |(k, _)| k.kind == kind)
            .map(|(_, v)| v)
    }

    /// Every route of `kind` (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute or UDPRoute; nothing for
    /// other kinds), in (namespace, name) order, with its [`RouteDigest`]. A pass over many
    /// routes that first needs only the digested facts reads far less memory this way than
    /// through [`Snapshot::of_kind_shared`] (see [`crate::digest`]).
    ///
    /// ```
    /// use gamma_model::{ResourceKind, Snapshot, decode};
    /// let snap = Snapshot::from_resources(decode(r#"
    /// apiVersion: gateway.networking.k8s.io/v1
    /// kind: HTTPRoute
    /// metadata: {name: r, namespace: shop}
    /// spec: {parentRefs: [{group: "", kind: Service, name: checkout}]}
    /// "#)?);
    /// let (route, digest) = snap.route_digests(ResourceKind::HttpRoute).next().unwrap();
    /// assert_eq!(route.metadata().name, "r");
    /// assert_eq!(digest.first_parent().unwrap().name().as_str(), "checkout");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn route_digests(
        &self,
        kind: ResourceKind,
    ) -> impl Iterator<Item = (&Arc<AnyResource>, &RouteDigest)> {
        let start = ObjectKey::new(kind, "", "");
        let next = ResourceKind::ALL
            .iter()
            .copied()
            .filter(|k| *k > kind)
            .min();
        self.route_digests
            .values_in(&start, next.map(|n| ObjectKey::new(n, "", "")))
            .map(|(r, d, _)| (r, d))
    }

    /// Every route of `kind`, in (namespace, name) order, with whether it passes validation
    /// under `opts`. The verdict is computed the first time it is asked for an object and
    /// these options, then kept with the object (clones of the snapshot share it; an upsert
    /// starts afresh): repeated builds from one snapshot validate each route once.
    ///
    /// ```
    /// use gamma_model::{ResourceKind, Snapshot, decode};
    /// use gamma_model::validate::ValidateOptions;
    /// let snap = Snapshot::from_resources(decode(r#"
    /// apiVersion: gateway.networking.k8s.io/v1
    /// kind: HTTPRoute
    /// metadata: {name: r, namespace: shop}
    /// spec: {rules: [{backendRefs: [{name: svc}]}]}
    /// "#)?);
    /// let opts = ValidateOptions::default();
    /// let (route, valid) = snap.validated_routes(ResourceKind::HttpRoute, &opts).next().unwrap();
    /// assert_eq!((route.metadata().name.as_str(), valid), ("r", false)); // a Service needs a port
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validated_routes<'a, 'o>(
        &'a self,
        kind: ResourceKind,
        opts: &'o ValidateOptions,
    ) -> impl Iterator<Item = (&'a Arc<AnyResource>, bool)> + use<'a, 'o> {
        let start = ObjectKey::new(kind, "", "");
        let next = ResourceKind::ALL
            .iter()
            .copied()
            .filter(|k| *k > kind)
            .min();
        self.route_digests
            .values_in(&start, next.map(|n| ObjectKey::new(n, "", "")))
            .map(move |(r, _, v)| (r, v.is_valid(r, opts)))
    }

    /// Every Service, in (namespace, name) order, with its [`ServiceDigest`] (see
    /// [`Snapshot::route_digests`]).
    pub fn service_digests(&self) -> impl Iterator<Item = (&Arc<AnyResource>, &ServiceDigest)> {
        self.service_digests.values().map(|(r, d)| (r, d))
    }

    /// The Service whose frontend includes `ip`. When (invalidly) several do, the first in
    /// (namespace, name) order.
    pub fn service_by_ip(&self, ip: IpAddr) -> Option<&Service> {
        let key = self.services_by_ip.get(&ip)?.iter().next()?;
        match self.get(key)? {
            AnyResource::Service(s) => Some(s),
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
                Some(AnyResource::Service(s)) => Some(s),
                _ => None,
            })
    }

    /// The routes (of every kind) with a parentRef naming `parent`, in [`ObjectKey`] order.
    pub fn routes_for_parent(&self, parent: &ParentKey) -> impl Iterator<Item = &AnyResource> {
        self.routes_by_parent
            .get(parent)
            .into_iter()
            .flatten()
            .filter_map(|k| self.get(k))
    }

    /// [`Snapshot::routes_for_parent`], shared: cloning an `Arc` keeps a route without
    /// copying (or looking it up again).
    pub fn routes_for_parent_shared(
        &self,
        parent: &ParentKey,
    ) -> impl Iterator<Item = &Arc<AnyResource>> {
        self.routes_by_parent
            .get(parent)
            .into_iter()
            .flatten()
            .filter_map(|k| self.objects.get(k))
    }

    /// The routes (of every kind) with a backendRef or `RequestMirror` backend named
    /// `namespace/name` (of any group and kind), in [`ObjectKey`] order: what a change of
    /// that backend can affect, found without a pass over every route.
    ///
    /// ```
    /// use gamma_model::{Snapshot, decode};
    /// let snap = Snapshot::from_resources(decode(r#"
    /// apiVersion: gateway.networking.k8s.io/v1
    /// kind: HTTPRoute
    /// metadata: {name: r, namespace: shop}
    /// spec: {rules: [{backendRefs: [{name: cart, namespace: store, port: 80}]}]}
    /// "#)?);
    /// let routes: Vec<_> = snap.routes_for_backend("store", "cart").collect();
    /// assert_eq!(routes[0].metadata().name, "r");
    /// assert_eq!(snap.routes_for_backend("shop", "cart").count(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn routes_for_backend(
        &self,
        namespace: &str,
        name: &str,
    ) -> impl Iterator<Item = &AnyResource> {
        self.routes_by_backend
            .get(&(namespace.to_owned(), name.to_owned()))
            .into_iter()
            .flatten()
            .filter_map(|k| self.get(k))
    }

    /// Every route (of every kind) with a backendRef or `RequestMirror` backend in
    /// `namespace`, with the backend's name, in (backend name, [`ObjectKey`]) order; a route
    /// naming several such backends comes once per backend.
    pub fn routes_with_backends_in<'a>(
        &'a self,
        namespace: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a AnyResource)> + 'a {
        self.routes_by_backend
            .range((namespace.to_owned(), String::new())..)
            .take_while(move |((ns, _), _)| ns == namespace)
            .flat_map(move |((_, name), keys)| {
                keys.iter()
                    .filter_map(move |k| Some((name.as_str(), self.get(k)?)))
            })
    }

    /// The route `key` (of a kind with a [`RouteDigest`]) with whether it passes validation
    /// under `opts`, as [`Snapshot::validated_routes`] gives it (the verdict is kept with the
    /// object); `None` when there is no such route.
    pub fn validated_route(
        &self,
        key: &ObjectKey,
        opts: &ValidateOptions,
    ) -> Option<(&Arc<AnyResource>, bool)> {
        let (r, _, v) = self.route_digests.get(key)?;
        Some((r, v.is_valid(r, opts)))
    }

    /// Every parent key some route refers to, in order.
    pub fn referenced_parents(&self) -> impl Iterator<Item = &ParentKey> {
        self.routes_by_parent.keys()
    }

    /// The routes (of every kind) with a parentRef naming core Service `namespace/name`, in
    /// [`ObjectKey`] order: the GAMMA routes of that Service, producer and consumer alike.
    pub fn routes_for_service(
        &self,
        namespace: &str,
        name: &str,
    ) -> impl Iterator<Item = &AnyResource> {
        self.routes_by_parent
            .get(&ParentKey::service(namespace, name))
            .into_iter()
            .flatten()
            .filter_map(|k| self.get(k))
    }

    /// Every object of `kind` in `namespace`, in name order (for cluster-scoped kinds, pass
    /// `""`).
    pub fn in_namespace<'a>(
        &'a self,
        kind: ResourceKind,
        namespace: &'a str,
    ) -> impl Iterator<Item = &'a AnyResource> + 'a {
        let start = ObjectKey::new(kind, namespace, "");
        self.objects
            .range(start..)
            .take_while(move |(k, _)| k.kind == kind && k.namespace == namespace)
            .map(|(_, v)| &**v)
    }

    /// The labels of Namespace `name`, or `None` when the snapshot has no such Namespace
    /// (namespace selectors in `allowedRoutes` and mesh ownership read these).
    pub fn namespace_labels(&self, name: &str) -> Option<&BTreeMap<String, String>> {
        self.namespace(name).map(|n| &n.metadata.labels)
    }

    /// The ReferenceGrants in `namespace` (the target namespace of a cross-namespace
    /// reference), in name order.
    pub fn reference_grants_in<'a>(
        &'a self,
        namespace: &'a str,
    ) -> impl Iterator<Item = &'a ReferenceGrant> + 'a {
        self.in_namespace(ResourceKind::ReferenceGrant, namespace)
            .filter_map(|r| match r {
                AnyResource::ReferenceGrant(g) => Some(g),
                _ => None,
            })
    }

    /// The Gateways of GatewayClass `class`, in (namespace, name) order.
    pub fn gateways_of_class<'a>(
        &'a self,
        class: &'a str,
    ) -> impl Iterator<Item = &'a Gateway> + 'a {
        self.gateways()
            .filter(move |g| g.spec.gateway_class_name == class)
    }
}

fn insert<K: Ord>(index: &mut BTreeMap<K, BTreeSet<ObjectKey>>, k: K, key: &ObjectKey) {
    index.entry(k).or_default().insert(key.clone());
}

fn remove<K: Ord>(index: &mut BTreeMap<K, BTreeSet<ObjectKey>>, k: &K, key: &ObjectKey) {
    if let Some(set) = index.get_mut(k) {
        set.remove(key);
        if set.is_empty() {
            index.remove(k);
        }
    }
}

macro_rules! typed_accessors {
    ($( $iter:ident, $get:ident, $variant:ident, $ty:ty, namespaced: $ns:tt; )+) => {
        impl Snapshot {
            $(
                #[doc = concat!("Every `", stringify!($variant), "`, in (namespace, name) order.")]
                pub fn $iter(&self) -> impl Iterator<Item = &$ty> {
                    self.of_kind(ResourceKind::$variant).filter_map(|r| match r {
                        AnyResource::$variant(o) => Some(o),
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
            match self.get(&ObjectKey::new(ResourceKind::$variant, namespace, name))? {
                AnyResource::$variant(o) => Some(o),
                _ => None,
            }
        }
    };
    (@get $get:ident, $variant:ident, $ty:ty, false) => {
        #[doc = concat!("The `", stringify!($variant), "` named `name`.")]
        pub fn $get(&self, name: &str) -> Option<&$ty> {
            match self.get(&ObjectKey::new(ResourceKind::$variant, "", name))? {
                AnyResource::$variant(o) => Some(o),
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
    listener_sets, listener_set, ListenerSet, crate::gateway::ListenerSet, namespaced: true;
    gateway_classes, gateway_class, GatewayClass, GatewayClass, namespaced: false;
    reference_grants, reference_grant, ReferenceGrant, ReferenceGrant, namespaced: true;
    services, service, Service, Service, namespaced: true;
    namespaces, namespace, Namespace, Namespace, namespaced: false;
    endpoint_slices, endpoint_slice, EndpointSlice, EndpointSlice, namespaced: true;
    config_maps, config_map, ConfigMap, ConfigMap, namespaced: true;
    secrets, secret, Secret, Secret, namespaced: true;
    backend_tls_policies, backend_tls_policy, BackendTlsPolicy, crate::gateway::BackendTlsPolicy, namespaced: true;
    xmeshes, xmesh, XMesh, XMesh, namespaced: false;
    traffic_splits, traffic_split, TrafficSplit, crate::smi::TrafficSplit, namespaced: true;
    http_route_groups, http_route_group, HttpRouteGroup, crate::smi::HttpRouteGroup, namespaced: true;
    smi_tcp_routes, smi_tcp_route, SmiTcpRoute, crate::smi::SmiTcpRoute, namespaced: true;
    smi_udp_routes, smi_udp_route, SmiUdpRoute, crate::smi::SmiUdpRoute, namespaced: true;
    traffic_targets, traffic_target, TrafficTarget, crate::smi::TrafficTarget, namespaced: true;
}

impl Snapshot {
    /// The EndpointSlices of Service `namespace/name` (by the `kubernetes.io/service-name`
    /// label), in name order.
    pub fn endpoint_slices_for(
        &self,
        namespace: &str,
        service: &str,
    ) -> impl Iterator<Item = &EndpointSlice> {
        self.slices_by_service
            .get(&(namespace.to_owned(), service.to_owned()))
            .into_iter()
            .flatten()
            .filter_map(|k| match self.get(k) {
                Some(AnyResource::EndpointSlice(e)) => Some(e),
                _ => None,
            })
    }

    /// Whether the route kinds' parentRefs make `parent_ref` a Service parent (helper for
    /// engines that only index mesh routes).
    pub fn is_service_parent(parent_ref: &ParentReference) -> bool {
        parent_ref.parent_kind() == ParentKind::Service
    }
}

fn parent_keys(resource: &AnyResource, namespace: &str) -> BTreeSet<ParentKey> {
    let refs = resource.as_route().map_or(&[][..], |r| r.parent_refs);
    refs.iter().map(|p| ParentKey::of(p, namespace)).collect()
}

/// The (namespace, name) of every backendRef and `RequestMirror` backend of a route (rule
/// filters and backendRef filters alike), defaulted to the route's namespace.
///
/// Deduplicated while borrowed: a route names the same few backends in rule after rule, and
/// only the distinct ones are copied into owned keys.
fn backend_keys(resource: &AnyResource, namespace: &str) -> Vec<(String, String)> {
    let refs = resource.backend_refs();
    let mut keys: Vec<(&str, &str)> = refs
        .iter()
        .map(|b| (b.namespace_or(namespace), b.name()))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|(ns, name)| (ns.to_owned(), name.to_owned()))
        .collect()
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
        snap.remove(&ObjectKey::new(ResourceKind::Service, "ns", "a"));
        assert!(snap.service_by_ip(v6).is_none());
    }

    #[test]
    fn validation_verdicts_are_kept_per_object_and_options() {
        use crate::validate::{Channel, ValidateOptions};
        let route = |port: &str| {
            decode(&format!(
                "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
                 metadata: {{name: r, namespace: ns}}\n\
                 spec: {{rules: [{{backendRefs: [{{name: b{port}}}]}}]}}\n"
            ))
            .unwrap()
            .remove(0)
        };
        let verdict = |s: &Snapshot, opts: &ValidateOptions| {
            let v: Vec<bool> = s
                .validated_routes(ResourceKind::HttpRoute, opts)
                .map(|(_, ok)| ok)
                .collect();
            v
        };
        let std = ValidateOptions::default();
        let exp = ValidateOptions::channel(Channel::Experimental);
        // a Service backendRef without a port is invalid (Gateway API BackendObjectReference)
        let mut snap = Snapshot::from_resources([route("")]);
        assert_eq!(verdict(&snap, &std), [false]);
        assert_eq!(verdict(&snap, &std), [false]);
        let before = snap.clone();
        // an upsert starts afresh: the kept verdict was the old object's
        snap.upsert(route(", port: 80"));
        assert_eq!(verdict(&snap, &std), [true]);
        assert_eq!(verdict(&snap, &exp), [true]);
        assert_eq!(verdict(&before, &std), [false]);
        // a cache: equality ignores it
        assert_eq!(before, Snapshot::from_resources([route("")]));
    }

    #[test]
    fn routes_are_indexed_by_defaulted_parent() {
        let mut snap = Snapshot::from_resources(decode(CLUSTER).unwrap());
        let parent = ParentKey::service("ns", "a");
        assert_eq!(snap.routes_for_parent(&parent).count(), 1);
        snap.remove(&ObjectKey::new(ResourceKind::HttpRoute, "ns", "r"));
        assert_eq!(snap.routes_for_parent(&parent).count(), 0);
    }

    #[test]
    fn lookups_by_namespace_service_and_class() {
        let snap = Snapshot::from_resources(
            decode(&format!(
                "{CLUSTER}---
apiVersion: v1
kind: Namespace
metadata: {{name: ns, labels: {{team: a}}}}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {{name: a-1, namespace: ns, labels: {{kubernetes.io/service-name: a}}}}
addressType: IPv4
endpoints: []
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {{name: b-1, namespace: ns, labels: {{kubernetes.io/service-name: b}}}}
addressType: IPv4
endpoints: []
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: ns}}
spec: {{gatewayClassName: mesh, listeners: []}}
"
            ))
            .unwrap(),
        );
        assert_eq!(snap.namespace_labels("ns").unwrap()["team"], "a");
        assert!(snap.namespace_labels("other").is_none());
        let slices: Vec<_> = snap
            .endpoint_slices_for("ns", "a")
            .map(|e| e.metadata.name.as_str())
            .collect();
        assert_eq!(slices, ["a-1"]);
        assert_eq!(snap.routes_for_service("ns", "a").count(), 1);
        assert_eq!(snap.in_namespace(ResourceKind::Service, "ns").count(), 2);
        assert_eq!(snap.gateways_of_class("mesh").count(), 1);
        assert_eq!(snap.gateways_of_class("other").count(), 0);
    }

    mod properties {
        //! Determinism (decisions do not depend on input order):
        //! the snapshot, its iteration and every index depend only on the final set of objects.

        use super::*;
        use proptest::prelude::*;
        use serde_json::json;

        const NAMES: &[&str] = &["a", "b", "c"];
        const NAMESPACES: &[&str] = &["x", "y"];
        const IPS: &[&str] = &["10.0.0.1", "10.0.0.2", "10.0.0.3", "fd00::1"];

        fn pick(from: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
            prop::sample::select(from)
        }

        fn resource(value: serde_json::Value) -> AnyResource {
            let kind = ResourceKind::from_type(
                value["apiVersion"].as_str().unwrap(),
                value["kind"].as_str().unwrap(),
            )
            .unwrap();
            AnyResource::from_value_tracked(kind, value).unwrap()
        }

        /// One object; `version` varies the content under the same identity.
        fn object() -> impl Strategy<Value = AnyResource> {
            prop_oneof![
                (
                    pick(NAMES),
                    pick(NAMESPACES),
                    prop::collection::vec(pick(IPS), 0..3)
                )
                    .prop_map(|(name, ns, ips)| {
                        let mut spec = json!({"ports": [{"port": 80}]});
                        if let Some(first) = ips.first() {
                            spec["clusterIP"] = json!(first);
                            spec["clusterIPs"] = json!(ips);
                        }
                        resource(json!({"apiVersion": "v1", "kind": "Service",
                            "metadata": {"name": name, "namespace": ns}, "spec": spec}))
                    }),
                (
                    pick(NAMES),
                    pick(NAMESPACES),
                    prop::collection::vec(
                        (
                            pick(NAMES),
                            prop::option::of(pick(NAMESPACES)),
                            any::<bool>()
                        ),
                        0..3
                    )
                )
                    .prop_map(|(name, ns, parents)| {
                        let refs: Vec<_> = parents
                            .into_iter()
                            .map(|(p, pns, service)| {
                                let mut r = if service {
                                    json!({"group": "", "kind": "Service", "name": p})
                                } else {
                                    json!({"name": p})
                                };
                                if let Some(pns) = pns {
                                    r["namespace"] = json!(pns);
                                }
                                r
                            })
                            .collect();
                        // the same names as backends (a mirror for the second), so the
                        // backend index has entries to keep
                        let backends: Vec<_> = refs
                            .iter()
                            .map(|r| {
                                let mut b = json!({"name": r["name"], "port": 80});
                                if let Some(pns) = r.get("namespace") {
                                    b["namespace"] = pns.clone();
                                }
                                b
                            })
                            .collect();
                        let mut rule = json!({"backendRefs": backends.first().into_iter().collect::<Vec<_>>()});
                        if let Some(m) = backends.get(1) {
                            rule["filters"] = json!([{"type": "RequestMirror",
                                "requestMirror": {"backendRef": m}}]);
                        }
                        resource(json!({"apiVersion": "gateway.networking.k8s.io/v1",
                            "kind": "HTTPRoute", "metadata": {"name": name, "namespace": ns},
                            "spec": {"parentRefs": refs, "rules": [rule]}}))
                    }),
                (pick(NAMES), pick(NAMESPACES), pick(NAMES)).prop_map(|(name, ns, svc)| {
                    resource(
                        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                        "metadata": {"name": name, "namespace": ns,
                            "labels": {"kubernetes.io/service-name": svc}},
                        "addressType": "IPv4", "endpoints": []}),
                    )
                }),
                (pick(NAMESPACES), pick(NAMES)).prop_map(|(name, label)| {
                    resource(json!({"apiVersion": "v1", "kind": "Namespace",
                        "metadata": {"name": name, "labels": {"team": label}}}))
                }),
            ]
        }

        /// A set of objects with distinct identities (the last of each identity wins, as in
        /// `from_resources`).
        fn object_set() -> impl Strategy<Value = Vec<AnyResource>> {
            prop::collection::vec(object(), 0..24).prop_map(|objects| {
                let mut by_key = BTreeMap::new();
                for o in objects {
                    by_key.insert(ObjectKey::of(&o), o);
                }
                by_key.into_values().collect()
            })
        }

        /// Everything observable about a snapshot through its public API.
        fn observe(snap: &Snapshot) -> Vec<String> {
            let mut out: Vec<String> = snap.iter().map(|(k, r)| format!("{k} {r:?}")).collect();
            for ip in IPS {
                let ip: IpAddr = ip.parse().unwrap();
                let first = snap.service_by_ip(ip).map(|s| s.metadata.name.clone());
                let all: Vec<_> = snap.services_by_ip(ip).map(|s| &s.metadata.name).collect();
                out.push(format!("ip {ip}: {first:?} {all:?}"));
            }
            for p in snap.referenced_parents() {
                let routes: Vec<_> = snap.routes_for_parent(p).map(ObjectKey::of).collect();
                out.push(format!("parent {p:?}: {routes:?}"));
            }
            for ns in NAMESPACES {
                for name in NAMES {
                    let slices: Vec<_> = snap
                        .endpoint_slices_for(ns, name)
                        .map(|e| &e.metadata.name)
                        .collect();
                    let routes = snap.routes_for_service(ns, name).count();
                    out.push(format!("{ns}/{name}: slices {slices:?}, routes {routes}"));
                    // the backend index is the scan it saves
                    let indexed: Vec<_> = snap
                        .routes_for_backend(ns, name)
                        .map(ObjectKey::of)
                        .collect();
                    let scanned: Vec<_> = snap
                        .iter()
                        .filter(|(k, r)| {
                            backend_keys(r, &k.namespace)
                                .contains(&(ns.to_string(), name.to_string()))
                        })
                        .map(|(k, _)| k.clone())
                        .collect();
                    assert_eq!(indexed, scanned, "{ns}/{name}");
                    let in_ns: BTreeSet<_> = snap
                        .routes_with_backends_in(ns)
                        .filter(|(b, _)| *b == *name)
                        .map(|(_, r)| ObjectKey::of(r))
                        .collect();
                    assert_eq!(in_ns, scanned.iter().cloned().collect::<BTreeSet<_>>());
                    out.push(format!("{ns}/{name}: backend of {indexed:?}"));
                }
                out.push(format!("labels {ns}: {:?}", snap.namespace_labels(ns)));
            }
            // Digests: each is its object's, the object the one stored under its key, and
            // every route and Service has one.
            let stored = |r: &Arc<AnyResource>| {
                snap.get_shared(&ObjectKey::of(r))
                    .is_some_and(|s| Arc::ptr_eq(s, r))
            };
            for kind in ResourceKind::ALL.iter().copied() {
                let mut digests = 0;
                for (r, d) in snap.route_digests(kind) {
                    assert_eq!(Some(d), RouteDigest::of(r).as_ref());
                    assert!(stored(r));
                    out.push(format!("digest {} {d:?}", ObjectKey::of(r)));
                    digests += 1;
                }
                let routes = snap
                    .of_kind(kind)
                    .filter(|r| RouteDigest::of(r).is_some())
                    .count();
                assert_eq!(digests, routes, "{kind:?}");
            }
            let mut digests = 0;
            for (r, d) in snap.service_digests() {
                assert_eq!(Some(d), ServiceDigest::of(r).as_ref());
                assert!(stored(r));
                out.push(format!("digest {} {d:?}", ObjectKey::of(r)));
                digests += 1;
            }
            assert_eq!(digests, snap.services().count());
            out
        }

        proptest! {
            #[test]
            fn any_insertion_order_gives_the_same_snapshot(
                (objects, shuffled) in object_set().prop_flat_map(|o| {
                    let s = Just(o.clone()).prop_shuffle();
                    (Just(o), s)
                })
            ) {
                let a = Snapshot::from_resources(objects);
                let b = Snapshot::from_resources(shuffled);
                prop_assert_eq!(observe(&a), observe(&b));
                prop_assert_eq!(a, b);
            }

            #[test]
            fn interleaved_upserts_and_removes_end_in_the_same_snapshot(
                objects in object_set(),
                noise in prop::collection::vec(object(), 0..16),
                order in prop::collection::vec(any::<prop::sample::Index>(), 0..64),
            ) {
                // A history: noise objects come and go, final objects are upserted (maybe after
                // a noise version of the same identity, maybe removed and re-added); the history
                // ends with exactly `objects`.
                let expected = Snapshot::from_resources(objects.clone());
                let mut ops: Vec<(bool, AnyResource)> = Vec::new();
                for n in &noise {
                    ops.push((true, n.clone()));
                }
                for o in &objects {
                    ops.push((true, o.clone()));
                }
                // Shuffle deterministically from the generated indices.
                for (i, idx) in order.iter().enumerate() {
                    if ops.is_empty() { break; }
                    let len = ops.len();
                    ops.swap(i % len, idx.index(len));
                }
                let mut snap = Snapshot::new();
                for (_, r) in &ops {
                    snap.upsert(r.clone());
                    if order.len() % 3 == 0 {
                        // Sometimes remove right away and re-add: must be a no-op overall.
                        snap.remove(&ObjectKey::of(r));
                        snap.upsert(r.clone());
                    }
                }
                // Remove every identity not in the final set, then settle the final versions.
                let keep: BTreeSet<ObjectKey> = objects.iter().map(ObjectKey::of).collect();
                for (_, r) in &ops {
                    let k = ObjectKey::of(r);
                    if !keep.contains(&k) {
                        snap.remove(&k);
                    }
                }
                for o in objects.iter().rev() {
                    snap.upsert(o.clone());
                }
                prop_assert_eq!(observe(&snap), observe(&expected));
                prop_assert_eq!(snap, expected);
            }
        }
    }
}
