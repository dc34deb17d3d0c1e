//! Route parent conditions computed while building a table (Gateway API route conditions): for
//! every (route, parentRef) the build considered, `Accepted`, `ResolvedRefs` and, when some rules
//! were dropped, `PartiallyInvalid`, with upstream reasons. The arbiter writes them.
//!
//! This module holds the condition types and reasons (the vocabulary); the table's compact
//! record of them, and its rendering, is `table/status.rs`.

use schemars::JsonSchema;
use serde::Serialize;

use gamma_model::RouteKind;

/// Condition type `Accepted`.
pub const ACCEPTED: &str = "Accepted";
/// Condition type `ResolvedRefs`.
pub const RESOLVED_REFS: &str = "ResolvedRefs";
/// Condition type `PartiallyInvalid`.
pub const PARTIALLY_INVALID: &str = "PartiallyInvalid";
/// Reason `NoMatchingParent`.
pub const NO_MATCHING_PARENT: &str = "NoMatchingParent";
/// Reason `NotAllowedByListeners`.
pub const NOT_ALLOWED_BY_LISTENERS: &str = "NotAllowedByListeners";
/// Reason `NoMatchingListenerHostname`.
pub const NO_MATCHING_LISTENER_HOSTNAME: &str = "NoMatchingListenerHostname";
/// Reason `Conflicted` (GEP-1294; no upstream constant, GEP-1294 route types).
pub const CONFLICTED: &str = "Conflicted";

/// One condition, without timestamps or generation (the writer adds those).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RouteCondition {
    /// Condition type.
    #[serde(rename = "type")]
    pub type_: String,
    /// `True` or `False`.
    pub status: bool,
    /// Upstream reason.
    pub reason: String,
    /// Human-readable message.
    pub message: String,
}

impl RouteCondition {
    pub(crate) fn new(type_: &str, status: bool, reason: &str, message: impl Into<String>) -> Self {
        Self {
            type_: type_.into(),
            status,
            reason: reason.into(),
            message: message.into(),
        }
    }
}

/// The conditions for one (route, parentRef).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParentStatus {
    /// Route kind.
    pub kind: RouteKind,
    /// Route namespace.
    pub namespace: String,
    /// Route name.
    pub name: String,
    /// Index of the parentRef in `spec.parentRefs`.
    pub parent_index: usize,
    /// The conditions.
    pub conditions: Vec<RouteCondition>,
    /// Every reference of the route's rules that does not resolve, each with its own reason
    /// and field path (the `ResolvedRefs=False` condition has one reason, the first, and lists
    /// them all in its message). Empty when every reference resolves.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<UnresolvedRef>,
}

/// One reference of a route rule that does not resolve: a backendRef, a RequestMirror's
/// backend, an ExtensionRef filter (Gateway API `RouteConditionReason`: `BackendNotFound`,
/// `RefNotPermitted`, `InvalidKind`, `UnsupportedProtocol`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UnresolvedRef {
    /// The field path in the route: `spec.rules[0].backendRefs[1]` for a backendRef,
    /// `spec.rules[0].filters` for a filter or mirror.
    pub field: String,
    /// The `ResolvedRefs` reason.
    pub reason: String,
    /// What is wrong, for people (for a missing port, the Service's ports).
    pub message: String,
}

impl UnresolvedRef {
    pub(crate) fn new(field: String, reason: &str, message: String) -> Self {
        Self {
            field,
            reason: reason.into(),
            message,
        }
    }
}

impl ParentStatus {
    /// The condition of a type, if present.
    pub fn condition(&self, type_: &str) -> Option<&RouteCondition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }
}
