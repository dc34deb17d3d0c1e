//! What the engine decides for a request. Decisions borrow from the route table and the
//! request; nothing is allocated to produce one. Every type serializes to the stable JSON
//! shape documented by [`crate::schema`].

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::input::HeaderEdits;
use crate::redirect::Location;
use crate::rewrite::RewrittenPath;
use gamma_model::RouteKind;

/// A route, by kind, namespace and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
pub struct RouteRef<'a> {
    /// Route kind.
    pub kind: RouteKind,
    /// Namespace.
    pub namespace: &'a str,
    /// Name.
    pub name: &'a str,
}

impl fmt::Display for RouteRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}/{}", self.kind, self.namespace, self.name)
    }
}

/// The rule that decided, with its route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
pub struct RuleRef<'a> {
    /// The route.
    pub route: RouteRef<'a>,
    /// Index of the rule in `spec.rules`.
    pub index: u16,
    /// The rule's `name`, if any.
    pub name: Option<&'a str>,
}

impl fmt::Display for RuleRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} rule {}", self.route, self.index)?;
        if let Some(n) = self.name {
            write!(f, " ({n})")?;
        }
        Ok(())
    }
}

/// A backend the request is sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
pub struct BackendTarget<'a> {
    /// API group (`""` for core Services).
    pub group: &'a str,
    /// Kind (`Service`).
    pub kind: &'a str,
    /// Namespace.
    pub namespace: &'a str,
    /// Name.
    pub name: &'a str,
    /// Service port.
    pub port: Option<u16>,
}

impl fmt::Display for BackendTarget<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !(self.group.is_empty() && self.kind == "Service") {
            write!(
                f,
                "{}/{} ",
                if self.group.is_empty() {
                    "core"
                } else {
                    self.group
                },
                self.kind
            )?;
        }
        write!(f, "{}/{}", self.namespace, self.name)?;
        if let Some(p) = self.port {
            write!(f, ":{p}")?;
        }
        Ok(())
    }
}

/// The result of a `URLRewrite` filter (Gateway API HTTPURLRewriteFilter), computed from the
/// request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct UrlRewrite<'a> {
    /// New Host header, if rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<&'a str>,
    /// New path, if rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<RewrittenPath<'a>>,
}

/// Forward the request to a backend. Fields serialize in camelCase (`backendIndex`), as every
/// other part of a decision and an explanation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Forward<'a> {
    /// The rule that matched.
    pub rule: RuleRef<'a>,
    /// The backend picked (by weight, from the caller's entropy).
    pub backend: BackendTarget<'a>,
    /// Index of the picked backendRef in the rule.
    pub backend_index: u16,
    /// Rule-level `RequestHeaderModifier`.
    pub request_headers: &'a HeaderEdits,
    /// Rule-level `ResponseHeaderModifier`.
    pub response_headers: &'a HeaderEdits,
    /// The picked backendRef's own `RequestHeaderModifier`, applied after the rule's.
    pub backend_request_headers: &'a HeaderEdits,
    /// The picked backendRef's own `ResponseHeaderModifier`.
    pub backend_response_headers: &'a HeaderEdits,
    /// `URLRewrite` result (rule filter, else the backendRef's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<UrlRewrite<'a>>,
    /// Request mirrors of the rule.
    pub mirrors: &'a [Mirror],
    /// `CORS` filter (JSON form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cors: Option<&'a serde_json::Value>,
    /// The rule's `timeouts` (GEP-1742).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeouts: Option<&'a crate::timing::RuleTimeouts>,
    /// The rule's `retry` (GEP-1731): the data plane retries as it says
    /// ([`RetryPolicy::attempts`](crate::RetryPolicy::attempts),
    /// [`RetryPolicy::is_disabled`](crate::RetryPolicy::is_disabled)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<&'a crate::timing::RetryPolicy>,
    /// `ExtensionRef` filters passed through (only with `ExtensionRefs::PassThrough`).
    pub extensions: &'a [String],
    /// The TLS settings of the connection to the backend, when a BackendTLSPolicy applies to
    /// it (HTTPRoute and GRPCRoute backends; see [`crate::backend_tls`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_tls: Option<&'a crate::backend_tls::BackendTls>,
    /// **\[experimental, v1.7\]** The pre-routing filters of the listener the request came
    /// through (GEP-5224): the proxy runs them, in order, before route matching; they never
    /// change the listener, and the rest of the decision is the one without them. `None` for
    /// mesh requests and listeners without filters. See [`crate::listener_filter`].
    #[serde(rename = "listenerFilters", skip_serializing_if = "Option::is_none")]
    pub listener_filters: Option<&'a crate::listener_filter::ListenerFilters>,
}

/// Redirect the client (`RequestRedirect`, Gateway API HTTPRequestRedirectFilter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Redirect<'a> {
    /// The rule that matched.
    pub rule: RuleRef<'a>,
    /// Status code (301, 302, 303, 307, 308).
    pub status: u16,
    /// The computed `Location`.
    pub location: Location<'a>,
    /// **\[experimental, v1.7\]** The pre-routing filters of the listener the request came
    /// through (GEP-5224): the proxy runs them, in order, before route matching; they never
    /// change the listener, and the rest of the decision is the one without them. `None` for
    /// mesh requests and listeners without filters. See [`crate::listener_filter`].
    #[serde(rename = "listenerFilters", skip_serializing_if = "Option::is_none")]
    pub listener_filters: Option<&'a crate::listener_filter::ListenerFilters>,
}

/// gRPC status codes the engine produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum GrpcCode {
    /// 12: no rule matched (the HTTP 404 equivalent, Gateway API GRPCRouteRule.matches).
    Unimplemented,
    /// 14: no usable backend (the HTTP 500/503 equivalent, Gateway API GRPCRouteRule.matches and
    /// HTTPRouteRule.backendRefs).
    Unavailable,
}

/// How a request is answered without forwarding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", content = "code")]
#[non_exhaustive]
pub enum Status {
    /// An HTTP status code.
    Http(u16),
    /// A gRPC status.
    Grpc(GrpcCode),
    /// The connection is rejected (TCP, TLS, UDP).
    Reject,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Http(c) => write!(f, "HTTP {c}"),
            Self::Grpc(GrpcCode::Unimplemented) => f.write_str("gRPC UNIMPLEMENTED"),
            Self::Grpc(GrpcCode::Unavailable) => f.write_str("gRPC UNAVAILABLE"),
            Self::Reject => f.write_str("connection rejected"),
        }
    }
}

/// Why the engine answered itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub enum RespondReason {
    /// Routes are bound but no rule matched (404 / UNIMPLEMENTED; Gateway API
    /// HTTPRouteRule.matches; Gateway API ParentReference; GEP-1294 namespace boundaries).
    NoMatchingRule,
    /// A Gateway port was hit but no listener accepts the request's host (Gateway API listener
    /// selection).
    NoMatchingListener,
    /// The matching rule has no backendRefs and no filter answers (500; GEP-1294 implicit
    /// backendRef).
    NoBackends,
    /// The picked backend's share is invalid (500; Gateway API HTTPRouteRule.backendRefs): not
    /// found, wrong kind, refused by ReferenceGrant, unsupported protocol.
    InvalidBackend,
    /// Every backend weight is zero (500; gateway-api PR 4769 on all-zero weights).
    AllWeightsZero,
    /// The picked backend has no ready endpoints (503; GEP-1294 implicit backendRef; Gateway API
    /// HTTPRouteRule.backendRefs).
    NoReadyEndpoints,
    /// The rule uses a filter the engine cannot apply (500; Gateway API HTTPRouteRule.filters).
    UnsupportedFilter,
    /// The request's protocol cannot be carried by the kind of routes bound here.
    ProtocolMismatch,
    /// The BackendTLSPolicy of the picked backend cannot be satisfied (500; Gateway API
    /// BackendTLSPolicyValidation.caCertificateRefs: "Connections using an invalid
    /// CACertificateRef MUST fail, and the client MUST receive an HTTP 5xx error response").
    InvalidBackendTls,
    /// The destination address and port is a ready endpoint of several headless Services
    /// with routes (500; [`crate::MeshBinding::Workloads`], beyond the spec): no Service's
    /// routes are picked over another's.
    WorkloadConflict,
    /// The listener the request came through has a pre-routing filter the engine cannot apply
    /// (500): an `ExtensionRef` listener filter under [`crate::ExtensionRefs::Reject`]
    /// (GEP-5224; never skipped silently, as route `ExtensionRef` filters are not).
    UnsupportedListenerFilter,
}

impl fmt::Display for RespondReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NoMatchingRule => "no rule matched",
            Self::NoMatchingListener => "no listener matches the host",
            Self::NoBackends => "the rule has no backends",
            Self::InvalidBackend => "the picked backend is invalid",
            Self::AllWeightsZero => "all backend weights are zero",
            Self::NoReadyEndpoints => "the picked backend has no ready endpoints",
            Self::UnsupportedFilter => "the rule uses an unsupported filter",
            Self::ProtocolMismatch => "the request protocol does not fit the bound routes",
            Self::InvalidBackendTls => "the picked backend's BackendTLSPolicy cannot be satisfied",
            Self::UnsupportedListenerFilter => {
                "the listener has a pre-routing filter the engine cannot apply"
            }
            Self::WorkloadConflict => {
                "the destination is a ready endpoint of several headless Services with routes"
            }
        })
    }
}

/// Answer without forwarding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Respond<'a> {
    /// The rule that matched, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleRef<'a>>,
    /// The status sent.
    pub status: Status,
    /// Why.
    pub reason: RespondReason,
    /// **\[experimental, v1.7\]** The pre-routing filters of the listener the request came
    /// through (GEP-5224): the proxy runs them, in order, before route matching; they never
    /// change the listener, and the rest of the decision is the one without them. `None` for
    /// mesh requests and listeners without filters. See [`crate::listener_filter`].
    #[serde(rename = "listenerFilters", skip_serializing_if = "Option::is_none")]
    pub listener_filters: Option<&'a crate::listener_filter::ListenerFilters>,
}

/// The engine's answer for one request.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "decision", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Decision<'a> {
    /// Send to a backend.
    Forward(Forward<'a>),
    /// Redirect the client.
    Redirect(Redirect<'a>),
    /// Answer with an error status.
    Respond(Respond<'a>),
    /// Nothing is bound to the destination: plain Kubernetes Service behaviour.
    Passthrough,
}

impl<'a> Decision<'a> {
    /// The rule that decided, if any.
    pub fn rule(&self) -> Option<RuleRef<'_>> {
        match self {
            Self::Forward(f) => Some(f.rule),
            Self::Redirect(r) => Some(r.rule),
            Self::Respond(r) => r.rule,
            Self::Passthrough => None,
        }
    }

    /// The pre-routing filters of the listener the request came through (GEP-5224), if any.
    pub fn listener_filters(&self) -> Option<&'a crate::listener_filter::ListenerFilters> {
        match self {
            Self::Forward(f) => f.listener_filters,
            Self::Redirect(r) => r.listener_filters,
            Self::Respond(r) => r.listener_filters,
            Self::Passthrough => None,
        }
    }

    /// The same decision, carrying a listener's pre-routing filters.
    pub(crate) fn through(mut self, filters: &'a crate::listener_filter::ListenerFilters) -> Self {
        match &mut self {
            Self::Forward(f) => f.listener_filters = Some(filters),
            Self::Redirect(r) => r.listener_filters = Some(filters),
            Self::Respond(r) => r.listener_filters = Some(filters),
            Self::Passthrough => {}
        }
        self
    }

    /// The response status, when the engine answers itself.
    pub fn status(&self) -> Option<Status> {
        match self {
            Self::Respond(r) => Some(r.status),
            Self::Redirect(r) => Some(Status::Http(r.status)),
            _ => None,
        }
    }
}

impl fmt::Display for Decision<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Forward(fw) => {
                write!(f, "forward to {} (by {})", fw.backend, fw.rule)?;
                if let Some(tls) = fw.backend_tls {
                    write!(f, ", TLS to {}", tls.hostname)?;
                }
                if let Some(rw) = fw.rewrite {
                    if let Some(p) = rw.path {
                        write!(f, ", path rewritten to {p}")?;
                    }
                    if let Some(h) = rw.host {
                        write!(f, ", host rewritten to {h}")?;
                    }
                }
                Ok(())
            }
            Self::Redirect(r) => {
                write!(f, "redirect {} to {} (by {})", r.status, r.location, r.rule)
            }
            Self::Respond(r) => {
                write!(f, "respond {}: {}", r.status, r.reason)?;
                if let Some(rule) = r.rule {
                    write!(f, " (by {rule})")?;
                }
                Ok(())
            }
            Self::Passthrough => f.write_str("pass through: no route is bound to the destination"),
        }
    }
}

/// A configured request mirror (only mirrors whose backend resolved are listed, Gateway API
/// HTTPRequestMirrorFilter).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Mirror {
    /// API group.
    pub group: String,
    /// Kind.
    pub kind: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Port.
    pub port: Option<u16>,
    /// Fraction mirrored: numerator.
    pub numerator: u32,
    /// Fraction mirrored: denominator.
    pub denominator: u32,
}
