//! gamma-rs against a live cluster: watches into a [`gamma_model::Snapshot`], route status
//! writes that never clobber another controller, and leader election.
//!
//! The pure crates decide; this crate is a thin async shell around them (kube-rs style: the
//! state change is a plain function, only the writer awaits the API server):
//!
//! - [`watch`]: one kube-runtime watcher per kind the engines read (the Gateway API kinds at
//!   the newest version their CRD serves, XMesh, GatewayClass, ReferenceGrant, Service,
//!   Namespace, EndpointSlice), objects decoded straight from the API's JSON with
//!   [`gamma_model::AnyResource::from_value`]; a watcher on CRDs starts and stops the Gateway API
//!   watches as their CRDs appear and go.
//! - [`store`] (sync): watcher events into a `Snapshot`; a relist replaces a kind atomically;
//!   ready once every kind listed once.
//! - [`status`]: the only writer. Read-modify-write on the `status` subresource with the
//!   `resourceVersion` precondition, re-merge on 409 with the pure `gamma_arbiter` merge,
//!   bounded backoff, nothing written when nothing changes. Never server-side apply:
//!   `status.parents` is an atomic list.
//! - [`run`] ties them together with a [`gamma_controller::Reconciler`]: debounced,
//!   batched `reconcile_change`, a full reconcile after a relist, leader election on a
//!   `coordination.k8s.io` Lease (kube-lease-manager), graceful shutdown, `tracing` spans and
//!   Prometheus counters ([`metrics`]); configured by [`RunConfig`] and [`LeaseConfig`], stopped
//!   with an [`Error`] that says whether a restart can help.
//! - [`bundle`]: which Gateway API release and channel the cluster's CRDs name; the runtime
//!   validates routes by it and switches rules in place when the CRDs are upgraded.
//! - [`list`]: one list of every kind, no watch (a cluster's objects as they are now).
//! - [`crd_extension`]: the `parentRefs[].controllers` CRD extension (the JSON patch that
//!   declares it in the route CRDs, generated from gamma-model's schema) and whether the
//!   installed CRDs declare it; where they do not, ladder level 1 reads only the route
//!   annotation.
//! - [`convert`]: Service, Namespace and EndpointSlice to and from k8s-openapi.
//! - `gateway_api_rs` (feature `gateway-api-rs`): the Gateway API kinds to and from the
//!   `gateway-api` crate's types (0.22, Gateway API v1.5.1), refusing with the field path
//!   what v1.5.1 cannot hold.
//!
//! Features: `k8s-v1_33` (default) builds k8s-openapi for the Kubernetes 1.33 API, the oldest
//! k8s-openapi 0.29 supports; every type read here is GA there and served by newer API
//! servers. k8s-openapi allows one version feature per build: a binary choosing another turns
//! off this crate's default features and enables `k8s-openapi/v1_*` itself.
//!
//! `gateway-api-rs` (off by default) adds gateway-api 0.22, which is built on kube 4 and
//! k8s-openapi 0.28: a second Kubernetes type stack beside this crate's kube 5 and
//! k8s-openapi 0.29. Two k8s-openapi releases can share a build (each has its own `links`
//! key), but each needs its own version feature; the feature enables 0.28's `v1_33`. It costs
//! about half a minute to a minute of extra compilation (k8s-openapi 0.28, kube-core 4,
//! gateway-api with its experimental types), and the feature needs Rust 1.92
//! (gateway-api's minimum).
//!
//! How watches, readiness, status writes, leader election and handoff fit together:
//! `docs/kube.md` in the repository.
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

pub mod bundle;
pub mod convert;
pub mod crd_extension;
#[cfg(feature = "gateway-api-rs")]
pub mod gateway_api_rs;
pub mod kinds;
pub mod list;
pub mod metrics;
pub mod status;
pub mod store;
pub mod watch;

mod runtime;

pub use runtime::{Error, LeaseConfig, RunConfig, Runtime, State, run};
