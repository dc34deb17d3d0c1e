//! The table as data (`RouteTable::view`): every route kind a frontend holds, in the order a
//! request tries them, filters as data, and the routes and rules left out with the reason;
//! and, for generated clusters, the view's exclusions agree with the parent conditions the
//! same build reports (Gateway API RouteConditionType `Accepted`/`PartiallyInvalid`, GEP-1294
//! route types) and its left-out notes with explain's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use gamma_model::RouteKind;
use gamma_resolve::input::*;
use gamma_resolve::*;
use proptest::prelude::*;

fn table(yaml: &str) -> RouteTable {
    let snapshot = gamma_model::Snapshot::from_resources(gamma_model::decode(yaml).unwrap());
    RouteTable::build(&snapshot, &BuildOptions::default())
}

const GRPC: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: rpc, namespace: app}
spec: {clusterIP: 10.96.0.1, ports: [{port: 50051, appProtocol: kubernetes.io/h2c}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: rpc, namespace: app, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  parentRefs: [{group: "", kind: Service, name: rpc, port: 50051}]
  rules:
  - backendRefs: [{name: rpc, port: 50051}]
  - matches: [{method: {type: RegularExpression, service: "pkg\\..*", method: Get}}]
    backendRefs: [{name: rpc, port: 50051}]
  - matches: [{method: {service: pkg.Store}, headers: [{name: X-Canary, value: "1"}]}]
    backendRefs: [{name: rpc, port: 50051}]
  - matches: [{method: {service: pkg.Store, method: Get}}]
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier: {set: [{name: x-route, value: rpc}]}
    backendRefs: [{name: rpc, port: 50051, weight: 3}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: rpc, port: 50051}]
  rules: [{backendRefs: [{name: rpc, port: 50051}]}]
"#;

// Gateway API GRPCRoute match precedence: service and method named exactly, then the service
// alone (with its header); `type: RegularExpression` makes both names patterns, which count
// no characters, so that match ranks with the rule that has none, by rule order; on
// one Service port the GRPCRoute wins over the HTTPRoute (GEP-1294 route types), which the
// view names as excluded.
#[test]
fn the_view_lists_grpc_matches_in_precedence_order_and_the_kind_that_lost() {
    let t = table(GRPC);
    let view = t.view();
    assert_eq!(view.len(), 1);
    let set = &view[0].sets[0];
    assert_eq!(set.route_kind, Some(RouteKind::Grpc));
    assert!(set.http.is_empty());
    let order: Vec<u16> = set.grpc.iter().map(|e| e.rule.index).collect();
    assert_eq!(order, [3, 2, 0, 1]);
    let MatchView::Grpc {
        service, method, ..
    } = &set.grpc[0].condition
    else {
        panic!("{:?}", set.grpc[0].condition);
    };
    assert_eq!(
        service.map(|s| (s.regex, s.value)),
        Some((false, "pkg.Store"))
    );
    assert_eq!(method.map(|m| (m.regex, m.value)), Some((false, "Get")));
    assert_eq!(set.grpc[0].filters.request_headers.set[0].0, "x-route");
    let MatchView::Grpc { headers, .. } = &set.grpc[1].condition else {
        panic!();
    };
    assert_eq!(headers[0].name, "x-canary");
    let MatchView::Grpc {
        service, method, ..
    } = &set.grpc[3].condition
    else {
        panic!();
    };
    assert_eq!(
        service.map(|s| (s.regex, s.value)),
        Some((true, "pkg\\..*"))
    );
    assert_eq!(method.map(|m| (m.regex, m.value)), Some((true, "Get")));
    assert_eq!(
        set.grpc[2].condition,
        MatchView::Grpc {
            service: None,
            method: None,
            headers: vec![]
        }
    );
    let ActionView::Backends { backends } = &set.grpc[0].action else {
        panic!();
    };
    assert_eq!((backends[0].backend.name, backends[0].weight), ("rpc", 3));
    assert_eq!(set.excluded.len(), 1);
    let x = &set.excluded[0];
    assert_eq!(
        (x.route.kind, x.route.name, x.rule),
        (RouteKind::Http, "web", None)
    );
    assert_eq!(
        x.reason,
        ExclusionView::LostToKind {
            winner: Some(RouteKind::Grpc)
        }
    );
    // and resolve agrees with the first entry that matches
    let req = Request::grpc(ip("10.96.0.1"), 50051, "/pkg.Store/Get");
    assert_eq!(t.resolve(&req, 0).rule().map(|r| r.index), Some(3));
}

const LISTENERS: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.1}]
  listeners:
  - {name: tls, port: 443, protocol: TLS, tls: {mode: Passthrough}}
  - {name: raw, port: 5432, protocol: TCP}
  - {name: web, port: 80, protocol: HTTP}
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: infra}
spec: {clusterIP: 10.96.0.2, ports: [{port: 443}, {port: 5432}, {port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata: {name: tls, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: tls}]
  hostnames: ["*.example.com", db.example.com]
  rules: [{backendRefs: [{name: db, port: 443}]}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: old, namespace: infra, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  parentRefs: [{name: gw, sectionName: raw}]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: young, namespace: infra, creationTimestamp: "2026-02-01T00:00:00Z"}
spec:
  parentRefs: [{name: gw, sectionName: raw}]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /old}}]
    filters:
    - type: RequestRedirect
      requestRedirect: {scheme: https, statusCode: 301, path: {type: ReplacePrefixMatch, replacePrefixMatch: /new}}
  - matches: [{path: {type: PathPrefix, value: /api}}]
    filters:
    - type: URLRewrite
      urlRewrite: {hostname: api.internal, path: {type: ReplacePrefixMatch, replacePrefixMatch: /v2}}
    - type: ResponseHeaderModifier
      responseHeaderModifier: {remove: [server]}
    backendRefs:
    - name: db
      port: 80
      filters:
      - type: RequestHeaderModifier
        requestHeaderModifier: {add: [{name: x-backend, value: db}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: stray, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: nope}]
  rules: [{backendRefs: [{name: db, port: 80}]}]
"#;

// TLSRoute hostnames most specific first (Gateway API listener and hostname matching); the
// oldest TCPRoute takes every connection and the younger is named as shadowed; redirects,
// rewrites and header edits of rules and backendRefs are data (Gateway API HTTPRouteFilter);
// a route whose sectionName names no listener is named as not accepted (NoMatchingParent)
// on the Gateway's bindings.
#[test]
fn the_view_lists_tls_hostnames_the_tcp_rule_and_filters_as_data() {
    let t = table(LISTENERS);
    let view = t.view();
    let port = |p: u16| view.iter().find(|b| b.port == p).unwrap();
    let tls = &port(443).sets[0];
    let hosts: Vec<String> = tls
        .tls
        .iter()
        .map(|e| e.hostname.unwrap().to_string())
        .collect();
    assert_eq!(hosts, ["db.example.com", "*.example.com"]);
    assert!(tls.tls.iter().all(|e| e.condition == MatchView::Sni));
    let raw = &port(5432).sets[0];
    assert_eq!(raw.tcp.as_ref().unwrap().rule.route.name, "old");
    assert_eq!(raw.excluded.len(), 1);
    assert_eq!(raw.excluded[0].route.name, "young");
    let ExclusionView::Shadowed { by, hostname: None } = raw.excluded[0].reason else {
        panic!("{:?}", raw.excluded[0]);
    };
    assert_eq!(by.route.name, "old");
    let web = &port(80).sets[0];
    let ActionView::Redirect {
        status,
        scheme,
        path,
        ..
    } = &web.http[0].action
    else {
        panic!("{:?}", web.http[0].action);
    };
    assert_eq!((*status, *scheme), (301, Some(Scheme::Https)));
    assert_eq!(
        *path,
        Some(PathModifierView::ReplacePrefixMatch {
            matched_prefix: "/old",
            replacement: "/new"
        })
    );
    let api = &web.http[1];
    let rewrite = api.filters.rewrite.unwrap();
    assert_eq!(rewrite.hostname, Some("api.internal"));
    assert_eq!(
        rewrite.path,
        Some(PathModifierView::ReplacePrefixMatch {
            matched_prefix: "/api",
            replacement: "/v2"
        })
    );
    assert_eq!(api.filters.response_headers.remove, ["server"]);
    let ActionView::Backends { backends } = &api.action else {
        panic!();
    };
    assert_eq!(backends[0].filters.request_headers.add[0].0, "x-backend");
    for b in &view {
        assert_eq!(b.not_accepted.len(), 1, "{:?}", b.not_accepted);
        assert_eq!(b.not_accepted[0].route.name, "stray");
        assert_eq!(
            b.not_accepted[0].reason,
            ExclusionView::NotAccepted {
                reason: status::NO_MATCHING_PARENT,
                message: "no listener matches the parentRef sectionName/port"
            }
        );
    }
    // the JSON form names the kinds and carries the filters
    let json = serde_json::to_value(&view).unwrap();
    let text = json.to_string();
    for needle in [
        r#""type":"sni""#,
        r#""hostname":"*.example.com""#,
        r#""shadowed""#,
        "x-backend",
    ] {
        assert!(text.contains(needle), "{needle} in {text}");
    }
}

const SHADOWED: &str = include_str!("fixtures/shadowed.yaml");

/// The exclusions of the (first) route set behind `address:port` in the view of
/// [`SHADOWED`], as text, and its table.
fn shadowed_exclusions(address: &str, port: u16) -> (RouteTable, Vec<String>) {
    let t = table(SHADOWED);
    let view = t.view();
    let b = view
        .iter()
        .find(|b| b.address == ip(address) && b.port == port)
        .unwrap();
    let text = b.sets[0].excluded.iter().map(ToString::to_string).collect();
    drop(view);
    (t, text)
}

// Gateway API TLSRoute and route conflict resolution: when two TLSRoutes on one listener claim
// the same SNI hostname, the older route (creationTimestamp, then namespace/name) takes the
// connections and the younger is never reached for that hostname; the view names it as
// shadowed on that hostname only, and resolve agrees.
#[test]
fn an_older_tlsroute_shadows_a_younger_one_on_their_shared_sni_hostname() {
    let t = table(SHADOWED);
    let view = t.view();
    let b = view.iter().find(|b| b.port == 443).unwrap();
    let set = &b.sets[0];
    assert_eq!(set.excluded.len(), 1, "{:?}", set.excluded);
    let x = &set.excluded[0];
    assert_eq!(
        (x.route.kind, x.route.name, x.rule),
        (RouteKind::Tls, "young", None)
    );
    let ExclusionView::Shadowed { hostname, by } = x.reason else {
        panic!("{x:?}");
    };
    assert_eq!(hostname, Some(HostView::Exact("a.example.com")));
    assert_eq!((by.route.name, by.index), ("old", 0));
    assert_eq!(
        x.to_string(),
        "TLSRoute infra/young is shadowed on hostname a.example.com: TLSRoute infra/old rule 0 \
         is older and takes those connections"
    );
    let sni = |h| {
        let req = Request::connection(ip("192.0.2.1"), 443, Protocol::Tls).with_sni(h);
        t.resolve(&req, 0).rule().map(|r| r.route.name.to_owned())
    };
    assert_eq!(sni("a.example.com").as_deref(), Some("old"));
    assert_eq!(sni("b.example.com").as_deref(), Some("young"));
    let json = serde_json::to_value(&set.excluded).unwrap();
    assert_eq!(json[0]["reason"]["type"], "shadowed");
    assert_eq!(json[0]["reason"]["hostname"], "a.example.com");
    // explain prints the exclusion beside the candidates
    let req = Request::connection(ip("192.0.2.1"), 443, Protocol::Tls).with_sni("a.example.com");
    assert_eq!(t.explain(&req, 0).excluded, [x.to_string()]);
}

// HTTPRouteRule match precedence (Gateway API): on equal matches the older route wins, then
// namespace/name, then the first rule. A rule every match of which has an equal match earlier
// (header names compare case-insensitively, a PathPrefix's trailing `/` is not significant) is
// never reached and named as shadowed; a rule with one match of its own (`/b`) or a broader one
// (no header) is not.
#[test]
fn an_http_rule_whose_every_match_an_older_route_has_is_shadowed() {
    let (t, excluded) = shadowed_exclusions("10.96.0.2", 80);
    assert_eq!(
        excluded,
        [
            "HTTPRoute infra/young rule 0 is shadowed: HTTPRoute infra/old rule 0 has the same \
          matches and takes precedence"
        ]
    );
    let get = |path| {
        let h = [("x-v", "1")];
        let req = Request::http(ip("10.96.0.2"), 80, "GET", path).with_headers(&h);
        t.resolve(&req, 0)
            .rule()
            .map(|r| (r.route.name.to_owned(), r.index))
    };
    assert_eq!(get("/a/x"), Some(("old".to_owned(), 0)));
    assert_eq!(get("/b"), Some(("young".to_owned(), 1)));
}

// GRPCRouteRule match precedence (Gateway API): within one route, the first of two rules with
// the same method match wins; the second is named as shadowed, the broader service-only rule
// is not.
#[test]
fn a_grpc_rule_with_the_same_match_as_an_earlier_rule_is_shadowed() {
    let (t, excluded) = shadowed_exclusions("10.96.0.3", 50051);
    assert_eq!(
        excluded,
        [
            "GRPCRoute infra/rpc rule 1 is shadowed: GRPCRoute infra/rpc rule 0 has the same \
          matches and takes precedence"
        ]
    );
    let req = Request::grpc(ip("10.96.0.3"), 50051, "/pkg.Store/Get");
    assert_eq!(t.resolve(&req, 0).rule().map(|r| r.index), Some(0));
}

// HTTPRouteRule match precedence (Gateway API): of many routes with one equal match the oldest
// wins; every younger one is named as shadowed by it, and one with a match of its own is not
// (more routes than a short run, so the long-run search is the one used).
#[test]
fn of_many_routes_with_an_equal_match_all_but_the_oldest_are_shadowed() {
    let backends = || vec![backend("app", "web", 80, 1)];
    let mut routes: Vec<RouteIr> = (0..40)
        .map(|i| {
            let r = http(
                "app",
                &format!("r{i:02}"),
                vec![svc_parent("app", "web")],
                vec![rule(
                    vec![with_headers(prefix("/a"), &[("x", "1")])],
                    backends(),
                )],
            );
            created(r, 100 - i)
        })
        .collect();
    routes.push(http(
        "app",
        "own",
        vec![svc_parent("app", "web")],
        vec![rule(
            vec![with_headers(prefix("/a"), &[("x", "2")])],
            backends(),
        )],
    ));
    let input = TableInput::new()
        .with_services(vec![service("app", "web", "10.96.0.1", &[(80, "http")])])
        .with_routes(routes);
    let t = RouteTable::from_input(&input, &BuildOptions::default());
    let view = t.view();
    let excluded = &view[0].sets[0].excluded;
    assert_eq!(excluded.len(), 39, "{excluded:?}");
    for x in excluded {
        let ExclusionView::Shadowed { hostname: None, by } = x.reason else {
            panic!("{x:?}");
        };
        assert_eq!((by.route.name, x.rule), ("r39", Some(0)), "{x}");
        assert_ne!(x.route.name, "own");
    }
    let h = [("x", "1")];
    let req = Request::http(ip("10.96.0.1"), 80, "GET", "/a").with_headers(&h);
    assert_eq!(t.resolve(&req, 0).rule().map(|r| r.route.name), Some("r39"));
}

// ---------------------------------------------------------------------------------------
// Exclusions against parent conditions, for generated clusters
// ---------------------------------------------------------------------------------------

const PATHS: &[&str] = &["/", "/a", "/b/c"];

fn rule_for(kind: RouteKind) -> impl Strategy<Value = RuleIr> {
    (proptest::sample::select(PATHS), 0u8..6, 0u8..3).prop_map(move |(p, dice, b)| {
        let matches = match kind {
            RouteKind::Http => vec![prefix(p)],
            _ => vec![],
        };
        let mut r = rule(matches, vec![backend("app", &format!("b{b}"), 80, 1)]);
        if dice == 0 {
            r.invalid = Some(Invalid {
                reason: "UnsupportedValue",
                message: "generated".into(),
            });
        }
        r
    })
}

fn route_strategy(i: usize) -> impl Strategy<Value = RouteIr> {
    let kind = prop_oneof![
        5 => Just(RouteKind::Http),
        2 => Just(RouteKind::Grpc),
        1 => Just(RouteKind::Tls),
        2 => Just(RouteKind::Tcp),
    ];
    kind.prop_flat_map(move |kind| {
        let rules = if matches!(kind, RouteKind::Http | RouteKind::Grpc) {
            proptest::collection::vec(rule_for(kind), 1..4).boxed()
        } else {
            proptest::collection::vec(rule_for(kind), 1..2).boxed()
        };
        (
            Just(kind),
            prop_oneof![3 => Just("app"), 1 => Just("client")],
            proptest::option::of(0i64..4),
            proptest::option::of(proptest::sample::select(&[80u16, 8080, 80, 9090][..])),
            0u8..12,
            rules,
        )
            .prop_map(move |(kind, ns, created, port, dice, rules)| {
                let mut parent = svc_parent("app", "web");
                parent.port = port;
                let mut r = route(kind, ns, &format!("r{i:02}"), vec![parent], rules);
                r.created = created.map(|c| (c, 0));
                if dice == 0 {
                    r.invalid = Some(Invalid {
                        reason: "UnsupportedValue",
                        message: "generated route".into(),
                    });
                }
                r
            })
    })
}

fn input_strategy() -> impl Strategy<Value = TableInput> {
    proptest::collection::vec(0usize..1, 1..14).prop_flat_map(|v| {
        (0..v.len())
            .map(route_strategy)
            .collect::<Vec<_>>()
            .prop_map(|routes| {
                let mut services = vec![service(
                    "app",
                    "web",
                    "10.96.0.1",
                    &[(80, "http"), (8080, "alt")],
                )];
                for b in 0..3 {
                    services.push(service(
                        "app",
                        &format!("b{b}"),
                        &format!("10.96.9.{b}"),
                        &[(80, "")],
                    ));
                }
                TableInput::new()
                    .with_services(services)
                    .with_routes(routes)
            })
    })
}

type Key = (RouteKind, String, String);

fn key(r: &RouteRef<'_>) -> Key {
    (r.kind, r.namespace.to_owned(), r.name.to_owned())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, .. ProptestConfig::default() })]

    // For every route of a generated cluster (one Service, two ports, producer and consumer
    // routes of every kind, invalid rules and routes):
    // - `Accepted=False` with reason `Conflicted` (GEP-1294 route types) exactly when the
    //   view has the route in no set's entries and names it as having lost to another kind;
    // - the rules `PartiallyInvalid` lists as dropped are exactly the rules the view names as
    //   dropped for that route;
    // - a route the Service did not accept for another reason (no such port, every rule
    //   invalid) is named with that reason by the Service's bindings and is in no set;
    // - a route invalid as a whole is in no set, and each binding's left-out notes are
    //   explain's for a request to that address.
    #[test]
    fn the_views_exclusions_agree_with_parent_conditions(input in input_strategy()) {
        let table = RouteTable::from_input(&input, &BuildOptions::default());
        let view = table.view();
        let mut present: BTreeSet<Key> = BTreeSet::new();
        let mut lost: BTreeSet<Key> = BTreeSet::new();
        let mut dropped: BTreeMap<Key, BTreeSet<u16>> = BTreeMap::new();
        let mut shadowed: BTreeSet<Key> = BTreeSet::new();
        let mut not_accepted: BTreeMap<Key, BTreeSet<String>> = BTreeMap::new();
        for b in &view {
            for x in &b.not_accepted {
                let ExclusionView::NotAccepted { reason, .. } = x.reason else {
                    panic!("{x:?}");
                };
                not_accepted.entry(key(&x.route)).or_default().insert(reason.to_owned());
            }
            let req = Request::http(b.address, b.port, "GET", "/");
            let ex = table.explain(&req, 0);
            prop_assert_eq!(
                b.left_out.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                ex.left_out.clone()
            );
            for s in &b.sets {
                for e in s.http.iter().chain(&s.grpc).chain(&s.tls) {
                    present.insert(key(&e.rule.route));
                }
                for r in s.tcp.iter().chain(&s.udp) {
                    present.insert(key(&r.rule.route));
                }
                for x in &s.excluded {
                    match (x.reason, x.rule) {
                        (ExclusionView::LostToKind { .. }, None) => {
                            lost.insert(key(&x.route));
                        }
                        (ExclusionView::RuleInvalid { .. }, Some(i)) => {
                            dropped.entry(key(&x.route)).or_default().insert(i);
                        }
                        (ExclusionView::Shadowed { .. }, None) => {
                            shadowed.insert(key(&x.route));
                        }
                        // an HTTP or gRPC rule shadowed by equal matches: the route stays
                        // accepted and in the set
                        (ExclusionView::Shadowed { .. }, Some(_)) => {
                            prop_assert!(matches!(x.route.kind, RouteKind::Http | RouteKind::Grpc));
                        }
                        other => prop_assert!(false, "unexpected {:?}", other),
                    }
                }
            }
        }
        for st in table.parent_conditions() {
            let k: Key = (st.kind, st.namespace.clone(), st.name.clone());
            let accepted = st.condition(status::ACCEPTED).unwrap();
            let conflicted = !accepted.status && accepted.reason == status::CONFLICTED;
            prop_assert_eq!(
                conflicted,
                lost.contains(&k) && !present.contains(&k) && !shadowed.contains(&k),
                "{:?}: {:?}", k, st.conditions
            );
            let route_invalid = input
                .routes
                .iter()
                .any(|r| (r.kind, r.namespace.as_str(), r.name.as_str()) == (k.0, k.1.as_str(), k.2.as_str()) && r.invalid.is_some());
            if route_invalid {
                prop_assert!(!present.contains(&k) && !lost.contains(&k) && !dropped.contains_key(&k));
                prop_assert!(!not_accepted.contains_key(&k));
                continue;
            }
            // not accepted by the parent, for another reason than the kind: the Service's
            // bindings name it with that reason (when the Service is bound at all)
            let refused = !accepted.status && !conflicted;
            prop_assert_eq!(
                refused && !view.is_empty(),
                not_accepted.get(&k).is_some_and(|r| r.contains(&accepted.reason)),
                "{:?}: {:?} / {:?}", k, st.conditions, not_accepted.get(&k)
            );
            if refused {
                prop_assert!(!present.contains(&k) && !lost.contains(&k));
            }
            // "Dropped Rule(s) 0, 2: ..."
            let listed: BTreeSet<u16> = st
                .condition(status::PARTIALLY_INVALID)
                .and_then(|c| c.message.strip_prefix("Dropped Rule(s) "))
                .and_then(|m| m.split(':').next())
                .map(|l| l.split(", ").map(|i| i.parse().unwrap()).collect())
                .unwrap_or_default();
            if present.contains(&k) {
                prop_assert_eq!(dropped.get(&k).cloned().unwrap_or_default(), listed, "{:?}", k);
            }
        }
    }

    // Whatever a generated cluster holds, a request never decides by a route or rule the route
    // set that served it names as shadowed (Gateway API route conflict resolution: the older
    // route, then namespace/name, then the first rule wins equal matches; TCPRoute merging);
    // the set is the client namespace's consumer routes, else the producer routes (GEP-1294
    // namespace boundaries).
    #[test]
    fn a_route_or_rule_the_view_names_as_shadowed_never_decides(input in input_strategy()) {
        let table = RouteTable::from_input(&input, &BuildOptions::default());
        let view = table.view();
        for b in &view {
            for ns in ["app", "client", "other"] {
                let Some(set) = b
                    .sets
                    .iter()
                    .find(|s| s.route_set == RouteSetKind::Consumer { namespace: ns })
                    .or_else(|| b.sets.iter().find(|s| s.route_set == RouteSetKind::Producer))
                else {
                    continue;
                };
                let shadowed: BTreeSet<(Key, Option<u16>)> = set
                    .excluded
                    .iter()
                    .filter(|x| matches!(x.reason, ExclusionView::Shadowed { .. }))
                    .map(|x| (key(&x.route), x.rule))
                    .collect();
                let mut reqs: Vec<Request<'_>> = ["/", "/a", "/b/c", "/zz"]
                    .into_iter()
                    .map(|p| Request::http(b.address, b.port, "GET", p))
                    .collect();
                reqs.push(Request::grpc(b.address, b.port, "/pkg.S/M"));
                reqs.push(Request::connection(b.address, b.port, Protocol::Tls).with_sni("x.example.com"));
                reqs.push(Request::connection(b.address, b.port, Protocol::Tcp));
                for req in reqs {
                    let req = req.from_namespace(ns);
                    let d = table.resolve(&req, 0);
                    let Some(rule) = d.rule() else { continue };
                    let k = key(&rule.route);
                    prop_assert!(
                        !shadowed.contains(&(k.clone(), Some(rule.index)))
                            && !shadowed.contains(&(k, None)),
                        "{:?} decided by {} in {:?}", req, rule, set.excluded
                    );
                }
            }
        }
    }
}
