//! Runs `N` full decisions (first argument, default 0) of the arbiter benchmark's cluster
//! (1,000 namespaces, 10,000 Services, 50,000 HTTPRoutes; `benches/benches/support/
//! arbiter_cluster.rs`) after building the snapshot and warming up, so that
//! `valgrind --tool=callgrind` totals for N and 0 differ by exactly N `decide_all` calls
//! (including dropping each result). A second argument `update` runs N one-Service updates
//! instead, `relabel` N Namespace relabels, `time` prints the wall time per `decide_all` (min
//! and median of N) and of building the snapshot. Method in benches/README.md (gamma-arbiter).
#![allow(clippy::unwrap_used, clippy::print_stdout)]

#[path = "../../benches/support/arbiter_cluster.rs"]
mod arbiter_cluster;

use std::hint::black_box;

use arbiter_cluster::{cluster, config, service};
use gamma_arbiter::Arbiter;
use gamma_model::k8s::Namespace;
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0);
    let mode = args.get(2).map(String::as_str).unwrap_or("decide_all");
    let objects = cluster();
    let start = std::time::Instant::now();
    let snap = Snapshot::from_resources(objects);
    let built = start.elapsed();
    let arbiter = Arbiter::new(config()).unwrap();
    let mut decisions = arbiter.decide_all(&snap);
    match mode {
        "update" | "relabel" => {
            let (key, other) = if mode == "update" {
                let mut other = snap.clone();
                other.upsert(service("ns-500", 5000, true));
                (
                    ObjectKey::new(ResourceKind::Service, "ns-500", "svc-5000"),
                    other,
                )
            } else {
                let mut other = snap.clone();
                let mut ns = Namespace::new("ns-501");
                ns.metadata
                    .labels
                    .insert("gamma.rs/mesh".into(), "linkerd".into());
                other.upsert(AnyResource::Namespace(ns));
                (ObjectKey::new(ResourceKind::Namespace, "", "ns-501"), other)
            };
            let snaps = [&snap, &other];
            // warm up: builds the dependency index
            for k in 0..2 {
                black_box(arbiter.update(&mut decisions, snaps[(k + 1) & 1], &key));
            }
            let mut changed = 0usize;
            for k in 0..n {
                changed +=
                    black_box(arbiter.update(&mut decisions, snaps[(k + 1) & 1], &key)).len();
            }
            println!("{mode}: {n} updates, {changed} pairs changed");
        }
        "time" => {
            // Wall time per call (min and median of n), for quick A/B runs of two builds on a
            // noisy machine; criterion stays the reported figure.
            let mut times = Vec::with_capacity(n);
            for _ in 0..n {
                let start = std::time::Instant::now();
                decisions = black_box(arbiter.decide_all(black_box(&snap)));
                times.push(start.elapsed());
            }
            black_box(&decisions);
            times.sort();
            if let (Some(min), Some(med)) = (times.first(), times.get(n / 2)) {
                println!(
                    "decide_all: min {min:.2?} median {med:.2?} of {n}; snapshot built in {built:.2?}"
                );
            }
        }
        _ => {
            let mut pairs = 0usize;
            for _ in 0..n {
                decisions = black_box(arbiter.decide_all(black_box(&snap)));
                pairs += decisions.len();
            }
            println!("decide_all: {n} runs, {pairs} pairs");
        }
    }
}
