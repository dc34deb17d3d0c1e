//! Validation of decoded objects against the upstream CRD rules, through gamma-model: as the API
//! server validates a create (unknown fields, missing required fields, then every typed rule).

use gamma_mesh::model::validate::{Report, ValidateOptions, validate_checked};

use crate::manifests::Loaded;

/// The errors and warnings of one object (both empty when valid).
pub fn validate(object: &Loaded, opts: &ValidateOptions) -> Report {
    validate_checked(&object.resource, &object.fields, opts)
}
