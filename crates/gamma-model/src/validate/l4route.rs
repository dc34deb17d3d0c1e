//! TLSRoute, TCPRoute and UDPRoute validation (TLSRoute, TCPRoute and UDPRoute CRDs v1.6.1;
//! GEP-2643 TLSRoute; GEP-2644 TCPRoute; GEP-2645 UDPRoute).
//!
//! The rules depend on the apiVersion the object came with: `v1` (and TLSRoute `v1alpha3`)
//! allow exactly one rule and TLSRoute requires hostnames without IPs; the deprecated `v1alpha2`
//! allows up to 16 rules with unique names and optional TLSRoute hostnames.

use super::common;
use super::patterns as p;
use super::{Errors, FieldPath, Validate, ValidateOptions};
use crate::gateway::{L4RouteRule, ParentReference, TcpRoute, TlsRoute, UdpRoute};

fn is_v1alpha2(api_version: &str) -> bool {
    api_version.ends_with("/v1alpha2")
}

/// The shared part of the three specs: parentRefs, rules, backendRefs.
fn l4_spec(
    parent_refs: &[ParentReference],
    rules: &[L4RouteRule],
    v1alpha2: bool,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    common::parent_refs(parent_refs, path, opts, errors);
    let rpath = path.field("rules");
    errors.items(&rpath, rules.len(), 1, if v1alpha2 { 16 } else { 1 });
    if v1alpha2 {
        // Only v1alpha2 (served by the experimental CRDs alone) has this rule.
        let mut seen = std::collections::HashSet::new();
        if rules
            .iter()
            .filter_map(|r| r.name.as_deref())
            .any(|n| !seen.insert(n))
        {
            errors.rule(rpath.clone(), "Rule name must be unique within the route");
        }
    }
    for (i, rule) in rules.iter().enumerate() {
        rule.collect_errors(&rpath.index(i), opts, errors);
    }
}

impl Validate for L4RouteRule {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::rule_name(self.name.as_deref(), path, errors);
        let bpath = path.field("backendRefs");
        errors.items(&bpath, self.backend_refs.len(), 1, 16);
        for (i, b) in self.backend_refs.iter().enumerate() {
            common::backend_ref(b, &bpath.index(i), opts, errors);
        }
    }
}

impl Validate for TlsRoute {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        if let Some(status) = &self.status {
            status.collect_errors(&path.field("status"), opts, errors);
        }
        let spath = path.field("spec");
        let alpha2 = is_v1alpha2(&self.api_version);
        let hpath = spath.field("hostnames");
        let hs = &self.spec.hostnames;
        let max = super::by_release::tls_route_hostnames_max(opts.release);
        errors.items(&hpath, hs.len(), if alpha2 { 0 } else { 1 }, max);
        for (i, h) in hs.iter().enumerate() {
            errors.hostname(&hpath.index(i), h);
        }
        if !alpha2 {
            if hs.iter().any(|h| p::is_ip(h)) {
                errors.rule(hpath.clone(), "Hostnames cannot contain an IP");
            }
            if hs
                .iter()
                .any(|h| !h.contains('*') && !p::is_precise_hostname(h))
            {
                errors.rule(hpath.clone(), "Hostnames must be valid based on RFC-1123");
            }
            if hs.iter().any(|h| {
                h.contains('*') && !h.strip_prefix("*.").is_some_and(p::is_precise_hostname)
            }) {
                errors.rule(
                    hpath.clone(),
                    "Wildcards on hostnames must be the first label, and the rest of hostname must be valid based on RFC-1123",
                );
            }
        }
        common::use_default_gateways(self.spec.use_default_gateways.as_ref(), &spath, errors);
        l4_spec(
            &self.spec.parent_refs,
            &self.spec.rules,
            alpha2,
            &spath,
            opts,
            errors,
        );
    }
}

impl Validate for TcpRoute {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        if let Some(status) = &self.status {
            status.collect_errors(&path.field("status"), opts, errors);
        }
        let spath = path.field("spec");
        common::use_default_gateways(self.spec.use_default_gateways.as_ref(), &spath, errors);
        l4_spec(
            &self.spec.parent_refs,
            &self.spec.rules,
            is_v1alpha2(&self.api_version),
            &spath,
            opts,
            errors,
        );
    }
}

impl Validate for UdpRoute {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        if let Some(status) = &self.status {
            status.collect_errors(&path.field("status"), opts, errors);
        }
        let spath = path.field("spec");
        common::use_default_gateways(self.spec.use_default_gateways.as_ref(), &spath, errors);
        l4_spec(
            &self.spec.parent_refs,
            &self.spec.rules,
            is_v1alpha2(&self.api_version),
            &spath,
            opts,
            errors,
        );
    }
}
