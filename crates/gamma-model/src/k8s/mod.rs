//! The Kubernetes core (and discovery) subset that routing needs: `Service`, `Namespace`,
//! `EndpointSlice`, `ConfigMap`, `Secret` (key names only), `Pod` (what authorization reads),
//! `ClusterTrustBundle` (whether it holds PEM). Own types, no k8s-openapi dependency; unknown fields are ignored.

mod cluster_trust_bundle;
mod configmap;
mod endpointslice;
mod namespace;
mod pod;
mod secret;
mod service;

pub use cluster_trust_bundle::*;
pub use configmap::*;
pub use endpointslice::*;
pub use namespace::*;
pub use pod::*;
pub use secret::*;
pub use service::*;
