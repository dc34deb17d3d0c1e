//! XAuthorizationPolicies as Linkerd `Server` (`policy.linkerd.io/v1beta3`),
//! `AuthorizationPolicy` and `MeshTLSAuthentication` (`policy.linkerd.io/v1alpha1`), with a
//! report of what does not map.
//!
//! The objects model only the fields the translation emits; their meaning is Linkerd's
//! reference, <https://linkerd.io/2-edge/reference/authorization-policy/>.
//!
//! Linkerd authorizes per `Server`: one port of the Pods it selects. A port with a Server
//! denies what no AuthorizationPolicy targeting the Server authorizes (its `accessPolicy`,
//! written out as `deny`); a port without one keeps the cluster's default policy
//! (`all-unauthenticated` unless configured). GEP-3779 instead denies every port of a
//! selected workload that no rule allows. So:
//!
//! | GEP-3779 | Linkerd |
//! |---|---|
//! | a policy's Pod selector | a `Server` per port, `podSelector` the same selector (policies with the same selector share them) |
//! | the ports | those named by the rules of every policy selecting the same Pods, and the target ports of the Services selecting them; **other ports have no Server** and keep the default policy (a finding) |
//! | a rule | an `AuthorizationPolicy` per port it applies to (its `ports`, or every port with a Server) targeting that port's Server |
//! | `sources` | one `MeshTLSAuthentication` per rule: its `identities` are ORed |
//! | omitted `sources` | no authentication refs (any client, meshed or not), or the identity `*` when unauthenticated peers are not "any source" |
//! | `sources: []`, no rules, an invalid policy | no `AuthorizationPolicy`: the Servers deny |
//! | ServiceAccount source | `NAME.NS.serviceaccount.identity.linkerd.TD` (`*` name: `*.NS.serviceaccount.identity.linkerd.TD`, a suffix match) |
//! | SPIFFE source | the Linkerd identity of its ServiceAccount, in its trust domain; another path: the SPIFFE ID (Linkerd accepts both forms) |
//!
//! Two Servers selecting the same Pod port conflict: Linkerd uses the oldest and skips the
//! other, so the Pod loses the other policy's rules on that port (a finding).

use std::collections::{BTreeMap, BTreeSet};

use gamma_model::Snapshot;
use gamma_model::gateway::LabelSelector;
use gamma_model::k8s::IntOrString;
use serde::{Deserialize, Serialize};

use super::{Compiled, Direction, Finding, Metadata, PortScope, Severity, TranslationReport};
use crate::Config;
use crate::engine::{Source, WorkloadId};

/// `policy.linkerd.io/v1beta3`, the version of [`Server`].
pub const SERVER_API_VERSION: &str = "policy.linkerd.io/v1beta3";
/// `policy.linkerd.io/v1alpha1`, the version of [`AuthorizationPolicy`] and
/// [`MeshTlsAuthentication`].
pub const POLICY_API_VERSION: &str = "policy.linkerd.io/v1alpha1";
/// `policy.linkerd.io`.
pub const GROUP: &str = "policy.linkerd.io";

/// A Linkerd default policy (`config.linkerd.io/default-inbound-policy`, the install's
/// `proxy.defaultInboundPolicy`): what a port without a Server allows, and a Server's
/// `accessPolicy` (<https://linkerd.io/2-edge/reference/authorization-policy/#server>).
/// The `cluster-*` policies, which also restrict client networks, are not modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DefaultPolicy {
    /// Every client, meshed or not (the install default).
    AllUnauthenticated,
    /// Every meshed (mTLS-authenticated) client.
    AllAuthenticated,
    /// No client.
    Deny,
}

impl DefaultPolicy {
    fn allows(self, peer: Option<&crate::Identity>) -> bool {
        match self {
            DefaultPolicy::AllUnauthenticated => true,
            DefaultPolicy::AllAuthenticated => peer.is_some(),
            DefaultPolicy::Deny => false,
        }
    }

    fn name(self) -> &'static str {
        match self {
            DefaultPolicy::AllUnauthenticated => "all-unauthenticated",
            DefaultPolicy::AllAuthenticated => "all-authenticated",
            DefaultPolicy::Deny => "deny",
        }
    }
}

/// A Linkerd `Server` (<https://linkerd.io/2-edge/reference/authorization-policy/#server>).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Server {
    /// [`SERVER_API_VERSION`].
    pub api_version: String,
    /// `Server`.
    pub kind: String,
    /// Name, namespace, and the policies it came from.
    pub metadata: Metadata,
    /// The spec.
    pub spec: ServerSpec,
}

/// `Server.spec`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ServerSpec {
    /// The Pods of the Server's namespace it selects.
    pub pod_selector: LabelSelector,
    /// The port, by number.
    pub port: u16,
    /// What the Server allows besides its AuthorizationPolicies (default `deny`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_policy: Option<DefaultPolicy>,
}

/// A Linkerd `AuthorizationPolicy`
/// (<https://linkerd.io/2-edge/reference/authorization-policy/#authorizationpolicy>).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AuthorizationPolicy {
    /// [`POLICY_API_VERSION`].
    pub api_version: String,
    /// `AuthorizationPolicy`.
    pub kind: String,
    /// Name, namespace, and the policy it came from.
    pub metadata: Metadata,
    /// The spec.
    pub spec: AuthorizationPolicySpec,
}

/// `AuthorizationPolicy.spec`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AuthorizationPolicySpec {
    /// The Server it authorizes clients of.
    pub target_ref: Reference,
    /// Authentications that must **all** hold; empty: any client.
    pub required_authentication_refs: Vec<Reference>,
}

/// A reference to a `policy.linkerd.io` object in the same namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Reference {
    /// [`GROUP`].
    pub group: String,
    /// `Server` or `MeshTLSAuthentication`.
    pub kind: String,
    /// The name.
    pub name: String,
}

/// A Linkerd `MeshTLSAuthentication`
/// (<https://linkerd.io/2-edge/reference/authorization-policy/#meshtlsauthentication>).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MeshTlsAuthentication {
    /// [`POLICY_API_VERSION`].
    pub api_version: String,
    /// `MeshTLSAuthentication`.
    pub kind: String,
    /// Name, namespace, and the policy it came from.
    pub metadata: Metadata,
    /// The spec.
    pub spec: MeshTlsAuthenticationSpec,
}

/// `MeshTLSAuthentication.spec`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MeshTlsAuthenticationSpec {
    /// Client identities, any one matching: exact, `*` (any meshed client) or `*.SUFFIX`.
    pub identities: Vec<String>,
}

/// How to translate for Linkerd.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LinkerdOptions {
    /// The cluster's default inbound policy (for ports without a Server). Default
    /// `all-unauthenticated`, the install default.
    pub default_policy: DefaultPolicy,
}

impl Default for LinkerdOptions {
    fn default() -> Self {
        LinkerdOptions {
            default_policy: DefaultPolicy::AllUnauthenticated,
        }
    }
}

impl LinkerdOptions {
    /// These options with `default_policy`.
    pub fn default_policy(mut self, default_policy: DefaultPolicy) -> Self {
        self.default_policy = default_policy;
        self
    }
}

/// The Linkerd objects and the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LinkerdTranslation {
    /// The Servers, in (namespace, name) order.
    pub servers: Vec<Server>,
    /// The MeshTLSAuthentications, in (namespace, name) order.
    pub authentications: Vec<MeshTlsAuthentication>,
    /// The AuthorizationPolicies, in (namespace, name) order.
    pub policies: Vec<AuthorizationPolicy>,
    /// The default policy the translation assumed.
    #[serde(skip)]
    pub default_policy: DefaultPolicy,
    /// What does not map exactly.
    pub report: TranslationReport,
}

/// A peer's identity as a Linkerd proxy presents it: the ServiceAccount's Linkerd identity
/// in its trust domain, or for another SPIFFE path the SPIFFE ID.
pub fn presented_identity(peer: &crate::Identity) -> String {
    peer.linkerd_identity().unwrap_or_else(|| peer.spiffe_uri())
}

fn identity(source: &Source, config: &Config) -> String {
    match source {
        Source::ServiceAccount { namespace, name } => format!(
            "{}.{namespace}.serviceaccount.identity.linkerd.{}",
            name.as_deref().unwrap_or("*"),
            config.trust_domain
        ),
        Source::Spiffe(id) => presented_identity(id),
    }
}

/// The ports `snapshot`'s Services send to Pod `pod`: of the Services in its namespace whose
/// selector selects it, the numeric target ports, and the ports of their EndpointSlices that
/// list the Pod's IP.
fn service_ports(snapshot: &Snapshot, pod: &gamma_model::k8s::Pod) -> BTreeSet<u16> {
    let ns = pod.metadata.namespace_or_default();
    let mut out = BTreeSet::new();
    for s in snapshot.services() {
        let Some(selector) = &s.spec.selector else {
            continue;
        };
        if s.metadata.namespace_or_default() != ns
            || selector.is_empty()
            || !selector
                .iter()
                .all(|(k, v)| pod.metadata.labels.get(k) == Some(v))
        {
            continue;
        }
        // The EndpointSlices say what a named targetPort is on this Pod.
        for slice in snapshot.endpoint_slices_for(ns, &s.metadata.name) {
            let here = slice
                .endpoints
                .iter()
                .flat_map(|e| &e.addresses)
                .any(|a| pod.ips().any(|ip| ip == a.as_str()));
            if here {
                out.extend(
                    slice
                        .ports
                        .iter()
                        .filter_map(|p| p.port.and_then(|n| u16::try_from(n).ok()))
                        .filter(|n| *n > 0),
                );
            }
        }
        for p in &s.spec.ports {
            let target = match &p.target_port {
                None => u16::try_from(p.port).ok(),
                Some(IntOrString::Int(n)) => u16::try_from(*n).ok(),
                Some(IntOrString::String(_)) => None,
            };
            out.extend(target.filter(|t| *t > 0));
        }
    }
    out
}

/// The ports each policy gets Servers for. A Server of policy A on port P selects every Pod A
/// selects, so every other policy selecting one of those Pods needs its rules without ports on
/// P too: the least sets where a policy's ports hold its rules' ports, the Service ports of
/// the Pods it selects, and the ports of every policy selecting one of them (a fixpoint; the
/// sets only grow, bounded by the ports named in the input).
fn port_universes(
    snapshot: &Snapshot,
    compiled: &Compiled<'_>,
    selected_by: &[Vec<WorkloadId>],
) -> Vec<BTreeSet<u16>> {
    let mut known: Vec<BTreeSet<u16>> = compiled
        .authorizer
        .workloads()
        .map(|w| {
            compiled
                .pods
                .get(w.0 as usize)
                .map(|p| service_ports(snapshot, p))
                .unwrap_or_default()
        })
        .collect();
    let mut universes: Vec<BTreeSet<u16>> = (0..compiled.sources.len())
        .map(|i| {
            compiled
                .policy(i)
                .map(|p| {
                    p.rules
                        .iter()
                        .flat_map(|r| r.ports.iter().copied())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    loop {
        let mut changed = false;
        for (universe, selected) in universes.iter_mut().zip(selected_by) {
            for w in selected {
                if let Some(k) = known.get_mut(w.0 as usize) {
                    for port in universe.iter() {
                        changed |= k.insert(*port);
                    }
                    for port in k.iter() {
                        changed |= universe.insert(*port);
                    }
                }
            }
        }
        if !changed {
            return universes;
        }
    }
}

/// A Server's identity: (namespace, the selector's canonical text, port).
type ServerKey = (String, String, u16);

fn reference(kind: &str, name: &str) -> Reference {
    Reference {
        group: GROUP.into(),
        kind: kind.into(),
        name: name.into(),
    }
}

/// Translates the XAuthorizationPolicies of `snapshot`, as the engine reads them with
/// `config`, into Linkerd objects.
pub fn translate(
    snapshot: &Snapshot,
    config: &Config,
    options: &LinkerdOptions,
) -> LinkerdTranslation {
    let compiled = Compiled::new(snapshot, config.clone());
    let mut report = TranslationReport::default();
    // The ports each workload serves, as far as the input says.
    let selected_by: Vec<Vec<WorkloadId>> = (0..compiled.sources.len())
        .map(|i| compiled.selected_by(i))
        .collect();
    let universes = port_universes(snapshot, &compiled, &selected_by);
    // Servers by (namespace, selector, port): name and source policies.
    let mut servers: BTreeMap<ServerKey, (String, LabelSelector, Vec<usize>)> = BTreeMap::new();
    let mut authentications = Vec::new();
    let mut policies = Vec::new();
    for (i, source) in compiled.sources.iter().enumerate() {
        let Some(p) = compiled.policy(i) else {
            continue;
        };
        let key = compiled.policy_key(i);
        let selected = selected_by.get(i).cloned().unwrap_or_default();
        let universe = universes.get(i).cloned().unwrap_or_default();
        let mut server_of_port: BTreeMap<u16, String> = BTreeMap::new();
        let pod_targets = source
            .spec
            .target_refs
            .iter()
            .filter(|t| t.is_pod())
            .count();
        for (ti, t) in source.spec.target_refs.iter().enumerate() {
            if !t.is_pod() {
                report.push(Finding::non_pod_target(&key, ti, &t.kind));
                continue;
            }
            let Some(selector) = &t.selector else {
                continue;
            };
            if selector.matches(&BTreeMap::new()).is_err() {
                // The engine selects nothing by it either (and reports it).
                continue;
            }
            // Debug of the maps and lists inside is deterministic: equal selectors, equal keys.
            let canonical = format!("{selector:?}");
            let prefix = if pod_targets > 1 {
                format!("{}-{ti}", p.name)
            } else {
                p.name.to_string()
            };
            for &port in &universe {
                let entry = servers
                    .entry((p.namespace.to_string(), canonical.clone(), port))
                    .or_insert_with(|| (format!("{prefix}-{port}"), selector.clone(), Vec::new()));
                entry.2.push(i);
                server_of_port.insert(port, entry.0.clone());
            }
        }
        if p.invalid {
            report.push(Finding {
                severity: Severity::Exact,
                policy: Some(key.clone()),
                rule: None,
                field: String::new(),
                directions: Vec::new(),
                pods: Vec::new(),
                ports: PortScope::All,
                message: "invalid: its Servers get no AuthorizationPolicy (they deny), as the engine enforces it".into(),
            });
        }
        for (ri, r) in p.rules.iter().enumerate() {
            let authn_name = format!("{}-rule-{ri}", p.name);
            let refs = match &r.sources {
                Some(list) if list.is_empty() => {
                    report.push(Finding {
                        severity: Severity::Exact,
                        policy: Some(key.clone()),
                        rule: Some(ri),
                        field: format!("spec.rules[{ri}].sources"),
                        directions: Vec::new(),
                        pods: Vec::new(),
                        ports: PortScope::All,
                        message: "matches no source: no AuthorizationPolicy is emitted for it"
                            .into(),
                    });
                    continue;
                }
                Some(list) => {
                    let mut identities: Vec<String> =
                        list.iter().map(|s| identity(s, config)).collect();
                    identities.sort();
                    identities.dedup();
                    Some(identities)
                }
                None if !config.unauthenticated_is_any_source => Some(vec!["*".to_owned()]),
                None => None,
            };
            let refs = match refs {
                Some(identities) => {
                    authentications.push(MeshTlsAuthentication {
                        api_version: POLICY_API_VERSION.into(),
                        kind: "MeshTLSAuthentication".into(),
                        metadata: Metadata::new(&p.namespace, &authn_name, &[&key]),
                        spec: MeshTlsAuthenticationSpec { identities },
                    });
                    vec![reference("MeshTLSAuthentication", &authn_name)]
                }
                None => Vec::new(),
            };
            let ports: Vec<u16> = if r.ports.is_empty() {
                server_of_port.keys().copied().collect()
            } else {
                r.ports.clone()
            };
            for port in ports {
                let Some(server) = server_of_port.get(&port) else {
                    continue;
                };
                policies.push(AuthorizationPolicy {
                    api_version: POLICY_API_VERSION.into(),
                    kind: "AuthorizationPolicy".into(),
                    metadata: Metadata::new(
                        &p.namespace,
                        &format!("{}-rule-{ri}-{port}", p.name),
                        &[&key],
                    ),
                    spec: AuthorizationPolicySpec {
                        target_ref: reference("Server", server),
                        required_authentication_refs: refs.clone(),
                    },
                });
            }
        }
        // The ports without a Server keep the default policy, where the engine denies
        // (unless a rule without ports allows).
        let portless = |any_source_only: bool| {
            p.rules.iter().any(|r| {
                r.ports.is_empty()
                    && match &r.sources {
                        None => !any_source_only || config.unauthenticated_is_any_source,
                        Some(list) => !any_source_only && !list.is_empty(),
                    }
            })
        };
        let directions = match options.default_policy {
            DefaultPolicy::AllUnauthenticated => vec![Direction::Widened],
            DefaultPolicy::AllAuthenticated if portless(true) => {
                vec![Direction::Widened, Direction::Narrowed]
            }
            DefaultPolicy::AllAuthenticated => vec![Direction::Widened],
            DefaultPolicy::Deny if portless(false) => vec![Direction::Narrowed],
            DefaultPolicy::Deny => Vec::new(),
        };
        if !directions.is_empty() && !selected.is_empty() {
            let listed: Vec<u16> = server_of_port.keys().copied().collect();
            report.push(Finding {
                severity: Severity::Approximated,
                policy: Some(key.clone()),
                rule: None,
                field: String::new(),
                directions: directions.clone(),
                pods: selected.iter().map(|w| compiled.pod_key(*w)).collect(),
                ports: PortScope::Except(listed.clone()),
                message: format!(
                    "Linkerd authorizes per Server (one port) and the input names no other port of these Pods: {} keep the default policy {}, {}",
                    if listed.is_empty() {
                        "no port has a Server: all ports".to_owned()
                    } else {
                        format!("ports other than {} have no Server and", super::join(&listed))
                    },
                    options.default_policy.name(),
                    if directions == [Direction::Narrowed] {
                        "which denies what a rule of this policy without ports allows"
                    } else {
                        "which allows there what the engine denies"
                    }
                ),
            });
        }
    }
    let mut out_servers: Vec<Server> = servers
        .into_iter()
        .map(|((ns, _, port), (name, selector, from))| {
            let keys: Vec<_> = from.iter().map(|i| compiled.policy_key(*i)).collect();
            let refs: Vec<_> = keys.iter().collect();
            Server {
                api_version: SERVER_API_VERSION.into(),
                kind: "Server".into(),
                metadata: Metadata::new(&ns, &name, &refs),
                spec: ServerSpec {
                    pod_selector: selector,
                    port,
                    access_policy: Some(DefaultPolicy::Deny),
                },
            }
        })
        .collect();
    out_servers.sort_by(|a, b| {
        (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name))
    });
    // Two Servers on one Pod port: Linkerd uses one and skips the other.
    for w in compiled.authorizer.workloads() {
        let Some(pod) = compiled.pods.get(w.0 as usize) else {
            continue;
        };
        let ns = pod.metadata.namespace_or_default();
        let mut by_port: BTreeMap<u16, Vec<&Server>> = BTreeMap::new();
        for s in &out_servers {
            if s.metadata.namespace == ns
                && s.spec.pod_selector.matches(&pod.metadata.labels) == Ok(true)
            {
                by_port.entry(s.spec.port).or_default().push(s);
            }
        }
        for (port, list) in by_port {
            let [first, rest @ ..] = list.as_slice() else {
                continue;
            };
            for other in rest {
                report.push(Finding {
                    severity: Severity::Approximated,
                    policy: Some(source_of(&compiled, other)),
                    rule: None,
                    field: "spec.targetRefs[0].selector".into(),
                    directions: vec![Direction::Narrowed],
                    pods: vec![compiled.pod_key(w)],
                    ports: PortScope::Only(vec![port]),
                    message: format!(
                        "Servers {} and {} both select this Pod's port {port}; Linkerd uses the oldest and skips the other, so the Pod gets only the AuthorizationPolicies of one (the engine ORs every policy selecting it)",
                        first.metadata.name, other.metadata.name
                    ),
                });
            }
        }
    }
    // Pods no policy selects: the default policy against the baseline.
    let unselected: Vec<WorkloadId> = compiled.unselected();
    let baseline_allows = config.baseline == crate::Baseline::Allow;
    let directions = match (baseline_allows, options.default_policy) {
        (true, DefaultPolicy::AllUnauthenticated) | (false, DefaultPolicy::Deny) => Vec::new(),
        (true, _) => vec![Direction::Narrowed],
        (false, _) => vec![Direction::Widened],
    };
    if !directions.is_empty() {
        report.push(Finding {
            severity: Severity::Approximated,
            policy: None,
            rule: None,
            field: String::new(),
            directions,
            pods: unselected.iter().map(|w| compiled.pod_key(*w)).collect(),
            ports: PortScope::All,
            message: format!(
                "the baseline is {} and Linkerd's default policy {}: Pods no policy selects get the default policy (set the cluster's default inbound policy to match)",
                if baseline_allows { "allow" } else { "deny" },
                options.default_policy.name()
            ),
        });
    }
    authentications.sort_by(|a: &MeshTlsAuthentication, b| {
        (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name))
    });
    policies.sort_by(|a: &AuthorizationPolicy, b| {
        (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name))
    });
    report.finish();
    LinkerdTranslation {
        servers: out_servers,
        authentications,
        policies,
        default_policy: options.default_policy,
        report,
    }
}

/// The first source policy of a Server (from its annotation).
fn source_of(compiled: &Compiled<'_>, server: &Server) -> gamma_model::ObjectKey {
    let first = server
        .metadata
        .annotations
        .get(super::TRANSLATED_FROM)
        .and_then(|v| v.split(',').next())
        .and_then(|v| v.split_once('/'));
    match first {
        Some((ns, name)) => {
            gamma_model::ObjectKey::new(gamma_model::ResourceKind::XAuthorizationPolicy, ns, name)
        }
        None => compiled.policy_key(usize::MAX),
    }
}

/// A reference evaluator of Linkerd's inbound authorization for the subset of objects this
/// module emits, following Linkerd's reference
/// (<https://linkerd.io/2-edge/reference/authorization-policy/>) and its policy controller
/// (`policy-controller/k8s/index/src/inbound`):
///
/// - the Servers of the Pod's namespace whose `podSelector` selects the Pod and whose `port`
///   is the port: the first wins (Linkerd orders by creation time, then name; here by name,
///   all translated objects being created together), the others are skipped;
/// - no Server: the cluster default policy;
/// - a Server: allowed iff its `accessPolicy` allows, or an AuthorizationPolicy targeting it
///   has all its `requiredAuthenticationRefs` hold ("In the case of multiple entries, all
///   authentications must match"; none: any client); a MeshTLSAuthentication holds for a
///   meshed client whose identity matches one of `identities` (`*` any, `*.SUFFIX`, exact).
#[doc(hidden)]
pub mod reference {
    use std::collections::BTreeMap;

    use super::{DefaultPolicy, LinkerdTranslation, presented_identity};
    use crate::Identity;

    /// Linkerd's identity match (`IdentityMatch`): `*` any, `*.a.b` a suffix of labels,
    /// otherwise exact.
    pub fn identity_matches(pattern: &str, identity: &str) -> bool {
        if pattern == "*" {
            return true;
        }
        match pattern.strip_prefix("*.") {
            Some(suffix) => identity
                .strip_suffix(suffix)
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
            None => pattern == identity,
        }
    }

    /// Whether `peer` (`None`: not meshed) may reach the Pod in `namespace` with `labels` on
    /// `port`, under `objects` and `default_policy`.
    pub fn allows(
        objects: &LinkerdTranslation,
        default_policy: DefaultPolicy,
        namespace: &str,
        labels: &BTreeMap<String, String>,
        peer: Option<&Identity>,
        port: u16,
    ) -> bool {
        let mut servers: Vec<_> = objects
            .servers
            .iter()
            .filter(|s| {
                s.metadata.namespace == namespace
                    && s.spec.port == port
                    && s.spec.pod_selector.matches(labels) == Ok(true)
            })
            .collect();
        servers.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        let Some(server) = servers.first() else {
            return default_policy.allows(peer);
        };
        if server
            .spec
            .access_policy
            .unwrap_or(DefaultPolicy::Deny)
            .allows(peer)
        {
            return true;
        }
        let presented = peer.map(presented_identity);
        objects.policies.iter().any(|p| {
            p.metadata.namespace == namespace
                && p.spec.target_ref.kind == "Server"
                && p.spec.target_ref.name == server.metadata.name
                && p.spec.required_authentication_refs.iter().all(|r| {
                    r.kind == "MeshTLSAuthentication"
                        && objects.authentications.iter().any(|a| {
                            a.metadata.namespace == namespace
                                && a.metadata.name == r.name
                                && presented.as_deref().is_some_and(|id| {
                                    a.spec
                                        .identities
                                        .iter()
                                        .any(|pat| identity_matches(pat, id))
                                })
                        })
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::reference::identity_matches;
    use super::*;

    // linkerd2 policy-controller core/src/identity_match.rs: `*` matches every identity,
    // `*.a.b` a suffix of whole labels, anything else exactly.
    #[test]
    fn linkerd_identity_matches_are_any_suffix_and_exact() {
        let web = "web.shop.serviceaccount.identity.linkerd.cluster.local";
        assert!(identity_matches("*", web));
        assert!(identity_matches(
            "*.shop.serviceaccount.identity.linkerd.cluster.local",
            web
        ));
        assert!(!identity_matches(
            "*.hop.serviceaccount.identity.linkerd.cluster.local",
            web
        ));
        assert!(identity_matches(web, web));
        assert!(!identity_matches(
            web,
            "api.shop.serviceaccount.identity.linkerd.cluster.local"
        ));
    }

    #[test]
    fn a_peer_presents_its_linkerd_identity_or_its_spiffe_id() {
        let sa = crate::Identity::service_account("td", "shop", "web");
        assert_eq!(
            presented_identity(&sa),
            "web.shop.serviceaccount.identity.linkerd.td"
        );
        let config = crate::Config::default();
        let other = crate::Identity::parse("spiffe://td/workload/x", &config).unwrap();
        assert_eq!(presented_identity(&other), "spiffe://td/workload/x");
    }
}
