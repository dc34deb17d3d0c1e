//! [`Chunked`]: the ordered index behind the [`Snapshot`](crate::Snapshot)'s digest passes
//! ([`Snapshot::route_digests`](crate::Snapshot::route_digests),
//! [`Snapshot::service_digests`](crate::Snapshot::service_digests)): a map from key to value
//! that keeps its entries in sorted runs of up to [`CAP`], for passes that read many
//! consecutive values. Any engine that walks every route or Service of a snapshot reads it
//! through those passes; it stays with the `Snapshot`, which maintains it on every `upsert`
//! and `remove`.
//!
//! Why not a plain `BTreeMap`: it holds at most 11 entries per node, and walking it in order
//! hops from leaf to parent to the next leaf every 11 entries; each hop is a chain of
//! dependent cache misses (the leaf's length sits at the end of a 2 KB node, then the parent,
//! then the next edge). Over the tens of thousands of route digests of a large snapshot those
//! hops were a large share of a full ownership decision (the A/B figures, `BTreeMap` against
//! runs, are in `benches/records/arbiter.md`, "Round 4: digests in sorted runs"). Here a `BTreeMap`
//! indexes runs ("chunks") by their first key, and each run keeps its keys and values in two
//! vectors, so an ordered pass reads the values sequentially and hops once per [`CAP`]
//! entries. Inserting or removing moves at most [`CAP`] entries of one run. Lookups are a
//! `BTreeMap` search plus a binary search in a run.
//!
//! Why not an `IndexMap`: its order is insertion order. Keeping it sorted under watch events
//! means `shift_insert`/`shift_remove` at the key's position, which move every later entry
//! (O(n) per event, against at most [`CAP`] here), and range passes (one route kind) would need
//! a binary search over a map not built for it.
//!
//! It behaves exactly as a `BTreeMap` on any sequence of operations (the property test
//! `behaves_like_a_btreemap` below compares the two on random inserts, removals, lookups and
//! range passes). Equality and `Debug` look at the entries only, never at how they are split
//! into runs, so two maps with the same entries are equal whatever history built them.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Bound;

/// Most entries in one run. Larger runs mean fewer hops per pass but longer moves per
/// insertion (at most `CAP` values are shifted).
pub(crate) const CAP: usize = 64;

/// A run is merged into its successor when both fit in one run and it has fallen below this
/// size, so removals cannot leave many tiny runs behind.
const MIN: usize = CAP / 4;

#[derive(Clone)]
struct Run<K, V> {
    keys: Vec<K>,
    vals: Vec<V>,
}

/// An ordered map stored as sorted runs (see the module documentation).
#[derive(Clone)]
pub(crate) struct Chunked<K, V> {
    /// Each run by its first key. Runs are non-empty, sorted, disjoint, and in key order.
    runs: BTreeMap<K, Run<K, V>>,
}

impl<K, V> Default for Chunked<K, V> {
    fn default() -> Self {
        Chunked {
            runs: BTreeMap::new(),
        }
    }
}

impl<K: Ord + Clone, V> Chunked<K, V> {
    /// The first key of the run that holds `key`, or would: the last run starting at or
    /// before it, else the first run.
    fn run_of(&self, key: &K) -> Option<K> {
        self.runs
            .range(..=key)
            .next_back()
            .or_else(|| self.runs.iter().next())
            .map(|(k, _)| k.clone())
    }

    /// Inserts or replaces; returns the previous value.
    pub(crate) fn insert(&mut self, key: K, val: V) -> Option<V> {
        // In place when the key falls after a run's first key and the run has room: its first
        // key does not change, so the run stays where it is (no key clone, no re-insertion).
        if let Some((_, run)) = self.runs.range_mut(..=&key).next_back() {
            match run.keys.binary_search(&key) {
                Ok(at) => return run.vals.get_mut(at).map(|v| std::mem::replace(v, val)),
                Err(at) if run.keys.len() < CAP => {
                    run.keys.insert(at, key);
                    run.vals.insert(at, val);
                    return None;
                }
                Err(_) => {}
            }
        }
        let Some(first) = self.run_of(&key) else {
            self.runs.insert(
                key.clone(),
                Run {
                    keys: vec![key],
                    vals: vec![val],
                },
            );
            return None;
        };
        let mut run = self.runs.remove(&first)?;
        let previous = match run.keys.binary_search(&key) {
            Ok(at) => run.vals.get_mut(at).map(|v| std::mem::replace(v, val)),
            Err(at) => {
                run.keys.insert(at, key);
                run.vals.insert(at, val);
                None
            }
        };
        self.put(run);
        previous
    }

    /// Removes `key`; returns its value.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        // In place when it is not the run's first key and the run stays large enough.
        if let Some((_, run)) = self.runs.range_mut(..=key).next_back()
            && run.keys.len() > MIN
            && let Ok(at) = run.keys.binary_search(key)
            && at > 0
        {
            run.keys.remove(at);
            return Some(run.vals.remove(at));
        }
        let first = self.run_of(key)?;
        let at = self.runs.get(&first)?.keys.binary_search(key).ok()?;
        let mut run = self.runs.remove(&first)?;
        run.keys.remove(at);
        let val = run.vals.remove(at);
        if !run.keys.is_empty() {
            self.put(run);
        }
        Some(val)
    }

    /// Stores `run` (non-empty) under its first key, split in two when over `CAP`, or merged
    /// with its successor when small.
    fn put(&mut self, mut run: Run<K, V>) {
        if run.keys.len() > CAP {
            let half = run.keys.len() / 2;
            let tail = Run {
                keys: run.keys.split_off(half),
                vals: run.vals.split_off(half),
            };
            self.insert_run(run);
            self.insert_run(tail);
            return;
        }
        if run.keys.len() < MIN
            && let Some(last) = run.keys.last()
        {
            let next = self
                .runs
                .range((Bound::Excluded(last), Bound::Unbounded))
                .next()
                .filter(|(_, n)| n.keys.len() + run.keys.len() <= CAP)
                .map(|(k, _)| k.clone());
            if let Some(next) = next.and_then(|k| self.runs.remove(&k)) {
                run.keys.extend(next.keys);
                run.vals.extend(next.vals);
            }
        }
        self.insert_run(run);
    }

    fn insert_run(&mut self, run: Run<K, V>) {
        if let Some(first) = run.keys.first() {
            self.runs.insert(first.clone(), run);
        }
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        // the run whose first key is the last at or before `key` (none: `key` is before
        // every key); one search, no copy of the key
        let (_, run) = self.runs.range(..=key).next_back()?;
        run.vals.get(run.keys.binary_search(key).ok()?)
    }

    /// The values whose keys are in `start..end` (`end` `None`: unbounded), in key order.
    pub(crate) fn values_in<'a>(
        &'a self,
        start: &K,
        end: Option<K>,
    ) -> impl Iterator<Item = &'a V> + use<'a, K, V>
    where
        K: 'a,
    {
        // Runs that may hold keys >= start: the one holding `start`, then the following ones.
        let runs = match self.runs.range(..=start).next_back() {
            Some((first, _)) => self.runs.range(first..),
            None => self.runs.range(..),
        };
        let start = start.clone();
        let stop = end.clone();
        runs.take_while(move |(first, _)| stop.as_ref().is_none_or(|e| *first < e))
            .flat_map(move |(_, run)| {
                // Only the first and last runs can hold keys outside the range: one
                // comparison tells, and spares the others a search.
                let lo = if run.keys.first().is_some_and(|k| *k < start) {
                    run.keys.partition_point(|k| *k < start)
                } else {
                    0
                };
                let hi = match &end {
                    Some(e) if run.keys.last().is_some_and(|k| k >= e) => {
                        run.keys.partition_point(|k| k < e)
                    }
                    _ => run.keys.len(),
                };
                run.vals.get(lo..hi.max(lo)).unwrap_or_default()
            })
    }

    /// Every value, in key order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.runs.values().flat_map(|r| r.vals.iter())
    }

    /// Every (key, value), in key order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.runs
            .values()
            .flat_map(|r| r.keys.iter().zip(r.vals.iter()))
    }

    /// How many entries.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.runs.values().map(|r| r.keys.len()).sum()
    }
}

impl<K: PartialEq, V: PartialEq> PartialEq for Chunked<K, V>
where
    K: Ord + Clone,
{
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl<K: Ord + Clone, V: Eq> Eq for Chunked<K, V> {}

impl<K: Ord + Clone + fmt::Debug, V: fmt::Debug> fmt::Debug for Chunked<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u16, u32),
        Remove(u16),
    }

    fn op() -> impl Strategy<Value = Op> {
        // Keys from a small range so that inserts replace and removes hit; weights make runs
        // grow past CAP and shrink below MIN.
        prop_oneof![
            3 => (0u16..400, any::<u32>()).prop_map(|(k, v)| Op::Insert(k, v)),
            2 => (0u16..400).prop_map(Op::Remove),
        ]
    }

    proptest! {
        /// Model-based: after any sequence of inserts and removes, `Chunked` holds exactly
        /// what a `BTreeMap` holds, answers every lookup and range the same, keeps its runs
        /// within `CAP`, and compares equal to any other `Chunked` with the same entries.
        #[test]
        fn behaves_like_a_btreemap(ops in prop::collection::vec(op(), 0..1500), lo in 0u16..420, span in 0u16..420) {
            let mut c = Chunked::default();
            let mut m = BTreeMap::new();
            for o in &ops {
                match *o {
                    Op::Insert(k, v) => prop_assert_eq!(c.insert(k, v), m.insert(k, v)),
                    Op::Remove(k) => prop_assert_eq!(c.remove(&k), m.remove(&k)),
                }
            }
            prop_assert_eq!(c.len(), m.len());
            prop_assert!(c.iter().eq(m.iter()));
            prop_assert!(c.values().eq(m.values()));
            for k in 0..420u16 {
                prop_assert_eq!(c.get(&k), m.get(&k));
            }
            let hi = lo.saturating_add(span);
            prop_assert!(c.values_in(&lo, Some(hi)).eq(m.range(lo..hi).map(|(_, v)| v)));
            prop_assert!(c.values_in(&lo, None).eq(m.range(lo..).map(|(_, v)| v)));
            for (first, run) in &c.runs {
                prop_assert!(!run.keys.is_empty() && run.keys.len() <= CAP);
                prop_assert_eq!(run.keys.first(), Some(first));
                prop_assert_eq!(run.keys.len(), run.vals.len());
            }
            // The same entries inserted in one go: equal, whatever the runs.
            let mut d = Chunked::default();
            for (k, v) in m.iter().rev() {
                d.insert(*k, *v);
            }
            prop_assert_eq!(&c, &d);
            prop_assert_eq!(format!("{c:?}"), format!("{m:?}"));
        }
    }

    #[test]
    fn removals_merge_small_runs_so_their_count_stays_bounded() {
        let mut c = Chunked::default();
        for k in 0..10_000u32 {
            c.insert(k, ());
        }
        // Keep every eighth key: without merging, most runs would hold a handful.
        for k in 0..10_000u32 {
            if k % 8 != 0 {
                c.remove(&k);
            }
        }
        assert_eq!(c.len(), 1_250);
        assert!(c.runs.len() <= 1_250 / MIN + 1, "{} runs", c.runs.len());
    }
}
