//! The TLSRoute, TCPRoute and UDPRoute IR.

use std::sync::Arc;

use serde::Serialize;

use super::names::{Hostname, hostnames};
use super::refs::{ParentRef, WeightedBackend, parent_refs};
use super::{Partial, convert_partial};
use crate::gateway::{self, L4RouteRule};
use crate::meta::ObjectMeta;
use crate::validate::{Errors, FieldPath, Validate, ValidateOptions, ValidationErrors};

/// The rule of a TLS, TCP or UDP route: weighted backends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct L4Rule {
    /// The index in the wire route's `spec.rules`.
    pub index: usize,
    /// The rule name, if any.
    pub name: Option<String>,
    /// The backends (at least one).
    pub backend_refs: Vec<WeightedBackend>,
}

fn convert_rule(rule: &L4RouteRule, index: usize, ns: &Arc<str>) -> L4Rule {
    L4Rule {
        index,
        name: rule.name.clone(),
        backend_refs: rule
            .backend_refs
            .iter()
            .map(|b| WeightedBackend::from_wire(b, ns))
            .collect(),
    }
}

fn convert<T>(
    errors: Errors,
    rules: &[L4RouteRule],
    ns: &Arc<str>,
    build: impl FnOnce(Vec<L4Rule>) -> T,
) -> Result<Partial<T>, ValidationErrors> {
    let names: Vec<Option<String>> = rules.iter().map(|r| r.name.clone()).collect();
    convert_partial(
        errors.into_vec(),
        &names,
        |i| match rules.get(i) {
            Some(r) => Ok(convert_rule(r, i, ns)),
            None => Err(ValidationErrors::single(
                crate::validate::ValidationError::new(
                    FieldPath::root().field("spec").field("rules").index(i),
                    crate::validate::ErrorKind::Required,
                ),
            )),
        },
        build,
    )
}

/// A TLSRoute with defaults applied and only valid content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TlsRoute {
    /// The route's metadata, as decoded.
    pub metadata: ObjectMeta,
    /// The route's namespace (`default` when unset).
    pub namespace: String,
    /// Parent references, defaulted.
    pub parent_refs: Vec<ParentRef>,
    /// SNI hostnames.
    pub hostnames: Vec<Hostname>,
    /// The rules (exactly one in `v1`).
    pub rules: Vec<L4Rule>,
}

/// A TCPRoute with defaults applied and only valid content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TcpRoute {
    /// The route's metadata, as decoded.
    pub metadata: ObjectMeta,
    /// The route's namespace (`default` when unset).
    pub namespace: String,
    /// Parent references, defaulted.
    pub parent_refs: Vec<ParentRef>,
    /// The rules (exactly one in `v1`).
    pub rules: Vec<L4Rule>,
}

/// A UDPRoute with defaults applied and only valid content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UdpRoute {
    /// The route's metadata, as decoded.
    pub metadata: ObjectMeta,
    /// The route's namespace (`default` when unset).
    pub namespace: String,
    /// Parent references, defaulted.
    pub parent_refs: Vec<ParentRef>,
    /// The rules (exactly one in `v1`).
    pub rules: Vec<L4Rule>,
}

macro_rules! l4_ir {
    ($name:ident, $wire:ty, |$w:ident, $errors:ident, $ns:ident, $parents:ident, $base:ident| $build:expr) => {
        impl $name {
            /// Validates (standard channel) and converts; every error when it is invalid.
            pub fn from_wire(wire: &$wire) -> Result<$name, ValidationErrors> {
                $name::from_wire_with(wire, &ValidateOptions::default())
            }

            /// Validates with `opts` and converts; every error when any part is invalid.
            pub fn from_wire_with(
                wire: &$wire,
                opts: &ValidateOptions,
            ) -> Result<$name, ValidationErrors> {
                wire.validate_with(opts)?;
                Ok($name::from_wire_partial(wire, opts)?.value)
            }

            /// Validates with `opts` and converts, dropping invalid rules (see the [module
            /// docs](super)).
            pub fn from_wire_partial(
                wire: &$wire,
                opts: &ValidateOptions,
            ) -> Result<Partial<$name>, ValidationErrors> {
                $name::convert(wire, opts, false)
            }

            /// `from_wire_partial`; `known_valid` skips validation (see
            /// [`super::Route::from_valid_resource`]).
            pub(crate) fn convert(
                $w: &$wire,
                opts: &ValidateOptions,
                known_valid: bool,
            ) -> Result<Partial<$name>, ValidationErrors> {
                let (collected, $base) = super::collect($w, opts, known_valid);
                let mut $errors = Errors::default();
                for e in collected {
                    $errors.push(e.path, e.kind);
                }
                // shared by every backendRef that omits its namespace
                let $ns: Arc<str> = Arc::from($w.metadata.namespace_or_default());
                let $parents = parent_refs(&$w.spec.parent_refs, &$ns);
                $build
            }
        }
    };
}

l4_ir!(
    TlsRoute,
    gateway::TlsRoute,
    |wire, errors, ns, parents, base| {
        let hosts = hostnames(&wire.spec.hostnames, &base, &mut errors);
        convert(errors, &wire.spec.rules, &ns, |rules| TlsRoute {
            metadata: wire.metadata.clone(),
            namespace: ns.to_string(),
            parent_refs: parents,
            hostnames: hosts,
            rules,
        })
    }
);
l4_ir!(
    TcpRoute,
    gateway::TcpRoute,
    |wire, errors, ns, parents, _base| {
        convert(errors, &wire.spec.rules, &ns, |rules| TcpRoute {
            metadata: wire.metadata.clone(),
            namespace: ns.to_string(),
            parent_refs: parents,
            rules,
        })
    }
);
l4_ir!(
    UdpRoute,
    gateway::UdpRoute,
    |wire, errors, ns, parents, _base| {
        convert(errors, &wire.spec.rules, &ns, |rules| UdpRoute {
            metadata: wire.metadata.clone(),
            namespace: ns.to_string(),
            parent_refs: parents,
            rules,
        })
    }
);
