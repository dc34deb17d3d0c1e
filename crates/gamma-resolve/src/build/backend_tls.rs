//! BackendTLSPolicy in the build: which policy applies to each backend target (Service port),
//! whether its CA certificates resolve, and each policy's status per ancestor. See
//! [`crate::backend_tls`] for the rules and their upstream text.

use std::collections::{BTreeMap, BTreeSet};

use crate::backend_tls::{
    self as bt, BackendTls, BackendTlsPolicyStatus, PolicyAncestorRef, PolicyAncestorStatus,
};
use crate::input::{BackendTlsPolicyIr, ParentRefKind, TableInput};
use crate::status::{ACCEPTED, RouteCondition};
use crate::table::{Action, BackendState};
use crate::table::{StatusSource, TlsReached, TlsSlot};

use super::Builder;

/// The most ancestors a policy's status lists (PolicyStatus.ancestors, `maxItems: 16`).
const MAX_ANCESTORS: usize = 16;

/// What checking one policy's CA certificates found.
#[derive(Debug, Default)]
struct CaCheck {
    /// (reason, message) of each invalid `caCertificateRefs` entry, in spec order.
    invalid_refs: Vec<(&'static str, String)>,
    /// The ConfigMaps of the valid entries.
    valid_refs: Vec<String>,
    /// The ClusterTrustBundles of the valid entries.
    valid_bundles: Vec<String>,
    /// A `wellKnownCACertificates` value other than `System`.
    unknown_well_known: Option<String>,
}

impl CaCheck {
    /// Why connections with the policy fail, if they do.
    fn failure(&self) -> Option<String> {
        if let Some(w) = &self.unknown_well_known {
            return Some(format!("wellKnownCACertificates {w:?} is not supported"));
        }
        let msgs: Vec<&str> = self.invalid_refs.iter().map(|(_, m)| m.as_str()).collect();
        (!msgs.is_empty()).then(|| msgs.join("; "))
    }
}

/// Policy precedence on one target (BackendTLSPolicySpec.targetRefs): the older by creation
/// timestamp, then `{namespace}/{name}` in alphabetical order. A policy without a timestamp
/// (a manifest not yet applied) counts as the newest.
fn precedence(p: &BackendTlsPolicyIr) -> (bool, (i64, u32), &str, &str) {
    (
        p.created.is_none(),
        p.created.unwrap_or_default(),
        &p.namespace,
        &p.name,
    )
}

/// The policies by target, precedence order, winner first: (namespace, Service, section).
pub(crate) type Candidates<'i> = BTreeMap<(&'i str, &'i str, Option<&'i str>), Vec<usize>>;

/// The valid policies naming each core Service target, winner first.
pub(crate) fn candidates(input: &TableInput) -> Candidates<'_> {
    let mut out: Candidates<'_> = BTreeMap::new();
    for (i, p) in input.backend_tls_policies.iter().enumerate() {
        if p.invalid.is_some() {
            continue;
        }
        for t in &p.targets {
            // Only core Services are backends here (other target kinds are
            // implementation-specific and not supported).
            if t.group.is_empty() && t.kind == "Service" {
                let key = (
                    p.namespace.as_str(),
                    t.name.as_str(),
                    t.section_name.as_deref(),
                );
                let list = out.entry(key).or_default();
                if !list.contains(&i) {
                    list.push(i);
                }
            }
        }
    }
    for list in out.values_mut() {
        list.sort_by(|a, b| {
            let pa = input.backend_tls_policies.get(*a).map(precedence);
            let pb = input.backend_tls_policies.get(*b).map(precedence);
            pa.cmp(&pb)
        });
    }
    out
}

/// The candidate list that decides for Service `ns/svc` port `port_name`: the policies naming
/// the port by `sectionName` if any, else those naming the whole Service.
fn deciding<'c, 'k>(
    c: &'c Candidates<'k>,
    ns: &'k str,
    svc: &'k str,
    port_name: Option<&'k str>,
) -> Option<&'c [usize]> {
    port_name
        .and_then(|n| c.get(&(ns, svc, Some(n))))
        .or_else(|| c.get(&(ns, svc, None)))
        .map(Vec::as_slice)
        .filter(|l| !l.is_empty())
}

fn check_ca(input: &TableInput, p: &BackendTlsPolicyIr) -> CaCheck {
    use gamma_model::k8s::is_cluster_trust_bundle;
    let mut out = CaCheck::default();
    for (i, r) in p.ca_certificate_refs.iter().enumerate() {
        let at = format!("caCertificateRefs[{i}]");
        if is_cluster_trust_bundle(&r.group, &r.kind) {
            // GEP-5075: cluster-scoped, resolved by name. Judged missing only when the input
            // holds every ClusterTrustBundle, as Secrets are for listener certificates.
            match input
                .cluster_trust_bundles
                .iter()
                .find(|b| b.name == r.name)
            {
                None if input.cluster_trust_bundles_complete => out.invalid_refs.push((
                    bt::INVALID_CA_CERTIFICATE_REF,
                    format!("{at}: ClusterTrustBundle {} does not exist", r.name),
                )),
                Some(b) if !b.has_pem => out.invalid_refs.push((
                    bt::INVALID_CA_CERTIFICATE_REF,
                    format!(
                        "{at}: ClusterTrustBundle {} holds no PEM certificate in trustBundle",
                        r.name
                    ),
                )),
                _ => out.valid_bundles.push(r.name.clone()),
            }
            continue;
        }
        if !crate::lower::is_core_config_map(&r.group, &r.kind) {
            let group = if r.group.is_empty() { "core" } else { &r.group };
            out.invalid_refs.push((
                bt::INVALID_KIND,
                format!(
                    "{at}: {group}/{} is not a supported kind (only core ConfigMap and \
                     certificates.k8s.io ClusterTrustBundle)",
                    r.kind
                ),
            ));
            continue;
        }
        match input
            .config_maps
            .iter()
            .find(|c| c.namespace == p.namespace && c.name == r.name)
        {
            None => out.invalid_refs.push((
                bt::INVALID_CA_CERTIFICATE_REF,
                format!("{at}: ConfigMap {}/{} does not exist", p.namespace, r.name),
            )),
            Some(c) if !c.has_ca_certificate => out.invalid_refs.push((
                bt::INVALID_CA_CERTIFICATE_REF,
                format!(
                    "{at}: ConfigMap {}/{} has no non-empty ca.crt in data",
                    p.namespace, r.name
                ),
            )),
            Some(_) => out.valid_refs.push(r.name.clone()),
        }
    }
    if let Some(w) = p.well_known_ca_certificates.as_deref()
        && w != "System"
    {
        out.unknown_well_known = Some(w.to_owned());
    }
    out
}

impl<'i> Builder<'i> {
    /// The slot of the policy in effect for a backend (`None`: no policy, or not a core
    /// Service), creating it on first use.
    pub(super) fn tls_slot(
        &mut self,
        group: &str,
        kind: &str,
        ns: &str,
        name: &str,
        port: Option<u16>,
    ) -> Option<u32> {
        if self.tls_candidates.is_empty() || !(group.is_empty() && kind == "Service") {
            return None;
        }
        let input = self.input;
        let port_name = self
            .svc_by_name
            .get(&(ns, name))
            .and_then(|i| input.services.get(*i))
            .and_then(|s| s.ports.iter().find(|p| Some(p.port) == port))
            .and_then(|p| p.name.as_deref());
        let winner = *deciding(&self.tls_candidates, ns, name, port_name)?.first()?;
        if let Some((_, slot)) = self.tls_slot_of.iter().find(|(p, _)| *p == winner) {
            return Some(*slot);
        }
        let p = input.backend_tls_policies.get(winner)?;
        let check = check_ca(input, p);
        let tls = BackendTls {
            policy_namespace: p.namespace.clone(),
            policy_name: p.name.clone(),
            hostname: p.hostname.clone(),
            ca_certificate_refs: check.valid_refs.clone(),
            cluster_trust_bundles: check.valid_bundles.clone(),
            well_known_ca_certificates: p.well_known_ca_certificates.clone(),
            subject_alt_names: p.subject_alt_names.clone(),
            options: p.options.iter().cloned().collect(),
        };
        let failure = check.failure().map(|why| {
            format!("BackendTLSPolicy {}/{}: {why}", p.namespace, p.name).into_boxed_str()
        });
        let slot = u32::try_from(self.tls_slots.len()).ok()?;
        self.tls_slots.push(TlsSlot { tls, failure });
        self.tls_slot_of.push((winner, slot));
        Some(slot)
    }

    /// The (ancestor, Service target) pairs this build's accepted routes reach, on Services
    /// some BackendTLSPolicy of the input targets (validated or not): what each policy's
    /// status is made of ([`policy_status`]). Kept per part, so that an update recomputes the
    /// status from every part's pairs (`docs/incremental.md`).
    pub(super) fn tls_reached(&self, status: &StatusSource) -> Vec<TlsReached> {
        let input = self.input;
        if input.backend_tls_policies.is_empty() {
            return Vec::new();
        }
        // compiled route id -> input route index
        let mut input_of: BTreeMap<u32, usize> = BTreeMap::new();
        for (ri, id) in self.route_id.iter().enumerate() {
            if let Some(id) = id {
                input_of.insert(*id, ri);
            }
        }
        // (route, ancestor, backend target) triples that carry traffic
        let mut reached: BTreeSet<(u32, PolicyAncestorRef, u32)> = BTreeSet::new();
        for (route_id, pi) in status.accepted_pairs() {
            let Some(ri) = input_of.get(&route_id).copied() else {
                continue;
            };
            let Some(parent) = self.route_irs.ir(ri).and_then(|r| r.parents.get(pi)) else {
                continue;
            };
            let (ancestor, flavour) = match parent.kind {
                ParentRefKind::Service => (("", "Service"), 0),
                ParentRefKind::Gateway => (("gateway.networking.k8s.io", "Gateway"), 1),
                _ => continue,
            };
            let ancestor = PolicyAncestorRef {
                group: ancestor.0.into(),
                kind: ancestor.1.into(),
                namespace: parent.namespace.to_string(),
                name: parent.name.to_string(),
            };
            let Some(ids) = self
                .rule_ids
                .get(ri)
                .and_then(|s| s.get(flavour))
                .copied()
                .flatten()
            else {
                continue;
            };
            for id in self.ids(ids).iter().flatten() {
                let Some(rule) = self.rules.get(*id as usize) else {
                    continue;
                };
                let Action::Backends(start, len) = rule.action else {
                    continue;
                };
                let (start, len) = (start as usize, len as usize);
                for b in self.backends.get(start..start + len).unwrap_or(&[]) {
                    if !matches!(b.state, BackendState::Invalid(_)) {
                        reached.insert((route_id, ancestor.clone(), b.target));
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (route, ancestor, t) in reached {
            let Some(target) = self.targets.get(t as usize) else {
                continue;
            };
            if !(target.group.is_empty() && &*target.kind == "Service") {
                continue;
            }
            let (ns, svc) = (&*target.namespace, &*target.name);
            if !targeted(input, ns, svc) {
                continue;
            }
            let port_name = self
                .svc_by_name
                .get(&(ns, svc))
                .and_then(|i| input.services.get(*i))
                .and_then(|s| s.ports.iter().find(|p| Some(p.port) == target.port))
                .and_then(|p| p.name.as_deref());
            out.push(TlsReached {
                route,
                ancestor,
                namespace: ns.into(),
                service: svc.into(),
                port_name: port_name.map(Into::into),
            });
        }
        out.sort();
        out.dedup();
        out
    }
}

/// Some policy of `input` (valid or not) targets core Service `ns/svc`.
fn targeted(input: &TableInput, ns: &str, svc: &str) -> bool {
    input.backend_tls_policies.iter().any(|p| {
        p.namespace == ns
            && p.targets
                .iter()
                .any(|t| t.group.is_empty() && t.kind == "Service" && t.name == svc)
    })
}

/// Every BackendTLSPolicy's status per ancestor, from the policies and ConfigMaps of `input`
/// and the (ancestor, namespace, Service, port name) pairs the accepted routes reach: the
/// parents (Gateways, mesh Services) of the accepted routes whose valid backendRefs reach a
/// Service port the policy targets.
pub(crate) fn policy_status(
    input: &TableInput,
    reached: &BTreeSet<(&PolicyAncestorRef, &str, &str, Option<&str>)>,
) -> Vec<BackendTlsPolicyStatus> {
    if input.backend_tls_policies.is_empty() {
        return Vec::new();
    }
    let tls_candidates = candidates(input);
    // per policy, per ancestor: whether it is in effect on some reached target there
    let mut related: BTreeMap<(usize, PolicyAncestorRef), bool> = BTreeMap::new();
    // the winner that beat a policy, for the Conflicted message
    let mut beaten_by: BTreeMap<usize, usize> = BTreeMap::new();
    for &(ancestor, ns, svc, port_name) in reached {
        if let Some(list) = deciding(&tls_candidates, ns, svc, port_name) {
            for (k, p) in list.iter().enumerate() {
                let won = k == 0;
                *related.entry((*p, ancestor.clone())).or_default() |= won;
                if !won && let Some(w) = list.first() {
                    beaten_by.entry(*p).or_insert(*w);
                }
            }
        }
        // a policy that failed validation is reported where it would apply
        for (i, p) in input.backend_tls_policies.iter().enumerate() {
            if p.invalid.is_some()
                && p.namespace == ns
                && p.targets.iter().any(|tr| {
                    tr.group.is_empty()
                        && tr.kind == "Service"
                        && tr.name == svc
                        && (tr.section_name.is_none() || tr.section_name.as_deref() == port_name)
                })
            {
                related.entry((i, ancestor.clone())).or_default();
            }
        }
    }
    let mut out = Vec::with_capacity(input.backend_tls_policies.len());
    for (i, p) in input.backend_tls_policies.iter().enumerate() {
        let check = check_ca(input, p);
        let ancestors: Vec<PolicyAncestorStatus> = related
            .range((i, PolicyAncestorRef::min())..)
            .take_while(|((pi, _), _)| *pi == i)
            .take(MAX_ANCESTORS)
            .map(|((_, a), effective)| PolicyAncestorStatus {
                ancestor_ref: a.clone(),
                conditions: conditions(input, p, &check, *effective, beaten_by.get(&i)),
            })
            .collect();
        out.push(BackendTlsPolicyStatus {
            namespace: p.namespace.clone(),
            name: p.name.clone(),
            ancestors,
        });
    }
    out.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    out
}

/// The pairs of [`policy_status`] from one build's [`TlsReached`] list.
pub(crate) fn reached_pairs(
    list: &[TlsReached],
) -> BTreeSet<(&PolicyAncestorRef, &str, &str, Option<&str>)> {
    list.iter()
        .map(|r| {
            (
                &r.ancestor,
                &*r.namespace,
                &*r.service,
                r.port_name.as_deref(),
            )
        })
        .collect()
}

impl PolicyAncestorRef {
    /// The smallest ref, to start a range.
    fn min() -> Self {
        PolicyAncestorRef {
            group: String::new(),
            kind: String::new(),
            namespace: String::new(),
            name: String::new(),
        }
    }
}

/// `Accepted` and `ResolvedRefs` of policy `p` for one ancestor where it is in effect
/// (`effective`) or lost to `beaten_by` (BackendTLSPolicy condition reasons).
fn conditions(
    input: &TableInput,
    p: &BackendTlsPolicyIr,
    check: &CaCheck,
    effective: bool,
    beaten_by: Option<&usize>,
) -> Vec<RouteCondition> {
    if let Some(inv) = &p.invalid {
        return vec![RouteCondition::new(
            ACCEPTED,
            false,
            inv.reason,
            inv.message.clone(),
        )];
    }
    let accepted = if !effective {
        let winner = beaten_by
            .and_then(|w| input.backend_tls_policies.get(*w))
            .map_or_else(
                || "another BackendTLSPolicy".to_owned(),
                |w| format!("BackendTLSPolicy {}/{}", w.namespace, w.name),
            );
        RouteCondition::new(
            ACCEPTED,
            false,
            bt::CONFLICTED,
            format!("{winner} targets the same Service (and sectionName) and takes precedence"),
        )
    } else if !check.invalid_refs.is_empty()
        && check.valid_refs.is_empty()
        && check.valid_bundles.is_empty()
    {
        RouteCondition::new(
            ACCEPTED,
            false,
            bt::NO_VALID_CA_CERTIFICATE,
            "no caCertificateRefs entry is valid",
        )
    } else if let Some(w) = &check.unknown_well_known {
        RouteCondition::new(
            ACCEPTED,
            false,
            bt::INVALID,
            format!("wellKnownCACertificates {w:?} is not supported (only System)"),
        )
    } else {
        RouteCondition::new(ACCEPTED, true, bt::ACCEPTED, "the policy is accepted")
    };
    let resolved = match check.invalid_refs.first() {
        Some((reason, _)) => {
            let msgs: Vec<&str> = check.invalid_refs.iter().map(|(_, m)| m.as_str()).collect();
            RouteCondition::new(bt::RESOLVED_REFS, false, reason, msgs.join("; "))
        }
        None => RouteCondition::new(
            bt::RESOLVED_REFS,
            true,
            bt::RESOLVED_REFS,
            "all references are resolved",
        ),
    };
    vec![accepted, resolved]
}
