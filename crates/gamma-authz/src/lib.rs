//! Identity-based authorization for east-west traffic: an evaluator of the proposed Gateway
//! API `AuthorizationPolicy` (GEP-3779), modelled as
//! [`XAuthorizationPolicy`](gamma_model::xauthz::XAuthorizationPolicy) in gamma-model. The
//! resource is a **proposal**: no Gateway API release has it, and this crate follows the GEP
//! text of the v1.7.0 release tree ([`gamma_model::xauthz::GEP`]).
//!
//! The question: may a peer with identity S reach workload D on port P? [`Authorizer::build`]
//! compiles a [`gamma_model::Snapshot`]'s policies and Pods once; [`Authorizer::decide`]
//! answers with a [`Decision`] (allocation-free, reading only the policies that select D), and
//! [`Authorizer::explain`] with an [`Explanation`] naming every selecting policy and, for each
//! rule, the first [`Criterion`] that failed. [`Authorizer::destination`] turns a Pod IP, or a
//! Service IP and port, into workloads.
//!
//! The GEP's semantics, literally:
//!
//! - a request is allowed iff it matches at least one rule of at least one policy selecting the
//!   workload (OR across rules and policies, AND within a rule);
//! - a workload no policy selects gets the baseline ([`Config::baseline`]: allow, as the GEP
//!   says, or deny for a default-deny mesh);
//! - a policy with no rules allows nothing; `sources: []` matches no source, an omitted
//!   `sources` any source;
//! - a port-scoped rule leaves the workload's other ports denied (once a policy selects it);
//! - a ServiceAccount source without a namespace is in the policy's namespace, and matches
//!   only peers in the configured trust domain.
//!
//! Identities are read in three forms ([`Identity::parse`]): SPIFFE URIs, Istio principals and
//! Linkerd identities. Whether an unauthenticated peer is "any source" is
//! [`Config::unauthenticated_is_any_source`]. `docs/authorization.md` explains the choices.
//!
//! Policy status for one controller: [`Authorizer::desired_status`] (GEP-713 `Accepted` with
//! `Accepted`, `Invalid` or `TargetNotFound`; the policy's Namespace as ancestor), to merge with
//! `gamma_arbiter::merge_policy_status`.
//!
//! Translations into Istio and Linkerd policies, with a report of what does not map:
//! [`translate::istio::translate`] and [`translate::linkerd::translate`].
//!
//! Pure: no I/O, no clock, no Kubernetes client.
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

mod destination;
mod engine;
mod explain;
mod identity;
mod report;
mod status;
pub mod translate;

pub use destination::Destination;
pub use engine::{Authorizer, Criterion, Decision, PolicyId, Reason, Verdict, WorkloadId};
pub use explain::{AllowedBy, Explanation, PolicyOutcome, RuleOutcome};
pub use identity::{Baseline, Config, Identity, IdentityError, Subject};
pub use report::{Finding, Report};
pub use status::{AcceptedReason, ancestor_ref};
