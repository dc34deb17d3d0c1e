//! Object metadata, as the API server validates it for every object
//! (k8s.io/apimachinery `pkg/api/validation/objectmeta.go`, `ValidateObjectMeta`): the name
//! (or `generateName`), the namespace, `generation`, label keys and values, annotation keys and
//! the annotations' total size.
//!
//! Custom resources (every Gateway API kind) name objects with DNS-1123 subdomains
//! (`NameIsDNSSubdomain`); core kinds choose their own rule (Service and Namespace names are
//! DNS-1123 labels: Kubernetes v1.37 validates Service names with `NameIsDNSLabel`, the
//! relaxed rule of KEP-5311, so `1web` is a valid Service name). A cluster-scoped object's `namespace` is not an
//! error: the API server clears it before validating.

use super::patterns as p;
use super::{ErrorKind, Errors, FieldPath};
use crate::meta::ObjectMeta;

/// The most bytes all annotation keys and values of one object may take together (256 KiB,
/// `TotalAnnotationSizeLimitB`).
pub const MAX_ANNOTATIONS_BYTES: usize = 256 * 1024;

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`, at most 253 characters.
pub const DNS1123_SUBDOMAIN_PATTERN: &str =
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
pub const DNS1123_LABEL_PATTERN: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
/// `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters (the Service name rule before
/// Kubernetes' relaxed Service name validation, KEP-5311; no kind uses it now).
pub const DNS1035_LABEL_PATTERN: &str = r"^[a-z]([-a-z0-9]*[a-z0-9])?$";
/// A qualified name (label and annotation keys): an optional DNS-1123 subdomain prefix of at
/// most 253 characters and `/`, then a name of 1 to 63 characters.
pub const QUALIFIED_NAME_PATTERN: &str = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$";

/// How a kind's object names are validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameRule {
    /// DNS-1123 subdomain (custom resources, EndpointSlice).
    Subdomain,
    /// DNS-1123 label (Namespace, Service).
    Label,
}

impl NameRule {
    /// Whether `name` is valid; with `prefix` (a `generateName`), a trailing `-` is allowed, as
    /// the API server appends random characters to it.
    fn check(self, path: &FieldPath, name: &str, prefix: bool, errors: &mut Errors) {
        let masked;
        let name = match name.strip_suffix('-') {
            Some(head) if prefix => {
                masked = format!("{head}a");
                masked.as_str()
            }
            _ => name,
        };
        let (max, ok, pattern): (usize, fn(&str) -> bool, &'static str) = match self {
            NameRule::Subdomain => (253, p::is_dns_subdomain, DNS1123_SUBDOMAIN_PATTERN),
            NameRule::Label => (63, p::is_dns_label, DNS1123_LABEL_PATTERN),
        };
        if name.len() > max {
            errors.push(path.clone(), ErrorKind::TooLong { max });
        }
        errors.pattern(path, name, ok, pattern);
    }

    /// Whether [`NameRule::check`] of a name (not a `generateName`) finds nothing wrong:
    /// asked first, so that a valid name (every object has one) costs no path and no call.
    #[inline]
    fn accepts(self, name: &str) -> bool {
        match self {
            NameRule::Subdomain => name.len() <= 253 && p::is_dns_subdomain(name),
            NameRule::Label => name.len() <= 63 && p::is_dns_label(name),
        }
    }
}

/// A qualified name: `prefix/name` or `name` (label and annotation keys).
pub fn is_qualified_name(s: &str) -> bool {
    match s.split_once('/') {
        Some((prefix, _)) if prefix.len() > 253 => false,
        _ => p::is_label_key(s),
    }
}

/// Validates `meta` at `path.metadata`.
pub(crate) fn object_meta(
    meta: &ObjectMeta,
    path: &FieldPath,
    namespaced: bool,
    names: NameRule,
    errors: &mut Errors,
) {
    let path = path.field("metadata");
    let generate = meta.generate_name.as_deref().unwrap_or("");
    if !generate.is_empty() {
        names.check(&path.field("generateName"), generate, true, errors);
    }
    if meta.name.is_empty() {
        if generate.is_empty() {
            errors.push(path.field("name"), ErrorKind::Required);
        }
    } else if !names.accepts(&meta.name) {
        names.check(&path.field("name"), &meta.name, false, errors);
    }
    // An absent namespace is the request's (`default` for manifests applied without one).
    if namespaced
        && let Some(ns) = meta.namespace.as_deref().filter(|n| !n.is_empty())
        && !NameRule::Label.accepts(ns)
    {
        NameRule::Label.check(&path.field("namespace"), ns, false, errors);
    }
    if let Some(g) = meta.generation {
        errors.range(&path.field("generation"), g, 0, i64::MAX);
    }
    let lpath = path.field("labels");
    for (k, v) in &meta.labels {
        if !is_qualified_name(k) {
            errors.push(
                lpath.clone(),
                ErrorKind::Pattern {
                    pattern: QUALIFIED_NAME_PATTERN,
                },
            );
        }
        if v.len() > 63 {
            errors.push(lpath.key(k), ErrorKind::TooLong { max: 63 });
        } else if !p::is_label_value(v) {
            errors.push(
                lpath.key(k),
                ErrorKind::Pattern {
                    pattern: p::LABEL_VALUE_PATTERN,
                },
            );
        }
    }
    let apath = path.field("annotations");
    let mut total = 0usize;
    for (k, v) in &meta.annotations {
        // Annotation keys are compared lower-cased (`ValidateAnnotations`).
        if !is_qualified_name(&k.to_ascii_lowercase()) {
            errors.push(
                apath.clone(),
                ErrorKind::Pattern {
                    pattern: QUALIFIED_NAME_PATTERN,
                },
            );
        }
        total = total.saturating_add(k.len()).saturating_add(v.len());
    }
    if total > MAX_ANNOTATIONS_BYTES {
        errors.push(
            apath,
            ErrorKind::TooLong {
                max: MAX_ANNOTATIONS_BYTES,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `accepts` answers as `check` of a name does, for both rules, on names around both
    /// length limits and over the bytes the patterns tell apart.
    #[test]
    fn accepts_is_check_finding_nothing() {
        let mut names: Vec<String> = Vec::new();
        let alphabet = ["a", "0", "-", ".", "A", "_", "é"];
        for a in alphabet {
            names.push(a.to_owned());
            for b in alphabet {
                names.push(format!("{a}{b}"));
                for c in alphabet {
                    names.push(format!("{a}{b}{c}"));
                }
            }
        }
        for n in [62, 63, 64, 252, 253, 254] {
            names.push("a".repeat(n));
            names.push(format!("{}.a", "a".repeat(n - 2)));
        }
        names.push(String::new());
        let path = FieldPath::root().field("name");
        for rule in [NameRule::Subdomain, NameRule::Label] {
            for name in &names {
                let mut errors = Errors::default();
                rule.check(&path, name, false, &mut errors);
                assert_eq!(rule.accepts(name), errors.is_empty(), "{rule:?} {name:?}");
            }
        }
    }
}
