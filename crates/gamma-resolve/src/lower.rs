//! Lowering a [`Snapshot`] into [`TableInput`]: CRD defaults applied, label selectors
//! resolved against Namespace labels, EndpointSlice readiness summarised, and the checks the
//! engine depends on (unknown enum values, incompatible filter combinations, invalid regexes)
//! turned into dropped rules with upstream reasons.

use std::collections::BTreeSet;
use std::net::IpAddr;

use gamma_model::Snapshot;
use gamma_model::gateway::{
    BackendRef, BackendRefExt, FromNamespaces, GrpcRoute, GrpcRouteFilter, GrpcRouteFilterType,
    HttpHeaderFilter, HttpPathModifier, HttpRequestMirrorFilter, HttpRoute, HttpRouteFilter,
    HttpRouteFilterType, L4RouteRule, LabelSelector, Listener, MatchType, ParentKind,
    ParentReference, PathMatchType, PathModifierType, RedirectScheme,
};
use gamma_model::meta::ObjectMeta;
use gamma_model::validate::{Validate, ValidateOptions, ValidationErrors};

use crate::cond::RegexPool;
use crate::input::*;
use crate::request::Scheme;
use gamma_model::RouteKind;

const UNSUPPORTED: &str = "UnsupportedValue";
const INCOMPATIBLE: &str = "IncompatibleFilters";

fn ns_of(meta: &ObjectMeta) -> String {
    meta.namespace_or_default().to_string()
}

fn created(meta: &ObjectMeta) -> Option<(i64, u32)> {
    meta.creation_timestamp
        .map(|t| (t.unix_seconds(), t.subsec_nanos()))
}

fn port16(p: Option<i32>) -> Option<u16> {
    p.and_then(|p| u16::try_from(p).ok())
}

/// Lowers a snapshot into the engine's input.
pub fn lower(snapshot: &Snapshot) -> TableInput {
    lower_with(snapshot, &ValidateOptions::default())
}

/// [`lower`] validating routes against `opts` (the channel whose CRD rules apply): a route
/// invalid under them is left out of the table, and says so ([`crate::RouteTable::left_out_at`]).
pub fn lower_with(snapshot: &Snapshot, opts: &ValidateOptions) -> TableInput {
    lower_into(snapshot, opts, &mut RegexPool::default())
}

/// [`lower_with`], validating the routes' regexes by compiling them into `regexes`: the
/// table's pool when building from a snapshot, so the table reuses them instead of compiling
/// each regex a second time.
pub(crate) fn lower_into(
    snapshot: &Snapshot,
    opts: &ValidateOptions,
    regexes: &mut RegexPool,
) -> TableInput {
    let opts = &lowering_options(opts);
    let mut input = TableInput::default();
    for svc in snapshot.services() {
        input.services.push(lower_service(snapshot, svc));
    }
    for gw in snapshot.gateways() {
        input.gateways.push(lower_gateway(snapshot, gw));
    }
    for g in snapshot.reference_grants() {
        input.grants.push(lower_grant(g));
    }
    for r in snapshot.http_routes() {
        input.routes.push(lower_http(r, regexes, opts));
    }
    for r in snapshot.grpc_routes() {
        input.routes.push(lower_grpc(r, regexes, opts));
    }
    // TLS, TCP and UDP routes share one shape (parents, optional SNI hostnames, one rule of
    // weighted backends), so they lower through one loop.
    let no_hostnames: &[String] = &[];
    let l4 = snapshot
        .tls_routes()
        .map(|r| {
            let (p, rules) = (r.spec.parent_refs.as_slice(), r.spec.rules.as_slice());
            (
                RouteKind::Tls,
                &r.metadata,
                p,
                r.spec.hostnames.as_slice(),
                rules,
                r.validate_with(opts),
            )
        })
        .chain(snapshot.tcp_routes().map(|r| {
            let (p, rules) = (r.spec.parent_refs.as_slice(), r.spec.rules.as_slice());
            (
                RouteKind::Tcp,
                &r.metadata,
                p,
                no_hostnames,
                rules,
                r.validate_with(opts),
            )
        }))
        .chain(snapshot.udp_routes().map(|r| {
            let (p, rules) = (r.spec.parent_refs.as_slice(), r.spec.rules.as_slice());
            (
                RouteKind::Udp,
                &r.metadata,
                p,
                no_hostnames,
                rules,
                r.validate_with(opts),
            )
        }));
    for (kind, metadata, parent_refs, hostnames, rules, validation) in l4 {
        let mut lowered = lower_l4(kind, metadata, parent_refs, hostnames, rules);
        apply_validation(&mut lowered, validation);
        input.routes.push(lowered);
    }
    input
}

/// Lowers one Service (ports, cluster IPs, readiness from its EndpointSlices).
pub(crate) fn lower_service(snapshot: &Snapshot, svc: &gamma_model::k8s::Service) -> ServiceIr {
    let ns = ns_of(&svc.metadata);
    let external_name = svc
        .spec
        .type_
        .as_ref()
        .is_some_and(|t| t.as_str() == "ExternalName");
    let slices: Vec<_> = snapshot
        .endpoint_slices_for(&ns, &svc.metadata.name)
        .collect();
    let ready = (!slices.is_empty()).then(|| slices.iter().any(|s| s.has_ready_endpoint()));
    ServiceIr {
        namespace: ns,
        name: svc.metadata.name.clone(),
        cluster_ips: svc.frontend_ips(),
        headless: svc.is_headless(),
        external_name,
        ports: svc
            .spec
            .ports
            .iter()
            .filter_map(|p| {
                let protocol = match p.protocol.as_deref() {
                    None | Some("TCP") => L4::Tcp,
                    Some("UDP") => L4::Udp,
                    // SCTP and unknown protocols carry no routes here
                    Some(_) => return None,
                };
                Some(ServicePortIr {
                    name: p.name.clone(),
                    port: u16::try_from(p.port).ok()?,
                    protocol,
                    app_protocol: p.app_protocol.clone(),
                })
            })
            .collect(),
        ready,
    }
}

/// Lowers one Gateway (addresses, listeners with their namespace selectors resolved).
pub(crate) fn lower_gateway(snapshot: &Snapshot, gw: &gamma_model::gateway::Gateway) -> GatewayIr {
    let ns = ns_of(&gw.metadata);
    let mut addresses: Vec<IpAddr> = gw
        .status
        .iter()
        .flat_map(|s| s.addresses.iter())
        .filter_map(|a| a.value.parse().ok())
        .collect();
    if addresses.is_empty() {
        addresses = gw
            .spec
            .addresses
            .iter()
            .filter_map(|a| a.value.as_deref()?.parse().ok())
            .collect();
    }
    let listeners = gw
        .spec
        .listeners
        .iter()
        .filter_map(|l| listener(snapshot, &ns, l))
        .collect();
    GatewayIr {
        namespace: ns,
        name: gw.metadata.name.clone(),
        addresses,
        listeners,
    }
}

/// Lowers one ReferenceGrant.
pub(crate) fn lower_grant(g: &gamma_model::gateway::ReferenceGrant) -> GrantIr {
    GrantIr {
        namespace: ns_of(&g.metadata),
        from: g
            .spec
            .iter()
            .flat_map(|s| s.from.iter())
            .map(|f| (f.group.clone(), f.kind.clone(), f.namespace.clone()))
            .collect(),
        to: g
            .spec
            .iter()
            .flat_map(|s| s.to.iter())
            .map(|t| (t.group.clone(), t.kind.clone(), t.name.clone()))
            .collect(),
    }
}

/// Lowers one route of any kind (`None` for a resource that is not a route): the per-route
/// step of [`lower_into`], which an incremental update runs for the routes it rebuilds.
pub(crate) fn lower_route(
    resource: &gamma_model::AnyResource,
    regexes: &mut RegexPool,
    opts: &ValidateOptions,
) -> Option<RouteIr> {
    use gamma_model::AnyResource as R;
    let no_hostnames: &[String] = &[];
    let (kind, metadata, parents, hostnames, rules, validation) = match resource {
        R::HttpRoute(r) => return Some(lower_http(r, regexes, opts)),
        R::GrpcRoute(r) => return Some(lower_grpc(r, regexes, opts)),
        R::TlsRoute(r) => (
            RouteKind::Tls,
            &r.metadata,
            r.spec.parent_refs.as_slice(),
            r.spec.hostnames.as_slice(),
            r.spec.rules.as_slice(),
            r.validate_with(opts),
        ),
        R::TcpRoute(r) => (
            RouteKind::Tcp,
            &r.metadata,
            r.spec.parent_refs.as_slice(),
            no_hostnames,
            r.spec.rules.as_slice(),
            r.validate_with(opts),
        ),
        R::UdpRoute(r) => (
            RouteKind::Udp,
            &r.metadata,
            r.spec.parent_refs.as_slice(),
            no_hostnames,
            r.spec.rules.as_slice(),
            r.validate_with(opts),
        ),
        _ => return None,
    };
    let mut lowered = lower_l4(kind, metadata, parents, hostnames, rules);
    apply_validation(&mut lowered, validation);
    Some(lowered)
}

/// The validation options every lowering uses: the caller's, with header values carrying
/// CR, LF or NUL always refused.
pub(crate) fn lowering_options(opts: &ValidateOptions) -> ValidateOptions {
    // Header values with CR, LF or NUL are never programmed, on either channel and whatever
    // the caller's options: the rule is refused (UnsupportedValue, naming the field), which the
    // standard CRD leaves to us. Header injection is not a validation preference.
    let mut opts = opts.clone();
    opts.refuse_control_characters = true;
    opts
}

fn listener(snapshot: &Snapshot, gw_ns: &str, l: &Listener) -> Option<ListenerIr> {
    let (protocol, unsupported_protocol) = match l.protocol.as_str() {
        "HTTP" => (ListenerProtocol::Http, None),
        "HTTPS" => (ListenerProtocol::Https, None),
        "TLS" => (ListenerProtocol::Tls, None),
        "TCP" => (ListenerProtocol::Tcp, None),
        "UDP" => (ListenerProtocol::Udp, None),
        // implementation-specific protocols are not ours to serve: kept, so that the listener
        // is reported and routes naming it are NotAllowedByListeners
        other => (ListenerProtocol::default(), Some(other.to_string())),
    };
    let ar = l.allowed_routes.as_ref();
    let from = ar
        .and_then(|a| a.namespaces.as_ref())
        .and_then(|n| n.from.clone());
    let allowed_namespaces = match from {
        None | Some(FromNamespaces::Same) => AllowedNamespaces::Same,
        Some(FromNamespaces::All) => AllowedNamespaces::All,
        Some(FromNamespaces::Selector) => {
            let sel = ar
                .and_then(|a| a.namespaces.as_ref())
                .and_then(|n| n.selector.clone());
            AllowedNamespaces::Only(select_namespaces(snapshot, sel.as_ref()))
        }
        // `None` and unknown values admit no namespace
        Some(_) => AllowedNamespaces::Only(BTreeSet::new()),
    };
    let certificate_refs = l
        .tls
        .iter()
        .flat_map(|t| t.certificate_refs.iter())
        .map(|c| CertificateRefIr {
            group: c.group.clone().unwrap_or_default(),
            kind: c.kind.clone().unwrap_or_else(|| "Secret".into()),
            namespace: c.namespace.clone().unwrap_or_else(|| gw_ns.to_string()),
            name: c.name.clone(),
        })
        .collect();
    let (allowed_kinds, invalid_kinds) =
        crate::listener::listener_kinds(protocol, ar.map_or(&[][..], |a| &a.kinds[..]));
    Some(ListenerIr {
        name: l.name.clone(),
        port: u16::try_from(l.port).ok()?,
        protocol,
        hostname: l.hostname.clone(),
        allowed_namespaces,
        allowed_kinds,
        invalid_kinds,
        unsupported_protocol,
        certificate_refs,
    })
}

/// Namespaces whose labels satisfy `selector` (a missing selector selects nothing; an
/// unevaluable one, e.g. an unknown operator, selects nothing).
fn select_namespaces(snapshot: &Snapshot, selector: Option<&LabelSelector>) -> BTreeSet<String> {
    let Some(sel) = selector else {
        return BTreeSet::new();
    };
    snapshot
        .namespaces()
        .filter(|n| sel.matches(&n.metadata.labels) == Ok(true))
        .map(|n| n.metadata.name.clone())
        .collect()
}

fn parent(route_ns: &str, p: &ParentReference) -> ParentRefIr {
    let kind = match p.parent_kind() {
        ParentKind::Service => ParentRefKind::Service,
        ParentKind::Gateway => ParentRefKind::Gateway,
        _ => ParentRefKind::Other(format!("{}/{}", p.group_or_default(), p.kind_or_default())),
    };
    ParentRefIr {
        kind,
        namespace: p.namespace_or(route_ns).to_string(),
        name: p.name.clone(),
        section_name: p.section_name.clone(),
        port: port16(p.port),
    }
}

fn backend(route_ns: &str, b: &BackendRef) -> BackendIr {
    BackendIr {
        group: b.group_or_default().to_string(),
        kind: b.kind_or_default().to_string(),
        namespace: b.namespace_or(route_ns).to_string(),
        name: b.name.clone(),
        port: port16(b.port),
        weight: u32::try_from(b.weight_or_default().clamp(0, 1_000_000)).unwrap_or(0),
        filters: FiltersIr::default(),
    }
}

fn edits(f: Option<&HttpHeaderFilter>) -> HeaderEdits {
    f.map(|f| HeaderEdits {
        set: f
            .set
            .iter()
            .map(|h| (h.name.clone(), h.value.clone()))
            .collect(),
        add: f
            .add
            .iter()
            .map(|h| (h.name.clone(), h.value.clone()))
            .collect(),
        remove: f.remove.clone(),
    })
    .unwrap_or_default()
}

fn mirror(route_ns: &str, m: &HttpRequestMirrorFilter) -> MirrorIr {
    let fraction = match (m.percent, &m.fraction) {
        (Some(p), _) => (u32::try_from(p.clamp(0, 100)).unwrap_or(0), 100),
        (None, Some(f)) => (
            u32::try_from(f.numerator.max(0)).unwrap_or(0),
            u32::try_from(f.denominator.unwrap_or(100).max(1)).unwrap_or(100),
        ),
        (None, None) => (100, 100),
    };
    let b = &m.backend_ref;
    MirrorIr {
        backend: BackendIr {
            group: b.group_or_default().to_string(),
            kind: b.kind_or_default().to_string(),
            namespace: b.namespace_or(route_ns).to_string(),
            name: b.name.clone(),
            port: port16(b.port),
            weight: 1,
            filters: FiltersIr::default(),
        },
        fraction,
    }
}

fn modifier(m: &HttpPathModifier) -> Result<PathModifierIr, Invalid> {
    match (&m.type_, &m.replace_full_path, &m.replace_prefix_match) {
        (PathModifierType::ReplaceFullPath, Some(p), _) => Ok(PathModifierIr::Full(p.clone())),
        (PathModifierType::ReplacePrefixMatch, _, Some(p)) => Ok(PathModifierIr::Prefix(p.clone())),
        (t, _, _) => Err(Invalid {
            reason: UNSUPPORTED,
            message: format!(
                "path modifier type {:?} without its value, or unknown",
                t.as_str()
            ),
        }),
    }
}

/// HTTP filters, in list order, grouped by type (non-repeatable types keep the first).
fn http_filters(route_ns: &str, fs: &[HttpRouteFilter], at: &str) -> Result<FiltersIr, Invalid> {
    let mut out = FiltersIr::default();
    for (i, f) in fs.iter().enumerate() {
        let bad = |reason: &'static str, what: &str| Invalid {
            reason,
            message: format!("{at}.filters[{i}]: {what}"),
        };
        match &f.type_ {
            HttpRouteFilterType::RequestHeaderModifier => {
                out.request_headers = edits(f.request_header_modifier.as_ref())
            }
            HttpRouteFilterType::ResponseHeaderModifier => {
                out.response_headers = edits(f.response_header_modifier.as_ref());
            }
            HttpRouteFilterType::RequestMirror => {
                if let Some(m) = &f.request_mirror {
                    out.mirrors.push(mirror(route_ns, m));
                }
            }
            HttpRouteFilterType::RequestRedirect => {
                let r = f.request_redirect.clone().unwrap_or_default();
                let scheme = match &r.scheme {
                    None => None,
                    Some(RedirectScheme::Http) => Some(Scheme::Http),
                    Some(RedirectScheme::Https) => Some(Scheme::Https),
                    Some(other) => {
                        return Err(bad(
                            UNSUPPORTED,
                            &format!("unknown redirect scheme {:?}", other.as_str()),
                        ));
                    }
                };
                let status = match r.status_code {
                    None => 302,
                    Some(c) if c.is_known() => u16::try_from(c.code()).unwrap_or(302),
                    Some(c) => {
                        return Err(bad(
                            UNSUPPORTED,
                            &format!("unsupported redirect statusCode {}", c.code()),
                        ));
                    }
                };
                let path = r.path.as_ref().map(modifier).transpose()?;
                out.redirect = Some(RedirectIr {
                    scheme,
                    hostname: r.hostname.clone(),
                    port: port16(r.port),
                    path,
                    status,
                });
            }
            HttpRouteFilterType::UrlRewrite => {
                let r = f.url_rewrite.clone().unwrap_or_default();
                let path = r.path.as_ref().map(modifier).transpose()?;
                out.rewrite = Some(RewriteIr {
                    hostname: r.hostname.clone(),
                    path,
                });
            }
            HttpRouteFilterType::Cors => {
                out.cors = f.cors.as_ref().and_then(|c| serde_json::to_value(c).ok());
            }
            HttpRouteFilterType::ExtensionRef => {
                let e = f.extension_ref.clone().unwrap_or_default();
                out.extensions
                    .push(format!("{}/{}/{}", e.group, e.kind, e.name));
            }
            other => {
                return Err(bad(
                    UNSUPPORTED,
                    &format!(
                        "filter type {:?} is not supported by gamma-resolve",
                        other.as_str()
                    ),
                ));
            }
        }
    }
    if out.redirect.is_some() && out.rewrite.is_some() {
        return Err(Invalid {
            reason: INCOMPATIBLE,
            message: format!("{at}.filters: RequestRedirect and URLRewrite cannot be combined"),
        });
    }
    Ok(out)
}

fn grpc_filters(route_ns: &str, fs: &[GrpcRouteFilter], at: &str) -> Result<FiltersIr, Invalid> {
    let mut out = FiltersIr::default();
    for (i, f) in fs.iter().enumerate() {
        match &f.type_ {
            GrpcRouteFilterType::RequestHeaderModifier => {
                out.request_headers = edits(f.request_header_modifier.as_ref())
            }
            GrpcRouteFilterType::ResponseHeaderModifier => {
                out.response_headers = edits(f.response_header_modifier.as_ref());
            }
            GrpcRouteFilterType::RequestMirror => {
                if let Some(m) = &f.request_mirror {
                    out.mirrors.push(mirror(route_ns, m));
                }
            }
            GrpcRouteFilterType::ExtensionRef => {
                let e = f.extension_ref.clone().unwrap_or_default();
                out.extensions
                    .push(format!("{}/{}/{}", e.group, e.kind, e.name));
            }
            other => {
                return Err(Invalid {
                    reason: UNSUPPORTED,
                    message: format!(
                        "{at}.filters[{i}]: unknown filter type {:?}",
                        other.as_str()
                    ),
                });
            }
        }
    }
    Ok(out)
}

fn str_match(
    t: Option<&MatchType>,
    value: &str,
    regexes: &mut RegexPool,
    at: &str,
) -> Result<StrMatch, Invalid> {
    match t {
        None | Some(MatchType::Exact) => Ok(StrMatch::Exact(value.to_string())),
        Some(MatchType::RegularExpression) => {
            regexes.intern(value).map_err(|e| Invalid {
                reason: UNSUPPORTED,
                message: format!("{at}: {e}"),
            })?;
            Ok(StrMatch::Regex(value.to_string()))
        }
        Some(other) => Err(Invalid {
            reason: UNSUPPORTED,
            message: format!("{at}: unknown match type {:?}", other.as_str()),
        }),
    }
}

/// Applies upstream validation (CRD markers and CEL, Gateway API CRDs v1.6.1): errors inside
/// `spec.rules[i]` drop that rule (reported as `PartiallyInvalid`), other errors exclude the
/// whole route. Checks made while lowering keep their more specific reason.
fn apply_validation(out: &mut RouteIr, result: Result<(), ValidationErrors>) {
    let Err(errors) = result else { return };
    for e in errors.errors() {
        let rule = e.rule_index();
        let invalid = Invalid {
            reason: UNSUPPORTED,
            message: e.to_string(),
        };
        match rule.and_then(|i| out.rules.get_mut(i)) {
            Some(r) => {
                if r.invalid.is_none() {
                    r.invalid = Some(invalid);
                }
            }
            None => {
                if out.invalid.is_none() {
                    out.invalid = Some(invalid);
                }
            }
        }
    }
}

fn base_route(
    kind: RouteKind,
    meta: &ObjectMeta,
    parents: &[ParentReference],
    hostnames: &[String],
) -> RouteIr {
    let ns = ns_of(meta);
    RouteIr {
        kind,
        parents: parents.iter().map(|p| parent(&ns, p)).collect(),
        namespace: ns,
        name: meta.name.clone(),
        created: created(meta),
        hostnames: hostnames.to_vec(),
        rules: Vec::new(),
        invalid: None,
    }
}

fn lower_http(r: &HttpRoute, regexes: &mut RegexPool, opts: &ValidateOptions) -> RouteIr {
    let mut out = lower_http_unvalidated(r, regexes);
    apply_validation(&mut out, r.validate_with(opts));
    out
}

fn lower_http_unvalidated(r: &HttpRoute, regexes: &mut RegexPool) -> RouteIr {
    let mut out = base_route(
        RouteKind::Http,
        &r.metadata,
        &r.spec.parent_refs,
        &r.spec.hostnames,
    );
    let rules = match &r.spec.rules {
        // Gateway API HTTPRouteRule.matches: omitted rules default to one rule matching everything
        None => vec![Default::default()],
        Some(rules) if rules.is_empty() => {
            out.invalid = Some(Invalid {
                reason: UNSUPPORTED,
                message: "spec.rules: must have at least 1 item".into(),
            });
            return out;
        }
        Some(rules) => rules.clone(),
    };
    for (ri, rule) in rules.iter().enumerate() {
        let at = format!("spec.rules[{ri}]");
        let mut lowered = RuleIr {
            name: rule.name.clone(),
            timeouts: rule
                .timeouts
                .as_ref()
                .and_then(|t| serde_json::to_value(t).ok()),
            retry: rule
                .retry
                .as_ref()
                .and_then(|t| serde_json::to_value(t).ok()),
            ..RuleIr::default()
        };
        let result = (|| -> Result<(), Invalid> {
            let default_match = [gamma_model::gateway::HttpRouteMatch::default()];
            let matches = match &rule.matches {
                None => &default_match[..],
                Some(m) if m.is_empty() => &default_match[..],
                Some(m) => &m[..],
            };
            for (mi, m) in matches.iter().enumerate() {
                let mat = format!("{at}.matches[{mi}]");
                let p = m.path.clone().unwrap_or_default();
                let value = p.value_or_default().to_string();
                let path = match p.type_or_default() {
                    PathMatchType::Exact => PathMatchIr::Exact(value),
                    PathMatchType::PathPrefix => PathMatchIr::Prefix(value),
                    PathMatchType::RegularExpression => {
                        regexes.intern(&value).map_err(|e| Invalid {
                            reason: UNSUPPORTED,
                            message: format!("{mat}.path.value: {e}"),
                        })?;
                        PathMatchIr::Regex(value)
                    }
                    other => {
                        return Err(Invalid {
                            reason: UNSUPPORTED,
                            message: format!(
                                "{mat}.path.type: unknown path match type {:?}",
                                other.as_str()
                            ),
                        });
                    }
                };
                let method = match &m.method {
                    None => None,
                    Some(meth) if meth.is_known() => Some(meth.as_str().to_string()),
                    Some(meth) => {
                        return Err(Invalid {
                            reason: UNSUPPORTED,
                            message: format!("{mat}.method: unknown method {:?}", meth.as_str()),
                        });
                    }
                };
                let mut headers = Vec::new();
                for (hi, h) in m.headers.iter().enumerate() {
                    let v = str_match(
                        h.type_.as_ref(),
                        &h.value,
                        regexes,
                        &format!("{mat}.headers[{hi}]"),
                    )?;
                    headers.push((h.name.clone(), v));
                }
                let mut query = Vec::new();
                for (qi, q) in m.query_params.iter().enumerate() {
                    let v = str_match(
                        q.type_.as_ref(),
                        &q.value,
                        regexes,
                        &format!("{mat}.queryParams[{qi}]"),
                    )?;
                    query.push((q.name.clone(), v));
                }
                lowered.matches.push(MatchIr::Http {
                    path,
                    method,
                    headers,
                    query,
                });
            }
            lowered.filters = http_filters(&out.namespace, &rule.filters, &at)?;
            for (bi, b) in rule.backend_refs.iter().enumerate() {
                let mut be = backend(&out.namespace, &b.backend_ref);
                be.filters = http_filters(
                    &out.namespace,
                    &b.filters,
                    &format!("{at}.backendRefs[{bi}]"),
                )?;
                if be.filters.redirect.is_some() {
                    return Err(Invalid {
                        reason: INCOMPATIBLE,
                        message: format!(
                            "{at}.backendRefs[{bi}].filters: RequestRedirect on a backendRef is not supported"
                        ),
                    });
                }
                lowered.backends.push(be);
            }
            if lowered.filters.redirect.is_some() && !lowered.backends.is_empty() {
                return Err(Invalid {
                    reason: INCOMPATIBLE,
                    message: format!(
                        "{at}: RequestRedirect filter must not be used together with backendRefs"
                    ),
                });
            }
            // Gateway API HTTPRequestRedirectFilter: ReplacePrefixMatch needs exactly one match, a
            // PathPrefix.
            let uses_prefix_rewrite = [
                lowered
                    .filters
                    .redirect
                    .as_ref()
                    .and_then(|r| r.path.as_ref()),
                lowered
                    .filters
                    .rewrite
                    .as_ref()
                    .and_then(|r| r.path.as_ref()),
            ]
            .into_iter()
            .chain(
                lowered
                    .backends
                    .iter()
                    .map(|b| b.filters.rewrite.as_ref().and_then(|r| r.path.as_ref())),
            )
            .flatten()
            .any(|m| matches!(m, PathModifierIr::Prefix(_)));
            if uses_prefix_rewrite
                && !matches!(
                    lowered.matches.as_slice(),
                    [MatchIr::Http {
                        path: PathMatchIr::Prefix(_),
                        ..
                    }]
                )
            {
                return Err(Invalid {
                    reason: UNSUPPORTED,
                    message: format!(
                        "{at}: ReplacePrefixMatch requires exactly one PathPrefix match"
                    ),
                });
            }
            Ok(())
        })();
        if let Err(inv) = result {
            lowered.invalid = Some(inv);
        }
        out.rules.push(lowered);
    }
    out
}

fn lower_grpc(r: &GrpcRoute, regexes: &mut RegexPool, opts: &ValidateOptions) -> RouteIr {
    let mut out = lower_grpc_unvalidated(r, regexes);
    apply_validation(&mut out, r.validate_with(opts));
    out
}

fn lower_grpc_unvalidated(r: &GrpcRoute, regexes: &mut RegexPool) -> RouteIr {
    let mut out = base_route(
        RouteKind::Grpc,
        &r.metadata,
        &r.spec.parent_refs,
        &r.spec.hostnames,
    );
    let rules = if r.spec.rules.is_empty() {
        vec![Default::default()]
    } else {
        r.spec.rules.clone()
    };
    for (ri, rule) in rules.iter().enumerate() {
        let at = format!("spec.rules[{ri}]");
        let mut lowered = RuleIr {
            name: rule.name.clone(),
            ..RuleIr::default()
        };
        let result = (|| -> Result<(), Invalid> {
            let default_match = [gamma_model::gateway::GrpcRouteMatch::default()];
            // Gateway API GRPCRouteRule.matches: empty matches match every gRPC request
            let matches = if rule.matches.is_empty() {
                &default_match[..]
            } else {
                &rule.matches[..]
            };
            for (mi, m) in matches.iter().enumerate() {
                let mat = format!("{at}.matches[{mi}]");
                let (mut service, mut method) = (None, None);
                if let Some(mm) = &m.method {
                    if let Some(s) = &mm.service {
                        service = Some(str_match(
                            mm.type_.as_ref(),
                            s,
                            regexes,
                            &format!("{mat}.method.service"),
                        )?);
                    }
                    if let Some(s) = &mm.method {
                        method = Some(str_match(
                            mm.type_.as_ref(),
                            s,
                            regexes,
                            &format!("{mat}.method.method"),
                        )?);
                    }
                }
                let mut headers = Vec::new();
                for (hi, h) in m.headers.iter().enumerate() {
                    headers.push((
                        h.name.clone(),
                        str_match(
                            h.type_.as_ref(),
                            &h.value,
                            regexes,
                            &format!("{mat}.headers[{hi}]"),
                        )?,
                    ));
                }
                lowered.matches.push(MatchIr::Grpc {
                    service,
                    method,
                    headers,
                });
            }
            lowered.filters = grpc_filters(&out.namespace, &rule.filters, &at)?;
            for (bi, b) in rule.backend_refs.iter().enumerate() {
                let mut be = backend(&out.namespace, &b.backend_ref);
                be.filters = grpc_filters(
                    &out.namespace,
                    &b.filters,
                    &format!("{at}.backendRefs[{bi}]"),
                )?;
                lowered.backends.push(be);
            }
            Ok(())
        })();
        if let Err(inv) = result {
            lowered.invalid = Some(inv);
        }
        out.rules.push(lowered);
    }
    out
}

fn lower_l4(
    kind: RouteKind,
    meta: &ObjectMeta,
    parents: &[ParentReference],
    hostnames: &[String],
    rules: &[L4RouteRule],
) -> RouteIr {
    let mut out = base_route(kind, meta, parents, hostnames);
    if rules.is_empty() {
        out.invalid = Some(Invalid {
            reason: UNSUPPORTED,
            message: "spec.rules: must have at least 1 item".into(),
        });
        return out;
    }
    for rule in rules {
        out.rules.push(RuleIr {
            name: rule.name.clone(),
            backends: rule
                .backend_refs
                .iter()
                .map(|b| backend(&out.namespace, b))
                .collect(),
            ..RuleIr::default()
        });
    }
    out
}
