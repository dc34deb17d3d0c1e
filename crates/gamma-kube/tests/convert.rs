//! gamma-kube's conversions between gamma-model's core types and k8s-openapi's, on real
//! documents: the bundled sample cluster, and the upstream Gateway API examples (reported
//! ignored, with the reason, when the release data cannot be had).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use gamma_kube::convert::*;
use gamma_model::AnyResource;
use gamma_testenv::harness::release_v1_6_1;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::discovery::v1 as discovery;

gamma_testenv::test_main! {
    sample_core_objects_round_trip_through_k8s_openapi,
    documents_read_by_k8s_openapi_convert_as_decode_reads_them,
    upstream_documents_read_by_k8s_openapi_convert_as_decode_reads_them if release_v1_6_1,
}

/// Every Service, Namespace and EndpointSlice of the bundled sample cluster.
fn sample() -> Vec<AnyResource> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/manifests");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            out.extend(gamma_model::decode(&std::fs::read_to_string(path).unwrap()).unwrap());
        }
    }
    out
}

fn sample_core_objects_round_trip_through_k8s_openapi() {
    let mut seen = [0usize; 3];
    for r in sample() {
        match &r {
            AnyResource::Service(s) => {
                let theirs = service_to_k8s(s).unwrap();
                assert_eq!(
                    theirs.metadata.name.as_deref(),
                    Some(s.metadata.name.as_str())
                );
                assert_eq!(&service_from_k8s(&theirs).unwrap(), s);
                seen[0] += 1;
            }
            AnyResource::Namespace(n) => {
                let theirs = namespace_to_k8s(n).unwrap();
                assert_eq!(&namespace_from_k8s(&theirs).unwrap(), n);
                seen[1] += 1;
            }
            AnyResource::EndpointSlice(e) => {
                let theirs = endpoint_slice_to_k8s(e).unwrap();
                assert_eq!(&endpoint_slice_from_k8s(&theirs).unwrap(), e);
                seen[2] += 1;
            }
            _ => {}
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

/// The documents as written, read by k8s-openapi itself, convert to what
/// `gamma_model::decode` gives from the same text: both read the Kubernetes API's JSON
/// alike (the bundled sample's Services, Namespaces and EndpointSlices).
fn documents_read_by_k8s_openapi_convert_as_decode_reads_them() {
    documents_convert_as_decode_reads_them(false);
}

/// The same for the upstream examples (their Namespaces) too.
fn upstream_documents_read_by_k8s_openapi_convert_as_decode_reads_them() {
    documents_convert_as_decode_reads_them(true);
}

fn documents_convert_as_decode_reads_them(upstream: bool) {
    let mut dirs =
        vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/manifests")];
    if upstream {
        let up = gamma_testenv::upstream::v1_6_1().expect("the test's precondition");
        // Every directory under the examples.
        let mut stack = vec![std::path::PathBuf::from(up).join("examples")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                }
            }
            dirs.push(dir);
        }
    }
    let mut seen = [0usize; 3];
    for dir in dirs {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "yaml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let documents: Vec<serde_json::Value> = serde_saphyr::from_multiple(&text).unwrap();
            let decoded = gamma_model::decode(&text).unwrap();
            for d in documents.into_iter().filter(|d| d.is_object()) {
                let name = d["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                let kind = d["kind"].as_str().unwrap_or_default().to_owned();
                let ours = || {
                    decoded
                        .iter()
                        .find(|r| r.kind().as_str() == kind && r.metadata().name == name)
                        .unwrap_or_else(|| panic!("{}: {kind} {name}", path.display()))
                };
                match (kind.as_str(), d["apiVersion"].as_str()) {
                    ("Service", Some("v1")) => {
                        let theirs: core::Service = serde_json::from_value(d).unwrap();
                        let AnyResource::Service(o) = ours() else {
                            unreachable!()
                        };
                        assert_eq!(&service_from_k8s(&theirs).unwrap(), o);
                        seen[0] += 1;
                    }
                    ("Namespace", Some("v1")) => {
                        let theirs: core::Namespace = serde_json::from_value(d).unwrap();
                        let AnyResource::Namespace(o) = ours() else {
                            unreachable!()
                        };
                        assert_eq!(&namespace_from_k8s(&theirs).unwrap(), o);
                        seen[1] += 1;
                    }
                    ("EndpointSlice", Some("discovery.k8s.io/v1")) => {
                        let theirs: discovery::EndpointSlice = serde_json::from_value(d).unwrap();
                        let AnyResource::EndpointSlice(o) = ours() else {
                            unreachable!()
                        };
                        assert_eq!(&endpoint_slice_from_k8s(&theirs).unwrap(), o);
                        seen[2] += 1;
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}
