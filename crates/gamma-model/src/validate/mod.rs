//! Validation: the upstream CRD schema markers and CEL rules, in Rust.
//!
//! Every resource implements [`Validate`]. Validation collects *all* errors, each with the JSON
//! field path of the offending value (`spec.rules[1].matches[0].path.value`), a typed
//! [`ErrorKind`], and a message a person can act on (upstream's own message for CEL rules).
//! Rules that exist only in the experimental CRDs apply under [`Channel::Experimental`];
//! experimental-only *fields* are validated whenever present. `docs/validation.md` maps every
//! upstream rule to the code and lists what is deliberately not checked.
//!
//! ```
//! use gamma_model::validate::{Channel, Validate, ValidateOptions};
//! let route: gamma_model::gateway::HttpRoute = serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "r"},
//!     "spec": {"rules": [{
//!         "matches": [{"path": {"type": "PathPrefix", "value": "/a/.."}}],
//!         "backendRefs": [{"name": "svc", "weight": 1000001}]
//!     }]}
//! })).unwrap();
//! let errors = route.validate().unwrap_err();
//! assert!(errors.has_error_at("spec.rules[0].matches[0].path.value"));   // "must not end with '/..' ..."
//! assert!(errors.has_error_at("spec.rules[0].backendRefs[0]"));          // "Must have port for Service reference"
//! assert!(errors.has_error_at("spec.rules[0].backendRefs[0].weight"));   // 0 to 1,000,000
//! # let _ = ValidateOptions::channel(Channel::Experimental);
//! ```

mod common;
mod configmap;
mod core;
mod endpointslice;
pub mod fields;
pub mod floats;
mod gateway;
mod gateway_tls;
mod grpcroute;
mod httproute;
mod l4route;
pub mod meta;
mod path;
pub mod patterns;
mod policy;
pub mod served;
mod service;
mod status;
pub mod update;
mod xbackend;

pub use common::MAX_TOTAL_MATCHES;
pub use fields::{
    CORE_FIELD_SCHEMA, FieldCheck, FieldValidation, Report, check_fields, validate_checked,
};
pub use path::FieldPath;
pub use status::MAX_STATUS_PARENTS;
pub use update::validate_update;

use std::fmt;

use serde::Serialize;

/// Which upstream release channel's rules to apply.
///
/// The experimental channel adds fields and a few stricter CEL rules (header value patterns,
/// unique rule names, port-aware parentRef uniqueness). Fields that only exist in the experimental
/// channel are validated whenever they are present, whatever the channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[non_exhaustive]
pub enum Channel {
    /// The standard channel CRDs (the default: what most clusters install).
    #[default]
    Standard,
    /// The experimental channel CRDs: every standard rule plus the experimental-only ones.
    Experimental,
}

/// Options for [`Validate::validate_with`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidateOptions {
    /// The channel whose rules apply.
    pub channel: Channel,
    /// What to do with unknown fields ([`validate_checked`]; the typed [`Validate`] never sees
    /// them, since decoding drops them).
    pub field_validation: FieldValidation,
    /// Also refuse header values (matches and header modifiers) that contain CR, LF or NUL
    /// where the channel's CRD admits them ([`ErrorKind::ControlCharacter`]): what an engine
    /// must do, since such a value programmed into a data plane is header injection.
    /// [`validate_checked`] sets it itself and reports these as warnings.
    pub refuse_control_characters: bool,
}

impl ValidateOptions {
    /// Options for the given channel.
    pub fn channel(channel: Channel) -> Self {
        ValidateOptions {
            channel,
            ..ValidateOptions::default()
        }
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
    /// Only with [`ValidateOptions::refuse_control_characters`].
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
fn rule_index(path: &str) -> Option<usize> {
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
pub struct ValidationErrors(Vec<ValidationError>);

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

/// A resource (or part of one) that can be checked against the upstream schema and CEL rules.
pub trait Validate {
    /// Appends every problem found to `errors`, with paths below `path`.
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors);

    /// Validates with explicit options.
    ///
    /// Runs a cheap pass first (detached paths, errors only counted); only an invalid object is
    /// walked again to build the field paths of its errors.
    fn validate_with(&self, opts: &ValidateOptions) -> Result<(), ValidationErrors> {
        let mut probe = Errors::counting();
        self.collect_errors(&FieldPath::detached(), opts, &mut probe);
        if probe.is_empty() {
            return Ok(());
        }
        let mut errors = Errors::default();
        self.collect_errors(&FieldPath::root(), opts, &mut errors);
        errors.into_result()
    }

    /// Validates against the standard channel's rules.
    fn validate(&self) -> Result<(), ValidationErrors> {
        self.validate_with(&ValidateOptions::default())
    }
}

impl Validate for crate::AnyResource {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        self.as_validate().collect_errors(path, opts, errors);
    }
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
    pub fn length(&mut self, path: &FieldPath, value: &str, min: usize, max: usize) -> bool {
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
    pub fn items(&mut self, path: &FieldPath, len: usize, min: usize, max: usize) -> bool {
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
    pub fn range(&mut self, path: &FieldPath, value: i64, min: i64, max: i64) -> bool {
        if value < min || value > max {
            self.push(path.clone(), ErrorKind::OutOfRange { min, max });
            false
        } else {
            true
        }
    }

    /// Checks a string against a pattern predicate, reporting the upstream pattern text.
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

#[cfg(test)]
mod tests {

    #[test]
    fn rule_index_parses_only_rule_paths() {
        assert_eq!(rule_index("spec.rules[3]"), Some(3));
        assert_eq!(rule_index("spec.rules[12].matches[0].path.value"), Some(12));
        assert_eq!(rule_index("spec.rules"), None);
        assert_eq!(rule_index("spec.rules[x]"), None);
        assert_eq!(rule_index("spec.rules[1]x"), None);
        assert_eq!(rule_index("spec.hostnames[0]"), None);
    }
    use super::*;

    #[test]
    fn error_display_is_path_then_message() {
        let p = FieldPath::root()
            .field("spec")
            .field("rules")
            .index(1)
            .field("matches")
            .index(0)
            .field("path")
            .field("value");
        let e = ValidationError::new(
            p,
            ErrorKind::Rule {
                message: "must start with '/'".into(),
            },
        );
        assert_eq!(
            e.to_string(),
            "spec.rules[1].matches[0].path.value: must start with '/'"
        );
    }

    #[test]
    fn length_counts_characters_and_reports_required_for_empty() {
        let mut errs = Errors::default();
        let p = FieldPath::root().field("name");
        assert!(errs.length(&p, "é", 1, 1));
        assert!(!errs.length(&p, "", 1, 5));
        assert!(!errs.length(&p, "abcdef", 1, 5));
        let v = errs.into_result().unwrap_err().into_vec();
        assert_eq!(v[0].kind, ErrorKind::Required);
        assert_eq!(v[1].kind, ErrorKind::TooLong { max: 5 });
    }
}
