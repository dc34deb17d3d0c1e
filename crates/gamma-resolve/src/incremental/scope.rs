//! The scope of one change: what it affects ([`effect`]), closed so that every route has all
//! its parents in it and every frontend all its routes ([`close`]).

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::sync::Arc;

use gamma_model::{AnyResource, ObjectKey, ParentKey, ResourceKind, RouteKind, Snapshot};

use crate::input::{L4, ListenerProtocol};
use crate::table::{BuildOptions, Frontend, Key, NameKeys, RouteKeys, Scope, ScopeRoute};

use super::probe::Probe;
use super::*;

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
/// - XTelemetryPolicy: tracing settings, which no route decision depends on;
/// - XMesh and the SMI kinds: read by the arbiter and the SMI conversion (ownership changes
///   arrive as route changes);
/// - Pod, XAuthorizationPolicy: read only by authorization (`gamma-authz`), never by routing.
fn never_read(kind: ResourceKind) -> bool {
    matches!(
        kind,
        ResourceKind::GatewayClass
            | ResourceKind::XBackend
            | ResourceKind::XBackendTrafficPolicy
            | ResourceKind::XTelemetryPolicy
            | ResourceKind::XMesh
            | ResourceKind::TrafficSplit
            | ResourceKind::HttpRouteGroup
            | ResourceKind::SmiTcpRoute
            | ResourceKind::SmiUdpRoute
            | ResourceKind::TrafficTarget
            | ResourceKind::Pod
            | ResourceKind::XAuthorizationPolicy
    )
}

/// The changed object's key, the object as it was and as the snapshot holds it now (`None`:
/// absent), looked up once per update.
pub(super) struct Changed<'a> {
    pub(super) key: &'a ObjectKey,
    /// The object the change replaced.
    pub(super) previous: Option<&'a AnyResource>,
    /// The snapshot's object of the changed key.
    pub(super) current: Option<&'a Arc<AnyResource>>,
}

impl<'a> Changed<'a> {
    /// The objects the change replaced (none or one) of `changed` (none for a merge).
    pub(super) fn previous<'c>(changed: Option<&'c Changed<'a>>) -> &'c [&'a AnyResource] {
        changed.map_or(&[], |c| c.previous.as_slice())
    }
}

/// What a change seeds.
pub(super) fn effect(snapshot: &Snapshot, options: &BuildOptions, changed: &Changed<'_>) -> Effect {
    let key = changed.key;
    if never_read(key.kind) {
        return Effect::Nothing;
    }
    let mut s = Scope::default();
    let (previous, current) = (changed.previous, changed.current.map(|c| &**c));
    match key.kind {
        k if is_route_kind(k) => {
            // the route, its old parents and its new parents (and, by closure, the routes
            // competing with it there)
            s.routes.insert(match changed.current {
                Some(r) => ScopeRoute::Stored(Arc::clone(r)),
                None => ScopeRoute::Key(key.clone()),
            });
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
                    .map(ScopeRoute::key_of),
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
                        .map(ScopeRoute::key_of),
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
                    .map(ScopeRoute::key_of),
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
            // read through BackendTLSPolicy caCertificateRefs (in the policy's namespace): the
            // backends of the policies naming it
            for p in snapshot.backend_tls_policies() {
                let names_it = p.metadata.namespace_or_default() == key.namespace
                    && p.spec.validation.ca_refs().iter().any(|c| {
                        crate::lower::is_core_config_map(&c.group, &c.kind) && c.name == key.name
                    });
                if names_it {
                    policy_backends(snapshot, p, &mut s);
                }
            }
            // and Gateway `spec.infrastructure.parametersRef` (in the Gateway's namespace):
            // whether it exists decides `InvalidParameters`; and Gateway frontend TLS
            // `caCertificateRefs` (in any namespace a ReferenceGrant opens): they decide its
            // HTTPS listeners' `ResolvedRefs` and `Accepted`
            for gw in snapshot.gateways() {
                let frontend =
                    crate::lower::frontend_tls::names_config_map(gw, &key.namespace, &key.name);
                let names_it = frontend
                    || gw.metadata.namespace_or_default() == key.namespace
                        && gw
                            .spec
                            .infrastructure
                            .as_ref()
                            .and_then(|i| i.parameters_ref.as_ref())
                            .is_some_and(|r| {
                                crate::lower::is_core_config_map(&r.group, &r.kind)
                                    && r.name == key.name
                            });
                if names_it {
                    s.gateways.insert((
                        gw.metadata.namespace_or_default().to_owned(),
                        gw.metadata.name.clone(),
                    ));
                }
            }
        }
        ResourceKind::ClusterTrustBundle => {
            // read through BackendTLSPolicy caCertificateRefs (GEP-5075; cluster-scoped, by
            // name, from any namespace): the backends of the policies naming it
            for p in snapshot.backend_tls_policies() {
                let names_it = p.spec.validation.ca_refs().iter().any(|c| {
                    gamma_model::k8s::is_cluster_trust_bundle(&c.group, &c.kind)
                        && c.name == key.name
                });
                if names_it {
                    policy_backends(snapshot, p, &mut s);
                }
            }
            // and Gateway frontend TLS caCertificateRefs: the Gateways naming it
            for gw in snapshot.gateways() {
                if crate::lower::frontend_tls::names_cluster_trust_bundle(gw, &key.name) {
                    s.gateways.insert((
                        gw.metadata.namespace_or_default().to_owned(),
                        gw.metadata.name.clone(),
                    ));
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
            s.routes.extend(
                snapshot
                    .routes_for_backend(ns, &t.name)
                    .map(ScopeRoute::key_of),
            );
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
pub(super) type NameRef<'a> = (&'a str, &'a str);

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
        for (kind, ns, name) in crate::table::frontend_parents(route) {
            match kind {
                Frontend::Service => self.service((ns, name)),
                Frontend::Gateway => self.gateway((ns, name)),
                Frontend::ListenerSet => self.listener_set((ns, name)),
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
            for k in snapshot.service_keys_by_ip(*ip) {
                self.service((&k.namespace, &k.name));
            }
        }
        for ip in ips {
            for k in snapshot.gateway_keys_by_ip(*ip) {
                self.gateway((&k.namespace, &k.name));
            }
        }
    }
}

/// Closes a scope: every route of a frontend in it, every parent of a route in it, every
/// frontend bound at an address of one in it. `None` past `limit` routes. With the scope, the
/// stored object of each of its routes, in order (`None`: removed).
pub(super) fn close<'a>(
    snapshot: &'a Snapshot,
    seeds: &'a Scope,
    changed: Option<&'a Changed<'a>>,
    limit: usize,
    core_group_alias: bool,
    probe: &mut Probe<'a>,
) -> Option<(Scope, Vec<Option<&'a Arc<AnyResource>>>)> {
    // `group: core` names a Service only under `BuildOptions::core_group_alias`
    let groups: &[&str] = if core_group_alias {
        &["", "core"]
    } else {
        &[""]
    };
    let limit = limit.max(64);
    let previous = Changed::previous(changed);
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
        let (kind, ns, name) = k.id();
        // the changed route was looked up already; a seed stored may be older than the
        // snapshot's (a merge's seeds are earlier scopes)
        let current = match changed {
            Some(c) if (c.key.kind, &*c.key.namespace, &*c.key.name) == (kind, ns, name) => {
                c.current
            }
            _ => probe.route(snapshot, (kind, ns, name)),
        };
        c.route((kind, ns, name), current);
    }
    loop {
        if c.routes.len() > limit {
            return None;
        }
        if let Some(r) = c.route_queue.pop() {
            c.parents_of(r);
        } else if let Some((ns, name)) = c.service_queue.pop() {
            for g in groups {
                c.routes_for(snapshot, probe.parent(g, "Service", (ns, name)));
            }
            let mut ips = Vec::new();
            for svc in service_then_and_now(previous, snapshot, probe, (ns, name)) {
                ips.extend(svc.frontend_ips());
            }
            c.sharing(snapshot, &ips);
        } else if let Some((ns, name)) = c.gateway_queue.pop() {
            let gateway = probe.parent(gamma_model::gateway::GROUP, "Gateway", (ns, name));
            c.routes_for(snapshot, gateway);
            let mut ips = Vec::new();
            for gw in
                previous_or_current(previous, ns, name, as_gateway, snapshot.gateway(ns, name))
            {
                ips.extend(gw.frontend_addresses());
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
            let set = probe.parent(gamma_model::gateway::GROUP, "ListenerSet", (ns, name));
            c.routes_for(snapshot, set);
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
    let owned = |s: &BTreeSet<NameRef<'_>>| -> NameKeys {
        NameKeys::from_sorted(
            s.iter()
                .map(|(ns, name)| ((*ns).to_string(), (*name).to_string()))
                .collect(),
        )
    };
    let scope = Scope {
        services: owned(&c.services),
        gateways: owned(&c.gateways),
        listener_sets: owned(&c.listener_sets),
        // in key order already: the set is built from the sorted run, not by searches; a
        // stored route is shared, not its names copied
        routes: RouteKeys::from_sorted(
            c.routes
                .iter()
                .map(|((kind, ns, name), current)| match current {
                    Some(r) => ScopeRoute::Stored(Arc::clone(r)),
                    None => ScopeRoute::Key(ObjectKey::new(*kind, *ns, *name)),
                })
                .collect(),
        ),
    };
    let current = c.routes.into_values().collect();
    Some((scope, current))
}

/// Object `ns/name` of one kind as it was (among `previous`, those `pick` takes) and as it is
/// (`current`, the snapshot's).
pub(super) fn previous_or_current<'a, 'n, T>(
    previous: &'a [&'a AnyResource],
    ns: &'n str,
    name: &'n str,
    pick: fn(&'a AnyResource) -> Option<&'a T>,
    current: Option<&'a T>,
) -> impl Iterator<Item = &'a T> + use<'a, 'n, T> {
    previous
        .iter()
        .filter(move |r| {
            let meta = r.metadata();
            meta.name == name && meta.namespace_or_default() == ns
        })
        .filter_map(move |r| pick(r))
        .chain(current)
}

/// Service `ns/name` as it was (among `previous`) and as it is in `snapshot`.
pub(super) fn service_then_and_now<'a, 'n>(
    previous: &'a [&'a AnyResource],
    snapshot: &'a Snapshot,
    probe: &mut Probe<'a>,
    (ns, name): NameRef<'n>,
) -> impl Iterator<Item = &'a gamma_model::k8s::Service> + use<'a, 'n> {
    let current = probe.service(snapshot, (ns, name));
    previous_or_current(previous, ns, name, as_service, current)
}

pub(super) fn as_service(r: &AnyResource) -> Option<&gamma_model::k8s::Service> {
    match r {
        AnyResource::Service(s) => Some(s),
        _ => None,
    }
}

pub(super) fn as_gateway(r: &AnyResource) -> Option<&gamma_model::gateway::Gateway> {
    match r {
        AnyResource::Gateway(g) => Some(g),
        _ => None,
    }
}

pub(super) fn as_listener_set(r: &AnyResource) -> Option<&gamma_model::gateway::ListenerSet> {
    match r {
        AnyResource::ListenerSet(l) => Some(l),
        _ => None,
    }
}

/// The keys a Service's frontends bind: its frontend addresses and ports, as
/// [`crate::lower::lower_service`] lowers them (without reading its EndpointSlices).
pub(super) fn service_keys(svc: &gamma_model::k8s::Service, out: &mut Vec<Key>) {
    for ip in svc.frontend_ips() {
        out.extend(crate::lower::service_ports(svc).map(|(_, port, l4)| (ip, port, l4)));
    }
}

/// The keys a Gateway's listeners bind.
pub(super) fn gateway_keys(
    snapshot: &Snapshot,
    gw: &gamma_model::gateway::Gateway,
    out: &mut Vec<Key>,
) {
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
