//! `ReferenceGrant` (`v1`, also `v1beta1`) and `BackendTLSPolicy` (`v1`, also `v1alpha3`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Condition, LocalObjectReference, LocalPolicyTargetReference, ParentReference};
use crate::macros::string_enum;
use crate::meta::ObjectMeta;

/// Permits references from objects in other namespaces to objects in this one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceGrant {
    /// `gateway.networking.k8s.io/v1` or `v1beta1`.
    #[serde(default = "super::v1")]
    pub api_version: String,
    /// Always `ReferenceGrant`.
    #[serde(default = "reference_grant_kind")]
    pub kind: String,
    /// Object metadata; the grant lives in the *target* namespace.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The grant. Required since v1.6; absent is reported by validation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<ReferenceGrantSpec>,
}

fn reference_grant_kind() -> String {
    "ReferenceGrant".into()
}

/// Who may refer (`from`) to what (`to`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceGrantSpec {
    /// Referrers, ORed; 1 to 16.
    #[serde(default)]
    pub from: Vec<ReferenceGrantFrom>,
    /// Referents, ORed; 1 to 16.
    #[serde(default)]
    pub to: Vec<ReferenceGrantTo>,
}

/// A referrer: group, kind and a single namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceGrantFrom {
    /// The referrer's group (`gateway.networking.k8s.io` for routes).
    #[serde(default)]
    pub group: String,
    /// The referrer's kind, e.g. `HTTPRoute`.
    #[serde(default)]
    pub kind: String,
    /// The referrer's namespace.
    #[serde(default)]
    pub namespace: String,
}

/// A referent: group, kind and optionally a name (absent: every object of that kind).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceGrantTo {
    /// The referent's group (`""` for Services).
    #[serde(default)]
    pub group: String,
    /// The referent's kind, e.g. `Service`.
    #[serde(default)]
    pub kind: String,
    /// The referent's name; absent allows all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// How a Gateway validates the TLS certificate of a backend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackendTlsPolicy {
    /// `gateway.networking.k8s.io/v1` or `v1alpha3`.
    #[serde(default = "super::v1")]
    pub api_version: String,
    /// Always `BackendTLSPolicy`.
    #[serde(default = "backend_tls_policy_kind")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: BackendTlsPolicySpec,
    /// The observed state: one entry per (ancestor, controller).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PolicyStatus>,
}

/// The observed state of a policy (GEP-713 PolicyStatus): an entry per ancestor and controller.
/// Several controllers share the list (`x-kubernetes-list-type: atomic`), each writing only the
/// entries carrying its own `controllerName`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyStatus {
    /// At most 16 entries (PolicyStatus.ancestors). Required by the CRDs, so always written.
    #[serde(default)]
    pub ancestors: Vec<PolicyAncestorStatus>,
}

/// A policy's status for one ancestor, written by one controller (PolicyAncestorStatus).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyAncestorStatus {
    /// The ancestor (a Gateway, or for a mesh the parent Service), as a parent reference.
    #[serde(default)]
    pub ancestor_ref: ParentReference,
    /// The controller that wrote this entry (`DOMAIN/PATH`).
    #[serde(default)]
    pub controller_name: String,
    /// Conditions, keyed by `type`; 1 to 8.
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

fn backend_tls_policy_kind() -> String {
    "BackendTLSPolicy".into()
}

/// The desired state of a [`BackendTlsPolicy`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackendTlsPolicySpec {
    /// The Services (or ports of them) the policy applies to; 1 to 16.
    #[serde(default)]
    pub target_refs: Vec<LocalPolicyTargetReference>,
    /// How to validate the backend's certificate.
    #[serde(default)]
    pub validation: BackendTlsPolicyValidation,
    /// Implementation-specific options; at most 16.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
}

/// Certificate validation settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackendTlsPolicyValidation {
    /// CA certificates; at most 8. Excludes `wellKnownCACertificates`.
    ///
    /// `None` when the field is absent (or `null`), `Some` of an empty list for `[]`: v1.7's
    /// experimental CRDs tell the two apart (`minItems: 1`, and "exactly one of the fields"
    /// reads `has(self.caCertificateRefs)`), while the earlier rules read `size(..) > 0`.
    /// [`BackendTlsPolicyValidation::ca_refs`] reads both as a slice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_certificate_refs: Option<Vec<LocalObjectReference>>,
    /// `System`: use the system trust store. Excludes `caCertificateRefs`.
    #[serde(
        rename = "wellKnownCACertificates",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub well_known_ca_certificates: Option<String>,
    /// The SNI and certificate hostname to use.
    #[serde(default)]
    pub hostname: String,
    /// Alternative names to accept; at most 5.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subject_alt_names: Vec<SubjectAltName>,
}

impl BackendTlsPolicyValidation {
    /// The `caCertificateRefs` entries; empty when the list is absent or empty.
    pub fn ca_refs(&self) -> &[LocalObjectReference] {
        self.ca_certificate_refs.as_deref().unwrap_or_default()
    }
}

string_enum! {
    /// The type of a subject alternative name.
    pub enum SubjectAltNameType {
        /// A DNS hostname.
        Hostname => "Hostname",
        /// A URI (e.g. a SPIFFE id).
        Uri => "URI",
    }
}

/// A subject alternative name to accept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubjectAltName {
    /// Hostname or URI; the field of that name must be set.
    #[serde(rename = "type")]
    pub type_: SubjectAltNameType,
    /// For `Hostname`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// For `URI`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
}
