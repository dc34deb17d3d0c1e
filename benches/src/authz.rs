//! The authorization fixture: `policies` XAuthorizationPolicies over 1,000 namespaces (or fewer
//! when there are fewer policies), 10 Pods per namespace, each policy selecting one Pod by its
//! `app` label with three rules (two ServiceAccount sources, a SPIFFE source, a port). The
//! measured Pod `ns-0/pod-0` is selected by exactly three policies whatever the total, so
//! instructions per decision must not change between 100 and 10,000 policies.

use gamma_authz::{Authorizer, Config, Identity, WorkloadId};
use gamma_model::{Snapshot, decode};

/// Pods per namespace.
pub const PODS_PER_NS: usize = 10;
/// Policies selecting the measured Pod.
pub const SELECTING: usize = 3;

/// The cluster's manifests, in texts of at most 5,000 documents (decode caps one text at
/// 10,000).
pub fn authz_yaml(policies: usize) -> Vec<String> {
    let namespaces = (policies / 10).clamp(1, 1_000);
    let mut texts = Vec::new();
    let mut out = String::new();
    let mut docs = 0usize;
    let flush = |out: &mut String, docs: &mut usize, texts: &mut Vec<String>| {
        *docs += 1;
        if (*docs).is_multiple_of(5_000) {
            texts.push(std::mem::take(out));
        }
    };
    for ns in 0..namespaces {
        for p in 0..PODS_PER_NS {
            out.push_str(&format!(
                "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: pod-{p}, namespace: ns-{ns}, labels: {{app: a{p}}}}}\n\
                 spec: {{serviceAccountName: sa-{p}}}\nstatus: {{podIP: 10.{}.{}.{p}}}\n",
                ns / 256,
                ns % 256
            ));
            flush(&mut out, &mut docs, &mut texts);
        }
    }
    for i in 0..policies {
        // The first SELECTING policies of ns-0 select pod-0; every other one selects a Pod
        // elsewhere (or another Pod of ns-0).
        let ns = if i < SELECTING {
            0
        } else {
            (i % namespaces).max(usize::from(namespaces > 1))
        };
        let app = if i < SELECTING {
            0
        } else {
            1 + i % (PODS_PER_NS - 1)
        };
        out.push_str(&format!(
            "---\napiVersion: gateway.networking.x-k8s.io/v1alpha1\nkind: XAuthorizationPolicy\n\
             metadata: {{name: p-{i}, namespace: ns-{ns}}}\nspec:\n  \
             targetRefs: [{{group: '', kind: Pod, selector: {{matchLabels: {{app: a{app}}}}}}}]\n  \
             action: ALLOW\n  enforcementLevel: Network\n  rules:\n  \
             - sources: [{{type: ServiceAccount, serviceAccount: {{name: client-{i}}}}}, {{type: ServiceAccount, serviceAccount: {{namespace: other, name: '*'}}}}]\n  \
             - sources: [{{type: SPIFFE, spiffe: 'spiffe://partner.example/ns/x/sa/y{i}'}}]\n  \
             - networkAttributes: {{ports: [9{:03}]}}\n",
            i % 1000
        ));
        flush(&mut out, &mut docs, &mut texts);
    }
    texts.push(out);
    texts
}

/// The snapshot and the compiled authorizer.
pub fn authz_cluster(policies: usize) -> (Snapshot, Authorizer) {
    let objects = authz_yaml(policies)
        .iter()
        .flat_map(|t| decode(t).expect("fixture decodes"))
        .collect::<Vec<_>>();
    let snapshot = Snapshot::from_resources(objects);
    let authorizer = Authorizer::build(&snapshot, Config::default());
    (snapshot, authorizer)
}

/// The measured Pod, `ns-0/pod-0`.
pub fn measured(a: &Authorizer) -> WorkloadId {
    a.workload_named("ns-0", "pod-0").expect("pod-0 exists")
}

/// A peer no rule admits on port 5432: every rule of the three selecting policies is tried
/// (the worst case). `other/anyone` is admitted by the first policy's first rule.
pub fn denied_peer() -> Identity {
    Identity::service_account("cluster.local", "ns-0", "nobody")
}
