//! Attachment: which (route, parentRef) lands on which Service port (mesh, GEP-1294) or
//! Gateway listener, and every condition that decides it.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::rc::Rc;

use crate::hash::Map;
use crate::hostname::{self, HostSpecificity};
use crate::input::{
    AllowedNamespaces, GatewayIr, L4, ListenerIr, ParentRefIr, ParentRefKind, RouteIr,
};
use crate::precedence::RouteRank;
use crate::status::{NO_MATCHING_LISTENER_HOSTNAME, NO_MATCHING_PARENT, NOT_ALLOWED_BY_LISTENERS};
use crate::table::{
    HostnamePrecedence, LeftOut, MeshHostnames, NotAccepted, ParentIx, RouteInfo, RouteParentKey,
};
use gamma_model::RouteKind;

use super::{Builder, RouteRead, touch};

/// The condition message for a `kind: Service` parentRef with `group: core`.
pub(super) const NOT_A_SERVICE_CORE: &str = "not a Service (did you mean group: \"\"?): group core is not the \
     core API group, which is written group: \"\"";
/// The condition message for a `kind: Service` parentRef without `group`.
pub(super) const NOT_A_SERVICE_NO_GROUP: &str = "not a Service (did you mean group: \"\"?): kind Service \
     in group gateway.networking.k8s.io (what an omitted group defaults to) is not the core \
     Service, and no controller implements it";

/// The condition message for a Gateway parent that fails validation (`NoMatchingParent`),
/// followed by `: <its first error>` in the route's status.
pub(super) const GATEWAY_LEFT_OUT: &str =
    "the parent Gateway was left out (the API server would refuse it)";
/// The condition message for a ListenerSet parent that fails validation (`NoMatchingParent`),
/// followed by `: <its first error>` in the route's status.
pub(super) const LISTENER_SET_LEFT_OUT: &str =
    "the parent ListenerSet was left out (the API server would refuse it)";

/// Which group of routes on a Service port (GEP-1294 namespace boundaries).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Group {
    Producer,
    Consumer(String),
}

impl Attached {
    fn push(&mut self, kind: RouteKind, a: AttachedRoute) {
        if let Some(list) = self.by_kind.get_mut(kind as usize) {
            list.push(a);
        }
    }
}

/// Routes attached to one context, before indexing. `hosts` are the effective hostnames
/// (`None` = any).
#[derive(Debug, Default)]
pub(super) struct Attached {
    /// By kind, in [`RouteKind::ALL`] (precedence, GEP-1294 route types) order, indexed by
    /// `kind as usize` (an array: no map node per context).
    pub(super) by_kind: [Vec<AttachedRoute>; 5],
}

/// The routes attached to each (Service, port index, group), while building.
#[derive(Debug)]
pub(super) struct SvcAttached {
    pub(super) ids: Map<(usize, usize, Group), u32>,
    pub(super) lists: Vec<Attached>,
}

impl SvcAttached {
    /// The list of (Service, port index, group), created empty on first use (`None` only
    /// past `u32::MAX` lists).
    fn get(&mut self, si: usize, port_i: usize, group: &Group) -> Option<&mut Attached> {
        let next = u32::try_from(self.lists.len()).unwrap_or(u32::MAX);
        let i = *self.ids.entry((si, port_i, group.clone())).or_insert(next);
        if i == next {
            self.lists.push(Attached::default());
        }
        self.lists.get_mut(i as usize)
    }
}

#[derive(Debug, Clone)]
pub(super) struct AttachedRoute {
    pub(super) route_id: u32,
    /// Index of the route in the input.
    pub(super) ri: usize,
    /// Shared between the contexts a route attaches to (and, for "any host", between routes):
    /// attaching allocates nothing.
    pub(super) hosts: Rc<[Option<String>]>,
    /// For each of `hosts`, the specificity of the route's own hostname that yielded it (the
    /// most specific one when several did), ranked after the intersection under
    /// [`HostnamePrecedence::RouteHostname`]; empty (all `(0, 0)`) otherwise, and for mesh
    /// routes, whose hostnames are their own.
    pub(super) route_hosts: Rc<[HostSpecificity]>,
    /// Compiled rule ids by rule index (`None` = dropped), shared like `hosts`.
    pub(super) rules: RuleIds,
}

/// Compiled rule ids of a route by rule index (`None` = dropped), shared by every context
/// the route attaches to.
/// A run (start, length) of `Builder::rule_id_pool`: no allocation per route.
pub(super) type RuleIds = (u32, u32);

/// Whose listener: a Gateway's own, or a ListenerSet's (GEP-1713), by input index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Owner {
    /// `spec.listeners` of a Gateway.
    Gateway(usize),
    /// `spec.listeners` of a ListenerSet.
    Set(usize),
}

/// The routes attached to each (listener owner, listener index), while building.
pub(super) type GwAttached = BTreeMap<(Owner, usize), Attached>;

impl<'i> Builder<'i> {
    /// Attaches every (route, parentRef) in canonical order: mesh parents to (Service, port,
    /// group) lists, Gateway parents to (Gateway, listener) lists.
    pub(super) fn attach_all(
        &mut self,
        order: &[usize],
        ranks: &[RouteRank],
    ) -> (SvcAttached, GwAttached) {
        let routes = self.route_irs;
        let touch = touch::worth_it(routes.len());
        // Attach every (route, parent).
        // A hash map (to an index of `svc_lists`) while attaching: one lookup per (route,
        // parent), where a B-tree walked ~13 levels of keys for 9,000 Services; the keys
        // are sorted once afterwards for a deterministic build order.
        let mut svc_attached = SvcAttached {
            ids: Map::with_hasher(self.hash),
            lists: Vec::new(),
        };
        let mut gw_attached: GwAttached = BTreeMap::new();
        for (pos, &ri) in order.iter().enumerate() {
            let Some(route) = routes.get(ri) else {
                continue;
            };
            if touch {
                touch::ahead(
                    pos,
                    |i| order.get(i).and_then(|r| routes.get(*r)),
                    touch::attach_level,
                );
            }
            let rank = ranks.get(pos).copied().unwrap_or_default();
            for (pi, parent) in route.ir.parents.iter().enumerate() {
                if !self.included(route.ir, pi) {
                    continue;
                }
                match &parent.kind {
                    ParentRefKind::Service => {
                        self.attach_service(ri, rank, route, pi, parent, &mut svc_attached);
                    }
                    ParentRefKind::Gateway => {
                        self.attach_gateway(ri, rank, route, pi, parent, &mut gw_attached);
                    }
                    ParentRefKind::ListenerSet => {
                        self.attach_listener_set(ri, rank, route, pi, parent, &mut gw_attached);
                    }
                    ParentRefKind::Other(gk)
                        if gk == "core/Service" && self.options.core_group_alias =>
                    {
                        // the opt-in compatibility policy: `group: core` read as `""`
                        self.attach_service(ri, rank, route, pi, parent, &mut svc_attached);
                    }
                    // `kind: Service` with no group or `group: core` is almost always a core
                    // Service written wrong (ParentReference.group: the core group is ""):
                    // said in the table's conditions; no controller owns such a parent, so
                    // none writes it.
                    ParentRefKind::Other(gk) if gk == "core/Service" => {
                        self.status.no_parent(ri, pi, NOT_A_SERVICE_CORE);
                    }
                    ParentRefKind::Other(gk) if gk == "gateway.networking.k8s.io/Service" => {
                        self.status.no_parent(ri, pi, NOT_A_SERVICE_NO_GROUP);
                    }
                    // Parents of other kinds are not ours to report (Gateway API
                    // RouteStatus.parents).
                    ParentRefKind::Other(_) => {}
                }
            }
        }
        (svc_attached, gw_attached)
    }
}

impl<'i> Builder<'i> {
    /// Compiles the rules of `route` for the (route, parentRef) pair `(ri, pi)`, for the mesh
    /// or a Gateway (`mesh`), and records them in the pair's conditions. `None` when every
    /// rule was dropped: the route is then not accepted and takes part in nothing (not even
    /// the kind precedence of GEP-1294 route types).
    fn accepted_rules(
        &mut self,
        (ri, pi): (usize, usize),
        parent_ix: ParentIx,
        route_id: u32,
        route: RouteRead<'i>,
        mesh: bool,
    ) -> Option<RuleIds> {
        let rules = self.rules_of(ri, route_id, route, mesh);
        let start = rules.0 as usize;
        let ids = self
            .rule_id_pool
            .get(start..start + rules.1 as usize)
            .unwrap_or(&[]);
        let dropped = route
            .rules
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.invalid.map(|inv| (i, inv)));
        self.status.rules(
            (ri, pi),
            route.rules.len(),
            dropped,
            ids,
            &self.rule_problems,
        );
        if ids.iter().all(Option::is_none) {
            self.all_rules_invalid(parent_ix, route_id, route);
            return None;
        }
        Some(rules)
    }

    pub(super) fn included(&self, r: &RouteIr, parent_index: usize) -> bool {
        match &self.options.include {
            None => true,
            Some(set) => set.contains(&RouteParentKey {
                kind: r.kind,
                namespace: r.namespace.to_string(),
                name: r.name.to_string(),
                parent_index,
            }),
        }
    }

    /// Registers the route (once) and returns its id, or `None` when it failed validation.
    pub(super) fn route(&mut self, ri: usize, rank: RouteRank, route: &RouteIr) -> Option<u32> {
        if route.invalid.is_some() {
            return None;
        }
        if let Some(id) = self.route_id.get(ri).copied().flatten() {
            return Some(id);
        }
        let id = u32::try_from(self.routes.len()).ok()?;
        let namespace = self.route_ns.get(ri).copied()?;
        self.routes.push(RouteInfo {
            name: route.name.as_str().into(),
            namespace,
            kind: route.kind,
        });
        self.ranks.push(rank);
        if let Some(slot) = self.route_id.get_mut(ri) {
            *slot = Some(id);
        }
        Some(id)
    }

    /// Keeps the notes that `route` is not in the table (invalid as a whole) or that some of
    /// its rules are not (dropped, `PartiallyInvalid`), for the Service `parent` it named: a
    /// request to that Service must not silently show another route or rule. The same reasons
    /// as the route's status conditions (one verdict per object, `docs/validation.md`).
    pub(super) fn note_left_out(&mut self, route: RouteRead<'_>, parent: &ParentRefIr) {
        if !has_left_out(route) {
            // nothing to note: no addresses copied
            return;
        }
        let ips = self
            .svc_by_name
            .get(&(parent.namespace.as_str(), parent.name.as_str()))
            .and_then(|i| self.input.services.get(*i))
            .map(|s| s.cluster_ips.clone().into_boxed_slice())
            .unwrap_or_default();
        self.note_left_out_at(route, (&parent.namespace, &parent.name), true, ips);
    }

    /// [`Self::note_left_out`] for a Gateway parent (`gw`, or the parent Gateway of a
    /// ListenerSet parent), found by the Gateway's addresses.
    pub(super) fn note_left_out_at_gateway(&mut self, route: RouteRead<'_>, gw: &GatewayIr) {
        if !has_left_out(route) {
            return;
        }
        let ips = gw.addresses.clone().into_boxed_slice();
        self.note_left_out_at(route, (&gw.namespace, &gw.name), false, ips);
    }

    fn note_left_out_at(
        &mut self,
        route: RouteRead<'_>,
        (namespace, name): (&str, &str),
        service: bool,
        ips: Box<[IpAddr]>,
    ) {
        let (rules, route) = (route.rules, route.ir);
        let texts: Vec<String> = match &route.invalid {
            Some(invalid) => vec![format!(
                "{} {}/{} was left out: {}",
                route.kind, route.namespace, route.name, invalid.message
            )],
            None => rules
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    let invalid = r.invalid?;
                    Some(format!(
                        "{} {}/{} rule {i} was dropped ({}): {}",
                        route.kind, route.namespace, route.name, invalid.reason, invalid.message
                    ))
                })
                .collect(),
        };
        for text in texts {
            let note = LeftOut {
                route: (
                    route.kind,
                    route.namespace.as_str().into(),
                    route.name.as_str().into(),
                ),
                namespace: namespace.into(),
                name: name.into(),
                service,
                ips: ips.clone(),
                text: text.into(),
            };
            // several parentRefs to one parent (ports, sections) make one note
            if !self.left_out.contains(&note) {
                self.left_out.push(note);
            }
        }
    }

    pub(super) fn attach_service(
        &mut self,
        ri: usize,
        rank: RouteRank,
        route: RouteRead<'i>,
        pi: usize,
        parent: &ParentRefIr,
        out: &mut SvcAttached,
    ) {
        self.note_left_out(route, parent);
        let Some(route_id) = self.route(ri, rank, route.ir) else {
            self.status.route_invalid(ri, pi);
            return;
        };
        let si = self
            .svc_by_name
            .get(&(parent.namespace.as_str(), parent.name.as_str()))
            .copied();
        let Some(svc) = si.and_then(|i| self.input.services.get(i)) else {
            self.status
                .no_parent(ri, pi, "the parent Service does not exist");
            return;
        };
        let workloads = self.options.mesh_binding == crate::table::MeshBinding::Workloads;
        if svc.external_name || (svc.headless && !workloads) {
            // GEP-1294: headless and ExternalName Services have no frontend. A Service with no
            // cluster IP yet (not allocated in the manifests) is still a parent: its routes are
            // accepted and bind once it has an address.
            self.status.no_parent(
                ri,
                pi,
                "headless and ExternalName Services cannot be parents",
            );
            return;
        }
        let want_l4 = if route.ir.kind == RouteKind::Udp {
            L4::Udp
        } else {
            L4::Tcp
        };
        // The matching Service ports, walked twice instead of collected: a `Vec` per
        // (route, parent) was one allocation per route of a snapshot of one-rule routes.
        let ports = || {
            svc.ports
                .iter()
                .enumerate()
                .filter(|(_, p)| parent.port.is_none_or(|want| want == p.port))
                .filter(|(_, p)| {
                    parent
                        .section_name
                        .as_ref()
                        .is_none_or(|s| p.name.as_deref() == Some(s.as_str()))
                })
                .filter(move |(_, p)| p.protocol == want_l4)
        };
        let parent_ix =
            ParentIx::Service(u32::try_from(si.unwrap_or_default()).unwrap_or(u32::MAX));
        if ports().next().is_none() {
            let why = "no Service port matches the parentRef port/sectionName";
            self.status.no_parent(ri, pi, why);
            self.not_accepted(parent_ix, route_id, NO_MATCHING_PARENT, why);
            return;
        }
        let Some(rules) = self.accepted_rules((ri, pi), parent_ix, route_id, route, true) else {
            return;
        };
        let group = if route.ir.namespace == parent.namespace {
            Group::Producer
        } else {
            Group::Consumer(route.ir.namespace.to_string())
        };
        let hosts: Rc<[Option<String>]> = match self.options.mesh_hostnames {
            MeshHostnames::Ignore => Rc::clone(&self.any_host),
            MeshHostnames::MatchHostHeader if route.ir.hostnames.is_empty() => {
                Rc::clone(&self.any_host)
            }
            MeshHostnames::MatchHostHeader => route
                .ir
                .hostnames
                .iter()
                .map(|h| Some(h.to_ascii_lowercase()))
                .collect(),
        };
        if svc.headless {
            // MeshBinding::Workloads: the pair's conditions also say when its Service's
            // endpoints conflict (crate::workload)
            self.workload_pairs.push((si.unwrap_or_default(), ri, pi));
        }
        for (port_i, port) in ports() {
            let port_value = port.port;
            self.status.attached_mesh(
                ri,
                pi,
                si.unwrap_or_default(),
                port_value,
                group_key(&group),
            );
            if let Some(list) = out.get(si.unwrap_or_default(), port_i, &group) {
                list.push(
                    route.ir.kind,
                    AttachedRoute {
                        route_id,
                        ri,
                        hosts: Rc::clone(&hosts),
                        route_hosts: Rc::clone(&self.no_route_hosts),
                        rules,
                    },
                );
            }
        }
    }

    pub(super) fn attach_gateway(
        &mut self,
        ri: usize,
        rank: RouteRank,
        route: RouteRead<'i>,
        pi: usize,
        parent: &ParentRefIr,
        out: &mut GwAttached,
    ) {
        let gi = self
            .gw_by_name
            .get(&(parent.namespace.as_str(), parent.name.as_str()))
            .copied();
        if let Some(gw) = gi.and_then(|i| self.input.gateways.get(i)) {
            self.note_left_out_at_gateway(route, gw);
        }
        let Some(route_id) = self.route(ri, rank, route.ir) else {
            self.status.route_invalid(ri, pi);
            return;
        };
        let Some(gw) = gi.and_then(|i| self.input.gateways.get(i)) else {
            self.status
                .no_parent(ri, pi, "the parent Gateway does not exist");
            return;
        };
        let gw: &'i GatewayIr = gw;
        let parent_ix =
            ParentIx::Gateway(u32::try_from(gi.unwrap_or_default()).unwrap_or(u32::MAX));
        if let Some(invalid) = &gw.invalid {
            // the API server would not store the Gateway: it is no usable parent (one verdict
            // per object), as one that does not exist
            self.status
                .no_parent(ri, pi, format!("{GATEWAY_LEFT_OUT}: {}", invalid.message));
            self.not_accepted(parent_ix, route_id, NO_MATCHING_PARENT, GATEWAY_LEFT_OUT);
            return;
        }
        // GEP-1713 (Gateway Parents and sectionName): a Gateway parentRef attaches to the
        // Gateway's own `spec.listeners` only, never to those of its ListenerSets
        let target = (
            Owner::Gateway(gi.unwrap_or_default()),
            &gw.listeners[..],
            gw.namespace.as_str(),
        );
        self.attach_listeners(ri, route_id, route, pi, parent, target, parent_ix, out);
    }

    /// A ListenerSet parentRef (GEP-1713 Route Attachment): the ListenerSet is the direct
    /// parent, `sectionName`/`port` select among its own listeners, and its listeners'
    /// `allowedRoutes.namespaces: Same` is the ListenerSet's namespace.
    pub(super) fn attach_listener_set(
        &mut self,
        ri: usize,
        rank: RouteRank,
        route: RouteRead<'i>,
        pi: usize,
        parent: &ParentRefIr,
        out: &mut GwAttached,
    ) {
        let lsi = self
            .ls_by_name
            .get(&(parent.namespace.as_str(), parent.name.as_str()))
            .copied();
        // the note is found at the parent Gateway's addresses, where the ListenerSet's
        // listeners are served
        let gw = lsi
            .and_then(|i| self.input.listener_sets.get(i))
            .and_then(|ls| ls.parent.as_ref())
            .and_then(|(ns, name)| self.gw_by_name.get(&(ns.as_str(), name.as_str())))
            .and_then(|i| self.input.gateways.get(*i));
        if let Some(gw) = gw {
            self.note_left_out_at_gateway(route, gw);
        }
        let Some(route_id) = self.route(ri, rank, route.ir) else {
            self.status.route_invalid(ri, pi);
            return;
        };
        let Some((lsi, ls)) = lsi.and_then(|i| self.input.listener_sets.get(i).map(|l| (i, l)))
        else {
            self.status
                .no_parent(ri, pi, "the parent ListenerSet does not exist");
            return;
        };
        let attached =
            self.merged.sets.get(lsi).is_some_and(|f| {
                matches!(f.attachment, crate::listener_set::Attachment::Attached(_))
            });
        let parent_ix = ParentIx::ListenerSet(u32::try_from(lsi).unwrap_or(u32::MAX));
        if let Some(invalid) = &ls.invalid {
            // as an invalid Gateway parent
            self.status.no_parent(
                ri,
                pi,
                format!("{LISTENER_SET_LEFT_OUT}: {}", invalid.message),
            );
            self.not_accepted(
                parent_ix,
                route_id,
                NO_MATCHING_PARENT,
                LISTENER_SET_LEFT_OUT,
            );
            return;
        }
        if !attached {
            // its listeners are part of no Gateway: none can admit the route
            let why =
                "the ListenerSet is not attached to a Gateway (its Accepted condition says why)";
            self.status.not_allowed_because(ri, pi, why);
            self.not_accepted(parent_ix, route_id, NOT_ALLOWED_BY_LISTENERS, why);
            return;
        }
        let ls: &'i crate::input::ListenerSetIr = ls;
        let target = (Owner::Set(lsi), &ls.listeners[..], ls.namespace.as_str());
        self.attach_listeners(ri, route_id, route, pi, parent, target, parent_ix, out);
    }

    /// Attaches (route, parentRef) to the listeners of one parent resource: `target` is
    /// (whose listeners, the listeners, the namespace `allowedRoutes: Same` means).
    #[allow(clippy::too_many_arguments)]
    fn attach_listeners(
        &mut self,
        ri: usize,
        route_id: u32,
        route: RouteRead<'i>,
        pi: usize,
        parent: &ParentRefIr,
        target: (Owner, &'i [ListenerIr], &'i str),
        parent_ix: ParentIx,
        out: &mut GwAttached,
    ) {
        let (owner, listeners, own_ns) = target;
        let mut matched_section = false;
        let mut allowed = false;
        let mut attached = false;
        let mut attach_to = Vec::new();
        for (li, l) in listeners.iter().enumerate() {
            if parent.section_name.as_ref().is_some_and(|s| *s != l.name)
                || parent.port.is_some_and(|p| p != l.port)
            {
                continue;
            }
            matched_section = true;
            // Listener.allowedRoutes.kinds, and none for an unsupported protocol: a listener
            // that exists but does not accept the route makes NotAllowedByListeners, never
            // NoMatchingParent (RouteConditionReason docs)
            let kinds = l.route_kinds();
            let ns_ok = match &l.allowed_namespaces {
                AllowedNamespaces::Same => route.ir.namespace == own_ns,
                AllowedNamespaces::All => true,
                AllowedNamespaces::Only(set) => set.contains(route.ir.namespace.as_str()),
            };
            if !kinds.contains(&route.ir.kind) || !ns_ok {
                continue;
            }
            allowed = true;
            // Gateway API hostname intersection: effective hostnames are the intersections; a route
            // without hostnames gets the listener's hostname.
            let by_route_host = self.options.hostname_precedence_of(route.ir.kind)
                == HostnamePrecedence::RouteHostname;
            let hosts: Vec<(Option<String>, HostSpecificity)> =
                if route.ir.kind == RouteKind::Tcp || route.ir.kind == RouteKind::Udp {
                    vec![(None, HostSpecificity::default())]
                } else if route.ir.hostnames.is_empty() {
                    vec![(l.hostname.clone(), HostSpecificity::default())]
                } else {
                    let mut hs: Vec<(Option<String>, HostSpecificity)> = route
                        .ir
                        .hostnames
                        .iter()
                        .filter_map(|h| {
                            let effective =
                                hostname::intersect(l.hostname.as_deref(), Some(h.as_str()))?;
                            let origin = if by_route_host {
                                HostSpecificity::of(Some(h.as_str()))
                            } else {
                                HostSpecificity::default()
                            };
                            Some((effective.map(str::to_ascii_lowercase), origin))
                        })
                        .collect();
                    // one entry per effective hostname, with the most specific route hostname
                    // that yields it
                    hs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
                    hs.dedup_by(|later, first| later.0 == first.0);
                    hs
                };
            if hosts.is_empty() {
                continue;
            }
            attached = true;
            attach_to.push((li, hosts));
        }
        if !matched_section {
            let why = "no listener matches the parentRef sectionName/port";
            self.status.no_parent(ri, pi, why);
            self.not_accepted(parent_ix, route_id, NO_MATCHING_PARENT, why);
            return;
        }
        if !allowed {
            self.status.not_allowed(ri, pi);
            self.not_accepted(
                parent_ix,
                route_id,
                NOT_ALLOWED_BY_LISTENERS,
                "no listener's allowedRoutes admits the route's kind and namespace",
            );
            return;
        }
        if !attached {
            self.status.no_hostname(ri, pi);
            self.not_accepted(
                parent_ix,
                route_id,
                NO_MATCHING_LISTENER_HOSTNAME,
                "no route hostname intersects a listener hostname",
            );
            return;
        }
        let Some(rules) = self.accepted_rules((ri, pi), parent_ix, route_id, route, false) else {
            return;
        };
        self.status.attached_gateway(ri, pi);
        for (li, _) in &attach_to {
            self.listener_routes.insert((owner, *li, ri));
        }
        for (li, hosts) in attach_to {
            let route_hosts: Rc<[HostSpecificity]> =
                if hosts.iter().all(|(_, o)| *o == HostSpecificity::default()) {
                    Rc::clone(&self.no_route_hosts)
                } else {
                    hosts.iter().map(|(_, o)| *o).collect()
                };
            out.entry((owner, li)).or_default().push(
                route.ir.kind,
                AttachedRoute {
                    route_id,
                    ri,
                    hosts: hosts.into_iter().map(|(h, _)| h).collect(),
                    route_hosts,
                    rules,
                },
            );
        }
    }
}

/// Whether [`Builder::note_left_out_at`] notes anything for `route`: it is invalid as a
/// whole, or some of its rules were dropped.
fn has_left_out(route: RouteRead<'_>) -> bool {
    route.ir.invalid.is_some() || route.rules.iter().any(|r| r.invalid.is_some())
}

pub(super) fn group_key(g: &Group) -> Option<String> {
    match g {
        Group::Producer => None,
        Group::Consumer(ns) => Some(ns.clone()),
    }
}

impl Builder<'_> {
    /// Notes that `parent` did not accept the route, for views of the parent's bindings.
    fn not_accepted(
        &mut self,
        parent: ParentIx,
        route: u32,
        reason: &'static str,
        message: &'static str,
    ) {
        self.not_accepted.push(NotAccepted {
            parent,
            route,
            reason,
            message,
        });
    }

    /// Every rule of the route was dropped: not accepted, with the first rule's reason (its
    /// `Accepted=False` condition).
    fn all_rules_invalid(&mut self, parent: ParentIx, route_id: u32, route: RouteRead<'_>) {
        let reason = route
            .rules
            .iter()
            .find_map(|r| r.invalid)
            .map_or("UnsupportedValue", |i| i.reason);
        self.not_accepted(parent, route_id, reason, "all rules are invalid");
    }
}
