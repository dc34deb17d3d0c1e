//! gamma-rs: the Kubernetes Gateway API for service meshes (GAMMA), as one embeddable core.
//!
//! - [`model`]: typed, validated Gateway API, XMesh and Kubernetes core models, and the
//!   [`model::Snapshot`] every engine reads.
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

pub use gamma_model as model;
