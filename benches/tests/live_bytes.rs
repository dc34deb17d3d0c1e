//! `live_bytes` must equal what is really held at the end of a stretch, also when the memory
//! was grown and shrunk by reallocation (the memory figures of benches/README.md rest on it).
#![allow(clippy::unwrap_used)]

use std::alloc::System;

use gamma_benches::counting::{INSTRUMENTED_SYSTEM, Region, StatsAlloc, live_bytes};

#[global_allocator]
static ALLOC: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[test]
fn live_bytes_counts_reallocated_buffers_once() {
    let region = Region::new(ALLOC);
    let mut grown: Vec<u64> = Vec::new();
    for i in 0..1000u64 {
        // grows by reallocation several times
        grown.push(i);
    }
    let mut shrunk: Vec<u64> = Vec::with_capacity(4096);
    shrunk.extend(0..10u64);
    shrunk.shrink_to_fit();
    let held = (grown.capacity() + shrunk.capacity()) * std::mem::size_of::<u64>();
    let live = live_bytes(&region.change());
    assert_eq!(live, isize::try_from(held).unwrap());
    drop((grown, shrunk));
}
