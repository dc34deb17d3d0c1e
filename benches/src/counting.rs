//! Allocation counting for the zero-allocation test and the memory measurements.
//!
//! Built on `stats_alloc`, whose instrumented allocator forwards to the system allocator while
//! counting, so no `unsafe` is needed here: the test or binary installs
//! a global allocator and measures a stretch of code with a [`Region`]:
//!
//! ```
//! use std::alloc::System;
//! use gamma_benches::counting::{INSTRUMENTED_SYSTEM, Region, StatsAlloc, allocations, live_bytes};
//!
//! #[global_allocator]
//! static ALLOC: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;
//!
//! fn main() {
//!     let region = Region::new(ALLOC);
//!     let kept = vec![0u8; 1000];
//!     let change = region.change();
//!     assert_eq!(allocations(&change), 1);
//!     assert_eq!(live_bytes(&change), 1000);
//!     drop(kept);
//! }
//! ```

pub use stats_alloc::{INSTRUMENTED_SYSTEM, Region, Stats, StatsAlloc};

/// Heap allocations (fresh allocations and reallocations) in `stats`.
pub fn allocations(stats: &Stats) -> usize {
    stats.allocations + stats.reallocations
}

/// Bytes still live at the end of the measured stretch: allocated minus freed.
///
/// `stats_alloc` already books a reallocation's growth in `bytes_allocated` (and its shrink in
/// `bytes_deallocated`); `bytes_reallocated` is the same delta again, so it must not be added
/// (doing so counted every `Vec` growth twice; `tests/live_bytes.rs` pins this).
pub fn live_bytes(stats: &Stats) -> isize {
    let allocated = isize::try_from(stats.bytes_allocated).unwrap_or(isize::MAX);
    let freed = isize::try_from(stats.bytes_deallocated).unwrap_or(isize::MAX);
    allocated - freed
}
