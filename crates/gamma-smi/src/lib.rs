//! Moving off the Service Mesh Interface (SMI) without losing behaviour.
//!
//! - [`convert()`]: SMI TrafficSplits (with their HTTPRouteGroup/TCPRoute matches) become Gateway
//!   API producer routes on the root Service (GAMMA), plus a [`Report`] of everything that could
//!   not be expressed, by object and field.
//! - [`Authorizer`]: SMI TrafficTarget access control (which ServiceAccounts may call which, on
//!   which routes or ports), which has no core Gateway API equivalent, as a pure evaluator.
//! - [`gep::convert_traffic_targets`]: TrafficTargets as the proposed Gateway API
//!   AuthorizationPolicy (GEP-3779, L4 only), with a report of where access is widened (L7
//!   matches dropped), narrowed or equal.
//!
//! The SMI objects themselves are modelled, decoded and validated by
//! [`gamma_model::smi`]; [`matching`] states what an SMI HTTP match means, and
//! `docs/smi-migration.md` explains the choices where SMI is vague.
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

mod authz;
mod convert;
mod gateway_match;
pub mod gep;
pub mod matching;
mod report;
pub mod weights;

pub use authz::{
    AccessDecision, AccessRequest, Authorizer, ParseServiceAccountError, ServiceAccountRef,
};
pub use convert::{Conversion, SOURCE_ANNOTATION, convert};
pub use gateway_match::path_regex_for_gateway;
pub use report::{Finding, Report, Severity};
