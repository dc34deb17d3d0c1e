//! The bindings of a [`RouteTable`](crate::RouteTable): every (address, port, transport)
//! bound, to the part its route sets live in and the binding itself.
//!
//! Stored in shards, each behind its own `Arc`, so that an update copies only the shards
//! holding the keys it rebinds and shares every other one with the previous table. The shard
//! of a key is a multiply-shift of its address and port (a few instructions on the resolve
//! path); within a shard, the seeded hash map of every table map.

use std::net::IpAddr;
use std::sync::Arc;

use crate::index::{HashKeys, Map};
use crate::input::L4;
use crate::table::{Binding, Part};

/// A bound (address, port, transport).
pub(crate) type Key = (IpAddr, u16, L4);

/// What a key leads to: the part whose route sets the binding names, and the binding.
pub(crate) type Slot = (Arc<Part>, Binding);

/// About this many keys per shard after a full build: an update copies one shard per
/// rebound key.
const KEYS_PER_SHARD: usize = 16;
/// At most 2^12 shards (a full build of 65,536 bound keys and more).
const MAX_SHARD_BITS: u32 = 12;

/// Sharded bindings; cheap to clone (one `Arc` per shard).
#[derive(Debug, Clone)]
pub(crate) struct Bindings {
    shards: Box<[Arc<Map<Key, Slot>>]>,
    /// log2 of the shard count.
    bits: u32,
    len: usize,
}

fn shard_of(key: &Key, bits: u32) -> usize {
    if bits == 0 {
        return 0;
    }
    let a = match key.0 {
        IpAddr::V4(v4) => u64::from(u32::from(v4)),
        IpAddr::V6(v6) => {
            let x = u128::from(v6);
            (x as u64) ^ ((x >> 64) as u64)
        }
    };
    let x = (a ^ (u64::from(key.1) << 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (x >> (64 - bits)) as usize
}

impl Bindings {
    /// Bindings of a full build, every one naming `part`.
    pub(crate) fn from_map(map: Map<Key, Binding>, part: &Arc<Part>, hash: HashKeys) -> Self {
        let want = map.len().div_ceil(KEYS_PER_SHARD).max(1);
        let bits = want
            .next_power_of_two()
            .trailing_zeros()
            .min(MAX_SHARD_BITS);
        let mut shards: Vec<Map<Key, Slot>> = (0..1usize << bits)
            .map(|_| Map::with_hasher(hash))
            .collect();
        let len = map.len();
        for (k, b) in map {
            if let Some(s) = shards.get_mut(shard_of(&k, bits)) {
                s.insert(k, (Arc::clone(part), b));
            }
        }
        Self {
            shards: shards.into_iter().map(Arc::new).collect(),
            bits,
            len,
        }
    }

    /// What `key` is bound to.
    #[inline]
    pub(crate) fn get(&self, key: &Key) -> Option<&Slot> {
        self.shards.get(shard_of(key, self.bits))?.get(key)
    }

    /// Every key bound and its slot, in no particular order (callers sort).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Key, &Slot)> {
        self.shards.iter().flat_map(|s| s.iter())
    }

    /// Number of keys bound.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Unbinds `key` (copying its shard if another table shares it).
    pub(crate) fn remove(&mut self, key: &Key) {
        if let Some(s) = self.shards.get_mut(shard_of(key, self.bits))
            && s.contains_key(key)
            && Arc::make_mut(s).remove(key).is_some()
        {
            self.len -= 1;
        }
    }

    /// Binds `key` (copying its shard if another table shares it).
    pub(crate) fn insert(&mut self, key: Key, slot: Slot) {
        if let Some(s) = self.shards.get_mut(shard_of(&key, self.bits))
            && Arc::make_mut(s).insert(key, slot).is_none()
        {
            self.len += 1;
        }
    }
}
