//! Convergence simulation (Gateway API RouteStatus.parents): 2 to 4 controllers
//! (meshes and a gateway controller) share random clusters. Each repeatedly decides, writes status
//! through `merge` and follows its handoff directives, interleaved in random order, while the
//! cluster changes between phases. Checked:
//!
//! - every phase reaches a fixed point (a full round with no writes) within 2 rounds;
//! - no write ever modifies, removes or reorders another controller's entry;
//! - at the fixed point, exactly the owners program each parent, and the only old owners still
//!   retaining are those waiting for a new owner that cannot accept (conflict, pending, a
//!   controller not running); once the grace period passes nobody retains.
//!
//! 512 clusters x 8 interleavings x 4 phases by default (`GAMMA_SIM_CASES` changes the cluster
//! count).

mod common;

use std::collections::BTreeMap;

use common::random::{self as gen_, ClusterSpec};
use gamma_arbiter::ParentConditions;
use gamma_arbiter::{Arbiter, Identity, PairKey, Verdict};
use gamma_arbiter::{Directive, Handoff};
use gamma_arbiter::{MergeOutcome, merge_outcome};
use gamma_model::gateway::RouteStatus;
use gamma_model::meta::Time;
use gamma_model::{ObjectKey, Snapshot};
use proptest::prelude::*;

const MAX_ROUNDS: usize = 2;
const GRACE: i64 = 100_000;

/// A small deterministic generator for interleavings (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

struct Controller {
    me: Identity,
    handoff: Handoff,
    /// The latest directive per pair.
    directives: BTreeMap<PairKey, Directive>,
}

struct Sim {
    arbiter: Arbiter,
    spec: ClusterSpec,
    snap: Snapshot,
    /// The decisions for `snap` (every controller would compute the same; see properties.rs).
    decisions: gamma_arbiter::Decisions,
    controllers: Vec<Controller>,
    store: BTreeMap<ObjectKey, RouteStatus>,
    now: i64,
    rng: Rng,
    writes: usize,
}

impl Sim {
    fn new(spec: &ClusterSpec, controllers: &[Identity], seed: u64) -> Sim {
        let arbiter = Arbiter::new(spec.config()).unwrap();
        let snap = Snapshot::from_resources(spec.resources());
        Sim {
            decisions: arbiter.decide_all(&snap),
            arbiter,
            spec: spec.clone(),
            snap,
            controllers: controllers
                .iter()
                .map(|me| Controller {
                    me: me.clone(),
                    handoff: Handoff::new(GRACE),
                    directives: BTreeMap::new(),
                })
                .collect(),
            store: BTreeMap::new(),
            now: 1_767_600_000,
            rng: Rng(seed | 1),
            writes: 0,
        }
    }

    fn routes(&self) -> Vec<ObjectKey> {
        self.decisions
            .routes()
            .map(|(r, _)| r.to_object_key())
            .collect()
    }

    /// One controller reconciles one route: decide, write status through merge, follow the
    /// handoff directive.
    fn step(&mut self, c: usize, route: &ObjectKey) {
        let decisions = &self.decisions;
        let ctl = &mut self.controllers[c];
        let view = self.snap.get(route).unwrap().as_route().unwrap();
        let (meta, refs) = (view.metadata, view.parent_refs);
        let generation = meta.generation_or_zero();
        let desired = self
            .arbiter
            .desired_status(decisions, &self.snap, route, &ctl.me, &|_| {
                Some(ParentConditions::accepted())
            })
            .unwrap();
        let existing = self.store.get(route).cloned().unwrap_or_default();
        let now = Time::from_unix(self.now, 0);
        match merge_outcome(&existing, &desired, &ctl.me, generation, now) {
            MergeOutcome::Write { status, dropped } => {
                assert!(dropped.is_empty());
                let foreign = |s: &RouteStatus| -> Vec<_> {
                    s.parents
                        .iter()
                        .filter(|e| !ctl.me.answers_to(&e.controller_name))
                        .cloned()
                        .collect()
                };
                assert_eq!(
                    foreign(&existing),
                    foreign(&status),
                    "{} modified another controller's entry on {route}",
                    ctl.me
                );
                self.store.insert(route.clone(), status);
                self.writes += 1;
            }
            MergeOutcome::Unchanged => {}
            other => panic!("unexpected {other:?}"),
        }
        let status = self.store.get(route).cloned().unwrap_or_default();
        for (i, pref) in refs.iter().enumerate() {
            let pair = PairKey {
                route: route.clone(),
                parent_index: i,
            };
            let dec = decisions.decision(route, i, &ctl.me).unwrap();
            let dir = ctl.handoff.directive(
                &pair,
                &dec,
                pref,
                &status,
                generation,
                decisions.registry(),
                now,
            );
            match &dir {
                Directive::Program => assert!(dec.is_owned()),
                Directive::Retain { deadline, .. } => {
                    assert!(!dec.is_owned());
                    assert!(now <= *deadline);
                }
                _ => {}
            }
            ctl.directives.insert(pair, dir);
        }
        self.now += 1;
    }

    /// Runs rounds (every controller reconciles every route, in a random interleaving) until
    /// a round writes nothing; returns how many rounds that took.
    fn phase(&mut self) -> usize {
        let routes = self.routes();
        for round in 1..=MAX_ROUNDS + 1 {
            let mut work: Vec<(usize, ObjectKey)> = (0..self.controllers.len())
                .flat_map(|c| routes.iter().map(move |r| (c, r.clone())))
                .collect();
            self.rng.shuffle(&mut work);
            let before = self.writes;
            for (c, r) in work {
                self.step(c, &r);
            }
            if self.writes == before {
                return round;
            }
        }
        panic!("no fixed point within {MAX_ROUNDS} rounds");
    }

    /// At a fixed point: exactly the owners program; retention only while the new owner
    /// cannot accept.
    fn check_fixed_point(&self) {
        let decisions = self.arbiter.decide_all(&self.snap);
        assert_eq!(decisions, self.decisions);
        let running: Vec<&Identity> = self.controllers.iter().map(|c| &c.me).collect();
        for (route, i, verdict) in decisions.pairs() {
            let pair = PairKey {
                route: route.to_object_key(),
                parent_index: i,
            };
            for ctl in &self.controllers {
                let dir = ctl
                    .directives
                    .get(&pair)
                    .cloned()
                    .unwrap_or(Directive::Ignore);
                let owned = decisions.decision(route, i, &ctl.me).unwrap().is_owned();
                assert_eq!(
                    dir == Directive::Program,
                    owned,
                    "{} on {pair}: {verdict} but {dir:?}",
                    ctl.me
                );
                if let Directive::Retain { .. } = dir {
                    // A running new owner has accepted by now, so retaining would be two
                    // controllers programming a parent only one owns.
                    let new_owner_running = match verdict {
                        Verdict::Owned { owners, .. } => owners
                            .names()
                            .iter()
                            .any(|o| running.iter().any(|me| decisions.registry().is_me(me, o))),
                        _ => false,
                    };
                    assert!(
                        !new_owner_running,
                        "{} still retains {pair}: {verdict}",
                        ctl.me
                    );
                }
            }
        }
    }

    fn no_retention(&self) {
        for ctl in &self.controllers {
            for (pair, dir) in &ctl.directives {
                assert!(
                    !matches!(dir, Directive::Retain { .. }),
                    "{} retains {pair} after grace",
                    ctl.me
                );
            }
        }
    }

    /// A random cluster change: relabel a namespace, re-annotate or delete/re-create a
    /// Service, or edit a route (bumping its generation).
    fn mutate(&mut self) {
        let changed = self.mutate_one();
        // The incremental path, as an embedding controller would use it.
        self.arbiter
            .update(&mut self.decisions, &self.snap, &changed);
    }

    fn mutate_one(&mut self) -> ObjectKey {
        let ns = self.rng.below(4);
        match self.rng.below(5) {
            0 => {
                self.spec.namespaces[ns].mesh = self.rng.below(7) as u8;
                self.spec.namespaces[ns].present = true;
                let r = self.spec.namespace(ns).unwrap();
                self.snap.upsert(r.clone());
                ObjectKey::of(&r)
            }
            1 => {
                let n = &mut self.spec.namespaces[ns];
                n.istio_injection = !n.istio_injection;
                n.present = true;
                let r = self.spec.namespace(ns).unwrap();
                self.snap.upsert(r.clone());
                ObjectKey::of(&r)
            }
            2 => {
                let s = self.rng.below(3);
                let svc = &mut self.spec.services[ns][s];
                svc.annotation = self.rng.below(12) as u8;
                svc.present = true;
                let r = self.spec.service(ns, s).unwrap();
                self.snap.upsert(r.clone());
                ObjectKey::of(&r)
            }
            3 => {
                let s = self.rng.below(3);
                let present = !self.spec.services[ns][s].present;
                self.spec.services[ns][s].present = present;
                let key = ObjectKey::new(
                    gamma_model::ResourceKind::Service,
                    gen_::NAMESPACES[ns],
                    gen_::SERVICES[s],
                );
                match self.spec.service(ns, s) {
                    Some(r) => {
                        self.snap.upsert(r);
                    }
                    None => {
                        self.snap.remove(&key);
                    }
                }
                key
            }
            _ => {
                let i = self.rng.below(self.spec.routes.len());
                let r = &mut self.spec.routes[i];
                r.annotation = self.rng.below(16) as u8;
                r.generation += 1;
                let r = self.spec.route(i).unwrap();
                self.snap.upsert(r.clone());
                ObjectKey::of(&r)
            }
        }
    }
}

fn controllers(mask: u8) -> Vec<Identity> {
    let all = gen_::identities();
    let mut out: Vec<Identity> = all
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, id)| id.clone())
        .collect();
    // 2 to 4 controllers.
    for id in all {
        if out.len() >= 2 {
            break;
        }
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

fn cases() -> u32 {
    std::env::var("GAMMA_SIM_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(512)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn controllers_converge_without_touching_each_other(
        spec in gen_::cluster(5),
        mask in 0u8..16,
        seed in any::<u64>(),
    ) {
        let ids = controllers(mask);
        for k in 0..8u64 {
            let mut sim = Sim::new(&spec, &ids, seed.wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
            for phase in 0..4 {
                if phase > 0 {
                    for _ in 0..=sim.rng.below(3) {
                        sim.mutate();
                    }
                }
                let rounds = sim.phase();
                prop_assert!(rounds <= MAX_ROUNDS);
                sim.check_fixed_point();
            }
            // After the grace period, nobody retains anything.
            sim.now += GRACE + 1;
            prop_assert_eq!(sim.phase(), 1);
            sim.no_retention();
        }
    }
}
