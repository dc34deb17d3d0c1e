//! `authorize`: structurally generated clusters (Pods, XAuthorizationPolicies and the rest)
//! through decoding, `gamma_authz::Authorizer::build` and a decision for every workload.
//!
//! Properties: never panics; `explain` gives the same verdict and the same allowing policy and
//! rule as `decide`; a workload no policy selects gets the baseline; a peer read from any of
//! the three identity forms renders back to the same identity.
#![no_main]

use gamma_authz::{Authorizer, Baseline, Config, Identity, Reason, Verdict};
use gamma_model::Snapshot;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (values, mut u) = gamma_fuzz::frame::resources(data);
    let snapshot = Snapshot::from_resources(gamma_fuzz::cluster::decode_all(&values));
    let baseline = if u.arbitrary::<bool>().unwrap_or(false) {
        Baseline::Deny
    } else {
        Baseline::Allow
    };
    let config = Config::default()
        .baseline(baseline)
        .unauthenticated_is_any_source(u.arbitrary::<bool>().unwrap_or(true));
    let a = Authorizer::build(&snapshot, config.clone());
    for f in a.report().findings() {
        let _ = f.to_string();
    }
    // Peers: unauthenticated, the workloads' own accounts, and one from the fuzzer's bytes.
    let mut peers: Vec<Option<Identity>> = vec![None];
    for w in a.workloads().take(8) {
        if let (Some(key), Some(sa)) = (a.workload_key(w), a.workload_service_account(w)) {
            peers.push(Some(Identity::service_account("cluster.local", &key.namespace, sa)));
        }
    }
    if let Ok(text) = u.arbitrary::<&str>()
        && let Ok(id) = Identity::parse(text, &config)
    {
        // Istio principals and Linkerd identities name ServiceAccounts only.
        let is_account = matches!(id.subject(), gamma_authz::Subject::ServiceAccount { .. });
        let istio = is_account.then(|| id.istio_principal());
        for form in [Some(id.spiffe_uri()), istio, id.linkerd_identity()]
            .into_iter()
            .flatten()
        {
            let again = Identity::parse(&form, &config).expect("a rendered identity parses");
            if form.ends_with(&format!("linkerd.{}", id.trust_domain())) {
                assert_eq!(again.subject(), id.subject(), "{form}");
            } else {
                assert_eq!(again, id, "{form}");
            }
        }
        peers.push(Some(id));
    }
    let port = u.arbitrary::<u16>().unwrap_or(80);
    for w in a.workloads().take(32) {
        for peer in &peers {
            for p in [port, 80, 443] {
                let d = a.decide(peer.as_ref(), w, p);
                let e = a.explain(peer.as_ref(), w, p);
                assert_eq!(d.verdict, e.verdict, "decide and explain disagree");
                assert_eq!(a.allowed_by(&d), e.allowed_by);
                let _ = e.reason();
                if a.policies_selecting(w).is_empty() {
                    assert_eq!(d.reason, Reason::NoPolicy(baseline));
                    assert_eq!(d.verdict == Verdict::Allow, baseline == Baseline::Allow);
                }
            }
        }
    }
});
