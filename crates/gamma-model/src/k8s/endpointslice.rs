//! `discovery.k8s.io/v1/EndpointSlice`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::meta::ObjectMeta;

/// The label that ties an EndpointSlice to its Service.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

/// A slice of a Service's endpoints (its backend facet).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointSlice {
    /// `discovery.k8s.io/v1`.
    #[serde(default = "api_version")]
    pub api_version: String,
    /// Always `EndpointSlice`.
    #[serde(default = "kind")]
    pub kind: String,
    /// Object metadata; the `kubernetes.io/service-name` label names the Service.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// `IPv4`, `IPv6` or `FQDN`.
    #[serde(default)]
    pub address_type: String,
    /// The endpoints.
    #[serde(default)]
    pub endpoints: Vec<Endpoint>,
    /// The ports, shared by every endpoint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<EndpointPort>,
}

fn api_version() -> String {
    "discovery.k8s.io/v1".into()
}

fn kind() -> String {
    "EndpointSlice".into()
}

impl EndpointSlice {
    /// The Service this slice belongs to (its `kubernetes.io/service-name` label).
    pub fn service_name(&self) -> Option<&str> {
        self.metadata
            .labels
            .get(SERVICE_NAME_LABEL)
            .map(String::as_str)
    }

    /// Whether any endpoint is ready (an absent `ready` counts as ready, as in Kubernetes).
    pub fn has_ready_endpoint(&self) -> bool {
        self.endpoints.iter().any(Endpoint::is_ready)
    }
}

/// One endpoint: addresses and readiness.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// The addresses (one for IP families).
    #[serde(default)]
    pub addresses: Vec<String>,
    /// Readiness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<EndpointConditions>,
}

impl Endpoint {
    /// Whether the endpoint is ready; unknown readiness counts as ready.
    pub fn is_ready(&self) -> bool {
        self.conditions
            .as_ref()
            .and_then(|c| c.ready)
            .unwrap_or(true)
    }
}

/// The conditions of an endpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointConditions {
    /// Ready to receive traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
    /// Serving (may be true while terminating).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serving: Option<bool>,
    /// Terminating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminating: Option<bool>,
}

/// A port of an EndpointSlice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointPort {
    /// The name, matching the Service port name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The port number on the endpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// `TCP`, `UDP` or `SCTP`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// The application protocol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_protocol: Option<String>,
}
