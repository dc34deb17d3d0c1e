//! Which `apiVersion`s each release's and channel's CRDs serve.
//!
//! A version a CRD lists with `served: false` (or a kind the channel does not install, such as
//! XMesh on the standard channel) is answered by the API server with 404 Not Found; a version
//! no CRD lists any more is a removed version. `tests/served_vs_crd.rs` derives this table from
//! the CRDs of every release and both channels; the table is in `by_release.rs`.

use super::by_release::SERVED;
use super::{Bundle, Channel, Release};
use crate::resource::ResourceKind;

/// Whether an `apiVersion` of a kind is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Served {
    /// The channel serves it.
    Yes,
    /// The channel does not serve it; the other channel of the same release does.
    OnlyBy(Channel),
    /// Neither channel of the release serves it; another supported release does (TCPRoute `v1` on
    /// v1.5, XBackend on v1.5).
    InOtherReleases,
    /// No channel of any supported release serves it (a removed version).
    Removed,
    /// Not a Gateway API kind: served by Kubernetes itself (core kinds) or by a CRD outside
    /// Gateway API (SMI); not judged here.
    NotJudged,
}

/// Whether `channel` of the newest release serves `api_version` of `kind`.
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
    served_in(kind, api_version, Bundle::new(Release::NEWEST, channel))
}

/// Whether `bundle`'s CRDs serve `api_version` of `kind`.
///
/// ```
/// use gamma_model::ResourceKind;
/// use gamma_model::validate::{Bundle, Channel, Release, served::{Served, served_in}};
/// let v1 = "gateway.networking.k8s.io/v1";
/// let v1_5 = Bundle::new(Release::V1_5, Channel::Standard);
/// assert_eq!(served_in(ResourceKind::TcpRoute, v1, v1_5), Served::InOtherReleases);
/// let v1_6 = Bundle::new(Release::V1_6, Channel::Standard);
/// assert_eq!(served_in(ResourceKind::TcpRoute, v1, v1_6), Served::Yes);
/// ```
pub fn served_in(kind: ResourceKind, api_version: &str, bundle: Bundle) -> Served {
    if !SERVED.iter().any(|row| row.kind == kind) {
        return Served::NotJudged;
    }
    let Some(row) = SERVED
        .iter()
        .find(|row| row.kind == kind && row.api_version == api_version)
    else {
        return Served::Removed;
    };
    let other = match bundle.channel {
        Channel::Standard => Channel::Experimental,
        Channel::Experimental => Channel::Standard,
    };
    if row.served_by(bundle) {
        Served::Yes
    } else if row.served_by(Bundle::new(bundle.release, other)) {
        Served::OnlyBy(other)
    } else {
        Served::InOtherReleases
    }
}

/// Every bundle (release and channel) whose CRDs serve `api_version` of `kind`, oldest first.
pub fn serving_bundles(kind: ResourceKind, api_version: &str) -> Vec<Bundle> {
    let mut out = Vec::new();
    for release in Release::ALL {
        for channel in [Channel::Standard, Channel::Experimental] {
            let bundle = Bundle::new(release, channel);
            if SERVED.iter().any(|row| {
                row.kind == kind && row.api_version == api_version && row.served_by(bundle)
            }) {
                out.push(bundle);
            }
        }
    }
    out
}

/// `both channels of v1.6 and v1.7`-style text for a list of bundles.
fn describe(bundles: &[Bundle]) -> String {
    let releases = |channel: Channel| -> Vec<&'static str> {
        bundles
            .iter()
            .filter(|b| b.channel == channel)
            .map(|b| b.release.as_str())
            .collect()
    };
    let list = |r: &[&str]| match r {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    let (standard, experimental) = (releases(Channel::Standard), releases(Channel::Experimental));
    match (standard.is_empty(), experimental.is_empty()) {
        (false, false) if standard == experimental => {
            format!("both channels of {} serve it", list(&standard))
        }
        (false, false) => format!(
            "the standard channel of {} and the experimental channel of {} serve it",
            list(&standard),
            list(&experimental)
        ),
        (false, true) => format!("the standard channel of {} serves it", list(&standard)),
        (true, false) => format!(
            "the experimental channel of {} serves it",
            list(&experimental)
        ),
        (true, true) => "no supported release serves it".to_owned(),
    }
}

/// Why `api_version` of `kind` is not served by `bundle`, or `None` when it is (or is not
/// judged here). The message names the releases and channels that do serve it.
pub(crate) fn not_served_message(
    kind: ResourceKind,
    api_version: &str,
    bundle: Bundle,
) -> Option<String> {
    let by = serving_bundles(kind, api_version);
    match served_in(kind, api_version, bundle) {
        Served::Yes | Served::NotJudged => None,
        Served::OnlyBy(_) | Served::InOtherReleases => Some(format!(
            "{api_version} is not served by the {} channel of Gateway API {}; {}",
            bundle.channel.as_str(),
            bundle.release,
            describe(&by)
        )),
        Served::Removed => Some(format!(
            "{api_version} is a removed version of {}: no Gateway API CRD of {} serves it",
            kind.as_str(),
            Release::supported()
        )),
    }
}
