//! The embedder's configuration: the meshes that share the cluster and the keys the ladder reads.
//!
//! Read it with [`ArbiterConfig::decode`] from the YAML (or JSON) format of
//! `examples/gamma-config.yaml`: unknown keys, wrong types and missing required keys are errors
//! with line and field path, since a typo decoded with defaults would be a different ownership
//! table. (`ArbiterConfig` also implements `Deserialize` with the same strictness, for embedding in a
//! larger configuration.)
//!
//! ```
//! use gamma_arbiter::ArbiterConfig;
//! let config = ArbiterConfig::decode(r#"{
//!   "meshes": [
//!     {"name": "istio", "controllerName": "istio.io/gateway-controller",
//!      "aliases": ["istio.io/mesh-controller"],
//!      "namespaceSelector": {"matchLabels": {"istio-injection": "enabled"}}},
//!     {"name": "linkerd", "controllerName": "linkerd.io/policy-controller", "default": true}
//!   ]
//! }"#).unwrap();
//! assert_eq!(config.keys.namespace_mesh_label, "gamma.rs/mesh");
//! config.validate().unwrap();
//! ```

mod decode;

use std::collections::{BTreeMap, BTreeSet};

use gamma_model::gateway::LabelSelector;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use decode::ConfigDecodeError;

/// The arbiter's configuration. Every controller sharing a cluster should run with the same
/// configuration: the verdicts are only identical across controllers when their inputs are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ArbiterConfig {
    /// The registered meshes (ladder levels 4 and 5, and names for level 3). XMesh objects in
    /// the snapshot register meshes too; an entry here with the same name is the same mesh.
    #[serde(default)]
    pub meshes: Vec<MeshRegistration>,
    /// The annotation and label keys the ladder reads.
    #[serde(default)]
    pub keys: Keys,
    /// The controller (by name) that writes `Accepted=False` with reason `NoOwningController`
    /// on parents whose owners are all unknown names (a typo never falls through, so someone
    /// should say so). `None`: nobody reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_owning_controller_reporter: Option<String>,
    /// Non-standard compatibility policy: read a parentRef `kind: Service` with `group: core`
    /// as the core Service (`group: ""`), as Linkerd does. The Gateway API names the core
    /// group `""` ([ParentReference.group]), so by default (`false`) such a parent is
    /// [`crate::Verdict::NotAService`]. Every controller of the cluster must agree on it.
    ///
    /// [ParentReference.group]: https://gateway-api.sigs.k8s.io/reference/spec/#parentreference
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub core_group_alias: bool,
    /// Level 1 reads only the route annotation ([`Keys::route_controllers_annotation`]),
    /// never `parentRefs[].controllers`: for clusters whose route CRDs do not declare that
    /// gamma-rs extension (the upstream CRDs), where the API server refuses or prunes the field,
    /// so that a copy of a route that still carries it (a file, a cache filled before the CRDs
    /// were reinstalled) is decided as the stored route is. gamma-kube sets it from the CRDs
    /// it watches (docs/ownership.md, "The `controllers` field on a real cluster"). Every
    /// controller of the cluster must agree on it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_parent_ref_controllers: bool,
}

/// One mesh (or other controller) sharing the cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct MeshRegistration {
    /// The mesh's name: the XMesh name, and the value the namespace label names.
    pub name: String,
    /// The controller name the mesh writes in route status (and on its XMesh).
    pub controller_name: String,
    /// Other names the mesh acts and writes status under (a waypoint GatewayClass's
    /// controllerName, a previous name). Any of them names the same mesh.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Namespaces this mesh claims at ladder level 4. `None`: no claim at level 4.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "decode::strict_selector"
    )]
    #[schemars(with = "Option<decode::StrictSelector>")]
    pub namespace_selector: Option<LabelSelector>,
    /// Whether this is the default mesh (ladder level 5). Never implicit.
    #[serde(default)]
    pub default: bool,
    /// Parent kinds other than Gateway and Service this controller claims (for example
    /// `multicluster.x-k8s.io/ServiceImport`); without a claim such parents are
    /// `NotApplicable`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parent_kinds: Vec<GroupKind>,
}

impl MeshRegistration {
    /// A registration with a name and controller name and nothing else.
    pub fn new(name: impl Into<String>, controller_name: impl Into<String>) -> Self {
        MeshRegistration {
            name: name.into(),
            controller_name: controller_name.into(),
            ..MeshRegistration::default()
        }
    }

    /// With these aliases.
    pub fn with_aliases<S: Into<String>>(mut self, aliases: impl IntoIterator<Item = S>) -> Self {
        self.aliases = aliases.into_iter().map(Into::into).collect();
        self
    }

    /// With this namespace selector (level 4).
    pub fn with_selector(mut self, selector: LabelSelector) -> Self {
        self.namespace_selector = Some(selector);
        self
    }

    /// Flagged as the default (level 5).
    pub fn as_default(mut self) -> Self {
        self.default = true;
        self
    }

    /// Claiming parents of this group and kind.
    pub fn claiming(mut self, group: impl Into<String>, kind: impl Into<String>) -> Self {
        self.parent_kinds.push(GroupKind {
            group: group.into(),
            kind: kind.into(),
        });
        self
    }
}

/// An API group and kind.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GroupKind {
    /// The API group (`""` for core).
    #[serde(default)]
    pub group: String,
    /// The kind.
    pub kind: String,
}

/// The annotation and label keys the ladder reads. The defaults are the documented ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
#[non_exhaustive]
pub struct Keys {
    /// Level 1: route annotation with a comma list of controller names
    /// (default `gamma.rs/controllers`).
    pub route_controllers_annotation: String,
    /// Level 2: Service annotation naming the controller (default `gamma.rs/controller`).
    pub service_controller_annotation: String,
    /// Level 2: Service label naming a Gateway the Service delegates to
    /// (default `istio.io/use-waypoint`).
    pub delegation_label: String,
    /// Level 2: Service label naming the delegation Gateway's namespace
    /// (default `istio.io/use-waypoint-namespace`; absent: the Service's namespace).
    pub delegation_namespace_label: String,
    /// Level 2, when the Service has no delegation label: label on the Service's Namespace
    /// naming the Gateway every Service of that namespace delegates to (default
    /// `istio.io/use-waypoint`, as Istio's ambient waypoint lookup reads it). A Service label
    /// `none` opts that Service out.
    pub namespace_delegation_label: String,
    /// Level 2: Namespace label naming the namespace-level delegation Gateway's namespace
    /// (default `istio.io/use-waypoint-namespace`; absent: that Namespace itself).
    pub namespace_delegation_namespace_label: String,
    /// Level 3: Namespace label naming a mesh (default `gamma.rs/mesh`).
    pub namespace_mesh_label: String,
}

/// The value that means "no signal" for every annotation and label the ladder reads.
pub const NONE_VALUE: &str = "none";

impl Default for Keys {
    fn default() -> Self {
        Keys {
            route_controllers_annotation: "gamma.rs/controllers".into(),
            service_controller_annotation: "gamma.rs/controller".into(),
            delegation_label: "istio.io/use-waypoint".into(),
            delegation_namespace_label: "istio.io/use-waypoint-namespace".into(),
            namespace_delegation_label: "istio.io/use-waypoint".into(),
            namespace_delegation_namespace_label: "istio.io/use-waypoint-namespace".into(),
            namespace_mesh_label: "gamma.rs/mesh".into(),
        }
    }
}

/// Why a configuration cannot be used. Field paths point into the configuration document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A required string is empty.
    #[error("{path}: must not be empty")]
    Empty {
        /// Where.
        path: String,
    },
    /// Two registrations share a name.
    #[error("{path}: mesh name {name:?} is already registered")]
    DuplicateMesh {
        /// Where.
        path: String,
        /// The name.
        name: String,
    },
    /// A controller name or alias is claimed by two registrations: it would name two meshes.
    #[error("{path}: controller name {name:?} already names mesh {other:?}")]
    DuplicateControllerName {
        /// Where.
        path: String,
        /// The name.
        name: String,
        /// The mesh that has it already.
        other: String,
    },
    /// A namespace selector that cannot be evaluated.
    #[error("{path}: {source}")]
    BadSelector {
        /// Where.
        path: String,
        /// What is wrong.
        source: gamma_model::gateway::SelectorError,
    },
    /// A parent kind claimed that the ladder already decides (Gateway, ListenerSet, Service).
    #[error("{path}: {group}/{kind} is decided by the ladder and cannot be claimed")]
    ReservedKind {
        /// Where.
        path: String,
        /// The group.
        group: String,
        /// The kind.
        kind: String,
    },
}

impl ArbiterConfig {
    /// A configuration with these meshes and the default keys.
    pub fn new(meshes: impl IntoIterator<Item = MeshRegistration>) -> Self {
        ArbiterConfig {
            meshes: meshes.into_iter().collect(),
            ..ArbiterConfig::default()
        }
    }

    /// Sets [`ArbiterConfig::core_group_alias`] (non-standard: `group: core` is the core group).
    pub fn with_core_group_alias(mut self, on: bool) -> Self {
        self.core_group_alias = on;
        self
    }

    /// Sets [`ArbiterConfig::ignore_parent_ref_controllers`] (level 1 reads only the route
    /// annotation).
    pub fn with_ignore_parent_ref_controllers(mut self, on: bool) -> Self {
        self.ignore_parent_ref_controllers = on;
        self
    }

    /// Checks the configuration: names present and unique, controller names and aliases unique
    /// across meshes, selectors evaluable, claimed kinds not reserved. Returns every problem.
    pub fn validate(&self) -> Result<(), ConfigErrors> {
        let mut errors = Vec::new();
        let mut names = BTreeSet::new();
        let mut controllers: BTreeMap<&str, &str> = BTreeMap::new();
        for (i, m) in self.meshes.iter().enumerate() {
            let path = format!("meshes[{i}]");
            if m.name.is_empty() {
                errors.push(ConfigError::Empty {
                    path: format!("{path}.name"),
                });
            } else if !names.insert(m.name.as_str()) {
                errors.push(ConfigError::DuplicateMesh {
                    path: format!("{path}.name"),
                    name: m.name.clone(),
                });
            }
            if m.controller_name.is_empty() {
                errors.push(ConfigError::Empty {
                    path: format!("{path}.controllerName"),
                });
            }
            let all = std::iter::once((format!("{path}.controllerName"), &m.controller_name))
                .chain(
                    m.aliases
                        .iter()
                        .enumerate()
                        .map(|(j, a)| (format!("{path}.aliases[{j}]"), a)),
                );
            for (p, n) in all {
                if n.is_empty() {
                    if !p.ends_with("controllerName") {
                        errors.push(ConfigError::Empty { path: p });
                    }
                    continue;
                }
                match controllers.get(n.as_str()) {
                    Some(other) if *other != m.name => {
                        errors.push(ConfigError::DuplicateControllerName {
                            path: p,
                            name: n.clone(),
                            other: (*other).to_owned(),
                        })
                    }
                    _ => {
                        controllers.insert(n.as_str(), m.name.as_str());
                    }
                }
            }
            if let Some(sel) = &m.namespace_selector
                && let Err(source) = sel.matches(&BTreeMap::new())
            {
                errors.push(ConfigError::BadSelector {
                    path: format!("{path}.namespaceSelector"),
                    source,
                });
            }
            for (j, gk) in m.parent_kinds.iter().enumerate() {
                let reserved = matches!(
                    (gk.group.as_str(), gk.kind.as_str()),
                    (gamma_model::gateway::GROUP, "Gateway" | "ListenerSet") | ("", "Service")
                );
                if reserved {
                    errors.push(ConfigError::ReservedKind {
                        path: format!("{path}.parentKinds[{j}]"),
                        group: gk.group.clone(),
                        kind: gk.kind.clone(),
                    });
                }
            }
        }
        ConfigErrors::from_vec(errors).map_or(Ok(()), Err)
    }
}

/// Every problem [`ArbiterConfig::validate`] found, in configuration order. Never empty.
///
/// One error type (rather than a `Vec`) so that `?` carries it into any
/// `Box<dyn std::error::Error>` or `thiserror` enum; the message lists every error with its path.
///
/// ```
/// use gamma_arbiter::{ArbiterConfig, MeshRegistration};
/// let config = ArbiterConfig::new([MeshRegistration::new("a", ""), MeshRegistration::new("a", "a.io/c")]);
/// let errors = config.validate().unwrap_err();
/// assert_eq!(errors.len(), 2);
/// assert_eq!(
///     errors.to_string(),
///     "2 configuration errors: meshes[0].controllerName: must not be empty; \
///      meshes[1].name: mesh name \"a\" is already registered",
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigErrors(Vec<ConfigError>);

impl ConfigErrors {
    /// Wraps a non-empty list of errors; `None` when the list is empty.
    pub fn from_vec(errors: Vec<ConfigError>) -> Option<Self> {
        (!errors.is_empty()).then_some(ConfigErrors(errors))
    }

    /// The individual errors, in configuration order.
    pub fn errors(&self) -> &[ConfigError] {
        &self.0
    }

    /// The number of errors (at least one).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always false: a `ConfigErrors` holds at least one error. Present for API symmetry.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Consumes into the list of errors.
    pub fn into_vec(self) -> Vec<ConfigError> {
        self.0
    }
}

impl std::fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.len() {
            1 => f.write_str("1 configuration error: ")?,
            n => write!(f, "{n} configuration errors: ")?,
        }
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

impl IntoIterator for ConfigErrors {
    type Item = ConfigError;
    type IntoIter = std::vec::IntoIter<ConfigError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a ConfigErrors {
    type Item = &'a ConfigError;
    type IntoIter = std::slice::Iter<'a, ConfigError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_default_when_omitted_and_override_individually() {
        let c: ArbiterConfig =
            serde_saphyr::from_str("keys: {namespaceMeshLabel: example.com/mesh}\n").unwrap();
        assert_eq!(c.keys.namespace_mesh_label, "example.com/mesh");
        assert_eq!(c.keys.delegation_label, "istio.io/use-waypoint");
    }

    #[test]
    fn an_alias_shared_by_two_meshes_is_rejected() {
        let c = ArbiterConfig::new([
            MeshRegistration::new("a", "a.io/c").with_aliases(["x.io/c"]),
            MeshRegistration::new("b", "x.io/c"),
        ]);
        let errs = c.validate().unwrap_err();
        assert!(
            matches!(&errs.errors()[0], ConfigError::DuplicateControllerName { path, .. } if path == "meshes[1].controllerName")
        );
    }

    #[test]
    fn bad_selectors_and_reserved_kinds_are_rejected_with_paths() {
        let mut sel = LabelSelector::default();
        sel.match_expressions
            .push(gamma_model::gateway::LabelSelectorRequirement {
                key: "k".into(),
                operator: "In".into(),
                values: vec![],
            });
        let c = ArbiterConfig::new([MeshRegistration::new("a", "a.io/c")
            .with_selector(sel)
            .claiming("", "Service")]);
        let errs = c.validate().unwrap_err();
        assert_eq!(errs.len(), 2);
        assert!(
            errs.errors()[0]
                .to_string()
                .starts_with("meshes[0].namespaceSelector")
        );
        assert!(
            errs.errors()[1]
                .to_string()
                .starts_with("meshes[0].parentKinds[0]")
        );
    }

    #[test]
    fn config_errors_are_one_error_listing_every_problem_with_its_path() {
        fn arbiter_of(c: ArbiterConfig) -> Result<crate::Arbiter, Box<dyn std::error::Error>> {
            // `?` converts: ConfigErrors implements std::error::Error.
            Ok(crate::Arbiter::new(c)?)
        }
        let c = ArbiterConfig::new([
            MeshRegistration::new("", "a.io/c"),
            MeshRegistration::new("b", "a.io/c"),
        ]);
        let err = arbiter_of(c).unwrap_err().to_string();
        assert!(err.starts_with("2 configuration errors: "), "{err}");
        assert!(err.contains("meshes[0].name: must not be empty"), "{err}");
        assert!(
            err.contains("meshes[1].controllerName: controller name"),
            "{err}"
        );
        assert!(ConfigErrors::from_vec(Vec::new()).is_none());
    }
}
