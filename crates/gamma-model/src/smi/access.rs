//! `access.smi-spec.io` TrafficTarget, v1alpha1 to v1alpha3.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{SmiVersion, check_api_version, check_name, not_in_version};
use crate::macros::string_enum;
use crate::meta::ObjectMeta;
use crate::validate::{ErrorKind, Errors, FieldPath, Validate, ValidateOptions};

/// The `apiVersion`s of TrafficTarget, newest first. (v1alpha4, with IdentityBinding subjects,
/// is a draft in the spec repository and was never served; it is not modelled.)
pub const TRAFFIC_TARGET_VERSIONS: &[&str] = &[
    "access.smi-spec.io/v1alpha3",
    "access.smi-spec.io/v1alpha2",
    "access.smi-spec.io/v1alpha1",
];

/// Allows source identities (ServiceAccounts) to call a destination identity, optionally only
/// on some routes. Access is deny-by-default for any destination some TrafficTarget selects.
///
/// v1alpha1 keeps `destination`, `specs` and `sources` at the top level; v1alpha2+ has
/// `spec.destination`, `spec.rules` and `spec.sources`. `destination.port` exists in v1alpha1
/// (required) and v1alpha2 (optional); v1alpha3 limits ports with TCPRoute/UDPRoute rules
/// instead. Accessors return what the object's version uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficTarget {
    /// `access.smi-spec.io/v1alpha1` … `v1alpha3`, kept as decoded.
    #[serde(default = "TrafficTarget::default_api_version")]
    pub api_version: String,
    /// Always `TrafficTarget`.
    #[serde(default = "TrafficTarget::kind_name")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// **v1alpha1**: the destination identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<IdentityBindingSubject>,
    /// **v1alpha1**: the traffic specs allowed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub specs: Vec<TrafficTargetRule>,
    /// **v1alpha1**: the source identities allowed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<IdentityBindingSubject>,
    /// **v1alpha2+**: the desired state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<TrafficTargetSpec>,
}

impl TrafficTarget {
    fn default_api_version() -> String {
        "access.smi-spec.io/v1alpha3".into()
    }

    fn kind_name() -> String {
        "TrafficTarget".into()
    }

    /// A new v1alpha3 TrafficTarget.
    pub fn new(metadata: ObjectMeta, spec: TrafficTargetSpec) -> Self {
        TrafficTarget {
            api_version: Self::default_api_version(),
            kind: Self::kind_name(),
            metadata,
            destination: None,
            specs: Vec::new(),
            sources: Vec::new(),
            spec: Some(spec),
        }
    }

    /// The SMI version, when the `apiVersion` is one of [`TRAFFIC_TARGET_VERSIONS`].
    pub fn version(&self) -> Option<SmiVersion> {
        TRAFFIC_TARGET_VERSIONS
            .contains(&self.api_version.as_str())
            .then(|| SmiVersion::of(&self.api_version))
            .flatten()
    }

    fn legacy(&self) -> bool {
        self.version() == Some(SmiVersion::V1Alpha1)
    }

    /// The destination identity, where the object's version keeps it.
    pub fn destination(&self) -> Option<&IdentityBindingSubject> {
        if self.legacy() {
            self.destination.as_ref()
        } else {
            self.spec.as_ref().map(|s| &s.destination)
        }
    }

    /// The rules (v1alpha1 `specs`), where the object's version keeps them.
    pub fn rules(&self) -> &[TrafficTargetRule] {
        if self.legacy() {
            &self.specs
        } else {
            self.spec.as_ref().map_or(&[], |s| &s.rules)
        }
    }

    /// The source identities, where the object's version keeps them.
    pub fn sources(&self) -> &[IdentityBindingSubject] {
        if self.legacy() {
            &self.sources
        } else {
            self.spec.as_ref().map_or(&[], |s| &s.sources)
        }
    }
}

/// The desired state of a [`TrafficTarget`] (v1alpha2+).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficTargetSpec {
    /// The destination identity.
    #[serde(default)]
    pub destination: IdentityBindingSubject,
    /// The rules: traffic specs (and optionally their matches) that are allowed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<TrafficTargetRule>,
    /// The source identities allowed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<IdentityBindingSubject>,
}

/// An identity: a ServiceAccount, by name and namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentityBindingSubject {
    /// `ServiceAccount` (the only identity kind SMI defines up to v1alpha3).
    #[serde(default)]
    pub kind: String,
    /// The ServiceAccount's name.
    #[serde(default)]
    pub name: String,
    /// The ServiceAccount's namespace; omitted means the TrafficTarget's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// **v1alpha1 (required), v1alpha2 (optional), destination only**: the one port access is
    /// allowed on; omitted means every port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

impl IdentityBindingSubject {
    /// The namespace with the default (the TrafficTarget's namespace) applied.
    pub fn namespace_or<'a>(&'a self, target_namespace: &'a str) -> &'a str {
        self.namespace
            .as_deref()
            .filter(|n| !n.is_empty())
            .unwrap_or(target_namespace)
    }
}

/// A rule: a traffic spec by kind and name, optionally narrowed to some of its named matches.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficTargetRule {
    /// `HTTPRouteGroup`, `TCPRoute`, or (v1alpha3) `UDPRoute`.
    #[serde(default)]
    pub kind: RuleKind,
    /// The traffic spec's name, in the TrafficTarget's namespace.
    #[serde(default)]
    pub name: String,
    /// Names of HTTPRouteGroup matches allowed; omitted means all of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<String>,
}

string_enum! {
    /// The kinds of traffic spec a TrafficTarget rule references.
    pub enum RuleKind {
        /// An SMI HTTPRouteGroup.
        HttpRouteGroup => "HTTPRouteGroup",
        /// An SMI TCPRoute.
        TcpRoute => "TCPRoute",
        /// An SMI UDPRoute (v1alpha3).
        UdpRoute => "UDPRoute",
    }
}

impl Default for RuleKind {
    fn default() -> Self {
        RuleKind::Unknown(String::new())
    }
}

/// The identity kind SMI defines.
pub const SERVICE_ACCOUNT: &str = "ServiceAccount";

fn check_subject(
    errors: &mut Errors,
    path: &FieldPath,
    s: &IdentityBindingSubject,
    port_rule: PortRule,
    version: SmiVersion,
) {
    if s.kind != SERVICE_ACCOUNT {
        errors.unsupported(&path.field("kind"), &s.kind, &[SERVICE_ACCOUNT]);
    }
    check_name(errors, &path.field("name"), &s.name);
    let pp = path.field("port");
    match (port_rule, s.port) {
        (PortRule::Required, None) => errors.push(pp, ErrorKind::Required),
        (PortRule::Forbidden, Some(_)) => not_in_version(errors, pp, version, ""),
        (_, Some(p)) => {
            errors.range(&pp, i64::from(p), 1, 65535);
        }
        _ => {}
    }
}

#[derive(Clone, Copy)]
enum PortRule {
    Required,
    Optional,
    Forbidden,
}

impl Validate for TrafficTarget {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        let Some(version) =
            check_api_version(&self.api_version, TRAFFIC_TARGET_VERSIONS, errors, path)
        else {
            return;
        };
        check_name(
            errors,
            &path.field("metadata").field("name"),
            &self.metadata.name,
        );
        let (base, rules_field, dest_port) = if version == SmiVersion::V1Alpha1 {
            if self.spec.is_some() {
                not_in_version(
                    errors,
                    path.field("spec"),
                    version,
                    "; fields are top-level",
                );
            }
            (path.clone(), "specs", PortRule::Required)
        } else {
            for (set, field) in [
                (self.destination.is_some(), "destination"),
                (!self.specs.is_empty(), "specs"),
                (!self.sources.is_empty(), "sources"),
            ] {
                if set {
                    not_in_version(errors, path.field(field), version, "; use spec");
                }
            }
            if self.spec.is_none() {
                errors.push(path.field("spec"), ErrorKind::Required);
                return;
            }
            let port = if version == SmiVersion::V1Alpha2 {
                PortRule::Optional
            } else {
                PortRule::Forbidden
            };
            (path.field("spec"), "rules", port)
        };
        match self.destination() {
            Some(d) => check_subject(errors, &base.field("destination"), d, dest_port, version),
            None => errors.push(base.field("destination"), ErrorKind::Required),
        }
        // "A valid TrafficTarget must specify a destination, at least one rule, and at least
        // one source" (v1alpha3); earlier versions leave rules and sources optional, and a
        // target without them allows nothing.
        let rules = base.field(rules_field);
        let sources = base.field("sources");
        if version == SmiVersion::V1Alpha3 {
            errors.items(&rules, self.rules().len(), 1, usize::MAX);
            errors.items(&sources, self.sources().len(), 1, usize::MAX);
        }
        for (i, s) in self.sources().iter().enumerate() {
            check_subject(errors, &sources.index(i), s, PortRule::Forbidden, version);
        }
        for (i, r) in self.rules().iter().enumerate() {
            let p = rules.index(i);
            match &r.kind {
                RuleKind::UdpRoute if version < SmiVersion::V1Alpha3 => errors.unsupported(
                    &p.field("kind"),
                    "UDPRoute",
                    &["HTTPRouteGroup", "TCPRoute"],
                ),
                k if !k.is_known() => {
                    errors.unsupported(&p.field("kind"), k.as_str(), RuleKind::KNOWN)
                }
                _ => {}
            }
            check_name(errors, &p.field("name"), &r.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnyResource, decode};

    fn target(yaml: &str) -> TrafficTarget {
        match decode(yaml).unwrap().remove(0) {
            AnyResource::TrafficTarget(t) => *t,
            other => panic!("not a TrafficTarget: {other:?}"),
        }
    }

    // smi-spec apis/traffic-access/v1alpha1: top-level destination (port required), specs, sources.
    #[test]
    fn v1alpha1_fields_are_top_level_and_destination_port_is_required() {
        let t = target(
            "apiVersion: access.smi-spec.io/v1alpha1\nkind: TrafficTarget\nmetadata: {name: t, namespace: default}\ndestination: {kind: ServiceAccount, name: service-a, namespace: default, port: 8080}\nspecs:\n- {kind: HTTPRouteGroup, name: the-routes, matches: [metrics]}\nsources:\n- {kind: ServiceAccount, name: prometheus, namespace: default}\n",
        );
        assert_eq!(t.destination().unwrap().name, "service-a");
        assert_eq!(t.rules()[0].matches, ["metrics"]);
        assert_eq!(t.sources()[0].name, "prometheus");
        assert!(t.validate().is_ok(), "{:?}", t.validate());
        let no_port = target(
            "apiVersion: access.smi-spec.io/v1alpha1\nkind: TrafficTarget\nmetadata: {name: t}\ndestination: {kind: ServiceAccount, name: a}\n",
        );
        assert!(
            no_port
                .validate()
                .unwrap_err()
                .has_error_at("destination.port")
        );
    }

    // smi-spec apis/traffic-access/v1alpha3: port moved to TCPRoute rules; rules and sources
    // required; UDPRoute rules allowed.
    #[test]
    fn v1alpha3_forbids_destination_port_and_requires_rules_and_sources() {
        let t = target(
            "apiVersion: access.smi-spec.io/v1alpha3\nkind: TrafficTarget\nmetadata: {name: t}\nspec:\n  destination: {kind: ServiceAccount, name: a, port: 80}\n",
        );
        let errs = t.validate().unwrap_err();
        for p in ["spec.destination.port", "spec.rules", "spec.sources"] {
            assert!(errs.has_error_at(p), "{p}: {errs}");
        }
        let udp_v2 = target(
            "apiVersion: access.smi-spec.io/v1alpha2\nkind: TrafficTarget\nmetadata: {name: t}\nspec:\n  destination: {kind: ServiceAccount, name: a}\n  rules: [{kind: UDPRoute, name: u}]\n  sources: [{kind: Group, name: b}]\n",
        );
        let errs = udp_v2.validate().unwrap_err();
        assert!(errs.has_error_at("spec.rules[0].kind"), "{errs}");
        assert!(errs.has_error_at("spec.sources[0].kind"), "{errs}");
    }

    #[test]
    fn subject_namespace_defaults_to_the_target_namespace() {
        let s = IdentityBindingSubject {
            kind: SERVICE_ACCOUNT.into(),
            name: "a".into(),
            ..Default::default()
        };
        assert_eq!(s.namespace_or("shop"), "shop");
    }
}
