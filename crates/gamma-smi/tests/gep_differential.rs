//! The TrafficTarget to XAuthorizationPolicy conversion (`gamma_smi::gep`) checked against
//! gamma-smi's own TrafficTarget evaluator: the converted policies, evaluated by the GEP-3779
//! engine (gamma-authz), give the evaluator's verdict for every (source ServiceAccount,
//! destination Pod, port) of L4-only TrafficTargets (TCPRoute rules, `destination.port`);
//! where they cannot (Pod selection by label), the report says so.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use std::collections::BTreeMap;

use gamma_authz::{Config, Identity};
use gamma_model::k8s::Pod;
use gamma_model::meta::ObjectMeta;
use gamma_model::smi::{
    IdentityBindingSubject, RuleKind, SERVICE_ACCOUNT, SmiTcpRoute, TrafficTarget,
    TrafficTargetRule, TrafficTargetSpec,
};
use gamma_model::{AnyResource, Snapshot};
use gamma_smi::gep::{PolicyConversion, convert_traffic_targets};
use gamma_smi::{AccessRequest, Authorizer, ServiceAccountRef, Severity};
use proptest::prelude::*;

const NAMESPACES: &[&str] = &["a", "b"];
const ACCOUNTS: &[&str] = &["x", "w", "z"];
const PORTS: &[i32] = &[79, 80, 81, 82];
/// TCPRoutes present in every namespace (`every`: no ports, i.e. every port); `missing` is
/// referenced but never defined.
const TCP_ROUTES: &[(&str, &[i32])] = &[("p80", &[80]), ("p80-81", &[80, 81]), ("every", &[])];
const RULES: &[&str] = &["p80", "p80-81", "every", "missing"];

#[derive(Debug, Clone)]
struct Target {
    namespace: &'static str,
    destination: (&'static str, &'static str),
    port: Option<i32>,
    rules: Vec<&'static str>,
    sources: Vec<(&'static str, &'static str)>,
}

fn account() -> impl Strategy<Value = (&'static str, &'static str)> {
    (
        prop::sample::select(NAMESPACES),
        prop::sample::select(ACCOUNTS),
    )
}

fn target() -> impl Strategy<Value = Target> {
    (
        prop::sample::select(NAMESPACES),
        account(),
        prop::option::weighted(0.3, prop::sample::select(PORTS)),
        prop::collection::vec(prop::sample::select(RULES), 0..3),
        prop::collection::vec(account(), 0..3),
    )
        .prop_map(|(namespace, destination, port, rules, sources)| Target {
            namespace,
            destination,
            port,
            rules,
            sources,
        })
}

fn subject((ns, name): (&str, &str), port: Option<i32>) -> IdentityBindingSubject {
    IdentityBindingSubject {
        kind: SERVICE_ACCOUNT.into(),
        name: name.into(),
        namespace: Some(ns.into()),
        port,
    }
}

fn traffic_target(i: usize, t: &Target) -> AnyResource {
    let mut tt = TrafficTarget::new(
        ObjectMeta::namespaced(t.namespace, format!("tt{i}")),
        TrafficTargetSpec {
            destination: subject(t.destination, t.port),
            rules: t
                .rules
                .iter()
                .map(|r| TrafficTargetRule {
                    kind: RuleKind::TcpRoute,
                    name: (*r).into(),
                    matches: Vec::new(),
                })
                .collect(),
            sources: t.sources.iter().map(|s| subject(*s, None)).collect(),
        },
    );
    if t.port.is_some() {
        // `destination.port` is a v1alpha2 field.
        tt.api_version = "access.smi-spec.io/v1alpha2".into();
    }
    tt.into()
}

/// Pods `(namespace, ServiceAccount, labels)`.
type PodSpec = (&'static str, &'static str, BTreeMap<String, String>);

/// Pods whose `app` label is their ServiceAccount (the common case the conversion relies on),
/// with a varying `version` label.
fn labelled_pods() -> impl Strategy<Value = Vec<PodSpec>> {
    prop::collection::vec((account(), 0..3u8), 0..6).prop_map(|v| {
        v.into_iter()
            .map(|((ns, sa), version)| {
                let mut labels = BTreeMap::from([("app".to_owned(), sa.to_owned())]);
                if version > 0 {
                    labels.insert("version".into(), format!("v{version}"));
                }
                (ns, sa, labels)
            })
            .collect()
    })
}

/// Pods with labels unrelated to their ServiceAccount (selectors may catch other accounts'
/// Pods, or every Pod of the namespace).
fn arbitrary_pods() -> impl Strategy<Value = Vec<PodSpec>> {
    prop::collection::vec(
        (
            account(),
            prop::option::of(prop::sample::select(&["p", "q"][..])),
        ),
        0..6,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|((ns, sa), app)| {
                let labels = app
                    .map(|a| BTreeMap::from([("app".to_owned(), a.to_owned())]))
                    .unwrap_or_default();
                (ns, sa, labels)
            })
            .collect()
    })
}

fn snapshot(pods: &[PodSpec], targets: &[Target]) -> Snapshot {
    let mut resources: Vec<AnyResource> = Vec::new();
    for ns in NAMESPACES {
        for (name, ports) in TCP_ROUTES {
            resources
                .push(SmiTcpRoute::new(ObjectMeta::namespaced(*ns, *name), ports.to_vec()).into());
        }
    }
    for (i, (ns, sa, labels)) in pods.iter().enumerate() {
        let labels: Vec<(&str, &str)> = labels
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        resources.push(AnyResource::Pod(Pod::new(
            *ns,
            format!("pod{i}"),
            sa,
            [],
            labels,
        )));
    }
    for (i, t) in targets.iter().enumerate() {
        resources.push(traffic_target(i, t));
    }
    Snapshot::from_resources(resources)
}

/// Every (source, Pod, port) where the evaluator and the converted policies disagree:
/// `(source, pod namespace/name, port, SMI verdict)`.
fn differences(snap: &Snapshot, conversion: &PolicyConversion) -> Vec<(String, String, i32, bool)> {
    let smi = Authorizer::build(snap);
    let mut with_policies = snap.clone();
    for p in &conversion.policies {
        with_policies.upsert(AnyResource::XAuthorizationPolicy(p.clone()));
    }
    let config = Config::default();
    let gep = gamma_authz::Authorizer::build(&with_policies, config.clone());
    let mut out = Vec::new();
    for pod in snap.pods() {
        let ns = pod.metadata.namespace_or_default();
        let destination = ServiceAccountRef::new(ns, pod.service_account());
        let workload = gep.workload_named(ns, &pod.metadata.name).unwrap();
        for src_ns in NAMESPACES {
            for src in ACCOUNTS {
                let source = ServiceAccountRef::new(*src_ns, *src);
                let peer = Identity::service_account(&config.trust_domain, src_ns, src);
                for &port in PORTS {
                    let expected = smi
                        .authorize(&source, &destination, &AccessRequest::tcp(port))
                        .allowed;
                    let got = gep
                        .decide(Some(&peer), workload, u16::try_from(port).unwrap())
                        .allowed();
                    if expected != got {
                        out.push((
                            source.to_string(),
                            format!("{ns}/{}", pod.metadata.name),
                            port,
                            expected,
                        ));
                    }
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// L4-only TrafficTargets whose destination Pods carry their ServiceAccount as a label:
    /// the converted policies decide every TCP request as gamma-smi's evaluator does, every
    /// policy validates, and the report has nothing widened or narrowed except destinations
    /// with no Pod (which no request here can reach).
    #[test]
    fn converted_l4_traffic_targets_decide_as_the_smi_evaluator(
        pods in labelled_pods(),
        targets in prop::collection::vec(target(), 0..4),
    ) {
        let snap = snapshot(&pods, &targets);
        let conversion = convert_traffic_targets(&snap);
        for p in &conversion.policies {
            prop_assert!(gamma_model::Validate::validate(p).is_ok(), "{p:?}");
        }
        prop_assert_eq!(differences(&snap, &conversion), vec![]);
        for f in conversion.report.findings() {
            if matches!(f.severity, Severity::Widened | Severity::Narrowed) {
                prop_assert!(f.message.contains("no Pod of ServiceAccount"), "{f}");
            }
        }
    }

    /// With labels unrelated to ServiceAccounts, a selector may catch other accounts' Pods:
    /// every Pod on which the verdicts differ is named by a widened or narrowed finding, with
    /// the right direction (allowed by the policies but not by SMI: widened).
    #[test]
    fn every_difference_is_in_the_report(
        pods in arbitrary_pods(),
        targets in prop::collection::vec(target(), 0..4),
    ) {
        let snap = snapshot(&pods, &targets);
        let conversion = convert_traffic_targets(&snap);
        for (source, pod, port, smi_allowed) in differences(&snap, &conversion) {
            let wanted = if smi_allowed { Severity::Narrowed } else { Severity::Widened };
            prop_assert!(
                conversion
                    .report
                    .findings()
                    .iter()
                    .any(|f| f.severity == wanted && f.message.contains(&pod)),
                "{source} to {pod} on {port}: SMI allowed={smi_allowed}, no {wanted} finding \
                 names {pod}:\n{}",
                conversion.report
            );
        }
    }
}
