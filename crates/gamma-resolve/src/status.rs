//! Route parent conditions computed while building a table (spec-digest §9.3): for every
//! (route, parentRef) the build considered, `Accepted`, `ResolvedRefs` and, when some rules
//! were dropped, `PartiallyInvalid`, with upstream reasons. The arbiter writes them.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::ir::{Invalid, RouteIr, RouteKind, TableInput};

/// Condition type `Accepted`.
pub const ACCEPTED: &str = "Accepted";
/// Condition type `ResolvedRefs`.
pub const RESOLVED_REFS: &str = "ResolvedRefs";
/// Condition type `PartiallyInvalid`.
pub const PARTIALLY_INVALID: &str = "PartiallyInvalid";
/// Reason `NoMatchingParent`.
pub const NO_MATCHING_PARENT: &str = "NoMatchingParent";
/// Reason `NotAllowedByListeners`.
pub const NOT_ALLOWED_BY_LISTENERS: &str = "NotAllowedByListeners";
/// Reason `NoMatchingListenerHostname`.
pub const NO_MATCHING_LISTENER_HOSTNAME: &str = "NoMatchingListenerHostname";
/// Reason `Conflicted` (GEP-1294; no upstream constant, spec-digest §4.6).
pub const CONFLICTED: &str = "Conflicted";

/// One condition, without timestamps or generation (the writer adds those).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RouteCondition {
    /// Condition type.
    #[serde(rename = "type")]
    pub type_: String,
    /// `True` or `False`.
    pub status: bool,
    /// Upstream reason.
    pub reason: String,
    /// Human-readable message.
    pub message: String,
}

impl RouteCondition {
    fn new(type_: &str, status: bool, reason: &str, message: impl Into<String>) -> Self {
        Self {
            type_: type_.into(),
            status,
            reason: reason.into(),
            message: message.into(),
        }
    }
}

/// The conditions for one (route, parentRef).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParentStatus {
    /// Route kind.
    pub kind: RouteKind,
    /// Route namespace.
    pub namespace: String,
    /// Route name.
    pub name: String,
    /// Index of the parentRef in `spec.parentRefs`.
    pub parent_index: usize,
    /// The conditions.
    pub conditions: Vec<RouteCondition>,
}

impl ParentStatus {
    /// The condition of a type, if present.
    pub fn condition(&self, type_: &str) -> Option<&RouteCondition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }
}

#[derive(Debug, Clone)]
enum Outcome {
    RouteInvalid,
    NoParent(&'static str),
    NotAllowed,
    NoHostname,
    Attached,
}

#[derive(Debug, Clone)]
struct Entry {
    outcome: Outcome,
    dropped: Vec<(usize, Invalid)>,
    total_rules: usize,
    kept_rules: usize,
    problem: Option<(&'static str, String)>,
    /// Mesh contexts (service, port, consumer namespace) the pair attached to.
    mesh: Vec<(usize, u16, Option<String>)>,
}

type Ctx = (usize, u16, Option<String>);

/// Collects outcomes during the build.
#[derive(Debug, Default)]
pub(crate) struct StatusBuilder {
    entries: BTreeMap<(usize, usize), Entry>,
    /// Route input index -> contexts it lost on, with the winning kind.
    lost: BTreeMap<usize, Vec<(Ctx, Option<RouteKind>)>>,
}

impl StatusBuilder {
    fn set(&mut self, ri: usize, pi: usize, outcome: Outcome) -> &mut Entry {
        self.entries.entry((ri, pi)).or_insert_with(|| Entry {
            outcome: outcome.clone(),
            dropped: Vec::new(),
            total_rules: 0,
            kept_rules: 0,
            problem: None,
            mesh: Vec::new(),
        })
    }

    pub(crate) fn route_invalid(&mut self, ri: usize, pi: usize) {
        self.set(ri, pi, Outcome::RouteInvalid);
    }
    pub(crate) fn no_parent(&mut self, ri: usize, pi: usize, why: &'static str) {
        self.set(ri, pi, Outcome::NoParent(why));
    }
    pub(crate) fn not_allowed(&mut self, ri: usize, pi: usize) {
        self.set(ri, pi, Outcome::NotAllowed);
    }
    pub(crate) fn no_hostname(&mut self, ri: usize, pi: usize) {
        self.set(ri, pi, Outcome::NoHostname);
    }
    pub(crate) fn attached_gateway(&mut self, ri: usize, pi: usize) {
        self.set(ri, pi, Outcome::Attached).outcome = Outcome::Attached;
    }
    pub(crate) fn attached_mesh(
        &mut self,
        ri: usize,
        pi: usize,
        si: usize,
        port: u16,
        consumer: Option<String>,
    ) {
        let e = self.set(ri, pi, Outcome::Attached);
        e.outcome = Outcome::Attached;
        e.mesh.push((si, port, consumer));
    }
    pub(crate) fn conflicted(&mut self, ri: usize, ctx: Ctx, winner: Option<RouteKind>) {
        self.lost.entry(ri).or_default().push((ctx, winner));
    }

    pub(crate) fn rules(
        &mut self,
        ri: usize,
        pi: usize,
        route: &RouteIr,
        rules: &[Option<u32>],
        problems: &[Option<(&'static str, String)>],
    ) {
        let e = self.set(ri, pi, Outcome::Attached);
        e.total_rules = route.rules.len();
        e.kept_rules = rules.iter().filter(|r| r.is_some()).count();
        e.dropped = route
            .rules
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.invalid.clone().map(|inv| (i, inv)))
            .collect();
        e.problem = rules
            .iter()
            .flatten()
            .find_map(|id| problems.get(*id as usize).cloned().flatten());
    }

    pub(crate) fn finish(self, input: &TableInput) -> Vec<ParentStatus> {
        let mut out = Vec::with_capacity(self.entries.len());
        for ((ri, pi), e) in self.entries {
            let Some(route) = input.routes.get(ri) else {
                continue;
            };
            let mut conditions = Vec::new();
            let accepted = |ok: bool, reason: &str, msg: String| {
                RouteCondition::new(ACCEPTED, ok, reason, msg)
            };
            match e.outcome {
                Outcome::RouteInvalid => {
                    let (reason, msg) = route
                        .invalid
                        .as_ref()
                        .map_or(("UnsupportedValue", String::new()), |i| {
                            (i.reason, i.message.clone())
                        });
                    conditions.push(accepted(false, reason, msg));
                }
                Outcome::NoParent(why) => {
                    conditions.push(accepted(false, NO_MATCHING_PARENT, why.into()))
                }
                Outcome::NotAllowed => conditions.push(accepted(
                    false,
                    NOT_ALLOWED_BY_LISTENERS,
                    "no listener's allowedRoutes admits the route's kind and namespace".into(),
                )),
                Outcome::NoHostname => conditions.push(accepted(
                    false,
                    NO_MATCHING_LISTENER_HOSTNAME,
                    "no route hostname intersects a listener hostname".into(),
                )),
                Outcome::Attached => {
                    let lost = self.lost.get(&ri);
                    let all_lost = !e.mesh.is_empty()
                        && e.mesh
                            .iter()
                            .all(|c| lost.is_some_and(|l| l.iter().any(|(lc, _)| lc == c)));
                    let l4 = matches!(route.kind, RouteKind::Tcp | RouteKind::Tls | RouteKind::Udp);
                    if all_lost {
                        let winner = lost
                            .and_then(|l| l.first())
                            .and_then(|(_, w)| *w)
                            .map_or_else(|| "another kind".to_string(), |k| k.to_string());
                        conditions.push(accepted(
                            false,
                            CONFLICTED,
                            format!("a {winner} is attached to the same Service port and takes precedence"),
                        ));
                    } else if e.kept_rules == 0 && e.total_rules > 0 {
                        let (reason, msg) = e
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
                    } else if let (true, Some((reason, msg))) = (l4, &e.problem) {
                        // GEP-1364: an L4 route with an unresolvable backend is not accepted.
                        conditions.push(accepted(false, reason, msg.clone()));
                    } else {
                        conditions.push(accepted(true, ACCEPTED, "the route is accepted".into()));
                        if let Some((i, inv)) = e.dropped.first() {
                            let list: Vec<String> =
                                e.dropped.iter().map(|(i, _)| i.to_string()).collect();
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
                    match &e.problem {
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
                kind: route.kind,
                namespace: route.namespace.clone(),
                name: route.name.clone(),
                parent_index: pi,
                conditions,
            });
        }
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
