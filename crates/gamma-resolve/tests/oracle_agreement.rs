//! Differential tests: the indexed engine and the naive oracle (`gamma_resolve::reference`)
//! agree on every decision for random route sets and requests, and the engine's decisions do not
//! depend on input order. Routes attach to a mesh Service, to the Gateway `infra/edge` or to its
//! ListenerSets (GEP-1713: `allowedListeners`, conflicts between the Gateway's listeners and
//! theirs, listener precedence by age then name), and requests go to both.
//!
//! Case count: `ORACLE_CASES` route sets (default 400) × `REQUESTS` requests each (25) =
//! 10,000 compared decisions per run, plus the order-independence property.
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
use gamma_resolve::{BuildOptions, Protocol, Request, RouteTable, Scheme};
use proptest::prelude::*;

const REQUESTS: usize = 25;

fn cases() -> u32 {
    std::env::var("ORACLE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

const PATHS: &[&str] = &[
    "/", "/a", "/a/", "/a/b", "/ab", "/a/b/c", "/b", "/b/c", "/api/v1", "/api",
];
const REGEXES: &[&str] = &["/a.*", "/[ab]/.+", "/api/v[0-9]", ".*c"];
const HEADER_NAMES: &[&str] = &["x-v", "X-V", "x-w", "Env"];
const VALUES: &[&str] = &["one", "two", "1"];
const HOSTS: &[&str] = &[
    "foo.example.com",
    "*.example.com",
    "bar.example.com",
    "*.com",
];
const NAMESPACES: &[&str] = &["app", "client", "other"];
const BACKENDS: &[(&str, &str)] = &[
    ("app", "b0"),
    ("app", "b1"),
    ("app", "down"),
    ("app", "missing"),
    ("other", "b2"),
    ("app", "web"),
];

fn str_match() -> impl Strategy<Value = StrMatch> {
    prop_oneof![
        4 => proptest::sample::select(VALUES).prop_map(|v| StrMatch::Exact(v.into())),
        1 => Just(StrMatch::Regex("o.*".into())),
        1 => Just(StrMatch::Regex("[0-9]+".into())),
    ]
}

fn http_match() -> impl Strategy<Value = MatchIr> {
    let path = prop_oneof![
        3 => proptest::sample::select(PATHS).prop_map(|p| PathMatchIr::Prefix(p.into())),
        3 => proptest::sample::select(PATHS).prop_map(|p| PathMatchIr::Exact(p.into())),
        1 => proptest::sample::select(REGEXES).prop_map(|p| PathMatchIr::Regex(p.into())),
    ];
    let method = proptest::option::weighted(
        0.2,
        proptest::sample::select(&["GET", "POST"][..]).prop_map(IrString::from),
    );
    let headers = proptest::collection::vec(
        (
            proptest::sample::select(HEADER_NAMES).prop_map(IrString::from),
            str_match(),
        ),
        0..3,
    );
    let query = proptest::collection::vec(
        (
            proptest::sample::select(&["q", "r"][..]).prop_map(IrString::from),
            str_match(),
        ),
        0..2,
    );
    (path, method, headers, query).prop_map(|(path, method, headers, query)| MatchIr::Http {
        path,
        method,
        headers,
        query,
    })
}

fn grpc_match() -> impl Strategy<Value = MatchIr> {
    let svc = proptest::option::of(prop_oneof![
        3 => proptest::sample::select(&["pkg.S", "pkg.T", "x"][..]).prop_map(|s| StrMatch::Exact(s.into())),
        1 => Just(StrMatch::Regex("pkg\\..*".into())),
    ]);
    let meth = proptest::option::of(prop_oneof![
        3 => proptest::sample::select(&["Get", "List", "G"][..]).prop_map(|s| StrMatch::Exact(s.into())),
        1 => Just(StrMatch::Regex("L.*".into())),
    ]);
    let headers = proptest::collection::vec(
        (
            proptest::sample::select(HEADER_NAMES).prop_map(IrString::from),
            str_match(),
        ),
        0..2,
    );
    (svc, meth, headers).prop_map(|(service, method, headers)| MatchIr::Grpc {
        service,
        method,
        headers,
    })
}

fn backends() -> impl Strategy<Value = Vec<BackendIr>> {
    proptest::collection::vec(
        (
            proptest::sample::select(BACKENDS),
            proptest::sample::select(&[0u32, 1, 2, 5][..]),
        ),
        0..3,
    )
    .prop_map(|bs| {
        bs.into_iter()
            .map(|((ns, n), w)| backend(ns, n, 80, w))
            .collect()
    })
}

fn rule_for(kind: RouteKind) -> BoxedStrategy<RuleIr> {
    let matches: BoxedStrategy<Vec<MatchIr>> = match kind {
        RouteKind::Http => proptest::collection::vec(http_match(), 1..3).boxed(),
        RouteKind::Grpc => proptest::collection::vec(grpc_match(), 1..3).boxed(),
        _ => Just(vec![]).boxed(),
    };
    (matches, backends(), 0u8..20)
        .prop_map(move |(matches, backends, dice)| {
            let mut r = rule(matches, backends);
            if kind == RouteKind::Http && dice == 0 {
                r.backends.clear();
                r.filters.redirect = Some(RedirectIr {
                    scheme: Some(Scheme::Https),
                    hostname: None,
                    port: None,
                    path: Some(PathModifierIr::Full("/moved".into())),
                    status: 301,
                });
            }
            if dice == 1 {
                r.invalid = Some(Invalid {
                    reason: "UnsupportedValue",
                    message: "generated".into(),
                });
            }
            r
        })
        .boxed()
}

fn route_strategy(i: usize) -> impl Strategy<Value = RouteIr> {
    let kind = prop_oneof![8 => Just(RouteKind::Http), 2 => Just(RouteKind::Grpc), 1 => Just(RouteKind::Tls), 1 => Just(RouteKind::Tcp)];
    kind.prop_flat_map(move |kind| {
        let rules = if matches!(kind, RouteKind::Http | RouteKind::Grpc) {
            proptest::collection::vec(rule_for(kind), 1..4).boxed()
        } else {
            proptest::collection::vec(rule_for(kind), 1..2).boxed()
        };
        (
            Just(kind),
            prop_oneof![3 => Just("app"), 1 => Just("client"), 1 => Just("other")],
            proptest::option::of(0i64..4),
            proptest::option::of(proptest::sample::select(&[80u16, 8080][..])),
            proptest::collection::vec(proptest::sample::select(HOSTS).prop_map(String::from), 0..2),
            rules,
            parent_strategy(),
        )
            .prop_map(move |(kind, ns, created, port, hostnames, rules, parent)| {
                let mut parent = parent;
                parent.port = parent.port.or(port);
                let mut r = route(kind, ns, &format!("r{i:03}"), vec![parent], rules);
                r.created = created.map(|c| (c, 0));
                r.hostnames = hostnames;
                r
            })
    })
}

/// The ListenerSets of the generated inputs: `ls{i}` in `LISTENER_SET_NAMESPACES[i]`.
const LISTENER_SET_NAMESPACES: &[&str] = &["app", "infra", "client"];
/// Listener names: the Gateway's `g0..`, a ListenerSet's `l0..` (sectionNames pick among them).
const LISTENER_NAMES: &[&str] = &["g0", "g1", "l0", "l1", "none"];

/// A route's parent: mostly the mesh Service, else the Gateway `infra/edge` or a ListenerSet
/// (GEP-1713), with a sectionName sometimes.
fn parent_strategy() -> impl Strategy<Value = ParentRefIr> {
    (
        0u8..10,
        0..LISTENER_SET_NAMESPACES.len(),
        proptest::option::weighted(0.2, proptest::sample::select(LISTENER_NAMES)),
    )
        .prop_map(|(dice, ls, section)| {
            let mut p = match dice {
                0..=3 => return svc_parent("app", "web"),
                4..=7 => gw_parent("infra", "edge"),
                _ => ParentRefIr {
                    kind: ParentRefKind::ListenerSet,
                    namespace: LISTENER_SET_NAMESPACES[ls].into(),
                    name: format!("ls{ls}").into(),
                    section_name: None,
                    port: None,
                },
            };
            p.section_name = section.map(IrString::from);
            p
        })
}

/// An HTTP listener `name`: ports and hostnames drawn so that listeners of the Gateway and
/// its ListenerSets overlap (conflicts) and differ in specificity.
fn listener_strategy(name: &'static str) -> impl Strategy<Value = ListenerIr> {
    (
        prop_oneof![3 => Just(80u16), 1 => Just(8080u16)],
        proptest::option::of(proptest::sample::select(
            &[
                "foo.example.com",
                "*.example.com",
                "*.com",
                "x.y.example.com",
            ][..],
        )),
        prop_oneof![
            1 => Just(AllowedNamespaces::Same),
            4 => Just(AllowedNamespaces::All),
            1 => Just(AllowedNamespaces::Only(["app".to_string()].into())),
        ],
    )
        .prop_map(move |(port, hostname, allowed_namespaces)| ListenerIr {
            name: name.into(),
            port,
            protocol: ListenerProtocol::Http,
            hostname: hostname.map(String::from),
            allowed_namespaces,
            ..ListenerIr::default()
        })
}

/// The Gateway `infra/edge` (address 192.0.2.1) and its ListenerSets, with
/// `allowedListeners` of every kind (GEP-1713).
fn gateway_strategy() -> impl Strategy<Value = (GatewayIr, Vec<ListenerSetIr>)> {
    let allowed = proptest::option::weighted(
        0.8,
        prop_oneof![
            1 => Just(AllowedNamespaces::Same),
            3 => Just(AllowedNamespaces::All),
            1 => Just(AllowedNamespaces::Only(["app".to_string()].into())),
        ],
    );
    let own = (
        listener_strategy("g0"),
        proptest::option::of(listener_strategy("g1")),
    );
    let set = (
        proptest::bool::weighted(0.9),
        proptest::option::of(0i64..3),
        listener_strategy("l0"),
        proptest::option::of(listener_strategy("l1")),
        // sometimes refused by the API server (one verdict per object: left out whole)
        proptest::bool::weighted(0.1),
    );
    (
        allowed,
        own,
        proptest::collection::vec(proptest::option::of(set), LISTENER_SET_NAMESPACES.len()),
        proptest::bool::weighted(0.1),
    )
        .prop_map(|(allowed_listeners, (g0, g1), sets, gateway_refused)| {
            let refused = |yes: bool| {
                yes.then(|| Invalid {
                    reason: "Invalid",
                    message: "spec.listeners: refused".into(),
                })
            };
            let gw = GatewayIr {
                namespace: "infra".into(),
                name: "edge".into(),
                addresses: vec![ip("192.0.2.1")],
                listeners: std::iter::once(g0).chain(g1).collect(),
                allowed_listeners,
                invalid: refused(gateway_refused),
                ..GatewayIr::default()
            };
            let sets = sets
                .into_iter()
                .enumerate()
                .filter_map(|(i, s)| {
                    let (to_edge, created, l0, l1, set_refused) = s?;
                    Some(ListenerSetIr {
                        namespace: LISTENER_SET_NAMESPACES[i].into(),
                        name: format!("ls{i}"),
                        created: created.map(|c| (c, 0)),
                        parent: Some((
                            "infra".into(),
                            if to_edge { "edge" } else { "gone" }.into(),
                        )),
                        listeners: std::iter::once(l0).chain(l1).collect(),
                        invalid: refused(set_refused),
                    })
                })
                .collect();
            (gw, sets)
        })
}

fn input_strategy(max_routes: usize) -> impl Strategy<Value = TableInput> {
    (1..=max_routes).prop_flat_map(|n| {
        (
            (0..n).map(route_strategy).collect::<Vec<_>>(),
            gateway_strategy(),
        )
            .prop_map(|(routes, (gateway, listener_sets))| {
                let mut down = service("app", "down", "10.96.9.2", &[(80, "")]);
                down.ready = Some(false);
                let input = TableInput::new()
                    .with_services(vec![
                        service("app", "web", "10.96.0.1", &[(80, "http"), (8080, "alt")]),
                        service("app", "b0", "10.96.9.0", &[(80, "")]),
                        service("app", "b1", "10.96.9.1", &[(80, "")]),
                        down,
                        service("other", "b2", "10.96.9.3", &[(80, "")]),
                    ])
                    .with_routes(routes)
                    .with_gateways(vec![gateway])
                    .with_listener_sets(listener_sets);
                // what the oracle models of Gateways (HTTP listeners, HTTPRoutes on them)
                oracle::modelled(&input)
            })
    })
}

#[derive(Debug, Clone)]
struct Req {
    dst: &'static str,
    port: u16,
    protocol: Protocol,
    ns: Option<&'static str>,
    method: &'static str,
    path: String,
    headers: Vec<(String, String)>,
    host: Option<&'static str>,
    entropy: u64,
}

fn req_strategy() -> impl Strategy<Value = Req> {
    let path = prop_oneof![
        3 => proptest::sample::select(PATHS).prop_map(String::from),
        1 => (proptest::sample::select(PATHS), proptest::sample::select(&["/x", "c", "?q=one", "?q=1&r=two", "?r=o"][..]))
            .prop_map(|(p, s)| format!("{p}{s}")),
        1 => proptest::sample::select(&["/pkg.S/Get", "/pkg.T/List", "/x/G", "/pkg.S/Lx"][..]).prop_map(String::from),
    ];
    (
        prop_oneof![8 => Just("10.96.0.1"), 4 => Just("192.0.2.1"), 1 => Just("10.96.9.0"), 1 => Just("10.1.1.1")],
        prop_oneof![3 => Just(80u16), 1 => Just(8080u16)],
        prop_oneof![6 => Just(Protocol::Http), 3 => Just(Protocol::Grpc), 1 => Just(Protocol::Tls), 1 => Just(Protocol::Tcp)],
        proptest::option::of(proptest::sample::select(NAMESPACES)),
        proptest::sample::select(&["GET", "POST"][..]),
        path,
        proptest::collection::vec(
            (proptest::sample::select(HEADER_NAMES).prop_map(String::from), proptest::sample::select(VALUES).prop_map(String::from)),
            0..3,
        ),
        proptest::option::weighted(0.8, proptest::sample::select(&["foo.example.com", "Bar.Example.com:80", "x.y.example.com", "web"][..])),
        any::<u64>(),
    )
        .prop_map(|(dst, port, protocol, ns, method, path, headers, host, entropy)| Req {
            dst, port, protocol, ns, method, path, headers, host, entropy,
        })
}

fn request<'a>(r: &'a Req) -> Request<'a> {
    let mut q = Request::http(ip(r.dst), r.port, r.method, &r.path).with_headers(&r.headers);
    q.protocol = r.protocol;
    q.source_namespace = r.ns;
    q.host = r.host;
    q.sni = r.host;
    q
}

fn options(p: Policy) -> BuildOptions {
    p.build_options()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, .. ProptestConfig::default() })]

    // The engine and the naive oracle agree on every decision.
    #[test]
    fn engine_agrees_with_naive_oracle(
        input in input_strategy(40),
        reqs in proptest::collection::vec(req_strategy(), REQUESTS),
        match_host_header: bool,
        enforce_grants: bool,
        intersection_precedence: bool,
    ) {
        let policy = Policy::default()
            .with_match_host_header(match_host_header)
            .with_enforce_grants(enforce_grants)
            .with_intersection_precedence(intersection_precedence);
        let table = RouteTable::from_input(&input, &options(policy));
        for r in &reqs {
            let q = request(r);
            let got = Outcome::of(&table.resolve(&q, r.entropy));
            let want = oracle::resolve(&input, policy, &q, r.entropy);
            prop_assert_eq!(got, want, "request {:?}", r);
        }
        // explain() walks every candidate itself: its first MATCH is resolve()'s rule
        for r in reqs.iter().take(3) {
            let q = request(r);
            let d = table.resolve(&q, r.entropy);
            let ex = table.explain(&q, r.entropy);
            prop_assert_eq!(ex.winner.clone(), d.rule().map(|x| x.to_string()));
            if q.protocol.is_http()
                && let Some(rule) = d.rule()
                && let Some(first) = ex.candidates.iter().find(|c| c.failed.is_none())
            {
                prop_assert_eq!((first.route.clone(), first.rule), (rule.route.to_string(), rule.index));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 8 + 1, failure_persistence: None, .. ProptestConfig::default() })]

    // docs/architecture.md "Determinism": the same resources in any order give the same decisions.
    #[test]
    fn decisions_do_not_depend_on_input_order(
        input in input_strategy(60),
        reqs in proptest::collection::vec(req_strategy(), REQUESTS),
        seed: u64,
    ) {
        let a = RouteTable::from_input(&input, &BuildOptions::default());
        let mut shuffled = input.clone();
        // deterministic Fisher-Yates from the seed
        let mut s = seed | 1;
        let mut next = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; s };
        for v in [&mut shuffled.routes] {
            for i in (1..v.len()).rev() {
                let j = (next() % (i as u64 + 1)) as usize;
                v.swap(i, j);
            }
        }
        shuffled.services.reverse();
        let b = RouteTable::from_input(&shuffled, &BuildOptions::default());
        for r in &reqs {
            let q = request(r);
            prop_assert_eq!(Outcome::of(&a.resolve(&q, r.entropy)), Outcome::of(&b.resolve(&q, r.entropy)));
        }
        prop_assert_eq!(a.parent_conditions(), b.parent_conditions());
    }
}

/// Producer and consumer routes with `n` distinct Exact and PathPrefix keys each, so their path
/// indexes are large (hashed, sharing the table's path hash) and hold hostname groups.
fn filler_routes(n: usize) -> Vec<RouteIr> {
    ["app", "client"]
        .iter()
        .map(|ns| {
            let rules = (0..n)
                .map(|k| {
                    rule(
                        vec![exact(&format!("/f{k}")), prefix(&format!("/f{k}/g"))],
                        vec![backend("app", "b0", 80, 1)],
                    )
                })
                .collect();
            let mut r = route(
                RouteKind::Http,
                ns,
                &format!("filler-{ns}"),
                vec![svc_parent("app", "web")],
                rules,
            );
            r.hostnames = vec!["foo.example.com".into(), "*.example.com".into()];
            r
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 8 + 1, failure_persistence: None, .. ProptestConfig::default() })]

    // BuildOptions::hash_seed only decides where keys land in the table's hashes: decisions,
    // explanations and parent conditions are the same under any two seeds.
    #[test]
    fn decisions_do_not_depend_on_hash_seed(
        input in input_strategy(60),
        reqs in proptest::collection::vec(req_strategy(), REQUESTS),
        fillers in 0usize..30,
        seeds: (u64, u64),
        match_host_header: bool,
    ) {
        let mut input = input;
        input.routes.extend(filler_routes(fillers));
        let policy = Policy::default().with_match_host_header(match_host_header);
        let a = RouteTable::from_input(&input, &options(policy).with_hash_seed(seeds.0));
        let b = RouteTable::from_input(&input, &options(policy).with_hash_seed(seeds.1));
        let mut reqs = reqs;
        for (k, r) in reqs.clone().iter().enumerate().take(fillers) {
            let mut r = r.clone();
            r.path = if k % 2 == 0 { format!("/f{k}") } else { format!("/f{k}/g/x") };
            r.dst = "10.96.0.1";
            reqs.push(r);
        }
        for r in &reqs {
            let q = request(r);
            prop_assert_eq!(Outcome::of(&a.resolve(&q, r.entropy)), Outcome::of(&b.resolve(&q, r.entropy)), "request {:?}", r);
            prop_assert_eq!(a.explain(&q, r.entropy), b.explain(&q, r.entropy), "request {:?}", r);
        }
        prop_assert_eq!(a.parent_conditions(), b.parent_conditions());
    }
}
