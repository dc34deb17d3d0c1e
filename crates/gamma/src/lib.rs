//! gamma-rs: the Kubernetes Gateway API for service meshes (GAMMA), as one embeddable core.
//!
//! - [`model`]: typed, validated Gateway API, XMesh and Kubernetes core models, and the
//!   [`model::Snapshot`] every engine reads.
//! - [`resolve`]: compiled, explainable route tables.
//! - [`arbiter`]: deterministic controller ownership when several meshes and gateways share a
//!   cluster, and safe status writing.
//! - [`controller`]: the embedding API tying them together
//!   ([`controller::Controller::reconcile`]).
//!
//! ```
//! use gamma::model::{Snapshot, Validate, decode};
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

pub use gamma_arbiter as arbiter;
pub use gamma_model as model;
pub use gamma_resolve as resolve;

pub mod controller;
