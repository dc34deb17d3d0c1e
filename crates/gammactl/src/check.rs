//! Validation of decoded objects against the upstream CRD rules, through gamma-model.

use gamma::model::Resource;
use gamma::model::Validate;
use gamma::model::validate::{ValidateOptions, ValidationError};

/// Every validation problem of one object (empty when valid).
pub fn validate(resource: &Resource, opts: &ValidateOptions) -> Vec<ValidationError> {
    match resource.validate_with(opts) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.into_vec(),
    }
}
