//! `Gateway.spec.tls` (upstream `GatewayTLSConfig`, v1.6.1, identical in the standard and
//! experimental channels): the Gateway as a TLS client of its backends (`backend`), and client
//! certificate validation for the Gateway's HTTPS listeners (`frontend`, GEP-91).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ObjectReference, SecretObjectReference};
use crate::macros::string_enum;

/// Gateway-wide TLS settings (`spec.tls`; upstream `GatewayTLSConfig`).
///
/// ```
/// let tls: gamma_model::gateway::GatewayTlsConfig = serde_json::from_value(serde_json::json!({
///     "frontend": {"default": {"validation": {"caCertificateRefs": [
///         {"group": "", "kind": "ConfigMap", "name": "ca"}]}}},
/// }))?;
/// let validation = tls.frontend.as_ref().and_then(|f| f.default.as_ref())
///     .and_then(|d| d.validation.as_ref()).unwrap();
/// assert_eq!(validation.ca_certificate_refs[0].name, "ca");
/// assert_eq!(validation.mode_or_default(), gamma_model::gateway::FrontendValidationModeType::AllowValidOnly);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayTlsConfig {
    /// The Gateway as a TLS client when it connects to backends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<GatewayBackendTls>,
    /// Validation of client certificates on the Gateway's HTTPS listeners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frontend: Option<FrontendTlsConfig>,
}

/// The Gateway's TLS client settings towards backends (upstream `GatewayBackendTLS`). Which
/// backends get TLS is decided by BackendTLSPolicy, not here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayBackendTls {
    /// The client certificate and key the Gateway presents (a `kubernetes.io/tls` Secret by
    /// default: group `""`, kind `Secret`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_certificate_ref: Option<SecretObjectReference>,
}

/// Client certificate validation for HTTPS listeners (upstream `FrontendTLSConfig`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FrontendTlsConfig {
    /// The configuration for every HTTPS listener whose port has no `perPort` entry.
    /// Required: `None` (omitted) is reported by `validate()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<TlsConfig>,
    /// Per-port overrides; at most 64, keyed by `port` (`listType=map`, each port once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_port: Vec<TlsPortConfig>,
}

/// One frontend TLS configuration (upstream `TLSConfig`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TlsConfig {
    /// Client certificate validation; setting it turns on mutual TLS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<FrontendTlsValidation>,
}

/// The frontend TLS configuration of the HTTPS listeners on one port (upstream
/// `TLSPortConfig`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TlsPortConfig {
    /// The port, 1–65535 (required; an omitted port decodes as 0 and is reported out of range).
    #[serde(default)]
    pub port: i32,
    /// The configuration for that port. Required: `None` (omitted) is reported by `validate()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<TlsConfig>,
}

/// How client certificates are validated (upstream `FrontendTLSValidation`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FrontendTlsValidation {
    /// References to objects (a ConfigMap with `ca.crt`, at Core support) holding the CA
    /// bundles clients are validated against; 1 to 16 (required).
    #[serde(default)]
    pub ca_certificate_refs: Vec<ObjectReference>,
    /// What to do with clients that present no valid certificate; defaults to
    /// [`FrontendValidationModeType::AllowValidOnly`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FrontendValidationModeType>,
}

impl FrontendTlsValidation {
    /// The mode, with the API server's default (`AllowValidOnly`) applied.
    pub fn mode_or_default(&self) -> FrontendValidationModeType {
        self.mode
            .clone()
            .unwrap_or(FrontendValidationModeType::AllowValidOnly)
    }
}

string_enum! {
    /// How a Gateway treats clients without a valid certificate (upstream
    /// `FrontendValidationModeType`).
    pub enum FrontendValidationModeType {
        /// Accept only clients whose certificate validates against the CA bundles (the default).
        AllowValidOnly => "AllowValidOnly",
        /// Accept clients without a certificate or with one that fails validation, leaving
        /// authorization to the backend (upstream: for testing, or temporary use).
        AllowInsecureFallback => "AllowInsecureFallback",
    }
}
