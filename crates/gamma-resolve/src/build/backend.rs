//! Validity of a backendRef (Gateway API HTTPRouteRule.backendRefs): kind, ReferenceGrant,
//! existence, port and protocol, and readiness.

use crate::input::RouteIr;
use crate::table::{BackendState, InvalidRef, MeshReferenceGrants, Target};
use gamma_model::RouteKind;

use super::Builder;
use super::read::BackendRead;

impl<'i> Builder<'i> {
    pub(super) fn backend_state(
        &self,
        route: &RouteIr,
        b: BackendRead<'_>,
        mesh: bool,
    ) -> BackendState {
        if !(b.group.is_empty() && b.kind == "Service") {
            return BackendState::Invalid(InvalidRef::InvalidKind);
        }
        let cross = b.namespace != route.namespace.as_str();
        let needs_grant =
            cross && (!mesh || self.options.mesh_reference_grants == MeshReferenceGrants::Enforce);
        if needs_grant && !self.granted(route, b) {
            // Gateway API HTTPRouteRule.backendRefs: do not reveal whether the target exists.
            return BackendState::Invalid(InvalidRef::RefNotPermitted);
        }
        let Some(svc) = self
            .svc_by_name
            .get(&(b.namespace, b.name))
            .and_then(|i| self.input.services.get(*i))
        else {
            return BackendState::Invalid(InvalidRef::BackendNotFound);
        };
        if svc.external_name {
            // Gateway API ParentReference: ExternalName SHOULD NOT be a backend (CVE-2021-25740).
            return BackendState::Invalid(InvalidRef::BackendNotFound);
        }
        let Some(port) = b
            .port
            .and_then(|p| svc.ports.iter().find(|sp| sp.port == p))
        else {
            return BackendState::Invalid(InvalidRef::BackendNotFound);
        };
        if !app_protocol_compatible(route.kind, port.app_protocol.as_deref()) {
            return BackendState::Invalid(InvalidRef::UnsupportedProtocol);
        }
        if svc.ready == Some(false) {
            return BackendState::NoEndpoints;
        }
        BackendState::Ok
    }

    /// Why backend `target` is invalid with reason `r`, for people: the reason first, then
    /// what is wrong (for `BackendNotFound` on an existing Service, the port it lacks).
    pub(super) fn invalid_detail(&self, r: InvalidRef, target: u32) -> String {
        let (ns, name) = (b_ns(&self.targets, target), b_name(&self.targets, target));
        let reason = r.as_str();
        match r {
            InvalidRef::RefNotPermitted => format!(
                "{reason}: cross-namespace reference to {ns}/{name} is not permitted by any ReferenceGrant"
            ),
            InvalidRef::BackendNotFound => {
                let svc = self
                    .svc_by_name
                    .get(&(ns, name))
                    .and_then(|i| self.input.services.get(*i));
                let port = self.targets.get(target as usize).and_then(|t| t.port);
                match (svc, port) {
                    (None, _) => format!("{reason} ({ns}/{name})"),
                    (Some(s), _) if s.external_name => {
                        format!("{reason} ({ns}/{name}): an ExternalName Service is not a backend")
                    }
                    (Some(_), None) => {
                        format!("{reason} ({ns}/{name}): the backendRef names no port")
                    }
                    (Some(s), Some(p)) => {
                        let ports: Vec<String> =
                            s.ports.iter().map(|p| p.port.to_string()).collect();
                        format!(
                            "{reason} ({ns}/{name}): the Service has no port {p} (its ports: {})",
                            if ports.is_empty() {
                                "none".to_owned()
                            } else {
                                ports.join(", ")
                            }
                        )
                    }
                }
            }
            _ => format!("{reason} ({ns}/{name})"),
        }
    }

    /// [`Self::backend_state`], cached per (target, route kind) for same-namespace references.
    pub(super) fn backend_state_of(
        &mut self,
        target: u32,
        route: &RouteIr,
        b: BackendRead<'_>,
        mesh: bool,
    ) -> BackendState {
        if !crate::index::same_bytes(b.namespace.as_bytes(), route.namespace.as_bytes()) {
            return self.backend_state(route, b, mesh);
        }
        let k = route.kind as usize;
        if let Some(s) = self
            .target_states
            .get(target as usize)
            .and_then(|c| c.get(k))
            .copied()
            .flatten()
        {
            return s;
        }
        let s = self.backend_state(route, b, mesh);
        if let Some(slot) = self
            .target_states
            .get_mut(target as usize)
            .and_then(|c| c.get_mut(k))
        {
            *slot = Some(s);
        }
        s
    }

    pub(super) fn granted(&self, route: &RouteIr, b: BackendRead<'_>) -> bool {
        self.input.grants.iter().any(|g| {
            g.permits(
                route.kind.as_str(),
                &route.namespace,
                (b.group, b.kind, b.namespace, b.name),
            )
        })
    }
}

/// GEP-1911 backend protocol: a Service port's `appProtocol` the route kind cannot speak makes the
/// backend invalid. Only the KEP-3726 values and the plain names are known; anything else
/// (implementation-specific, domain-prefixed) is accepted.
pub(super) fn app_protocol_compatible(kind: RouteKind, app: Option<&str>) -> bool {
    let Some(app) = app else { return true };
    match kind {
        RouteKind::Http => !matches!(app, "kubernetes.io/wss" | "grpc" | "udp"),
        RouteKind::Grpc => !matches!(
            app,
            "kubernetes.io/ws" | "kubernetes.io/wss" | "http" | "udp"
        ),
        RouteKind::Tls | RouteKind::Tcp => app != "udp",
        RouteKind::Udp => true,
    }
}

pub(super) fn b_ns(targets: &[Target], id: u32) -> &str {
    targets.get(id as usize).map_or("?", |t| &t.namespace)
}

pub(super) fn b_name(targets: &[Target], id: u32) -> &str {
    targets.get(id as usize).map_or("?", |t| &t.name)
}
