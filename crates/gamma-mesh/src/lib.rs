//! gamma-rs: the Kubernetes Gateway API for service meshes (GAMMA), as one embeddable core.
//!
//! **Start here.** A mesh or gateway controller calls one [`controller::Reconciler`] on every
//! change of its [`model::Snapshot`] of the cluster: it answers what the controller owns, the
//! route table it programs ([`resolve::RouteTable`]) and the exact status writes to make,
//! never touching another controller's entries. To run it against a live cluster, the
//! controller runtime [`cluster::run`] (feature `kube`) does the rest: watches into a
//! snapshot, debounced reconciles, safe status writes, leader election and metrics, configured
//! by a [`cluster::RunConfig`]. A data plane reads [`resolve::RouteTable`] alone.
//!
//! | module | crate | feature | what it does |
//! |---|---|---|---|
//! | [`model`] | gamma-model | always | typed, validated Gateway API, XMesh and Kubernetes core models; [`model::decode()`]; the [`model::Snapshot`] every engine reads |
//! | [`resolve`] | gamma-resolve | `resolve` (default) | the route-resolution engine: bind a request to a Service or Gateway listener, pick the rule by Gateway API precedence, then the weighted backend, and explain every step |
//! | [`arbiter`] | gamma-arbiter | `arbiter` (default) | which controller owns each (route, parent) when several meshes and gateways share a cluster, and status writes that never touch another controller's entries |
//! | [`controller`] | gamma-controller | `controller` (default) | the embedding API: [`controller::Reconciler::reconcile`] gives the table of what this controller programs, the status writes to make, its decisions and diagnostics |
//! | [`cluster`] | gamma-kube | `kube` | the controller runtime on a live cluster with kube-rs: [`cluster::run`], watches, route status writes with the `resourceVersion` precondition, leader election on a Lease, Prometheus metrics; with `gateway-api-rs`, conversions with the `gateway-api` crate's types |
//! | [`smi`] | gamma-smi | `smi` | migration off the Service Mesh Interface (SMI TrafficSplits and HTTPRouteGroups as GAMMA routes, with a report of what could not be expressed) and an evaluator for SMI TrafficTarget access control |
//!
//! Further features: `http` (`HeaderLookup` for `http::HeaderMap` in the resolver) and
//! `reference` (`resolve::reference`: a naive, obviously-correct matcher to test fast engines
//! against; slow by design, not for production).
//!
//! The facade's names never shadow kube-rs's or the `kube` crate itself: `use
//! gamma_mesh::cluster;` sits beside `use kube::{Client, Error};`, and the runtime's error is
//! [`cluster::RunError`].
//!
//! Reconciling a snapshot (no cluster needed):
//!
//! ```
//! use gamma_mesh::arbiter::{ArbiterConfig, Identity, MeshRegistration};
//! use gamma_mesh::controller::{Reconciler, ReconcilerConfig};
//! use gamma_mesh::model::{Snapshot, decode, meta::Time};
//!
//! let me = "istio.io/gateway-controller";
//! let config = ArbiterConfig::new([MeshRegistration::new("istio", me)]);
//! let mut reconciler = Reconciler::new(ReconcilerConfig::new(config, Identity::new(me)))?;
//! let snapshot = Snapshot::from_resources(decode(r#"
//! apiVersion: v1
//! kind: List
//! items:
//! - {apiVersion: v1, kind: Namespace, metadata: {name: shop, labels: {gamma.rs/mesh: istio}}}
//! - {apiVersion: v1, kind: Service, metadata: {name: checkout, namespace: shop},
//!    spec: {clusterIP: 10.96.10.20, ports: [{name: http, port: 80}]}}
//! - apiVersion: gateway.networking.k8s.io/v1
//!   kind: HTTPRoute
//!   metadata: {name: checkout, namespace: shop, generation: 1}
//!   spec:
//!     parentRefs: [{group: "", kind: Service, name: checkout, port: 80}]
//!     rules: [{backendRefs: [{name: checkout, port: 80}]}]
//! "#)?);
//! let reconciliation = reconciler.reconcile(&snapshot, Time::parse("2026-12-01T12:00:00Z")?);
//! // One status write: this controller's entry on HTTPRoute shop/checkout.
//! let (route, status) = &reconciliation.status_updates[0];
//! assert_eq!((route.name.as_str(), status.parents[0].controller_name.as_str()), ("checkout", me));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! On a live cluster, the same reconciler runs inside [`cluster::run`]; see the
//! [`cluster`] module for a complete controller `main`.
//!
// Without a feature, its module's links point at the crate's own documentation (with it,
// they resolve as intra-doc links).
#![cfg_attr(
    not(feature = "kube"),
    doc = "[`cluster`]: https://docs.rs/gamma-kube\n[`cluster::run`]: https://docs.rs/gamma-kube/latest/gamma_kube/fn.run.html\n[`cluster::RunConfig`]: https://docs.rs/gamma-kube/latest/gamma_kube/struct.RunConfig.html\n[`cluster::RunError`]: https://docs.rs/gamma-kube/latest/gamma_kube/enum.RunError.html"
)]
#![cfg_attr(not(feature = "smi"), doc = "[`smi`]: https://docs.rs/gamma-smi")]
#![cfg_attr(
    not(feature = "resolve"),
    doc = "[`resolve`]: https://docs.rs/gamma-resolve\n[`resolve::RouteTable`]: https://docs.rs/gamma-resolve/latest/gamma_resolve/struct.RouteTable.html"
)]
#![cfg_attr(
    not(feature = "arbiter"),
    doc = "[`arbiter`]: https://docs.rs/gamma-arbiter"
)]
#![cfg_attr(
    not(feature = "controller"),
    doc = "[`controller`]: https://docs.rs/gamma-controller\n[`controller::Reconciler`]: https://docs.rs/gamma-controller/latest/gamma_controller/struct.Reconciler.html\n[`controller::Reconciler::reconcile`]: https://docs.rs/gamma-controller/latest/gamma_controller/struct.Reconciler.html#method.reconcile"
)]
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

pub use gamma_model as model;

/// The embedding API (the `gamma-controller` crate): [`controller::Reconciler`].
#[cfg(feature = "controller")]
pub use gamma_controller as controller;

/// The controller runtime on a live cluster (the `gamma-kube` crate, feature `kube`):
/// [`cluster::run`] with a [`cluster::RunConfig`]. Named so that it never shadows the `kube`
/// crate beside it.
#[cfg(feature = "kube")]
pub use gamma_kube as cluster;

/// The route-resolution engine (the `gamma-resolve` crate).
#[cfg(feature = "resolve")]
pub use gamma_resolve as resolve;

/// Controller ownership and safe status writing (the `gamma-arbiter` crate).
#[cfg(feature = "arbiter")]
pub use gamma_arbiter as arbiter;

/// Migration off the Service Mesh Interface (the `gamma-smi` crate).
///
/// ```
/// use gamma_mesh::model::{Snapshot, decode};
/// let snapshot = Snapshot::from_resources(decode(r#"
/// apiVersion: access.smi-spec.io/v1alpha3
/// kind: TrafficTarget
/// metadata: {name: api, namespace: shop}
/// spec:
///   destination: {kind: ServiceAccount, name: api}
///   rules: [{kind: HTTPRouteGroup, name: api-routes}]
///   sources: [{kind: ServiceAccount, name: web}]
/// "#)?);
/// // TrafficTargets have no Gateway API equivalent: the conversion reports them...
/// assert_eq!(gamma_mesh::smi::convert(&snapshot).report.findings().len(), 1);
/// // ...and the authorizer evaluates them (deny by default: the route group is missing).
/// let authz = gamma_mesh::smi::Authorizer::build(&snapshot);
/// let v = authz.authorize(&"shop/web".parse()?, &"shop/api".parse()?, &gamma_mesh::smi::AccessRequest::http("GET", "/"));
/// assert!(!v.allowed);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "smi")]
pub use gamma_smi as smi;
