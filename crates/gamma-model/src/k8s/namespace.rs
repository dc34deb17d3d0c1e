//! `v1/Namespace`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::meta::ObjectMeta;

/// A Kubernetes Namespace; routing reads its labels (allowedRoutes selectors, mesh labels).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Namespace {
    /// `v1`.
    #[serde(default = "v1")]
    pub api_version: String,
    /// Always `Namespace`.
    #[serde(default = "namespace_kind")]
    pub kind: String,
    /// Object metadata (cluster-scoped).
    #[serde(default)]
    pub metadata: ObjectMeta,
}

fn v1() -> String {
    "v1".into()
}

fn namespace_kind() -> String {
    "Namespace".into()
}

impl Namespace {
    /// A Namespace named `name` with no labels.
    pub fn new(name: impl Into<String>) -> Self {
        Namespace {
            api_version: v1(),
            kind: namespace_kind(),
            metadata: ObjectMeta::cluster_scoped(name),
        }
    }
}
