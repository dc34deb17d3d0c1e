//! Unique namespace names, one per test.

use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(0);

/// Longest Namespace name: an RFC 1123 DNS label.
const MAX_LEN: usize = 63;

/// A namespace name unique in this process (and across processes sharing a server: the process
/// id is part of it): `<hint>-<pid>-<n>`, with `hint` reduced to lowercase alphanumerics and `-`
/// and shortened so that the whole is a valid Namespace name (an RFC 1123 label: at most 63
/// characters, `[a-z0-9]([-a-z0-9]*[a-z0-9])?`). An empty hint gives `t-<pid>-<n>`.
pub fn namespace_name(hint: &str) -> String {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let suffix = format!("-{:x}-{n}", std::process::id());
    let mut base: String = hint
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    base.truncate(MAX_LEN.saturating_sub(suffix.len()));
    let base = base.trim_matches('-');
    let base = if base.is_empty() { "t" } else { base };
    format!("{base}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Namespace names are RFC 1123 labels (Kubernetes API conventions, object names and IDs).
    fn is_dns_label(s: &str) -> bool {
        let bytes = s.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= MAX_LEN
            && bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
            && bytes.first() != Some(&b'-')
            && bytes.last() != Some(&b'-')
    }

    #[test]
    fn names_are_unique_and_valid_labels() {
        let hints = [
            "status-write",
            "",
            "---",
            "Upper_Case and spaces",
            "ünïcödé",
            &"x".repeat(200),
            "-leading-and-trailing-",
        ];
        let mut seen = std::collections::HashSet::new();
        for hint in hints {
            for _ in 0..3 {
                let name = namespace_name(hint);
                assert!(is_dns_label(&name), "{name:?} from {hint:?}");
                assert!(seen.insert(name.clone()), "{name:?} repeated");
            }
        }
    }

    #[test]
    fn hint_is_kept_when_it_fits() {
        let name = namespace_name("Route_Status");
        assert!(name.starts_with("route-status-"), "{name}");
    }
}
