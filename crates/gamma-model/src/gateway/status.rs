//! Route status: the per-parent entries controllers write, and the condition vocabulary.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ParentReference;
use crate::meta::Time;

/// The status shared by every route kind: one entry per (parentRef, controller).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteStatus {
    /// Per-parent status entries; at most 32 (upstream MaxItems).
    #[serde(default)]
    pub parents: Vec<RouteParentStatus>,
}

/// The status of a route with respect to one parent, written by one controller.
///
/// An entry is identified by (`parentRef`, `controllerName`); a controller must never modify
/// entries whose `controllerName` is not its own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteParentStatus {
    /// The parentRef exactly as written in the route's spec.
    #[serde(default)]
    pub parent_ref: ParentReference,
    /// The controller that wrote this entry (`DOMAIN/PATH`).
    #[serde(default)]
    pub controller_name: String,
    /// Conditions, keyed by `type`; 1 to 8.
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// The status of a condition. Values other than `True`, `False` and `Unknown` decode to
/// [`ConditionStatus::Other`] so a malformed status written by another controller never makes
/// the route undecodable.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConditionStatus {
    /// The condition holds.
    True,
    /// The condition does not hold.
    False,
    /// Not known yet.
    #[default]
    Unknown,
    /// Any other value, kept verbatim.
    Other(String),
}

impl ConditionStatus {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            ConditionStatus::True => "True",
            ConditionStatus::False => "False",
            ConditionStatus::Unknown => "Unknown",
            ConditionStatus::Other(s) => s,
        }
    }
}

impl From<bool> for ConditionStatus {
    fn from(b: bool) -> Self {
        if b {
            ConditionStatus::True
        } else {
            ConditionStatus::False
        }
    }
}

impl Serialize for ConditionStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ConditionStatus {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.as_str() {
            "True" => ConditionStatus::True,
            "False" => ConditionStatus::False,
            "Unknown" => ConditionStatus::Unknown,
            _ => ConditionStatus::Other(s),
        })
    }
}

impl JsonSchema for ConditionStatus {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ConditionStatus".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": ["True", "False", "Unknown"] })
    }
}

/// A Kubernetes `metav1.Condition`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// The condition type, e.g. `Accepted`.
    #[serde(rename = "type", default)]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default)]
    pub status: ConditionStatus,
    /// The generation of the object this condition was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// When the status last changed.
    #[serde(default = "epoch")]
    pub last_transition_time: Time,
    /// A CamelCase machine-readable reason.
    #[serde(default)]
    pub reason: String,
    /// A human-readable message.
    #[serde(default)]
    pub message: String,
}

fn epoch() -> Time {
    Time::UNIX_EPOCH
}

impl Condition {
    /// Whether this condition has the given type and status `True`.
    pub fn is_true(&self, type_: &str) -> bool {
        self.type_ == type_ && self.status == ConditionStatus::True
    }
}

/// Condition types and reasons for routes, as upstream defines them (`apis/v1/shared_types.go`),
/// plus `Conflicted`, which GEP-1294 names for mesh route-kind conflicts but upstream never
/// defines as a constant, and gamma-rs's own ownership reasons.
pub mod reasons {
    /// Condition type: the route is accepted by the parent.
    pub const ACCEPTED: &str = "Accepted";
    /// Condition type: all references of the route resolve.
    pub const RESOLVED_REFS: &str = "ResolvedRefs";
    /// Condition type: some rules of the route are invalid and were dropped.
    pub const PARTIALLY_INVALID: &str = "PartiallyInvalid";

    /// Reason (Accepted=True).
    pub const REASON_ACCEPTED: &str = "Accepted";
    /// Reason (Accepted=False): no listener's `allowedRoutes` admits the route.
    pub const NOT_ALLOWED_BY_LISTENERS: &str = "NotAllowedByListeners";
    /// Reason (Accepted=False): no listener hostname intersects the route's hostnames.
    pub const NO_MATCHING_LISTENER_HOSTNAME: &str = "NoMatchingListenerHostname";
    /// Reason (Accepted=False): the parentRef's port or sectionName matches nothing.
    pub const NO_MATCHING_PARENT: &str = "NoMatchingParent";
    /// Reason (Accepted=False, PartiallyInvalid=True): an unknown enum value.
    pub const UNSUPPORTED_VALUE: &str = "UnsupportedValue";
    /// Reason (Accepted=False): a filter combination that cannot be supported.
    pub const INCOMPATIBLE_FILTERS: &str = "IncompatibleFilters";
    /// Reason (Accepted=Unknown): not reconciled yet.
    pub const PENDING: &str = "Pending";
    /// Reason (Accepted=False): a route of a higher-precedence kind holds the same Service port
    /// (GEP-1294 `RouteReasonConflicted`; not an upstream constant).
    pub const CONFLICTED: &str = "Conflicted";

    /// Reason (ResolvedRefs=True).
    pub const REASON_RESOLVED_REFS: &str = "ResolvedRefs";
    /// Reason (ResolvedRefs=False): a cross-namespace reference without a ReferenceGrant.
    pub const REF_NOT_PERMITTED: &str = "RefNotPermitted";
    /// Reason (ResolvedRefs=False): an unknown or unsupported group/kind.
    pub const INVALID_KIND: &str = "InvalidKind";
    /// Reason (ResolvedRefs=False): the referenced object does not exist.
    pub const BACKEND_NOT_FOUND: &str = "BackendNotFound";
    /// Reason (ResolvedRefs=False): the backend's appProtocol is incompatible with the route.
    pub const UNSUPPORTED_PROTOCOL: &str = "UnsupportedProtocol";

    /// gamma-rs reason (Accepted=False): several controllers claim this parent at the same
    /// ownership level and none may act alone.
    pub const OWNERSHIP_CONFLICT: &str = "OwnershipConflict";
    /// gamma-rs reason (Accepted=False): the parent names a controller that is not registered.
    pub const NO_OWNING_CONTROLLER: &str = "NoOwningController";
}
