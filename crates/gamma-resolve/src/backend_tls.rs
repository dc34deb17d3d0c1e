//! BackendTLSPolicy (Gateway API v1.6.1, GEP-1897): the TLS settings a data plane uses to
//! connect to a backend, carried on [`crate::Forward::backend_tls`], and each policy's status
//! per ancestor ([`crate::RouteTable::backend_tls_policy_status`]).
//!
//! Which policy applies to a backend (a Service port): the policies whose `targetRefs` name the
//! Service with `sectionName` equal to the port's name, else (none does) those naming the
//! whole Service. Among several, "the older policy by creation timestamp takes precedence",
//! then "the policy appearing first in alphabetical order by {namespace}/{name}"; the others
//! get `Accepted=False` with reason `Conflicted` (BackendTLSPolicySpec.targetRefs).
//!
//! A policy in effect whose CA certificates cannot be used (every `caCertificateRefs` entry
//! must be a core ConfigMap holding `ca.crt`; `wellKnownCACertificates` must be `System`)
//! makes connections to the backend fail: "Connections using an invalid CACertificateRef MUST
//! fail, and the client MUST receive an HTTP 5xx error response"
//! (BackendTLSPolicyValidation.caCertificateRefs). The request gets
//! [`crate::RespondReason::InvalidBackendTls`] (HTTP 500, gRPC `UNAVAILABLE`).
//!
//! Design notes: `docs/gateway.md` (BackendTLSPolicy).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::status::RouteCondition;

/// Reason `Accepted` (PolicyConditionReason).
pub const ACCEPTED: &str = "Accepted";
/// Reason `Conflicted`: another policy takes precedence on the same target (PolicyConditionReason).
pub const CONFLICTED: &str = "Conflicted";
/// Reason `Invalid`: the policy is not valid (its schema, or an unrecognised
/// `wellKnownCACertificates`; PolicyConditionReason).
pub const INVALID: &str = "Invalid";
/// Reason `NoValidCACertificate`: every `caCertificateRefs` entry is invalid
/// (BackendTLSPolicyReason).
pub const NO_VALID_CA_CERTIFICATE: &str = "NoValidCACertificate";
/// Condition type and reason `ResolvedRefs` (BackendTLSPolicyConditionType).
pub const RESOLVED_REFS: &str = "ResolvedRefs";
/// Reason `InvalidCACertificateRef`: a CA reference does not resolve, or its ConfigMap has no
/// `ca.crt` (BackendTLSPolicyReason).
pub const INVALID_CA_CERTIFICATE_REF: &str = "InvalidCACertificateRef";
/// Reason `InvalidKind`: a CA reference of an unsupported group or kind (BackendTLSPolicyReason).
pub const INVALID_KIND: &str = "InvalidKind";

/// A subject alternative name the backend's certificate must present one of
/// (BackendTLSPolicyValidation.subjectAltNames).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", content = "value")]
#[non_exhaustive]
pub enum SubjectAltName {
    /// A DNS name (`*.` wildcards allowed).
    Hostname(String),
    /// A URI, such as a SPIFFE id.
    #[serde(rename = "URI")]
    Uri(String),
}

/// The validated TLS settings of a backend: what a data plane programs for the connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BackendTls {
    /// The BackendTLSPolicy's namespace (that of the Service too).
    pub policy_namespace: String,
    /// The BackendTLSPolicy's name.
    pub policy_name: String,
    /// The SNI to send (RFC 6066), and the name the certificate must match unless
    /// `subjectAltNames` is set (BackendTLSPolicyValidation.hostname).
    pub hostname: String,
    /// ConfigMaps in the policy's namespace whose `ca.crt` entry holds the trusted CA bundle
    /// (PEM). Empty when `wellKnownCACertificates` is used instead.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ca_certificate_refs: Vec<String>,
    /// **\[experimental, v1.7\]** ClusterTrustBundles (cluster-scoped, GEP-5075) whose
    /// `trustBundle` holds trusted CA certificates (PEM), named by `caCertificateRefs` entries
    /// of group `certificates.k8s.io`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cluster_trust_bundles: Vec<String>,
    /// `System`: the data plane's system trust store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub well_known_ca_certificates: Option<String>,
    /// Names the certificate must present one of, instead of `hostname`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subject_alt_names: Vec<SubjectAltName>,
    /// Implementation-specific options, as written.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
}

/// An ancestor of a BackendTLSPolicy (PolicyAncestorStatus.ancestorRef): the Gateway a route
/// to the targeted Service is attached to, or, for mesh routes, the parent Service the route
/// is attached to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyAncestorRef {
    /// `gateway.networking.k8s.io` for a Gateway, `""` for a Service.
    pub group: String,
    /// `Gateway` or `Service`.
    pub kind: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
}

/// A policy's conditions for one ancestor (PolicyAncestorStatus, without `controllerName`,
/// which the writer adds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyAncestorStatus {
    /// The ancestor.
    pub ancestor_ref: PolicyAncestorRef,
    /// `Accepted` and (unless the policy is invalid) `ResolvedRefs`.
    pub conditions: Vec<RouteCondition>,
}

impl PolicyAncestorStatus {
    /// The condition of a type, if present.
    pub fn condition(&self, type_: &str) -> Option<&RouteCondition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }
}

/// The status of one BackendTLSPolicy: an entry per ancestor, at most 16
/// (PolicyStatus.ancestors: "A maximum of 16 ancestors will be represented in this list").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackendTlsPolicyStatus {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Per ancestor, in (group, kind, namespace, name) order; empty when no route reaches a
    /// targeted backend ("An empty list means the Policy is not relevant for any ancestors").
    pub ancestors: Vec<PolicyAncestorStatus>,
}

impl BackendTlsPolicyStatus {
    /// The entry of an ancestor, by kind, namespace and name.
    pub fn ancestor(
        &self,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Option<&PolicyAncestorStatus> {
        self.ancestors.iter().find(|a| {
            a.ancestor_ref.kind == kind
                && a.ancestor_ref.namespace == namespace
                && a.ancestor_ref.name == name
        })
    }
}
