//! The pure Gateway status merge (Gateway API GatewayStatus): the Gateway's controller (its
//! GatewayClass's `controllerName`, the only one that writes a Gateway's status) rewrites the
//! conditions it computes and leaves the rest as stored, and writes nothing when nothing would
//! change.
//!
//! What is `me`'s: the condition types present in `desired` (gamma-resolve computes the
//! Gateway's `Accepted`, and each listener's `Accepted`, `ResolvedRefs` and `Conflicted`; the
//! embedding controller supplies others, such as `Programmed`, for the same write), the type
//! `Programmed` in any case ([`OWN_TYPES`]: the summary condition the API gives the Gateway's
//! controller), each listener's `attachedRoutes` and `supportedKinds`, the listener list
//! itself (a listener no longer in the spec has no status), `attachedListenerSets` when
//! `desired` has it (the count gamma-resolve computes), and `addresses` when `desired` has
//! some (the embedder supplies them: only its data plane knows what it bound).
//!
//! What is not `me`'s: every other condition type (GatewayStatus.conditions: "Implementations
//! MUST NOT remove or reorder Conditions that they are not directly responsible for. For
//! example, if an implementation sees a Condition with type `special.io/SomeField`, it MUST
//! NOT remove, change or update that Condition"): it stays byte for byte, in place.
//!
//! A condition of an own type that `desired` lacks (a `Programmed` the embedder did not supply)
//! is never left at an old generation: kept as stored when written for this generation,
//! otherwise refreshed to `Unknown`/`Pending` at this generation (see `refreshed` in the route
//! merge). One of the [`TRANSIENT_TYPES`] that `desired` lacks is removed: the API has it
//! present only while its cause holds.
//!
//! A ListenerSet's status is the parent Gateway controller's too (GEP-1713: the ListenerSet's
//! parent Gateway's GatewayClass `controllerName` decides), merged the same way
//! ([`merge_listener_set_status`]): its conditions and its listener entries.

use gamma_model::gateway::{Condition, GatewayStatus, ListenerSetStatus, ListenerStatus};
use gamma_model::meta::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::merge::{MAX_CONDITIONS, refreshed};

/// Condition types of a Gateway, a ListenerSet and their listeners that are always the
/// controller's, computed or not: `Programmed`, which the API makes a summary condition of the
/// controller ("It is a positive-polarity summary condition, and so should always be present on
/// the resource with ObservedGeneration set", GatewayConditionType Programmed).
pub const OWN_TYPES: &[&str] = &["Programmed"];

/// Condition types that are the controller's and present only while their cause holds: a
/// stored one that `desired` lacks is removed. `InsecureFrontendValidationMode` "is removed as
/// soon as FrontendValidationModeType is changed back to `AllowValidOnly`"
/// (GatewayConditionInsecureFrontendValidationMode).
pub const TRANSIENT_TYPES: &[&str] = &["InsecureFrontendValidationMode"];

/// Upstream `GatewayStatus.listeners` MaxItems.
pub const MAX_LISTENERS: usize = 64;

/// The result of [`merge_gateway_status`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "outcome", rename_all = "camelCase")]
#[non_exhaustive]
pub enum GatewayMergeOutcome {
    /// Nothing would change (ignoring `lastTransitionTime`): do not write.
    Unchanged,
    /// Write this status (a read-modify-write on the copy `existing` came from).
    Write {
        /// The new status.
        status: GatewayStatus,
    },
    /// The stored status was written for a newer generation than the Gateway copy `me` has:
    /// do not write (Condition.observedGeneration).
    Stale {
        /// The newest `observedGeneration` stored.
        stored: i64,
        /// The generation `me` knows.
        known: i64,
    },
}

/// Merges `desired` into `existing` for the Gateway's controller at `generation`.
///
/// - Refuses ([`GatewayMergeOutcome::Stale`]) when a stored condition (of the Gateway or a
///   listener) has an `observedGeneration` newer than `generation`.
/// - Conditions of the types `desired` has (per Gateway, per listener) are replaced, stamped
///   with `generation`; one whose status is unchanged keeps its `lastTransitionTime`, others
///   get `now`.
/// - A stored condition of a type in [`OWN_TYPES`] that `desired` lacks is kept when its
///   `observedGeneration` is `generation`, and otherwise refreshed to `Unknown` with reason
///   `Pending` at `generation`: no condition of `me`'s is left at an old generation.
/// - A stored condition of a type in [`TRANSIENT_TYPES`] that `desired` lacks is removed.
/// - Every other condition type stays exactly as stored, in place (another controller's).
/// - Listeners follow `desired` (its order and names); a listener's stored conditions follow
///   the same rules.
/// - `attachedListenerSets` is `desired`'s when it has one, else as stored; `addresses` are
///   `desired`'s when it has any (supplied by the embedder), else as stored.
///
/// ```
/// use gamma_arbiter::{GatewayMergeOutcome, merge_gateway_status};
/// use gamma_model::gateway::GatewayStatus;
/// use gamma_model::meta::Time;
///
/// let now = Time::from_unix(1_700_000_000, 0);
/// let nothing = GatewayStatus::default();
/// assert_eq!(merge_gateway_status(&nothing, &nothing, 1, now), GatewayMergeOutcome::Unchanged);
/// ```
pub fn merge_gateway_status(
    existing: &GatewayStatus,
    desired: &GatewayStatus,
    generation: i64,
    now: Time,
) -> GatewayMergeOutcome {
    if let Some(stored) = newest_generation(&existing.conditions, &existing.listeners)
        && stored > generation
    {
        return GatewayMergeOutcome::Stale {
            stored,
            known: generation,
        };
    }
    let status = GatewayStatus {
        addresses: if desired.addresses.is_empty() {
            existing.addresses.clone()
        } else {
            desired.addresses.clone()
        },
        conditions: merge_conditions(&existing.conditions, &desired.conditions, generation, now),
        listeners: merge_listeners(&existing.listeners, &desired.listeners, generation, now),
        attached_listener_sets: desired
            .attached_listener_sets
            .or(existing.attached_listener_sets),
    };
    if same_ignoring_time(existing, &status) {
        GatewayMergeOutcome::Unchanged
    } else {
        GatewayMergeOutcome::Write { status }
    }
}

/// The result of [`merge_listener_set_status`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "outcome", rename_all = "camelCase")]
#[non_exhaustive]
pub enum ListenerSetMergeOutcome {
    /// Nothing would change (ignoring `lastTransitionTime`): do not write.
    Unchanged,
    /// Write this status (a read-modify-write on the copy `existing` came from).
    Write {
        /// The new status.
        status: ListenerSetStatus,
    },
    /// The stored status was written for a newer generation than the ListenerSet copy `me`
    /// has: do not write (Condition.observedGeneration).
    Stale {
        /// The newest `observedGeneration` stored.
        stored: i64,
        /// The generation `me` knows.
        known: i64,
    },
}

/// Merges `desired` into a ListenerSet's `existing` status for the parent Gateway's controller
/// at the ListenerSet's `generation`, as [`merge_gateway_status`] merges a Gateway's: the
/// condition types `desired` has are replaced (others, such as `Programmed=True` from the data
/// plane, stay), listeners follow `desired`, nothing is written when nothing changes, and a
/// stored status of a newer generation is never overwritten.
///
/// ```
/// use gamma_arbiter::{ListenerSetMergeOutcome, merge_listener_set_status};
/// use gamma_model::gateway::ListenerSetStatus;
/// use gamma_model::meta::Time;
///
/// let now = Time::from_unix(1_700_000_000, 0);
/// let nothing = ListenerSetStatus::default();
/// assert_eq!(
///     merge_listener_set_status(&nothing, &nothing, 1, now),
///     ListenerSetMergeOutcome::Unchanged
/// );
/// ```
pub fn merge_listener_set_status(
    existing: &ListenerSetStatus,
    desired: &ListenerSetStatus,
    generation: i64,
    now: Time,
) -> ListenerSetMergeOutcome {
    if let Some(stored) = newest_generation(&existing.conditions, &existing.listeners)
        && stored > generation
    {
        return ListenerSetMergeOutcome::Stale {
            stored,
            known: generation,
        };
    }
    let status = ListenerSetStatus {
        conditions: merge_conditions(&existing.conditions, &desired.conditions, generation, now),
        listeners: merge_listeners(&existing.listeners, &desired.listeners, generation, now),
    };
    if same_conditions(&existing.conditions, &status.conditions)
        && same_listeners(&existing.listeners, &status.listeners)
    {
        ListenerSetMergeOutcome::Unchanged
    } else {
        ListenerSetMergeOutcome::Write { status }
    }
}

/// The newest `observedGeneration` of an object's and its listeners' conditions.
fn newest_generation(conditions: &[Condition], listeners: &[ListenerStatus]) -> Option<i64> {
    conditions
        .iter()
        .chain(listeners.iter().flat_map(|l| &l.conditions))
        .filter_map(|c| c.observed_generation)
        .max()
}

/// Listener entries following `desired` (its order and names, at most [`MAX_LISTENERS`]), each
/// listener's stored conditions of other types kept.
fn merge_listeners(
    existing: &[ListenerStatus],
    desired: &[ListenerStatus],
    generation: i64,
    now: Time,
) -> Vec<ListenerStatus> {
    desired
        .iter()
        .take(MAX_LISTENERS)
        .map(|d| {
            let old = existing.iter().find(|l| l.name == d.name);
            ListenerStatus {
                name: d.name.clone(),
                supported_kinds: d.supported_kinds.clone(),
                attached_routes: d.attached_routes,
                conditions: merge_conditions(
                    old.map_or(&[], |l| &l.conditions),
                    &d.conditions,
                    generation,
                    now,
                ),
            }
        })
        .collect()
}

/// `old` with the types of `desired` replaced (in `old`'s place, new types appended), the
/// [`OWN_TYPES`] `desired` lacks refreshed, every other type of `old` kept as it is.
fn merge_conditions(
    old: &[Condition],
    desired: &[Condition],
    generation: i64,
    now: Time,
) -> Vec<Condition> {
    let stamp = |d: &Condition| -> Condition {
        let mut c = d.clone();
        c.observed_generation = Some(generation);
        c.last_transition_time = match old.iter().find(|o| o.type_ == d.type_) {
            Some(o) if o.status == d.status => o.last_transition_time,
            _ => now,
        };
        c
    };
    let mut out: Vec<Condition> = Vec::with_capacity(old.len().max(desired.len()));
    for o in old {
        match desired.iter().find(|d| d.type_ == o.type_) {
            Some(d) => {
                if !out.iter().any(|c| c.type_ == d.type_) {
                    out.push(stamp(d));
                }
            }
            None if OWN_TYPES.contains(&o.type_.as_str()) => {
                if !out.iter().any(|c| c.type_ == o.type_) {
                    out.push(refreshed(o, generation, now));
                }
            }
            None if TRANSIENT_TYPES.contains(&o.type_.as_str()) => {}
            None => out.push(o.clone()),
        }
    }
    for d in desired {
        if !out.iter().any(|c| c.type_ == d.type_) {
            out.push(stamp(d));
        }
    }
    // the 8-condition cap is met by leaving out `me`'s own conditions from the end, never
    // another controller's
    let own = |c: &Condition| {
        OWN_TYPES.contains(&c.type_.as_str()) || desired.iter().any(|d| d.type_ == c.type_)
    };
    while out.len() > MAX_CONDITIONS {
        match out.iter().rposition(own) {
            Some(i) => {
                out.remove(i);
            }
            None => break,
        }
    }
    out
}

fn same_conditions(a: &[Condition], b: &[Condition]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.type_ == y.type_
                && x.status == y.status
                && x.reason == y.reason
                && x.message == y.message
                && x.observed_generation == y.observed_generation
        })
}

/// Whether two Gateway statuses are the same but for `lastTransitionTime`.
fn same_ignoring_time(a: &GatewayStatus, b: &GatewayStatus) -> bool {
    a.addresses == b.addresses
        && a.attached_listener_sets == b.attached_listener_sets
        && same_conditions(&a.conditions, &b.conditions)
        && same_listeners(&a.listeners, &b.listeners)
}

fn same_listeners(a: &[ListenerStatus], b: &[ListenerStatus]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.name == y.name
                && x.supported_kinds == y.supported_kinds
                && x.attached_routes == y.attached_routes
                && same_conditions(&x.conditions, &y.conditions)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_model::gateway::ConditionStatus;

    fn cond(type_: &str, ok: bool, reason: &str) -> Condition {
        Condition {
            type_: type_.into(),
            status: ConditionStatus::from(ok),
            observed_generation: None,
            last_transition_time: Time::UNIX_EPOCH,
            reason: reason.into(),
            message: String::new(),
        }
    }

    fn listener(name: &str, attached: i32, conditions: Vec<Condition>) -> ListenerStatus {
        ListenerStatus {
            name: name.into(),
            supported_kinds: Vec::new(),
            attached_routes: attached,
            conditions,
        }
    }

    fn desired() -> GatewayStatus {
        GatewayStatus {
            conditions: vec![cond("Accepted", true, "Accepted")],
            listeners: vec![listener(
                "http",
                2,
                vec![cond("Accepted", true, "Accepted")],
            )],
            ..GatewayStatus::default()
        }
    }

    fn written(o: GatewayMergeOutcome) -> GatewayStatus {
        match o {
            GatewayMergeOutcome::Write { status } => status,
            other => panic!("{other:?}"),
        }
    }

    // GatewayStatus.conditions: "Implementations MUST NOT remove or reorder Conditions that
    // they are not directly responsible for": a foreign type stays byte for byte, in place, on
    // the Gateway and on a listener, while the computed ones are stamped; the addresses stay.
    #[test]
    fn a_gateway_merge_keeps_foreign_conditions_byte_for_byte_and_the_addresses() {
        let t0 = Time::from_unix(1_000, 0);
        let mut foreign = cond("special.io/SomeField", true, "Seeded");
        foreign.observed_generation = Some(1);
        foreign.last_transition_time = Time::from_unix(77, 0);
        let mut existing = GatewayStatus {
            conditions: vec![foreign.clone()],
            listeners: vec![listener("http", 0, vec![foreign.clone()])],
            ..GatewayStatus::default()
        };
        existing
            .addresses
            .push(gamma_model::gateway::GatewayStatusAddress {
                type_: None,
                value: "192.0.2.1".into(),
                routability: None,
            });
        let s = written(merge_gateway_status(&existing, &desired(), 3, t0));
        let types: Vec<&str> = s.conditions.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, ["special.io/SomeField", "Accepted"]);
        assert_eq!(s.conditions[0], foreign);
        assert_eq!(s.conditions[1].observed_generation, Some(3));
        assert_eq!(s.conditions[1].last_transition_time, t0);
        assert_eq!(s.listeners[0].attached_routes, 2);
        assert_eq!(s.listeners[0].conditions[0], foreign);
        assert_eq!(s.listeners[0].conditions.len(), 2);
        assert_eq!(s.addresses, existing.addresses);
    }

    // Programmed is the controller's summary condition ("should always be present on the
    // resource with ObservedGeneration set"): not supplied, it is never left at an old
    // generation. Written for this generation (by the embedder's own write) it stays; from an
    // older one it becomes Unknown/Pending at this generation, on the Gateway and listeners.
    #[test]
    fn an_unsupplied_programmed_is_kept_at_this_generation_and_refreshed_from_an_older_one() {
        let (t0, t1) = (Time::from_unix(1_000, 0), Time::from_unix(2_000, 0));
        let mut programmed = cond("Programmed", true, "Programmed");
        programmed.observed_generation = Some(2);
        let existing = GatewayStatus {
            conditions: vec![programmed.clone()],
            listeners: vec![listener("http", 2, vec![programmed.clone()])],
            ..GatewayStatus::default()
        };
        let same = written(merge_gateway_status(&existing, &desired(), 2, t0));
        assert_eq!(same.conditions[0], programmed);
        assert_eq!(same.listeners[0].conditions[0], programmed);
        let next = written(merge_gateway_status(&existing, &desired(), 3, t1));
        for c in [&next.conditions[0], &next.listeners[0].conditions[0]] {
            assert_eq!(c.type_, "Programmed");
            assert_eq!(c.status, ConditionStatus::Unknown);
            assert_eq!(c.reason, "Pending");
            assert_eq!(c.observed_generation, Some(3));
            assert_eq!(c.last_transition_time, t1);
        }
        // a refreshed condition is stable: merging again writes nothing
        assert_eq!(
            merge_gateway_status(&next, &desired(), 3, t1),
            GatewayMergeOutcome::Unchanged
        );
    }

    // GatewayConditionInsecureFrontendValidationMode: "This condition is removed as soon as
    // FrontendValidationModeType is changed back to `AllowValidOnly`". Computed, it is written;
    // no longer computed, it goes, while a foreign condition stays.
    #[test]
    fn insecure_frontend_validation_mode_is_removed_once_no_longer_computed() {
        let t0 = Time::from_unix(1_000, 0);
        let insecure = cond(
            "InsecureFrontendValidationMode",
            true,
            "ConfigurationChanged",
        );
        let mut with = desired();
        with.conditions.push(insecure);
        let foreign = cond("special.io/SomeField", true, "Whatever");
        let existing = GatewayStatus {
            conditions: vec![foreign.clone()],
            ..GatewayStatus::default()
        };
        let on = written(merge_gateway_status(&existing, &with, 2, t0));
        assert!(
            on.conditions
                .iter()
                .any(|c| c.type_ == "InsecureFrontendValidationMode"
                    && c.observed_generation == Some(2)),
            "{:?}",
            on.conditions
        );
        let off = written(merge_gateway_status(&on, &desired(), 3, t0));
        let types: Vec<&str> = off.conditions.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, ["special.io/SomeField", "Accepted"]);
        assert_eq!(off.conditions[0], foreign);
    }

    // The embedder supplies Programmed in the desired status: written in the same write as the
    // computed conditions, stamped with the new generation; supplied addresses replace the
    // stored ones.
    #[test]
    fn a_supplied_programmed_and_addresses_are_written_at_the_new_generation() {
        let t0 = Time::from_unix(1_000, 0);
        let mut old = cond("Programmed", false, "Pending");
        old.observed_generation = Some(1);
        let existing = GatewayStatus {
            conditions: vec![old],
            ..GatewayStatus::default()
        };
        let mut supplied = desired();
        supplied
            .conditions
            .push(cond("Programmed", true, "Programmed"));
        supplied
            .addresses
            .push(gamma_model::gateway::GatewayStatusAddress {
                type_: None,
                value: "192.0.2.9".into(),
                routability: None,
            });
        let s = written(merge_gateway_status(&existing, &supplied, 2, t0));
        let p = s
            .conditions
            .iter()
            .find(|c| c.type_ == "Programmed")
            .unwrap();
        assert_eq!(p.status, ConditionStatus::True);
        assert_eq!(p.observed_generation, Some(2));
        assert_eq!(s.addresses, supplied.addresses);
    }

    // The 8-condition cap never costs another controller's condition: our own are left out.
    #[test]
    fn the_condition_cap_drops_our_conditions_never_a_foreign_one() {
        let t0 = Time::from_unix(1_000, 0);
        let foreign: Vec<Condition> = (0..8)
            .map(|i| cond(&format!("example.com/F{i}"), true, "Seeded"))
            .collect();
        let existing = GatewayStatus {
            conditions: foreign.clone(),
            ..GatewayStatus::default()
        };
        match merge_gateway_status(&existing, &desired(), 1, t0) {
            GatewayMergeOutcome::Write { status } => {
                assert_eq!(status.conditions[..8], foreign[..]);
            }
            GatewayMergeOutcome::Unchanged => {}
            other => panic!("{other:?}"),
        }
    }

    // Write nothing when unchanged; a later merge of the same conditions keeps their
    // lastTransitionTime (Condition.lastTransitionTime: "the last time the condition
    // transitioned from one status to another").
    #[test]
    fn a_gateway_merge_writes_nothing_when_unchanged_and_keeps_transition_times() {
        let (t0, t1) = (Time::from_unix(1_000, 0), Time::from_unix(2_000, 0));
        let first = written(merge_gateway_status(
            &GatewayStatus::default(),
            &desired(),
            1,
            t0,
        ));
        assert_eq!(
            merge_gateway_status(&first, &desired(), 1, t1),
            GatewayMergeOutcome::Unchanged
        );
        // a new generation with the same status: observedGeneration moves, the time stays
        let second = written(merge_gateway_status(&first, &desired(), 2, t1));
        assert_eq!(second.conditions[0].observed_generation, Some(2));
        assert_eq!(second.conditions[0].last_transition_time, t0);
        // a status change gets the new time
        let mut down = desired();
        down.conditions[0] = cond("Accepted", false, "ListenersNotValid");
        let third = written(merge_gateway_status(&second, &down, 2, t1));
        assert_eq!(third.conditions[0].last_transition_time, t1);
    }

    // observedGeneration: a status written for a newer generation than the copy at hand is
    // never overwritten from it.
    #[test]
    fn a_gateway_merge_refuses_a_stale_copy() {
        let t0 = Time::from_unix(1_000, 0);
        let stored = written(merge_gateway_status(
            &GatewayStatus::default(),
            &desired(),
            5,
            t0,
        ));
        assert_eq!(
            merge_gateway_status(&stored, &desired(), 4, t0),
            GatewayMergeOutcome::Stale {
                stored: 5,
                known: 4
            }
        );
    }

    // GatewayStatus.attachedListenerSets: "the total number of ListenerSets that have been
    // successfully attached to this Gateway": the computed count is written, and a change of
    // the count alone is a write; a desired status without a count keeps the stored one.
    #[test]
    fn a_gateway_merge_writes_the_computed_attached_listener_sets() {
        let t0 = Time::from_unix(1_000, 0);
        let stored = GatewayStatus {
            attached_listener_sets: Some(5),
            ..written(merge_gateway_status(
                &GatewayStatus::default(),
                &desired(),
                1,
                t0,
            ))
        };
        let mut counted = desired();
        counted.attached_listener_sets = Some(2);
        let s = written(merge_gateway_status(&stored, &counted, 1, t0));
        assert_eq!(s.attached_listener_sets, Some(2));
        assert_eq!(
            merge_gateway_status(&s, &counted, 1, t0),
            GatewayMergeOutcome::Unchanged
        );
        assert_eq!(
            merge_gateway_status(&stored, &desired(), 1, t0),
            GatewayMergeOutcome::Unchanged,
            "no computed count: the stored one stays"
        );
    }

    // GEP-1713 ListenerSetStatus: the parent Gateway's controller merges its computed
    // conditions and listener entries; Programmed from the data plane stays; nothing is
    // written when unchanged, and lastTransitionTime moves only with the status.
    #[test]
    fn a_listener_set_merge_keeps_other_conditions_and_writes_nothing_when_unchanged() {
        let (t0, t1) = (Time::from_unix(1_000, 0), Time::from_unix(2_000, 0));
        let desired = ListenerSetStatus {
            conditions: vec![cond("Accepted", true, "Accepted")],
            listeners: vec![listener("a", 1, vec![cond("Accepted", true, "Accepted")])],
        };
        let existing = ListenerSetStatus {
            conditions: vec![cond("Programmed", true, "Programmed")],
            listeners: vec![listener("gone", 0, Vec::new())],
        };
        let s = match merge_listener_set_status(&existing, &desired, 4, t0) {
            ListenerSetMergeOutcome::Write { status } => status,
            other => panic!("{other:?}"),
        };
        let types: Vec<&str> = s.conditions.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, ["Programmed", "Accepted"]);
        assert_eq!(s.conditions[1].observed_generation, Some(4));
        let names: Vec<&str> = s.listeners.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["a"]);
        assert_eq!(
            merge_listener_set_status(&s, &desired, 4, t1),
            ListenerSetMergeOutcome::Unchanged
        );
        let mut down = desired.clone();
        down.conditions[0] = cond("Accepted", false, "ListenersNotValid");
        let again = match merge_listener_set_status(&s, &down, 4, t1) {
            ListenerSetMergeOutcome::Write { status } => status,
            other => panic!("{other:?}"),
        };
        assert_eq!(again.conditions[1].last_transition_time, t1);
        assert_eq!(again.listeners[0].conditions[0].last_transition_time, t0);
        assert_eq!(
            merge_listener_set_status(&again, &down, 3, t1),
            ListenerSetMergeOutcome::Stale {
                stored: 4,
                known: 3
            }
        );
    }

    // A listener removed from the spec loses its status entry; listeners follow the spec order.
    #[test]
    fn a_gateway_merge_drops_listeners_no_longer_in_the_spec() {
        let t0 = Time::from_unix(1_000, 0);
        let existing = GatewayStatus {
            listeners: vec![
                listener("gone", 1, Vec::new()),
                listener("http", 0, Vec::new()),
            ],
            ..GatewayStatus::default()
        };
        let s = written(merge_gateway_status(&existing, &desired(), 1, t0));
        let names: Vec<&str> = s.listeners.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["http"]);
    }
}
