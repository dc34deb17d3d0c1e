//! The result of validation: [`ValidationError`] (one field path and what is wrong there) and
//! [`ValidationErrors`] (all of one object's, never empty). Exported at the crate root.

use std::fmt;

use serde::Serialize;

use super::{ErrorKind, FieldPath, httproute};

/// One validation failure: where, and what.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error, Serialize)]
#[error("{path}: {kind}")]
pub struct ValidationError {
    /// The JSON field path, e.g. `spec.rules[1].matches[0].path.value`.
    pub path: FieldPath,
    /// What is wrong.
    pub kind: ErrorKind,
}

impl ValidationError {
    /// A new error at `path`.
    pub fn new(path: FieldPath, kind: ErrorKind) -> Self {
        ValidationError { path, kind }
    }

    /// Whether this error is an unknown enum value (maps to condition reason `UnsupportedValue`).
    pub fn is_unsupported_value(&self) -> bool {
        matches!(self.kind, ErrorKind::UnsupportedValue { .. })
    }

    /// Whether this error is one of the CEL rules on combinations of filters (a
    /// `RequestRedirect` with a `URLRewrite`, or with backendRefs): a route condition caused by
    /// it has reason `IncompatibleFilters` (Gateway API HTTPRouteRule.filters: "In cases where
    /// incompatible or unsupported filters are specified and cause the `Accepted` condition to
    /// be set to status `False`, implementations may use the `IncompatibleFilters` reason").
    pub fn is_incompatible_filters(&self) -> bool {
        match &self.kind {
            ErrorKind::Rule { message } => {
                message == httproute::REDIRECT_AND_REWRITE
                    || message == httproute::REDIRECT_WITH_BACKENDS
            }
            _ => false,
        }
    }

    /// `Some(i)` when the error lies in route rule `i` (its path is `spec.rules[i]` or below
    /// it): the rule to drop from a partially invalid route (Gateway API HTTPRouteRule: an
    /// invalid rule makes only that rule invalid). `None` for errors of the route as a whole.
    /// The one reader of rule indexes in field paths; engines use it rather than parsing paths.
    pub fn rule_index(&self) -> Option<usize> {
        rule_index(self.path.as_str())
    }
}

/// `Some(i)` when `path` is `spec.rules[i]` or below it.
pub(super) fn rule_index(path: &str) -> Option<usize> {
    let rest = path.strip_prefix("spec.rules[")?;
    let end = rest.find(']')?;
    let index = rest.get(..end)?.parse().ok()?;
    match rest.get(end + 1..)?.bytes().next() {
        None | Some(b'.') | Some(b'[') => Some(index),
        Some(_) => None,
    }
}

/// All validation failures of one object, in the order the fields were visited. Never empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(transparent)]
pub struct ValidationErrors(pub(super) Vec<ValidationError>);

impl ValidationErrors {
    /// Wraps a non-empty list of errors; `None` when the list is empty.
    pub fn from_vec(errors: Vec<ValidationError>) -> Option<Self> {
        (!errors.is_empty()).then_some(ValidationErrors(errors))
    }

    /// A list holding one error.
    pub fn single(error: ValidationError) -> Self {
        ValidationErrors(vec![error])
    }

    /// The individual errors.
    pub fn errors(&self) -> &[ValidationError] {
        &self.0
    }

    /// The number of errors (at least one).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always false: a `ValidationErrors` holds at least one error. Present for API symmetry.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Consumes into the list of errors.
    pub fn into_vec(self) -> Vec<ValidationError> {
        self.0
    }

    /// Whether any error is at `path` exactly.
    pub fn has_error_at(&self, path: &str) -> bool {
        self.0.iter().any(|e| e.path.as_str() == path)
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl IntoIterator for ValidationErrors {
    type Item = ValidationError;
    type IntoIter = std::vec::IntoIter<ValidationError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a ValidationErrors {
    type Item = &'a ValidationError;
    type IntoIter = std::slice::Iter<'a, ValidationError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::rule_index;

    #[test]
    fn rule_index_parses_only_rule_paths() {
        assert_eq!(rule_index("spec.rules[3]"), Some(3));
        assert_eq!(rule_index("spec.rules[12].matches[0].path.value"), Some(12));
        assert_eq!(rule_index("spec.rules"), None);
        assert_eq!(rule_index("spec.rules[x]"), None);
        assert_eq!(rule_index("spec.rules[1]x"), None);
        assert_eq!(rule_index("spec.hostnames[0]"), None);
    }
}
