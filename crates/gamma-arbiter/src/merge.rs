//! The pure status merge (Gateway API RouteStatus.parents): `me` rewrites only its own entries,
//! leaves every other controller's entry untouched and in place, and writes nothing when nothing
//! would change, so two controllers sharing a route never fight over its status.

use gamma_model::gateway::{
    Condition, ConditionStatus, ParentReference, RouteParentStatus, RouteStatus, reasons::ACCEPTED,
    reasons::PARTIALLY_INVALID, reasons::PENDING, reasons::RESOLVED_REFS,
};
use gamma_model::meta::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::registry::Identity;
use crate::status::DesiredStatus;

/// Upstream `RouteStatus.parents` MaxItems.
pub const MAX_PARENTS: usize = 32;
/// Upstream `RouteParentStatus.conditions` MaxItems.
pub const MAX_CONDITIONS: usize = 8;

/// The result of [`merge_outcome`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "outcome", rename_all = "camelCase")]
#[non_exhaustive]
pub enum MergeOutcome {
    /// Nothing would change (ignoring order and `lastTransitionTime`): do not write.
    Unchanged,
    /// Write this status (a read-modify-write on the copy `existing` came from).
    Write {
        /// The new status.
        status: RouteStatus,
        /// `me`'s desired entries that did not fit under the 32-entry cap (foreign entries
        /// are never evicted to make room).
        dropped: Vec<ParentReference>,
    },
    /// The stored status was written for a newer generation than the route copy `me` has:
    /// `me`'s copy is stale; do not write (Gateway API RouteStatus.parents).
    Stale {
        /// The newest `observedGeneration` stored.
        stored: i64,
        /// The generation `me` knows.
        known: i64,
    },
}

/// Merges `desired` (for `me`) into `existing`. Returns the status to write, or `None` when
/// nothing would change or the write must be refused (see [`merge_outcome`] for which).
///
/// ```
/// use gamma_arbiter::merge;
/// use gamma_arbiter::DesiredStatus;
/// use gamma_arbiter::Identity;
/// use gamma_model::gateway::RouteStatus;
/// use gamma_model::meta::Time;
///
/// let me = Identity::new("istio.io/gateway-controller");
/// let now = Time::from_unix(1_700_000_000, 0);
/// // Nothing desired and nothing stored: nothing to write.
/// assert_eq!(merge(&RouteStatus::default(), &DesiredStatus::default(), &me, 1, now), None);
/// ```
pub fn merge(
    existing: &RouteStatus,
    desired: &DesiredStatus,
    me: &Identity,
    route_generation: i64,
    now: Time,
) -> Option<RouteStatus> {
    match merge_outcome(existing, desired, me, route_generation, now) {
        MergeOutcome::Write { status, .. } => Some(status),
        _ => None,
    }
}

/// [`merge`], saying why nothing is written.
///
/// - Refuses ([`MergeOutcome::Stale`]) when any stored condition has an `observedGeneration`
///   newer than `route_generation`.
/// - Entries of other controllers stay untouched, in place.
/// - `me`'s entries (under its name or any alias) that are not desired are removed, except those
///   for parentRefs in `desired.keep`, which stay as they are. Entries under an alias are
///   rewritten under `me.name`.
/// - A condition whose status is unchanged keeps its `lastTransitionTime`; others get `now`.
/// - No condition of an entry `me` writes is left at an old generation (every condition of
///   `me`'s entry is `me`'s): a stored condition of a type `desired` lacks is removed when it
///   is `Accepted`, `ResolvedRefs` or `PartiallyInvalid`; of any other type (one the embedder
///   wrote and did not supply this time) it stays in place as stored when its
///   `observedGeneration` is `route_generation`, and is otherwise refreshed: `Unknown`, reason
///   `Pending`, at `route_generation` (docs/status-protocol.md).
/// - The 32-entry cap is respected by dropping `me`'s entries from the end.
pub fn merge_outcome(
    existing: &RouteStatus,
    desired: &DesiredStatus,
    me: &Identity,
    route_generation: i64,
    now: Time,
) -> MergeOutcome {
    merge_capped(existing, desired, me, route_generation, now, MAX_PARENTS)
}

/// [`merge_outcome`] under a list cap of `cap` entries: the same protocol serves policy
/// ancestor status (`PolicyStatus.ancestors`, at most 16, see [`crate::merge_policy_status`]).
pub(crate) fn merge_capped(
    existing: &RouteStatus,
    desired: &DesiredStatus,
    me: &Identity,
    route_generation: i64,
    now: Time,
    cap: usize,
) -> MergeOutcome {
    let stored = existing
        .parents
        .iter()
        .flat_map(|p| &p.conditions)
        .filter_map(|c| c.observed_generation)
        .max();
    if let Some(stored) = stored
        && stored > route_generation
    {
        return MergeOutcome::Stale {
            stored,
            known: route_generation,
        };
    }
    let mut placed = vec![false; desired.entries.len()];
    // (entry, whether it is one of me's rewritable entries)
    let mut out: Vec<(RouteParentStatus, bool)> = Vec::with_capacity(existing.parents.len());
    for e in &existing.parents {
        if !me.answers_to(&e.controller_name) || desired.keep.contains(&e.parent_ref) {
            out.push((e.clone(), false));
            continue;
        }
        if e.controller_name == me.name {
            let slot = desired.entries.iter().enumerate().position(|(i, d)| {
                d.parent_ref == e.parent_ref && !placed.get(i).copied().unwrap_or(true)
            });
            if let (Some(i), Some(d)) = (slot, slot.and_then(|i| desired.entries.get(i))) {
                if let Some(p) = placed.get_mut(i) {
                    *p = true;
                }
                out.push((merge_entry(Some(e), d, me, route_generation, now), true));
            }
        }
        // Otherwise: stale, duplicate, or under an old alias: removed.
    }
    for (i, d) in desired.entries.iter().enumerate() {
        if placed.get(i).copied().unwrap_or(true) {
            continue;
        }
        // A parentRef both desired and kept: an entry `me` already has for it was kept as it is
        // above, and adding the desired one as well would add another copy on every merge.
        if desired.keep.contains(&d.parent_ref)
            && existing
                .parents
                .iter()
                .any(|e| e.parent_ref == d.parent_ref && me.answers_to(&e.controller_name))
        {
            continue;
        }
        // Carry transition times over from an entry under an old alias for the same parent.
        let previous = existing
            .parents
            .iter()
            .find(|e| e.parent_ref == d.parent_ref && me.answers_to(&e.controller_name));
        out.push((merge_entry(previous, d, me, route_generation, now), true));
    }
    let mut dropped = Vec::new();
    while out.len() > cap {
        match out.iter().rposition(|(_, mine)| *mine) {
            Some(i) => dropped.push(out.remove(i).0.parent_ref),
            None => break,
        }
    }
    dropped.reverse();
    let status = RouteStatus {
        parents: out.into_iter().map(|(e, _)| e).collect(),
    };
    if same_ignoring_order_and_time(existing, &status) {
        MergeOutcome::Unchanged
    } else {
        MergeOutcome::Write { status, dropped }
    }
}

fn managed(type_: &str) -> bool {
    matches!(type_, t if t == ACCEPTED || t == RESOLVED_REFS || t == PARTIALLY_INVALID)
}

/// A condition of `me`'s that `me` did not write for `generation`, refreshed: an
/// `observedGeneration` of `generation` it already has is kept as it is (written for this
/// generation, e.g. by the embedder in a write of its own); otherwise it becomes `Unknown` with
/// reason `Pending` at `generation` (Gateway API GatewayConditionType Programmed: "It should be
/// set to Unknown if the controller performs updates to the status before it has all the
/// information it needs to be able to determine if the condition is true"), its
/// `lastTransitionTime` moving only if its status changes. So no condition `me` owns is left
/// at an old `observedGeneration` (the v1.7 "preserve foreign status" conformance tests require
/// every condition but the foreign ones at the object's latest generation).
pub(crate) fn refreshed(old: &Condition, generation: i64, now: Time) -> Condition {
    if old.observed_generation == Some(generation) {
        return old.clone();
    }
    Condition {
        type_: old.type_.clone(),
        status: ConditionStatus::Unknown,
        observed_generation: Some(generation),
        last_transition_time: if old.status == ConditionStatus::Unknown {
            old.last_transition_time
        } else {
            now
        },
        reason: PENDING.into(),
        message: format!("not reported for generation {generation}"),
    }
}

fn merge_entry(
    previous: Option<&RouteParentStatus>,
    desired: &RouteParentStatus,
    me: &Identity,
    generation: i64,
    now: Time,
) -> RouteParentStatus {
    let old: &[Condition] = previous.map_or(&[], |p| &p.conditions);
    let stamp = |c: &Condition| -> Condition {
        let mut c = c.clone();
        c.last_transition_time = match old.iter().find(|o| o.type_ == c.type_) {
            Some(o) if o.status == c.status => o.last_transition_time,
            _ => now,
        };
        c
    };
    let mut conditions: Vec<Condition> = Vec::new();
    let mut used = vec![false; desired.conditions.len()];
    for o in old {
        if let Some(i) = desired.conditions.iter().position(|d| d.type_ == o.type_) {
            if let (Some(u), Some(d)) = (used.get_mut(i), desired.conditions.get(i))
                && !*u
            {
                *u = true;
                conditions.push(stamp(d));
            }
        } else if !managed(&o.type_) && !conditions.iter().any(|c| c.type_ == o.type_) {
            conditions.push(refreshed(o, generation, now));
        }
    }
    for (i, d) in desired.conditions.iter().enumerate() {
        if !used.get(i).copied().unwrap_or(true) && !conditions.iter().any(|c| c.type_ == d.type_) {
            conditions.push(stamp(d));
        }
    }
    conditions.truncate(MAX_CONDITIONS);
    RouteParentStatus {
        parent_ref: desired.parent_ref.clone(),
        controller_name: me.name.clone(),
        conditions,
    }
}

fn same_entry(a: &RouteParentStatus, b: &RouteParentStatus) -> bool {
    a.parent_ref == b.parent_ref
        && a.controller_name == b.controller_name
        && a.conditions.len() == b.conditions.len()
        && a.conditions.iter().all(|c| {
            b.conditions.iter().any(|d| {
                c.type_ == d.type_
                    && c.status == d.status
                    && c.reason == d.reason
                    && c.message == d.message
                    && c.observed_generation == d.observed_generation
            })
        })
}

/// Whether two statuses hold the same entries, ignoring entry and condition order and
/// `lastTransitionTime`.
pub fn same_ignoring_order_and_time(a: &RouteStatus, b: &RouteStatus) -> bool {
    if a.parents.len() != b.parents.len() {
        return false;
    }
    let mut used = vec![false; b.parents.len()];
    a.parents.iter().all(|x| {
        let hit = b
            .parents
            .iter()
            .enumerate()
            .find(|(i, y)| !used.get(*i).copied().unwrap_or(true) && same_entry(x, y));
        match hit {
            Some((i, _)) => {
                if let Some(u) = used.get_mut(i) {
                    *u = true;
                }
                true
            }
            None => false,
        }
    })
}
