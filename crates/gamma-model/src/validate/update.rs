//! Updates: the CRDs' transition rules (`x-kubernetes-validations` that read `oldSelf`), which
//! need the stored object beside the new one.
//!
//! The API server evaluates a transition rule only when the field exists in both versions
//! (k8s.io/apiextensions-apiserver, CEL validation with `oldSelf`); a create has no old
//! object, so these rules never apply to one. Every transition rule of the supported releases'
//! CRDs is listed in [`TRANSITION_RULES`] (v1.7's messages; v1.5 and v1.6 said "Value is
//! immutable" where v1.7 says "field is immutable"); `tests/update_rules.rs` derives that list
//! from every release's CRDs.

use super::{ErrorKind, FieldPath, Release, Report, Validate, ValidateOptions, ValidationError};
use crate::resource::{AnyResource, ResourceKind};

/// Every transition rule of the supported releases' CRDs (both channels, every version): kind,
/// field path, rule, and the newest release's message ([`immutable_message`] gives each
/// release's).
pub const TRANSITION_RULES: &[(ResourceKind, &str, &str, &str)] = &[
    (
        ResourceKind::GatewayClass,
        "spec.controllerName",
        "self == oldSelf",
        "field is immutable",
    ),
    (
        ResourceKind::XMesh,
        "spec.controllerName",
        "self == oldSelf",
        "field is immutable",
    ),
];

/// The message of the `self == oldSelf` rules under `release`: "Value is immutable" up to v1.6,
/// "field is immutable" from v1.7.
pub fn immutable_message(release: Release) -> &'static str {
    if release >= Release::V1_7 {
        "field is immutable"
    } else {
        "Value is immutable"
    }
}

/// The transition rules `new` breaks with respect to `old` (empty when none applies: different
/// kinds, or an object whose field is absent in either version), with the newest release's
/// messages; [`transition_errors_under`] picks the release.
pub fn transition_errors(old: &AnyResource, new: &AnyResource) -> Vec<ValidationError> {
    transition_errors_under(old, new, Release::NEWEST)
}

/// [`transition_errors`] as `release`'s API server reports them.
pub fn transition_errors_under(
    old: &AnyResource,
    new: &AnyResource,
    release: Release,
) -> Vec<ValidationError> {
    let path = || FieldPath::root().field("spec").field("controllerName");
    let immutable = |a: &str, b: &str| {
        // `controllerName` is required: "absent" decodes as empty, which has no `oldSelf`.
        (!a.is_empty() && !b.is_empty() && a != b).then(|| {
            ValidationError::new(
                path(),
                ErrorKind::Rule {
                    message: immutable_message(release).into(),
                },
            )
        })
    };
    let found = match (old, new) {
        (AnyResource::GatewayClass(o), AnyResource::GatewayClass(n)) => {
            immutable(&o.spec.controller_name, &n.spec.controller_name)
        }
        (AnyResource::XMesh(o), AnyResource::XMesh(n)) => {
            immutable(&o.spec.controller_name, &n.spec.controller_name)
        }
        _ => None,
    };
    found.into_iter().collect()
}

/// Validates `new` as an update of `old`: every rule of [`Validate`] on `new`, then the
/// transition rules.
///
/// ```
/// use gamma_model::{decode, validate::validate_update};
/// let old = &decode("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\n\
///                    metadata: {name: c}\nspec: {controllerName: example.com/a}\n")?[0];
/// let new = &decode("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\n\
///                    metadata: {name: c}\nspec: {controllerName: example.com/b}\n")?[0];
/// let errors = validate_update(old, new, &Default::default()).unwrap_err();
/// assert_eq!(errors.to_string(), "spec.controllerName: field is immutable");
/// # Ok::<(), gamma_model::DecodeError>(())
/// ```
pub fn validate_update(
    old: &AnyResource,
    new: &AnyResource,
    opts: &ValidateOptions,
) -> Result<(), super::ValidationErrors> {
    let mut errors = match new.validate_with(opts) {
        Ok(()) => Vec::new(),
        Err(e) => e.into_vec(),
    };
    errors.extend(transition_errors_under(old, new, opts.release));
    super::ValidationErrors::from_vec(errors).map_or(Ok(()), Err)
}

/// [`validate_update`] for a report from [`validate_checked`](super::validate_checked): adds
/// the transition errors to it, as `release`'s API server words them (unless the update was
/// already refused before validation).
pub fn add_transition_errors(
    report: &mut Report,
    old: &AnyResource,
    new: &AnyResource,
    release: Release,
) {
    let refused_early = report.errors.iter().any(|e| {
        matches!(
            e.kind,
            ErrorKind::NotServed { .. } | ErrorKind::UnknownField
        )
    });
    if !refused_early {
        report
            .errors
            .extend(transition_errors_under(old, new, release));
    }
}
