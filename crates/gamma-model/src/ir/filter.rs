//! What HTTPRoute and GRPCRoute rules share: header matches and value conditions, header
//! modifiers, request mirrors and extension references, with their conversions.

use std::sync::Arc;

use serde::Serialize;

use super::names::{HeaderName, ok};
use super::refs::BackendTarget;
use crate::gateway::{self, MatchType};
use crate::ir::IrString;
use crate::validate::{Errors, FieldPath};

/// How a value is compared.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", content = "value")]
#[non_exhaustive]
pub enum ValueMatch {
    /// Byte-exact equality (the default).
    Exact(IrString),
    /// A regular expression (implementation-specific dialect; not compiled here).
    RegularExpression(IrString),
}

impl ValueMatch {
    pub(crate) fn new(t: Option<&MatchType>, value: &str) -> ValueMatch {
        match t {
            Some(MatchType::RegularExpression) => {
                ValueMatch::RegularExpression(IrString::from(value))
            }
            _ => ValueMatch::Exact(IrString::from(value)),
        }
    }

    /// The value or pattern text.
    pub fn as_str(&self) -> &str {
        match self {
            ValueMatch::Exact(v) | ValueMatch::RegularExpression(v) => v,
        }
    }
}

/// A header condition.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct HeaderMatch {
    /// The header name, lower-case.
    pub name: HeaderName,
    /// The value condition.
    pub value: ValueMatch,
}

/// Header edits: names lower-cased, values as written.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[non_exhaustive]
pub struct HeaderModifier {
    /// Headers to overwrite.
    pub set: Vec<(HeaderName, String)>,
    /// Headers to append to.
    pub add: Vec<(HeaderName, String)>,
    /// Headers to remove (entries that are not header-name tokens, which upstream does not
    /// reject, are left out: they cannot name a header).
    pub remove: Vec<HeaderName>,
}

/// The share of requests to mirror.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Fraction {
    /// The numerator, at most the denominator.
    pub numerator: u32,
    /// The denominator, at least 1.
    pub denominator: u32,
}

/// Mirror requests to a backend (responses ignored).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Mirror {
    /// The mirror target (defaulted).
    pub target: BackendTarget,
    /// The share mirrored: `percent` as n/100, `fraction` as written (denominator default
    /// 100), 100/100 when neither is set.
    pub fraction: Fraction,
}

/// A reference to an implementation-specific filter object in the route's namespace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct ExtensionRef {
    /// The group.
    pub group: String,
    /// The kind.
    pub kind: String,
    /// The name.
    pub name: String,
}

/// Header matches: lower-cased names, first of each case-insensitive name kept.
pub(crate) fn header_matches<'a>(
    list: impl ExactSizeIterator<Item = (Option<&'a MatchType>, &'a str, &'a str)>,
    path: &FieldPath,
    errors: &mut Errors,
) -> Vec<HeaderMatch> {
    // sized once: a list grown from empty goes through the growth path even for one item
    let mut out: Vec<HeaderMatch> = Vec::with_capacity(list.len());
    for (i, (t, name, value)) in list.enumerate() {
        // a detached path: the route passed validation, names included (see `path_match`)
        let name = if path.is_detached() {
            Some(HeaderName::validated(name))
        } else {
            ok(HeaderName::new(name), &path.index(i).field("name"), errors)
        };
        if let Some(name) = name
            && !out.iter().any(|h| h.name == name)
        {
            out.push(HeaderMatch {
                name,
                value: ValueMatch::new(t, value),
            });
        }
    }
    out
}

pub(crate) fn header_modifier(
    f: &gateway::HttpHeaderFilter,
    path: &FieldPath,
    errors: &mut Errors,
) -> HeaderModifier {
    let pairs = |field: &str, list: &[gateway::HttpHeader], errors: &mut Errors| {
        list.iter()
            .enumerate()
            .filter_map(|(i, h)| {
                ok(
                    HeaderName::new(&h.name),
                    &path.field(field).index(i).field("name"),
                    errors,
                )
                .map(|n| (n, h.value.clone()))
            })
            .collect::<Vec<_>>()
    };
    let set = pairs("set", &f.set, errors);
    let add = pairs("add", &f.add, errors);
    // Upstream puts no pattern on `remove` entries; one that is not a header-name token can
    // never name a header, so it is ignored rather than rejected.
    let remove = f
        .remove
        .iter()
        .filter_map(|n| HeaderName::new(n).ok())
        .collect();
    HeaderModifier { set, add, remove }
}

pub(crate) fn mirror(m: &gateway::HttpRequestMirrorFilter, ns: &Arc<str>) -> Mirror {
    let fraction = match (&m.fraction, m.percent) {
        (Some(f), _) => Fraction {
            numerator: u32::try_from(f.numerator).unwrap_or(0),
            denominator: u32::try_from(f.denominator.unwrap_or(100)).unwrap_or(100),
        },
        (None, Some(p)) => Fraction {
            numerator: u32::try_from(p).unwrap_or(0),
            denominator: 100,
        },
        (None, None) => Fraction {
            numerator: 100,
            denominator: 100,
        },
    };
    Mirror {
        target: BackendTarget::from_wire(&m.backend_ref, ns),
        fraction,
    }
}

pub(crate) fn extension_ref(r: &gateway::LocalObjectReference) -> ExtensionRef {
    ExtensionRef {
        group: r.group.clone(),
        kind: r.kind.clone(),
        name: r.name.clone(),
    }
}
