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

/// The minimum of HTTPRoute `retry.attempts`: 1 before v1.7, 0 (retries disabled) from v1.7,
/// where `attempts` also defaults to 1 (GEP-1731).
pub(super) fn retry_attempts_minimum(release: Release) -> i64 {
    if release >= Release::V1_7 { 0 } else { 1 }
}
