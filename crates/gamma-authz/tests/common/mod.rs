//! Helpers shared by the engine's tests: a snapshot from YAML, and an oracle that evaluates
//! the GEP-3779 text directly on the model objects (no compilation, no index, identities as
//! SPIFFE URI strings), to test the engine against.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use gamma_authz::{Authorizer, Config, Identity, Verdict};
use gamma_model::k8s::Pod;
use gamma_model::xauthz::{AuthorizationSourceType, XAuthorizationPolicy};
use gamma_model::{Snapshot, Validate, decode};

pub fn snapshot(yaml: &str) -> Snapshot {
    Snapshot::from_resources(decode(yaml).unwrap())
}

pub fn authorizer(yaml: &str) -> (Snapshot, Authorizer) {
    let s = snapshot(yaml);
    let a = Authorizer::build(&s, Config::default());
    (s, a)
}

pub fn id(text: &str) -> Identity {
    Identity::parse(text, &Config::default()).unwrap()
}

/// Pod `ns/name` running as `sa` with `ip` and labels `labels` (YAML flow map).
pub fn pod(ns: &str, name: &str, sa: &str, ip: &str, labels: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: {ns}, labels: {labels}}}\n\
         spec: {{serviceAccountName: {sa}}}\nstatus: {{podIP: {ip}, conditions: [{{type: Ready, status: 'True'}}]}}\n"
    )
}

/// `spec.rules` as a YAML flow list: per rule its sources (each a YAML flow map) and its ports,
/// each list written only when present (`None`: the field is omitted, which the GEP reads
/// differently from an empty list).
pub fn rules_yaml(
    rules: impl IntoIterator<Item = (Option<Vec<String>>, Option<Vec<u16>>)>,
) -> String {
    let items: Vec<String> = rules
        .into_iter()
        .map(|(sources, ports)| {
            let mut fields = Vec::new();
            if let Some(s) = sources {
                fields.push(format!("sources: [{}]", s.join(", ")));
            }
            if let Some(p) = ports {
                let p: Vec<String> = p.iter().map(u16::to_string).collect();
                fields.push(format!("networkAttributes: {{ports: [{}]}}", p.join(", ")));
            }
            format!("{{{}}}", fields.join(", "))
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// Policy `ns/name` selecting `selector` (YAML flow map) with `rules` (YAML flow list, or
/// `None` for no `rules` field).
pub fn policy(ns: &str, name: &str, selector: &str, rules: Option<&str>) -> String {
    let rules = rules.map_or(String::new(), |r| format!("  rules: {r}\n"));
    format!(
        "---\napiVersion: gateway.networking.x-k8s.io/v1alpha1\nkind: XAuthorizationPolicy\n\
         metadata: {{name: {name}, namespace: {ns}}}\nspec:\n  targetRefs: [{{group: '', kind: Pod, selector: {selector}}}]\n  \
         action: ALLOW\n  enforcementLevel: Network\n{rules}"
    )
}

/// The decision of the fast path for `peer` (a SPIFFE URI, Istio principal or Linkerd
/// identity; `None` unauthenticated) to Pod `ns/name` on `port`.
pub fn allowed(a: &Authorizer, peer: Option<&str>, ns: &str, name: &str, port: u16) -> bool {
    let w = a.workload_named(ns, name).unwrap();
    let peer = peer.map(id);
    let d = a.decide(peer.as_ref(), w, port);
    let e = a.explain(peer.as_ref(), w, port);
    assert_eq!(d.verdict, e.verdict, "decide and explain disagree");
    d.verdict == Verdict::Allow
}

/// GEP-3779 evaluated directly from its text, on the model objects: "A request is allowed if
/// and only if it matches at least one rule in any ALLOW policy targeting the workload"; no
/// policy: `baseline_allow`. `peer` is a SPIFFE URI (`None`: unauthenticated).
pub fn oracle(
    snapshot: &Snapshot,
    trust_domain: &str,
    unauthenticated_is_any: bool,
    baseline_allow: bool,
    peer: Option<&str>,
    pod: &Pod,
    port: u16,
) -> bool {
    let pod_ns = pod.metadata.namespace_or_default();
    let targeting: Vec<&XAuthorizationPolicy> = snapshot
        .xauthorization_policies()
        .filter(|p| {
            // "a policy will only ever target objects within its namespace"
            p.metadata.namespace_or_default() == pod_ns
                && p.spec.target_refs.iter().any(|t| {
                    t.is_pod()
                        && t.selector
                            .as_ref()
                            .is_some_and(|s| s.matches(&pod.metadata.labels) == Ok(true))
                })
        })
        .collect();
    if targeting.is_empty() {
        return baseline_allow;
    }
    targeting.iter().any(|p| {
        // An invalid policy allows nothing (the engine's documented fail-closed choice).
        p.validate().is_ok()
            && p.spec.rules.iter().flatten().any(|rule| {
                let sources_ok = match (&rule.sources, peer) {
                    (None, None) => unauthenticated_is_any,
                    (None, Some(_)) => true,
                    (Some(_), None) => false,
                    (Some(list), Some(peer)) => list.iter().any(|s| match s.type_ {
                        Some(AuthorizationSourceType::Spiffe) => s.spiffe.as_deref() == Some(peer),
                        Some(AuthorizationSourceType::ServiceAccount) => {
                            let sa = s.service_account.as_ref().unwrap();
                            let ns = sa
                                .namespace
                                .as_deref()
                                .unwrap_or(p.metadata.namespace_or_default());
                            let prefix = format!("spiffe://{trust_domain}/ns/{ns}/sa/");
                            match peer.strip_prefix(&prefix) {
                                Some(name) if sa.name == "*" => {
                                    !name.is_empty() && !name.contains('/')
                                }
                                Some(name) => name == sa.name,
                                None => false,
                            }
                        }
                        _ => false,
                    }),
                };
                let ports_ok = rule
                    .network_attributes
                    .as_ref()
                    .is_none_or(|a| a.ports.is_empty() || a.ports.contains(&i32::from(port)));
                sources_ok && ports_ok
            })
    })
}

/// The namespaces, ServiceAccounts, `app` labels and rule ports of the generated clusters of
/// the property tests.
pub const NAMESPACES: [&str; 2] = ["a", "b"];
/// See [`NAMESPACES`].
pub const ACCOUNTS: [&str; 2] = ["s1", "s2"];
/// See [`NAMESPACES`].
pub const APPS: [&str; 2] = ["x", "y"];
/// See [`NAMESPACES`].
pub const PORTS: [u16; 3] = [80, 443, 8080];

/// A generated rule source.
#[derive(Debug, Clone)]
pub enum Src {
    /// A ServiceAccount source (indices into [`NAMESPACES`] and [`ACCOUNTS`]; `None` name: `*`).
    Sa {
        ns: Option<usize>,
        name: Option<usize>,
    },
    /// A SPIFFE source of this or another trust domain.
    Spiffe { foreign: bool, ns: usize, sa: usize },
    /// A SPIFFE ID of no Kubernetes shape (`/custom/x`).
    Path,
}

/// A generated rule: its sources and ports (indices into [`PORTS`]), each omitted when `None`.
#[derive(Debug, Clone)]
pub struct RuleSpec {
    pub sources: Option<Vec<Src>>,
    pub ports: Option<Vec<usize>>,
}

/// One generated source as a YAML flow map.
pub fn source_yaml(s: &Src) -> String {
    match s {
        Src::Sa { ns, name } => format!(
            "{{type: ServiceAccount, serviceAccount: {{{}name: '{}'}}}}",
            ns.map_or(String::new(), |n| format!("namespace: {}, ", NAMESPACES[n])),
            name.map_or("*", |n| ACCOUNTS[n])
        ),
        Src::Spiffe { foreign, ns, sa } => format!(
            "{{type: SPIFFE, spiffe: 'spiffe://{}/ns/{}/sa/{}'}}",
            if *foreign {
                "other.example"
            } else {
                "cluster.local"
            },
            NAMESPACES[*ns],
            ACCOUNTS[*sa]
        ),
        Src::Path => "{type: SPIFFE, spiffe: 'spiffe://cluster.local/custom/x'}".to_owned(),
    }
}

/// Generated rules as a `spec.rules` YAML flow list ([`rules_yaml`]).
pub fn generated_rules_yaml(rules: &[RuleSpec]) -> String {
    rules_yaml(rules.iter().map(|r| {
        (
            r.sources
                .as_ref()
                .map(|s| s.iter().map(source_yaml).collect()),
            r.ports
                .as_ref()
                .map(|p| p.iter().map(|i| PORTS[*i]).collect()),
        )
    }))
}

/// Pods `w0`, `w1`, ... (namespace, app, ServiceAccount indices) at 10.0.0.1, 10.0.0.2, ...
pub fn pods_yaml(pods: &[(usize, usize, usize)]) -> String {
    pods.iter()
        .enumerate()
        .map(|(i, (ns, app, sa))| {
            pod(
                NAMESPACES[*ns],
                &format!("w{i}"),
                ACCOUNTS[*sa],
                &format!("10.0.0.{}", i + 1),
                &format!("{{app: {}}}", APPS[*app]),
            )
        })
        .collect()
}
