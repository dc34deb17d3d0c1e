//! The HTTPRoute IR.

use crate::ir::IrString;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::filter::{
    ExtensionRef, HeaderMatch, HeaderModifier, Mirror, ValueMatch, extension_ref, header_matches,
    header_modifier, mirror,
};
use super::names::{Hostname, PreciseHostname, hostnames, ok};
use super::path::{Path, PathMatch, PathPrefix};
use super::refs::parent_refs;
use super::refs::{ParentRef, WeightedBackend};
use super::{Partial, convert_partial};
use crate::gateway::{self, HttpRouteFilterType, PathMatchType, PathModifierType};
use crate::meta::ObjectMeta;
use crate::validate::patterns::parse_duration_ms;
use crate::validate::{ErrorKind, Errors, FieldPath, Validate, ValidateOptions, ValidationErrors};

/// An HTTPRoute with defaults applied and only valid content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HttpRoute {
    /// The route's metadata, as decoded.
    pub metadata: ObjectMeta,
    /// The route's namespace (`default` when unset).
    pub namespace: String,
    /// Parent references, defaulted, in written order.
    pub parent_refs: Vec<ParentRef>,
    /// Hostnames (ignored by meshes, GEP-1294 hostnames field).
    pub hostnames: Vec<Hostname>,
    /// The rules, in written order (only the valid ones after [`HttpRoute::from_wire_partial`]).
    /// An omitted `rules` is one rule matching `PathPrefix /` with no backends.
    pub rules: Vec<HttpRule>,
}

/// One HTTPRoute rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HttpRule {
    /// The index of this rule in the wire route's `spec.rules` (0 for a defaulted rule).
    pub index: usize,
    /// The rule name, if any.
    pub name: Option<String>,
    /// The matches, ORed; never empty (omitted matches become one `PathPrefix /` match).
    pub matches: Vec<HttpMatch>,
    /// Rule-level filters, in order.
    pub filters: Vec<HttpFilter>,
    /// Weighted backends (may be empty: a rule without backends answers 500, unless a filter such
    /// as a redirect answers first).
    pub backend_refs: Vec<HttpBackend>,
    /// Timeouts, if set.
    pub timeouts: Option<Timeouts>,
    /// **\[experimental\]** retry policy, if set.
    pub retry: Option<Retry>,
    /// **\[experimental\]** session persistence, kept as written (validated).
    pub session_persistence: Option<gateway::SessionPersistence>,
}

/// One match: every condition must hold.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HttpMatch {
    /// The path condition (`PathPrefix /` when omitted).
    pub path: PathMatch,
    /// Header conditions: names lower-cased, only the first of case-insensitively equal names.
    pub headers: Vec<HeaderMatch>,
    /// Query-parameter conditions: only the first of equal (case-sensitive) names.
    pub query_params: Vec<QueryParamMatch>,
    /// The method condition.
    pub method: Option<Method>,
}

impl HttpMatch {
    /// The IR of one wire match of a route that validation accepted under the options it is
    /// converted with (a route [`super::Route::from_valid_resource`] takes): the defaults
    /// applied and header names lower-cased, each first of its name kept, exactly as the
    /// route's conversion makes its matches, and nothing validated again. `None` when the
    /// match holds a value gamma-model does not know (a path match type or method outside
    /// the spec's enums), which only the route's conversion reports.
    ///
    /// For engines that lower valid routes rule by rule without building their whole IR.
    ///
    /// ```
    /// use gamma_model::gateway::{HttpPathMatch, HttpRouteMatch, PathMatchType};
    /// use gamma_model::ir::{HttpMatch, PathMatch};
    ///
    /// let wire = HttpRouteMatch {
    ///     path: Some(HttpPathMatch {
    ///         type_: Some(PathMatchType::PathPrefix),
    ///         value: Some("/api/".into()),
    ///     }),
    ///     ..HttpRouteMatch::default()
    /// };
    /// let m = HttpMatch::from_valid_wire(&wire).unwrap();
    /// // a trailing `/` of a prefix is dropped, as in every conversion
    /// assert!(matches!(m.path, PathMatch::Prefix(p) if p.as_str() == "/api"));
    /// ```
    pub fn from_valid_wire(m: &gateway::HttpRouteMatch) -> Option<HttpMatch> {
        // a detached path is what the conversion of a route known valid runs with: no check
        // is repeated, and an unknown value is the only error left
        let mut errors = Errors::default();
        let converted = http_match(m, &FieldPath::detached(), &mut errors);
        errors.is_empty().then_some(converted)
    }
}

impl Default for HttpMatch {
    /// `PathPrefix /` and nothing else: what an omitted match defaults to.
    fn default() -> Self {
        HttpMatch {
            path: PathMatch::root(),
            headers: Vec::new(),
            query_params: Vec::new(),
            method: None,
        }
    }
}

/// A query-parameter condition (names are case-sensitive).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct QueryParamMatch {
    /// The parameter name, as written.
    pub name: IrString,
    /// The value condition.
    pub value: ValueMatch,
}

/// An HTTP method HTTPRoute can match (upper-case only upstream).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
#[non_exhaustive]
pub enum Method {
    /// GET
    Get,
    /// HEAD
    Head,
    /// POST
    Post,
    /// PUT
    Put,
    /// DELETE
    Delete,
    /// CONNECT
    Connect,
    /// OPTIONS
    Options,
    /// TRACE
    Trace,
    /// PATCH
    Patch,
}

impl Method {
    /// The method for a known wire value; `None` for `Unknown`.
    pub fn from_wire(m: &gateway::HttpMethod) -> Option<Method> {
        use gateway::HttpMethod as W;
        Some(match m {
            W::Get => Method::Get,
            W::Head => Method::Head,
            W::Post => Method::Post,
            W::Put => Method::Put,
            W::Delete => Method::Delete,
            W::Connect => Method::Connect,
            W::Options => Method::Options,
            W::Trace => Method::Trace,
            W::Patch => Method::Patch,
            W::Unknown(_) => return None,
        })
    }

    /// The method as it appears on the wire (`GET`, ...).
    pub fn as_str(&self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Connect => "CONNECT",
            Method::Options => "OPTIONS",
            Method::Trace => "TRACE",
            Method::Patch => "PATCH",
        }
    }
}

/// A filter of an HTTP rule or backend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", content = "config")]
#[non_exhaustive]
pub enum HttpFilter {
    /// Modify request headers.
    RequestHeaderModifier(HeaderModifier),
    /// Modify response headers.
    ResponseHeaderModifier(HeaderModifier),
    /// Mirror requests.
    RequestMirror(Mirror),
    /// Answer with a redirect.
    RequestRedirect(Redirect),
    /// Rewrite host and/or path.
    #[serde(rename = "URLRewrite")]
    UrlRewrite(UrlRewrite),
    /// Cross-origin resource sharing.
    #[serde(rename = "CORS")]
    Cors(CorsPolicy),
    /// An implementation-specific filter (must not be skipped: unresolvable means an error
    /// response, Gateway API HTTPRouteRule.filters).
    ExtensionRef(ExtensionRef),
    /// **\[experimental\]** external authorization, kept as written (validated).
    ExternalAuth(gateway::HttpExternalAuthFilter),
}

/// The scheme of a redirect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum RedirectScheme {
    /// `http` (well-known port 80).
    Http,
    /// `https` (well-known port 443).
    Https,
}

impl RedirectScheme {
    /// The well-known port of the scheme (Gateway API HTTPRequestRedirectFilter.port).
    pub fn default_port(&self) -> u16 {
        match self {
            RedirectScheme::Http => 80,
            RedirectScheme::Https => 443,
        }
    }
}

/// A redirect status code (301 and 302 Core, the others Extended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum RedirectStatus {
    /// 301.
    MovedPermanently,
    /// 302, the default.
    Found,
    /// 303.
    SeeOther,
    /// 307.
    TemporaryRedirect,
    /// 308.
    PermanentRedirect,
}

impl RedirectStatus {
    /// The numeric code.
    pub fn code(&self) -> u16 {
        match self {
            RedirectStatus::MovedPermanently => 301,
            RedirectStatus::Found => 302,
            RedirectStatus::SeeOther => 303,
            RedirectStatus::TemporaryRedirect => 307,
            RedirectStatus::PermanentRedirect => 308,
        }
    }
}

/// A path modification of a redirect or rewrite.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", content = "value")]
#[non_exhaustive]
pub enum PathModifier {
    /// Replace the whole path.
    ReplaceFullPath(String),
    /// Replace the part matched by the rule's single `PathPrefix` match.
    ReplacePrefixMatch(String),
}

/// Answer with a redirect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Redirect {
    /// The scheme; `None` keeps the request's.
    pub scheme: Option<RedirectScheme>,
    /// The host; `None` keeps the request's.
    pub hostname: Option<PreciseHostname>,
    /// The path change; `None` keeps the path.
    pub path: Option<PathModifier>,
    /// The port; `None` means derived (scheme's well-known port, else the listener/Service port).
    pub port: Option<u16>,
    /// The status (302 when omitted).
    pub status: RedirectStatus,
}

/// Rewrite the request before forwarding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct UrlRewrite {
    /// The new Host.
    pub hostname: Option<PreciseHostname>,
    /// The path change.
    pub path: Option<PathModifier>,
}

/// A CORS policy with the defaults applied (`maxAge` 5, credentials off).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CorsPolicy {
    /// Allowed origins (`*` alone, or validated origins).
    pub allow_origins: Vec<String>,
    /// Whether credentials are allowed.
    pub allow_credentials: bool,
    /// Allowed methods (`*` alone, or method names).
    pub allow_methods: Vec<String>,
    /// Allowed request headers.
    pub allow_headers: Vec<String>,
    /// Exposed response headers.
    pub expose_headers: Vec<String>,
    /// Preflight cache lifetime, seconds (default 5).
    pub max_age: u32,
}

/// A weighted backend of an HTTP rule and its own filters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HttpBackend {
    /// The backend and weight.
    pub backend: WeightedBackend,
    /// Filters applied when this backend is chosen.
    pub filters: Vec<HttpFilter>,
}

impl HttpBackend {
    /// `backend` without filters.
    pub fn new(backend: WeightedBackend) -> HttpBackend {
        HttpBackend {
            backend,
            filters: Vec::new(),
        }
    }
}

/// Rule timeouts (GEP-1742). `Duration::ZERO` means "disable the timeout".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Timeouts {
    /// The whole request.
    pub request: Option<Duration>,
    /// One backend attempt.
    pub backend_request: Option<Duration>,
}

/// **\[experimental\]** retry policy (GEP-1731).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Retry {
    /// Status codes (400–599) that trigger a retry.
    pub codes: Vec<u16>,
    /// Maximum number of retries, not counting the first try.
    pub attempts: Option<u32>,
    /// Minimum wait between attempts.
    pub backoff: Option<Duration>,
}

// ---------------------------------------------------------------------------------------------
// Conversion. Callers validate first; conversion re-checks what a constructor needs and records
// an error instead of panicking should the two ever disagree.

pub(crate) fn duration(s: &str, path: &FieldPath, errors: &mut Errors) -> Option<Duration> {
    match parse_duration_ms(s) {
        Some(ms) => Some(Duration::from_millis(ms)),
        None => {
            errors.push(
                path.clone(),
                ErrorKind::Pattern {
                    pattern: crate::validate::patterns::DURATION_PATTERN,
                },
            );
            None
        }
    }
}

fn path_match(
    m: Option<&gateway::HttpPathMatch>,
    path: &FieldPath,
    errors: &mut Errors,
) -> Option<PathMatch> {
    let Some(m) = m else {
        return Some(PathMatch::root());
    };
    let vpath = path.field("value");
    let value = m.value_or_default();
    if path.is_detached() {
        // `collect` hands out a detached path only for an object validation accepted (its
        // `HTTPPathMatch` rules are the constructors' checks), and an error at a detached
        // path could not say where it is: the value is not checked a second time
        match m.type_or_default() {
            PathMatchType::Exact => return Some(PathMatch::Exact(Path::validated(value))),
            PathMatchType::PathPrefix => {
                return Some(PathMatch::Prefix(PathPrefix::validated(value)));
            }
            _ => {}
        }
    }
    match m.type_or_default() {
        PathMatchType::Exact => ok(Path::new(value), &vpath, errors).map(PathMatch::Exact),
        PathMatchType::PathPrefix => {
            ok(PathPrefix::new(value), &vpath, errors).map(PathMatch::Prefix)
        }
        PathMatchType::RegularExpression => {
            Some(PathMatch::RegularExpression(IrString::from(value)))
        }
        PathMatchType::Unknown(t) => {
            errors.unsupported(&path.field("type"), &t, PathMatchType::KNOWN);
            None
        }
    }
}

fn http_match(m: &gateway::HttpRouteMatch, path: &FieldPath, errors: &mut Errors) -> HttpMatch {
    let path_cond = path_match(m.path.as_ref(), &path.field("path"), errors);
    let headers = header_matches(
        m.headers
            .iter()
            .map(|h| (h.type_.as_ref(), h.name.as_str(), h.value.as_str())),
        &path.field("headers"),
        errors,
    );
    let mut query_params: Vec<QueryParamMatch> = Vec::new();
    for q in &m.query_params {
        if !query_params.iter().any(|e| e.name == q.name) {
            query_params.push(QueryParamMatch {
                name: IrString::from(&q.name),
                value: ValueMatch::new(q.type_.as_ref(), &q.value),
            });
        }
    }
    let method = m.method.as_ref().and_then(|w| {
        let known = Method::from_wire(w);
        if known.is_none() {
            errors.unsupported(
                &path.field("method"),
                w.as_str(),
                gateway::HttpMethod::KNOWN,
            );
        }
        known
    });
    HttpMatch {
        path: path_cond.unwrap_or_default(),
        headers,
        query_params,
        method,
    }
}

fn path_modifier(
    m: &gateway::HttpPathModifier,
    path: &FieldPath,
    errors: &mut Errors,
) -> Option<PathModifier> {
    match (&m.type_, &m.replace_full_path, &m.replace_prefix_match) {
        (PathModifierType::ReplaceFullPath, Some(v), _) => {
            Some(PathModifier::ReplaceFullPath(v.clone()))
        }
        (PathModifierType::ReplacePrefixMatch, _, Some(v)) => {
            Some(PathModifier::ReplacePrefixMatch(v.clone()))
        }
        _ => {
            errors.rule(path.clone(), "invalid path modifier");
            None
        }
    }
}

fn hostname_opt(
    h: Option<&String>,
    path: &FieldPath,
    errors: &mut Errors,
) -> Option<PreciseHostname> {
    h.and_then(|h| ok(PreciseHostname::new(h), &path.field("hostname"), errors))
}

fn port_opt(p: Option<i32>) -> Option<u16> {
    p.and_then(|p| u16::try_from(p).ok())
}

fn filter(
    f: &gateway::HttpRouteFilter,
    ns: &Arc<str>,
    path: &FieldPath,
    errors: &mut Errors,
) -> Option<HttpFilter> {
    use HttpRouteFilterType as T;
    let missing = |errors: &mut Errors| {
        errors.rule(
            path.clone(),
            format!("filter of type {} has no configuration", f.type_),
        );
        None
    };
    Some(match &f.type_ {
        T::RequestHeaderModifier => match &f.request_header_modifier {
            Some(h) => HttpFilter::RequestHeaderModifier(header_modifier(
                h,
                &path.field("requestHeaderModifier"),
                errors,
            )),
            None => return missing(errors),
        },
        T::ResponseHeaderModifier => match &f.response_header_modifier {
            Some(h) => HttpFilter::ResponseHeaderModifier(header_modifier(
                h,
                &path.field("responseHeaderModifier"),
                errors,
            )),
            None => return missing(errors),
        },
        T::RequestMirror => match &f.request_mirror {
            Some(m) => HttpFilter::RequestMirror(mirror(m, ns)),
            None => return missing(errors),
        },
        T::RequestRedirect => match &f.request_redirect {
            Some(r) => {
                let rpath = path.field("requestRedirect");
                let status = match r.status_code.map(|c| c.code()).unwrap_or(302) {
                    301 => RedirectStatus::MovedPermanently,
                    302 => RedirectStatus::Found,
                    303 => RedirectStatus::SeeOther,
                    307 => RedirectStatus::TemporaryRedirect,
                    308 => RedirectStatus::PermanentRedirect,
                    other => {
                        errors.unsupported(
                            &rpath.field("statusCode"),
                            &other.to_string(),
                            &["301", "302", "303", "307", "308"],
                        );
                        return None;
                    }
                };
                let scheme = match &r.scheme {
                    None => None,
                    Some(gateway::RedirectScheme::Http) => Some(RedirectScheme::Http),
                    Some(gateway::RedirectScheme::Https) => Some(RedirectScheme::Https),
                    Some(other) => {
                        errors.unsupported(
                            &rpath.field("scheme"),
                            other.as_str(),
                            gateway::RedirectScheme::KNOWN,
                        );
                        return None;
                    }
                };
                HttpFilter::RequestRedirect(Redirect {
                    scheme,
                    hostname: hostname_opt(r.hostname.as_ref(), &rpath, errors),
                    path: r
                        .path
                        .as_ref()
                        .and_then(|m| path_modifier(m, &rpath.field("path"), errors)),
                    port: port_opt(r.port),
                    status,
                })
            }
            None => return missing(errors),
        },
        T::UrlRewrite => match &f.url_rewrite {
            Some(r) => {
                let rpath = path.field("urlRewrite");
                HttpFilter::UrlRewrite(UrlRewrite {
                    hostname: hostname_opt(r.hostname.as_ref(), &rpath, errors),
                    path: r
                        .path
                        .as_ref()
                        .and_then(|m| path_modifier(m, &rpath.field("path"), errors)),
                })
            }
            None => return missing(errors),
        },
        T::Cors => match &f.cors {
            Some(c) => HttpFilter::Cors(CorsPolicy {
                allow_origins: c.allow_origins.clone(),
                allow_credentials: c.allow_credentials.unwrap_or(false),
                allow_methods: c.allow_methods.clone(),
                allow_headers: c.allow_headers.clone(),
                expose_headers: c.expose_headers.clone(),
                max_age: c.max_age.and_then(|m| u32::try_from(m).ok()).unwrap_or(5),
            }),
            None => return missing(errors),
        },
        T::ExtensionRef => match &f.extension_ref {
            Some(r) => HttpFilter::ExtensionRef(extension_ref(r)),
            None => return missing(errors),
        },
        T::ExternalAuth => match &f.external_auth {
            Some(a) => HttpFilter::ExternalAuth(a.clone()),
            None => return missing(errors),
        },
        T::Unknown(t) => {
            errors.unsupported(&path.field("type"), t, HttpRouteFilterType::KNOWN);
            return None;
        }
    })
}

fn filters(
    list: &[gateway::HttpRouteFilter],
    ns: &Arc<str>,
    path: &FieldPath,
    errors: &mut Errors,
) -> Vec<HttpFilter> {
    list.iter()
        .enumerate()
        .filter_map(|(i, f)| filter(f, ns, &path.index(i), errors))
        .collect()
}

impl HttpRule {
    /// The rule an omitted `rules` defaults to: every request, no filters, no backends.
    pub fn default_rule() -> HttpRule {
        HttpRule {
            index: 0,
            name: None,
            matches: vec![HttpMatch::default()],
            filters: Vec::new(),
            backend_refs: Vec::new(),
            timeouts: None,
            retry: None,
            session_persistence: None,
        }
    }

    /// Validates rule `index` of a route in `route_namespace` and converts it. Route-level rules
    /// (total matches, unique rule names) are not checked here; errors carry paths below
    /// `spec.rules[index]`.
    pub fn from_wire(
        rule: &gateway::HttpRouteRule,
        index: usize,
        route_namespace: &str,
        opts: &ValidateOptions,
    ) -> Result<HttpRule, ValidationErrors> {
        let path = FieldPath::root().field("spec").field("rules").index(index);
        let mut errors = Errors::default();
        rule.collect_errors(&path, opts, &mut errors);
        if errors.is_empty() {
            let converted =
                convert_rule(rule, index, &Arc::from(route_namespace), &path, &mut errors);
            errors.into_result().map(|()| converted)
        } else {
            Err(errors
                .into_result()
                .err()
                .unwrap_or_else(super::unreachable_errors))
        }
    }
}

fn convert_rule(
    rule: &gateway::HttpRouteRule,
    index: usize,
    ns: &Arc<str>,
    path: &FieldPath,
    errors: &mut Errors,
) -> HttpRule {
    let matches = match &rule.matches {
        None => vec![HttpMatch::default()],
        Some(ms) if ms.is_empty() => vec![HttpMatch::default()],
        Some(ms) => ms
            .iter()
            .enumerate()
            .map(|(i, m)| http_match(m, &path.field("matches").index(i), errors))
            .collect(),
    };
    let backend_refs = rule
        .backend_refs
        .iter()
        .enumerate()
        .map(|(i, b)| HttpBackend {
            backend: WeightedBackend::from_wire(&b.backend_ref, ns),
            filters: filters(
                &b.filters,
                ns,
                &path.field("backendRefs").index(i).field("filters"),
                errors,
            ),
        })
        .collect();
    let timeouts = rule.timeouts.as_ref().map(|t| {
        let tpath = path.field("timeouts");
        Timeouts {
            request: t
                .request
                .as_deref()
                .and_then(|d| duration(d, &tpath.field("request"), errors)),
            backend_request: t
                .backend_request
                .as_deref()
                .and_then(|d| duration(d, &tpath.field("backendRequest"), errors)),
        }
    });
    let retry = rule.retry.as_ref().map(|r| Retry {
        codes: r
            .codes
            .iter()
            .filter_map(|&c| u16::try_from(c).ok())
            .collect(),
        attempts: r.attempts.and_then(|a| u32::try_from(a).ok()),
        backoff: r
            .backoff
            .as_deref()
            .and_then(|d| duration(d, &path.field("retry").field("backoff"), errors)),
    });
    HttpRule {
        index,
        name: rule.name.clone(),
        matches,
        filters: filters(&rule.filters, ns, &path.field("filters"), errors),
        backend_refs,
        timeouts,
        retry,
        session_persistence: rule.session_persistence.clone(),
    }
}

impl HttpRoute {
    /// Validates (standard channel) and converts a route; every error when it is invalid.
    pub fn from_wire(wire: &gateway::HttpRoute) -> Result<HttpRoute, ValidationErrors> {
        HttpRoute::from_wire_with(wire, &ValidateOptions::default())
    }

    /// Validates with `opts` and converts a route; every error when any part is invalid.
    pub fn from_wire_with(
        wire: &gateway::HttpRoute,
        opts: &ValidateOptions,
    ) -> Result<HttpRoute, ValidationErrors> {
        wire.validate_with(opts)?;
        let partial = HttpRoute::from_wire_partial(wire, opts)?;
        Ok(partial.value)
    }

    /// Validates with `opts` and converts, dropping invalid rules (see the [module
    /// docs](super)). Fails when the route itself is invalid or no rule is valid.
    pub fn from_wire_partial(
        wire: &gateway::HttpRoute,
        opts: &ValidateOptions,
    ) -> Result<Partial<HttpRoute>, ValidationErrors> {
        HttpRoute::convert(wire, opts, false)
    }

    /// [`HttpRoute::from_wire_partial`]; `known_valid` skips validation (see
    /// [`super::Route::from_valid_resource`]).
    pub(crate) fn convert(
        wire: &gateway::HttpRoute,
        opts: &ValidateOptions,
        known_valid: bool,
    ) -> Result<Partial<HttpRoute>, ValidationErrors> {
        let (all, base) = super::collect(wire, opts, known_valid);
        // shared by every backendRef that omits its namespace
        let ns: Arc<str> = Arc::from(wire.metadata.namespace_or_default());
        let default_rules;
        let rules: &[gateway::HttpRouteRule] = match &wire.spec.rules {
            Some(r) => r,
            None => {
                default_rules = Vec::new();
                &default_rules
            }
        };
        let names: Vec<Option<String>> = rules.iter().map(|r| r.name.clone()).collect();
        let mut route_errors = Errors::default();
        let hostnames = hostnames(&wire.spec.hostnames, &base, &mut route_errors);
        let mut all = all;
        all.extend(route_errors.into_vec());
        let omitted = wire.spec.rules.is_none();
        let rules_path = base.field("spec").field("rules");
        convert_partial(
            all,
            &names,
            |i| {
                let mut errors = Errors::default();
                let path = rules_path.index(i);
                let rule = rules
                    .get(i)
                    .map(|r| convert_rule(r, i, &ns, &path, &mut errors));
                errors.into_result()?;
                rule.ok_or_else(|| {
                    ValidationErrors::single(crate::validate::ValidationError::new(
                        path,
                        ErrorKind::Required,
                    ))
                })
            },
            |kept| HttpRoute {
                metadata: wire.metadata.clone(),
                namespace: ns.to_string(),
                parent_refs: parent_refs(&wire.spec.parent_refs, &ns),
                hostnames,
                rules: if omitted {
                    vec![HttpRule::default_rule()]
                } else {
                    kept
                },
            },
        )
    }
}
