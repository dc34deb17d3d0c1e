//! The translations held to the engine by the meshes' own semantics: for generated policies,
//! Pods, Services, peers and ports, the engine's verdict (GEP-3779) equals the verdict of the
//! translated objects under a reference evaluator of the mesh's documented evaluation order
//! (`translate::istio::reference`: CUSTOM, DENY, then ALLOW, no ALLOW policy = allow;
//! `translate::linkerd::reference`: per Server, a port without one gets the default policy),
//! except where a finding of the report covers that Pod and port, in the observed direction.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{ACCOUNTS, APPS, NAMESPACES, RuleSpec, Src, pod, pods_yaml, snapshot};
use gamma_authz::translate::istio::{self, IstioOptions};
use gamma_authz::translate::linkerd::{self, DefaultPolicy, LinkerdOptions};
use gamma_authz::translate::{Direction, TranslationReport};
use gamma_authz::{Authorizer, Baseline, Config, Identity};
use gamma_model::Snapshot;
use proptest::prelude::*;

/// Every port probed: the rules' ports, and one only a Service names.
const PROBES: [u16; 4] = [80, 443, 8080, 9090];

#[derive(Debug, Clone)]
enum Selector {
    All,
    Labels(usize),
    Expression(usize),
}

#[derive(Debug, Clone)]
struct PolicySpec {
    ns: usize,
    selector: Selector,
    rules: Option<Vec<RuleSpec>>,
}

fn src(wildcards: bool) -> impl Strategy<Value = Src> {
    let name = if wildcards {
        proptest::option::of(0..2usize).boxed()
    } else {
        (0..2usize).prop_map(Some).boxed()
    };
    prop_oneof![
        (proptest::option::of(0..2usize), name).prop_map(|(ns, name)| Src::Sa { ns, name }),
        (any::<bool>(), 0..2usize, 0..2usize).prop_map(|(foreign, ns, sa)| Src::Spiffe {
            foreign,
            ns,
            sa
        }),
        Just(Src::Path),
    ]
}

fn rule(wildcards: bool) -> impl Strategy<Value = RuleSpec> {
    (
        proptest::option::of(proptest::collection::vec(src(wildcards), 0..3)),
        proptest::option::of(proptest::collection::vec(0..3usize, 1..3)),
    )
        .prop_map(|(sources, ports)| RuleSpec { sources, ports })
}

fn policy_spec(expressions: bool, wildcards: bool) -> impl Strategy<Value = PolicySpec> {
    let selector = if expressions {
        prop_oneof![
            Just(Selector::All),
            (0..2usize).prop_map(Selector::Labels),
            (0..2usize).prop_map(Selector::Expression),
        ]
        .boxed()
    } else {
        prop_oneof![Just(Selector::All), (0..2usize).prop_map(Selector::Labels)].boxed()
    };
    (
        0..2usize,
        selector,
        proptest::option::of(proptest::collection::vec(rule(wildcards), 0..3)),
    )
        .prop_map(|(ns, selector, rules)| PolicySpec {
            ns,
            selector,
            rules,
        })
}

/// Pods: (namespace, app, ServiceAccount).
fn pods() -> impl Strategy<Value = Vec<(usize, usize, usize)>> {
    proptest::collection::vec((0..2usize, 0..2usize, 0..2usize), 1..5)
}

/// Services: (namespace, app, target port index into PROBES).
fn services() -> impl Strategy<Value = Vec<(usize, usize, usize)>> {
    proptest::collection::vec((0..2usize, 0..2usize, 0..4usize), 0..3)
}

fn policy_yaml(name: &str, p: &PolicySpec) -> String {
    let selector = match p.selector {
        Selector::All => "{}".to_owned(),
        Selector::Labels(a) => format!("{{matchLabels: {{app: {}}}}}", APPS[a]),
        Selector::Expression(a) => format!(
            "{{matchExpressions: [{{key: app, operator: In, values: [{}]}}]}}",
            APPS[a]
        ),
    };
    let rules = p.rules.as_deref().map(common::generated_rules_yaml);
    common::policy(NAMESPACES[p.ns], name, &selector, rules.as_deref())
}

fn cluster(
    pods: &[(usize, usize, usize)],
    services: &[(usize, usize, usize)],
    policies: &[PolicySpec],
) -> Snapshot {
    let mut text = pods_yaml(pods);
    for (i, (ns, app, port)) in services.iter().enumerate() {
        text.push_str(&format!(
            "---\napiVersion: v1\nkind: Service\nmetadata: {{name: svc{i}, namespace: {}}}\n\
             spec: {{selector: {{app: {}}}, ports: [{{port: 1234, targetPort: {}}}]}}\n",
            NAMESPACES[*ns], APPS[*app], PROBES[*port]
        ));
    }
    for (i, p) in policies.iter().enumerate() {
        text.push_str(&policy_yaml(&format!("p{i}"), p));
    }
    snapshot(&text)
}

/// Every peer: unauthenticated, every ServiceAccount in both trust domains, a non-account
/// path, and a path under a ServiceAccount's (which a `*` principal prefix admits).
fn peers() -> Vec<Option<String>> {
    let mut out = vec![
        None,
        Some("spiffe://cluster.local/custom/x".to_owned()),
        Some("spiffe://cluster.local/ns/a/sa/s1/more".to_owned()),
    ];
    for td in ["cluster.local", "other.example"] {
        for ns in NAMESPACES {
            for sa in ACCOUNTS {
                out.push(Some(format!("spiffe://{td}/ns/{ns}/sa/{sa}")));
            }
        }
    }
    out
}

/// Checks `mesh` against the engine over every peer, Pod and probed port: equal, or covered
/// by `report` in the observed direction. Returns the number of differences.
fn differential(
    s: &Snapshot,
    config: &Config,
    report: &TranslationReport,
    mesh: impl Fn(&str, &std::collections::BTreeMap<String, String>, Option<&Identity>, u16) -> bool,
) -> Result<usize, TestCaseError> {
    let a = Authorizer::build(s, config.clone());
    let mut differences = 0;
    for peer in peers() {
        let id = peer.as_deref().map(|p| Identity::parse(p, config).unwrap());
        for w in a.workloads() {
            let key = a.workload_key(w).unwrap();
            let pod = s.pod(&key.namespace, &key.name).unwrap();
            for port in PROBES {
                let gep = a.decide(id.as_ref(), w, port).allowed();
                let got = mesh(&key.namespace, &pod.metadata.labels, id.as_ref(), port);
                if gep != got {
                    differences += 1;
                    let direction = if got {
                        Direction::Widened
                    } else {
                        Direction::Narrowed
                    };
                    prop_assert!(
                        report.covers(&key, port, direction),
                        "{:?} -> {} :{}: engine {}, mesh {}, and no finding covers it:\n{}",
                        peer,
                        key,
                        port,
                        gep,
                        got,
                        report
                            .findings()
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join("\n")
                    );
                }
            }
        }
    }
    Ok(differences)
}

fn config(any_includes_unauthenticated: bool, baseline_allow: bool) -> Config {
    Config::default()
        .unauthenticated_is_any_source(any_includes_unauthenticated)
        .baseline(if baseline_allow {
            Baseline::Allow
        } else {
            Baseline::Deny
        })
}

fn default_policy() -> impl Strategy<Value = DefaultPolicy> {
    prop_oneof![
        Just(DefaultPolicy::AllUnauthenticated),
        Just(DefaultPolicy::AllAuthenticated),
        Just(DefaultPolicy::Deny),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn istio_verdicts_equal_the_engine_except_where_the_report_says_in_its_direction(
        pods in pods(),
        services in services(),
        policies in proptest::collection::vec(policy_spec(true, true), 0..4),
        any_includes_unauthenticated in any::<bool>(),
        baseline_allow in any::<bool>(),
        root_is_a in any::<bool>(),
    ) {
        let s = cluster(&pods, &services, &policies);
        let config = config(any_includes_unauthenticated, baseline_allow);
        // Namespace a as Istio's root namespace: its policies apply in every namespace.
        let options = if root_is_a {
            IstioOptions::default().root_namespace("a")
        } else {
            IstioOptions::default()
        };
        let t = istio::translate(&s, &config, &options);
        differential(&s, &config, &t.report, |ns, labels, peer, port| {
            istio::reference::allows(&t.policies, &options.root_namespace, ns, labels, peer, port)
        })?;
    }

    // Label selectors and named ServiceAccounts map exactly: no finding changes access, and
    // every verdict is the engine's.
    #[test]
    fn istio_translations_of_label_selectors_and_named_accounts_are_exact(
        pods in pods(),
        services in services(),
        policies in proptest::collection::vec(policy_spec(false, false), 0..4),
        any_includes_unauthenticated in any::<bool>(),
        baseline_allow in any::<bool>(),
    ) {
        let s = cluster(&pods, &services, &policies);
        let config = config(any_includes_unauthenticated, baseline_allow);
        let options = IstioOptions::default();
        let t = istio::translate(&s, &config, &options);
        prop_assert!(t.report.findings().iter().all(|f| f.directions.is_empty()), "{:?}", t.report);
        let differences = differential(&s, &config, &t.report, |ns, labels, peer, port| {
            istio::reference::allows(&t.policies, &options.root_namespace, ns, labels, peer, port)
        })?;
        prop_assert_eq!(differences, 0);
    }

    #[test]
    fn linkerd_verdicts_equal_the_engine_except_where_the_report_says_in_its_direction(
        pods in pods(),
        services in services(),
        policies in proptest::collection::vec(policy_spec(true, true), 0..4),
        any_includes_unauthenticated in any::<bool>(),
        baseline_allow in any::<bool>(),
        default_policy in default_policy(),
    ) {
        let s = cluster(&pods, &services, &policies);
        let config = config(any_includes_unauthenticated, baseline_allow);
        let options = LinkerdOptions::default().default_policy(default_policy);
        let t = linkerd::translate(&s, &config, &options);
        differential(&s, &config, &t.report, |ns, labels, peer, port| {
            linkerd::reference::allows(&t, default_policy, ns, labels, peer, port)
        })?;
    }

    // Any input order gives the same objects and report.
    #[test]
    fn translations_do_not_depend_on_input_order(
        pods in pods(),
        services in services(),
        policies in proptest::collection::vec(policy_spec(true, true), 0..4),
    ) {
        let s = cluster(&pods, &services, &policies);
        let mut text = String::new();
        for (i, p) in policies.iter().enumerate().rev() {
            text.push_str(&policy_yaml(&format!("p{i}"), p));
        }
        let first = cluster(&pods, &services, &[]);
        let mut resources: Vec<_> = first.iter().map(|(_, r)| r.clone()).collect();
        resources.extend(gamma_model::decode(&text).unwrap());
        resources.reverse();
        let r = Snapshot::from_resources(resources);
        let config = Config::default();
        prop_assert_eq!(
            istio::translate(&s, &config, &IstioOptions::default()),
            istio::translate(&r, &config, &IstioOptions::default())
        );
        prop_assert_eq!(
            linkerd::translate(&s, &config, &LinkerdOptions::default()),
            linkerd::translate(&r, &config, &LinkerdOptions::default())
        );
    }
}

// With every port of the Pods named by a rule, the Linkerd translation is exact on label
// selectors and named accounts when the default policy matches the baseline, and no two
// policies select one Pod.
#[test]
fn linkerd_is_exact_when_every_port_has_a_server_and_policies_do_not_overlap() {
    let text = [
        pod("a", "w0", "s1", "10.0.0.1", "{app: x}"),
        pod("a", "w1", "s2", "10.0.0.2", "{app: y}"),
        pod("b", "w2", "s1", "10.0.0.3", "{app: x}"),
        common::policy(
            "a",
            "db",
            "{matchLabels: {app: x}}",
            Some("[{sources: [{type: ServiceAccount, serviceAccount: {name: s2}}], networkAttributes: {ports: [80]}}, {sources: [{type: ServiceAccount, serviceAccount: {namespace: b, name: '*'}}], networkAttributes: {ports: [443]}}]"),
        ),
    ]
    .concat();
    let s = snapshot(&text);
    let config = Config::default();
    let t = linkerd::translate(&s, &config, &LinkerdOptions::default());
    let changing: Vec<_> = t
        .report
        .findings()
        .iter()
        .filter(|f| !f.directions.is_empty())
        .collect();
    // Only the ports without a Server differ: widened by the default all-unauthenticated.
    assert_eq!(changing.len(), 1, "{changing:?}");
    let a = Authorizer::build(&s, config.clone());
    for peer in peers() {
        let id = peer
            .as_deref()
            .map(|p| Identity::parse(p, &config).unwrap());
        for w in a.workloads() {
            let key = a.workload_key(w).unwrap();
            let labels = &s.pod(&key.namespace, &key.name).unwrap().metadata.labels;
            for port in [80, 443] {
                assert_eq!(
                    a.decide(id.as_ref(), w, port).allowed(),
                    linkerd::reference::allows(
                        &t,
                        DefaultPolicy::AllUnauthenticated,
                        &key.namespace,
                        labels,
                        id.as_ref(),
                        port
                    ),
                    "{peer:?} -> {key} :{port}"
                );
            }
        }
    }
}
