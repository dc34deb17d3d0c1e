//! The status protocol (Gateway API RouteStatus and RouteStatus.parents): desired entries for `me`
//! only, the pure merge, and the make-before-break handoff.

mod common;

use common::*;
use gamma_arbiter::{Arbiter, ArbiterConfig, Identity, PairKey};
use gamma_arbiter::{DesiredStatus, ParentConditions, desired_entries};
use gamma_arbiter::{Directive, Handoff};
use gamma_arbiter::{MAX_PARENTS, MergeOutcome, merge, merge_outcome};
use gamma_model::gateway::reasons::{ACCEPTED, NO_OWNING_CONTROLLER, OWNERSHIP_CONFLICT};
use gamma_model::gateway::{
    Condition, ConditionStatus, ParentReference, RouteParentStatus, RouteStatus,
};
use gamma_model::meta::Time;
use gamma_model::{ObjectKey, ResourceKind, Snapshot};

fn t(secs: i64) -> Time {
    Time::from_unix(1_767_600_000 + secs, 0)
}

fn cond(type_: &str, status: ConditionStatus, reason: &str, gen_: i64, at: Time) -> Condition {
    Condition {
        type_: type_.into(),
        status,
        observed_generation: Some(gen_),
        last_transition_time: at,
        reason: reason.into(),
        message: String::new(),
    }
}

fn entry(parent: &str, controller: &str, conditions: Vec<Condition>) -> RouteParentStatus {
    RouteParentStatus {
        parent_ref: svc_parent(parent),
        controller_name: controller.into(),
        conditions,
    }
}

fn accepted(parent: &str, controller: &str, gen_: i64, at: Time) -> RouteParentStatus {
    entry(
        parent,
        controller,
        vec![cond(ACCEPTED, ConditionStatus::True, "Accepted", gen_, at)],
    )
}

fn desired(entries: Vec<RouteParentStatus>) -> DesiredStatus {
    DesiredStatus {
        entries,
        keep: vec![],
    }
}

// Gateway API RouteStatus.parents: compare ignoring order and lastTransitionTime; a second merge
// writes nothing.
#[test]
fn merge_writes_once_then_reaches_a_fixed_point() {
    let me = istio();
    let want = desired(vec![
        accepted("a", ISTIO, 1, Time::UNIX_EPOCH),
        accepted("b", ISTIO, 1, Time::UNIX_EPOCH),
    ]);
    let first = merge(&RouteStatus::default(), &want, &me, 1, t(0)).unwrap();
    assert_eq!(first.parents.len(), 2);
    assert!(
        first
            .parents
            .iter()
            .all(|p| p.conditions[0].last_transition_time == t(0))
    );
    assert_eq!(merge(&first, &want, &me, 1, t(100)), None);
    // The same entries in another order are no change either.
    let mut reversed = first.clone();
    reversed.parents.reverse();
    assert_eq!(merge(&reversed, &want, &me, 1, t(200)), None);
}

// Gateway API RouteStatus.parents: only update your own entries; never touch, remove or reorder
// others.
#[test]
fn foreign_entries_stay_untouched_and_in_place() {
    let me = istio();
    let existing = RouteStatus {
        parents: vec![
            accepted("a", LINKERD, 1, t(-50)),
            entry(
                "a",
                ISTIO,
                vec![cond(
                    ACCEPTED,
                    ConditionStatus::False,
                    "NoMatchingParent",
                    1,
                    t(-40),
                )],
            ),
            accepted("b", GATEWAY, 1, t(-30)),
        ],
    };
    let out = merge(
        &existing,
        &desired(vec![accepted("a", ISTIO, 2, Time::UNIX_EPOCH)]),
        &me,
        2,
        t(0),
    )
    .unwrap();
    assert_eq!(out.parents[0], existing.parents[0]);
    assert_eq!(out.parents[2], existing.parents[2]);
    assert_eq!(out.parents[1].controller_name, ISTIO);
    assert_eq!(out.parents[1].conditions[0].status, ConditionStatus::True);
    assert_eq!(out.parents[1].conditions[0].last_transition_time, t(0));
}

// Condition semantics: lastTransitionTime changes only when the status changes.
#[test]
fn last_transition_time_is_kept_while_status_is_unchanged() {
    let me = istio();
    let existing = RouteStatus {
        parents: vec![accepted("a", ISTIO, 1, t(-100))],
    };
    // New generation, same status: rewritten (observedGeneration) with the old time.
    let out = merge(
        &existing,
        &desired(vec![accepted("a", ISTIO, 2, Time::UNIX_EPOCH)]),
        &me,
        2,
        t(0),
    )
    .unwrap();
    assert_eq!(out.parents[0].conditions[0].observed_generation, Some(2));
    assert_eq!(out.parents[0].conditions[0].last_transition_time, t(-100));
    // Status flips: the time moves.
    let flip = desired(vec![entry(
        "a",
        ISTIO,
        vec![cond(
            ACCEPTED,
            ConditionStatus::False,
            "UnsupportedValue",
            2,
            Time::UNIX_EPOCH,
        )],
    )]);
    let out = merge(&existing, &flip, &me, 2, t(5)).unwrap();
    assert_eq!(out.parents[0].conditions[0].last_transition_time, t(5));
}

// Gateway API RouteStatus.parents: controllers remove their own entries once no longer needed
// (stale parents).
#[test]
fn stale_own_entries_are_removed() {
    let me = istio();
    let existing = RouteStatus {
        parents: vec![
            accepted("gone", ISTIO, 1, t(-1)),
            accepted("a", LINKERD, 1, t(-1)),
        ],
    };
    let out = merge(&existing, &DesiredStatus::default(), &me, 1, t(0)).unwrap();
    assert_eq!(out.parents, vec![accepted("a", LINKERD, 1, t(-1))]);
}

// Entries under an old alias are replaced by entries under the current name, keeping
// the transition time (an alias rename is not a status change).
#[test]
fn alias_renames_move_the_entry_to_the_current_name() {
    let me = istio(); // name istio.io/gateway-controller, alias istio.io/mesh-controller
    let existing = RouteStatus {
        parents: vec![
            accepted("a", ISTIO_ALIAS, 1, t(-100)),
            accepted("a", LINKERD, 1, t(-100)),
        ],
    };
    let out = merge(
        &existing,
        &desired(vec![accepted("a", ISTIO, 1, Time::UNIX_EPOCH)]),
        &me,
        1,
        t(0),
    )
    .unwrap();
    assert_eq!(out.parents.len(), 2);
    assert_eq!(out.parents[0], accepted("a", LINKERD, 1, t(-100)));
    assert_eq!(out.parents[1].controller_name, ISTIO);
    assert_eq!(out.parents[1].conditions[0].last_transition_time, t(-100));
    assert!(!out.parents.iter().any(|p| p.controller_name == ISTIO_ALIAS));
}

// Gateway API RouteStatus.parents: if a stored observedGeneration is newer than the generation you
// know, do not write.
#[test]
fn a_newer_stored_generation_refuses_the_write() {
    let me = istio();
    let existing = RouteStatus {
        parents: vec![accepted("a", LINKERD, 5, t(-1))],
    };
    let want = desired(vec![accepted("a", ISTIO, 4, Time::UNIX_EPOCH)]);
    assert_eq!(
        merge_outcome(&existing, &want, &me, 4, t(0)),
        MergeOutcome::Stale {
            stored: 5,
            known: 4
        }
    );
    assert_eq!(merge(&existing, &want, &me, 4, t(0)), None);
    assert!(merge(&existing, &want, &me, 5, t(0)).is_some());
}

// Gateway API RouteStatus: at most 32 entries; foreign entries are never evicted to make room.
#[test]
fn the_32_entry_cap_drops_own_entries_not_foreign_ones() {
    let me = istio();
    let existing = RouteStatus {
        parents: (0..MAX_PARENTS - 1)
            .map(|i| accepted(&format!("p{i}"), LINKERD, 1, t(0)))
            .collect(),
    };
    let want = desired(
        (0..3)
            .map(|i| accepted(&format!("q{i}"), ISTIO, 1, Time::UNIX_EPOCH))
            .collect(),
    );
    let MergeOutcome::Write { status, dropped } = merge_outcome(&existing, &want, &me, 1, t(0))
    else {
        panic!("expected a write");
    };
    assert_eq!(status.parents.len(), MAX_PARENTS);
    assert_eq!(&status.parents[..MAX_PARENTS - 1], &existing.parents[..]);
    assert_eq!(status.parents[MAX_PARENTS - 1].parent_ref, svc_parent("q0"));
    assert_eq!(dropped, vec![svc_parent("q1"), svc_parent("q2")]);
}

// Conditions of types another component manages stay untouched inside our entry (Gateway API
// RouteStatus.parents).
#[test]
fn unmanaged_condition_types_in_own_entry_are_kept() {
    let me = istio();
    let custom = cond(
        "special.io/SomeField",
        ConditionStatus::True,
        "Custom",
        1,
        t(-9),
    );
    let existing = RouteStatus {
        parents: vec![entry(
            "a",
            ISTIO,
            vec![
                custom.clone(),
                cond(ACCEPTED, ConditionStatus::True, "Accepted", 1, t(-9)),
            ],
        )],
    };
    let out = merge(
        &existing,
        &desired(vec![entry(
            "a",
            ISTIO,
            vec![cond(
                ACCEPTED,
                ConditionStatus::False,
                "X",
                1,
                Time::UNIX_EPOCH,
            )],
        )]),
        &me,
        1,
        t(0),
    )
    .unwrap();
    assert_eq!(out.parents[0].conditions[0], custom);
    assert_eq!(out.parents[0].conditions[1].reason, "X");
}

// Pending parents keep whatever `me` reported before: a cache that has not synced yet must not
// retract status.
#[test]
fn pending_parents_keep_their_existing_entry() {
    let me = istio();
    let existing = RouteStatus {
        parents: vec![accepted("a", ISTIO, 1, t(-1))],
    };
    let keep = DesiredStatus {
        entries: vec![],
        keep: vec![svc_parent("a")],
    };
    assert_eq!(merge(&existing, &keep, &me, 1, t(0)), None);
}

fn conflict_cluster() -> (Arbiter, Snapshot) {
    let snap = Snapshot::from_resources([
        namespace(
            "legacy",
            &[
                ("istio-injection", "enabled"),
                ("linkerd.io/inject", "enabled"),
            ],
        ),
        namespace("app", &[("gamma.rs/mesh", "istio")]),
        service("legacy", "billing", &[], &[]),
        service("app", "svc", &[], &[]),
        route_with("legacy", "billing", vec![svc_parent("billing")], &[], 5),
        route_with(
            "app",
            "typo",
            vec![svc_parent("svc")],
            &[("gamma.rs/controllers", "istoi.io/gateway-controller")],
            2,
        ),
        route_with("app", "ok", vec![svc_parent("svc")], &[], 3),
    ]);
    let mut c: ArbiterConfig = config(None);
    c.no_owning_controller_reporter = Some(LINKERD.into());
    (Arbiter::new(c).unwrap(), snap)
}

// A conflict candidate writes Accepted=False/OwnershipConflict; nobody else writes.
#[test]
fn conflict_candidates_report_ownership_conflict() {
    let (arbiter, snap) = conflict_cluster();
    let d = arbiter.decide_all(&snap);
    let r = http_route_ref("legacy", "billing");
    for me in [istio(), linkerd()] {
        let want = arbiter
            .desired_status(&d, &snap, &r, &me, &|_| Some(ParentConditions::accepted()))
            .unwrap();
        assert_eq!(want.entries.len(), 1);
        let e = &want.entries[0];
        assert_eq!(e.controller_name, me.name);
        assert_eq!(e.conditions[0].status, ConditionStatus::False);
        assert_eq!(e.conditions[0].reason, OWNERSHIP_CONFLICT);
        assert_eq!(e.conditions[0].observed_generation, Some(5));
    }
    let want = arbiter
        .desired_status(&d, &snap, &r, &gateway_controller(), &|_| None)
        .unwrap();
    assert!(want.entries.is_empty());
}

// The optional reporter writes NoOwningController for parents owned by unknown names.
#[test]
fn only_the_configured_reporter_writes_no_owning_controller() {
    let (arbiter, snap) = conflict_cluster();
    let d = arbiter.decide_all(&snap);
    let r = http_route_ref("app", "typo");
    let want = arbiter
        .desired_status(&d, &snap, &r, &linkerd(), &|_| None)
        .unwrap();
    assert_eq!(want.entries[0].conditions[0].reason, NO_OWNING_CONTROLLER);
    let want = arbiter
        .desired_status(&d, &snap, &r, &istio(), &|_| None)
        .unwrap();
    assert!(want.entries.is_empty());
    // A known foreign owner is not reported.
    let want = arbiter
        .desired_status(&d, &snap, &http_route_ref("app", "ok"), &linkerd(), &|_| {
            None
        })
        .unwrap();
    assert!(want.entries.is_empty());
}

#[test]
fn owned_parents_carry_the_supplied_conditions_at_the_route_generation() {
    let (arbiter, snap) = conflict_cluster();
    let d = arbiter.decide_all(&snap);
    let r = http_route_ref("app", "ok");
    let want = arbiter
        .desired_status(&d, &snap, &r, &istio(), &|_| {
            Some(ParentConditions::accepted())
        })
        .unwrap();
    assert_eq!(want.entries.len(), 1);
    assert_eq!(want.entries[0].conditions.len(), 2);
    assert!(
        want.entries[0]
            .conditions
            .iter()
            .all(|c| c.observed_generation == Some(3))
    );
    let unsupplied = desired_entries(
        &istio(),
        d.registry(),
        &[svc_parent("svc")],
        &d.route(&r).unwrap().to_vec(),
        3,
        &|_| None,
        false,
    );
    assert_eq!(
        unsupplied.entries[0].conditions[0].status,
        ConditionStatus::Unknown
    );
}

fn pair() -> PairKey {
    PairKey {
        route: ObjectKey::new(ResourceKind::HttpRoute, "app", "r"),
        parent_index: 0,
    }
}

/// Ownership of app/svc moves from istio to linkerd by relabelling the namespace.
fn handoff_setup() -> (Arbiter, Snapshot, Snapshot) {
    let before = Snapshot::from_resources([
        namespace("app", &[("gamma.rs/mesh", "istio")]),
        service("app", "svc", &[], &[]),
        route_with("app", "r", vec![svc_parent("svc")], &[], 3),
    ]);
    let mut after = before.clone();
    after.upsert(namespace("app", &[("gamma.rs/mesh", "linkerd")]));
    (Arbiter::new(config(None)).unwrap(), before, after)
}

fn directive(
    h: &mut Handoff,
    arbiter: &Arbiter,
    snap: &Snapshot,
    me: &Identity,
    status: &RouteStatus,
    now: Time,
) -> Directive {
    let d = arbiter.decide_all(snap);
    let dec = d.decision(&pair().route, 0, me).unwrap();
    h.directive(
        &pair(),
        &dec,
        &svc_parent("svc"),
        status,
        3,
        d.registry(),
        now,
    )
}

// Handoff: the old owner retains until the new owner reports Accepted=True at the
// current generation.
#[test]
fn handoff_ends_when_the_new_owner_accepts_at_the_current_generation() {
    let (arbiter, before, after) = handoff_setup();
    let mut h = Handoff::new(300);
    let empty = RouteStatus::default();
    assert_eq!(
        directive(&mut h, &arbiter, &before, &istio(), &empty, t(0)),
        Directive::Program
    );
    let d = directive(&mut h, &arbiter, &after, &istio(), &empty, t(10));
    assert!(
        matches!(&d, Directive::Retain { waiting_for, deadline } if waiting_for.names() == [LINKERD] && *deadline == t(310)),
        "{d:?}"
    );
    // Accepted at an older generation does not count.
    let old = RouteStatus {
        parents: vec![accepted("svc", LINKERD, 2, t(11))],
    };
    assert!(matches!(
        directive(&mut h, &arbiter, &after, &istio(), &old, t(12)),
        Directive::Retain { .. }
    ));
    // Accepted=False does not count either.
    let refused = RouteStatus {
        parents: vec![entry(
            "svc",
            LINKERD,
            vec![cond(ACCEPTED, ConditionStatus::False, "X", 3, t(12))],
        )],
    };
    assert!(matches!(
        directive(&mut h, &arbiter, &after, &istio(), &refused, t(13)),
        Directive::Retain { .. }
    ));
    let ok = RouteStatus {
        parents: vec![accepted("svc", LINKERD, 3, t(14))],
    };
    assert_eq!(
        directive(&mut h, &arbiter, &after, &istio(), &ok, t(15)),
        Directive::Ignore
    );
    assert_eq!(h.in_handoff().count(), 0);
    // The new owner programs from its first look.
    let mut l = Handoff::new(300);
    assert_eq!(
        directive(&mut l, &arbiter, &after, &linkerd(), &empty, t(10)),
        Directive::Program
    );
}

// Handoff: without the new owner ever accepting, the grace period ends the handoff.
#[test]
fn handoff_ends_after_the_grace_period_without_acceptance() {
    let (arbiter, before, after) = handoff_setup();
    let mut h = Handoff::new(60);
    let empty = RouteStatus::default();
    assert_eq!(
        directive(&mut h, &arbiter, &before, &istio(), &empty, t(0)),
        Directive::Program
    );
    assert!(matches!(
        directive(&mut h, &arbiter, &after, &istio(), &empty, t(1)),
        Directive::Retain { .. }
    ));
    assert!(matches!(
        directive(&mut h, &arbiter, &after, &istio(), &empty, t(60)),
        Directive::Retain { .. }
    ));
    assert_eq!(
        directive(&mut h, &arbiter, &after, &istio(), &empty, t(61)),
        Directive::Ignore
    );
    assert_eq!(
        directive(&mut h, &arbiter, &after, &istio(), &empty, t(62)),
        Directive::Ignore
    );
}

#[test]
fn ownership_returning_during_a_handoff_programs_again() {
    let (arbiter, before, after) = handoff_setup();
    let mut h = Handoff::new(60);
    let empty = RouteStatus::default();
    directive(&mut h, &arbiter, &before, &istio(), &empty, t(0));
    assert!(matches!(
        directive(&mut h, &arbiter, &after, &istio(), &empty, t(1)),
        Directive::Retain { .. }
    ));
    assert_eq!(
        directive(&mut h, &arbiter, &before, &istio(), &empty, t(2)),
        Directive::Program
    );
    assert_eq!(h.in_handoff().count(), 0);
}

// A parent `me` never programmed is never retained.
#[test]
fn foreign_parents_never_programmed_are_ignored() {
    let (arbiter, before, _) = handoff_setup();
    let mut h = Handoff::new(60);
    assert_eq!(
        directive(
            &mut h,
            &arbiter,
            &before,
            &linkerd(),
            &RouteStatus::default(),
            t(0)
        ),
        Directive::Ignore
    );
}

#[test]
fn desired_status_skips_parent_refs_written_twice() {
    let (arbiter, _, _) = handoff_setup();
    let snap = Snapshot::from_resources([
        namespace("app", &[("gamma.rs/mesh", "istio")]),
        service("app", "svc", &[], &[]),
        route(
            "app",
            "r",
            vec![
                svc_parent("svc"),
                svc_parent("svc"),
                ParentReference::gateway("gw"),
            ],
        ),
    ]);
    let d = arbiter.decide_all(&snap);
    let want = arbiter
        .desired_status(&d, &snap, &pair().route, &istio(), &|_| None)
        .unwrap();
    assert_eq!(want.entries.len(), 1);
}

// GEP-713 PolicyStatus, as an XTelemetryPolicy (Gateway API v1.7, GEP-4768) carries it: `me`
// writes only its own ancestor entries; another controller's entry survives in place, and a
// second merge is a fixed point.
#[test]
fn an_xtelemetry_policy_status_is_merged_for_me_only() {
    use gamma_arbiter::{PolicyMergeOutcome, merge_policy_status};
    use gamma_model::AnyResource;
    use gamma_model::gateway::PolicyAncestorStatus;
    let text = r#"
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XTelemetryPolicy
metadata: {name: trace, namespace: infra, generation: 3}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: edge}]
  tracing: {mode: Disabled}
status:
  ancestors:
  - ancestorRef: {group: gateway.networking.k8s.io, kind: Gateway, name: edge}
    controllerName: example.net/other-gateway
    conditions:
    - {type: Accepted, status: "False", reason: Conflicted, message: theirs, observedGeneration: 2, lastTransitionTime: "2026-01-01T00:00:00Z"}
"#;
    let objects = gamma_model::decode(text).unwrap();
    let [AnyResource::XTelemetryPolicy(policy)] = objects.as_slice() else {
        panic!("{objects:?}")
    };
    let existing = policy.status.clone().unwrap();
    let me = Identity::new("example.com/gateway");
    let mine = PolicyAncestorStatus {
        ancestor_ref: existing.ancestors[0].ancestor_ref.clone(),
        controller_name: me.name.clone(),
        conditions: vec![cond(ACCEPTED, ConditionStatus::True, ACCEPTED, 3, t(0))],
    };
    let PolicyMergeOutcome::Write { status, dropped } =
        merge_policy_status(&existing, std::slice::from_ref(&mine), &me, 3, t(100))
    else {
        panic!("a first write is expected")
    };
    assert!(dropped.is_empty(), "{dropped:?}");
    assert_eq!(status.ancestors.len(), 2);
    assert_eq!(
        status.ancestors[0], existing.ancestors[0],
        "the foreign entry, untouched"
    );
    assert_eq!(status.ancestors[1].controller_name, me.name);
    assert_eq!(
        merge_policy_status(&status, &[mine], &me, 3, t(200)),
        PolicyMergeOutcome::Unchanged
    );
}
