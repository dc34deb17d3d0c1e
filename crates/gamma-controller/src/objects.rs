//! Status writes on the objects a gateway controller reports on besides routes: Gateways,
//! ListenerSets and BackendTLSPolicies. What `me` wants on each is a [`DesiredObjectStatus`];
//! [`DesiredObjectStatus::merge_into`] merges it into a copy of the object (the one in the
//! snapshot, or after a write conflict, one read back from the API server) with the pure merges
//! of gamma-arbiter, so the first write and every retry follow one rule.

use gamma_arbiter::{
    GatewayMergeOutcome, Identity, ListenerSetMergeOutcome, PolicyMergeOutcome,
    merge_gateway_status, merge_listener_set_status, merge_policy_status,
};
use gamma_model::AnyResource;
use gamma_model::gateway::{
    GatewayStatus, ListenerSetStatus, ParentReference, PolicyAncestorStatus, PolicyStatus,
};
use gamma_model::meta::Time;
use serde::Serialize;

/// What `me` wants on the status of one Gateway, ListenerSet or BackendTLSPolicy: the computed
/// status, unstamped (the merge stamps `observedGeneration` and `lastTransitionTime`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DesiredObjectStatus {
    /// A Gateway `me` controls: its computed conditions, listeners and
    /// `attachedListenerSets` ([`gamma_arbiter::merge_gateway_status`]).
    Gateway(GatewayStatus),
    /// A ListenerSet whose parent Gateway `me` controls
    /// ([`gamma_arbiter::merge_listener_set_status`]).
    ListenerSet(ListenerSetStatus),
    /// `me`'s ancestor entries on a BackendTLSPolicy, one per ancestor `me` is responsible for
    /// ([`gamma_arbiter::merge_policy_status`]; other controllers' entries stay as stored).
    BackendTlsPolicy(Vec<PolicyAncestorStatus>),
}

/// A status to write on a Gateway, ListenerSet or BackendTLSPolicy; serializes as the bare
/// `status` object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ObjectStatus {
    /// `Gateway.status`.
    Gateway(GatewayStatus),
    /// `ListenerSet.status`.
    ListenerSet(ListenerSetStatus),
    /// `BackendTLSPolicy.status`.
    BackendTlsPolicy(PolicyStatus),
}

/// The result of [`DesiredObjectStatus::merge_into`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ObjectMerge {
    /// Write this status on the copy merged into (its `resourceVersion` as the precondition).
    Write {
        /// The status.
        status: ObjectStatus,
        /// Ancestor entries of `me` left out because a policy's list is at its 16-entry cap.
        dropped: Vec<ParentReference>,
    },
    /// Nothing would change: write nothing.
    Unchanged,
    /// The stored status is for a newer generation than the copy: write nothing.
    Stale {
        /// The newest `observedGeneration` stored.
        stored: i64,
        /// The copy's generation.
        known: i64,
    },
    /// The object is not of the kind the desired status is for.
    WrongKind,
}

impl DesiredObjectStatus {
    /// Merges this into `object`'s stored status at `object`'s generation, for `me`.
    pub fn merge_into(&self, object: &AnyResource, me: &Identity, now: Time) -> ObjectMerge {
        let generation = object.metadata().generation_or_zero();
        match (self, object) {
            (DesiredObjectStatus::Gateway(desired), AnyResource::Gateway(g)) => {
                let empty = GatewayStatus::default();
                let stored = g.status.as_ref().unwrap_or(&empty);
                match merge_gateway_status(stored, desired, generation, now) {
                    GatewayMergeOutcome::Write { status } => ObjectMerge::Write {
                        status: ObjectStatus::Gateway(status),
                        dropped: Vec::new(),
                    },
                    GatewayMergeOutcome::Stale { stored, known } => {
                        ObjectMerge::Stale { stored, known }
                    }
                    _ => ObjectMerge::Unchanged,
                }
            }
            (DesiredObjectStatus::ListenerSet(desired), AnyResource::ListenerSet(ls)) => {
                let empty = ListenerSetStatus::default();
                let stored = ls.status.as_ref().unwrap_or(&empty);
                match merge_listener_set_status(stored, desired, generation, now) {
                    ListenerSetMergeOutcome::Write { status } => ObjectMerge::Write {
                        status: ObjectStatus::ListenerSet(status),
                        dropped: Vec::new(),
                    },
                    ListenerSetMergeOutcome::Stale { stored, known } => {
                        ObjectMerge::Stale { stored, known }
                    }
                    _ => ObjectMerge::Unchanged,
                }
            }
            (DesiredObjectStatus::BackendTlsPolicy(desired), AnyResource::BackendTlsPolicy(p)) => {
                let empty = PolicyStatus::default();
                let stored = p.status.as_ref().unwrap_or(&empty);
                match merge_policy_status(stored, desired, me, generation, now) {
                    PolicyMergeOutcome::Write { status, dropped } => ObjectMerge::Write {
                        status: ObjectStatus::BackendTlsPolicy(status),
                        dropped,
                    },
                    PolicyMergeOutcome::Stale { stored, known } => {
                        ObjectMerge::Stale { stored, known }
                    }
                    _ => ObjectMerge::Unchanged,
                }
            }
            _ => ObjectMerge::WrongKind,
        }
    }
}
