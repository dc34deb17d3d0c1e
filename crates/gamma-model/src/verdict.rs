//! [`Verdicts`]: the validation verdicts of one stored route, kept by the
//! [`Snapshot`](crate::Snapshot) so that builds do not validate an object again.
//!
//! A verdict is a pure function of the object and the [`ValidateOptions`], so it can be
//! computed on first ask and kept for as long as the object is stored. The cells sit behind
//! an `Arc` beside the object: clones of a snapshot share them (the object is the same), and
//! an upsert gives the new object fresh cells.

use std::sync::OnceLock;

use crate::resource::AnyResource;
use crate::validate::{Channel, Validate, ValidateOptions};

/// One cell per (channel, `refuse_control_characters`): the options typed validation reads
/// (`field_validation` concerns unknown fields, which typed objects no longer have).
#[derive(Debug, Default)]
pub(crate) struct Verdicts([OnceLock<bool>; 4]);

impl Verdicts {
    /// Whether `object` (the one these cells belong to) is valid under `opts`: computed on
    /// the first ask for these options, then read.
    pub(crate) fn is_valid(&self, object: &AnyResource, opts: &ValidateOptions) -> bool {
        let channel = match opts.channel {
            Channel::Standard => 0,
            Channel::Experimental => 2,
        };
        let slot = channel + usize::from(opts.refuse_control_characters);
        match self.0.get(slot) {
            Some(cell) => *cell.get_or_init(|| object.validate_with(opts).is_ok()),
            None => object.validate_with(opts).is_ok(),
        }
    }
}

/// A cache: two snapshots with the same objects are equal whatever was asked of them.
impl PartialEq for Verdicts {
    fn eq(&self, _: &Verdicts) -> bool {
        true
    }
}

impl Eq for Verdicts {}
