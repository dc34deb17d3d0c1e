//! Hostile and oversized SMI input: conversion never panics, every converted resource is
//! valid, and anything left out is in the report (nothing is silently dropped;
//! docs/architecture.md: "Bad input never panics").

use gamma_model::k8s::{Service, ServicePort, ServiceSpec};
use gamma_model::meta::ObjectMeta;
use gamma_model::smi::{
    HeaderFilters, HttpMatch, HttpRouteGroup, HttpRouteMethod, Quantity, SplitMatchKind,
    TrafficSplit, TrafficSplitBackend, TrafficSplitMatch, TrafficSplitSpec,
};
use gamma_model::validate::{Channel, ValidateOptions};
use gamma_model::{AnyResource, Snapshot, Validate};
use gamma_smi::{Authorizer, convert};
use proptest::prelude::*;

fn svc(name: String, ports: Vec<i32>) -> AnyResource {
    Service::new(
        ObjectMeta::namespaced("ns", name),
        ServiceSpec {
            ports: ports
                .into_iter()
                .map(|port| ServicePort {
                    port,
                    ..ServicePort::default()
                })
                .collect(),
            ..ServiceSpec::default()
        },
    )
    .into()
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z/.*()\\[\\]|^$?+\\\\ :-]{0,12}",
        Just("(".to_owned()),
        Just(String::new()),
        Just("a".repeat(1100)),
    ]
}

fn smi_match() -> impl Strategy<Value = HttpMatch> {
    (
        prop::option::of(text()),
        prop::collection::vec(
            prop::sample::select(vec!["GET", "*", "FETCH", "PATCH"]),
            0..3,
        ),
        prop::collection::vec((text(), text()), 0..3),
    )
        .prop_map(|(path, methods, headers)| HttpMatch {
            name: String::new(),
            methods: methods.into_iter().map(HttpRouteMethod::from).collect(),
            path_regex: path,
            headers: headers.into_iter().collect::<HeaderFilters>(),
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn conversion_of_arbitrary_smi_never_panics_and_emits_only_valid_routes(
        v1alpha1 in any::<bool>(),
        weights in prop::collection::vec(
            prop_oneof![
                20 => "[0-9]{1,12}",
                2 => "[0-9]{0,3}\\.?[0-9]{0,3}[mkMGunEi]{0,2}",
                1 => Just("-1".to_owned()),
                1 => Just("9".repeat(50)),
            ],
            1..20,
        ),
        ports in prop::collection::vec(prop_oneof![Just(80), Just(8080), Just(0), Just(70000), 1..65536i32], 0..3),
        matches in prop::option::of(prop::collection::vec(smi_match(), 0..70)),
    ) {
        let mut objects = vec![svc("root".into(), ports.clone())];
        let mut backends = Vec::new();
        for (i, w) in weights.iter().enumerate() {
            objects.push(svc(format!("b{i}"), ports.clone()));
            backends.push(TrafficSplitBackend {
                service: format!("b{i}"),
                weight: Some(Quantity::new(w.as_str())),
            });
        }
        let mut spec = TrafficSplitSpec {
            service: "root".into(),
            backends,
            matches: Vec::new(),
        };
        if let Some(ms) = matches {
            let ms: Vec<HttpMatch> = ms
                .into_iter()
                .enumerate()
                .map(|(i, m)| HttpMatch { name: format!("m{i}"), ..m })
                .collect();
            objects.push(HttpRouteGroup::new(ObjectMeta::namespaced("ns", "g"), ms).into());
            spec.matches.push(TrafficSplitMatch {
                api_group: None,
                kind: SplitMatchKind::HttpRouteGroup,
                name: "g".into(),
            });
        }
        let version = if v1alpha1 { "split.smi-spec.io/v1alpha1" } else { "split.smi-spec.io/v1alpha4" };
        objects.push(TrafficSplit::new(version, ObjectMeta::namespaced("ns", "s"), spec).into());
        let snap = Snapshot::from_resources(objects);
        let out = convert(&snap);
        for r in &out.resources {
            for ch in [Channel::Standard, Channel::Experimental] {
                let v = r.validate_with(&ValidateOptions::channel(ch));
                prop_assert!(v.is_ok(), "{:?}: {:?}\n{}", ch, v, serde_json::to_string(r).unwrap());
            }
        }
        // Nothing converted means something was reported.
        if out.resources.is_empty() {
            prop_assert!(!out.report.findings().is_empty());
        }
        // More than 16 backends on a port can only be reported, never emitted (a Gateway API rule
        // takes at most 16 backendRefs). The report may instead say why nothing is split at all
        // (every weight zero, say), which also emits no route.
        if weights.len() > 16 && !ports.is_empty() {
            prop_assert!(out.resources.is_empty(), "{:?}", out.resources);
            prop_assert!(!out.report.findings().is_empty());
        }
        let _ = Authorizer::build(&snap);
    }
}
