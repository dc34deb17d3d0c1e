//! Gateway and listener status for gateway controllers, computed while building a table
//! ([`crate::RouteTable::gateway_status`]): the Gateway's `Accepted`, and per listener
//! `Accepted`, `ResolvedRefs`, `Conflicted`, `attachedRoutes` and `supportedKinds`, with the
//! reasons of the Gateway API (GatewayConditionReason, ListenerConditionReason). `Programmed`
//! is the controller's to decide (it knows whether its data plane took the configuration), so
//! it is not computed here.

use std::net::IpAddr;

use schemars::JsonSchema;
use serde::Serialize;

use crate::input::{CertificateRefIr, GatewayIr, GrantIr, ListenerIr, SecretState, TableInput};
use crate::listener;
use crate::status::{ACCEPTED, RESOLVED_REFS, RouteCondition};
use gamma_model::RouteKind;
use gamma_model::gateway::{GatewaySpecAddress, GatewayStatusAddress};

/// Condition type `Conflicted`.
pub const CONFLICTED: &str = "Conflicted";
/// Reason `NoConflicts`.
pub const NO_CONFLICTS: &str = "NoConflicts";
/// Reason `HostnameConflict`.
pub const HOSTNAME_CONFLICT: &str = listener::HOSTNAME_CONFLICT;
/// Reason `ProtocolConflict`.
pub const PROTOCOL_CONFLICT: &str = listener::PROTOCOL_CONFLICT;
/// Reason `Invalid` (the Gateway's `Accepted`): the Gateway fails validation
/// under the channel's CRDs ([`crate::input::GatewayIr::invalid`]). GatewayConditionReason
/// Invalid: "used with the "Programmed" and "Accepted" conditions when the Gateway is
/// syntactically or semantically invalid".
pub const INVALID: &str = "Invalid";
/// Reason `InvalidParameters` (the Gateway's `Accepted`): its
/// `spec.infrastructure.parametersRef` names a kind the embedder does not support or a
/// ConfigMap that does not exist (GatewayReasonInvalidParameters; GatewayInfrastructure
/// parametersRef: the Gateway "SHOULD be rejected with the "Accepted" status condition set to
/// "False" and an "InvalidParameters" reason"). Such a Gateway is left out as an invalid one is.
pub const INVALID_PARAMETERS: &str = "InvalidParameters";
/// Condition type `AddressesAssigned` (Gateway API v1.7, GEP-5093): "whether all requested
/// Gateway addresses were successfully assigned"; see [`addresses_assigned`].
pub const ADDRESSES_ASSIGNED: &str = "AddressesAssigned";
/// Reason `PartiallyAssigned` (`AddressesAssigned=False`): some, not all, requested addresses
/// were assigned.
pub const PARTIALLY_ASSIGNED: &str = "PartiallyAssigned";
/// Reason `NotAssigned` (`AddressesAssigned=False`): none of the requested addresses was
/// assigned.
pub const NOT_ASSIGNED: &str = "NotAssigned";
/// Reason `ListenersNotValid` (the Gateway's `Accepted`).
pub const LISTENERS_NOT_VALID: &str = "ListenersNotValid";
/// Reason `UnsupportedProtocol` (a listener's `Accepted`).
pub const UNSUPPORTED_PROTOCOL: &str = "UnsupportedProtocol";
/// Reason `PortUnavailable` (a listener's `Accepted`).
pub const PORT_UNAVAILABLE: &str = "PortUnavailable";
/// Reason `InvalidRouteKinds` (a listener's `ResolvedRefs`).
pub const INVALID_ROUTE_KINDS: &str = "InvalidRouteKinds";
/// Reason `InvalidCertificateRef` (a listener's `ResolvedRefs`).
pub const INVALID_CERTIFICATE_REF: &str = "InvalidCertificateRef";
/// Reason `RefNotPermitted` (a listener's `ResolvedRefs`).
pub const REF_NOT_PERMITTED: &str = "RefNotPermitted";
/// Reason `InvalidCACertificateRef` (a listener's `ResolvedRefs`): a client certificate
/// validation `caCertificateRefs` entry does not resolve, or its object holds no CA bundle
/// (FrontendTLSValidation.caCertificateRefs).
pub const INVALID_CA_CERTIFICATE_REF: &str = "InvalidCACertificateRef";
/// Reason `InvalidCACertificateKind` (a listener's `ResolvedRefs`): a `caCertificateRefs`
/// entry of an unknown or unsupported kind (FrontendTLSValidation.caCertificateRefs).
pub const INVALID_CA_CERTIFICATE_KIND: &str = "InvalidCACertificateKind";
/// Reason `NoValidCACertificate` (a listener's `Accepted`): no `caCertificateRefs` entry of the
/// listener's client certificate validation can be used (ListenerReasonNoValidCACertificate).
pub const NO_VALID_CA_CERTIFICATE: &str = "NoValidCACertificate";
/// Condition type `InsecureFrontendValidationMode` (the Gateway's): "true when the Gateway
/// FrontendValidationModeType is configured to allow insecure fallback behavior", and
/// "removed as soon as FrontendValidationModeType is changed back to `AllowValidOnly`".
pub const INSECURE_FRONTEND_VALIDATION_MODE: &str = "InsecureFrontendValidationMode";
/// Reason `ConfigurationChanged` (`InsecureFrontendValidationMode=True`).
pub const CONFIGURATION_CHANGED: &str = "ConfigurationChanged";

/// The computed status of one Gateway.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GatewayStatus {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// The addresses the table was given for it (`status.addresses`, else `spec.addresses`).
    #[schemars(with = "Vec<String>")]
    pub addresses: Vec<IpAddr>,
    /// The Gateway's conditions (`Accepted`).
    pub conditions: Vec<RouteCondition>,
    /// One entry per listener, in spec order.
    pub listeners: Vec<ListenerStatus>,
    /// GatewayStatus.attachedListenerSets: the ListenerSets its `allowedListeners` admits whose
    /// parentRef selects it and whose `Accepted` is `True` (see
    /// [`crate::listener_set_status`]).
    pub attached_listener_sets: u32,
    /// For a Gateway left out (invalid): `Gateway ns/name was left out: <error>`, the note a
    /// request to its addresses shows ([`crate::RouteTable::left_out_at`]).
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) left_out: Option<Box<str>>,
}

impl GatewayStatus {
    /// The condition of a type, if present.
    pub fn condition(&self, type_: &str) -> Option<&RouteCondition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }

    /// The listener of a name, if present.
    pub fn listener(&self, name: &str) -> Option<&ListenerStatus> {
        self.listeners.iter().find(|l| l.name == name)
    }
}

/// The computed status of one listener.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListenerStatus {
    /// Listener name.
    pub name: String,
    /// ListenerStatus.supportedKinds: the route kinds the listener admits (all in group
    /// `gateway.networking.k8s.io`).
    pub supported_kinds: Vec<RouteKind>,
    /// ListenerStatus.attachedRoutes: the distinct routes attached to the listener with
    /// `Accepted=True` (by allowedRoutes and parentRefs, whatever the listener's own status).
    pub attached_routes: u32,
    /// `Accepted`, `ResolvedRefs`, `Conflicted`.
    pub conditions: Vec<RouteCondition>,
}

impl ListenerStatus {
    /// The condition of a type, if present.
    pub fn condition(&self, type_: &str) -> Option<&RouteCondition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }
}

/// Whether the listener `li` of `gw` is accepted for processing (it is bound and serves
/// traffic): a supported protocol, no conflict, and, where client certificates are validated,
/// at least one usable CA certificate.
pub(crate) fn accepted(gw: &GatewayIr, conflicts: &[Option<&'static str>], li: usize) -> bool {
    gw.invalid.is_none()
        && gw.listeners.get(li).is_some_and(|l| {
            l.unsupported_protocol.is_none()
                && l.client_validation.as_ref().is_none_or(|v| !v.none_valid())
        })
        && conflicts.get(li).copied().flatten().is_none()
}

/// The names of the listeners of `gw` that are not accepted, leaving out those of
/// implementation-specific protocols (the controller's to judge).
fn not_accepted<'g>(gw: &'g GatewayIr, conflicts: &[Option<&'static str>]) -> Vec<&'g str> {
    gw.listeners
        .iter()
        .enumerate()
        .filter(|(li, l)| !implementation_specific(l) && !accepted(gw, conflicts, *li))
        .map(|(_, l)| l.name.as_str())
        .collect()
}

/// Whether the Gateway is accepted: valid, and not every listener of it is rejected (see
/// [`compute`]).
pub(crate) fn gateway_accepted(gw: &GatewayIr, conflicts: &[Option<&'static str>]) -> bool {
    if gw.invalid.is_some() {
        return false;
    }
    let not = not_accepted(gw, conflicts);
    not.is_empty() || not.len() != gw.listeners.len()
}

/// Computes every Gateway's status; `attached(gi, li)` counts the routes attached to a listener,
/// `attached_sets(gi)` the ListenerSets attached to the Gateway.
pub(crate) fn compute(
    input: &TableInput,
    attached: impl Fn(usize, usize) -> u32,
    attached_sets: impl Fn(usize) -> u32,
) -> Vec<GatewayStatus> {
    let mut out: Vec<GatewayStatus> = input
        .gateways
        .iter()
        .enumerate()
        .map(|(gi, gw)| {
            let mut s = gateway(gw, &input.grants, |li| attached(gi, li));
            s.attached_listener_sets = attached_sets(gi);
            s
        })
        .collect();
    out.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    out
}

fn gateway(gw: &GatewayIr, grants: &[GrantIr], attached: impl Fn(usize) -> u32) -> GatewayStatus {
    if let Some(invalid) = &gw.invalid {
        // the API server would not store it: nothing of it is processed, so no listener has a
        // status of its own (one verdict per object)
        return GatewayStatus {
            namespace: gw.namespace.clone(),
            name: gw.name.clone(),
            addresses: gw.addresses.clone(),
            // `Programmed` stays the controller's, as for an accepted Gateway
            conditions: vec![RouteCondition::new(
                ACCEPTED,
                false,
                invalid.reason,
                invalid.message.clone(),
            )],
            listeners: Vec::new(),
            attached_listener_sets: 0,
            left_out: Some(
                format!(
                    "Gateway {}/{} was left out: {}",
                    gw.namespace, gw.name, invalid.message
                )
                .into(),
            ),
        };
    }
    let conflicts = listener::conflicts(&gw.listeners);
    let listeners: Vec<ListenerStatus> = gw
        .listeners
        .iter()
        .enumerate()
        .map(|(li, l)| {
            listener_status(
                gw,
                l,
                conflicts.get(li).copied().flatten(),
                grants,
                attached(li),
            )
        })
        .collect();
    let not_accepted = not_accepted(gw, &conflicts);
    // Gateway Listener docs: a Gateway with some invalid or Conflicted listeners MAY be
    // accepted with the distinct ones, and MUST carry ListenersNotValid naming them; with no
    // valid listener left it is not accepted.
    let condition = if not_accepted.is_empty() {
        RouteCondition::new(ACCEPTED, true, ACCEPTED, "the Gateway is accepted")
    } else {
        let all = not_accepted.len() == gw.listeners.len();
        RouteCondition::new(
            ACCEPTED,
            !all,
            LISTENERS_NOT_VALID,
            format!("listeners not accepted: {}", not_accepted.join(", ")),
        )
    };
    // present only while a validation allows insecure fallback: the condition "is removed as
    // soon as FrontendValidationModeType is changed back to `AllowValidOnly`"
    let insecure = (!gw.insecure_frontend_validation.is_empty()).then(|| {
        RouteCondition::new(
            INSECURE_FRONTEND_VALIDATION_MODE,
            true,
            CONFIGURATION_CHANGED,
            format!(
                "client certificate validation allows insecure fallback: {}",
                gw.insecure_frontend_validation.join(", ")
            ),
        )
    });
    GatewayStatus {
        namespace: gw.namespace.clone(),
        name: gw.name.clone(),
        addresses: gw.addresses.clone(),
        conditions: std::iter::once(condition).chain(insecure).collect(),
        listeners,
        attached_listener_sets: 0,
        left_out: None,
    }
}

fn listener_status(
    gw: &GatewayIr,
    l: &ListenerIr,
    conflict: Option<&'static str>,
    grants: &[GrantIr],
    attached_routes: u32,
) -> ListenerStatus {
    let accepted = match (&l.unsupported_protocol, conflict) {
        // a protocol other than the five of the Gateway API is the controller's own: so is
        // that listener's Accepted
        _ if implementation_specific(l) => None,
        (Some(p), _) => Some(RouteCondition::new(
            ACCEPTED,
            false,
            UNSUPPORTED_PROTOCOL,
            format!("protocol {p:?} is not supported"),
        )),
        (None, Some(reason)) => Some(RouteCondition::new(
            ACCEPTED,
            false,
            PORT_UNAVAILABLE,
            format!(
                "port {} is shared with listeners it is not distinct from ({reason})",
                l.port
            ),
        )),
        (None, None) => Some(match &l.client_validation {
            // FrontendTLSValidation.caCertificateRefs: "If ALL CACertificateRefs are invalid,
            // the implementation MUST also ensure the `Accepted` condition on the listener is
            // set to `status: False`, with the Reason `NoValidCACertificate`"
            Some(v) if v.none_valid() => RouteCondition::new(
                ACCEPTED,
                false,
                NO_VALID_CA_CERTIFICATE,
                format!("no caCertificateRefs entry of {} can be used", v.path),
            ),
            _ => RouteCondition::new(ACCEPTED, true, ACCEPTED, "the listener is accepted"),
        }),
    };
    let conflicted = match conflict {
        Some(reason) => RouteCondition::new(
            CONFLICTED,
            true,
            reason,
            format!("not distinct from another listener on port {}", l.port),
        ),
        None => RouteCondition::new(CONFLICTED, false, NO_CONFLICTS, "no conflicts"),
    };
    ListenerStatus {
        name: l.name.clone(),
        supported_kinds: l.route_kinds().to_vec(),
        attached_routes,
        conditions: accepted
            .into_iter()
            .chain([
                resolved_refs("Gateway", &gw.namespace, l, grants),
                conflicted,
            ])
            .collect(),
    }
}

/// A listener of a protocol other than HTTP, HTTPS, TLS, TCP and UDP: gamma-rs serves none,
/// but the embedding controller may (Istio's `HBONE`), so it decides that listener's `Accepted`
/// (`True`, or `False` with [`UNSUPPORTED_PROTOCOL`]).
pub(crate) fn implementation_specific(l: &ListenerIr) -> bool {
    l.unsupported_protocol.is_some()
}

/// `ResolvedRefs`: route kinds first (ListenerConditionReason InvalidRouteKinds), then each
/// certificate ref: a kind other than core Secret is InvalidCertificateRef, a Secret in another
/// namespace without a ReferenceGrant from the listener's resource (`from_kind` in `from_ns`:
/// a Gateway, or a ListenerSet, whose grants are its own, GEP-1713 ReferenceGrant Semantics)
/// is RefNotPermitted, and, when the input holds every Secret, a Secret that does not exist or is
/// not a `kubernetes.io/tls` Secret with `tls.crt` and `tls.key` is InvalidCertificateRef
/// (Gateway API GatewayTLSConfig.certificateRefs). The first problem gives
/// the reason; the message lists all.
pub(crate) fn resolved_refs(
    from_kind: &str,
    from_ns: &str,
    l: &ListenerIr,
    grants: &[GrantIr],
) -> RouteCondition {
    let mut problems: Vec<(&'static str, String)> = Vec::new();
    if !l.invalid_kinds.is_empty() {
        problems.push((
            INVALID_ROUTE_KINDS,
            format!("unsupported route kinds: {}", l.invalid_kinds.join(", ")),
        ));
    }
    for (i, c) in l.certificate_refs.iter().enumerate() {
        if !(c.group.is_empty() && c.kind == "Secret") {
            problems.push((
                INVALID_CERTIFICATE_REF,
                format!(
                    "tls.certificateRefs[{i}]: {}/{} is not a core Secret",
                    c.group, c.kind
                ),
            ));
        } else if c.namespace != from_ns && !cert_granted(from_kind, from_ns, c, grants) {
            problems.push((
                REF_NOT_PERMITTED,
                format!(
                    "tls.certificateRefs[{i}]: Secret {}/{} is in another namespace and no ReferenceGrant permits it",
                    c.namespace, c.name
                ),
            ));
        } else {
            // GatewayTLSConfig.certificateRefs: a reference to a Secret that does not exist or
            // is not a usable TLS certificate is InvalidCertificateRef (a Secret is Missing
            // only when the input holds every Secret; the message names the Secret, never its
            // contents)
            match &c.secret {
                SecretState::Missing => problems.push((
                    INVALID_CERTIFICATE_REF,
                    format!(
                        "tls.certificateRefs[{i}]: Secret {}/{} does not exist",
                        c.namespace, c.name
                    ),
                )),
                SecretState::Unusable(why) => problems.push((
                    INVALID_CERTIFICATE_REF,
                    format!(
                        "tls.certificateRefs[{i}]: Secret {}/{} {why}",
                        c.namespace, c.name
                    ),
                )),
                _ => {}
            }
        }
    }
    // FrontendTLSValidation.caCertificateRefs: "the implementation MUST ensure that the
    // `ResolvedRefs` condition is set to `status: False` on all targeted listeners"
    if let Some(v) = &l.client_validation {
        problems.extend(v.problems().map(|(r, m)| (r, m.to_owned())));
    }
    match problems.first() {
        None => RouteCondition::new(
            RESOLVED_REFS,
            true,
            RESOLVED_REFS,
            "all references are resolved",
        ),
        Some((reason, _)) => RouteCondition::new(
            RESOLVED_REFS,
            false,
            reason,
            problems
                .iter()
                .map(|(_, m)| m.as_str())
                .collect::<Vec<_>>()
                .join("; "),
        ),
    }
}

/// ReferenceGrant: from (gateway.networking.k8s.io, `from_kind`, `from_ns`) to the core Secret
/// of `c`.
fn cert_granted(from_kind: &str, from_ns: &str, c: &CertificateRefIr, grants: &[GrantIr]) -> bool {
    grants
        .iter()
        .any(|g| g.permits(from_kind, from_ns, ("", "Secret", &c.namespace, &c.name)))
}

/// `AddressesAssigned` (Gateway API v1.7 experimental, GEP-5093: "This condition indicates
/// whether all requested Gateway addresses were successfully assigned"), from the addresses
/// the Gateway requests (`spec.addresses`) and those bound to it (`status.addresses`, which only
/// the data plane knows: supplied by the embedding controller, or as stored).
///
/// Each request is matched to a distinct bound address: a request with a `value` to the
/// address with that value; one without to any address not matched otherwise. The type must
/// agree (absent is `IPAddress`), and so must the routability when the request names one
/// (`Cluster`, or a domain-prefixed value; an empty one is the implementation's default and
/// accepts any). A Gateway that requests nothing requests one address of the implementation's
/// choosing. All requests matched: `True`, reason `AddressesAssigned`; some: `False`,
/// `PartiallyAssigned`; none: `False`, `NotAssigned`; the message names the requests left.
///
/// ```
/// use gamma_model::gateway::{GatewaySpecAddress, GatewayStatusAddress};
/// use gamma_resolve::gateway_status::addresses_assigned;
///
/// let want = GatewaySpecAddress { routability: Some("Cluster".into()), ..Default::default() };
/// let bound = GatewayStatusAddress {
///     value: "10.96.0.7".into(),
///     routability: Some("Cluster".into()),
///     ..Default::default()
/// };
/// assert!(addresses_assigned(&[want.clone()], &[bound]).status);
/// assert_eq!(addresses_assigned(&[want], &[]).reason, "NotAssigned");
/// ```
pub fn addresses_assigned(
    requested: &[GatewaySpecAddress],
    bound: &[GatewayStatusAddress],
) -> RouteCondition {
    let implicit = [GatewaySpecAddress::default()];
    let requested = if requested.is_empty() {
        &implicit[..]
    } else {
        requested
    };
    let kind = |t: &Option<String>| t.as_deref().unwrap_or("IPAddress").to_owned();
    let routable = |want: &GatewaySpecAddress, got: &GatewayStatusAddress| match want
        .routability
        .as_deref()
        .unwrap_or("")
    {
        "" => true,
        r => got.routability.as_deref() == Some(r),
    };
    let fits = |want: &GatewaySpecAddress, got: &GatewayStatusAddress| {
        kind(&want.type_) == kind(&got.type_)
            && routable(want, got)
            && want
                .value
                .as_deref()
                .is_none_or(|v| v.is_empty() || v == got.value)
    };
    let mut used = vec![false; bound.len()];
    let mut missing: Vec<String> = Vec::new();
    // requests with a value first, so that a request without one never takes their address
    let mut order: Vec<(usize, &GatewaySpecAddress)> = requested.iter().enumerate().collect();
    order.sort_by_key(|(_, r)| r.value.as_deref().is_none_or(str::is_empty));
    for (i, want) in order {
        let hit = bound
            .iter()
            .enumerate()
            .find(|(j, got)| !used.get(*j).copied().unwrap_or(true) && fits(want, got));
        match hit.and_then(|(j, _)| used.get_mut(j)) {
            Some(u) => *u = true,
            None => missing.push(describe_request(i, want)),
        }
    }
    missing.sort();
    if missing.is_empty() {
        RouteCondition::new(
            ADDRESSES_ASSIGNED,
            true,
            ADDRESSES_ASSIGNED,
            "all requested addresses are assigned",
        )
    } else {
        let none = missing.len() == requested.len();
        RouteCondition::new(
            ADDRESSES_ASSIGNED,
            false,
            if none {
                NOT_ASSIGNED
            } else {
                PARTIALLY_ASSIGNED
            },
            format!("not assigned: {}", missing.join("; ")),
        )
    }
}

/// A request of `spec.addresses` for a message: its index, value or type, and routability.
fn describe_request(i: usize, r: &GatewaySpecAddress) -> String {
    let what = match r.value.as_deref() {
        Some(v) if !v.is_empty() => v.to_owned(),
        _ => format!("any {}", r.type_.as_deref().unwrap_or("IPAddress")),
    };
    match r.routability.as_deref() {
        Some(rt) if !rt.is_empty() => format!("spec.addresses[{i}] ({what}, routability {rt})"),
        _ => format!("spec.addresses[{i}] ({what})"),
    }
}

#[cfg(test)]
mod addresses_tests {
    use super::*;

    fn want(value: Option<&str>, routability: Option<&str>) -> GatewaySpecAddress {
        GatewaySpecAddress {
            type_: None,
            value: value.map(Into::into),
            routability: routability.map(Into::into),
        }
    }

    fn bound(value: &str, routability: Option<&str>) -> GatewayStatusAddress {
        GatewayStatusAddress {
            type_: Some("IPAddress".into()),
            value: value.into(),
            routability: routability.map(Into::into),
        }
    }

    // GEP-5093 AddressesAssigned: all requests met is True/AddressesAssigned; some is
    // False/PartiallyAssigned; none is False/NotAssigned.
    #[test]
    fn addresses_assigned_reasons_follow_how_many_requests_are_met() {
        let requests = [want(Some("10.0.0.1"), None), want(None, Some("Cluster"))];
        let all = addresses_assigned(
            &requests,
            &[bound("10.96.0.9", Some("Cluster")), bound("10.0.0.1", None)],
        );
        assert!(all.status);
        assert_eq!(all.reason, ADDRESSES_ASSIGNED);
        let some = addresses_assigned(&requests, &[bound("10.0.0.1", None)]);
        assert!(!some.status);
        assert_eq!(some.reason, PARTIALLY_ASSIGNED);
        assert!(
            some.message.contains("routability Cluster"),
            "{}",
            some.message
        );
        let none = addresses_assigned(&requests, &[]);
        assert_eq!(none.reason, NOT_ASSIGNED);
    }

    // A request naming a routability is met only by an address reported with it; an empty
    // routability is the implementation's default and takes any address.
    #[test]
    fn a_requested_routability_must_be_reported() {
        let cluster = [want(None, Some("Cluster"))];
        assert!(!addresses_assigned(&cluster, &[bound("203.0.113.1", None)]).status);
        assert!(
            !addresses_assigned(
                &cluster,
                &[bound("203.0.113.1", Some("example.com/public"))]
            )
            .status
        );
        let default = [want(None, Some(""))];
        assert!(addresses_assigned(&default, &[bound("203.0.113.1", Some("Cluster"))]).status);
    }

    // One bound address meets one request: two requests need two addresses, and a request
    // without a value never takes the address a valued request needs.
    #[test]
    fn each_bound_address_meets_one_request() {
        let requests = [want(None, None), want(Some("10.0.0.1"), None)];
        let one = addresses_assigned(&requests, &[bound("10.0.0.1", None)]);
        assert_eq!(one.reason, PARTIALLY_ASSIGNED);
        assert!(one.message.contains("spec.addresses[0]"), "{}", one.message);
        // no request at all: one address of the implementation's choosing
        assert!(addresses_assigned(&[], &[bound("10.0.0.2", None)]).status);
        assert_eq!(addresses_assigned(&[], &[]).reason, NOT_ASSIGNED);
    }
}
