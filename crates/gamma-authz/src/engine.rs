//! The compiled engine: policies and workloads indexed once, then a decision per request that
//! allocates nothing and reads only the policies selecting the destination workload.
//!
//! The build matches every Pod-targeting policy's selector against the Pods of the policy's
//! namespace (GEP-3779: "a policy will only ever target objects within its namespace") and
//! keeps, per workload, the sorted list of policies that select it. A decision is then a walk
//! of that list: its cost depends on the policies that select the workload, never on those
//! that do not (`benches/README.md`, "Authorization").

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::net::IpAddr;

use gamma_model::xauthz::{
    AuthorizationAction, AuthorizationSourceType, EnforcementLevel, SpiffeId, XAuthorizationPolicy,
};
use gamma_model::{ObjectKey, ResourceKind, Snapshot, Validate};
use serde::Serialize;

use crate::identity::{Baseline, Config, Identity, Subject};
use crate::report::{Finding, Report};

/// The index of a policy in an [`Authorizer`] (policies are sorted by namespace and name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct PolicyId(pub(crate) u32);

/// The index of a workload (a Pod) in an [`Authorizer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct WorkloadId(pub(crate) u32);

/// Allow or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The request is allowed.
    Allow,
    /// The request is denied.
    Deny,
}

/// Why a request got its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reason {
    /// No policy selects the workload: the baseline applies.
    NoPolicy(Baseline),
    /// Rule `rule` (0-based) of `policy` matched; the first such, in (namespace, name, rule)
    /// order.
    AllowedBy {
        /// The policy.
        policy: PolicyId,
        /// The rule's index in `spec.rules`.
        rule: usize,
    },
    /// Policies select the workload and no rule of any of them matched (GEP-3779: "A request
    /// is allowed if and only if it matches at least one rule in any ALLOW policy targeting
    /// the workload"); [`Authorizer::explain`] says why each rule failed.
    NoRuleMatched,
}

/// A verdict and its reason; `Copy`, made without allocating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Decision {
    /// Allow or deny.
    pub verdict: Verdict,
    /// Why.
    pub reason: Reason,
}

impl Decision {
    /// Whether the request is allowed.
    pub fn allowed(&self) -> bool {
        self.verdict == Verdict::Allow
    }
}

/// A source of a compiled rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// A ServiceAccount in the configured trust domain; `name` `None` is `*`.
    ServiceAccount {
        namespace: Box<str>,
        name: Option<Box<str>>,
    },
    /// A SPIFFE ID, as an identity.
    Spiffe(Identity),
}

/// A compiled rule: `sources` `None` is any source, `Some([])` none; `ports` empty is every
/// port, otherwise sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) sources: Option<Vec<Source>>,
    pub(crate) ports: Vec<u16>,
}

/// A compiled policy.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    pub(crate) namespace: Box<str>,
    pub(crate) name: Box<str>,
    /// Its rules; empty when the policy has none, or is invalid (it then allows nothing).
    pub(crate) rules: Vec<Rule>,
    /// Whether validation refused the policy (its rules are dropped: fail closed).
    pub(crate) invalid: bool,
    /// Whether `spec.rules` was omitted (as opposed to given).
    pub(crate) rules_omitted: bool,
    /// Why the policy is invalid (the validation errors), if it is.
    pub(crate) invalid_message: Option<String>,
    /// The number of workloads the policy selects.
    pub(crate) selected: usize,
    /// A target the engine cannot select by, or a selector it cannot evaluate.
    pub(crate) target_problem: Option<String>,
}

/// A workload: one Pod.
#[derive(Debug, Clone)]
pub(crate) struct Workload {
    pub(crate) namespace: Box<str>,
    pub(crate) name: Box<str>,
    pub(crate) service_account: Box<str>,
}

/// The first criterion of a rule a request failed, in the order the engine checks them:
/// sources (namespace, then name, then trust domain), then port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Criterion {
    /// `sources: []`: the rule matches no source.
    EmptySources,
    /// The peer has no identity, and the rule lists sources (or unauthenticated peers are not
    /// "any source", [`Config::unauthenticated_is_any_source`]).
    Unauthenticated,
    /// No source is in the peer's namespace.
    Namespace,
    /// A source is in the peer's namespace but none names the peer (ServiceAccount name or
    /// SPIFFE path).
    Source,
    /// A source names the peer's ServiceAccount, but in another trust domain.
    TrustDomain,
    /// The sources match, the port is not listed.
    Port,
}

impl Criterion {
    /// A short phrase for people.
    pub fn describe(&self) -> &'static str {
        match self {
            Criterion::EmptySources => "sources is empty (matches no source)",
            Criterion::Unauthenticated => "the peer is unauthenticated",
            Criterion::Namespace => "no source is in the peer's namespace",
            Criterion::Source => "no source names the peer",
            Criterion::TrustDomain => "the peer is in another trust domain",
            Criterion::Port => "the port is not listed",
        }
    }
}

/// How far a source got before failing: higher is closer to a match.
fn source_failure(source: &Source, peer: &Identity, config: &Config) -> Option<Criterion> {
    match (source, peer.subject()) {
        (
            Source::ServiceAccount { namespace, name },
            Subject::ServiceAccount {
                namespace: pn,
                name: pname,
            },
        ) => {
            if **namespace != **pn {
                Some(Criterion::Namespace)
            } else if name.as_deref().is_some_and(|n| n != pname) {
                Some(Criterion::Source)
            } else if peer.trust_domain() != config.trust_domain {
                Some(Criterion::TrustDomain)
            } else {
                None
            }
        }
        (Source::ServiceAccount { .. }, Subject::Path(_)) => Some(Criterion::Source),
        (Source::Spiffe(id), _) => {
            match (id.subject(), peer.subject()) {
                (
                    Subject::ServiceAccount { namespace, name },
                    Subject::ServiceAccount {
                        namespace: pn,
                        name: pname,
                    },
                ) => {
                    if namespace != pn {
                        return Some(Criterion::Namespace);
                    }
                    if name != pname {
                        return Some(Criterion::Source);
                    }
                }
                (Subject::Path(a), Subject::Path(b)) if a == b => {}
                _ => return Some(Criterion::Source),
            }
            (id.trust_domain() != peer.trust_domain()).then_some(Criterion::TrustDomain)
        }
    }
}

/// Whether `source` admits `peer` (the fast path: no criterion, no allocation).
#[inline]
fn source_matches(source: &Source, peer: &Identity, config: &Config) -> bool {
    match (source, peer.subject()) {
        (
            Source::ServiceAccount { namespace, name },
            Subject::ServiceAccount {
                namespace: pn,
                name: pname,
            },
        ) => {
            **namespace == **pn
                && name.as_deref().is_none_or(|n| n == pname)
                && peer.trust_domain() == config.trust_domain
        }
        (Source::ServiceAccount { .. }, Subject::Path(_)) => false,
        (Source::Spiffe(id), _) => id == peer,
    }
}

impl Rule {
    /// Whether the rule admits `peer` on `port` (fast path).
    #[inline]
    pub(crate) fn matches(&self, peer: Option<&Identity>, port: u16, config: &Config) -> bool {
        let sources_ok = match (&self.sources, peer) {
            (None, None) => config.unauthenticated_is_any_source,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(list), Some(p)) => list.iter().any(|s| source_matches(s, p, config)),
        };
        sources_ok && (self.ports.is_empty() || self.ports.binary_search(&port).is_ok())
    }

    /// The first criterion `peer` on `port` fails, or `None` when the rule matches.
    pub(crate) fn failure(
        &self,
        peer: Option<&Identity>,
        port: u16,
        config: &Config,
    ) -> Option<Criterion> {
        match (&self.sources, peer) {
            (Some(list), _) if list.is_empty() => return Some(Criterion::EmptySources),
            (None, None) if !config.unauthenticated_is_any_source => {
                return Some(Criterion::Unauthenticated);
            }
            (Some(_), None) => return Some(Criterion::Unauthenticated),
            (Some(list), Some(p)) => {
                let mut closest: Option<Criterion> = None;
                for s in list {
                    match source_failure(s, p, config) {
                        None => {
                            closest = None;
                            break;
                        }
                        Some(c) => closest = Some(closest.map_or(c, |old| old.max(c))),
                    }
                }
                if let Some(c) = closest {
                    return Some(c);
                }
            }
            (None, _) => {}
        }
        (!self.ports.is_empty() && self.ports.binary_search(&port).is_err())
            .then_some(Criterion::Port)
    }
}

/// XAuthorizationPolicies and Pods compiled for decisions.
#[derive(Debug, Clone)]
pub struct Authorizer {
    pub(crate) config: Config,
    pub(crate) policies: Vec<Policy>,
    pub(crate) workloads: Vec<Workload>,
    /// Per workload, the policies selecting it, sorted (an offset table into `selected`).
    pub(crate) selected_offsets: Vec<u32>,
    pub(crate) selected: Vec<PolicyId>,
    pub(crate) by_ip: HashMap<IpAddr, WorkloadId>,
    pub(crate) report: Report,
}

fn compile_rule(
    rule: &gamma_model::xauthz::AuthorizationRule,
    policy_ns: &str,
) -> Result<Rule, String> {
    let sources = match &rule.sources {
        None => None,
        Some(list) => {
            let mut out = Vec::with_capacity(list.len());
            for s in list {
                match s.type_ {
                    Some(AuthorizationSourceType::ServiceAccount) => {
                        let sa = s
                            .service_account
                            .as_ref()
                            .ok_or("serviceAccount is missing")?;
                        out.push(Source::ServiceAccount {
                            // "If not specified, current namespace (the namespace of the
                            // policy) is used."
                            namespace: sa.namespace.as_deref().unwrap_or(policy_ns).into(),
                            name: (sa.name != "*").then(|| sa.name.as_str().into()),
                        });
                    }
                    Some(AuthorizationSourceType::Spiffe) => {
                        let text = s.spiffe.as_deref().ok_or("spiffe is missing")?;
                        let id = SpiffeId::parse(text).map_err(|e| e.to_string())?;
                        out.push(Source::Spiffe(Identity::from_spiffe(id)));
                    }
                    _ => return Err("unsupported source type".into()),
                }
            }
            Some(out)
        }
    };
    let mut ports: Vec<u16> = Vec::new();
    for p in rule.network_attributes.iter().flat_map(|a| &a.ports) {
        ports.push(u16::try_from(*p).map_err(|_| format!("port {p} is out of range"))?);
    }
    ports.sort_unstable();
    ports.dedup();
    Ok(Rule { sources, ports })
}

impl Authorizer {
    /// Compiles the snapshot's XAuthorizationPolicies and Pods. Problems (an invalid policy, a
    /// target kind the engine cannot select by, a bad selector) are in [`Authorizer::report`].
    ///
    /// An invalid policy still selects the workloads its valid Pod selector selects, with no
    /// rule (it allows nothing: failing closed, since ignoring it could turn a denied workload
    /// into one no policy selects).
    pub fn build(snapshot: &Snapshot, config: Config) -> Authorizer {
        let mut report = Report::default();
        let mut pods: Vec<&gamma_model::k8s::Pod> = snapshot.pods().collect();
        pods.sort_by(|a, b| {
            (a.metadata.namespace_or_default(), &a.metadata.name)
                .cmp(&(b.metadata.namespace_or_default(), &b.metadata.name))
        });
        let mut workloads = Vec::with_capacity(pods.len());
        let mut by_ip = HashMap::new();
        let mut by_ns: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for (i, pod) in pods.iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            let ns = pod.metadata.namespace_or_default();
            workloads.push(Workload {
                namespace: ns.into(),
                name: pod.metadata.name.as_str().into(),
                service_account: pod.service_account().into(),
            });
            by_ns.entry(ns).or_default().push(id);
            for ip in pod.ips() {
                match ip.parse::<IpAddr>() {
                    Ok(addr) => {
                        if let Some(other) = by_ip.insert(addr, WorkloadId(id)) {
                            report.push(Finding::new(
                                ObjectKey::new(ResourceKind::Pod, ns, &pod.metadata.name),
                                format!(
                                    "IP {addr} is also the IP of Pod {}; the later in name order is used",
                                    workloads
                                        .get(other.0 as usize)
                                        .map_or(String::new(), |w: &Workload| format!("{}/{}", w.namespace, w.name))
                                ),
                            ));
                        }
                    }
                    Err(_) => report.push(Finding::new(
                        ObjectKey::new(ResourceKind::Pod, ns, &pod.metadata.name),
                        format!("IP {ip:?} is not an IP address"),
                    )),
                }
            }
        }

        let mut sources: Vec<&XAuthorizationPolicy> = snapshot.xauthorization_policies().collect();
        sources.sort_by(|a, b| {
            (a.metadata.namespace_or_default(), &a.metadata.name)
                .cmp(&(b.metadata.namespace_or_default(), &b.metadata.name))
        });
        let mut policies = Vec::with_capacity(sources.len());
        let mut pairs: Vec<(u32, PolicyId)> = Vec::new();
        for (pi, p) in sources.iter().enumerate() {
            let pid = PolicyId(u32::try_from(pi).unwrap_or(u32::MAX));
            let ns = p.metadata.namespace_or_default();
            let key = ObjectKey::new(ResourceKind::XAuthorizationPolicy, ns, &p.metadata.name);
            let mut invalid = false;
            let mut invalid_message = None;
            let mut target_problem = None;
            let selected_before = pairs.len();
            if let Err(errors) = p.validate() {
                invalid = true;
                invalid_message = Some(errors.to_string());
                report.push(Finding::new(
                    key.clone(),
                    format!("invalid, so it allows nothing: {errors}"),
                ));
            }
            // Only what the engine can enforce is allowed; anything else fails closed.
            if p.spec
                .action
                .as_ref()
                .is_some_and(|a| *a != AuthorizationAction::Allow)
                || p.spec
                    .enforcement_level
                    .as_ref()
                    .is_some_and(|l| *l != EnforcementLevel::Network)
            {
                invalid = true;
            }
            let mut rules = Vec::new();
            if !invalid {
                for (ri, r) in p.spec.rules.iter().flatten().enumerate() {
                    match compile_rule(r, ns) {
                        Ok(rule) => rules.push(rule),
                        Err(e) => {
                            report.push(Finding::new(
                                key.clone(),
                                format!("spec.rules[{ri}]: {e}; the policy allows nothing"),
                            ));
                            invalid_message.get_or_insert_with(|| format!("spec.rules[{ri}]: {e}"));
                            invalid = true;
                        }
                    }
                }
                if invalid {
                    rules.clear();
                }
            }
            for (ti, t) in p.spec.target_refs.iter().enumerate() {
                if !t.is_pod() {
                    let problem = format!(
                        "spec.targetRefs[{ti}]: {} {:?} selects no workload here (only Pod label selectors do)",
                        t.kind,
                        t.name.as_deref().unwrap_or("")
                    );
                    report.push(Finding::new(key.clone(), problem.clone()));
                    target_problem.get_or_insert(problem);
                    continue;
                }
                let Some(selector) = &t.selector else {
                    continue;
                };
                for &w in by_ns.get(ns).into_iter().flatten() {
                    let Some(pod) = pods.get(w as usize) else {
                        continue;
                    };
                    match selector.matches(&pod.metadata.labels) {
                        Ok(true) => pairs.push((w, pid)),
                        Ok(false) => {}
                        Err(e) => {
                            let problem = format!("spec.targetRefs[{ti}].selector: {e}");
                            report.push(Finding::new(
                                key.clone(),
                                format!("{problem}; it selects nothing"),
                            ));
                            target_problem.get_or_insert(problem);
                            break;
                        }
                    }
                }
            }
            policies.push(Policy {
                namespace: ns.into(),
                name: p.metadata.name.as_str().into(),
                rules,
                invalid,
                rules_omitted: p.spec.rules.is_none(),
                invalid_message,
                selected: pairs.len() - selected_before,
                target_problem,
            });
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut selected_offsets = Vec::with_capacity(workloads.len() + 1);
        let mut selected = Vec::with_capacity(pairs.len());
        let mut next = pairs.iter().peekable();
        for w in 0..workloads.len() {
            selected_offsets.push(u32::try_from(selected.len()).unwrap_or(u32::MAX));
            while let Some((pw, pid)) = next.next_if(|(pw, _)| *pw as usize == w) {
                let _ = pw;
                selected.push(*pid);
            }
        }
        selected_offsets.push(u32::try_from(selected.len()).unwrap_or(u32::MAX));
        Authorizer {
            config,
            policies,
            workloads,
            selected_offsets,
            selected,
            by_ip,
            report,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Problems found while compiling.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The policies selecting `workload`, in (namespace, name) order.
    pub fn policies_selecting(&self, workload: WorkloadId) -> &[PolicyId] {
        let w = workload.0 as usize;
        let (Some(&from), Some(&to)) = (
            self.selected_offsets.get(w),
            self.selected_offsets.get(w + 1),
        ) else {
            return &[];
        };
        self.selected.get(from as usize..to as usize).unwrap_or(&[])
    }

    /// May `peer` (`None`: unauthenticated) reach `workload` on `port`? The fast path: no
    /// allocation, reading only the policies that select the workload.
    pub fn decide(&self, peer: Option<&Identity>, workload: WorkloadId, port: u16) -> Decision {
        let selecting = self.policies_selecting(workload);
        if selecting.is_empty() {
            let verdict = match self.config.baseline {
                Baseline::Allow => Verdict::Allow,
                Baseline::Deny => Verdict::Deny,
            };
            return Decision {
                verdict,
                reason: Reason::NoPolicy(self.config.baseline),
            };
        }
        for &pid in selecting {
            let Some(policy) = self.policies.get(pid.0 as usize) else {
                continue;
            };
            for (rule, r) in policy.rules.iter().enumerate() {
                if r.matches(peer, port, &self.config) {
                    return Decision {
                        verdict: Verdict::Allow,
                        reason: Reason::AllowedBy { policy: pid, rule },
                    };
                }
            }
        }
        Decision {
            verdict: Verdict::Deny,
            reason: Reason::NoRuleMatched,
        }
    }

    /// The workload with IP `ip`.
    pub fn workload_at(&self, ip: IpAddr) -> Option<WorkloadId> {
        self.by_ip.get(&ip).copied()
    }

    /// The workload `namespace/name`.
    pub fn workload_named(&self, namespace: &str, name: &str) -> Option<WorkloadId> {
        self.workloads
            .binary_search_by(|w| (&*w.namespace, &*w.name).cmp(&(namespace, name)))
            .ok()
            .and_then(|i| u32::try_from(i).ok())
            .map(WorkloadId)
    }

    /// Every workload, in (namespace, name) order.
    pub fn workloads(&self) -> impl Iterator<Item = WorkloadId> + '_ {
        (0..self.workloads.len()).filter_map(|i| u32::try_from(i).ok().map(WorkloadId))
    }

    /// The key of Pod `workload`.
    pub fn workload_key(&self, workload: WorkloadId) -> Option<ObjectKey> {
        self.workloads
            .get(workload.0 as usize)
            .map(|w| ObjectKey::new(ResourceKind::Pod, &*w.namespace, &*w.name))
    }

    /// The ServiceAccount `workload` runs as.
    pub fn workload_service_account(&self, workload: WorkloadId) -> Option<&str> {
        self.workloads
            .get(workload.0 as usize)
            .map(|w| &*w.service_account)
    }

    /// The key of policy `policy`.
    pub fn policy_key(&self, policy: PolicyId) -> Option<ObjectKey> {
        self.policies
            .get(policy.0 as usize)
            .map(|p| ObjectKey::new(ResourceKind::XAuthorizationPolicy, &*p.namespace, &*p.name))
    }

    /// The number of policies compiled.
    pub fn policy_count(&self) -> usize {
        self.policies.len()
    }
}
