//! Lowering one route: a translation of its [`gamma_model::ir`] conversion into the table's
//! input ([`RouteIr`]). (A valid HTTPRoute without filters, timeouts or retries skips the
//! whole-route conversion: [`super::plain`] converts it item by item and translates it with
//! the same [`lower_http_rule`].)
//!
//! The IR applies every CRD default and runs the upstream validation once, in gamma-model;
//! the rules [`from_wire_partial`](gamma_model::ir::HttpRoute::from_wire_partial) drops come
//! as data ([`Partial::dropped`]), with their errors. What is left here is what only the
//! engine knows, checked on rules that are valid for the API server, in this order (Gateway
//! API HTTPRouteRule.filters: the CRD's rules make a rule invalid; an implementation then
//! rejects what it "cannot support" and must document it):
//!
//! 1. regexes (paths, headers, query parameters, gRPC services and methods) that the regex
//!    crate refuses or that exceed the size limits (`docs/robustness.md`): `UnsupportedValue`;
//! 2. filters gamma-resolve does not implement (`ExternalAuth`): `UnsupportedValue`;
//! 3. a `RequestRedirect` on a backendRef (it answers instead of forwarding, and upstream has
//!    no CEL rule against it): `IncompatibleFilters`;
//! 4. `ReplacePrefixMatch` without exactly one `PathPrefix` match (the CRD's `exists_one` rule
//!    misses some combinations of backendRef filters): `UnsupportedValue`.
//!
//! A route the CRD rejects anywhere, in a rule too, is one the API server would refuse: it is
//! left out whole ([`RouteIr::invalid`]), reported with its first validation error (its field
//! path and upstream's message) and reason `IncompatibleFilters` when the error is one of the
//! CEL rules on filter combinations, `UnsupportedValue` otherwise (Gateway API
//! RouteConditionReason). Rules the CRD admits and gamma-rs refuses (the list above, and header
//! values with CR, LF or NUL) are dropped one by one: `PartiallyInvalid`. A route whose every
//! rule is dropped is still lowered rule by rule, so that the table reports each rule's reason.
//! Field paths are formatted only for the message of an error.

use gamma_model::gateway::ParentKind;
use gamma_model::ir::{
    self, CorsPolicy, DroppedRule, GrpcFilter, HttpFilter, Partial, PathMatch, PathModifier,
    ValueMatch,
};
use gamma_model::meta::ObjectMeta;
use gamma_model::validate::{ErrorKind, ValidateOptions};
use gamma_model::{AnyResource, RouteView};
use gamma_model::{ValidationError, ValidationErrors};

use crate::input::*;
use crate::regex::RegexPool;
use crate::request::Scheme;

const UNSUPPORTED: &str = "UnsupportedValue";
const INCOMPATIBLE: &str = "IncompatibleFilters";

/// Lowers one route resource of any kind (`None` for other resources) under `opts` (the
/// engine's, [`super::lowering_options`]), compiling its regexes into `regexes`; when
/// `known_valid`, with the snapshot's verdict that the route is valid under them ([`Snapshot::validated_routes`]):
/// then it is converted without validating it again.
///
/// [`Snapshot::validated_routes`]: gamma_model::Snapshot::validated_routes
pub(crate) fn lower_checked_route(
    resource: &AnyResource,
    opts: &ValidateOptions,
    known_valid: bool,
    regexes: &mut RegexPool,
) -> Option<RouteIr> {
    let view = resource.as_route()?;
    if known_valid
        && let AnyResource::HttpRoute(route) = resource
        && let Some(lowered) = super::plain::lower_valid_http(view, route, regexes)
    {
        return Some(lowered);
    }
    // each route kind under its own CRD's bundle
    let opts = opts.for_kind(resource.kind());
    lower_through_ir(view, resource, &opts, known_valid, regexes)
}

/// [`lower_checked_route`] of `resource` (whose route view is `view`) through the route's
/// whole [`ir::Route`]: the only path for routes [`super::plain`] does not cover.
pub(super) fn lower_through_ir(
    view: RouteView<'_>,
    resource: &AnyResource,
    opts: &ValidateOptions,
    known_valid: bool,
    regexes: &mut RegexPool,
) -> Option<RouteIr> {
    let converted = if known_valid {
        ir::Route::from_valid_resource(resource, opts)?
    } else {
        ir::Route::from_resource(resource, opts)?
    };
    Some(match converted {
        Ok(partial) => match refused_by_api_server(&partial.dropped) {
            Some(errors) => invalid_route(view, &errors),
            None => lower_partial(view, partial, regexes),
        },
        Err(errors) => invalid_route(view, &errors),
    })
}

/// The errors for which the API server would refuse the route (the channel's CRD rules), from
/// the rules the conversion dropped; `None` when it would admit it.
///
/// One verdict per object (`docs/validation.md`, "One verdict per object"): an object the API
/// server would refuse cannot exist in a cluster, so it is left out whole, with its first error
/// as the reason, never served with its other rules as if it were fine. Only rules the CRD
/// admits and gamma-rs refuses (header values with CR, LF or NUL here; regexes and filters in
/// the lowering below) are dropped one by one, `PartiallyInvalid` (Gateway API
/// RouteConditionPartiallyInvalid, the "Dropped Rule" approach).
fn refused_by_api_server(dropped: &[DroppedRule]) -> Option<ValidationErrors> {
    let crd: Vec<ValidationError> = dropped
        .iter()
        .flat_map(|d| d.errors.errors())
        .filter(|e| e.kind != ErrorKind::ControlCharacter)
        .cloned()
        .collect();
    ValidationErrors::from_vec(crd)
}

pub(super) fn base(
    view: RouteView<'_>,
    parents: Vec<ParentRefIr>,
    hostnames: Vec<String>,
) -> RouteIr {
    let meta: &ObjectMeta = view.metadata;
    RouteIr {
        kind: view.kind,
        namespace: IrString::from(meta.namespace_or_default()),
        name: IrString::from(&meta.name),
        created: meta
            .creation_timestamp
            .map(|t| (t.unix_seconds(), t.subsec_nanos())),
        hostnames,
        parents,
        rules: Vec::new(),
        invalid: None,
    }
}

/// [`parent`] of `ir::ParentRef::from_wire(_, p, route_namespace)`, without the IR's copies
/// of the defaulted group and kind (the same defaults, read from the wire reference).
pub(super) fn parent_from_wire(
    p: &gamma_model::gateway::ParentReference,
    route_namespace: &str,
) -> ParentRefIr {
    let kind = match p.parent_kind() {
        ParentKind::Service => ParentRefKind::Service,
        ParentKind::Gateway => ParentRefKind::Gateway,
        ParentKind::ListenerSet => ParentRefKind::ListenerSet,
        _ => ParentRefKind::Other(format!("{}/{}", p.group_or_default(), p.kind_or_default())),
    };
    ParentRefIr {
        kind,
        namespace: IrString::from(p.namespace_or(route_namespace)),
        name: IrString::from(&p.name),
        section_name: p.section_name.as_deref().map(IrString::from),
        port: p.port.and_then(|port| u16::try_from(port).ok()),
    }
}

pub(super) fn parent(p: ir::ParentRef) -> ParentRefIr {
    let kind = match p.parent_kind() {
        ParentKind::Service => ParentRefKind::Service,
        ParentKind::Gateway => ParentRefKind::Gateway,
        ParentKind::ListenerSet => ParentRefKind::ListenerSet,
        _ => ParentRefKind::Other(format!("{}/{}", p.group, p.kind)),
    };
    ParentRefIr {
        kind,
        namespace: p.namespace.into(),
        name: p.name.into(),
        section_name: p.section_name.map(IrString::from),
        port: p.port,
    }
}

/// The reason and message for a rule or route the CRD rejects: its first error about a
/// filter combination (`IncompatibleFilters`), else its first error (`UnsupportedValue`).
fn rejected(errors: &ValidationErrors) -> Invalid {
    let list = errors.errors();
    match list.iter().find(|e| e.is_incompatible_filters()) {
        Some(e) => Invalid {
            reason: INCOMPATIBLE,
            message: e.to_string(),
        },
        None => Invalid {
            reason: UNSUPPORTED,
            message: list
                .first()
                .map_or_else(|| errors.to_string(), ToString::to_string),
        },
    }
}

/// A route the API server would refuse (any CRD error, in a rule or not): left out of the
/// table and reported on each parentRef as written.
fn invalid_route(view: RouteView<'_>, errors: &ValidationErrors) -> RouteIr {
    let ns = view.metadata.namespace_or_default();
    let parents = view
        .parent_refs
        .iter()
        .enumerate()
        .map(|(i, p)| parent(ir::ParentRef::from_wire(i, p, ns)))
        .collect();
    let mut out = base(view, parents, view.hostnames.to_vec());
    out.invalid = Some(rejected(errors));
    out
}

fn dropped_rule(d: DroppedRule) -> RuleIr {
    RuleIr {
        invalid: Some(rejected(&d.errors)),
        name: d.name,
        ..RuleIr::default()
    }
}

/// The route's rules in written order: kept rules lowered (`lower(rule, index)`), dropped
/// ones in their places, marked invalid.
fn merge_rules<R>(
    kept: Vec<R>,
    dropped: Vec<DroppedRule>,
    index_of: impl Fn(&R) -> usize,
    mut lower: impl FnMut(R) -> RuleIr,
) -> Vec<RuleIr> {
    let mut out = Vec::with_capacity(kept.len() + dropped.len());
    let mut dropped = dropped.into_iter().peekable();
    for rule in kept {
        let at = index_of(&rule);
        while let Some(d) = dropped.next_if(|d| d.index < at) {
            out.push(dropped_rule(d));
        }
        out.push(lower(rule));
    }
    out.extend(dropped.map(dropped_rule));
    out
}

fn lower_partial(
    view: RouteView<'_>,
    partial: Partial<ir::Route>,
    regexes: &mut RegexPool,
) -> RouteIr {
    let dropped = partial.dropped;
    let parents = |p: Vec<ir::ParentRef>| p.into_iter().map(parent).collect();
    let hostnames = |h: Vec<ir::Hostname>| h.into_iter().map(ir::Hostname::into_string).collect();
    let l4 = |view, p, h, rules: Vec<ir::L4Rule>, dropped| {
        let mut out = base(view, parents(p), h);
        out.rules = merge_rules(
            rules,
            dropped,
            |r| r.index,
            |rule| RuleIr {
                name: rule.name,
                backends: rule
                    .backend_refs
                    .into_iter()
                    .map(|b| backend(b, Filters::default()))
                    .collect(),
                ..RuleIr::default()
            },
        );
        out
    };
    match partial.value {
        ir::Route::Http(r) => {
            let mut out = base(view, parents(r.parent_refs), hostnames(r.hostnames));
            out.rules = merge_rules(
                r.rules,
                dropped,
                |r| r.index,
                |rule| http_rule(rule, regexes),
            );
            out
        }
        ir::Route::Grpc(r) => {
            let mut out = base(view, parents(r.parent_refs), hostnames(r.hostnames));
            out.rules = merge_rules(
                r.rules,
                dropped,
                |r| r.index,
                |rule| grpc_rule(rule, regexes),
            );
            if out.rules.is_empty() {
                // A GRPCRoute without rules is served as one rule that matches every gRPC
                // request and has no backends (GRPCRouteRule.matches: "If no matches are
                // specified, the implementation MUST match every gRPC request"; no backends:
                // UNAVAILABLE), as it always was.
                out.rules.push(RuleIr {
                    matches: smallvec![MatchIr::Grpc {
                        service: None,
                        method: None,
                        headers: Vec::new(),
                    }],
                    ..RuleIr::default()
                });
            }
            out
        }
        ir::Route::Tls(r) => l4(
            view,
            r.parent_refs,
            hostnames(r.hostnames),
            r.rules,
            dropped,
        ),
        ir::Route::Tcp(r) => l4(view, r.parent_refs, Vec::new(), r.rules, dropped),
        ir::Route::Udp(r) => l4(view, r.parent_refs, Vec::new(), r.rules, dropped),
        // a route kind added to the IR before gamma-resolve knows it: reported, never served
        _ => {
            let mut out = base(view, Vec::new(), Vec::new());
            out.invalid = Some(Invalid {
                reason: UNSUPPORTED,
                message: format!("{} is not supported by gamma-resolve", view.kind),
            });
            out
        }
    }
}

fn unsupported(message: String) -> Invalid {
    Invalid {
        reason: UNSUPPORTED,
        message,
    }
}

/// Compiles `pattern` into the pool (validating it against the regex crate's syntax and the
/// size limits); `at` names the field, formatted only when the regex is refused.
fn regex(
    regexes: &mut RegexPool,
    pattern: &str,
    at: impl FnOnce() -> String,
) -> Result<(), Invalid> {
    match regexes.intern(pattern) {
        Ok(_) => Ok(()),
        Err(e) => Err(unsupported(format!("{}: {e}", at()))),
    }
}

fn value_match(
    v: ValueMatch,
    regexes: &mut RegexPool,
    at: impl FnOnce() -> String,
) -> Result<StrMatch, Invalid> {
    match v {
        ValueMatch::Exact(s) => Ok(StrMatch::Exact(s)),
        ValueMatch::RegularExpression(s) => {
            regex(regexes, &s, at)?;
            Ok(StrMatch::Regex(s))
        }
        other => Err(unsupported(format!(
            "{}: match type of {:?} is not supported by gamma-resolve",
            at(),
            other.as_str()
        ))),
    }
}

fn backend(b: ir::WeightedBackend, filters: Filters) -> BackendIr {
    let t = b.target;
    BackendIr {
        group: t.group,
        kind: t.kind,
        namespace: t.namespace,
        name: t.name,
        port: t.port,
        weight: b.weight,
        filters,
    }
}

fn edits(h: ir::HeaderModifier) -> HeaderEdits {
    let pairs = |list: Vec<(ir::HeaderName, String)>| {
        list.into_iter()
            .map(|(n, v)| (n.into_string(), v))
            .collect()
    };
    HeaderEdits {
        set: pairs(h.set),
        add: pairs(h.add),
        remove: h
            .remove
            .into_iter()
            .map(ir::HeaderName::into_string)
            .collect(),
    }
}

fn mirror(m: ir::Mirror) -> MirrorIr {
    let t = m.target;
    MirrorIr {
        backend: BackendIr {
            group: t.group,
            kind: t.kind,
            namespace: t.namespace,
            name: t.name,
            port: t.port,
            weight: 1,
            filters: Filters::default(),
        },
        fraction: (m.fraction.numerator, m.fraction.denominator),
    }
}

fn modifier(m: PathModifier, at: &dyn Fn() -> String) -> Result<PathModifierIr, Invalid> {
    match m {
        PathModifier::ReplaceFullPath(p) => Ok(PathModifierIr::Full(p)),
        PathModifier::ReplacePrefixMatch(p) => Ok(PathModifierIr::Prefix(p)),
        _ => Err(unsupported(format!(
            "{}: path modifier type not supported by gamma-resolve",
            at()
        ))),
    }
}

fn cors(c: &CorsPolicy) -> Option<serde_json::Value> {
    serde_json::to_value(c).ok()
}

/// HTTP filters, grouped by type (validation admits each non-repeatable type once). `at` is
/// the filter list's owner (`spec.rules[i]` or `spec.rules[i].backendRefs[j]`).
fn http_filters(list: Vec<HttpFilter>, at: &dyn Fn() -> String) -> Result<FiltersIr, Invalid> {
    let mut out = FiltersIr::default();
    if list.is_empty() {
        // most rules and backendRefs have none
        return Ok(out);
    }
    for (i, f) in list.into_iter().enumerate() {
        let here = || format!("{}.filters[{i}]", at());
        match f {
            HttpFilter::RequestHeaderModifier(h) => out.request_headers = edits(h),
            HttpFilter::ResponseHeaderModifier(h) => out.response_headers = edits(h),
            HttpFilter::RequestMirror(m) => out.mirrors.push(mirror(m)),
            HttpFilter::RequestRedirect(r) => {
                let scheme = match r.scheme {
                    None => None,
                    Some(ir::RedirectScheme::Http) => Some(Scheme::Http),
                    Some(ir::RedirectScheme::Https) => Some(Scheme::Https),
                    Some(other) => {
                        return Err(unsupported(format!(
                            "{}: redirect scheme {other:?} is not supported by gamma-resolve",
                            here()
                        )));
                    }
                };
                out.redirect = Some(RedirectIr {
                    scheme,
                    hostname: r.hostname.map(ir::PreciseHostname::into_string),
                    port: r.port,
                    path: r.path.map(|m| modifier(m, &here)).transpose()?,
                    status: r.status.code(),
                });
            }
            HttpFilter::UrlRewrite(r) => {
                out.rewrite = Some(RewriteIr {
                    hostname: r.hostname.map(ir::PreciseHostname::into_string),
                    path: r.path.map(|m| modifier(m, &here)).transpose()?,
                });
            }
            HttpFilter::Cors(c) => out.cors = cors(&c),
            HttpFilter::ExtensionRef(e) => {
                out.extensions
                    .push(format!("{}/{}/{}", e.group, e.kind, e.name));
            }
            HttpFilter::ExternalAuth(_) => {
                return Err(unsupported(format!(
                    "{}: filter type \"ExternalAuth\" is not supported by gamma-resolve",
                    here()
                )));
            }
            _ => {
                return Err(unsupported(format!(
                    "{}: filter type not supported by gamma-resolve",
                    here()
                )));
            }
        }
    }
    Ok(out)
}

fn grpc_filters(list: Vec<GrpcFilter>, at: &dyn Fn() -> String) -> Result<FiltersIr, Invalid> {
    let mut out = FiltersIr::default();
    if list.is_empty() {
        return Ok(out);
    }
    for (i, f) in list.into_iter().enumerate() {
        match f {
            GrpcFilter::RequestHeaderModifier(h) => out.request_headers = edits(h),
            GrpcFilter::ResponseHeaderModifier(h) => out.response_headers = edits(h),
            GrpcFilter::RequestMirror(m) => out.mirrors.push(mirror(m)),
            GrpcFilter::ExtensionRef(e) => {
                out.extensions
                    .push(format!("{}/{}/{}", e.group, e.kind, e.name));
            }
            _ => {
                return Err(unsupported(format!(
                    "{}.filters[{i}]: filter type not supported by gamma-resolve",
                    at()
                )));
            }
        }
    }
    Ok(out)
}

/// `timeouts`, typed (forwarded in decisions).
fn timeouts_of(t: &ir::Timeouts) -> crate::timing::RuleTimeouts {
    crate::timing::RuleTimeouts::new(t.request, t.backend_request)
}

/// `retry`, typed (forwarded in decisions).
fn retry_of(r: &ir::Retry) -> crate::timing::RetryPolicy {
    crate::timing::RetryPolicy::new(r.codes.clone(), r.attempts, r.backoff)
}

fn http_rule(rule: ir::HttpRule, regexes: &mut RegexPool) -> RuleIr {
    let parts = HttpRuleParts {
        index: rule.index,
        name: rule.name,
        matches: rule.matches.into_iter(),
        filters: rule.filters,
        backends: rule.backend_refs.into_iter(),
        timeouts: rule.timeouts,
        retry: rule.retry,
    };
    lower_http_rule(parts, regexes)
}

/// An HTTPRoute rule in its IR pieces: from an [`ir::HttpRule`], or converted match by match
/// and backendRef by backendRef from the wire rule of a route known valid ([`super::plain`]),
/// so that both are translated by the same code.
pub(super) struct HttpRuleParts<M, B> {
    pub(super) index: usize,
    pub(super) name: Option<String>,
    /// The matches (an omitted or empty list already defaulted to one `PathPrefix /`).
    pub(super) matches: M,
    pub(super) filters: Vec<HttpFilter>,
    pub(super) backends: B,
    pub(super) timeouts: Option<ir::Timeouts>,
    pub(super) retry: Option<ir::Retry>,
}

pub(super) fn lower_http_rule<M, B>(rule: HttpRuleParts<M, B>, regexes: &mut RegexPool) -> RuleIr
where
    M: ExactSizeIterator<Item = ir::HttpMatch>,
    B: ExactSizeIterator<Item = ir::HttpBackend>,
{
    let mut out = RuleIr::default();
    lower_http_rule_into(rule, regexes, &mut out);
    out
}

/// [`lower_http_rule`] into `out`, a default rule already in its route's list: a lowered rule
/// is several hundred bytes (its first match and two backendRefs inline), and filling it in
/// place spares moving it twice.
pub(super) fn lower_http_rule_into<M, B>(
    rule: HttpRuleParts<M, B>,
    regexes: &mut RegexPool,
    out: &mut RuleIr,
) where
    M: ExactSizeIterator<Item = ir::HttpMatch>,
    B: ExactSizeIterator<Item = ir::HttpBackend>,
{
    let index = rule.index;
    out.name = rule.name;
    // exact sizes: more than fit inline go to the heap at once
    out.matches.reserve_exact(rule.matches.len());
    out.backends.reserve_exact(rule.backends.len());
    out.timeouts = rule.timeouts.as_ref().map(timeouts_of);
    out.retry = rule.retry.as_ref().map(retry_of);
    let at = || format!("spec.rules[{index}]");
    let result = (|| -> Result<(), Invalid> {
        for (mi, m) in rule.matches.enumerate() {
            let mat = || format!("{}.matches[{mi}]", at());
            let path = match m.path {
                PathMatch::Exact(p) => PathMatchIr::Exact(p.into_ir_string()),
                PathMatch::Prefix(p) => PathMatchIr::Prefix(p.into_ir_string()),
                PathMatch::RegularExpression(r) => {
                    regex(regexes, &r, || format!("{}.path.value", mat()))?;
                    PathMatchIr::Regex(r)
                }
                _ => {
                    return Err(unsupported(format!(
                        "{}.path.type: path match type not supported by gamma-resolve",
                        mat()
                    )));
                }
            };
            let mut headers = Vec::with_capacity(m.headers.len());
            for (hi, h) in m.headers.into_iter().enumerate() {
                let v = value_match(h.value, regexes, || format!("{}.headers[{hi}]", mat()))?;
                headers.push((h.name.into_ir_string(), v));
            }
            let mut query = Vec::with_capacity(m.query_params.len());
            for (qi, q) in m.query_params.into_iter().enumerate() {
                let v = value_match(q.value, regexes, || format!("{}.queryParams[{qi}]", mat()))?;
                query.push((q.name, v));
            }
            out.matches.push(MatchIr::Http {
                path,
                method: m.method.map(|m| IrString::from(m.as_str())),
                headers,
                query,
            });
        }
        // most rules and backendRefs have no filters: their (large) `FiltersIr` stays the
        // default, neither built nor moved nor dropped again
        if !rule.filters.is_empty() {
            out.filters = http_filters(rule.filters, &at)?.into();
        }
        for (bi, b) in rule.backends.enumerate() {
            if b.filters.is_empty() {
                out.backends.push(backend(b.backend, Filters::default()));
                continue;
            }
            let bat = || format!("{}.backendRefs[{bi}]", at());
            let filters = http_filters(b.filters, &bat)?;
            if filters.redirect.is_some() {
                return Err(Invalid {
                    reason: INCOMPATIBLE,
                    message: format!(
                        "{}.filters: RequestRedirect on a backendRef is not supported",
                        bat()
                    ),
                });
            }
            out.backends.push(backend(b.backend, filters.into()));
        }
        // Gateway API HTTPPathModifier: ReplacePrefixMatch needs exactly one match, a
        // PathPrefix (the CRD checks only some combinations of filters).
        let prefix_rewrite = [
            out.filters.redirect.as_ref().and_then(|r| r.path.as_ref()),
            out.filters.rewrite.as_ref().and_then(|r| r.path.as_ref()),
        ]
        .into_iter()
        .chain(
            out.backends
                .iter()
                .map(|b| b.filters.rewrite.as_ref().and_then(|r| r.path.as_ref())),
        )
        .flatten()
        .any(|m| matches!(m, PathModifierIr::Prefix(_)));
        if prefix_rewrite
            && !matches!(
                out.matches.as_slice(),
                [MatchIr::Http {
                    path: PathMatchIr::Prefix(_),
                    ..
                }]
            )
        {
            return Err(unsupported(format!(
                "{}: ReplacePrefixMatch requires exactly one PathPrefix match",
                at()
            )));
        }
        Ok(())
    })();
    if let Err(invalid) = result {
        out.invalid = Some(invalid);
    }
}

fn grpc_rule(rule: ir::GrpcRule, regexes: &mut RegexPool) -> RuleIr {
    let index = rule.index;
    let mut out = RuleIr {
        name: rule.name,
        matches: SmallVec::with_capacity(rule.matches.len()),
        backends: SmallVec::with_capacity(rule.backend_refs.len()),
        ..RuleIr::default()
    };
    let at = || format!("spec.rules[{index}]");
    let result = (|| -> Result<(), Invalid> {
        for (mi, m) in rule.matches.into_iter().enumerate() {
            let mat = || format!("{}.matches[{mi}]", at());
            let (mut service, mut method) = (None, None);
            if let Some(mm) = m.method {
                let mut part = |v: String, field: &str| -> Result<StrMatch, Invalid> {
                    if mm.regex {
                        regex(regexes, &v, || format!("{}.method.{field}", mat()))?;
                        Ok(StrMatch::Regex(v.into()))
                    } else {
                        Ok(StrMatch::Exact(v.into()))
                    }
                };
                service = mm.service.map(|s| part(s, "service")).transpose()?;
                method = mm.method.map(|s| part(s, "method")).transpose()?;
            }
            let mut headers = Vec::with_capacity(m.headers.len());
            for (hi, h) in m.headers.into_iter().enumerate() {
                let v = value_match(h.value, regexes, || format!("{}.headers[{hi}]", mat()))?;
                headers.push((h.name.into_ir_string(), v));
            }
            out.matches.push(MatchIr::Grpc {
                service,
                method,
                headers,
            });
        }
        if !rule.filters.is_empty() {
            out.filters = grpc_filters(rule.filters, &at)?.into();
        }
        for (bi, b) in rule.backend_refs.into_iter().enumerate() {
            if b.filters.is_empty() {
                out.backends.push(backend(b.backend, Filters::default()));
                continue;
            }
            let bat = || format!("{}.backendRefs[{bi}]", at());
            let filters = grpc_filters(b.filters, &bat)?;
            out.backends.push(backend(b.backend, filters.into()));
        }
        Ok(())
    })();
    if let Err(invalid) = result {
        out.invalid = Some(invalid);
    }
    out
}
