//! `v1/ConfigMap`: the subset BackendTLSPolicy needs (which keys it holds; `ca.crt` is read
//! by the data plane, not by the engines).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::meta::ObjectMeta;

/// The key of a ConfigMap that holds a PEM CA bundle for a BackendTLSPolicy
/// (BackendTLSPolicyValidation.caCertificateRefs: "a ConfigMap does not contain a key named
/// `ca.crt`" makes the reference invalid).
pub const CA_CERTIFICATE_KEY: &str = "ca.crt";

/// A Kubernetes ConfigMap, as far as routing reads it: its identity and its `data` and
/// `binaryData` entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigMap {
    /// `v1`.
    #[serde(default = "v1")]
    pub api_version: String,
    /// Always `ConfigMap`.
    #[serde(default = "config_map_kind")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// UTF-8 entries.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub data: BTreeMap<String, String>,
    /// Binary entries, as on the wire: base64 text (not decoded; nothing here reads the bytes).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub binary_data: BTreeMap<String, String>,
}

fn v1() -> String {
    "v1".into()
}

fn config_map_kind() -> String {
    "ConfigMap".into()
}

impl ConfigMap {
    /// An empty ConfigMap `namespace/name`.
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        ConfigMap {
            api_version: v1(),
            kind: config_map_kind(),
            metadata: ObjectMeta::namespaced(namespace, name),
            data: BTreeMap::new(),
            binary_data: BTreeMap::new(),
        }
    }

    /// Whether the ConfigMap has an entry `key`, in `data` or `binaryData`.
    pub fn has_key(&self, key: &str) -> bool {
        self.data.contains_key(key) || self.binary_data.contains_key(key)
    }

    /// The PEM CA bundle of a BackendTLSPolicy CA reference: the non-empty `ca.crt` entry of
    /// `data` (PEM is text). `None` when there is none.
    pub fn ca_certificate(&self) -> Option<&str> {
        self.data
            .get(CA_CERTIFICATE_KEY)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    }
}

#[cfg(test)]
mod tests {
    use crate::{AnyResource, ResourceKind, Snapshot, decode};

    // BackendTLSPolicyValidation.caCertificateRefs: a ConfigMap "with the CA certificate in a
    // key named `ca.crt`"; a ConfigMap without one is misconfigured.
    #[test]
    fn a_config_map_decodes_into_the_snapshot_with_its_ca_bundle() {
        let objects = decode(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: shop}\n\
             data: {ca.crt: \"-----BEGIN CERTIFICATE-----\"}\nbinaryData: {raw: AAEC}\n\
             ---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: empty, namespace: shop}\n",
        )
        .unwrap();
        assert!(matches!(&objects[0], AnyResource::ConfigMap(_)));
        assert_eq!(objects[0].kind(), ResourceKind::ConfigMap);
        let snapshot = Snapshot::from_resources(objects);
        let ca = snapshot.config_map("shop", "ca").unwrap();
        assert_eq!(ca.ca_certificate(), Some("-----BEGIN CERTIFICATE-----"));
        assert!(ca.has_key("raw"));
        let empty = snapshot.config_map("shop", "empty").unwrap();
        assert_eq!(empty.ca_certificate(), None);
        assert_eq!(snapshot.config_maps().count(), 2);
    }
}
