//! ReferenceGrant, BackendTLSPolicy and XMesh validation (ReferenceGrant and XMesh CRDs v1.6.1;
//! Gateway API ReferenceGrant).

use super::common;
use super::patterns as p;
use super::{ErrorKind, Errors, FieldPath, Validate, ValidateOptions};
use crate::gateway::{BackendTlsPolicy, ReferenceGrant, SubjectAltName, SubjectAltNameType};
use crate::xmesh::XMesh;

impl Validate for ReferenceGrant {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let spath = path.field("spec");
        // `spec` is required since v1.6; a v1.5 grant without one grants nothing.
        let Some(spec) = &self.spec else {
            if super::by_release::required_in(
                crate::resource::ResourceKind::ReferenceGrant,
                "spec",
                opts.release,
            ) {
                errors.push(spath, ErrorKind::Required);
            }
            return;
        };
        let fpath = spath.field("from");
        errors.items(&fpath, spec.from.len(), 1, 16);
        for (i, f) in spec.from.iter().enumerate() {
            let ipath = fpath.index(i);
            errors.group(&ipath.field("group"), &f.group);
            errors.kind(&ipath.field("kind"), &f.kind);
            errors.namespace(&ipath.field("namespace"), &f.namespace);
        }
        let tpath = spath.field("to");
        errors.items(&tpath, spec.to.len(), 1, 16);
        for (i, t) in spec.to.iter().enumerate() {
            let ipath = tpath.index(i);
            errors.group(&ipath.field("group"), &t.group);
            errors.kind(&ipath.field("kind"), &t.kind);
            if let Some(n) = &t.name {
                errors.object_name(&ipath.field("name"), n);
            }
        }
    }
}

impl Validate for BackendTlsPolicy {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let spath = path.field("spec");
        let s = &self.spec;
        let tpath = spath.field("targetRefs");
        errors.items(&tpath, s.target_refs.len(), 1, 16);
        for (i, t) in s.target_refs.iter().enumerate() {
            let ipath = tpath.index(i);
            errors.group(&ipath.field("group"), &t.group);
            errors.kind(&ipath.field("kind"), &t.kind);
            errors.object_name(&ipath.field("name"), &t.name);
            if let Some(sn) = &t.section_name {
                errors.section_name(&ipath.field("sectionName"), sn);
            }
        }
        let same = |a: &crate::gateway::LocalPolicyTargetReference,
                    b: &crate::gateway::LocalPolicyTargetReference| {
            a.group == b.group && a.kind == b.kind && a.name == b.name
        };
        fn section(r: &crate::gateway::LocalPolicyTargetReference) -> Option<&str> {
            r.section_name.as_deref().filter(|s| !s.is_empty())
        }
        let refs = &s.target_refs;
        if refs.iter().any(|a| {
            refs.iter()
                .any(|b| same(a, b) && section(a).is_some() != section(b).is_some())
        }) {
            errors.rule(
                tpath.clone(),
                "sectionName must be specified when targetRefs includes 2 or more references to the same target",
            );
        }
        if refs.iter().any(|a| {
            refs.iter()
                .filter(|b| same(a, b) && section(a) == section(b))
                .count()
                != 1
        }) {
            errors.rule(
                tpath.clone(),
                "sectionName must be unique when targetRefs includes 2 or more references to the same target",
            );
        }
        let opath = spath.field("options");
        if s.options.len() > 16 {
            errors.push(opath.clone(), ErrorKind::TooMany { max: 16 });
        }
        for (k, v) in &s.options {
            errors.length(&opath.key(k), v, 0, 4096);
        }

        tls_validation(&s.validation, &spath.field("validation"), opts, errors);
        if let Some(status) = &self.status {
            super::status::policy_status(status, &path.field("status"), errors);
        }
    }
}

/// Up to v1.6 (and on v1.7's standard channel) the rules read `has(self.caCertificateRefs) &&
/// size(self.caCertificateRefs) > 0`: an empty list counts as none.
fn has_refs(v: &crate::gateway::BackendTlsPolicyValidation) -> bool {
    !v.ca_refs().is_empty()
}

/// A `validation` of a BackendTLSPolicy or an XBackend's `tls` (the same upstream schema and
/// rules in both CRDs).
///
/// v1.7's experimental CRDs replaced the two rules on the CA source with one ("exactly one of
/// the fields ...") and require at least one `caCertificateRefs` item when the list is given.
pub(super) fn tls_validation(
    v: &crate::gateway::BackendTlsPolicyValidation,
    vpath: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    let exactly_one = super::by_release::experimental_v1_7(opts.as_bundle());
    let cpath = vpath.field("caCertificateRefs");
    // v1.7 experimental: `minItems: 1`, so a list given empty is refused (an absent one is
    // the "exactly one" rule's to judge); earlier CRDs have no minimum.
    let min = usize::from(exactly_one && v.ca_certificate_refs.is_some());
    errors.items(&cpath, v.ca_refs().len(), min, 8);
    for (i, c) in v.ca_refs().iter().enumerate() {
        let ipath = cpath.index(i);
        errors.group(&ipath.field("group"), &c.group);
        errors.kind(&ipath.field("kind"), &c.kind);
        errors.object_name(&ipath.field("name"), &c.name);
    }
    let well_known = v
        .well_known_ca_certificates
        .as_deref()
        .filter(|w| !w.is_empty());
    if let Some(w) = &v.well_known_ca_certificates {
        let wpath = vpath.field("wellKnownCACertificates");
        if errors.length(&wpath, w, 1, 253) {
            errors.pattern(&wpath, w, p::is_well_known_ca, p::WELL_KNOWN_CA_PATTERN);
        }
    }
    if exactly_one {
        // `(has(self.caCertificateRefs)?1:0)+(has(self.wellKnownCACertificates)?1:0) == 1`:
        // `has` is presence, so `[]` (refused by `minItems` above as well) and `""` (refused
        // by `minLength`) count.
        if v.ca_certificate_refs.is_some() == v.well_known_ca_certificates.is_some() {
            errors.rule(
                vpath.clone(),
                "exactly one of the fields in [caCertificateRefs wellKnownCACertificates] must be set",
            );
        }
    } else if has_refs(v) && well_known.is_some() {
        errors.rule(
            vpath.clone(),
            "must not contain both CACertificateRefs and WellKnownCACertificates",
        );
    }
    if !exactly_one && !has_refs(v) && well_known.is_none() {
        errors.rule(
            vpath.clone(),
            "must specify either CACertificateRefs or WellKnownCACertificates",
        );
    }
    errors.precise_hostname(&vpath.field("hostname"), &v.hostname);
    let npath = vpath.field("subjectAltNames");
    errors.items(&npath, v.subject_alt_names.len(), 0, 5);
    subject_alt_names(&v.subject_alt_names, &npath, errors);
}

/// The subject alternative names of a BackendTLSPolicy or XBackend `validation`: each the
/// type's field set and only that one (upstream `SubjectAltName` CEL rules).
pub(super) fn subject_alt_names(sans: &[SubjectAltName], path: &FieldPath, errors: &mut Errors) {
    for (i, san) in sans.iter().enumerate() {
        let ipath = path.index(i);
        errors.known(&ipath.field("type"), &san.type_);
        let hostname = san.hostname.as_deref().filter(|h| !h.is_empty());
        let uri = san.uri.as_deref().filter(|u| !u.is_empty());
        if let Some(h) = &san.hostname {
            errors.hostname(&ipath.field("hostname"), h);
        }
        if let Some(u) = &san.uri {
            let upath = ipath.field("uri");
            if errors.length(&upath, u, 1, 253) {
                errors.pattern(&upath, u, p::is_san_uri, p::SAN_URI_PATTERN);
            }
        }
        let is_host = san.type_ == SubjectAltNameType::Hostname;
        let is_uri = san.type_ == SubjectAltNameType::Uri;
        if is_host && hostname.is_none() {
            errors.rule(
                ipath.clone(),
                "SubjectAltName element must contain Hostname, if Type is set to Hostname",
            );
        }
        if !is_host && hostname.is_some() {
            errors.rule(
                ipath.clone(),
                "SubjectAltName element must not contain Hostname, if Type is not set to Hostname",
            );
        }
        if is_uri && uri.is_none() {
            errors.rule(
                ipath.clone(),
                "SubjectAltName element must contain URI, if Type is set to URI",
            );
        }
        if !is_uri && uri.is_some() {
            errors.rule(
                ipath.clone(),
                "SubjectAltName element must not contain URI, if Type is not set to URI",
            );
        }
    }
}

impl Validate for XMesh {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, false, errors);
        let spath = path.field("spec");
        errors.gateway_controller(&spath.field("controllerName"), &self.spec.controller_name);
        if let Some(d) = &self.spec.description {
            errors.length(&spath.field("description"), d, 0, 64);
        }
        if let Some(r) = &self.spec.parameters_ref {
            common::object_reference(r, &spath.field("parametersRef"), errors);
        }
    }
}
