//! What the arbiter decides: a [`Verdict`] per (route, parentRef as written), the same for every
//! controller, and the [`Ownership`] one controller draws from it.

use std::fmt;
use std::sync::Arc;

use gamma_model::ObjectKey;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::registry::{Identity, Registry};

/// A set of controller names (canonical, sorted, without duplicates). Cheap to clone.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Owners(Arc<[String]>);

impl Owners {
    /// The set of `names`, sorted and deduplicated.
    pub fn new<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        let mut v: Vec<String> = names.into_iter().map(Into::into).collect();
        v.sort();
        v.dedup();
        Owners(v.into())
    }

    /// A single owner.
    pub fn one(name: &str) -> Self {
        Owners(Arc::from([name.to_owned()]))
    }

    /// The names, sorted.
    pub fn names(&self) -> &[String] {
        &self.0
    }

    /// Whether `name` is among them.
    pub fn contains(&self, name: &str) -> bool {
        self.0.iter().any(|n| n == name)
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Owners {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl fmt::Display for Owners {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, n) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(n)?;
        }
        Ok(())
    }
}

impl Serialize for Owners {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Owners {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Owners::new(Vec::<String>::deserialize(d)?))
    }
}

impl JsonSchema for Owners {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Owners".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Vec::<String>::json_schema(g)
    }
}

/// Which rule decided. For Service parents, [`Level::rung`] gives the ladder level (1-5).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Level {
    /// Gateway or ListenerSet parent: the GatewayClass `controllerName`.
    GatewayClass,
    /// Another parent kind, claimed by a registration.
    KindClaim,
    /// Level 1: `parentRef.controllers`.
    ParentRefControllers,
    /// Level 1: the route annotation (default `gamma.rs/controllers`).
    RouteAnnotation,
    /// Level 2: the Service annotation (default `gamma.rs/controller`).
    ServiceAnnotation,
    /// Level 2: the delegation label naming a Gateway (default `istio.io/use-waypoint`) on
    /// the Service, else on its Namespace, through that Gateway's GatewayClass.
    Delegation,
    /// Level 3: the Namespace label naming a mesh (default `gamma.rs/mesh`).
    NamespaceLabel,
    /// Level 4: a registration's namespace selector.
    Selector,
    /// Level 5: the registration flagged as default.
    Default,
}

impl Level {
    /// The ladder level for Service parents (1-5); `None` for Gateway parents and claims.
    pub fn rung(&self) -> Option<u8> {
        match self {
            Level::GatewayClass | Level::KindClaim => None,
            Level::ParentRefControllers | Level::RouteAnnotation => Some(1),
            Level::ServiceAnnotation | Level::Delegation => Some(2),
            Level::NamespaceLabel => Some(3),
            Level::Selector => Some(4),
            Level::Default => Some(5),
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self {
            Level::GatewayClass => "the GatewayClass controllerName",
            Level::KindClaim => "a registration claiming the parent kind",
            Level::ParentRefControllers => "parentRef.controllers",
            Level::RouteAnnotation => "the route annotation",
            Level::ServiceAnnotation => "the Service annotation",
            Level::Delegation => "the Service's delegation label",
            Level::NamespaceLabel => "the Namespace mesh label",
            Level::Selector => "a registration's namespace selector",
            Level::Default => "the default registration",
        };
        match self.rung() {
            Some(r) => write!(f, "level {r} ({what})"),
            None => f.write_str(what),
        }
    }
}

/// The concrete signal that decided, for people: `Namespace shop label gamma.rs/mesh=istio`.
/// Cheap to clone.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Evidence(Arc<str>);

impl Evidence {
    /// Evidence with this text.
    pub fn new(text: impl Into<Arc<str>>) -> Self {
        Evidence(text.into())
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Evidence {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Evidence {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Evidence::new(String::deserialize(d)?))
    }
}

impl JsonSchema for Evidence {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Evidence".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(g)
    }
}

/// The verdict about one (route, parentRef): identical for every controller that computes it on
/// the same snapshot and configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "verdict", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Verdict {
    /// These controllers own the parent (several: shared ownership, each programs it and
    /// writes its own status entry).
    Owned {
        /// The owners (canonical names; unknown names kept verbatim).
        owners: Owners,
        /// The rule that decided.
        level: Level,
        /// The signal.
        evidence: Evidence,
    },
    /// Several controllers claim the parent at the same level and none may act alone.
    Conflict {
        /// The claimants.
        candidates: Owners,
        /// The level where the claims collided.
        level: Level,
        /// The signal.
        evidence: Evidence,
    },
    /// No rule names anyone (Service parent with no signal and no default).
    Unclaimed,
    /// An object the decision needs is missing (a cache that has not synced yet, or an object
    /// about to be re-created); nobody takes over meanwhile.
    Pending {
        /// The missing objects.
        waiting_on: Vec<ObjectKey>,
        /// The rule that needed them.
        level: Level,
    },
    /// Not a parent kind any controller here arbitrates (neither Gateway nor core Service, and
    /// not claimed).
    NotApplicable,
    /// `kind: Service` with no `group`, or the group that defaults to
    /// (`gateway.networking.k8s.io`, as a cluster stores it), or `group: core`: not a Service, and no controller
    /// arbitrates it (as [`Verdict::NotApplicable`]), but almost surely a core Service written
    /// wrong; the fix is `group: ""`.
    NotAService {
        /// The group after defaulting: `gateway.networking.k8s.io` or `core`.
        group: String,
    },
}

impl Verdict {
    /// What `me` makes of this verdict.
    pub fn view(&self, me: &Identity, registry: &Registry) -> Ownership {
        match self {
            Verdict::Owned {
                owners,
                level,
                evidence,
            } => {
                let mine = owners.names().iter().any(|o| registry.is_me(me, o));
                let (owners, level, evidence) = (owners.clone(), *level, evidence.clone());
                if mine {
                    Ownership::Owned {
                        owners,
                        level,
                        evidence,
                    }
                } else {
                    Ownership::Foreign {
                        owners,
                        level,
                        evidence,
                    }
                }
            }
            Verdict::Conflict {
                candidates,
                level,
                evidence,
            } => Ownership::Conflict {
                candidates: candidates.clone(),
                level: *level,
                evidence: evidence.clone(),
                candidate: candidates.names().iter().any(|o| registry.is_me(me, o)),
            },
            Verdict::Unclaimed => Ownership::Unclaimed,
            Verdict::Pending { waiting_on, level } => Ownership::Pending {
                waiting_on: waiting_on.clone(),
                level: *level,
            },
            Verdict::NotApplicable => Ownership::NotApplicable,
            Verdict::NotAService { group } => Ownership::NotAService {
                group: group.clone(),
            },
        }
    }

    /// The owners, when owned.
    pub fn owners(&self) -> Option<&Owners> {
        match self {
            Verdict::Owned { owners, .. } => Some(owners),
            _ => None,
        }
    }
}

/// Where a [`Verdict`] is in a decision's verdict table. Routes share verdicts (every route
/// whose parent Service gives no signal in one namespace has the same one), so decisions store
/// each distinct verdict once and a 4-byte id per (route, parent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VerdictId(u32);

impl VerdictId {
    /// The id of table entry `index`. A table never nears 2^32 entries (each is at least 40
    /// bytes: 160 GiB); saturating keeps this total without a panic path.
    pub(crate) fn at(index: usize) -> Self {
        VerdictId(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// The table index.
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// What one controller (`me`) makes of a [`Verdict`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "decision", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Ownership {
    /// `me` is among the owners: program it and write status.
    Owned {
        /// All owners (including `me`).
        owners: Owners,
        /// The rule that decided.
        level: Level,
        /// The signal.
        evidence: Evidence,
    },
    /// Someone else owns it: do not program it, do not write status for it.
    Foreign {
        /// The owners.
        owners: Owners,
        /// The rule that decided.
        level: Level,
        /// The signal.
        evidence: Evidence,
    },
    /// Contested: nobody programs it; each candidate writes `Accepted=False`,
    /// reason `OwnershipConflict`.
    Conflict {
        /// The claimants.
        candidates: Owners,
        /// The level where the claims collided.
        level: Level,
        /// The signal.
        evidence: Evidence,
        /// Whether `me` is one of the candidates.
        candidate: bool,
    },
    /// No rule names anyone.
    Unclaimed,
    /// Waiting for missing objects; keep doing whatever was done before (see `handoff`).
    Pending {
        /// The missing objects.
        waiting_on: Vec<ObjectKey>,
        /// The rule that needed them.
        level: Level,
    },
    /// Not a parent this arbiter decides.
    NotApplicable,
    /// Not a parent this arbiter decides: `kind: Service` in group `group`, not the core group
    /// (see [`Verdict::NotAService`]).
    NotAService {
        /// The group after defaulting.
        group: String,
    },
}

impl Ownership {
    /// Whether `me` should program this parent (absent a handoff).
    pub fn is_owned(&self) -> bool {
        matches!(self, Ownership::Owned { .. })
    }
}

fn not_a_service(f: &mut fmt::Formatter<'_>, group: &str) -> fmt::Result {
    let written = if group == "core" {
        "group core is not the core API group"
    } else {
        "kind Service in group gateway.networking.k8s.io (what an omitted group defaults to) is not the core Service, and no controller implements it"
    };
    write!(
        f,
        "not applicable: not a Service (did you mean group: \"\"?): {written}; nobody owns it"
    )
}

fn list_refs(f: &mut fmt::Formatter<'_>, refs: &[ObjectKey]) -> fmt::Result {
    for (i, r) in refs.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{r}")?;
    }
    Ok(())
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Owned {
                owners,
                level,
                evidence,
            } => {
                let shared = if owners.len() > 1 { " (shared)" } else { "" };
                write!(f, "owned by {owners}{shared}, decided by {level}: {evidence}")
            }
            Verdict::Conflict {
                candidates,
                level,
                evidence,
            } => write!(
                f,
                "conflict between {candidates} at {level}: {evidence}; nobody programs it"
            ),
            Verdict::Unclaimed => f.write_str(
                "unclaimed: no ladder level names a controller and no registration is the default",
            ),
            Verdict::Pending { waiting_on, level } => {
                f.write_str("pending: waiting for ")?;
                list_refs(f, waiting_on)?;
                write!(f, " (needed by {level}); nobody takes over meanwhile")
            }
            Verdict::NotApplicable => f.write_str(
                "not applicable: the parent is neither a Gateway nor a core Service (group \"\"), and no registration claims its kind",
            ),
            Verdict::NotAService { group } => not_a_service(f, group),
        }
    }
}

impl fmt::Display for Ownership {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ownership::Owned {
                owners,
                level,
                evidence,
            } => {
                let shared = if owners.len() > 1 { " (shared)" } else { "" };
                write!(
                    f,
                    "owned by {owners}{shared}, decided by {level}: {evidence}"
                )
            }
            Ownership::Foreign {
                owners,
                level,
                evidence,
            } => write!(
                f,
                "foreign: owned by {owners}, decided by {level}: {evidence}"
            ),
            Ownership::Conflict {
                candidates,
                level,
                evidence,
                candidate,
            } => {
                write!(
                    f,
                    "conflict between {candidates} at {level}: {evidence}; nobody programs it"
                )?;
                if *candidate {
                    f.write_str(" (this controller is a candidate and reports OwnershipConflict)")?;
                }
                Ok(())
            }
            Ownership::Unclaimed => fmt::Display::fmt(&Verdict::Unclaimed, f),
            Ownership::Pending { waiting_on, level } => {
                f.write_str("pending: waiting for ")?;
                list_refs(f, waiting_on)?;
                write!(f, " (needed by {level}); nobody takes over meanwhile")
            }
            Ownership::NotApplicable => fmt::Display::fmt(&Verdict::NotApplicable, f),
            Ownership::NotAService { group } => not_a_service(f, group),
        }
    }
}

/// One (route, parentRef as written): the route and the index of the parentRef in its spec.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct PairKey {
    /// The route.
    pub route: ObjectKey,
    /// The index in `spec.parentRefs`.
    pub parent_index: usize,
}

impl fmt::Display for PairKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} parentRefs[{}]", self.route, self.parent_index)
    }
}
