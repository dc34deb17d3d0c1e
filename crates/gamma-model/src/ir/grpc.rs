//! The GRPCRoute IR.

use std::sync::Arc;

use serde::Serialize;

use super::filter::{
    ExtensionRef, HeaderMatch, HeaderModifier, Mirror, extension_ref, header_matches,
    header_modifier, mirror,
};
use super::names::{Hostname, hostnames};
use super::refs::{ParentRef, WeightedBackend, parent_refs};
use super::{Partial, convert_partial};
use crate::gateway::{self, GrpcRouteFilterType, MatchType};
use crate::meta::ObjectMeta;
use crate::validate::{ErrorKind, Errors, FieldPath, Validate, ValidateOptions, ValidationErrors};

/// A GRPCRoute with defaults applied and only valid content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GrpcRoute {
    /// The route's metadata, as decoded.
    pub metadata: ObjectMeta,
    /// The route's namespace (`default` when unset).
    pub namespace: String,
    /// Parent references, defaulted.
    pub parent_refs: Vec<ParentRef>,
    /// Hostnames.
    pub hostnames: Vec<Hostname>,
    /// The rules in written order (GRPCRoute has no default rule; there may be none).
    pub rules: Vec<GrpcRule>,
}

/// One GRPCRoute rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GrpcRule {
    /// The index in the wire route's `spec.rules`.
    pub index: usize,
    /// The rule name, if any.
    pub name: Option<String>,
    /// The matches, ORed; never empty (an empty list matches every gRPC request, represented as
    /// one [`GrpcMatch`] without conditions, which ranks lowest in precedence).
    pub matches: Vec<GrpcMatch>,
    /// Rule filters, in order.
    pub filters: Vec<GrpcFilter>,
    /// Weighted backends.
    pub backend_refs: Vec<GrpcBackend>,
    /// **\[experimental\]** session persistence, kept as written (validated).
    pub session_persistence: Option<gateway::SessionPersistence>,
}

/// One gRPC match: method AND headers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize)]
#[non_exhaustive]
pub struct GrpcMatch {
    /// The service/method condition; `None` matches any.
    pub method: Option<GrpcMethodMatch>,
    /// Header conditions (lower-cased names, case-insensitive duplicates dropped).
    pub headers: Vec<HeaderMatch>,
}

/// A service/method condition: at least one of the two is set; an unset part matches any.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GrpcMethodMatch {
    /// Whether the parts are regular expressions (otherwise exact, case-sensitive).
    pub regex: bool,
    /// The fully qualified service.
    pub service: Option<String>,
    /// The method.
    pub method: Option<String>,
}

/// A GRPCRoute filter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", content = "config")]
#[non_exhaustive]
pub enum GrpcFilter {
    /// Modify request headers (metadata).
    RequestHeaderModifier(HeaderModifier),
    /// Modify response headers (metadata).
    ResponseHeaderModifier(HeaderModifier),
    /// Mirror requests.
    RequestMirror(Mirror),
    /// An implementation-specific filter.
    ExtensionRef(ExtensionRef),
}

/// A weighted backend of a gRPC rule and its filters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct GrpcBackend {
    /// The backend and weight.
    pub backend: WeightedBackend,
    /// Filters applied when this backend is chosen.
    pub filters: Vec<GrpcFilter>,
}

fn filter(
    f: &gateway::GrpcRouteFilter,
    ns: &Arc<str>,
    path: &FieldPath,
    errors: &mut Errors,
) -> Option<GrpcFilter> {
    use GrpcRouteFilterType as T;
    let out = match &f.type_ {
        T::RequestHeaderModifier => f.request_header_modifier.as_ref().map(|h| {
            GrpcFilter::RequestHeaderModifier(header_modifier(
                h,
                &path.field("requestHeaderModifier"),
                errors,
            ))
        }),
        T::ResponseHeaderModifier => f.response_header_modifier.as_ref().map(|h| {
            GrpcFilter::ResponseHeaderModifier(header_modifier(
                h,
                &path.field("responseHeaderModifier"),
                errors,
            ))
        }),
        T::RequestMirror => f
            .request_mirror
            .as_ref()
            .map(|m| GrpcFilter::RequestMirror(mirror(m, ns))),
        T::ExtensionRef => f
            .extension_ref
            .as_ref()
            .map(|r| GrpcFilter::ExtensionRef(extension_ref(r))),
        T::Unknown(t) => {
            errors.unsupported(&path.field("type"), t, GrpcRouteFilterType::KNOWN);
            return None;
        }
    };
    if out.is_none() {
        errors.rule(
            path.clone(),
            format!("filter of type {} has no configuration", f.type_),
        );
    }
    out
}

fn filters(
    list: &[gateway::GrpcRouteFilter],
    ns: &Arc<str>,
    path: &FieldPath,
    errors: &mut Errors,
) -> Vec<GrpcFilter> {
    list.iter()
        .enumerate()
        .filter_map(|(i, f)| filter(f, ns, &path.index(i), errors))
        .collect()
}

fn convert_rule(
    rule: &gateway::GrpcRouteRule,
    index: usize,
    ns: &Arc<str>,
    path: &FieldPath,
    errors: &mut Errors,
) -> GrpcRule {
    let mut matches: Vec<GrpcMatch> = rule
        .matches
        .iter()
        .enumerate()
        .map(|(i, m)| GrpcMatch {
            method: m.method.as_ref().map(|mm| GrpcMethodMatch {
                regex: mm.type_ == Some(MatchType::RegularExpression),
                service: mm.service.clone(),
                method: mm.method.clone(),
            }),
            headers: header_matches(
                m.headers
                    .iter()
                    .map(|h| (h.type_.as_ref(), h.name.as_str(), h.value.as_str())),
                &path.field("matches").index(i).field("headers"),
                errors,
            ),
        })
        .collect();
    if matches.is_empty() {
        matches.push(GrpcMatch::default());
    }
    GrpcRule {
        index,
        name: rule.name.clone(),
        matches,
        filters: filters(&rule.filters, ns, &path.field("filters"), errors),
        backend_refs: rule
            .backend_refs
            .iter()
            .enumerate()
            .map(|(i, b)| GrpcBackend {
                backend: WeightedBackend::from_wire(&b.backend_ref, ns),
                filters: filters(
                    &b.filters,
                    ns,
                    &path.field("backendRefs").index(i).field("filters"),
                    errors,
                ),
            })
            .collect(),
        session_persistence: rule.session_persistence.clone(),
    }
}

impl GrpcRule {
    /// Validates rule `index` of a route in `route_namespace` and converts it. Route-level rules
    /// (total matches, unique rule names) are not checked here; errors carry paths below
    /// `spec.rules[index]`.
    pub fn from_wire(
        rule: &gateway::GrpcRouteRule,
        index: usize,
        route_namespace: &str,
        opts: &ValidateOptions,
    ) -> Result<GrpcRule, ValidationErrors> {
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

impl GrpcRoute {
    /// Validates (standard channel) and converts a route; every error when it is invalid.
    pub fn from_wire(wire: &gateway::GrpcRoute) -> Result<GrpcRoute, ValidationErrors> {
        GrpcRoute::from_wire_with(wire, &ValidateOptions::default())
    }

    /// Validates with `opts` and converts; every error when any part is invalid.
    pub fn from_wire_with(
        wire: &gateway::GrpcRoute,
        opts: &ValidateOptions,
    ) -> Result<GrpcRoute, ValidationErrors> {
        wire.validate_with(opts)?;
        Ok(GrpcRoute::from_wire_partial(wire, opts)?.value)
    }

    /// Validates with `opts` and converts, dropping invalid rules (see the [module
    /// docs](super)).
    pub fn from_wire_partial(
        wire: &gateway::GrpcRoute,
        opts: &ValidateOptions,
    ) -> Result<Partial<GrpcRoute>, ValidationErrors> {
        GrpcRoute::convert(wire, opts, false)
    }

    /// [`GrpcRoute::from_wire_partial`]; `known_valid` skips validation (see
    /// [`super::Route::from_valid_resource`]).
    pub(crate) fn convert(
        wire: &gateway::GrpcRoute,
        opts: &ValidateOptions,
        known_valid: bool,
    ) -> Result<Partial<GrpcRoute>, ValidationErrors> {
        let (all, base) = super::collect(wire, opts, known_valid);
        // shared by every backendRef that omits its namespace
        let ns: Arc<str> = Arc::from(wire.metadata.namespace_or_default());
        let rules = &wire.spec.rules;
        let names: Vec<Option<String>> = rules.iter().map(|r| r.name.clone()).collect();
        let mut route_errors = Errors::default();
        let hostnames = hostnames(&wire.spec.hostnames, &base, &mut route_errors);
        let mut all = all;
        all.extend(route_errors.into_vec());
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
            |kept| GrpcRoute {
                metadata: wire.metadata.clone(),
                namespace: ns.to_string(),
                parent_refs: parent_refs(&wire.spec.parent_refs, &ns),
                hostnames,
                rules: kept,
            },
        )
    }
}
