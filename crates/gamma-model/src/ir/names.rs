//! Validated names: [`Hostname`], [`PreciseHostname`], [`HeaderName`].

use crate::ir::IrString;
use std::fmt;

use serde::Serialize;

use crate::validate::patterns as p;
use crate::validate::{ErrorKind, Errors, FieldPath};

fn check(
    s: &str,
    max: usize,
    ok: fn(&str) -> bool,
    pattern: &'static str,
) -> Result<(), ErrorKind> {
    let n = s.chars().count();
    if n == 0 {
        Err(ErrorKind::Required)
    } else if n > max {
        Err(ErrorKind::TooLong { max })
    } else if !ok(s) {
        Err(ErrorKind::Pattern { pattern })
    } else {
        Ok(())
    }
}

/// A valid Gateway API `Hostname`: lower-case RFC 1123 subdomain of at most 253 characters,
/// optionally with a single leading `*.` wildcard label (Gateway API Hostname and shared types).
///
/// ```
/// use gamma_model::ir::Hostname;
/// let h = Hostname::new("*.example.com").unwrap();
/// assert!(h.is_wildcard());
/// assert_eq!(h.suffix(), "example.com");
/// assert!(h.matches("foo.bar.example.com"));   // a wildcard covers one or more labels
/// assert!(!h.matches("example.com"));
/// assert!(Hostname::new("Example.com").is_err());  // upstream's pattern is lower-case only
/// assert_eq!(Hostname::new_lowercased("Example.COM").unwrap().as_str(), "example.com");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Hostname(String);

impl Hostname {
    /// The value as an owned string (no copy).
    pub fn into_string(self) -> String {
        self.0
    }

    /// Validates `s` against upstream's `Hostname` type.
    pub fn new(s: &str) -> Result<Hostname, ErrorKind> {
        check(s, 253, p::is_hostname, p::HOSTNAME_PATTERN)?;
        Ok(Hostname(s.to_owned()))
    }

    /// Lower-cases ASCII letters (host names compare case-insensitively, Gateway API Host header
    /// matching), then validates.
    pub fn new_lowercased(s: &str) -> Result<Hostname, ErrorKind> {
        Hostname::new(&s.to_ascii_lowercase())
    }

    /// The hostname as written (lower-case).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the first label is the `*` wildcard.
    pub fn is_wildcard(&self) -> bool {
        self.0.starts_with("*.")
    }

    /// The part after `*.` for a wildcard; the whole name otherwise.
    pub fn suffix(&self) -> &str {
        self.0.strip_prefix("*.").unwrap_or(&self.0)
    }

    /// The hostname precedence key of Gateway API HTTPRoute hostnames precedence, larger wins: the
    /// number of characters when this is a non-wildcard name (0 for a wildcard), then the number of
    /// characters of the name itself.
    pub fn precedence_key(&self) -> (usize, usize) {
        let len = self.0.len();
        (if self.is_wildcard() { 0 } else { len }, len)
    }

    /// Whether a request host (already lower-case, without port) matches: equal for an exact
    /// name; for a wildcard, the host ends with `.suffix` and has at least one more label
    /// (a wildcard matches one or more labels, never the bare suffix; Gateway API hostname
    /// wildcards).
    pub fn matches(&self, host: &str) -> bool {
        if self.is_wildcard() {
            let suffix = self.suffix();
            host.len() > suffix.len() + 1
                && host.ends_with(suffix)
                && host.as_bytes().get(host.len() - suffix.len() - 1) == Some(&b'.')
        } else {
            host == self.0
        }
    }
}

impl fmt::Display for Hostname {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A valid `PreciseHostname`: a lower-case RFC 1123 subdomain, no wildcard (redirect and
/// rewrite targets).
///
/// ```
/// use gamma_model::ir::PreciseHostname;
/// assert!(PreciseHostname::new("example.com").is_ok());
/// assert!(PreciseHostname::new("*.example.com").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct PreciseHostname(String);

impl PreciseHostname {
    /// The value as an owned string (no copy).
    pub fn into_string(self) -> String {
        self.0
    }

    /// Validates `s` against upstream's `PreciseHostname` type.
    pub fn new(s: &str) -> Result<PreciseHostname, ErrorKind> {
        check(s, 253, p::is_precise_hostname, p::PRECISE_HOSTNAME_PATTERN)?;
        Ok(PreciseHostname(s.to_owned()))
    }

    /// The hostname.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PreciseHostname {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A valid HTTP header name (an RFC 7230 token, 1–256 characters), stored lower-case because
/// header names compare case-insensitively (Gateway API HTTPHeaderMatch).
///
/// ```
/// use gamma_model::ir::HeaderName;
/// assert_eq!(HeaderName::new("X-Version").unwrap().as_str(), "x-version");
/// assert!(HeaderName::new(":authority").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct HeaderName(IrString);

impl HeaderName {
    /// The value as a `String` (a copy when the value is held inline).
    pub fn into_string(self) -> String {
        self.0.into_string()
    }

    /// The value as an [`IrString`] (no copy).
    pub fn into_ir_string(self) -> IrString {
        self.0
    }

    /// Validates `s` as a `HeaderName` and lower-cases it.
    pub fn new(s: &str) -> Result<HeaderName, ErrorKind> {
        check(s, 256, p::is_header_name, p::HEADER_NAME_PATTERN)?;
        Ok(HeaderName::validated(s))
    }

    /// [`HeaderName::new`] for a name validation has already accepted (`HeaderName`'s length
    /// and pattern): lower-cased, not checked again.
    pub(crate) fn validated(s: &str) -> HeaderName {
        HeaderName(IrString::ascii_lowercase(s))
    }

    /// The lower-case name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HeaderName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The value of a constructor's result, or `None` with its error recorded at `path`.
pub(crate) fn ok<T>(r: Result<T, ErrorKind>, path: &FieldPath, errors: &mut Errors) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(kind) => {
            errors.push(path.clone(), kind);
            None
        }
    }
}

pub(crate) fn hostnames(list: &[String], base: &FieldPath, errors: &mut Errors) -> Vec<Hostname> {
    let path = base.field("spec").field("hostnames");
    list.iter()
        .enumerate()
        .filter_map(|(i, h)| ok(Hostname::new(h), &path.index(i), errors))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Gateway API hostname wildcards: a wildcard matches one or more labels, never the bare suffix.
    #[test]
    fn wildcard_hostname_matches_one_or_more_labels() {
        let h = Hostname::new("*.example.com").unwrap();
        assert!(h.matches("a.example.com"));
        assert!(h.matches("a.b.example.com"));
        assert!(!h.matches("example.com"));
        assert!(!h.matches("aexample.com"));
        assert!(!h.matches(".example.com"));
        let exact = Hostname::new("example.com").unwrap();
        assert!(exact.matches("example.com"));
        assert!(!exact.matches("a.example.com"));
    }

    #[test]
    fn hostname_rejects_invalid_and_reports_why() {
        assert_eq!(Hostname::new(""), Err(ErrorKind::Required));
        assert_eq!(
            Hostname::new(&"a".repeat(254)),
            Err(ErrorKind::TooLong { max: 253 })
        );
        assert!(matches!(
            Hostname::new("http://a<"),
            Err(ErrorKind::Pattern { .. })
        ));
        assert!(Hostname::new("*").is_err());
    }
}
