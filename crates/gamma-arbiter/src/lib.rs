//! Deterministic controller ownership for Gateway API routes when several meshes and gateways
//! share a cluster, and safe status writing.
//!
//! Every controller embedding the arbiter computes, from the same [`ArbiterConfig`] and
//! [`gamma_model::Snapshot`], the same [`Verdict`] for every (route, parentRef as written):
//!
//! - **Gateway and ListenerSet parents:** the GatewayClass `controllerName` decides.
//! - **Service parents:** the first level of this ladder that yields any candidate decides;
//!   lower levels are never mixed in:
//!   1. `parentRef.controllers`, else the route annotation `gamma.rs/controllers`;
//!   2. the Service annotation `gamma.rs/controller`, then the delegation label
//!      `istio.io/use-waypoint` naming a Gateway, on the Service, else on its Namespace (as
//!      Istio's ambient waypoint lookup reads it), resolved through its GatewayClass;
//!   3. the Namespace label `gamma.rs/mesh` naming a mesh (the route's namespace, which for a
//!      producer route is also the Service's);
//!   4. registration namespace selectors (two matches: [`Verdict::Conflict`]);
//!   5. the registration flagged `default`.
//! - Unknown names never fall through; missing objects give [`Verdict::Pending`]; ties are
//!   never broken silently.
//!
//! Each controller then reads its own [`Ownership`] ([`Verdict::view`]), computes its desired
//! status entries ([`desired_entries`]), writes them through the pure
//! [`merge()`], and follows the make-before-break [`Handoff`] directives. Keys are
//! configurable ([`Keys`]). Design notes: `docs/ownership.md` and `docs/status-protocol.md`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

mod arbiter;
mod config;
mod decision;
mod dense;
mod gateway_merge;
mod handoff;
mod index;
mod ladder;
mod merge;
mod policy_merge;
mod registry;
mod route_key;
mod route_verdicts;
mod routes;
mod status;

pub use arbiter::{Arbiter, Decisions};
pub use config::{
    ArbiterConfig, ConfigDecodeError, ConfigError, ConfigErrors, GroupKind, Keys, MeshRegistration,
    NONE_VALUE,
};
pub use decision::{Evidence, Level, Owners, Ownership, PairKey, Verdict};
pub use gateway_merge::{
    GatewayMergeOutcome, ListenerSetMergeOutcome, MAX_LISTENERS, OWN_TYPES, TRANSIENT_TYPES,
    merge_gateway_status, merge_listener_set_status,
};
pub use handoff::{Directive, Handoff};
pub use ladder::UNKNOWN_MESH_PREFIX;
pub use merge::{
    MAX_CONDITIONS, MAX_PARENTS, MergeOutcome, merge, merge_outcome, same_ignoring_order_and_time,
};
pub use policy_merge::{MAX_ANCESTORS, PolicyMergeOutcome, merge_policy_status};
pub use registry::{Identity, Mesh, Registry, RegistryDiagnostic};
pub use route_key::{RouteKey, RouteName};
pub use route_verdicts::RouteVerdicts;
pub use status::{DesiredStatus, ParentConditions, desired_entries};
