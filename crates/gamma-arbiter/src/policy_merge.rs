//! The pure policy status merge (GEP-713 PolicyStatus, used by BackendTLSPolicy): `me` rewrites
//! only the ancestor entries carrying its `controllerName`, leaves every other controller's
//! entry untouched and in place, and writes nothing when nothing would change.
//!
//! PolicyStatus.ancestors: "implementations MUST ONLY populate ancestor status for the Ancestor
//! resources they are responsible for. Implementations MUST use the ControllerName field to
//! uniquely identify the entries in this list that they are responsible for", and the list is
//! "a map with a composite key, made up of the AncestorRef and ControllerName fields combined".
//! That is the route status protocol with `ancestorRef` for `parentRef`, so this is the route
//! merge ([`crate::merge_outcome`]) under the policy list's cap of 16: "If this slice is full,
//! implementations MUST NOT add further entries" (`me`'s entries that do not fit are dropped
//! and reported, another controller's are never evicted).

use gamma_model::gateway::{
    Condition, ParentReference, PolicyAncestorStatus, PolicyStatus, RouteParentStatus, RouteStatus,
};
use gamma_model::meta::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::merge::{MergeOutcome, merge_capped};
use crate::registry::Identity;
use crate::status::DesiredStatus;

/// Upstream `PolicyStatus.ancestors` MaxItems.
pub const MAX_ANCESTORS: usize = 16;

/// The result of [`merge_policy_status`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "outcome", rename_all = "camelCase")]
#[non_exhaustive]
pub enum PolicyMergeOutcome {
    /// Nothing would change (ignoring order and `lastTransitionTime`): do not write.
    Unchanged,
    /// Write this status (a read-modify-write on the copy `existing` came from).
    Write {
        /// The new status.
        status: PolicyStatus,
        /// `me`'s desired ancestors that did not fit under the 16-entry cap.
        dropped: Vec<ParentReference>,
    },
    /// The stored status was written for a newer generation of the policy than the copy `me`
    /// has: do not write.
    Stale {
        /// The newest `observedGeneration` stored.
        stored: i64,
        /// The generation `me` knows.
        known: i64,
    },
}

/// Merges `desired` (`me`'s entries: one per ancestor `me` is responsible for, conditions
/// unstamped) into `existing` for the policy at `generation`.
///
/// - Refuses ([`PolicyMergeOutcome::Stale`]) when a stored condition has an
///   `observedGeneration` newer than `generation`.
/// - Entries of other controllers stay exactly as stored, in place.
/// - `me`'s entries (under its name or an alias) for ancestors not in `desired` are removed;
///   the others are rewritten under `me.name`, conditions stamped with `generation`; a
///   condition whose status is unchanged keeps its `lastTransitionTime`, others get `now`.
/// - At most [`MAX_ANCESTORS`] entries: `me`'s new entries that do not fit are dropped.
///
/// ```
/// use gamma_arbiter::{Identity, PolicyMergeOutcome, merge_policy_status};
/// use gamma_model::gateway::PolicyStatus;
/// use gamma_model::meta::Time;
///
/// let me = Identity::new("example.com/gateway");
/// let now = Time::from_unix(1_700_000_000, 0);
/// let nothing = PolicyStatus::default();
/// assert_eq!(
///     merge_policy_status(&nothing, &[], &me, 1, now),
///     PolicyMergeOutcome::Unchanged
/// );
/// ```
pub fn merge_policy_status(
    existing: &PolicyStatus,
    desired: &[PolicyAncestorStatus],
    me: &Identity,
    generation: i64,
    now: Time,
) -> PolicyMergeOutcome {
    let stamp = |c: &Condition| Condition {
        observed_generation: Some(generation),
        ..c.clone()
    };
    let desired = DesiredStatus {
        entries: desired
            .iter()
            .map(|a| RouteParentStatus {
                parent_ref: a.ancestor_ref.clone(),
                controller_name: me.name.clone(),
                conditions: a.conditions.iter().map(stamp).collect(),
            })
            .collect(),
        keep: Vec::new(),
    };
    let as_route = RouteStatus {
        parents: existing
            .ancestors
            .iter()
            .map(|a| RouteParentStatus {
                parent_ref: a.ancestor_ref.clone(),
                controller_name: a.controller_name.clone(),
                conditions: a.conditions.clone(),
            })
            .collect(),
    };
    match merge_capped(&as_route, &desired, me, generation, now, MAX_ANCESTORS) {
        MergeOutcome::Write { status, dropped } => PolicyMergeOutcome::Write {
            status: PolicyStatus {
                ancestors: status
                    .parents
                    .into_iter()
                    .map(|p| PolicyAncestorStatus {
                        ancestor_ref: p.parent_ref,
                        controller_name: p.controller_name,
                        conditions: p.conditions,
                    })
                    .collect(),
            },
            dropped,
        },
        MergeOutcome::Stale { stored, known } => PolicyMergeOutcome::Stale { stored, known },
        _ => PolicyMergeOutcome::Unchanged,
    }
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

    fn gateway(name: &str) -> ParentReference {
        ParentReference {
            name: name.into(),
            namespace: Some("infra".into()),
            group: Some("gateway.networking.k8s.io".into()),
            kind: Some("Gateway".into()),
            ..ParentReference::default()
        }
    }

    fn entry(name: &str, controller: &str, ok: bool) -> PolicyAncestorStatus {
        PolicyAncestorStatus {
            ancestor_ref: gateway(name),
            controller_name: controller.into(),
            conditions: vec![cond(
                "Accepted",
                ok,
                if ok { "Accepted" } else { "Invalid" },
            )],
        }
    }

    fn written(o: PolicyMergeOutcome) -> (PolicyStatus, Vec<ParentReference>) {
        match o {
            PolicyMergeOutcome::Write { status, dropped } => (status, dropped),
            other => panic!("{other:?}"),
        }
    }

    const ME: &str = "example.com/gateway";
    const OTHER: &str = "other.example/gateway";

    // PolicyStatus.ancestors: "implementations MUST ONLY populate ancestor status for the
    // Ancestor resources they are responsible for": another controller's entry, even for the
    // same ancestor, stays exactly as stored and in place.
    #[test]
    fn a_policy_merge_keeps_other_controllers_ancestor_entries_as_stored() {
        let me = Identity::new(ME);
        let t0 = Time::from_unix(1_000, 0);
        let mut foreign = entry("gw", OTHER, false);
        foreign.conditions[0].observed_generation = Some(2);
        foreign.conditions[0].message = "theirs".into();
        let existing = PolicyStatus {
            ancestors: vec![foreign.clone(), entry("old", ME, true)],
        };
        let (s, dropped) = written(merge_policy_status(
            &existing,
            &[entry("gw", "", true)],
            &me,
            2,
            t0,
        ));
        assert!(dropped.is_empty());
        assert_eq!(
            s.ancestors[0], foreign,
            "the foreign entry is untouched, first"
        );
        assert_eq!(s.ancestors.len(), 2, "me's entry for `old` is gone: {s:?}");
        let mine = &s.ancestors[1];
        assert_eq!(mine.controller_name, ME);
        assert_eq!(mine.ancestor_ref, gateway("gw"));
        assert_eq!(mine.conditions[0].observed_generation, Some(2));
        assert_eq!(mine.conditions[0].last_transition_time, t0);
    }

    // Nothing is written when nothing changes, and an unchanged condition keeps its
    // lastTransitionTime (Condition.lastTransitionTime).
    #[test]
    fn a_policy_merge_writes_nothing_when_unchanged() {
        let me = Identity::new(ME);
        let (t0, t1) = (Time::from_unix(1_000, 0), Time::from_unix(2_000, 0));
        let desired = [entry("gw", "", true)];
        let (first, _) = written(merge_policy_status(
            &PolicyStatus::default(),
            &desired,
            &me,
            1,
            t0,
        ));
        assert_eq!(
            merge_policy_status(&first, &desired, &me, 1, t1),
            PolicyMergeOutcome::Unchanged
        );
        let (second, _) = written(merge_policy_status(&first, &desired, &me, 2, t1));
        assert_eq!(second.ancestors[0].conditions[0].last_transition_time, t0);
        // a stale copy never overwrites a newer status
        assert_eq!(
            merge_policy_status(&second, &desired, &me, 1, t1),
            PolicyMergeOutcome::Stale {
                stored: 2,
                known: 1
            }
        );
    }

    // "A maximum of 16 ancestors ... If this slice is full, implementations MUST NOT add
    // further entries": the foreign entries filling the list stay, me's new one is dropped.
    #[test]
    fn a_full_ancestor_list_takes_no_new_entry_of_ours() {
        let me = Identity::new(ME);
        let t0 = Time::from_unix(1_000, 0);
        let existing = PolicyStatus {
            ancestors: (0..MAX_ANCESTORS)
                .map(|i| entry(&format!("gw{i}"), OTHER, true))
                .collect(),
        };
        let out = merge_policy_status(&existing, &[entry("mine", "", true)], &me, 1, t0);
        // nothing of ours fits: the status would be what is stored
        assert_eq!(out, PolicyMergeOutcome::Unchanged);
        // with one free slot, our entry takes it; a second one is dropped and reported
        let mut one_free = existing.clone();
        one_free.ancestors.pop();
        let (s, dropped) = written(merge_policy_status(
            &one_free,
            &[entry("a", "", true), entry("b", "", true)],
            &me,
            1,
            t0,
        ));
        assert_eq!(s.ancestors.len(), MAX_ANCESTORS);
        assert_eq!(s.ancestors[MAX_ANCESTORS - 1].ancestor_ref.name, "a");
        assert_eq!(dropped, vec![gateway("b")]);
    }
}
