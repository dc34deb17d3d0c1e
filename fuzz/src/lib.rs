//! Shared pieces of the gamma-rs fuzz targets: a structural generator of resources
//! ([`generate`]), the framing that turns one fuzzer input into a set of resources ([`frame`]),
//! typed snapshots of them ([`cluster`]) and requests for the resolve targets ([`request`]).

pub mod cluster;
pub mod frame;
pub mod generate;
pub mod request;
