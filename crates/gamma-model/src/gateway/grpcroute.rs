//! `GRPCRoute` (`gateway.networking.k8s.io/v1`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    BackendRef, GatewayDefaultScope, HttpHeaderFilter, HttpRequestMirrorFilter,
    LocalObjectReference, MatchType, ParentReference, RouteStatus, SessionPersistence,
};
use crate::macros::string_enum;
use crate::meta::ObjectMeta;

/// A gRPC route: rules matching gRPC service/method and headers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrpcRoute {
    /// `gateway.networking.k8s.io/v1`.
    #[serde(default = "super::v1")]
    pub api_version: String,
    /// Always `GRPCRoute`.
    #[serde(default = "GrpcRoute::kind_name")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: GrpcRouteSpec,
    /// The observed state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RouteStatus>,
}

impl GrpcRoute {
    fn kind_name() -> String {
        "GRPCRoute".into()
    }

    /// A new `v1` GRPCRoute.
    pub fn new(metadata: ObjectMeta, spec: GrpcRouteSpec) -> Self {
        GrpcRoute {
            api_version: super::v1(),
            kind: Self::kind_name(),
            metadata,
            spec,
            status: None,
        }
    }
}

/// The desired state of a [`GrpcRoute`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrpcRouteSpec {
    /// Parents; at most 32.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parent_refs: Vec<ParentReference>,
    /// Hostnames; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hostnames: Vec<String>,
    /// Rules; at most 16 (no default, no minimum).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<GrpcRouteRule>,
    /// **\[experimental\]** default Gateway attachment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_default_gateways: Option<GatewayDefaultScope>,
}

/// One gRPC rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrpcRouteRule {
    /// An optional rule name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Matches, ORed; empty matches every gRPC request. At most 64.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<GrpcRouteMatch>,
    /// Filters; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<GrpcRouteFilter>,
    /// Backends; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backend_refs: Vec<GrpcBackendRef>,
    /// **\[experimental\]** session persistence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_persistence: Option<SessionPersistence>,
}

/// A gRPC match: method AND headers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrpcRouteMatch {
    /// The service/method condition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<GrpcMethodMatch>,
    /// Header conditions; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<GrpcHeaderMatch>,
}

/// A gRPC service/method condition; an omitted part matches anything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrpcMethodMatch {
    /// Exact (default) or RegularExpression.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<MatchType>,
    /// The fully qualified service, e.g. `helloworld.Greeter`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    /// The method, e.g. `SayHello`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

/// A gRPC header condition (same semantics as HTTP header matches).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrpcHeaderMatch {
    /// Exact (default) or RegularExpression.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<MatchType>,
    /// The header name.
    #[serde(default)]
    pub name: String,
    /// The value.
    #[serde(default)]
    pub value: String,
}

string_enum! {
    /// The type of a GRPCRoute filter.
    pub enum GrpcRouteFilterType {
        /// Modify response headers.
        ResponseHeaderModifier => "ResponseHeaderModifier",
        /// Modify request headers.
        RequestHeaderModifier => "RequestHeaderModifier",
        /// Mirror requests.
        RequestMirror => "RequestMirror",
        /// An implementation-specific filter.
        ExtensionRef => "ExtensionRef",
    }
}

/// A gRPC filter: `type` plus exactly the matching field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrpcRouteFilter {
    /// The filter type.
    #[serde(rename = "type")]
    pub type_: GrpcRouteFilterType,
    /// For `RequestHeaderModifier`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_header_modifier: Option<HttpHeaderFilter>,
    /// For `ResponseHeaderModifier`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_header_modifier: Option<HttpHeaderFilter>,
    /// For `RequestMirror`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_mirror: Option<HttpRequestMirrorFilter>,
    /// For `ExtensionRef`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension_ref: Option<LocalObjectReference>,
}

/// A weighted backend of a gRPC rule, with its own filters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", from = "GrpcBackendRefWire")]
pub struct GrpcBackendRef {
    /// The backend and its weight.
    #[serde(flatten)]
    pub backend_ref: BackendRef,
    /// Filters applied only when this backend is chosen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<GrpcRouteFilter>,
}

super::shared::flat_backend_ref!(
    GrpcBackendRef,
    GrpcBackendRefWire,
    "GrpcBackendRef",
    GrpcRouteFilter,
    "Filters applied only when this backend is chosen."
);
