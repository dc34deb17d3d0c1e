//! JSON field paths for error reports.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A JSON field path such as `spec.rules[1].matches[0].path.value`.
///
/// Built by appending fields and indexes; the root is the empty path.
///
/// A path can also be *detached* ([`FieldPath::detached`]): extending it allocates nothing and
/// yields another detached path. Validation first runs with a detached path and a counting
/// [`Errors`](super::Errors) collector, so that the common case, a valid object, builds no path
/// strings at all; only when something is wrong does it run again with real paths.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldPath {
    text: String,
    detached: bool,
}

impl FieldPath {
    /// The empty path (the object itself).
    pub fn root() -> Self {
        FieldPath::default()
    }

    /// A path that records nothing: extending it is free. Errors reported at it have an empty
    /// path; use it only to find out *whether* something is wrong.
    #[inline]
    pub fn detached() -> Self {
        FieldPath {
            text: String::new(),
            detached: true,
        }
    }

    /// Whether this path was built from [`FieldPath::detached`].
    pub fn is_detached(&self) -> bool {
        self.detached
    }

    /// This path followed by `.name` (or just `name` at the root).
    #[inline]
    pub fn field(&self, name: &str) -> Self {
        // inlined: validation of a valid object extends detached paths only, dozens of
        // times per rule; the text is built out of line
        if self.detached {
            return FieldPath::detached();
        }
        self.with_field(name)
    }

    fn with_field(&self, name: &str) -> Self {
        let mut s = String::with_capacity(self.text.len() + name.len() + 1);
        s.push_str(&self.text);
        if !s.is_empty() {
            s.push('.');
        }
        s.push_str(name);
        FieldPath {
            text: s,
            detached: false,
        }
    }

    /// This path followed by `[index]`.
    #[inline]
    pub fn index(&self, index: usize) -> Self {
        if self.detached {
            return FieldPath::detached();
        }
        self.with_index(index)
    }

    fn with_index(&self, index: usize) -> Self {
        FieldPath {
            text: format!("{}[{index}]", self.text),
            detached: false,
        }
    }

    /// This path followed by `[key]`, for map entries (`metadata.labels[app]`).
    #[inline]
    pub fn key(&self, key: &str) -> Self {
        if self.detached {
            return FieldPath::detached();
        }
        FieldPath {
            text: format!("{}[{key}]", self.text),
            detached: false,
        }
    }

    /// The path as text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether this is the root path.
    pub fn is_root(&self) -> bool {
        self.text.is_empty()
    }
}

impl Serialize for FieldPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for FieldPath {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|text| FieldPath {
            text,
            detached: false,
        })
    }
}

impl JsonSchema for FieldPath {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FieldPath".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.text.is_empty() {
            f.write_str("<root>")
        } else {
            f.write_str(&self.text)
        }
    }
}

impl From<&str> for FieldPath {
    fn from(s: &str) -> Self {
        FieldPath {
            text: s.to_owned(),
            detached: false,
        }
    }
}

/// Appends field `name` to a path or shape text (`a` at the root, `.a` below it), as
/// [`FieldPath::field`] does.
pub(crate) fn push_field(text: &mut String, name: &str) {
    if !text.is_empty() {
        text.push('.');
    }
    text.push_str(name);
}

/// Appends `[index]` to a path text, as [`FieldPath::index`] does.
pub(crate) fn push_index(text: &mut String, index: usize) {
    use std::fmt::Write;
    // writing into a String cannot fail
    let _ = write!(text, "[{index}]");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_compose_fields_indexes_and_keys() {
        let p = FieldPath::root().field("spec").field("rules").index(3);
        assert_eq!(p.as_str(), "spec.rules[3]");
        assert_eq!(
            FieldPath::root()
                .field("metadata")
                .field("labels")
                .key("app")
                .as_str(),
            "metadata.labels[app]"
        );
        assert_eq!(FieldPath::root().to_string(), "<root>");
    }

    #[test]
    fn detached_paths_stay_detached_and_empty() {
        let p = FieldPath::detached().field("spec").index(3).key("k");
        assert!(p.is_detached());
        assert_eq!(p.as_str(), "");
        assert!(!FieldPath::root().field("a").is_detached());
    }
}
