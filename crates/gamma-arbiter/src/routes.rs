//! The route kinds the arbiter walks, and which routes a full decision can decide from their
//! digests alone. Routes of any kind are read through [`gamma_model::RouteView`].

use gamma_model::digest::{InlineName, ParentDigest, RouteDigest};
use gamma_model::gateway::ParentKind;

/// The route kinds, in [`gamma_model::ResourceKind`] order.
pub(crate) const ROUTE_KINDS: [gamma_model::ResourceKind; 5] = [
    gamma_model::ResourceKind::HttpRoute,
    gamma_model::ResourceKind::GrpcRoute,
    gamma_model::ResourceKind::TlsRoute,
    gamma_model::ResourceKind::TcpRoute,
    gamma_model::ResourceKind::UdpRoute,
];

/// The route's namespace and its parent, when a full decision can decide the route from its
/// digest alone: exactly one parentRef, a core Service (whose name and written namespace fit
/// inline), and no level-1 signal (no annotation on the route, no `controllers` on the
/// parentRef). These are exactly the routes `Ladder::decide_cached` answers; every other route
/// is decided from its object.
pub(crate) fn digest_service_parent(d: &RouteDigest) -> Option<(&InlineName, &ParentDigest)> {
    let ns = d.namespace()?;
    let p = d.first_parent()?;
    (d.parent_count() == 1
        && !d.has_annotations()
        && !p.has_controllers()
        && p.kind() == ParentKind::Service)
        .then_some((ns, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(meta: &str, parents: &str) -> RouteDigest {
        let yaml = format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
             metadata: {meta}\nspec: {{parentRefs: {parents}}}\n"
        );
        let r = gamma_model::decode(&yaml).unwrap();
        RouteDigest::of(&r[0]).unwrap()
    }

    #[test]
    fn only_single_service_parents_without_level_1_signals_are_decided_from_digests() {
        let svc = "[{group: '', kind: Service, name: s}]";
        let meta = "{name: r, namespace: n}";
        let d = digest(meta, svc);
        let (ns, p) = digest_service_parent(&d).unwrap();
        assert_eq!((ns.as_str(), p.name().as_str()), ("n", "s"));
        let other_ns = "[{group: '', kind: Service, name: s, namespace: m}]";
        assert!(digest_service_parent(&digest(meta, other_ns)).is_some());
        for (meta, parents) in [
            // a route annotation may be a level-1 signal
            ("{name: r, namespace: n, annotations: {a: b}}", svc),
            // so is `controllers`, even empty
            (
                meta,
                "[{group: '', kind: Service, name: s, controllers: []}]",
            ),
            // two parents, no parent, a Gateway, a Service with the wrong group
            (meta, "[{group: '', kind: Service, name: s}, {name: gw}]"),
            (meta, "[]"),
            (meta, "[{name: gw}]"),
            (meta, "[{group: core, kind: Service, name: s}]"),
            // names too long to inline
            (
                "{name: r, namespace: nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn}",
                svc,
            ),
            (
                meta,
                "[{group: '', kind: Service, name: ssssssssssssssssssssssssssssssss}]",
            ),
        ] {
            assert!(
                digest_service_parent(&digest(meta, parents)).is_none(),
                "{meta} {parents}"
            );
        }
    }

    /// `Arbiter::decide_all` stores its result without sorting: it relies on visiting the
    /// kinds in key order.
    #[test]
    fn route_kinds_are_in_resource_kind_order() {
        assert!(ROUTE_KINDS.is_sorted());
    }
}
