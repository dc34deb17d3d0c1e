//! Typed, validated models of the Kubernetes Gateway API and its mesh profile (GAMMA).
//!
//! Layers, as in the `regex` crate's AST → HIR → engine:
//!
//! 1. **Wire types** ([`gateway`], [`xmesh`], [`xbackend`], [`xauthz`], [`k8s`]): faithful serde mirrors of the upstream
//!    CRDs (v1.6.1, standard and experimental channels) and of the Kubernetes core subset
//!    routing needs. Unknown enum values decode into `Unknown(String)` variants and unknown
//!    fields are ignored, so a newer Gateway API never makes an object undecodable.
//! 2. **Validation** ([`Validate`], options and the rest in [`validate`]): every CRD marker and
//!    CEL rule, as typed errors with field paths.
//! 3. **Defaulted IR** ([`ir`]): routes with every API-server default applied, in types that
//!    cannot hold invalid values, converted whole or rule by rule (partially invalid routes).
//! 4. The engines (`gamma-resolve`, `gamma-arbiter`) read a [`Snapshot`] and the IR; passes
//!    over every route or Service can read the snapshot's compact [`digest`]s first.
//!
//! ## Main types
//!
//! [`AnyResource`] (any decoded object) and [`ResourceKind`]; [`ObjectKey`] (kind, namespace,
//! name); [`RouteKind`] and [`RouteView`] (what engines read from a route of any kind);
//! [`Snapshot`], the indexed set of objects every engine reads, with [`ParentKey`];
//! [`decode()`], [`decode_documents`] and [`DecodeOptions`] (what they return with positions in
//! [`decode`](mod@decode)); the [`Validate`] trait and [`ValidationErrors`] (options, field
//! checks and update rules in [`validate`]); the IR route [`ir::Route`]; JSON Schemas through
//! [`schema`]. Each public item has one path: a main type at the root is not also in its module.
//!
//! gamma-rs extensions that are not upstream API are marked as such; the main one is
//! [`gateway::ParentReference::controllers`] (proposal gateway-api#3444). [`xauthz`] is a
//! proposal model too: GEP-3779's AuthorizationPolicy, which no release publishes yet.
//!
//! Design notes: `docs/decode.md`, `docs/validation.md`, `docs/schema.md` and
//! `docs/architecture.md`.
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

pub mod decode;
pub mod digest;
pub mod gateway;
pub mod ir;
pub mod k8s;
pub mod meta;
pub mod schema;
pub mod smi;
pub mod validate;
pub mod xauthz;
pub mod xbackend;
pub mod xmesh;
pub mod xtelemetry;

mod chunked;
mod macros;
mod resource;
mod route;
mod snapshot;
mod verdict;

pub use decode::entry::{decode, decode_documents, decode_with};
pub use decode::error::DecodeError;
pub use decode::options::DecodeOptions;
pub use decode::value::decode_value;
pub use resource::{AnyResource, ObjectKey, ResourceKind};
pub use route::{RouteKind, RouteView};
pub use snapshot::{ParentKey, Snapshot};
pub use validate::error::{ValidationError, ValidationErrors};
pub use validate::traits::Validate;
