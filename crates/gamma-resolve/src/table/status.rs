//! The route parent conditions of a part, compact: collected while building
//! ([`StatusBuilder`]), frozen with the part ([`StatusSource`]) and rendered into
//! [`ParentStatus`]es on demand.

use std::collections::BTreeMap;
use std::sync::Arc;

use gamma_model::RouteKind;

use super::Part;
use crate::input::{Invalid, RouteIr};
use crate::status::{
    ACCEPTED, CONFLICTED, NO_MATCHING_LISTENER_HOSTNAME, NO_MATCHING_PARENT,
    NOT_ALLOWED_BY_LISTENERS, PARTIALLY_INVALID, ParentStatus, RESOLVED_REFS, RouteCondition,
    UnresolvedRef,
};

/// Renders the parent conditions of every route from the newest part that covers it, in the
/// order of a full build: route kind, namespace, name (each route's entries in their own
/// order).
pub(crate) fn render_statuses(parts: &[Arc<Part>]) -> Vec<ParentStatus> {
    let render = |p: &Part| {
        p.status.render(|id| {
            let r = p.routes.get(id as usize)?;
            Some((r.kind, p.route_namespace(r), &*r.name))
        })
    };
    match parts {
        [one] => render(one),
        _ => {
            let mut out = Vec::new();
            for (i, p) in parts.iter().enumerate() {
                let newer = parts.get(i + 1..).unwrap_or(&[]);
                out.extend(render(p).into_iter().filter(|s| {
                    newer.is_empty() || {
                        let kind = s.kind.resource_kind();
                        !newer
                            .iter()
                            .any(|n| n.covers.contains(kind, &s.namespace, &s.name))
                    }
                }));
            }
            out.sort_by(|a, b| {
                (a.kind, &a.namespace, &a.name).cmp(&(b.kind, &b.namespace, &b.name))
            });
            out
        }
    }
}

/// One byte: `NoParent`'s message (rare) lives in the pair's [`Extra`].
#[derive(Debug, Clone, Copy)]
enum Outcome {
    RouteInvalid,
    NoParent,
    NotAllowed,
    NoHostname,
    Attached,
}

/// What rarely exists: kept out of line so that an entry stays small.
#[derive(Debug, Clone, Default)]
struct Extra {
    dropped: Vec<(usize, Invalid)>,
    problem: Option<(&'static str, String)>,
    /// Each unresolved reference of `problem`.
    unresolved: Vec<UnresolvedRef>,
    /// Why no parent matched (`Outcome::NoParent`), or why no listener admits the route when
    /// it is not the listeners' `allowedRoutes` (`Outcome::NotAllowed`); owned only for a
    /// parent left out, whose message quotes its first validation error.
    no_parent: std::borrow::Cow<'static, str>,
}

/// One (route, parentRef) while building.
#[derive(Debug, Clone)]
struct Entry {
    ri: usize,
    pi: usize,
    outcome: Outcome,
    total_rules: u32,
    kept_rules: u32,
    /// The mesh contexts the pair attached to: a range of [`StatusBuilder::mesh`].
    mesh: (u32, u32),
    extra: Option<Box<Extra>>,
}

type Ctx = (usize, u16, Option<String>);

/// Collects outcomes during the build. The build visits routes in canonical order and each
/// (route, parentRef) in one go, so entries are appended (no map per pair).
#[derive(Debug, Default)]
pub(crate) struct StatusBuilder {
    entries: Vec<Entry>,
    /// Mesh contexts of the entries, in entry order.
    mesh: Vec<Ctx>,
    /// Route input index -> contexts it lost on, with the winning kind.
    lost: BTreeMap<usize, Vec<(Ctx, Option<RouteKind>)>>,
}

/// A compiled rule's unresolved references: (`ResolvedRefs` reason of the first, message
/// listing each with its own reason, each one apart).
pub(crate) type RuleProblem = (&'static str, String, Vec<UnresolvedRef>);

impl StatusBuilder {
    /// Room for `pairs` (route, parentRef) entries and as many mesh contexts: the build
    /// counts them first instead of growing the arrays by doubling (copies and fresh pages).
    pub(crate) fn reserve(&mut self, pairs: usize) {
        self.entries.reserve(pairs);
        self.mesh.reserve(pairs);
    }

    /// The entry of (route, parentRef), created with `outcome` if it is new (`None` never
    /// happens: the entry was just found or pushed).
    fn set(&mut self, ri: usize, pi: usize, outcome: Outcome) -> Option<&mut Entry> {
        let same = self
            .entries
            .last()
            .is_some_and(|e| e.ri == ri && e.pi == pi);
        if !same {
            let at = u32::try_from(self.mesh.len()).unwrap_or(u32::MAX);
            self.entries.push(Entry {
                ri,
                pi,
                outcome,
                total_rules: 0,
                kept_rules: 0,
                mesh: (at, 0),
                extra: None,
            });
        }
        self.entries.last_mut()
    }

    pub(crate) fn route_invalid(&mut self, ri: usize, pi: usize) {
        self.set(ri, pi, Outcome::RouteInvalid);
    }
    pub(crate) fn no_parent(
        &mut self,
        ri: usize,
        pi: usize,
        why: impl Into<std::borrow::Cow<'static, str>>,
    ) {
        if let Some(e) = self.set(ri, pi, Outcome::NoParent)
            && matches!(e.outcome, Outcome::NoParent)
        {
            let extra = e.extra.get_or_insert_with(Box::default);
            if extra.no_parent.is_empty() {
                extra.no_parent = why.into();
            }
        }
    }
    pub(crate) fn not_allowed(&mut self, ri: usize, pi: usize) {
        self.set(ri, pi, Outcome::NotAllowed);
    }
    /// `NotAllowedByListeners` with a message of its own (a ListenerSet that is not attached).
    pub(crate) fn not_allowed_because(&mut self, ri: usize, pi: usize, why: &'static str) {
        if let Some(e) = self.set(ri, pi, Outcome::NotAllowed)
            && matches!(e.outcome, Outcome::NotAllowed)
        {
            let extra = e.extra.get_or_insert_with(Box::default);
            if extra.no_parent.is_empty() {
                extra.no_parent = why.into();
            }
        }
    }
    pub(crate) fn no_hostname(&mut self, ri: usize, pi: usize) {
        self.set(ri, pi, Outcome::NoHostname);
    }
    pub(crate) fn attached_gateway(&mut self, ri: usize, pi: usize) {
        if let Some(e) = self.set(ri, pi, Outcome::Attached) {
            e.outcome = Outcome::Attached;
        }
    }
    pub(crate) fn attached_mesh(
        &mut self,
        ri: usize,
        pi: usize,
        si: usize,
        port: u16,
        consumer: Option<String>,
    ) {
        if let Some(e) = self.set(ri, pi, Outcome::Attached) {
            e.outcome = Outcome::Attached;
            e.mesh.1 += 1;
            self.mesh.push((si, port, consumer));
        }
    }
    pub(crate) fn conflicted(&mut self, ri: usize, ctx: Ctx, winner: Option<RouteKind>) {
        self.lost.entry(ri).or_default().push((ctx, winner));
    }

    /// The rules of an attached (route, parentRef): how many the route has (`total`), the
    /// invalid ones the route's lowering dropped (`dropped`: rule index and why), the
    /// compiled rule ids (`rules`: `None` for a rule not compiled) and the unresolved
    /// references of compiled rules (`problems`, by rule id).
    pub(crate) fn rules<'i>(
        &mut self,
        (ri, pi): (usize, usize),
        total: usize,
        dropped: impl Iterator<Item = (usize, &'i Invalid)>,
        rules: &[Option<u32>],
        problems: &[(u32, RuleProblem)],
    ) {
        let Some(e) = self.set(ri, pi, Outcome::Attached) else {
            return;
        };
        e.total_rules = u32::try_from(total).unwrap_or(u32::MAX);
        e.kept_rules =
            u32::try_from(rules.iter().filter(|r| r.is_some()).count()).unwrap_or(u32::MAX);
        let dropped: Vec<(usize, Invalid)> = dropped.map(|(i, inv)| (i, inv.clone())).collect();
        // every rule's unresolved references: the first reason, every message
        let mut found = rules.iter().flatten().filter_map(|id| {
            let i = problems.binary_search_by_key(id, |(r, _)| *r).ok()?;
            problems.get(i).map(|(_, p)| p)
        });
        let mut unresolved = Vec::new();
        let problem = found.next().map(|(reason, first, refs)| {
            let mut message = first.clone();
            unresolved.extend(refs.iter().cloned());
            for (_, more, refs) in found {
                message.push_str("; ");
                message.push_str(more);
                unresolved.extend(refs.iter().cloned());
            }
            (*reason, message)
        });
        e.extra = (!dropped.is_empty() || problem.is_some()).then(|| {
            Box::new(Extra {
                dropped,
                problem,
                unresolved,
                no_parent: "".into(),
            })
        });
    }

    /// Freezes the outcomes: decides the conflicts and keeps, per pair, what the conditions
    /// are made of (route identity by compiled route id where there is one). The condition
    /// texts are rendered on the first [`StatusSource::render`].
    /// `route`: the lowered route at an input index.
    pub(crate) fn finish<'i>(
        self,
        route: impl Fn(usize) -> Option<&'i RouteIr>,
        route_ids: &[Option<u32>],
    ) -> StatusSource {
        let mut out = Vec::with_capacity(self.entries.len());
        let mut owned = Vec::new();
        let mut extras = Vec::new();
        for e in self.entries {
            let Some(route) = route(e.ri) else {
                continue;
            };
            let lost = self.lost.get(&e.ri);
            let contexts = self
                .mesh
                .get(e.mesh.0 as usize..(e.mesh.0 + e.mesh.1) as usize)
                .unwrap_or(&[]);
            let all_lost = !contexts.is_empty()
                && contexts
                    .iter()
                    .all(|c| lost.is_some_and(|l| l.iter().any(|(lc, _)| lc == c)));
            let lost_to = all_lost.then(|| lost.and_then(|l| l.first()).and_then(|(_, w)| *w));
            let ident = match route_ids.get(e.ri).copied().flatten() {
                Some(id) if id < OWNED => id,
                _ => {
                    owned.push(OwnedRoute {
                        kind: route.kind,
                        namespace: route.namespace.to_string(),
                        name: route.name.to_string(),
                        invalid: route.invalid.clone(),
                    });
                    OWNED | u32::try_from(owned.len() - 1).unwrap_or(u32::MAX)
                }
            };
            let extra = match e.extra {
                Some(x) => {
                    extras.push(*x);
                    u32::try_from(extras.len()).unwrap_or(u32::MAX)
                }
                None => 0,
            };
            out.push(Frozen {
                route: ident,
                pi: u32::try_from(e.pi).unwrap_or(u32::MAX),
                outcome: e.outcome,
                total_rules: e.total_rules,
                kept_rules: e.kept_rules,
                lost_to,
                extra,
            });
        }
        out.shrink_to_fit();
        owned.shrink_to_fit();
        extras.shrink_to_fit();
        StatusSource {
            entries: out,
            owned,
            extras,
        }
    }
}

/// Marks a [`Frozen::route`] as an index into [`StatusSource::owned`].
const OWNED: u32 = 1 << 31;

#[derive(Debug)]
struct OwnedRoute {
    kind: RouteKind,
    namespace: String,
    name: String,
    invalid: Option<Invalid>,
}

/// One (route, parentRef), frozen: 24 bytes (one per route and parent, which dominates
/// memory when routes have one or two rules each); what is rare lives in side arrays.
#[derive(Debug)]
struct Frozen {
    /// The compiled route id, or (for routes that failed validation and were not compiled)
    /// `OWNED |` an index into [`StatusSource::owned`].
    route: u32,
    pi: u32,
    total_rules: u32,
    kept_rules: u32,
    /// Index + 1 into [`StatusSource::extras`]; 0 = nothing rare.
    extra: u32,
    outcome: Outcome,
    /// `Some(winner)` when every mesh context of the pair went to another kind (GEP-1294 route
    /// types).
    lost_to: Option<Option<RouteKind>>,
}

/// The per-pair outcomes of a build, compact; rendered into [`ParentStatus`]es on demand.
#[derive(Debug, Default)]
pub(crate) struct StatusSource {
    entries: Vec<Frozen>,
    /// Routes that were not compiled, named by their own copy.
    owned: Vec<OwnedRoute>,
    extras: Vec<Extra>,
}

impl StatusSource {
    /// The (compiled route id, parentRef index) of every pair rendered `Accepted=True`.
    pub(crate) fn accepted_pairs(&self) -> impl Iterator<Item = (u32, usize)> + '_ {
        self.entries.iter().filter_map(|e| {
            let accepted = matches!(e.outcome, Outcome::Attached)
                && e.lost_to.is_none()
                && !(e.kept_rules == 0 && e.total_rules > 0);
            (accepted && e.route & OWNED == 0).then_some((e.route, e.pi as usize))
        })
    }

    /// Renders every pair's conditions; `route` names a compiled route (kind, namespace,
    /// name) by its id.
    pub(crate) fn render<'r>(
        &'r self,
        route: impl Fn(u32) -> Option<(RouteKind, &'r str, &'r str)>,
    ) -> Vec<ParentStatus> {
        let mut out = Vec::with_capacity(self.entries.len());
        for e in &self.entries {
            let (kind, namespace, name, invalid) = if e.route & OWNED == 0 {
                match route(e.route) {
                    Some((kind, ns, name)) => (kind, ns, name, None),
                    None => continue,
                }
            } else {
                match self.owned.get((e.route & !OWNED) as usize) {
                    Some(o) => (o.kind, &*o.namespace, &*o.name, o.invalid.as_ref()),
                    None => continue,
                }
            };
            let no_extra = Extra::default();
            let extra = (e.extra as usize)
                .checked_sub(1)
                .and_then(|i| self.extras.get(i))
                .unwrap_or(&no_extra);
            let mut conditions = Vec::with_capacity(2);
            let accepted = |ok: bool, reason: &str, msg: String| {
                RouteCondition::new(ACCEPTED, ok, reason, msg)
            };
            match e.outcome {
                Outcome::RouteInvalid => {
                    let (reason, msg) = invalid.map_or(("UnsupportedValue", String::new()), |i| {
                        (i.reason, i.message.clone())
                    });
                    conditions.push(accepted(false, reason, msg));
                }
                Outcome::NoParent => conditions.push(accepted(
                    false,
                    NO_MATCHING_PARENT,
                    extra.no_parent.to_string(),
                )),
                Outcome::NotAllowed => conditions.push(accepted(
                    false,
                    NOT_ALLOWED_BY_LISTENERS,
                    if extra.no_parent.is_empty() {
                        "no listener's allowedRoutes admits the route's kind and namespace".into()
                    } else {
                        extra.no_parent.to_string()
                    },
                )),
                Outcome::NoHostname => conditions.push(accepted(
                    false,
                    NO_MATCHING_LISTENER_HOSTNAME,
                    "no route hostname intersects a listener hostname".into(),
                )),
                Outcome::Attached => {
                    if let Some(winner) = e.lost_to {
                        let winner =
                            winner.map_or_else(|| "another kind".to_string(), |k| k.to_string());
                        conditions.push(accepted(
                            false,
                            CONFLICTED,
                            format!("a {winner} is attached to the same Service port and takes precedence"),
                        ));
                    } else if e.kept_rules == 0 && e.total_rules > 0 {
                        let (reason, msg) = extra
                            .dropped
                            .first()
                            .map_or(("UnsupportedValue", String::new()), |(i, inv)| {
                                (inv.reason, format!("rule {i}: {}", inv.message))
                            });
                        conditions.push(accepted(
                            false,
                            reason,
                            format!("all rules are invalid; {msg}"),
                        ));
                    } else {
                        // Every route kind alike (RouteParentStatus.conditions: "A Route MUST
                        // be considered Accepted if at least one of the Route's rules is
                        // implemented"): an unresolved backendRef is ResolvedRefs=False only,
                        // and its share of the traffic fails (TCPRouteRule.backendRefs: the
                        // implementation "MUST actively reject connection attempts").
                        conditions.push(accepted(true, ACCEPTED, "the route is accepted".into()));
                        if let Some((i, inv)) = extra.dropped.first() {
                            let list: Vec<String> =
                                extra.dropped.iter().map(|(i, _)| i.to_string()).collect();
                            conditions.push(RouteCondition::new(
                                PARTIALLY_INVALID,
                                true,
                                inv.reason,
                                format!(
                                    "Dropped Rule(s) {}: rule {i}: {}",
                                    list.join(", "),
                                    inv.message
                                ),
                            ));
                        }
                    }
                    match &extra.problem {
                        Some((reason, msg)) => conditions.push(RouteCondition::new(
                            RESOLVED_REFS,
                            false,
                            reason,
                            msg.clone(),
                        )),
                        None => conditions.push(RouteCondition::new(
                            RESOLVED_REFS,
                            true,
                            RESOLVED_REFS,
                            "all references are resolved",
                        )),
                    }
                }
            }
            out.push(ParentStatus {
                kind,
                namespace: namespace.to_string(),
                name: name.to_string(),
                parent_index: e.pi as usize,
                conditions,
                unresolved: extra.unresolved.clone(),
            });
        }
        // already in this order (the build visits routes canonically); kept as a guarantee
        out.sort_by(|a, b| {
            (a.kind, &a.namespace, &a.name, a.parent_index).cmp(&(
                b.kind,
                &b.namespace,
                &b.name,
                b.parent_index,
            ))
        });
        out
    }
}
