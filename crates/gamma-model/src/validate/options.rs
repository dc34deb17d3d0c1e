//! The options of a validation ([`ValidateOptions`]): the channel and release whose rules
//! apply, and what to do with unknown fields ([`FieldValidation`]).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use super::kinds::KindBundles;
use super::release::{Bundle, Channel, Release};
use crate::ResourceKind;

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
    /// Kinds judged by another bundle than [`ValidateOptions::release`] and
    /// [`ValidateOptions::channel`], each under its own CRD's ([`KindBundles`]; empty: every
    /// kind by those two). Applied where the object's kind is known:
    /// [`validate_checked`](super::validate_checked), `AnyResource`'s
    /// [`Validate`](crate::Validate) and [`ValidateOptions::for_kind`].
    pub kinds: BTreeMap<ResourceKind, Bundle>,
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

    /// Options judging each kind by its bundle in `kinds`.
    ///
    /// ```
    /// use gamma_model::ResourceKind;
    /// use gamma_model::validate::{Bundle, Channel, KindBundles, Release, ValidateOptions};
    /// let v1_6 = Bundle::new(Release::V1_6, Channel::Standard);
    /// let kinds = KindBundles::new(Bundle::default()).with_kind(ResourceKind::GrpcRoute, v1_6);
    /// let opts = ValidateOptions::bundles(&kinds);
    /// assert_eq!(opts.for_kind(ResourceKind::GrpcRoute).as_bundle(), v1_6);
    /// assert_eq!(opts.for_kind(ResourceKind::HttpRoute).as_bundle(), Bundle::default());
    /// assert_eq!(opts.as_bundles(), kinds);
    /// ```
    pub fn bundles(kinds: &KindBundles) -> Self {
        ValidateOptions {
            kinds: kinds.overrides().collect(),
            ..ValidateOptions::bundle(kinds.default_bundle())
        }
    }

    /// The bundle these options validate against (of every kind not in
    /// [`ValidateOptions::kinds`]).
    pub fn as_bundle(&self) -> Bundle {
        Bundle::new(self.release, self.channel)
    }

    /// The bundle of each kind these options validate against.
    pub fn as_bundles(&self) -> KindBundles {
        self.kinds
            .iter()
            .fold(KindBundles::new(self.as_bundle()), |k, (kind, b)| {
                k.with_kind(*kind, *b)
            })
    }

    /// The options an object of `kind` is validated with: its own bundle as
    /// [`ValidateOptions::release`] and [`ValidateOptions::channel`] (borrowed, without a
    /// copy, when it is the default).
    pub fn for_kind(&self, kind: ResourceKind) -> Cow<'_, ValidateOptions> {
        match self.kinds.get(&kind) {
            Some(bundle) if *bundle != self.as_bundle() => Cow::Owned(ValidateOptions {
                channel: bundle.channel,
                release: bundle.release,
                field_validation: self.field_validation,
                refuse_control_characters: self.refuse_control_characters,
                kinds: BTreeMap::new(),
            }),
            _ => Cow::Borrowed(self),
        }
    }
}
