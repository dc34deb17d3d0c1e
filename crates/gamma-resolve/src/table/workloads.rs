//! Workload binding, as the table holds it ([`MeshBinding::Workloads`], beyond the Gateway API spec; see
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
//!
//! This file holds what the table keeps ([`Workloads`]) and the conditions it adds; claiming
//! and withdrawing endpoints is the build's (`build/workload.rs`).

use std::collections::BTreeMap;
use std::sync::Arc;

use gamma_model::RouteKind;

use super::bindings::{Bindings, Key, Slot};
use super::{Binding, Part};
use crate::input::{EndpointIr, L4};
use crate::request::socket;
use crate::status::{ACCEPTED, ParentStatus, RouteCondition};

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

/// Every headless Service with routes, by name: what an EndpointSlice change rebinds from.
pub(crate) type Workloads = BTreeMap<ServiceName, Arc<Frontends>>;

/// The (namespace, name) of the Service a binding of `part` names.
pub(crate) fn service_of<'p>(part: &'p Part, b: &Binding) -> Option<(&'p str, &'p str)> {
    match b {
        Binding::Service { service, .. } => part
            .services
            .get(*service as usize)
            .map(|s| (&*s.namespace, part.text(s.name))),
        _ => None,
    }
}

/// Whether `slot` is a workload binding of Service `name`.
pub(crate) fn is_claim_of(slot: &Slot, name: (&str, &str)) -> bool {
    matches!(slot.1, Binding::Service { workload: true, .. })
        && service_of(&slot.0, &slot.1) == Some(name)
}

pub(crate) fn claim_name(slot: &Slot) -> (&str, &str) {
    service_of(&slot.0, &slot.1).unwrap_or(("", ""))
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
