//! The lookups of a [`Snapshot`]: by kind, by address, by parent and backend, by namespace,
//! and the typed accessors of each kind; the digests and validation verdicts whole-cluster
//! passes read.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use crate::digest::{RouteDigest, ServiceDigest};
use crate::gateway::{
    Gateway, GatewayClass, GrpcRoute, HttpRoute, ParentKind, ParentReference, ReferenceGrant,
    TcpRoute, TlsRoute, UdpRoute,
};
use crate::k8s::{ConfigMap, EndpointSlice, Namespace, Pod, Secret, Service};
use crate::resource::{AnyResource, ObjectKey, ResourceKind};
use crate::validate::ValidateOptions;
use crate::xmesh::XMesh;

use super::{ParentKey, Snapshot};

impl Snapshot {
    /// Every object, in deterministic order.
    pub fn iter(&self) -> impl Iterator<Item = (&ObjectKey, &AnyResource)> {
        self.objects.iter().map(|(k, v)| (k, &**v))
    }

    /// Every object, shared, in key order: what a reader keeps to know later which object a
    /// change replaced, without copying the objects or the snapshot's indexes.
    pub fn iter_shared(&self) -> impl Iterator<Item = (&ObjectKey, &Arc<AnyResource>)> {
        self.objects.iter()
    }

    /// Every object of one kind, in (namespace, name) order.
    pub fn of_kind(&self, kind: ResourceKind) -> impl Iterator<Item = &AnyResource> {
        self.of_kind_shared(kind).map(|v| &**v)
    }

    /// Every object of one kind, in (namespace, name) order, shared (see [`Snapshot::get_shared`]).
    pub fn of_kind_shared(&self, kind: ResourceKind) -> impl Iterator<Item = &Arc<AnyResource>> {
        self.has_kind(kind)
            .then(|| self.objects.range(ObjectKey::new(kind, "", "")..))
            .into_iter()
            .flatten()
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

    /// The keys of every Service claiming `ip`, in (namespace, name) order: what
    /// [`Snapshot::services_by_ip`] gives, without looking the objects up (a reader that needs
    /// only their names saves a search per Service).
    pub fn service_keys_by_ip(&self, ip: IpAddr) -> impl Iterator<Item = &ObjectKey> {
        self.services_by_ip.get(&ip).into_iter().flatten()
    }

    /// The keys of every Gateway reachable at `ip`
    /// ([`Gateway::frontend_addresses`](crate::gateway::Gateway::frontend_addresses)), in
    /// (namespace, name) order.
    pub fn gateway_keys_by_ip(&self, ip: IpAddr) -> impl Iterator<Item = &ObjectKey> {
        self.gateways_by_ip.get(&ip).into_iter().flatten()
    }

    /// The routes (of every kind) with a parentRef naming `parent`, in [`ObjectKey`] order.
    pub fn routes_for_parent(&self, parent: &ParentKey) -> impl Iterator<Item = &AnyResource> {
        self.routes_by_parent
            .get(parent)
            .into_iter()
            .flat_map(|routes| routes.values().map(|r| &**r))
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
            .flat_map(|routes| routes.values())
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
            .flat_map(|routes| routes.values().map(|r| &**r))
    }

    /// Every object of `kind` in `namespace`, in name order (for cluster-scoped kinds, pass
    /// `""`).
    pub fn in_namespace<'a>(
        &'a self,
        kind: ResourceKind,
        namespace: &'a str,
    ) -> impl Iterator<Item = &'a AnyResource> + 'a {
        self.has_kind(kind)
            .then(|| self.objects.range(ObjectKey::new(kind, namespace, "")..))
            .into_iter()
            .flatten()
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

macro_rules! typed_accessors {
    ($( $iter:ident, $get:ident, $variant:ident, $ty:ty, namespaced: $ns:tt; )+) => {
        impl Snapshot {
            $(
                #[doc = concat!("Every `", stringify!($variant), "`, in (namespace, name) order.")]
                pub fn $iter(&self) -> impl Iterator<Item = &$ty> {
                    self.of_kind(ResourceKind::$variant).filter_map(|r| match r {
                        // the large kinds are boxed in `AnyResource`: the object either way
                AnyResource::$variant(o) => Some(std::borrow::Borrow::<$ty>::borrow(o)),
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
            if !self.has_kind(ResourceKind::$variant) {
                return None;
            }
            match self.get(&ObjectKey::new(ResourceKind::$variant, namespace, name))? {
                // the large kinds are boxed in `AnyResource`: the object either way
                AnyResource::$variant(o) => Some(std::borrow::Borrow::<$ty>::borrow(o)),
                _ => None,
            }
        }
    };
    (@get $get:ident, $variant:ident, $ty:ty, false) => {
        #[doc = concat!("The `", stringify!($variant), "` named `name`.")]
        pub fn $get(&self, name: &str) -> Option<&$ty> {
            if !self.has_kind(ResourceKind::$variant) {
                return None;
            }
            match self.get(&ObjectKey::new(ResourceKind::$variant, "", name))? {
                // the large kinds are boxed in `AnyResource`: the object either way
                AnyResource::$variant(o) => Some(std::borrow::Borrow::<$ty>::borrow(o)),
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
    cluster_trust_bundles, cluster_trust_bundle, ClusterTrustBundle, crate::k8s::ClusterTrustBundle, namespaced: false;
    pods, pod, Pod, Pod, namespaced: true;
    xauthorization_policies, xauthorization_policy, XAuthorizationPolicy, crate::xauthz::XAuthorizationPolicy, namespaced: true;
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
            .get(namespace)
            .and_then(|by_name| by_name.get(service))
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
