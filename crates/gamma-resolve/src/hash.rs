//! The keyed fast hash of the table's maps ([`HashKeys`], [`Map`]): keys from the embedder's
//! seed, so route authors cannot build colliding keys offline.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

/// Keys of the table's hashes, derived from the embedder's seed
/// ([`crate::BuildOptions::hash_seed`]). Route authors choose path keys, hostnames and gRPC
/// names: with an unkeyed hash they could brute-force colliding keys offline and build long
/// probe runs (in the path hash every large index shares, across namespaces) or quadratic
/// inserts while building. Keyed, collisions depend on a value they do not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HashKeys {
    /// Initial state of every hash.
    pub(crate) k0: u64,
    /// Multiplier of the per-word folded multiply (odd, so never zero).
    pub(crate) k1: u64,
}

/// The keys of the default seed (0): tables built without a seed, and maps whose keys route
/// authors do not choose.
impl Default for HashKeys {
    fn default() -> Self {
        Self::new(0)
    }
}

impl HashKeys {
    /// Keys from a seed: both through murmur3's fmix64, so related seeds give unrelated keys.
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            k0: fmix64(seed ^ 0x243f_6a88_85a3_08d3),
            k1: fmix64(seed ^ 0x1319_8a2e_0370_7344) | 1,
        }
    }
}

/// murmur3's 64-bit finaliser.
fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The per-word step of every hash here: a folded multiply (the 128-bit product's halves
/// xored, as in foldhash/wyhash) of the state and word by the secret `k1`. The state after
/// the first word depends on the seed in every bit, so a difference between two keys cannot
/// be cancelled by a later word without knowing the seed (a rotate-xor-multiply step lets a
/// top-bit difference pass through the multiply unchanged, whatever the initial state).
#[inline]
pub(crate) fn mix(h: u64, w: u64, k1: u64) -> u64 {
    let p = u128::from(h ^ w) * u128::from(k1);
    (p as u64) ^ ((p >> 64) as u64)
}

/// Keyed word-wise hasher of the table's hash maps: the keys come from route specs and are
/// probed with request strings; SipHash costs a large share of a lookup, and a keyed
/// multiply is enough to keep route authors from choosing colliding keys (see [`HashKeys`]).
#[derive(Clone, Copy)]
pub(crate) struct FastHasher {
    h: u64,
    pub(crate) k1: u64,
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.h;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = mix(h, u64::from_le_bytes(w), self.k1);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            h = mix(h, tail_word(rest), self.k1);
        }
        self.h = h;
    }
    fn write_u8(&mut self, i: u8) {
        self.h = mix(self.h, u64::from(i), self.k1);
    }
    fn write_u16(&mut self, i: u16) {
        self.h = mix(self.h, u64::from(i), self.k1);
    }
    fn write_u32(&mut self, i: u32) {
        self.h = mix(self.h, u64::from(i), self.k1);
    }
    fn write_u64(&mut self, i: u64) {
        self.h = mix(self.h, i, self.k1);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn finish(&self) -> u64 {
        self.h
    }
}

impl BuildHasher for HashKeys {
    type Hasher = FastHasher;
    #[inline]
    fn build_hasher(&self) -> FastHasher {
        FastHasher {
            h: self.k0,
            k1: self.k1,
        }
    }
}

/// The 1 to 7 bytes after the last full word as one word, without a copy loop or a `memcpy`
/// call (the table's keys are short: IP addresses, paths, names): two overlapping 4-byte
/// reads, or the first, middle and last byte; the length goes into the top byte.
#[inline]
pub(crate) fn tail_word(rest: &[u8]) -> u64 {
    let n = rest.len();
    let w = match (rest.first_chunk::<4>(), rest.last_chunk::<4>()) {
        (Some(a), Some(z)) => {
            (u64::from(u32::from_le_bytes(*a)) << 24) ^ u64::from(u32::from_le_bytes(*z))
        }
        _ => {
            let at = |i: usize| u64::from(rest.get(i).copied().unwrap_or(0));
            at(0) | (at(n / 2) << 8) | (at(n.saturating_sub(1)) << 16)
        }
    };
    w ^ ((n as u64) << 56)
}

/// Hash map with the keyed fast hasher. `Map::default()` uses the default seed: maps whose
/// keys route authors choose are created with the table's [`HashKeys`] instead.
pub(crate) type Map<K, V> = HashMap<K, V, HashKeys>;
