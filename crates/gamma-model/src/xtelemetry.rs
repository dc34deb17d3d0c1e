//! `XTelemetryPolicy` (`gateway.networking.x-k8s.io/v1alpha1`): tracing for the Gateways a
//! policy targets (GEP-4768; upstream CRD
//! `config/crd/experimental/gateway.networking.x-k8s.io_xtelemetrypolicies.yaml`), served by the
//! experimental channel from Gateway API v1.7. gamma-rs models, decodes and validates it under
//! the chosen release and merges its policy status for one controller
//! (`gamma_arbiter::merge_policy_status`); no engine reads it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::gateway::{BackendObjectReference, Fraction, HttpHeader, PolicyStatus};
use crate::macros::string_enum;
use crate::meta::ObjectMeta;
use crate::xbackend::{API_VERSION, PolicyTargetReference};

fn api_version() -> String {
    API_VERSION.into()
}

fn xtelemetry_policy_kind() -> String {
    "XTelemetryPolicy".into()
}

/// Tracing settings for the objects a policy targets.
///
/// ```
/// use gamma_model::AnyResource;
/// use gamma_model::xtelemetry::TracingMode;
/// let text = r#"
/// apiVersion: gateway.networking.x-k8s.io/v1alpha1
/// kind: XTelemetryPolicy
/// metadata: {name: trace-all, namespace: infra}
/// spec:
///   targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: edge}]
///   tracing:
///     mode: Enabled
///     provider: {backendRef: {name: otel-collector, port: 4317}}
///     samplingRate: {numerator: 1, denominator: 100}
/// "#;
/// let objects = gamma_model::decode(text)?;
/// let [AnyResource::XTelemetryPolicy(policy)] = objects.as_slice() else {
///     unreachable!()
/// };
/// let tracing = policy.spec.tracing.as_ref().unwrap();
/// assert_eq!(tracing.effective_mode(), TracingMode::Enabled);
/// assert!(gamma_model::Validate::validate(policy).is_ok());
/// # Ok::<(), gamma_model::DecodeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XTelemetryPolicy {
    /// `gateway.networking.x-k8s.io/v1alpha1`.
    #[serde(default = "api_version")]
    pub api_version: String,
    /// Always `XTelemetryPolicy`.
    #[serde(default = "xtelemetry_policy_kind")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: XTelemetryPolicySpec,
    /// The observed state: an entry per ancestor and controller (GEP-713 PolicyStatus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PolicyStatus>,
}

/// The desired state of an [`XTelemetryPolicy`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XTelemetryPolicySpec {
    /// The objects the policy applies to, in its namespace; 1 to 16.
    #[serde(default)]
    pub target_refs: Vec<PolicyTargetReference>,
    /// Tracing; required by a rule of the CRD ("at least one of the fields in \[tracing\] must be
    /// set").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracing: Option<TracingConfig>,
}

string_enum! {
    /// Whether tracing is on for the targets.
    pub enum TracingMode {
        /// Traces are produced and sent to `provider`.
        Enabled => "Enabled",
        /// No traces.
        Disabled => "Disabled",
        /// The implementation decides (the default).
        ImplementationDefault => "ImplementationDefault",
    }
}

/// How the targets are traced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TracingConfig {
    /// On, off, or the implementation's choice (defaults to `ImplementationDefault`); every other
    /// field needs `Enabled`, and `provider` is required then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<TracingMode>,
    /// Where traces are sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<TracingProvider>,
    /// The share of requests traced when no parent span decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling_rate: Option<Fraction>,
    /// Sampling of requests that carry a parent span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_based_sampling: Option<ParentBasedSampling>,
    /// The service name spans carry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_name: Option<String>,
    /// The spans' name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_name: Option<String>,
    /// Attributes added to every span, unique by name. An empty list is present (and needs
    /// `Enabled`), unlike an omitted one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Vec<TracingAttribute>>,
}

impl TracingConfig {
    /// The mode after defaulting: `mode`, else `ImplementationDefault`.
    pub fn effective_mode(&self) -> TracingMode {
        self.mode
            .clone()
            .unwrap_or(TracingMode::ImplementationDefault)
    }
}

/// A trace collector.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TracingProvider {
    /// The collector: a Service (with a port) or an XBackend (without one).
    #[serde(default)]
    pub backend_ref: BackendObjectReference,
    /// Headers sent to the collector; at most 16, unique by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<HttpHeader>>,
}

/// Sampling of requests that carry a parent span.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParentBasedSampling {
    /// Whether the parent's decision is followed (defaults to `ImplementationDefault`);
    /// `samplingRate` needs `Enabled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<TracingMode>,
    /// The share of such requests traced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling_rate: Option<Fraction>,
}

string_enum! {
    /// Where a span attribute's value comes from.
    pub enum AttributeSourceType {
        /// A request header (`headerName`).
        Header => "Header",
        /// A fixed value (`literalValue`).
        Literal => "Literal",
        /// An implementation attribute (`attributeKey`).
        Attribute => "Attribute",
    }
}

/// An attribute added to spans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TracingAttribute {
    /// The attribute's name (the list's key).
    pub name: String,
    /// Where its value comes from; the matching field below is required and the others must
    /// be absent.
    pub source_type: AttributeSourceType,
    /// The request header (`Header`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_name: Option<String>,
    /// The value (`Literal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub literal_value: Option<String>,
    /// The implementation attribute (`Attribute`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute_key: Option<String>,
}
