//! A Gateway's client certificate validation (`spec.tls.frontend`, GEP-91), lowered per HTTPS
//! listener: which validation applies to the listener's port, and what each of its
//! `caCertificateRefs` entries resolves to in the snapshot.
//!
//! FrontendTLSValidation.caCertificateRefs, Gateway API v1.7: an entry is invalid when it
//! "refers to a resource that cannot be resolved (e.g., the referenced resource does not exist)
//! or is misconfigured (e.g., a ConfigMap does not contain a key named `ca.crt`)"
//! (`InvalidCACertificateRef`), when it "refers to an unknown or unsupported kind of resource"
//! (`InvalidCACertificateKind`), and when it refers to a resource in another namespace that no
//! ReferenceGrant permits (`RefNotPermitted`). gamma-rs reads a CA bundle from a core ConfigMap
//! (`ca.crt`, Core support) and a ClusterTrustBundle (GEP-5075, Extended support), as it does
//! for BackendTLSPolicy.
//!
//! The validation applies to the HTTPS listeners of the Gateway itself ("all Listeners
//! handling HTTPS traffic", FrontendTLSConfig.default); the API says nothing of ListenerSet
//! listeners, which keep the TLS settings of their own.

use gamma_model::Snapshot;
use gamma_model::gateway::{FrontendValidationModeType, Gateway, ObjectReference, TlsConfig};
use gamma_model::k8s::is_cluster_trust_bundle;

use crate::gateway_status::{
    INVALID_CA_CERTIFICATE_KIND, INVALID_CA_CERTIFICATE_REF, REF_NOT_PERMITTED,
};
use crate::input::{CaRefVerdict, ClientValidationIr};

/// The validation that applies to an HTTPS listener on `port`: the `perPort` entry for the
/// port when there is one ("Once set this configuration overrides the default configuration
/// for all Listeners handling HTTPS traffic that match this port", FrontendTLSConfig.perPort),
/// else `default`. `None` when that configuration has no `validation`.
pub(crate) fn client_validation(
    snapshot: &Snapshot,
    gw: &Gateway,
    gw_ns: &str,
    port: u16,
) -> Option<ClientValidationIr> {
    let frontend = gw.spec.tls.as_ref()?.frontend.as_ref()?;
    let (path, config): (String, Option<&TlsConfig>) = match frontend
        .per_port
        .iter()
        .enumerate()
        .find(|(_, p)| p.port == i32::from(port))
    {
        Some((i, p)) => (
            format!("spec.tls.frontend.perPort[{i}].tls.validation"),
            p.tls.as_ref(),
        ),
        None => (
            "spec.tls.frontend.default.validation".to_owned(),
            frontend.default.as_ref(),
        ),
    };
    let validation = config?.validation.as_ref()?;
    let refs = validation
        .ca_certificate_refs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            judge(
                snapshot,
                gw_ns,
                &format!("{path}.caCertificateRefs[{i}]"),
                r,
            )
        })
        .collect();
    Some(ClientValidationIr { path, refs })
}

/// The field paths of the validations (default and per port) whose mode is
/// `AllowInsecureFallback`, in spec order.
pub(crate) fn insecure_fallbacks(gw: &Gateway) -> Vec<String> {
    let Some(frontend) = gw.spec.tls.as_ref().and_then(|t| t.frontend.as_ref()) else {
        return Vec::new();
    };
    let insecure = |c: Option<&TlsConfig>| {
        c.and_then(|c| c.validation.as_ref()).is_some_and(|v| {
            v.mode_or_default() == FrontendValidationModeType::AllowInsecureFallback
        })
    };
    let default = insecure(frontend.default.as_ref())
        .then(|| "spec.tls.frontend.default.validation.mode".to_owned());
    default
        .into_iter()
        .chain(
            frontend
                .per_port
                .iter()
                .enumerate()
                .filter(|(_, p)| insecure(p.tls.as_ref()))
                .map(|(i, _)| format!("spec.tls.frontend.perPort[{i}].tls.validation.mode")),
        )
        .collect()
}

/// What one `caCertificateRefs` entry (at field path `at`) resolves to.
fn judge(snapshot: &Snapshot, gw_ns: &str, at: &str, r: &ObjectReference) -> CaRefVerdict {
    let group = r.group.as_deref().unwrap_or_default();
    let invalid = |reason, message: String| CaRefVerdict::Invalid {
        reason,
        message: format!("{at}: {message}"),
    };
    if is_cluster_trust_bundle(group, &r.kind) {
        // cluster-scoped, by name (GEP-5075); judged missing only when the snapshot holds
        // every ClusterTrustBundle, as for BackendTLSPolicy
        return match snapshot
            .cluster_trust_bundles()
            .find(|b| b.metadata.name == r.name)
        {
            None if snapshot.cluster_trust_bundles_complete() => invalid(
                INVALID_CA_CERTIFICATE_REF,
                format!("ClusterTrustBundle {} does not exist", r.name),
            ),
            Some(b) if b.ca_problem().is_some() => invalid(
                INVALID_CA_CERTIFICATE_REF,
                format!(
                    "ClusterTrustBundle {} holds no PEM certificate in trustBundle",
                    r.name
                ),
            ),
            _ => CaRefVerdict::Usable,
        };
    }
    if !crate::lower::is_core_config_map(group, &r.kind) {
        let shown = if group.is_empty() { "core" } else { group };
        return invalid(
            INVALID_CA_CERTIFICATE_KIND,
            format!(
                "{shown}/{} is not a supported kind (only core ConfigMap and \
                 certificates.k8s.io ClusterTrustBundle)",
                r.kind
            ),
        );
    }
    let ns = r.namespace.as_deref().unwrap_or(gw_ns);
    if ns != gw_ns && !granted(snapshot, gw_ns, ns, &r.name) {
        return invalid(
            REF_NOT_PERMITTED,
            format!(
                "ConfigMap {ns}/{} is in another namespace and no ReferenceGrant permits it",
                r.name
            ),
        );
    }
    match snapshot.config_map(ns, &r.name) {
        None => invalid(
            INVALID_CA_CERTIFICATE_REF,
            format!("ConfigMap {ns}/{} does not exist", r.name),
        ),
        Some(c) if c.ca_certificate().is_none() => invalid(
            INVALID_CA_CERTIFICATE_REF,
            format!("ConfigMap {ns}/{} has no non-empty ca.crt in data", r.name),
        ),
        Some(_) => CaRefVerdict::Usable,
    }
}

/// ReferenceGrant: from (gateway.networking.k8s.io, Gateway, `from_ns`) to the core ConfigMap
/// `to_ns/name` (ReferenceGrantSpec), by the grants of its namespace.
fn granted(snapshot: &Snapshot, from_ns: &str, to_ns: &str, name: &str) -> bool {
    snapshot.reference_grants_in(to_ns).any(|g| {
        crate::lower::lower_grant(g).permits("Gateway", from_ns, ("", "ConfigMap", to_ns, name))
    })
}

/// Whether a frontend `caCertificateRefs` entry of `gw` names the ConfigMap `ns/name` (its
/// change re-lowers the Gateway).
pub(crate) fn names_config_map(gw: &Gateway, ns: &str, name: &str) -> bool {
    let gw_ns = gw.metadata.namespace_or_default();
    refs(gw).any(|r| {
        crate::lower::is_core_config_map(r.group.as_deref().unwrap_or_default(), &r.kind)
            && r.name == name
            && r.namespace.as_deref().unwrap_or(gw_ns) == ns
    })
}

/// Whether a frontend `caCertificateRefs` entry of `gw` names the ClusterTrustBundle `name`.
pub(crate) fn names_cluster_trust_bundle(gw: &Gateway, name: &str) -> bool {
    refs(gw).any(|r| {
        is_cluster_trust_bundle(r.group.as_deref().unwrap_or_default(), &r.kind) && r.name == name
    })
}

/// Every frontend `caCertificateRefs` entry of `gw`, default and per port.
fn refs(gw: &Gateway) -> impl Iterator<Item = &ObjectReference> {
    let frontend = gw.spec.tls.as_ref().and_then(|t| t.frontend.as_ref());
    frontend
        .into_iter()
        .flat_map(|f| {
            f.default
                .iter()
                .chain(f.per_port.iter().filter_map(|p| p.tls.as_ref()))
        })
        .filter_map(|c| c.validation.as_ref())
        .flat_map(|v| v.ca_certificate_refs.iter())
}
