//! Status writes on the objects a controller reports on besides routes: Gateways,
//! ListenerSets, BackendTLSPolicies and XAuthorizationPolicies. What `me` wants on each is a
//! [`DesiredObjectStatus`]; [`DesiredObjectStatus::merge_into`] merges it into a copy of the
//! object (the one in the snapshot, or after a write conflict, one read back from the API
//! server) with the pure merges of gamma-arbiter, so the first write and every retry follow one
//! rule.

use std::collections::BTreeSet;

use gamma_arbiter::{
    Decisions, GatewayMergeOutcome, Identity, ListenerSetMergeOutcome, Ownership,
    PolicyMergeOutcome, merge_gateway_status, merge_listener_set_status, merge_policy_status,
};
use gamma_model::gateway::{
    GatewayStatus, ListenerSetStatus, ParentKind, ParentReference, PolicyAncestorStatus,
    PolicyStatus,
};
use gamma_model::meta::Time;
use gamma_model::validate::Bundle;
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot};
use gamma_resolve::RouteTable;
use serde::Serialize;

use crate::supply::{
    NoSupplier, StatusSupplier, add_supplied, supply_gateway, supply_listener_set,
};

/// Whether `me` controls the Gateway `namespace/name`: its GatewayClass names `me` (a Gateway
/// has one controller).
pub fn controls_gateway(snapshot: &Snapshot, me: &Identity, namespace: &str, name: &str) -> bool {
    snapshot
        .gateway(namespace, name)
        .and_then(|gw| snapshot.gateway_class(&gw.spec.gateway_class_name))
        .is_some_and(|c| me.answers_to(&c.spec.controller_name))
}

/// The mesh parent Services (namespace, name) on which `me` owns some route's parentRef: the
/// Service ancestors of a BackendTLSPolicy that are `me`'s to report.
pub fn owned_service_parents(
    decisions: &Decisions,
    snapshot: &Snapshot,
    me: &Identity,
) -> BTreeSet<(String, String)> {
    decisions
        .pairs()
        .filter(|(route, i, _)| {
            matches!(
                decisions.decision(*route, *i, me),
                Some(Ownership::Owned { .. })
            )
        })
        .filter_map(|(route, i, _)| {
            let route = route.to_object_key();
            let pref = snapshot
                .get(&route)
                .and_then(|r| r.as_route())?
                .parent_refs
                .get(i)?;
            matches!(pref.parent_kind_core_alias(), ParentKind::Service).then(|| {
                (
                    pref.namespace_or(&route.namespace).to_owned(),
                    pref.name.clone(),
                )
            })
        })
        .collect()
}

/// What `me` wants on every Gateway, ListenerSet and BackendTLSPolicy of `table`, in that
/// order (each by namespace and name): the Gateways `me` controls, the ListenerSets whose
/// parent Gateway `me` controls (GEP-1713), and on every BackendTLSPolicy `me`'s ancestor
/// entries (the Gateways `me` controls and the Services in `owned_services`; none, to remove
/// entries `me` wrote before, when `me` is responsible for no ancestor of it).
pub fn desired_object_statuses(
    snapshot: &Snapshot,
    table: &RouteTable,
    me: &Identity,
    owned_services: &BTreeSet<(String, String)>,
) -> Vec<(ObjectKey, DesiredObjectStatus)> {
    desired_object_statuses_supplied(snapshot, table, me, owned_services, &NoSupplier, None)
}

/// [`desired_object_statuses`] with what `supplier` supplies added to each (conditions
/// gamma-rs does not compute, a Gateway's addresses; see [`crate::StatusSupplier`]), so that
/// they are written in the same write, stamped with the same generation. With the `bundle`
/// the cluster runs, a Gateway's `AddressesAssigned` is computed where the bundle has it (v1.7
/// experimental, GEP-5093; [`crate::has_routability`]) and supplied addresses keep their
/// `routability` only there; `None` computes no `AddressesAssigned` and strips it.
pub fn desired_object_statuses_supplied(
    snapshot: &Snapshot,
    table: &RouteTable,
    me: &Identity,
    owned_services: &BTreeSet<(String, String)>,
    supplier: &dyn StatusSupplier,
    bundle: Option<Bundle>,
) -> Vec<(ObjectKey, DesiredObjectStatus)> {
    let mut wanted: Vec<(ObjectKey, DesiredObjectStatus)> = Vec::new();
    for g in table.gateway_status() {
        if controls_gateway(snapshot, me, &g.namespace, &g.name) {
            let key = ObjectKey::new(ResourceKind::Gateway, g.namespace.clone(), g.name.clone());
            let mut status = g.to_status();
            if let Some(gw) = snapshot.gateway(&g.namespace, &g.name) {
                let supplied = supplier.gateway(gw, &status);
                supply_gateway(&mut status, gw, supplied, bundle);
            }
            wanted.push((key, DesiredObjectStatus::Gateway(status)));
        }
    }
    for ls in table.listener_set_status() {
        // GEP-1713: the parent Gateway's controller reports on a ListenerSet; one whose parent
        // is missing has no controller to report on it
        let mine = ls
            .gateway
            .as_ref()
            .is_some_and(|g| controls_gateway(snapshot, me, &g.namespace, &g.name));
        if mine {
            let key = ObjectKey::new(
                ResourceKind::ListenerSet,
                ls.namespace.clone(),
                ls.name.clone(),
            );
            let mut status = ls.to_status();
            if let Some(object) = snapshot.listener_set(&ls.namespace, &ls.name) {
                let supplied = supplier.listener_set(object, &status);
                supply_listener_set(&mut status, supplied);
            }
            wanted.push((key, DesiredObjectStatus::ListenerSet(status)));
        }
    }
    for p in table.backend_tls_policy_status() {
        // PolicyStatus.ancestors: "implementations MUST ONLY populate ancestor status for the
        // Ancestor resources they are responsible for"
        let mut entries = p.to_ancestors(|a| match a.kind.as_str() {
            "Gateway" => controls_gateway(snapshot, me, &a.namespace, &a.name),
            "Service" => owned_services.contains(&(a.namespace.clone(), a.name.clone())),
            _ => false,
        });
        let key = ObjectKey::new(
            ResourceKind::BackendTlsPolicy,
            p.namespace.clone(),
            p.name.clone(),
        );
        for e in &mut entries {
            let extra = supplier.policy_ancestor(&key, &e.ancestor_ref, &e.conditions);
            // merge_policy_status stamps every condition of `me`'s entries
            add_supplied(&mut e.conditions, extra, None);
        }
        wanted.push((key, DesiredObjectStatus::BackendTlsPolicy(entries)));
    }
    wanted
}

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
    /// `me`'s entries on an XAuthorizationPolicy (GEP-3779, proposal): one, for the policy's
    /// Namespace ([`crate::authorization_policy_statuses`]), merged as a BackendTLSPolicy's are.
    XAuthorizationPolicy(Vec<PolicyAncestorStatus>),
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
    /// `XAuthorizationPolicy.status`.
    XAuthorizationPolicy(PolicyStatus),
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
    /// Merges this into `object`'s stored status for `me`, as computed for the object's
    /// `generation` (that of the copy the desired status was computed from: a copy read back
    /// after a conflict may be newer, and its status must not claim a generation nobody
    /// computed it for).
    pub fn merge_into(
        &self,
        object: &AnyResource,
        generation: i64,
        me: &Identity,
        now: Time,
    ) -> ObjectMerge {
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
                merge_policy(p.status.as_ref(), desired, me, generation, now)
                    .map_status(ObjectStatus::BackendTlsPolicy)
            }
            (
                DesiredObjectStatus::XAuthorizationPolicy(desired),
                AnyResource::XAuthorizationPolicy(p),
            ) => merge_policy(p.status.as_ref(), desired, me, generation, now)
                .map_status(ObjectStatus::XAuthorizationPolicy),
            _ => ObjectMerge::WrongKind,
        }
    }
}

/// A policy's stored status merged with `me`'s entries: [`ObjectMerge`] with the bare
/// [`PolicyStatus`], which the caller wraps in its kind's [`ObjectStatus`].
fn merge_policy(
    stored: Option<&PolicyStatus>,
    desired: &[PolicyAncestorStatus],
    me: &Identity,
    generation: i64,
    now: Time,
) -> PolicyMerge {
    let empty = PolicyStatus::default();
    match merge_policy_status(stored.unwrap_or(&empty), desired, me, generation, now) {
        PolicyMergeOutcome::Write { status, dropped } => PolicyMerge::Write { status, dropped },
        PolicyMergeOutcome::Stale { stored, known } => PolicyMerge::Stale { stored, known },
        _ => PolicyMerge::Unchanged,
    }
}

enum PolicyMerge {
    Write {
        status: PolicyStatus,
        dropped: Vec<ParentReference>,
    },
    Stale {
        stored: i64,
        known: i64,
    },
    Unchanged,
}

impl PolicyMerge {
    fn map_status(self, wrap: fn(PolicyStatus) -> ObjectStatus) -> ObjectMerge {
        match self {
            PolicyMerge::Write { status, dropped } => ObjectMerge::Write {
                status: wrap(status),
                dropped,
            },
            PolicyMerge::Stale { stored, known } => ObjectMerge::Stale { stored, known },
            PolicyMerge::Unchanged => ObjectMerge::Unchanged,
        }
    }
}
