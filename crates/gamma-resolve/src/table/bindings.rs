//! The bindings of a [`RouteTable`](crate::RouteTable): every (address, port, transport)
//! bound, to the part its route sets live in and the binding itself.
//!
//! Stored in shards, each behind its own `Arc`, so that an update copies only the shards
//! holding the keys it rebinds and shares every other one with the previous table. An update
//! pays one reference count per shard (sharing the list) and a copy per shard it rebinds in,
//! so a full build makes about √n shards of about √n keys. The shard of a key is a
//! multiply-shift of its address and port (a few instructions on the resolve path); within a
//! shard, the seeded hash map of every table map.

use std::net::IpAddr;
use std::sync::Arc;

use super::{Binding, Part};
use crate::hash::{HashKeys, Map};
use crate::input::L4;

/// A bound (address, port, transport).
pub(crate) type Key = (IpAddr, u16, L4);

/// What a key leads to: the part whose route sets the binding names, and the binding.
pub(crate) type Slot = (Arc<Part>, Binding);

/// At most 2^12 shards (a full build of 16.7 million bound keys and more).
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
        // about √n shards: an update's two costs (a count per shard, the copy of a shard)
        // balance
        let want = map.len().isqrt().max(1);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::L4;
    use std::net::Ipv4Addr;

    fn key(i: u32) -> Key {
        (IpAddr::V4(Ipv4Addr::from(0x0a60_0000 + i)), 80, L4::Tcp)
    }

    fn binding(service: u32) -> Binding {
        Binding::Service {
            service,
            port: 80,
            producer: Some(0),
            consumers: Arc::from([]),
            workload: false,
        }
    }

    fn service_of(b: &Bindings, k: &Key) -> Option<u32> {
        match b.get(k) {
            Some((_, Binding::Service { service, .. })) => Some(*service),
            _ => None,
        }
    }

    // Structural sharing: a changed copy shares every shard but the one it wrote, and the
    // original keeps answering as before.
    #[test]
    fn a_write_copies_one_shard_and_leaves_the_original_as_it_was() {
        let hash = HashKeys::default();
        let mut map = Map::with_hasher(hash);
        for i in 0..1_000 {
            map.insert(key(i), binding(i));
        }
        let empty = crate::RouteTable::from_input(
            &crate::input::TableInput::default(),
            &crate::BuildOptions::default(),
        );
        let part = Arc::clone(&empty.parts[0]);
        let old = Bindings::from_map(map, &part, hash);
        assert_eq!(old.shards.len(), 32, "about √1000 shards");
        let mut new = old.clone();
        new.remove(&key(7));
        new.insert(key(5_000), (Arc::clone(&part), binding(5_000)));
        let copied = old
            .shards
            .iter()
            .zip(new.shards.iter())
            .filter(|(a, b)| !Arc::ptr_eq(a, b))
            .count();
        assert!(copied <= 2, "{copied} shards copied");
        assert_eq!((old.len(), new.len()), (1_000, 1_000));
        assert_eq!(service_of(&old, &key(7)), Some(7));
        assert_eq!(service_of(&new, &key(7)), None);
        assert_eq!(service_of(&old, &key(5_000)), None);
        assert_eq!(service_of(&new, &key(5_000)), Some(5_000));
        assert!(
            (0..1_000)
                .filter(|i| *i != 7)
                .all(|i| service_of(&new, &key(i)) == Some(i))
        );
    }
}
