//! The status entries one controller (`me`) wants on a route: one per parent it owns (with
//! the conditions the caller computed), `Accepted=False/OwnershipConflict` per contested parent
//! it is a candidate for, and, for the configured reporter only, `NoOwningController` on
//! parents whose owners nobody knows. Never anything for parents others own.

use gamma_model::gateway::reasons::{ACCEPTED, NO_OWNING_CONTROLLER, OWNERSHIP_CONFLICT, PENDING};
use gamma_model::gateway::{Condition, ConditionStatus, ParentReference, RouteParentStatus};
use gamma_model::meta::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::decision::Ownership;
use crate::decision::Verdict;
use crate::registry::{Identity, Registry};

/// The conditions the caller computed for one parent it owns (for example from gamma-resolve's
/// `RouteTable::parent_conditions()`): type, status, reason and message. `observedGeneration`
/// and `lastTransitionTime` are filled in by the arbiter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParentConditions {
    /// The conditions, at most 8 (more are cut).
    pub conditions: Vec<Condition>,
}

impl ParentConditions {
    /// Conditions from (type, status, reason, message) tuples.
    pub fn new<'a>(
        conditions: impl IntoIterator<Item = (&'a str, ConditionStatus, &'a str, &'a str)>,
    ) -> Self {
        ParentConditions {
            conditions: conditions
                .into_iter()
                .map(|(t, s, r, m)| condition(t, s, r, m))
                .collect(),
        }
    }

    /// `Accepted=True` and `ResolvedRefs=True`, for callers that know the route is fine.
    pub fn accepted() -> Self {
        use gamma_model::gateway::reasons::{REASON_ACCEPTED, REASON_RESOLVED_REFS, RESOLVED_REFS};
        ParentConditions::new([
            (ACCEPTED, ConditionStatus::True, REASON_ACCEPTED, "Accepted"),
            (
                RESOLVED_REFS,
                ConditionStatus::True,
                REASON_RESOLVED_REFS,
                "All references resolved",
            ),
        ])
    }
}

fn condition(type_: &str, status: ConditionStatus, reason: &str, message: &str) -> Condition {
    Condition {
        type_: type_.into(),
        status,
        observed_generation: None,
        last_transition_time: Time::UNIX_EPOCH,
        reason: reason.into(),
        message: message.into(),
    }
}

/// What `me` wants in one route's `status.parents`: the entries to write, and the parentRefs
/// whose existing entries must be left exactly as they are (pending decisions: a cache that has
/// not synced yet must not make a controller retract what it reported).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DesiredStatus {
    /// Entries to write, under `me`'s name, one per parentRef.
    pub entries: Vec<RouteParentStatus>,
    /// ParentRefs whose existing entries by `me` are kept untouched.
    pub keep: Vec<ParentReference>,
}

/// The desired entries for a route with `parent_refs` (as written) and the `verdicts` for them,
/// for `me`. `supplied(i)` gives the conditions for parentRef `i` when `me` owns it; when it
/// returns `None`, the entry says `Accepted=Unknown/Pending`. `reporter` says whether `me` is
/// the configured `NoOwningController` reporter. Every condition carries `generation` as its
/// `observedGeneration`.
pub fn desired_entries(
    me: &Identity,
    registry: &Registry,
    parent_refs: &[ParentReference],
    verdicts: &[Verdict],
    generation: i64,
    supplied: &dyn Fn(usize) -> Option<ParentConditions>,
    reporter: bool,
) -> DesiredStatus {
    let mut out = DesiredStatus::default();
    for (i, (pref, verdict)) in parent_refs.iter().zip(verdicts).enumerate() {
        // The same parentRef written twice (invalid upstream) gets one entry.
        if out.entries.iter().any(|e| &e.parent_ref == pref) {
            continue;
        }
        let conditions = match verdict.view(me, registry) {
            Ownership::Owned { .. } => match supplied(i) {
                Some(c) => c.conditions,
                None => vec![condition(
                    ACCEPTED,
                    ConditionStatus::Unknown,
                    PENDING,
                    "Waiting for the controller to reconcile this route",
                )],
            },
            Ownership::Conflict {
                candidates,
                level,
                evidence,
                candidate: true,
            } => vec![condition(
                ACCEPTED,
                ConditionStatus::False,
                OWNERSHIP_CONFLICT,
                &format!(
                    "Controllers {candidates} all claim this parent at {level} ({evidence}); none programs it until one claim is removed or a higher level names an owner"
                ),
            )],
            Ownership::Foreign {
                owners,
                level,
                evidence,
            } if reporter && owners.names().iter().all(|o| !registry.is_known(o)) => {
                vec![condition(
                    ACCEPTED,
                    ConditionStatus::False,
                    NO_OWNING_CONTROLLER,
                    &format!(
                        "No registered controller is named {owners} ({level}: {evidence}); nobody programs this parent"
                    ),
                )]
            }
            Ownership::Pending { .. } => {
                out.keep.push(pref.clone());
                continue;
            }
            _ => continue,
        };
        let conditions = conditions
            .into_iter()
            .take(8)
            .map(|mut c| {
                c.observed_generation = Some(generation);
                c
            })
            .collect();
        out.entries.push(RouteParentStatus {
            parent_ref: pref.clone(),
            controller_name: me.name.clone(),
            conditions,
        });
    }
    out
}
