//! The Kubernetes core (and discovery) subset that routing needs: `Service`, `Namespace`,
//! `EndpointSlice`, `ConfigMap`. Own types, no k8s-openapi dependency; unknown fields are ignored.

mod configmap;
mod endpointslice;
mod namespace;
mod service;

pub use configmap::*;
pub use endpointslice::*;
pub use namespace::*;
pub use service::*;
