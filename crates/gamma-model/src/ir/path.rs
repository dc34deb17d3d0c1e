//! Validated path matches: [`Path`], [`PathPrefix`], [`PathMatch`] (Gateway API HTTPPathMatch).

use crate::ir::IrString;
use std::fmt;

use serde::Serialize;

use crate::validate::ErrorKind;
use crate::validate::patterns as p;

fn check_path(s: &str) -> Result<(), ErrorKind> {
    // a string has at most as many characters as bytes: count them only when it may be over
    if s.len() > 1024 && s.chars().count() > 1024 {
        return Err(ErrorKind::TooLong { max: 1024 });
    }
    match p::http_path_violations(s).first() {
        Some(message) => Err(ErrorKind::Rule {
            message: (*message).to_owned(),
        }),
        None => Ok(()),
    }
}

/// A valid `Exact` path value: starts with `/`, no `//`, no dot segments, no encoded slash, no
/// `#`, only the allowed characters, at most 1024 characters. Compared case-sensitively and
/// byte for byte; a trailing slash is significant.
///
/// ```
/// use gamma_model::ir::Path;
/// let p = Path::new("/abc").unwrap();
/// assert!(p.matches("/abc"));
/// assert!(!p.matches("/abc/"));
/// assert!(Path::new("/a/..").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Path(IrString);

impl Path {
    /// The value as a `String` (a copy when the value is held inline).
    pub fn into_string(self) -> String {
        self.0.into_string()
    }

    /// The value as an [`IrString`] (no copy).
    pub fn into_ir_string(self) -> IrString {
        self.0
    }

    /// Validates an `Exact` path value.
    pub fn new(s: &str) -> Result<Path, ErrorKind> {
        check_path(s)?;
        Ok(Path(IrString::from(s)))
    }

    /// [`Path::new`] for a value validation has already accepted (the `HTTPPathMatch` rules
    /// are the same checks): not checked again.
    pub(crate) fn validated(s: &str) -> Path {
        Path(IrString::from(s))
    }

    /// The path.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the request path equals this path exactly.
    pub fn matches(&self, request_path: &str) -> bool {
        request_path == self.0
    }
}

/// A valid `PathPrefix` value, normalised: a trailing `/` is dropped (except for the root `/`),
/// because upstream ignores it. Matching is by whole path segments.
///
/// ```
/// use gamma_model::ir::PathPrefix;
/// let p = PathPrefix::new("/v2/").unwrap();
/// assert_eq!(p.as_str(), "/v2");
/// assert!(p.matches("/v2"));
/// assert!(p.matches("/v2/"));
/// assert!(p.matches("/v2/example"));
/// assert!(!p.matches("/v2example"));
/// assert!(PathPrefix::new("/").unwrap().matches("/anything"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct PathPrefix(IrString);

impl PathPrefix {
    /// The value as a `String` (a copy when the value is held inline).
    pub fn into_string(self) -> String {
        self.0.into_string()
    }

    /// The value as an [`IrString`] (no copy).
    pub fn into_ir_string(self) -> IrString {
        self.0
    }

    /// Validates a `PathPrefix` value and drops a trailing `/` (keeping the root `/`).
    pub fn new(s: &str) -> Result<PathPrefix, ErrorKind> {
        check_path(s)?;
        Ok(PathPrefix::validated(s))
    }

    /// [`PathPrefix::new`] for a value validation has already accepted: normalised, not
    /// checked again.
    pub(crate) fn validated(s: &str) -> PathPrefix {
        let trimmed = s.strip_suffix('/').filter(|t| !t.is_empty()).unwrap_or(s);
        PathPrefix(IrString::from(trimmed))
    }

    /// The root prefix `/`, which matches every path.
    pub fn root() -> PathPrefix {
        PathPrefix(IrString::from("/"))
    }

    /// The normalised prefix.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the root prefix `/`.
    pub fn is_root(&self) -> bool {
        self.0 == "/"
    }

    /// The number of characters, the precedence key of Gateway API HTTPRouteRule.matches
    /// precedence, longest PathPrefix (after normalisation, so `/foo/` and `/foo` rank equally).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always false: a prefix holds at least `/`. Present for API symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the request path starts with this prefix on a segment boundary.
    pub fn matches(&self, request_path: &str) -> bool {
        if self.is_root() {
            return request_path.starts_with('/');
        }
        match request_path.strip_prefix(self.0.as_str()) {
            Some(rest) => rest.is_empty() || rest.starts_with('/'),
            None => false,
        }
    }
}

/// A path condition with the default applied (`PathPrefix /` when omitted).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", content = "value")]
#[non_exhaustive]
pub enum PathMatch {
    /// The whole path, exactly.
    Exact(Path),
    /// A prefix of whole path segments.
    #[serde(rename = "PathPrefix")]
    Prefix(PathPrefix),
    /// A regular expression (implementation-specific dialect; the text is not compiled here).
    RegularExpression(IrString),
}

impl PathMatch {
    /// `PathPrefix /`, the default.
    pub fn root() -> PathMatch {
        PathMatch::Prefix(PathPrefix::root())
    }
}

impl Default for PathMatch {
    fn default() -> Self {
        PathMatch::root()
    }
}

impl fmt::Display for PathMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathMatch::Exact(p) => write!(f, "Exact {}", p.as_str()),
            PathMatch::Prefix(p) => write!(f, "PathPrefix {}", p.as_str()),
            PathMatch::RegularExpression(r) => write!(f, "RegularExpression {r}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Gateway API HTTPPathMatch: conformance vectors of httproute-matching.go.
    #[test]
    fn prefix_matches_whole_segments_only() {
        let p = PathPrefix::new("/v2").unwrap();
        for ok in ["/v2", "/v2/", "/v2/example"] {
            assert!(p.matches(ok), "{ok}");
        }
        for no in ["/v2example", "/foo/v2/example", "/", "/v"] {
            assert!(!p.matches(no), "{no}");
        }
    }

    // Gateway API HTTPPathMatch: a trailing slash on a prefix is ignored; on Exact it is
    // significant.
    #[test]
    fn trailing_slash_is_dropped_from_prefixes_but_kept_on_exact() {
        assert_eq!(PathPrefix::new("/match/").unwrap().as_str(), "/match");
        assert!(PathPrefix::new("/match/").unwrap().matches("/match"));
        assert_eq!(PathPrefix::new("/").unwrap().as_str(), "/");
        assert!(!Path::new("/abc").unwrap().matches("/Abc"));
        assert_eq!(Path::new("/abc/").unwrap().as_str(), "/abc/");
    }

    #[test]
    fn invalid_values_are_rejected_with_upstream_messages() {
        for bad in ["", "a", "/a//b", "/a/..", "/a/.", "/%2f", "/#", "/[]"] {
            assert!(PathPrefix::new(bad).is_err(), "{bad}");
            assert!(Path::new(bad).is_err(), "{bad}");
        }
        assert!(Path::new(&format!("/{}", "a".repeat(1024))).is_err());
    }
}
