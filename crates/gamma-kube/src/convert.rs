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
