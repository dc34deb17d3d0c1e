//! Invariants over random clusters: order independence, one verdict for every
//! controller, and incremental updates that agree with a full decision.

mod common;

use std::collections::BTreeMap;

use common::random::{self as gen_, ClusterSpec};
use gamma_arbiter::{Arbiter, Ownership, Verdict};
use gamma_model::{AnyResource, ObjectKey, Snapshot};
use proptest::prelude::*;

fn arbiter(spec: &ClusterSpec) -> Arbiter {
    Arbiter::new(spec.config()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    // Principles: the same resources in any order give the same result.
    #[test]
    fn shuffled_input_order_gives_identical_decisions(
        (spec, shuffled) in gen_::cluster(8).prop_flat_map(|s| {
            let r = s.resources();
            (Just(s), Just(r).prop_shuffle())
        })
    ) {
        let a = arbiter(&spec);
        let forward = a.decide_all(&Snapshot::from_resources(spec.resources()));
        let other = a.decide_all(&Snapshot::from_resources(shuffled));
        prop_assert_eq!(&forward, &other);
        // Per-controller views too.
        for me in gen_::identities() {
            let x: Vec<_> = forward.for_controller(&me).collect();
            let y: Vec<_> = other.for_controller(&me).collect();
            prop_assert_eq!(x, y);
        }
    }

    // Every controller computing on the same snapshot reaches the same verdict about
    // every parent; for any pair of controllers, their views of the owners are equal, and a
    // controller sees Owned exactly when it is among the owners.
    #[test]
    fn every_controller_reaches_the_same_verdict(spec in gen_::cluster(8)) {
        let a = arbiter(&spec);
        let snap = Snapshot::from_resources(spec.resources());
        let d = a.decide_all(&snap);
        let ids = gen_::identities();
        for (route, i, verdict) in d.pairs() {
            let views: Vec<Ownership> = ids.iter().map(|me| d.decision(route, i, me).unwrap()).collect();
            let owners_seen: Vec<_> = views.iter().map(|v| match v {
                Ownership::Owned { owners, .. } | Ownership::Foreign { owners, .. } => Some(owners.clone()),
                _ => None,
            }).collect();
            for w in owners_seen.windows(2) {
                prop_assert_eq!(&w[0], &w[1]);
            }
            for (me, view) in ids.iter().zip(&views) {
                match (verdict, view) {
                    (Verdict::Owned { owners, .. }, Ownership::Owned { .. }) => {
                        prop_assert!(owners.names().iter().any(|o| d.registry().is_me(me, o)));
                    }
                    (Verdict::Owned { owners, .. }, Ownership::Foreign { .. }) => {
                        prop_assert!(!owners.names().iter().any(|o| d.registry().is_me(me, o)));
                    }
                    (Verdict::Conflict { candidates: c, .. }, Ownership::Conflict { candidates, .. }) => {
                        prop_assert_eq!(c, candidates);
                    }
                    (Verdict::Unclaimed, Ownership::Unclaimed)
                    | (Verdict::Pending { .. }, Ownership::Pending { .. })
                    | (Verdict::NotApplicable, Ownership::NotApplicable) => {}
                    (Verdict::NotAService { group: a }, Ownership::NotAService { group: b }) => {
                        prop_assert_eq!(a, b);
                    }
                    (v, x) => prop_assert!(false, "verdict {v} viewed as {x}"),
                }
            }
            // Never a silent tie-break: a conflict has at least two candidates.
            if let Verdict::Conflict { candidates, .. } = verdict {
                prop_assert!(candidates.len() >= 2);
            }
        }
    }

    // Incremental path: after each single object change, updating only the affected
    // pairs gives exactly what deciding everything again gives.
    #[test]
    fn incremental_updates_agree_with_full_decisions(
        (from, to, order) in (gen_::cluster(6), gen_::cluster(6)).prop_flat_map(|(a, b)| {
            let mut keys: Vec<ObjectKey> = a.resources().iter().chain(b.resources().iter()).map(ObjectKey::of).collect();
            keys.sort();
            keys.dedup();
            (Just(a), Just(b), Just(keys).prop_shuffle())
        })
    ) {
        // The configuration stays fixed (it is not an object); use `from`'s.
        let a = arbiter(&from);
        let target: BTreeMap<ObjectKey, AnyResource> = to.resources().into_iter().map(|r| (ObjectKey::of(&r), r)).collect();
        let mut snap = Snapshot::from_resources(from.resources());
        let mut d = a.decide_all(&snap);
        for key in order {
            match target.get(&key) {
                Some(r) => { snap.upsert(r.clone()); }
                None => { snap.remove(&key); }
            }
            let before = d.clone();
            let changed = a.update(&mut d, &snap, &key);
            let full = a.decide_all(&snap);
            prop_assert_eq!(&d, &full, "after changing {}", key);
            // The reported changes are exactly the pairs whose verdict differs.
            let mut expect = vec![];
            let routes: std::collections::BTreeSet<_> = before.routes().map(|(r, _)| r.to_object_key()).chain(full.routes().map(|(r, _)| r.to_object_key())).collect();
            for r in routes {
                let n = before.route(&r).map_or(0, |v| v.len()).max(full.route(&r).map_or(0, |v| v.len()));
                for i in 0..n {
                    if before.verdict(&r, i) != full.verdict(&r, i) {
                        expect.push(gamma_arbiter::PairKey { route: r.clone(), parent_index: i });
                    }
                }
            }
            let mut got = changed.clone();
            got.sort();
            got.dedup();
            prop_assert_eq!(got, expect, "changes reported after {}", key);
        }
    }
}
