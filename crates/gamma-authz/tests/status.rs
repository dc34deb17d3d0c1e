//! Policy status for one controller (GEP-713 `Accepted`: Accepted, Invalid, TargetNotFound; the
//! policy's Namespace as ancestor), merged with gamma-arbiter's policy merge as a controller
//! writes it: only `me`'s entries change, another controller's stay as stored.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{authorizer, pod, policy};
use gamma_arbiter::{Identity, PolicyMergeOutcome, merge_policy_status};
use gamma_authz::{AcceptedReason, Authorizer, ancestor_ref};
use gamma_model::gateway::{ConditionStatus, PolicyAncestorStatus, PolicyStatus};
use gamma_model::meta::Time;

fn reason_of(a: &Authorizer, name: &str) -> (AcceptedReason, String) {
    let id = a
        .policies()
        .find(|p| a.policy_key(*p).unwrap().name == name)
        .unwrap();
    a.accepted(id).unwrap()
}

#[test]
fn accepted_invalid_and_target_not_found_are_told_apart() {
    let text = format!(
        "{}{}{}{}{}",
        pod("shop", "db-0", "db", "10.0.0.1", "{app: db}"),
        policy("shop", "ok", "{matchLabels: {app: db}}", Some("[{}]")),
        policy("shop", "nobody", "{matchLabels: {app: none}}", Some("[{}]")),
        policy(
            "shop",
            "bad",
            "{matchLabels: {app: db}}",
            Some("[{sources: [{type: SPIFFE, spiffe: 'spiffe://td'}]}]")
        ),
        "---\napiVersion: gateway.networking.x-k8s.io/v1alpha1\nkind: XAuthorizationPolicy\n\
         metadata: {name: svc, namespace: shop}\nspec:\n  targetRefs: [{group: '', kind: Service, name: db}]\n  \
         action: ALLOW\n  enforcementLevel: Network\n",
    );
    let (_, a) = authorizer(&text);
    assert_eq!(
        reason_of(&a, "ok"),
        (AcceptedReason::Accepted, "selects 1 Pod".into())
    );
    assert_eq!(reason_of(&a, "nobody").0, AcceptedReason::TargetNotFound);
    let (r, m) = reason_of(&a, "bad");
    assert_eq!(r, AcceptedReason::Invalid);
    assert!(m.contains("spec.rules[0].sources[0].spiffe"), "{m}");
    let (r, m) = reason_of(&a, "svc");
    assert_eq!(r, AcceptedReason::TargetNotFound);
    assert!(m.contains("only Pod label selectors"), "{m}");
}

// PolicyStatus.ancestors: implementations "MUST ONLY populate ancestor status for the Ancestor
// resources they are responsible for" and identify their entries by controllerName.
#[test]
fn me_writes_one_entry_for_the_policys_namespace_and_leaves_other_controllers_alone() {
    let text = format!(
        "{}{}",
        pod("shop", "db-0", "db", "10.0.0.1", "{app: db}"),
        policy("shop", "ok", "{matchLabels: {app: db}}", Some("[{}]")),
    );
    let (_, a) = authorizer(&text);
    let id = a.policies().next().unwrap();
    let desired = a.desired_status(id);
    assert_eq!(desired.len(), 1);
    assert_eq!(desired[0].ancestor_ref, ancestor_ref("shop"));
    assert_eq!(desired[0].conditions[0].type_, "Accepted");
    assert_eq!(desired[0].conditions[0].status, ConditionStatus::True);

    let other = PolicyAncestorStatus {
        ancestor_ref: ancestor_ref("shop"),
        controller_name: "istio.io/other".into(),
        conditions: vec![gamma_model::gateway::Condition {
            type_: "Accepted".into(),
            status: ConditionStatus::False,
            observed_generation: Some(1),
            last_transition_time: Time::UNIX_EPOCH,
            reason: "Invalid".into(),
            message: "theirs".into(),
        }],
    };
    let existing = PolicyStatus {
        ancestors: vec![other.clone()],
    };
    let me = Identity::new("gamma-rs.dev/authz");
    let now = Time::from_unix(1_700_000_000, 0);
    let PolicyMergeOutcome::Write { status, dropped } =
        merge_policy_status(&existing, &desired, &me, 1, now)
    else {
        panic!("expected a write")
    };
    assert!(dropped.is_empty());
    assert_eq!(status.ancestors.len(), 2);
    assert_eq!(
        status.ancestors[0], other,
        "another controller's entry is kept as stored"
    );
    assert_eq!(status.ancestors[1].controller_name, "gamma-rs.dev/authz");
    assert_eq!(
        status.ancestors[1].conditions[0].observed_generation,
        Some(1)
    );
    // Writing the same again changes nothing.
    assert_eq!(
        merge_policy_status(&status, &desired, &me, 1, now),
        PolicyMergeOutcome::Unchanged
    );
}
