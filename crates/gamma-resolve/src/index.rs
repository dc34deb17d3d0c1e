//! The per-request indexes: hostname groups, then paths (exact map, segment-prefix map
//! probed longest first, regexes last) or gRPC service/method maps. Every index yields
//! candidate ids already in precedence order (sorted at build time), so the first candidate
//! whose remaining conditions hold is the winner.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use crate::regex::RegexPool;
use crate::hostname::{self, MAX_HOSTNAME_LEN};
use crate::path::normalize_prefix;

/// Keys of the table's hashes, derived from the embedder's seed
/// ([`crate::BuildOptions::hash_seed`]). Route authors choose path keys, hostnames and gRPC
/// names: with an unkeyed hash they could brute-force colliding keys offline and build long
/// probe runs (in the path hash every large index shares, across namespaces) or quadratic
/// inserts while building. Keyed, collisions depend on a value they do not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HashKeys {
    /// Initial state of every hash.
    k0: u64,
    /// Multiplier of the per-word folded multiply (odd, so never zero).
    k1: u64,
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
fn mix(h: u64, w: u64, k1: u64) -> u64 {
    let p = u128::from(h ^ w) * u128::from(k1);
    (p as u64) ^ ((p >> 64) as u64)
}

/// Keyed word-wise hasher of the table's hash maps: the keys come from route specs and are
/// probed with request strings; SipHash costs a large share of a lookup, and a keyed
/// multiply is enough to keep route authors from choosing colliding keys (see [`HashKeys`]).
#[derive(Clone, Copy)]
pub(crate) struct FastHasher {
    h: u64,
    k1: u64,
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
fn tail_word(rest: &[u8]) -> u64 {
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

/// A list of candidate ids, sorted by precedence key.
pub(crate) type Cands = Box<[u32]>;

/// Hostname groups (Gateway API HTTPRoute hostnames precedence): exact hostnames, wildcard suffixes
/// (longest first), then routes without a hostname. For one request host the groups that match are
/// totally ordered by hostname specificity, so trying them in that order preserves precedence.
///
/// Most route sets have only the "any host" group: it is stored inline and the hostname maps
/// (boxed, absent) cost one pointer.
#[derive(Debug)]
pub(crate) struct HostIndex<G> {
    pub(crate) any: Option<G>,
    pub(crate) named: Option<Box<NamedHosts<G>>>,
}

/// The hostname groups of a [`HostIndex`] that have a hostname.
#[derive(Debug)]
pub(crate) struct NamedHosts<G> {
    pub(crate) exact: Map<Box<str>, G>,
    /// Keyed by the suffix including its leading dot (`.example.com`).
    pub(crate) wild: Map<Box<str>, G>,
    /// Suffix lengths present in `wild`, descending.
    pub(crate) wild_lens: Box<[usize]>,
}

impl<G> Default for HostIndex<G> {
    fn default() -> Self {
        Self {
            any: None,
            named: None,
        }
    }
}

impl<G> HostIndex<G> {
    /// Gets or creates the group for a configured hostname (`None` = any); hostname maps
    /// are keyed with `keys`.
    pub(crate) fn group_mut(
        &mut self,
        hostname: Option<&str>,
        keys: HashKeys,
        new: impl FnOnce() -> G,
    ) -> &mut G {
        match hostname {
            None => self.any.get_or_insert_with(new),
            Some(h) => {
                let named = self.named.get_or_insert_with(|| {
                    Box::new(NamedHosts {
                        exact: Map::with_hasher(keys),
                        wild: Map::with_hasher(keys),
                        wild_lens: Box::new([]),
                    })
                });
                let h = h.to_ascii_lowercase();
                match h.strip_prefix('*') {
                    Some(suffix) if suffix.starts_with('.') => {
                        let len = suffix.len();
                        if !named.wild_lens.contains(&len) {
                            let mut v = named.wild_lens.to_vec();
                            v.push(len);
                            v.sort_unstable_by(|a, b| b.cmp(a));
                            named.wild_lens = v.into_boxed_slice();
                        }
                        named.wild.entry(suffix.into()).or_insert_with(new)
                    }
                    _ => named.exact.entry(h.into_boxed_str()).or_insert_with(new),
                }
            }
        }
    }

    /// Converts every group with `f` (freezing builders into indexes), keeping the keys.
    pub(crate) fn map<H>(self, mut f: impl FnMut(G) -> H) -> HostIndex<H> {
        HostIndex {
            named: self.named.map(|n| {
                let n = *n;
                let keys = *n.exact.hasher();
                let mut exact = Map::with_capacity_and_hasher(n.exact.len(), keys);
                exact.extend(n.exact.into_iter().map(|(k, g)| (k, f(g))));
                let mut wild = Map::with_capacity_and_hasher(n.wild.len(), keys);
                wild.extend(n.wild.into_iter().map(|(k, g)| (k, f(g))));
                Box::new(NamedHosts {
                    exact,
                    wild,
                    wild_lens: n.wild_lens,
                })
            }),
            any: self.any.map(f),
        }
    }

    /// Calls `f` on each group matching `host` (a request Host/SNI as received; it is
    /// normalised here, only when hostname groups exist), most specific first, until `f`
    /// returns `Some`.
    pub(crate) fn find<R>(
        &self,
        host: Option<&str>,
        mut f: impl FnMut(&G) -> Option<R>,
    ) -> Option<R> {
        if let Some(named) = &self.named
            && let Some(host) = host
        {
            let mut buf = [0u8; MAX_HOSTNAME_LEN];
            if let Some(h) = hostname::lowercase_into(hostname::normalize_host(host), &mut buf) {
                if let Some(g) = named.exact.get(h)
                    && let Some(r) = f(g)
                {
                    return Some(r);
                }
                for &len in named.wild_lens.iter() {
                    // the wildcard must cover at least one character before the dot
                    if h.len() <= len {
                        continue;
                    }
                    if let Some(suffix) = h.get(h.len() - len..)
                        && let Some(g) = named.wild.get(suffix)
                        && let Some(r) = f(g)
                    {
                        return Some(r);
                    }
                }
            }
        }
        self.any.as_ref().and_then(f)
    }
}

/// A run of candidate ids: (start, length) in [`PathKeys::ids`], except that a run of length
/// 1 holds the candidate id itself in `start` (most path keys have one candidate; then no
/// list is stored at all).
pub(crate) type Run = (u32, u32);

/// Path indexes with at most this many exact (or prefix) keys are scanned linearly: their
/// keys sit next to each other, so a scan touches one or two cache lines where a hash probe
/// touches a slot, an entry and the key. Larger ones are probed through the hash slots.
const SCAN_MAX: u32 = 8;

/// Longest probe run the shared path hash accepts before it doubles its capacity.
const PROBE_LIMIT: u32 = 32;

/// One path key of a [`PathIndex`]: its bytes in [`PathKeys::bytes`] and its candidates.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyEntry {
    key: u32,
    key_len: u32,
    /// [`fingerprint`] of the key: most non-matching keys are told apart without reading
    /// their bytes.
    fp: u32,
    run: Run,
}

/// A cheap, O(1) fingerprint of a key: its length and first and last 8 bytes. Equal keys
/// have equal fingerprints; most unequal ones of a route set differ in one of those.
#[inline]
fn fingerprint(s: &[u8]) -> u32 {
    let n = s.len() as u64;
    let x = match (s.first_chunk::<8>(), s.last_chunk::<8>()) {
        (Some(a), Some(b)) => u64::from_le_bytes(*a) ^ u64::from_le_bytes(*b).rotate_left(29),
        _ if s.is_empty() => 0,
        _ => tail_word(s),
    };
    // a fixed odd multiplier: fingerprints only spare byte compares in scans of at most
    // `SCAN_MAX` keys, so they need no key
    let x = (x ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    (x >> 32) as u32
}

/// Every path index of a table in shared arrays (one allocation each for all Services
/// instead of two hash maps and boxed keys per route set): key bytes, key entries (each
/// index's exact keys, then its prefix keys, longest first, are contiguous), candidate lists,
/// prefix lengths, and one open-addressing hash over the keys of the large indexes.
#[derive(Debug, Default)]
pub(crate) struct PathKeys {
    bytes: String,
    entries: Vec<KeyEntry>,
    ids: Vec<u32>,
    /// Distinct prefix lengths, descending, per large index.
    lens: Vec<u32>,
    /// (hash tag, entry + 1); 0 = empty. Length a power of two (or 0).
    slots: Box<[(u32, u32)]>,
    /// The longest distance from a key's home slot to its slot: a lookup gives up after it.
    max_probe: u32,
    /// Keys of the hash (from [`crate::BuildOptions::hash_seed`]).
    hash: HashKeys,
}

/// Path index of one hostname group of HTTPRoute matches: ranges into [`PathKeys`].
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct PathIndex {
    /// Hash salt: distinguishes this index's keys in the shared hash.
    id: u32,
    /// Entries of the `Exact` keys.
    exact: (u32, u32),
    /// Entries of the `PathPrefix` keys (normalised: no trailing `/`, the root is `""`),
    /// longest first.
    prefix: (u32, u32),
    /// Distinct prefix lengths in [`PathKeys::lens`], descending (large indexes only).
    lens: (u32, u32),
    /// Candidates of regex paths.
    regex: Run,
    /// With one regex candidate its regex, with several their set (in the table's
    /// [`RegexPool`]).
    regex_sel: u32,
}

/// Hash of a path key for the shared hash (salted by index and kind, keyed by the table's
/// seed): the salt and length in the initial state, one folded multiply per 8 bytes, the
/// tail as one overlapping word. The folded multiply leaves the low bits (the slot) mixed.
#[inline]
fn salted_hash(keys: HashKeys, salt: u32, key: &str) -> u64 {
    salted_hash_bytes(keys, salt, key.as_bytes())
}

#[inline]
fn salted_hash_bytes(keys: HashKeys, salt: u32, b: &[u8]) -> u64 {
    let n = b.len();
    let mut h = keys.k0 ^ (u64::from(salt) | ((n as u64) << 32));
    let mut rest = b;
    while let Some((w, tail)) = rest.split_first_chunk::<8>() {
        h = mix(h, u64::from_le_bytes(*w), keys.k1);
        rest = tail;
    }
    if !rest.is_empty() {
        // the last 8 bytes overlap the last full word when there is one
        let w = match b.last_chunk::<8>() {
            Some(w) => u64::from_le_bytes(*w),
            None => tail_word(rest),
        };
        h = mix(h, w, keys.k1);
    } else if n == 0 {
        h = mix(h, 0, keys.k1);
    }
    h
}

/// Byte equality without a `bcmp` call for keys up to 16 bytes (most paths and names):
/// overlapping compares of the first and last bytes, 4-byte or 8-byte words cover every byte.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        1..=3 => a.first() == b.first() && a.get(n / 2) == b.get(n / 2) && a.last() == b.last(),
        4..=7 => {
            a.first_chunk::<4>() == b.first_chunk::<4>()
                && a.last_chunk::<4>() == b.last_chunk::<4>()
        }
        8..=16 => {
            a.first_chunk::<8>() == b.first_chunk::<8>()
                && a.last_chunk::<8>() == b.last_chunk::<8>()
        }
        _ => a == b,
    }
}

fn range(r: (u32, u32)) -> std::ops::Range<usize> {
    let start = r.0 as usize;
    start..start + r.1 as usize
}

impl PathKeys {
    fn key(&self, e: &KeyEntry) -> &str {
        let start = e.key as usize;
        self.bytes
            .get(start..start + e.key_len as usize)
            .unwrap_or("")
    }

    /// The key's bytes (no char-boundary checks: the resolve path compares bytes).
    #[inline]
    fn key_bytes(&self, e: &KeyEntry) -> &[u8] {
        let start = e.key as usize;
        self.bytes
            .as_bytes()
            .get(start..start + e.key_len as usize)
            .unwrap_or(&[])
    }

    /// The candidate ids of a run.
    #[inline]
    pub(crate) fn list<'a>(&'a self, run: &'a Run) -> &'a [u32] {
        match run.1 {
            0 => &[],
            1 => std::slice::from_ref(&run.0),
            _ => self.ids.get(range(*run)).unwrap_or(&[]),
        }
    }

    fn entries(&self, r: (u32, u32)) -> &[KeyEntry] {
        self.entries.get(range(r)).unwrap_or(&[])
    }

    /// The entry of `key` among `r` (an index's exact or prefix keys), salted with `salt`.
    #[inline]
    fn lookup(&self, r: (u32, u32), salt: u32, key: &str) -> Option<&KeyEntry> {
        let key = key.as_bytes();
        if r.1 <= SCAN_MAX {
            let fp = fingerprint(key);
            return self
                .entries(r)
                .iter()
                .find(|e| e.fp == fp && same_bytes(self.key_bytes(e), key));
        }
        let mask = self.slots.len().wrapping_sub(1);
        let h = salted_hash_bytes(self.hash, salt, key);
        let tag = (h >> 32) as u32;
        let mut i = h as usize;
        // bounded by the longest displacement the build saw (defence in depth: even a run of
        // colliding keys costs each lookup at most that many steps)
        for _ in 0..=self.max_probe {
            let &(t, e) = self.slots.get(i & mask)?;
            if e == 0 {
                return None;
            }
            // the hash is shared by every large index: only an entry of this one counts
            // (another index may hold the same key)
            let ei = e.wrapping_sub(1);
            if t == tag
                && ei.wrapping_sub(r.0) < r.1
                && let Some(entry) = self.entries.get(ei as usize)
                && same_bytes(self.key_bytes(entry), key)
            {
                return Some(entry);
            }
            i = i.wrapping_add(1);
        }
        None
    }

    /// The `Exact` keys of an index with their candidates (for explanations).
    pub(crate) fn exact_keys<'a>(
        &'a self,
        pi: &PathIndex,
    ) -> impl Iterator<Item = (&'a str, &'a [u32])> + 'a {
        self.entries(pi.exact)
            .iter()
            .map(|e| (self.key(e), self.list(&e.run)))
    }

    /// The `PathPrefix` keys (normalised) of an index with their candidates.
    pub(crate) fn prefix_keys<'a>(
        &'a self,
        pi: &PathIndex,
    ) -> impl Iterator<Item = (&'a str, &'a [u32])> + 'a {
        self.entries(pi.prefix)
            .iter()
            .map(|e| (self.key(e), self.list(&e.run)))
    }

    /// Builds the shared hash over the keys of the large indexes (`large`: (salt, entries)).
    /// `hashes`: the salted hash of entries by index, where the build computed it (`None`,
    /// or past its end: computed here).
    fn build_slots(&mut self, large: &[(u32, (u32, u32))], hashes: &[Option<u64>]) {
        let n: usize = large.iter().map(|(_, r)| r.1 as usize).sum();
        if n == 0 {
            return;
        }
        // load factor at most 1/2: short probe sequences; should a run still grow past
        // `PROBE_LIMIT` (bad luck, or keys chosen against a known seed), the table doubles,
        // at most twice
        let mut cap = (n * 2).next_power_of_two();
        loop {
            let (slots, max_probe) = self.fill_slots(large, cap, hashes);
            if max_probe <= PROBE_LIMIT || cap >= n * 8 {
                self.slots = slots;
                self.max_probe = max_probe;
                return;
            }
            cap *= 2;
        }
    }

    /// The slots of the shared hash at capacity `cap` (a power of two) and their longest
    /// displacement.
    fn fill_slots(
        &self,
        large: &[(u32, (u32, u32))],
        cap: usize,
        hashes: &[Option<u64>],
    ) -> (Box<[(u32, u32)]>, u32) {
        let mask = cap - 1;
        let mut slots = vec![(0u32, 0u32); cap];
        let mut max_probe = 0u32;
        for &(salt, r) in large {
            for ei in range(r) {
                let Some(e) = self.entries.get(ei) else {
                    continue;
                };
                let h = hashes
                    .get(ei)
                    .copied()
                    .flatten()
                    .unwrap_or_else(|| salted_hash(self.hash, salt, self.key(e)));
                let mut i = h as usize & mask;
                let mut probe = 0u32;
                while let Some(slot) = slots.get_mut(i) {
                    if slot.1 == 0 {
                        *slot = ((h >> 32) as u32, u32::try_from(ei + 1).unwrap_or(0));
                        break;
                    }
                    i = (i + 1) & mask;
                    probe += 1;
                }
                max_probe = max_probe.max(probe);
            }
        }
        (slots.into_boxed_slice(), max_probe)
    }
}

impl PathIndex {
    /// Calls `f` on candidates whose path condition may hold, in precedence order: exact
    /// path, then prefixes longest first (on segment boundaries), then the regexes that match
    /// the whole path (all of them in one pass: [`RegexPool::find_in_set`]). Stops at the
    /// first `Some`.
    #[inline]
    pub(crate) fn find<R>(
        &self,
        keys: &PathKeys,
        regexes: &RegexPool,
        path: &str,
        mut f: impl FnMut(u32) -> Option<R>,
    ) -> Option<R> {
        let mut scan = |run: &Run| -> Option<R> {
            for &c in keys.list(run) {
                if let Some(r) = f(c) {
                    return Some(r);
                }
            }
            None
        };
        if self.exact.1 != 0
            && let Some(e) = keys.lookup(self.exact, self.id.wrapping_mul(2), path)
            && let Some(r) = scan(&e.run)
        {
            return Some(r);
        }
        let bytes = path.as_bytes();
        // a prefix of length `len` matches on a segment boundary only
        let boundary = |len: usize| match bytes.get(len) {
            None => len == bytes.len(),
            Some(b) => *b == b'/',
        };
        if self.prefix.1 <= SCAN_MAX {
            // longest first; of keys of one length at most one is a prefix of the path, and
            // the path's fingerprint is computed once per length
            let mut last: Option<(usize, u32)> = None;
            for e in keys.entries(self.prefix) {
                let len = e.key_len as usize;
                if !boundary(len) {
                    continue;
                }
                let Some(p) = bytes.get(..len) else { continue };
                let fp = match last {
                    Some((l, fp)) if l == len => fp,
                    _ => {
                        let fp = fingerprint(p);
                        last = Some((len, fp));
                        fp
                    }
                };
                if fp == e.fp
                    && same_bytes(p, keys.key_bytes(e))
                    && let Some(r) = scan(&e.run)
                {
                    return Some(r);
                }
            }
        } else {
            let salt = self.id.wrapping_mul(2) | 1;
            for &len in keys.lens.get(range(self.lens)).unwrap_or(&[]) {
                let len = len as usize;
                if !boundary(len) {
                    continue;
                }
                if let Some(p) = path.get(..len)
                    && let Some(e) = keys.lookup(self.prefix, salt, p)
                    && let Some(r) = scan(&e.run)
                {
                    return Some(r);
                }
            }
        }
        match self.regex.1 {
            0 => None,
            1 if regexes.is_match(self.regex_sel, path) => f(self.regex.0),
            1 => None,
            _ => {
                let list = keys.list(&self.regex);
                regexes.find_in_set(self.regex_sel, path, |i| f(*list.get(i)?))
            }
        }
    }

    /// The candidates of regex paths (for explanations).
    pub(crate) fn regex_run(&self) -> &Run {
        &self.regex
    }
}

/// One path key while building: the first candidate inline, further ones chained through
/// [`PathKeysBuilder::chain`] (no allocation per key).
#[derive(Debug)]
struct PendingKey<'i> {
    key: &'i str,
    prefix: bool,
    first: u32,
    /// Head and tail of the chain of further candidates (`NONE` = none).
    more: (u32, u32),
    /// The next key of the same index (`NONE` = last): an index's keys are a list through
    /// the shared pending keys, not a vector per index.
    next: u32,
    /// [`salted_hash`] of the key under its index's salt, once the index hashes its keys:
    /// the key map and the table's slots both use it (one hash per key).
    hash: Option<u64>,
}

/// A key of [`PathKeysBuilder::by_key`]: (salt, key) with its [`salted_hash`], which is the
/// map's hash ([`PassHash`]).
#[derive(Debug, Clone, Copy)]
struct SaltedKey<'i> {
    hash: u64,
    salt: u32,
    key: &'i str,
}

impl std::hash::Hash for SaltedKey<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash);
    }
}

impl PartialEq for SaltedKey<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.hash == o.hash
            && self.salt == o.salt
            && same_bytes(self.key.as_bytes(), o.key.as_bytes())
    }
}

impl Eq for SaltedKey<'_> {}

/// Hashes a [`SaltedKey`] as its precomputed (keyed) hash.
#[derive(Debug, Clone, Copy, Default)]
struct PassHash;

/// The hasher of [`PassHash`]: the last `u64` written (anything else is folded in).
#[derive(Debug, Clone, Copy, Default)]
struct PassHasher(u64);

impl Hasher for PassHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl BuildHasher for PassHash {
    type Hasher = PassHasher;
    fn build_hasher(&self) -> PassHasher {
        PassHasher(0)
    }
}

const NONE: u32 = u32::MAX;

/// Builds the [`PathKeys`] of a table. Keys borrow the input until frozen.
#[derive(Debug, Default)]
pub(crate) struct PathKeysBuilder<'i> {
    /// (salt, key) -> pending key; table-wide, so it grows (amortised) instead of being
    /// created per route set.
    by_key: HashMap<SaltedKey<'i>, u32, PassHash>,
    pending: Vec<PendingKey<'i>>,
    /// (candidate, next) links of the candidate chains.
    chain: Vec<(u32, u32)>,
    next_id: u32,
    /// (salt, entries) of the indexes that need the hash.
    large: Vec<(u32, (u32, u32))>,
    out: PathKeys,
    scratch: Vec<u32>,
    keys_scratch: Vec<u32>,
    /// The salted hash of each entry of `out` (by index), where the build computed one.
    entry_hashes: Vec<Option<u64>>,
    /// The prefix keys of the index being finished, and their counting sort's counts.
    prefix_scratch: Vec<u32>,
    counts_scratch: Vec<u32>,
    /// The keys [`PathKeysBuilder::reserve`] expects (an upper bound): `by_key` is sized once
    /// from it when the first index starts hashing, instead of rehashing as it doubles.
    expected: usize,
}

/// Appends the pending keys `prefixes` to `out` by key length, longest first, keys of one
/// length in the order given (a stable sort by descending length: a counting sort over the
/// lengths, which are short; a comparison sort when they are not).
fn longest_first(
    pending: &[PendingKey<'_>],
    prefixes: &[u32],
    counts: &mut Vec<u32>,
    out: &mut Vec<u32>,
) {
    let len = |pi: u32| pending.get(pi as usize).map_or(0, |p| p.key.len());
    let max = prefixes.iter().map(|&pi| len(pi)).max().unwrap_or(0);
    if prefixes.len() < 32 || max > 4096 {
        let start = out.len();
        out.extend_from_slice(prefixes);
        if let Some(tail) = out.get_mut(start..) {
            tail.sort_by_key(|&pi| std::cmp::Reverse(len(pi)));
        }
        return;
    }
    // counts[l] = number of keys of length l; then the start of length l's run, from the
    // longest down
    counts.clear();
    counts.resize(max + 1, 0);
    for &pi in prefixes {
        if let Some(c) = counts.get_mut(len(pi)) {
            *c += 1;
        }
    }
    let base = u32::try_from(out.len()).unwrap_or(u32::MAX);
    let mut next = base;
    for c in counts.iter_mut().rev() {
        let n = *c;
        *c = next;
        next = next.saturating_add(n);
    }
    let start = out.len();
    out.resize(start + prefixes.len(), NONE);
    for &pi in prefixes {
        if let Some(c) = counts.get_mut(len(pi)) {
            if let Some(slot) = out.get_mut(*c as usize) {
                *slot = pi;
            }
            *c += 1;
        }
    }
}

/// Builder of one [`PathIndex`]: its pending keys (indexes into the shared builder).
#[derive(Debug)]
pub(crate) struct PathIndexBuilder {
    id: u32,
    /// First and last of the index's pending keys (`NONE` = none), and their number.
    head: u32,
    tail: u32,
    count: usize,
    /// (candidate, regex, rejectable) of the regex paths.
    regex: Vec<(u32, u32, bool)>,
    /// Whether the keys are in [`PathKeysBuilder::by_key`]; small indexes find repeated
    /// keys by scanning `keys` instead (no hashing).
    hashed: bool,
}

/// Indexes with up to this many keys (exact and prefix) dedupe by scanning while building.
const BUILD_SCAN_MAX: usize = 16;

/// Where a candidate goes in a path index.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PathSlot<'a> {
    Exact(&'a str),
    Prefix(&'a str),
    /// A `RegularExpression` path: its regex in the table's [`RegexPool`], and whether other
    /// conditions (method, headers, query) may reject the candidate when the regex matches.
    Regex {
        regex: u32,
        rejectable: bool,
    },
}

impl<'i> PathKeysBuilder<'i> {
    /// A builder whose hashes are keyed with `keys`.
    pub(crate) fn new(keys: HashKeys) -> Self {
        let mut b = Self::default();
        b.out.hash = keys;
        b
    }

    /// Room for `keys` path keys (an upper bound: the matches of the input).
    pub(crate) fn reserve(&mut self, keys: usize) {
        self.pending.reserve(keys);
        self.out.entries.reserve(keys);
        self.entry_hashes.reserve(keys);
        self.expected = self.expected.saturating_add(keys);
    }

    /// A builder for a new path index.
    pub(crate) fn index(&mut self) -> PathIndexBuilder {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        PathIndexBuilder {
            id,
            head: NONE,
            tail: NONE,
            count: 0,
            regex: Vec::new(),
            hashed: false,
        }
    }

    /// Adds a candidate to an index under a path slot.
    pub(crate) fn add(&mut self, b: &mut PathIndexBuilder, slot: PathSlot<'i>, cand: u32) {
        let (key, prefix) = match slot {
            PathSlot::Exact(p) => (p, false),
            PathSlot::Prefix(p) => (normalize_prefix(p), true),
            PathSlot::Regex { regex, rejectable } => {
                b.regex.push((cand, regex, rejectable));
                return;
            }
        };
        let salt = b.id.wrapping_mul(2) | u32::from(prefix);
        // hashed: one hash and probe for both the lookup and the insert of a new key
        let mut vacant = None;
        let mut hash = None;
        let found = if b.hashed {
            let h = salted_hash(self.out.hash, salt, key);
            hash = Some(h);
            let k = SaltedKey { hash: h, salt, key };
            match self.by_key.entry(k) {
                std::collections::hash_map::Entry::Occupied(o) => Some(*o.get()),
                std::collections::hash_map::Entry::Vacant(v) => {
                    vacant = Some(v);
                    None
                }
            }
        } else {
            let mut at = b.head;
            let mut hit = None;
            while let Some(p) = self.pending.get(at as usize) {
                if p.prefix == prefix && same_bytes(p.key.as_bytes(), key.as_bytes()) {
                    hit = Some(at);
                    break;
                }
                at = p.next;
            }
            hit
        };
        if let Some(pi) = found {
            let link = u32::try_from(self.chain.len()).unwrap_or(NONE);
            self.chain.push((cand, NONE));
            if let Some(p) = self.pending.get_mut(pi as usize) {
                if p.more.0 == NONE {
                    p.more = (link, link);
                } else {
                    if let Some(tail) = self.chain.get_mut(p.more.1 as usize) {
                        tail.1 = link;
                    }
                    p.more.1 = link;
                }
            }
            return;
        }
        let Ok(pi) = u32::try_from(self.pending.len()) else {
            return;
        };
        self.pending.push(PendingKey {
            key,
            prefix,
            first: cand,
            more: (NONE, NONE),
            next: NONE,
            hash,
        });
        match self.pending.get_mut(b.tail as usize) {
            Some(t) => t.next = pi,
            None => b.head = pi,
        }
        b.tail = pi;
        b.count += 1;
        if let Some(v) = vacant {
            v.insert(pi);
        } else if b.count > BUILD_SCAN_MAX {
            // grown large: from now on repeated keys are found by hash
            b.hashed = true;
            if self.by_key.capacity() == 0 {
                // the keys still to come (of indexes not yet hashed, this one's included)
                // bound every key the map will hold
                let later = self.expected.saturating_sub(self.pending.len());
                self.by_key.reserve(later.saturating_add(b.count));
            }
            let mut at = b.head;
            while let Some(p) = self.pending.get_mut(at as usize) {
                let salt = b.id.wrapping_mul(2) | u32::from(p.prefix);
                let h = salted_hash(self.out.hash, salt, p.key);
                p.hash = Some(h);
                let k = SaltedKey {
                    hash: h,
                    salt,
                    key: p.key,
                };
                self.by_key.insert(k, at);
                at = p.next;
            }
        }
    }

    /// Freezes one key's candidates into a run, sorted by `order` (stable: insertion order
    /// is kept for equal keys).
    fn run(&mut self, pi: u32, order: &impl Fn(&u32, &u32) -> std::cmp::Ordering) -> Run {
        let Some(p) = self.pending.get(pi as usize) else {
            return (0, 0);
        };
        if p.more.0 == NONE {
            return (p.first, 1);
        }
        self.scratch.clear();
        self.scratch.push(p.first);
        let mut link = p.more.0;
        while let Some(&(c, next)) = self.chain.get(link as usize) {
            self.scratch.push(c);
            link = next;
        }
        self.scratch.sort_by(order);
        self.scratch.dedup();
        if let [only] = self.scratch.as_slice() {
            return (*only, 1);
        }
        let start = u32::try_from(self.out.ids.len()).unwrap_or(u32::MAX);
        self.out.ids.extend_from_slice(&self.scratch);
        (start, u32::try_from(self.scratch.len()).unwrap_or(0))
    }

    /// Appends the entries of some pending keys; returns their range.
    fn entries(
        &mut self,
        keys: &[u32],
        order: &impl Fn(&u32, &u32) -> std::cmp::Ordering,
    ) -> (u32, u32) {
        let start = u32::try_from(self.out.entries.len()).unwrap_or(u32::MAX);
        for &pi in keys {
            let run = self.run(pi, order);
            let Some(p) = self.pending.get(pi as usize) else {
                continue;
            };
            let key = u32::try_from(self.out.bytes.len()).unwrap_or(u32::MAX);
            self.out.bytes.push_str(p.key);
            self.out.entries.push(KeyEntry {
                key,
                key_len: u32::try_from(p.key.len()).unwrap_or(u32::MAX),
                fp: fingerprint(p.key.as_bytes()),
                run,
            });
            self.entry_hashes.push(p.hash);
        }
        let end = u32::try_from(self.out.entries.len()).unwrap_or(u32::MAX);
        (start, end - start)
    }

    /// Sorts every key's candidates with `order` (by precedence key) and freezes the index;
    /// several regex candidates get one regex set (interned in `regexes`).
    pub(crate) fn finish(
        &mut self,
        b: PathIndexBuilder,
        order: &impl Fn(&u32, &u32) -> std::cmp::Ordering,
        regexes: &mut RegexPool,
    ) -> PathIndex {
        let PathIndexBuilder {
            id, head, regex, ..
        } = b;
        let mut keys = std::mem::take(&mut self.keys_scratch);
        let mut prefixes = std::mem::take(&mut self.prefix_scratch);
        keys.clear();
        prefixes.clear();
        // exact keys first, then prefixes longest first (the scan relies on it); stable, so
        // keys keep their insertion order otherwise
        let mut at = head;
        while let Some(p) = self.pending.get(at as usize) {
            if p.prefix {
                prefixes.push(at);
            } else {
                keys.push(at);
            }
            at = p.next;
        }
        let split = keys.len();
        longest_first(
            &self.pending,
            &prefixes,
            &mut self.counts_scratch,
            &mut keys,
        );
        self.prefix_scratch = prefixes;
        let (exact, prefix) = keys.split_at(split);
        let exact = self.entries(exact, order);
        let prefix_r = self.entries(prefix, order);
        self.keys_scratch = keys;
        if exact.1 > SCAN_MAX {
            self.large.push((id.wrapping_mul(2), exact));
        }
        let mut lens = (0, 0);
        if prefix_r.1 > SCAN_MAX {
            self.large.push((id.wrapping_mul(2) | 1, prefix_r));
            let start = u32::try_from(self.out.lens.len()).unwrap_or(u32::MAX);
            let mut last = None;
            for i in range(prefix_r) {
                let Some(l) = self.out.entries.get(i).map(|e| e.key_len) else {
                    continue;
                };
                if last != Some(l) {
                    self.out.lens.push(l);
                    last = Some(l);
                }
            }
            let end = u32::try_from(self.out.lens.len()).unwrap_or(u32::MAX);
            lens = (start, end - start);
        }
        let mut regex = regex;
        regex.sort_by(|a, b| order(&a.0, &b.0));
        regex.dedup_by_key(|(c, ..)| *c);
        let (regex, regex_sel) = match regex.as_slice() {
            [] => ((0, 0), 0),
            [(only, re, _)] => ((*only, 1), *re),
            _ => {
                let start = u32::try_from(self.out.ids.len()).unwrap_or(u32::MAX);
                self.out.ids.extend(regex.iter().map(|(c, ..)| *c));
                self.scratch.clear();
                self.scratch.extend(regex.iter().map(|(_, re, _)| *re));
                let rejectable = regex.iter().any(|(.., r)| *r);
                let set = regexes.intern_set(&self.scratch, rejectable);
                ((start, u32::try_from(regex.len()).unwrap_or(0)), set)
            }
        };
        PathIndex {
            id,
            exact,
            prefix: prefix_r,
            lens,
            regex,
            regex_sel,
        }
    }

    /// Freezes every index's keys into the table's [`PathKeys`].
    pub(crate) fn freeze(mut self) -> PathKeys {
        let large = std::mem::take(&mut self.large);
        let mut out = self.out;
        out.bytes.shrink_to_fit();
        out.entries.shrink_to_fit();
        out.ids.shrink_to_fit();
        out.lens.shrink_to_fit();
        out.build_slots(&large, &self.entry_hashes);
        out
    }
}

/// gRPC index of one hostname group: exact service+method, exact service only, exact method
/// only, then the rest (Gateway API GRPCRouteRule.matches: service characters, then method
/// characters, decide first).
#[derive(Debug, Default)]
pub(crate) struct GrpcIndex {
    /// Keyed by `service/method`.
    pub(crate) both: Map<Box<str>, Cands>,
    pub(crate) service: Map<Box<str>, Cands>,
    pub(crate) method: Map<Box<str>, Cands>,
    /// Candidates without an exact service or method (regexes, or neither), in precedence
    /// order.
    pub(crate) rest: Cands,
    /// The prefilter set of `rest` ([`RegexPool::intern_grpc_set`]) when it holds at least
    /// [`GRPC_SET_MIN`] regex candidates: one pass over `service/method` instead of one or
    /// two regex searches per candidate.
    rest_set: Option<u32>,
}

/// Regex candidates in a gRPC `rest` list from which one multi-pattern pass replaces the scan.
const GRPC_SET_MIN: usize = 2;

/// A gRPC candidate: its id and its service and method regexes.
type GrpcCand = (u32, Option<u32>, Option<u32>);

/// Builder of a [`GrpcIndex`].
#[derive(Debug, Default)]
pub(crate) struct GrpcIndexBuilder {
    both: Map<Box<str>, Vec<u32>>,
    service: Map<Box<str>, Vec<u32>>,
    method: Map<Box<str>, Vec<u32>>,
    rest: Vec<GrpcCand>,
}

impl GrpcIndexBuilder {
    /// A builder whose maps are keyed with `keys`.
    pub(crate) fn new(keys: HashKeys) -> Self {
        Self {
            both: Map::with_hasher(keys),
            service: Map::with_hasher(keys),
            method: Map::with_hasher(keys),
            rest: Vec::new(),
        }
    }

    /// Adds candidate `cand` under its exact service and method (`None`: not exact);
    /// `regexes` are its service and method regexes (for the prefilter set of the rest).
    pub(crate) fn add(
        &mut self,
        service: Option<&str>,
        method: Option<&str>,
        regexes: (Option<u32>, Option<u32>),
        cand: u32,
    ) {
        match (service, method) {
            (Some(s), Some(m)) => self
                .both
                .entry(format!("{s}/{m}").into())
                .or_default()
                .push(cand),
            (Some(s), None) => self.service.entry(s.into()).or_default().push(cand),
            (None, Some(m)) => self.method.entry(m.into()).or_default().push(cand),
            (None, None) => self.rest.push((cand, regexes.0, regexes.1)),
        }
    }

    pub(crate) fn finish(
        self,
        order: &impl Fn(&u32, &u32) -> std::cmp::Ordering,
        pool: &mut RegexPool,
    ) -> GrpcIndex {
        let freeze = |mut v: Vec<u32>| -> Cands {
            v.sort_by(order);
            v.dedup();
            v.into_boxed_slice()
        };
        let f = |m: Map<Box<str>, Vec<u32>>| {
            let mut out = Map::with_capacity_and_hasher(m.len(), *m.hasher());
            out.extend(m.into_iter().map(|(k, v)| (k, freeze(v))));
            out
        };
        let mut rest = self.rest;
        rest.sort_by(|a, b| order(&a.0, &b.0));
        rest.dedup_by_key(|(c, ..)| *c);
        let regexes = rest
            .iter()
            .filter(|(_, s, m)| s.is_some() || m.is_some())
            .count();
        let rest_set = (regexes >= GRPC_SET_MIN).then(|| {
            let parts: Vec<(Option<u32>, Option<u32>)> =
                rest.iter().map(|&(_, s, m)| (s, m)).collect();
            pool.intern_grpc_set(&parts)
        });
        GrpcIndex {
            both: f(self.both),
            service: f(self.service),
            method: f(self.method),
            rest: rest.iter().map(|(c, ..)| *c).collect(),
            rest_set,
        }
    }
}

impl GrpcIndex {
    /// `path` is the gRPC `:path`; `service`/`method` its split parts ([`split_grpc_path`]);
    /// `pool` the table's regexes.
    ///
    /// [`split_grpc_path`]: crate::cond::split_grpc_path
    pub(crate) fn find<R>(
        &self,
        pool: &RegexPool,
        path: &str,
        service: &str,
        method: &str,
        mut f: impl FnMut(u32) -> Option<R>,
    ) -> Option<R> {
        fn scan<R>(list: Option<&Cands>, f: &mut impl FnMut(u32) -> Option<R>) -> Option<R> {
            list?.iter().find_map(|&c| f(c))
        }
        // Whether the split found `/service/method` (the path is exactly them and two
        // slashes, the second right after the service; an empty part is still a part): else
        // both are empty (`/a` as much as `/a/b/c`) and only the rest, scanned, can match.
        let split = service.len() + method.len() + 2 == path.len()
            && path.as_bytes().get(service.len() + 1) == Some(&b'/');
        if split {
            if let Some(key) = path.get(1..)
                && let Some(r) = scan(self.both.get(key), &mut f)
            {
                return Some(r);
            }
            if let Some(r) = scan(self.service.get(service), &mut f) {
                return Some(r);
            }
            if let Some(r) = scan(self.method.get(method), &mut f) {
                return Some(r);
            }
        }
        // A well-formed `/service/method` is matched against the prefilter set in one pass;
        // anything else is scanned.
        if let Some(set) = self.rest_set
            && split
            && let Some(hay) = path.get(1..)
        {
            let rest = &self.rest;
            return pool.find_in_set(set, hay, |i| f(*rest.get(i)?));
        }
        scan(Some(&self.rest), &mut f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash the build computes once per key (for its key map) is the one the table's
    /// slots use: every entry of a hashed index carries it.
    #[test]
    fn the_build_hash_of_a_key_is_its_slot_hash() {
        let mut b = PathKeysBuilder::new(HashKeys::new(9));
        let mut pool = RegexPool::default();
        let order = |a: &u32, b: &u32| a.cmp(b);
        let keys: Vec<String> = (0..40).map(|i| format!("/h/{i}")).collect();
        let mut ib = b.index();
        for (i, k) in (0u32..).zip(&keys) {
            b.add(&mut ib, PathSlot::Exact(k), 2 * i);
            b.add(&mut ib, PathSlot::Prefix(k), 2 * i + 1);
            b.add(&mut ib, PathSlot::Exact(k), 2 * i + 100);
        }
        let id = ib.id;
        let index = b.finish(ib, &order, &mut pool);
        let mut hashed = 0;
        for (salt, r) in [(id * 2, index.exact), ((id * 2) | 1, index.prefix)] {
            for ei in range(r) {
                let e = b.out.entries[ei];
                let want = salted_hash(b.out.hash, salt, b.out.key(&e));
                if let Some(h) = b.entry_hashes[ei] {
                    assert_eq!(h, want);
                    hashed += 1;
                }
            }
        }
        assert_eq!(hashed, 80);
        let pk = b.freeze();
        for (i, k) in (0u32..).zip(&keys) {
            // two candidates on each exact key, one on each prefix
            assert_eq!(
                pk.lookup(index.exact, id * 2, k).map(|e| e.run.1),
                Some(2),
                "{k}"
            );
            assert_eq!(
                pk.lookup(index.prefix, (id * 2) | 1, k).map(|e| e.run),
                Some((2 * i + 1, 1)),
                "{k}"
            );
        }
    }

    /// The counting sort of prefix keys orders them as the stable sort by descending length
    /// did, for short and long lists and lengths past the counting sort's bound.
    #[test]
    fn longest_first_is_a_stable_sort_by_descending_length() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        for (count, max_len) in [(0, 8), (5, 8), (31, 40), (32, 40), (500, 12), (300, 5000)] {
            let keys: Vec<String> = (0..count)
                .map(|_| "/".repeat(usize::try_from(next(max_len)).unwrap_or(0) + 1))
                .collect();
            let pending: Vec<PendingKey<'_>> = keys
                .iter()
                .map(|k| PendingKey {
                    key: k,
                    prefix: true,
                    first: 0,
                    more: (NONE, NONE),
                    next: NONE,
                    hash: None,
                })
                .collect();
            let order: Vec<u32> = (0..u32::try_from(count).unwrap_or(0)).rev().collect();
            let mut want = order.clone();
            want.sort_by_key(|&pi| std::cmp::Reverse(keys[pi as usize].len()));
            let mut got = vec![7, 8];
            longest_first(&pending, &order, &mut Vec::new(), &mut got);
            assert_eq!(got[..2], [7, 8]);
            assert_eq!(got[2..], want[..], "{count} keys up to {max_len} bytes");
        }
    }

    /// Builds two indexes with the same `n` exact and `n` prefix keys (so large ones share
    /// the hash and every key exists in both) and returns them with their keys.
    fn two_indexes(n: u32, keys: &[String]) -> (PathKeys, PathIndex, PathIndex) {
        two_indexes_seeded(n, keys, 0)
    }

    fn two_indexes_seeded(n: u32, keys: &[String], seed: u64) -> (PathKeys, PathIndex, PathIndex) {
        let mut b = PathKeysBuilder::new(HashKeys::new(seed));
        let mut pool = RegexPool::default();
        let any = pool.intern(".*").unwrap_or(0);
        let order = |a: &u32, b: &u32| a.cmp(b);
        let mut built = Vec::new();
        for base in [0u32, 1000] {
            let mut ib = b.index();
            for i in 0..n {
                let k = keys.get(i as usize).map_or("", String::as_str);
                // candidate ids encode (index, key, kind); a second candidate on each exact
                // key, added first with a higher id, checks the run is sorted
                b.add(&mut ib, PathSlot::Exact(k), base + 2 * i + 100);
                b.add(&mut ib, PathSlot::Exact(k), base + 2 * i);
                b.add(&mut ib, PathSlot::Prefix(k), base + 2 * i + 1);
            }
            b.add(
                &mut ib,
                PathSlot::Regex {
                    regex: any,
                    rejectable: false,
                },
                base + 999,
            );
            built.push(b.finish(ib, &order, &mut pool));
        }
        let keys = b.freeze();
        (keys, built[0], built[1])
    }

    fn hits(keys: &PathKeys, pi: &PathIndex, path: &str) -> Vec<u32> {
        let mut out = Vec::new();
        // the indexes' one regex, `.*`, is the first a fresh pool interns (id 0), as in
        // `two_indexes_seeded`
        let mut pool = RegexPool::default();
        let _ = pool.intern(".*");
        pi.find(keys, &pool, path, |c| {
            out.push(c);
            None::<()>
        });
        out
    }

    // Gateway API HTTPPathMatch; Gateway API HTTPRouteRule.matches precedence, Exact path then
    // longest PathPrefix: the same answers from the scanned (small) and the hashed (large) layout:
    // exact candidates in precedence order, then prefixes longest first on segment boundaries, then
    // regexes; an index never sees another index's keys.
    #[test]
    fn small_and_large_path_indexes_agree() {
        let keys: Vec<String> = (0..40).map(|i| format!("/k{i}")).collect();
        for n in [3u32, SCAN_MAX, SCAN_MAX + 1, 40] {
            let (pk, a, b) = two_indexes(n, &keys);
            assert_eq!(a.exact.1 > SCAN_MAX, n > SCAN_MAX);
            for i in 0..n {
                let k = &keys[i as usize];
                let e = 2 * i;
                assert_eq!(hits(&pk, &a, k), vec![e, e + 100, e + 1, 999], "n={n} {k}");
                assert_eq!(
                    hits(&pk, &b, k),
                    vec![1000 + e, 1100 + e, 1001 + e, 1999],
                    "n={n} {k}"
                );
                assert_eq!(hits(&pk, &a, &format!("{k}/x")), vec![e + 1, 999]);
                // not on a segment boundary
                assert_eq!(hits(&pk, &a, &format!("{k}x")), vec![999]);
            }
            assert_eq!(hits(&pk, &a, "/other"), vec![999]);
        }
    }

    // Gateway API HTTPPathMatch: nested prefixes are tried longest first in both layouts.
    #[test]
    fn nested_prefixes_are_tried_longest_first() {
        let order = |a: &u32, b: &u32| a.cmp(b);
        for extra in [0u32, 20] {
            let mut b = PathKeysBuilder::default();
            let mut ib = b.index();
            b.add(&mut ib, PathSlot::Prefix("/"), 1);
            b.add(&mut ib, PathSlot::Prefix("/a/"), 2);
            b.add(&mut ib, PathSlot::Prefix("/a/b"), 3);
            let fillers: Vec<String> = (0..extra).map(|i| format!("/f{i}/g")).collect();
            for (i, f) in fillers.iter().enumerate() {
                b.add(&mut ib, PathSlot::Prefix(f), 100 + i as u32);
            }
            let pi = b.finish(ib, &order, &mut RegexPool::default());
            let pk = b.freeze();
            assert_eq!(hits(&pk, &pi, "/a/b/c"), vec![3, 2, 1], "extra={extra}");
            assert_eq!(hits(&pk, &pi, "/a/bc"), vec![2, 1], "extra={extra}");
            assert_eq!(hits(&pk, &pi, "/x"), vec![1], "extra={extra}");
        }
    }

    // BuildOptions::hash_seed: the seed moves keys to other slots of the shared path hash
    // (so colliding keys found offline for one seed do not collide under another), while
    // every lookup answers the same.
    #[test]
    fn hash_seed_moves_path_keys_but_not_answers() {
        let keys: Vec<String> = (0..40).map(|i| format!("/k{i}")).collect();
        let (pa, a0, a1) = two_indexes_seeded(40, &keys, 1);
        let (pb, b0, b1) = two_indexes_seeded(40, &keys, 2);
        assert_eq!(pa.slots.len(), pb.slots.len());
        assert_ne!(
            pa.slots, pb.slots,
            "the same keys in the same slots under two seeds"
        );
        assert_ne!(pa.hash, pb.hash);
        for k in &keys {
            for p in [k.clone(), format!("{k}/x"), format!("{k}x")] {
                assert_eq!(hits(&pa, &a0, &p), hits(&pb, &b0, &p), "{p}");
                assert_eq!(hits(&pa, &a1, &p), hits(&pb, &b1, &p), "{p}");
            }
        }
        // the maps' hasher is keyed the same way
        let (x, y) = (HashKeys::new(1), HashKeys::new(2));
        assert_ne!(x.hash_one("/k1"), y.hash_one("/k1"));
        assert_eq!(x.hash_one("/k1"), HashKeys::new(1).hash_one("/k1"));
    }

    // A difference in the top bit of one word and bit 4 of the next passes a rotate-xor-
    // multiply hash unchanged whatever its initial state (the collision an unkeyed FxHash
    // allows for any seed): the folded multiply does not let it through.
    #[test]
    fn top_bit_differences_do_not_collide_for_every_seed() {
        let a: [u8; 16] = *b"/aaaaaaa/aaaaaaa";
        let mut b = a;
        b[7] ^= 0x80;
        b[8] ^= 0x10;
        let collide = (0..64u64)
            .filter(|s| {
                let k = HashKeys::new(*s);
                salted_hash_bytes(k, 0, &a) == salted_hash_bytes(k, 0, &b)
            })
            .count();
        assert_eq!(collide, 0);
    }

    // Every key is found within the longest displacement the build recorded (the bound the
    // lookup stops at).
    #[test]
    fn lookups_stop_at_the_recorded_probe_bound() {
        let keys: Vec<String> = (0..500).map(|i| format!("/p/{i}")).collect();
        let (pk, a, _) = two_indexes_seeded(500, &keys, 7);
        assert!(pk.max_probe <= PROBE_LIMIT);
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(hits(&pk, &a, k).first(), Some(&(2 * i as u32)), "{k}");
        }
    }

    // The probe bound holds at any load: with the hash filled to capacity (displacements far
    // above the usual ones) every key is still found within the recorded maximum.
    #[test]
    fn a_full_hash_records_its_longest_probe_and_finds_every_key() {
        let keys: Vec<String> = (0..64).map(|i| format!("/full/{i}")).collect();
        let (mut pk, a, _) = two_indexes_seeded(64, &keys, 3);
        let large = [(a.id.wrapping_mul(2), a.exact)];
        let (slots, max_probe) = pk.fill_slots(&large, 64, &[]);
        assert!(max_probe > 0, "a full table displaces some key");
        pk.slots = slots;
        pk.max_probe = max_probe;
        for (i, k) in keys.iter().enumerate() {
            let e = pk.lookup(a.exact, a.id.wrapping_mul(2), k).map(|e| e.run.0);
            assert_eq!(e, Some(2 * i as u32), "{k}");
        }
        assert!(
            pk.lookup(a.exact, a.id.wrapping_mul(2), "/full/x")
                .is_none()
        );
    }
}
