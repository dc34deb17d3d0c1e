//! Path modifiers shared by `URLRewrite` and `RequestRedirect` (Gateway API
//! HTTPRequestRedirectFilter and HTTPURLRewriteFilter).
//!
//! The rewritten path is represented as two borrowed pieces (`head` from the route table,
//! `tail` from the request) so that computing it on the resolve path allocates nothing;
//! [`RewrittenPath`] implements `Display` and `to_string()` gives the owned form.

use std::fmt;

use serde::{Serialize, Serializer};

use crate::path::normalize_prefix;

/// A compiled path modifier (`HTTPPathModifier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathModifier<'t> {
    /// `ReplaceFullPath`: the whole path becomes this value.
    ReplaceFullPath(&'t str),
    /// `ReplacePrefixMatch`: the part of the path matched by the rule's single `PathPrefix`
    /// match (`matched_prefix`, as configured) is replaced by `replacement`.
    ReplacePrefixMatch {
        /// The `PathPrefix` value of the rule's only match.
        matched_prefix: &'t str,
        /// The configured `replacePrefixMatch` (may be empty).
        replacement: &'t str,
    },
}

/// A path computed from a request path and a modifier, without allocating: `head` followed
/// by `tail`, or `/` when both are empty. Never contains a `//` that the request did not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RewrittenPath<'a> {
    head: &'a str,
    tail: &'a str,
}

impl<'a> RewrittenPath<'a> {
    /// The unchanged request path.
    pub fn unchanged(path: &'a str) -> Self {
        Self {
            head: path,
            tail: "",
        }
    }

    /// Applies `modifier` to the request `path` (Gateway API HTTPPathModifier.replacePrefixMatch).
    /// For `ReplacePrefixMatch`, a path that does not actually start with the prefix (cannot happen
    /// after a match) is left unchanged.
    // Never inlined: the compiler once inlined it into the resolve path's decision builder,
    // whose larger frame cost every forwarded request ~11 instructions (callgrind), while only
    // rules with a path rewrite or redirect call it.
    #[inline(never)]
    pub fn apply(modifier: PathModifier<'a>, path: &'a str) -> Self {
        match modifier {
            PathModifier::ReplaceFullPath(full) => Self {
                head: full,
                tail: "",
            },
            PathModifier::ReplacePrefixMatch {
                matched_prefix,
                replacement,
            } => {
                let prefix = normalize_prefix(matched_prefix);
                match path.strip_prefix(prefix) {
                    Some(rest) if rest.is_empty() || rest.starts_with('/') => Self {
                        // a trailing `/` of the replacement is dropped: the rest of the path
                        // supplies the separator, so the result never gains a `//`.
                        head: replacement.trim_end_matches('/'),
                        tail: rest,
                    },
                    _ => Self::unchanged(path),
                }
            }
        }
    }

    /// Length in bytes of the rendered path.
    pub fn len(&self) -> usize {
        match self.head.len() + self.tail.len() {
            0 => 1,
            n => n,
        }
    }

    /// Always false: an empty result renders as `/`.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Compares the rendered path with `s` without allocating.
    pub fn eq_str(&self, s: &str) -> bool {
        if self.head.is_empty() && self.tail.is_empty() {
            return s == "/";
        }
        s.len() == self.head.len() + self.tail.len()
            && s.starts_with(self.head)
            && s.ends_with(self.tail)
    }
}

impl fmt::Display for RewrittenPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.head.is_empty() && self.tail.is_empty() {
            return f.write_str("/");
        }
        // A replacement without a leading `/` (validation requires one for full paths) still
        // yields an absolute path when the request contributes the tail.
        f.write_str(self.head)?;
        f.write_str(self.tail)
    }
}

impl Serialize for RewrittenPath<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl schemars::JsonSchema for RewrittenPath<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RewrittenPath".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix(path: &str, matched: &str, repl: &str) -> String {
        RewrittenPath::apply(
            PathModifier::ReplacePrefixMatch {
                matched_prefix: matched,
                replacement: repl,
            },
            path,
        )
        .to_string()
    }

    // Gateway API HTTPPathModifier.replacePrefixMatch: every row, never `//`, empty -> `/`.
    #[test]
    fn replace_prefix_match_follows_the_spec_table() {
        let table = [
            ("/foo/bar", "/foo", "/xyz", "/xyz/bar"),
            ("/foo/bar", "/foo", "/xyz/", "/xyz/bar"),
            ("/foo/bar", "/foo/", "/xyz", "/xyz/bar"),
            ("/foo/bar", "/foo/", "/xyz/", "/xyz/bar"),
            ("/foo", "/foo", "/xyz", "/xyz"),
            ("/foo/", "/foo", "/xyz", "/xyz/"),
            ("/foo/bar", "/foo", "", "/bar"),
            ("/foo/", "/foo", "", "/"),
            ("/foo", "/foo", "", "/"),
            ("/foo/", "/foo", "/", "/"),
            ("/foo", "/foo", "/", "/"),
        ];
        for (req, m, r, want) in table {
            let got = prefix(req, m, r);
            assert_eq!(got, want, "request {req} prefix {m} replacement {r:?}");
            assert!(!got.contains("//"));
            let rp = RewrittenPath::apply(
                PathModifier::ReplacePrefixMatch {
                    matched_prefix: m,
                    replacement: r,
                },
                req,
            );
            assert!(rp.eq_str(want));
            assert_eq!(rp.len(), want.len());
        }
    }

    #[test]
    fn replace_prefix_match_root_prefix_prepends_replacement() {
        assert_eq!(prefix("/a/b", "/", "/x"), "/x/a/b");
        assert_eq!(prefix("/", "/", "/x"), "/x/");
        assert_eq!(prefix("/a", "/", ""), "/a");
    }

    // Gateway API HTTPRequestRedirectFilter: ReplaceFullPath replaces the whole path, keeping a
    // configured trailing slash.
    #[test]
    fn replace_full_path_replaces_everything() {
        let p = RewrittenPath::apply(PathModifier::ReplaceFullPath("/new/"), "/old/x");
        assert_eq!(p.to_string(), "/new/");
        assert!(!p.eq_str("/new"));
    }
}
