//! The options of a validation ([`ValidateOptions`]): the channel and release whose rules
//! apply, and what to do with unknown fields ([`FieldValidation`]).

use serde::Serialize;

use super::release::{Bundle, Channel, Release};

/// What to do with unknown fields: the API server's `fieldValidation` query parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[non_exhaustive]
pub enum FieldValidation {
    /// Unknown fields are errors (the default, as kubectl's `--validate=strict`).
    #[default]
    Strict,
    /// Unknown fields are warnings; the object is checked as if they were absent (the API
    /// server prunes them).
    Warn,
    /// Unknown fields are dropped silently.
    Ignore,
}

/// Options for [`Validate::validate_with`](crate::Validate::validate_with).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidateOptions {
    /// The channel whose rules apply.
    pub channel: Channel,
    /// The Gateway API release whose CRDs apply (default: the newest). Served versions,
    /// the fields each channel declares and the rules that changed follow it.
    pub release: Release,
    /// What to do with unknown fields ([`validate_checked`](super::validate_checked); the typed [`Validate`](crate::Validate) never sees
    /// them, since decoding drops them).
    pub field_validation: FieldValidation,
    /// Also refuse header values (matches and header modifiers) that contain CR, LF or NUL
    /// where the channel's CRD admits them ([`ErrorKind::ControlCharacter`](super::ErrorKind::ControlCharacter)): what an engine
    /// must do, since such a value programmed into a data plane is header injection.
    /// [`validate_checked`](super::validate_checked) sets it itself and reports these as warnings.
    pub refuse_control_characters: bool,
    /// The `(group, kind)`s of Gateway `spec.infrastructure.parametersRef` the embedding
    /// controller supports, for engines that judge the reference (gamma-resolve: a Gateway
    /// whose reference names another kind is `Accepted=False` with reason
    /// `InvalidParameters`). `None` (the default): no kind is refused for its kind alone.
    /// Object validation ([`Validate`](crate::Validate)) never reads it.
    pub gateway_parameter_kinds: Option<Vec<(String, String)>>,
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
