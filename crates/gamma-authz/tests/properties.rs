//! Properties of the engine over generated clusters:
//!
//! - the fast path agrees with an oracle evaluating the GEP-3779 text directly (`common::oracle`),
//!   under both baselines and both readings of "any source";
//! - explain and the fast path always agree (verdict, and the policy and rule that allowed);
//! - the order (and naming) of policies never changes a verdict;
//! - adding an ALLOW policy to a workload that already has one never denies a flow that was
//!   allowed (GEP-3779: policies are ORed).
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use common::{ACCOUNTS, APPS, NAMESPACES, PORTS, RuleSpec, Src, oracle, pods_yaml, snapshot};
use gamma_authz::{Authorizer, Baseline, Config, Identity, Verdict};
use gamma_model::Snapshot;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct PolicySpec {
    ns: usize,
    selector: Option<usize>,
    rules: Option<Vec<RuleSpec>>,
}

fn src() -> impl Strategy<Value = Src> {
    prop_oneof![
        (
            proptest::option::of(0..2usize),
            proptest::option::of(0..2usize)
        )
            .prop_map(|(ns, name)| Src::Sa { ns, name }),
        (any::<bool>(), 0..2usize, 0..2usize).prop_map(|(foreign, ns, sa)| Src::Spiffe {
            foreign,
            ns,
            sa
        }),
    ]
}

fn rule() -> impl Strategy<Value = RuleSpec> {
    (
        proptest::option::of(proptest::collection::vec(src(), 0..3)),
        proptest::option::of(proptest::collection::vec(0..3usize, 0..3)),
    )
        .prop_map(|(sources, ports)| RuleSpec { sources, ports })
}

fn policy_spec() -> impl Strategy<Value = PolicySpec> {
    (
        0..2usize,
        proptest::option::of(0..2usize),
        proptest::option::of(proptest::collection::vec(rule(), 0..3)),
    )
        .prop_map(|(ns, selector, rules)| PolicySpec {
            ns,
            selector,
            rules,
        })
}

fn pods() -> impl Strategy<Value = Vec<(usize, usize, usize)>> {
    proptest::collection::vec((0..2usize, 0..2usize, 0..2usize), 1..5)
}

fn policy_yaml(name: &str, p: &PolicySpec) -> String {
    let selector = p.selector.map_or("{}".to_owned(), |a| {
        format!("{{matchLabels: {{app: {}}}}}", APPS[a])
    });
    let rules = p.rules.as_deref().map(common::generated_rules_yaml);
    common::policy(NAMESPACES[p.ns], name, &selector, rules.as_deref())
}

fn cluster(pods: &[(usize, usize, usize)], policies: &[(String, PolicySpec)]) -> Snapshot {
    let mut text = pods_yaml(pods);
    for (name, p) in policies {
        text.push_str(&policy_yaml(name, p));
    }
    snapshot(&text)
}

/// Every peer: unauthenticated, every ServiceAccount in both trust domains, a non-account path.
fn peers() -> Vec<Option<String>> {
    let mut out = vec![None, Some("spiffe://cluster.local/custom/x".to_owned())];
    for td in ["cluster.local", "other.example"] {
        for ns in NAMESPACES {
            for sa in ACCOUNTS {
                out.push(Some(format!("spiffe://{td}/ns/{ns}/sa/{sa}")));
            }
        }
    }
    out
}

/// Every verdict of `a`, over every peer, workload and port.
fn verdicts(a: &Authorizer) -> Vec<(Option<String>, String, u16, Verdict)> {
    let config = Config::default();
    let mut out = Vec::new();
    for peer in peers() {
        let id = peer
            .as_deref()
            .map(|p| Identity::parse(p, &config).unwrap());
        for w in a.workloads() {
            for port in PORTS {
                let d = a.decide(id.as_ref(), w, port);
                out.push((
                    peer.clone(),
                    a.workload_key(w).unwrap().name,
                    port,
                    d.verdict,
                ));
            }
        }
    }
    out
}

fn named(policies: &[PolicySpec]) -> Vec<(String, PolicySpec)> {
    policies
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("p{i}"), p.clone()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_fast_path_agrees_with_the_gep_oracle_and_explain_agrees_with_both(
        pods in pods(),
        policies in proptest::collection::vec(policy_spec(), 0..5),
        any_includes_unauthenticated in any::<bool>(),
        baseline_allow in any::<bool>(),
    ) {
        let s = cluster(&pods, &named(&policies));
        let config = Config::default()
            .unauthenticated_is_any_source(any_includes_unauthenticated)
            .baseline(if baseline_allow { Baseline::Allow } else { Baseline::Deny });
        let a = Authorizer::build(&s, config.clone());
        for peer in peers() {
            let id = peer.as_deref().map(|p| Identity::parse(p, &config).unwrap());
            for w in a.workloads() {
                let key = a.workload_key(w).unwrap();
                let pod = s.pod(&key.namespace, &key.name).unwrap();
                for port in PORTS {
                    let d = a.decide(id.as_ref(), w, port);
                    let want = oracle(&s, "cluster.local", any_includes_unauthenticated, baseline_allow, peer.as_deref(), pod, port);
                    prop_assert_eq!(d.allowed(), want, "{:?} -> {} :{}", peer, key, port);
                    let e = a.explain(id.as_ref(), w, port);
                    prop_assert_eq!(e.verdict, d.verdict);
                    prop_assert_eq!(e.allowed_by, a.allowed_by(&d));
                    // A denial by policies names a failing criterion for every rule.
                    if !d.allowed() && e.baseline.is_none() {
                        prop_assert!(e.policies.iter().all(|p| p.rules.iter().all(|r| r.failed.is_some())));
                    }
                }
            }
        }
    }

    #[test]
    fn the_order_and_names_of_policies_never_change_a_verdict(
        pods in pods(),
        policies in proptest::collection::vec(policy_spec(), 0..5),
        rotate in 0..5usize,
    ) {
        let first = Authorizer::build(&cluster(&pods, &named(&policies)), Config::default());
        // Reversed names and a rotated document order give another (namespace, name) order.
        let n = policies.len();
        let mut renamed: Vec<(String, PolicySpec)> = policies
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("q{}", n - i), p.clone()))
            .collect();
        if n > 0 {
            renamed.rotate_left(rotate % n);
        }
        let second = Authorizer::build(&cluster(&pods, &renamed), Config::default());
        prop_assert_eq!(verdicts(&first), verdicts(&second));
    }

    #[test]
    fn adding_an_allow_policy_to_a_selected_workload_never_denies_an_allowed_flow(
        pods in pods(),
        policies in proptest::collection::vec(policy_spec(), 1..5),
        extra in policy_spec(),
    ) {
        let before = Authorizer::build(&cluster(&pods, &named(&policies)), Config::default());
        let mut more = named(&policies);
        more.push(("zz-extra".into(), extra));
        let after = Authorizer::build(&cluster(&pods, &more), Config::default());
        let config = Config::default();
        for peer in peers() {
            let id = peer.as_deref().map(|p| Identity::parse(p, &config).unwrap());
            for w in before.workloads() {
                if before.policies_selecting(w).is_empty() {
                    continue; // the first policy on a workload switches on the implicit deny
                }
                for port in PORTS {
                    if before.decide(id.as_ref(), w, port).allowed() {
                        prop_assert!(after.decide(id.as_ref(), w, port).allowed(), "{:?} {:?} {}", peer, w, port);
                    }
                }
            }
        }
    }
}
