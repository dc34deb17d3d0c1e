//! Workload binding ([`MeshBinding::Workloads`], beyond the Gateway API spec; see
//! `docs/workloads.md`): the routes of a headless Service bound at the addresses of its ready
//! endpoints, on each Service port's `targetPort`.
//!
//! A headless Service's route sets are built like any Service's; what differs is where they
//! are bound. The build records, per headless Service with routes, the binding of each of its
//! ports (a [`Frontend`]), and *claims* every (endpoint address, target port, transport) for
//! it. A key claimed by one Service leads to its routes; a key claimed by several is a
//! [`Binding::Conflict`] naming them all (sorted by namespace and name, so the outcome does
//! not depend on input order), which resolves to
//! [`RespondReason::WorkloadConflict`](crate::RespondReason::WorkloadConflict). A key a cluster
//! IP or Gateway address already binds is never claimed over.
//!
//! Claims are kept in the table's bindings themselves, so an EndpointSlice change rebinds
//! one Service's claims (removing those at its old endpoints, adding those at its new ones)
//! from the frontends the table keeps, without building anything.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use gamma_model::k8s::{EndpointSlice, IntOrString, Service};
use gamma_model::{ObjectKey, RouteKind};

use crate::bindings::{Bindings, Key, Slot};
use crate::input::{EndpointIr, L4};
use crate::status::{ACCEPTED, ParentStatus, RouteCondition};
use crate::table::{Binding, Part};

/// Reason of `Accepted=False` when every endpoint a headless Service's routes would bind is
/// claimed by another headless Service too (the reason this crate uses for GEP-1294 route
/// type conflicts as well).
pub(crate) const CONFLICTED: &str = crate::status::CONFLICTED;

/// A Service by (namespace, name).
pub(crate) type ServiceName = (Box<str>, Box<str>);

/// A (route kind, namespace, name, parentRef index) pair.
pub(crate) type Pair = (RouteKind, Box<str>, Box<str>, usize);

/// Conflicted keys with the other claimants, by Service.
type ConflictsOf<'a> = BTreeMap<(&'a str, &'a str), Vec<(Key, Vec<(&'a str, &'a str)>)>>;

/// The ready endpoints of a headless Service on each of its ports (empty for any other
/// Service), from `slices` (those labelled with its name): every address of every ready
/// endpoint (EndpointSlice API: `conditions.ready` unset means ready) that parses as an IP
/// (`addressType: FQDN` slices bind nothing), on the port's `targetPort`: a number as is, a
/// name resolved per slice from the slice port of the Service port's name (the EndpointSlice
/// controller writes each Service port there under its name, with the target port resolved
/// for that slice's pods), and the Service port itself when `targetPort` is unset. Sorted,
/// without duplicates.
pub(crate) fn endpoints(svc: &Service, slices: &[&EndpointSlice]) -> Vec<EndpointIr> {
    let mut out = Vec::new();
    if !svc.is_headless() {
        return out;
    }
    for p in &svc.spec.ports {
        let protocol = match p.protocol.as_deref() {
            None | Some("TCP") => L4::Tcp,
            Some("UDP") => L4::Udp,
            Some(_) => continue,
        };
        let Ok(service_port) = u16::try_from(p.port) else {
            continue;
        };
        for slice in slices {
            let port = match &p.target_port {
                None => Some(service_port),
                Some(IntOrString::Int(n)) => u16::try_from(*n).ok(),
                Some(IntOrString::String(_)) => slice
                    .ports
                    .iter()
                    .find(|sp| {
                        sp.name.as_deref().unwrap_or("") == p.name.as_deref().unwrap_or("")
                            && sp.protocol.as_deref().unwrap_or("TCP")
                                == p.protocol.as_deref().unwrap_or("TCP")
                    })
                    .and_then(|sp| sp.port)
                    .and_then(|n| u16::try_from(n).ok()),
            };
            let Some(port) = port.filter(|n| *n != 0) else {
                continue;
            };
            for e in slice.endpoints.iter().filter(|e| e.is_ready()) {
                out.extend(
                    e.addresses
                        .iter()
                        .filter_map(|a| a.parse::<IpAddr>().ok())
                        .map(|address| EndpointIr {
                            address,
                            service_port,
                            port,
                            protocol,
                        }),
                );
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// [`endpoints`] of `svc` with the snapshot's slices, one of them (`slice`) replaced by
/// `with` (`None`: absent): the endpoints before an EndpointSlice change.
pub(crate) fn endpoints_with<'s>(
    snapshot: &'s gamma_model::Snapshot,
    svc: &Service,
    slice: &ObjectKey,
    with: Option<&'s EndpointSlice>,
) -> Vec<EndpointIr> {
    let ns = svc.metadata.namespace_or_default();
    let name = svc.metadata.name.as_str();
    let others = snapshot
        .endpoint_slices_for(ns, name)
        .filter(|s| !(s.metadata.name == slice.name && ns == slice.namespace));
    let with = with.filter(|s| s.service_name() == Some(name));
    let slices: Vec<&EndpointSlice> = others.chain(with).collect();
    endpoints(svc, &slices)
}

/// The bindings of one headless Service with routes: for each of its ports that has route
/// sets, the binding its endpoints on that port lead to.
#[derive(Debug)]
pub(crate) struct Frontends {
    /// The part the bindings' route sets live in.
    pub(crate) part: Arc<Part>,
    /// (Service port, transport, binding), sorted.
    pub(crate) ports: Box<[(u16, L4, Binding)]>,
    /// The (route kind, namespace, name, parentRef index) pairs attached to the Service, for
    /// their conditions, sorted.
    pub(crate) pairs: Box<[Pair]>,
}

/// What a build found for one headless Service with routes (before its part exists).
#[derive(Debug)]
pub(crate) struct Built {
    pub(crate) service: ServiceName,
    pub(crate) ports: Vec<(u16, L4, Binding)>,
    pub(crate) pairs: Vec<Pair>,
    /// Its ready endpoints.
    pub(crate) endpoints: Vec<EndpointIr>,
}

/// Every headless Service with routes, by name: what an EndpointSlice change rebinds from.
pub(crate) type Workloads = BTreeMap<ServiceName, Arc<Frontends>>;

/// The (namespace, name) of the Service a binding of `part` names.
fn service_of<'p>(part: &'p Part, b: &Binding) -> Option<(&'p str, &'p str)> {
    match b {
        Binding::Service { service, .. } => part
            .services
            .get(*service as usize)
            .map(|s| (&*s.namespace, part.text(s.name))),
        _ => None,
    }
}

/// Whether `slot` is a workload binding of Service `name`.
fn is_claim_of(slot: &Slot, name: (&str, &str)) -> bool {
    matches!(slot.1, Binding::Service { workload: true, .. })
        && service_of(&slot.0, &slot.1) == Some(name)
}

fn claim_name(slot: &Slot) -> (&str, &str) {
    service_of(&slot.0, &slot.1).unwrap_or(("", ""))
}

/// Claims `key` for the Service of `slot` (a workload binding): binds it if nothing is bound
/// there, makes (or extends) a conflict if another headless Service claims it, and leaves a
/// cluster IP's or Gateway's binding alone.
pub(crate) fn claim(bindings: &mut Bindings, key: Key, slot: Slot) {
    let (ns, n) = claim_name(&slot);
    let owned = (ns.to_owned(), n.to_owned());
    let name = (owned.0.as_str(), owned.1.as_str());
    let merged = match bindings.get(&key) {
        None => Some(slot),
        Some(old) if is_claim_of(old, name) => Some(slot),
        Some((_, Binding::Conflict { claims })) => {
            let mut v: Vec<Slot> = claims
                .iter()
                .filter(|c| !is_claim_of(c, name))
                .cloned()
                .collect();
            v.push(slot);
            conflict(v)
        }
        Some(old @ (_, Binding::Service { workload: true, .. })) => {
            conflict(vec![old.clone(), slot])
        }
        // a cluster IP or Gateway address binds it: never claimed over
        Some(_) => return,
    };
    if let Some(merged) = merged {
        bindings.insert(key, merged);
    }
}

/// The binding of several claims: a conflict sorted by Service name (one claim: itself;
/// none: `None`).
fn conflict(mut v: Vec<Slot>) -> Option<Slot> {
    v.sort_by(|a, b| claim_name(a).cmp(&claim_name(b)));
    if v.len() <= 1 {
        return v.pop();
    }
    // the conflict's own part is never read: each claim names its own
    let part = Arc::clone(&v.first()?.0);
    Some((
        part,
        Binding::Conflict {
            claims: v.into_boxed_slice(),
        },
    ))
}

/// Withdraws the claim of Service `name` on `key`, if it has one: what was bound before it
/// (the other claims) stays.
pub(crate) fn unclaim(bindings: &mut Bindings, key: &Key, name: (&str, &str)) {
    let rest = match bindings.get(key) {
        Some(old) if is_claim_of(old, name) => None,
        Some((_, Binding::Conflict { claims })) if claims.iter().any(|c| is_claim_of(c, name)) => {
            conflict(
                claims
                    .iter()
                    .filter(|c| !is_claim_of(c, name))
                    .cloned()
                    .collect(),
            )
        }
        _ => return,
    };
    match rest {
        None => bindings.remove(key),
        Some(slot) => bindings.insert(*key, slot),
    }
}

/// The keys a Service's endpoints are claimed at, with the binding of their Service port.
pub(crate) fn claims<'f>(
    frontends: &'f Frontends,
    endpoints: &'f [EndpointIr],
) -> impl Iterator<Item = (Key, &'f Binding)> + 'f {
    endpoints.iter().filter_map(|e| {
        let i = frontends
            .ports
            .binary_search_by(|(p, l4, _)| (*p, *l4).cmp(&(e.service_port, e.protocol)))
            .ok()?;
        let (_, _, b) = frontends.ports.get(i)?;
        Some(((e.address, e.port, e.protocol), b))
    })
}

/// Claims every endpoint of each built Service, in Service name order, and returns the
/// Services' frontends.
pub(crate) fn bind_all(
    bindings: &mut Bindings,
    part: &Arc<Part>,
    built: Vec<Built>,
    workloads: &mut Workloads,
) {
    for b in built {
        let mut ports = b.ports;
        ports.sort_by_key(|(p, l4, _)| (*p, *l4));
        let mut pairs = b.pairs;
        pairs.sort();
        pairs.dedup();
        let f = Arc::new(Frontends {
            part: Arc::clone(part),
            ports: ports.into_boxed_slice(),
            pairs: pairs.into_boxed_slice(),
        });
        for (key, binding) in claims(&f, &b.endpoints) {
            claim(bindings, key, (Arc::clone(part), binding.clone()));
        }
        workloads.insert(b.service, f);
    }
}

/// Rebinds the endpoints of Service `name`: its claims at `old` are withdrawn and it claims
/// `new` (an EndpointSlice change), with the frontends the table keeps for it.
pub(crate) fn rebind(
    bindings: &mut Bindings,
    workloads: &Workloads,
    name: (&str, &str),
    old: &[EndpointIr],
    new: &[EndpointIr],
) {
    for e in old {
        if new.binary_search(e).is_err() {
            unclaim(bindings, &(e.address, e.port, e.protocol), name);
        }
    }
    let Some(f) = workloads.get(&(Box::from(name.0), Box::from(name.1))) else {
        return;
    };
    // an endpoint it had and has keeps its claim as it is (each write copies a shard)
    let added: Vec<EndpointIr> = new
        .iter()
        .filter(|e| old.binary_search(e).is_err())
        .copied()
        .collect();
    for (key, binding) in claims(f, &added) {
        claim(bindings, key, (Arc::clone(&f.part), binding.clone()));
    }
}

/// Adds the workload conflicts to the `Accepted` conditions of the routes of every headless
/// Service some of whose endpoints another headless Service with routes claims too: the
/// message names them; when none of the Service's endpoints is bound to it alone,
/// `Accepted=False` with reason `Conflicted`.
pub(crate) fn add_conflicts(
    statuses: &mut [ParentStatus],
    bindings: &Bindings,
    workloads: &Workloads,
) {
    if workloads.is_empty() {
        return;
    }
    // per Service: keys bound to it alone, and conflicted keys with the other claimants
    let mut alone: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut conflicted: ConflictsOf<'_> = BTreeMap::new();
    for (key, slot) in bindings.iter() {
        match &slot.1 {
            Binding::Service { workload: true, .. } => {
                *alone.entry(claim_name(slot)).or_default() += 1;
            }
            Binding::Conflict { claims } => {
                let names: Vec<(&str, &str)> = claims.iter().map(claim_name).collect();
                for n in &names {
                    let others = names.iter().filter(|o| *o != n).copied().collect();
                    conflicted.entry(*n).or_default().push((*key, others));
                }
            }
            _ => {}
        }
    }
    for (name, mut keys) in conflicted {
        let Some(f) = workloads.get(&(Box::from(name.0), Box::from(name.1))) else {
            continue;
        };
        keys.sort();
        let listed: Vec<String> = keys
            .iter()
            .map(|((ip, port, _), others)| {
                let others: Vec<String> = others.iter().map(|(n, m)| format!("{n}/{m}")).collect();
                format!("{} (also {})", socket(*ip, *port), others.join(", "))
            })
            .collect();
        let none_alone = alone.get(&name).copied().unwrap_or(0) == 0;
        let text = format!(
            "{} ready endpoint(s) of headless Service {}/{} are ready endpoints of other headless \
             Services with routes too, and bind none of them: {}",
            keys.len(),
            name.0,
            name.1,
            listed.join("; ")
        );
        for (kind, ns, rname, pi) in f.pairs.iter() {
            let at = statuses.binary_search_by(|s| {
                (
                    s.kind,
                    s.namespace.as_str(),
                    s.name.as_str(),
                    s.parent_index,
                )
                    .cmp(&(*kind, &**ns, &**rname, *pi))
            });
            let Some(s) = at.ok().and_then(|i| statuses.get_mut(i)) else {
                continue;
            };
            if let Some(c) = s
                .conditions
                .iter_mut()
                .find(|c| c.type_ == ACCEPTED && c.status)
            {
                *c = if none_alone {
                    RouteCondition::new(ACCEPTED, false, CONFLICTED, text.clone())
                } else {
                    RouteCondition::new(
                        ACCEPTED,
                        true,
                        ACCEPTED,
                        format!("the route is accepted; {text}"),
                    )
                };
            }
        }
    }
}

/// `ip:port`, IPv6 in brackets.
pub(crate) fn socket(ip: IpAddr, port: u16) -> String {
    std::net::SocketAddr::new(ip, port).to_string()
}
