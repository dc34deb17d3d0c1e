//! Conversions with the `gateway-api` crate's types (feature `gateway-api-rs`), on the upstream
//! examples of Gateway API v1.6.1 (reported ignored, with the reason, without that release
//! tree) and on values those types cannot hold.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gamma_kube::gateway_api_rs::gateway_api::experimental as x;
use gamma_kube::gateway_api_rs::gateway_api::{
    backendtlspolicies, gatewayclasses, gateways, grpcroutes, httproutes, listenersets,
    referencegrants, tlsroutes,
};
use gamma_kube::gateway_api_rs::*;
use gamma_model::AnyResource;
use gamma_testenv::harness::release_v1_6_1;
use serde_json::Value;

gamma_testenv::test_main! {
    upstream_examples_round_trip_through_gateway_api_types if release_v1_6_1,
    a_value_the_gateway_api_type_cannot_hold_is_refused_with_its_path,
    another_api_version_is_refused,
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            out.push(path);
        }
    }
}

/// Every object of the upstream examples (Gateway API v1.6.1), with its file and its
/// document as written (the test's precondition `release_v1_6_1`).
fn upstream() -> Vec<(String, AnyResource, Value)> {
    let dir = gamma_testenv::upstream::v1_6_1().expect("the test's precondition");
    let root = PathBuf::from(dir).join("examples");
    let mut files = Vec::new();
    yaml_files(&root, &mut files);
    let mut out = Vec::new();
    for path in files {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let documents: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
        for r in gamma_model::decode(&text).unwrap_or_else(|e| panic!("{name}: {e}")) {
            let document = documents
                .iter()
                .find(|d| {
                    d["kind"] == r.kind().as_str()
                        && d["metadata"]["name"] == r.metadata().name.as_str()
                })
                .unwrap_or_else(|| panic!("{name}: {} not found", r.metadata().name));
            out.push((name.clone(), r, document.clone()));
        }
    }
    assert!(!out.is_empty());
    out
}

/// `ours` to `T` and back is `ours` again, and `T` to gamma-model and back is the same
/// `T`; the document as written, read by `T` itself, converts to `ours` too. Or the
/// conversion is refused as unrepresentable.
fn round_trip<T: GatewayApiType>(ours: &T::Model, document: &Value) -> Result<(), Error>
where
    T::Model: PartialEq + std::fmt::Debug,
{
    let theirs: T = match to_gateway_api(ours) {
        Ok(t) => t,
        Err(e @ Error::Unrepresentable { .. }) => return Err(e),
        Err(e) => panic!("{e}"),
    };
    let back = from_gateway_api(&theirs).unwrap();
    assert_eq!(&back, ours);
    let again: T = to_gateway_api(&back).unwrap();
    assert_eq!(
        serde_json::to_value(&again).unwrap(),
        serde_json::to_value(&theirs).unwrap()
    );
    let read: T = serde_json::from_value(document.clone()).unwrap();
    assert_eq!(&from_gateway_api(&read).unwrap(), ours);
    Ok(())
}

/// Converts `r` with every gateway-api type of its kind: (type, outcome) per type.
fn convert_all(r: &AnyResource, d: &Value) -> Vec<(&'static str, Result<(), Error>)> {
    match r {
        AnyResource::HttpRoute(o) => vec![
            ("standard", round_trip::<httproutes::HttpRoute>(o, d)),
            ("experimental", round_trip::<x::httproutes::HttpRoute>(o, d)),
        ],
        AnyResource::GrpcRoute(o) => vec![
            ("standard", round_trip::<grpcroutes::GrpcRoute>(o, d)),
            ("experimental", round_trip::<x::grpcroutes::GrpcRoute>(o, d)),
        ],
        AnyResource::TlsRoute(o) => vec![
            ("standard", round_trip::<tlsroutes::TlsRoute>(o, d)),
            ("experimental", round_trip::<x::tlsroutes::TlsRoute>(o, d)),
        ],
        AnyResource::TcpRoute(o) => {
            vec![("experimental", round_trip::<x::tcproutes::TcpRoute>(o, d))]
        }
        AnyResource::UdpRoute(o) => {
            vec![("experimental", round_trip::<x::udproutes::UdpRoute>(o, d))]
        }
        AnyResource::Gateway(o) => vec![
            ("standard", round_trip::<gateways::Gateway>(o, d)),
            ("experimental", round_trip::<x::gateways::Gateway>(o, d)),
        ],
        AnyResource::GatewayClass(o) => vec![
            ("standard", round_trip::<gatewayclasses::GatewayClass>(o, d)),
            (
                "experimental",
                round_trip::<x::gatewayclasses::GatewayClass>(o, d),
            ),
        ],
        AnyResource::ListenerSet(o) => vec![
            ("standard", round_trip::<listenersets::ListenerSet>(o, d)),
            (
                "experimental",
                round_trip::<x::listenersets::ListenerSet>(o, d),
            ),
        ],
        AnyResource::ReferenceGrant(o) => vec![
            (
                "standard",
                round_trip::<referencegrants::ReferenceGrant>(o, d),
            ),
            (
                "experimental",
                round_trip::<x::referencegrants::ReferenceGrant>(o, d),
            ),
        ],
        AnyResource::BackendTlsPolicy(o) => vec![(
            "standard",
            round_trip::<backendtlspolicies::BackendTlsPolicy>(o, d),
        )],
        AnyResource::XMesh(o) => vec![("experimental", round_trip::<x::xmeshes::XMesh>(o, d))],
        AnyResource::XBackendTrafficPolicy(o) => vec![(
            "experimental",
            round_trip::<x::xbackendtrafficpolicies::XBackendTrafficPolicy>(o, d),
        )],
        _ => Vec::new(),
    }
}

/// The value at a path as `Error::Unrepresentable` names it (`a.b[0].c`).
fn at<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    let mut v = value;
    for part in path.split('.') {
        let (name, indices) = part.split_once('[').map_or((part, ""), |(n, i)| (n, i));
        if !name.is_empty() {
            v = v.get(name)?;
        }
        for i in indices.split('[').filter(|s| !s.is_empty()) {
            v = v.get(i.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
    }
    Some(v)
}

/// Every upstream example of a kind that gateway-api 0.22 has round-trips through each of
/// its types (standard and experimental channel), or is refused naming a field it has
/// that v1.5.1 lacks; never converted with a field lost.
fn upstream_examples_round_trip_through_gateway_api_types() {
    let objects = upstream();
    let mut converted: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut refused = Vec::new();
    for (file, r, document) in &objects {
        let value = serde_json::to_value(r).unwrap();
        for (channel, outcome) in convert_all(r, document) {
            let kind = r.kind().as_str();
            match outcome {
                Ok(()) => *converted.entry((kind, channel)).or_default() += 1,
                Err(Error::Unrepresentable { path, reason, .. }) => {
                    let found = at(&value, &path);
                    assert!(
                        found.is_some_and(|v| !v.is_null()),
                        "{file}: refused at {path}, which the object does not have"
                    );
                    refused.push(format!("{file} {kind} ({channel}): {path}: {reason}"));
                }
                Err(e) => panic!("{file}: {e}"),
            }
        }
    }
    eprintln!("converted: {converted:?}");
    eprintln!("refused:\n{}", refused.join("\n"));
    // v1.6.1's TCPRoute and UDPRoute are v1; gateway-api 0.22 has only v1alpha2.
    assert!(
        refused.iter().all(|r| r.contains(": apiVersion: ")),
        "{refused:?}"
    );
    for kind in [
        "HTTPRoute",
        "GRPCRoute",
        "Gateway",
        "GatewayClass",
        "ReferenceGrant",
        "ListenerSet",
        "BackendTLSPolicy",
        "TLSRoute",
    ] {
        assert!(
            converted.contains_key(&(kind, "standard")),
            "no {kind} example converted: {converted:?}"
        );
    }
}

/// An enum value v1.5.1 does not have (gamma-model keeps unknown values; the gateway-api
/// enum cannot hold them) is refused with the field path, not dropped or replaced.
fn a_value_the_gateway_api_type_cannot_hold_is_refused_with_its_path() {
    let text = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
                metadata: {name: web, namespace: shop}\n\
                spec: {rules: [{matches: [{path: {type: Exact, value: /a}}]},\
                {matches: [{path: {type: Glob, value: '/b/*'}}]}]}\n";
    let AnyResource::HttpRoute(ours) = gamma_model::decode(text).unwrap().remove(0) else {
        panic!("an HTTPRoute")
    };
    let err = to_gateway_api::<httproutes::HttpRoute>(&ours).unwrap_err();
    let Error::Unrepresentable { kind, path, reason } = &err else {
        panic!("{err}")
    };
    assert_eq!(*kind, "HTTPRoute");
    assert_eq!(path, "spec.rules[1].matches[0].path.type");
    assert!(reason.contains("Glob"), "{reason}");
    assert!(err.to_string().contains("v1.5.1"), "{err}");
}

/// Version skew is refused at `apiVersion`: the gateway-api type is for one version.
fn another_api_version_is_refused() {
    let text = "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\n\
                metadata: {name: g, namespace: shop}\n\
                spec: {from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, \
                namespace: web}], to: [{group: '', kind: Service}]}\n";
    let AnyResource::ReferenceGrant(ours) = gamma_model::decode(text).unwrap().remove(0) else {
        panic!("a ReferenceGrant")
    };
    let err = to_gateway_api::<referencegrants::ReferenceGrant>(&ours).unwrap_err();
    assert!(
        matches!(&err, Error::Unrepresentable { path, .. } if path == "apiVersion"),
        "{err}"
    );
}
