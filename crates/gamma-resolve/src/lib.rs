//! # gamma-resolve
//!
//! The route-resolution engine of gamma-rs: it compiles the Gateway API / GAMMA routes of a
//! [`gamma_model::Snapshot`] into an indexed table and answers, for one request, exactly what
//! a conformant mesh (or Gateway) must do with it. Rules are cited from the Gateway API
//! (v1.6.1): API reference field docs, GEPs and upstream docs.
//!
//! The pure building blocks are public modules so other tools can reuse them:
//! [`hostname`], [`path`], [`rewrite`], [`redirect`], [`weights`], [`headers`],
//! [`precedence`].
//!
//! With the non-default feature `reference`, the module `reference` holds a naive,
//! obviously-correct matcher to test fast engines against (differential tests, fuzzing); it
//! is slow by design and not for production.
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

pub mod headers;
pub mod hostname;
pub mod path;
pub mod precedence;
pub mod redirect;
#[cfg(feature = "reference")]
pub mod reference;
mod request;
pub mod rewrite;
pub mod weights;

pub use headers::HeaderLookup;
pub use redirect::Scheme;
pub use request::{Header, Protocol, Request, RequestDoc};

mod canonical;
mod cond;
mod decision;
mod index;
pub mod ir;
mod regex_set;
mod resolve;
pub mod status;
mod table;
mod touch;

pub use decision::{
    BackendTarget, Decision, Forward, GrpcCode, Mirror, Redirect, Respond, RespondReason, RouteRef,
    RuleRef, Status, UrlRewrite,
};
pub use table::{
    BuildOptions, ExtensionRefs, MeshHostnames, MeshReferenceGrants, RouteParentKey, RouteTable,
    TableStats,
};
mod lower;

pub use lower::{lower, lower_with};

impl RouteTable {
    /// Builds a table from a snapshot: lowers it (defaults, selectors, readiness, dropped
    /// rules) and compiles it. Never fails as a whole; see [`RouteTable::parent_conditions`].
    pub fn build(snapshot: &gamma_model::Snapshot, options: &BuildOptions) -> Self {
        let opts = gamma_model::validate::ValidateOptions::channel(options.channel);
        Self::from_input(&lower_with(snapshot, &opts), options)
    }
}
mod explain;
pub mod schema;

pub use explain::{CandidateExplanation, Explanation};
