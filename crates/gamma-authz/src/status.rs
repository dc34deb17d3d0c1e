//! Policy status (GEP-713 `PolicyStatus`) computed for one controller: the entries `me` writes
//! for each XAuthorizationPolicy, to merge into the stored status with
//! `gamma_arbiter::merge_policy_status` (which rewrites only `me`'s entries).
//!
//! GEP-3779 defines no condition of its own; GEP-713's `Accepted` is used, with the reasons
//! `Accepted`, `Invalid` (the policy fails validation, or names what the engine cannot
//! enforce) and `TargetNotFound` (its targets select no Pod).
//!
//! **The ancestor** *(decision)*: the GEP does not say what `ancestorRef` (a ParentReference)
//! names for a label-selector target, which has no name. gamma-rs writes one entry per policy
//! with the policy's **Namespace** as ancestor (`group: ""`, `kind: Namespace`, `name`: the
//! policy's namespace), the scope the selector is evaluated in. It is stable while Pods come and
//! go, and keeps the list far under its 16-entry cap, where one entry per selected Pod would
//! overflow it and churn with every rollout.

use gamma_model::gateway::{Condition, ConditionStatus, ParentReference, PolicyAncestorStatus};
use gamma_model::meta::Time;

use crate::engine::{Authorizer, PolicyId};

/// The reason of the `Accepted` condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AcceptedReason {
    /// The policy is valid and selects at least one Pod.
    Accepted,
    /// The policy fails validation (it allows nothing).
    Invalid,
    /// Its targets select no Pod (a selector matching none, or a kind the engine cannot
    /// select by).
    TargetNotFound,
}

impl AcceptedReason {
    /// The upstream reason string.
    pub fn as_str(&self) -> &'static str {
        match self {
            AcceptedReason::Accepted => "Accepted",
            AcceptedReason::Invalid => "Invalid",
            AcceptedReason::TargetNotFound => "TargetNotFound",
        }
    }
}

/// The ancestor written for every policy in `namespace` (module docs).
pub fn ancestor_ref(namespace: &str) -> ParentReference {
    ParentReference {
        group: Some(String::new()),
        kind: Some("Namespace".into()),
        name: namespace.to_owned(),
        ..ParentReference::default()
    }
}

impl Authorizer {
    /// The reason and message of `policy`'s `Accepted` condition.
    pub fn accepted(&self, policy: PolicyId) -> Option<(AcceptedReason, String)> {
        let p = self.policies.get(policy.0 as usize)?;
        Some(if let Some(m) = &p.invalid_message {
            (
                AcceptedReason::Invalid,
                format!("the policy allows nothing: {m}"),
            )
        } else if p.invalid {
            (
                AcceptedReason::Invalid,
                "only action ALLOW and enforcementLevel Network are enforced; the policy allows nothing"
                    .into(),
            )
        } else if p.selected == 0 {
            let why = p.target_problem.clone().unwrap_or_else(|| {
                format!("no Pod of namespace {} matches the selector", p.namespace)
            });
            (AcceptedReason::TargetNotFound, why)
        } else {
            (
                AcceptedReason::Accepted,
                format!(
                    "selects {} Pod{}",
                    p.selected,
                    if p.selected == 1 { "" } else { "s" }
                ),
            )
        })
    }

    /// The status entries `me` writes for `policy` (one, for its namespace), with an empty
    /// `controllerName` and unstamped conditions, as `gamma_arbiter::merge_policy_status`
    /// takes them.
    pub fn desired_status(&self, policy: PolicyId) -> Vec<PolicyAncestorStatus> {
        let (Some(p), Some((reason, message))) =
            (self.policies.get(policy.0 as usize), self.accepted(policy))
        else {
            return Vec::new();
        };
        vec![PolicyAncestorStatus {
            ancestor_ref: ancestor_ref(&p.namespace),
            controller_name: String::new(),
            conditions: vec![Condition {
                type_: "Accepted".into(),
                status: ConditionStatus::from(reason == AcceptedReason::Accepted),
                observed_generation: None,
                last_transition_time: Time::UNIX_EPOCH,
                reason: reason.as_str().into(),
                message,
            }],
        }]
    }

    /// Every policy, in (namespace, name) order.
    pub fn policies(&self) -> impl Iterator<Item = PolicyId> + '_ {
        (0..self.policies.len()).filter_map(|i| u32::try_from(i).ok().map(PolicyId))
    }
}
