//! [`Route`]: any converted route kind, for engines that walk a snapshot's resources.

use serde::Serialize;

use super::{GrpcRoute, HttpRoute, ParentRef, Partial, TcpRoute, TlsRoute, UdpRoute};
use crate::meta::ObjectMeta;
use crate::resource::{AnyResource, ResourceKind};
use crate::validate::{ValidateOptions, ValidationErrors};

/// A route of any kind, converted to the IR.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind")]
#[non_exhaustive]
pub enum Route {
    /// An HTTPRoute.
    #[serde(rename = "HTTPRoute")]
    Http(HttpRoute),
    /// A GRPCRoute.
    #[serde(rename = "GRPCRoute")]
    Grpc(GrpcRoute),
    /// A TLSRoute.
    #[serde(rename = "TLSRoute")]
    Tls(TlsRoute),
    /// A TCPRoute.
    #[serde(rename = "TCPRoute")]
    Tcp(TcpRoute),
    /// A UDPRoute.
    #[serde(rename = "UDPRoute")]
    Udp(UdpRoute),
}

impl Route {
    /// Converts a route resource, dropping invalid rules (see the [module docs](super)).
    /// `None` for resources that are not Gateway API routes.
    ///
    /// ```
    /// use gamma_model::ir::Route;
    /// use gamma_model::validate::ValidateOptions;
    /// let objects = gamma_model::decode(r#"
    /// apiVersion: gateway.networking.k8s.io/v1
    /// kind: TCPRoute
    /// metadata: {name: db, namespace: shop}
    /// spec:
    ///   parentRefs: [{group: "", kind: Service, name: db, port: 5432}]
    ///   rules: [{backendRefs: [{name: db-v2, port: 5432}]}]
    /// "#).unwrap();
    /// let route = Route::from_resource(&objects[0], &ValidateOptions::default())
    ///     .unwrap()
    ///     .unwrap()
    ///     .value;
    /// assert_eq!(route.kind().as_str(), "TCPRoute");
    /// assert_eq!(route.parent_refs()[0].port, Some(5432));
    /// ```
    pub fn from_resource(
        resource: &AnyResource,
        opts: &ValidateOptions,
    ) -> Option<Result<Partial<Route>, ValidationErrors>> {
        Route::convert(resource, opts, false)
    }

    /// [`Route::from_resource`] for a route already known to be valid under `opts` (the
    /// verdict [`Snapshot::validated_routes`](crate::Snapshot::validated_routes) keeps): the
    /// defaults are applied without validating again. The caller vouches for the verdict; a
    /// route that is not valid after all may convert with values validation would refuse.
    pub fn from_valid_resource(
        resource: &AnyResource,
        opts: &ValidateOptions,
    ) -> Option<Result<Partial<Route>, ValidationErrors>> {
        Route::convert(resource, opts, true)
    }

    fn convert(
        resource: &AnyResource,
        opts: &ValidateOptions,
        known_valid: bool,
    ) -> Option<Result<Partial<Route>, ValidationErrors>> {
        fn wrap<T>(
            r: Result<Partial<T>, ValidationErrors>,
            f: fn(T) -> Route,
        ) -> Result<Partial<Route>, ValidationErrors> {
            r.map(|p| p.map(f))
        }
        let v = known_valid;
        Some(match resource {
            AnyResource::HttpRoute(r) => wrap(HttpRoute::convert(r, opts, v), Route::Http),
            AnyResource::GrpcRoute(r) => wrap(GrpcRoute::convert(r, opts, v), Route::Grpc),
            AnyResource::TlsRoute(r) => wrap(TlsRoute::convert(r, opts, v), Route::Tls),
            AnyResource::TcpRoute(r) => wrap(TcpRoute::convert(r, opts, v), Route::Tcp),
            AnyResource::UdpRoute(r) => wrap(UdpRoute::convert(r, opts, v), Route::Udp),
            _ => return None,
        })
    }

    /// The resource kind.
    pub fn kind(&self) -> ResourceKind {
        match self {
            Route::Http(_) => ResourceKind::HttpRoute,
            Route::Grpc(_) => ResourceKind::GrpcRoute,
            Route::Tls(_) => ResourceKind::TlsRoute,
            Route::Tcp(_) => ResourceKind::TcpRoute,
            Route::Udp(_) => ResourceKind::UdpRoute,
        }
    }

    /// The route's metadata.
    pub fn metadata(&self) -> &ObjectMeta {
        match self {
            Route::Http(r) => &r.metadata,
            Route::Grpc(r) => &r.metadata,
            Route::Tls(r) => &r.metadata,
            Route::Tcp(r) => &r.metadata,
            Route::Udp(r) => &r.metadata,
        }
    }

    /// The route's namespace (`default` when unset).
    pub fn namespace(&self) -> &str {
        match self {
            Route::Http(r) => &r.namespace,
            Route::Grpc(r) => &r.namespace,
            Route::Tls(r) => &r.namespace,
            Route::Tcp(r) => &r.namespace,
            Route::Udp(r) => &r.namespace,
        }
    }

    /// The defaulted parent references.
    pub fn parent_refs(&self) -> &[ParentRef] {
        match self {
            Route::Http(r) => &r.parent_refs,
            Route::Grpc(r) => &r.parent_refs,
            Route::Tls(r) => &r.parent_refs,
            Route::Tcp(r) => &r.parent_refs,
            Route::Udp(r) => &r.parent_refs,
        }
    }
}
