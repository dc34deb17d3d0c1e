//! Which Gateway API CRD bundle a cluster runs: a [`Release`] (minor series) and a
//! [`Channel`].
//!
//! A cluster installs exactly one bundle; every CRD of it carries the annotations
//! [`BUNDLE_VERSION_ANNOTATION`] (`v1.7.0`) and [`CHANNEL_ANNOTATION`] (`standard` or
//! `experimental`), and the API server validates every object against that bundle's schemas
//! and CEL rules. Patch releases of one minor series share their schemas (v1.6.1, v1.6.2 and
//! v1.6.3 differ only in descriptions and conformance tests), so a release is named by its
//! minor series.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// The annotation every Gateway API CRD carries with its bundle's version (`v1.7.0`).
pub const BUNDLE_VERSION_ANNOTATION: &str = "gateway.networking.k8s.io/bundle-version";

/// The annotation every Gateway API CRD carries with its bundle's channel.
pub const CHANNEL_ANNOTATION: &str = "gateway.networking.k8s.io/channel";

/// A Gateway API release series whose CRDs gamma-rs knows. Ordered oldest first.
///
/// The default is the newest ([`Release::NEWEST`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[non_exhaustive]
pub enum Release {
    /// Gateway API v1.5.x.
    #[serde(rename = "v1.5")]
    V1_5,
    /// Gateway API v1.6.x.
    #[serde(rename = "v1.6")]
    V1_6,
    /// Gateway API v1.7.x (v1.7.0 released 2026-10-29).
    #[default]
    #[serde(rename = "v1.7")]
    V1_7,
}

impl Release {
    /// Every supported release, oldest first.
    pub const ALL: [Release; 3] = [Release::V1_5, Release::V1_6, Release::V1_7];

    /// The newest supported release: the default everywhere a release is chosen.
    pub const NEWEST: Release = Release::V1_7;

    /// Every supported release as a reader would list them: `v1.5, v1.6 and v1.7`. Derived
    /// from [`Release::ALL`], so a new release needs no message edited.
    pub fn supported() -> String {
        match Release::ALL.split_last() {
            Some((last, [])) => last.as_str().to_owned(),
            Some((last, init)) => {
                let init: Vec<&str> = init.iter().map(|r| r.as_str()).collect();
                format!("{} and {}", init.join(", "), last.as_str())
            }
            None => String::new(),
        }
    }

    /// The release series as written in flags and messages: `v1.7`.
    pub fn as_str(self) -> &'static str {
        match self {
            Release::V1_5 => "v1.5",
            Release::V1_6 => "v1.6",
            Release::V1_7 => "v1.7",
        }
    }

    /// The patch release whose CRDs gamma-rs' rules for this series are checked against.
    pub fn reference_patch(self) -> &'static str {
        match self {
            Release::V1_5 => "v1.5.1",
            Release::V1_6 => "v1.6.1",
            Release::V1_7 => "v1.7.0",
        }
    }

    /// Parses `v1.7`, `v1.7.0`, `1.6.3` or a pre-release such as `v1.7.0-rc.1`: the minor
    /// series decides.
    ///
    /// ```
    /// use gamma_model::validate::Release;
    /// assert_eq!(Release::parse("v1.6.3"), Ok(Release::V1_6));
    /// assert_eq!("1.7".parse::<Release>(), Ok(Release::V1_7));
    /// assert!(Release::parse("v1.4.0").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// [`UnsupportedRelease`] when the text is not a version or names a series gamma-rs does
    /// not know.
    pub fn parse(text: &str) -> Result<Release, UnsupportedRelease> {
        let unsupported = || UnsupportedRelease {
            given: text.to_owned(),
        };
        let version = text.trim();
        let version = version.strip_prefix('v').unwrap_or(version);
        let version = version.split(['-', '+']).next().unwrap_or(version);
        let mut parts = version.split('.');
        let (Some(major), Some(minor)) = (parts.next(), parts.next()) else {
            return Err(unsupported());
        };
        let patch = parts.next();
        let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if parts.next().is_some() || !numeric(major) || !numeric(minor) {
            return Err(unsupported());
        }
        if patch.is_some_and(|p| !numeric(p)) {
            return Err(unsupported());
        }
        match (major, minor.trim_start_matches('0')) {
            ("1", "5") => Ok(Release::V1_5),
            ("1", "6") => Ok(Release::V1_6),
            ("1", "7") => Ok(Release::V1_7),
            _ => Err(unsupported()),
        }
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Release {
    type Err = UnsupportedRelease;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Release::parse(s)
    }
}

/// A version that names no release gamma-rs supports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Gateway API {given:?} is not supported: gamma-rs speaks {} (any patch release, e.g. {})",
    Release::supported(),
    Release::NEWEST.reference_patch()
)]
pub struct UnsupportedRelease {
    /// The text given.
    pub given: String,
}

/// The CRD bundle a cluster runs: one release and one channel.
///
/// ```
/// use gamma_model::validate::{Bundle, Channel, Release};
/// let bundle = Bundle::new(Release::V1_6, Channel::Experimental);
/// assert_eq!(bundle.to_string(), "Gateway API v1.6 (experimental channel)");
/// assert_eq!(Bundle::default(), Bundle::new(Release::NEWEST, Channel::Standard));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[non_exhaustive]
pub struct Bundle {
    /// The release series.
    pub release: Release,
    /// The channel.
    pub channel: Channel,
}

impl Bundle {
    /// The bundle of `release` and `channel`.
    pub const fn new(release: Release, channel: Channel) -> Bundle {
        Bundle { release, channel }
    }
}

impl Bundle {
    /// The bundle a Gateway API CRD belongs to, read from its `metadata.annotations`
    /// ([`BUNDLE_VERSION_ANNOTATION`] and [`CHANNEL_ANNOTATION`]).
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use gamma_model::validate::{
    ///     BUNDLE_VERSION_ANNOTATION, Bundle, CHANNEL_ANNOTATION, Channel, Release,
    /// };
    /// let annotations = BTreeMap::from([
    ///     (BUNDLE_VERSION_ANNOTATION.to_owned(), "v1.7.0".to_owned()),
    ///     (CHANNEL_ANNOTATION.to_owned(), "experimental".to_owned()),
    /// ]);
    /// assert_eq!(
    ///     Bundle::from_crd_annotations(&annotations),
    ///     Ok(Bundle::new(Release::V1_7, Channel::Experimental))
    /// );
    /// // A CRD without them says nothing; the caller chooses what fills the gap.
    /// let err = Bundle::from_crd_annotations(&BTreeMap::new()).unwrap_err();
    /// assert_eq!((err.release, err.channel), (None, None));
    /// assert_eq!(err.or(Bundle::default()), Bundle::default());
    /// ```
    ///
    /// # Errors
    ///
    /// [`BundleAnnotationError`] when an annotation is missing, names a release gamma-rs does
    /// not support, or names no channel; it keeps whatever half could be read.
    pub fn from_crd_annotations(
        annotations: &BTreeMap<String, String>,
    ) -> Result<Bundle, BundleAnnotationError> {
        let mut problems = Vec::new();
        let release = match annotations.get(BUNDLE_VERSION_ANNOTATION) {
            None => {
                problems.push(AnnotationProblem::Missing(BUNDLE_VERSION_ANNOTATION));
                None
            }
            Some(text) => match Release::parse(text) {
                Ok(release) => Some(release),
                Err(e) => {
                    problems.push(AnnotationProblem::Release(e));
                    None
                }
            },
        };
        let channel = match annotations.get(CHANNEL_ANNOTATION) {
            None => {
                problems.push(AnnotationProblem::Missing(CHANNEL_ANNOTATION));
                None
            }
            Some(text) => match text.trim() {
                "standard" => Some(Channel::Standard),
                "experimental" => Some(Channel::Experimental),
                _ => {
                    problems.push(AnnotationProblem::Channel {
                        given: text.clone(),
                    });
                    None
                }
            },
        };
        match (release, channel) {
            (Some(release), Some(channel)) if problems.is_empty() => {
                Ok(Bundle::new(release, channel))
            }
            _ => Err(BundleAnnotationError {
                release,
                channel,
                problems,
            }),
        }
    }
}

/// Why a CRD's annotations name no bundle gamma-rs knows (see
/// [`Bundle::from_crd_annotations`]), with the half that could be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
#[non_exhaustive]
pub struct BundleAnnotationError {
    /// The release, when [`BUNDLE_VERSION_ANNOTATION`] names a supported one.
    pub release: Option<Release>,
    /// The channel, when [`CHANNEL_ANNOTATION`] names one.
    pub channel: Option<Channel>,
    /// Every problem found (at least one).
    pub problems: Vec<AnnotationProblem>,
}

impl BundleAnnotationError {
    /// The bundle with the parts that could be read, and `fallback`'s for the others.
    pub fn or(&self, fallback: Bundle) -> Bundle {
        Bundle::new(
            self.release.unwrap_or(fallback.release),
            self.channel.unwrap_or(fallback.channel),
        )
    }

    fn describe(&self) -> String {
        let problems: Vec<String> = self.problems.iter().map(ToString::to_string).collect();
        problems.join("; ")
    }
}

/// One problem with a CRD's bundle annotations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnnotationProblem {
    /// The annotation is absent.
    #[error("no annotation {0}")]
    Missing(&'static str),
    /// [`BUNDLE_VERSION_ANNOTATION`] names no supported release.
    #[error("{BUNDLE_VERSION_ANNOTATION}: {0}")]
    Release(UnsupportedRelease),
    /// [`CHANNEL_ANNOTATION`] is neither `standard` nor `experimental`.
    #[error("{CHANNEL_ANNOTATION}: {given:?} is neither \"standard\" nor \"experimental\"")]
    Channel {
        /// The text given.
        given: String,
    },
}

impl fmt::Display for Bundle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Gateway API {} ({} channel)",
            self.release,
            self.channel.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_patch_and_spelling_of_a_supported_series_parses_to_it() {
        for (text, release) in [
            ("v1.5", Release::V1_5),
            ("v1.5.1", Release::V1_5),
            ("1.6", Release::V1_6),
            ("v1.6.3", Release::V1_6),
            ("v1.7.0", Release::V1_7),
            ("v1.7.0-rc.1", Release::V1_7),
            (" v1.07.2 ", Release::V1_7),
        ] {
            assert_eq!(Release::parse(text), Ok(release), "{text}");
        }
    }

    #[test]
    fn unknown_series_and_non_versions_are_refused_naming_what_is_supported() {
        for text in [
            "", "v", "v1", "v1.4.0", "v1.8", "v2.0", "latest", "v1.7.x", "v1.7.0.1", "v1..7",
        ] {
            let err = Release::parse(text).unwrap_err();
            assert_eq!(err.given, text);
            assert!(err.to_string().contains("v1.5, v1.6 and v1.7"), "{err}");
        }
    }

    fn annotations(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn both_annotations_name_the_bundle_and_other_annotations_are_ignored() {
        for release in Release::ALL {
            for channel in [Channel::Standard, Channel::Experimental] {
                let a = annotations(&[
                    ("api-approved.kubernetes.io", "https://example.invalid/pr"),
                    (BUNDLE_VERSION_ANNOTATION, release.reference_patch()),
                    (CHANNEL_ANNOTATION, channel.as_str()),
                ]);
                assert_eq!(
                    Bundle::from_crd_annotations(&a),
                    Ok(Bundle::new(release, channel))
                );
            }
        }
    }

    #[test]
    fn missing_annotations_are_each_named_and_the_read_half_is_kept() {
        let err = Bundle::from_crd_annotations(&annotations(&[])).unwrap_err();
        assert_eq!(
            err.problems,
            [
                AnnotationProblem::Missing(BUNDLE_VERSION_ANNOTATION),
                AnnotationProblem::Missing(CHANNEL_ANNOTATION)
            ]
        );
        let text = err.to_string();
        assert!(
            text.contains(BUNDLE_VERSION_ANNOTATION) && text.contains(CHANNEL_ANNOTATION),
            "{text}"
        );
        let err = Bundle::from_crd_annotations(&annotations(&[(
            CHANNEL_ANNOTATION,
            Channel::Experimental.as_str(),
        )]))
        .unwrap_err();
        assert_eq!(
            (err.release, err.channel),
            (None, Some(Channel::Experimental))
        );
        let fallback = Bundle::new(Release::V1_5, Channel::Standard);
        assert_eq!(
            err.or(fallback),
            Bundle::new(fallback.release, Channel::Experimental)
        );
    }

    #[test]
    fn unsupported_releases_and_unknown_channels_are_refused_with_the_text_given() {
        let err = Bundle::from_crd_annotations(&annotations(&[
            (BUNDLE_VERSION_ANNOTATION, "v0.0.0-dev"),
            (CHANNEL_ANNOTATION, "Standard"),
        ]))
        .unwrap_err();
        assert_eq!((err.release, err.channel), (None, None));
        assert!(matches!(
            &err.problems[..],
            [AnnotationProblem::Release(r), AnnotationProblem::Channel { given }]
                if r.given == "v0.0.0-dev" && given == "Standard"
        ));
        // a pre-release of a supported series names that series
        let a = annotations(&[
            (BUNDLE_VERSION_ANNOTATION, "v1.5.0-dev"),
            (CHANNEL_ANNOTATION, "standard"),
        ]);
        assert_eq!(
            Bundle::from_crd_annotations(&a),
            Ok(Bundle::new(Release::V1_5, Channel::Standard))
        );
    }

    #[test]
    fn the_default_release_is_the_newest_and_all_is_oldest_first() {
        assert_eq!(Release::default(), Release::NEWEST);
        assert!(Release::ALL.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(Release::ALL.last(), Some(&Release::NEWEST));
        assert_eq!(Release::supported(), "v1.5, v1.6 and v1.7");
        for r in Release::ALL {
            assert_eq!(Release::parse(r.reference_patch()), Ok(r));
            assert_eq!(Release::parse(r.as_str()), Ok(r));
        }
    }
}

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
