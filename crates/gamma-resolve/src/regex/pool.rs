//! The regex pool of a table: each distinct regex compiled once and shared by index, and the
//! regex sets of its candidate lists (one per distinct list of regexes). A build may take the
//! compiled regexes and sets of an earlier table ([`RegexPool::reusing`]), reached through
//! [`HoldsRegexes`] so that this folder never names the table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use regex_syntax::hir::Hir;

use super::ANCHOR;
use super::set::RegexSet;
use super::single::{Compiling, SingleRegex};

/// What holds a finished regex pool (a part of an earlier table): what a build reusing
/// earlier regexes reads them from.
pub(crate) trait HoldsRegexes: std::fmt::Debug + Send + Sync {
    /// The pool.
    fn regexes(&self) -> &RegexPool;
}

/// Regex sets by the regexes of their list.
type SetsByIds = HashMap<Box<[u32]>, u32>;

/// Distinct regexes of a table, compiled once, and the regex sets of its candidate lists
/// (one per distinct list of regexes).
#[derive(Debug, Default)]
pub(crate) struct RegexPool {
    by_pattern: HashMap<String, u32>,
    /// Shared with the pools of later builds that reuse them ([`RegexPool::reusing`]).
    compiled: Vec<Arc<SingleRegex>>,
    sets: Vec<RegexSet>,
    /// Sets by their regexes, without and with the all-matches regex.
    set_by_ids: (SetsByIds, SetsByIds),
    /// gRPC prefilter sets by their (service, method) regexes, flattened (`u32::MAX`: none).
    grpc_sets: SetsByIds,
    /// Build-time state, dropped when the table is made ([`RegexPool::finished`]). In a
    /// mutex only so that the pool stays `Sync` (the parser and compiler hold `RefCell`s);
    /// it is only ever reached through `&mut self`, never locked.
    building: Option<Box<Mutex<Building>>>,
}

/// What a build compiles its regexes with: one parser and compiler for all of them, each
/// compiled regex's parsed pattern (by index), which its regex sets are compiled from, so
/// that each distinct pattern is parsed once, and what an earlier table compiled.
#[derive(Debug, Default)]
struct Building {
    with: Compiling,
    hirs: Vec<Option<Hir>>,
    earlier: Earlier,
}

/// The regex pools of an earlier table's parts, for a build to take their compiled regexes
/// and regex sets instead of compiling them again; looked up only when the build needs a
/// regex or set it does not have, so a build that needs few of them pays for few.
#[derive(Debug, Default)]
struct Earlier {
    parts: Vec<Arc<dyn HoldsRegexes>>,
    /// Where each regex of the pool being built came from (index into `parts`, regex
    /// there), by index; `None` for one compiled by this build.
    origin: Vec<Option<(usize, u32)>>,
}

impl Earlier {
    /// The earliest part's compiled `pattern`, with where it is.
    fn regex(&self, pattern: &str) -> Option<(Arc<SingleRegex>, (usize, u32))> {
        self.parts.iter().enumerate().find_map(|(p, part)| {
            let pool = part.regexes();
            let &i = pool.by_pattern.get(pattern)?;
            Some((Arc::clone(pool.compiled.get(i as usize)?), (p, i)))
        })
    }

    /// The earlier set of `rejectable` kind over the regexes `ids` of the pool being built,
    /// re-indexed for it: only where every regex of the list came from one earlier part, whose
    /// set over exactly that list (in that order) is taken.
    fn set(&self, ids: &[u32], rejectable: bool) -> Option<RegexSet> {
        let mut part = None;
        let mut theirs = Vec::with_capacity(ids.len());
        for &id in ids {
            let (p, i) = (*self.origin.get(id as usize)?)?;
            if part.is_some_and(|q| q != p) {
                return None;
            }
            part = Some(p);
            theirs.push(i);
        }
        let pool = self.parts.get(part?)?.regexes();
        let by_ids = if rejectable {
            &pool.set_by_ids.1
        } else {
            &pool.set_by_ids.0
        };
        let &set = by_ids.get(theirs.as_slice())?;
        pool.sets.get(set as usize)?.reindexed(ids)
    }
}

/// The `service/method` pattern of a gRPC service and method regex (`None`: not matched):
/// a **prefilter** of the two conditions, matched against a well-formed `:path` without its
/// leading `/` (`service/method`, each part without `/`: the shape `cond::split_grpc_path`
/// accepts). The haystack then holds exactly one `/`, so `S/M` matches it exactly when `S`
/// fully matches the service and `M` the method, with the same answers for word boundaries
/// (`/` is a non-word character, as the end of the text is). Only anchors (`^`, `$`, `\A`,
/// `\z`, and their multi-line forms) see the other part where the single regex sees the end
/// of its text; a part that has any (or that does not parse, which the regex pool refused
/// already), is replaced by `[^/]*`, which any part matches. So the pattern never misses a
/// match of both conditions. Also says whether the part is **exact**: the condition itself,
/// or no condition (`None`: `[^/]*` matches any part); only a part replaced by `[^/]*` is
/// not, and a candidate whose pattern has one has its conditions checked afterwards.
fn grpc_part(regex: Option<u32>, raw: Option<&str>) -> (&str, bool) {
    const ANY: &str = "[^/]*";
    let Some(raw) = raw else {
        return (ANY, regex.is_none());
    };
    match regex_automata::util::syntax::parse(raw) {
        Ok(hir) if !hir.properties().look_set().contains_anchor() => (raw, true),
        _ => (ANY, false),
    }
}

impl RegexPool {
    /// The build-time state, made on first use.
    fn building(building: &mut Option<Box<Mutex<Building>>>) -> &mut Building {
        building
            .get_or_insert_with(Box::default)
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The pool of a finished table: without the build-time state (the compiler's caches
    /// alone are hundreds of kilobytes).
    ///
    /// Regexes lowering accepted without compiling their program
    /// ([`SingleRegex::deferred`]) are compiled here, with the build's compiler, unless every
    /// use the table makes of them is as a member of a regex set: those are compiled only if
    /// a search ever needs them alone (a set's lazy DFA giving up, an explanation).
    pub(crate) fn finished(mut self) -> Self {
        if let Some(building) = self.building.take() {
            let Building { mut with, hirs, .. } = building
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner);
            let mut in_a_set = vec![false; self.compiled.len()];
            for ids in self.set_by_ids.0.keys().chain(self.set_by_ids.1.keys()) {
                for &id in ids.iter() {
                    if let Some(slot) = in_a_set.get_mut(id as usize) {
                        *slot = true;
                    }
                }
            }
            for (i, re) in self.compiled.iter().enumerate() {
                if !in_a_set.get(i).copied().unwrap_or(false) {
                    re.force(hirs.get(i).and_then(Option::as_ref), &mut with);
                }
            }
        }
        self
    }

    /// An empty pool for a build that takes the regexes and regex sets `earlier` compiled
    /// (an earlier table's parts) wherever it needs the same ones, instead of compiling them
    /// again: the same patterns compile to the same matchers (the syntax and limits are
    /// constants), so they answer alike. Holds the parts only until the build ends
    /// ([`RegexPool::finished`]): the new table keeps the regexes it uses.
    pub(crate) fn reusing<P: HoldsRegexes + 'static>(earlier: &[Arc<P>]) -> Self {
        let mut pool = Self::default();
        Self::building(&mut pool.building).earlier.parts = earlier
            .iter()
            .map(|p| Arc::clone(p) as Arc<dyn HoldsRegexes>)
            .collect();
        pool
    }

    /// Index of the compiled `pattern`, compiling it on first use (or taking an earlier
    /// table's, [`RegexPool::reusing`]).
    pub(crate) fn intern(&mut self, pattern: &str) -> Result<u32, String> {
        if let Some(i) = self.by_pattern.get(pattern) {
            return Ok(*i);
        }
        let i = u32::try_from(self.compiled.len()).map_err(|_| "too many regexes".to_string())?;
        let b = Self::building(&mut self.building);
        if let Some((re, from)) = b.earlier.regex(pattern) {
            // its parsed pattern is not kept: a set over it is an earlier one, or parses it
            b.earlier.origin.resize(i as usize, None);
            b.earlier.origin.push(Some(from));
            self.compiled.push(re);
            self.by_pattern.insert(pattern.to_string(), i);
            return Ok(i);
        }
        let (re, hir) = SingleRegex::deferred(pattern, ANCHOR, &mut b.with)
            .map_err(|e| format!("invalid regular expression {pattern:?}: {e}"))?;
        b.hirs.resize_with(i as usize, || None);
        b.hirs.push(Some(hir));
        self.compiled.push(Arc::new(re));
        self.by_pattern.insert(pattern.to_string(), i);
        Ok(i)
    }

    /// Index of `pattern` if already compiled.
    #[cfg(test)]
    pub(crate) fn intern_existing(&self, pattern: &str) -> Option<u32> {
        self.by_pattern.get(pattern).copied()
    }

    pub(crate) fn get(&self, i: u32) -> Option<&SingleRegex> {
        self.compiled.get(i as usize).map(|re| &**re)
    }

    pub(crate) fn len(&self) -> usize {
        self.compiled.len()
    }

    /// The regex sets, by index.
    #[cfg(test)]
    pub(crate) fn sets(&self) -> &[RegexSet] {
        &self.sets
    }

    /// The compiled regexes, by index.
    #[cfg(test)]
    pub(crate) fn compiled(&self) -> &[Arc<SingleRegex>] {
        &self.compiled
    }

    /// Index of the regex set of the list of regexes `ids` (in precedence order), building
    /// it on first use: route sets with the same regex list share one set. `rejectable`:
    /// whether a candidate whose regex matches may still fail its other conditions
    /// ([`RegexSet::new`]); the two kinds are interned apart.
    pub(crate) fn intern_set(&mut self, ids: &[u32], rejectable: bool) -> u32 {
        let by_ids = if rejectable {
            &mut self.set_by_ids.1
        } else {
            &mut self.set_by_ids.0
        };
        if let Some(i) = by_ids.get(ids) {
            return *i;
        }
        let Building {
            with,
            hirs,
            earlier,
        } = Self::building(&mut self.building);
        if let Some(set) = earlier.set(ids, rejectable) {
            let i = u32::try_from(self.sets.len()).unwrap_or(u32::MAX);
            self.sets.push(set);
            by_ids.insert(ids.into(), i);
            return i;
        }
        // regexes without their parsed pattern (taken from an earlier table, or compiled
        // before this build state) are parsed again
        for &id in ids {
            let slot = id as usize;
            if hirs.get(slot).is_none_or(Option::is_none)
                && let Some(re) = self.compiled.get(slot)
            {
                hirs.resize_with(hirs.len().max(slot + 1), || None);
                if let Some(h) = hirs.get_mut(slot) {
                    *h = with.parse(re.as_str());
                }
            }
        }
        let patterns: Vec<Option<&Hir>> = ids
            .iter()
            .map(|&id| hirs.get(id as usize).and_then(Option::as_ref))
            .collect();
        let i = u32::try_from(self.sets.len()).unwrap_or(u32::MAX);
        self.sets
            .push(RegexSet::new(&patterns, ids, rejectable, with));
        by_ids.insert(ids.into(), i);
        i
    }

    /// The pattern of regex `i` as written in the route (without the anchors).
    pub(crate) fn raw(&self, i: u32) -> Option<&str> {
        self.get(i)?
            .as_str()
            .strip_prefix(ANCHOR.0)?
            .strip_suffix(ANCHOR.1)
    }

    /// Index of the prefilter set of a gRPC candidate list whose entry `k` has the service
    /// and method regexes `parts[k]` (`None`: that part is not a regex), in precedence order;
    /// built on first use. Each entry's pattern ([`grpc_part`]) matches every `service/method`
    /// that both its regexes fully match, so the set reports every candidate whose regexes
    /// match, in order, and maybe a few more (see [`RegexSet::prefilter`]).
    pub(crate) fn intern_grpc_set(&mut self, parts: &[(Option<u32>, Option<u32>)]) -> u32 {
        let key: Box<[u32]> = parts
            .iter()
            .flat_map(|(s, m)| [s.unwrap_or(u32::MAX), m.unwrap_or(u32::MAX)])
            .collect();
        if let Some(i) = self.grpc_sets.get(&key) {
            return *i;
        }
        let (patterns, exact): (Vec<String>, Vec<bool>) = parts
            .iter()
            .map(|&(s, m)| {
                let part = |p: Option<u32>| grpc_part(p, p.and_then(|i| self.raw(i)));
                let ((s, s_exact), (m, m_exact)) = (part(s), part(m));
                (format!("^(?:{s})/(?:{m})$"), s_exact && m_exact)
            })
            .unzip();
        let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
        let i = u32::try_from(self.sets.len()).unwrap_or(u32::MAX);
        let with = &mut Self::building(&mut self.building).with;
        self.sets.push(RegexSet::prefilter(&refs, &exact, with));
        self.grpc_sets.insert(key, i);
        i
    }

    /// Calls `f` with the position in the list of set `set` of every regex that matches
    /// `haystack`, in list order, until `f` returns `Some`.
    #[inline]
    pub(crate) fn find_in_set<R>(
        &self,
        set: u32,
        haystack: &str,
        f: impl FnMut(usize) -> Option<R>,
    ) -> Option<R> {
        self.sets
            .get(set as usize)?
            .find(&self.compiled, haystack, f)
    }

    /// [`RegexPool::find_in_set`] for a prefilter set ([`RegexPool::intern_grpc_set`]), also
    /// telling `f` whether the position's regexes are confirmed to match (see
    /// [`RegexSet::find_confirming`]).
    #[inline]
    pub(crate) fn find_in_prefilter_set<R>(
        &self,
        set: u32,
        haystack: &str,
        f: impl FnMut(usize, bool) -> Option<R>,
    ) -> Option<R> {
        self.sets
            .get(set as usize)?
            .find_confirming(&self.compiled, haystack, f)
    }

    /// Whether regex `i` matches `haystack` (a full match).
    #[inline]
    pub(crate) fn is_match(&self, i: u32, haystack: &str) -> bool {
        self.get(i).is_some_and(|re| re.is_match(haystack))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regex::REGEX_SIZE_LIMIT;

    // docs/robustness.md bounded work, and the messages a refused regex always had (the
    // regex crate's error for a syntax error, the NFA's for the size limit), whether the
    // pattern is parsed by the build's parser or not.
    #[test]
    fn oversized_regex_is_rejected() {
        let mut pool = RegexPool::default();
        assert_eq!(
            pool.intern("(a{1000}){1000}"),
            Err(format!(
                "invalid regular expression \"(a{{1000}}){{1000}}\": heap usage during NFA \
                 compilation exceeded limit of {REGEX_SIZE_LIMIT}"
            ))
        );
        assert_eq!(
            pool.intern("("),
            Err("invalid regular expression \"(\": error parsing regex".to_string())
        );
    }

    // A set built after the build state is gone (a pool of a finished table) parses its
    // regexes again and matches as one built during the build.
    #[test]
    fn sets_build_from_parsed_patterns_during_and_after_a_build() {
        let mut pool = RegexPool::default();
        let ids = [
            pool.intern("/a[0-9]+").unwrap_or(u32::MAX),
            pool.intern("/b.*").unwrap_or(u32::MAX),
        ];
        let during = pool.intern_set(&ids, true);
        let mut pool = pool.finished();
        assert!(pool.building.is_none());
        let after = pool.intern_set(&ids, false);
        assert_ne!(during, after);
        for set in [during, after] {
            let found = |h: &str| {
                let mut out = Vec::new();
                pool.find_in_set(set, h, |i| {
                    out.push(i);
                    None::<()>
                });
                out
            };
            assert_eq!(found("/a12"), vec![0]);
            assert_eq!(found("/bx"), vec![1]);
            assert_eq!(found("/a"), Vec::<usize>::new());
        }
    }
}
