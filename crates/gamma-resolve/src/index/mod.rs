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

/// Slack below this many bytes is kept by [`shrink_slack`]: dropping it reallocates and
/// copies the array, which for an update's small part costs more than the bytes are worth (at
/// most this much per array and part; a full build's slack is far above it and goes).
pub(crate) const SLACK_KEPT: usize = 1024;

/// Drops the slack of an array a build grew by doubling or reserved to an upper bound, unless
/// it is below [`SLACK_KEPT`] bytes.
pub(crate) fn shrink_slack<T>(v: &mut Vec<T>) {
    if (v.capacity() - v.len()).saturating_mul(std::mem::size_of::<T>()) >= SLACK_KEPT {
        v.shrink_to_fit();
    }
}

/// A list of candidate ids, sorted by precedence key.
pub(crate) type Cands = Box<[u32]>;
