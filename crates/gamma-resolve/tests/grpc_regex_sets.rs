//! Differential tests for gRPC `RegularExpression` service/method matches: the engine matches a
//! hostname group's regex candidates in one multi-pattern pass over `service/method`, and must
//! pick exactly the rule the naive oracle (`gamma_resolve::reference`) picks, which tries every
//! match in precedence order (Gateway API GRPCRouteRule.matches and GRPCMethodMatch: a
//! RegularExpression service or method matches the whole service or method name; among matching
//! rules the precedence order of GRPCRouteRule decides).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::oracle::{self, Outcome, Policy};
use common::*;
use gamma_model::RouteKind;
use gamma_resolve::input::*;
use gamma_resolve::{Protocol, Request, RouteTable};
use proptest::prelude::*;

/// Pieces of service and method regexes: literals, classes, repetitions, alternations, the
/// anchors and word boundaries whose meaning the combined `service/method` pattern could
/// change, flags, and a `/` (which no service or method of a well-formed path contains).
const PIECES: &[&str] = &[
    "pkg",
    "\\.",
    "S",
    "T",
    "Get",
    "L",
    "[a-z]+",
    ".*",
    ".+",
    "(Get|List)",
    "x?",
    "^",
    "$",
    "\\b",
    "\\B",
    "(?i)get",
    "(?m)^",
    "(?m)$",
    "\\A",
    "\\z",
    "/",
    "|",
    "[^.]*",
    "é",
];

fn regex() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(PIECES), 1..4).prop_map(|v| v.concat())
}

fn part() -> impl Strategy<Value = Option<StrMatch>> {
    prop_oneof![
        1 => Just(None),
        1 => proptest::sample::select(&["pkg.S", "pkg.T", "Get", "List"][..])
            .prop_map(|s| Some(StrMatch::Exact(s.into()))),
        4 => regex().prop_map(|r| Some(StrMatch::Regex(r.into()))),
    ]
}

fn grpc_match() -> impl Strategy<Value = MatchIr> {
    let headers = proptest::option::weighted(
        0.2,
        proptest::sample::select(&["one", "two"][..])
            .prop_map(|v| vec![("x-v".into(), StrMatch::Exact(v.into()))]),
    );
    (part(), part(), headers).prop_map(|(service, method, headers)| MatchIr::Grpc {
        service,
        method,
        headers: headers.unwrap_or_default(),
    })
}

/// Mesh GRPCRoutes on `app/web` (one hostname group), rules of one to three matches.
fn input(routes: usize) -> impl Strategy<Value = TableInput> {
    let rules = proptest::collection::vec(
        proptest::collection::vec(grpc_match(), 1..3)
            .prop_map(|m| rule(m, vec![backend("app", "b0", 80, 1)])),
        1..6,
    );
    proptest::collection::vec(rules, 1..=routes).prop_map(|routes| {
        TableInput::new().with_services(services()).with_routes(
            routes
                .into_iter()
                .enumerate()
                .map(|(i, rules)| {
                    let r = route(
                        RouteKind::Grpc,
                        "app",
                        &format!("g{i}"),
                        vec![svc_parent("app", "web")],
                        rules,
                    );
                    created(r, i64::try_from(i % 3).unwrap())
                })
                .collect(),
        )
    })
}

/// `app/web` (the parent, a gRPC port) and `app/b0` (the backend).
fn services() -> Vec<ServiceIr> {
    vec![
        service("app", "web", "10.96.0.1", &[(80, "grpc")]),
        service("app", "b0", "10.96.9.0", &[(80, "")]),
    ]
}

/// Request paths: well-formed `/service/method`s (empty parts too), and malformed ones the
/// split rejects (their service and method are empty).
fn path() -> impl Strategy<Value = String> {
    let name = proptest::sample::select(
        &[
            "", "pkg.S", "pkg.T", "Get", "List", "get", "x", "pkg.SGet", "L", "é", "pkg.S\nx",
        ][..],
    );
    prop_oneof![
        6 => (name.clone(), name.clone()).prop_map(|(s, m)| format!("/{s}/{m}")),
        1 => (name.clone(), name.clone(), name).prop_map(|(a, b, c)| format!("/{a}/{b}/{c}")),
        1 => proptest::sample::select(&["", "/", "/a", "//", "pkg.S/Get", "/pkg.S", "/pkg.S/"][..]).prop_map(String::from),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, failure_persistence: None, .. ProptestConfig::default() })]

    // The engine (one prefilter pass over the regex candidates, then each candidate's own
    // conditions) and the oracle (every match tried in precedence order) pick the same rule
    // for every gRPC request.
    #[test]
    fn grpc_regex_matches_agree_with_the_oracle(
        input in input(6),
        paths in proptest::collection::vec((path(), proptest::option::of(proptest::sample::select(&["one", "two"][..]))), 1..16),
    ) {
        let policy = Policy::default();
        let table = RouteTable::from_input(&input, &policy.build_options());
        for (p, h) in &paths {
            let headers: Vec<(&str, &str)> = h.iter().map(|v| ("x-v", *v)).collect();
            let headers = headers.as_slice();
            let q = Request::grpc(ip("10.96.0.1"), 80, p).with_headers(&headers);
            prop_assert_eq!(q.protocol, Protocol::Grpc);
            let got = Outcome::of(&table.resolve(&q, 7));
            let want = oracle::resolve(&input, policy, &q, 7);
            prop_assert_eq!(got, want, "path {:?} header {:?}", p, h);
        }
    }
}

/// Many regex candidates in one group, each matching one service: every request reaches the
/// rule whose regexes it matches, the first in precedence order when several do, and
/// anchored patterns (`$` in a service regex, `^` in a method regex) match as alone.
#[test]
fn many_grpc_regexes_pick_the_first_matching_rule() {
    let mut rules = Vec::new();
    for i in 0..40 {
        let service = if i % 4 == 3 {
            format!("^pkg\\.S{i}$")
        } else {
            format!("pkg\\.S{i}")
        };
        let method = if i % 5 == 4 {
            "^(Get|List)$"
        } else {
            "Get|List"
        };
        rules.push(rule(
            vec![MatchIr::Grpc {
                service: Some(StrMatch::Regex(service.into())),
                method: Some(StrMatch::Regex(method.into())),
                headers: Vec::new(),
            }],
            vec![backend("app", "b0", 80, 1)],
        ));
    }
    // a later catch-all regex rule, reached only when nothing earlier matches
    rules.push(rule(
        vec![MatchIr::Grpc {
            service: Some(StrMatch::Regex("pkg\\..*".into())),
            method: None,
            headers: Vec::new(),
        }],
        vec![backend("app", "b0", 80, 1)],
    ));
    let input = TableInput::new()
        .with_services(services())
        .with_routes(vec![route(
            RouteKind::Grpc,
            "app",
            "g",
            vec![svc_parent("app", "web")],
            rules,
        )]);
    let policy = Policy::default();
    let table = RouteTable::from_input(&input, &policy.build_options());
    let rule_of = |p: &str| {
        let q = Request::grpc(ip("10.96.0.1"), 80, p);
        let d = table.resolve(&q, 1);
        assert_eq!(
            Outcome::of(&d),
            oracle::resolve(&input, policy, &q, 1),
            "{p}"
        );
        d.rule().map(|r| r.index)
    };
    for i in 0..40 {
        assert_eq!(rule_of(&format!("/pkg.S{i}/Get")), Some(i), "S{i}");
        assert_eq!(rule_of(&format!("/pkg.S{i}/List")), Some(i), "S{i}");
    }
    assert_eq!(rule_of("/pkg.S7/Put"), Some(40));
    assert_eq!(rule_of("/pkg.Z/Get"), Some(40));
    assert_eq!(rule_of("/other.S1/Get"), None);
    assert_eq!(rule_of("/pkg.S1/Get/x"), None);
}
