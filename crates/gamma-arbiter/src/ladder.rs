//! The rules: GatewayClass for Gateway parents, the five-level ladder for Service parents, and
//! kind claims for anything else. One [`Ladder`] evaluates many parents over one snapshot and
//! caches the per-Service and per-Namespace parts (levels 2 to 5 do not depend on the route),
//! so deciding every route costs little more than reading its parentRefs.

use std::collections::HashMap;

use gamma_model::gateway::{Gateway, GatewayClass, ParentKind, ParentReference};
use gamma_model::k8s::{Namespace, Service};
use gamma_model::meta::ObjectMeta;
use gamma_model::{ObjectKey, ResourceKind, Snapshot};

use crate::config::{ArbiterConfig, NONE_VALUE};
use crate::decision::{Evidence, Level, Owners, Verdict, VerdictId};
use crate::dense::{Dense, same};
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
        waiting_on: vec![ObjectKey::new(ResourceKind::Service, ns, name)],
        level: Level::ServiceAnnotation,
    }
}

/// Evidence text joined from `parts` in `scratch`: one allocation (the shared text) and no
/// formatting machinery; a full decision writes thousands of these, and `format!` cost about
/// ten times as much.
fn evidence(scratch: &mut String, parts: &[&[&str]]) -> Evidence {
    scratch.clear();
    for p in parts.iter().flat_map(|p| p.iter()) {
        scratch.push_str(p);
    }
    Evidence::new(scratch.as_str())
}

/// Evaluates the rules over one snapshot, caching what does not depend on the route.
pub(crate) struct Ladder<'a> {
    snap: &'a Snapshot,
    reg: &'a Registry,
    config: &'a ArbiterConfig,
    /// Sorted copies of the snapshot's parents, for full decisions ([`Ladder::prefill`]);
    /// `None` for incremental updates, which look up the few objects they need directly.
    dense: Option<Dense<'a>>,
    /// Level-2 outcome per Service (namespace, name), without `dense`: `None` = no signal.
    services: HashMap<(&'a str, &'a str), Option<VerdictId>>,
    /// Levels 3 to 5 per namespace (always the route's namespace; see `decide_service`).
    namespaces: HashMap<&'a str, VerdictId>,
    /// The last Service looked up without `dense`.
    last_service: Option<((&'a str, &'a str), Option<VerdictId>)>,
    /// The last namespace looked up: routes come in namespace order, so this saves hashing.
    last_namespace: Option<(&'a str, VerdictId)>,
    /// The namespace every route decided from now on is in (see [`Ladder::enter_namespace`]),
    /// and its levels 3 to 5 once computed.
    entered: Option<(&'a str, Option<VerdictId>)>,
    /// Gateway parents per Gateway (namespace, name).
    gateways: HashMap<(&'a str, &'a str), VerdictId>,
    /// The last Gateway parent decided.
    last_gateway: Option<((&'a str, &'a str), VerdictId)>,
    /// The last level-1 route annotation value and its verdict (most annotated routes of a
    /// cluster carry one of a few values).
    last_route_annotation: Option<(&'a str, VerdictId)>,
    /// Single-owner sets by (uncanonicalized) name: a cluster has a handful of controllers,
    /// and each `Owners` is an allocation.
    owner_sets: Vec<(&'a str, Owners)>,
    /// The level-5 verdict (it names no namespace, so one serves them all).
    default_verdict: Option<VerdictId>,
    /// Every verdict handed out, by id (see [`VerdictId`]): the caches above hold ids, so a
    /// verdict shared by thousands of routes is stored, cloned and dropped once.
    table: Vec<Verdict>,
    ev_parent_ref: Evidence,
    ev_route_annotation: Evidence,
    /// Reused to build evidence text (see [`evidence`]).
    scratch: String,
}

impl<'a> Ladder<'a> {
    /// A ladder adding the verdicts it decides to `table` (empty for a full decision; the
    /// current table for an update).
    pub(crate) fn new(
        snap: &'a Snapshot,
        reg: &'a Registry,
        config: &'a ArbiterConfig,
        table: Vec<Verdict>,
    ) -> Self {
        Ladder {
            table,
            snap,
            reg,
            config,
            dense: None,
            services: HashMap::new(),
            namespaces: HashMap::new(),
            last_namespace: None,
            entered: None,
            last_service: None,
            gateways: HashMap::new(),
            last_gateway: None,
            last_route_annotation: None,
            owner_sets: Vec::new(),
            default_verdict: None,
            scratch: String::new(),
            ev_parent_ref: Evidence::new("the route's parentRefs[].controllers"),
            ev_route_annotation: Evidence::new(format!(
                "the route's annotation {}",
                config.keys.route_controllers_annotation
            )),
        }
    }

    /// The verdict table, including every verdict this ladder decided.
    pub(crate) fn into_table(self) -> Vec<Verdict> {
        self.table
    }

    /// The verdict `id` stands for.
    pub(crate) fn verdict(&self, id: VerdictId) -> Option<&Verdict> {
        self.table.get(id.index())
    }

    /// Adds `v` to the table.
    fn intern(&mut self, v: Verdict) -> VerdictId {
        let id = VerdictId::at(self.table.len());
        self.table.push(v);
        id
    }

    /// Promises that the routes decided from now on are in namespace `ns` (until the next
    /// call): a full decision visits routes in namespace order, and this spares comparing
    /// each route's namespace with the cached ones.
    pub(crate) fn enter_namespace(&mut self, ns: &'a str) {
        let mut levels = None;
        if let Some(d) = &mut self.dense {
            d.route_block = d.seek_block(ns);
            let mut cursor = d.namespace_cursor;
            d.entered_namespace = d.namespaces.seek(&mut cursor, ns);
            d.namespace_cursor = cursor;
            levels = d
                .entered_namespace
                .and_then(|i| d.namespace_levels.get(i).copied().flatten());
        }
        self.entered = Some((ns, levels));
    }

    /// Indexes the snapshot's Services, Gateways, GatewayClasses and Namespaces up front
    /// (linear, no hashing): used by full decisions, which look most of them up.
    pub(crate) fn prefill(&mut self) {
        self.dense = Some(Dense::build(
            self.snap,
            &self.config.keys.namespace_delegation_label,
        ));
        // Level 2 of every Service now, in snapshot order while its metadata is at hand,
        // rather than at its first route (which then takes the general path).
        let count = self.dense.as_ref().map_or(0, |d| d.services.len());
        for i in 0..count {
            let Some(svc) = self
                .dense
                .as_ref()
                .and_then(|d| d.services.get(i))
                .filter(|s| s.level2.is_none())
                .and_then(|s| s.service())
            else {
                continue;
            };
            let meta = &svc.metadata;
            let ns = meta.namespace_or_default();
            let id = self
                .service_signal(ns, &meta.name, svc)
                .map(|v| self.intern(v));
            if let Some(slot) = self.dense.as_mut().and_then(|d| d.services.get_mut(i)) {
                slot.level2 = Some(id);
            }
        }
    }

    fn owners<'n>(&self, names: impl IntoIterator<Item = &'n str>) -> Owners {
        Owners::new(names.into_iter().map(|n| self.reg.canonical(n)))
    }

    /// `{name}` (canonicalized) as an owner set, shared with earlier calls for that name.
    fn owner(&mut self, name: &'a str) -> Owners {
        if let Some((_, o)) = self.owner_sets.iter().find(|(n, _)| *n == name) {
            return o.clone();
        }
        let o = Owners::one(self.reg.canonical(name));
        // Bounded: names come from objects, and a linear scan is only cheap while short.
        if self.owner_sets.len() < 16 {
            self.owner_sets.push((name, o.clone()));
        }
        o
    }

    fn find_gateway(&self, ns: &str, name: &str) -> Option<&'a Gateway> {
        match &self.dense {
            Some(d) => d.gateways.get(ns, name),
            None => self.snap.gateway(ns, name),
        }
    }

    fn find_class(&self, name: &str) -> Option<&'a GatewayClass> {
        match &self.dense {
            Some(d) => d.classes.get("", name),
            None => self.snap.gateway_class(name),
        }
    }

    fn find_namespace(&self, name: &str) -> Option<&'a Namespace> {
        match &self.dense {
            Some(d) => d.namespaces.get("", name),
            None => self.snap.namespace(name),
        }
    }

    /// What [`Ladder::decide`] answers for the commonest parent of a full decision, from the
    /// prefilled caches and inlined into the route loop: an existing core Service named by a
    /// route (in the entered namespace) with no level-1 signal, once its namespace's levels
    /// 3-5 are known if it needs them. `None`: ask [`Ladder::decide`], which answers the same
    /// in these cases; this only spares the general path's overhead.
    #[inline(always)]
    pub(crate) fn decide_cached(
        &mut self,
        route_ns: &str,
        route: &ObjectMeta,
        parent_ref: &ParentReference,
    ) -> Option<VerdictId> {
        if parent_ref.controllers.is_some()
            || !route.annotations.is_empty()
            || parent_ref.parent_kind() != ParentKind::Service
        {
            return None;
        }
        self.decide_service_cached(
            route_ns.as_bytes(),
            parent_ref.namespace.as_deref().map(str::as_bytes),
            parent_ref.name.as_bytes(),
        )
    }

    /// [`Ladder::decide_cached`] for a parent already known to be a core Service, named
    /// `parent_ns/name` (`parent_ns` as written: `None` for the route's own namespace) by a
    /// route in the entered namespace `route_ns` that has no level-1 signal (no annotations,
    /// no `controllers`): what a full decision reads from a route's digest.
    #[inline(always)]
    pub(crate) fn decide_service_cached(
        &mut self,
        route_ns: &[u8],
        parent_ns: Option<&[u8]>,
        name: &[u8],
    ) -> Option<VerdictId> {
        let (Some((_, namespace_levels)), Some(d)) = (self.entered, &mut self.dense) else {
            return None;
        };
        let (ns, defaulted) = match parent_ns {
            Some(ns) => (ns, false),
            None => (route_ns, true),
        };
        let at = d.find(ns, name, defaulted, true)?;
        // Level 2 is computed for every Service during the prefill.
        let level2 = d.services.get(at)?.level2?;
        match level2 {
            Some(id) => Some(id),
            None => namespace_levels,
        }
    }

    /// The verdict for `parent_ref` as written in a route with metadata `route` in namespace
    /// `route_ns`.
    pub(crate) fn decide(
        &mut self,
        route_ns: &'a str,
        route: &'a ObjectMeta,
        parent_ref: &'a ParentReference,
    ) -> VerdictId {
        let kind = if self.config.core_group_alias {
            parent_ref.parent_kind_core_alias()
        } else {
            parent_ref.parent_kind()
        };
        match kind {
            ParentKind::Gateway => {
                let ns = parent_ref.namespace_or(route_ns);
                self.decide_gateway(ns, &parent_ref.name)
            }
            ParentKind::ListenerSet => {
                let ns = parent_ref.namespace_or(route_ns);
                let v = self.decide_listener_set(ns, &parent_ref.name);
                self.intern(v)
            }
            ParentKind::Service => self.decide_service(route_ns, route, parent_ref),
            _ => {
                let v = self.decide_claim(parent_ref);
                self.intern(v)
            }
        }
    }

    fn decide_gateway(&mut self, ns: &'a str, name: &'a str) -> VerdictId {
        // Routes naming a Gateway mostly name the same few: spare hashing for a repeat.
        if let Some(((n, m), id)) = self.last_gateway
            && same(m, name)
            && same(n, ns)
        {
            return id;
        }
        if let Some(id) = self.gateways.get(&(ns, name)) {
            self.last_gateway = Some(((ns, name), *id));
            return *id;
        }
        let v = self.gateway_owner(ns, name, Level::GatewayClass, &[]);
        let id = self.intern(v);
        self.gateways.insert((ns, name), id);
        self.last_gateway = Some(((ns, name), id));
        id
    }

    /// The owner of Gateway `ns/name` by its GatewayClass; `via` prefixes the evidence.
    fn gateway_owner(&mut self, ns: &str, name: &str, level: Level, via: &[&str]) -> Verdict {
        let Some(gw) = self.find_gateway(ns, name) else {
            return Verdict::Pending {
                waiting_on: vec![ObjectKey::new(ResourceKind::Gateway, ns, name)],
                level,
            };
        };
        let class = gw.spec.gateway_class_name.as_str();
        let Some(gc) = self.find_class(class) else {
            return Verdict::Pending {
                waiting_on: vec![ObjectKey::new(ResourceKind::GatewayClass, "", class)],
                level,
            };
        };
        let cn = gc.spec.controller_name.as_str();
        let sep: &[&str] = if via.is_empty() { &[] } else { &[" -> "] };
        let evidence = evidence(
            &mut self.scratch,
            &[
                via,
                sep,
                &[
                    "Gateway ",
                    ns,
                    "/",
                    name,
                    " -> GatewayClass ",
                    class,
                    " (controllerName ",
                    cn,
                    ")",
                ],
            ],
        );
        Verdict::Owned {
            owners: self.owner(cn),
            level,
            evidence,
        }
    }

    fn decide_listener_set(&mut self, ns: &str, name: &str) -> Verdict {
        let Some(ls) = self
            .snap
            .get(&ObjectKey::new(ResourceKind::ListenerSet, ns, name))
        else {
            return Verdict::Pending {
                waiting_on: vec![ObjectKey::new(ResourceKind::ListenerSet, ns, name)],
                level: Level::GatewayClass,
            };
        };
        let gamma_model::AnyResource::ListenerSet(ls) = ls else {
            return Verdict::NotApplicable;
        };
        let p = &ls.spec.parent_ref;
        let gns = p.namespace.as_deref().unwrap_or(ns);
        self.gateway_owner(
            gns,
            &p.name,
            Level::GatewayClass,
            &["ListenerSet ", ns, "/", name],
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
            0 => match parent_ref.misgrouped_service() {
                Some(group) => Verdict::NotAService {
                    group: group.to_owned(),
                },
                None => Verdict::NotApplicable,
            },
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
    ) -> VerdictId {
        // Level 1: parentRef.controllers, else the route annotation. Several names: shared.
        // Where the route CRDs do not declare `controllers`, only the annotation counts.
        if let Some(list) = parent_ref
            .controllers
            .as_ref()
            .filter(|_| !self.config.ignore_parent_ref_controllers)
        {
            let n: Vec<&str> = list.iter().flat_map(|s| names(s)).collect();
            if !n.is_empty() {
                let v = Verdict::Owned {
                    owners: self.owners(n),
                    level: Level::ParentRefControllers,
                    evidence: self.ev_parent_ref.clone(),
                };
                return self.intern(v);
            }
        }
        if let Some(a) = route
            .annotations
            .get(&self.config.keys.route_controllers_annotation)
        {
            if let Some((last, id)) = self.last_route_annotation
                && last == a.as_str()
            {
                return id;
            }
            let n = names(a);
            if !n.is_empty() {
                let v = Verdict::Owned {
                    owners: self.owners(n),
                    level: Level::RouteAnnotation,
                    evidence: self.ev_route_annotation.clone(),
                };
                let id = self.intern(v);
                self.last_route_annotation = Some((a.as_str(), id));
                return id;
            }
        }
        // Level 2: the Service (which must exist: a missing Service is Pending, never a
        // fall-through that could hand the parent to someone else while a cache syncs).
        let svc_ns = parent_ref.namespace_or(route_ns);
        let name = parent_ref.name.as_str();
        debug_assert!(self.entered.is_none_or(|(ns, _)| ns == route_ns));
        let entered = self.entered.is_some();
        let level2 = if self.dense.is_some() {
            self.dense_level2(svc_ns, name, parent_ref.namespace.is_none(), entered)
        } else {
            self.lazy_level2(svc_ns, name)
        };
        if let Some(id) = level2 {
            return id;
        }
        // Levels 3 to 5 read one namespace: the Service's for producer routes (route namespace
        // == Service namespace), the route's for consumer routes. Both are the route's
        // namespace, so one cache entry per route namespace serves both (GEP-1294 namespace
        // boundaries).
        if let Some((_, Some(id))) = self.entered {
            return id;
        }
        // Entered and found in the sorted Namespaces: computed once per namespace, kept
        // beside it (no hashing).
        if self.entered.is_some()
            && let Some((i, namespace)) = self.dense.as_ref().and_then(|d| {
                let i = d.entered_namespace?;
                d.namespaces.items.get(i).map(|it| (i, it.2))
            })
        {
            let id = self.namespace_levels_of(route_ns, Some(namespace));
            if let Some(slot) = self
                .dense
                .as_mut()
                .and_then(|d| d.namespace_levels.get_mut(i))
            {
                *slot = Some(id);
            }
            if let Some((_, v)) = &mut self.entered {
                *v = Some(id);
            }
            return id;
        }
        if let Some((ns, id)) = self.last_namespace
            && same(ns, route_ns)
        {
            return id;
        }
        let id = match self.namespaces.get(route_ns) {
            Some(id) => *id,
            None => {
                let id = self.namespace_levels(route_ns);
                self.namespaces.insert(route_ns, id);
                id
            }
        };
        self.last_namespace = Some((route_ns, id));
        if let Some((_, v)) = &mut self.entered {
            *v = Some(id);
        }
        id
    }

    /// Level 2 for Service `ns/name` through the sorted Services (full decisions).
    fn dense_level2(
        &mut self,
        ns: &'a str,
        name: &'a str,
        defaulted: bool,
        entered: bool,
    ) -> Option<VerdictId> {
        let found = self.dense.as_mut().and_then(|d| {
            let i = d.find(ns.as_bytes(), name.as_bytes(), defaulted, entered)?;
            d.services
                .get(i)
                .and_then(|s| Some((i, s.service()?, s.level2)))
        });
        let Some((i, svc, cached)) = found else {
            let v = missing_service(ns, name);
            return Some(self.intern(v));
        };
        if let Some(id) = cached {
            return id;
        }
        let id = self.service_signal(ns, name, svc).map(|v| self.intern(v));
        if let Some(slot) = self.dense.as_mut().and_then(|d| d.services.get_mut(i)) {
            slot.level2 = Some(id);
        }
        id
    }

    /// Level 2 for Service `ns/name` through the snapshot, cached (incremental updates).
    fn lazy_level2(&mut self, ns: &'a str, name: &'a str) -> Option<VerdictId> {
        let key = (ns, name);
        if let Some((k, id)) = self.last_service
            && k == key
        {
            return id;
        }
        let id = match self.services.get(&key) {
            Some(id) => *id,
            None => {
                let v = match self.snap.service(ns, name) {
                    Some(svc) => self.service_signal(ns, name, svc),
                    None => Some(missing_service(ns, name)),
                };
                let id = v.map(|v| self.intern(v));
                self.services.insert(key, id);
                id
            }
        };
        self.last_service = Some((key, id));
        id
    }

    /// Level 2 for an existing Service.
    fn service_signal(&mut self, ns: &str, name: &str, svc: &'a Service) -> Option<Verdict> {
        let keys = &self.config.keys;
        let meta = &svc.metadata;
        if let Some(a) = meta.annotations.get(&keys.service_controller_annotation) {
            let n = names(a);
            if !n.is_empty() {
                let owners = match n.as_slice() {
                    [one] => self.owner(one),
                    _ => self.owners(n),
                };
                return Some(Verdict::Owned {
                    owners,
                    level: Level::ServiceAnnotation,
                    evidence: evidence(
                        &mut self.scratch,
                        &[&[
                            "Service ",
                            ns,
                            "/",
                            name,
                            " annotation ",
                            &keys.service_controller_annotation,
                            "=",
                            a.trim(),
                        ]],
                    ),
                });
            }
        }
        let own = meta.labels.get(&keys.delegation_label).map(|v| v.trim());
        if own == Some(NONE_VALUE) {
            // an explicit opt-out: the Namespace's delegation does not apply either (Istio's
            // `istio.io/use-waypoint: none` on a Service)
            return None;
        }
        if let Some(gw) = own.filter(|v| !v.is_empty()) {
            let gw_ns = signal(meta.labels.get(&keys.delegation_namespace_label)).unwrap_or(ns);
            let label = &keys.delegation_label;
            return Some(self.gateway_owner(
                gw_ns,
                gw,
                Level::Delegation,
                &["Service ", ns, "/", name, " label ", label, "=", gw],
            ));
        }
        self.namespace_delegation(ns, name)
    }

    /// Level 2 for a Service without a delegation label of its own: its Namespace's label
    /// (Service first, then Namespace, as Istio's ambient waypoint lookup does). The Namespace
    /// missing from the snapshot is `Pending`: its label could decide.
    fn namespace_delegation(&mut self, ns: &str, name: &str) -> Option<Verdict> {
        let keys = &self.config.keys;
        let Some(namespace) = self.find_namespace(ns) else {
            return Some(Verdict::Pending {
                waiting_on: vec![ObjectKey::new(ResourceKind::Namespace, "", ns)],
                level: Level::Delegation,
            });
        };
        let labels = &namespace.metadata.labels;
        let gw = signal(labels.get(&keys.namespace_delegation_label))?;
        let gw_ns = signal(labels.get(&keys.namespace_delegation_namespace_label)).unwrap_or(ns);
        let label = &keys.namespace_delegation_label;
        Some(self.gateway_owner(
            gw_ns,
            gw,
            Level::Delegation,
            &[
                "Namespace ",
                ns,
                " label ",
                label,
                "=",
                gw,
                " (Service ",
                ns,
                "/",
                name,
                " has no delegation label)",
            ],
        ))
    }

    /// Levels 3, 4 and 5 for routes in namespace `ns`.
    fn namespace_levels(&mut self, ns: &str) -> VerdictId {
        let namespace = self.find_namespace(ns);
        self.namespace_levels_of(ns, namespace)
    }

    /// Levels 3, 4 and 5 for routes in namespace `ns`, whose Namespace object is `namespace`.
    fn namespace_levels_of(&mut self, ns: &str, namespace: Option<&'a Namespace>) -> VerdictId {
        let v = match self.namespace_verdict(ns, namespace) {
            Ok(v) => v,
            Err(id) => return id,
        };
        self.intern(v)
    }

    /// Levels 3, 4 and 5 for routes in namespace `ns`; `Err` when that is the (shared) level-5
    /// verdict, already in the table.
    fn namespace_verdict(
        &mut self,
        ns: &str,
        namespace: Option<&'a Namespace>,
    ) -> Result<Verdict, VerdictId> {
        let keys = &self.config.keys;
        let Some(namespace) = namespace else {
            return Ok(Verdict::Pending {
                waiting_on: vec![ObjectKey::new(ResourceKind::Namespace, "", ns)],
                level: Level::NamespaceLabel,
            });
        };
        let labels = &namespace.metadata.labels;
        if let Some(mesh) = signal(labels.get(&keys.namespace_mesh_label)) {
            let label = [
                "Namespace ",
                ns,
                " label ",
                &keys.namespace_mesh_label,
                "=",
                mesh,
            ];
            return Ok(match self.reg.mesh_controller(mesh) {
                Some(cn) => Verdict::Owned {
                    owners: self.owner(cn),
                    level: Level::NamespaceLabel,
                    evidence: evidence(&mut self.scratch, &[&label]),
                },
                None => Verdict::Owned {
                    owners: Owners::one(&format!("{UNKNOWN_MESH_PREFIX}{mesh}")),
                    level: Level::NamespaceLabel,
                    evidence: evidence(
                        &mut self.scratch,
                        &[
                            &label,
                            &[
                                ", which names no registered mesh or XMesh (an unknown name never falls through)",
                            ],
                        ],
                    ),
                },
            });
        }
        let selected: Vec<&'a crate::registry::Mesh> = self
            .reg
            .meshes()
            .iter()
            .filter(|m| {
                m.selector
                    .as_ref()
                    .is_some_and(|s| s.matches(labels).unwrap_or(false))
            })
            .collect();
        if let Some(v) = self.pick(
            &selected,
            Level::Selector,
            &["Namespace ", ns, " matches the namespaceSelector of "],
            &[],
        ) {
            return Ok(v);
        }
        // Level 5 names no namespace: computed once.
        if let Some(id) = self.default_verdict {
            return Err(id);
        }
        let defaults: Vec<&'a crate::registry::Mesh> =
            self.reg.meshes().iter().filter(|m| m.default).collect();
        let v = self.pick(&defaults, Level::Default, &[], &[" registered as default"]);
        let id = self.intern(v.unwrap_or(Verdict::Unclaimed));
        self.default_verdict = Some(id);
        Err(id)
    }

    /// One candidate owns; several conflict (never tie-broken); none: no signal. The evidence
    /// is `before`, the mesh names joined by `, `, then `after`.
    fn pick(
        &mut self,
        meshes: &[&'a crate::registry::Mesh],
        level: Level,
        before: &[&str],
        after: &[&str],
    ) -> Option<Verdict> {
        let (names, owners) = match meshes {
            [] => return None,
            [m] => (vec![m.name.as_str()], Owners::one(&m.controller_name)),
            _ => (
                meshes
                    .iter()
                    .flat_map(|m| [", ", m.name.as_str()])
                    .skip(1)
                    .collect(),
                Owners::new(meshes.iter().map(|m| m.controller_name.as_str())),
            ),
        };
        let evidence = evidence(&mut self.scratch, &[before, &names, after]);
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
