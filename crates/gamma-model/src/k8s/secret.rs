//! `v1/Secret`: the subset a Gateway listener's `tls.certificateRefs` needs: which Secret
//! exists, its `type`, and the names of its data keys. Secret values are never kept: `data`
//! and `stringData` decode into their key names only (each value is skipped by the decoder),
//! so a snapshot holds no key material and nothing derived from one can print it.

use std::collections::BTreeSet;
use std::fmt;

use schemars::JsonSchema;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::meta::ObjectMeta;

/// The Secret type of a TLS certificate and key (`kubernetes.io/tls`).
pub const SECRET_TYPE_TLS: &str = "kubernetes.io/tls";
/// The key of a `kubernetes.io/tls` Secret that holds the certificate chain.
pub const TLS_CERT_KEY: &str = "tls.crt";
/// The key of a `kubernetes.io/tls` Secret that holds the private key.
pub const TLS_PRIVATE_KEY_KEY: &str = "tls.key";

/// A Kubernetes Secret, as far as routing reads it: its identity, its `type` and the names of
/// its entries. Serializing it writes no entries at all (there are no values to write, and an
/// object with empty values applied to a cluster would overwrite the real ones).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Secret {
    /// `v1`.
    #[serde(default = "v1")]
    pub api_version: String,
    /// Always `Secret`.
    #[serde(default = "secret_kind")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The Secret type (`Opaque` when absent, as the API server defaults it).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// The names of the entries of `data` (values discarded while decoding).
    #[serde(
        rename = "data",
        default,
        deserialize_with = "keys_only",
        skip_serializing
    )]
    #[schemars(with = "std::collections::BTreeMap<String, String>")]
    pub data_keys: BTreeSet<String>,
    /// The names of the entries of `stringData`, the write-only form of `data` that manifests
    /// use (values discarded while decoding).
    #[serde(default, deserialize_with = "keys_only", skip_serializing)]
    #[schemars(with = "std::collections::BTreeMap<String, String>")]
    pub string_data: BTreeSet<String>,
}

fn v1() -> String {
    "v1".into()
}

fn secret_kind() -> String {
    "Secret".into()
}

/// A map's keys, each value skipped without being kept (`null` is no entries).
fn keys_only<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeSet<String>, D::Error> {
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = BTreeSet<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map of Secret entries")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(BTreeSet::new())
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(BTreeSet::new())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut keys = BTreeSet::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<IgnoredAny>()?;
                keys.insert(key);
            }
            Ok(keys)
        }
    }
    d.deserialize_any(Keys)
}

impl Secret {
    /// A Secret `namespace/name` of `type_` with entries `keys` (no values).
    pub fn new<'k>(
        namespace: impl Into<String>,
        name: impl Into<String>,
        type_: &str,
        keys: impl IntoIterator<Item = &'k str>,
    ) -> Self {
        Secret {
            api_version: v1(),
            kind: secret_kind(),
            metadata: ObjectMeta::namespaced(namespace, name),
            type_: Some(type_.to_owned()),
            data_keys: keys.into_iter().map(str::to_owned).collect(),
            string_data: BTreeSet::new(),
        }
    }

    /// Whether the Secret has an entry `key` (in `data` or `stringData`).
    pub fn has_key(&self, key: &str) -> bool {
        self.data_keys.contains(key) || self.string_data.contains(key)
    }

    /// Why the Secret cannot serve as a listener certificate (GatewayTLSConfig.certificateRefs:
    /// a `kubernetes.io/tls` Secret with `tls.crt` and `tls.key`), or `None` when it can.
    pub fn tls_certificate_problem(&self) -> Option<String> {
        let type_ = self.type_.as_deref().unwrap_or("Opaque");
        if type_ != SECRET_TYPE_TLS {
            return Some(format!("is of type {type_}, not {SECRET_TYPE_TLS}"));
        }
        let missing: Vec<&str> = [TLS_CERT_KEY, TLS_PRIVATE_KEY_KEY]
            .into_iter()
            .filter(|k| !self.has_key(k))
            .collect();
        (!missing.is_empty()).then(|| format!("has no {}", missing.join(" and no ")))
    }
}

#[cfg(test)]
mod tests {
    use crate::{AnyResource, Snapshot, decode};

    const PRIVATE: &str = "c2VjcmV0LWtleS1tYXRlcmlhbA==";

    // Only the key names are kept: the decoded Secret, its Debug text and its serialization
    // carry no value (the values are skipped while decoding).
    #[test]
    fn a_secret_decodes_to_its_key_names_and_never_keeps_a_value() {
        let text = format!(
            "apiVersion: v1\nkind: Secret\nmetadata: {{name: cert, namespace: infra}}\n\
             type: kubernetes.io/tls\ndata: {{tls.crt: {PRIVATE}, tls.key: {PRIVATE}}}\n\
             ---\napiVersion: v1\nkind: Secret\nmetadata: {{name: opaque, namespace: infra}}\n\
             stringData: {{password: hunter2}}\n"
        );
        let objects = decode(&text).unwrap();
        let AnyResource::Secret(cert) = &objects[0] else {
            panic!("{:?}", objects[0].kind())
        };
        assert_eq!(cert.tls_certificate_problem(), None);
        assert!(!format!("{objects:?}").contains(PRIVATE));
        assert!(!format!("{objects:?}").contains("hunter2"));
        let json = serde_json::to_string(&objects).unwrap();
        assert!(
            !json.contains(PRIVATE) && !json.contains("hunter2"),
            "{json}"
        );
        assert!(!json.contains("\"data\""), "{json}");
        let snapshot = Snapshot::from_resources(objects);
        let opaque = snapshot.secret("infra", "opaque").unwrap();
        assert!(opaque.has_key("password"));
        assert_eq!(
            opaque.tls_certificate_problem().as_deref(),
            Some("is of type Opaque, not kubernetes.io/tls")
        );
    }

    // GatewayTLSConfig.certificateRefs name kubernetes.io/tls Secrets (tls.crt, tls.key).
    #[test]
    fn a_tls_secret_without_its_key_entries_is_no_certificate() {
        let s = super::Secret::new("infra", "half", super::SECRET_TYPE_TLS, ["tls.crt"]);
        assert_eq!(
            s.tls_certificate_problem().as_deref(),
            Some("has no tls.key")
        );
        let s = super::Secret::new("infra", "none", super::SECRET_TYPE_TLS, []);
        assert_eq!(
            s.tls_certificate_problem().as_deref(),
            Some("has no tls.crt and no tls.key")
        );
    }
}
