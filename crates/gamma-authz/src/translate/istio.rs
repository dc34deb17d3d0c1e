//! XAuthorizationPolicies as Istio `AuthorizationPolicy` (`security.istio.io/v1`), with a
//! report of what does not map.
//!
//! The objects model only the fields the translation emits; their meaning is Istio's
//! reference, <https://istio.io/latest/docs/reference/config/security/authorization-policy/>.
//!
//! | GEP-3779 | Istio |
//! |---|---|
//! | a policy (namespace, Pod `selector.matchLabels`) | one `ALLOW` policy, same namespace and name, `selector.matchLabels` (`{}`: no selector, the whole namespace) |
//! | `matchExpressions` | **not mappable**: Istio's `WorkloadSelector` has labels only; nothing is emitted |
//! | no rules, or an invalid policy | no `rules` ("the match will never occur": allow nothing) |
//! | a rule | a rule; `sources: []` matches nothing, so the rule is left out |
//! | omitted `sources` | no `from` (any peer, with or without mTLS), or `principals: ["*"]` when unauthenticated peers are not "any source" |
//! | ServiceAccount source | principal `TD/ns/NS/sa/NAME` in the configured trust domain (`*` name: `TD/ns/NS/sa/*`, a prefix match) |
//! | SPIFFE source | principal: the URI without `spiffe://` (istiod adds it back) |
//! | `networkAttributes.ports` | `to: [{operation: {ports}}]` |
//! | baseline deny | an allow-nothing policy in the root namespace (it applies to every workload; ALLOW policies are ORed) |
//!
//! Istio's order is CUSTOM, then DENY, then ALLOW; the translation emits ALLOW policies only,
//! so a workload selected by one denies what no rule allows, all ports included: GEP-3779's
//! "iff" exactly.

use std::collections::BTreeMap;

use gamma_model::Snapshot;
use serde::{Deserialize, Serialize};

use super::{Compiled, Direction, Finding, Metadata, PortScope, Severity, TranslationReport};
use crate::Config;
use crate::engine::Source;

/// `security.istio.io/v1`.
pub const API_VERSION: &str = "security.istio.io/v1";

/// An Istio `AuthorizationPolicy`
/// (<https://istio.io/latest/docs/reference/config/security/authorization-policy/>).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AuthorizationPolicy {
    /// [`API_VERSION`].
    pub api_version: String,
    /// `AuthorizationPolicy`.
    pub kind: String,
    /// Name, namespace, and the policy it came from.
    pub metadata: Metadata,
    /// The spec.
    pub spec: AuthorizationPolicySpec,
}

/// `AuthorizationPolicy.spec`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AuthorizationPolicySpec {
    /// The workloads, by labels, in the policy's namespace (all workloads of the mesh for a
    /// policy in the root namespace); absent: every workload of the namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<WorkloadSelector>,
    /// The action; absent is `ALLOW`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
    /// The rules; absent or empty: the policy never matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<Rule>>,
}

/// `WorkloadSelector` (<https://istio.io/latest/docs/reference/config/type/workload-selector/>).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WorkloadSelector {
    /// Labels a workload must carry, with these values.
    pub match_labels: BTreeMap<String, String>,
}

/// `AuthorizationPolicy.Action` (the two the reference evaluator knows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
#[non_exhaustive]
pub enum Action {
    /// Allow a request that matches a rule.
    Allow,
    /// Deny a request that matches a rule (evaluated before ALLOW).
    Deny,
}

/// `Rule`: matches when one `from`, one `to` match (an empty list matches).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Rule {
    /// The sources; any one matching.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from: Vec<RuleFrom>,
    /// The operations; any one matching.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to: Vec<RuleTo>,
}

/// `Rule.From`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RuleFrom {
    /// The source.
    pub source: IstioSource,
}

/// `Source` (only `principals`): the peer's mTLS identity, `TD/ns/NS/sa/NAME`, with Istio's
/// string matches (exact, `prefix*`, `*suffix`, `*` any).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct IstioSource {
    /// The principals; any one matching.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub principals: Vec<String>,
}

/// `Rule.To`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RuleTo {
    /// The operation.
    pub operation: Operation,
}

/// `Operation` (only `ports`: the destination port "as specified in the connection").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Operation {
    /// The ports, as strings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<String>,
}

/// How to translate for Istio.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IstioOptions {
    /// Istio's root namespace (`meshConfig.rootNamespace`), where a baseline of deny is
    /// written as an allow-nothing policy. Default `istio-system`.
    pub root_namespace: String,
}

impl Default for IstioOptions {
    fn default() -> Self {
        IstioOptions {
            root_namespace: "istio-system".into(),
        }
    }
}

impl IstioOptions {
    /// These options with `root_namespace`.
    pub fn root_namespace(mut self, root_namespace: impl Into<String>) -> Self {
        self.root_namespace = root_namespace.into();
        self
    }
}

/// The name of the allow-nothing policy a baseline of deny becomes.
pub const BASELINE_DENY_NAME: &str = "gamma-baseline-deny";

/// The Istio policies and the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct IstioTranslation {
    /// The policies, in (namespace, name) order.
    pub policies: Vec<AuthorizationPolicy>,
    /// What does not map exactly.
    pub report: TranslationReport,
}

fn principal(source: &Source, config: &Config) -> String {
    match source {
        Source::ServiceAccount { namespace, name } => format!(
            "{}/ns/{namespace}/sa/{}",
            config.trust_domain,
            name.as_deref().unwrap_or("*")
        ),
        Source::Spiffe(id) => id.istio_principal(),
    }
}

fn policy(namespace: &str, name: &str, from: &[&gamma_model::ObjectKey]) -> AuthorizationPolicy {
    AuthorizationPolicy {
        api_version: API_VERSION.into(),
        kind: "AuthorizationPolicy".into(),
        metadata: Metadata::new(namespace, name, from),
        spec: AuthorizationPolicySpec {
            action: Some(Action::Allow),
            ..Default::default()
        },
    }
}

/// Translates the XAuthorizationPolicies of `snapshot`, as the engine reads them with
/// `config`, into Istio policies.
pub fn translate(snapshot: &Snapshot, config: &Config, options: &IstioOptions) -> IstioTranslation {
    let compiled = Compiled::new(snapshot, config.clone());
    let mut out = IstioTranslation::default();
    let mut emitted = vec![false; compiled.sources.len()];
    // (policy, field) of selectors Istio cannot express: their findings need to know which
    // Pods other emitted policies still cover.
    let mut unmapped: Vec<(usize, String)> = Vec::new();
    // Policies in Istio's root namespace, which Istio applies in every namespace.
    let mut root_scoped: Vec<(usize, usize, gamma_model::gateway::LabelSelector)> = Vec::new();
    for (i, source) in compiled.sources.iter().enumerate() {
        let Some(p) = compiled.policy(i) else {
            continue;
        };
        let key = compiled.policy_key(i);
        let pod_targets = source
            .spec
            .target_refs
            .iter()
            .filter(|t| t.is_pod())
            .count();
        for (ti, t) in source.spec.target_refs.iter().enumerate() {
            let field = format!("spec.targetRefs[{ti}]");
            if !t.is_pod() {
                out.report.push(Finding::non_pod_target(&key, ti, &t.kind));
                continue;
            }
            let Some(selector) = &t.selector else {
                continue;
            };
            if !selector.match_expressions.is_empty() {
                unmapped.push((i, format!("{field}.selector.matchExpressions")));
                continue;
            }
            if let Some(e) = emitted.get_mut(i) {
                *e = true;
            }
            let name = if pod_targets > 1 {
                format!("{}-{ti}", p.name)
            } else {
                p.name.to_string()
            };
            if *p.namespace == *options.root_namespace {
                root_scoped.push((i, ti, selector.clone()));
            }
            let mut ap = policy(&p.namespace, &name, &[&key]);
            ap.spec.selector = (!selector.match_labels.is_empty()).then(|| WorkloadSelector {
                match_labels: selector.match_labels.clone(),
            });
            if p.invalid {
                out.report.push(Finding {
                    severity: Severity::Exact,
                    policy: Some(key.clone()),
                    rule: None,
                    field: String::new(),
                    directions: Vec::new(),
                    pods: Vec::new(),
                    ports: PortScope::All,
                    message: "invalid: emitted without rules (allowing nothing), as the engine enforces it".into(),
                });
            }
            let mut rules = Vec::new();
            for (ri, r) in p.rules.iter().enumerate() {
                let from = match &r.sources {
                    Some(list) if list.is_empty() => {
                        out.report.push(Finding {
                            severity: Severity::Exact,
                            policy: Some(key.clone()),
                            rule: Some(ri),
                            field: format!("spec.rules[{ri}].sources"),
                            directions: Vec::new(),
                            pods: Vec::new(),
                            ports: PortScope::All,
                            message: "matches no source: the rule is left out".into(),
                        });
                        continue;
                    }
                    Some(list) => {
                        if list
                            .iter()
                            .any(|s| matches!(s, Source::ServiceAccount { name: None, .. }))
                        {
                            out.report.push(Finding {
                                severity: Severity::Approximated,
                                policy: Some(key.clone()),
                                rule: Some(ri),
                                field: format!("spec.rules[{ri}].sources"),
                                directions: vec![Direction::Widened],
                                pods: compiled.selected_by(i).into_iter().map(|w| compiled.pod_key(w)).collect(),
                                ports: if r.ports.is_empty() { PortScope::All } else { PortScope::Only(r.ports.clone()) },
                                message: "a ServiceAccount `*` becomes the principal prefix `TD/ns/NS/sa/`, which also admits SPIFFE IDs with a longer path under it (`ns/NS/sa/NAME/more`), not ServiceAccounts".into(),
                            });
                        }
                        vec![RuleFrom {
                            source: IstioSource {
                                principals: list.iter().map(|s| principal(s, config)).collect(),
                            },
                        }]
                    }
                    None if !config.unauthenticated_is_any_source => vec![RuleFrom {
                        source: IstioSource {
                            principals: vec!["*".into()],
                        },
                    }],
                    None => Vec::new(),
                };
                let to = if r.ports.is_empty() {
                    Vec::new()
                } else {
                    vec![RuleTo {
                        operation: Operation {
                            ports: r.ports.iter().map(u16::to_string).collect(),
                        },
                    }]
                };
                rules.push(Rule { from, to });
            }
            ap.spec.rules = (!rules.is_empty()).then_some(rules);
            out.policies.push(ap);
        }
    }
    let baseline_deny = config.baseline == crate::Baseline::Deny;
    for (i, field) in unmapped {
        let mut widened = Vec::new();
        let mut narrowed = Vec::new();
        for w in compiled.selected_by(i) {
            let others = compiled
                .authorizer
                .policies_selecting(w)
                .iter()
                .any(|o| o.0 as usize != i && emitted.get(o.0 as usize) == Some(&true));
            if others || baseline_deny || emitted.get(i) == Some(&true) {
                narrowed.push(compiled.pod_key(w));
            } else {
                widened.push(compiled.pod_key(w));
            }
        }
        let message = "Istio selects workloads by matchLabels only; no policy is emitted for this target, so its rules allow nothing in Istio: its Pods that no other emitted policy selects are open to every peer (widened), the others lose this policy's rules (narrowed)";
        for (direction, pods) in [
            (Direction::Widened, widened),
            (Direction::Narrowed, narrowed),
        ] {
            out.report.push(Finding {
                severity: Severity::NotMappable,
                policy: Some(compiled.policy_key(i)),
                rule: None,
                field: field.clone(),
                directions: if pods.is_empty() {
                    Vec::new()
                } else {
                    vec![direction]
                },
                pods,
                ports: PortScope::All,
                message: message.into(),
            });
        }
    }
    for (i, ti, selector) in root_scoped {
        let pods: Vec<_> = compiled
            .pods
            .iter()
            .filter(|pod| {
                pod.metadata.namespace_or_default() != options.root_namespace
                    && selector.matches(&pod.metadata.labels) == Ok(true)
            })
            .map(|pod| {
                gamma_model::ObjectKey::new(
                    gamma_model::ResourceKind::Pod,
                    pod.metadata.namespace_or_default(),
                    &pod.metadata.name,
                )
            })
            .collect();
        out.report.push(Finding {
            severity: Severity::Approximated,
            policy: Some(compiled.policy_key(i)),
            rule: None,
            field: format!("spec.targetRefs[{ti}].selector"),
            directions: if pods.is_empty() {
                Vec::new()
            } else {
                vec![Direction::Widened, Direction::Narrowed]
            },
            pods,
            ports: PortScope::All,
            message: format!(
                "the policy is in Istio's root namespace {}, where a policy applies to the workloads of every namespace: the matching Pods of other namespaces get its rules (widened) and, with no other policy, its implicit deny (narrowed)",
                options.root_namespace
            ),
        });
    }
    if baseline_deny {
        out.policies
            .push(policy(&options.root_namespace, BASELINE_DENY_NAME, &[]));
        out.report.push(Finding {
            severity: Severity::Exact,
            policy: None,
            rule: None,
            field: String::new(),
            directions: Vec::new(),
            pods: Vec::new(),
            ports: PortScope::All,
            message: format!(
                "baseline deny: an allow-nothing policy {}/{BASELINE_DENY_NAME} in the root namespace selects every workload of the mesh (ALLOW policies are ORed, so the others still allow what they match)",
                options.root_namespace
            ),
        });
    }
    out.policies.sort_by(|a, b| {
        (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name))
    });
    out.report.finish();
    out
}

/// A reference evaluator of Istio's authorization for the subset of `AuthorizationPolicy`
/// this module emits (plus `DENY`), following the evaluation order of Istio's reference
/// (<https://istio.io/latest/docs/reference/config/security/authorization-policy/>):
///
/// 1. CUSTOM policies (not modelled: the translation emits none);
/// 2. "If there are any DENY policies that match the request, deny the request."
/// 3. "If there are no ALLOW policies for the workload, allow the request."
/// 4. "If any of the ALLOW policies match the request, allow the request."
/// 5. "Deny the request."
///
/// A policy applies to a workload when it is in the workload's namespace or the root
/// namespace, and its selector (if any) matches the workload's labels. A policy without
/// rules never matches; a rule matches when one of its `from` and one of its `to` match (an
/// empty list matches); principals are matched as ztunnel's `rbac.rs` does, against the peer's
/// SPIFFE ID without `spiffe://`, with exact, prefix, suffix and presence matches.
#[doc(hidden)]
pub mod reference {
    use std::collections::BTreeMap;

    use super::{Action, AuthorizationPolicy, Rule};
    use crate::Identity;

    /// Istio's string match: `*` any non-empty value, `abc*` prefix, `*abc` suffix, else exact.
    pub fn string_matches(pattern: &str, value: &str) -> bool {
        if pattern == "*" {
            return !value.is_empty();
        }
        if let Some(prefix) = pattern.strip_suffix('*') {
            return value.starts_with(prefix);
        }
        if let Some(suffix) = pattern.strip_prefix('*') {
            return value.ends_with(suffix);
        }
        pattern == value
    }

    fn rule_matches(rule: &Rule, peer: Option<&Identity>, port: u16) -> bool {
        let principal = peer.map(Identity::istio_principal);
        let from_ok = rule.from.is_empty()
            || rule.from.iter().any(|f| {
                f.source.principals.is_empty()
                    || principal.as_deref().is_some_and(|p| {
                        f.source.principals.iter().any(|pat| string_matches(pat, p))
                    })
            });
        let to_ok = rule.to.is_empty()
            || rule.to.iter().any(|t| {
                t.operation.ports.is_empty()
                    || t.operation
                        .ports
                        .iter()
                        .any(|p| p.parse::<u16>() == Ok(port))
            });
        from_ok && to_ok
    }

    fn policy_matches(policy: &AuthorizationPolicy, peer: Option<&Identity>, port: u16) -> bool {
        policy
            .spec
            .rules
            .iter()
            .flatten()
            .any(|r| rule_matches(r, peer, port))
    }

    /// Whether `peer` (`None`: plaintext) may reach the workload in `namespace` with
    /// `labels` on `port`.
    pub fn allows(
        policies: &[AuthorizationPolicy],
        root_namespace: &str,
        namespace: &str,
        labels: &BTreeMap<String, String>,
        peer: Option<&Identity>,
        port: u16,
    ) -> bool {
        let applicable = policies.iter().filter(|p| {
            (p.metadata.namespace == namespace || p.metadata.namespace == root_namespace)
                && p.spec
                    .selector
                    .as_ref()
                    .is_none_or(|s| s.match_labels.iter().all(|(k, v)| labels.get(k) == Some(v)))
        });
        let (deny, allow): (Vec<_>, Vec<_>) =
            applicable.partition(|p| p.spec.action == Some(Action::Deny));
        if deny.iter().any(|p| policy_matches(p, peer, port)) {
            return false;
        }
        allow.is_empty() || allow.iter().any(|p| policy_matches(p, peer, port))
    }
}

#[cfg(test)]
mod tests {
    use super::reference::string_matches;

    // istio/api authorization_policy.proto: "exact match, prefix match `abc*`, suffix match
    // `*abc` and presence match `*`".
    #[test]
    fn istio_string_matches_are_exact_prefix_suffix_and_presence() {
        assert!(string_matches("td/ns/a/sa/x", "td/ns/a/sa/x"));
        assert!(!string_matches("td/ns/a/sa/x", "td/ns/a/sa/xy"));
        assert!(string_matches("td/ns/a/sa/*", "td/ns/a/sa/xy"));
        assert!(string_matches("*/sa/x", "other/ns/a/sa/x"));
        assert!(string_matches("*", "anything"));
        assert!(!string_matches("*", ""));
    }
}
