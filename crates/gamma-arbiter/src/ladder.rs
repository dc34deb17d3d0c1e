//! The rules: GatewayClass for Gateway parents, the five-level ladder for Service parents, and
//! kind claims for anything else. One [`Ladder`] evaluates many parents over one snapshot and
//! caches the per-Service and per-Namespace parts (levels 2 to 5 do not depend on the route),
//! so deciding every route costs little more than reading its parentRefs.

use std::collections::HashMap;

use gamma_model::gateway::{ParentKind, ParentReference};
use gamma_model::k8s::Service;
use gamma_model::meta::ObjectMeta;
use gamma_model::{ObjectRef, ResourceKind, Snapshot};

use crate::config::{Config, NONE_VALUE};
use crate::decision::{Evidence, Level, Owners, Verdict};
use crate::registry::Registry;

/// A prefix no controller name can carry (controller names are `DOMAIN/PATH`, and a domain has
/// no colon): a level-3 label naming a mesh nobody registered becomes the owner
/// `xmesh:<name>`, which nobody answers to. It never falls through to lower levels.
pub const UNKNOWN_MESH_PREFIX: &str = "xmesh:";

/// Splits a comma list, dropping blanks; a list that is exactly `none` is no signal.
fn names(value: &str) -> Vec<&str> {
    let v: Vec<&str> = value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if v.len() == 1 && v.first() == Some(&NONE_VALUE) {
        return Vec::new();
    }
    v
}

fn signal(value: Option<&String>) -> Option<&str> {
    value
        .map(|s| s.trim())
        .filter(|s| !s.is_empty() && *s != NONE_VALUE)
}

fn missing_service(ns: &str, name: &str) -> Verdict {
    Verdict::Pending {
        waiting_on: vec![ObjectRef::new(ResourceKind::Service, ns, name)],
        level: Level::ServiceAnnotation,
    }
}

/// Evaluates the rules over one snapshot, caching what does not depend on the route.
pub(crate) struct Ladder<'a> {
    snap: &'a Snapshot,
    reg: &'a Registry,
    config: &'a Config,
    /// Level-2 outcome per Service (namespace, name): `None` = no signal at level 2.
    services: HashMap<(&'a str, &'a str), Option<Verdict>>,
    /// Levels 3 to 5 per namespace (always the route's namespace; see `decide_service`).
    namespaces: HashMap<&'a str, Verdict>,
    /// Whether `services` holds every Service of the snapshot (absent = missing).
    services_complete: bool,
    /// The last Service looked up (consecutive routes often share their parent Service).
    last_service: Option<((&'a str, &'a str), Option<Verdict>)>,
    /// The last namespace looked up: routes come in namespace order, so this saves hashing.
    last_namespace: Option<(&'a str, Verdict)>,
    /// Gateway parents per Gateway (namespace, name).
    gateways: HashMap<(&'a str, &'a str), Verdict>,
    ev_parent_ref: Evidence,
    ev_route_annotation: Evidence,
}

impl<'a> Ladder<'a> {
    pub(crate) fn new(snap: &'a Snapshot, reg: &'a Registry, config: &'a Config) -> Self {
        Ladder {
            snap,
            reg,
            config,
            services: HashMap::new(),
            namespaces: HashMap::new(),
            last_namespace: None,
            last_service: None,
            services_complete: false,
            gateways: HashMap::new(),
            ev_parent_ref: Evidence::new("the route's parentRefs[].controllers"),
            ev_route_annotation: Evidence::new(format!(
                "the route's annotation {}",
                config.keys.route_controllers_annotation
            )),
        }
    }

    /// Computes level 2 for every Service up front, walking the snapshot's Services in order
    /// (no per-Service lookups): used by full decisions, where most Services are parents.
    pub(crate) fn prefill_services(&mut self) {
        let snap = self.snap;
        let count = snap.services().count();
        self.services.reserve(count);
        for svc in snap.services() {
            let ns = svc.metadata.namespace_or_default();
            let v = self.service_signal(ns, &svc.metadata.name, svc);
            self.services.insert((ns, svc.metadata.name.as_str()), v);
        }
        self.services_complete = true;
    }

    fn owners<'n>(&self, names: impl IntoIterator<Item = &'n str>) -> Owners {
        Owners::new(names.into_iter().map(|n| self.reg.canonical(n)))
    }

    /// The verdict for `parent_ref` as written in a route with metadata `route` in namespace
    /// `route_ns`.
    pub(crate) fn decide(
        &mut self,
        route_ns: &'a str,
        route: &'a ObjectMeta,
        parent_ref: &'a ParentReference,
    ) -> Verdict {
        match parent_ref.parent_kind() {
            ParentKind::Gateway => {
                let ns = parent_ref.namespace_or(route_ns);
                self.decide_gateway(ns, &parent_ref.name)
            }
            ParentKind::ListenerSet => {
                let ns = parent_ref.namespace_or(route_ns);
                self.decide_listener_set(ns, &parent_ref.name)
            }
            ParentKind::Service => self.decide_service(route_ns, route, parent_ref),
            _ => self.decide_claim(parent_ref),
        }
    }

    fn decide_gateway(&mut self, ns: &'a str, name: &'a str) -> Verdict {
        if let Some(v) = self.gateways.get(&(ns, name)) {
            return v.clone();
        }
        let v = self.gateway_owner(ns, name, Level::GatewayClass, None);
        self.gateways.insert((ns, name), v.clone());
        v
    }

    /// The owner of Gateway `ns/name` by its GatewayClass; `via` prefixes the evidence.
    fn gateway_owner(&self, ns: &str, name: &str, level: Level, via: Option<&str>) -> Verdict {
        let Some(gw) = self.snap.gateway(ns, name) else {
            return Verdict::Pending {
                waiting_on: vec![ObjectRef::new(ResourceKind::Gateway, ns, name)],
                level,
            };
        };
        let class = &gw.spec.gateway_class_name;
        let Some(gc) = self.snap.gateway_class(class) else {
            return Verdict::Pending {
                waiting_on: vec![ObjectRef::new(
                    ResourceKind::GatewayClass,
                    "",
                    class.as_str(),
                )],
                level,
            };
        };
        let cn = &gc.spec.controller_name;
        let prefix = via.map(|v| format!("{v} -> ")).unwrap_or_default();
        Verdict::Owned {
            owners: self.owners([cn.as_str()]),
            level,
            evidence: Evidence::new(format!(
                "{prefix}Gateway {ns}/{name} -> GatewayClass {class} (controllerName {cn})"
            )),
        }
    }

    fn decide_listener_set(&mut self, ns: &str, name: &str) -> Verdict {
        let Some(ls) = self
            .snap
            .get(&ObjectRef::new(ResourceKind::ListenerSet, ns, name))
        else {
            return Verdict::Pending {
                waiting_on: vec![ObjectRef::new(ResourceKind::ListenerSet, ns, name)],
                level: Level::GatewayClass,
            };
        };
        let gamma_model::Resource::ListenerSet(ls) = ls else {
            return Verdict::NotApplicable;
        };
        let p = &ls.spec.parent_ref;
        let gns = p.namespace.as_deref().unwrap_or(ns);
        self.gateway_owner(
            gns,
            &p.name,
            Level::GatewayClass,
            Some(&format!("ListenerSet {ns}/{name}")),
        )
    }

    fn decide_claim(&self, parent_ref: &ParentReference) -> Verdict {
        let (group, kind) = (parent_ref.group_or_default(), parent_ref.kind_or_default());
        let claimants: Vec<&str> = self
            .reg
            .meshes()
            .iter()
            .filter(|m| {
                m.parent_kinds
                    .iter()
                    .any(|gk| gk.group == group && gk.kind == kind)
            })
            .map(|m| m.controller_name.as_str())
            .collect();
        let evidence = || Evidence::new(format!("registrations claiming {group}/{kind}"));
        match claimants.len() {
            0 => Verdict::NotApplicable,
            1 => Verdict::Owned {
                owners: self.owners(claimants),
                level: Level::KindClaim,
                evidence: evidence(),
            },
            _ => Verdict::Conflict {
                candidates: self.owners(claimants),
                level: Level::KindClaim,
                evidence: evidence(),
            },
        }
    }

    fn decide_service(
        &mut self,
        route_ns: &'a str,
        route: &'a ObjectMeta,
        parent_ref: &'a ParentReference,
    ) -> Verdict {
        // Level 1: parentRef.controllers, else the route annotation. Several names: shared.
        if let Some(list) = &parent_ref.controllers {
            let n: Vec<&str> = list.iter().flat_map(|s| names(s)).collect();
            if !n.is_empty() {
                return Verdict::Owned {
                    owners: self.owners(n),
                    level: Level::ParentRefControllers,
                    evidence: self.ev_parent_ref.clone(),
                };
            }
        }
        if let Some(a) = route
            .annotations
            .get(&self.config.keys.route_controllers_annotation)
        {
            let n = names(a);
            if !n.is_empty() {
                return Verdict::Owned {
                    owners: self.owners(n),
                    level: Level::RouteAnnotation,
                    evidence: self.ev_route_annotation.clone(),
                };
            }
        }
        // Level 2: the Service (which must exist: a missing Service is Pending, never a
        // fall-through that could hand the parent to someone else while a cache syncs).
        let svc_ns = parent_ref.namespace_or(route_ns);
        let key = (svc_ns, parent_ref.name.as_str());
        let level2 = match &self.last_service {
            Some((k, v)) if *k == key => v.clone(),
            _ => {
                let v = match self.services.get(&key) {
                    Some(v) => v.clone(),
                    None if self.services_complete => {
                        Some(missing_service(svc_ns, &parent_ref.name))
                    }
                    None => {
                        let v = self.service_level(svc_ns, &parent_ref.name);
                        self.services.insert(key, v.clone());
                        v
                    }
                };
                self.last_service = Some((key, v.clone()));
                v
            }
        };
        if let Some(v) = level2 {
            return v;
        }
        // Levels 3 to 5 read one namespace: the Service's for producer routes (route namespace
        // == Service namespace), the route's for consumer routes. Both are the route's
        // namespace, so one cache entry per route namespace serves both (spec-digest §4.4).
        if let Some((ns, v)) = &self.last_namespace
            && *ns == route_ns
        {
            return v.clone();
        }
        let v = match self.namespaces.get(route_ns) {
            Some(v) => v.clone(),
            None => {
                let v = self.namespace_levels(route_ns);
                self.namespaces.insert(route_ns, v.clone());
                v
            }
        };
        self.last_namespace = Some((route_ns, v.clone()));
        v
    }

    /// Level 2 for Service `ns/name`: `None` when it gives no signal.
    fn service_level(&self, ns: &str, name: &str) -> Option<Verdict> {
        match self.snap.service(ns, name) {
            Some(svc) => self.service_signal(ns, name, svc),
            None => Some(missing_service(ns, name)),
        }
    }

    /// Level 2 for an existing Service.
    fn service_signal(&self, ns: &str, name: &str, svc: &Service) -> Option<Verdict> {
        let keys = &self.config.keys;
        let meta = &svc.metadata;
        if let Some(a) = meta.annotations.get(&keys.service_controller_annotation) {
            let n = names(a);
            if !n.is_empty() {
                return Some(Verdict::Owned {
                    owners: self.owners(n),
                    level: Level::ServiceAnnotation,
                    evidence: Evidence::new(format!(
                        "Service {ns}/{name} annotation {}={}",
                        keys.service_controller_annotation,
                        a.trim()
                    )),
                });
            }
        }
        let gw = signal(meta.labels.get(&keys.delegation_label))?;
        let gw_ns = signal(meta.labels.get(&keys.delegation_namespace_label)).unwrap_or(ns);
        let via = format!("Service {ns}/{name} label {}={gw}", keys.delegation_label);
        Some(self.gateway_owner(gw_ns, gw, Level::Delegation, Some(&via)))
    }

    /// Levels 3, 4 and 5 for routes in namespace `ns`.
    fn namespace_levels(&self, ns: &str) -> Verdict {
        let keys = &self.config.keys;
        let Some(namespace) = self.snap.namespace(ns) else {
            return Verdict::Pending {
                waiting_on: vec![ObjectRef::new(ResourceKind::Namespace, "", ns)],
                level: Level::NamespaceLabel,
            };
        };
        let labels = &namespace.metadata.labels;
        if let Some(mesh) = signal(labels.get(&keys.namespace_mesh_label)) {
            let label = format!("Namespace {ns} label {}={mesh}", keys.namespace_mesh_label);
            return match self.reg.mesh_controller(mesh) {
                Some(cn) => Verdict::Owned {
                    owners: Owners::one(cn),
                    level: Level::NamespaceLabel,
                    evidence: Evidence::new(label),
                },
                None => Verdict::Owned {
                    owners: Owners::one(&format!("{UNKNOWN_MESH_PREFIX}{mesh}")),
                    level: Level::NamespaceLabel,
                    evidence: Evidence::new(format!(
                        "{label}, which names no registered mesh or XMesh (an unknown name never falls through)"
                    )),
                },
            };
        }
        let selected: Vec<&crate::registry::Mesh> = self
            .reg
            .meshes()
            .iter()
            .filter(|m| {
                m.selector
                    .as_ref()
                    .is_some_and(|s| s.matches(labels).unwrap_or(false))
            })
            .collect();
        if let Some(v) = self.pick(selected, Level::Selector, |ms| {
            format!("Namespace {ns} matches the namespaceSelector of {ms}")
        }) {
            return v;
        }
        let defaults: Vec<&crate::registry::Mesh> =
            self.reg.meshes().iter().filter(|m| m.default).collect();
        self.pick(defaults, Level::Default, |ms| {
            format!("{ms} registered as default")
        })
        .unwrap_or(Verdict::Unclaimed)
    }

    /// One candidate owns; several conflict (never tie-broken); none: no signal.
    fn pick(
        &self,
        meshes: Vec<&crate::registry::Mesh>,
        level: Level,
        evidence: impl FnOnce(&str) -> String,
    ) -> Option<Verdict> {
        if meshes.is_empty() {
            return None;
        }
        let names: Vec<&str> = meshes.iter().map(|m| m.name.as_str()).collect();
        let evidence = Evidence::new(evidence(&names.join(", ")));
        let owners = Owners::new(meshes.iter().map(|m| m.controller_name.as_str()));
        Some(if owners.len() == 1 {
            Verdict::Owned {
                owners,
                level,
                evidence,
            }
        } else {
            Verdict::Conflict {
                candidates: owners,
                level,
                evidence,
            }
        })
    }
}
