//! Scenarios from GEP-3779's text and examples, and from the anchors' own authorization tests
//! (ztunnel's RBAC unit tests, Istio's authz integration tests, Linkerd's
//! authorization-policy tests), restated as facts about this engine. Each test cites where
//! its behaviour comes from.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{allowed, authorizer, id, pod, policy};
use gamma_authz::{Authorizer, Baseline, Config, Criterion, Destination, Reason, Verdict};

const WEB: &str = "spiffe://cluster.local/ns/shop/sa/web";
const API: &str = "spiffe://cluster.local/ns/shop/sa/api";
const OPS: &str = "spiffe://cluster.local/ns/ops/sa/admin";

fn cluster(policies: &str) -> String {
    format!(
        "{}{}{}{policies}",
        pod("shop", "db-0", "db", "10.0.0.10", "{app: db}"),
        pod(
            "shop",
            "gw-0",
            "gw",
            "10.0.0.20",
            "{app: gw, purpose: gateway}"
        ),
        pod("ops", "tool-0", "tool", "10.0.1.10", "{app: db}"),
    )
}

/// The first failing criterion of each rule of each selecting policy.
fn failures(
    a: &Authorizer,
    peer: Option<&str>,
    ns: &str,
    name: &str,
    port: u16,
) -> Vec<Option<Criterion>> {
    let w = a.workload_named(ns, name).unwrap();
    let peer = peer.map(id);
    let e = a.explain(peer.as_ref(), w, port);
    e.policies
        .iter()
        .flat_map(|p| p.rules.iter().map(|r| r.failed))
        .collect()
}

// GEP-3779 "Policy Actions": "If no authorization policies exist for a workload ... traffic is
// permitted by default"; a mesh's default-deny is the configurable baseline.
#[test]
fn a_workload_no_policy_selects_gets_the_baseline() {
    let (s, a) = authorizer(&cluster(""));
    assert!(allowed(&a, Some(WEB), "shop", "db-0", 5432));
    assert!(allowed(&a, None, "shop", "db-0", 5432));
    let w = a.workload_named("shop", "db-0").unwrap();
    assert_eq!(
        a.decide(None, w, 1).reason,
        Reason::NoPolicy(Baseline::Allow)
    );
    let deny = Authorizer::build(&s, Config::default().baseline(Baseline::Deny));
    let d = deny.decide(None, w, 1);
    assert_eq!(
        (d.verdict, d.reason),
        (Verdict::Deny, Reason::NoPolicy(Baseline::Deny))
    );
}

// GEP-3779 "Policy Rules": a request's identity must match one of the listed sources.
#[test]
fn a_service_account_source_allows_that_account_and_denies_the_others() {
    let p = policy(
        "shop",
        "db",
        "{matchLabels: {app: db}}",
        Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}]}]"),
    );
    let (_, a) = authorizer(&cluster(&p));
    assert!(allowed(&a, Some(WEB), "shop", "db-0", 5432));
    assert!(!allowed(&a, Some(API), "shop", "db-0", 5432));
    assert_eq!(
        failures(&a, Some(API), "shop", "db-0", 5432),
        [Some(Criterion::Source)]
    );
    assert_eq!(
        failures(&a, Some(OPS), "shop", "db-0", 5432),
        [Some(Criterion::Namespace)]
    );
    // Not selected: gw-0's labels do not match; tool-0 is in another namespace ("a policy will
    // only ever target objects within its namespace").
    assert!(allowed(&a, Some(API), "shop", "gw-0", 5432));
    assert!(allowed(&a, Some(API), "ops", "tool-0", 5432));
    let w = a.workload_named("shop", "db-0").unwrap();
    let d = a.decide(Some(&id(WEB)), w, 5432);
    assert_eq!(
        a.allowed_by(&d).map(|a| (a.policy.name, a.rule)),
        Some(("db".into(), 0))
    );
}

// GEP-3779 "Policy Rules": OR across rules; "Policy Actions": "any ALLOW policy"; Linkerd
// e2e `either` (two policies are ORed); ztunnel `rbac_multi_rule`.
#[test]
fn rules_and_policies_are_ored() {
    let p = format!(
        "{}{}",
        policy(
            "shop",
            "a",
            "{matchLabels: {app: db}}",
            Some(
                "[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}]}, \
             {sources: [{type: ServiceAccount, serviceAccount: {namespace: ops, name: admin}}]}]",
            )
        ),
        policy(
            "shop",
            "b",
            "{}",
            Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: api}}]}]")
        ),
    );
    let (_, a) = authorizer(&cluster(&p));
    for peer in [WEB, API, OPS] {
        assert!(allowed(&a, Some(peer), "shop", "db-0", 5432), "{peer}");
    }
    let w = a.workload_named("shop", "db-0").unwrap();
    let d = a.decide(Some(&id(OPS)), w, 1);
    assert_eq!(
        a.allowed_by(&d).map(|a| (a.policy.name, a.rule)),
        Some(("a".into(), 1))
    );
    assert!(!allowed(
        &a,
        Some("spiffe://cluster.local/ns/shop/sa/other"),
        "shop",
        "db-0",
        1
    ));
}

// GEP-3779: "a request matches a rule only if it matches all criteria within that rule";
// Linkerd e2e `both` (network AND identity in one policy).
#[test]
fn sources_and_ports_within_a_rule_are_anded() {
    let p = policy(
        "shop",
        "db",
        "{matchLabels: {app: db}}",
        Some(
            "[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}], networkAttributes: {ports: [5432]}}]",
        ),
    );
    let (_, a) = authorizer(&cluster(&p));
    assert!(allowed(&a, Some(WEB), "shop", "db-0", 5432));
    assert!(!allowed(&a, Some(WEB), "shop", "db-0", 9090));
    assert!(!allowed(&a, Some(API), "shop", "db-0", 5432));
    assert_eq!(
        failures(&a, Some(WEB), "shop", "db-0", 9090),
        [Some(Criterion::Port)]
    );
    // The sources are checked first.
    assert_eq!(
        failures(&a, Some(API), "shop", "db-0", 9090),
        [Some(Criterion::Source)]
    );
}

// The "iff" of "Policy Actions" (notes, consequence 3): a port-scoped ALLOW makes every other
// port of the workload implicitly denied, even for a source allowed on that port. Istio's
// semantics; Linkerd's per-Server scoping differs. Istio `TestAuthz_NotPort` territory.
#[test]
fn a_port_scoped_policy_denies_the_workloads_other_ports() {
    let p = policy(
        "shop",
        "metrics",
        "{matchLabels: {app: db}}",
        Some("[{networkAttributes: {ports: [9090]}}]"),
    );
    let (_, a) = authorizer(&cluster(&p));
    assert!(allowed(&a, Some(WEB), "shop", "db-0", 9090));
    assert!(allowed(&a, None, "shop", "db-0", 9090));
    assert!(!allowed(&a, Some(WEB), "shop", "db-0", 5432));
}

// ztunnel `rbac_empty_policy` and Istio's proto: no rules never match (an ALLOW policy without
// rules is allow-nothing), `rules: [{}]` always matches. GEP: derived from the "iff".
#[test]
fn a_policy_without_rules_allows_nothing_and_an_empty_rule_allows_everything() {
    for rules in [None, Some("[]")] {
        let (_, a) = authorizer(&cluster(&policy(
            "shop",
            "p",
            "{matchLabels: {app: db}}",
            rules,
        )));
        assert!(!allowed(&a, Some(WEB), "shop", "db-0", 5432), "{rules:?}");
        assert!(!allowed(&a, None, "shop", "db-0", 5432), "{rules:?}");
        let w = a.workload_named("shop", "db-0").unwrap();
        let e = a.explain(None, w, 5432);
        assert!(e.policies[0].allows_nothing);
        assert!(
            e.reason().contains("no rules (allows nothing)"),
            "{}",
            e.reason()
        );
    }
    let (_, a) = authorizer(&cluster(&policy(
        "shop",
        "p",
        "{matchLabels: {app: db}}",
        Some("[{}]"),
    )));
    assert!(allowed(&a, Some(WEB), "shop", "db-0", 1));
    assert!(allowed(&a, None, "shop", "db-0", 65535));
}

// GEP-3779 AuthorizationRule.sources: "If specified as an empty list, matches no sources
// ("allow nothing"). If omitted, matches any source." Linkerd e2e `empty_authentications`:
// no authentication means injected and uninjected clients both pass.
#[test]
fn empty_sources_match_nothing_and_omitted_sources_match_anyone() {
    let (s, a) = authorizer(&cluster(&policy(
        "shop",
        "p",
        "{matchLabels: {app: db}}",
        Some("[{sources: [], networkAttributes: {ports: [1]}}, {networkAttributes: {ports: [2]}}]"),
    )));
    assert!(!allowed(&a, Some(WEB), "shop", "db-0", 1));
    assert_eq!(
        failures(&a, Some(WEB), "shop", "db-0", 1),
        [Some(Criterion::EmptySources), Some(Criterion::Port)]
    );
    assert!(allowed(&a, Some(WEB), "shop", "db-0", 2));
    assert!(allowed(&a, None, "shop", "db-0", 2));
    // The option: an unauthenticated peer is not "any source".
    let strict = Authorizer::build(&s, Config::default().unauthenticated_is_any_source(false));
    assert!(!allowed(&strict, None, "shop", "db-0", 2));
    assert!(allowed(&strict, Some(WEB), "shop", "db-0", 2));
    assert_eq!(
        failures(&strict, None, "shop", "db-0", 2),
        [
            Some(Criterion::EmptySources),
            Some(Criterion::Unauthenticated)
        ]
    );
}

// Istio `TestAuthz_DenyPlaintext`: a rule listing sources needs an authenticated peer.
#[test]
fn an_unauthenticated_peer_never_matches_listed_sources() {
    let (_, a) = authorizer(&cluster(&policy(
        "shop",
        "p",
        "{matchLabels: {app: db}}",
        Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: '*'}}]}]"),
    )));
    assert!(!allowed(&a, None, "shop", "db-0", 1));
    assert_eq!(
        failures(&a, None, "shop", "db-0", 1),
        [Some(Criterion::Unauthenticated)]
    );
}

// GEP-3779 AuthorizationSourceServiceAccount: `name: "*"` is every ServiceAccount of the
// namespace; "If not specified, current namespace (the namespace of the policy) is used"
// (Istio's `serviceAccounts` default the same way; Istio `TestAuthz_Namespace`).
#[test]
fn a_wildcard_name_allows_a_whole_namespace_and_the_namespace_defaults_to_the_policys() {
    let (_, a) = authorizer(&cluster(&policy(
        "shop",
        "p",
        "{}",
        Some(
            "[{sources: [{type: ServiceAccount, serviceAccount: {namespace: ops, name: '*'}}]}, \
          {sources: [{type: ServiceAccount, serviceAccount: {name: web}}]}]",
        ),
    )));
    assert!(allowed(&a, Some(OPS), "shop", "db-0", 1));
    assert!(allowed(
        &a,
        Some("spiffe://cluster.local/ns/ops/sa/any"),
        "shop",
        "db-0",
        1
    ));
    assert!(allowed(&a, Some(WEB), "shop", "db-0", 1));
    assert!(!allowed(
        &a,
        Some("spiffe://cluster.local/ns/ops2/sa/web"),
        "shop",
        "db-0",
        1
    ));
    assert!(!allowed(&a, Some(API), "shop", "db-0", 1));
}

// GEP-3779: "The ServiceAccount listed here is expected to exist within the same trust domain
// as the targeted workload. Cross-trust-domain access should instead be expressed using the
// SPIFFE field." Istio's `serviceAccounts` ignore the trust domain (notes 1.2, 9); this engine
// follows the GEP. Istio `TestAuthz_TrustDomain`.
#[test]
fn a_service_account_source_matches_only_the_workloads_trust_domain_and_spiffe_crosses_it() {
    let (_, a) = authorizer(&cluster(&policy(
        "shop",
        "p",
        "{matchLabels: {app: db}}",
        Some(
            "[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}, \
           {type: SPIFFE, spiffe: 'spiffe://partner.example/ns/shop/sa/api'}]}]",
        ),
    )));
    let foreign_web = "spiffe://partner.example/ns/shop/sa/web";
    assert!(!allowed(&a, Some(foreign_web), "shop", "db-0", 1));
    assert_eq!(
        failures(&a, Some(foreign_web), "shop", "db-0", 1),
        [Some(Criterion::TrustDomain)]
    );
    assert!(allowed(
        &a,
        Some("spiffe://partner.example/ns/shop/sa/api"),
        "shop",
        "db-0",
        1
    ));
    // The same account in the local trust domain is not the partner's.
    assert!(!allowed(&a, Some(API), "shop", "db-0", 1));
    assert_eq!(
        failures(&a, Some(API), "shop", "db-0", 1),
        [Some(Criterion::TrustDomain)]
    );
}

// ztunnel `rbac_test!` `principals "td/ns/namespace/sa/account"` and Linkerd's
// `S.N.serviceaccount.identity.linkerd.cluster.local`: the three identity forms decide alike.
#[test]
fn the_three_identity_forms_get_the_same_verdict() {
    let (_, a) = authorizer(&cluster(&policy(
        "shop",
        "p",
        "{matchLabels: {app: db}}",
        Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}]}]"),
    )));
    for peer in [
        WEB,
        "cluster.local/ns/shop/sa/web",
        "web.shop.serviceaccount.identity.linkerd.cluster.local",
    ] {
        assert!(allowed(&a, Some(peer), "shop", "db-0", 1), "{peer}");
    }
    for peer in [
        API,
        "cluster.local/ns/shop/sa/api",
        "api.shop.serviceaccount.identity.linkerd.cluster.local",
    ] {
        assert!(!allowed(&a, Some(peer), "shop", "db-0", 1), "{peer}");
    }
}

// GEP-3779 "Targeting All Pods in a Namespace", Option 3 and its NotIn gateway exclusion.
#[test]
fn an_empty_selector_takes_the_namespace_and_not_in_excludes_gateways() {
    let (_, a) = authorizer(&cluster(&policy(
        "shop",
        "p",
        "{matchExpressions: [{key: purpose, operator: NotIn, values: [gateway]}]}",
        Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}]}]"),
    )));
    assert!(!allowed(&a, Some(API), "shop", "db-0", 1));
    assert!(allowed(&a, Some(API), "shop", "gw-0", 1));
    let (_, a) = authorizer(&cluster(&policy("shop", "p", "{}", Some("[]"))));
    assert!(!allowed(&a, Some(API), "shop", "gw-0", 1));
    assert!(allowed(&a, Some(API), "ops", "tool-0", 1));
}

// An invalid policy (here a SPIFFE source without a path) allows nothing, and is reported:
// dropping it would turn a denied workload into one no policy selects.
#[test]
fn an_invalid_policy_fails_closed_and_is_reported() {
    let (_, a) = authorizer(&cluster(&policy(
        "shop",
        "p",
        "{matchLabels: {app: db}}",
        Some("[{sources: [{type: SPIFFE, spiffe: 'spiffe://cluster.local'}]}, {}]"),
    )));
    assert!(!allowed(&a, Some(WEB), "shop", "db-0", 1));
    assert_eq!(a.report().findings().len(), 1, "{:?}", a.report());
    let w = a.workload_named("shop", "db-0").unwrap();
    assert!(
        a.explain(None, w, 1)
            .reason()
            .contains("invalid (allows nothing)")
    );
}

// A Service IP and port lead to the Pods behind it: through its EndpointSlices (the port's
// number on the Pods), or through its selector and numeric targetPort.
#[test]
fn a_service_address_leads_to_its_pods_and_their_target_port() {
    let services = "\
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: shop}
spec: {clusterIP: 10.96.0.10, selector: {app: db}, ports: [{name: pg, port: 5432, targetPort: 15432}]}
---
apiVersion: v1
kind: Service
metadata: {name: sliced, namespace: shop}
spec: {clusterIP: 10.96.0.11, ports: [{name: pg, port: 80, targetPort: pg}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: sliced-1, namespace: shop, labels: {kubernetes.io/service-name: sliced}}
addressType: IPv4
ports: [{name: pg, port: 6543}]
endpoints: [{addresses: [10.0.0.20]}]
";
    let (s, a) = authorizer(&format!("{}{services}", cluster("")));
    let db = a.workload_named("shop", "db-0").unwrap();
    let gw = a.workload_named("shop", "gw-0").unwrap();
    let at = |ip: &str, port| a.destination(&s, ip.parse().unwrap(), port);
    assert_eq!(at("10.0.0.10", 1), Destination::Pod(db));
    let Destination::Service { backends, .. } = at("10.96.0.10", 5432) else {
        panic!()
    };
    assert_eq!(backends, [(db, 15432)]);
    let Destination::Service { backends, .. } = at("10.96.0.11", 80) else {
        panic!()
    };
    assert_eq!(backends, [(gw, 6543)]);
    assert_eq!(at("10.96.0.10", 80), Destination::Unknown);
    assert_eq!(at("192.0.2.1", 80), Destination::Unknown);
}

// A Service named by namespace and name (where a followed request is delivered) leads where
// its IP does, and a headless Service, which has no IP, through its selector.
#[test]
fn a_service_named_leads_where_its_address_does_headless_too() {
    let services = "\
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: shop}
spec: {clusterIP: 10.96.0.10, selector: {app: db}, ports: [{name: pg, port: 5432, targetPort: 15432}]}
---
apiVersion: v1
kind: Service
metadata: {name: db-headless, namespace: shop}
spec: {clusterIP: None, selector: {app: db}, ports: [{name: pg, port: 5432, targetPort: 15432}]}
";
    let (s, a) = authorizer(&format!("{}{services}", cluster("")));
    let by_ip = a.destination(&s, "10.96.0.10".parse().unwrap(), 5432);
    assert_eq!(a.service_destination(&s, "shop", "db", 5432), by_ip);
    let db = a.workload_named("shop", "db-0").unwrap();
    let Destination::Service { backends, .. } =
        a.service_destination(&s, "shop", "db-headless", 5432)
    else {
        panic!()
    };
    assert_eq!(backends, [(db, 15432)]);
    assert_eq!(
        a.service_destination(&s, "shop", "db", 80),
        Destination::Unknown
    );
    assert_eq!(
        a.service_destination(&s, "ops", "db", 5432),
        Destination::Unknown
    );
}
