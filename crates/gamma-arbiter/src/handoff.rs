//! Make-before-break handoff: when ownership of a parent moves from A to B, A keeps
//! programming its data plane ([`Directive::Retain`]) until B's status entry shows
//! `Accepted=True` at the route's current generation, or a grace period passes. Time is an
//! input; nothing here reads a clock.

use std::collections::{BTreeMap, BTreeSet};

use gamma_model::ObjectKey;
use gamma_model::gateway::{ParentReference, RouteStatus, reasons::ACCEPTED};
use gamma_model::meta::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::decision::{Owners, Ownership, PairKey};
use crate::registry::Registry;

/// What `me`'s data plane should do with one (route, parent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "directive", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Directive {
    /// `me` owns it: program it.
    Program,
    /// `me` no longer owns it but keeps its current programming until the new owners accept
    /// (or `deadline` passes). Do not write status for it.
    Retain {
        /// The new owners (empty when nobody owns it now: conflict, pending or unclaimed).
        waiting_for: Owners,
        /// When `me` stops regardless.
        deadline: Time,
    },
    /// Not `me`'s: leave it alone.
    Ignore,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Window {
    to: Owners,
    deadline: Time,
}

/// Per-controller handoff state: which pairs `me` programs and which it is handing off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handoff {
    grace_seconds: i64,
    programmed: BTreeSet<PairKey>,
    windows: BTreeMap<PairKey, Window>,
}

impl Handoff {
    /// A tracker with this grace period (seconds a handoff may last at most).
    pub fn new(grace_seconds: i64) -> Self {
        Handoff {
            grace_seconds,
            programmed: BTreeSet::new(),
            windows: BTreeMap::new(),
        }
    }

    /// The directive for `pair` given `me`'s current `decision`, and records it. `status` is
    /// the route's current status and `generation` its `metadata.generation`; `parent_ref` is
    /// the parentRef of `pair` as written.
    #[allow(clippy::too_many_arguments)] // each input is a distinct fact; a struct would only rename them
    pub fn directive(
        &mut self,
        pair: &PairKey,
        decision: &Ownership,
        parent_ref: &ParentReference,
        status: &RouteStatus,
        generation: i64,
        registry: &Registry,
        now: Time,
    ) -> Directive {
        if decision.is_owned() {
            self.windows.remove(pair);
            self.programmed.insert(pair.clone());
            return Directive::Program;
        }
        let to = match decision {
            Ownership::Foreign { owners, .. } => owners.clone(),
            _ => Owners::default(),
        };
        if self.programmed.remove(pair) {
            self.windows.insert(
                pair.clone(),
                Window {
                    to: to.clone(),
                    deadline: now.plus_seconds(self.grace_seconds),
                },
            );
        }
        let Some(w) = self.windows.get_mut(pair) else {
            return Directive::Ignore;
        };
        w.to = to;
        let accepted = !w.to.is_empty()
            && status.parents.iter().any(|e| {
                e.parent_ref == *parent_ref
                    && registry.belongs_to(&e.controller_name, w.to.names())
                    && e.conditions
                        .iter()
                        .any(|c| c.is_true(ACCEPTED) && c.observed_generation == Some(generation))
            });
        if accepted || now >= w.deadline {
            self.windows.remove(pair);
            Directive::Ignore
        } else {
            Directive::Retain {
                waiting_for: w.to.clone(),
                deadline: w.deadline,
            }
        }
    }

    /// Records that `me` programs `pair` without a decision: for a reader that starts from what
    /// the cluster already says (`me`'s own entry for the pair in the stored route status, as
    /// `gamma_controller::stored_handoff_directives` reads it), so that the next
    /// [`Handoff::directive`] for a pair `me` no longer owns hands it off make-before-break
    /// instead of dropping it at once. A pair already being handed off is left as it is.
    pub fn resume(&mut self, pair: PairKey) {
        if !self.windows.contains_key(&pair) {
            self.programmed.insert(pair);
        }
    }

    /// Forgets every pair of a deleted route (its data plane config goes with it).
    pub fn forget_route(&mut self, route: &ObjectKey) {
        self.programmed.retain(|p| &p.route != route);
        self.windows.retain(|p, _| &p.route != route);
    }

    /// The pairs currently being handed off.
    pub fn in_handoff(&self) -> impl Iterator<Item = &PairKey> {
        self.windows.keys()
    }
}
