//! Which Gateway API CRD bundle (release and channel) a cluster runs, read from the
//! annotations its Gateway API CRDs carry ([`BUNDLE_VERSION_ANNOTATION`] and
//! [`CHANNEL_ANNOTATION`]).
//!
//! A cluster installs one bundle, so every Gateway API CRD names the same one. When they
//! disagree (CRDs installed from two bundles, or an upgrade in progress), each kind is judged
//! under what its own CRD declares ([`Crds::kinds`], a [`KindBundles`]): the HTTPRoute CRD's
//! bundle is the default ([`REFERENCE_CRD`], [`Crds::choose`]), and [`Choice::disagreeing`]
//! lists the CRDs of others. A CRD without the annotations counts as [`UNANNOTATED`] (the newest release) for
//! the part it lacks, for its own kind, and for the default only when no CRD is annotated.
//!
//! [`BUNDLE_VERSION_ANNOTATION`]: gamma_model::validate::BUNDLE_VERSION_ANNOTATION
//! [`CHANNEL_ANNOTATION`]: gamma_model::validate::CHANNEL_ANNOTATION

use std::collections::BTreeMap;

use gamma_model::ResourceKind;
use gamma_model::validate::{Bundle, BundleAnnotationError, Channel, KindBundles, Release};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// The API groups of the Gateway API's CRDs: the standard and experimental kinds
/// (`gateway.networking.k8s.io`) and the `X`-prefixed experimental ones
/// (`gateway.networking.x-k8s.io`). Each of their CRDs names the bundle it ships in.
pub const GROUPS: [&str; 2] = ["gateway.networking.k8s.io", "gateway.networking.x-k8s.io"];

/// The CRD whose bundle is the cluster's default when the Gateway API CRDs disagree (that of
/// every kind without a CRD of its own; each other kind follows its own, [`Crds::kinds`]):
/// HTTPRoute's, present in every channel of every release and the kind most routes are.
pub const REFERENCE_CRD: &str = "httproutes.gateway.networking.k8s.io";

/// The bundle a Gateway API CRD without the annotations is taken to be (for the part it
/// lacks): the newest release gamma-rs knows, on the experimental channel. Experimental
/// because its fields are a superset of the standard channel's: a field the API server stored
/// is one its CRD declares, so judging it by the experimental schema never refuses a route
/// for a field the server accepted.
pub const UNANNOTATED: Bundle = Bundle::new(Release::NEWEST, Channel::Experimental);

/// Whether `crd` is one of the Gateway API's (its group is one of [`GROUPS`]). The
/// XAuthorizationPolicy CRD (GEP-3779, proposal) is not: gamma-rs prints it (`gammactl
/// crd-extension authorization-policy`), no Gateway API bundle ships it, and it names none.
pub fn is_gateway_api(crd: &CustomResourceDefinition) -> bool {
    GROUPS.contains(&crd.spec.group.as_str())
        && crd.spec.names.kind != gamma_model::ResourceKind::XAuthorizationPolicy.as_str()
}

/// What one Gateway API CRD says of its bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CrdBundle {
    /// Its bundle: as annotated, with [`UNANNOTATED`]'s parts for what the annotations do not
    /// say.
    pub bundle: Bundle,
    /// Why the annotations do not name a bundle, when they do not.
    pub problem: Option<BundleAnnotationError>,
    /// The kind it defines, when gamma-rs reads it ([`crate::kinds::of_crd`]).
    pub kind: Option<ResourceKind>,
}

/// The bundle `crd` names, if it is a Gateway API CRD ([`is_gateway_api`]).
pub fn of_crd(crd: &CustomResourceDefinition) -> Option<CrdBundle> {
    if !is_gateway_api(crd) {
        return None;
    }
    let empty = BTreeMap::new();
    let annotations = crd.metadata.annotations.as_ref().unwrap_or(&empty);
    let kind = crate::kinds::of_crd(crd).map(|(kind, _)| kind);
    Some(match Bundle::from_crd_annotations(annotations) {
        Ok(bundle) => CrdBundle {
            bundle,
            problem: None,
            kind,
        },
        Err(problem) => CrdBundle {
            bundle: problem.or(UNANNOTATED),
            problem: Some(problem),
            kind,
        },
    })
}

/// The cluster's bundle, as [`Crds::choose`] chose it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Choice {
    /// The bundle routes are validated against.
    pub bundle: Bundle,
    /// The CRD it was read from ([`REFERENCE_CRD`] where that names one).
    pub from: String,
    /// Annotated Gateway API CRDs that name another bundle, each with its own. Empty on a
    /// cluster that installed one bundle.
    pub disagreeing: BTreeMap<String, Bundle>,
}

/// The bundles of a cluster's Gateway API CRDs, by CRD name, kept current from CRD events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Crds {
    by_name: BTreeMap<String, CrdBundle>,
}

impl Crds {
    /// Records `crd`'s bundle (replacing what its name had) if it is a Gateway API CRD, and
    /// returns it.
    pub fn observe(&mut self, crd: &CustomResourceDefinition) -> Option<&CrdBundle> {
        let found = of_crd(crd)?;
        let name = crd.metadata.name.clone().unwrap_or_default();
        self.by_name.insert(name.clone(), found);
        self.by_name.get(&name)
    }

    /// Forgets the CRD `name` (deleted); returns whether it was a Gateway API CRD.
    pub fn forget(&mut self, name: &str) -> bool {
        self.by_name.remove(name).is_some()
    }

    /// The names of the CRDs recorded.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(String::as_str)
    }

    /// The cluster's bundle: among the annotated CRDs (all of them when none is), the bundle
    /// of [`REFERENCE_CRD`] if it is one of them, else the bundle most of them name (a tie
    /// goes to the newer release, then to the experimental channel). `None` without any
    /// Gateway API CRD.
    pub fn choose(&self) -> Option<Choice> {
        let annotated: Vec<(&String, &CrdBundle)> = self
            .by_name
            .iter()
            .filter(|(_, c)| c.problem.is_none())
            .collect();
        let pool: Vec<(&String, &CrdBundle)> = if annotated.is_empty() {
            self.by_name.iter().collect()
        } else {
            annotated
        };
        let (from, bundle) = match pool.iter().find(|(name, _)| *name == REFERENCE_CRD) {
            Some((name, c)) => ((*name).clone(), c.bundle),
            None => {
                let mut counts: BTreeMap<(Release, bool), usize> = BTreeMap::new();
                for (_, c) in &pool {
                    *counts.entry(key(c.bundle)).or_default() += 1;
                }
                let (&best, _) = counts.iter().max_by_key(|(k, n)| (**n, **k))?;
                let (name, c) = pool.iter().find(|(_, c)| key(c.bundle) == best)?;
                ((*name).clone(), c.bundle)
            }
        };
        let disagreeing = self
            .by_name
            .iter()
            .filter(|(_, c)| c.problem.is_none() && c.bundle != bundle)
            .map(|(name, c)| (name.clone(), c.bundle))
            .collect();
        Some(Choice {
            bundle,
            from,
            disagreeing,
        })
    }
}

impl Crds {
    /// The bundle each kind is judged by: its own CRD's (an unannotated one's as
    /// [`UNANNOTATED`] for what it lacks), and [`Crds::choose`]'s for every kind without a CRD
    /// gamma-rs reads. `None` without any Gateway API CRD. The same CRDs give the same map,
    /// whatever order they were observed in.
    pub fn kinds(&self) -> Option<KindBundles> {
        let mut kinds = KindBundles::new(self.choose()?.bundle);
        for c in self.by_name.values() {
            if let Some(kind) = c.kind {
                kinds.set(kind, c.bundle);
            }
        }
        Some(kinds)
    }
}

/// A bundle as an ordered key: release, then experimental over standard.
fn key(b: Bundle) -> (Release, bool) {
    (b.release, b.channel == Channel::Experimental)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_model::validate::{BUNDLE_VERSION_ANNOTATION, CHANNEL_ANNOTATION};

    fn crd(name: &str, group: &str, annotations: Option<(&str, &str)>) -> CustomResourceDefinition {
        let mut metadata = serde_json::json!({"name": name});
        if let Some((version, channel)) = annotations {
            metadata["annotations"] = serde_json::json!({
                BUNDLE_VERSION_ANNOTATION: version,
                CHANNEL_ANNOTATION: channel,
            });
        }
        serde_json::from_value(serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": metadata,
            "spec": {
                "group": group,
                "names": {"kind": "X", "plural": "x"},
                "scope": "Namespaced",
                "versions": [],
            }
        }))
        .unwrap()
    }

    const K8S: &str = "gateway.networking.k8s.io";
    const X: &str = "gateway.networking.x-k8s.io";

    fn named(release: Release, channel: Channel) -> Option<(&'static str, &'static str)> {
        Some((release.reference_patch(), channel.as_str()))
    }

    #[test]
    fn a_cluster_of_one_bundle_names_it_with_no_disagreement() {
        let mut crds = Crds::default();
        let b = Bundle::new(Release::V1_6, Channel::Experimental);
        for (name, group) in [
            ("gateways.gateway.networking.k8s.io", K8S),
            (REFERENCE_CRD, K8S),
            ("xmeshes.gateway.networking.x-k8s.io", X),
        ] {
            let seen = crds.observe(&crd(name, group, named(b.release, b.channel)));
            assert_eq!(seen.map(|c| c.bundle), Some(b));
        }
        let choice = crds.choose().unwrap();
        assert_eq!(choice.bundle, b);
        assert_eq!(choice.from, REFERENCE_CRD);
        assert!(choice.disagreeing.is_empty());
    }

    #[test]
    fn the_authorization_policy_crd_names_no_bundle_and_is_not_judged_by_one() {
        let mut crds = Crds::default();
        let b = Bundle::new(Release::V1_6, Channel::Standard);
        crds.observe(&crd(REFERENCE_CRD, K8S, named(b.release, b.channel)));
        let mut proposal = crd(
            "xauthorizationpolicies.gateway.networking.x-k8s.io",
            X,
            None,
        );
        proposal.spec.names.kind = "XAuthorizationPolicy".into();
        assert!(!is_gateway_api(&proposal));
        assert_eq!(crds.observe(&proposal), None, "no unannotated-CRD problem");
        let choice = crds.choose().unwrap();
        assert_eq!(choice.bundle, b);
        assert!(choice.disagreeing.is_empty());
    }

    #[test]
    fn crds_of_other_groups_are_not_gateway_api_crds() {
        let mut crds = Crds::default();
        let other = crd("widgets.example.com", "example.com", None);
        assert!(!is_gateway_api(&other));
        assert_eq!(crds.observe(&other), None);
        assert_eq!(crds.choose(), None);
    }

    #[test]
    fn when_crds_disagree_httproutes_decides_and_the_others_are_listed() {
        let mut crds = Crds::default();
        let old = Bundle::new(Release::V1_6, Channel::Experimental);
        let new = Bundle::new(Release::V1_7, Channel::Experimental);
        crds.observe(&crd(REFERENCE_CRD, K8S, named(old.release, old.channel)));
        crds.observe(&crd(
            "gateways.gateway.networking.k8s.io",
            K8S,
            named(new.release, new.channel),
        ));
        crds.observe(&crd(
            "grpcroutes.gateway.networking.k8s.io",
            K8S,
            named(new.release, new.channel),
        ));
        let choice = crds.choose().unwrap();
        assert_eq!((choice.bundle, choice.from.as_str()), (old, REFERENCE_CRD));
        assert_eq!(
            choice.disagreeing.keys().cloned().collect::<Vec<_>>(),
            [
                "gateways.gateway.networking.k8s.io",
                "grpcroutes.gateway.networking.k8s.io"
            ]
        );
        assert!(choice.disagreeing.values().all(|b| *b == new));
        // without HTTPRoute's CRD the bundle most CRDs name decides
        assert!(crds.forget(REFERENCE_CRD));
        assert!(!crds.forget(REFERENCE_CRD));
        let choice = crds.choose().unwrap();
        assert_eq!(choice.bundle, new);
        assert!(choice.disagreeing.is_empty());
    }

    #[test]
    fn a_tie_goes_to_the_newer_release_then_to_experimental() {
        let mut crds = Crds::default();
        crds.observe(&crd(
            "a.gateway.networking.k8s.io",
            K8S,
            named(Release::V1_5, Channel::Experimental),
        ));
        crds.observe(&crd(
            "b.gateway.networking.k8s.io",
            K8S,
            named(Release::V1_6, Channel::Standard),
        ));
        assert_eq!(
            crds.choose().unwrap().bundle,
            Bundle::new(Release::V1_6, Channel::Standard)
        );
        crds.observe(&crd(
            "c.gateway.networking.k8s.io",
            K8S,
            named(Release::V1_6, Channel::Experimental),
        ));
        assert_eq!(
            crds.choose().unwrap().bundle,
            Bundle::new(Release::V1_6, Channel::Experimental)
        );
    }

    #[test]
    fn unannotated_crds_count_only_when_no_crd_is_annotated() {
        let mut crds = Crds::default();
        let bare = crds
            .observe(&crd(REFERENCE_CRD, K8S, None))
            .cloned()
            .unwrap();
        assert_eq!(bare.bundle, UNANNOTATED);
        assert!(bare.problem.is_some());
        assert_eq!(crds.choose().unwrap().bundle, UNANNOTATED);
        let v1_5 = Bundle::new(Release::V1_5, Channel::Standard);
        crds.observe(&crd(
            "gateways.gateway.networking.k8s.io",
            K8S,
            named(v1_5.release, v1_5.channel),
        ));
        let choice = crds.choose().unwrap();
        assert_eq!(choice.bundle, v1_5);
        assert_eq!(choice.from, "gateways.gateway.networking.k8s.io");
        assert!(choice.disagreeing.is_empty(), "{choice:?}");
    }

    /// The CRD of Gateway API kind `kind` (served at v1), with `annotations`.
    fn kind_crd(
        plural: &str,
        kind: &str,
        annotations: Option<(&str, &str)>,
    ) -> CustomResourceDefinition {
        let mut crd = crd(&format!("{plural}.{K8S}"), K8S, annotations);
        crd.spec.names.kind = kind.to_owned();
        crd.spec.versions = serde_json::from_value(serde_json::json!([
            {"name": "v1", "served": true, "storage": true}
        ]))
        .unwrap();
        crd
    }

    #[test]
    fn each_kind_is_judged_by_its_own_crds_bundle_and_kinds_without_one_by_the_default() {
        let v1_7 = Bundle::new(Release::V1_7, Channel::Experimental);
        let v1_6 = Bundle::new(Release::V1_6, Channel::Experimental);
        let all = [
            kind_crd("httproutes", "HTTPRoute", named(v1_7.release, v1_7.channel)),
            kind_crd("grpcroutes", "GRPCRoute", named(v1_6.release, v1_6.channel)),
            // no annotations: the newest release, experimental (the default here)
            kind_crd("gateways", "Gateway", None),
        ];
        let mut forward = Crds::default();
        for c in &all {
            forward.observe(c);
        }
        let mut backward = Crds::default();
        for c in all.iter().rev() {
            backward.observe(c);
        }
        let kinds = forward.kinds().unwrap();
        assert_eq!(Some(&kinds), backward.kinds().as_ref(), "any order");
        assert_eq!(kinds.default_bundle(), v1_7, "the HTTPRoute CRD's");
        assert_eq!(kinds.of(ResourceKind::HttpRoute), v1_7);
        assert_eq!(kinds.of(ResourceKind::GrpcRoute), v1_6);
        assert_eq!(kinds.of(ResourceKind::Gateway), UNANNOTATED);
        assert_eq!(
            kinds.of(ResourceKind::TlsRoute),
            v1_7,
            "no CRD: the default"
        );
        assert_eq!(
            kinds.overrides().collect::<Vec<_>>(),
            [(ResourceKind::GrpcRoute, v1_6)]
        );
        assert_eq!(Crds::default().kinds(), None);
    }

    #[test]
    fn a_dev_bundle_keeps_its_channel_and_takes_the_newest_release() {
        let mut crds = Crds::default();
        let seen = crds
            .observe(&crd(REFERENCE_CRD, K8S, Some(("v0.0.0-dev", "standard"))))
            .cloned()
            .unwrap();
        assert_eq!(
            seen.bundle,
            Bundle::new(UNANNOTATED.release, Channel::Standard)
        );
        assert!(seen.problem.is_some());
    }
}
