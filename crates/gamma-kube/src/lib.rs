//! gamma-rs against a live cluster: watches into a [`gamma_model::Snapshot`], route status
//! writes that never clobber another controller, and leader election.
//!
//! The pure crates decide; this crate is a thin async shell around them (kube-rs style: the
//! state change is a plain function, only the writer awaits the API server):
//!
//! - [`watches`]: one kube-runtime watcher per kind the engines read (the Gateway API kinds at
//!   the newest version their CRD serves, XMesh, GatewayClass, ReferenceGrant, Service,
//!   Namespace, EndpointSlice), objects decoded straight from the API's JSON with
//!   [`gamma_model::AnyResource::from_value`]; a watcher on CRDs starts and stops the Gateway API
//!   watches as their CRDs appear and go.
//! - [`snapshot_store`] (sync): watcher events into a `Snapshot`; a relist replaces a kind atomically;
//!   ready once every kind listed once.
//! - [`status`]: the only writer. Read-modify-write on the `status` subresource with the
//!   `resourceVersion` precondition, re-merge on 409 with the pure `gamma_arbiter` merge,
//!   bounded backoff, nothing written when nothing changes. Never server-side apply:
//!   `status.parents` is an atomic list.
//! - [`run`] ties them together with a [`gamma_controller::Reconciler`]: debounced,
//!   batched `reconcile_change`, a full reconcile after a relist, leader election on a
//!   `coordination.k8s.io` Lease (kube-lease-manager), graceful shutdown, `tracing` spans and
//!   Prometheus counters ([`metrics`]); configured by [`RunConfig`] and [`LeaseConfig`], stopped
//!   with a [`RunError`] that says whether a restart can help.
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
//! A mesh controller's `main` is a few lines: decode the shared arbiter configuration
//! ([`gamma_arbiter::ArbiterConfig::decode`], YAML or JSON), connect as kubectl would
//! ([`list::connect`]: a kubeconfig, else the pod's service account) and [`run`] until
//! shutdown:
//!
//! ```no_run
//! use gamma_arbiter::{ArbiterConfig, Identity};
//! use gamma_controller::ReconcilerConfig;
//! use gamma_kube::{LeaseConfig, RunConfig, list::connect};
//!
//! async fn controller(shutdown: impl Future<Output = ()>) -> Result<(), Box<dyn std::error::Error>> {
//!     // gamma-kube logs through `tracing` and logs nothing until the binary installs a
//!     // subscriber, e.g. `tracing_subscriber::fmt::init()` (the tracing-subscriber crate).
//!     let arbiter = ArbiterConfig::decode(&std::fs::read_to_string("gamma-config.yaml")?)?;
//!     let me = Identity::of_mesh(&arbiter, "istio").ok_or("no mesh istio in the config")?;
//!     // `new` keys the route tables' hashes with a random seed per process.
//!     let mut config = RunConfig::new(ReconcilerConfig::new(arbiter, me));
//!     // Replicas share the Lease; each holds it under its own name (e.g. the pod's).
//!     config.lease = Some(LeaseConfig::new("default", "gamma-istio", std::env::var("POD_NAME")?));
//!     let client = connect(None, None).await?;
//!     gamma_kube::run(config, client, shutdown).await?; // e.g. tokio::signal::ctrl_c()
//!     Ok(())
//! }
//! ```
//!
//! The runtime stops with a [`RunError`] that says whether a restart can help. Its state
//! ([`State`]: ready, leader, writes, conflicts) can be followed through [`Runner::state`]
//! before [`Runner::run`].
//!
//! Features: `client` (default): everything that talks to an API server (kube-rs with rustls
//! TLS, tokio, tracing, prometheus-client); without it only the pure [`crd_extension`] patches
//! remain. `k8s-v1_33` (default) builds k8s-openapi for the Kubernetes 1.33 API, the oldest
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

#[cfg(feature = "client")]
pub mod bundle;
#[cfg(feature = "client")]
pub mod convert;
pub mod crd_extension;
#[cfg(feature = "gateway-api-rs")]
pub mod gateway_api_rs;
#[cfg(feature = "client")]
pub mod kinds;
#[cfg(feature = "client")]
pub mod list;
#[cfg(feature = "client")]
pub mod metrics;
#[cfg(feature = "client")]
pub mod served;
#[cfg(feature = "client")]
pub mod snapshot_store;
#[cfg(feature = "client")]
pub mod status;
#[cfg(feature = "client")]
pub mod watches;

#[cfg(feature = "client")]
mod runtime;

#[cfg(feature = "client")]
pub use runtime::{LeaseConfig, RunConfig, RunError, Runner, State, run};
