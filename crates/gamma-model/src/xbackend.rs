//! `XBackend` and `XBackendTrafficPolicy` (`gateway.networking.x-k8s.io/v1alpha1`): a backend
//! outside the cluster, named by hostname, and the retry budget and session persistence a
//! policy attaches to backends (upstream CRDs
//! `config/crd/experimental/gateway.networking.x-k8s.io_xbackends.yaml` and
//! `..._xbackendtrafficpolicies.yaml`). XBackend is served by the experimental channel from
//! Gateway API v1.6 and reshaped in v1.7 (`port.number`, `endpointSelector`,
//! `sessionPersistence`); XBackendTrafficPolicy by the experimental channel of every supported
//! release. gamma-rs models every release's shape in one type, decodes and validates them under
//! the chosen release, and no engine reads them yet.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::gateway::{BackendTlsPolicyValidation, SecretObjectReference, SessionPersistence};
use crate::macros::string_enum;
use crate::meta::ObjectMeta;

/// The API group of XBackend and XBackendTrafficPolicy.
pub const GROUP: &str = "gateway.networking.x-k8s.io";

/// The `apiVersion` of XBackend and XBackendTrafficPolicy.
pub const API_VERSION: &str = "gateway.networking.x-k8s.io/v1alpha1";

fn api_version() -> String {
    API_VERSION.into()
}

fn xbackend_kind() -> String {
    "XBackend".into()
}

fn xbackend_traffic_policy_kind() -> String {
    "XBackendTrafficPolicy".into()
}

/// A backend outside the cluster that routes can send traffic to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XBackend {
    /// `gateway.networking.x-k8s.io/v1alpha1`.
    #[serde(default = "api_version")]
    pub api_version: String,
    /// Always `XBackend`.
    #[serde(default = "xbackend_kind")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: XBackendSpec,
    /// The observed state (parent statuses), kept opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<serde_json::Value>,
}

string_enum! {
    /// What kind of destination an [`XBackend`] is.
    pub enum XBackendType {
        /// A hostname outside the cluster (`externalHostname`).
        ExternalHostname => "ExternalHostname",
        /// Pods chosen by labels (`endpointSelector`; v1.7).
        EndpointSelector => "EndpointSelector",
    }
}

string_enum! {
    /// The protocol spoken to an [`XBackend`].
    pub enum XBackendProtocol {
        /// Plain TCP.
        Tcp => "TCP",
        /// HTTP, version negotiated.
        Http => "HTTP",
        /// HTTP/2.
        Http2 => "HTTP2",
        /// HTTP/1.1.
        Http11 => "HTTP11",
        /// HTTP/2 over cleartext.
        H2c => "H2C",
        /// The Model Context Protocol.
        Mcp => "MCP",
        /// gRPC (v1.7).
        Grpc => "GRPC",
        /// WebSocket over TLS (v1.7; requires TLS).
        Wss => "WSS",
    }
}

string_enum! {
    /// Whether and how an [`XBackend`] connection uses TLS.
    pub enum XBackendTlsMode {
        /// No TLS.
        None => "None",
        /// TLS, the server authenticated.
        ServerOnly => "ServerOnly",
        /// Mutual TLS (`clientCertificateRef` required).
        ClientAndServer => "ClientAndServer",
    }
}

/// The desired state of an [`XBackend`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XBackendSpec {
    /// The kind of destination; required (`None` only when absent, which is `Required`).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<XBackendType>,
    /// The destination for type `ExternalHostname`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_hostname: Option<ExternalHostname>,
    /// The Pods for type `EndpointSelector` (v1.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint_selector: Option<EndpointSelector>,
    /// The port to connect to; required.
    #[serde(default)]
    pub port: XBackendPort,
    /// The protocol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<XBackendProtocol>,
    /// TLS to the backend. From v1.7 the API server defaults it to `mode: None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<XBackendTls>,
    /// Session persistence, for type `EndpointSelector` only (v1.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_persistence: Option<SessionPersistence>,
}

/// The Pods an `EndpointSelector` XBackend sends to (v1.7).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EndpointSelector {
    /// Labels a Pod must carry, 1 to 64; required.
    #[serde(default)]
    pub match_labels: BTreeMap<String, String>,
}

/// A destination named by hostname.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExternalHostname {
    /// The hostname: not an IP address, not under `.cluster.local`.
    #[serde(default)]
    pub hostname: String,
}

/// The port of an [`XBackend`]: `port` (and `name`) in v1.6, renamed `number` in v1.7.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XBackendPort {
    /// A name for the port (a DNS label, or empty; v1.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The port number, 1 to 65535; required (v1.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// The port number, 1 to 65535 (v1.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<i32>,
}

impl XBackendPort {
    /// The port number, whichever release's field holds it.
    pub fn number(&self) -> Option<i32> {
        self.number.or(self.port)
    }
}

/// TLS settings of an [`XBackend`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XBackendTls {
    /// Whether TLS is used and who is authenticated; required.
    pub mode: XBackendTlsMode,
    /// The client certificate, exactly when `mode` is `ClientAndServer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_certificate_ref: Option<SecretObjectReference>,
    /// How the server's certificate is validated (the same schema as a BackendTLSPolicy's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<BackendTlsPolicyValidation>,
}

/// Retry budget and session persistence for the backends it targets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XBackendTrafficPolicy {
    /// `gateway.networking.x-k8s.io/v1alpha1`.
    #[serde(default = "api_version")]
    pub api_version: String,
    /// Always `XBackendTrafficPolicy`.
    #[serde(default = "xbackend_traffic_policy_kind")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: XBackendTrafficPolicySpec,
    /// The observed state (policy ancestor status), kept opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<serde_json::Value>,
}

/// The desired state of an [`XBackendTrafficPolicy`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XBackendTrafficPolicySpec {
    /// The backends the policy applies to; 1 to 16, unique by (group, kind, name).
    #[serde(default)]
    pub target_refs: Vec<PolicyTargetReference>,
    /// Limits on retries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_constraint: Option<RetryConstraint>,
    /// Session persistence for the targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_persistence: Option<SessionPersistence>,
}

/// A policy target in the policy's namespace (upstream `LocalPolicyTargetReference`, which has
/// no `sectionName`, unlike the BackendTLSPolicy target).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyTargetReference {
    /// The API group of the target.
    #[serde(default)]
    pub group: String,
    /// The kind of the target.
    #[serde(default)]
    pub kind: String,
    /// The name of the target.
    #[serde(default)]
    pub name: String,
}

/// Limits on retries to the targets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RetryConstraint {
    /// The share of requests that may be retries over an interval (default 20% over 10s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetDetails>,
    /// Retries always allowed whatever the budget (default 10 per second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_retry_rate: Option<RequestRate>,
}

/// A retry budget.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BudgetDetails {
    /// The percentage of active requests that may be retries, 0 to 100 (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<i32>,
    /// The window, 1s to 1h (default 10s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
}

/// A number of requests per interval.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequestRate {
    /// Requests, 1 to 1,000,000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
    /// The interval, above 0s and at most 1h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
}
