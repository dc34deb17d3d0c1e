//! Validation: the upstream CRD schema markers and CEL rules, in Rust.
//!
//! Every resource implements [`Validate`] (at the crate root, with [`ValidationError`] and
//! [`ValidationErrors`]; this module holds the rest). Validation collects *all* errors, each
//! with the JSON field path of the offending value (`spec.rules[1].matches[0].path.value`), a typed
//! [`ErrorKind`], and a message a person can act on (upstream's own message for CEL rules).
//! Rules that exist only in the experimental CRDs apply under [`Channel::Experimental`];
//! experimental-only *fields* are validated whenever present. `docs/validation.md` maps every
//! upstream rule to the code and lists what is deliberately not checked.
//!
//! Field presence, as the API server sees it before any typed check: [`check_fields`] walks the
//! untyped document for unknown, missing required and experimental-only
//! ([`EXPERIMENTAL_ONLY`]) fields, and [`validate_checked`] merges that record with the typed
//! validation into a [`Report`], by channel and [`FieldValidation`] mode. Updates:
//! [`validate_update`] adds the CRDs' transition rules ([`TRANSITION_RULES`]), which need the
//! stored object beside the new one.
//!
//! ```
//! use gamma_model::Validate;
//! use gamma_model::validate::{Channel, ValidateOptions};
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

mod by_release;
mod common;
mod configmap;
mod core;
mod endpointslice;
pub(crate) mod error;
pub(crate) mod fields;
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
mod release;
pub mod served;
mod service;
mod status;
pub(crate) mod traits;
mod update;
mod xbackend;

pub use by_release::{FIELD_SPANS, FieldSpan, STANDARD_SINCE};
pub use common::MAX_TOTAL_MATCHES;
pub use fields::{
    CORE_FIELD_SCHEMA, EXPERIMENTAL_ONLY, FieldCheck, FieldValidation, OBJECT_META_FIELDS, Report,
    check_fields, validate_checked,
};
pub use path::FieldPath;
pub use release::{
    BUNDLE_VERSION_ANNOTATION, Bundle, CHANNEL_ANNOTATION, Release, UnsupportedRelease,
};
pub use status::MAX_STATUS_PARENTS;
pub use update::{
    TRANSITION_RULES, add_transition_errors, immutable_message, transition_errors,
    transition_errors_under, validate_update,
};

// The crate root's surface (`gamma_model::{Validate, ValidationError, ValidationErrors}`):
// defined here, exported only there, so each has one public path.
pub(crate) use error::{ValidationError, ValidationErrors};
pub(crate) use traits::Validate;

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
    /// The Gateway API release whose CRDs apply (default: the newest). Served versions,
    /// the fields each channel declares and the rules that changed follow it.
    pub release: Release,
    /// What to do with unknown fields ([`validate_checked`]; the typed [`Validate`] never sees
    /// them, since decoding drops them).
    pub field_validation: FieldValidation,
    /// Also refuse header values (matches and header modifiers) that contain CR, LF or NUL
    /// where the channel's CRD admits them ([`ErrorKind::ControlCharacter`]): what an engine
    /// must do, since such a value programmed into a data plane is header injection.
    /// [`validate_checked`] sets it itself and reports these as warnings.
    pub refuse_control_characters: bool,
}

impl Channel {
    /// The channel as the CRDs' `gateway.networking.k8s.io/channel` annotation writes it:
    /// `standard` or `experimental`.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Standard => "standard",
            Channel::Experimental => "experimental",
        }
    }
}

impl ValidateOptions {
    /// Options for the given channel.
    pub fn channel(channel: Channel) -> Self {
        ValidateOptions {
            channel,
            ..ValidateOptions::default()
        }
    }

    /// Options for the CRDs of `bundle` (a release and a channel).
    ///
    /// ```
    /// use gamma_model::validate::{Bundle, Channel, Release, ValidateOptions};
    /// let opts = ValidateOptions::bundle(Bundle::new(Release::V1_6, Channel::Standard));
    /// assert_eq!((opts.release, opts.channel), (Release::V1_6, Channel::Standard));
    /// ```
    pub fn bundle(bundle: Bundle) -> Self {
        ValidateOptions {
            channel: bundle.channel,
            release: bundle.release,
            ..ValidateOptions::default()
        }
    }

    /// The bundle these options validate against.
    pub fn as_bundle(&self) -> Bundle {
        Bundle::new(self.release, self.channel)
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

    // The byte-length shortcut must agree with counting characters at every bound.
    #[test]
    fn length_bounds_agree_with_character_counts() {
        let p = FieldPath::root().field("v");
        let values = [
            "",
            "a",
            "ab",
            "abc",
            "é",
            "éé",
            "ééé",
            "aé",
            "日本",
            "日本語x",
        ];
        for v in values {
            let n = v.chars().count();
            for min in 0..4 {
                for max in 0..8 {
                    let mut errs = Errors::default();
                    let ok = errs.length(&p, v, min, max);
                    assert_eq!(ok, (min..=max).contains(&n), "{v:?} in {min}..={max}");
                    assert_eq!(errs.is_empty(), ok, "{v:?} in {min}..={max}");
                }
            }
        }
    }
}
