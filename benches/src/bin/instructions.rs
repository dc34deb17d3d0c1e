//! Runs `N` resolves (first argument, default 0) of a scenario (second argument: `one-port-10`,
//! `one-port-10000`, `many-services`) after building and warming up, so that
//! `valgrind --tool=callgrind` totals for N and 0 differ by exactly N resolves.
//! Method in benches/README.md.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::hint::black_box;

use gamma_benches::{Rng, many_services, one_port, one_port_request, svc_ip};
use gamma_resolve::{BuildOptions, Request, RouteTable};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0);
    let scenario = args.get(2).map(String::as_str).unwrap_or("one-port-10000");
    let (input, services, rules) = match scenario {
        "one-port-10" => (one_port(10), 1, 10),
        "many-services" => (many_services(10_000, 5), 10_000, 5),
        _ => (one_port(10_000), 1, 10_000),
    };
    let table = RouteTable::from_input(&input, &BuildOptions::default());
    let mut rng = Rng::new(5);
    let reqs: Vec<(usize, String, String)> = (0..1024)
        .map(|_| {
            let j = rng.below(services);
            let i = if services == 1 {
                rng.below(rules)
            } else {
                j + rng.below(rules)
            };
            let (p, t) = one_port_request(i);
            (j, p, t)
        })
        .collect();
    let run = |count: usize| {
        let mut forwards = 0usize;
        for k in 0..count {
            let (j, p, t) = &reqs[k & 1023];
            let h = [("x-tenant", t.as_str())];
            let req = Request::http(svc_ip(*j), 80, "GET", p).with_headers(&h);
            if matches!(
                black_box(table.resolve(&req, k as u64)),
                gamma_resolve::Decision::Forward(_)
            ) {
                forwards += 1;
            }
        }
        forwards
    };
    // warm up: regex caches, page faults
    black_box(run(2048));
    let forwards = run(n);
    println!("{scenario}: {n} resolves, {forwards} forwarded");
}
