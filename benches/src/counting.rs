//! A counting global allocator for allocation tests and memory measurements.
//!
//! `unsafe` is allowed here only: implementing `GlobalAlloc` requires it, and the
//! implementation only forwards to the system allocator while counting.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};

/// Counts allocations (and live bytes) while `enabled`.
#[derive(Debug)]
pub struct Counting {
    enabled: AtomicBool,
    allocations: AtomicUsize,
    live_bytes: AtomicIsize,
}

impl Counting {
    /// A disabled counter.
    pub const fn new() -> Self {
        Self {
            enabled: AtomicBool::new(false),
            allocations: AtomicUsize::new(0),
            live_bytes: AtomicIsize::new(0),
        }
    }
    /// Starts counting from zero.
    pub fn start(&self) {
        self.allocations.store(0, Ordering::SeqCst);
        self.live_bytes.store(0, Ordering::SeqCst);
        self.enabled.store(true, Ordering::SeqCst);
    }
    /// Stops counting; returns (allocations, live bytes allocated meanwhile).
    pub fn stop(&self) -> (usize, isize) {
        self.enabled.store(false, Ordering::SeqCst);
        (
            self.allocations.load(Ordering::SeqCst),
            self.live_bytes.load(Ordering::SeqCst),
        )
    }
}

impl Default for Counting {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counters are plain atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if self.enabled.load(Ordering::Relaxed) {
            self.allocations.fetch_add(1, Ordering::Relaxed);
            self.live_bytes
                .fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if self.enabled.load(Ordering::Relaxed) {
            self.live_bytes
                .fetch_sub(layout.size() as isize, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if self.enabled.load(Ordering::Relaxed) {
            self.allocations.fetch_add(1, Ordering::Relaxed);
            self.live_bytes.fetch_add(
                new_size as isize - layout.size() as isize,
                Ordering::Relaxed,
            );
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
