//! HTTPRoute validation (HTTPRoute CRD v1.6.1; Gateway API HTTPRouteFilter; GEP-1742 timeouts;
//! GEP-1731 retries; GEP-1619 session persistence).

use super::common::{self, KnownEnum};
use super::error::{REDIRECT_AND_REWRITE, REDIRECT_WITH_BACKENDS};
use super::patterns as p;
use super::{Channel, ErrorKind, Errors, FieldPath, Validate, ValidateOptions};
use crate::gateway::{
    HttpBackendRef, HttpCorsFilter, HttpExternalAuthFilter, HttpHeaderMatch, HttpPathMatch,
    HttpPathModifier, HttpQueryParamMatch, HttpRequestRedirectFilter, HttpRoute, HttpRouteFilter,
    HttpRouteFilterType, HttpRouteMatch, HttpRouteRetry, HttpRouteRule, HttpRouteSpec,
    HttpRouteTimeouts, HttpUrlRewriteFilter, PathMatchType, PathModifierType, RedirectStatusCode,
};

impl Validate for HttpRoute {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        self.spec.collect_errors(&path.field("spec"), opts, errors);
        if let Some(status) = &self.status {
            status.collect_errors(&path.field("status"), opts, errors);
        }
    }
}

impl Validate for HttpRouteSpec {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::parent_refs(&self.parent_refs, path, opts, errors);
        common::route_hostnames(&self.hostnames, path, errors);
        common::use_default_gateways(self.use_default_gateways.as_ref(), path, errors);
        // `rules` omitted is defaulted to one catch-all rule; an explicit empty list is invalid.
        let Some(rules) = &self.rules else {
            return;
        };
        let rpath = path.field("rules");
        errors.items(&rpath, rules.len(), 1, 16);
        // After defaulting, an omitted `matches` holds one match.
        let total: usize = rules
            .iter()
            .map(|r| r.matches.as_ref().map_or(1, Vec::len))
            .sum();
        common::total_matches(total, &rpath, errors);
        common::unique_rule_names(
            rules.iter().map(|r| r.name.as_deref()),
            &rpath,
            opts,
            errors,
        );
        for (i, rule) in rules.iter().enumerate() {
            rule.collect_errors(&rpath.index(i), opts, errors);
        }
    }
}

impl Validate for HttpRouteRule {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::rule_name(self.name.as_deref(), path, errors);
        if let Some(matches) = &self.matches {
            let mpath = path.field("matches");
            errors.items(&mpath, matches.len(), 0, 64);
            for (i, m) in matches.iter().enumerate() {
                m.collect_errors(&mpath.index(i), opts, errors);
            }
        }
        filters(&self.filters, path, opts, errors);
        let bpath = path.field("backendRefs");
        errors.items(&bpath, self.backend_refs.len(), 0, 16);
        for (i, b) in self.backend_refs.iter().enumerate() {
            b.collect_errors(&bpath.index(i), opts, errors);
        }
        if let Some(t) = &self.timeouts {
            t.collect_errors(&path.field("timeouts"), opts, errors);
        }
        if let Some(r) = &self.retry {
            r.collect_errors(&path.field("retry"), opts, errors);
        }
        if let Some(s) = &self.session_persistence {
            common::session_persistence(s, &path.field("sessionPersistence"), opts, errors);
        }
        rule_cel(self, path, errors);
    }
}

/// The CEL rules on `HTTPRouteRule` (Gateway API HTTPRouteRule.filters and
/// HTTPRequestRedirectFilter).
#[inline]
fn rule_cel(rule: &HttpRouteRule, path: &FieldPath, errors: &mut Errors) {
    // every rule needs a filter, on the rule or a backendRef: most rules have none, which is
    // answered inline, without the call
    if rule.filters.is_empty() && rule.backend_refs.iter().all(|b| b.filters.is_empty()) {
        return;
    }
    filtered_rule_cel(rule, path, errors);
}

/// [`rule_cel`] of a rule with a filter.
fn filtered_rule_cel(rule: &HttpRouteRule, path: &FieldPath, errors: &mut Errors) {
    if !rule.backend_refs.is_empty() && rule.filters.iter().any(|f| f.request_redirect.is_some()) {
        errors.rule(path.clone(), REDIRECT_WITH_BACKENDS);
    }
    // After defaulting, omitted matches/path/type all mean `PathPrefix`.
    let single_prefix_match = match &rule.matches {
        None => true,
        Some(ms) => {
            ms.len() == 1
                && ms.first().is_some_and(|m| {
                    m.path
                        .as_ref()
                        .is_none_or(|p| p.type_or_default() == PathMatchType::PathPrefix)
                })
        }
    };
    // the rules below fire only for a rule without exactly one PathPrefix match
    if single_prefix_match {
        return;
    }
    let redirect_prefix = |f: &HttpRouteFilter| {
        f.request_redirect
            .as_ref()
            .and_then(|r| r.path.as_ref())
            .is_some_and(is_replace_prefix)
    };
    let rewrite_prefix = |f: &HttpRouteFilter| {
        f.url_rewrite
            .as_ref()
            .and_then(|r| r.path.as_ref())
            .is_some_and(is_replace_prefix)
    };
    // Upstream uses `exists_one`, so exactly one such filter triggers the rule.
    let exactly_one = |fs: &[HttpRouteFilter], pred: &dyn Fn(&HttpRouteFilter) -> bool| {
        fs.iter().filter(|f| pred(f)).count() == 1
    };
    if exactly_one(&rule.filters, &redirect_prefix) {
        errors.rule(
            path.clone(),
            "When using RequestRedirect filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified",
        );
    }
    if exactly_one(&rule.filters, &rewrite_prefix) {
        errors.rule(
            path.clone(),
            "When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified",
        );
    }
    let in_backends = |pred: &dyn Fn(&HttpRouteFilter) -> bool| {
        rule.backend_refs
            .iter()
            .filter(|b| exactly_one(&b.filters, pred))
            .count()
            == 1
    };
    if in_backends(&redirect_prefix) {
        errors.rule(
            path.clone(),
            "Within backendRefs, when using RequestRedirect filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified",
        );
    }
    if in_backends(&rewrite_prefix) {
        errors.rule(
            path.clone(),
            "Within backendRefs, When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified",
        );
    }
}

fn is_replace_prefix(m: &HttpPathModifier) -> bool {
    m.type_ == PathModifierType::ReplacePrefixMatch && m.replace_prefix_match.is_some()
}

impl Validate for HttpRouteMatch {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        if let Some(pm) = &self.path {
            pm.collect_errors(&path.field("path"), opts, errors);
        }
        // An empty list (most matches have no header or no query match) passes every check
        // below, its item count included: the lists' paths are built only for lists with items.
        if !self.headers.is_empty() {
            header_matches(&self.headers, &path.field("headers"), opts, errors);
        }
        if !self.query_params.is_empty() {
            query_param_matches(&self.query_params, &path.field("queryParams"), errors);
        }
        // asked before the path is built: `known` reports only an unknown method
        if let Some(m) = &self.method
            && !m.is_known()
        {
            errors.known(&path.field("method"), m);
        }
    }
}

/// An HTTPRoute match's `headers`.
fn header_matches(
    headers: &[HttpHeaderMatch],
    hpath: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    errors.items(hpath, headers.len(), 0, 16);
    for (i, h) in headers.iter().enumerate() {
        // A known (or omitted) type, a header name of 1 to 256 bytes that is a token and a
        // value `header_value` accepts: what nearly every header match is, answered without
        // the paths. Anything else takes the checks below, which find nothing wrong with what
        // this accepts.
        if h.type_.as_ref().is_none_or(|t| t.is_known())
            && h.name.len() <= 256
            && p::is_header_name(&h.name)
            && common::is_plain_header_value(&h.value, opts)
        {
            continue;
        }
        let ipath = hpath.index(i);
        if let Some(t) = &h.type_ {
            errors.known(&ipath.field("type"), t);
        }
        errors.header_name(&ipath.field("name"), &h.name);
        common::header_value(&h.value, &ipath.field("value"), opts, errors);
    }
    errors.unique(hpath, headers.iter().map(|h| h.name.as_str()), None);
}

/// An HTTPRoute match's `queryParams`.
fn query_param_matches(
    query_params: &[HttpQueryParamMatch],
    qpath: &FieldPath,
    errors: &mut Errors,
) {
    errors.items(qpath, query_params.len(), 0, 16);
    for (i, q) in query_params.iter().enumerate() {
        let ipath = qpath.index(i);
        if let Some(t) = &q.type_ {
            errors.known(&ipath.field("type"), t);
        }
        errors.header_name(&ipath.field("name"), &q.name);
        errors.length(&ipath.field("value"), &q.value, 1, 1024);
    }
    errors.unique(qpath, query_params.iter().map(|q| q.name.as_str()), None);
}

/// The default path match type.
static PATH_PREFIX: PathMatchType = PathMatchType::PathPrefix;

impl Validate for HttpPathMatch {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        // the type by reference: `type_or_default` clones it (and the clone is dropped)
        let t = self.type_.as_ref().unwrap_or(&PATH_PREFIX);
        let value = self.value_or_default();
        // A known type, a value of at most 1024 bytes and, for `Exact` and `PathPrefix`, a
        // path the one-pass check accepts: nearly every path match, answered without building
        // the fields' paths or calling the rule-by-rule check. Anything else takes the checks
        // one by one, which find nothing wrong with what this accepts.
        if t.is_known()
            && value.len() <= 1024
            && (!matches!(t, PathMatchType::Exact | PathMatchType::PathPrefix)
                || p::is_plain_http_path(value.as_bytes()))
        {
            return;
        }
        errors.known(&path.field("type"), t);
        let vpath = path.field("value");
        if !errors.length(&vpath, value, 0, 1024) {
            return;
        }
        if matches!(t, PathMatchType::Exact | PathMatchType::PathPrefix) {
            for message in p::http_path_violations(value) {
                errors.rule(vpath.clone(), message);
            }
        }
    }
}

impl Validate for HttpBackendRef {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        // two per rule in most routes: a plain Service reference is answered inline
        if !common::is_plain_service_ref(&self.backend_ref) {
            common::backend_ref(&self.backend_ref, path, opts, errors);
        }
        filters(&self.filters, path, opts, errors);
    }
}

impl Validate for HttpRouteTimeouts {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        if let Some(r) = &self.request {
            errors.duration(&path.field("request"), r);
        }
        if let Some(b) = &self.backend_request {
            errors.duration(&path.field("backendRequest"), b);
        }
        let request = self.request.as_deref().and_then(p::parse_duration_ms);
        let backend = self
            .backend_request
            .as_deref()
            .and_then(p::parse_duration_ms);
        if let (Some(r), Some(b)) = (request, backend)
            && r != 0
            && b > r
        {
            errors.rule(
                path.clone(),
                "backendRequest timeout cannot be longer than request timeout",
            );
        }
    }
}

impl Validate for HttpRouteRetry {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        if let Some(a) = self.attempts {
            errors.range(
                &path.field("attempts"),
                i64::from(a),
                super::by_release::retry_attempts_minimum(opts.release)
                    .unwrap_or(i64::from(i32::MIN)),
                i64::from(i32::MAX),
            );
        }
        let cpath = path.field("codes");
        for (i, c) in self.codes.iter().enumerate() {
            errors.range(&cpath.index(i), i64::from(*c), 400, 599);
        }
        if super::by_release::retry_codes_are_a_set(opts.release) {
            let as_text: Vec<String> = self.codes.iter().map(i32::to_string).collect();
            errors.unique(&cpath, as_text.iter().map(String::as_str), None);
        }
        if let Some(b) = &self.backoff {
            errors.duration(&path.field("backoff"), b);
        }
    }
}

/// The filter types upstream allows on the standard channel (ExternalAuth is experimental).
const STANDARD_FILTER_TYPES: &[&str] = &[
    "RequestHeaderModifier",
    "ResponseHeaderModifier",
    "RequestMirror",
    "RequestRedirect",
    "URLRewrite",
    "ExtensionRef",
    "CORS",
];

/// The `filters` of the HTTPRoute rule or backendRef at `parent`: at most 16, the list CEL
/// rules (Gateway API HTTPRouteRule.filters), and each filter.
#[inline]
pub(crate) fn filters(
    list: &[HttpRouteFilter],
    parent: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    // most rules and backendRefs have none: no rule, the item count included, can fail on an
    // empty list, and the check is inlined where it is asked (three times per rule), before
    // the list's path is built
    if !list.is_empty() {
        listed_filters(list, &parent.field("filters"), opts, errors);
    }
}

/// [`filters`] of a list with at least one filter.
fn listed_filters(
    list: &[HttpRouteFilter],
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    errors.items(path, list.len(), 0, 16);
    let count = |t: HttpRouteFilterType| list.iter().filter(|f| f.type_ == t).count();
    if count(HttpRouteFilterType::RequestRedirect) > 0 && count(HttpRouteFilterType::UrlRewrite) > 0
    {
        errors.rule(path.clone(), REDIRECT_AND_REWRITE);
    }
    for (t, message) in [
        (HttpRouteFilterType::Cors, "CORS filter cannot be repeated"),
        (
            HttpRouteFilterType::RequestHeaderModifier,
            "RequestHeaderModifier filter cannot be repeated",
        ),
        (
            HttpRouteFilterType::ResponseHeaderModifier,
            "ResponseHeaderModifier filter cannot be repeated",
        ),
        (
            HttpRouteFilterType::RequestRedirect,
            "RequestRedirect filter cannot be repeated",
        ),
        (
            HttpRouteFilterType::UrlRewrite,
            "URLRewrite filter cannot be repeated",
        ),
    ] {
        if count(t) > 1 {
            errors.rule(path.clone(), message);
        }
    }
    for (i, f) in list.iter().enumerate() {
        f.collect_errors(&path.index(i), opts, errors);
    }
}

impl Validate for HttpRouteFilter {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        let tpath = path.field("type");
        if !self.type_.is_known_value() {
            errors.unsupported(&tpath, self.type_.as_str(), HttpRouteFilterType::KNOWN);
        } else if self.type_ == HttpRouteFilterType::ExternalAuth
            && opts.channel == Channel::Standard
        {
            errors.unsupported(&tpath, self.type_.as_str(), STANDARD_FILTER_TYPES);
        }
        let t = self.type_.as_str();
        let union: [(&str, &str, bool); 8] = [
            ("cors", "CORS", self.cors.is_some()),
            (
                "requestHeaderModifier",
                "RequestHeaderModifier",
                self.request_header_modifier.is_some(),
            ),
            (
                "responseHeaderModifier",
                "ResponseHeaderModifier",
                self.response_header_modifier.is_some(),
            ),
            (
                "requestMirror",
                "RequestMirror",
                self.request_mirror.is_some(),
            ),
            (
                "requestRedirect",
                "RequestRedirect",
                self.request_redirect.is_some(),
            ),
            ("urlRewrite", "URLRewrite", self.url_rewrite.is_some()),
            ("extensionRef", "ExtensionRef", self.extension_ref.is_some()),
            ("externalAuth", "ExternalAuth", self.external_auth.is_some()),
        ];
        union_rules(t, &union, path, errors);

        if let Some(h) = &self.request_header_modifier {
            common::header_filter(h, &path.field("requestHeaderModifier"), opts, errors);
        }
        if let Some(h) = &self.response_header_modifier {
            common::header_filter(h, &path.field("responseHeaderModifier"), opts, errors);
        }
        if let Some(m) = &self.request_mirror {
            common::mirror(m, &path.field("requestMirror"), opts, errors);
        }
        if let Some(r) = &self.request_redirect {
            redirect(r, &path.field("requestRedirect"), errors);
        }
        if let Some(r) = &self.url_rewrite {
            rewrite(r, &path.field("urlRewrite"), errors);
        }
        if let Some(e) = &self.extension_ref {
            common::local_object_ref(e, &path.field("extensionRef"), errors);
        }
        if let Some(c) = &self.cors {
            cors(c, &path.field("cors"), errors);
        }
        if let Some(a) = &self.external_auth {
            external_auth(a, &path.field("externalAuth"), opts, errors);
        }
    }
}

/// The filter union discipline (Gateway API HTTPRouteRule.filters): the field named by `type` must
/// be set and every other one empty. `fields` lists (field name, type name, is set).
pub(crate) fn union_rules(
    type_: &str,
    fields: &[(&str, &str, bool)],
    path: &FieldPath,
    errors: &mut Errors,
) {
    for &(field, ty, set) in fields {
        if set && type_ != ty {
            errors.rule(
                path.clone(),
                format!("filter.{field} must be nil if the filter.type is not {ty}"),
            );
        }
        if !set && type_ == ty {
            errors.rule(
                path.clone(),
                format!("filter.{field} must be specified for {ty} filter.type"),
            );
        }
    }
}

fn redirect(r: &HttpRequestRedirectFilter, path: &FieldPath, errors: &mut Errors) {
    if let Some(s) = &r.scheme {
        errors.known(&path.field("scheme"), s);
    }
    if let Some(h) = &r.hostname {
        errors.precise_hostname(&path.field("hostname"), h);
    }
    if let Some(m) = &r.path {
        path_modifier(m, &path.field("path"), errors);
    }
    if let Some(port) = r.port {
        errors.port(&path.field("port"), port);
    }
    if let Some(code) = r.status_code
        && !code.is_known()
    {
        errors.push(
            path.field("statusCode"),
            ErrorKind::UnsupportedValue {
                value: code.code().to_string(),
                supported: RedirectStatusCode::KNOWN
                    .iter()
                    .map(u16::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            },
        );
    }
}

fn rewrite(r: &HttpUrlRewriteFilter, path: &FieldPath, errors: &mut Errors) {
    if let Some(h) = &r.hostname {
        errors.precise_hostname(&path.field("hostname"), h);
    }
    if let Some(m) = &r.path {
        path_modifier(m, &path.field("path"), errors);
    }
}

fn path_modifier(m: &HttpPathModifier, path: &FieldPath, errors: &mut Errors) {
    errors.known(&path.field("type"), &m.type_);
    if let Some(v) = &m.replace_full_path {
        errors.length(&path.field("replaceFullPath"), v, 0, 1024);
    }
    if let Some(v) = &m.replace_prefix_match {
        errors.length(&path.field("replacePrefixMatch"), v, 0, 1024);
    }
    let t = &m.type_;
    if *t == PathModifierType::ReplaceFullPath && m.replace_full_path.is_none() {
        errors.rule(
            path.clone(),
            "replaceFullPath must be specified when type is set to 'ReplaceFullPath'",
        );
    }
    if m.replace_full_path.is_some() && *t != PathModifierType::ReplaceFullPath {
        errors.rule(
            path.clone(),
            "type must be 'ReplaceFullPath' when replaceFullPath is set",
        );
    }
    if *t == PathModifierType::ReplacePrefixMatch && m.replace_prefix_match.is_none() {
        errors.rule(
            path.clone(),
            "replacePrefixMatch must be specified when type is set to 'ReplacePrefixMatch'",
        );
    }
    if m.replace_prefix_match.is_some() && *t != PathModifierType::ReplacePrefixMatch {
        errors.rule(
            path.clone(),
            "type must be 'ReplacePrefixMatch' when replacePrefixMatch is set",
        );
    }
}

/// The method names CORS `allowMethods` accepts.
const CORS_METHODS: &[&str] = &[
    "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "*",
];

fn cors(c: &HttpCorsFilter, path: &FieldPath, errors: &mut Errors) {
    let opath = path.field("allowOrigins");
    errors.items(&opath, c.allow_origins.len(), 0, 64);
    for (i, o) in c.allow_origins.iter().enumerate() {
        let ipath = opath.index(i);
        if errors.length(&ipath, o, 1, 253) {
            errors.pattern(&ipath, o, p::is_cors_origin, p::CORS_ORIGIN_PATTERN);
        }
    }
    errors.unique(&opath, c.allow_origins.iter().map(String::as_str), None);
    star_alone(
        &c.allow_origins,
        &opath,
        "AllowOrigins cannot contain '*' alongside other origins",
        errors,
    );

    let mpath = path.field("allowMethods");
    errors.items(&mpath, c.allow_methods.len(), 0, 9);
    for (i, m) in c.allow_methods.iter().enumerate() {
        if !CORS_METHODS.contains(&m.as_str()) {
            errors.unsupported(&mpath.index(i), m, CORS_METHODS);
        }
    }
    errors.unique(&mpath, c.allow_methods.iter().map(String::as_str), None);
    star_alone(
        &c.allow_methods,
        &mpath,
        "AllowMethods cannot contain '*' alongside other methods",
        errors,
    );

    for (field, list) in [
        ("allowHeaders", &c.allow_headers),
        ("exposeHeaders", &c.expose_headers),
    ] {
        let hpath = path.field(field);
        errors.items(&hpath, list.len(), 0, 64);
        for (i, h) in list.iter().enumerate() {
            errors.header_name(&hpath.index(i), h);
        }
        errors.unique(&hpath, list.iter().map(String::as_str), None);
    }
    // Upstream's message says "methods" here too.
    star_alone(
        &c.allow_headers,
        &path.field("allowHeaders"),
        "AllowHeaders cannot contain '*' alongside other methods",
        errors,
    );
    if let Some(m) = c.max_age {
        errors.range(&path.field("maxAge"), i64::from(m), 1, i64::from(i32::MAX));
    }
}

fn star_alone(list: &[String], path: &FieldPath, message: &str, errors: &mut Errors) {
    if list.len() > 1 && list.iter().any(|s| s == "*") {
        errors.rule(path.clone(), message);
    }
}

/// An `HTTPExternalAuthFilter`: of an HTTPRoute filter, or (v1.7) of a listener's
/// pre-routing filter.
pub(super) fn external_auth(
    a: &HttpExternalAuthFilter,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    let ppath = path.field("protocol");
    match &a.protocol {
        None => errors.push(ppath, ErrorKind::Required),
        Some(proto) => {
            errors.known(&ppath, proto);
            let proto = proto.as_str();
            if proto == "GRPC" && a.grpc.is_none() {
                errors.rule(
                    path.clone(),
                    "grpc must be specified when protocol is set to 'GRPC'",
                );
            }
            if proto == "HTTP" && a.http.is_none() {
                errors.rule(
                    path.clone(),
                    "http must be specified when protocol is set to 'HTTP'",
                );
            }
        }
    }
    let proto = a.protocol.as_ref().map(|p| p.as_str());
    if a.grpc.is_some() && proto != Some("GRPC") {
        errors.rule(path.clone(), "protocol must be 'GRPC' when grpc is set");
    }
    if a.http.is_some() && proto != Some("HTTP") {
        errors.rule(path.clone(), "protocol must be 'HTTP' when http is set");
    }
    common::backend_object_reference(&a.backend_ref, &path.field("backendRef"), opts, errors);
    // v1.7's experimental CRDs made `forwardBody.maxSize` an int32 of at least 0.
    if super::by_release::experimental_v1_7(opts.as_bundle())
        && let Some(size) = a.forward_body.as_ref().and_then(|f| f.max_size)
    {
        let spath = path.field("forwardBody").field("maxSize");
        errors.range(&spath, i64::from(size), 0, i64::from(i32::MAX));
    }
    if let Some(g) = &a.grpc {
        let hpath = path.field("grpc").field("allowedHeaders");
        errors.items(&hpath, g.allowed_headers.len(), 0, 64);
        errors.unique(&hpath, g.allowed_headers.iter().map(String::as_str), None);
    }
    if let Some(h) = &a.http {
        let hp = path.field("http");
        if let Some(pv) = &h.path {
            let pp = hp.field("path");
            if errors.length(&pp, pv, 0, 1024) {
                errors.pattern(&pp, pv, p::is_http_path_chars, p::HTTP_PATH_PATTERN);
            }
        }
        for (field, list) in [
            ("allowedHeaders", &h.allowed_headers),
            ("allowedResponseHeaders", &h.allowed_response_headers),
        ] {
            let lp = hp.field(field);
            errors.items(&lp, list.len(), 0, 64);
            errors.unique(&lp, list.iter().map(String::as_str), None);
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::gateway::{BackendRef, BackendRefExt};
    use crate::validate::{Bundle, Release};

    /// `HTTPPathMatch` as it was checked before the inline answer for plain paths.
    fn path_match_as_before(m: &HttpPathMatch, path: &FieldPath, errors: &mut Errors) {
        let t = m.type_or_default();
        errors.known(&path.field("type"), &t);
        let vpath = path.field("value");
        let value = m.value_or_default();
        if !errors.length(&vpath, value, 0, 1024) {
            return;
        }
        if matches!(t, PathMatchType::Exact | PathMatchType::PathPrefix) {
            for message in p::http_path_violations(value) {
                errors.rule(vpath.clone(), message);
            }
        }
    }

    /// `backend_ref` as it was before its name, port and weight were asked without paths.
    fn backend_ref_as_before(
        b: &BackendRef,
        path: &FieldPath,
        opts: &ValidateOptions,
        errors: &mut Errors,
    ) {
        if let Some(g) = &b.group {
            errors.group(&path.field("group"), g);
        }
        if let Some(k) = &b.kind {
            errors.kind(&path.field("kind"), k);
        }
        errors.object_name(&path.field("name"), &b.name);
        if let Some(ns) = &b.namespace {
            errors.namespace(&path.field("namespace"), ns);
        }
        match b.port {
            Some(port) => {
                errors.port(&path.field("port"), port);
                if super::super::by_release::xbackend_refs_without_port(opts.as_bundle())
                    && b.group.as_deref() == Some(crate::xbackend::GROUP)
                    && b.kind.as_deref() == Some("XBackend")
                {
                    errors.rule(path.clone(), "Must not have port for Backend reference");
                }
            }
            None if b.is_service() => {
                errors.rule(path.clone(), "Must have port for Service reference");
            }
            None => {}
        }
        if let Some(w) = b.weight {
            errors.range(&path.field("weight"), i64::from(w), 0, 1_000_000);
        }
    }

    /// An HTTPRoute match's `headers` as they were checked before the inline answer.
    fn header_matches_as_before(
        headers: &[HttpHeaderMatch],
        hpath: &FieldPath,
        opts: &ValidateOptions,
        errors: &mut Errors,
    ) {
        errors.items(hpath, headers.len(), 0, 16);
        for (i, h) in headers.iter().enumerate() {
            let ipath = hpath.index(i);
            if let Some(t) = &h.type_ {
                errors.known(&ipath.field("type"), t);
            }
            errors.header_name(&ipath.field("name"), &h.name);
            common::header_value(&h.value, &ipath.field("value"), opts, errors);
        }
        errors.unique(hpath, headers.iter().map(|h| h.name.as_str()), None);
    }

    /// Every bundle's options: the XBackend port rule differs by release and channel.
    fn every_bundle() -> Vec<ValidateOptions> {
        Release::ALL
            .iter()
            .flat_map(|r| {
                [Channel::Standard, Channel::Experimental]
                    .map(|c| ValidateOptions::bundle(Bundle::new(*r, c)))
            })
            .collect()
    }

    /// Runs `check` as a report (root path, errors kept) and as the probe (detached path,
    /// errors counted).
    fn both_ways(check: impl Fn(&FieldPath, &mut Errors)) -> (Vec<crate::ValidationError>, usize) {
        let mut report = Errors::default();
        check(&FieldPath::root().field("x"), &mut report);
        let mut probe = Errors::counting();
        check(&FieldPath::detached(), &mut probe);
        assert_eq!(probe.len(), report.len());
        (report.into_vec(), probe.len())
    }

    fn path_value() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::collection::vec(
                prop::sample::select(
                    &[
                        "/", ".", "..", "a", "Z9", "%2f", "%2F", "#", "é", " ", "?", "@:"
                    ][..]
                ),
                0..8,
            )
            .prop_map(|pieces| pieces.concat()),
            "/[a/.]{1018,1030}",
            "/é{508,516}",
        ]
    }

    fn path_type() -> impl Strategy<Value = Option<PathMatchType>> {
        prop::option::of(
            prop::sample::select(&["Exact", "PathPrefix", "RegularExpression", "Weird"][..])
                .prop_map(PathMatchType::from),
        )
    }

    fn backend_ref() -> impl Strategy<Value = BackendRef> {
        let group = prop::option::of(prop::sample::select(
            &["", "gateway.networking.x-k8s.io", "Bad_", "example.com"][..],
        ));
        let kind = prop::option::of(prop::sample::select(
            &["Service", "XBackend", "", "bad-"][..],
        ));
        let name = prop_oneof!["[aé.-]{0,3}", "[a]{250,256}", "[aé]{124,256}"];
        let namespace = prop::option::of(prop::sample::select(&["", "ns", "Bad"][..]));
        let port = prop::option::of(prop_oneof![any::<i32>(), -2..65_540i32]);
        let weight = prop::option::of(prop_oneof![any::<i32>(), -2..1_000_003i32]);
        (group, kind, name, namespace, port, weight).prop_map(
            |(group, kind, name, namespace, port, weight)| BackendRef {
                group: group.map(str::to_owned),
                kind: kind.map(str::to_owned),
                name,
                namespace: namespace.map(str::to_owned),
                port,
                weight,
            },
        )
    }

    fn header_match() -> impl Strategy<Value = HttpHeaderMatch> {
        let type_ = prop::option::of(
            prop::sample::select(&["Exact", "RegularExpression", "Weird"][..])
                .prop_map(crate::gateway::MatchType::from),
        );
        let name = prop_oneof!["[a-]{0,3}", "[x:é ]{0,2}", "a{255,258}", "é{127,130}"];
        let value = prop_oneof!["[a \t!~\r\n\x00é]{0,4}", "a{4094,4098}", "é{2047,2050}"];
        (type_, name, value).prop_map(|(type_, name, value)| HttpHeaderMatch { type_, name, value })
    }

    proptest! {
        /// The inline answer for a known type and a plain path reports what the checks one
        /// by one did: the same errors, paths and order, and the same count when probing.
        #[test]
        fn path_match_errors_are_those_of_the_checks_one_by_one(
            type_ in path_type(),
            value in prop::option::of(path_value()),
        ) {
            let m = HttpPathMatch { type_, value };
            let opts = ValidateOptions::default();
            let now = both_ways(|path, errors| m.collect_errors(path, &opts, errors));
            let before = both_ways(|path, errors| path_match_as_before(&m, path, errors));
            prop_assert_eq!(now, before);
        }

        /// Header matches answered inline report what the checks one by one did, on both
        /// channels, with and without refusing control characters.
        #[test]
        fn header_match_errors_are_those_of_the_checks_one_by_one(
            headers in prop::collection::vec(header_match(), 0..4),
            experimental in any::<bool>(),
            refuse in any::<bool>(),
        ) {
            let channel = if experimental { Channel::Experimental } else { Channel::Standard };
            let mut opts = ValidateOptions::channel(channel);
            opts.refuse_control_characters = refuse;
            let now = both_ways(|path, errors| header_matches(&headers, path, &opts, errors));
            let before =
                both_ways(|path, errors| header_matches_as_before(&headers, path, &opts, errors));
            prop_assert_eq!(now, before);
        }

        /// A backendRef's name, port and weight asked before their paths are built report
        /// what the checks with paths did, under every bundle.
        #[test]
        fn backend_ref_errors_are_those_of_the_checks_with_paths(b in backend_ref()) {
            for opts in every_bundle() {
                let now = both_ways(|path, errors| common::backend_ref(&b, path, &opts, errors));
                let before = both_ways(|path, errors| backend_ref_as_before(&b, path, &opts, errors));
                // what the inline answer skips, the checks find nothing wrong with
                if common::is_plain_service_ref(&b) {
                    prop_assert_eq!(before.1, 0);
                }
                prop_assert_eq!(now, before);
            }
        }
    }
}
