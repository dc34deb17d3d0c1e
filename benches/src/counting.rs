//! Allocation counting for the zero-allocation test and the memory measurements.
//!
//! Built on `stats_alloc`, whose instrumented allocator forwards to the system allocator while
//! counting, so no `unsafe` is needed here: the test or binary installs
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;
//! ```
//!
//! and measures a stretch of code with a [`Region`].

pub use stats_alloc::{INSTRUMENTED_SYSTEM, Region, Stats, StatsAlloc};

/// Heap allocations (fresh allocations and reallocations) in `stats`.
pub fn allocations(stats: &Stats) -> usize {
    stats.allocations + stats.reallocations
}

/// Bytes still live at the end of the measured stretch: allocated minus freed, plus growth by
/// reallocation.
pub fn live_bytes(stats: &Stats) -> isize {
    let allocated = isize::try_from(stats.bytes_allocated).unwrap_or(isize::MAX);
    let freed = isize::try_from(stats.bytes_deallocated).unwrap_or(isize::MAX);
    allocated - freed + stats.bytes_reallocated
}
