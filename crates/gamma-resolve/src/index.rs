//! The per-request indexes: hostname groups, then paths (exact map, segment-prefix map
//! probed longest first, regexes last) or gRPC service/method maps. Every index yields
//! candidate ids already in precedence order (sorted at build time), so the first candidate
//! whose remaining conditions hold is the winner.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::hostname::{self, MAX_HOSTNAME_LEN};
use crate::path::normalize_prefix;

/// FxHash-style hasher: the table's keys come from route specs and are probed with request
/// strings; SipHash's DoS resistance buys nothing there (an attacker cannot insert keys
/// through requests) and costs a large share of a lookup.
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(SEED);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            if let Some(dst) = w.get_mut(..rest.len()) {
                dst.copy_from_slice(rest);
            }
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(SEED);
        }
        self.0 = h;
    }
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(SEED);
    }
    fn write_u16(&mut self, i: u16) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(SEED);
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(SEED);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(SEED);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Hash map with the fast hasher.
pub(crate) type Map<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A list of candidate ids, sorted by precedence key.
pub(crate) type Cands = Box<[u32]>;

/// Hostname groups (§2.1 step 1): exact hostnames, wildcard suffixes (longest first), then
/// routes without a hostname. For one request host the groups that match are totally ordered
/// by hostname specificity, so trying them in that order preserves precedence.
#[derive(Debug)]
pub(crate) struct HostIndex<G> {
    pub(crate) exact: Map<Box<str>, G>,
    /// Keyed by the suffix including its leading dot (`.example.com`).
    pub(crate) wild: Map<Box<str>, G>,
    /// Suffix lengths present in `wild`, descending.
    pub(crate) wild_lens: Box<[usize]>,
    pub(crate) any: Option<G>,
}

impl<G> Default for HostIndex<G> {
    fn default() -> Self {
        Self {
            exact: Map::default(),
            wild: Map::default(),
            wild_lens: Box::new([]),
            any: None,
        }
    }
}

impl<G> HostIndex<G> {
    /// Gets or creates the group for a configured hostname (`None` = any).
    pub(crate) fn group_mut(&mut self, hostname: Option<&str>, new: impl FnOnce() -> G) -> &mut G {
        match hostname {
            None => self.any.get_or_insert_with(new),
            Some(h) => {
                let h = h.to_ascii_lowercase();
                match h.strip_prefix('*') {
                    Some(suffix) if suffix.starts_with('.') => {
                        let len = suffix.len();
                        if !self.wild_lens.contains(&len) {
                            let mut v = self.wild_lens.to_vec();
                            v.push(len);
                            v.sort_unstable_by(|a, b| b.cmp(a));
                            self.wild_lens = v.into_boxed_slice();
                        }
                        self.wild.entry(suffix.into()).or_insert_with(new)
                    }
                    _ => self.exact.entry(h.into_boxed_str()).or_insert_with(new),
                }
            }
        }
    }

    /// True when only the "any" group exists (then the host need not be looked at).
    pub(crate) fn host_independent(&self) -> bool {
        self.exact.is_empty() && self.wild.is_empty()
    }

    /// Calls `f` on each group matching `host` (a request Host/SNI as received; it is
    /// normalised here, only when hostname groups exist), most specific first, until `f`
    /// returns `Some`.
    pub(crate) fn find<R>(
        &self,
        host: Option<&str>,
        mut f: impl FnMut(&G) -> Option<R>,
    ) -> Option<R> {
        if !self.host_independent()
            && let Some(host) = host
        {
            let mut buf = [0u8; MAX_HOSTNAME_LEN];
            if let Some(h) = hostname::lowercase_into(hostname::normalize_host(host), &mut buf) {
                if let Some(g) = self.exact.get(h)
                    && let Some(r) = f(g)
                {
                    return Some(r);
                }
                for &len in self.wild_lens.iter() {
                    // the wildcard must cover at least one character before the dot
                    if h.len() <= len {
                        continue;
                    }
                    if let Some(suffix) = h.get(h.len() - len..)
                        && let Some(g) = self.wild.get(suffix)
                        && let Some(r) = f(g)
                    {
                        return Some(r);
                    }
                }
            }
        }
        self.any.as_ref().and_then(f)
    }

    /// All groups with their hostname (for explanations), in no particular order.
    pub(crate) fn groups(&self) -> impl Iterator<Item = (Option<String>, &G)> {
        self.exact
            .iter()
            .map(|(k, g)| (Some(k.to_string()), g))
            .chain(self.wild.iter().map(|(k, g)| (Some(format!("*{k}")), g)))
            .chain(self.any.iter().map(|g| (None, g)))
    }
}

/// A run of candidate ids in [`PathIndex::ids`]: (start, length).
pub(crate) type Run = (u32, u32);

/// Path index of one hostname group of HTTPRoute matches. Candidate lists live in one flat
/// array (`ids`) and maps hold runs into it: one allocation for all lists, 8 bytes per key.
#[derive(Debug, Default)]
pub(crate) struct PathIndex {
    pub(crate) exact: Map<Box<str>, Run>,
    /// Keyed by the normalised prefix (no trailing `/`; the root is `""`).
    pub(crate) prefix: Map<Box<str>, Run>,
    /// Lengths present in `prefix`, descending.
    pub(crate) prefix_lens: Box<[usize]>,
    pub(crate) regex: Run,
    pub(crate) ids: Box<[u32]>,
}

/// Builder of a [`PathIndex`].
#[derive(Debug, Default)]
pub(crate) struct PathIndexBuilder {
    exact: Map<Box<str>, Vec<u32>>,
    prefix: Map<Box<str>, Vec<u32>>,
    regex: Vec<u32>,
}

/// Where a candidate goes in a path index.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PathSlot<'a> {
    Exact(&'a str),
    Prefix(&'a str),
    Regex,
}

impl PathIndexBuilder {
    pub(crate) fn add(&mut self, slot: PathSlot<'_>, cand: u32) {
        // look up before inserting: most keys repeat, and a miss is the only time the key
        // needs an owned copy
        fn push(map: &mut Map<Box<str>, Vec<u32>>, key: &str, cand: u32) {
            match map.get_mut(key) {
                Some(v) => v.push(cand),
                None => {
                    map.insert(key.into(), vec![cand]);
                }
            }
        }
        match slot {
            PathSlot::Exact(p) => push(&mut self.exact, p, cand),
            PathSlot::Prefix(p) => push(&mut self.prefix, normalize_prefix(p), cand),
            PathSlot::Regex => self.regex.push(cand),
        }
    }

    /// Sorts every list with `order` (by precedence key) and freezes the index.
    pub(crate) fn finish(self, order: &impl Fn(&u32, &u32) -> std::cmp::Ordering) -> PathIndex {
        let total = self
            .exact
            .values()
            .chain(self.prefix.values())
            .map(Vec::len)
            .sum::<usize>()
            + self.regex.len();
        let mut ids: Vec<u32> = Vec::with_capacity(total);
        let mut freeze = |mut v: Vec<u32>| -> Run {
            v.sort_by(order);
            v.dedup();
            let start = u32::try_from(ids.len()).unwrap_or(u32::MAX);
            ids.extend_from_slice(&v);
            (start, u32::try_from(v.len()).unwrap_or(0))
        };
        let mut lens: Vec<usize> = self.prefix.keys().map(|k| k.len()).collect();
        lens.sort_unstable_by(|a, b| b.cmp(a));
        lens.dedup();
        let exact = self
            .exact
            .into_iter()
            .map(|(k, v)| (k, freeze(v)))
            .collect();
        let prefix = self
            .prefix
            .into_iter()
            .map(|(k, v)| (k, freeze(v)))
            .collect();
        let regex = freeze(self.regex);
        PathIndex {
            exact,
            prefix,
            prefix_lens: lens.into_boxed_slice(),
            regex,
            ids: ids.into_boxed_slice(),
        }
    }
}

impl PathIndex {
    /// The candidate ids of a run.
    pub(crate) fn list(&self, (start, len): Run) -> &[u32] {
        let start = start as usize;
        self.ids.get(start..start + len as usize).unwrap_or(&[])
    }

    /// Calls `f` on candidates whose path condition may hold, in precedence order: exact
    /// path, then prefixes longest first (on segment boundaries), then regexes (whose own
    /// condition `f` must check). Stops at the first `Some`.
    pub(crate) fn find<R>(&self, path: &str, mut f: impl FnMut(u32) -> Option<R>) -> Option<R> {
        if !self.exact.is_empty()
            && let Some(run) = self.exact.get(path)
        {
            for &c in self.list(*run) {
                if let Some(r) = f(c) {
                    return Some(r);
                }
            }
        }
        let bytes = path.as_bytes();
        for &len in self.prefix_lens.iter() {
            // a prefix of length `len` matches on a segment boundary only
            let boundary = match bytes.get(len) {
                None => len == bytes.len(),
                Some(b) => *b == b'/',
            };
            if !boundary {
                continue;
            }
            if let Some(p) = path.get(..len)
                && let Some(run) = self.prefix.get(p)
            {
                for &c in self.list(*run) {
                    if let Some(r) = f(c) {
                        return Some(r);
                    }
                }
            }
        }
        for &c in self.list(self.regex) {
            if let Some(r) = f(c) {
                return Some(r);
            }
        }
        None
    }
}

/// gRPC index of one hostname group: exact service+method, exact service only, exact method
/// only, then the rest (§2.2: service characters, then method characters, decide first).
#[derive(Debug, Default)]
pub(crate) struct GrpcIndex {
    /// Keyed by `service/method`.
    pub(crate) both: Map<Box<str>, Cands>,
    pub(crate) service: Map<Box<str>, Cands>,
    pub(crate) method: Map<Box<str>, Cands>,
    pub(crate) rest: Cands,
}

/// Builder of a [`GrpcIndex`].
#[derive(Debug, Default)]
pub(crate) struct GrpcIndexBuilder {
    both: Map<Box<str>, Vec<u32>>,
    service: Map<Box<str>, Vec<u32>>,
    method: Map<Box<str>, Vec<u32>>,
    rest: Vec<u32>,
}

impl GrpcIndexBuilder {
    pub(crate) fn add(&mut self, service: Option<&str>, method: Option<&str>, cand: u32) {
        match (service, method) {
            (Some(s), Some(m)) => self
                .both
                .entry(format!("{s}/{m}").into())
                .or_default()
                .push(cand),
            (Some(s), None) => self.service.entry(s.into()).or_default().push(cand),
            (None, Some(m)) => self.method.entry(m.into()).or_default().push(cand),
            (None, None) => self.rest.push(cand),
        }
    }

    pub(crate) fn finish(self, order: &impl Fn(&u32, &u32) -> std::cmp::Ordering) -> GrpcIndex {
        let freeze = |mut v: Vec<u32>| -> Cands {
            v.sort_by(order);
            v.dedup();
            v.into_boxed_slice()
        };
        let f = |m: Map<Box<str>, Vec<u32>>| m.into_iter().map(|(k, v)| (k, freeze(v))).collect();
        GrpcIndex {
            both: f(self.both),
            service: f(self.service),
            method: f(self.method),
            rest: freeze(self.rest),
        }
    }
}

impl GrpcIndex {
    /// `path` is the gRPC `:path`; `service`/`method` its split parts.
    pub(crate) fn find<R>(
        &self,
        path: &str,
        service: &str,
        method: &str,
        mut f: impl FnMut(u32) -> Option<R>,
    ) -> Option<R> {
        let mut scan = |list: Option<&Cands>| -> Option<R> {
            for &c in list?.iter() {
                if let Some(r) = f(c) {
                    return Some(r);
                }
            }
            None
        };
        if !service.is_empty() {
            if let Some(key) = path.get(1..)
                && let Some(r) = scan(self.both.get(key))
            {
                return Some(r);
            }
            if let Some(r) = scan(self.service.get(service)) {
                return Some(r);
            }
            if let Some(r) = scan(self.method.get(method)) {
                return Some(r);
            }
        }
        scan(Some(&self.rest))
    }
}
