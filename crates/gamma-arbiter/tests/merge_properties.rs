//! Property tests of the pure status merge against hostile stored statuses: the merge is
//! idempotent and never touches another controller's entry (Gateway API RouteStatus.parents).
//!
//! The convergence simulation (tests/convergence.rs) drives `merge` with statuses the simulated
//! controllers wrote themselves. Here the stored status is arbitrary: entries of several
//! controllers and of `me`'s aliases, duplicate parentRefs, more than 32 entries, more than 8
//! conditions, unmanaged condition types, observed generations above and below the route's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use gamma_arbiter::DesiredStatus;
use gamma_arbiter::Identity;
use gamma_arbiter::{MAX_PARENTS, MergeOutcome, merge_outcome};
use gamma_model::gateway::{
    Condition, ConditionStatus, ParentReference, RouteParentStatus, RouteStatus,
};
use gamma_model::meta::Time;
use proptest::prelude::*;

const ME: &str = "example.com/mesh-a";
const ALIAS: &str = "example.com/old-mesh-a";
const PARENTS: &[&str] = &["web", "api", "db", "gw"];
const TYPES: &[&str] = &[
    "Accepted",
    "ResolvedRefs",
    "PartiallyInvalid",
    "Programmed",
    "example.com/Custom",
];

fn me() -> Identity {
    Identity::new(ME).with_aliases([ALIAS])
}

fn parent() -> impl Strategy<Value = ParentReference> {
    (
        prop::sample::select(PARENTS),
        prop::option::of(prop::sample::select(&[80, 8080][..])),
        any::<bool>(),
    )
        .prop_map(|(name, port, service)| {
            let mut p = if service {
                ParentReference::service(name)
            } else {
                ParentReference::gateway(name)
            };
            p.port = port;
            p
        })
}

fn condition() -> impl Strategy<Value = Condition> {
    (
        prop::sample::select(TYPES),
        prop::sample::select(
            &[
                ConditionStatus::True,
                ConditionStatus::False,
                ConditionStatus::Unknown,
            ][..],
        ),
        prop::sample::select(&["Accepted", "NoMatchingParent", "Pending", ""][..]),
        prop::option::of(0i64..6),
        0i64..1_000,
    )
        .prop_map(|(t, status, reason, observed_generation, at)| Condition {
            type_: t.into(),
            status,
            observed_generation,
            last_transition_time: Time::from_unix(1_700_000_000 + at, 0),
            reason: reason.into(),
            message: String::new(),
        })
}

fn entry(controllers: &'static [&'static str]) -> impl Strategy<Value = RouteParentStatus> {
    (
        parent(),
        prop::sample::select(controllers),
        prop::collection::vec(condition(), 0..10),
    )
        .prop_map(|(parent_ref, c, conditions)| RouteParentStatus {
            parent_ref,
            controller_name: c.into(),
            conditions,
        })
}

const ANYONE: &[&str] = &[
    ME,
    ALIAS,
    "example.com/mesh-b",
    "example.net/gateway",
    "istio.io/x",
];

fn existing() -> impl Strategy<Value = RouteStatus> {
    prop_oneof![
        3 => prop::collection::vec(entry(ANYONE), 0..8),
        // Past the 32-entry cap, mostly foreign.
        1 => prop::collection::vec(entry(ANYONE), 28..40),
    ]
    .prop_map(|parents| RouteStatus { parents })
}

fn desired() -> impl Strategy<Value = DesiredStatus> {
    (
        prop_oneof![
            3 => prop::collection::vec(entry(&[ME]), 0..5),
            1 => prop::collection::vec(entry(&[ME]), 30..36),
        ],
        prop::collection::vec(parent(), 0..2),
    )
        .prop_map(|(entries, keep)| DesiredStatus { entries, keep })
}

fn foreign<'a>(s: &'a RouteStatus, me: &Identity) -> Vec<&'a RouteParentStatus> {
    s.parents
        .iter()
        .filter(|e| !me.answers_to(&e.controller_name))
        .collect()
}

// Minimized by the property below: a parentRef both desired and kept (a public `DesiredStatus`
// can say so even though `desired_entries` never does) made every merge append another copy of
// `me`'s entry. Kept entries win; the desired one is written only when `me` has none yet.
#[test]
fn a_parent_both_desired_and_kept_is_written_once() {
    let me = me();
    let p = ParentReference::gateway("db");
    let desired = DesiredStatus {
        entries: vec![RouteParentStatus {
            parent_ref: p.clone(),
            controller_name: ME.into(),
            conditions: vec![],
        }],
        keep: vec![p],
    };
    let now = Time::from_unix(1_800_000_000, 0);
    let MergeOutcome::Write { status, .. } =
        merge_outcome(&RouteStatus::default(), &desired, &me, 0, now)
    else {
        panic!("the first merge writes the entry");
    };
    assert_eq!(status.parents.len(), 1);
    assert_eq!(
        merge_outcome(&status, &desired, &me, 0, now),
        MergeOutcome::Unchanged
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, failure_persistence: None, .. ProptestConfig::default() })]

    // Gateway API RouteStatus.parents: foreign entries stay untouched and in place; merge applied
    // to its own result writes nothing (also later, with a newer `now`); the cap is respected
    // unless foreign entries alone exceed it; a newer stored observedGeneration refuses the write.
    #[test]
    fn merge_is_idempotent_and_leaves_foreign_entries_alone(
        existing in existing(),
        desired in desired(),
        generation in 0i64..6,
    ) {
        // desired_entries stamps every condition with the route's generation.
        let mut desired = desired;
        for e in &mut desired.entries {
            for c in &mut e.conditions {
                c.observed_generation = Some(generation);
            }
        }
        let me = me();
        let now = Time::from_unix(1_800_000_000, 0);
        let later = now.plus_seconds(3_600);
        let stored = existing
            .parents
            .iter()
            .flat_map(|p| &p.conditions)
            .filter_map(|c| c.observed_generation)
            .max();
        match merge_outcome(&existing, &desired, &me, generation, now) {
            MergeOutcome::Stale { stored: s, known } => {
                prop_assert_eq!(Some(s), stored);
                prop_assert!(s > generation);
                prop_assert_eq!(known, generation);
            }
            MergeOutcome::Unchanged => {
                prop_assert!(stored.is_none_or(|s| s <= generation));
                // Unchanged also holds with a later clock: time alone never causes a write.
                prop_assert_eq!(
                    merge_outcome(&existing, &desired, &me, generation, later),
                    MergeOutcome::Unchanged
                );
            }
            MergeOutcome::Write { status, dropped } => {
                prop_assert!(stored.is_none_or(|s| s <= generation));
                prop_assert_eq!(foreign(&existing, &me), foreign(&status, &me));
                let foreign_count = foreign(&existing, &me).len();
                prop_assert!(status.parents.len() <= MAX_PARENTS.max(foreign_count));
                for e in &status.parents {
                    let kept = desired.keep.contains(&e.parent_ref);
                    // Entries under an old alias are rewritten under `me`'s name, unless kept.
                    prop_assert!(e.controller_name != ALIAS || kept, "alias entry survived: {:?}", e);
                    // Entries `me` writes respect the 8-condition cap.
                    if e.controller_name == ME && !kept {
                        prop_assert!(e.conditions.len() <= 8);
                    }
                }
                if !dropped.is_empty() {
                    prop_assert!(status.parents.len() >= MAX_PARENTS);
                }
                prop_assert_eq!(
                    merge_outcome(&status, &desired, &me, generation, later),
                    MergeOutcome::Unchanged,
                    "second merge wrote again"
                );
            }
            other => prop_assert!(false, "unexpected outcome {:?}", other),
        }
    }
}

// ---- No condition of `me`'s left at an old generation; foreign status byte for byte ----
//
// Gateway API v1.7 adds "preserve foreign status" conformance tests (HTTPRoute, Gateway,
// BackendTLSPolicy): a seeded entry of another controller, or a condition of a type the
// implementation is not responsible for, survives the implementation's next write unchanged,
// while every other condition catches up with the object's generation.

use gamma_arbiter::{
    GatewayMergeOutcome, ListenerSetMergeOutcome, OWN_TYPES, PolicyMergeOutcome,
    merge_gateway_status, merge_listener_set_status, merge_policy_status,
};
use gamma_model::gateway::{
    GatewayStatus, ListenerSetStatus, ListenerStatus, PolicyAncestorStatus, PolicyStatus,
};

/// Condition types on a Gateway: computed ones, `Programmed` (always the controller's) and
/// foreign ones.
const GATEWAY_TYPES: &[&str] = &[
    "Accepted",
    "Programmed",
    "ResolvedRefs",
    "Conflicted",
    "special.io/SomeField",
    "example.com/Stale",
];
const LISTENERS: &[&str] = &["http", "https", "tcp"];

fn gateway_condition() -> impl Strategy<Value = Condition> {
    (condition(), prop::sample::select(GATEWAY_TYPES)).prop_map(|(mut c, t)| {
        c.type_ = t.into();
        c
    })
}

/// Conditions as the API server stores them: a map keyed by type (at most one per type).
fn condition_map(max: usize) -> impl Strategy<Value = Vec<Condition>> {
    prop::collection::vec(gateway_condition(), 0..max).prop_map(|cs| {
        let mut out: Vec<Condition> = Vec::new();
        for c in cs {
            if !out.iter().any(|o| o.type_ == c.type_) {
                out.push(c);
            }
        }
        out
    })
}

fn listener_status(names: &'static [&'static str]) -> impl Strategy<Value = Vec<ListenerStatus>> {
    prop::collection::vec(
        (prop::sample::select(names), 0i32..3, condition_map(6)),
        0..4,
    )
    .prop_map(|ls| {
        let mut out: Vec<ListenerStatus> = Vec::new();
        for (name, attached_routes, conditions) in ls {
            if !out.iter().any(|l| l.name == name) {
                out.push(ListenerStatus {
                    name: name.into(),
                    supported_kinds: Vec::new(),
                    attached_routes,
                    conditions,
                });
            }
        }
        out
    })
}

/// A desired (computed plus supplied) Gateway status: own types only, unstamped.
fn desired_gateway() -> impl Strategy<Value = GatewayStatus> {
    let own = prop::sample::subsequence(&["Accepted", "Programmed"][..], 0..=2);
    (own, listener_status(LISTENERS)).prop_map(|(types, mut listeners)| {
        let own = |t: &str| Condition {
            type_: t.into(),
            status: ConditionStatus::True,
            observed_generation: None,
            last_transition_time: Time::UNIX_EPOCH,
            reason: t.into(),
            message: String::new(),
        };
        for l in &mut listeners {
            l.conditions = ["Accepted", "ResolvedRefs", "Conflicted"]
                .iter()
                .map(|t| own(t))
                .collect();
        }
        GatewayStatus {
            conditions: types.into_iter().map(own).collect(),
            listeners,
            ..GatewayStatus::default()
        }
    })
}

/// Whether `me` is responsible for a condition type on a Gateway, a ListenerSet or a listener
/// given what it wants (`desired`).
fn own_type(t: &str, desired: &[Condition]) -> bool {
    OWN_TYPES.contains(&t) || desired.iter().any(|d| d.type_ == t)
}

/// Every condition `me` is not responsible for in `before` is in `after`, byte for byte, in
/// the same order; every condition `me` is responsible for is at `generation`.
/// [`foreign_kept_and_own_fresh`] for each merged listener, against its stored and desired
/// entries (a Gateway's or a ListenerSet's).
fn listeners_kept_and_fresh(
    existing: &[ListenerStatus],
    merged: &[ListenerStatus],
    desired: &[ListenerStatus],
    generation: i64,
) -> Result<(), TestCaseError> {
    for l in merged {
        let d = desired.iter().find(|d| d.name == l.name).unwrap();
        let before = existing
            .iter()
            .find(|e| e.name == l.name)
            .map_or(&[][..], |e| &e.conditions[..]);
        foreign_kept_and_own_fresh(before, &l.conditions, &d.conditions, generation)?;
    }
    Ok(())
}

fn foreign_kept_and_own_fresh(
    before: &[Condition],
    after: &[Condition],
    desired: &[Condition],
    generation: i64,
) -> Result<(), TestCaseError> {
    let foreign = |cs: &[Condition]| -> Vec<Condition> {
        cs.iter()
            .filter(|c| !own_type(&c.type_, desired))
            .cloned()
            .collect()
    };
    prop_assert_eq!(
        foreign(before),
        foreign(after),
        "a foreign condition changed"
    );
    for c in after.iter().filter(|c| own_type(&c.type_, desired)) {
        prop_assert_eq!(
            c.observed_generation,
            Some(generation),
            "stale own condition {:?}",
            c
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, failure_persistence: None, .. ProptestConfig::default() })]

    // Route and policy entries: on a write, every condition of an entry `me` writes (not a
    // kept one) is at the route's generation, and every other controller's entry is the same,
    // byte for byte and in the same order as stored.
    #[test]
    fn route_merge_leaves_no_own_condition_stale_and_foreign_entries_identical(
        existing in existing(),
        desired in desired(),
        generation in 0i64..6,
    ) {
        let mut desired = desired;
        for e in &mut desired.entries {
            for c in &mut e.conditions {
                c.observed_generation = Some(generation);
            }
        }
        let me = me();
        let now = Time::from_unix(1_800_000_000, 0);
        if let MergeOutcome::Write { status, .. } = merge_outcome(&existing, &desired, &me, generation, now) {
            prop_assert_eq!(foreign(&existing, &me), foreign(&status, &me));
            for e in status.parents.iter().filter(|e| e.controller_name == ME) {
                if desired.keep.contains(&e.parent_ref) {
                    continue;
                }
                for c in &e.conditions {
                    prop_assert_eq!(c.observed_generation, Some(generation), "stale: {:?}", c);
                }
            }
        }
    }

    // BackendTLSPolicy ancestors (GEP-713 PolicyStatus): the same rules under the 16 cap.
    #[test]
    fn policy_merge_leaves_no_own_condition_stale_and_foreign_entries_identical(
        existing in prop::collection::vec(entry(ANYONE), 0..20),
        desired in prop::collection::vec(entry(&[ME]), 0..4),
        generation in 0i64..6,
    ) {
        let to_ancestor = |e: RouteParentStatus| PolicyAncestorStatus {
            ancestor_ref: e.parent_ref,
            controller_name: e.controller_name,
            conditions: e.conditions,
        };
        let existing = PolicyStatus { ancestors: existing.into_iter().map(to_ancestor).collect() };
        let desired: Vec<PolicyAncestorStatus> = desired.into_iter().map(to_ancestor).collect();
        let me = me();
        let now = Time::from_unix(1_800_000_000, 0);
        let foreign = |s: &PolicyStatus| -> Vec<PolicyAncestorStatus> {
            s.ancestors.iter().filter(|a| !me.answers_to(&a.controller_name)).cloned().collect()
        };
        match merge_policy_status(&existing, &desired, &me, generation, now) {
            PolicyMergeOutcome::Write { status, .. } => {
                prop_assert_eq!(foreign(&existing), foreign(&status));
                for a in status.ancestors.iter().filter(|a| a.controller_name == ME) {
                    for c in &a.conditions {
                        prop_assert_eq!(c.observed_generation, Some(generation));
                    }
                }
                prop_assert_eq!(
                    merge_policy_status(&status, &desired, &me, generation, now.plus_seconds(60)),
                    PolicyMergeOutcome::Unchanged
                );
            }
            PolicyMergeOutcome::Stale { stored, known } => prop_assert!(stored > known),
            _ => {}
        }
    }

    // Gateway: a condition type `me` is not responsible for (neither computed nor supplied,
    // and not Programmed) survives every merge byte for byte, in order, on the Gateway and on
    // every listener that stays; every condition of an own type is at the Gateway's
    // generation; and the merge is idempotent.
    #[test]
    fn gateway_merge_keeps_foreign_conditions_and_leaves_no_own_condition_stale(
        conditions in condition_map(8),
        listeners in listener_status(LISTENERS),
        desired in desired_gateway(),
        generation in 0i64..6,
    ) {
        let existing = GatewayStatus { conditions, listeners, ..GatewayStatus::default() };
        let now = Time::from_unix(1_800_000_000, 0);
        match merge_gateway_status(&existing, &desired, generation, now) {
            GatewayMergeOutcome::Write { status } => {
                foreign_kept_and_own_fresh(&existing.conditions, &status.conditions, &desired.conditions, generation)?;
                listeners_kept_and_fresh(&existing.listeners, &status.listeners, &desired.listeners, generation)?;
                prop_assert_eq!(
                    merge_gateway_status(&status, &desired, generation, now.plus_seconds(60)),
                    GatewayMergeOutcome::Unchanged
                );
            }
            GatewayMergeOutcome::Unchanged => {
                foreign_kept_and_own_fresh(&existing.conditions, &existing.conditions, &desired.conditions, generation)?;
            }
            GatewayMergeOutcome::Stale { stored, known } => prop_assert!(stored > known),
            other => prop_assert!(false, "unexpected outcome {:?}", other),
        }
    }

    // ListenerSet (GEP-1713): the same rules as a Gateway.
    #[test]
    fn listener_set_merge_keeps_foreign_conditions_and_leaves_no_own_condition_stale(
        conditions in condition_map(8),
        listeners in listener_status(LISTENERS),
        desired in desired_gateway(),
        generation in 0i64..6,
    ) {
        let existing = ListenerSetStatus { conditions, listeners };
        let desired = ListenerSetStatus { conditions: desired.conditions, listeners: desired.listeners };
        let now = Time::from_unix(1_800_000_000, 0);
        match merge_listener_set_status(&existing, &desired, generation, now) {
            ListenerSetMergeOutcome::Write { status } => {
                foreign_kept_and_own_fresh(&existing.conditions, &status.conditions, &desired.conditions, generation)?;
                listeners_kept_and_fresh(&existing.listeners, &status.listeners, &desired.listeners, generation)?;
                prop_assert_eq!(
                    merge_listener_set_status(&status, &desired, generation, now.plus_seconds(60)),
                    ListenerSetMergeOutcome::Unchanged
                );
            }
            ListenerSetMergeOutcome::Unchanged => {
                foreign_kept_and_own_fresh(&existing.conditions, &existing.conditions, &desired.conditions, generation)?;
            }
            ListenerSetMergeOutcome::Stale { stored, known } => prop_assert!(stored > known),
            other => prop_assert!(false, "unexpected outcome {:?}", other),
        }
    }
}
