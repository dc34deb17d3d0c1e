//! The computed statuses in the wire types of gamma-model, ready to merge into what is stored
//! (`gamma_arbiter::merge_gateway_status`, `merge_listener_set_status`, `merge_policy_status`):
//! conditions without `observedGeneration` or `lastTransitionTime`, which the merge stamps.

use gamma_model::gateway::{self as model, ConditionStatus};
use gamma_model::meta::Time;

use crate::backend_tls::{BackendTlsPolicyStatus, PolicyAncestorRef};
use crate::gateway_status::{GatewayStatus, ListenerStatus};
use crate::listener_set_status::ListenerSetStatus;
use crate::status::RouteCondition;

fn conditions(list: &[RouteCondition]) -> Vec<model::Condition> {
    list.iter().map(RouteCondition::to_condition).collect()
}

impl ListenerStatus {
    /// This listener's computed status as a wire `ListenerStatus` (`supportedKinds` in group
    /// `gateway.networking.k8s.io`).
    pub fn to_status(&self) -> model::ListenerStatus {
        model::ListenerStatus {
            name: self.name.clone(),
            supported_kinds: self
                .supported_kinds
                .iter()
                .map(|k| model::RouteGroupKind {
                    group: Some(model::GROUP.to_owned()),
                    kind: k.as_str().to_owned(),
                })
                .collect(),
            attached_routes: i32::try_from(self.attached_routes).unwrap_or(i32::MAX),
            conditions: conditions(&self.conditions),
        }
    }
}

impl ListenerSetStatus {
    /// The ListenerSet's computed status as a wire `ListenerSetStatus`: its conditions and its
    /// listener entries.
    pub fn to_status(&self) -> model::ListenerSetStatus {
        model::ListenerSetStatus {
            conditions: conditions(&self.conditions),
            listeners: self
                .listeners
                .iter()
                .map(ListenerStatus::to_status)
                .collect(),
        }
    }
}

impl PolicyAncestorRef {
    /// This ancestor as the wire `ancestorRef` (a `ParentReference` with group, kind and
    /// namespace spelled out).
    pub fn to_parent_ref(&self) -> model::ParentReference {
        model::ParentReference {
            group: Some(self.group.clone()),
            kind: Some(self.kind.clone()),
            namespace: Some(self.namespace.clone()),
            name: self.name.clone(),
            ..model::ParentReference::default()
        }
    }
}

impl BackendTlsPolicyStatus {
    /// The policy's computed ancestor entries as wire `PolicyAncestorStatus`es, with an empty
    /// `controllerName` (the writer's, which the merge fills in), for `keep(ancestor)`.
    pub fn to_ancestors(
        &self,
        keep: impl Fn(&PolicyAncestorRef) -> bool,
    ) -> Vec<model::PolicyAncestorStatus> {
        self.ancestors
            .iter()
            .filter(|a| keep(&a.ancestor_ref))
            .map(|a| model::PolicyAncestorStatus {
                ancestor_ref: a.ancestor_ref.to_parent_ref(),
                controller_name: String::new(),
                conditions: conditions(&a.conditions),
            })
            .collect()
    }
}

impl RouteCondition {
    /// This condition as a wire `Condition`, unstamped (no `observedGeneration`, the epoch as
    /// `lastTransitionTime`).
    pub fn to_condition(&self) -> model::Condition {
        model::Condition {
            type_: self.type_.clone(),
            status: ConditionStatus::from(self.status),
            observed_generation: None,
            last_transition_time: Time::UNIX_EPOCH,
            reason: self.reason.clone(),
            message: self.message.clone(),
        }
    }
}

impl GatewayStatus {
    /// The Gateway's computed status as a wire `GatewayStatus`: its conditions, its listeners
    /// (`supportedKinds` in group `gateway.networking.k8s.io`) and `attachedListenerSets` (the
    /// accepted ListenerSets its `allowedListeners` admits). `addresses` are left empty: they
    /// are the controller's to report, and the merge keeps the stored ones.
    pub fn to_status(&self) -> model::GatewayStatus {
        model::GatewayStatus {
            addresses: Vec::new(),
            conditions: conditions(&self.conditions),
            listeners: self
                .listeners
                .iter()
                .map(ListenerStatus::to_status)
                .collect(),
            attached_listener_sets: Some(
                i32::try_from(self.attached_listener_sets).unwrap_or(i32::MAX),
            ),
        }
    }
}
