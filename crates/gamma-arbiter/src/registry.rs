//! The registry: which meshes exist and which names (controller names, aliases, mesh names) refer
//! to which of them, merged from the configuration and the XMesh objects in a snapshot.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use gamma_model::Snapshot;
use gamma_model::gateway::LabelSelector;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::{ArbiterConfig, GroupKind};

/// The embedding controller: the name it writes status under, plus the other names it acts
/// under (the name a mesh writes on route status can differ from its XMesh `controllerName`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    /// The controller name written in `status.parents[].controllerName`.
    pub name: String,
    /// Other names; status entries under them are this controller's own (and are replaced by
    /// entries under [`Identity::name`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
}

impl Identity {
    /// An identity with no aliases.
    pub fn new(name: impl Into<String>) -> Self {
        Identity {
            name: name.into(),
            aliases: Vec::new(),
        }
    }

    /// With these aliases.
    pub fn with_aliases<S: Into<String>>(mut self, aliases: impl IntoIterator<Item = S>) -> Self {
        self.aliases = aliases.into_iter().map(Into::into).collect();
        self
    }

    /// The identity of the configured mesh named `mesh` (its controller name and aliases).
    pub fn of_mesh(config: &ArbiterConfig, mesh: &str) -> Option<Identity> {
        let m = config.meshes.iter().find(|m| m.name == mesh)?;
        Some(Identity {
            name: m.controller_name.clone(),
            aliases: m.aliases.clone(),
        })
    }

    /// Whether `controller_name` is one of this identity's names.
    pub fn answers_to(&self, controller_name: &str) -> bool {
        self.name == controller_name || self.aliases.iter().any(|a| a == controller_name)
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// One registered mesh after merging configuration and XMesh objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mesh {
    /// The mesh name (XMesh name / config name).
    pub name: String,
    /// The canonical controller name: owners are always reported under it.
    pub controller_name: String,
    /// Every other name the mesh answers to.
    pub aliases: Vec<String>,
    /// Level-4 selector.
    pub selector: Option<LabelSelector>,
    /// Level-5 default flag.
    pub default: bool,
    /// Claimed extra parent kinds.
    pub parent_kinds: Vec<GroupKind>,
}

/// Something about the merged registry a person should know; never fatal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum RegistryDiagnostic {
    /// An XMesh has a configured mesh's name but another controllerName (GEP-3949: the mesh
    /// SHOULD warn). Its controllerName is treated as an alias when no other mesh has it.
    ControllerNameMismatch {
        /// The XMesh name.
        mesh: String,
        /// The configured controller name.
        configured: String,
        /// The XMesh's controller name.
        xmesh: String,
    },
    /// An XMesh whose controllerName already belongs to another mesh; its name becomes another
    /// name of that mesh.
    XMeshOfOtherMesh {
        /// The XMesh name.
        xmesh: String,
        /// The mesh it resolved to.
        mesh: String,
    },
}

impl fmt::Display for RegistryDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryDiagnostic::ControllerNameMismatch {
                mesh,
                configured,
                xmesh,
            } => write!(
                f,
                "XMesh {mesh} has controllerName {xmesh} but the configuration registers {mesh} as {configured}"
            ),
            RegistryDiagnostic::XMeshOfOtherMesh { xmesh, mesh } => write!(
                f,
                "XMesh {xmesh} has the controllerName of mesh {mesh}; treating {xmesh} as another name of {mesh}"
            ),
        }
    }
}

/// The merged registry for one snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registry {
    meshes: Vec<Mesh>,
    /// Controller name or alias -> index in `meshes`.
    by_controller: BTreeMap<String, usize>,
    /// Mesh name (config or XMesh) -> index in `meshes`.
    by_mesh_name: BTreeMap<String, usize>,
    /// Controller names known from GatewayClasses (gateway controllers are owners too).
    class_controllers: BTreeSet<String>,
    diagnostics: Vec<RegistryDiagnostic>,
}

impl Registry {
    /// Merges the configuration (assumed valid, see [`ArbiterConfig::validate`]) with the XMesh
    /// objects and GatewayClasses of `snapshot`.
    pub fn build(config: &ArbiterConfig, snapshot: &Snapshot) -> Registry {
        let mut reg = Registry::default();
        for m in &config.meshes {
            let i = reg.meshes.len();
            reg.meshes.push(Mesh {
                name: m.name.clone(),
                controller_name: m.controller_name.clone(),
                aliases: m.aliases.clone(),
                selector: m.namespace_selector.clone(),
                default: m.default,
                parent_kinds: m.parent_kinds.clone(),
            });
            reg.by_mesh_name.entry(m.name.clone()).or_insert(i);
            for n in std::iter::once(&m.controller_name).chain(&m.aliases) {
                reg.by_controller.entry(n.clone()).or_insert(i);
            }
        }
        // XMesh objects, in name order (the snapshot's order), so the merge is deterministic.
        for x in snapshot.xmeshes() {
            let name = &x.metadata.name;
            let cn = &x.spec.controller_name;
            if cn.is_empty() || name.is_empty() {
                continue;
            }
            match (
                reg.by_mesh_name.get(name).copied(),
                reg.by_controller.get(cn).copied(),
            ) {
                (Some(i), Some(j)) if i == j => {}
                (Some(i), owner) => {
                    let configured = reg
                        .meshes
                        .get(i)
                        .map(|m| m.controller_name.clone())
                        .unwrap_or_default();
                    reg.diagnostics
                        .push(RegistryDiagnostic::ControllerNameMismatch {
                            mesh: name.clone(),
                            configured,
                            xmesh: cn.clone(),
                        });
                    if owner.is_none() {
                        reg.by_controller.insert(cn.clone(), i);
                        if let Some(m) = reg.meshes.get_mut(i) {
                            m.aliases.push(cn.clone());
                        }
                    }
                }
                (None, Some(j)) => {
                    let mesh = reg
                        .meshes
                        .get(j)
                        .map(|m| m.name.clone())
                        .unwrap_or_default();
                    reg.diagnostics.push(RegistryDiagnostic::XMeshOfOtherMesh {
                        xmesh: name.clone(),
                        mesh,
                    });
                    reg.by_mesh_name.insert(name.clone(), j);
                }
                (None, None) => {
                    let i = reg.meshes.len();
                    reg.meshes.push(Mesh {
                        name: name.clone(),
                        controller_name: cn.clone(),
                        aliases: Vec::new(),
                        selector: None,
                        default: false,
                        parent_kinds: Vec::new(),
                    });
                    reg.by_mesh_name.insert(name.clone(), i);
                    reg.by_controller.insert(cn.clone(), i);
                }
            }
        }
        for c in snapshot.gateway_classes() {
            if !c.spec.controller_name.is_empty() {
                reg.class_controllers.insert(c.spec.controller_name.clone());
            }
        }
        reg
    }

    /// The canonical name for `controller_name`: the registered mesh's controller name when
    /// the name is one of its names, else the name itself (unknown names are kept verbatim:
    /// they never fall through, and nobody answers to them).
    pub fn canonical<'a>(&'a self, controller_name: &'a str) -> &'a str {
        self.by_controller
            .get(controller_name)
            .and_then(|&i| self.meshes.get(i))
            .map_or(controller_name, |m| m.controller_name.as_str())
    }

    /// The canonical controller name of the mesh called `mesh` (a level-3 label value).
    pub fn mesh_controller(&self, mesh: &str) -> Option<&str> {
        self.by_mesh_name
            .get(mesh)
            .and_then(|&i| self.meshes.get(i))
            .map(|m| m.controller_name.as_str())
    }

    /// Whether `controller_name` names a registered mesh or a GatewayClass controller.
    pub fn is_known(&self, controller_name: &str) -> bool {
        self.by_controller.contains_key(controller_name)
            || self.class_controllers.contains(controller_name)
    }

    /// Whether `me` answers to the canonical owner name `owner`.
    pub fn is_me(&self, me: &Identity, owner: &str) -> bool {
        me.answers_to(owner)
            || std::iter::once(&me.name)
                .chain(&me.aliases)
                .any(|n| self.canonical(n) == owner)
    }

    /// Whether a status entry written under `controller_name` belongs to one of `owners`.
    pub fn belongs_to(&self, controller_name: &str, owners: &[String]) -> bool {
        let c = self.canonical(controller_name);
        owners.iter().any(|o| o == c)
    }

    /// The merged meshes, configured ones first in configuration order, then XMesh-only ones
    /// in name order.
    pub fn meshes(&self) -> &[Mesh] {
        &self.meshes
    }

    /// Notes about the merge.
    pub fn diagnostics(&self) -> &[RegistryDiagnostic] {
        &self.diagnostics
    }

    /// Whether the two registries resolve every controller name the same way (used to decide
    /// whether an XMesh or GatewayClass change can affect more than the namespaces that name
    /// the mesh). A name new to one side that resolves to itself is no change: unknown names
    /// are kept verbatim too. Known-ness (GatewayClass controllers) affects no verdict.
    pub(crate) fn same_resolution(&self, other: &Registry) -> bool {
        self.by_controller
            .keys()
            .chain(other.by_controller.keys())
            .all(|n| self.canonical(n) == other.canonical(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MeshRegistration;
    use gamma_model::AnyResource;
    use gamma_model::xmesh::XMesh;

    fn config() -> ArbiterConfig {
        ArbiterConfig::new([
            MeshRegistration::new("istio", "istio.io/gateway-controller")
                .with_aliases(["istio.io/mesh-controller"]),
        ])
    }

    // An alias names the same mesh; owners are reported under the canonical name.
    #[test]
    fn aliases_canonicalise_to_the_registered_controller_name() {
        let reg = Registry::build(&config(), &Snapshot::new());
        assert_eq!(
            reg.canonical("istio.io/mesh-controller"),
            "istio.io/gateway-controller"
        );
        assert_eq!(reg.canonical("typo.io/x"), "typo.io/x");
        assert!(!reg.is_known("typo.io/x"));
        let me = Identity::new("istio.io/mesh-controller");
        assert!(reg.is_me(&me, "istio.io/gateway-controller"));
    }

    // GEP-3949 XMesh: XMesh names a mesh; config and XMesh with the same name are one mesh.
    #[test]
    fn xmesh_objects_register_meshes_and_merge_with_config() {
        let snap = Snapshot::from_resources([
            AnyResource::XMesh(XMesh::new("istio", "istio.io/gateway-controller")),
            AnyResource::XMesh(XMesh::new("cilium", "cilium.io/gateway-controller")),
            AnyResource::XMesh(XMesh::new("istio-old", "istio.io/mesh-controller")),
        ]);
        let reg = Registry::build(&config(), &snap);
        assert_eq!(reg.meshes().len(), 2);
        assert_eq!(
            reg.mesh_controller("cilium"),
            Some("cilium.io/gateway-controller")
        );
        assert_eq!(
            reg.mesh_controller("istio-old"),
            Some("istio.io/gateway-controller")
        );
        assert_eq!(reg.diagnostics().len(), 1);
    }

    #[test]
    fn xmesh_with_mismatched_controller_name_is_reported_and_aliased() {
        let snap =
            Snapshot::from_resources([AnyResource::XMesh(XMesh::new("istio", "istio.io/other"))]);
        let reg = Registry::build(&config(), &snap);
        assert!(matches!(
            reg.diagnostics(),
            [RegistryDiagnostic::ControllerNameMismatch { .. }]
        ));
        assert_eq!(
            reg.canonical("istio.io/other"),
            "istio.io/gateway-controller"
        );
    }
}
