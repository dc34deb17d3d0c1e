//! The computed statuses in the wire types of gamma-model, ready to merge into what is stored
//! (`gamma_arbiter::merge_gateway_status`): conditions without `observedGeneration` or
//! `lastTransitionTime`, which the merge stamps.

use gamma_model::gateway::{self as model, ConditionStatus};
use gamma_model::meta::Time;

use crate::gateway_status::GatewayStatus;
use crate::status::RouteCondition;

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
    /// The Gateway's computed status as a wire `GatewayStatus`: its conditions and its
    /// listeners (`supportedKinds` in group `gateway.networking.k8s.io`). `addresses` are left
    /// empty: they are the controller's to report, and the merge keeps the stored ones.
    pub fn to_status(&self) -> model::GatewayStatus {
        model::GatewayStatus {
            addresses: Vec::new(),
            conditions: self
                .conditions
                .iter()
                .map(RouteCondition::to_condition)
                .collect(),
            listeners: self
                .listeners
                .iter()
                .map(|l| model::ListenerStatus {
                    name: l.name.clone(),
                    supported_kinds: l
                        .supported_kinds
                        .iter()
                        .map(|k| model::RouteGroupKind {
                            group: Some(model::GROUP.to_owned()),
                            kind: k.as_str().to_owned(),
                        })
                        .collect(),
                    attached_routes: i32::try_from(l.attached_routes).unwrap_or(i32::MAX),
                    conditions: l
                        .conditions
                        .iter()
                        .map(RouteCondition::to_condition)
                        .collect(),
                })
                .collect(),
            attached_listener_sets: None,
        }
    }
}
