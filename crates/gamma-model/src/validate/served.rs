//! Which `apiVersion`s each channel's v1.6.1 CRDs serve.
//!
//! A version a CRD lists with `served: false` (or a kind the channel does not install, such as
//! XMesh on the standard channel) is answered by the API server with 404 Not Found; a version
//! no CRD lists any more is a removed version. `tests/served_vs_crd.rs` derives this table from
//! the CRDs of both channels.

use super::Channel;
use crate::resource::ResourceKind;

/// Whether an `apiVersion` of a kind is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Served {
    /// The channel serves it.
    Yes,
    /// The channel does not serve it; the other channel does.
    OnlyBy(Channel),
    /// No channel serves it (a removed version).
    Removed,
    /// Not a Gateway API kind: served by Kubernetes itself (core kinds) or by a CRD outside
    /// Gateway API (SMI); not judged here.
    NotJudged,
}

/// The versions each channel serves, by kind (`group/version`). Kinds not listed are not judged.
const SERVED: &[(ResourceKind, &[&str], &[&str])] = &[
    // (kind, standard, experimental)
    (
        ResourceKind::HttpRoute,
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1beta1",
        ],
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1beta1",
        ],
    ),
    (
        ResourceKind::GrpcRoute,
        &["gateway.networking.k8s.io/v1"],
        &["gateway.networking.k8s.io/v1"],
    ),
    (
        ResourceKind::TlsRoute,
        &["gateway.networking.k8s.io/v1"],
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1alpha2",
            "gateway.networking.k8s.io/v1alpha3",
        ],
    ),
    (
        ResourceKind::TcpRoute,
        &["gateway.networking.k8s.io/v1"],
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1alpha2",
        ],
    ),
    (
        ResourceKind::UdpRoute,
        &["gateway.networking.k8s.io/v1"],
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1alpha2",
        ],
    ),
    (
        ResourceKind::Gateway,
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1beta1",
        ],
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1beta1",
        ],
    ),
    (
        ResourceKind::GatewayClass,
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1beta1",
        ],
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1beta1",
        ],
    ),
    (
        ResourceKind::ListenerSet,
        &["gateway.networking.k8s.io/v1"],
        &["gateway.networking.k8s.io/v1"],
    ),
    (
        ResourceKind::ReferenceGrant,
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1beta1",
        ],
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1beta1",
        ],
    ),
    (
        ResourceKind::BackendTlsPolicy,
        &["gateway.networking.k8s.io/v1"],
        &[
            "gateway.networking.k8s.io/v1",
            "gateway.networking.k8s.io/v1alpha3",
        ],
    ),
    (
        ResourceKind::XMesh,
        &[],
        &["gateway.networking.x-k8s.io/v1alpha1"],
    ),
    (
        ResourceKind::XBackend,
        &[],
        &["gateway.networking.x-k8s.io/v1alpha1"],
    ),
    (
        ResourceKind::XBackendTrafficPolicy,
        &[],
        &["gateway.networking.x-k8s.io/v1alpha1"],
    ),
];

/// Whether `channel` serves `api_version` of `kind`.
///
/// ```
/// use gamma_model::ResourceKind;
/// use gamma_model::validate::{Channel, served::{Served, served}};
/// let v1alpha2 = "gateway.networking.k8s.io/v1alpha2";
/// assert_eq!(served(ResourceKind::TcpRoute, v1alpha2, Channel::Standard), Served::OnlyBy(Channel::Experimental));
/// assert_eq!(served(ResourceKind::TcpRoute, v1alpha2, Channel::Experimental), Served::Yes);
/// assert_eq!(served(ResourceKind::HttpRoute, v1alpha2, Channel::Experimental), Served::Removed);
/// ```
pub fn served(kind: ResourceKind, api_version: &str, channel: Channel) -> Served {
    let Some((_, standard, experimental)) = SERVED.iter().find(|(k, _, _)| *k == kind) else {
        return Served::NotJudged;
    };
    let (mine, other, other_channel) = match channel {
        Channel::Standard => (standard, experimental, Channel::Experimental),
        Channel::Experimental => (experimental, standard, Channel::Standard),
    };
    if mine.contains(&api_version) {
        Served::Yes
    } else if other.contains(&api_version) {
        Served::OnlyBy(other_channel)
    } else {
        Served::Removed
    }
}

fn channel_name(c: Channel) -> &'static str {
    match c {
        Channel::Standard => "standard",
        Channel::Experimental => "experimental",
    }
}

/// Why `api_version` of `kind` is not served on `channel`, or `None` when it is (or is not
/// judged here).
pub(crate) fn not_served_message(
    kind: ResourceKind,
    api_version: &str,
    channel: Channel,
) -> Option<String> {
    match served(kind, api_version, channel) {
        Served::Yes | Served::NotJudged => None,
        Served::OnlyBy(other) => Some(format!(
            "{api_version} is not served by the {} channel of Gateway API v1.6.1; the {} \
             channel serves it",
            channel_name(channel),
            channel_name(other)
        )),
        Served::Removed => Some(format!(
            "{api_version} is a removed version of {}: no Gateway API v1.6.1 CRD serves it",
            kind.as_str()
        )),
    }
}
