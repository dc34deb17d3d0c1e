//! Gateway `spec.tls` (upstream `GatewayTLSConfig`, CRD v1.6.1, the same in both channels):
//! frontend client-certificate validation and the backend client certificate.
//!
//! Every marker and rule of the CRD's `spec.tls` subtree:
//! - `backend.clientCertificateRef`: a `SecretObjectReference` (name required, group, kind and
//!   namespace patterns and lengths);
//! - `frontend.default`: required;
//! - `frontend.perPort`: at most 64 entries; each `port` 1–65535 and `tls` required; the CEL
//!   rule "Port for TLS configuration must be unique within the Gateway"
//!   (`self.all(t1, self.exists_one(t2, t1.port == t2.port))`), reported at the list as the API
//!   server does;
//! - each `validation`: `caCertificateRefs` required, 1–16 `ObjectReference`s (group, kind,
//!   name required); `mode` one of `AllowValidOnly`, `AllowInsecureFallback` (an unknown mode
//!   is `UnsupportedValue`).

use std::collections::HashSet;

use super::common;
use super::{ErrorKind, Errors, FieldPath, ValidateOptions};
use crate::gateway::{FrontendTlsConfig, GatewayTlsConfig, TlsConfig};

/// The CRD's `maxItems` of `frontend.perPort`.
const MAX_PER_PORT: usize = 64;

/// `spec.tls`.
pub(crate) fn gateway_tls(
    tls: &GatewayTlsConfig,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    if let Some(c) = tls
        .backend
        .as_ref()
        .and_then(|b| b.client_certificate_ref.as_ref())
    {
        common::secret_ref(
            c,
            &path.field("backend").field("clientCertificateRef"),
            errors,
        );
    }
    if let Some(f) = &tls.frontend {
        frontend(f, &path.field("frontend"), opts, errors);
    }
}

fn frontend(f: &FrontendTlsConfig, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
    let dpath = path.field("default");
    match &f.default {
        Some(d) => tls_config(d, &dpath, opts, errors),
        None => errors.push(dpath, ErrorKind::Required),
    }
    let ppath = path.field("perPort");
    errors.items(&ppath, f.per_port.len(), 0, MAX_PER_PORT);
    for (i, entry) in f.per_port.iter().enumerate() {
        let ipath = ppath.index(i);
        errors.port(&ipath.field("port"), entry.port);
        let tpath = ipath.field("tls");
        match &entry.tls {
            Some(t) => tls_config(t, &tpath, opts, errors),
            None => errors.push(tpath, ErrorKind::Required),
        }
    }
    // Nothing to compare in lists of fewer than two entries (the common case): no allocation.
    if f.per_port.len() > 1 {
        let mut ports = HashSet::with_capacity(f.per_port.len());
        if !f.per_port.iter().all(|e| ports.insert(e.port)) {
            errors.rule(
                ppath,
                "Port for TLS configuration must be unique within the Gateway",
            );
        }
    }
}

/// A `TLSConfig`: its optional `validation`.
fn tls_config(t: &TlsConfig, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
    let Some(v) = &t.validation else {
        return;
    };
    let vpath = path.field("validation");
    let cpath = vpath.field("caCertificateRefs");
    errors.items(
        &cpath,
        v.ca_certificate_refs.len(),
        1,
        // The CRD's `maxItems` (and `minItems` 1).
        super::by_release::frontend_ca_refs_max(opts.release),
    );
    for (i, r) in v.ca_certificate_refs.iter().enumerate() {
        common::object_reference(r, &cpath.index(i), errors);
    }
    // v1.7 (experimental) reads CA bundles from ClusterTrustBundles, which are cluster-scoped.
    if super::by_release::experimental_v1_7(opts.as_bundle())
        && v.ca_certificate_refs.iter().any(|r| {
            r.group.as_deref() == Some("certificates.k8s.io")
                && r.kind == "ClusterTrustBundle"
                && r.namespace.is_some()
        })
    {
        errors.rule(
            cpath,
            "ClusterTrustBundle references must not specify namespace",
        );
    }
    if let Some(m) = &v.mode {
        errors.known(&vpath.field("mode"), m);
    }
}
