//! What differs between the Gateway API releases gamma-rs supports, in one place.
//!
//! Adding a release means a new [`Release`] variant, its rows here (the versions its CRDs
//! serve, the fields a channel gains or loses, the rules that change), and code for any new
//! semantics; the validators ask these functions instead of comparing releases themselves.

use super::{Bundle, Channel, Release};
use crate::resource::ResourceKind;

/// One served `apiVersion` of a kind: the first release whose standard and experimental CRDs
/// serve it (`None`: that channel never does).
pub(super) struct ServedRow {
    pub(super) kind: ResourceKind,
    pub(super) api_version: &'static str,
    pub(super) standard: Option<Release>,
    pub(super) experimental: Option<Release>,
}

const ALL: Option<Release> = Some(Release::V1_5);

macro_rules! served {
    ($kind:ident, $version:literal, $standard:expr, $experimental:expr) => {
        ServedRow {
            kind: ResourceKind::$kind,
            api_version: $version,
            standard: $standard,
            experimental: $experimental,
        }
    };
}

/// Every `apiVersion` a supported release serves, from the CRDs' `served` flags
/// (`tests/served_vs_crd.rs` holds this table equal to every release's CRDs).
pub(super) const SERVED: &[ServedRow] = &[
    served!(HttpRoute, "gateway.networking.k8s.io/v1", ALL, ALL),
    served!(HttpRoute, "gateway.networking.k8s.io/v1beta1", ALL, ALL),
    served!(GrpcRoute, "gateway.networking.k8s.io/v1", ALL, ALL),
    served!(TlsRoute, "gateway.networking.k8s.io/v1", ALL, ALL),
    served!(TlsRoute, "gateway.networking.k8s.io/v1alpha2", None, ALL),
    served!(TlsRoute, "gateway.networking.k8s.io/v1alpha3", None, ALL),
    // TCPRoute and UDPRoute `v1` arrived in v1.6 (GEP-2644, GEP-2645), on both channels.
    served!(
        TcpRoute,
        "gateway.networking.k8s.io/v1",
        Some(Release::V1_6),
        Some(Release::V1_6)
    ),
    served!(TcpRoute, "gateway.networking.k8s.io/v1alpha2", None, ALL),
    served!(
        UdpRoute,
        "gateway.networking.k8s.io/v1",
        Some(Release::V1_6),
        Some(Release::V1_6)
    ),
    served!(UdpRoute, "gateway.networking.k8s.io/v1alpha2", None, ALL),
    served!(Gateway, "gateway.networking.k8s.io/v1", ALL, ALL),
    served!(Gateway, "gateway.networking.k8s.io/v1beta1", ALL, ALL),
    served!(GatewayClass, "gateway.networking.k8s.io/v1", ALL, ALL),
    served!(GatewayClass, "gateway.networking.k8s.io/v1beta1", ALL, ALL),
    served!(ListenerSet, "gateway.networking.k8s.io/v1", ALL, ALL),
    served!(ReferenceGrant, "gateway.networking.k8s.io/v1", ALL, ALL),
    served!(
        ReferenceGrant,
        "gateway.networking.k8s.io/v1beta1",
        ALL,
        ALL
    ),
    served!(BackendTlsPolicy, "gateway.networking.k8s.io/v1", ALL, ALL),
    served!(
        BackendTlsPolicy,
        "gateway.networking.k8s.io/v1alpha3",
        None,
        ALL
    ),
    served!(XMesh, "gateway.networking.x-k8s.io/v1alpha1", None, ALL),
    served!(
        XBackend,
        "gateway.networking.x-k8s.io/v1alpha1",
        None,
        Some(Release::V1_6)
    ),
    served!(
        XBackendTrafficPolicy,
        "gateway.networking.x-k8s.io/v1alpha1",
        None,
        ALL
    ),
    // XTelemetryPolicy arrived in v1.7 (GEP-4768), experimental only.
    served!(
        XTelemetryPolicy,
        "gateway.networking.x-k8s.io/v1alpha1",
        None,
        Some(Release::V1_7)
    ),
];

impl ServedRow {
    /// Whether `bundle`'s CRDs serve this version.
    pub(super) fn served_by(&self, bundle: Bundle) -> bool {
        let since = match bundle.channel {
            Channel::Standard => self.standard,
            Channel::Experimental => self.experimental,
        };
        since.is_some_and(|first| first <= bundle.release)
    }
}

/// Experimental-only fields ([`super::EXPERIMENTAL_ONLY`]) that the standard channel declares
/// from a release on: (kind, field shape, first release).
///
/// - HTTPRoute `spec.rules[].retry` became standard in v1.7 (GEP-1731).
pub const STANDARD_SINCE: &[(ResourceKind, &str, Release)] =
    &[(ResourceKind::HttpRoute, "spec.rules[].retry", Release::V1_7)];

/// Whether the field at `shape` (indices written `[]`), experimental-only in older releases,
/// is declared by the standard channel of `release`.
pub(super) fn standard_in(kind: ResourceKind, shape: &str, release: Release) -> bool {
    STANDARD_SINCE
        .iter()
        .any(|(k, s, since)| *k == kind && *s == shape && *since <= release)
}

/// Whether rule names must be unique within a route: the experimental CRDs' rule, which the
/// standard HTTPRoute and GRPCRoute CRDs carry from v1.7 on.
pub(super) fn unique_rule_names(bundle: Bundle) -> bool {
    bundle.channel == Channel::Experimental || bundle.release >= Release::V1_7
}

/// The minimum of HTTPRoute `retry.attempts`: none in v1.5, 1 in v1.6, 0 (retries disabled)
/// from v1.7, where `attempts` also defaults to 1 (GEP-1731).
pub(super) fn retry_attempts_minimum(release: Release) -> Option<i64> {
    match release {
        Release::V1_5 => None,
        Release::V1_6 => Some(1),
        Release::V1_7 => Some(0),
    }
}

/// A field that some supported releases' CRDs declare and others do not: declared from `since`
/// on, up to (not including) `until`. gamma-rs's types hold every release's fields at once; a
/// field outside its span is an unknown field for the API server of that release (and a
/// `required` field outside its span is not required there).
///
/// A span with `until == Some(since)` is empty: a field of a type the kind shares with other
/// kinds, which this kind's CRDs never declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldSpan {
    /// The kind whose CRDs declare (or not) the field.
    pub kind: ResourceKind,
    /// The field as a schema path (`[]` for any list item or map key).
    pub shape: &'static str,
    /// The first release that declares it.
    pub since: Release,
    /// The first release that no longer declares it.
    pub until: Option<Release>,
}

impl FieldSpan {
    /// Whether `release`'s CRDs declare the field.
    pub fn declared_in(&self, release: Release) -> bool {
        self.since <= release && self.until.is_none_or(|u| release < u)
    }
}

macro_rules! span {
    ($kind:ident, $shape:literal, $since:ident..) => {
        FieldSpan {
            kind: ResourceKind::$kind,
            shape: $shape,
            since: Release::$since,
            until: None,
        }
    };
    ($kind:ident, $shape:literal, $since:ident..$until:ident) => {
        FieldSpan {
            kind: ResourceKind::$kind,
            shape: $shape,
            since: Release::$since,
            until: Some(Release::$until),
        }
    };
    ($kind:ident, $shape:literal, never) => {
        FieldSpan {
            kind: ResourceKind::$kind,
            shape: $shape,
            since: Release::V1_5,
            until: Some(Release::V1_5),
        }
    };
}

/// Every field whose presence depends on the release; `tests/schema_vs_crd.rs` holds this table
/// equal to the difference between gamma-rs's types and each release's CRDs.
///
/// - Session persistence (GEP-1619): `idleTimeout` left in v1.6; `sessionName` and
///   `cookieConfig` became `cookie` and `header` in v1.7.
/// - Gateway address `routability` (GEP-3651) and listener `filters` (GEP-5224) arrived in v1.7.
/// - XBackend's v1.7 shape: `port.port` renamed `port.number` (`port.name` dropped), with
///   `endpointSelector` and `sessionPersistence` added.
pub const FIELD_SPANS: &[FieldSpan] = &[
    span!(
        HttpRoute,
        "spec.rules[].sessionPersistence.idleTimeout",
        V1_5..V1_6
    ),
    span!(
        HttpRoute,
        "spec.rules[].sessionPersistence.sessionName",
        V1_5..V1_7
    ),
    span!(
        HttpRoute,
        "spec.rules[].sessionPersistence.cookieConfig",
        V1_5..V1_7
    ),
    span!(HttpRoute, "spec.rules[].sessionPersistence.cookie", V1_7..),
    span!(HttpRoute, "spec.rules[].sessionPersistence.header", V1_7..),
    span!(
        GrpcRoute,
        "spec.rules[].sessionPersistence.idleTimeout",
        V1_5..V1_6
    ),
    span!(
        GrpcRoute,
        "spec.rules[].sessionPersistence.sessionName",
        V1_5..V1_7
    ),
    span!(
        GrpcRoute,
        "spec.rules[].sessionPersistence.cookieConfig",
        V1_5..V1_7
    ),
    span!(GrpcRoute, "spec.rules[].sessionPersistence.cookie", V1_7..),
    span!(GrpcRoute, "spec.rules[].sessionPersistence.header", V1_7..),
    span!(
        XBackendTrafficPolicy,
        "spec.sessionPersistence.idleTimeout",
        V1_5..V1_6
    ),
    span!(
        XBackendTrafficPolicy,
        "spec.sessionPersistence.sessionName",
        V1_5..V1_7
    ),
    span!(
        XBackendTrafficPolicy,
        "spec.sessionPersistence.cookieConfig",
        V1_5..V1_7
    ),
    span!(
        XBackendTrafficPolicy,
        "spec.sessionPersistence.cookie",
        V1_7..
    ),
    span!(
        XBackendTrafficPolicy,
        "spec.sessionPersistence.header",
        V1_7..
    ),
    span!(Gateway, "spec.addresses[].routability", V1_7..),
    span!(Gateway, "status.addresses[].routability", V1_7..),
    span!(Gateway, "spec.listeners[].filters", V1_7..),
    span!(ListenerSet, "spec.listeners[].filters", V1_7..),
    span!(XBackend, "spec.port.name", V1_5..V1_7),
    span!(XBackend, "spec.port.port", V1_5..V1_7),
    span!(XBackend, "spec.port.number", V1_7..),
    span!(XBackend, "spec.endpointSelector", V1_7..),
    span!(XBackend, "spec.sessionPersistence", V1_7..),
    span!(XBackend, "spec.sessionPersistence.idleTimeout", never),
    span!(XBackend, "spec.sessionPersistence.sessionName", never),
    span!(XBackend, "spec.sessionPersistence.cookieConfig", never),
];

/// The spans of `kind`'s fields, as shapes.
pub(super) fn spans_of(kind: ResourceKind) -> impl Iterator<Item = &'static FieldSpan> {
    FIELD_SPANS.iter().filter(move |s| s.kind == kind)
}

/// Whether `release`'s CRDs of `kind` declare the field at `shape` (every field not in
/// [`FIELD_SPANS`] is declared by every release).
pub(super) fn declared(kind: ResourceKind, shape: &str, release: Release) -> bool {
    spans_of(kind)
        .find(|s| s.shape == shape)
        .is_none_or(|s| s.declared_in(release))
}

/// Fields the CRDs require from a release on: (kind, field shape, first release). Before it, a
/// missing one is not an error.
pub(super) const REQUIRED_SINCE: &[(ResourceKind, &str, Release)] =
    &[(ResourceKind::ReferenceGrant, "spec", Release::V1_6)];

/// Whether `release`'s CRDs of `kind` require the field at `shape`, given that the newest do.
pub(super) fn required_in(kind: ResourceKind, shape: &str, release: Release) -> bool {
    declared(kind, shape, release)
        && REQUIRED_SINCE
            .iter()
            .all(|(k, s, since)| !(*k == kind && *s == shape && release < *since))
}

/// The most entries of a Gateway's `spec.infrastructure.annotations`: 8 in v1.5, 16 from v1.6.
pub(super) fn infrastructure_annotations_max(release: Release) -> usize {
    if release < Release::V1_6 { 8 } else { 16 }
}

/// The most frontend TLS `caCertificateRefs` of a Gateway: 8 in v1.5, 16 from v1.6.
pub(super) fn frontend_ca_refs_max(release: Release) -> usize {
    if release < Release::V1_6 { 8 } else { 16 }
}

/// The most TLSRoute `spec.hostnames`: 16 in v1.5, 1024 from v1.6.
pub(super) fn tls_route_hostnames_max(release: Release) -> usize {
    if release < Release::V1_6 { 16 } else { 1024 }
}

/// Whether HTTPRoute `retry.codes` is a set (a repeated code refused): from v1.6; v1.5's CRD
/// made it an atomic list.
pub(super) fn retry_codes_are_a_set(release: Release) -> bool {
    release >= Release::V1_6
}

/// Whether the experimental v1.7 rules on TLS validation and backend references apply: "Must
/// not have port for Backend reference" on every reference to an XBackend, and "exactly one of
/// the fields in [caCertificateRefs wellKnownCACertificates] must be set" (with
/// `caCertificateRefs` at least one item) on BackendTLSPolicy and XBackend validation, and
/// "ClusterTrustBundle references must not specify namespace" on a Gateway's frontend CA
/// references. The v1.7 standard CRDs keep the v1.6 rules.
pub(super) fn experimental_v1_7(bundle: Bundle) -> bool {
    bundle.channel == Channel::Experimental && bundle.release >= Release::V1_7
}

/// See [`experimental_v1_7`].
pub(super) fn xbackend_refs_without_port(bundle: Bundle) -> bool {
    experimental_v1_7(bundle)
}
