//! The result of validation: [`ValidationError`] (one field path and what is wrong there) and
//! [`ValidationErrors`] (all of one object's, never empty). Exported at the crate root.

use std::fmt;

use serde::Serialize;

use super::FieldPath;

/// The CEL rule on `HTTPRouteRule`: a redirect answers, so it cannot go with backends.
pub(crate) const REDIRECT_WITH_BACKENDS: &str =
    "RequestRedirect filter must not be used together with backendRefs";
/// The CEL rule on HTTPRoute filter lists: a redirect and a rewrite exclude each other.
pub(crate) const REDIRECT_AND_REWRITE: &str = "May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both";

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
                message == REDIRECT_AND_REWRITE || message == REDIRECT_WITH_BACKENDS
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

/// What is wrong with a value. The `Display` text is the message shown after the field path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum ErrorKind {
    /// A required field is missing or empty.
    #[error("required value")]
    Required,
    /// A string is longer than the schema allows.
    #[error("must be at most {max} characters long")]
    TooLong {
        /// The maximum length.
        max: usize,
    },
    /// A string is shorter than the schema allows.
    #[error("must be at least {min} characters long")]
    TooShort {
        /// The minimum length.
        min: usize,
    },
    /// A list has more items than the schema allows.
    #[error("must have at most {max} items")]
    TooMany {
        /// The maximum number of items.
        max: usize,
    },
    /// A list has fewer items than the schema allows.
    #[error("must have at least {min} items")]
    TooFew {
        /// The minimum number of items.
        min: usize,
    },
    /// A number is outside the allowed range.
    #[error("must be between {min} and {max} inclusive")]
    OutOfRange {
        /// The smallest allowed value.
        min: i64,
        /// The largest allowed value.
        max: i64,
    },
    /// A string does not match the schema's pattern.
    #[error("must match the pattern {pattern}")]
    Pattern {
        /// The upstream regular expression.
        pattern: &'static str,
    },
    /// An enum value outside the supported set (upstream condition reason `UnsupportedValue`).
    #[error("unsupported value {value:?}; supported values: {supported}")]
    UnsupportedValue {
        /// The value found.
        value: String,
        /// The supported values, comma separated.
        supported: String,
    },
    /// A value that must be unique appears more than once.
    #[error("duplicate value {value:?}")]
    Duplicate {
        /// The repeated value (or key).
        value: String,
    },
    /// A field that must be empty in this context is set (union discipline).
    #[error("must not be set{}", if .reason.is_empty() { String::new() } else { format!(": {}", .reason) })]
    Forbidden {
        /// Why it must not be set.
        reason: String,
    },
    /// The channel does not serve the object's `apiVersion` (the API server answers 404).
    #[error("{message}")]
    NotServed {
        /// Which channel serves it instead, or that none does.
        message: String,
    },
    /// A field no schema of the object's kind (on the chosen channel) declares.
    #[error("unknown field (not declared in the schema)")]
    UnknownField,
    /// A header value with CR, LF or NUL where the CRD admits one (the standard channel; gRPC
    /// header matches on both): valid for the API server, never programmed by gamma-rs, since
    /// it would inject headers (RFC 9110 section 5.5: field values never contain CR, LF or NUL).
    /// Only with [`ValidateOptions::refuse_control_characters`](super::ValidateOptions::refuse_control_characters).
    #[error(
        "contains CR, LF or NUL: such a header value is never programmed (header injection; RFC 9110 section 5.5)"
    )]
    ControlCharacter,
    /// A value of the wrong JSON type that typing cannot see: a list where the schema has an
    /// object (serde reads an empty list as a struct with every field absent; the API server
    /// refuses it as `must be of type object`).
    #[error("must be of type {expected}")]
    WrongType {
        /// The schema's type.
        expected: &'static str,
    },
    /// A cross-field (CEL) rule failed; the message is upstream's.
    #[error("{message}")]
    Rule {
        /// The upstream rule message.
        message: String,
    },
}

/// An error collector with the checks the schema markers need.
#[derive(Debug, Default)]
pub struct Errors {
    list: Vec<ValidationError>,
    /// In counting mode errors are counted, not stored (see [`Errors::counting`]).
    counting: bool,
    count: usize,
}

impl Errors {
    /// A collector that only counts errors: for a first pass with [`FieldPath::detached`] that
    /// answers "is anything wrong?" without building paths or storing errors.
    pub fn counting() -> Self {
        Errors {
            counting: true,
            ..Errors::default()
        }
    }

    /// Records an error.
    pub fn push(&mut self, path: FieldPath, kind: ErrorKind) {
        self.count += 1;
        if !self.counting {
            self.list.push(ValidationError { path, kind });
        }
    }

    /// Records a failed cross-field (CEL) rule with upstream's message.
    pub fn rule(&mut self, path: FieldPath, message: impl Into<String>) {
        self.push(
            path,
            ErrorKind::Rule {
                message: message.into(),
            },
        );
    }

    /// Whether nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The number of errors recorded (also in counting mode).
    pub fn len(&self) -> usize {
        self.count
    }

    /// The errors recorded so far.
    pub fn as_slice(&self) -> &[ValidationError] {
        &self.list
    }

    /// Consumes the collector into the list of errors recorded (possibly empty).
    pub fn into_vec(self) -> Vec<ValidationError> {
        self.list
    }

    /// `Ok` when nothing was recorded.
    ///
    /// A counting collector has no errors to return; it reports how many there were in a single
    /// error at the root.
    pub fn into_result(self) -> Result<(), ValidationErrors> {
        if self.count == 0 {
            Ok(())
        } else if self.list.is_empty() {
            Err(ValidationErrors(vec![ValidationError {
                path: FieldPath::root(),
                kind: ErrorKind::Rule {
                    message: format!("{} validation errors (not recorded)", self.count),
                },
            }]))
        } else {
            Err(ValidationErrors(self.list))
        }
    }

    /// Checks a string's length in characters (the CRDs count Unicode code points).
    #[inline]
    pub fn length(&mut self, path: &FieldPath, value: &str, min: usize, max: usize) -> bool {
        // a string has at most as many characters as bytes: within `max` bytes and not empty,
        // it is within bounds up to a minimum of one without counting (names, paths, values).
        // This answers nearly every call, inlined; the count is out of line.
        if value.len() <= max && (min == 0 || (min == 1 && !value.is_empty())) {
            return true;
        }
        self.counted_length(path, value, min, max)
    }

    /// [`Errors::length`] by counting characters.
    fn counted_length(&mut self, path: &FieldPath, value: &str, min: usize, max: usize) -> bool {
        let n = value.chars().count();
        if n < min {
            if min == 1 && n == 0 {
                self.push(path.clone(), ErrorKind::Required);
            } else {
                self.push(path.clone(), ErrorKind::TooShort { min });
            }
            false
        } else if n > max {
            self.push(path.clone(), ErrorKind::TooLong { max });
            false
        } else {
            true
        }
    }

    /// Checks the number of items in a list.
    #[inline]
    pub fn items(&mut self, path: &FieldPath, len: usize, min: usize, max: usize) -> bool {
        // inlined: nearly every list is within bounds (three or four per route rule); the
        // report is out of line
        if (min..=max).contains(&len) {
            return true;
        }
        self.wrong_items(path, len, min, max)
    }

    /// [`Errors::items`] of a list out of bounds (or of bounds with `min > max`).
    fn wrong_items(&mut self, path: &FieldPath, len: usize, min: usize, max: usize) -> bool {
        if len < min {
            self.push(path.clone(), ErrorKind::TooFew { min });
            false
        } else if len > max {
            self.push(path.clone(), ErrorKind::TooMany { max });
            false
        } else {
            true
        }
    }

    /// Checks that a number lies in `[min, max]`.
    #[inline]
    pub fn range(&mut self, path: &FieldPath, value: i64, min: i64, max: i64) -> bool {
        if value < min || value > max {
            self.out_of_range(path, min, max);
            false
        } else {
            true
        }
    }

    /// Reports a number outside `[min, max]`.
    fn out_of_range(&mut self, path: &FieldPath, min: i64, max: i64) {
        self.push(path.clone(), ErrorKind::OutOfRange { min, max });
    }

    /// Checks a string against a pattern predicate, reporting the upstream pattern text.
    #[inline]
    pub fn pattern(
        &mut self,
        path: &FieldPath,
        value: &str,
        ok: fn(&str) -> bool,
        pattern: &'static str,
    ) -> bool {
        if ok(value) {
            true
        } else {
            self.push(path.clone(), ErrorKind::Pattern { pattern });
            false
        }
    }

    /// Reports an unknown enum value (`UnsupportedValue`).
    pub fn unsupported(&mut self, path: &FieldPath, value: &str, known: &[&str]) {
        self.push(
            path.clone(),
            ErrorKind::UnsupportedValue {
                value: value.to_owned(),
                supported: known.join(", "),
            },
        );
    }
}
