//! # gamma-resolve
//!
//! The route-resolution engine of gamma-rs: it compiles the Gateway API / GAMMA routes of a
//! [`gamma_model::Snapshot`] into an indexed [`RouteTable`] and answers, for one [`Request`],
//! exactly what a conformant mesh (or Gateway) must do with it: a [`Decision`]. Rules are cited
//! from the Gateway API (v1.6.1): API reference field docs, GEPs and upstream docs.
//!
//! ## Pipeline
//!
//! 1. [`RouteTable::build`] lowers the snapshot ([`lower`]: each route translated from its
//!    [`gamma_model::ir`] conversion, which applies the defaults and the validation under
//!    [`BuildOptions::channel`]; label selectors, readiness) into the table input ([`input`];
//!    the rules of a valid HTTPRoute without filters, timeouts or retries are read in place
//!    from the snapshot instead, with the same defaults),
//! 2. compiles it ([`RouteTable::from_input`]): attachment of every (route, parentRef),
//!    backend validity, rule compilation, one indexed route set per Service port or listener,
//!    and the (route, parentRef) conditions ([`RouteTable::parent_conditions`]);
//! 3. [`RouteTable::resolve`] answers a request with one hash lookup and index probes, without
//!    allocating; [`RouteTable::explain`] gives the same answer step by step ([`Explanation`]).
//!
//! ## Main types
//!
//! [`RouteTable`] and its [`BuildOptions`] (policies: [`MeshHostnames`],
//! [`MeshReferenceGrants`], [`ExtensionRefs`]; ownership: [`RouteParentKey`]); the request
//! ([`Request`], [`RequestDoc`], [`Header`], [`HeaderLookup`]); the answer ([`Decision`] with
//! [`Forward`], [`Redirect`], [`Respond`]).
//!
//! The pure building blocks are public modules so other tools can reuse them:
//! [`hostname`], [`path`], [`rewrite`], [`redirect`], [`weights`], [`precedence`]; [`status`]
//! holds the condition types and reasons, [`schema`] the JSON Schemas of the JSON shapes.
//!
//! ## Features
//!
//! - `http`: [`HeaderLookup`] for `http::HeaderMap`.
//! - `reference` (not default): the module `reference`, a naive, obviously-correct matcher to
//!   test fast engines against (differential tests, fuzzing); slow by design, not for
//!   production.
//!
//! Design notes: `docs/precedence.md` (match precedence) and `docs/architecture.md`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(clippy::exhaustive_enums)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod backend_tls;
pub mod gateway_status;
pub mod hostname;
pub mod input;
pub mod listener_filter;
pub mod listener_set_status;
pub mod path;
pub mod precedence;
pub mod redirect;
#[cfg(feature = "reference")]
pub mod reference;
pub mod rewrite;
pub mod schema;
pub mod status;
pub mod weights;

mod api;
mod build;
mod cond;
mod decision;
mod explain;
mod fraction;
mod hash;
mod headers;
mod incremental;
mod index;
mod listener;
mod listener_set;
mod lower;
mod regex;
mod request;
mod resolve;
mod status_model;
mod table;
mod timing;
mod trace;
mod view;

pub use decision::{
    BackendTarget, Decision, Forward, GrpcCode, Mirror, Redirect, Respond, RespondReason, RouteRef,
    RuleRef, Status, UrlRewrite,
};
pub use explain::{CandidateExplanation, ConditionCheck, Explanation};
pub use fraction::Fraction;
pub use headers::{HeaderLookup, NoHeaders};
pub use lower::{lower, lower_route, lower_with};
pub use request::{Header, Protocol, Request, RequestDoc, Scheme};
pub use table::{
    BuildOptions, ExtensionRefs, HostnamePrecedence, MeshBinding, MeshHostnames,
    MeshReferenceGrants, RouteParentKey, RouteTable, TableStats,
};
pub use timing::{RetryPolicy, RuleTimeouts, gateway_duration};
pub use trace::{
    Distribution, DistributionError, EditedHeaders, EndShare, Forwarded, HeaderState, Hop,
    HopOutcome, HopRequest, NextClient, Trace, TraceEnd, TraceOptions,
};
pub use view::{
    ActionView, BackendView, BindingView, EntryView, ExcludedView, ExclusionView, FiltersView,
    Frontend, HostView, MatchView, NameView, PathModifierView, PathView, RewriteView, RouteSetKind,
    RuleView, SetView, ValueView,
};
