//! Any supported object, its kind, and its identity.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::gateway::{
    BackendTlsPolicy, Gateway, GatewayClass, GrpcRoute, HttpRoute, ListenerSet, ReferenceGrant,
    RouteStatus, TcpRoute, TlsRoute, UdpRoute,
};
use crate::k8s::{ClusterTrustBundle, ConfigMap, EndpointSlice, Namespace, Pod, Secret, Service};
use crate::meta::ObjectMeta;
use crate::smi::{HttpRouteGroup, SmiTcpRoute, SmiUdpRoute, TrafficSplit, TrafficTarget};
use crate::xauthz::XAuthorizationPolicy;
use crate::xbackend::{XBackend, XBackendTrafficPolicy};
use crate::xmesh::XMesh;
use crate::xtelemetry::XTelemetryPolicy;

macro_rules! resources {
    (@unique $kind:literal) => { $kind };
    (@unique $kind:literal, $unique:literal) => { $unique };
    ($( $(#[$doc:meta])* $variant:ident($ty:ty) => $kind:literal $(as $unique:literal)?, namespaced: $ns:literal, versions: [$($ver:literal),+] ;)+) => {
        /// The kinds of object gamma-rs understands.
        ///
        /// Encoded (serde, JSON Schema, `Display`) by [`ResourceKind::unique_name`]: the wire kind,
        /// qualified by API group where two groups use the same kind name (the SMI `TCPRoute`
        /// and `UDPRoute`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ResourceKind {
            $( $(#[$doc])* $variant, )+
        }

        impl ResourceKind {
            /// Every kind, in a fixed order.
            pub const ALL: &'static [ResourceKind] = &[$(ResourceKind::$variant),+];

            /// The kind's wire name (`HTTPRoute`).
            pub fn as_str(&self) -> &'static str {
                match self { $(ResourceKind::$variant => $kind,)+ }
            }

            /// Whether objects of this kind live in a namespace.
            pub fn is_namespaced(&self) -> bool {
                match self { $(ResourceKind::$variant => $ns,)+ }
            }

            /// The `apiVersion`s decoded into this kind; the first is the preferred one.
            pub fn api_versions(&self) -> &'static [&'static str] {
                match self { $(ResourceKind::$variant => &[$($ver),+],)+ }
            }

            /// The JSON Schema of this kind's wire type as schemars derives it, generated from
            /// the same list as the enum so every kind has one; `schema` adds the CRDs'
            /// `required` lists ([`ResourceKind::json_schema`]).
            pub(crate) fn derived_schema(&self) -> schemars::Schema {
                match self { $(ResourceKind::$variant => schemars::schema_for!($ty),)+ }
            }

            /// The kind's name, unique among all kinds: the wire kind, qualified by API group
            /// (`TCPRoute.specs.smi-spec.io`) where the wire kind alone is ambiguous.
            pub fn unique_name(&self) -> &'static str {
                match self { $(ResourceKind::$variant => resources!(@unique $kind $(, $unique)?),)+ }
            }
        }

        /// Any supported object.
        // Variants differ in size (an HTTPRoute is large); boxing them would cost every user an
        // indirection for no gain, since snapshots already keep objects behind an `Arc`.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
        #[serde(untagged)]
        #[non_exhaustive]
        pub enum AnyResource {
            $( $(#[$doc])* $variant($ty), )+
        }

        impl AnyResource {
            /// The object's kind.
            pub fn kind(&self) -> ResourceKind {
                match self { $(AnyResource::$variant(_) => ResourceKind::$variant,)+ }
            }

            /// The object's metadata.
            pub fn metadata(&self) -> &ObjectMeta {
                match self { $(AnyResource::$variant(o) => &o.metadata,)+ }
            }

            /// The object's metadata, mutably.
            pub fn metadata_mut(&mut self) -> &mut ObjectMeta {
                match self { $(AnyResource::$variant(o) => &mut o.metadata,)+ }
            }

            /// The `apiVersion` the object was decoded with.
            pub fn api_version(&self) -> &str {
                match self { $(AnyResource::$variant(o) => &o.api_version,)+ }
            }

            /// The object as something to validate; generated with the variant list so a new
            /// kind can never be left out of `AnyResource`'s validation.
            pub(crate) fn as_validate(&self) -> &dyn crate::validate::Validate {
                match self { $(AnyResource::$variant(o) => o,)+ }
            }

            /// Decodes a JSON value whose `apiVersion` and `kind` were already read, without
            /// tracking the field path (the fast path; see [`AnyResource::from_value_tracked`]).
            pub(crate) fn from_value_untracked(
                kind: ResourceKind,
                value: serde_json::Value,
            ) -> Result<AnyResource, serde_json::Error> {
                Ok(match kind {
                    $(ResourceKind::$variant => AnyResource::$variant(serde_json::from_value(value)?),)+
                })
            }

            /// Decodes a JSON value whose `apiVersion` and `kind` were already read; an error
            /// carries the path of the offending field. Path tracking allocates per field, so
            /// decode uses it only to explain a failure of [`AnyResource::from_value_untracked`].
            pub(crate) fn from_value_tracked(
                kind: ResourceKind,
                value: serde_json::Value,
            ) -> Result<AnyResource, serde_path_to_error::Error<serde_json::Error>> {
                Ok(match kind {
                    $(ResourceKind::$variant => AnyResource::$variant(serde_path_to_error::deserialize(value)?),)+
                })
            }

            /// As [`AnyResource::from_value_untracked`], reading a borrowed value (so that a
            /// failure can be explained from the same value).
            pub(crate) fn from_value_ref(
                kind: ResourceKind,
                value: &serde_json::Value,
            ) -> Result<AnyResource, serde_json::Error> {
                Ok(match kind {
                    $(ResourceKind::$variant => AnyResource::$variant(serde::Deserialize::deserialize(value)?),)+
                })
            }

            /// As [`AnyResource::from_value_tracked`], reading a borrowed value.
            pub(crate) fn from_value_ref_tracked(
                kind: ResourceKind,
                value: &serde_json::Value,
            ) -> Result<AnyResource, serde_path_to_error::Error<serde_json::Error>> {
                Ok(match kind {
                    $(ResourceKind::$variant => AnyResource::$variant(serde_path_to_error::deserialize(value)?),)+
                })
            }
        }

        $(
            impl From<$ty> for AnyResource {
                fn from(o: $ty) -> AnyResource { AnyResource::$variant(o) }
            }
        )+
    };
}

resources! {
    /// `gateway.networking.k8s.io` HTTPRoute.
    HttpRoute(HttpRoute) => "HTTPRoute", namespaced: true,
        versions: ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"];
    /// `gateway.networking.k8s.io` GRPCRoute.
    GrpcRoute(GrpcRoute) => "GRPCRoute", namespaced: true,
        versions: ["gateway.networking.k8s.io/v1"];
    /// `gateway.networking.k8s.io` TLSRoute.
    TlsRoute(TlsRoute) => "TLSRoute", namespaced: true,
        versions: ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1alpha3", "gateway.networking.k8s.io/v1alpha2"];
    /// `gateway.networking.k8s.io` TCPRoute.
    TcpRoute(TcpRoute) => "TCPRoute", namespaced: true,
        versions: ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1alpha2"];
    /// `gateway.networking.k8s.io` UDPRoute.
    UdpRoute(UdpRoute) => "UDPRoute", namespaced: true,
        versions: ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1alpha2"];
    /// `gateway.networking.k8s.io` Gateway.
    Gateway(Box<Gateway>) => "Gateway", namespaced: true,
        versions: ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"];
    /// `gateway.networking.k8s.io` GatewayClass.
    GatewayClass(GatewayClass) => "GatewayClass", namespaced: false,
        versions: ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"];
    /// `gateway.networking.k8s.io` ListenerSet.
    ListenerSet(ListenerSet) => "ListenerSet", namespaced: true,
        versions: ["gateway.networking.k8s.io/v1"];
    /// `gateway.networking.k8s.io` ReferenceGrant.
    ReferenceGrant(ReferenceGrant) => "ReferenceGrant", namespaced: true,
        versions: ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"];
    /// `gateway.networking.k8s.io` BackendTLSPolicy.
    BackendTlsPolicy(BackendTlsPolicy) => "BackendTLSPolicy", namespaced: true,
        versions: ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1alpha3"];
    /// `gateway.networking.x-k8s.io` XMesh.
    XMesh(XMesh) => "XMesh", namespaced: false,
        versions: ["gateway.networking.x-k8s.io/v1alpha1"];
    /// `gateway.networking.x-k8s.io` XBackend (experimental channel).
    XBackend(Box<XBackend>) => "XBackend", namespaced: true,
        versions: ["gateway.networking.x-k8s.io/v1alpha1"];
    /// `gateway.networking.x-k8s.io` XBackendTrafficPolicy (experimental channel).
    XBackendTrafficPolicy(Box<XBackendTrafficPolicy>) => "XBackendTrafficPolicy", namespaced: true,
        versions: ["gateway.networking.x-k8s.io/v1alpha1"];
    /// `gateway.networking.x-k8s.io` XTelemetryPolicy (experimental channel, from v1.7).
    XTelemetryPolicy(Box<XTelemetryPolicy>) => "XTelemetryPolicy", namespaced: true,
        versions: ["gateway.networking.x-k8s.io/v1alpha1"];
    /// `gateway.networking.x-k8s.io` XAuthorizationPolicy: a proposal model of GEP-3779's
    /// AuthorizationPolicy (no release has it; see [`crate::xauthz`]).
    XAuthorizationPolicy(XAuthorizationPolicy) => "XAuthorizationPolicy", namespaced: true,
        versions: ["gateway.networking.x-k8s.io/v1alpha1"];
    /// Core Service.
    Service(Service) => "Service", namespaced: true, versions: ["v1"];
    /// Core Namespace.
    Namespace(Namespace) => "Namespace", namespaced: false, versions: ["v1"];
    /// `discovery.k8s.io` EndpointSlice.
    EndpointSlice(EndpointSlice) => "EndpointSlice", namespaced: true,
        versions: ["discovery.k8s.io/v1"];
    /// Core ConfigMap (the CA bundles of BackendTLSPolicy).
    ConfigMap(ConfigMap) => "ConfigMap", namespaced: true, versions: ["v1"];
    /// Core Secret: name, type and entry names only (listener `tls.certificateRefs`).
    Secret(Secret) => "Secret", namespaced: true, versions: ["v1"];
    /// `certificates.k8s.io` ClusterTrustBundle: name, signer and whether it holds PEM only
    /// (the CA references of GEP-5075). `v1` since Kubernetes 1.37 (GA, served by default),
    /// `v1beta1` from 1.33 and `v1alpha1` before, both served only where a cluster enables them.
    ClusterTrustBundle(ClusterTrustBundle) => "ClusterTrustBundle", namespaced: false,
        versions: ["certificates.k8s.io/v1", "certificates.k8s.io/v1beta1", "certificates.k8s.io/v1alpha1"];
    /// Core Pod: name, namespace, labels, ServiceAccount, IPs and readiness only (the
    /// workloads of authorization policies).
    Pod(Pod) => "Pod", namespaced: true, versions: ["v1"];
    /// SMI `split.smi-spec.io` TrafficSplit.
    TrafficSplit(TrafficSplit) => "TrafficSplit", namespaced: true,
        versions: ["split.smi-spec.io/v1alpha4", "split.smi-spec.io/v1alpha3", "split.smi-spec.io/v1alpha2", "split.smi-spec.io/v1alpha1"];
    /// SMI `specs.smi-spec.io` HTTPRouteGroup.
    HttpRouteGroup(HttpRouteGroup) => "HTTPRouteGroup", namespaced: true,
        versions: ["specs.smi-spec.io/v1alpha4", "specs.smi-spec.io/v1alpha3", "specs.smi-spec.io/v1alpha2", "specs.smi-spec.io/v1alpha1"];
    /// SMI `specs.smi-spec.io` TCPRoute (not the Gateway API TCPRoute).
    SmiTcpRoute(SmiTcpRoute) => "TCPRoute" as "TCPRoute.specs.smi-spec.io", namespaced: true,
        versions: ["specs.smi-spec.io/v1alpha4", "specs.smi-spec.io/v1alpha3", "specs.smi-spec.io/v1alpha2", "specs.smi-spec.io/v1alpha1"];
    /// SMI `specs.smi-spec.io` UDPRoute (not the Gateway API UDPRoute); v1alpha4 only.
    SmiUdpRoute(SmiUdpRoute) => "UDPRoute" as "UDPRoute.specs.smi-spec.io", namespaced: true,
        versions: ["specs.smi-spec.io/v1alpha4"];
    /// SMI `access.smi-spec.io` TrafficTarget.
    TrafficTarget(Box<TrafficTarget>) => "TrafficTarget", namespaced: true,
        versions: ["access.smi-spec.io/v1alpha3", "access.smi-spec.io/v1alpha2", "access.smi-spec.io/v1alpha1"];
}

// The kinds larger than the common ones are boxed, so that an `AnyResource`, which a snapshot
// holds for every object, costs what a route or a Service needs (XBackend alone made every
// object 864 bytes, against 376 for an HTTPRoute; few clusters hold many of these kinds).
// They convert from the unboxed object too.
macro_rules! boxed_from {
    ($($variant:ident),+) => {
        $(
            impl From<$variant> for AnyResource {
                fn from(o: $variant) -> AnyResource { AnyResource::$variant(Box::new(o)) }
            }
        )+
    };
}
boxed_from!(
    Gateway,
    XBackend,
    XBackendTrafficPolicy,
    XTelemetryPolicy,
    TrafficTarget
);

impl ResourceKind {
    /// The first kind (in [`ResourceKind::ALL`] order, Gateway API before SMI) with this wire
    /// name. Kind names are not unique across API groups (`TCPRoute` is both a Gateway API and
    /// an SMI kind): use [`ResourceKind::from_type`] when the `apiVersion` is known.
    pub fn from_kind_name(name: &str) -> Option<ResourceKind> {
        ResourceKind::ALL
            .iter()
            .copied()
            .find(|k| k.as_str() == name)
    }

    /// The kind decoded from objects with this `apiVersion` and `kind`.
    ///
    /// ```
    /// use gamma_model::ResourceKind;
    /// assert_eq!(
    ///     ResourceKind::from_type("specs.smi-spec.io/v1alpha4", "TCPRoute"),
    ///     Some(ResourceKind::SmiTcpRoute)
    /// );
    /// assert_eq!(
    ///     ResourceKind::from_type("gateway.networking.k8s.io/v1", "TCPRoute"),
    ///     Some(ResourceKind::TcpRoute)
    /// );
    /// ```
    pub fn from_type(api_version: &str, kind: &str) -> Option<ResourceKind> {
        ResourceKind::ALL
            .iter()
            .copied()
            .find(|k| k.as_str() == kind && k.api_versions().contains(&api_version))
    }

    /// The kind with this [`ResourceKind::unique_name`].
    pub fn from_unique_name(name: &str) -> Option<ResourceKind> {
        ResourceKind::ALL
            .iter()
            .copied()
            .find(|k| k.unique_name() == name)
    }
}

impl fmt::Display for ResourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.unique_name())
    }
}

impl Serialize for ResourceKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.unique_name())
    }
}

impl<'de> Deserialize<'de> for ResourceKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        ResourceKind::from_unique_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown resource kind {name:?}")))
    }
}

impl JsonSchema for ResourceKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ResourceKind".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = ResourceKind::ALL.iter().map(|k| k.unique_name()).collect();
        schemars::json_schema!({ "type": "string", "enum": names })
    }
}

impl AnyResource {
    /// The status of a route (any of the five route kinds): `None` for other kinds, and for a
    /// route that has no status yet.
    pub fn route_status(&self) -> Option<&RouteStatus> {
        self.as_route()?.status
    }

    /// The status field of a route (any of the five route kinds), to read or replace whatever
    /// the kind; `None` when this is not a route, so a status is never set on another kind.
    ///
    /// ```
    /// use gamma_model::{AnyResource, decode, gateway::RouteStatus};
    ///
    /// let mut route = decode(r#"
    /// apiVersion: gateway.networking.k8s.io/v1
    /// kind: TCPRoute
    /// metadata: {name: db, namespace: shop}
    /// spec: {rules: [{}]}
    /// "#)?.remove(0);
    /// if let Some(status) = route.route_status_mut() {
    ///     *status = Some(RouteStatus::default());
    /// }
    /// assert_eq!(route.route_status(), Some(&RouteStatus::default()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn route_status_mut(&mut self) -> Option<&mut Option<RouteStatus>> {
        match self {
            AnyResource::HttpRoute(r) => Some(&mut r.status),
            AnyResource::GrpcRoute(r) => Some(&mut r.status),
            AnyResource::TlsRoute(r) => Some(&mut r.status),
            AnyResource::TcpRoute(r) => Some(&mut r.status),
            AnyResource::UdpRoute(r) => Some(&mut r.status),
            _ => None,
        }
    }
}

impl ResourceKind {
    /// Whether this is a route kind (HTTP, GRPC, TLS, TCP, UDP).
    pub fn is_route(&self) -> bool {
        self.route_kind().is_some()
    }
}

/// The identity of an object: kind, namespace (empty for cluster-scoped kinds) and name.
///
/// Ordered by kind, then namespace, then name: the deterministic order every iteration uses.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct ObjectKey {
    /// The kind.
    pub kind: ResourceKind,
    /// The namespace; empty for cluster-scoped kinds.
    pub namespace: String,
    /// The name.
    pub name: String,
}

impl ObjectKey {
    /// A reference to a namespaced object (or, with an empty namespace, a cluster-scoped one).
    pub fn new(kind: ResourceKind, namespace: impl Into<String>, name: impl Into<String>) -> Self {
        ObjectKey {
            kind,
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// The reference of a resource; namespaced kinds without a namespace get `default`, as the
    /// API server would give them.
    pub fn of(resource: &AnyResource) -> Self {
        let kind = resource.kind();
        let meta = resource.metadata();
        let namespace = if kind.is_namespaced() {
            meta.namespace_or_default().to_owned()
        } else {
            String::new()
        };
        ObjectKey {
            kind,
            namespace,
            name: meta.name.clone(),
        }
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{} {}", self.kind, self.name)
        } else {
            write!(f, "{} {}/{}", self.kind, self.namespace, self.name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode;

    // A snapshot holds an `AnyResource` for every object, so its size is paid by every route,
    // Service and Namespace: no kind may make it larger than the common kinds need, or that
    // kind is boxed (as Gateway, XBackend, XBackendTrafficPolicy, XTelemetryPolicy and
    // TrafficTarget are).
    #[test]
    fn an_any_resource_costs_what_the_common_kinds_need() {
        let common = [
            std::mem::size_of::<HttpRoute>(),
            std::mem::size_of::<Service>(),
            std::mem::size_of::<Namespace>(),
            std::mem::size_of::<EndpointSlice>(),
            std::mem::size_of::<GatewayClass>(),
            std::mem::size_of::<XMesh>(),
            std::mem::size_of::<ListenerSet>(),
            std::mem::size_of::<BackendTlsPolicy>(),
        ];
        let largest = common.into_iter().max().unwrap_or_default();
        // the discriminant and alignment at most
        assert!(
            std::mem::size_of::<AnyResource>() <= largest + 16,
            "AnyResource is {} bytes, the largest common kind {largest}",
            std::mem::size_of::<AnyResource>()
        );
    }

    #[test]
    fn route_status_is_read_and_set_the_same_way_for_every_route_kind() {
        let text = "\
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a, namespace: n}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: a, namespace: n}
---
apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata: {name: a, namespace: n}
spec: {hostnames: [a.example], rules: [{}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata: {name: a, namespace: n}
spec: {rules: [{}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: UDPRoute
metadata: {name: a, namespace: n}
spec: {rules: [{}]}
---
apiVersion: v1
kind: Service
metadata: {name: a, namespace: n}
";
        let mut objects = decode(text).unwrap();
        let status = RouteStatus::default();
        for o in &mut objects {
            let is_route = o.kind().is_route();
            assert_eq!(o.route_status(), None, "{:?}", o.kind());
            match o.route_status_mut() {
                Some(slot) => *slot = Some(status.clone()),
                None => assert!(!is_route, "{:?}", o.kind()),
            }
            let expected = if is_route { Some(&status) } else { None };
            assert_eq!(o.route_status(), expected, "{:?}", o.kind());
        }
        assert_eq!(objects.iter().filter(|o| o.kind().is_route()).count(), 5);
    }
}
