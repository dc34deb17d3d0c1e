//! The arbiter's view of the manifests: the configuration file, who `--as` is, the controllers
//! to show side by side, and parents described for people.

use std::path::Path;

use gamma_arbiter::{Arbiter, ArbiterConfig, Decisions, Identity, Registry};
use gamma_mesh::model::gateway::ParentReference;
use gamma_mesh::model::{ObjectKey, Snapshot};

use gamma_kube::crd_extension::Availability;

use gamma_resolve::BuildOptions;

use crate::cli::ConfigArgs;
use crate::failure::{Failure, input, usage};
use crate::output::warn;

/// The arbiter and its decisions for one snapshot.
pub struct Arbitration {
    /// The arbiter (with its configuration).
    pub arbiter: Arbiter,
    /// Every verdict.
    pub decisions: Decisions,
    /// The controllerNames of the GatewayClasses in the input, sorted: Gateway controllers
    /// `--as` may name besides the registered meshes.
    pub class_controllers: Vec<String>,
}

impl Arbitration {
    /// Reads `--config` (or uses an empty configuration: XMesh objects still register meshes)
    /// and decides every (route, parent). `crds`: for a cluster, whether its route CRDs declare
    /// `parentRefs[].controllers`; where they do not, level 1 reads only the route annotation
    /// (as gamma-kube's runtime does), and a note on standard error says so.
    pub fn new(
        config: &ConfigArgs,
        snapshot: &Snapshot,
        crds: Option<&Availability>,
    ) -> Result<Self, Failure> {
        let mut config = config.arbiter_config()?;
        if let Some(availability) = crds.filter(|a| !a.is_declared()) {
            config.ignore_parent_ref_controllers = true;
            warn(&format!("note: {availability}"));
        }
        let arbiter = Arbiter::new(config).map_err(|errors| {
            let list: Vec<String> = errors.errors().iter().map(ToString::to_string).collect();
            input(format!(
                "invalid arbiter configuration: {}",
                list.join("; ")
            ))
        })?;
        let decisions = arbiter.decide_all(snapshot);
        let mut class_controllers: Vec<String> = snapshot
            .gateway_classes()
            .map(|c| c.spec.controller_name.clone())
            .filter(|n| !n.is_empty())
            .collect();
        class_controllers.sort();
        class_controllers.dedup();
        Ok(Arbitration {
            arbiter,
            decisions,
            class_controllers,
        })
    }

    /// The registry (configuration merged with XMesh objects).
    pub fn registry(&self) -> &Registry {
        self.decisions.registry()
    }

    /// The identity `--as` names: a mesh name, a mesh's controller name or one of its aliases
    /// (all give the mesh's canonical identity), the controllerName of a GatewayClass in the
    /// input, or a controller the verdicts name (from route annotations). Any other name is a usage error listing the known ones: a typo would otherwise
    /// own nothing and look like a real answer.
    pub fn identity(&self, name: &str) -> Result<Identity, Failure> {
        for m in self.registry().meshes() {
            if m.name == name || m.controller_name == name || m.aliases.iter().any(|a| a == name) {
                return Ok(Identity::new(m.controller_name.clone()).with_aliases(m.aliases.clone()));
            }
        }
        // A GatewayClass's controller, or a controller the routes themselves name (a route
        // annotation, parentRef.controllers) and the verdicts therefore mention.
        let named = self
            .controllers()
            .into_iter()
            .any(|(_, id)| id.answers_to(name));
        if named || self.class_controllers.iter().any(|c| c == name) {
            return Ok(Identity::new(name));
        }
        let meshes: Vec<String> = self
            .registry()
            .meshes()
            .iter()
            .map(|m| {
                let mut names = vec![m.controller_name.clone()];
                names.extend(m.aliases.iter().cloned());
                format!("{} ({})", m.name, names.join(", "))
            })
            .collect();
        let mut known = Vec::new();
        if !meshes.is_empty() {
            known.push(format!("meshes {}", meshes.join(", ")));
        }
        if !self.class_controllers.is_empty() {
            known.push(format!(
                "GatewayClass controllers {}",
                self.class_controllers.join(", ")
            ));
        }
        let known = if known.is_empty() {
            "no controller is known: register meshes with --config FILE (see \
             examples/gamma-config.yaml) or XMesh objects"
                .to_owned()
        } else {
            format!("known: {}", known.join("; "))
        };
        Err(usage(format!(
            "--as {name:?} names no registered mesh (config or XMesh) and no GatewayClass \
             controllerName in the input; {known}"
        )))
    }

    /// Every controller worth a column in `owners --all`: the registered meshes (configuration
    /// order), then other controllers that own or contest something (name order). Each is
    /// `(label, identity)`; meshes are labelled by name.
    pub fn controllers(&self) -> Vec<(String, Identity)> {
        let mut out: Vec<(String, Identity)> = self
            .registry()
            .meshes()
            .iter()
            .map(|m| {
                (
                    m.name.clone(),
                    Identity::new(m.controller_name.clone()).with_aliases(m.aliases.clone()),
                )
            })
            .collect();
        let mut others: Vec<String> = Vec::new();
        for (_, _, verdict) in self.decisions.pairs() {
            let names = match verdict {
                gamma_arbiter::Verdict::Owned { owners, .. } => owners.names(),
                gamma_arbiter::Verdict::Conflict { candidates, .. } => candidates.names(),
                _ => continue,
            };
            for n in names {
                if unregistered_mesh(n).is_some() {
                    continue; // not a controller: a label naming a mesh nobody registered
                }
                let known = out.iter().any(|(_, id)| id.answers_to(n));
                if !known && !others.contains(n) {
                    others.push(n.clone());
                }
            }
        }
        others.sort();
        out.extend(others.into_iter().map(|n| (n.clone(), Identity::new(n))));
        out
    }
}

/// The mesh a level-3 owner names when no configuration entry or XMesh registers it
/// (`xmesh:istio` is `istio`): gamma-arbiter's placeholder, which nobody answers to.
pub fn unregistered_mesh(owner: &str) -> Option<&str> {
    owner.strip_prefix(gamma_arbiter::UNKNOWN_MESH_PREFIX)
}

impl ConfigArgs {
    /// The configuration `--config` names, or the empty one (XMesh objects still register
    /// meshes).
    pub fn arbiter_config(&self) -> Result<ArbiterConfig, Failure> {
        match &self.config {
            Some(path) => read_config(path),
            None => Ok(ArbiterConfig::default()),
        }
    }

    /// The route table's options with the configuration's compatibility settings, so that the
    /// table reads routes as the arbiter does (`coreGroupAlias`: `group: core` is the core
    /// group). Every command that builds a table starts from these.
    pub fn build_options(&self) -> Result<BuildOptions, Failure> {
        Ok(build_options(&self.arbiter_config()?))
    }
}

/// [`ConfigArgs::build_options`] for a configuration already read.
pub fn build_options(config: &ArbiterConfig) -> BuildOptions {
    // default (fixed) hash seed: a CLI run builds one table for one command and exits, so no
    // route author can probe it over time; long-running embedders pass a random seed
    BuildOptions::default().with_core_group_alias(config.core_group_alias)
}

fn read_config(path: &Path) -> Result<ArbiterConfig, Failure> {
    let name = path.display().to_string();
    let text = std::fs::File::open(path)
        .map_err(|e| crate::input::describe_io(&e))
        .and_then(crate::input::read_limited)
        .map_err(|e| input(format!("{name}: {e}")))?;
    // The configuration is a contract (gamma-arbiter's ArbiterConfig::decode): a misspelt, mistyped
    // or missing key is an error at its line and path, never a different ownership table.
    ArbiterConfig::decode(&text).map_err(|e| {
        let at = e.line.map(|l| format!(":{l}")).unwrap_or_default();
        input(format!(
            "invalid arbiter configuration: {name}{at}: {}: {}",
            e.path, e.message
        ))
    })
}

/// A parentRef for people, with the defaults the API server would apply made visible:
/// `Service shop/checkout:80`, `Gateway edge/public`, and for the trap of an omitted group on
/// `kind: Service`, `gateway.networking.k8s.io/Service web/frontend`.
pub fn describe_parent(p: &ParentReference, route_namespace: &str) -> String {
    let kind = p.kind.as_deref().unwrap_or("Gateway");
    let group = p.group.as_deref().unwrap_or("gateway.networking.k8s.io");
    let kind_text = match (group, kind) {
        ("", "Service") | ("gateway.networking.k8s.io", "Gateway" | "ListenerSet") => {
            kind.to_owned()
        }
        ("", k) => format!("core/{k}"),
        (g, k) => format!("{g}/{k}"),
    };
    let ns = p.namespace.as_deref().unwrap_or(route_namespace);
    let mut s = format!("{kind_text} {ns}/{}", p.name);
    if let Some(section) = &p.section_name {
        s.push_str(&format!(" section {section}"));
    }
    if let Some(port) = p.port {
        s.push_str(&format!(":{port}"));
    }
    s
}

/// A route's parentRefs, if the object is a route.
pub fn parent_refs<'a>(snapshot: &'a Snapshot, route: &ObjectKey) -> &'a [ParentReference] {
    snapshot
        .get(route)
        .and_then(|r| r.as_route())
        .map_or(&[], |r| r.parent_refs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pref(
        group: Option<&str>,
        kind: Option<&str>,
        name: &str,
        port: Option<i32>,
    ) -> ParentReference {
        ParentReference {
            group: group.map(Into::into),
            kind: kind.map(Into::into),
            name: name.into(),
            port,
            ..ParentReference::default()
        }
    }

    #[test]
    fn parents_show_the_defaults_the_api_server_applies() {
        // Gateway API ParentReference: an omitted group means gateway.networking.k8s.io.
        assert_eq!(
            describe_parent(
                &pref(Some(""), Some("Service"), "checkout", Some(80)),
                "shop"
            ),
            "Service shop/checkout:80"
        );
        assert_eq!(
            describe_parent(&pref(None, Some("Service"), "frontend", None), "web"),
            "gateway.networking.k8s.io/Service web/frontend"
        );
        assert_eq!(
            describe_parent(&pref(None, None, "public", None), "edge"),
            "Gateway edge/public"
        );
    }
}
