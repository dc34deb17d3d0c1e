//! Path indexes, as the resolve path reads them: every HTTP path index of a table in shared
//! arrays ([`PathKeys`]) and one index's ranges into them ([`PathIndex`]), probed exact key
//! first, then prefixes longest first, then regexes.

use crate::hash::{HashKeys, mix, tail_word};
use crate::regex::RegexPool;

/// A run of candidate ids: (start, length) in [`PathKeys::ids`], except that a run of length
/// 1 holds the candidate id itself in `start` (most path keys have one candidate; then no
/// list is stored at all).
pub(crate) type Run = (u32, u32);

/// Path indexes with at most this many exact (or prefix) keys are scanned linearly: their
/// keys sit next to each other, so a scan touches one or two cache lines where a hash probe
/// touches a slot, an entry and the key. Larger ones are probed through the hash slots.
pub(super) const SCAN_MAX: u32 = 8;

/// Longest probe run the shared path hash accepts before it doubles its capacity.
pub(super) const PROBE_LIMIT: u32 = 32;

/// One path key of a [`PathIndex`]: its bytes in [`PathKeys::bytes`] and its candidates.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyEntry {
    pub(super) key: u32,
    pub(super) key_len: u32,
    /// [`fingerprint`] of the key: most non-matching keys are told apart without reading
    /// their bytes.
    pub(super) fp: u32,
    pub(super) run: Run,
}

/// A cheap, O(1) fingerprint of a key: its length and first and last 8 bytes. Equal keys
/// have equal fingerprints; most unequal ones of a route set differ in one of those.
#[inline]
pub(super) fn fingerprint(s: &[u8]) -> u32 {
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
    pub(super) bytes: String,
    pub(super) entries: Vec<KeyEntry>,
    pub(super) ids: Vec<u32>,
    /// Distinct prefix lengths, descending, per large index.
    pub(super) lens: Vec<u32>,
    /// (hash tag, entry + 1); 0 = empty. Length a power of two (or 0).
    pub(super) slots: Box<[(u32, u32)]>,
    /// The longest distance from a key's home slot to its slot: a lookup gives up after it.
    pub(super) max_probe: u32,
    /// Keys of the hash (from [`crate::BuildOptions::hash_seed`]).
    pub(super) hash: HashKeys,
    /// The key lengths of each large index's `Exact` keys ([`len_bit`] of each, or-ed), at
    /// the start of its entry range divided by [`LENS_STEP`]: a path of a length no key has
    /// misses without being hashed and probed (a miss cost ~95 instructions, callgrind;
    /// regex paths and 404s always miss). Large ranges hold more than [`SCAN_MAX`] entries
    /// and do not overlap, so their starts are more than `LENS_STEP` apart and each has a
    /// slot of its own. Made with the hash ([`PathKeys::build_slots`]); 0 (or no slot): any
    /// length.
    pub(super) exact_lens: Box<[u64]>,
    /// The (length, last byte) pairs of each large range's keys, exact and prefix ranges
    /// alike ([`tail_bit`] of each key, or-ed), at the start of the range divided by
    /// [`LENS_STEP`] (an exact range is followed by its index's prefix range, more than
    /// `LENS_STEP` entries later, so the two never share a slot): a probe whose pair no key
    /// has misses without being hashed (~40 instructions a probe, callgrind: paths a regex
    /// takes and 404s probe prefixes of every length on a segment boundary). Made with the
    /// hash ([`PathKeys::build_slots`]); 0 (or no slot): any key.
    pub(super) tails: Box<[u64]>,
}

/// The bit of a key in [`PathKeys::tails`]: its length and last byte folded into 0..64
/// (keys of lengths less than 8 apart ending in the same byte, or of one length ending in
/// different bytes, take different bits). The empty key (the root prefix) has one too.
#[inline]
pub(super) fn tail_bit(key: &[u8]) -> u64 {
    let last = u32::from(key.last().copied().unwrap_or(0));
    // lengths past `u32::MAX` wrap: only ever a false hit, never a false miss
    let len = key.len() as u32;
    1 << (len.wrapping_mul(8).wrapping_add(last) & 63)
}

/// Entries per slot of [`PathKeys::exact_lens`]: at most the shortest large range's length.
const LENS_STEP: u32 = SCAN_MAX;

/// The bit of a key length in [`ExactLens::mask`]: lengths of 63 bytes and more share the
/// last bit.
#[inline]
pub(super) fn len_bit(len: usize) -> u64 {
    1 << len.min(63)
}

/// Path index of one hostname group of HTTPRoute matches: ranges into [`PathKeys`].
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct PathIndex {
    /// Hash salt: distinguishes this index's keys in the shared hash.
    pub(super) id: u32,
    /// Entries of the `Exact` keys.
    pub(super) exact: (u32, u32),
    /// Entries of the `PathPrefix` keys (normalised: no trailing `/`, the root is `""`),
    /// longest first.
    pub(super) prefix: (u32, u32),
    /// Distinct prefix lengths in [`PathKeys::lens`], descending (large indexes only).
    pub(super) lens: (u32, u32),
    /// Candidates of regex paths.
    pub(super) regex: Run,
    /// With one regex candidate its regex, with several their set (in the table's
    /// [`RegexPool`]).
    pub(super) regex_sel: u32,
}

/// Hash of a path key for the shared hash (salted by index and kind, keyed by the table's
/// seed): the salt and length in the initial state, one folded multiply per 8 bytes, the
/// tail as one overlapping word. The folded multiply leaves the low bits (the slot) mixed.
#[inline]
pub(super) fn salted_hash(keys: HashKeys, salt: u32, key: &str) -> u64 {
    salted_hash_bytes(keys, salt, key.as_bytes())
}

#[inline]
pub(super) fn salted_hash_bytes(keys: HashKeys, salt: u32, b: &[u8]) -> u64 {
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

pub(super) fn range(r: (u32, u32)) -> std::ops::Range<usize> {
    let start = r.0 as usize;
    start..start + r.1 as usize
}

impl PathKeys {
    pub(super) fn key(&self, e: &KeyEntry) -> &str {
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

    pub(super) fn entries(&self, r: (u32, u32)) -> &[KeyEntry] {
        self.entries.get(range(r)).unwrap_or(&[])
    }

    /// Whether the `Exact` keys `r` of an index may hold a key of `len` bytes: false only for
    /// a large index none of whose keys is that long (small ones are scanned by fingerprint,
    /// which compares the length already).
    #[inline]
    pub(super) fn may_hold_exact_len(&self, r: (u32, u32), len: usize) -> bool {
        if r.1 <= SCAN_MAX {
            return true;
        }
        self.exact_lens
            .get((r.0 / LENS_STEP) as usize)
            .is_none_or(|&mask| mask == 0 || mask & len_bit(len) != 0)
    }

    /// The entry of `key` among `r` (an index's exact or prefix keys), salted with `salt`.
    #[inline(always)]
    pub(super) fn lookup(&self, r: (u32, u32), salt: u32, key: &str) -> Option<&KeyEntry> {
        let key = key.as_bytes();
        if r.1 <= SCAN_MAX {
            let fp = fingerprint(key);
            return self
                .entries(r)
                .iter()
                .find(|e| e.fp == fp && same_bytes(self.key_bytes(e), key));
        }
        if self.tails_of(r) & tail_bit(key) == 0 {
            return None;
        }
        self.probe(r, salt, key)
    }

    /// The [`tail_bit`]s of the keys of a large range `r` (all of them when not known).
    #[inline]
    fn tails_of(&self, r: (u32, u32)) -> u64 {
        match self.tails.get((r.0 / LENS_STEP) as usize) {
            Some(&tails) if tails != 0 => tails,
            _ => u64::MAX,
        }
    }

    /// [`PathKeys::lookup`] of `key` in the large range `r`, without the tails bits.
    /// Out of line for the prefix loop of [`PathIndex::find`]: inlined there, its state (the
    /// hash's keys, the slots) was loaded and spilled before the loop on every request,
    /// ~45 instructions where most requests probe once or not at all (callgrind).
    #[inline(never)]
    fn probe_out_of_line(&self, r: (u32, u32), salt: u32, key: &[u8]) -> Option<&KeyEntry> {
        self.probe(r, salt, key)
    }

    /// The hash probe of [`PathKeys::lookup`] for a large range.
    #[inline(always)]
    fn probe(&self, r: (u32, u32), salt: u32, key: &[u8]) -> Option<&KeyEntry> {
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
    pub(super) fn build_slots(&mut self, large: &[(u32, (u32, u32))], hashes: &[Option<u64>]) {
        let n: usize = large.iter().map(|(_, r)| r.1 as usize).sum();
        if n == 0 {
            return;
        }
        // an even salt is an index's `Exact` keys (`PathIndex::find`)
        let exact = || large.iter().filter(|(salt, _)| salt & 1 == 0).map(|l| l.1);
        let slots = exact().map(|r| (r.0 / LENS_STEP) as usize + 1).max();
        let mut lens = vec![0u64; slots.unwrap_or(0)];
        for r in exact() {
            let mask = self
                .entries(r)
                .iter()
                .fold(0, |m, e| m | len_bit(e.key_len as usize));
            if let Some(slot) = lens.get_mut((r.0 / LENS_STEP) as usize) {
                *slot = mask;
            }
        }
        self.exact_lens = lens.into_boxed_slice();
        let slots = large
            .iter()
            .map(|(_, r)| (r.0 / LENS_STEP) as usize + 1)
            .max();
        let mut tails = vec![0u64; slots.unwrap_or(0)];
        for &(_, r) in large {
            let mask = self
                .entries(r)
                .iter()
                .fold(0, |m, e| m | tail_bit(self.key_bytes(e)));
            if let Some(slot) = tails.get_mut((r.0 / LENS_STEP) as usize) {
                *slot = mask;
            }
        }
        self.tails = tails.into_boxed_slice();
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
    pub(super) fn fill_slots(
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
            && keys.may_hold_exact_len(self.exact, path.len())
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
            // read once: most prefix lengths on a boundary are told apart by it
            let tails = keys.tails_of(self.prefix);
            for &len in keys.lens.get(range(self.lens)).unwrap_or(&[]) {
                let len = len as usize;
                if !boundary(len) {
                    continue;
                }
                if let Some(p) = bytes.get(..len)
                    && tails & tail_bit(p) != 0
                    && let Some(e) = keys.probe_out_of_line(self.prefix, salt, p)
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
