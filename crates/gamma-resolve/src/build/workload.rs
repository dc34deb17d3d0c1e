//! Workload binding at build time ([`crate::MeshBinding::Workloads`], `docs/workloads.md`):
//! claiming the (endpoint address, target port, transport) keys of each headless Service with
//! routes for its route sets, withdrawing them, and rebinding one Service after an
//! EndpointSlice change. What the table keeps of it is `table/workloads.rs`.

use std::sync::Arc;

use crate::input::{EndpointIr, L4};
use crate::table::{
    Binding, Bindings, Frontends, Key, Pair, Part, ServiceName, Slot, Workloads, claim_name,
    claims, is_claim_of,
};

/// What a build found for one headless Service with routes (before its part exists).
#[derive(Debug)]
pub(crate) struct Built {
    pub(crate) service: ServiceName,
    pub(crate) ports: Vec<(u16, L4, Binding)>,
    pub(crate) pairs: Vec<Pair>,
    /// Its ready endpoints.
    pub(crate) endpoints: Vec<EndpointIr>,
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
    Some((part, Binding::Conflict { claims: v.into() }))
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
