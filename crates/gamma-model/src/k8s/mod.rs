//! The Kubernetes core (and discovery) subset that routing needs: `Service`, `Namespace`,
//! `EndpointSlice`. Own types, no k8s-openapi dependency; unknown fields are ignored.

mod endpointslice;
mod namespace;
mod service;

pub use endpointslice::*;
pub use namespace::*;
pub use service::*;
