//! The explain path: the same question as [`Authorizer::decide`], answered with every policy
//! selecting the workload and, for each rule, the first criterion the request failed. Slower
//! (it allocates the explanation); the tests check that it always agrees with the fast path.

use serde::Serialize;

use crate::engine::{Authorizer, Criterion, Decision, PolicyId, Reason, Verdict, WorkloadId};
use crate::identity::{Baseline, Identity};

/// The policy and rule that allowed a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AllowedBy {
    /// The policy.
    pub policy: gamma_model::ObjectKey,
    /// The rule's index in `spec.rules`.
    pub rule: usize,
}

/// One rule's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleOutcome {
    /// The rule's index in `spec.rules`.
    pub rule: usize,
    /// The first criterion the request failed; `None` when the rule matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<Criterion>,
}

/// One selecting policy's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyOutcome {
    /// The policy.
    pub policy: gamma_model::ObjectKey,
    /// Whether it has no rule that can match: `spec.rules` omitted or empty, or the policy is
    /// invalid (it then allows nothing).
    pub allows_nothing: bool,
    /// Whether the policy failed validation.
    pub invalid: bool,
    /// Every rule, in order.
    pub rules: Vec<RuleOutcome>,
}

/// A decision with its full reasoning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    /// Allow or deny.
    pub verdict: Verdict,
    /// The workload.
    pub workload: gamma_model::ObjectKey,
    /// The port.
    pub port: u16,
    /// The peer (`None`: unauthenticated).
    pub peer: Option<Identity>,
    /// The policy and rule that allowed the request, if any (the first, as the fast path
    /// reports it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_by: Option<AllowedBy>,
    /// The baseline applied when no policy selects the workload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
    /// Every policy selecting the workload, in (namespace, name) order.
    pub policies: Vec<PolicyOutcome>,
}

impl Explanation {
    /// The reason in one line, for people.
    pub fn reason(&self) -> String {
        if let Some(b) = self.baseline {
            return format!(
                "no XAuthorizationPolicy selects Pod {}/{}: the baseline ({}) applies",
                self.workload.namespace,
                self.workload.name,
                match b {
                    Baseline::Allow => "allow",
                    Baseline::Deny => "deny",
                }
            );
        }
        if let Some(AllowedBy { policy: p, rule }) = &self.allowed_by {
            return format!(
                "allowed by XAuthorizationPolicy {}/{} rule {rule}",
                p.namespace, p.name
            );
        }
        let mut parts = Vec::new();
        for p in &self.policies {
            if p.allows_nothing {
                parts.push(format!(
                    "{}/{}: {}",
                    p.policy.namespace,
                    p.policy.name,
                    if p.invalid {
                        "invalid (allows nothing)"
                    } else {
                        "no rules (allows nothing)"
                    }
                ));
            }
            for r in &p.rules {
                if let Some(c) = r.failed {
                    parts.push(format!(
                        "{}/{} rule {}: {}",
                        p.policy.namespace,
                        p.policy.name,
                        r.rule,
                        c.describe()
                    ));
                }
            }
        }
        format!(
            "{} XAuthorizationPolicies select Pod {}/{} and no rule matched: {}",
            self.policies.len(),
            self.workload.namespace,
            self.workload.name,
            parts.join("; ")
        )
    }
}

impl Authorizer {
    /// Explains the decision for `peer` reaching `workload` on `port`: the same verdict as
    /// [`Authorizer::decide`], with every selecting policy and each rule's first failing
    /// criterion.
    pub fn explain(&self, peer: Option<&Identity>, workload: WorkloadId, port: u16) -> Explanation {
        let key = self
            .workload_key(workload)
            .unwrap_or_else(|| gamma_model::ObjectKey::new(gamma_model::ResourceKind::Pod, "", ""));
        let mut policies = Vec::new();
        let mut allowed_by = None;
        for &pid in self.policies_selecting(workload) {
            let Some(p) = self.policies.get(pid.0 as usize) else {
                continue;
            };
            let mut rules = Vec::with_capacity(p.rules.len());
            for (i, r) in p.rules.iter().enumerate() {
                let failed = r.failure(peer, port, &self.config);
                if failed.is_none() && allowed_by.is_none() {
                    allowed_by = self
                        .policy_key(pid)
                        .map(|policy| AllowedBy { policy, rule: i });
                }
                rules.push(RuleOutcome { rule: i, failed });
            }
            policies.push(PolicyOutcome {
                policy: self.policy_key(pid).unwrap_or_else(|| key.clone()),
                allows_nothing: p.rules.is_empty(),
                invalid: p.invalid,
                rules,
            });
        }
        let baseline = policies.is_empty().then_some(self.config.baseline);
        let verdict = match (baseline, &allowed_by) {
            (Some(Baseline::Allow), _) | (None, Some(_)) => Verdict::Allow,
            _ => Verdict::Deny,
        };
        Explanation {
            verdict,
            workload: key,
            port,
            peer: peer.cloned(),
            allowed_by,
            baseline,
            policies,
        }
    }

    /// The policy key and rule of a fast-path [`Reason::AllowedBy`].
    pub fn allowed_by(&self, decision: &Decision) -> Option<AllowedBy> {
        match decision.reason {
            Reason::AllowedBy { policy, rule } => self
                .policy_key(policy)
                .map(|policy| AllowedBy { policy, rule }),
            _ => None,
        }
    }

    /// Whether `policy` omits `spec.rules` (as opposed to giving an empty list).
    pub fn rules_omitted(&self, policy: PolicyId) -> bool {
        self.policies
            .get(policy.0 as usize)
            .is_some_and(|p| p.rules_omitted)
    }
}
