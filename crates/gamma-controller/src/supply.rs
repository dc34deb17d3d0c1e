//! What the embedding controller writes itself, supplied for gamma-rs's status writes.
//!
//! gamma-rs computes what it can judge from its input (a route's `Accepted`, a Gateway's
//! listeners, ...). Some conditions only the embedding controller knows: `Programmed` (whether
//! its data plane took the configuration), a Gateway's bound `addresses`, implementation-specific
//! condition types. If the embedder wrote those in a write of its own, every spec change would
//! leave them at the old `observedGeneration` until it caught up, and its write and gamma-rs's
//! would race on the same status. A [`StatusSupplier`] hands them to the [`crate::Reconciler`]
//! instead, which puts them in the same write as the computed status, stamped with the same
//! generation.
//!
//! The rules (docs/status-protocol.md, "Conditions the embedder supplies"):
//!
//! - a supplied condition of a type gamma-rs computes for that object is ignored (the computed
//!   one is written);
//! - supplied conditions are written as given but for `observedGeneration` (the object's
//!   generation) and `lastTransitionTime` (kept while the status is unchanged);
//! - a condition of `me`'s that is neither computed nor supplied is never left at an old
//!   generation: kept when written for the current generation, otherwise refreshed to
//!   `Unknown`/`Pending` (`Programmed` on Gateways, ListenerSets and listeners; any type in
//!   `me`'s own route-parent and policy-ancestor entries);
//! - every other controller's entry, and on a Gateway or ListenerSet every condition type that
//!   is neither computed, supplied nor `Programmed`, stays byte for byte as stored.
//!
//! The supplier is pure: called during reconciliation, it must answer from what the embedder
//! already knows (no I/O, no waiting).

use std::collections::BTreeMap;
use std::fmt;

use gamma_model::ObjectKey;
use gamma_model::gateway::{
    Condition, ConditionStatus, Gateway, GatewayStatus, GatewayStatusAddress, ListenerSet,
    ListenerSetStatus, ParentReference,
};
use gamma_model::meta::Time;
use gamma_model::validate::{Bundle, Channel, Release};

/// Conditions (and, for a Gateway, addresses) the embedder supplies for one Gateway or
/// ListenerSet status write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Supplied {
    /// Conditions of the object itself (e.g. `Programmed`).
    pub conditions: Vec<Condition>,
    /// Conditions per listener name (e.g. each listener's `Programmed`); a name the object's
    /// spec does not have is ignored.
    pub listeners: BTreeMap<String, Vec<Condition>>,
    /// A Gateway's `status.addresses`, as the data plane bound them (with `routability` under
    /// the v1.7 experimental channel, GEP-5093). Empty: the stored addresses stay. Ignored for
    /// a ListenerSet.
    pub addresses: Vec<GatewayStatusAddress>,
}

impl Supplied {
    /// Nothing supplied.
    pub fn new() -> Self {
        Supplied::default()
    }

    /// With a condition of the object.
    pub fn with_condition(mut self, condition: Condition) -> Self {
        self.conditions.push(condition);
        self
    }

    /// With a condition of listener `name`.
    pub fn with_listener_condition(
        mut self,
        name: impl Into<String>,
        condition: Condition,
    ) -> Self {
        self.listeners
            .entry(name.into())
            .or_default()
            .push(condition);
        self
    }

    /// With the Gateway's bound addresses.
    pub fn with_addresses(mut self, addresses: Vec<GatewayStatusAddress>) -> Self {
        self.addresses = addresses;
        self
    }
}

/// A condition to supply: `type`, `status`, `reason`, `message` (`observedGeneration` and
/// `lastTransitionTime` are the merge's).
///
/// ```
/// use gamma_controller::supplied_condition;
/// let c = supplied_condition("Programmed", true, "Programmed", "the data plane took it");
/// assert_eq!((c.type_.as_str(), c.reason.as_str()), ("Programmed", "Programmed"));
/// ```
pub fn supplied_condition(type_: &str, status: bool, reason: &str, message: &str) -> Condition {
    Condition {
        type_: type_.into(),
        status: ConditionStatus::from(status),
        observed_generation: None,
        last_transition_time: Time::UNIX_EPOCH,
        reason: reason.into(),
        message: message.into(),
    }
}

/// The embedding controller's own status, asked for on every status write gamma-rs computes
/// (see the module docs). Every method has a default that supplies nothing.
pub trait StatusSupplier: fmt::Debug + Send + Sync {
    /// For a Gateway `me` controls: `computed` is what gamma-rs will write (before merging).
    fn gateway(&self, gateway: &Gateway, computed: &GatewayStatus) -> Supplied {
        let _ = (gateway, computed);
        Supplied::default()
    }

    /// For a ListenerSet whose parent Gateway `me` controls.
    fn listener_set(&self, listener_set: &ListenerSet, computed: &ListenerSetStatus) -> Supplied {
        let _ = (listener_set, computed);
        Supplied::default()
    }

    /// Extra conditions for `me`'s entry for `parent_ref` in a route's `status.parents`
    /// (`computed`: the entry's conditions as gamma-rs will write them).
    fn route_parent(
        &self,
        route: &ObjectKey,
        parent_ref: &ParentReference,
        computed: &[Condition],
    ) -> Vec<Condition> {
        let _ = (route, parent_ref, computed);
        Vec::new()
    }

    /// Extra conditions for `me`'s entry for `ancestor` in a policy's `status.ancestors`.
    fn policy_ancestor(
        &self,
        policy: &ObjectKey,
        ancestor: &ParentReference,
        computed: &[Condition],
    ) -> Vec<Condition> {
        let _ = (policy, ancestor, computed);
        Vec::new()
    }
}

/// Supplies nothing: every condition gamma-rs does not compute is the embedder's to write
/// (and `Programmed` is refreshed to `Unknown` on a new generation until it is).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSupplier;

impl StatusSupplier for NoSupplier {}

/// `computed` with the `supplied` conditions of other types appended (in their order, one per
/// type), each stamped with `generation` when `stamp` is set.
pub(crate) fn add_supplied(
    computed: &mut Vec<Condition>,
    supplied: Vec<Condition>,
    generation: Option<i64>,
) {
    for mut c in supplied {
        if computed.iter().any(|k| k.type_ == c.type_) {
            continue;
        }
        if let Some(g) = generation {
            c.observed_generation = Some(g);
        }
        computed.push(c);
    }
}

/// A Gateway's desired status with what the embedder supplied: conditions (the Gateway's and
/// its listeners'), and addresses. Under a bundle whose Gateway has no `routability` (anything
/// but v1.7 experimental) the supplied addresses lose it, as the API server would prune it
/// (otherwise every merge would see a difference and write again). Under v1.7 experimental
/// `AddressesAssigned` is computed (GEP-5093), from the addresses supplied, else those stored.
pub(crate) fn supply_gateway(
    desired: &mut GatewayStatus,
    gateway: &Gateway,
    supplied: Supplied,
    bundle: Option<Bundle>,
) {
    let routability = bundle.is_some_and(has_routability);
    add_supplied(&mut desired.conditions, supplied.conditions, None);
    supply_listeners(&mut desired.listeners, supplied.listeners);
    desired.addresses = supplied.addresses;
    if !routability {
        for a in &mut desired.addresses {
            a.routability = None;
        }
        return;
    }
    let stored = gateway
        .status
        .as_ref()
        .map_or(&[][..], |s| &s.addresses[..]);
    let bound = if desired.addresses.is_empty() {
        stored
    } else {
        &desired.addresses[..]
    };
    let c = crate::to_condition(&gamma_resolve::gateway_status::addresses_assigned(
        &gateway.spec.addresses,
        bound,
    ));
    // computed: it replaces a supplied condition of its type
    match desired.conditions.iter_mut().find(|k| k.type_ == c.type_) {
        Some(slot) => *slot = c,
        None => desired.conditions.push(c),
    }
}

/// Whether Gateways of `bundle` have `spec.addresses[].routability`,
/// `status.addresses[].routability` and the `AddressesAssigned` condition: v1.7 and later,
/// experimental channel (GEP-5093 is experimental in v1.7.0).
pub fn has_routability(bundle: Bundle) -> bool {
    bundle.release >= Release::V1_7 && bundle.channel == Channel::Experimental
}

/// A ListenerSet's desired status with what the embedder supplied.
pub(crate) fn supply_listener_set(desired: &mut ListenerSetStatus, supplied: Supplied) {
    add_supplied(&mut desired.conditions, supplied.conditions, None);
    supply_listeners(&mut desired.listeners, supplied.listeners);
}

fn supply_listeners(
    listeners: &mut [gamma_model::gateway::ListenerStatus],
    mut supplied: BTreeMap<String, Vec<Condition>>,
) {
    for l in listeners {
        if let Some(cs) = supplied.remove(&l.name) {
            add_supplied(&mut l.conditions, cs, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A supplied condition of a computed type loses to the computed one; others are appended
    // once per type, stamped when asked.
    #[test]
    fn supplied_conditions_never_replace_computed_ones() {
        let mut computed = vec![supplied_condition("Accepted", true, "Accepted", "")];
        add_supplied(
            &mut computed,
            vec![
                supplied_condition("Accepted", false, "Mine", ""),
                supplied_condition("Programmed", true, "Programmed", ""),
                supplied_condition("Programmed", false, "Again", ""),
            ],
            Some(4),
        );
        assert_eq!(computed.len(), 2);
        assert_eq!(computed[0].reason, "Accepted");
        assert_eq!(computed[1].reason, "Programmed");
        assert_eq!(computed[1].observed_generation, Some(4));
    }

    // Listener conditions go to the listener of that name; unknown names are ignored.
    #[test]
    fn supplied_listener_conditions_go_to_listeners_of_that_name() {
        let mut desired = ListenerSetStatus {
            conditions: Vec::new(),
            listeners: vec![gamma_model::gateway::ListenerStatus {
                name: "a".into(),
                ..Default::default()
            }],
        };
        let supplied = Supplied::new()
            .with_listener_condition("a", supplied_condition("Programmed", true, "P", ""))
            .with_listener_condition("gone", supplied_condition("Programmed", true, "P", ""));
        supply_listener_set(&mut desired, supplied);
        assert_eq!(desired.listeners.len(), 1);
        assert_eq!(desired.listeners[0].conditions.len(), 1);
    }
}
