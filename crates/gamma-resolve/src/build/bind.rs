//! Bindings: every frontend address to its route sets. A Service's cluster IPs × port lead to
//! its producer and consumer sets (GEP-1294); a Gateway's addresses × port to its listeners, most
//! specific hostname first.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use crate::hash::Map;
use crate::hostname::ListenerSpecificity;
use crate::input::{L4, ListenerIr, ListenerProtocol};
use crate::listener_filter::{ListenerFilter, ListenerFilters};
use crate::table::{Binding, ExtensionRefs, ListenerEntry, RouteSet, SetLabel};

use super::attach::{Group, GwAttached, Owner, SvcAttached, group_key};
use super::{Builder, touch};

/// Every (address, port, transport) bound, to what it leads.
pub(super) type Bindings = Map<(IpAddr, u16, L4), Binding>;

impl<'i> Builder<'i> {
    /// Indexes every mesh group and binds it to each cluster IP of its Service × the port.
    /// Returns the bindings of the headless Services' ports (bound at their endpoints once the
    /// part exists, [`crate::MeshBinding::Workloads`]).
    pub(super) fn bind_services(
        &mut self,
        svc_attached: SvcAttached,
        sets: &mut Vec<RouteSet>,
        bindings: &mut Bindings,
    ) -> Vec<super::workload::Built> {
        let input = self.input;
        let routes = self.route_irs;
        let touch = touch::worth_it(routes.len());
        // headless Services' port bindings, by (Service, port, transport)
        let mut workload: BTreeMap<(usize, u16, L4), Binding> = BTreeMap::new();
        // Index mesh groups. Bindings: each cluster IP of the Service × the port.
        let SvcAttached { ids, mut lists } = svc_attached;
        // the bindings without consumers (most) share one empty list
        let no_consumers: Arc<[(Box<str>, u32)]> = Arc::from([]);
        let mut ids: Vec<_> = ids.into_iter().collect();
        ids.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (k, ((si, port_i, group), i)) in ids.iter().enumerate() {
            let (si, port_i, i) = (*si, *port_i, *i);
            // the first routes of the next contexts (most have one): see `touch`
            if touch {
                touch::ahead(
                    k,
                    |j| {
                        ids.get(j)
                            .and_then(|(_, l)| lists.get(*l as usize))
                            .and_then(|l| l.by_kind.iter().find_map(|v| v.first()))
                            .and_then(|a| routes.get(a.ri))
                    },
                    touch::match_level,
                );
            }
            let Some(attached) = lists.get_mut(i as usize).map(std::mem::take) else {
                continue;
            };
            let Some(svc) = input.services.get(si) else {
                continue;
            };
            let Some(port) = svc.ports.get(port_i) else {
                continue;
            };
            let label = SetLabel::Mesh {
                service: u32::try_from(si).unwrap_or(u32::MAX),
                port: port.port,
                consumer: group_key(group).map(|c| self.intern(&c)),
            };
            let set_id = u32::try_from(sets.len()).unwrap_or(u32::MAX);
            let set = self.index_set(attached, true, label, (si, port.port, group_key(group)));
            sets.push(set);
            let new = || Binding::Service {
                service: u32::try_from(si).unwrap_or(u32::MAX),
                port: port.port,
                producer: None,
                consumers: Arc::clone(&no_consumers),
                workload: svc.headless,
            };
            if svc.headless {
                // attached only under MeshBinding::Workloads
                let b = workload
                    .entry((si, port.port, port.protocol))
                    .or_insert_with(new);
                add_group(b, group, set_id);
            }
            for ip in &svc.cluster_ips {
                let b = bindings
                    .entry((*ip, port.port, port.protocol))
                    .or_insert_with(new);
                add_group(b, group, set_id);
            }
        }
        let mut out: BTreeMap<usize, super::workload::Built> = BTreeMap::new();
        for ((si, port, l4), b) in workload {
            let Some(svc) = input.services.get(si) else {
                continue;
            };
            out.entry(si)
                .or_insert_with(|| super::workload::Built {
                    service: (svc.namespace.as_str().into(), svc.name.as_str().into()),
                    ports: Vec::new(),
                    pairs: Vec::new(),
                    endpoints: svc.endpoints.clone(),
                })
                .ports
                .push((port, l4, b));
        }
        for (si, ri, pi) in std::mem::take(&mut self.workload_pairs) {
            if let (Some(w), Some(r)) = (out.get_mut(&si), self.route_irs.ir(ri)) {
                w.pairs.push((
                    r.kind,
                    r.namespace.as_str().into(),
                    r.name.as_str().into(),
                    pi,
                ));
            }
        }
        out.into_values().collect()
    }

    /// Indexes every Gateway listener and binds each Gateway address × port to its listeners.
    pub(super) fn bind_listeners(
        &mut self,
        mut gw_attached: GwAttached,
        sets: &mut Vec<RouteSet>,
        bindings: &mut Bindings,
    ) {
        let input = self.input;
        // Index Gateway listeners, grouped by (address, port, l4).
        // (specificity, (resource precedence, listener index), entry)
        type PortListeners = Vec<(ListenerSpecificity, (usize, usize), ListenerEntry)>;
        let mut gw_ports: BTreeMap<(usize, u16, L4), PortListeners> = BTreeMap::new();
        // Every listener is bound, with or without routes: HTTPRouteRule.matches, "When no
        // rules matching a request have been successfully attached to the parent a request is
        // coming from, a HTTP 404 status code MUST be returned" (an empty route set answers
        // 404, and rejects L4 connections); only an address nothing binds is passthrough. A
        // listener of an unsupported protocol serves nothing and is not bound.
        // Conflicted listeners are not accepted for processing either (Gateway API Listener
        // docs: "ALL indistinct Listeners must not be accepted").
        let merged = &self.merged;
        let own = input.gateways.iter().enumerate().flat_map(|(gi, gw)| {
            let conflicts = merged.gateway_conflicts.get(gi).map_or(&[][..], |c| &c[..]);
            gw.listeners
                .iter()
                .enumerate()
                .filter(move |(li, _)| crate::gateway_status::accepted(gw, conflicts, *li))
                .map(move |(li, l)| (gi, (0, li), Owner::Gateway(gi), l))
        });
        // GEP-1713: the listeners of an accepted ListenerSet are bound on its Gateway's
        // addresses, after the Gateway's own in listener precedence; conflicted ones are not
        let ls_status = &self.ls_status;
        let of_sets = merged.order.iter().enumerate().flat_map(|(gi, order)| {
            order.iter().enumerate().flat_map(move |(rank, &lsi)| {
                let accepted = ls_status.get(lsi).is_some_and(|s| s.is_accepted());
                input
                    .listener_sets
                    .get(lsi)
                    .filter(|_| accepted)
                    .into_iter()
                    .flat_map(|ls| ls.listeners.iter().enumerate())
                    .filter(move |(li, _)| {
                        crate::listener_set_status::listener_accepted(input, merged, lsi, *li)
                    })
                    .map(move |(li, l)| (gi, (rank + 1, li), Owner::Set(lsi), l))
            })
        });
        let listeners: Vec<_> = own.chain(of_sets).collect();
        for (gi, order, owner, l) in listeners {
            let attached = gw_attached.remove(&(owner, order.1)).unwrap_or_default();
            let label = match owner {
                Owner::Gateway(_) => SetLabel::Listener {
                    gateway: u32::try_from(gi).unwrap_or(u32::MAX),
                    listener: self.intern(&l.name),
                },
                Owner::Set(lsi) => SetLabel::ListenerSetListener {
                    listener_set: u32::try_from(lsi).unwrap_or(u32::MAX),
                    gateway: u32::try_from(gi).unwrap_or(u32::MAX),
                    listener: self.intern(&l.name),
                },
            };
            let set_id = u32::try_from(sets.len()).unwrap_or(u32::MAX);
            let mut set = self.index_set(attached, false, label, (usize::MAX, l.port, None));
            set.listener_filters = self.listener_filters(l);
            sets.push(set);
            let l4 = if l.protocol == ListenerProtocol::Udp {
                L4::Udp
            } else {
                L4::Tcp
            };
            gw_ports.entry((gi, l.port, l4)).or_default().push((
                ListenerSpecificity::of(l.hostname.as_deref()),
                order,
                ListenerEntry {
                    hostname: l.hostname.as_deref().map(Into::into),
                    set: set_id,
                    scheme: if l.protocol == ListenerProtocol::Https {
                        crate::request::Scheme::Https
                    } else {
                        crate::request::Scheme::Http
                    },
                },
            ));
        }
        for ((gi, port, l4), mut ls) in gw_ports {
            let Some(gw) = input.gateways.get(gi) else {
                continue;
            };
            // most specific listener first; listener precedence (the Gateway's own in spec order,
            // then its ListenerSets') breaks ties
            ls.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let entries: Arc<[ListenerEntry]> = ls.into_iter().map(|(_, _, e)| e).collect();
            for ip in &gw.addresses {
                // The first binding of an (address, port) in canonical order is kept.
                bindings
                    .entry((*ip, port, l4))
                    .or_insert_with(|| Binding::Gateway {
                        gateway: u32::try_from(gi).unwrap_or(u32::MAX),
                        listeners: Arc::clone(&entries),
                    });
            }
        }
    }
}

/// Adds a mesh group's route set to a Service port's binding.
fn add_group(b: &mut Binding, group: &Group, set_id: u32) {
    if let Binding::Service {
        producer,
        consumers,
        ..
    } = b
    {
        match group {
            Group::Producer => *producer = Some(set_id),
            Group::Consumer(ns) => {
                // kept sorted for the binary search; a later group of the same namespace
                // replaces the earlier one (as a map would)
                let mut v = consumers.to_vec();
                match v.binary_search_by(|(k, _)| (**k).cmp(ns.as_str())) {
                    Ok(i) => {
                        if let Some(e) = v.get_mut(i) {
                            e.1 = set_id;
                        }
                    }
                    Err(i) => v.insert(i, (ns.as_str().into(), set_id)),
                }
                *consumers = v.into();
            }
        }
    }
}

impl Builder<'_> {
    /// A listener's pre-routing filters (GEP-5224) as its route set keeps them: `ExtensionRef`
    /// filters follow [`BuildOptions::extension_refs`](crate::BuildOptions::extension_refs)
    /// as route `ExtensionRef` filters do (under `Reject` the engine cannot apply them, and
    /// never skips one silently: requests through the listener fail).
    fn listener_filters(&self, l: &ListenerIr) -> Option<Box<ListenerFilters>> {
        if l.filters.is_empty() {
            return None;
        }
        let extension = l
            .filters
            .iter()
            .any(|f| matches!(f, ListenerFilter::ExtensionRef { .. }));
        let applicable = !extension || self.options.extension_refs == ExtensionRefs::PassThrough;
        Some(Box::new(ListenerFilters::new(
            l.filters.clone(),
            applicable,
        )))
    }
}
