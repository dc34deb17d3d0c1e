//! Shared pieces of the gamma-rs fuzz targets: a structural generator of resources ([`generate`]) and
//! the framing that turns one fuzzer input into a set of resources ([`frame`]).

pub mod frame;
pub mod generate;
