//! The reference's Gateway side: which listener of a Gateway (its own, or one of its
//! ListenerSets', GEP-1713) a request binds to, and which routes that listener serves, written
//! out from the spec's rules with no code shared with the engine's attachment, merge or index.
//!
//! Scope: the `HTTP` listeners of Gateways and ListenerSets (no implementation-specific
//! protocol, no `allowedRoutes.kinds`) and HTTPRoutes on them; [`modelled`] cuts an input to
//! that scope.

use std::collections::BTreeSet;

use crate::input::{
    AllowedNamespaces, GatewayIr, ListenerIr, ListenerProtocol, ListenerSetIr, ParentRefKind,
    RouteIr, TableInput,
};
use gamma_model::RouteKind;

/// Who a listener belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Gateway,
    /// A ListenerSet, by index into [`TableInput::listener_sets`].
    Set(usize),
}

/// A listener in its Gateway's merged list.
struct Merged<'i> {
    owner: Owner,
    /// The namespace `allowedRoutes.namespaces: Same` means: the owner's.
    namespace: &'i str,
    /// The owner's name (for a ListenerSet parentRef).
    owner_name: &'i str,
    listener: &'i ListenerIr,
    /// Accepted for processing: no conflict with a listener before it (nor a tie among its
    /// own resource's listeners).
    accepted: bool,
}

/// Two listeners of one port are indistinct when their hostnames are equal (case-insensitive;
/// both absent counts as equal): HTTP listeners on one port differ by hostname only (Gateway
/// API Listener: "Each listener in a Gateway must have a unique combination of Hostname, Port,
/// and Protocol").
fn indistinct(a: &ListenerIr, b: &ListenerIr) -> bool {
    a.port == b.port
        && match (&a.hostname, &b.hostname) {
            (None, None) => true,
            (Some(x), Some(y)) => x.eq_ignore_ascii_case(y),
            _ => false,
        }
}

/// Indices of the listeners of `list` that tie with another of `list` (all of them lose:
/// "ALL indistinct Listeners must not be accepted").
fn ties(list: &[&ListenerIr]) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for (i, a) in list.iter().enumerate() {
        for (j, b) in list.iter().enumerate() {
            if i != j && indistinct(a, b) {
                out.insert(i);
            }
        }
    }
    out
}

/// The merged listener list of `gw` (GEP-1713 listener precedence: the Gateway's own, then its
/// ListenerSets oldest first, then by `namespace/name`), and whether each is accepted.
fn merged<'i>(input: &'i TableInput, gw: &'i GatewayIr) -> Vec<Merged<'i>> {
    // one verdict per object: a Gateway the API server would refuse has no listener at all,
    // and no ListenerSet joins it
    if gw.invalid.is_some() {
        return Vec::new();
    }
    let own: Vec<&ListenerIr> = gw.listeners.iter().collect();
    let own_ties = ties(&own);
    let mut out: Vec<Merged<'i>> = gw
        .listeners
        .iter()
        .enumerate()
        .map(|(i, l)| Merged {
            owner: Owner::Gateway,
            namespace: &gw.namespace,
            owner_name: &gw.name,
            listener: l,
            accepted: !own_ties.contains(&i),
        })
        .collect();
    // ListenerSet docs: the parent Gateway is accepted unless every listener of it is not
    let gateway_accepted = own_ties.is_empty() || own_ties.len() != own.len();
    let admits = |ls: &ListenerSetIr| match &gw.allowed_listeners {
        None => false,
        Some(AllowedNamespaces::Same) => ls.namespace == gw.namespace,
        Some(AllowedNamespaces::All) => true,
        Some(AllowedNamespaces::Only(set)) => set.contains(&ls.namespace),
    };
    let mut sets: Vec<(usize, &ListenerSetIr)> = input
        .listener_sets
        .iter()
        .enumerate()
        .filter(|(_, ls)| {
            ls.parent
                .as_ref()
                .is_some_and(|(ns, name)| *ns == gw.namespace && *name == gw.name)
                && admits(ls)
                // nor does a ListenerSet the API server would refuse
                && ls.invalid.is_none()
        })
        .collect();
    sets.sort_by(|(_, a), (_, b)| {
        let age = |l: &ListenerSetIr| (l.created.is_none(), l.created);
        age(a)
            .cmp(&age(b))
            .then_with(|| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)))
    });
    for (lsi, ls) in sets {
        // a listener indistinct from one earlier in the list (accepted or not) loses to it
        let lost: Vec<bool> = ls
            .listeners
            .iter()
            .map(|l| out.iter().any(|m| indistinct(m.listener, l)))
            .collect();
        let rest: Vec<(usize, &ListenerIr)> = ls
            .listeners
            .iter()
            .zip(&lost)
            .enumerate()
            .filter(|(_, (_, lost))| !**lost)
            .map(|(i, (l, _))| (i, l))
            .collect();
        let rest_ties = ties(&rest.iter().map(|(_, l)| *l).collect::<Vec<_>>());
        let tied: BTreeSet<usize> = rest
            .iter()
            .enumerate()
            .filter(|(k, _)| rest_ties.contains(k))
            .map(|(_, (i, _))| *i)
            .collect();
        // GEP-1713 ListenerSet conditions: accepted while one listener is valid, and only when
        // its Gateway is accepted
        let valid = ls.listeners.len() - lost.iter().filter(|x| **x).count() - tied.len();
        let set_accepted = gateway_accepted && (ls.listeners.is_empty() || valid > 0);
        for (i, (l, lost)) in ls.listeners.iter().zip(&lost).enumerate() {
            if *lost {
                continue;
            }
            out.push(Merged {
                owner: Owner::Set(lsi),
                namespace: &ls.namespace,
                owner_name: &ls.name,
                listener: l,
                accepted: set_accepted && !tied.contains(&i),
            });
        }
    }
    out
}

/// How specific a listener hostname is (Gateway API Listener.hostname: an exact hostname
/// before wildcards, longer wildcards first, no hostname last).
fn specificity(h: Option<&str>) -> (u8, usize) {
    match h {
        None => (0, 0),
        Some(h) if h.starts_with("*.") => (1, h.len()),
        Some(_) => (2, 0),
    }
}

/// A route's effective hostnames on a listener, each with the specificity of the route
/// hostname behind it (see `effective_hosts`).
pub(super) type EffectiveHosts = Vec<(Option<String>, (usize, usize))>;

/// A hostname's specificity as the spec ranks route hostnames: (characters when it is not a
/// wildcard, characters); `None` is (0, 0).
pub(super) fn specificity_of(h: Option<&str>) -> (usize, usize) {
    match h {
        None => (0, 0),
        Some(h) if h.starts_with("*.") => (0, h.len()),
        Some(h) => (h.len(), h.len()),
    }
}

/// The effective hostnames of `route` on `listener` (Gateway API hostname intersection): the
/// listener's for a route without hostnames, else each route hostname that intersects it
/// (the more specific of the two), lowercased; empty when none does. Each comes with the
/// specificity of the most specific route hostname that yields it when `by_route_host`
/// (Gateway API v1.7: equal intersections rank by the route's own hostname), else (0, 0).
fn effective_hosts(route: &RouteIr, listener: &ListenerIr, by_route_host: bool) -> EffectiveHosts {
    let origin = |rh: &str| {
        if by_route_host {
            specificity_of(Some(rh))
        } else {
            (0, 0)
        }
    };
    let mut hs: Vec<(Option<String>, (usize, usize))> =
        match listener.hostname.as_deref().map(str::to_ascii_lowercase) {
            None if route.hostnames.is_empty() => vec![(None, (0, 0))],
            None => route
                .hostnames
                .iter()
                .map(|h| (Some(h.to_ascii_lowercase()), origin(h)))
                .collect(),
            Some(lh) if route.hostnames.is_empty() => vec![(Some(lh), (0, 0))],
            Some(lh) => route
                .hostnames
                .iter()
                .map(|h| h.to_ascii_lowercase())
                .filter_map(|rh| {
                    let (lw, rw) = (lh.strip_prefix("*."), rh.strip_prefix("*."));
                    let effective = match (lw, rw) {
                        (None, None) => (lh == rh).then(|| rh.clone()),
                        (Some(_), None) => super::host_matches(&lh, &rh).then(|| rh.clone()),
                        (None, Some(_)) => super::host_matches(&rh, &lh).then(|| lh.clone()),
                        // the narrower wildcard, when the wider one covers it
                        (Some(ls), Some(rs)) => {
                            let (wide, narrow) = if ls.len() <= rs.len() {
                                (ls, &rh)
                            } else {
                                (rs, &lh)
                            };
                            let narrow_suffix = &narrow[2..];
                            (narrow_suffix == wide || narrow_suffix.ends_with(&format!(".{wide}")))
                                .then(|| narrow.clone())
                        }
                    }?;
                    Some((Some(effective), origin(&rh)))
                })
                .collect(),
        };
    // one entry per effective hostname, keeping the most specific route hostname behind it
    hs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    hs.dedup_by(|later, first| later.0 == first.0);
    hs
}

/// What a request to a Gateway address finds.
pub(super) enum Found<'i> {
    /// No Gateway has the address and port.
    Nothing,
    /// A Gateway port with no listener for the request's host: 404.
    NoListener,
    /// The routes attached to the chosen listener, each with its effective hostnames and the
    /// specificity of the route hostname behind each (see `effective_hosts`).
    Routes(Vec<(&'i RouteIr, EffectiveHosts)>),
}

/// The listener of the first Gateway with address `dst` and a listener on `port` that the
/// request's `host` selects, and the routes it serves.
pub(super) fn find<'i>(
    input: &'i TableInput,
    by_route_host: bool,
    dst: std::net::IpAddr,
    port: u16,
    host: Option<&str>,
) -> Found<'i> {
    let Some(gw) = input.gateways.iter().find(|g| {
        g.addresses.contains(&dst)
            && merged(input, g)
                .iter()
                .any(|m| m.accepted && m.listener.port == port)
    }) else {
        return Found::Nothing;
    };
    let list = merged(input, gw);
    let host = host.map(super::host_of);
    let chosen = list
        .iter()
        .filter(|m| m.accepted && m.listener.port == port)
        .filter(|m| match (&m.listener.hostname, &host) {
            (None, _) => true,
            (Some(p), Some(h)) => super::host_matches(&p.to_ascii_lowercase(), h),
            (Some(_), None) => false,
        })
        // most specific first; the first in listener precedence among equals
        .fold(None::<&Merged<'_>>, |best, m| match best {
            Some(b)
                if specificity(b.listener.hostname.as_deref())
                    >= specificity(m.listener.hostname.as_deref()) =>
            {
                Some(b)
            }
            _ => Some(m),
        });
    let Some(m) = chosen else {
        return Found::NoListener;
    };
    let l = m.listener;
    let routes = input
        .routes
        .iter()
        .filter(|r| r.kind == RouteKind::Http && r.invalid.is_none())
        .filter(|r| r.rules.iter().any(|x| x.invalid.is_none()))
        .filter(|r| {
            r.parents.iter().any(|p| {
                let names_owner = match (m.owner, &p.kind) {
                    (Owner::Gateway, ParentRefKind::Gateway) => {
                        p.namespace == gw.namespace && p.name == gw.name
                    }
                    (Owner::Set(_), ParentRefKind::ListenerSet) => {
                        p.namespace == m.namespace && p.name == m.owner_name
                    }
                    _ => false,
                };
                names_owner
                    && p.section_name.as_ref().is_none_or(|s| *s == l.name)
                    && p.port.is_none_or(|x| x == l.port)
            })
        })
        .filter(|r| match &l.allowed_namespaces {
            AllowedNamespaces::Same => r.namespace == m.namespace,
            AllowedNamespaces::All => true,
            AllowedNamespaces::Only(set) => set.contains(r.namespace.as_str()),
        })
        .filter_map(|r| {
            let hosts = effective_hosts(r, l, by_route_host);
            (!hosts.is_empty()).then_some((r, hosts))
        })
        .collect();
    Found::Routes(routes)
}

/// `input` cut down to what the reference models on the Gateway side: of Gateways (the first
/// of each `namespace/name`, with addresses no Service and no earlier Gateway has) and
/// ListenerSets (the first of each `namespace/name`), only the plain `HTTP` listeners (no
/// `allowedRoutes.kinds`, no certificates); Gateway and ListenerSet parentRefs of other route
/// kinds dropped. Mesh parents are kept as they are. Both sides of a comparison read the cut
/// input, so what is cut changes nothing but what is compared.
pub fn modelled(input: &TableInput) -> TableInput {
    let plain = |l: &ListenerIr| {
        l.protocol == ListenerProtocol::Http
            && l.unsupported_protocol.is_none()
            && l.allowed_kinds.is_empty()
            && l.invalid_kinds.is_empty()
            && l.certificate_refs.is_empty()
    };
    let mut out = input.clone();
    let mut taken: BTreeSet<std::net::IpAddr> = input
        .services
        .iter()
        .flat_map(|s| s.cluster_ips.iter().copied())
        .collect();
    let mut names = BTreeSet::new();
    out.gateways.retain(|g| {
        let keep = names.insert((g.namespace.clone(), g.name.clone()))
            && g.addresses.iter().all(|a| !taken.contains(a));
        if keep {
            taken.extend(g.addresses.iter().copied());
        }
        keep
    });
    for g in &mut out.gateways {
        g.listeners.retain(plain);
    }
    let mut names = BTreeSet::new();
    out.listener_sets
        .retain(|ls| names.insert((ls.namespace.clone(), ls.name.clone())));
    for ls in &mut out.listener_sets {
        ls.listeners.retain(plain);
    }
    for r in &mut out.routes {
        if r.kind != RouteKind::Http {
            r.parents
                .retain(|p| !matches!(p.kind, ParentRefKind::Gateway | ParentRefKind::ListenerSet));
        }
    }
    out
}
