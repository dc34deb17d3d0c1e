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
#[derive(Clone)]
pub struct FieldPath {
    /// The text; `None` for a detached path. A detached path is built and dropped dozens of
    /// times per route rule on every validation of a valid route: as `None` it is one word
    /// written (the `String` capacity's niche) where a `String` and a flag were four.
    text: Option<String>,
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
        FieldPath { text: None }
    }

    /// Whether this path was built from [`FieldPath::detached`].
    #[inline]
    pub fn is_detached(&self) -> bool {
        self.text.is_none()
    }

    /// This path followed by `.name` (or just `name` at the root).
    #[inline]
    pub fn field(&self, name: &str) -> Self {
        // inlined: validation of a valid object extends detached paths only, dozens of
        // times per rule; the text is built out of line
        match &self.text {
            None => FieldPath::detached(),
            Some(text) => Self::with_field(text, name),
        }
    }

    fn with_field(text: &str, name: &str) -> Self {
        let mut s = String::with_capacity(text.len() + name.len() + 1);
        s.push_str(text);
        if !s.is_empty() {
            s.push('.');
        }
        s.push_str(name);
        FieldPath { text: Some(s) }
    }

    /// This path followed by `[index]`.
    #[inline]
    pub fn index(&self, index: usize) -> Self {
        match &self.text {
            None => FieldPath::detached(),
            Some(text) => Self::with_index(text, index),
        }
    }

    fn with_index(text: &str, index: usize) -> Self {
        FieldPath {
            text: Some(format!("{text}[{index}]")),
        }
    }

    /// This path followed by `[key]`, for map entries (`metadata.labels[app]`).
    #[inline]
    pub fn key(&self, key: &str) -> Self {
        match &self.text {
            None => FieldPath::detached(),
            Some(text) => FieldPath {
                text: Some(format!("{text}[{key}]")),
            },
        }
    }

    /// The path as text (empty for a detached path).
    pub fn as_str(&self) -> &str {
        self.text.as_deref().unwrap_or("")
    }

    /// Whether this is the root path.
    pub fn is_root(&self) -> bool {
        self.as_str().is_empty()
    }

    /// The fields the comparisons, the hash and `Debug` read: those of the earlier
    /// representation (the text, then whether the path is detached), so that none of them
    /// changed with it.
    fn key_fields(&self) -> (&str, bool) {
        (self.as_str(), self.is_detached())
    }
}

/// The root path, as the derived `Default` of the earlier representation was.
impl Default for FieldPath {
    fn default() -> Self {
        FieldPath {
            text: Some(String::new()),
        }
    }
}

impl PartialEq for FieldPath {
    fn eq(&self, other: &Self) -> bool {
        self.key_fields() == other.key_fields()
    }
}

impl Eq for FieldPath {}

impl std::hash::Hash for FieldPath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // as derived over `text: String, detached: bool` (a `String` hashes as its `str`)
        let (text, detached) = self.key_fields();
        text.hash(state);
        detached.hash(state);
    }
}

impl PartialOrd for FieldPath {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FieldPath {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key_fields().cmp(&other.key_fields())
    }
}

impl fmt::Debug for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (text, detached) = self.key_fields();
        f.debug_struct("FieldPath")
            .field("text", &text)
            .field("detached", &detached)
            .finish()
    }
}

impl Serialize for FieldPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FieldPath {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|text| FieldPath { text: Some(text) })
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
        if self.is_root() {
            f.write_str("<root>")
        } else {
            f.write_str(self.as_str())
        }
    }
}

impl From<&str> for FieldPath {
    fn from(s: &str) -> Self {
        FieldPath {
            text: Some(s.to_owned()),
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

    /// The representation before paths held `Option<String>`, with its derived traits.
    #[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
    struct OldFieldPath {
        text: String,
        detached: bool,
    }

    fn old(p: &FieldPath) -> OldFieldPath {
        OldFieldPath {
            text: p.as_str().to_owned(),
            detached: p.is_detached(),
        }
    }

    fn hash_of(v: &impl std::hash::Hash) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(v)
    }

    /// Equality, order, hash, `Debug` and `Default` are those the derived traits of the
    /// earlier representation gave, detached paths included.
    #[test]
    fn traits_agree_with_the_earlier_representation() {
        let paths = [
            FieldPath::root(),
            FieldPath::default(),
            FieldPath::detached(),
            FieldPath::detached().field("a"),
            FieldPath::root().field("a"),
            FieldPath::root().field("a").index(0),
            FieldPath::root().field("b"),
            FieldPath::from(""),
            FieldPath::from("a.b[1]"),
            FieldPath::root().key("k"),
        ];
        assert_eq!(old(&FieldPath::default()), OldFieldPath::default());
        for a in &paths {
            let named = |d: String| d.replacen("OldFieldPath", "FieldPath", 1);
            assert_eq!(format!("{a:?}"), named(format!("{:?}", old(a))));
            assert_eq!(format!("{a:#?}"), named(format!("{:#?}", old(a))));
            assert_eq!(hash_of(a), hash_of(&old(a)));
            for b in &paths {
                assert_eq!(a == b, old(a) == old(b), "{a:?} == {b:?}");
                assert_eq!(a.cmp(b), old(a).cmp(&old(b)), "{a:?} cmp {b:?}");
                assert_eq!(a.partial_cmp(b), old(a).partial_cmp(&old(b)));
            }
        }
    }
}
