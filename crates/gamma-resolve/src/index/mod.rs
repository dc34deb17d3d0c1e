//! The per-request indexes (layer 4): hostname groups ([`host`]), then paths (exact map,
//! segment-prefix map probed longest first, regexes last: [`path`], built by [`path_build`])
//! or gRPC service/method maps ([`grpc`]). Every index yields candidate ids already in
//! precedence order (sorted at build time), so the first candidate whose remaining
//! conditions hold is the winner.
//!
//! May use: the vocabulary (hashing, hostnames, paths) and the regex pool; never the table,
//! its build or its queries.

mod grpc;
mod host;
mod path;
mod path_build;
#[cfg(test)]
mod tests;

pub(crate) use grpc::{GrpcIndex, GrpcIndexBuilder};
pub(crate) use host::HostIndex;
pub(crate) use path::{PathIndex, PathKeys, same_bytes};
pub(crate) use path_build::{PathIndexBuilder, PathKeysBuilder, PathSlot};

/// A list of candidate ids, sorted by precedence key.
pub(crate) type Cands = Box<[u32]>;
