//! GRPCRoute validation (Gateway API GRPCRouteRule.matches; Gateway API GRPCRouteFilter; GRPCRoute
//! CRD v1.6.1).

use super::common::{self, KnownEnum};
use super::httproute::union_rules;
use super::patterns as p;
use super::{Errors, FieldPath, Validate, ValidateOptions};
use crate::gateway::{
    GrpcBackendRef, GrpcMethodMatch, GrpcRoute, GrpcRouteFilter, GrpcRouteFilterType,
    GrpcRouteMatch, GrpcRouteRule, GrpcRouteSpec, MatchType,
};

impl Validate for GrpcRoute {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        self.spec.collect_errors(&path.field("spec"), opts, errors);
        if let Some(status) = &self.status {
            status.collect_errors(&path.field("status"), opts, errors);
        }
    }
}

impl Validate for GrpcRouteSpec {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::parent_refs(&self.parent_refs, path, opts, errors);
        common::route_hostnames(&self.hostnames, path, errors);
        common::use_default_gateways(self.use_default_gateways.as_ref(), path, errors);
        let rpath = path.field("rules");
        errors.items(&rpath, self.rules.len(), 0, 16);
        // GRPCRoute has no default match: an empty `matches` counts 0.
        let total: usize = self.rules.iter().map(|r| r.matches.len()).sum();
        common::total_matches(total, &rpath, errors);
        common::unique_rule_names(
            self.rules.iter().map(|r| r.name.as_deref()),
            &rpath,
            opts,
            errors,
        );
        for (i, rule) in self.rules.iter().enumerate() {
            rule.collect_errors(&rpath.index(i), opts, errors);
        }
    }
}

impl Validate for GrpcRouteRule {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::rule_name(self.name.as_deref(), path, errors);
        let mpath = path.field("matches");
        errors.items(&mpath, self.matches.len(), 0, 64);
        for (i, m) in self.matches.iter().enumerate() {
            m.collect_errors(&mpath.index(i), opts, errors);
        }
        filters(&self.filters, &path.field("filters"), opts, errors);
        let bpath = path.field("backendRefs");
        errors.items(&bpath, self.backend_refs.len(), 0, 16);
        for (i, b) in self.backend_refs.iter().enumerate() {
            b.collect_errors(&bpath.index(i), opts, errors);
        }
        if let Some(s) = &self.session_persistence {
            common::session_persistence(s, &path.field("sessionPersistence"), opts, errors);
        }
    }
}

impl Validate for GrpcRouteMatch {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        if let Some(m) = &self.method {
            method_match(m, &path.field("method"), errors);
        }
        let hpath = path.field("headers");
        errors.items(&hpath, self.headers.len(), 0, 16);
        for (i, h) in self.headers.iter().enumerate() {
            let ipath = hpath.index(i);
            if let Some(t) = &h.type_ {
                errors.known(&ipath.field("type"), t);
            }
            errors.header_name(&ipath.field("name"), &h.name);
            // GRPCRoute header match values have no pattern on either channel.
            let vpath = ipath.field("value");
            if errors.length(&vpath, &h.value, 1, 4096) {
                common::control_characters(&h.value, &vpath, opts, errors);
            }
        }
        errors.unique(&hpath, self.headers.iter().map(|h| h.name.as_str()), None);
    }
}

fn method_match(m: &GrpcMethodMatch, path: &FieldPath, errors: &mut Errors) {
    if let Some(t) = &m.type_ {
        errors.known(&path.field("type"), t);
    }
    // The CEL rule is guarded by `has(self.type)`, but `type` defaults to `Exact`, so after
    // defaulting it applies to every method match.
    if m.service.is_none() && m.method.is_none() {
        errors.rule(
            path.clone(),
            "One or both of 'service' or 'method' must be specified",
        );
    }
    let exact = m.type_.as_ref().is_none_or(|t| *t == MatchType::Exact);
    if let Some(s) = &m.service {
        errors.length(&path.field("service"), s, 0, 1024);
        if exact && !p::is_grpc_service(s) {
            errors.rule(
                path.clone(),
                "service must only contain valid characters (matching ^(?i)\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$)",
            );
        }
    }
    if let Some(me) = &m.method {
        errors.length(&path.field("method"), me, 0, 1024);
        if exact && !p::is_grpc_method(me) {
            errors.rule(
                path.clone(),
                "method must only contain valid characters (matching ^[A-Za-z_][A-Za-z_0-9]*$)",
            );
        }
    }
}

impl Validate for GrpcBackendRef {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::backend_ref(&self.backend_ref, path, opts, errors);
        filters(&self.filters, &path.field("filters"), opts, errors);
    }
}

/// A list of GRPCRoute filters: at most 16; header modifiers cannot repeat (Gateway API
/// GRPCRouteFilter).
pub(crate) fn filters(
    list: &[GrpcRouteFilter],
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    errors.items(path, list.len(), 0, 16);
    if list.is_empty() {
        // most rules and backendRefs have none: no list rule can fail on an empty list
        return;
    }
    let count = |t: GrpcRouteFilterType| list.iter().filter(|f| f.type_ == t).count();
    if count(GrpcRouteFilterType::RequestHeaderModifier) > 1 {
        errors.rule(
            path.clone(),
            "RequestHeaderModifier filter cannot be repeated",
        );
    }
    if count(GrpcRouteFilterType::ResponseHeaderModifier) > 1 {
        errors.rule(
            path.clone(),
            "ResponseHeaderModifier filter cannot be repeated",
        );
    }
    for (i, f) in list.iter().enumerate() {
        f.collect_errors(&path.index(i), opts, errors);
    }
}

impl Validate for GrpcRouteFilter {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        if !self.type_.is_known_value() {
            errors.known(&path.field("type"), &self.type_);
        }
        let union: [(&str, &str, bool); 4] = [
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
            ("extensionRef", "ExtensionRef", self.extension_ref.is_some()),
        ];
        union_rules(self.type_.as_str(), &union, path, errors);
        if let Some(h) = &self.request_header_modifier {
            common::header_filter(h, &path.field("requestHeaderModifier"), opts, errors);
        }
        if let Some(h) = &self.response_header_modifier {
            common::header_filter(h, &path.field("responseHeaderModifier"), opts, errors);
        }
        if let Some(m) = &self.request_mirror {
            common::mirror(m, &path.field("requestMirror"), opts, errors);
        }
        if let Some(e) = &self.extension_ref {
            common::local_object_ref(e, &path.field("extensionRef"), errors);
        }
    }
}
