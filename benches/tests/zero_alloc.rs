//! Zero heap allocations per resolve, proven with a counting global allocator.
//! One test function only: the counter is process-wide.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::alloc::System;

use gamma_benches::counting::{INSTRUMENTED_SYSTEM, Region, StatsAlloc, allocations};
use gamma_benches::grpc_mix::{grpc_mix, grpc_mix_request};
use gamma_benches::regex_mix::MixRequest;
use gamma_benches::{Rng, many_services, one_port, one_port_request, svc_ip};
use gamma_resolve::input::*;
use gamma_resolve::{BuildOptions, Decision, Protocol, Request, RouteTable, Scheme};

#[global_allocator]
static ALLOC: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn mixed() -> TableInput {
    let mut input = one_port(300);
    let r = &mut input.routes[0];
    // a redirect with ReplacePrefixMatch, a rewrite, a regex and a host-matched route
    r.rules[0].backends.clear();
    r.rules[0].filters.redirect = Some(RedirectIr {
        scheme: Some(Scheme::Https),
        hostname: None,
        port: Some(8443),
        path: Some(PathModifierIr::Prefix("/new".into())),
        status: 301,
    });
    r.rules[2].filters.rewrite = Some(RewriteIr {
        hostname: Some("internal".into()),
        path: Some(PathModifierIr::Prefix("/v2".into())),
    });
    r.rules[4].matches.push(MatchIr::Http {
        path: PathMatchIr::Regex("/re/[0-9]+".into()),
        method: Some("GET".into()),
        headers: vec![("x-re".into(), StrMatch::Regex("a+".into()))],
        query: vec![("q".into(), StrMatch::Exact("1".into()))],
    });
    // a second regex on the same path index, tried first and rejected by its header: the
    // regex set's all-matches pass and its pattern-set pool are on the resolve path too
    r.rules[1].matches.push(MatchIr::Http {
        path: PathMatchIr::Regex("/re/[0-9]+".into()),
        method: Some("GET".into()),
        headers: vec![("x-re".into(), StrMatch::Regex("b+".into()))],
        query: vec![("q".into(), StrMatch::Exact("1".into()))],
    });
    input.routes[1].hostnames = vec!["*.example.com".into(), "foo.example.com".into()];
    input
}

#[test]
fn resolve_allocates_nothing() {
    let input = mixed();
    let table = RouteTable::from_input(&input, &BuildOptions::default());
    let big = RouteTable::from_input(&many_services(500, 5), &BuildOptions::default());
    // gRPC regex service/method matches go through the prefilter set: exact hits, regex-only
    // hits (some rejected by their header first) and misses
    let grpc = RouteTable::from_input(&grpc_mix(1000), &BuildOptions::default());
    let mut rng = Rng::new(3);
    let grpc_reqs: Vec<(String, String)> = [MixRequest::PathHit, MixRequest::RegexHit]
        .into_iter()
        .chain([MixRequest::RegexHit, MixRequest::NotFound])
        .flat_map(|k| (0..20).map(move |_| k))
        .map(|k| grpc_mix_request(&mut rng, 1000, k))
        .collect();
    let mut grpc_forwards = 0usize;
    let mut reqs: Vec<(String, String)> = (0..300).map(one_port_request).collect();
    reqs.push(("/re/123?q=1".into(), "aaa".into()));
    reqs.push(("/nothing/here".into(), "t0".into()));
    let dst = svc_ip(0);
    let mut kinds = [0usize; 4];
    // Pass 0 warms up: the regex crate allocates its per-thread matching cache on first use
    // (then reuses it). Pass 1 is counted: steady-state resolves allocate nothing.
    let mut counted = None;
    for pass in 0..2 {
        if pass == 1 {
            counted = Some(Region::new(ALLOC));
        }
        for (i, (p, t)) in reqs.iter().enumerate() {
            let h = [
                ("x-tenant", t.as_str()),
                ("x-re", t.as_str()),
                ("Host", "Foo.Example.com:80"),
            ];
            let req = Request::http(dst, 80, "GET", p)
                .with_headers(&h)
                .with_host("Foo.Example.com:80");
            let d = table.resolve(&req, (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            // touch the computed parts without formatting them (formatting may allocate)
            match d {
                Decision::Forward(f) => {
                    kinds[0] += 1;
                    if p.starts_with("/re/") {
                        // rule 1's regex matched first and its header failed
                        assert_eq!(f.rule.index, 4);
                    }
                    if let Some(rw) = f.rewrite {
                        assert!(rw.path.is_some_and(|p| p.eq_str("/v2/items/42")));
                    }
                }
                Decision::Redirect(r) => {
                    kinds[1] += 1;
                    assert_eq!(r.location.port, Some(8443));
                }
                Decision::Respond(_) => kinds[2] += 1,
                _ => kinds[3] += 1,
            }
            let g = Request::grpc(dst, 80, "/pkg.S/Get");
            let _ = table.resolve(&g, 1);
            let c = Request::connection(svc_ip(7), 80, Protocol::Tcp);
            let _ = table.resolve(&c, 1);
            let m = Request::http(svc_ip(i % 500), 80, "GET", p).with_headers(&h);
            let _ = big.resolve(&m, 3);
            let (gp, gt) = &grpc_reqs[i % grpc_reqs.len()];
            let gh = [("x-tenant", if i % 3 == 0 { "none" } else { gt.as_str() })];
            let gq = Request::grpc(dst, 80, gp).with_headers(&gh);
            if matches!(grpc.resolve(&gq, 5), Decision::Forward(_)) && pass == 1 {
                grpc_forwards += 1;
            }
        }
    }
    let n = allocations(&counted.expect("pass 1 ran").change());
    assert_eq!(n, 0, "resolve allocated {n} times");
    assert!(grpc_forwards > 0, "no gRPC call was forwarded");
    // the run exercised forwards, redirects and error responses
    assert!(kinds[0] > 0 && kinds[1] > 0 && kinds[2] > 0, "{kinds:?}");
    // and the counter does count (explain allocates)
    let region = Region::new(ALLOC);
    let req = Request::http(dst, 80, "GET", "/s2/api");
    let _ = table.explain(&req, 0);
    assert!(allocations(&region.change()) > 0);
}
