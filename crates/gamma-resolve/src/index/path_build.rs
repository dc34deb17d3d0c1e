//! Building the path indexes ([`PathKeysBuilder`], [`PathIndexBuilder`]): keys borrowed from
//! the input while the table is built, hashed once, frozen into [`PathKeys`].

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use crate::hash::HashKeys;
use crate::path::normalize_prefix;
use crate::regex::RegexPool;

use super::path::*;

/// One path key while building: the first candidate inline, further ones chained through
/// [`PathKeysBuilder::chain`] (no allocation per key).
#[derive(Debug)]
pub(super) struct PendingKey<'i> {
    pub(super) key: &'i str,
    pub(super) prefix: bool,
    pub(super) first: u32,
    /// Head and tail of the chain of further candidates (`NONE` = none).
    pub(super) more: (u32, u32),
    /// The next key of the same index (`NONE` = last): an index's keys are a list through
    /// the shared pending keys, not a vector per index.
    pub(super) next: u32,
    /// [`salted_hash`] of the key under its index's salt, once the index hashes its keys:
    /// the key map and the table's slots both use it (one hash per key).
    pub(super) hash: Option<u64>,
}

/// A key of [`PathKeysBuilder::by_key`]: (salt, key) with its [`salted_hash`], which is the
/// map's hash ([`PassHash`]).
#[derive(Debug, Clone, Copy)]
struct SaltedKey<'i> {
    pub(super) hash: u64,
    pub(super) salt: u32,
    pub(super) key: &'i str,
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

pub(super) const NONE: u32 = u32::MAX;

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
    pub(super) large: Vec<(u32, (u32, u32))>,
    pub(super) out: PathKeys,
    scratch: Vec<u32>,
    keys_scratch: Vec<u32>,
    /// The salted hash of each entry of `out` (by index), where the build computed one.
    pub(super) entry_hashes: Vec<Option<u64>>,
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
pub(super) fn longest_first(
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
    pub(super) id: u32,
    /// First and last of the index's pending keys (`NONE` = none), and their number.
    head: u32,
    pub(super) tail: u32,
    pub(super) count: usize,
    /// (candidate, regex, rejectable) of the regex paths.
    pub(super) regex: Vec<(u32, u32, bool)>,
    /// Whether the keys are in [`PathKeysBuilder::by_key`]; small indexes find repeated
    /// keys by scanning `keys` instead (no hashing).
    pub(super) hashed: bool,
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
    pub(super) fn run(
        &mut self,
        pi: u32,
        order: &impl Fn(&u32, &u32) -> std::cmp::Ordering,
    ) -> Run {
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
    pub(super) fn entries(
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
        if out.bytes.capacity() - out.bytes.len() >= super::SLACK_KEPT {
            out.bytes.shrink_to_fit();
        }
        super::shrink_slack(&mut out.entries);
        super::shrink_slack(&mut out.ids);
        super::shrink_slack(&mut out.lens);
        out.build_slots(&large, &self.entry_hashes);
        out
    }
}
