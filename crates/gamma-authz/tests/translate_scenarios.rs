//! Scenarios of the translations, transcribed as facts from the meshes' own tests and
//! reference examples (istio/ztunnel `src/rbac.rs` and `src/state.rs`, istio/api's
//! `authorization_policy.proto` examples, Istio's `tests/integration/security/authz_test.go`,
//! linkerd2's `policy-test/tests/e2e_authorization_policy.rs`), and the shapes of the emitted
//! objects against the meshes' API references.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use std::collections::BTreeMap;

use common::{id, pod, policy, snapshot};
use gamma_authz::translate::istio::{self, IstioOptions};
use gamma_authz::translate::linkerd::{self, DefaultPolicy, LinkerdOptions};
use gamma_authz::translate::{Direction, Severity};
use gamma_authz::{Authorizer, Baseline, Config};
use serde_json::json;

fn labels(app: &str) -> BTreeMap<String, String> {
    BTreeMap::from([("app".to_owned(), app.to_owned())])
}

fn istio_allows(
    t: &istio::IstioTranslation,
    ns: &str,
    app: &str,
    peer: Option<&str>,
    port: u16,
) -> bool {
    let peer = peer.map(id);
    istio::reference::allows(
        &t.policies,
        "istio-system",
        ns,
        &labels(app),
        peer.as_ref(),
        port,
    )
}

fn linkerd_allows(
    t: &linkerd::LinkerdTranslation,
    ns: &str,
    app: &str,
    peer: Option<&str>,
    port: u16,
) -> bool {
    let peer = peer.map(id);
    linkerd::reference::allows(t, t.default_policy, ns, &labels(app), peer.as_ref(), port)
}

const WEB: &str = "spiffe://cluster.local/ns/shop/sa/web";
const API: &str = "spiffe://cluster.local/ns/shop/sa/api";

fn db_pod() -> String {
    pod("shop", "db-0", "db", "10.0.0.10", "{app: db}")
}

/// Service `shop/db` port 5432 to the db Pods: the port a Linkerd Server is emitted for.
fn db_service() -> String {
    "---\napiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\n\
     spec: {selector: {app: db}, ports: [{port: 5432}]}\n"
        .to_owned()
}

// istio/api authorization_policy.proto: "The following authorization policy denies all
// requests to workloads in namespace foo" (`spec: {}`), and ztunnel `rbac_empty_policy`: a
// policy without rules never matches. GEP-3779: a policy without rules allows nothing.
#[test]
fn a_policy_without_rules_is_an_istio_allow_nothing_and_linkerd_servers_without_authorizations() {
    let s = snapshot(
        &[
            db_pod(),
            db_service(),
            policy("shop", "db", "{matchLabels: {app: db}}", None),
        ]
        .concat(),
    );
    let config = Config::default();
    let t = istio::translate(&s, &config, &IstioOptions::default());
    assert_eq!(t.policies.len(), 1);
    assert_eq!(t.policies[0].spec.rules, None);
    assert!(!istio_allows(&t, "shop", "db", Some(WEB), 5432));
    assert!(!istio_allows(&t, "shop", "db", None, 5432));
    // Another workload of the namespace has no policy: allowed (step 3 of Istio's order).
    assert!(istio_allows(&t, "shop", "web", Some(WEB), 5432));

    let t = linkerd::translate(&s, &config, &LinkerdOptions::default());
    assert_eq!(t.servers.len(), 1);
    assert!(t.policies.is_empty());
    assert!(!linkerd_allows(&t, "shop", "db", Some(WEB), 5432));
    assert!(!linkerd_allows(&t, "shop", "db", None, 5432));
}

// istio/api: "The following authorization policy allows all requests to workloads in
// namespace foo" (`rules: [{}]`); GEP-3779 `rules: [{}]` allows everything too.
#[test]
fn rules_with_one_empty_rule_allow_everything_in_istio_and_linkerd() {
    let s = snapshot(
        &[
            db_pod(),
            db_service(),
            policy("shop", "db", "{matchLabels: {app: db}}", Some("[{}]")),
        ]
        .concat(),
    );
    let config = Config::default();
    let t = istio::translate(&s, &config, &IstioOptions::default());
    assert_eq!(
        t.policies[0].spec.rules.as_deref(),
        Some(&[istio::Rule::default()][..])
    );
    let l = linkerd::translate(&s, &config, &LinkerdOptions::default());
    assert_eq!(l.policies.len(), 1);
    for peer in [None, Some(WEB), Some("spiffe://other.example/ns/x/sa/y")] {
        assert!(istio_allows(&t, "shop", "db", peer, 5432));
        assert!(linkerd_allows(&l, "shop", "db", peer, 5432));
    }
}

// ztunnel src/state.rs `assert_rbac_logic_deny_allow`: a matching DENY policy wins over a
// matching ALLOW policy (Istio's order: DENY before ALLOW).
#[test]
fn the_istio_reference_evaluates_deny_before_allow() {
    let allow: istio::AuthorizationPolicy = serde_json::from_value(json!({
        "apiVersion": "security.istio.io/v1", "kind": "AuthorizationPolicy",
        "metadata": {"name": "allow", "namespace": "shop"},
        "spec": {"action": "ALLOW", "rules": [{}]}
    }))
    .unwrap();
    let deny: istio::AuthorizationPolicy = serde_json::from_value(json!({
        "apiVersion": "security.istio.io/v1", "kind": "AuthorizationPolicy",
        "metadata": {"name": "deny", "namespace": "shop"},
        "spec": {"action": "DENY", "rules": [{"from": [{"source": {"principals": ["cluster.local/ns/shop/sa/web"]}}]}]}
    }))
    .unwrap();
    let peer = id(WEB);
    let other = id(API);
    let both = [allow.clone(), deny];
    assert!(!istio::reference::allows(
        &both,
        "istio-system",
        "shop",
        &labels("db"),
        Some(&peer),
        80
    ));
    assert!(istio::reference::allows(
        &both,
        "istio-system",
        "shop",
        &labels("db"),
        Some(&other),
        80
    ));
    assert!(istio::reference::allows(
        &[allow],
        "istio-system",
        "shop",
        &labels("db"),
        Some(&peer),
        80
    ));
}

// ztunnel src/rbac.rs `rbac_test!` principals "td/ns/namespace/sa/account", and Istio's
// TestAuthz_TrustDomain: a principal names one trust domain; a peer of another is denied.
#[test]
fn a_service_account_source_is_an_istio_principal_in_the_configured_trust_domain() {
    let s = snapshot(
        &[
            db_pod(),
            policy(
                "shop",
                "db",
                "{matchLabels: {app: db}}",
                Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}], networkAttributes: {ports: [5432]}}]"),
            ),
        ]
        .concat(),
    );
    let config = Config::with_trust_domain("prod.example");
    let t = istio::translate(&s, &config, &IstioOptions::default());
    assert_eq!(
        serde_json::to_value(&t.policies[0]).unwrap(),
        json!({
            "apiVersion": "security.istio.io/v1",
            "kind": "AuthorizationPolicy",
            "metadata": {"name": "db", "namespace": "shop",
                         "annotations": {"gamma.rs/translated-from": "shop/db"}},
            "spec": {
                "selector": {"matchLabels": {"app": "db"}},
                "action": "ALLOW",
                "rules": [{"from": [{"source": {"principals": ["prod.example/ns/shop/sa/web"]}}],
                           "to": [{"operation": {"ports": ["5432"]}}]}]
            }
        })
    );
    assert!(istio_allows(
        &t,
        "shop",
        "db",
        Some("spiffe://prod.example/ns/shop/sa/web"),
        5432
    ));
    assert!(!istio_allows(&t, "shop", "db", Some(WEB), 5432));
    // TestAuthz_NotPort's converse: the policy's other ports are denied.
    assert!(!istio_allows(
        &t,
        "shop",
        "db",
        Some("spiffe://prod.example/ns/shop/sa/web"),
        9090
    ));
    assert!(t.report.findings().iter().all(|f| f.directions.is_empty()));
}

#[test]
fn a_baseline_of_deny_is_an_allow_nothing_policy_in_the_istio_root_namespace() {
    let s = snapshot(
        &[
            db_pod(),
            pod("shop", "web-0", "web", "10.0.0.11", "{app: web}"),
            policy(
                "shop",
                "db",
                "{matchLabels: {app: db}}",
                Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}]}]"),
            ),
        ]
        .concat(),
    );
    let config = Config::default().baseline(Baseline::Deny);
    let t = istio::translate(&s, &config, &IstioOptions::default());
    let root = t
        .policies
        .iter()
        .find(|p| p.metadata.namespace == "istio-system")
        .unwrap();
    assert_eq!(root.metadata.name, istio::BASELINE_DENY_NAME);
    assert_eq!(root.spec.selector, None);
    assert_eq!(root.spec.rules, None);
    assert!(!istio_allows(&t, "shop", "web", Some(WEB), 80));
    assert!(istio_allows(&t, "shop", "db", Some(WEB), 80));
}

#[test]
fn a_match_expressions_selector_is_not_mappable_to_istio_and_reported_widened() {
    let s = snapshot(
        &[
            db_pod(),
            policy(
                "shop",
                "db",
                "{matchExpressions: [{key: app, operator: In, values: [db]}]}",
                Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}]}]"),
            ),
        ]
        .concat(),
    );
    let t = istio::translate(&s, &Config::default(), &IstioOptions::default());
    assert!(t.policies.is_empty());
    let f = t
        .report
        .findings()
        .iter()
        .find(|f| f.severity == Severity::NotMappable && !f.directions.is_empty())
        .unwrap();
    assert_eq!(f.field, "spec.targetRefs[0].selector.matchExpressions");
    assert_eq!(f.directions, [Direction::Widened]);
    assert_eq!(f.pods[0].name, "db-0");
    // Observed: the engine denies api, Istio (no policy) allows it.
    let a = Authorizer::build(&s, Config::default());
    assert!(
        !a.decide(
            Some(&id(API)),
            a.workload_named("shop", "db-0").unwrap(),
            5432
        )
        .allowed()
    );
    assert!(istio_allows(&t, "shop", "db", Some(API), 5432));
}

// linkerd2 e2e_authorization_policy.rs `either`: two AuthorizationPolicies on one Server are
// ORed; two XAuthorizationPolicies with the same selector share the Server.
#[test]
fn two_policies_with_one_selector_share_a_linkerd_server_and_either_authorizes() {
    let s = snapshot(
        &[
            db_pod(),
            policy("shop", "from-api", "{matchLabels: {app: db}}", Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: api}}], networkAttributes: {ports: [5432]}}]")),
            policy("shop", "from-web", "{matchLabels: {app: db}}", Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}], networkAttributes: {ports: [5432]}}]")),
        ]
        .concat(),
    );
    let t = linkerd::translate(
        &s,
        &Config::default(),
        &LinkerdOptions::default().default_policy(DefaultPolicy::Deny),
    );
    assert_eq!(t.servers.len(), 1);
    assert_eq!(
        serde_json::to_value(&t.servers[0]).unwrap(),
        json!({
            "apiVersion": "policy.linkerd.io/v1beta3",
            "kind": "Server",
            "metadata": {"name": "from-api-5432", "namespace": "shop",
                         "annotations": {"gamma.rs/translated-from": "shop/from-api,shop/from-web"}},
            "spec": {"podSelector": {"matchLabels": {"app": "db"}}, "port": 5432, "accessPolicy": "deny"}
        })
    );
    assert_eq!(t.policies.len(), 2);
    assert_eq!(
        serde_json::to_value(&t.policies[1]).unwrap(),
        json!({
            "apiVersion": "policy.linkerd.io/v1alpha1",
            "kind": "AuthorizationPolicy",
            "metadata": {"name": "from-web-rule-0-5432", "namespace": "shop",
                         "annotations": {"gamma.rs/translated-from": "shop/from-web"}},
            "spec": {
                "targetRef": {"group": "policy.linkerd.io", "kind": "Server", "name": "from-api-5432"},
                "requiredAuthenticationRefs": [{"group": "policy.linkerd.io", "kind": "MeshTLSAuthentication", "name": "from-web-rule-0"}]
            }
        })
    );
    assert_eq!(
        t.authentications[1].spec.identities,
        ["web.shop.serviceaccount.identity.linkerd.cluster.local"]
    );
    assert!(linkerd_allows(&t, "shop", "db", Some(WEB), 5432));
    assert!(linkerd_allows(&t, "shop", "db", Some(API), 5432));
    assert!(!linkerd_allows(
        &t,
        "shop",
        "db",
        Some("spiffe://cluster.local/ns/shop/sa/ops"),
        5432
    ));
    assert!(!linkerd_allows(&t, "shop", "db", None, 5432));
}

// linkerd2 e2e_authorization_policy.rs `empty_authentications`: an AuthorizationPolicy
// without authentications admits meshed and unmeshed clients alike; GEP-3779's omitted
// `sources` is "any source", including an unauthenticated peer by default.
#[test]
fn omitted_sources_are_a_linkerd_policy_without_authentications() {
    let s = snapshot(
        &[
            db_pod(),
            policy(
                "shop",
                "db",
                "{matchLabels: {app: db}}",
                Some("[{networkAttributes: {ports: [5432]}}]"),
            ),
        ]
        .concat(),
    );
    let t = linkerd::translate(&s, &Config::default(), &LinkerdOptions::default());
    assert_eq!(t.policies.len(), 1);
    assert!(t.policies[0].spec.required_authentication_refs.is_empty());
    assert!(t.authentications.is_empty());
    assert!(linkerd_allows(&t, "shop", "db", None, 5432));
    assert!(linkerd_allows(&t, "shop", "db", Some(WEB), 5432));

    // Unauthenticated peers not "any source": the identity `*` (every meshed client).
    let config = Config::default().unauthenticated_is_any_source(false);
    let t = linkerd::translate(&s, &config, &LinkerdOptions::default());
    assert_eq!(t.authentications[0].spec.identities, ["*"]);
    assert!(!linkerd_allows(&t, "shop", "db", None, 5432));
    assert!(linkerd_allows(&t, "shop", "db", Some(WEB), 5432));
}

// The notes' anchor: a port with a Server is deny-by-default, one without keeps the default
// policy; GEP-3779 denies every port of a selected workload. The report says which ports.
#[test]
fn ports_without_a_linkerd_server_keep_the_default_policy_and_are_reported() {
    let text = [
        db_pod(),
        policy("shop", "db", "{matchLabels: {app: db}}", Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}], networkAttributes: {ports: [5432]}}]")),
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\nspec: {selector: {app: db}, ports: [{port: 9187, targetPort: 9187}]}\n".to_owned(),
    ]
    .concat();
    let s = snapshot(&text);
    let t = linkerd::translate(&s, &Config::default(), &LinkerdOptions::default());
    // The Service's port gets a Server too: denied, as the engine denies it.
    let ports: Vec<u16> = t.servers.iter().map(|s| s.spec.port).collect();
    assert_eq!(ports, [5432, 9187]);
    assert!(!linkerd_allows(&t, "shop", "db", Some(WEB), 9187));
    // Another port: the default all-unauthenticated allows; the engine denies.
    assert!(linkerd_allows(&t, "shop", "db", Some(API), 8080));
    let f = t
        .report
        .findings()
        .iter()
        .find(|f| f.severity == Severity::Approximated)
        .unwrap();
    assert_eq!(f.directions, [Direction::Widened]);
    assert!(f.ports.contains(8080) && !f.ports.contains(5432) && !f.ports.contains(9187));
    // With the cluster default `deny`, the translation is exact.
    // (Only the Pods no policy selects, none here, would differ from the baseline of allow.)
    let t = linkerd::translate(
        &s,
        &Config::default(),
        &LinkerdOptions::default().default_policy(DefaultPolicy::Deny),
    );
    assert!(
        t.report
            .findings()
            .iter()
            .all(|f| f.directions.is_empty() || (f.policy.is_none() && f.pods.is_empty())),
        "{:?}",
        t.report
    );
}

// linkerd2 identity_match.rs: `*.NS.serviceaccount.identity.linkerd.TD` is a suffix match.
#[test]
fn a_service_account_wildcard_is_a_linkerd_identity_suffix() {
    let s = snapshot(&[db_pod(), policy("shop", "db", "{matchLabels: {app: db}}", Some("[{sources: [{type: ServiceAccount, serviceAccount: {namespace: ops, name: '*'}}], networkAttributes: {ports: [5432]}}]"))].concat());
    let t = linkerd::translate(&s, &Config::default(), &LinkerdOptions::default());
    assert_eq!(
        t.authentications[0].spec.identities,
        ["*.ops.serviceaccount.identity.linkerd.cluster.local"]
    );
    assert!(linkerd_allows(
        &t,
        "shop",
        "db",
        Some("spiffe://cluster.local/ns/ops/sa/any"),
        5432
    ));
    assert!(!linkerd_allows(&t, "shop", "db", Some(WEB), 5432));
    assert!(linkerd::reference::identity_matches(
        "*",
        "web.shop.serviceaccount.identity.linkerd.cluster.local"
    ));
    assert!(!linkerd::reference::identity_matches(
        "*.ops.serviceaccount.identity.linkerd.cluster.local",
        "ops.serviceaccount.identity.linkerd.cluster.local"
    ));
}

#[test]
fn overlapping_linkerd_servers_are_reported_narrowed() {
    let s = snapshot(
        &[
            db_pod(),
            policy("shop", "a", "{matchLabels: {app: db}}", Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: web}}], networkAttributes: {ports: [5432]}}]")),
            policy("shop", "b", "{}", Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: api}}], networkAttributes: {ports: [5432]}}]")),
        ]
        .concat(),
    );
    let t = linkerd::translate(&s, &Config::default(), &LinkerdOptions::default());
    assert_eq!(t.servers.len(), 2);
    let f = t
        .report
        .findings()
        .iter()
        .find(|f| f.message.contains("both select"))
        .unwrap();
    assert_eq!(f.directions, [Direction::Narrowed]);
    assert_eq!(f.policy.as_ref().unwrap().name, "b");
    // Server a-5432 is used: api, allowed by b in the engine, is denied.
    assert!(linkerd_allows(&t, "shop", "db", Some(WEB), 5432));
    assert!(!linkerd_allows(&t, "shop", "db", Some(API), 5432));
}
