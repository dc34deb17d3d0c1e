//! ConfigMap validation as the API server does it for the fields gamma-rs reads
//! (`ValidateConfigMap`, k8s.io/kubernetes `pkg/apis/core/validation`; `IsConfigMapKey` in
//! k8s.io/apimachinery `pkg/util/validation`):
//!
//! - the name a DNS-1123 subdomain;
//! - every `data` and `binaryData` key at most 253 characters of `[-._a-zA-Z0-9]`, neither `.`
//!   nor `..` nor starting with `..`;
//! - no key in both `data` and `binaryData`;
//! - all values together at most 1 MiB (`binaryData` counted as the bytes its base64 text
//!   decodes to).
//!
//! `binaryData` values are kept as base64 text and not decoded: an ill-formed one is refused by
//! the API server's decoding, which gamma-rs does not repeat.

use super::meta::{self, NameRule};
use super::{ErrorKind, Errors, FieldPath};
use crate::k8s::ConfigMap;

/// `[-._a-zA-Z0-9]+`, the ConfigMap key pattern (`configMapKeyFmt`).
pub const CONFIG_MAP_KEY_PATTERN: &str = "^[-._a-zA-Z0-9]+$";
/// The most bytes a ConfigMap's values may take together (`MaxSecretSize`, 1 MiB).
pub const MAX_CONFIG_MAP_BYTES: usize = 1024 * 1024;
const MAX_KEY: usize = 253;

fn is_config_map_key(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
}

pub(crate) fn key(path: &FieldPath, k: &str, errors: &mut Errors) {
    let kpath = path.key(k);
    if k.len() > MAX_KEY {
        errors.push(kpath.clone(), ErrorKind::TooLong { max: MAX_KEY });
    }
    if !is_config_map_key(k) {
        errors.push(
            kpath.clone(),
            ErrorKind::Pattern {
                pattern: CONFIG_MAP_KEY_PATTERN,
            },
        );
    }
    // `hasChDirPrefix`: a key must not be a relative path step (mounted as a file name).
    if k == "." || k == ".." || k.starts_with("..") {
        errors.rule(kpath, "must not be '.' or '..' or start with '..'");
    }
}

/// The length of the bytes base64 text `t` decodes to (padding and line breaks aside).
fn decoded_len(t: &str) -> usize {
    let chars = t
        .bytes()
        .filter(|b| !matches!(b, b'=' | b'\n' | b'\r'))
        .count();
    chars / 4 * 3 + (chars % 4).saturating_sub(1)
}

pub(crate) fn config_map(cm: &ConfigMap, path: &FieldPath, errors: &mut Errors) {
    meta::object_meta(&cm.metadata, path, true, NameRule::Subdomain, errors);
    let dpath = path.field("data");
    let bpath = path.field("binaryData");
    let mut total = 0usize;
    for (k, v) in &cm.data {
        key(&dpath, k, errors);
        total = total.saturating_add(v.len());
    }
    for (k, v) in &cm.binary_data {
        key(&bpath, k, errors);
        if cm.data.contains_key(k) {
            errors.push(bpath.key(k), ErrorKind::Duplicate { value: k.clone() });
        }
        total = total.saturating_add(decoded_len(v));
    }
    if total > MAX_CONFIG_MAP_BYTES {
        errors.rule(
            path.clone(),
            format!("data and binaryData together must be at most {MAX_CONFIG_MAP_BYTES} bytes"),
        );
    }
}

/// A Secret as the API server validates the fields gamma-rs keeps (`ValidateSecret`): the name a
/// DNS-1123 subdomain, every entry name a ConfigMap-style key, and a `kubernetes.io/tls`
/// Secret holding `tls.crt` and `tls.key` (`ValidateSecret`: "`tls.crt` and `tls.key` are
/// required"). Values are not kept, so their size is not checked.
pub(crate) fn secret(s: &crate::k8s::Secret, path: &FieldPath, errors: &mut Errors) {
    meta::object_meta(&s.metadata, path, true, NameRule::Subdomain, errors);
    let dpath = path.field("data");
    for k in &s.data_keys {
        key(&dpath, k, errors);
    }
    let spath = path.field("stringData");
    for k in &s.string_data {
        key(&spath, k, errors);
    }
    if s.type_.as_deref() == Some(crate::k8s::SECRET_TYPE_TLS) {
        for k in [crate::k8s::TLS_CERT_KEY, crate::k8s::TLS_PRIVATE_KEY_KEY] {
            if !s.has_key(k) {
                errors.push(dpath.key(k), ErrorKind::Required);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::Validate;

    fn errors_of(cm: &ConfigMap) -> Vec<String> {
        cm.validate()
            .err()
            .map(|e| e.errors().iter().map(|e| e.path.to_string()).collect())
            .unwrap_or_default()
    }

    // IsConfigMapKey: `[-._a-zA-Z0-9]+`, at most 253, no `..` prefix.
    #[test]
    fn config_map_keys_are_checked_as_the_api_server_checks_them() {
        let mut cm = ConfigMap::new("ns", "ca");
        cm.data.insert("ca.crt".into(), "PEM".into());
        cm.data.insert("tls_key-1".into(), String::new());
        assert!(errors_of(&cm).is_empty());
        for bad in ["a/b", "..x", ".", "", "sp ace", &"k".repeat(254)] {
            let mut cm = ConfigMap::new("ns", "ca");
            cm.data.insert(bad.into(), "v".into());
            assert!(!errors_of(&cm).is_empty(), "{bad:?}");
        }
    }

    // ValidateConfigMap: "duplicate of key present in data".
    #[test]
    fn a_config_map_key_in_both_data_and_binary_data_is_an_error() {
        let mut cm = ConfigMap::new("ns", "ca");
        cm.data.insert("ca.crt".into(), "PEM".into());
        cm.binary_data.insert("ca.crt".into(), "UEVN".into());
        assert_eq!(errors_of(&cm), ["binaryData[ca.crt]"]);
    }

    // ValidateConfigMap: total size at most MaxSecretSize (1 MiB), binaryData decoded.
    #[test]
    fn a_config_map_over_one_mebibyte_is_an_error() {
        let mut cm = ConfigMap::new("ns", "big");
        cm.data.insert("a".into(), "x".repeat(MAX_CONFIG_MAP_BYTES));
        assert!(errors_of(&cm).is_empty());
        cm.binary_data.insert("b".into(), "QUFB".into()); // 3 bytes more
        assert!(!errors_of(&cm).is_empty());
        assert_eq!(decoded_len("QUFBQQ=="), 4);
        assert_eq!(decoded_len("QUFBQUE="), 5);
    }

    // ObjectMeta: ConfigMap names are DNS-1123 subdomains.
    #[test]
    fn a_config_map_name_is_a_dns_subdomain() {
        assert!(errors_of(&ConfigMap::new("ns", "ca.bundle-1")).is_empty());
        assert_eq!(errors_of(&ConfigMap::new("ns", "CA")), ["metadata.name"]);
    }
}
