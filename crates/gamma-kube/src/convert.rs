//! Conversions between gamma-model's Kubernetes core types and k8s-openapi's.
//!
//! Both sides are the Kubernetes API's JSON, so each conversion goes through a
//! `serde_json::Value` (never text): k8s-openapi to gamma-model keeps the fields gamma-rs models
//! (the rest of the object is not read by the engines); gamma-model to k8s-openapi gives an
//! object that converts back to the same value.

use gamma_model::k8s::{EndpointSlice, Namespace, Service};
use gamma_model::{AnyResource, DecodeError};
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::discovery::v1 as discovery;

/// Why a conversion failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The k8s-openapi object does not decode as the gamma-model type (a field gamma-rs
    /// validates has a shape it refuses). Not retryable: the object itself is the problem.
    #[error("decoding a k8s-openapi object: {0}")]
    Decode(#[source] DecodeError),
    /// The gamma-model object does not fit the k8s-openapi type. Not retryable.
    #[error("encoding as a k8s-openapi object: {0}")]
    Encode(#[source] serde_json::Error),
    /// The object decoded as another kind than asked for (its apiVersion/kind say so).
    #[error("expected a {expected}, found a {found}")]
    WrongKind {
        /// The kind asked for.
        expected: &'static str,
        /// The kind found.
        found: &'static str,
    },
}

fn decode<T: serde::Serialize>(object: &T) -> Result<AnyResource, Error> {
    let value = serde_json::to_value(object).map_err(Error::Encode)?;
    AnyResource::from_value(value).map_err(Error::Decode)
}

fn encode<T: serde::Serialize, K: serde::de::DeserializeOwned>(object: &T) -> Result<K, Error> {
    let value = serde_json::to_value(object).map_err(Error::Encode)?;
    serde_json::from_value(value).map_err(Error::Encode)
}

macro_rules! conversions {
    ($( $from:ident, $to:ident, $variant:ident, $ours:ty, $theirs:ty; )+) => {$(
        #[doc = concat!("A gamma-model `", stringify!($variant), "` from a k8s-openapi one.")]
        pub fn $from(object: &$theirs) -> Result<$ours, Error> {
            match decode(object)? {
                AnyResource::$variant(o) => Ok(o),
                other => Err(Error::WrongKind {
                    expected: stringify!($variant),
                    found: other.kind().as_str(),
                }),
            }
        }

        #[doc = concat!("A k8s-openapi `", stringify!($variant), "` from a gamma-model one.")]
        pub fn $to(object: &$ours) -> Result<$theirs, Error> {
            encode(object)
        }
    )+};
}

conversions! {
    service_from_k8s, service_to_k8s, Service, Service, core::Service;
    namespace_from_k8s, namespace_to_k8s, Namespace, Namespace, core::Namespace;
    endpoint_slice_from_k8s, endpoint_slice_to_k8s, EndpointSlice, EndpointSlice, discovery::EndpointSlice;
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
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
    /// alike (the bundled sample's Services, Namespaces and EndpointSlices, and the upstream
    /// examples' Namespaces where `GAMMA_UPSTREAM_DIR` is set).
    #[test]
    fn documents_read_by_k8s_openapi_convert_as_decode_reads_them() {
        let mut dirs =
            vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/manifests")];
        if let Some(up) = gamma_testenv::upstream::v1_6_1() {
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
                            let theirs: discovery::EndpointSlice =
                                serde_json::from_value(d).unwrap();
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

    #[test]
    fn k8s_openapi_fields_reach_the_model() {
        let theirs: core::Service = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7",
                         "labels": {"istio.io/use-waypoint": "waypoint"}},
            "spec": {"clusterIP": "10.96.0.5", "ports": [{"name": "http", "port": 80,
                     "appProtocol": "kubernetes.io/h2c"}]},
        }))
        .unwrap();
        let ours = service_from_k8s(&theirs).unwrap();
        assert_eq!(ours.metadata.resource_version.as_deref(), Some("7"));
        assert_eq!(ours.metadata.labels["istio.io/use-waypoint"], "waypoint");
        assert_eq!(ours.spec.cluster_ip.as_deref(), Some("10.96.0.5"));
        assert_eq!(ours.spec.ports[0].port, 80);
    }
}
