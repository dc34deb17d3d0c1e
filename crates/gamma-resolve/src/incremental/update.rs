//! Running an update: the scope of one change rebuilt into a new part, bindings and
//! statuses replaced, everything else shared with the previous table.

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::sync::{Arc, OnceLock};

use gamma_model::{AnyResource, ObjectKey, Snapshot};

use crate::build::{Builder, Routes};
use crate::input::{L4, TableInput};
use crate::lower::Lowered;
use crate::regex::RegexPool;
use crate::table::{BuildOptions, Covers, Key, RouteTable, Scope};

use super::input::*;
use super::probe::Probe;
use super::scope::*;
use super::*;

impl RouteTable {
    /// [`RouteTable::update`].
    pub(crate) fn updated(
        &self,
        snapshot: &Snapshot,
        options: &BuildOptions,
        key: &ObjectKey,
        previous: Option<&AnyResource>,
    ) -> RouteTable {
        if snapshot.secrets_complete() != self.secrets_complete
            || snapshot.cluster_trust_bundles_complete() != self.cluster_trust_bundles_complete
        {
            // every certificate (or ClusterTrustBundle CA) reference may change its verdict
            return RouteTable::build_reusing(snapshot, options, self);
        }
        let changed = Changed {
            key,
            previous,
            current: snapshot.get_shared(key),
        };
        if unseen::unseen(self, snapshot, options, &changed) {
            // status, labels, annotations: nothing the table reads
            return self.share();
        }
        let (seeds, rebind) = match effect(snapshot, options, &changed) {
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
            if !table.rebuild(snapshot, options, merged, None, limit) {
                return RouteTable::build_reusing(snapshot, options, self);
            }
            let last = table.parts.pop();
            table.parts.truncate(1);
            table.parts.extend(last);
        }
        if table.rebuild(snapshot, options, seeds, Some(&changed), limit) {
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
        let vopts = options.lowering();
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
                                let (kind, ns) =
                                    (info.kind.resource_kind(), p.route_namespace(info));
                                newer
                                    .iter()
                                    .any(|n| n.covers.contains(kind, ns, &info.name))
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
            cluster_trust_bundles_complete: self.cluster_trust_bundles_complete,
        }
    }

    /// Rebuilds the closure of `seeds` into a new part; `changed` is the change, its key and
    /// its object then and now (none for a merge): the old addresses of what it replaced are
    /// unbound. Routes `self` keeps lowered are reused
    /// when still current; the result keeps the scope's lowered routes. `false` when the
    /// scope has more than `limit` routes (a full build is cheaper).
    fn rebuild(
        &mut self,
        snapshot: &Snapshot,
        options: &BuildOptions,
        seeds: Scope,
        changed: Option<&Changed<'_>>,
        limit: usize,
    ) -> bool {
        let mut probe = Probe::new();
        let Some((scope, current)) = close(
            snapshot,
            &seeds,
            changed,
            limit,
            options.core_group_alias,
            &mut probe,
        ) else {
            return false;
        };
        let previous = Changed::previous(changed);
        let vopts = options.lowering();
        // the regexes and regex sets the table compiled already are taken, not compiled again
        let mut regexes = RegexPool::reusing(&self.parts);
        let (input, routes, objects, wire) = scope_input(
            snapshot,
            &scope,
            &current,
            &vopts,
            &mut regexes,
            &self.parts,
            &mut probe,
        );
        // the keys the scope's frontends were bound at, and are bound at now
        let mut old_keys: Vec<Key> = Vec::new();
        // and the ready endpoints the scope's headless Services claimed (as they were: their
        // EndpointSlices are as they are, an EndpointSlice change rebinds them first)
        let mut old_claims = Vec::new();
        for (ns, name) in &scope.services {
            for svc in service_then_and_now(previous, snapshot, &mut probe, (ns, name)) {
                service_keys(svc, &mut old_keys);
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
                gateway_ips.extend(gw.frontend_addresses());
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
                    .map(|((o, r), w)| (o, r, w.is_some())),
                options.hash_seed,
                options.bundles(),
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
            workloads.retain(|(ns, name), _| !scope.services.contains_name(ns, name));
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
                !scope
                    .routes
                    .contains_route(l.route.0.resource_kind(), &l.route.1, &l.route.2)
            });
            left_out.extend(built.left_out);
            left_out.sort_by(|a, b| a.route.cmp(&b.route));
        }
        self.statuses = OnceLock::new();
        self.parts.push(part);
        true
    }
}
