//! JSON field paths for error reports.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A JSON field path such as `spec.rules[1].matches[0].path.value`.
///
/// Built by appending fields and indexes; the root is the empty path.
#[derive(
    Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct FieldPath(String);

impl FieldPath {
    /// The empty path (the object itself).
    pub fn root() -> Self {
        FieldPath(String::new())
    }

    /// This path followed by `.name` (or just `name` at the root).
    pub fn field(&self, name: &str) -> Self {
        let mut s = String::with_capacity(self.0.len() + name.len() + 1);
        s.push_str(&self.0);
        if !s.is_empty() {
            s.push('.');
        }
        s.push_str(name);
        FieldPath(s)
    }

    /// This path followed by `[index]`.
    pub fn index(&self, index: usize) -> Self {
        FieldPath(format!("{}[{index}]", self.0))
    }

    /// This path followed by `[key]`, for map entries (`metadata.labels[app]`).
    pub fn key(&self, key: &str) -> Self {
        FieldPath(format!("{}[{key}]", self.0))
    }

    /// The path as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the root path.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("<root>")
        } else {
            f.write_str(&self.0)
        }
    }
}

impl From<&str> for FieldPath {
    fn from(s: &str) -> Self {
        FieldPath(s.to_owned())
    }
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
}
