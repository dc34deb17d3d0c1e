//! Runs `N` decisions (first argument, default 0) of `Authorizer::decide` for the Pod selected
//! by three policies in the authorization fixture with `P` policies (second argument, default
//! 10,000; `gamma_benches::authz`), after building and warming up, so that
//! `valgrind --tool=callgrind` totals for N and 0 differ by exactly N decisions. A third
//! argument `allowed` uses a peer the first rule of the first policy admits; the default is a
//! denied peer (every rule of the three policies tried). Method in benches/README.md.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::hint::black_box;

use gamma_authz::Identity;
use gamma_benches::authz::{authz_cluster, denied_peer, measured};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0);
    let policies: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let peer = if args.get(3).map(String::as_str) == Some("allowed") {
        Identity::service_account("cluster.local", "other", "anyone")
    } else {
        denied_peer()
    };
    let (_, a) = authz_cluster(policies);
    let w = measured(&a);
    for _ in 0..100 {
        black_box(a.decide(Some(&peer), w, 5432));
    }
    let mut allowed = 0usize;
    for _ in 0..n {
        let d = a.decide(black_box(Some(&peer)), black_box(w), black_box(5432));
        allowed += usize::from(black_box(d).allowed());
    }
    println!("{n} decisions with {policies} policies, {allowed} allowed");
}
