//! XAuthorizationPolicies translated into the policies of meshes that do not implement the
//! proposal: Istio `AuthorizationPolicy` ([`istio`]) and Linkerd `Server` +
//! `AuthorizationPolicy` + `MeshTLSAuthentication` ([`linkerd`]), each with a
//! [`TranslationReport`] of what does not map exactly.
//!
//! The translations read what the engine reads ([`Authorizer::build`] on the same
//! [`Snapshot`] and [`Config`](crate::Config)): the policies, compiled as the engine compiles them (so an
//! invalid policy is translated as the engine enforces it: allowing nothing), and the Pods,
//! to know which workloads each policy selects. The output is deterministic: objects in
//! (namespace, name) order, findings sorted. No I/O.
//!
//! Each translation is checked against the mesh's documented evaluation order by a small
//! reference evaluator of that mesh ([`istio::reference`], [`linkerd::reference`]) in a
//! differential property test (`tests/translate_differential.rs`): for generated policies,
//! Pods, peers and ports the engine's verdict equals the mesh's on the translated objects,
//! except where a finding of the report covers the case, in the direction it names.
//!
//! ```
//! use gamma_authz::Config;
//! use gamma_authz::translate::{istio, linkerd};
//! use gamma_model::{Snapshot, decode};
//!
//! let yaml = r#"
//! apiVersion: gateway.networking.x-k8s.io/v1alpha1
//! kind: XAuthorizationPolicy
//! metadata: {name: db, namespace: shop}
//! spec:
//!   targetRefs: [{group: '', kind: Pod, selector: {matchLabels: {app: db}}}]
//!   action: ALLOW
//!   enforcementLevel: Network
//!   rules: [{sources: [{type: ServiceAccount, serviceAccount: {name: web}}], networkAttributes: {ports: [5432]}}]
//! "#;
//! let snapshot = Snapshot::from_resources(decode(yaml).unwrap());
//! let config = Config::default();
//!
//! let t = istio::translate(&snapshot, &config, &istio::IstioOptions::default());
//! let rule = &t.policies[0].spec.rules.as_ref().unwrap()[0];
//! assert_eq!(rule.from[0].source.principals, ["cluster.local/ns/shop/sa/web"]);
//!
//! let t = linkerd::translate(&snapshot, &config, &linkerd::LinkerdOptions::default());
//! assert_eq!(t.servers[0].spec.port, 5432);
//! assert_eq!(
//!     t.authentications[0].spec.identities,
//!     ["web.shop.serviceaccount.identity.linkerd.cluster.local"]
//! );
//! ```

pub mod istio;
pub mod linkerd;

use std::collections::BTreeMap;
use std::fmt;

use gamma_model::xauthz::XAuthorizationPolicy;
use gamma_model::{ObjectKey, ResourceKind, Snapshot};
use serde::{Deserialize, Serialize};

use crate::engine::{Authorizer, PolicyId, WorkloadId};

/// The annotation every translated object carries: the XAuthorizationPolicy (or policies) it
/// was translated from, `namespace/name`, comma-separated.
pub const TRANSLATED_FROM: &str = "gamma.rs/translated-from";

/// Object metadata of a translated object: only what the translation sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Metadata {
    /// The name.
    pub name: String,
    /// The namespace.
    pub namespace: String,
    /// [`TRANSLATED_FROM`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl Metadata {
    pub(crate) fn new(namespace: &str, name: &str, from: &[&ObjectKey]) -> Self {
        let mut annotations = BTreeMap::new();
        if !from.is_empty() {
            let names: Vec<String> = from
                .iter()
                .map(|k| format!("{}/{}", k.namespace, k.name))
                .collect();
            annotations.insert(TRANSLATED_FROM.to_owned(), names.join(","));
        }
        Metadata {
            name: name.to_owned(),
            namespace: namespace.to_owned(),
            annotations,
        }
    }
}

/// How faithfully a part of a policy maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Severity {
    /// The mesh has nothing that expresses it; what was emitted instead is in the message.
    NotMappable,
    /// Emitted, with a different verdict for the cases the finding names.
    Approximated,
    /// Emitted with the same verdicts (a note on how).
    Exact,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::NotMappable => "not-mappable",
            Severity::Approximated => "approximated",
            Severity::Exact => "exact",
        })
    }
}

/// Which way a finding changes access, compared with the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The mesh allows requests the engine denies.
    Widened,
    /// The mesh denies requests the engine allows.
    Narrowed,
}

/// The ports of the Pods a finding covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "ports")]
#[non_exhaustive]
pub enum PortScope {
    /// Every port.
    All,
    /// Only these ports.
    Only(Vec<u16>),
    /// Every port except these.
    Except(Vec<u16>),
}

impl PortScope {
    /// Whether `port` is in scope.
    pub fn contains(&self, port: u16) -> bool {
        match self {
            PortScope::All => true,
            PortScope::Only(p) => p.contains(&port),
            PortScope::Except(p) => !p.contains(&port),
        }
    }
}

/// One finding: what in which source policy maps how, and which requests it changes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Finding {
    /// How faithfully it maps.
    pub severity: Severity,
    /// The source XAuthorizationPolicy; `None` for a finding about the whole translation
    /// (the baseline against the mesh's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<ObjectKey>,
    /// The rule's index in `spec.rules`, when the finding is about one rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<usize>,
    /// The field path in the source policy (`spec.targetRefs[0].selector`); empty for the
    /// whole policy.
    pub field: String,
    /// Which ways access changes (empty: it does not).
    pub directions: Vec<Direction>,
    /// The Pods whose verdicts may change, in key order.
    pub pods: Vec<ObjectKey>,
    /// Their ports that may change.
    pub ports: PortScope,
    /// What maps how, and why.
    pub message: String,
}

impl Finding {
    /// Whether this finding covers a request to `pod` on `port` changed in `direction`.
    pub fn covers(&self, pod: &ObjectKey, port: u16, direction: Direction) -> bool {
        self.directions.contains(&direction)
            && self.pods.binary_search(pod).is_ok()
            && self.ports.contains(port)
    }

    /// `targetRefs[index]` of `policy` is not a Pod target: the engine selects no workload by
    /// it, so no mesh translation emits anything for it.
    pub(crate) fn non_pod_target(policy: &ObjectKey, index: usize, kind: &str) -> Finding {
        Finding {
            severity: Severity::NotMappable,
            policy: Some(policy.clone()),
            rule: None,
            field: format!("spec.targetRefs[{index}]"),
            directions: Vec::new(),
            pods: Vec::new(),
            ports: PortScope::All,
            message: format!(
                "a {kind} target selects no workload (the engine selects only Pods by labels); nothing is emitted for it"
            ),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut subject = Vec::new();
        if let Some(p) = &self.policy {
            subject.push(p.to_string());
        }
        if let Some(r) = self.rule {
            subject.push(format!("rule {r}"));
        }
        if !self.field.is_empty() {
            subject.push(self.field.clone());
        }
        if subject.is_empty() {
            write!(f, "{}: {}", self.severity, self.message)?;
        } else {
            write!(
                f,
                "{}: {}: {}",
                self.severity,
                subject.join(" "),
                self.message
            )?;
        }
        if !self.directions.is_empty() {
            let d: Vec<&str> = self
                .directions
                .iter()
                .map(|d| match d {
                    Direction::Widened => "widened",
                    Direction::Narrowed => "narrowed",
                })
                .collect();
            let pods: Vec<String> = self
                .pods
                .iter()
                .map(|k| format!("{}/{}", k.namespace, k.name))
                .collect();
            let ports = match &self.ports {
                PortScope::All => "every port".to_owned(),
                PortScope::Only(p) => format!("port {}", join(p)),
                PortScope::Except(p) if p.is_empty() => "every port".to_owned(),
                PortScope::Except(p) => format!("every port but {}", join(p)),
            };
            write!(
                f,
                " ({} for Pod{} {} on {ports})",
                d.join(" and "),
                if pods.len() == 1 { "" } else { "s" },
                if pods.is_empty() {
                    "(none in the input)".to_owned()
                } else {
                    pods.join(", ")
                }
            )?;
        }
        Ok(())
    }
}

fn join(ports: &[u16]) -> String {
    ports
        .iter()
        .map(u16::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The findings of a translation, sorted (severity, policy, rule, field).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TranslationReport {
    findings: Vec<Finding>,
}

impl TranslationReport {
    pub(crate) fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    pub(crate) fn finish(&mut self) {
        for f in &mut self.findings {
            f.pods.sort();
            f.pods.dedup();
            f.directions.sort();
            f.directions.dedup();
        }
        self.findings.sort();
        self.findings.dedup();
    }

    /// Every finding.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Whether some finding covers a request to `pod` on `port` changed in `direction`.
    pub fn covers(&self, pod: &ObjectKey, port: u16, direction: Direction) -> bool {
        self.findings.iter().any(|f| f.covers(pod, port, direction))
    }
}

/// What the engine compiled, with the source objects beside it, for the translators.
pub(crate) struct Compiled<'a> {
    pub(crate) authorizer: Authorizer,
    /// The source policies, in the authorizer's order ([`PolicyId`] indexes both).
    pub(crate) sources: Vec<&'a XAuthorizationPolicy>,
    /// The Pods, in the authorizer's order ([`WorkloadId`] indexes both).
    pub(crate) pods: Vec<&'a gamma_model::k8s::Pod>,
}

impl<'a> Compiled<'a> {
    pub(crate) fn new(snapshot: &'a Snapshot, config: crate::Config) -> Self {
        let authorizer = Authorizer::build(snapshot, config);
        let mut sources: Vec<&XAuthorizationPolicy> = snapshot.xauthorization_policies().collect();
        sources.sort_by(|a, b| {
            (a.metadata.namespace_or_default(), &a.metadata.name)
                .cmp(&(b.metadata.namespace_or_default(), &b.metadata.name))
        });
        let mut pods: Vec<&gamma_model::k8s::Pod> = snapshot.pods().collect();
        pods.sort_by(|a, b| {
            (a.metadata.namespace_or_default(), &a.metadata.name)
                .cmp(&(b.metadata.namespace_or_default(), &b.metadata.name))
        });
        Compiled {
            authorizer,
            sources,
            pods,
        }
    }

    pub(crate) fn policy(&self, id: usize) -> Option<&crate::engine::Policy> {
        self.authorizer.policies.get(id)
    }

    pub(crate) fn policy_key(&self, id: usize) -> ObjectKey {
        self.policy(id).map_or_else(
            || ObjectKey::new(ResourceKind::XAuthorizationPolicy, "", ""),
            |p| ObjectKey::new(ResourceKind::XAuthorizationPolicy, &*p.namespace, &*p.name),
        )
    }

    /// The workloads policy `id` selects, in order.
    pub(crate) fn selected_by(&self, id: usize) -> Vec<WorkloadId> {
        self.authorizer
            .workloads()
            .filter(|w| {
                self.authorizer
                    .policies_selecting(*w)
                    .contains(&PolicyId(u32::try_from(id).unwrap_or(u32::MAX)))
            })
            .collect()
    }

    pub(crate) fn pod_key(&self, w: WorkloadId) -> ObjectKey {
        self.authorizer
            .workload_key(w)
            .unwrap_or_else(|| ObjectKey::new(ResourceKind::Pod, "", ""))
    }

    /// The workloads no policy selects.
    pub(crate) fn unselected(&self) -> Vec<WorkloadId> {
        self.authorizer
            .workloads()
            .filter(|w| self.authorizer.policies_selecting(*w).is_empty())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(directions: Vec<Direction>, ports: PortScope) -> Finding {
        Finding {
            severity: Severity::Approximated,
            policy: Some(ObjectKey::new(
                ResourceKind::XAuthorizationPolicy,
                "shop",
                "db",
            )),
            rule: Some(0),
            field: "spec.rules[0].sources".into(),
            directions,
            pods: vec![ObjectKey::new(ResourceKind::Pod, "shop", "db-0")],
            ports,
            message: "m".into(),
        }
    }

    #[test]
    fn a_finding_covers_only_its_pods_ports_and_directions() {
        let db0 = ObjectKey::new(ResourceKind::Pod, "shop", "db-0");
        let db1 = ObjectKey::new(ResourceKind::Pod, "shop", "db-1");
        let f = finding(vec![Direction::Widened], PortScope::Except(vec![5432]));
        assert!(f.covers(&db0, 80, Direction::Widened));
        assert!(!f.covers(&db0, 5432, Direction::Widened));
        assert!(!f.covers(&db0, 80, Direction::Narrowed));
        assert!(!f.covers(&db1, 80, Direction::Widened));
        let f = finding(vec![Direction::Narrowed], PortScope::Only(vec![5432]));
        assert!(f.covers(&db0, 5432, Direction::Narrowed));
        assert!(!f.covers(&db0, 80, Direction::Narrowed));
        assert!(PortScope::All.contains(1));
    }

    #[test]
    fn a_finding_names_its_policy_rule_field_and_scope() {
        let f = finding(
            vec![Direction::Widened, Direction::Narrowed],
            PortScope::Except(vec![80, 443]),
        );
        assert_eq!(
            f.to_string(),
            "approximated: XAuthorizationPolicy shop/db rule 0 spec.rules[0].sources: m \
             (widened and narrowed for Pod shop/db-0 on every port but 80, 443)"
        );
    }

    #[test]
    fn the_report_is_sorted_and_deduplicated() {
        let mut r = TranslationReport::default();
        let exact = Finding {
            severity: Severity::Exact,
            ..finding(vec![], PortScope::All)
        };
        r.push(exact.clone());
        r.push(finding(vec![Direction::Widened], PortScope::All));
        r.push(exact);
        r.finish();
        let severities: Vec<Severity> = r.findings().iter().map(|f| f.severity).collect();
        assert_eq!(severities, [Severity::Approximated, Severity::Exact]);
    }
}
