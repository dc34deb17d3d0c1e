//! `split.smi-spec.io` TrafficSplit, v1alpha1 to v1alpha4.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Quantity, SmiVersion, check_api_version, check_name, not_in_version};
use crate::macros::string_enum;
use crate::meta::ObjectMeta;
use crate::validate::{ErrorKind, Errors, FieldPath, Validate, ValidateOptions};

/// The `apiVersion`s of TrafficSplit, newest first.
pub const TRAFFIC_SPLIT_VERSIONS: &[&str] = &[
    "split.smi-spec.io/v1alpha4",
    "split.smi-spec.io/v1alpha3",
    "split.smi-spec.io/v1alpha2",
    "split.smi-spec.io/v1alpha1",
];

/// Weights traffic sent to a *root* Service between backend Services (canary, A/B).
///
/// Every version has `spec.service` (the root Service clients call) and `spec.backends`
/// (Services with weights). v1alpha1 weights are Kubernetes quantities (`500m`; "1 = 1000m"),
/// v1alpha2+ weights are whole numbers. v1alpha3 and v1alpha4 add `spec.matches`: references to
/// HTTPRouteGroups whose matching requests are split, all others going to the root Service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficSplit {
    /// `split.smi-spec.io/v1alpha1` … `v1alpha4`, kept as decoded.
    #[serde(default = "TrafficSplit::default_api_version")]
    pub api_version: String,
    /// Always `TrafficSplit`.
    #[serde(default = "TrafficSplit::kind_name")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: TrafficSplitSpec,
}

impl TrafficSplit {
    fn default_api_version() -> String {
        "split.smi-spec.io/v1alpha4".into()
    }

    fn kind_name() -> String {
        "TrafficSplit".into()
    }

    /// A new TrafficSplit with the given `apiVersion`.
    pub fn new(api_version: &str, metadata: ObjectMeta, spec: TrafficSplitSpec) -> Self {
        TrafficSplit {
            api_version: api_version.to_owned(),
            kind: Self::kind_name(),
            metadata,
            spec,
        }
    }

    /// The SMI version, when the `apiVersion` is one of [`TRAFFIC_SPLIT_VERSIONS`].
    pub fn version(&self) -> Option<SmiVersion> {
        TRAFFIC_SPLIT_VERSIONS
            .contains(&self.api_version.as_str())
            .then(|| SmiVersion::of(&self.api_version))
            .flatten()
    }
}

/// The desired state of a [`TrafficSplit`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficSplitSpec {
    /// The root Service (in the split's namespace) that clients call.
    #[serde(default)]
    pub service: String,
    /// The backend Services and their weights.
    #[serde(default)]
    pub backends: Vec<TrafficSplitBackend>,
    /// **v1alpha3+**: the route groups whose matching requests are split; requests matching
    /// none go to the root Service. Omitted: every request is split.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<TrafficSplitMatch>,
}

/// One backend of a [`TrafficSplit`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficSplitBackend {
    /// The backend Service, in the split's namespace.
    #[serde(default)]
    pub service: String,
    /// The weight: a quantity in v1alpha1 (`100m`), a whole number in v1alpha2+. Required in
    /// v1alpha2+; an omitted v1alpha1 weight counts as zero (the Go type is a nil pointer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<Quantity>,
}

/// A reference from a TrafficSplit to a traffic spec (a core `TypedLocalObjectReference`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficSplitMatch {
    /// The API group of the referenced object (normally omitted: `specs.smi-spec.io`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_group: Option<String>,
    /// `HTTPRouteGroup` (the only value the CRD enumerates) or `TCPRoute` (accepted by
    /// gamma-rs: a split limited to the ports of an SMI TCPRoute).
    #[serde(default)]
    pub kind: SplitMatchKind,
    /// The name of the referenced object, in the split's namespace.
    #[serde(default)]
    pub name: String,
}

string_enum! {
    /// The kinds a TrafficSplit `matches` entry may reference.
    pub enum SplitMatchKind {
        /// An SMI HTTPRouteGroup.
        HttpRouteGroup => "HTTPRouteGroup",
        /// An SMI TCPRoute (v1alpha4 `matches.ports`).
        TcpRoute => "TCPRoute",
    }
}

impl Default for SplitMatchKind {
    fn default() -> Self {
        SplitMatchKind::Unknown(String::new())
    }
}

impl Validate for TrafficSplit {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        let version = check_api_version(&self.api_version, TRAFFIC_SPLIT_VERSIONS, errors, path);
        check_name(
            errors,
            &path.field("metadata").field("name"),
            &self.metadata.name,
        );
        let spec = path.field("spec");
        check_name(errors, &spec.field("service"), &self.spec.service);
        let backends = spec.field("backends");
        errors.items(&backends, self.spec.backends.len(), 1, usize::MAX);
        for (i, b) in self.spec.backends.iter().enumerate() {
            let p = backends.index(i);
            check_name(errors, &p.field("service"), &b.service);
            let wp = p.field("weight");
            match (&b.weight, version) {
                (None, Some(SmiVersion::V1Alpha1) | None) => {}
                (None, Some(_)) => errors.push(wp, ErrorKind::Required),
                (Some(w), Some(SmiVersion::V1Alpha1) | None) => {
                    if let Err(e) = w.value() {
                        errors.rule(wp, e.to_string());
                    }
                }
                (Some(w), Some(_)) => {
                    if w.as_whole_number().is_none() {
                        errors.rule(
                            wp,
                            format!("weight {w} must be a non-negative whole number"),
                        );
                    }
                }
            }
        }
        let matches = spec.field("matches");
        if let Some(v @ (SmiVersion::V1Alpha1 | SmiVersion::V1Alpha2)) = version
            && !self.spec.matches.is_empty()
        {
            not_in_version(errors, matches.clone(), v, "; matches arrived in v1alpha3");
        }
        for (i, m) in self.spec.matches.iter().enumerate() {
            let p = matches.index(i);
            if !m.kind.is_known() {
                errors.unsupported(&p.field("kind"), m.kind.as_str(), SplitMatchKind::KNOWN);
            }
            check_name(errors, &p.field("name"), &m.name);
            if let Some(g) = &m.api_group
                && !g.is_empty()
                && g != super::SPECS_GROUP
            {
                errors.unsupported(&p.field("apiGroup"), g, &[super::SPECS_GROUP]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnyResource, decode};

    fn split(yaml: &str) -> TrafficSplit {
        match decode(yaml).unwrap().remove(0) {
            AnyResource::TrafficSplit(t) => t,
            other => panic!("not a TrafficSplit: {other:?}"),
        }
    }

    // smi-spec apis/traffic-split/v1alpha1: weights are quantities ("1 = 1000m").
    #[test]
    fn v1alpha1_quantity_weights_validate_and_v1alpha4_requires_whole_numbers() {
        let v1 = split(
            "apiVersion: split.smi-spec.io/v1alpha1\nkind: TrafficSplit\nmetadata: {name: s}\nspec:\n  service: numbers\n  backends:\n  - {service: one, weight: 10m}\n  - {service: two, weight: 1}\n",
        );
        assert_eq!(v1.version(), Some(SmiVersion::V1Alpha1));
        assert!(v1.validate().is_ok(), "{:?}", v1.validate());
        let v4 = split(
            "apiVersion: split.smi-spec.io/v1alpha4\nkind: TrafficSplit\nmetadata: {name: s}\nspec:\n  service: numbers\n  backends:\n  - {service: one, weight: 10m}\n  - {service: two}\n",
        );
        let errs = v4.validate().unwrap_err();
        assert!(errs.has_error_at("spec.backends[0].weight"), "{errs}");
        assert!(errs.has_error_at("spec.backends[1].weight"), "{errs}");
    }

    // smi-spec apis/traffic-split/v1alpha3: `matches` is new in v1alpha3.
    #[test]
    fn matches_are_rejected_before_v1alpha3_and_unknown_match_kinds_reported() {
        let v2 = split(
            "apiVersion: split.smi-spec.io/v1alpha2\nkind: TrafficSplit\nmetadata: {name: s}\nspec:\n  service: web\n  matches: [{kind: HTTPRouteGroup, name: g}]\n  backends: [{service: a, weight: 1}]\n",
        );
        assert!(v2.validate().unwrap_err().has_error_at("spec.matches"));
        let v3 = split(
            "apiVersion: split.smi-spec.io/v1alpha3\nkind: TrafficSplit\nmetadata: {name: s}\nspec:\n  service: web\n  matches: [{kind: UDPRoute, name: g}]\n  backends: [{service: a, weight: 1}]\n",
        );
        let errs = v3.validate().unwrap_err();
        assert!(errs.has_error_at("spec.matches[0].kind"), "{errs}");
        assert_eq!(errs.len(), 1);
    }

    #[test]
    fn missing_service_and_backends_are_required() {
        let s = split(
            "apiVersion: split.smi-spec.io/v1alpha4\nkind: TrafficSplit\nmetadata: {name: s}\n",
        );
        let errs = s.validate().unwrap_err();
        assert!(errs.has_error_at("spec.service"));
        assert!(errs.has_error_at("spec.backends"));
    }
}
