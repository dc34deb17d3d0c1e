//! gamma-rs: the Kubernetes Gateway API for service meshes (GAMMA), as one embeddable core.
//!
//! **Start here:** a controller embeds [`controller::Reconciler`] (the README's "Using the
//! library" below shows one call); a data plane reads [`resolve::RouteTable`]; `kube` runs it
//! all against a live cluster.
//!
//! - [`model`]: typed, validated Gateway API, XMesh and Kubernetes core models, and the
//!   [`model::Snapshot`] every engine reads.
//! - `resolve` (feature `resolve`, on by default): the route-resolution engine — bind a request
//!   to a Service or Gateway listener, pick the rule by Gateway API precedence, then the
//!   weighted backend, and explain every step.
//! - `arbiter` (feature `arbiter`, on by default): which controller owns each (route, parent)
//!   when several meshes and gateways share a cluster, and status writes that never touch
//!   another controller's entries.
//! - `controller` (feature `controller`, on by default): the embedding API tying them together,
//!   `Reconciler::reconcile(&snapshot, now)` -> the table of what this controller programs,
//!   the status writes to make, its decisions and diagnostics.
//! - `kube` (feature `kube`, off by default): run on a live cluster with kube-rs — watches into
//!   a `Snapshot`, route status writes that never clobber another controller (read-modify-write
//!   with the `resourceVersion` precondition), leader election, metrics; with the feature
//!   `gateway-api-rs`, conversions with the `gateway-api` crate's types.
//! - `resolve::reference` (feature `reference`, off by default): a naive, obviously-correct
//!   matcher to test fast engines against; slow by design, not for production.
//! - `smi` (feature `smi`): migration off the Service Mesh Interface — SMI TrafficSplits and
//!   HTTPRouteGroups converted to GAMMA routes with a report of what could not be expressed,
//!   and an evaluator for SMI TrafficTarget access control.
//!
//! ```
//! use gamma_mesh::model::{Snapshot, Validate, decode};
//!
//! let objects = decode(r#"
//! apiVersion: gateway.networking.k8s.io/v1
//! kind: HTTPRoute
//! metadata: {name: checkout, namespace: shop}
//! spec:
//!   parentRefs: [{group: "", kind: Service, name: checkout, port: 80}]
//!   rules:
//!   - backendRefs: [{name: checkout-v1, port: 8080}]
//! "#)?;
//! let snapshot = Snapshot::from_resources(objects);
//! let route = snapshot.http_route("shop", "checkout").expect("decoded above");
//! assert_eq!(route.spec.parent_refs[0].name, "checkout");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
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

/// gamma-rs against a live cluster (the `gamma-kube` crate, feature `kube`).
#[cfg(feature = "kube")]
pub use gamma_kube as kube;

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

// The repository README's Rust examples are doctests of the facade, so they always compile.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
