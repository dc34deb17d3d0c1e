//! `XAuthorizationPolicy` (`gateway.networking.x-k8s.io/v1alpha1`): a **proposal model** of the
//! `AuthorizationPolicy` of GEP-3779, "Identity Based Authz for East-West Traffic".
//!
//! No Gateway API release has Go types or a CRD for this resource. This module follows the
//! GEP text as published in the Gateway API v1.7.0 release tree (`geps/gep-3779/index.md`,
//! status *Implementable*, section "API Design"; the file carries no date of its own). The GEP
//! says only that it "is starting as Experimental with X-prefix"; the group, version and kind
//! here follow the `apisx` convention of the other experimental kinds (`XBackendTrafficPolicy`,
//! `XMesh`). Everything in this module may change when upstream publishes the API.
//!
//! Where the GEP text is defective, the model departs from it (each one is checked by
//! [`Validate`](crate::Validate), and `docs/authorization.md` lists them):
//!
//! - `sources: []` ("allow nothing") and an omitted `sources` ("any source") are different
//!   rules: the field is an `Option<Vec<_>>` and an empty list is written back as `[]` (the
//!   GEP's `omitempty` would turn "allow nothing" into "any source" on a round trip);
//! - a target reference has a `name` (the GEP's `PolicyTargetReferenceWithLabelSelectors` has
//!   none, although its rules speak of one): a Pod target must not carry a name and must carry
//!   a selector, any other kind must carry a name and no selector;
//! - a SPIFFE source needs a trust domain *and* a path (the GEP's CEL accepts `spiffe://td`);
//! - a source's member must match its `type` (the GEP has no rule for it).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::gateway::{LabelSelector, PolicyStatus};
use crate::macros::string_enum;
use crate::meta::ObjectMeta;

/// The `apiVersion` of XAuthorizationPolicy (an inference from the `apisx` convention; see the
/// [module docs](self)).
pub const API_VERSION: &str = "gateway.networking.x-k8s.io/v1alpha1";
/// The kind.
pub const KIND: &str = "XAuthorizationPolicy";
/// The GEP this module models, and the revision of its text.
pub const GEP: &str =
    "GEP-3779 (text of the Gateway API v1.7.0 release tree, status Implementable)";

/// An identity-based authorization policy for east-west traffic (GEP-3779, proposal).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XAuthorizationPolicy {
    /// `gateway.networking.x-k8s.io/v1alpha1`.
    #[serde(default = "api_version")]
    pub api_version: String,
    /// Always `XAuthorizationPolicy`.
    #[serde(default = "kind")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: AuthorizationPolicySpec,
    /// The observed state (GEP-713 policy status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PolicyStatus>,
}

fn api_version() -> String {
    API_VERSION.into()
}

fn kind() -> String {
    KIND.into()
}

impl XAuthorizationPolicy {
    /// A new policy `namespace/name` with `spec`.
    pub fn new(
        namespace: impl Into<String>,
        name: impl Into<String>,
        spec: AuthorizationPolicySpec,
    ) -> Self {
        XAuthorizationPolicy {
            api_version: api_version(),
            kind: kind(),
            metadata: ObjectMeta::namespaced(namespace, name),
            spec,
            status: None,
        }
    }
}

/// The desired state of an [`XAuthorizationPolicy`] (`AuthorizationPolicySpec`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationPolicySpec {
    /// The workloads the policy applies to; required. A Pod target (with a label selector) must
    /// be the only one.
    #[serde(default)]
    pub target_refs: Vec<AuthorizationTargetReference>,
    /// What to do with a request that matches a rule; required, only `ALLOW`.
    #[serde(default)]
    pub action: Option<AuthorizationAction>,
    /// The rules, ORed. Omitted or empty: the policy matches nothing ("allow nothing" for the
    /// workloads it selects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<AuthorizationRule>>,
    /// Where the policy is enforced; required, only `Network`. Deliberately without a default
    /// (GEP-3779, "New EnforcementLevel Enum").
    #[serde(default)]
    pub enforcement_level: Option<EnforcementLevel>,
}

string_enum! {
    /// The action of an [`XAuthorizationPolicy`] (`AuthorizationPolicyAction`).
    pub enum AuthorizationAction {
        /// Allow the requests that match a rule.
        Allow => "ALLOW",
    }
}

string_enum! {
    /// Where a policy is enforced (`EnforcementLevel`).
    pub enum EnforcementLevel {
        /// At the network (L4) level: sources and ports only.
        Network => "Network",
    }
}

/// A reference to the workloads a policy targets (`PolicyTargetReferenceWithLabelSelectors`,
/// with the `name` the GEP's rules speak of).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationTargetReference {
    /// The API group: `""` (or `core`) for a Pod.
    #[serde(default)]
    pub group: String,
    /// The kind: `Pod` for the label-selector form.
    #[serde(default)]
    pub kind: String,
    /// The object's name; must be absent for a Pod target, present for any other kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The Pods selected (in the policy's namespace); only for a Pod target, where it is
    /// required. `{}` selects every Pod of the namespace (the GEP's recommended "Option 3").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

impl AuthorizationTargetReference {
    /// A Pod target selecting by `selector`.
    pub fn pods(selector: LabelSelector) -> Self {
        AuthorizationTargetReference {
            group: String::new(),
            kind: "Pod".into(),
            name: None,
            selector: Some(selector),
        }
    }

    /// Whether this reference is of the core `Pod` kind (group `""` or `core`).
    pub fn is_pod(&self) -> bool {
        self.kind == "Pod" && (self.group.is_empty() || self.group == "core")
    }
}

/// One rule (`AuthorizationRule`): a request matches when it matches the sources AND the
/// network attributes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationRule {
    /// The sources, ORed. `None` (omitted): any source. `Some([])`: no source ("allow
    /// nothing"); written back as `[]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<AuthorizationSource>>,
    /// L4 criteria; omitted: any TCP traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_attributes: Option<AuthorizationNetworkAttributes>,
}

string_enum! {
    /// The kind of an [`AuthorizationSource`] (`AuthorizationSourceType`).
    pub enum AuthorizationSourceType {
        /// A Kubernetes ServiceAccount in the workload's trust domain.
        ServiceAccount => "ServiceAccount",
        /// A SPIFFE ID.
        Spiffe => "SPIFFE",
    }
}

/// A source of requests (the GEP's `Source`, referenced as `AuthorizationSource`): a union
/// discriminated by `type`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationSource {
    /// `ServiceAccount` or `SPIFFE`; required.
    #[serde(rename = "type", default)]
    pub type_: Option<AuthorizationSourceType>,
    /// The SPIFFE ID (`spiffe://TRUST_DOMAIN/PATH`) when `type` is `SPIFFE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spiffe: Option<String>,
    /// The ServiceAccount when `type` is `ServiceAccount`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account: Option<AuthorizationSourceServiceAccount>,
}

impl AuthorizationSource {
    /// A ServiceAccount source; `namespace` `None` is the policy's namespace.
    pub fn service_account(namespace: Option<&str>, name: &str) -> Self {
        AuthorizationSource {
            type_: Some(AuthorizationSourceType::ServiceAccount),
            spiffe: None,
            service_account: Some(AuthorizationSourceServiceAccount {
                namespace: namespace.map(str::to_owned),
                name: name.to_owned(),
            }),
        }
    }

    /// A SPIFFE source.
    pub fn spiffe(id: &str) -> Self {
        AuthorizationSource {
            type_: Some(AuthorizationSourceType::Spiffe),
            spiffe: Some(id.to_owned()),
            service_account: None,
        }
    }
}

/// A ServiceAccount source (`AuthorizationSourceServiceAccount`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationSourceServiceAccount {
    /// The ServiceAccount's namespace; omitted: the policy's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The ServiceAccount's name, or `*` for every ServiceAccount of the namespace; required.
    #[serde(default)]
    pub name: String,
}

/// L4 criteria of a rule (`AuthorizationNetworkAttributes`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationNetworkAttributes {
    /// Destination ports (1-65535), ORed; omitted or empty: every port.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<i32>,
}

/// A SPIFFE ID split into trust domain and path, as the SPIFFE-ID specification defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpiffeId<'a> {
    /// The trust domain (lower-case letters, digits, `.`, `-`, `_`).
    pub trust_domain: &'a str,
    /// The path after the trust domain, without its leading `/`; non-empty.
    pub path: &'a str,
}

/// Why a string is not a SPIFFE ID with a trust domain and a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpiffeIdError {
    /// It does not start with `spiffe://`.
    #[error("must start with spiffe://")]
    Scheme,
    /// The trust domain is empty or has a character other than lower-case letters, digits,
    /// `.`, `-` and `_`.
    #[error("the trust domain must be non-empty, of lower-case letters, digits, '.', '-' and '_'")]
    TrustDomain,
    /// There is no path after the trust domain (the GEP's CEL accepts `spiffe://td`, although
    /// its message asks for a `/` separating trust domain from workload).
    #[error("must have a path after the trust domain (spiffe://TRUST_DOMAIN/PATH)")]
    MissingPath,
    /// A path segment is empty, `.` or `..`, or has a character outside letters, digits, `.`,
    /// `-` and `_`; or the ID has a query or fragment.
    #[error(
        "path segments must be non-empty, not '.' or '..', of letters, digits, '.', '-' and '_'"
    )]
    Path,
    /// Longer than 2048 bytes.
    #[error("must be at most 2048 bytes long")]
    TooLong,
}

impl<'a> SpiffeId<'a> {
    /// Parses `spiffe://TRUST_DOMAIN/PATH` strictly (the SPIFFE-ID specification, section 2).
    pub fn parse(id: &'a str) -> Result<Self, SpiffeIdError> {
        if id.len() > 2048 {
            return Err(SpiffeIdError::TooLong);
        }
        let rest = id.strip_prefix("spiffe://").ok_or(SpiffeIdError::Scheme)?;
        let (trust_domain, path) = match rest.split_once('/') {
            Some((td, path)) => (td, Some(path)),
            None => (rest, None),
        };
        let td_ok = !trust_domain.is_empty()
            && trust_domain.bytes().all(|b| {
                b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'_')
            });
        if !td_ok {
            return Err(SpiffeIdError::TrustDomain);
        }
        let path = match path {
            None | Some("") => return Err(SpiffeIdError::MissingPath),
            Some(p) => p,
        };
        let segment_ok = |s: &str| {
            !s.is_empty()
                && s != "."
                && s != ".."
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        };
        if !path.split('/').all(segment_ok) {
            return Err(SpiffeIdError::Path);
        }
        Ok(SpiffeId { trust_domain, path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spiffe_ids_need_a_trust_domain_and_a_path() {
        let ok = SpiffeId::parse("spiffe://cluster.local/ns/shop/sa/web").unwrap();
        assert_eq!(ok.trust_domain, "cluster.local");
        assert_eq!(ok.path, "ns/shop/sa/web");
        // The GEP's CEL (`size(self.split("/")) >= 3`) accepts this one.
        assert_eq!(
            SpiffeId::parse("spiffe://cluster.local"),
            Err(SpiffeIdError::MissingPath)
        );
        assert_eq!(
            SpiffeId::parse("spiffe://cluster.local/"),
            Err(SpiffeIdError::MissingPath)
        );
        assert_eq!(
            SpiffeId::parse("spiffe:///ns/a"),
            Err(SpiffeIdError::TrustDomain)
        );
        assert_eq!(
            SpiffeId::parse("spiffe://Cluster.Local/ns/a"),
            Err(SpiffeIdError::TrustDomain)
        );
        assert_eq!(
            SpiffeId::parse("spiffe://td/ns//sa"),
            Err(SpiffeIdError::Path)
        );
        assert_eq!(
            SpiffeId::parse("spiffe://td/a/../b"),
            Err(SpiffeIdError::Path)
        );
        assert_eq!(SpiffeId::parse("https://td/a"), Err(SpiffeIdError::Scheme));
    }
}
