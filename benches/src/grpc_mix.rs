//! The gRPC mix: one Service port (`10.96.0.1:80`) with N GRPCRoute rules, 100 per route, of
//! which one in 50 (2%) matches its service (and for half of them its method) by
//! `RegularExpression`, over 190 distinct service patterns of four shapes; every other rule
//! matches an exact service and method (`pkg.S{i}` / `Get`, every third also an exact
//! `x-tenant` header). At 10,000 rules: 200 regex rules over 190 distinct service regexes (the
//! last ten repeat the first ten's), two method regexes.
//!
//! Three request kinds, as in the regex mix ([`crate::regex_mix`]): an exact hit (a random
//! rule), a regex-only hit (a random regex rule: no exact service matches it) and a 404 (no
//! rule matches, so every regex candidate of the port is considered).

use gamma_model::RouteKind;
use gamma_resolve::input::*;

use crate::regex_mix::{MixRequest, REGEX_DISTINCT, REGEX_EVERY, is_regex_rule};
use crate::{Rng, backend};

/// Service pattern `k` of the mix: four shapes (versioned packages, an alternation, a
/// suffix, a counted repetition).
pub fn grpc_service_pattern(k: usize) -> String {
    match k % 4 {
        0 => format!(r"r{k}\.v[0-9]+\.[A-Z][a-z]+"),
        1 => format!(r"r{k}\.(users|groups)\.Svc"),
        2 => format!(r"r{k}\..*Service"),
        _ => format!(r"r{k}\.[A-Za-z]+[0-9]{{2,4}}"),
    }
}

/// A `service` pattern `k` matches (and no exact service of the mix is).
pub fn grpc_service_of(k: usize) -> String {
    match k % 4 {
        0 => format!("r{k}.v2.Items"),
        1 => format!("r{k}.users.Svc"),
        2 => format!("r{k}.a.b.ReportService"),
        _ => format!("r{k}.abc123"),
    }
}

/// The method regex of regex rule `i` (half of them have one).
fn method_regex(i: usize) -> Option<StrMatch> {
    (i / REGEX_EVERY)
        .is_multiple_of(2)
        .then(|| StrMatch::Regex("(Get|List)[A-Za-z]*".into()))
}

fn grpc_rule(i: usize) -> RuleIr {
    let headers = if i.is_multiple_of(3) {
        vec![(
            "x-tenant".into(),
            StrMatch::Exact(format!("t{}", i % 7).into()),
        )]
    } else {
        vec![]
    };
    let (service, method) = if is_regex_rule(i) {
        let k = (i / REGEX_EVERY) % REGEX_DISTINCT;
        (
            StrMatch::Regex(grpc_service_pattern(k).into()),
            method_regex(i),
        )
    } else {
        (
            StrMatch::Exact(format!("pkg.S{i}").into()),
            Some(StrMatch::Exact("Get".into())),
        )
    };
    RuleIr {
        matches: smallvec![MatchIr::Grpc {
            service: Some(service),
            method,
            headers,
        }],
        backends: smallvec![
            backend(&format!("b{}", i % 8), 3),
            backend(&format!("b{}", (i + 1) % 8), 1),
        ],
        ..RuleIr::default()
    }
}

/// `rules` GRPCRoute rules of the mix on one Service port, 100 rules per route.
pub fn grpc_mix(rules: usize) -> TableInput {
    let mut input = crate::one_port_of(rules, grpc_rule);
    for r in &mut input.routes {
        r.kind = RouteKind::Grpc;
    }
    input
}

/// A request (gRPC `:path`, `x-tenant` value) of kind `kind` for the mix of `rules` rules.
pub fn grpc_mix_request(rng: &mut Rng, rules: usize, kind: MixRequest) -> (String, String) {
    let rule = |i: usize| -> (String, String) {
        let tenant = format!("t{}", i % 7);
        if is_regex_rule(i) {
            let k = (i / REGEX_EVERY) % REGEX_DISTINCT;
            (format!("/{}/ListItems", grpc_service_of(k)), tenant)
        } else {
            (format!("/pkg.S{i}/Get"), tenant)
        }
    };
    match kind {
        MixRequest::PathHit => rule(rng.below(rules)),
        MixRequest::RegexHit => {
            let m = rng.below(rules.div_ceil(REGEX_EVERY));
            rule((m * REGEX_EVERY + REGEX_EVERY / 2).min(rules.saturating_sub(1)))
        }
        MixRequest::NotFound => (format!("/none.S{}/Get", rng.below(1000)), "t0".into()),
    }
}
