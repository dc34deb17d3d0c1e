//! Every regex of a candidate list matched in one pass over the haystack.
//!
//! A path index's regex candidates are tried in precedence order, and the first whose
//! conditions all hold wins. Trying each regex in turn costs one search per regex (a 404 tries
//! them all). Instead the list's patterns go, in list order, into one multi-pattern NFA of
//! `regex-automata` (the engine under the `regex` crate), so pattern id = list position, and
//! lazy DFAs over it answer:
//!
//! - a [`MatchKind::LeftmostFirst`] one finds, in one forward pass, the **lowest** pattern id
//!   that matches: all patterns are anchored at both ends, so every match spans the whole
//!   haystack and leftmost-first priority (earlier patterns first) decides. That is the first
//!   matching regex in precedence order, exactly what the sequential scan finds first;
//! - when that candidate's other conditions (method, headers, query) fail, the later matching
//!   patterns follow in ascending order from one overlapping pass of a [`MatchKind::All`] one
//!   (its [`PatternSet`]). It is built only for lists with such candidates; without it (no
//!   candidate can be rejected), or when a lazy DFA gives up, the list's single regexes are
//!   tried one by one: the same answers at the old cost.
//!
//! The lower-level engines, not `regex-automata`'s meta regex: the meta regex would also
//! build a reverse NFA (to find where a match starts, never asked here), a one-pass DFA and
//! a PikeVM whose per-thread cache holds two slots per pattern and NFA state (tens of
//! megabytes for a few hundred patterns), and one NFA per match kind; this is a quarter of its
//! build cost.
//!
//! Semantics are those of the single regexes ([`crate::regex::RegexPool`]): the patterns are
//! the single regexes' own anchored strings (`^(?:p)$`: a full match; Gateway API leaves
//! RegularExpression semantics to the implementation, and this one matches the whole value)
//! under the same syntax defaults (Unicode, UTF-8) as the `regex` crate.
//!
//! Per search nothing is allocated once warm: the lazy DFAs' caches and the [`PatternSet`]
//! come from a pool of the chunk (a pool hands the thread that created it its value without
//! locking, and other threads a value from a stack; a new value is allocated only the first
//! time a thread needs one at once with others), as the `regex` crate's own regexes do.

use std::sync::Arc;

use regex_automata::hybrid::LazyStateID;
use regex_automata::hybrid::dfa as lazy;
use regex_automata::nfa::thompson::NFA;
use regex_automata::util::pool::Pool;
use regex_automata::{Anchored, Input, MatchKind, PatternSet};
use regex_syntax::hir::Hir;

use super::single::{Compiling, SingleRegex};
use super::{REGEX_DFA_LIMIT, REGEX_SIZE_LIMIT};

/// Compiled-program size limit of one set's NFA (bytes). Every pattern passed
/// [`REGEX_SIZE_LIMIT`] alone, so a set of at least 16 of the largest fits; a list whose set
/// would be larger is split into several (see [`RegexSet::chunks`]).
pub(crate) const REGEX_SET_SIZE_LIMIT: usize = 16 * REGEX_SIZE_LIMIT;
/// Lazy-DFA cache limit of each of a set's two lazy DFAs (bytes): larger than a single
/// regex's ([`REGEX_DFA_LIMIT`]) since the states of every pattern share it. When it fills
/// up too often the search falls back to the PikeVM (slower, same answers).
pub(crate) const REGEX_SET_DFA_LIMIT: usize = 8 * REGEX_DFA_LIMIT;

/// Where the all-matches lazy DFA's walk over a whole haystack ended ([`end_state`]).
enum End {
    /// The state after the haystack and its end (its match patterns are those that match the
    /// whole haystack).
    State(LazyStateID),
    /// The dead state: no pattern matches.
    Dead,
    /// A match before the end (none of the set's patterns, anchored at both ends, has one), a
    /// quit state or a cache that gave up: the general search decides.
    Other,
}

/// The all-matches DFA's state after the whole of `input` (anchored, from its start) and
/// its end. The matches of anchored patterns all end at the haystack's end, so the end
/// state's patterns are every match: a plain walk of the transitions, where the overlapping
/// search re-entered once per match and kept its position in memory (~30 instructions a
/// byte, callgrind).
fn end_state(dfa: &lazy::DFA, cache: &mut lazy::Cache, input: &Input<'_>) -> End {
    let Ok(mut sid) = dfa.start_state_forward(cache, input) else {
        return End::Other;
    };
    let bytes = input
        .haystack()
        .get(input.start()..input.end())
        .unwrap_or(&[]);
    for &b in bytes {
        if sid.is_tagged() {
            if sid.is_dead() {
                return End::Dead;
            }
            if !sid.is_start() {
                return End::Other;
            }
        }
        sid = match dfa.next_state(cache, sid, b) {
            Ok(next) => next,
            Err(_) => return End::Other,
        };
    }
    if sid.is_dead() {
        return End::Dead;
    }
    if sid.is_tagged() && !sid.is_start() {
        return End::Other;
    }
    match dfa.next_eoi_state(cache, sid) {
        Ok(end) if end.is_dead() => End::Dead,
        Ok(end) if !end.is_quit() && !end.is_unknown() => End::State(end),
        _ => End::Other,
    }
}

/// Later matches (after a rejected lowest one) that [`RegexSet::after`] collects on the
/// stack; more go through the chunk's [`PatternSet`].
const FEW_MATCHES: usize = 16;

/// The per-thread matching state of one chunk: the lazy DFAs' caches and the pattern set of
/// the all-matches pass.
#[derive(Debug)]
struct Scratch {
    first: lazy::Cache,
    all: Option<lazy::Cache>,
    set: PatternSet,
}

/// Creates a chunk's [`Scratch`].
type NewScratch =
    Box<dyn Fn() -> Scratch + Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe>;

/// The lazy DFAs of one chunk over one forward NFA: leftmost-first for the lowest match,
/// all-matches (only for lists with rejectable candidates) for the later ones. A search a
/// lazy DFA gives up on (a Unicode word boundary next to non-ASCII text, a thrashing cache)
/// tries the chunk's single regexes one by one instead: same answers, no third engine to
/// keep per thread.
#[derive(Debug)]
struct Engines {
    first: lazy::DFA,
    all: Option<lazy::DFA>,
    scratch: Pool<Scratch, NewScratch>,
}

/// Part of a set: the regexes of a contiguous range of list positions, or a single pattern
/// that only compiles alone (then the shared regex of the table's pool).
#[derive(Debug)]
enum Chunk {
    Many {
        /// List position of pattern 0.
        offset: u32,
        /// The table's regex of each pattern (for the one-by-one fallback); empty in a
        /// prefilter set, whose fallback reports every position ([`RegexSet::prefilter`]).
        ids: Box<[u32]>,
        /// In a prefilter set, whether each pattern is exactly its position's conditions, so
        /// that a match of the lazy DFA confirms them (see [`RegexSet::find_confirming`]);
        /// empty in a regex set (`ids` not empty), every match of which is confirmed.
        exact: Box<[bool]>,
        /// Number of patterns.
        len: u32,
        /// Shared with the sets of later builds over the same regexes
        /// ([`RegexSet::reindexed`]).
        engines: Arc<Engines>,
    },
    One {
        offset: u32,
        /// Index into the table's compiled regexes; `None` in a prefilter set: the position
        /// is always reported.
        id: Option<u32>,
    },
}

/// The regexes of one candidate list, matched in one pass (one per chunk; one chunk unless
/// the list is too large for one set).
#[derive(Debug)]
pub(crate) struct RegexSet {
    chunks: Box<[Chunk]>,
}

/// The forward NFA of already anchored patterns (`None`: over the set's limits, or a pattern
/// that did not parse). One NFA serves both match kinds: the kind is a property of the DFA
/// searching it. No reverse NFA: every search is anchored and only asks which pattern matches.
fn nfa(patterns: &[Option<&Hir>], with: &mut Compiling) -> Option<NFA> {
    let hirs: Option<Vec<&Hir>> = patterns.iter().copied().collect();
    with.nfa(&hirs?, Some(REGEX_SET_SIZE_LIMIT)).ok()
}

/// The lazy DFA of `nfa` for `kind`.
fn dfa(nfa: &NFA, kind: MatchKind) -> Option<lazy::DFA> {
    lazy::Builder::new()
        .configure(
            lazy::Config::new()
                .match_kind(kind)
                .cache_capacity(REGEX_SET_DFA_LIMIT)
                // quit on non-ASCII text rather than refuse a Unicode word boundary
                .unicode_word_boundary(true)
                // give up when the cache thrashes, as the regex crate does
                .minimum_cache_clear_count(Some(3))
                .minimum_bytes_per_state(Some(10)),
        )
        .build_from_nfa(nfa.clone())
        .ok()
}

/// The engines of a chunk, or `None` when its NFA is over the limits.
fn build(patterns: &[Option<&Hir>], rejectable: bool, with: &mut Compiling) -> Option<Engines> {
    let nfa = nfa(patterns, with)?;
    let first = dfa(&nfa, MatchKind::LeftmostFirst)?;
    let all = if rejectable {
        Some(dfa(&nfa, MatchKind::All)?)
    } else {
        None
    };
    let (f, a, n) = (first.clone(), all.clone(), nfa.pattern_len());
    let new: NewScratch = Box::new(move || Scratch {
        first: f.create_cache(),
        all: a.as_ref().map(lazy::DFA::create_cache),
        set: PatternSet::new(n),
    });
    Some(Engines {
        first,
        all,
        scratch: Pool::new(new),
    })
}

/// The first of `ids` (from position `from`) whose single regex matches `haystack`, and
/// then the next ones, until `f` returns `Some`. Without `ids` (a prefilter set), every
/// position from `from` to `len`: the caller checks each one itself.
fn one_by_one<R>(
    pool: &[Arc<SingleRegex>],
    (ids, len): (&[u32], u32),
    from: usize,
    haystack: &str,
    mut f: impl FnMut(usize) -> Option<R>,
) -> Option<R> {
    if ids.is_empty() {
        return (from..len as usize).find_map(f);
    }
    for (i, &id) in ids.iter().enumerate().skip(from) {
        if pool
            .get(id as usize)
            .is_some_and(|re| re.is_match(haystack))
            && let Some(r) = f(i)
        {
            return Some(r);
        }
    }
    None
}

impl RegexSet {
    /// The set of the table's regexes `ids`, pattern id = position in `ids`, compiled from
    /// their parsed (anchored) patterns `patterns` (`None`: not parsed, never matches).
    /// `rejectable`: whether a candidate whose regex matches may still fail its other
    /// conditions (then the all-matches engines are built too). A list too large for one set
    /// is split in halves until each part builds; a pattern that builds only alone is matched
    /// with its own regex.
    pub(crate) fn new(
        patterns: &[Option<&Hir>],
        ids: &[u32],
        rejectable: bool,
        with: &mut Compiling,
    ) -> Self {
        let mut chunks = Vec::new();
        Self::chunks(patterns, Ok(ids), 0, rejectable, with, &mut chunks);
        Self {
            chunks: chunks.into_boxed_slice(),
        }
    }

    /// A prefilter set over already anchored `patterns` (pattern id = position): it reports
    /// every position whose pattern matches, in ascending order, and may report more (every
    /// position of a chunk a lazy DFA gives up on, or of a pattern that does not build): the
    /// caller checks each reported position itself. Used where a pattern only approximates
    /// the conditions of its position from above (the gRPC `service/method` patterns of
    /// [`crate::regex::RegexPool::intern_grpc_set`]).
    ///
    /// `exact[k]`: whether pattern `k` matches exactly when its position's conditions hold
    /// (not only whenever they do); such a position, reported by a lazy DFA's match, is
    /// reported as confirmed by [`RegexSet::find_confirming`].
    pub(crate) fn prefilter(patterns: &[&str], exact: &[bool], with: &mut Compiling) -> Self {
        let parsed: Vec<Option<Hir>> = patterns.iter().map(|p| with.parse(p)).collect();
        let refs: Vec<Option<&Hir>> = parsed.iter().map(Option::as_ref).collect();
        let mut chunks = Vec::new();
        Self::chunks(&refs, Err(exact), 0, true, with, &mut chunks);
        Self {
            chunks: chunks.into_boxed_slice(),
        }
    }

    /// This set over the same patterns, in the same order, as the regexes `ids` of another
    /// pool (a later build's): the compiled engines are shared, the one-by-one fallback reads
    /// the new pool. `None` when `ids` is not as long as the set.
    pub(crate) fn reindexed(&self, ids: &[u32]) -> Option<Self> {
        let chunks = self
            .chunks
            .iter()
            .map(|chunk| match chunk {
                Chunk::Many {
                    offset,
                    ids: old,
                    exact,
                    len,
                    engines,
                } => {
                    let from = *offset as usize;
                    let new: &[u32] = if old.is_empty() {
                        &[]
                    } else {
                        ids.get(from..from + *len as usize)?
                    };
                    Some(Chunk::Many {
                        offset: *offset,
                        ids: new.into(),
                        exact: exact.clone(),
                        len: *len,
                        engines: Arc::clone(engines),
                    })
                }
                Chunk::One { offset, id } => Some(Chunk::One {
                    offset: *offset,
                    id: match id {
                        Some(_) => Some(*ids.get(*offset as usize)?),
                        None => None,
                    },
                }),
            })
            .collect::<Option<Box<[Chunk]>>>()?;
        Some(Self { chunks })
    }

    /// Builds `patterns` (list positions from `offset`) as one chunk, or as two halves when
    /// the whole does not build; each split halves the list, so at most `2n` builds.
    /// `kind`: the table's regex of each pattern, or for a prefilter set whether each pattern
    /// is exact.
    fn chunks(
        patterns: &[Option<&Hir>],
        kind: Result<&[u32], &[bool]>,
        offset: usize,
        rejectable: bool,
        with: &mut Compiling,
        out: &mut Vec<Chunk>,
    ) {
        let offset32 = u32::try_from(offset).unwrap_or(u32::MAX);
        if patterns.is_empty() {
            return;
        }
        match build(patterns, rejectable, with) {
            Some(engines) => out.push(Chunk::Many {
                offset: offset32,
                ids: kind.unwrap_or_default().into(),
                exact: kind.err().unwrap_or_default().into(),
                len: u32::try_from(patterns.len()).unwrap_or(u32::MAX),
                engines: Arc::new(engines),
            }),
            None if patterns.len() == 1 => out.push(Chunk::One {
                offset: offset32,
                id: kind
                    .ok()
                    .map(|ids| ids.first().copied().unwrap_or(u32::MAX)),
            }),
            None => {
                let half = patterns.len() / 2;
                let (pa, pb) = patterns.split_at(half);
                let (ka, kb) = match kind {
                    Ok(ids) => {
                        let (a, b) = ids.split_at(half.min(ids.len()));
                        (Ok(a), Ok(b))
                    }
                    Err(exact) => {
                        let (a, b) = exact.split_at(half.min(exact.len()));
                        (Err(a), Err(b))
                    }
                };
                Self::chunks(pa, ka, offset, rejectable, with, out);
                Self::chunks(pb, kb, offset + half, rejectable, with, out);
            }
        }
    }

    /// Calls `f` with the list position of every pattern that fully matches `haystack`, in
    /// ascending order, until `f` returns `Some`. `pool` is the table's compiled regexes.
    #[inline]
    pub(crate) fn find<R>(
        &self,
        pool: &[Arc<SingleRegex>],
        haystack: &str,
        mut f: impl FnMut(usize) -> Option<R>,
    ) -> Option<R> {
        self.search::<false, R>(pool, haystack, |i, _| f(i))
    }

    /// [`RegexSet::find`], also telling `f` whether the position is confirmed: in a regex
    /// set always (each position reported matches); in a prefilter set when a lazy DFA's
    /// match reported it and its pattern is exact, so that the caller need not check that
    /// position's conditions again.
    #[inline]
    pub(crate) fn find_confirming<R>(
        &self,
        pool: &[Arc<SingleRegex>],
        haystack: &str,
        f: impl FnMut(usize, bool) -> Option<R>,
    ) -> Option<R> {
        self.search::<true, R>(pool, haystack, f)
    }

    /// [`RegexSet::find_confirming`]; without `CONFIRM` every flag is `false` and costs
    /// nothing ([`RegexSet::find`], the path index's regex sets on the resolve path).
    #[inline]
    fn search<const CONFIRM: bool, R>(
        &self,
        pool: &[Arc<SingleRegex>],
        haystack: &str,
        mut f: impl FnMut(usize, bool) -> Option<R>,
    ) -> Option<R> {
        let input = Input::new(haystack).anchored(Anchored::Yes);
        for chunk in self.chunks.iter() {
            match chunk {
                Chunk::Many {
                    offset,
                    ids,
                    exact,
                    len,
                    engines,
                } => {
                    let offset = *offset as usize;
                    // a regex set has a regex per position (a prefilter set has none): each
                    // match it reports, by lazy DFA or one by one, is confirmed
                    let regex_set = CONFIRM && !ids.is_empty();
                    // a prefilter set's lazy-DFA match confirms only an exact pattern (a
                    // position `exact` does not cover is not confirmed)
                    let confirmed =
                        |i: usize| regex_set || (CONFIRM && exact.get(i) == Some(&true));
                    // the one-by-one fallback: confirmed when it ran the position's regex
                    let by_one = regex_set;
                    let ids = (&**ids, *len);
                    let mut scratch = engines.scratch.get();
                    let s = &mut *scratch;
                    let lowest = match engines.first.try_search_fwd(&mut s.first, &input) {
                        Ok(None) => continue,
                        Ok(Some(m)) => m.pattern().as_usize(),
                        Err(_) => {
                            match one_by_one(pool, ids, 0, haystack, |i| f(offset + i, by_one)) {
                                Some(r) => return Some(r),
                                None => continue,
                            }
                        }
                    };
                    if let Some(r) = f(offset + lowest, confirmed(lowest)) {
                        return Some(r);
                    }
                    let later =
                        |i, dfa: bool| f(offset + i, if dfa { confirmed(i) } else { by_one });
                    let hay = (&input, haystack);
                    if let Some(r) = Self::after(pool, ids, (engines, s), hay, lowest, later) {
                        return Some(r);
                    }
                }
                Chunk::One { offset, id } => {
                    let maybe = match id {
                        Some(id) => pool
                            .get(*id as usize)
                            .is_some_and(|re| re.is_match(haystack)),
                        None => true,
                    };
                    if maybe && let Some(r) = f(*offset as usize, CONFIRM && id.is_some()) {
                        return Some(r);
                    }
                }
            }
        }
        None
    }

    /// The matching patterns of one chunk after `lowest` (the lowest match, rejected), in
    /// ascending order, until `f` returns `Some`; `f` is also told whether a lazy DFA
    /// reported the position (`false`: the one-by-one fallback did).
    ///
    /// The all-matches DFA walks the haystack once ([`end_state`]); the patterns of its end
    /// state go into a small array on the stack, sorted, and visited: a candidate list
    /// rarely has more than a few regexes matching one path. Only when more than
    /// [`FEW_MATCHES`] follow `lowest` (or the walk meets what it does not handle) does the
    /// overlapping search run into the chunk's [`PatternSet`], whose ascending walk reads
    /// one flag per pattern of the chunk (with 200 patterns ~1,800 instructions, callgrind,
    /// where the array's sort and walk cost a few dozen).
    #[cold]
    fn after<R>(
        pool: &[Arc<SingleRegex>],
        ids: (&[u32], u32),
        (engines, s): (&Engines, &mut Scratch),
        (input, haystack): (&Input<'_>, &str),
        lowest: usize,
        mut f: impl FnMut(usize, bool) -> Option<R>,
    ) -> Option<R> {
        let (Some(dfa), Some(cache)) = (&engines.all, s.all.as_mut()) else {
            // no all-matches DFA: no candidate was expected to be rejected
            return one_by_one(pool, ids, lowest + 1, haystack, |i| f(i, false));
        };
        let end = match end_state(dfa, cache, input) {
            End::State(sid) => sid,
            End::Dead => return None,
            // a match before the end, or a state the walk does not handle
            End::Other => {
                return Self::after_by_set(pool, ids, (engines, s), (input, haystack), lowest, f);
            }
        };
        if !end.is_match() {
            return None;
        }
        let mut later = [0usize; FEW_MATCHES];
        let mut n = 0usize;
        // the end state's patterns: every pattern that matches the whole haystack, each once
        for k in 0..dfa.match_len(cache, end) {
            let i = dfa.match_pattern(cache, end, k).as_usize();
            if i > lowest {
                let Some(slot) = later.get_mut(n) else {
                    return Self::after_by_set(
                        pool,
                        ids,
                        (engines, s),
                        (input, haystack),
                        lowest,
                        f,
                    );
                };
                *slot = i;
                n += 1;
            }
        }
        let found = later.get_mut(..n).unwrap_or_default();
        // ascending pattern ids = list order
        found.sort_unstable();
        found.iter().find_map(|&i| f(i, true))
    }

    /// [`RegexSet::after`] for a path more than [`FEW_MATCHES`] later patterns match: the
    /// all-matches DFA's matches into the chunk's [`PatternSet`], walked in ascending order.
    #[cold]
    #[inline(never)]
    fn after_by_set<R>(
        pool: &[Arc<SingleRegex>],
        ids: (&[u32], u32),
        (engines, s): (&Engines, &mut Scratch),
        (input, haystack): (&Input<'_>, &str),
        lowest: usize,
        mut f: impl FnMut(usize, bool) -> Option<R>,
    ) -> Option<R> {
        s.set.clear();
        let every = match (&engines.all, s.all.as_mut()) {
            (Some(dfa), Some(cache)) => dfa
                .try_which_overlapping_matches(cache, input, &mut s.set)
                .is_ok(),
            _ => false,
        };
        if !every {
            // no all-matches DFA (no candidate was expected to be rejected), or it gave up
            return one_by_one(pool, ids, lowest + 1, haystack, |i| f(i, false));
        }
        let mut left = s.set.len();
        // ascending pattern ids = list order
        for pid in s.set.iter() {
            let i = pid.as_usize();
            if i > lowest
                && let Some(r) = f(i, true)
            {
                return Some(r);
            }
            // once every match is visited, the rest of the chunk cannot match
            left -= 1;
            if left == 0 {
                break;
            }
        }
        None
    }

    /// Whether every chunk of this set runs the very engines of `other`'s (a reused set).
    #[cfg(test)]
    pub(crate) fn shares_engines_with(&self, other: &RegexSet) -> bool {
        self.chunks.len() == other.chunks.len()
            && self
                .chunks
                .iter()
                .zip(other.chunks.iter())
                .all(|pair| match pair {
                    (Chunk::Many { engines: a, .. }, Chunk::Many { engines: b, .. }) => {
                        Arc::ptr_eq(a, b)
                    }
                    (Chunk::One { .. }, Chunk::One { .. }) => true,
                    _ => false,
                })
    }

    /// Number of chunks (one unless the list was too large for one set).
    #[cfg(test)]
    fn chunk_count(&self) -> usize {
        self.chunks.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regex::RegexPool;

    /// The set of `patterns` (as written in routes) over a fresh pool.
    fn set_of(patterns: &[&str]) -> (RegexPool, RegexSet) {
        set_of_kind(patterns, true)
    }

    fn set_of_kind(patterns: &[&str], rejectable: bool) -> (RegexPool, RegexSet) {
        let mut pool = RegexPool::default();
        let ids: Vec<u32> = patterns.iter().map(|p| pool.intern(p).unwrap()).collect();
        let mut with = Compiling::default();
        let hirs: Vec<Hir> = pool
            .compiled()
            .iter()
            .map(|re| with.parse(re.as_str()).unwrap())
            .collect();
        let patterns: Vec<Option<&Hir>> = ids.iter().map(|&i| hirs.get(i as usize)).collect();
        let set = RegexSet::new(&patterns, &ids, rejectable, &mut with);
        (pool, set)
    }

    fn all(pool: &RegexPool, set: &RegexSet, h: &str) -> Vec<usize> {
        let mut out = Vec::new();
        set.find(pool.compiled(), h, |i| {
            out.push(i);
            None::<()>
        });
        out
    }

    // Gateway API HTTPPathMatch RegularExpression: this implementation matches the whole path, as
    // the single regexes do; every matching pattern is reported, in list order, repeated
    // patterns at each of their positions.
    #[test]
    fn reports_every_full_match_in_list_order() {
        let (pool, set) = set_of(&["/a/.*", "/a/[0-9]+", "/b", "a|/a/1", "/a/.*"]);
        assert_eq!(all(&pool, &set, "/a/1"), vec![0, 1, 3, 4]);
        assert_eq!(all(&pool, &set, "/a/x"), vec![0, 4]);
        assert_eq!(all(&pool, &set, "/b"), vec![2]);
        // full match only: no substring, and alternation stays inside the anchors
        assert_eq!(all(&pool, &set, "/b/c"), Vec::<usize>::new());
        assert_eq!(all(&pool, &set, "xa"), Vec::<usize>::new());
        assert_eq!(all(&pool, &set, "a"), vec![3]);
    }

    #[test]
    fn stops_at_the_first_some() {
        let (pool, set) = set_of(&["x", ".*", "x+"]);
        let mut seen = Vec::new();
        let r = set.find(pool.compiled(), "x", |i| {
            seen.push(i);
            (i == 1).then_some(i)
        });
        assert_eq!(r, Some(1));
        assert_eq!(seen, vec![0, 1]);
    }

    // A list whose patterns exceed one set's size limit is split, and positions stay those of
    // the whole list.
    #[test]
    fn oversized_lists_are_split_keeping_positions() {
        // a large pattern: the largest `\\w{0,k}x` (k doubling) that compiles alone
        let mut k = 1;
        while RegexPool::default()
            .intern(&format!("\\w{{0,{}}}x", k * 2))
            .is_ok()
        {
            k *= 2;
        }
        let big = format!("\\w{{0,{k}}}x");
        // enough copies for twice the set limit
        let mut with = Compiling::default();
        let hir = with.parse(&big).unwrap();
        let one = nfa(&[Some(&hir)], &mut with).map_or(1, |n| n.memory_usage());
        let copies = 2 * REGEX_SET_SIZE_LIMIT / one + 1;
        let mut patterns = vec![big.as_str(); copies];
        patterns.push("/last");
        let (pool, set) = set_of(&patterns);
        assert!(set.chunk_count() > 1, "{} chunks", set.chunk_count());
        assert_eq!(all(&pool, &set, "/last"), vec![copies]);
        assert_eq!(all(&pool, &set, "abéx"), (0..copies).collect::<Vec<_>>());
        assert_eq!(all(&pool, &set, "abé"), Vec::<usize>::new());
    }

    fn confirmed(set: &RegexSet, h: &str) -> Vec<(usize, bool)> {
        let mut out = Vec::new();
        set.find_confirming(&[], h, |i, c| {
            out.push((i, c));
            None::<()>
        });
        out
    }

    // A prefilter set confirms a position its lazy DFA matched only when that position's
    // pattern is exact; a regex set confirms every position it reports.
    #[test]
    fn prefilter_positions_are_confirmed_only_for_exact_patterns() {
        let mut with = Compiling::default();
        let set = RegexSet::prefilter(
            &[
                "^(?:a)/(?:b)$",
                "^(?:[^/]*)/(?:b)$",
                "^(?:x)/(?:b)$",
                "^(?:a)/(?:[^/]*)$",
            ],
            &[true, false, true, true],
            &mut with,
        );
        assert_eq!(
            confirmed(&set, "a/b"),
            vec![(0, true), (1, false), (3, true)]
        );
        assert_eq!(confirmed(&set, "x/b"), vec![(1, false), (2, true)]);
        assert_eq!(confirmed(&set, "a/c"), vec![(3, true)]);
        // a position its flags do not cover is never confirmed
        let unflagged = RegexSet::prefilter(&["^(?:a)/(?:b)$"], &[], &mut with);
        assert_eq!(confirmed(&unflagged, "a/b"), vec![(0, false)]);
        let (pool, regexes) = set_of(&["/a/.*", "/a/1"]);
        let mut seen = Vec::new();
        regexes.find_confirming(pool.compiled(), "/a/1", |i, c| {
            seen.push((i, c));
            None::<()>
        });
        assert_eq!(seen, vec![(0, true), (1, true)]);
    }

    // More later matches than the stack holds go through the pattern set, with the same
    // answers; at and under the limit they are collected on the stack.
    #[test]
    fn many_later_matches_are_all_reported_in_order() {
        for n in [
            FEW_MATCHES,
            FEW_MATCHES + 1,
            FEW_MATCHES + 2,
            3 * FEW_MATCHES,
        ] {
            let mut patterns = vec!["/b"; 3];
            patterns.extend((0..n).map(|k| if k % 2 == 0 { "/a.*" } else { "/a[0-9]" }));
            patterns.push("/c");
            let (pool, set) = set_of(&patterns);
            assert_eq!(
                all(&pool, &set, "/a1"),
                (3..3 + n).collect::<Vec<_>>(),
                "{n}"
            );
            let evens: Vec<usize> = (3..3 + n).step_by(2).collect();
            assert_eq!(all(&pool, &set, "/ax"), evens, "{n}");
            assert_eq!(all(&pool, &set, "/c"), vec![3 + n], "{n}");
        }
    }

    #[test]
    fn empty_list_matches_nothing() {
        let (pool, set) = set_of(&[]);
        assert_eq!(all(&pool, &set, ""), Vec::<usize>::new());
    }

    /// Pieces random patterns are made of: literals, classes, repetitions, alternations,
    /// groups, inner anchors and flags (all valid alone and in sequence).
    const PIECES: &[&str] = &[
        "/", "a", "b", "x", "[ab]", "[0-9]+", ".*", ".+", "(a|b)", "(/x)?", "a*", "b{1,2}", "^",
        "$", "(?i)A", "\\b", "|", "[^/]*", "é",
    ];

    fn pattern() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..5).prop_map(|v| v.concat())
    }

    fn haystack() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(
            proptest::sample::select(&["/", "a", "b", "x", "A", "0", "7", "é", ""][..]),
            0..7,
        )
        .prop_map(|v| v.concat())
    }

    use proptest::prelude::*;

    proptest! {
        // The set matcher visits exactly the regexes the sequential scan finds matching (each
        // single regex tried in list order), in the same order, so the first one (the winner
        // in precedence order) and every later one (when the winner's other conditions fail)
        // agree; with and without the all-matches regex, and stopping at any position.
        #[test]
        fn set_matches_the_sequential_scan(
            patterns in proptest::collection::vec(pattern(), 0..12),
            paths in proptest::collection::vec(haystack(), 1..8),
            rejectable in any::<bool>(),
            stop_at in 0usize..4,
        ) {
            let (pool, set) = set_of_kind(
                &patterns.iter().map(String::as_str).collect::<Vec<_>>(),
                rejectable,
            );
            let ids: Vec<u32> = patterns
                .iter()
                .map(|p| pool.intern_existing(p).unwrap())
                .collect();
            for path in &paths {
                let sequential: Vec<usize> = ids
                    .iter()
                    .enumerate()
                    .filter(|(_, id)| pool.is_match(**id, path))
                    .map(|(i, _)| i)
                    .collect();
                prop_assert_eq!(&all(&pool, &set, path), &sequential, "path {:?}", path);
                // accepting the `stop_at`-th match stops there
                let mut seen = 0usize;
                let got = set.find(pool.compiled(), path, |i| {
                    seen += 1;
                    (seen > stop_at).then_some(i)
                });
                prop_assert_eq!(got, sequential.get(stop_at).copied(), "path {:?}", path);
            }
        }
    }
}
