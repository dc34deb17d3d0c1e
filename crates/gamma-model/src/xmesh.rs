//! `XMesh` (`gateway.networking.x-k8s.io/v1alpha1`, GEP-3949): the cluster-scoped object a mesh
//! uses to announce itself and its supported features. It binds no routes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::gateway::{Condition, ObjectReference, SupportedFeature};
use crate::meta::ObjectMeta;

/// The API group of the experimental `x-k8s.io` resources.
pub const GROUP: &str = "gateway.networking.x-k8s.io";
/// The `apiVersion` of XMesh.
pub const API_VERSION: &str = "gateway.networking.x-k8s.io/v1alpha1";

/// A mesh implementation present in the cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XMesh {
    /// `gateway.networking.x-k8s.io/v1alpha1`.
    #[serde(default = "api_version")]
    pub api_version: String,
    /// Always `XMesh`.
    #[serde(default = "kind")]
    pub kind: String,
    /// Object metadata (cluster-scoped).
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: XMeshSpec,
    /// The observed state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<XMeshStatus>,
}

fn api_version() -> String {
    API_VERSION.into()
}

fn kind() -> String {
    "XMesh".into()
}

impl XMesh {
    /// A new XMesh named `name` for `controller_name`.
    pub fn new(name: impl Into<String>, controller_name: impl Into<String>) -> Self {
        XMesh {
            api_version: api_version(),
            kind: kind(),
            metadata: ObjectMeta::cluster_scoped(name),
            spec: XMeshSpec {
                controller_name: controller_name.into(),
                ..XMeshSpec::default()
            },
            status: None,
        }
    }
}

/// The desired state of an [`XMesh`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XMeshSpec {
    /// The mesh's controller name (`DOMAIN/PATH`); immutable.
    #[serde(default)]
    pub controller_name: String,
    /// Implementation-specific configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters_ref: Option<ObjectReference>,
    /// A description; at most 64 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The observed state of an [`XMesh`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct XMeshStatus {
    /// Conditions; at most 8.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Supported features, sorted by name; at most 64.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supported_features: Vec<SupportedFeature>,
}
