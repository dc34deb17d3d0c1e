//! `HTTPRoute` (`gateway.networking.k8s.io/v1`, also decoded from `v1beta1`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    BackendObjectReference, BackendRef, LocalObjectReference, ParentReference, RouteStatus,
};
use crate::macros::string_enum;
use crate::meta::ObjectMeta;

/// An HTTP route: rules that match HTTP requests and send them to backends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRoute {
    /// `gateway.networking.k8s.io/v1` or `v1beta1`; kept as decoded.
    #[serde(default = "super::v1")]
    pub api_version: String,
    /// Always `HTTPRoute`.
    #[serde(default = "HttpRoute::kind_name")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: HttpRouteSpec,
    /// The observed state, per parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RouteStatus>,
}

impl HttpRoute {
    fn kind_name() -> String {
        "HTTPRoute".into()
    }

    /// A new `v1` HTTPRoute with the given metadata and spec.
    pub fn new(metadata: ObjectMeta, spec: HttpRouteSpec) -> Self {
        HttpRoute {
            api_version: super::v1(),
            kind: Self::kind_name(),
            metadata,
            spec,
            status: None,
        }
    }
}

/// The desired state of an [`HttpRoute`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteSpec {
    /// The parents (Gateways, ListenerSets, Services) the route attaches to; at most 32.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parent_refs: Vec<ParentReference>,
    /// Hostnames matched against the Host header (ignored by default in a mesh); at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hostnames: Vec<String>,
    /// The rules. `None` (omitted) defaults to one rule matching every request; an explicit empty
    /// list is invalid (MinItems 1), so the two are kept apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<HttpRouteRule>>,
    /// **\[experimental\]** whether the route attaches to default Gateways (`All` or `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_default_gateways: Option<GatewayDefaultScope>,
}

string_enum! {
    /// Whether a route attaches to the cluster's default Gateways (experimental).
    pub enum GatewayDefaultScope {
        /// Attach to every default Gateway.
        All => "All",
        /// Attach to none.
        None => "None",
    }
}

/// One rule: matches, filters and backends.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteRule {
    /// An optional name for the rule (a `SectionName`), unique in the route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The matches, ORed. `None` defaults to `PathPrefix /`; at most 64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<Vec<HttpRouteMatch>>,
    /// Filters applied to matching requests, in order; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<HttpRouteFilter>,
    /// Weighted backends; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backend_refs: Vec<HttpBackendRef>,
    /// Request and backend-request timeouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeouts: Option<HttpRouteTimeouts>,
    /// **\[experimental\]** retry policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<HttpRouteRetry>,
    /// **\[experimental\]** session persistence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_persistence: Option<SessionPersistence>,
}

/// A match: every condition set must hold (AND).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteMatch {
    /// The path condition; `None` defaults to `PathPrefix /`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<HttpPathMatch>,
    /// Header conditions (ANDed); at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<HttpHeaderMatch>,
    /// Query parameter conditions (ANDed); at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub query_params: Vec<HttpQueryParamMatch>,
    /// The method condition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<HttpMethod>,
}

/// A path condition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpPathMatch {
    /// The match type; defaults to `PathPrefix`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<PathMatchType>,
    /// The value; defaults to `/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

impl HttpPathMatch {
    /// The type with the default (`PathPrefix`) applied.
    pub fn type_or_default(&self) -> PathMatchType {
        self.type_.clone().unwrap_or(PathMatchType::PathPrefix)
    }
    /// The value with the default (`/`) applied.
    pub fn value_or_default(&self) -> &str {
        self.value.as_deref().unwrap_or("/")
    }
}

string_enum! {
    /// How a path is matched.
    pub enum PathMatchType {
        /// The whole path, case-sensitively.
        Exact => "Exact",
        /// A prefix of whole path segments.
        PathPrefix => "PathPrefix",
        /// A regular expression (implementation-specific; RE2 syntax, full match, in gamma-rs).
        RegularExpression => "RegularExpression",
    }
}

string_enum! {
    /// How a header, query parameter or gRPC method value is matched.
    pub enum MatchType {
        /// Byte-exact equality.
        Exact => "Exact",
        /// A regular expression (RE2 syntax, full match, in gamma-rs).
        RegularExpression => "RegularExpression",
    }
}

/// A header condition. Names are case-insensitive; among case-equivalent names only the first
/// entry counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpHeaderMatch {
    /// The match type; defaults to `Exact`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<MatchType>,
    /// The header name.
    #[serde(default)]
    pub name: String,
    /// The value to match.
    #[serde(default)]
    pub value: String,
}

/// A query parameter condition. Names are case-sensitive; only the first duplicate counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpQueryParamMatch {
    /// The match type; defaults to `Exact`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<MatchType>,
    /// The parameter name.
    #[serde(default)]
    pub name: String,
    /// The value to match.
    #[serde(default)]
    pub value: String,
}

string_enum! {
    /// An HTTP method, as the HTTPRoute enum lists them (upper case only).
    pub enum HttpMethod {
        /// GET
        Get => "GET",
        /// HEAD
        Head => "HEAD",
        /// POST
        Post => "POST",
        /// PUT
        Put => "PUT",
        /// DELETE
        Delete => "DELETE",
        /// CONNECT
        Connect => "CONNECT",
        /// OPTIONS
        Options => "OPTIONS",
        /// TRACE
        Trace => "TRACE",
        /// PATCH
        Patch => "PATCH",
    }
}

string_enum! {
    /// The type of an HTTPRoute filter.
    pub enum HttpRouteFilterType {
        /// Modify request headers.
        RequestHeaderModifier => "RequestHeaderModifier",
        /// Modify response headers.
        ResponseHeaderModifier => "ResponseHeaderModifier",
        /// Mirror requests to another backend.
        RequestMirror => "RequestMirror",
        /// Answer with a redirect.
        RequestRedirect => "RequestRedirect",
        /// Rewrite the host and/or path before forwarding.
        UrlRewrite => "URLRewrite",
        /// An implementation-specific filter.
        ExtensionRef => "ExtensionRef",
        /// Cross-origin resource sharing.
        Cors => "CORS",
        /// **\[experimental\]** external authorization.
        ExternalAuth => "ExternalAuth",
    }
}

/// A filter: `type` plus exactly the matching field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteFilter {
    /// The filter type; the field of that name must be set and every other one empty.
    #[serde(rename = "type")]
    pub type_: HttpRouteFilterType,
    /// For `RequestHeaderModifier`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_header_modifier: Option<HttpHeaderFilter>,
    /// For `ResponseHeaderModifier`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_header_modifier: Option<HttpHeaderFilter>,
    /// For `RequestMirror`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_mirror: Option<HttpRequestMirrorFilter>,
    /// For `RequestRedirect`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_redirect: Option<HttpRequestRedirectFilter>,
    /// For `URLRewrite`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_rewrite: Option<HttpUrlRewriteFilter>,
    /// For `ExtensionRef`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension_ref: Option<LocalObjectReference>,
    /// For `CORS`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cors: Option<HttpCorsFilter>,
    /// For `ExternalAuth` (experimental).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_auth: Option<HttpExternalAuthFilter>,
}

impl HttpRouteFilter {
    /// A filter of the given type with no payload set (fill the matching field).
    pub fn of_type(type_: HttpRouteFilterType) -> Self {
        HttpRouteFilter {
            type_,
            request_header_modifier: None,
            response_header_modifier: None,
            request_mirror: None,
            request_redirect: None,
            url_rewrite: None,
            extension_ref: None,
            cors: None,
            external_auth: None,
        }
    }
}

/// Header edits: set, add, remove (one action per header name).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpHeaderFilter {
    /// Headers to overwrite; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set: Vec<HttpHeader>,
    /// Headers to append to; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add: Vec<HttpHeader>,
    /// Header names to remove (case-insensitive); at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove: Vec<String>,
}

/// A header name and value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HttpHeader {
    /// The name.
    #[serde(default)]
    pub name: String,
    /// The value.
    #[serde(default)]
    pub value: String,
}

/// Mirror requests to another backend.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRequestMirrorFilter {
    /// The mirror target.
    #[serde(default)]
    pub backend_ref: BackendObjectReference,
    /// Percent of requests to mirror (0-100); excludes `fraction`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<i32>,
    /// Fraction of requests to mirror; excludes `percent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction: Option<Fraction>,
}

/// A fraction `numerator / denominator` (denominator defaults to 100).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Fraction {
    /// The numerator, at least 0 and at most the denominator.
    #[serde(default)]
    pub numerator: i32,
    /// The denominator, at least 1; defaults to 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denominator: Option<i32>,
}

string_enum! {
    /// The scheme of a redirect.
    pub enum RedirectScheme {
        /// `http`
        Http => "http",
        /// `https`
        Https => "https",
    }
}

/// Answer with a redirect to a location derived from the request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRequestRedirectFilter {
    /// The scheme of the location; empty keeps the request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<RedirectScheme>,
    /// The host of the location; empty keeps the request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// How to modify the path; empty keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<HttpPathModifier>,
    /// The port of the location; derived from the scheme or listener when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// The status code; defaults to 302.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_code: Option<RedirectStatusCode>,
}

/// A redirect status code. Unknown codes decode to [`RedirectStatusCode::Unknown`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RedirectStatusCode {
    /// 301 Moved Permanently.
    MovedPermanently,
    /// 302 Found (the default).
    Found,
    /// 303 See Other.
    SeeOther,
    /// 307 Temporary Redirect.
    TemporaryRedirect,
    /// 308 Permanent Redirect.
    PermanentRedirect,
    /// Any other code, kept verbatim.
    Unknown(i64),
}

impl RedirectStatusCode {
    /// The codes upstream allows.
    pub const KNOWN: &'static [u16] = &[301, 302, 303, 307, 308];

    /// The numeric code.
    pub fn code(&self) -> i64 {
        match self {
            Self::MovedPermanently => 301,
            Self::Found => 302,
            Self::SeeOther => 303,
            Self::TemporaryRedirect => 307,
            Self::PermanentRedirect => 308,
            Self::Unknown(c) => *c,
        }
    }

    /// The variant for a numeric code.
    pub fn from_code(code: i64) -> Self {
        match code {
            301 => Self::MovedPermanently,
            302 => Self::Found,
            303 => Self::SeeOther,
            307 => Self::TemporaryRedirect,
            308 => Self::PermanentRedirect,
            other => Self::Unknown(other),
        }
    }

    /// Whether the code is one upstream allows.
    pub fn is_known(&self) -> bool {
        !matches!(self, Self::Unknown(_))
    }
}

impl Serialize for RedirectStatusCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.code())
    }
}

impl<'de> Deserialize<'de> for RedirectStatusCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        i64::deserialize(d).map(Self::from_code)
    }
}

impl JsonSchema for RedirectStatusCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RedirectStatusCode".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "integer", "enum": [301, 302, 303, 307, 308] })
    }
}

string_enum! {
    /// How a path modifier rewrites the path.
    pub enum PathModifierType {
        /// Replace the whole path.
        ReplaceFullPath => "ReplaceFullPath",
        /// Replace the part the rule's PathPrefix matched.
        ReplacePrefixMatch => "ReplacePrefixMatch",
    }
}

/// A path modification for redirects and rewrites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpPathModifier {
    /// The kind of modification; the field of that name must be set.
    #[serde(rename = "type")]
    pub type_: PathModifierType,
    /// For `ReplaceFullPath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_full_path: Option<String>,
    /// For `ReplacePrefixMatch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_prefix_match: Option<String>,
}

/// Rewrite the host and/or path before forwarding.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpUrlRewriteFilter {
    /// The new Host header value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// The path modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<HttpPathModifier>,
}

/// Cross-origin resource sharing (CORS) policy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpCorsFilter {
    /// Allowed origins (`*` alone, or `scheme://host[:port]` with an optional leading `*.`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_origins: Vec<String>,
    /// Whether credentials are allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_credentials: Option<bool>,
    /// Allowed methods (`*` alone, or method names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_methods: Vec<String>,
    /// Allowed request headers (`*` alone, or names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_headers: Vec<String>,
    /// Response headers exposed to the client.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expose_headers: Vec<String>,
    /// Preflight cache lifetime in seconds; at least 1, defaults to 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age: Option<i32>,
}

string_enum! {
    /// The protocol of an external authorization service.
    pub enum ExternalAuthProtocol {
        /// Envoy's HTTP ext_authz protocol.
        Http => "HTTP",
        /// Envoy's gRPC ext_authz protocol.
        Grpc => "GRPC",
    }
}

/// **\[experimental\]** External authorization (GEP-1494). Fails closed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpExternalAuthFilter {
    /// The protocol; `http` or `grpc` must be set to match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<ExternalAuthProtocol>,
    /// The authorization service.
    #[serde(default)]
    pub backend_ref: BackendObjectReference,
    /// Options for the gRPC protocol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grpc: Option<GrpcAuthConfig>,
    /// Options for the HTTP protocol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpAuthConfig>,
    /// Whether and how much of the body to forward.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward_body: Option<ForwardBodyConfig>,
}

/// gRPC options of an external authorization filter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrpcAuthConfig {
    /// Request headers sent to the authorization service; at most 64.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_headers: Vec<String>,
}

/// HTTP options of an external authorization filter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpAuthConfig {
    /// A path prefix for authorization requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Request headers sent to the authorization service; at most 64.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_headers: Vec<String>,
    /// Response headers copied back to the request; at most 64.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_response_headers: Vec<String>,
}

/// Body forwarding for external authorization.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ForwardBodyConfig {
    /// The maximum body size to forward, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<i32>,
}

/// A weighted backend of an HTTP rule, with its own filters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", from = "HttpBackendRefWire")]
pub struct HttpBackendRef {
    /// The backend and its weight.
    #[serde(flatten)]
    pub backend_ref: BackendRef,
    /// Filters applied only when this backend is chosen; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<HttpRouteFilter>,
}

super::shared::flat_backend_ref!(
    HttpBackendRef,
    HttpBackendRefWire,
    "HttpBackendRef",
    HttpRouteFilter,
    "Filters applied only when this backend is chosen; at most 16."
);

/// Timeouts of an HTTP rule (GEP-1742), as Gateway API durations (`10s`, `1h30m`, `500ms`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteTimeouts {
    /// The whole request, client to gateway and back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// One attempt to the backend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_request: Option<String>,
}

/// **\[experimental\]** Retry policy of an HTTP rule (GEP-1731).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteRetry {
    /// Response codes (400-599) that trigger a retry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<i32>,
    /// The maximum number of retries (not counting the first try); at least 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<i32>,
    /// The minimum wait between attempts, as a duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff: Option<String>,
}

string_enum! {
    /// How a session is tracked.
    pub enum SessionPersistenceType {
        /// A cookie (the default).
        Cookie => "Cookie",
        /// A header.
        Header => "Header",
    }
}

string_enum! {
    /// Whether a session cookie outlives the browser session.
    pub enum CookieLifetimeType {
        /// Ends with the browser session (the default).
        Session => "Session",
        /// Expires after `absoluteTimeout`.
        Permanent => "Permanent",
    }
}

/// **\[experimental\]** Session persistence (GEP-1619), every supported release's shape in
/// one type: `sessionName` and `cookieConfig` (v1.5 and v1.6) became `cookie` and `header` in
/// v1.7, and `idleTimeout` was dropped in v1.6. Validation under a release refuses the fields
/// its CRDs do not declare ([`FIELD_SPANS`](crate::validate::FIELD_SPANS)).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionPersistence {
    /// The cookie or header name (v1.5 and v1.6; v1.7 names it in `cookie` or `header`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_name: Option<String>,
    /// The absolute lifetime of a session, as a duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute_timeout: Option<String>,
    /// The idle timeout of a session, as a duration (v1.5 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_timeout: Option<String>,
    /// Cookie or Header; defaults to Cookie.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<SessionPersistenceType>,
    /// Cookie options (only with type Cookie; v1.5 and v1.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cookie_config: Option<CookieConfig>,
    /// The session cookie (type Cookie, which requires it; v1.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cookie: Option<SessionCookie>,
    /// The session header (type Header, which requires it; v1.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<SessionHeader>,
}

/// Cookie options of session persistence (v1.5 and v1.6).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CookieConfig {
    /// Session or Permanent; defaults to Session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_type: Option<CookieLifetimeType>,
}

/// The cookie of cookie-based session persistence (v1.7).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionCookie {
    /// Session or Permanent; defaults to Session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_type: Option<CookieLifetimeType>,
    /// The cookie name (an HTTP token, at most 256 characters); chosen by the implementation
    /// when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The cookie's `Path` attribute; defaults to `/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// The header of header-based session persistence (v1.7).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionHeader {
    /// The header name (an HTTP token, at most 256 characters); required.
    #[serde(default)]
    pub name: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    // Gateway API HTTPPathMatch: unknown enum values must not crash or make the route undecodable.
    #[test]
    fn unknown_filter_and_path_type_decode_into_unknown_variants() {
        let f: HttpRouteFilter =
            serde_json::from_str(r#"{"type":"FancyNewFilter","fancy":{"x":1}}"#).unwrap();
        assert_eq!(
            f.type_,
            HttpRouteFilterType::Unknown("FancyNewFilter".into())
        );
        let p: HttpPathMatch = serde_json::from_str(r#"{"type":"Glob","value":"/*"}"#).unwrap();
        assert_eq!(p.type_or_default(), PathMatchType::Unknown("Glob".into()));
        let m: HttpRouteMatch = serde_json::from_str(r#"{"method":"get"}"#).unwrap();
        assert_eq!(m.method, Some(HttpMethod::Unknown("get".into())));
        let r: HttpRequestRedirectFilter = serde_json::from_str(r#"{"statusCode":399}"#).unwrap();
        assert_eq!(r.status_code, Some(RedirectStatusCode::Unknown(399)));
    }

    #[test]
    fn omitted_and_empty_rules_are_distinguished() {
        let omitted: HttpRouteSpec = serde_json::from_str("{}").unwrap();
        assert_eq!(omitted.rules, None);
        let empty: HttpRouteSpec = serde_json::from_str(r#"{"rules":[]}"#).unwrap();
        assert_eq!(empty.rules, Some(vec![]));
    }

    #[test]
    fn backend_ref_flattening_round_trips() {
        let json = r#"{"name":"svc","port":8080,"weight":3,"filters":[{"type":"RequestHeaderModifier","requestHeaderModifier":{"set":[{"name":"a","value":"b"}]}}]}"#;
        let b: HttpBackendRef = serde_json::from_str(json).unwrap();
        assert_eq!(b.backend_ref.weight, Some(3));
        let again: HttpBackendRef =
            serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
        assert_eq!(again, b);
    }
}
