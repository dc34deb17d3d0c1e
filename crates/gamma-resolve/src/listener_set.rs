//! ListenerSets (GEP-1713): which ListenerSets join their parent Gateway, and the listener
//! conflicts of the merged list.
//!
//! ListenerSet API reference (ListenerSetSpec.listeners): "Implementations MUST treat the parent
//! Gateway as having the merged list of all listeners from itself and attached ListenerSets
//! using the following precedence: 1. "parent" Gateway 2. ListenerSet ordered by creation time
//! (oldest first) 3. ListenerSet ordered alphabetically by "{namespace}/{name}"". GEP-1713
//! (Listener and ListenerSet Conflicts): "the first Listener in the precedence list MUST be
//! accepted and should not have a `Conflicted` condition, while conflicting listeners MUST have
//! a `Conflicted` condition set to `True`".

use std::collections::HashMap;

use crate::input::{AllowedNamespaces, ListenerIr, TableInput};
use crate::listener;

/// Whether a ListenerSet joins a Gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attachment {
    /// Its parentRef names a Gateway whose `allowedListeners` admits its namespace: its
    /// listeners are part of that Gateway (by index).
    Attached(usize),
    /// Its parentRef names a Gateway (by index) whose `allowedListeners` does not admit it.
    NotAllowed(usize),
    /// Its parentRef names no Gateway of the input (or is not a Gateway reference at all).
    NoParent,
    /// It fails validation ([`crate::input::ListenerSetIr::invalid`]): it joins no Gateway
    /// whatever its parentRef names (the Gateway, by index, when it exists).
    Invalid(Option<usize>),
}

impl Attachment {
    /// The Gateway the ListenerSet names, when it exists.
    pub(crate) fn gateway(self) -> Option<usize> {
        match self {
            Self::Attached(gi) | Self::NotAllowed(gi) => Some(gi),
            Self::Invalid(gi) => gi,
            Self::NoParent => None,
        }
    }
}

/// What a listener of a ListenerSet conflicts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rival {
    /// Another listener of the same ListenerSet: no winner, as within a Gateway.
    Own,
    /// A listener of the parent Gateway, which takes precedence.
    Gateway,
    /// A listener of a ListenerSet earlier in precedence (never named: GEP-1713 asks not to
    /// leak other users' configuration into a ListenerSet's status).
    OtherSet,
}

/// A listener's conflict: the reason (`HostnameConflict`, `ProtocolConflict`) and its rival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Conflict {
    pub(crate) reason: &'static str,
    pub(crate) rival: Rival,
}

/// One ListenerSet's place in its Gateway.
#[derive(Debug, Clone)]
pub(crate) struct SetFacts {
    pub(crate) attachment: Attachment,
    /// Per listener (spec order): its conflict, if any. Empty conflicts for a ListenerSet that
    /// is not attached (its listeners take part in nothing).
    pub(crate) conflicts: Vec<Option<Conflict>>,
}

/// The merged listener lists of every Gateway.
#[derive(Debug, Clone, Default)]
pub(crate) struct Merged {
    /// Per Gateway (input order): the conflicts of its own listeners ([`listener::conflicts`]).
    pub(crate) gateway_conflicts: Vec<Vec<Option<&'static str>>>,
    /// Per ListenerSet (input order).
    pub(crate) sets: Vec<SetFacts>,
    /// Per Gateway: its attached ListenerSets in GEP-1713 precedence.
    pub(crate) order: Vec<Vec<usize>>,
}

/// Whether `allowed` (a Gateway's `allowedListeners.namespaces`) admits a ListenerSet of
/// namespace `ns` to a Gateway of namespace `gw_ns`.
fn admits(allowed: Option<&AllowedNamespaces>, gw_ns: &str, ns: &str) -> bool {
    match allowed {
        None => false,
        Some(AllowedNamespaces::Same) => ns == gw_ns,
        Some(AllowedNamespaces::All) => true,
        Some(AllowedNamespaces::Only(set)) => set.contains(ns),
    }
}

/// Computes every Gateway's merged listener list. Duplicate Gateways (same namespace/name) are
/// resolved to the first, as the build does.
pub(crate) fn merge(input: &TableInput) -> Merged {
    let mut by_name: HashMap<(&str, &str), usize> = HashMap::with_capacity(input.gateways.len());
    for (gi, g) in input.gateways.iter().enumerate() {
        by_name
            .entry((g.namespace.as_str(), g.name.as_str()))
            .or_insert(gi);
    }
    let gateway_conflicts: Vec<_> = input
        .gateways
        .iter()
        .map(|g| listener::conflicts(&g.listeners))
        .collect();
    let mut sets: Vec<SetFacts> = input
        .listener_sets
        .iter()
        .map(|ls| {
            let gi = ls
                .parent
                .as_ref()
                .and_then(|(ns, name)| by_name.get(&(ns.as_str(), name.as_str())).copied());
            let attachment = match gi.and_then(|gi| input.gateways.get(gi).map(|g| (gi, g))) {
                // left out whole (one verdict per object): its listeners join nothing
                _ if ls.invalid.is_some() => Attachment::Invalid(gi),
                None => Attachment::NoParent,
                Some((gi, g))
                    if admits(g.allowed_listeners.as_ref(), &g.namespace, &ls.namespace) =>
                {
                    Attachment::Attached(gi)
                }
                Some((gi, _)) => Attachment::NotAllowed(gi),
            };
            SetFacts {
                attachment,
                conflicts: Vec::new(),
            }
        })
        .collect();
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); input.gateways.len()];
    for (lsi, f) in sets.iter().enumerate() {
        if let Attachment::Attached(gi) = f.attachment
            && let Some(o) = order.get_mut(gi)
        {
            o.push(lsi);
        }
    }
    for o in &mut order {
        // oldest first (a missing timestamp sorts last), then namespace/name; duplicates of
        // one namespace/name keep input order
        o.sort_by_key(|i| {
            input.listener_sets.get(*i).map(|l| {
                (
                    l.created.is_none(),
                    l.created,
                    l.namespace.as_str(),
                    l.name.as_str(),
                )
            })
        });
    }
    for (gi, o) in order.iter().enumerate() {
        let Some(gw) = input.gateways.get(gi) else {
            continue;
        };
        // listeners that earlier (higher precedence) resources keep: the Gateway's own, all of
        // them (its conflicts among themselves are its own), then each ListenerSet's that
        // did not lose to an earlier resource
        let mut kept: Vec<&ListenerIr> = gw.listeners.iter().collect();
        let gateway_count = kept.len();
        for &lsi in o {
            let Some(ls) = input.listener_sets.get(lsi) else {
                continue;
            };
            // first, the listeners that lose to an earlier resource: out of the merged list
            let mut conflicts: Vec<Option<Conflict>> = ls
                .listeners
                .iter()
                .map(|l| {
                    kept.iter().enumerate().find_map(|(k, e)| {
                        let reason = listener::conflict_between(e, l)?;
                        let rival = if k < gateway_count {
                            Rival::Gateway
                        } else {
                            Rival::OtherSet
                        };
                        Some(Conflict { reason, rival })
                    })
                })
                .collect();
            // then the rest among themselves, with no winner, as within a Gateway (the
            // upstream conformance tests keep a ListenerSet's other listeners accepted when
            // one of them loses to the Gateway)
            let (rest, rest_listeners): (Vec<usize>, Vec<&ListenerIr>) = ls
                .listeners
                .iter()
                .enumerate()
                .filter(|(li, _)| conflicts.get(*li).is_some_and(Option::is_none))
                .unzip();
            for (li, own) in rest.iter().zip(listener::conflicts_among(&rest_listeners)) {
                if let Some(slot) = conflicts.get_mut(*li) {
                    *slot = own.map(|reason| Conflict {
                        reason,
                        rival: Rival::Own,
                    });
                }
            }
            for (l, c) in ls.listeners.iter().zip(&conflicts) {
                if !c.is_some_and(|c| c.rival != Rival::Own) {
                    kept.push(l);
                }
            }
            if let Some(f) = sets.get_mut(lsi) {
                f.conflicts = conflicts;
            }
        }
    }
    Merged {
        gateway_conflicts,
        sets,
        order,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{GatewayIr, ListenerProtocol, ListenerSetIr};

    fn l(name: &str, port: u16, protocol: ListenerProtocol, host: Option<&str>) -> ListenerIr {
        ListenerIr {
            name: name.into(),
            port,
            protocol,
            hostname: host.map(Into::into),
            ..ListenerIr::default()
        }
    }

    fn gw(allowed: Option<AllowedNamespaces>, listeners: Vec<ListenerIr>) -> GatewayIr {
        GatewayIr {
            namespace: "infra".into(),
            name: "gw".into(),
            listeners,
            allowed_listeners: allowed,
            ..GatewayIr::default()
        }
    }

    fn ls(ns: &str, name: &str, created: i64, listeners: Vec<ListenerIr>) -> ListenerSetIr {
        ListenerSetIr {
            namespace: ns.into(),
            name: name.into(),
            created: Some((created, 0)),
            parent: Some(("infra".into(), "gw".into())),
            listeners,
            invalid: None,
        }
    }

    // Gateway AllowedListeners.namespaces.from: None (the default) admits no ListenerSet,
    // Same only the Gateway's namespace, All every namespace, Selector the selected ones.
    #[test]
    fn allowed_listeners_admits_namespaces_by_from() {
        let http = || vec![l("a", 8080, ListenerProtocol::Http, None)];
        let sets = vec![
            ls("infra", "same", 1, http()),
            ls("team", "other", 2, http()),
        ];
        let cases = [
            (None, [false, false]),
            (Some(AllowedNamespaces::Same), [true, false]),
            (Some(AllowedNamespaces::All), [true, true]),
            (
                Some(AllowedNamespaces::Only(["team".to_string()].into())),
                [false, true],
            ),
        ];
        for (allowed, want) in cases {
            let input = TableInput {
                gateways: vec![gw(
                    allowed.clone(),
                    vec![l("web", 80, ListenerProtocol::Http, None)],
                )],
                listener_sets: sets.clone(),
                ..TableInput::default()
            };
            let m = merge(&input);
            let got: Vec<bool> = m
                .sets
                .iter()
                .map(|f| matches!(f.attachment, Attachment::Attached(0)))
                .collect();
            assert_eq!(got, want, "{allowed:?}");
            assert!(m.sets.iter().all(|f| f.attachment.gateway() == Some(0)));
        }
    }

    // GEP-1713 Listener Precedence: the Gateway first, then ListenerSets oldest first, then by
    // namespace/name; the first of conflicting listeners wins, later ones are Conflicted.
    #[test]
    fn conflicts_lose_to_the_gateway_then_to_older_listener_sets() {
        use ListenerProtocol::{Http, Tcp};
        let input = TableInput {
            gateways: vec![gw(
                Some(AllowedNamespaces::All),
                vec![l("web", 80, Http, Some("a.example.com"))],
            )],
            listener_sets: vec![
                // younger: loses to `older` on b.example.com
                ls(
                    "x",
                    "younger",
                    20,
                    vec![l("b", 80, Http, Some("b.example.com"))],
                ),
                ls(
                    "y",
                    "older",
                    10,
                    vec![
                        l("a", 80, Http, Some("a.example.com")),
                        l("b", 80, Http, Some("b.example.com")),
                        l("tcp", 80, Tcp, None),
                    ],
                ),
            ],
            ..TableInput::default()
        };
        let m = merge(&input);
        assert_eq!(m.order, vec![vec![1, 0]]);
        let hostname = |rival| {
            Some(Conflict {
                reason: listener::HOSTNAME_CONFLICT,
                rival,
            })
        };
        assert_eq!(
            m.sets.get(1).map(|f| f.conflicts.clone()),
            Some(vec![
                hostname(Rival::Gateway),
                None,
                Some(Conflict {
                    reason: listener::PROTOCOL_CONFLICT,
                    rival: Rival::Gateway
                }),
            ])
        );
        assert_eq!(
            m.sets.first().map(|f| f.conflicts.clone()),
            Some(vec![hostname(Rival::OtherSet)])
        );
        // the Gateway's own listeners never lose to a ListenerSet
        assert_eq!(m.gateway_conflicts, vec![vec![None]]);
    }

    // ListenerSet precedence falls back to namespace/name when creation times are equal; a
    // ListenerSet whose parentRef names no Gateway joins none.
    #[test]
    fn equal_ages_order_by_namespace_then_name_and_missing_parents_join_nothing() {
        let http = || vec![l("a", 8080, ListenerProtocol::Http, None)];
        let mut orphan = ls("a", "orphan", 1, http());
        orphan.parent = Some(("infra".into(), "nope".into()));
        let input = TableInput {
            gateways: vec![gw(Some(AllowedNamespaces::All), vec![])],
            listener_sets: vec![ls("b", "x", 5, http()), ls("a", "z", 5, http()), orphan],
            ..TableInput::default()
        };
        let m = merge(&input);
        assert_eq!(m.order, vec![vec![1, 0]]);
        assert_eq!(
            m.sets.get(2).map(|f| f.attachment),
            Some(Attachment::NoParent)
        );
        // b/x lost the tie to a/z and conflicts with it
        assert_eq!(
            m.sets
                .first()
                .and_then(|f| f.conflicts.first().copied().flatten()),
            Some(Conflict {
                reason: listener::HOSTNAME_CONFLICT,
                rival: Rival::OtherSet
            })
        );
    }
}
