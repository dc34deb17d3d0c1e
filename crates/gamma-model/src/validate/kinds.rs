//! Which bundle each kind is judged by ([`KindBundles`]).
//!
//! Every Gateway API CRD carries its own bundle annotations
//! ([`BUNDLE_VERSION_ANNOTATION`](super::BUNDLE_VERSION_ANNOTATION) and
//! [`CHANNEL_ANNOTATION`](super::CHANNEL_ANNOTATION)), and the API server validates each kind
//! against its own CRD. A cluster that installed one bundle has one answer for every kind; one
//! whose CRDs come from two bundles (an upgrade under way, one CRD installed by hand) judges
//! each kind under what its own CRD declares. [`KindBundles`] is that map: one default bundle
//! and the kinds judged under another. It is decided once (from the CRDs, or from flags) and
//! read when options are made, never per request.

use std::collections::BTreeMap;
use std::fmt;

use super::release::Bundle;
use crate::ResourceKind;

/// The bundle each kind is judged by: [`KindBundles::default_bundle`] for every kind not
/// named otherwise, and per kind where its CRD names another.
///
/// The map is normal: a kind set to the default bundle is not an override, so two maps that
/// judge every kind alike are equal, whatever order they were built in.
///
/// ```
/// use gamma_model::ResourceKind;
/// use gamma_model::validate::{Bundle, Channel, KindBundles, Release};
/// let v1_7 = Bundle::new(Release::V1_7, Channel::Standard);
/// let v1_6 = Bundle::new(Release::V1_6, Channel::Standard);
/// let kinds = KindBundles::new(v1_7).with_kind(ResourceKind::GrpcRoute, v1_6);
/// assert_eq!(kinds.of(ResourceKind::HttpRoute), v1_7);
/// assert_eq!(kinds.of(ResourceKind::GrpcRoute), v1_6);
/// assert!(!kinds.is_uniform());
/// // one bundle for every kind: the simple case
/// assert!(KindBundles::from(v1_7).is_uniform());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct KindBundles {
    default: Bundle,
    overrides: BTreeMap<ResourceKind, Bundle>,
}

impl KindBundles {
    /// Every kind judged by `default`.
    pub fn new(default: Bundle) -> Self {
        KindBundles {
            default,
            overrides: BTreeMap::new(),
        }
    }

    /// `kind` judged by `bundle` (see [`KindBundles::set`]).
    #[must_use]
    pub fn with_kind(mut self, kind: ResourceKind, bundle: Bundle) -> Self {
        self.set(kind, bundle);
        self
    }

    /// Judges `kind` by `bundle`, replacing what it had; the default bundle is no override.
    pub fn set(&mut self, kind: ResourceKind, bundle: Bundle) {
        if bundle == self.default {
            self.overrides.remove(&kind);
        } else {
            self.overrides.insert(kind, bundle);
        }
    }

    /// The bundle `kind` is judged by.
    pub fn of(&self, kind: ResourceKind) -> Bundle {
        self.overrides.get(&kind).copied().unwrap_or(self.default)
    }

    /// The bundle of every kind not judged by another.
    pub fn default_bundle(&self) -> Bundle {
        self.default
    }

    /// The kinds judged by another bundle than the default, each with its own, in kind order.
    pub fn overrides(&self) -> impl ExactSizeIterator<Item = (ResourceKind, Bundle)> + '_ {
        self.overrides.iter().map(|(k, b)| (*k, *b))
    }

    /// Whether every kind is judged by the default bundle.
    pub fn is_uniform(&self) -> bool {
        self.overrides.is_empty()
    }
}

impl From<Bundle> for KindBundles {
    fn from(bundle: Bundle) -> Self {
        KindBundles::new(bundle)
    }
}

/// `Gateway API v1.7 (standard channel)`, then `; GRPCRoute: Gateway API v1.6 (standard
/// channel)` for each kind judged by another.
impl fmt::Display for KindBundles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.default)?;
        for (kind, bundle) in &self.overrides {
            write!(f, "; {kind}: {bundle}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Channel, Release};

    const V1_7: Bundle = Bundle::new(Release::V1_7, Channel::Standard);
    const V1_6: Bundle = Bundle::new(Release::V1_6, Channel::Standard);
    const V1_6_X: Bundle = Bundle::new(Release::V1_6, Channel::Experimental);

    #[test]
    fn a_kind_without_an_override_is_judged_by_the_default() {
        let kinds = KindBundles::new(V1_6);
        for kind in ResourceKind::ALL {
            assert_eq!(kinds.of(*kind), V1_6, "{kind}");
        }
        assert!(kinds.is_uniform());
        assert_eq!(
            KindBundles::default().of(ResourceKind::HttpRoute),
            Bundle::default()
        );
    }

    #[test]
    fn each_kind_is_judged_by_its_own_and_only_that_kind() {
        let kinds = KindBundles::new(V1_7)
            .with_kind(ResourceKind::GrpcRoute, V1_6)
            .with_kind(ResourceKind::Gateway, V1_6_X);
        assert_eq!(kinds.of(ResourceKind::HttpRoute), V1_7);
        assert_eq!(kinds.of(ResourceKind::GrpcRoute), V1_6);
        assert_eq!(kinds.of(ResourceKind::Gateway), V1_6_X);
        assert_eq!(
            kinds.overrides().collect::<BTreeMap<_, _>>(),
            BTreeMap::from([
                (ResourceKind::Gateway, V1_6_X),
                (ResourceKind::GrpcRoute, V1_6)
            ])
        );
        // set again: replaced, and back to the default: no override at all
        let mut kinds = kinds;
        kinds.set(ResourceKind::GrpcRoute, V1_6_X);
        assert_eq!(kinds.of(ResourceKind::GrpcRoute), V1_6_X);
        kinds.set(ResourceKind::GrpcRoute, V1_7);
        kinds.set(ResourceKind::Gateway, V1_7);
        assert!(kinds.is_uniform());
        assert_eq!(kinds, KindBundles::new(V1_7));
    }

    #[test]
    fn any_order_of_setting_gives_the_same_map() {
        let sets = [
            (ResourceKind::GrpcRoute, V1_6),
            (ResourceKind::HttpRoute, V1_7),
            (ResourceKind::Gateway, V1_6_X),
            (ResourceKind::TlsRoute, V1_6),
        ];
        let forward = sets.iter().fold(KindBundles::new(V1_7), |k, (kind, b)| {
            k.with_kind(*kind, *b)
        });
        let backward = sets
            .iter()
            .rev()
            .fold(KindBundles::new(V1_7), |k, (kind, b)| {
                k.with_kind(*kind, *b)
            });
        assert_eq!(forward, backward);
        assert_eq!(forward.overrides().len(), 3, "HTTPRoute's is the default");
        assert_eq!(forward.to_string(), backward.to_string());
    }

    #[test]
    fn display_names_the_default_then_each_other_kind() {
        assert_eq!(
            KindBundles::new(V1_7).to_string(),
            "Gateway API v1.7 (standard channel)"
        );
        assert_eq!(
            KindBundles::new(V1_7)
                .with_kind(ResourceKind::GrpcRoute, V1_6)
                .to_string(),
            "Gateway API v1.7 (standard channel); GRPCRoute: Gateway API v1.6 (standard channel)"
        );
    }
}
