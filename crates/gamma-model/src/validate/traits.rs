//! The [`Validate`] trait every resource implements. Exported at the crate root.

use super::{Errors, FieldPath, ValidateOptions, ValidationErrors};

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

/// Each object under its own kind's bundle ([`ValidateOptions::for_kind`]).
impl Validate for crate::AnyResource {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        let opts = opts.for_kind(self.kind());
        self.as_validate().collect_errors(path, &opts, errors);
    }
}

/// A boxed object validates as the object (the large kinds are boxed in
/// [`crate::AnyResource`]).
impl<T: Validate + ?Sized> Validate for Box<T> {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        (**self).collect_errors(path, opts, errors);
    }
}
