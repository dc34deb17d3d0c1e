//! `arbiter`: generated clusters and configurations through gamma-arbiter's decisions and the
//! status `merge`.
//!
//! Properties: never panics; verdicts do not depend on the order objects were inserted;
//! an incremental `update` after removing one object agrees with deciding from scratch; for every
//! registered controller, `merge` keeps every foreign entry untouched and in order, and `merge`
//! applied to its own result changes nothing; a round of all controllers writing status in turn
//! reaches a fixed point (a second round writes nothing).
#![no_main]

use gamma_arbiter::merge_outcome;
use gamma_arbiter::{Arbiter, ArbiterConfig, Identity, MergeOutcome, ParentConditions};
use gamma_fuzz::{cluster, frame, generate};
use gamma_model::gateway::RouteStatus;
use gamma_model::meta::Time;
use gamma_model::{AnyResource, ObjectKey, Snapshot};
use libfuzzer_sys::fuzz_target;

fn pairs(d: &gamma_arbiter::Decisions) -> Vec<(ObjectKey, usize, gamma_arbiter::Verdict)> {
    d.pairs()
        .map(|(r, i, v)| (r.to_object_key(), i, v.clone()))
        .collect()
}

fn foreign<'a>(
    s: &'a RouteStatus,
    me: &Identity,
) -> Vec<&'a gamma_model::gateway::RouteParentStatus> {
    s.parents
        .iter()
        .filter(|e| !me.answers_to(&e.controller_name))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let (values, mut u) = frame::resources(data);
    let mut g = generate::Gen::new(&mut u, 2_000);
    let Ok(config) = serde_json::from_value::<ArbiterConfig>(generate::arbiter_config(&mut g))
    else {
        return;
    };
    let Ok(arbiter) = Arbiter::new(config.clone()) else {
        return;
    };
    // One object per identity: with duplicates, insertion order legitimately picks the survivor.
    let mut resources: Vec<AnyResource> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for r in cluster::decode_all(&values) {
        if seen.insert(ObjectKey::of(&r)) {
            resources.push(r);
        }
    }
    let snapshot = Snapshot::from_resources(resources.clone());
    let decisions = arbiter.decide_all(&snapshot);
    let _ = serde_json::to_string(&pairs(&decisions)).expect("verdicts serialize");

    // Order independence: a shuffled insertion order gives the same verdicts.
    let mut shuffled = resources.clone();
    for i in (1..shuffled.len()).rev() {
        let j = g.below(i + 1);
        shuffled.swap(i, j);
    }
    let again = arbiter.decide_all(&Snapshot::from_resources(shuffled));
    assert_eq!(
        pairs(&decisions),
        pairs(&again),
        "verdicts depend on input order"
    );

    // Incremental: remove one object, update, compare with a full decision.
    if !resources.is_empty() {
        let victim = ObjectKey::of(&resources[g.below(resources.len())]);
        let mut smaller = snapshot.clone();
        smaller.remove(&victim);
        let mut incremental = decisions.clone();
        arbiter.update(&mut incremental, &smaller, &victim);
        let full = arbiter.decide_all(&smaller);
        assert_eq!(
            pairs(&incremental),
            pairs(&full),
            "incremental update after removing {victim}"
        );
    }

    // Status: every registered controller writes in turn; merge is idempotent, foreign entries
    // stay as they were, and a second round writes nothing.
    let ids: Vec<Identity> = config
        .meshes
        .iter()
        .filter_map(|m| Identity::of_mesh(&config, &m.name))
        .collect();
    let now = Time::from_unix(1_700_000_000, 0);
    let later = now.plus_seconds(60);
    for resource in snapshot.iter().map(|(_, r)| r) {
        let Some((meta, status)) = resource.as_route().map(|v| (v.metadata, v.status)) else {
            continue;
        };
        let key = ObjectKey::of(resource);
        let generation = meta.generation_or_zero();
        let mut current = status.cloned().unwrap_or_default();
        for round in 0..2 {
            let mut wrote = false;
            for me in &ids {
                let Some(desired) =
                    arbiter.desired_status(&decisions, &snapshot, &key, me, &|_| {
                        Some(ParentConditions::accepted())
                    })
                else {
                    continue;
                };
                let at = if round == 0 { now } else { later };
                match merge_outcome(&current, &desired, me, generation, at) {
                    MergeOutcome::Write { status, .. } => {
                        assert_eq!(
                            foreign(&current, me),
                            foreign(&status, me),
                            "{} modified another controller's entry on {key}",
                            me.name
                        );
                        let twice = merge_outcome(&status, &desired, me, generation, later);
                        assert_eq!(
                            twice,
                            MergeOutcome::Unchanged,
                            "merge is not idempotent on {key}"
                        );
                        current = status;
                        wrote = true;
                    }
                    MergeOutcome::Unchanged | MergeOutcome::Stale { .. } => {}
                    _ => {}
                }
            }
            if round == 1 {
                assert!(
                    !wrote,
                    "no fixed point after one round of writes on {key}: {current:?}"
                );
            }
        }
    }
});
