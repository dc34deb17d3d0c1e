//! SMI TrafficTargets as the proposed Gateway API AuthorizationPolicy (GEP-3779), modelled as
//! [`XAuthorizationPolicy`] in gamma-model: [`convert_traffic_targets`].
//!
//! The policy is L4 only (GEP-3779 `enforcementLevel: Network`: sources and ports), so the
//! conversion says, per TrafficTarget, whether the policy allows **more** than gamma-smi's
//! [`Authorizer`](crate::Authorizer) did ([`Severity::Widened`]), **less**
//! ([`Severity::Narrowed`]) or the same ([`Severity::Equal`]). Widened findings come first in
//! the report: they are security facts.
//!
//! The mapping (`docs/authorization.md`, "Migrating from SMI"):
//!
//! - **Destination.** GEP-3779 has no ServiceAccount target: a policy selects Pods by label,
//!   in its own namespace. The policy goes to the destination's namespace and selects the
//!   labels that **every Pod of the destination ServiceAccount in the input** carries. No such
//!   Pod: no policy (widened: the Pods stay unrestricted). The selector also selecting Pods of
//!   other ServiceAccounts: narrowed for them (and widened where another TrafficTarget already
//!   protects them, since policies are ORed). *(decision)*
//! - **Sources.** ServiceAccount sources become ServiceAccount sources with their namespace
//!   written out (SMI's default is the TrafficTarget's namespace, GEP-3779's the policy's).
//! - **Rules.** TCPRoute ports become `networkAttributes.ports`; v1alpha1/v1alpha2
//!   `destination.port` restricts them. HTTPRouteGroup matches (paths, methods, headers) are
//!   **dropped**: widened to every request on the ports. A target with HTTPRouteGroup rules
//!   and no TCPRoute rule is widened to all TCP traffic on every port. UDPRoute rules have no
//!   equivalent (the GEP covers TCP): narrowed.
//! - A TrafficTarget admitting nothing (no rule, no source, only missing references) becomes a
//!   policy with no rule, which allows nothing (GEP-3779: a request is allowed "if and only if
//!   it matches at least one rule").
//!
//! Pure: no I/O.

use std::collections::{BTreeMap, BTreeSet};

use gamma_model::gateway::LabelSelector;
use gamma_model::smi::{HttpMatch, RuleKind, SERVICE_ACCOUNT, TrafficTarget};
use gamma_model::xauthz::{
    AuthorizationAction, AuthorizationNetworkAttributes, AuthorizationPolicySpec,
    AuthorizationRule, AuthorizationSource, AuthorizationTargetReference, EnforcementLevel,
    XAuthorizationPolicy,
};
use gamma_model::{ObjectKey, ResourceKind, Snapshot, Validate};

use crate::convert::SOURCE_ANNOTATION;
use crate::matching::CompiledMatch;
use crate::report::{Report, Severity};

/// The annotation each converted policy carries with the access it gives compared with its
/// TrafficTarget: `widened`, `narrowed`, `widened,narrowed` or `equal`.
pub const ACCESS_ANNOTATION: &str = "gamma.rs/smi-access";

/// The result of [`convert_traffic_targets`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PolicyConversion {
    /// One policy per TrafficTarget that selects Pods, in TrafficTarget (namespace, name)
    /// order.
    pub policies: Vec<XAuthorizationPolicy>,
    /// What changed, widened findings first, then narrowed, then the rest in TrafficTarget
    /// order.
    pub report: Report,
}

/// Converts every TrafficTarget of `snapshot` to an [`XAuthorizationPolicy`], selecting the
/// destination's Pods among the snapshot's Pods (module docs).
///
/// ```
/// use gamma_model::{Snapshot, decode};
/// use gamma_smi::Severity;
/// let snap = Snapshot::from_resources(decode(r#"
/// apiVersion: v1
/// kind: Pod
/// metadata: {name: db-0, namespace: shop, labels: {app: db}}
/// spec: {serviceAccountName: db}
/// ---
/// apiVersion: specs.smi-spec.io/v1alpha4
/// kind: TCPRoute
/// metadata: {name: sql, namespace: shop}
/// spec: {matches: {ports: [5432]}}
/// ---
/// apiVersion: access.smi-spec.io/v1alpha3
/// kind: TrafficTarget
/// metadata: {name: db, namespace: shop}
/// spec:
///   destination: {kind: ServiceAccount, name: db, namespace: shop}
///   rules: [{kind: TCPRoute, name: sql}]
///   sources: [{kind: ServiceAccount, name: web}]
/// "#).unwrap());
/// let out = gamma_smi::gep::convert_traffic_targets(&snap);
/// let spec = &out.policies[0].spec;
/// assert_eq!(spec.target_refs[0].selector.as_ref().unwrap().match_labels["app"], "db");
/// let rule = &spec.rules.as_ref().unwrap()[0];
/// assert_eq!(rule.network_attributes.as_ref().unwrap().ports, [5432]);
/// assert!(out.report.findings().iter().any(|f| f.severity == Severity::Equal));
/// ```
pub fn convert_traffic_targets(snapshot: &Snapshot) -> PolicyConversion {
    // The ServiceAccounts some TrafficTarget protects (to tell whether an over-broad selector
    // widens another destination's access).
    let protected: BTreeSet<(String, String)> = snapshot
        .traffic_targets()
        .filter_map(|tt| {
            let ns = tt.metadata.namespace_or_default();
            tt.destination()
                .filter(|d| d.kind == SERVICE_ACCOUNT)
                .map(|d| (d.namespace_or(ns).to_owned(), d.name.clone()))
        })
        .collect();
    let mut out = PolicyConversion::default();
    let mut names: BTreeSet<(String, String)> = BTreeSet::new();
    for tt in snapshot.traffic_targets() {
        convert_one(snapshot, tt, &protected, &mut names, &mut out);
    }
    out.report.sort_by_severity_rank(|s| match s {
        Severity::Widened => 0,
        Severity::Narrowed => 1,
        _ => 2,
    });
    out
}

/// What one TrafficTarget admits at L4, as gamma-smi's evaluator reads it.
struct L4 {
    /// Whether some rule admits some request.
    admits: bool,
    /// The ports (`None`: every port).
    ports: Option<BTreeSet<i32>>,
}

fn describe_match(m: &HttpMatch) -> String {
    let mut parts = Vec::new();
    if !m.any_method() {
        let methods: Vec<&str> = m.methods.iter().map(|x| x.as_str()).collect();
        parts.push(format!("methods {}", methods.join(",")));
    }
    if let Some(p) = &m.path_regex {
        parts.push(format!("pathRegex {p:?}"));
    }
    for h in m.headers.iter() {
        parts.push(format!("header {}: {:?}", h.name, h.value));
    }
    parts.join(", ")
}

/// Whether an SMI match admits every HTTP request (nothing is lost by dropping it).
fn admits_everything(m: &HttpMatch) -> bool {
    m.any_method()
        && m.headers.is_empty()
        && m.path_regex
            .as_deref()
            .is_none_or(|p| matches!(p, "" | ".*" | "/.*"))
}

fn convert_one(
    snapshot: &Snapshot,
    tt: &TrafficTarget,
    protected: &BTreeSet<(String, String)>,
    names: &mut BTreeSet<(String, String)>,
    out: &mut PolicyConversion,
) {
    let ns = tt.metadata.namespace_or_default();
    let me = ObjectKey::new(ResourceKind::TrafficTarget, ns, &tt.metadata.name);
    let report = &mut out.report;
    let before = report.findings().len();
    if let Err(errors) = tt.validate() {
        for e in errors {
            report.push(
                Severity::Note,
                &me,
                e.path.as_str(),
                format!(
                    "{} (converted leniently, as gamma-smi evaluates it)",
                    e.kind
                ),
            );
        }
    }
    let spec_field = if tt.spec.is_some() { "spec." } else { "" };
    let Some(dest) = tt.destination() else {
        report.push(
            Severity::Equal,
            &me,
            "",
            "no destination: it selects nothing, so no policy is needed",
        );
        return;
    };
    if dest.kind != SERVICE_ACCOUNT {
        report.push(
            Severity::Equal,
            &me,
            format!("{spec_field}destination.kind"),
            format!(
                "destination kind {:?} is not ServiceAccount: it selects nothing, so no policy \
                 is needed",
                dest.kind
            ),
        );
        return;
    }
    let dest_ns = dest.namespace_or(ns);
    let dest_sa = dest.name.as_str();

    // Sources: ServiceAccounts with their namespace written out.
    let mut sources: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (i, s) in tt.sources().iter().enumerate() {
        if s.kind == SERVICE_ACCOUNT {
            sources.insert((s.namespace_or(ns), s.name.as_str()));
        } else {
            report.push(
                Severity::Note,
                &me,
                format!("{spec_field}sources[{i}].kind"),
                format!(
                    "source kind {:?} is not ServiceAccount: ignored, as gamma-smi's evaluator \
                     ignores it",
                    s.kind
                ),
            );
        }
    }

    // Rules, as the evaluator compiles them.
    let rules_field = if tt.spec.is_some() {
        "spec.rules"
    } else {
        "specs"
    };
    let mut http_admits = false;
    let mut tcp: Vec<Option<BTreeSet<i32>>> = Vec::new();
    let mut widened_matches: Vec<(String, String)> = Vec::new();
    for (i, rule) in tt.rules().iter().enumerate() {
        let field = format!("{rules_field}[{i}]");
        match &rule.kind {
            RuleKind::HttpRouteGroup => {
                let Some(group) = snapshot.http_route_group(ns, &rule.name) else {
                    report.push(
                        Severity::Note,
                        &me,
                        field,
                        format!(
                            "HTTPRouteGroup {ns}/{} not found: the rule admits nothing, in the \
                             policy as in SMI",
                            rule.name
                        ),
                    );
                    continue;
                };
                let wanted: Vec<&str> = if rule.matches.is_empty() {
                    group.matches().iter().map(|m| m.name.as_str()).collect()
                } else {
                    rule.matches.iter().map(String::as_str).collect()
                };
                for name in wanted {
                    let Some(m) = group.match_named(name) else {
                        continue;
                    };
                    if CompiledMatch::compile(m).is_err() {
                        continue;
                    }
                    http_admits = true;
                    if !admits_everything(m) {
                        widened_matches.push((
                            format!("{field}.matches"),
                            format!(
                                "HTTPRouteGroup {ns}/{} match {name:?} ({}) is DROPPED \
                                 (GEP-3779 has no L7 rules): the policy lets the sources send \
                                 any request, not only those the match admits",
                                rule.name,
                                describe_match(m)
                            ),
                        ));
                    }
                }
            }
            RuleKind::TcpRoute => match snapshot.smi_tcp_route(ns, &rule.name) {
                Some(r) => {
                    tcp.push((!r.ports().is_empty()).then(|| r.ports().iter().copied().collect()))
                }
                None => report.push(
                    Severity::Note,
                    &me,
                    field,
                    format!(
                        "TCPRoute {ns}/{} not found: the rule admits nothing, in the policy as \
                         in SMI",
                        rule.name
                    ),
                ),
            },
            RuleKind::UdpRoute => match snapshot.smi_udp_route(ns, &rule.name) {
                Some(r) => report.push(
                    Severity::Narrowed,
                    &me,
                    field,
                    format!(
                        "UDPRoute {ns}/{} ({}) has no equivalent (GEP-3779 rules are TCP-level): \
                         the policy does not allow the UDP traffic SMI allowed",
                        rule.name,
                        if r.ports().is_empty() {
                            "every port".to_owned()
                        } else {
                            format!("ports {:?}", r.ports())
                        }
                    ),
                ),
                None => report.push(
                    Severity::Note,
                    &me,
                    field,
                    format!(
                        "UDPRoute {ns}/{} not found: the rule admits nothing",
                        rule.name
                    ),
                ),
            },
            RuleKind::Unknown(k) => report.push(
                Severity::Note,
                &me,
                format!("{field}.kind"),
                format!(
                    "unknown rule kind {k:?}: the rule admits nothing, in the policy as in SMI"
                ),
            ),
        }
    }
    let mut l4 = if !tcp.is_empty() {
        // HTTP needs a TCPRoute port too: the TCPRoute ports bound everything.
        let mut union = Some(BTreeSet::new());
        for t in &tcp {
            match (t, &mut union) {
                (None, _) => union = None,
                (Some(ports), Some(u)) => u.extend(ports.iter().copied()),
                (Some(_), None) => {}
            }
        }
        L4 {
            admits: true,
            ports: union,
        }
    } else if http_admits {
        widened_matches.push((
            rules_field.to_owned(),
            "no TCPRoute rule: SMI allowed the sources only HTTP requests its HTTPRouteGroups \
             admit; the policy allows them any TCP traffic (on every port, or on destination.port \
             when set)"
                .to_owned(),
        ));
        L4 {
            admits: true,
            ports: None,
        }
    } else {
        L4 {
            admits: false,
            ports: None,
        }
    };
    if let Some(p) = dest.port {
        l4.ports = Some(match l4.ports {
            None => BTreeSet::from([p]),
            Some(set) => set.into_iter().filter(|q| *q == p).collect(),
        });
    }
    if let Some(set) = &mut l4.ports {
        // A port outside 1-65535 matches no request.
        set.retain(|p| (1..=65535).contains(p));
        if set.is_empty() {
            l4.admits = false;
        }
    }
    // Pods of the destination ServiceAccount, and the labels they all carry.
    let in_ns: Vec<&gamma_model::k8s::Pod> = snapshot
        .pods()
        .filter(|p| p.metadata.namespace_or_default() == dest_ns)
        .collect();
    let mine: Vec<&&gamma_model::k8s::Pod> = in_ns
        .iter()
        .filter(|p| p.service_account() == dest_sa)
        .collect();
    let Some((first, rest)) = mine.split_first() else {
        report.push(
            Severity::Widened,
            &me,
            format!("{spec_field}destination"),
            format!(
                "no Pod of ServiceAccount {dest_ns}/{dest_sa} in the input, and GEP-3779 can only \
                 select Pods by label: no policy is emitted, so its Pods stay open to every \
                 source (add the Pods to the input to convert it)"
            ),
        );
        return;
    };
    // What the rules lose, once there is a policy to lose it in (without Pods, the finding
    // above says more: no policy at all).
    for (field, message) in widened_matches {
        report.push(Severity::Widened, &me, field, message);
    }
    let mut common: BTreeMap<String, String> = first.metadata.labels.clone();
    for p in rest {
        common.retain(|k, v| p.metadata.labels.get(k) == Some(v));
    }
    let selector = LabelSelector {
        match_labels: common,
        ..LabelSelector::default()
    };
    let pod_names = |pods: &[&&gamma_model::k8s::Pod]| -> String {
        pods.iter()
            .map(|p| format!("{dest_ns}/{}", p.metadata.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let labels = if selector.match_labels.is_empty() {
        "{} (every Pod of the namespace: they share no label)".to_owned()
    } else {
        selector
            .match_labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    report.push(
        Severity::Note,
        &me,
        format!("{spec_field}destination"),
        format!(
            "GEP-3779 has no ServiceAccount target: the policy selects Pods by the labels every \
             Pod of ServiceAccount {dest_ns}/{dest_sa} in the input carries, {labels} ({}); a \
             Pod with other labels is not selected",
            pod_names(&mine)
        ),
    );
    let others: Vec<&&gamma_model::k8s::Pod> = in_ns
        .iter()
        .filter(|p| p.service_account() != dest_sa)
        .filter(|p| selector.matches(&p.metadata.labels).unwrap_or(false))
        .collect();
    if !others.is_empty() {
        report.push(
            Severity::Narrowed,
            &me,
            format!("{spec_field}destination"),
            format!(
                "the selector also selects Pods of other ServiceAccounts ({}): only this \
                 policy's sources may reach them unless another policy allows it",
                pod_names(&others)
            ),
        );
        let widened: Vec<&&gamma_model::k8s::Pod> = others
            .iter()
            .copied()
            .filter(|p| protected.contains(&(dest_ns.to_owned(), p.service_account().to_owned())))
            .collect();
        if !widened.is_empty() {
            report.push(
                Severity::Widened,
                &me,
                format!("{spec_field}destination"),
                format!(
                    "the selector also selects Pods another TrafficTarget protects ({}): policies \
                     are ORed, so this policy's sources may reach them too",
                    pod_names(&widened)
                ),
            );
        }
    }

    // The policy.
    let rules = if !l4.admits || sources.is_empty() {
        report.push(
            Severity::Note,
            &me,
            rules_field,
            if sources.is_empty() {
                "no ServiceAccount source: the policy has no rule, so it allows nothing (as SMI \
                 did for this target)"
            } else {
                "no rule admits any TCP traffic: the policy has no rule, so it allows nothing (as \
                 SMI did for this target)"
            },
        );
        Vec::new()
    } else {
        vec![AuthorizationRule {
            sources: Some(
                sources
                    .iter()
                    .map(|(sns, name)| AuthorizationSource::service_account(Some(sns), name))
                    .collect(),
            ),
            network_attributes: l4.ports.map(|ports| AuthorizationNetworkAttributes {
                ports: ports.into_iter().collect(),
            }),
        }]
    };
    if dest_ns != ns {
        report.push(
            Severity::Note,
            &me,
            format!("{spec_field}destination.namespace"),
            format!(
                "the policy is in the destination's namespace {dest_ns} (GEP-3779: a policy only \
                 targets objects in its namespace), not in {ns}"
            ),
        );
    }
    let base = if dest_ns == ns {
        tt.metadata.name.clone()
    } else {
        format!("{ns}.{}", tt.metadata.name)
    };
    let mut name = base.clone();
    let mut n = 2;
    while !names.insert((dest_ns.to_owned(), name.clone())) {
        name = format!("{base}-{n}");
        n += 1;
    }
    let mut policy = XAuthorizationPolicy::new(
        dest_ns,
        name,
        AuthorizationPolicySpec {
            target_refs: vec![AuthorizationTargetReference::pods(selector)],
            action: Some(AuthorizationAction::Allow),
            rules: Some(rules),
            enforcement_level: Some(EnforcementLevel::Network),
        },
    );
    let mine_findings = report.findings().get(before..).unwrap_or(&[]);
    let widened = mine_findings
        .iter()
        .any(|f| f.severity == Severity::Widened);
    let narrowed = mine_findings
        .iter()
        .any(|f| f.severity == Severity::Narrowed);
    let access = match (widened, narrowed) {
        (true, true) => "widened,narrowed",
        (true, false) => "widened",
        (false, true) => "narrowed",
        (false, false) => "equal",
    };
    if access == "equal" {
        report.push(
            Severity::Equal,
            &me,
            "",
            format!(
                "converted to XAuthorizationPolicy {dest_ns}/{} with the same access",
                policy.metadata.name
            ),
        );
    }
    policy
        .metadata
        .annotations
        .insert(SOURCE_ANNOTATION.into(), me.to_string());
    policy
        .metadata
        .annotations
        .insert(ACCESS_ANNOTATION.into(), access.into());
    out.policies.push(policy);
}
