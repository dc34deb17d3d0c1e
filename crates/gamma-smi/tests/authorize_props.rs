//! Properties of SMI access control (smi-spec traffic-access: "Access control in this
//! specification is additive, all traffic is denied by default").

use gamma_model::meta::ObjectMeta;
use gamma_model::smi::{
    HttpMatch, HttpRouteGroup, HttpRouteMethod, IdentityBindingSubject, RuleKind, SERVICE_ACCOUNT,
    SmiTcpRoute, TrafficTarget, TrafficTargetRule, TrafficTargetSpec,
};
use gamma_model::{AnyResource, Snapshot};
use gamma_smi::{AccessRequest, Authorizer, ServiceAccountRef};
use proptest::prelude::*;

const NAMESPACES: &[&str] = &["a", "b"];
const NAMES: &[&str] = &["x", "w", "z"];

fn identity() -> impl Strategy<Value = ServiceAccountRef> {
    (
        prop::sample::select(NAMESPACES),
        prop::sample::select(NAMES),
    )
        .prop_map(|(ns, n)| ServiceAccountRef::new(ns, n))
}

fn subject(id: &ServiceAccountRef) -> IdentityBindingSubject {
    IdentityBindingSubject {
        kind: SERVICE_ACCOUNT.into(),
        name: id.name.clone(),
        namespace: Some(id.namespace.clone()),
        port: None,
    }
}

/// Specs present in every namespace: HTTPRouteGroup `g` (`api`: /api any method; `get`: GET
/// anything) and TCPRoute `t` (port 80).
fn specs() -> Vec<AnyResource> {
    let mut out = Vec::new();
    for ns in NAMESPACES {
        out.push(
            HttpRouteGroup::new(
                ObjectMeta::namespaced(*ns, "g"),
                vec![
                    HttpMatch {
                        name: "api".into(),
                        path_regex: Some("/api".into()),
                        ..HttpMatch::default()
                    },
                    HttpMatch {
                        name: "get".into(),
                        methods: vec![HttpRouteMethod::Get],
                        ..HttpMatch::default()
                    },
                ],
            )
            .into(),
        );
        out.push(SmiTcpRoute::new(ObjectMeta::namespaced(*ns, "t"), vec![80]).into());
    }
    out
}

fn target(i: usize) -> impl Strategy<Value = AnyResource> {
    (
        prop::sample::select(NAMESPACES),
        identity(),
        prop::collection::vec(identity(), 0..3),
        prop::option::of(prop::sample::subsequence(vec!["api", "get", "nope"], 0..=2)),
        any::<bool>(),
    )
        .prop_map(move |(ns, dest, sources, http, tcp)| {
            let mut rules = Vec::new();
            if let Some(ms) = http {
                rules.push(TrafficTargetRule {
                    kind: RuleKind::HttpRouteGroup,
                    name: "g".into(),
                    matches: ms.into_iter().map(str::to_owned).collect(),
                });
            }
            if tcp {
                rules.push(TrafficTargetRule {
                    kind: RuleKind::TcpRoute,
                    name: "t".into(),
                    matches: Vec::new(),
                });
            }
            TrafficTarget::new(
                ObjectMeta::namespaced(ns, format!("tt{i}")),
                TrafficTargetSpec {
                    destination: subject(&dest),
                    rules,
                    sources: sources.iter().map(subject).collect(),
                },
            )
            .into()
        })
}

fn request() -> impl Strategy<Value = AccessRequest> {
    prop_oneof![
        (
            prop::sample::select(vec!["GET", "POST"]),
            prop::sample::select(vec!["/", "/api/v1", "/x"]),
            prop::option::of(prop::sample::select(vec![80, 8080]))
        )
            .prop_map(|(m, p, port)| match port {
                Some(port) => AccessRequest::http(m, p).on_port(port),
                None => AccessRequest::http(m, p),
            }),
        prop::sample::select(vec![80, 8080]).prop_map(AccessRequest::tcp),
    ]
}

fn targets() -> impl Strategy<Value = Vec<AnyResource>> {
    (0usize..5).prop_flat_map(|n| (0..n).map(target).collect::<Vec<_>>())
}

proptest! {
    #[test]
    fn verdicts_do_not_depend_on_input_order_and_allowing_targets_really_select(
        tts in targets(),
        probes in prop::collection::vec((identity(), identity(), request()), 1..10),
    ) {
        let objects: Vec<AnyResource> = specs().into_iter().chain(tts).collect();
        let fwd = Authorizer::build(&Snapshot::from_resources(objects.clone()));
        let back = Authorizer::build(&Snapshot::from_resources(objects.into_iter().rev()));
        for (src, dst, req) in &probes {
            let v = fwd.authorize(src, dst, req);
            prop_assert_eq!(&v, &back.authorize(src, dst, req));
            let selecting: Vec<_> = fwd.targets_for(dst).cloned().collect();
            // Deny by default exactly when some TrafficTarget selects the destination.
            if selecting.is_empty() {
                prop_assert!(v.allowed && v.by.is_none());
            }
            if let Some(by) = &v.by {
                prop_assert!(v.allowed);
                prop_assert!(selecting.contains(by));
            }
        }
    }

    #[test]
    fn access_is_additive_a_new_target_never_revokes_what_another_allowed(
        tts in targets(),
        extra in target(9),
        probes in prop::collection::vec((identity(), identity(), request()), 1..10),
    ) {
        let base: Vec<AnyResource> = specs().into_iter().chain(tts).collect();
        let before = Authorizer::build(&Snapshot::from_resources(base.clone()));
        let after = Authorizer::build(&Snapshot::from_resources(base.into_iter().chain([extra])));
        for (src, dst, req) in &probes {
            let v = before.authorize(src, dst, req);
            if v.by.is_some() {
                prop_assert!(after.authorize(src, dst, req).allowed);
            }
        }
    }
}
