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
mod defaults;
mod endpointslice;
pub(crate) mod error;
pub(crate) mod fields;
pub mod floats;
mod gateway;
mod gateway_tls;
mod grpcroute;
mod httproute;
mod kinds;
mod l4route;
pub mod meta;
mod options;
mod path;
pub mod patterns;
mod policy;
mod release;
pub mod served;
mod service;
mod status;
pub(crate) mod traits;
mod update;
mod xauthz;
mod xbackend;
mod xtelemetry;

pub use by_release::{FIELD_SPANS, FieldSpan, STANDARD_SINCE};
pub use common::MAX_TOTAL_MATCHES;
pub use defaults::{CRD_DEFAULTS, CrdDefault, apply_defaults};
pub use error::{ErrorKind, Errors};
pub use fields::{
    CORE_FIELD_SCHEMA, EXPERIMENTAL_ONLY, FieldCheck, OBJECT_META_FIELDS, Report, check_fields,
    validate_checked,
};
pub use kinds::KindBundles;
pub use options::{FieldValidation, ValidateOptions};
pub use path::FieldPath;
pub use release::{
    AnnotationProblem, BUNDLE_VERSION_ANNOTATION, Bundle, BundleAnnotationError,
    CHANNEL_ANNOTATION, Channel, Release, UnsupportedRelease,
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
