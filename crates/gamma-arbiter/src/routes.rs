//! Uniform access to the parts of every route kind the arbiter reads.

use gamma_model::Resource;
use gamma_model::gateway::{ParentReference, RouteStatus};
use gamma_model::meta::ObjectMeta;

/// The metadata, parentRefs and status of a route of any kind; `None` for other objects.
pub fn route_parts(
    resource: &Resource,
) -> Option<(&ObjectMeta, &[ParentReference], Option<&RouteStatus>)> {
    Some(match resource {
        Resource::HttpRoute(r) => (&r.metadata, &r.spec.parent_refs[..], r.status.as_ref()),
        Resource::GrpcRoute(r) => (&r.metadata, &r.spec.parent_refs[..], r.status.as_ref()),
        Resource::TlsRoute(r) => (&r.metadata, &r.spec.parent_refs[..], r.status.as_ref()),
        Resource::TcpRoute(r) => (&r.metadata, &r.spec.parent_refs[..], r.status.as_ref()),
        Resource::UdpRoute(r) => (&r.metadata, &r.spec.parent_refs[..], r.status.as_ref()),
        _ => return None,
    })
}

/// The route kinds, in [`gamma_model::ResourceKind`] order.
pub(crate) const ROUTE_KINDS: [gamma_model::ResourceKind; 5] = [
    gamma_model::ResourceKind::HttpRoute,
    gamma_model::ResourceKind::GrpcRoute,
    gamma_model::ResourceKind::TlsRoute,
    gamma_model::ResourceKind::TcpRoute,
    gamma_model::ResourceKind::UdpRoute,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// `Arbiter::decide_all` stores its result without sorting: it relies on visiting the
    /// kinds in key order.
    #[test]
    fn route_kinds_are_in_resource_kind_order() {
        assert!(ROUTE_KINDS.is_sorted());
    }
}
