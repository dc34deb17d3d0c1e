//! [`RouteKind`] and [`RouteView`]: the five Gateway API route kinds, and the parts every engine
//! reads from a route of any kind. This is the one place that dispatches over the route kinds
//! of an [`AnyResource`]; arbiter, digests, snapshot, controller and resolve read routes
//! through it.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::gateway::{
    BackendRefExt, HttpRequestMirrorFilter, L4RouteRule, ParentReference, RouteStatus,
};
use crate::meta::ObjectMeta;
use crate::resource::{AnyResource, ResourceKind};

/// The Gateway API route kinds, in mesh precedence order (GEP-1294 route types): GRPCRoute >
/// HTTPRoute > TLSRoute > TCPRoute; UDPRoute is orthogonal (it never shares a TCP port).
///
/// Exhaustive on purpose: every engine handles each kind (the route table keeps one slot per
/// kind), so a kind added upstream is a change to all of them, not a variant to ignore.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum RouteKind {
    /// `GRPCRoute`
    #[serde(rename = "GRPCRoute")]
    Grpc,
    /// `HTTPRoute`
    #[serde(rename = "HTTPRoute")]
    Http,
    /// `TLSRoute`
    #[serde(rename = "TLSRoute")]
    Tls,
    /// `TCPRoute`
    #[serde(rename = "TCPRoute")]
    Tcp,
    /// `UDPRoute`
    #[serde(rename = "UDPRoute")]
    Udp,
}

impl RouteKind {
    /// Every route kind, in precedence order; `kind as usize` is the kind's position here
    /// (engines keep one slot per kind in arrays indexed by it).
    pub const ALL: [RouteKind; 5] = [
        RouteKind::Grpc,
        RouteKind::Http,
        RouteKind::Tls,
        RouteKind::Tcp,
        RouteKind::Udp,
    ];

    /// The Kubernetes kind name (`HTTPRoute`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Grpc => "GRPCRoute",
            Self::Http => "HTTPRoute",
            Self::Tls => "TLSRoute",
            Self::Tcp => "TCPRoute",
            Self::Udp => "UDPRoute",
        }
    }

    /// The route kind named `kind` (the Kubernetes kind name, e.g. in a listener's
    /// `allowedRoutes.kinds`); `None` for anything else.
    pub fn from_kind_name(kind: &str) -> Option<RouteKind> {
        RouteKind::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// The resource kind of routes of this kind.
    pub fn resource_kind(self) -> ResourceKind {
        match self {
            Self::Grpc => ResourceKind::GrpcRoute,
            Self::Http => ResourceKind::HttpRoute,
            Self::Tls => ResourceKind::TlsRoute,
            Self::Tcp => ResourceKind::TcpRoute,
            Self::Udp => ResourceKind::UdpRoute,
        }
    }
}

impl fmt::Display for RouteKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<RouteKind> for ResourceKind {
    fn from(kind: RouteKind) -> ResourceKind {
        kind.resource_kind()
    }
}

impl ResourceKind {
    /// The route kind of this resource kind; `None` when it is not a Gateway API route.
    pub fn route_kind(&self) -> Option<RouteKind> {
        RouteKind::ALL
            .into_iter()
            .find(|k| k.resource_kind() == *self)
    }
}

/// What every engine reads from a route of any kind, borrowed: its kind, metadata,
/// parentRefs (as written), hostnames (empty for kinds without them) and status.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RouteView<'a> {
    /// The route kind.
    pub kind: RouteKind,
    /// The route's metadata.
    pub metadata: &'a ObjectMeta,
    /// `spec.parentRefs`, as written (no defaults applied).
    pub parent_refs: &'a [ParentReference],
    /// `spec.hostnames` (always empty for TCPRoute and UDPRoute, which have none).
    pub hostnames: &'a [String],
    /// The stored status, if any.
    pub status: Option<&'a RouteStatus>,
}

impl AnyResource {
    /// The route view of this object; `None` when it is not a Gateway API route.
    ///
    /// ```
    /// use gamma_model::{RouteKind, decode};
    ///
    /// let objects = decode(r#"
    /// apiVersion: gateway.networking.k8s.io/v1
    /// kind: TCPRoute
    /// metadata: {name: db, namespace: shop}
    /// spec:
    ///   parentRefs: [{group: "", kind: Service, name: db, port: 5432}]
    ///   rules: [{backendRefs: [{name: db-v2, port: 5432}]}]
    /// "#)?;
    /// let route = objects[0].as_route().unwrap();
    /// assert_eq!(route.kind, RouteKind::Tcp);
    /// assert_eq!(route.parent_refs[0].name, "db");
    /// assert!(route.hostnames.is_empty() && route.status.is_none());
    /// # Ok::<(), gamma_model::DecodeError>(())
    /// ```
    pub fn as_route(&self) -> Option<RouteView<'_>> {
        let no_hostnames: &[String] = &[];
        Some(match self {
            AnyResource::HttpRoute(r) => RouteView {
                kind: RouteKind::Http,
                metadata: &r.metadata,
                parent_refs: &r.spec.parent_refs,
                hostnames: &r.spec.hostnames,
                status: r.status.as_ref(),
            },
            AnyResource::GrpcRoute(r) => RouteView {
                kind: RouteKind::Grpc,
                metadata: &r.metadata,
                parent_refs: &r.spec.parent_refs,
                hostnames: &r.spec.hostnames,
                status: r.status.as_ref(),
            },
            AnyResource::TlsRoute(r) => RouteView {
                kind: RouteKind::Tls,
                metadata: &r.metadata,
                parent_refs: &r.spec.parent_refs,
                hostnames: &r.spec.hostnames,
                status: r.status.as_ref(),
            },
            AnyResource::TcpRoute(r) => RouteView {
                kind: RouteKind::Tcp,
                metadata: &r.metadata,
                parent_refs: &r.spec.parent_refs,
                hostnames: no_hostnames,
                status: r.status.as_ref(),
            },
            AnyResource::UdpRoute(r) => RouteView {
                kind: RouteKind::Udp,
                metadata: &r.metadata,
                parent_refs: &r.spec.parent_refs,
                hostnames: no_hostnames,
                status: r.status.as_ref(),
            },
            _ => return None,
        })
    }

    /// Every backend a route sends traffic to, as written: each rule's backendRefs and, for
    /// HTTPRoute and GRPCRoute, the backend of every `RequestMirror` filter (on the rule and
    /// on each backendRef), in rule order. Empty when this is not a Gateway API route.
    ///
    /// ```
    /// use gamma_model::decode;
    /// use gamma_model::gateway::BackendRefExt;
    ///
    /// let objects = decode(r#"
    /// apiVersion: gateway.networking.k8s.io/v1
    /// kind: HTTPRoute
    /// metadata: {name: web, namespace: shop}
    /// spec:
    ///   parentRefs: [{group: "", kind: Service, name: web}]
    ///   rules:
    ///   - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: shadow, port: 80}}}]
    ///     backendRefs: [{name: web-v2, port: 80}]
    /// "#)?;
    /// let names: Vec<&str> = objects[0].backend_refs().iter().map(|b| b.name()).collect();
    /// assert_eq!(names, ["shadow", "web-v2"]);
    /// # Ok::<(), gamma_model::DecodeError>(())
    /// ```
    pub fn backend_refs(&self) -> Vec<&dyn BackendRefExt> {
        fn mirror(m: &Option<HttpRequestMirrorFilter>) -> Option<&dyn BackendRefExt> {
            m.as_ref().map(|m| &m.backend_ref as &dyn BackendRefExt)
        }
        // HTTPRoute and GRPCRoute rules have the same shape over different filter types:
        // rule filters, then each backendRef and its own filters
        macro_rules! with_mirrors {
            ($refs:ident, $rules:expr) => {
                for rule in $rules {
                    $refs.extend(
                        rule.filters
                            .iter()
                            .filter_map(|f| mirror(&f.request_mirror)),
                    );
                    for b in &rule.backend_refs {
                        $refs.push(&b.backend_ref);
                        $refs.extend(b.filters.iter().filter_map(|f| mirror(&f.request_mirror)));
                    }
                }
            };
        }
        let mut refs: Vec<&dyn BackendRefExt> = Vec::new();
        let l4: &[L4RouteRule] = match self {
            AnyResource::HttpRoute(r) => {
                with_mirrors!(refs, r.spec.rules.iter().flatten());
                return refs;
            }
            AnyResource::GrpcRoute(r) => {
                with_mirrors!(refs, &r.spec.rules);
                return refs;
            }
            AnyResource::TlsRoute(r) => &r.spec.rules,
            AnyResource::TcpRoute(r) => &r.spec.rules,
            AnyResource::UdpRoute(r) => &r.spec.rules,
            _ => &[],
        };
        refs.extend(
            l4.iter()
                .flat_map(|r| &r.backend_refs)
                .map(|b| b as &dyn BackendRefExt),
        );
        refs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_kinds_and_resource_kinds_convert_both_ways() {
        for (i, k) in RouteKind::ALL.into_iter().enumerate() {
            assert_eq!(k as usize, i);
            assert_eq!(ResourceKind::from(k).route_kind(), Some(k));
            assert_eq!(RouteKind::from_kind_name(k.as_str()), Some(k));
            assert_eq!(ResourceKind::from(k).as_str(), k.as_str());
        }
        let routes = ResourceKind::ALL
            .iter()
            .filter(|k| k.route_kind().is_some())
            .count();
        assert_eq!(routes, RouteKind::ALL.len());
        assert_eq!(ResourceKind::Service.route_kind(), None);
        assert_eq!(RouteKind::from_kind_name("Service"), None);
    }

    #[test]
    fn serde_names_are_the_kubernetes_kind_names() {
        for k in RouteKind::ALL {
            assert_eq!(
                serde_json::to_value(k).unwrap(),
                serde_json::Value::from(k.as_str())
            );
        }
    }
}
