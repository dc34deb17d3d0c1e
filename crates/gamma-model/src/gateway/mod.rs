//! Wire types of the `gateway.networking.k8s.io` API group, faithful to the upstream CRDs at
//! v1.6.1 (standard and experimental channels).
//!
//! Optional fields stay optional so that "omitted" and "empty" can be told apart where upstream
//! does (`rules: []` is invalid, an omitted `rules` is defaulted). Unknown enum values decode into
//! `Unknown(String)` variants; unknown fields are ignored.

mod gateway_tls;
mod gateways;
mod grpcroute;
mod httproute;
mod l4route;
mod policy;
mod shared;
mod status;

pub use gateway_tls::*;
pub use gateways::*;
pub use grpcroute::*;
pub use httproute::*;
pub use l4route::*;
pub use policy::*;
pub use shared::*;
pub use status::*;

/// The API group of the Gateway API resources.
pub const GROUP: &str = "gateway.networking.k8s.io";

/// The `apiVersion` of the v1 resources.
pub const API_VERSION_V1: &str = "gateway.networking.k8s.io/v1";

pub(crate) fn v1() -> String {
    API_VERSION_V1.to_owned()
}
