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
