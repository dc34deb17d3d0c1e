//! Incremental updates of a [`RouteTable`]: after one object changed in the snapshot, rebuild
//! only the frontends (Service ports, Gateway listeners) and routes it affects, and share
//! everything else with the previous table. The design is in `docs/incremental.md`.
//!
//! An update finds a *scope*: the Services and Gateways whose frontends it rebuilds and the
//! routes it lowers again, closed so that every route in it has all of its parents in it and
//! every frontend in it has all of its routes in it (and every frontend bound at one of its
//! addresses). The scope is lowered and built by the same [`Builder`] as a full build, into a
//! new [`Part`]; its bindings replace the scope's old ones, and its route conditions replace
//! the older parts' conditions of the same routes. A change whose effect this module cannot
//! bound rebuilds the whole table.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::sync::{Arc, OnceLock};

use gamma_model::{AnyResource, ObjectKey, ParentKey, ResourceKind, RouteKind, Snapshot};

use crate::build::{Builder, Routes};
use crate::input::{L4, ListenerProtocol, RouteIr, TableInput};
use crate::lower::{Lowered, WireRules, kept_route};
use crate::regex::RegexPool;
use crate::table::{BuildOptions, Covers, Key, Part, RouteTable, Scope};
use gamma_model::validate::Bundle;

/// At most this many parts: past it, an update first merges the parts of earlier updates
/// into one (rebuilding their scopes together), so a table never holds more.
const MAX_PARTS: usize = 16;

/// Without [`BuildOptions::keep_lowered_routes`], an update's part keeps the lowered routes of
/// its scope only up to this many ([`Lowered`]): a change with a larger scope is rare, and its
/// routes would weigh more than relowering them costs.
const MAX_LOWERED: usize = 1024;

/// Replaces, in a shared status vector kept in (namespace, name) order, the entries of the
/// objects a scope rebuilt (`rebuilt`) with the new ones (`built`); copies the vector only when
/// there is something to replace (`Arc::make_mut`).
fn replace_entries<T: Clone>(
    shared: &mut Arc<Vec<T>>,
    rebuilt: &BTreeSet<(String, String)>,
    built: Vec<T>,
    name: impl Fn(&T) -> (&str, &str),
) {
    if rebuilt.is_empty() && built.is_empty() {
        return;
    }
    let entries = Arc::make_mut(shared);
    entries.retain(|e| {
        let (ns, n) = name(e);
        !rebuilt.contains(&(ns.to_owned(), n.to_owned()))
    });
    entries.extend(built);
    entries.sort_by(|a, b| name(a).cmp(&name(b)));
}

/// What one change does to the table.
enum Effect {
    /// Nothing the table reads.
    Nothing,
    /// More than an update can bound: rebuild the whole table.
    Full,
    /// Rebuild from these seeds (closed by [`close`]; nothing when empty), after rebinding
    /// the endpoints of these headless Services ([`crate::MeshBinding::Workloads`]).
    Seeds(Scope, Vec<(String, String)>),
}

impl RouteTable {
    /// [`RouteTable::update`].
    pub(crate) fn updated(
        &self,
        snapshot: &Snapshot,
        options: &BuildOptions,
        key: &ObjectKey,
        previous: Option<&AnyResource>,
    ) -> RouteTable {
        if snapshot.secrets_complete() != self.secrets_complete {
            // every certificate reference may change its verdict
            return RouteTable::build_reusing(snapshot, options, self);
        }
        let (seeds, rebind) = match effect(snapshot, options, key, previous) {
            Effect::Nothing => return self.share(),
            Effect::Full => return RouteTable::build_reusing(snapshot, options, self),
            Effect::Seeds(s, rebind) => (s, rebind),
        };
        let limit = self.parts.first().map_or(0, |p| p.routes.len()) / 4;
        let mut table = self.share();
        // an EndpointSlice's addresses: its headless Service's endpoints are rebound from
        // the frontends the table keeps, nothing is built
        let slice = match previous {
            Some(AnyResource::EndpointSlice(e)) => Some(e),
            _ => None,
        };
        for (ns, name) in &rebind {
            table.rebind_endpoints(snapshot, key, slice, ns, name);
        }
        if seeds.is_empty() {
            // a policy or ConfigMap no route reaches still has a status of its own
            table.refresh_backend_tls_status(snapshot, options);
            return table;
        }
        if table.parts.len() >= MAX_PARTS {
            // merge the parts of earlier updates: rebuild their scopes as one part, which
            // supersedes them (their bindings are all rebound, their routes all covered)
            let mut merged = Scope::default();
            for p in table.parts.iter().skip(1) {
                if let Covers::Scope(s) = &p.covers {
                    merged.absorb(s);
                }
            }
            if !table.rebuild(snapshot, options, merged, &[], limit) {
                return RouteTable::build_reusing(snapshot, options, self);
            }
            let last = table.parts.pop();
            table.parts.truncate(1);
            table.parts.extend(last);
        }
        if table.rebuild(
            snapshot,
            options,
            seeds,
            &previous.into_iter().collect::<Vec<_>>(),
            limit,
        ) {
            table.refresh_backend_tls_status(snapshot, options);
            table
        } else {
            RouteTable::build_reusing(snapshot, options, self)
        }
    }

    /// Rebinds the ready endpoints of headless Service `ns/name` after EndpointSlice `key`
    /// changed (`previous`: the slice it replaced).
    fn rebind_endpoints(
        &mut self,
        snapshot: &Snapshot,
        key: &ObjectKey,
        previous: Option<&gamma_model::k8s::EndpointSlice>,
        ns: &str,
        name: &str,
    ) {
        let Some(svc) = snapshot.service(ns, name) else {
            return;
        };
        let old = crate::lower::endpoints_with(snapshot, svc, key, previous);
        let now: Vec<_> = snapshot.endpoint_slices_for(ns, name).collect();
        let new = crate::lower::endpoints(svc, &now);
        crate::build::rebind(&mut self.bindings, &self.workloads, (ns, name), &old, &new);
    }

    /// Recomputes every BackendTLSPolicy's status (PolicyStatus.ancestors) from the
    /// snapshot's policies and ConfigMaps and the (ancestor, Service target) pairs every part
    /// keeps, each route's from the newest part covering it (as its conditions). Nothing to
    /// do without policies, as it was and as it is.
    fn refresh_backend_tls_status(&mut self, snapshot: &Snapshot, options: &BuildOptions) {
        if snapshot.backend_tls_policies().next().is_none() {
            if !self.backend_tls_status.is_empty() {
                self.backend_tls_status = Arc::default();
            }
            return;
        }
        let vopts = crate::lower::lowering_options(&options.validate_options());
        let mut input = TableInput::default();
        crate::lower::lower_backend_tls(snapshot, &vopts, &mut input);
        let mut pairs = BTreeSet::new();
        for (i, p) in self.parts.iter().enumerate() {
            let newer = self.parts.get(i + 1..).unwrap_or(&[]);
            // the pairs are sorted by route: whether a newer part covers it, once per route
            let mut current: Option<(u32, bool)> = None;
            for r in &p.tls_reached {
                let superseded = match current {
                    Some((route, s)) if route == r.route => s,
                    _ => {
                        let s = p.routes.get(r.route as usize).is_none_or(|info| {
                            !newer.is_empty() && {
                                let id = (
                                    info.kind,
                                    p.route_namespace(info).to_string(),
                                    info.name.to_string(),
                                );
                                newer.iter().any(|n| n.covers.contains(&id))
                            }
                        });
                        current = Some((r.route, s));
                        s
                    }
                };
                if !superseded {
                    pairs.insert((
                        &r.ancestor,
                        &*r.namespace,
                        &*r.service,
                        r.port_name.as_deref(),
                    ));
                }
            }
        }
        self.backend_tls_status = Arc::new(crate::build::policy_status(&input, &pairs));
    }

    /// A table sharing every part of `self` (its rendered conditions are rendered again on
    /// first use).
    pub(crate) fn share(&self) -> RouteTable {
        RouteTable {
            parts: self.parts.clone(),
            bindings: self.bindings.clone(),
            workloads: Arc::clone(&self.workloads),
            statuses: OnceLock::new(),
            // derived from the bindings, which the update changes
            frontend_index: OnceLock::new(),
            gateway_status: Arc::clone(&self.gateway_status),
            listener_set_status: Arc::clone(&self.listener_set_status),
            backend_tls_status: Arc::clone(&self.backend_tls_status),
            left_out: Arc::clone(&self.left_out),
            secrets_complete: self.secrets_complete,
        }
    }

    /// Rebuilds the closure of `seeds` into a new part; `previous` are the objects the change
    /// replaced (their old addresses are unbound). Routes `self` keeps lowered are reused
    /// when still current; the result keeps the scope's lowered routes. `false` when the
    /// scope has more than `limit` routes (a full build is cheaper).
    fn rebuild(
        &mut self,
        snapshot: &Snapshot,
        options: &BuildOptions,
        seeds: Scope,
        previous: &[&AnyResource],
        limit: usize,
    ) -> bool {
        let Some((scope, current)) =
            close(snapshot, &seeds, previous, limit, options.core_group_alias)
        else {
            return false;
        };
        let vopts = crate::lower::lowering_options(&options.validate_options());
        // the regexes and regex sets the table compiled already are taken, not compiled again
        let mut regexes = RegexPool::reusing(&self.parts);
        let (input, routes, objects, wire) = scope_input(
            snapshot,
            &scope,
            &current,
            &vopts,
            &mut regexes,
            &self.parts,
        );
        // the keys the scope's frontends were bound at, and are bound at now
        let mut old_keys: Vec<Key> = Vec::new();
        // and the ready endpoints the scope's headless Services claimed (as they were: their
        // EndpointSlices are as they are, an EndpointSlice change rebinds them first)
        let mut old_claims = Vec::new();
        for (ns, name) in &scope.services {
            for svc in
                previous_or_current(previous, ns, name, as_service, snapshot.service(ns, name))
            {
                service_keys(snapshot, svc, &mut old_keys);
                // only a headless Service claims endpoints (`lower::endpoints`)
                if svc.is_headless() {
                    let slices: Vec<_> = snapshot.endpoint_slices_for(ns, name).collect();
                    for e in crate::lower::endpoints(svc, &slices) {
                        old_claims
                            .push(((e.address, e.port, e.protocol), (ns.clone(), name.clone())));
                    }
                }
            }
        }
        let mut gateway_ips: Vec<IpAddr> = Vec::new();
        for (ns, name) in &scope.gateways {
            for gw in
                previous_or_current(previous, ns, name, as_gateway, snapshot.gateway(ns, name))
            {
                gateway_keys(snapshot, gw, &mut old_keys);
                gateway_ips.extend(crate::lower::gateway_addresses(gw));
            }
        }
        // a ListenerSet's listeners are bound at its Gateway's addresses: at every address of
        // the scope's Gateways (whatever is bound there is in the scope, and rebound)
        for (ns, name) in &scope.listener_sets {
            for ls in previous_or_current(
                previous,
                ns,
                name,
                as_listener_set,
                snapshot.listener_set(ns, name),
            ) {
                for l in &ls.spec.listeners {
                    let l4 = if l.protocol == "UDP" {
                        L4::Udp
                    } else {
                        L4::Tcp
                    };
                    let Ok(port) = u16::try_from(l.port) else {
                        continue;
                    };
                    old_keys.extend(gateway_ips.iter().map(|ip| (*ip, port, l4)));
                }
            }
        }
        let built = Builder::with_routes(&input, Routes::shared(&routes, &wire), options)
            .with_regexes(regexes)
            .build_part(Covers::Scope(scope));
        let mut part = built.part;
        // the scope's lowered routes, for later updates
        if options.keep_lowered_routes || routes.len() <= MAX_LOWERED {
            part.lowered = Lowered::new(
                objects
                    .into_iter()
                    .zip(routes)
                    .zip(&wire)
                    .map(|(((k, o), r), w)| (k, (o, r, w.is_some()))),
                options.hash_seed,
                Bundle::new(options.release, options.channel),
            );
        }
        let part = Arc::new(part);
        for k in &old_keys {
            self.bindings.remove(k);
        }
        for (k, (ns, name)) in &old_claims {
            crate::build::unclaim(&mut self.bindings, k, (ns, name));
        }
        for (k, b) in built.bindings {
            self.bindings.insert(k, (Arc::clone(&part), b));
        }
        let Covers::Scope(scope) = &part.covers else {
            return false;
        };
        if !self.workloads.is_empty() || !built.workloads.is_empty() {
            let workloads = Arc::make_mut(&mut self.workloads);
            workloads.retain(|(ns, name), _| {
                !scope.services.contains(&(ns.to_string(), name.to_string()))
            });
            crate::build::bind_all(&mut self.bindings, &part, built.workloads, workloads);
        }
        // Gateway status: the scope's Gateways are recomputed whole (a mesh route's scope
        // has none: the shared vector stays as it is), and so are its ListenerSets
        replace_entries(
            &mut self.gateway_status,
            &scope.gateways,
            built.gateway_status,
            |g| (&g.namespace, &g.name),
        );
        replace_entries(
            &mut self.listener_set_status,
            &scope.listener_sets,
            built.listener_set_status,
            |l| (&l.namespace, &l.name),
        );
        // left-out notes are per route: the scope's routes have new ones
        if !self.left_out.is_empty() || !built.left_out.is_empty() {
            let left_out = Arc::make_mut(&mut self.left_out);
            left_out.retain(|l| {
                !scope.route_ids.contains(&(
                    l.route.0,
                    l.route.1.to_string(),
                    l.route.2.to_string(),
                ))
            });
            left_out.extend(built.left_out);
            left_out.sort_by(|a, b| a.route.cmp(&b.route));
        }
        self.statuses = OnceLock::new();
        self.parts.push(part);
        true
    }
}

/// Cheap: the clone shares every compiled part (and bindings shard) with the original.
/// The route kinds.
fn is_route_kind(k: ResourceKind) -> bool {
    RouteKind::ALL.iter().any(|r| r.resource_kind() == k)
}

/// The kinds lowering never reads (`lower::lower_into` reads Services, EndpointSlices,
/// Gateways, ListenerSets, Namespaces, ReferenceGrants, BackendTLSPolicies, ConfigMaps and
/// routes): a change of one changes nothing in the table.
///
/// - GatewayClass: the table serves every Gateway it is given; which Gateways a controller
///   owns (their `gatewayClassName`) is decided before, by the arbiter and the controller;
/// - XBackend, XBackendTrafficPolicy: a backendRef of a kind other than Service is resolved
///   by its kind alone (`InvalidKind`), never by reading the object;
/// - XMesh and the SMI kinds: read by the arbiter and the SMI conversion (ownership changes
///   arrive as route changes).
fn never_read(kind: ResourceKind) -> bool {
    matches!(
        kind,
        ResourceKind::GatewayClass
            | ResourceKind::XBackend
            | ResourceKind::XBackendTrafficPolicy
            | ResourceKind::XMesh
            | ResourceKind::TrafficSplit
            | ResourceKind::HttpRouteGroup
            | ResourceKind::SmiTcpRoute
            | ResourceKind::SmiUdpRoute
            | ResourceKind::TrafficTarget
    )
}

/// What a change seeds.
fn effect(
    snapshot: &Snapshot,
    options: &BuildOptions,
    key: &ObjectKey,
    previous: Option<&AnyResource>,
) -> Effect {
    let mut s = Scope::default();
    let current = snapshot.get(key);
    if never_read(key.kind) {
        return Effect::Nothing;
    }
    match key.kind {
        k if is_route_kind(k) => {
            // the route, its old parents and its new parents (and, by closure, the routes
            // competing with it there)
            s.routes.insert(key.clone());
            for r in previous.into_iter().chain(current) {
                s.add_parents(r);
            }
        }
        ResourceKind::Service => {
            // its frontends, and every route that has it as a backend (validity, ports,
            // appProtocol, readiness)
            s.services.insert((key.namespace.clone(), key.name.clone()));
            s.routes.extend(
                snapshot
                    .routes_for_backend(&key.namespace, &key.name)
                    .map(ObjectKey::of),
            );
        }
        ResourceKind::EndpointSlice => {
            let services: BTreeSet<String> = previous
                .into_iter()
                .chain(current)
                .filter_map(|r| match r {
                    AnyResource::EndpointSlice(e) => e.service_name().map(str::to_string),
                    _ => None,
                })
                .collect();
            let slice = match previous {
                Some(AnyResource::EndpointSlice(e)) => Some(e),
                _ => None,
            };
            // readiness of its Service, when it changed: the routes that have that Service
            // as a backend (a change of addresses only leaves it as it was)
            let changed: BTreeSet<&String> = services
                .iter()
                .filter(|name| {
                    readiness(snapshot, &key.namespace, name, None)
                        != readiness(snapshot, &key.namespace, name, Some((key, slice)))
                })
                .collect();
            for svc in changed {
                s.routes.extend(
                    snapshot
                        .routes_for_backend(&key.namespace, svc)
                        .map(ObjectKey::of),
                );
            }
            // MeshBinding::Workloads: a headless Service's endpoints are rebound
            let rebind = services
                .into_iter()
                .filter(|name| {
                    options.mesh_binding == crate::table::MeshBinding::Workloads
                        && snapshot
                            .service(&key.namespace, name)
                            .is_some_and(|svc| svc.is_headless())
                })
                .map(|name| (key.namespace.clone(), name))
                .collect();
            return Effect::Seeds(s, rebind);
        }
        ResourceKind::Namespace => {
            // listener allowedRoutes selectors and Gateway allowedListeners selectors read
            // Namespace labels: every Gateway and ListenerSet
            all_listeners(snapshot, &mut s);
        }
        ResourceKind::ListenerSet => {
            // its listeners join its parent Gateway's, as it was and as it is (GEP-1713)
            s.listener_sets
                .insert((key.namespace.clone(), key.name.clone()));
            for r in previous.into_iter().chain(current) {
                if let AnyResource::ListenerSet(ls) = r {
                    let (ns, name) = listener_set_parent(ls);
                    s.gateways.insert((ns.to_string(), name.to_string()));
                }
            }
        }
        ResourceKind::Gateway => {
            s.gateways.insert((key.namespace.clone(), key.name.clone()));
        }
        ResourceKind::ReferenceGrant => {
            // references into its namespace from others: backends (and, under
            // MeshReferenceGrants::Enforce, mesh ones), listener certificateRefs
            s.routes.extend(
                snapshot
                    .routes_with_backends_in(&key.namespace)
                    .map(|(_, r)| r)
                    .filter(|r| r.metadata().namespace_or_default() != key.namespace)
                    .map(ObjectKey::of),
            );
            all_listeners(snapshot, &mut s);
        }
        ResourceKind::Secret => {
            // listener certificateRefs read Secrets (GatewayTLSConfig.certificateRefs), and
            // only when the snapshot holds every Secret (`Snapshot::secrets_complete`; a
            // change of that flag rebuilds whole, above): the Gateways and ListenerSets
            // naming it
            if !snapshot.secrets_complete() {
                return Effect::Nothing;
            }
            secret_listeners(snapshot, key, &mut s);
        }
        ResourceKind::BackendTlsPolicy => {
            // the backends on the Services it targets, as it was and as it is: which policy
            // they use (the oldest of those targeting the Service and port); the policies'
            // status is recomputed after every update
            for r in previous.into_iter().chain(current) {
                if let AnyResource::BackendTlsPolicy(p) = r {
                    policy_backends(snapshot, p, &mut s);
                }
            }
        }
        ResourceKind::ConfigMap => {
            // read only through BackendTLSPolicy caCertificateRefs (in the policy's
            // namespace): the backends of the policies naming it
            for p in snapshot.backend_tls_policies() {
                let names_it = p.metadata.namespace_or_default() == key.namespace
                    && p.spec.validation.ca_certificate_refs.iter().any(|c| {
                        crate::lower::is_core_config_map(&c.group, &c.kind) && c.name == key.name
                    });
                if names_it {
                    policy_backends(snapshot, p, &mut s);
                }
            }
        }
        _ => return Effect::Full,
    }
    Effect::Seeds(s, Vec::new())
}

/// The routes with a backend on a core Service BackendTLSPolicy `p` targets, into `s`.
fn policy_backends(snapshot: &Snapshot, p: &gamma_model::gateway::BackendTlsPolicy, s: &mut Scope) {
    let ns = p.metadata.namespace_or_default();
    for t in &p.spec.target_refs {
        if t.group.is_empty() && t.kind == "Service" {
            s.routes
                .extend(snapshot.routes_for_backend(ns, &t.name).map(ObjectKey::of));
        }
    }
}

/// A Service's readiness as lowering summarises it ([`crate::input::ServiceIr::ready`]),
/// from the snapshot's EndpointSlices, or with slice `.0` as it was (`.1`) instead.
fn readiness(
    snapshot: &Snapshot,
    ns: &str,
    name: &str,
    replaced: Option<(&ObjectKey, Option<&gamma_model::k8s::EndpointSlice>)>,
) -> Option<bool> {
    let mut slices: Vec<&gamma_model::k8s::EndpointSlice> = snapshot
        .endpoint_slices_for(ns, name)
        .filter(|e| {
            replaced.is_none_or(|(k, _)| {
                !(e.metadata.name == k.name && e.metadata.namespace_or_default() == k.namespace)
            })
        })
        .collect();
    if let Some((_, Some(old))) = replaced
        && old.service_name() == Some(name)
    {
        slices.push(old);
    }
    (!slices.is_empty()).then(|| slices.iter().any(|e| e.has_ready_endpoint()))
}

/// Every Gateway and ListenerSet of the snapshot into `s` (what a Namespace or ReferenceGrant
/// change can affect: selectors and certificateRefs of any listener).
fn all_listeners(snapshot: &Snapshot, s: &mut Scope) {
    for gw in snapshot.gateways() {
        s.gateways.insert((
            gw.metadata.namespace_or_default().to_string(),
            gw.metadata.name.clone(),
        ));
    }
    for ls in snapshot.listener_sets() {
        s.listener_sets.insert((
            ls.metadata.namespace_or_default().to_string(),
            ls.metadata.name.clone(),
        ));
    }
}

/// The Gateways and ListenerSets of the snapshot with a listener certificateRef naming Secret
/// `key` (of group `""`, kind `Secret`, in its namespace or the listener's), into `s` (the
/// Gateways and ListenerSets themselves are unchanged: as they are is as they were).
fn secret_listeners(snapshot: &Snapshot, key: &ObjectKey, s: &mut Scope) {
    let names = |ns: &str, listeners: &mut dyn Iterator<Item = &gamma_model::gateway::Listener>| {
        listeners
            .flat_map(|l| l.tls.iter().flat_map(|t| t.certificate_refs.iter()))
            .any(|c| {
                crate::lower::certificate_secret(c, ns)
                    == Some((key.namespace.as_str(), key.name.as_str()))
            })
    };
    for gw in snapshot.gateways() {
        let ns = gw.metadata.namespace_or_default();
        if names(ns, &mut gw.spec.listeners.iter()) {
            s.gateways
                .insert((ns.to_string(), gw.metadata.name.clone()));
        }
    }
    for ls in snapshot.listener_sets() {
        let ns = ls.metadata.namespace_or_default();
        if names(ns, &mut ls.spec.listeners.iter()) {
            s.listener_sets
                .insert((ns.to_string(), ls.metadata.name.clone()));
        }
    }
}

/// The (namespace, name) a ListenerSet's parentRef names (of any kind: reading more than the
/// Gateway it joins only widens a scope).
fn listener_set_parent(ls: &gamma_model::gateway::ListenerSet) -> NameRef<'_> {
    let p = &ls.spec.parent_ref;
    let ns = p
        .namespace
        .as_deref()
        .unwrap_or(ls.metadata.namespace_or_default());
    (ns, &p.name)
}

/// A route's (kind, namespace, name), borrowed: ordered as its [`ObjectKey`].
type RouteRef<'a> = (ResourceKind, &'a str, &'a str);

/// A (namespace, name), borrowed.
type NameRef<'a> = (&'a str, &'a str);

/// A scope being closed, by names borrowed from the seeds, the snapshot and the objects the
/// change replaced (owned copies are made once, for the closed [`Scope`]); what is added is
/// also queued, to be followed once.
#[derive(Default)]
struct Closing<'a> {
    services: BTreeSet<NameRef<'a>>,
    gateways: BTreeSet<NameRef<'a>>,
    listener_sets: BTreeSet<NameRef<'a>>,
    /// Routes, with the stored object the snapshot holds (`None`: removed).
    routes: BTreeMap<RouteRef<'a>, Option<&'a Arc<AnyResource>>>,
    service_queue: Vec<NameRef<'a>>,
    gateway_queue: Vec<NameRef<'a>>,
    set_queue: Vec<NameRef<'a>>,
    route_queue: Vec<&'a AnyResource>,
}

impl<'a> Closing<'a> {
    fn service(&mut self, n: NameRef<'a>) {
        if self.services.insert(n) {
            self.service_queue.push(n);
        }
    }

    fn gateway(&mut self, n: NameRef<'a>) {
        if self.gateways.insert(n) {
            self.gateway_queue.push(n);
        }
    }

    fn listener_set(&mut self, n: NameRef<'a>) {
        if self.listener_sets.insert(n) {
            self.set_queue.push(n);
        }
    }

    /// Route `key`, stored as `current` in the snapshot (`None`: removed).
    fn route(&mut self, key: RouteRef<'a>, current: Option<&'a Arc<AnyResource>>) {
        if let std::collections::btree_map::Entry::Vacant(e) = self.routes.entry(key) {
            e.insert(current);
            if let Some(r) = current {
                self.route_queue.push(r);
            }
        }
    }

    /// The routes of the snapshot with a parentRef naming `parent`.
    fn routes_for(&mut self, snapshot: &'a Snapshot, parent: &ParentKey) {
        for r in snapshot.routes_for_parent_shared(parent) {
            let meta = r.metadata();
            self.route((r.kind(), meta.namespace_or_default(), &meta.name), Some(r));
        }
    }

    /// The Services, Gateways and ListenerSets a route names as parents ([`Scope::add_parents`]).
    fn parents_of(&mut self, route: &'a AnyResource) {
        let Some(view) = route.as_route() else { return };
        let ns = view.metadata.namespace_or_default();
        for p in view.parent_refs {
            let (group, n) = (p.group_or_default(), (p.namespace_or(ns), p.name.as_str()));
            match p.kind_or_default() {
                // the core group, and `core` (read as core under `core_group_alias`)
                "Service" if group.is_empty() || group == "core" => self.service(n),
                "Gateway" if group == gamma_model::gateway::GROUP => self.gateway(n),
                "ListenerSet" if group == gamma_model::gateway::GROUP => self.listener_set(n),
                // other kinds never attach, whatever exists
                _ => {}
            }
        }
    }

    /// The Services and Gateways bound at any of `ips` (one address can bind several: the
    /// first in canonical order wins, so they are rebuilt together).
    fn sharing(&mut self, snapshot: &'a Snapshot, ips: &[IpAddr]) {
        if ips.is_empty() {
            return;
        }
        for ip in ips {
            for svc in snapshot.services_by_ip(*ip) {
                self.service((svc.metadata.namespace_or_default(), &svc.metadata.name));
            }
        }
        for gw in snapshot.gateways() {
            if crate::lower::gateway_addresses(gw)
                .iter()
                .any(|a| ips.contains(a))
            {
                self.gateway((gw.metadata.namespace_or_default(), &gw.metadata.name));
            }
        }
    }
}

/// Closes a scope: every route of a frontend in it, every parent of a route in it, every
/// frontend bound at an address of one in it. `None` past `limit` routes. With the scope, the
/// stored object of each of its routes, in order (`None`: removed).
fn close<'a>(
    snapshot: &'a Snapshot,
    seeds: &'a Scope,
    previous: &'a [&'a AnyResource],
    limit: usize,
    core_group_alias: bool,
) -> Option<(Scope, Vec<Option<&'a Arc<AnyResource>>>)> {
    // `group: core` names a Service only under `BuildOptions::core_group_alias`
    let groups: &[&str] = if core_group_alias {
        &["", "core"]
    } else {
        &[""]
    };
    let limit = limit.max(64);
    let mut c = Closing::default();
    for (ns, name) in &seeds.services {
        c.service((ns, name));
    }
    for (ns, name) in &seeds.gateways {
        c.gateway((ns, name));
    }
    for (ns, name) in &seeds.listener_sets {
        c.listener_set((ns, name));
    }
    for k in &seeds.routes {
        c.route((k.kind, &k.namespace, &k.name), snapshot.get_shared(k));
    }
    loop {
        if c.routes.len() > limit {
            return None;
        }
        if let Some(r) = c.route_queue.pop() {
            c.parents_of(r);
        } else if let Some((ns, name)) = c.service_queue.pop() {
            for g in groups {
                let key = ParentKey {
                    group: (*g).into(),
                    kind: "Service".into(),
                    namespace: ns.into(),
                    name: name.into(),
                };
                c.routes_for(snapshot, &key);
            }
            let mut ips = Vec::new();
            for svc in
                previous_or_current(previous, ns, name, as_service, snapshot.service(ns, name))
            {
                ips.extend(svc.frontend_ips());
            }
            c.sharing(snapshot, &ips);
        } else if let Some((ns, name)) = c.gateway_queue.pop() {
            c.routes_for(snapshot, &ParentKey::gateway(ns, name));
            let mut ips = Vec::new();
            for gw in
                previous_or_current(previous, ns, name, as_gateway, snapshot.gateway(ns, name))
            {
                ips.extend(crate::lower::gateway_addresses(gw));
            }
            c.sharing(snapshot, &ips);
            // its ListenerSets: the Gateway's listeners are merged with theirs (GEP-1713)
            for ls in snapshot.listener_sets() {
                if listener_set_parent(ls) == (ns, name) {
                    c.listener_set((ls.metadata.namespace_or_default(), &ls.metadata.name));
                }
            }
        } else if let Some((ns, name)) = c.set_queue.pop() {
            // its routes, and the Gateway it joins (as it was and as it is)
            c.routes_for(
                snapshot,
                &ParentKey {
                    group: gamma_model::gateway::GROUP.into(),
                    kind: "ListenerSet".into(),
                    namespace: ns.into(),
                    name: name.into(),
                },
            );
            for ls in previous_or_current(
                previous,
                ns,
                name,
                as_listener_set,
                snapshot.listener_set(ns, name),
            ) {
                c.gateway(listener_set_parent(ls));
            }
        } else {
            break;
        }
    }
    let owned = |s: &BTreeSet<NameRef<'_>>| -> BTreeSet<(String, String)> {
        s.iter()
            .map(|(ns, name)| ((*ns).to_string(), (*name).to_string()))
            .collect()
    };
    let mut scope = Scope {
        services: owned(&c.services),
        gateways: owned(&c.gateways),
        listener_sets: owned(&c.listener_sets),
        routes: BTreeSet::new(),
        route_ids: BTreeSet::new(),
    };
    let mut current = Vec::with_capacity(c.routes.len());
    for ((kind, ns, name), r) in c.routes {
        scope.routes.insert(ObjectKey::new(kind, ns, name));
        if let Some(route_kind) = RouteKind::ALL
            .into_iter()
            .find(|r| r.resource_kind() == kind)
        {
            scope
                .route_ids
                .insert((route_kind, ns.to_string(), name.to_string()));
        }
        current.push(r);
    }
    Some((scope, current))
}

/// Object `ns/name` of one kind as it was (among `previous`, those `pick` takes) and as it is
/// (`current`, the snapshot's).
fn previous_or_current<'a, T>(
    previous: &'a [&'a AnyResource],
    ns: &'a str,
    name: &'a str,
    pick: fn(&'a AnyResource) -> Option<&'a T>,
    current: Option<&'a T>,
) -> impl Iterator<Item = &'a T> {
    previous
        .iter()
        .filter(move |r| {
            let meta = r.metadata();
            meta.name == name && meta.namespace_or_default() == ns
        })
        .filter_map(move |r| pick(r))
        .chain(current)
}

fn as_service(r: &AnyResource) -> Option<&gamma_model::k8s::Service> {
    match r {
        AnyResource::Service(s) => Some(s),
        _ => None,
    }
}

fn as_gateway(r: &AnyResource) -> Option<&gamma_model::gateway::Gateway> {
    match r {
        AnyResource::Gateway(g) => Some(g),
        _ => None,
    }
}

fn as_listener_set(r: &AnyResource) -> Option<&gamma_model::gateway::ListenerSet> {
    match r {
        AnyResource::ListenerSet(l) => Some(l),
        _ => None,
    }
}

/// The keys a Service's frontends bind.
fn service_keys(snapshot: &Snapshot, svc: &gamma_model::k8s::Service, out: &mut Vec<Key>) {
    let s = crate::lower::lower_service(snapshot, svc);
    for ip in &s.cluster_ips {
        out.extend(s.ports.iter().map(|p| (*ip, p.port, p.protocol)));
    }
}

/// The keys a Gateway's listeners bind.
fn gateway_keys(snapshot: &Snapshot, gw: &gamma_model::gateway::Gateway, out: &mut Vec<Key>) {
    let g = crate::lower::lower_gateway(snapshot, gw);
    for ip in &g.addresses {
        out.extend(g.listeners.iter().map(|l| {
            let l4 = if l.protocol == ListenerProtocol::Udp {
                L4::Udp
            } else {
                L4::Tcp
            };
            (*ip, l.port, l4)
        }));
    }
}

/// The key and stored object of each route of an input, in input order.
type Objects = Vec<(ObjectKey, Arc<AnyResource>)>;

/// The input of a scope: its Services, Gateways and ListenerSets, the Services its routes
/// name as backends (for backend validity), every ReferenceGrant (`TableInput::routes`
/// empty); its routes (shared from `parts` when one kept a route lowered from the object the
/// snapshot holds, else lowered), with the stored object of each route and the rules the
/// build reads in place (in the same order).
fn scope_input<'s>(
    snapshot: &'s Snapshot,
    scope: &Scope,
    current: &[Option<&'s Arc<AnyResource>>],
    opts: &gamma_model::validate::ValidateOptions,
    regexes: &mut RegexPool,
    parts: &[Arc<Part>],
) -> (TableInput, Vec<Arc<RouteIr>>, Objects, WireRules<'s>) {
    let mut input = TableInput::default();
    let mut routes = Vec::with_capacity(current.len());
    let mut objects = Vec::with_capacity(current.len());
    let mut wire = Vec::with_capacity(current.len());
    let kept: Vec<&Lowered> = parts.iter().map(|p| &p.lowered).collect();
    for (k, current) in scope.routes.iter().zip(current) {
        let Some(current) = current else {
            continue;
        };
        if let Some((ir, in_place)) = kept_route(&kept, opts.as_bundle(), k, current) {
            routes.push(Arc::clone(ir));
            objects.push((k.clone(), Arc::clone(current)));
            wire.push(
                in_place
                    .then(|| crate::lower::rules_in_place(current))
                    .flatten(),
            );
            continue;
        }
        // with the snapshot's kept verdict, as a full build: an unchanged route is not
        // validated again
        if let Some((r, valid)) = snapshot.validated_route(k, opts)
            && let Some((ir, rules)) = crate::lower::lower_for_reading(r, opts, valid, regexes)
        {
            routes.push(Arc::new(ir));
            objects.push((k.clone(), Arc::clone(r)));
            wire.push(rules);
        }
    }
    let mut services: BTreeSet<NameRef<'_>> = scope
        .services
        .iter()
        .map(|(ns, name)| (ns.as_str(), name.as_str()))
        .collect();
    for r in Routes::shared(&routes, &wire).iter() {
        for rule in r.rules.iter() {
            let filters =
                std::iter::once(rule.filters).chain(rule.backends.iter().map(|b| b.filters));
            let mirrors = filters.flat_map(|f| f.mirrors.iter().map(|m| &m.backend));
            for (ns, name) in rule
                .backends
                .iter()
                .map(|b| (b.namespace, b.name))
                .chain(mirrors.map(|b| (&*b.namespace, b.name.as_str())))
            {
                services.insert((ns, name));
            }
        }
    }
    // in snapshot order, as a full build reads them
    for (ns, name) in services {
        if let Some(svc) = snapshot.service(ns, name) {
            input
                .services
                .push(crate::lower::lower_service(snapshot, svc));
        }
    }
    for (ns, name) in &scope.gateways {
        if let Some(gw) = snapshot.gateway(ns, name) {
            input
                .gateways
                .push(crate::lower::lower_checked_gateway(snapshot, gw, opts));
        }
    }
    for (ns, name) in &scope.listener_sets {
        if let Some(ls) = snapshot.listener_set(ns, name) {
            input
                .listener_sets
                .push(crate::lower::lower_checked_listener_set(snapshot, ls, opts));
        }
    }
    for g in snapshot.reference_grants() {
        input.grants.push(crate::lower::lower_grant(g));
    }
    // which policy each backend uses, and whether its CA references resolve
    crate::lower::lower_backend_tls(snapshot, opts, &mut input);
    (input, routes, objects, wire)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAPSHOT: &str = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: app}\n\
        spec: {clusterIP: 10.96.0.1, ports: [{port: 80}]}\n";

    /// Upserts HTTPRoute `app/name` on Service `web` matching `path`; the object it replaced.
    fn upsert(snapshot: &mut Snapshot, name: &str, path: &str) -> Option<Arc<AnyResource>> {
        let yaml = format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
             metadata: {{name: {name}, namespace: app}}\n\
             spec: {{parentRefs: [{{kind: Service, group: \"\", name: web}}], \
             rules: [{{matches: [{{path: {{type: PathPrefix, value: {path}}}}}], \
             backendRefs: [{{name: web, port: 80}}]}}]}}\n"
        );
        let mut previous = None;
        for r in gamma_model::decode(&yaml).unwrap_or_default() {
            previous = snapshot.upsert(r);
        }
        previous
    }

    /// The kept lowered form of route `name` in the newest part keeping it.
    fn kept(t: &RouteTable, name: &str) -> Option<Arc<RouteIr>> {
        let key = ObjectKey::new(ResourceKind::HttpRoute, "app", name);
        t.parts
            .iter()
            .rev()
            .find_map(|p| p.lowered.entry(&key))
            .map(|(_, ir, _)| Arc::clone(ir))
    }

    /// Whether `a` and `b` keep route `name` as the same lowered form (not lowered again).
    fn same_kept(a: &RouteTable, b: &RouteTable, name: &str) -> bool {
        kept(a, name)
            .zip(kept(b, name))
            .is_some_and(|(x, y)| Arc::ptr_eq(&x, &y))
    }

    /// Whether `t` decides requests to `web` for `paths` as a table built from scratch, and
    /// reports the same parent conditions.
    fn agrees_with_scratch(t: &RouteTable, snapshot: &Snapshot, options: &BuildOptions) -> bool {
        let scratch = RouteTable::build(snapshot, options);
        let ip = IpAddr::from([10, 96, 0, 1]);
        let decisions = |t: &RouteTable| -> Vec<String> {
            ["/a", "/a2", "/a3", "/b", "/c", "/x"]
                .iter()
                .map(|p| {
                    let req = crate::Request::http(ip, 80, "GET", p);
                    format!("{:?}", t.resolve(&req, 1))
                })
                .collect()
        };
        decisions(t) == decisions(&scratch) && t.parent_conditions() == scratch.parent_conditions()
    }

    fn snapshot_with(routes: &[(&str, &str)]) -> Snapshot {
        let mut snapshot =
            Snapshot::from_resources(gamma_model::decode(SNAPSHOT).unwrap_or_default());
        for (name, path) in routes {
            upsert(&mut snapshot, name, path);
        }
        snapshot
    }

    // With the option on, a full build keeps every route lowered, and an update lowers only
    // the route that changed: whichever route of a Service changes first (cold), its other
    // routes are the full build's, and a later change of another route takes the changed one
    // from the update that lowered it.
    #[test]
    fn with_kept_routes_an_update_lowers_only_the_changed_route() {
        let mut snapshot = snapshot_with(&[("a", "/a"), ("b", "/b"), ("c", "/c")]);
        let options = BuildOptions::default().with_keep_lowered_routes(true);
        let full = RouteTable::build(&snapshot, &options);
        assert_eq!(full.parts[0].lowered.len(), 3, "every route kept");
        let key_a = ObjectKey::new(ResourceKind::HttpRoute, "app", "a");
        let previous = upsert(&mut snapshot, "a", "/a2");
        let first = full.update(&snapshot, &options, &key_a, previous.as_deref());
        assert!(same_kept(&first, &full, "b") && same_kept(&first, &full, "c"));
        assert!(
            !same_kept(&first, &full, "a"),
            "the changed route was lowered again"
        );
        assert!(agrees_with_scratch(&first, &snapshot, &options));
        let key_b = ObjectKey::new(ResourceKind::HttpRoute, "app", "b");
        let previous = upsert(&mut snapshot, "b", "/b2");
        let second = first.update(&snapshot, &options, &key_b, previous.as_deref());
        assert!(same_kept(&second, &first, "a") && same_kept(&second, &full, "c"));
        assert!(!same_kept(&second, &first, "b"));
        assert!(agrees_with_scratch(&second, &snapshot, &options));
        // without the option the full build keeps none, and the first update lowers all three
        let default = BuildOptions::default();
        let full = RouteTable::build(&snapshot, &default);
        assert_eq!(full.parts[0].lowered.len(), 0);
        let previous = upsert(&mut snapshot, "a", "/a3");
        let next = full.update(&snapshot, &default, &key_a, previous.as_deref());
        assert_eq!(next.parts.last().map(|p| p.lowered.len()), Some(3));
        assert!(agrees_with_scratch(&next, &snapshot, &default));
    }

    // A kept route lowered from an object the snapshot no longer holds is never used: the
    // full build's part still keeps route a as it was after an update replaced it, and
    // neither a later update nor a build reusing the table reads it (they decide `/a3` and
    // `/a` as a build from scratch does).
    #[test]
    fn a_stale_kept_route_is_never_used() {
        let mut snapshot = snapshot_with(&[("a", "/a"), ("b", "/b")]);
        let options = BuildOptions::default().with_keep_lowered_routes(true);
        let full = RouteTable::build(&snapshot, &options);
        let stale = kept(&full, "a");
        let key_a = ObjectKey::new(ResourceKind::HttpRoute, "app", "a");
        let previous = upsert(&mut snapshot, "a", "/a3");
        let first = full.update(&snapshot, &options, &key_a, previous.as_deref());
        // the full build's part is shared, and still holds the old lowering of a
        assert!(Arc::ptr_eq(&first.parts[0], &full.parts[0]));
        let old = first.parts[0].lowered.entry(&key_a).map(|(_, ir, _)| ir);
        assert!(
            old.zip(stale.as_ref())
                .is_some_and(|(x, y)| Arc::ptr_eq(x, y))
        );
        let key_b = ObjectKey::new(ResourceKind::HttpRoute, "app", "b");
        let previous = upsert(&mut snapshot, "b", "/b2");
        let second = first.update(&snapshot, &options, &key_b, previous.as_deref());
        assert!(
            same_kept(&second, &first, "a"),
            "a from the update that lowered it"
        );
        assert!(
            !kept(&second, "a")
                .zip(stale.as_ref())
                .is_some_and(|(x, y)| Arc::ptr_eq(&x, y))
        );
        assert!(agrees_with_scratch(&second, &snapshot, &options));
        // a whole build reusing the oldest table: a is stale there, b too
        let rebuilt = RouteTable::build_reusing(&snapshot, &options, &full);
        assert!(!same_kept(&rebuilt, &full, "a") && !same_kept(&rebuilt, &full, "b"));
        assert!(agrees_with_scratch(&rebuilt, &snapshot, &options));
    }

    // A whole build reusing a table that keeps its routes takes those of unchanged objects
    // (the same lowered form) and lowers the others; routes kept under another validation
    // channel are never taken.
    #[test]
    fn a_build_reusing_a_table_takes_its_kept_routes_of_unchanged_objects() {
        let mut snapshot = snapshot_with(&[("a", "/a"), ("b", "/b"), ("c", "/c")]);
        let options = BuildOptions::default().with_keep_lowered_routes(true);
        let full = RouteTable::build(&snapshot, &options);
        upsert(&mut snapshot, "b", "/b2");
        let rebuilt = RouteTable::build_reusing(&snapshot, &options, &full);
        assert_eq!(rebuilt.parts.len(), 1);
        assert!(same_kept(&rebuilt, &full, "a") && same_kept(&rebuilt, &full, "c"));
        assert!(!same_kept(&rebuilt, &full, "b"));
        assert!(agrees_with_scratch(&rebuilt, &snapshot, &options));
        let other = options
            .clone()
            .with_channel(gamma_model::validate::Channel::Experimental);
        let elsewhere = RouteTable::build_reusing(&snapshot, &other, &rebuilt);
        assert!(!same_kept(&elsewhere, &rebuilt, "a"));
        assert!(agrees_with_scratch(&elsewhere, &snapshot, &other));
    }

    // The kept lowered routes are part of the immutable table: two updates from one table
    // both reuse them (the same `Arc`, not lowered again), and the table needs no lock to be
    // shared between threads.
    #[test]
    fn every_update_from_one_table_reuses_its_lowered_routes() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<RouteTable>();
        let mut snapshot =
            Snapshot::from_resources(gamma_model::decode(SNAPSHOT).unwrap_or_default());
        upsert(&mut snapshot, "a", "/a");
        upsert(&mut snapshot, "b", "/b");
        let options = BuildOptions::default();
        let full = RouteTable::build(&snapshot, &options);
        assert_eq!(full.parts[0].lowered.len(), 0, "a full build keeps none");
        let key = ObjectKey::new(ResourceKind::HttpRoute, "app", "a");
        let previous = upsert(&mut snapshot, "a", "/a2");
        let first = full.update(&snapshot, &options, &key, previous.as_deref());
        assert_eq!(
            first.parts.last().map(|p| p.lowered.len()),
            Some(2),
            "the scope: both routes of web"
        );
        let previous = upsert(&mut snapshot, "a", "/a3");
        let one = first.update(&snapshot, &options, &key, previous.as_deref());
        let two = first.update(&snapshot, &options, &key, previous.as_deref());
        let kept_b = kept(&first, "b");
        assert!(kept_b.is_some());
        for t in [&one, &two] {
            let b = kept(t, "b");
            assert!(
                b.as_ref()
                    .zip(kept_b.as_ref())
                    .is_some_and(|(x, y)| Arc::ptr_eq(x, y)),
                "route b was reused, not lowered again"
            );
            // the changed route was lowered again
            assert!(
                !kept(t, "a")
                    .zip(kept(&first, "a"))
                    .is_some_and(|(x, y)| Arc::ptr_eq(&x, &y))
            );
        }
        let scratch = RouteTable::build(&snapshot, &options);
        for t in [&one, &two] {
            assert_eq!(t.parent_conditions(), scratch.parent_conditions());
        }
    }
}
