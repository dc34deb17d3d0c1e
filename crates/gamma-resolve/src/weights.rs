//! Weighted backend choice (Gateway API BackendRef.weight): share = weight / sum, weight 0 never
//! picked, all-zero (or empty) picks nothing. The pick is a pure function of a caller-supplied
//! `u64`, so callers can use random numbers or a connection hash for consistent picks.
//!
//! The entropy is mapped onto `[0, sum)` with a 64×64→128-bit multiply (`(e * sum) >> 64`),
//! not floating point and not `%`: every target `j` receives either `⌊2⁶⁴/sum⌋` or
//! `⌈2⁶⁴/sum⌉` entropy values, so the share error is below `sum / 2⁶⁴` (< 10⁻¹¹ for the
//! CRD maximum of 16 × 1,000,000).

/// Maps `entropy` uniformly onto `0..total` (`total > 0`).
pub fn scale(entropy: u64, total: u64) -> u64 {
    ((u128::from(entropy) * u128::from(total)) >> 64) as u64
}

/// Picks an index from `weights` in proportion to its weight, or `None` when the weights are
/// empty or all zero. Allocation-free; the iterator is walked at most twice.
///
/// ```
/// use gamma_resolve::weights::pick;
/// assert_eq!(pick([0u32, 5, 0], 12345), Some(1));
/// assert_eq!(pick([0u32, 0], 7), None);
/// assert_eq!(pick([1u32, 1], 0), Some(0));
/// assert_eq!(pick([1u32, 1], u64::MAX), Some(1));
/// ```
pub fn pick<I>(weights: I, entropy: u64) -> Option<usize>
where
    I: IntoIterator<Item = u32>,
    I::IntoIter: Clone,
{
    let it = weights.into_iter();
    let total: u64 = it.clone().map(u64::from).sum();
    if total == 0 {
        return None;
    }
    let mut target = scale(entropy, total);
    for (i, w) in it.enumerate() {
        let w = u64::from(w);
        if target < w {
            return Some(i);
        }
        target -= w;
    }
    None
}

/// [`pick`], and the entropy left over for the next, independent choice (a chain of weighted
/// splits, one per hop of [`crate::Trace`]).
///
/// The pick reads the entropy as a point `e / 2⁶⁴` of `[0, 1)`; the target picked owns the
/// sub-interval `[lo, lo + w) / sum`, and the rest is the point's position inside it, scaled
/// back to `[0, 2⁶⁴)`: uniform entropy gives a uniform rest, independent of the pick, so the
/// shares of successive picks multiply (as when the first pick has a single target, where the
/// rest is the entropy itself). Each pick spends about `log2(sum)` bits of the 64.
///
/// ```
/// use gamma_resolve::weights::{pick, pick_with_rest};
/// assert_eq!(pick_with_rest([1u32], 42), Some((0, 42)));
/// // the lower half of the range picks 0, and its rest spans the whole range again
/// assert_eq!(pick_with_rest([1u32, 1], 1 << 62), Some((0, 1 << 63)));
/// assert_eq!(pick_with_rest([1u32, 1], 3 << 62), Some((1, 1 << 63)));
/// assert_eq!(pick_with_rest([3u32, 5], 77).map(|p| p.0), pick([3u32, 5], 77));
/// ```
pub fn pick_with_rest<I>(weights: I, entropy: u64) -> Option<(usize, u64)>
where
    I: IntoIterator<Item = u32>,
    I::IntoIter: Clone,
{
    let it = weights.into_iter();
    let total: u64 = it.clone().map(u64::from).sum();
    if total == 0 {
        return None;
    }
    let scaled = u128::from(entropy) * u128::from(total);
    let target = (scaled >> 64) as u64;
    let frac = scaled & u128::from(u64::MAX);
    let mut lo = 0u64;
    for (i, w) in it.enumerate() {
        let w = u64::from(w);
        if target < lo + w {
            // position inside the picked slice, in units of 2⁻⁶⁴ of a weight: below w·2⁶⁴
            let inside = (u128::from(target - lo) << 64) | frac;
            let rest = u64::try_from(inside / u128::from(w)).unwrap_or(u64::MAX);
            return Some((i, rest));
        }
        lo += w;
    }
    None
}

/// The smallest entropy whose [`pick`] lands on index `i` of `weights`, or `None` when it
/// has weight 0 (or is out of range): lets a caller enumerate every target of a split
/// exactly, rather than sample it.
///
/// ```
/// use gamma_resolve::weights::{first_entropy_of, pick};
/// let w = [1u32, 0, 3];
/// assert_eq!(first_entropy_of(w, 0), Some(0));
/// assert_eq!(first_entropy_of(w, 1), None);
/// let e = first_entropy_of(w, 2).unwrap_or_default();
/// assert_eq!(pick(w, e), Some(2));
/// assert_eq!(pick(w, e - 1), Some(0));
/// ```
pub fn first_entropy_of<I>(weights: I, i: usize) -> Option<u64>
where
    I: IntoIterator<Item = u32>,
    I::IntoIter: Clone,
{
    let it = weights.into_iter();
    let total: u64 = it.clone().map(u64::from).sum();
    let lo: u64 = it.clone().take(i).map(u64::from).sum();
    let w = it.clone().nth(i)?;
    if w == 0 || total == 0 {
        return None;
    }
    // smallest e with (e * total) >> 64 >= lo, i.e. e >= lo * 2⁶⁴ / total
    u64::try_from((u128::from(lo) << 64).div_ceil(u128::from(total))).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    // Gateway API BackendRef.weight: weight 0 gets nothing, all-zero gets nothing.
    #[test]
    fn weight_zero_never_picked_and_all_zero_picks_nothing() {
        for e in [0, 1, u64::MAX / 2, u64::MAX] {
            assert_eq!(pick([0u32, 3, 0], e), Some(1));
            assert_eq!(pick([0u32, 0, 0], e), None);
            assert_eq!(pick(std::iter::empty::<u32>(), e), None);
        }
    }

    // Gateway API BackendRef.weight: share = weight / sum. Counts the entropy values mapping to
    // each index exactly, by locating the boundaries of `scale` (independent of `pick`'s walk).
    #[test]
    fn share_is_weight_over_sum() {
        let weights = [1u32, 0, 3, 6];
        let total: u64 = 10;
        // smallest entropy e with scale(e, total) >= t, by binary search
        let boundary = |t: u64| -> u128 {
            let (mut lo, mut hi) = (0u128, 1u128 << 64);
            while lo < hi {
                let mid = (lo + hi) / 2;
                let m = u64::try_from(mid).unwrap_or(u64::MAX);
                if mid < (1u128 << 64) && scale(m, total) < t {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        let mut start = 0u64;
        for (i, w) in weights.iter().enumerate() {
            let end = start + u64::from(*w);
            let count = boundary(end) - boundary(start);
            let ideal = (u128::from(*w) << 64) / u128::from(total);
            assert!(count.abs_diff(ideal) <= 2, "index {i}: {count} vs {ideal}");
            if *w > 0 {
                let first = u64::try_from(boundary(start)).unwrap_or(u64::MAX);
                assert_eq!(pick(weights, first), Some(i));
            }
            start = end;
        }
    }

    proptest! {
        // Gateway API BackendRef.weight: the pick never lands on a zero weight and is a pure
        // function of entropy.
        #[test]
        fn pick_lands_on_positive_weight(ws in proptest::collection::vec(0u32..=1_000_000, 0..16), e: u64) {
            let got = pick(ws.iter().copied(), e);
            prop_assert_eq!(got, pick(ws.iter().copied(), e));
            match got {
                Some(i) => prop_assert!(ws.get(i).copied().unwrap_or(0) > 0),
                None => prop_assert!(ws.iter().all(|w| *w == 0)),
            }
        }
    }

    proptest! {
        // Gateway API BackendRef.weight, composed over hops: the rest never changes the pick, and
        // the smallest entropy of each target picks it while the one before picks an earlier one.
        #[test]
        fn pick_with_rest_agrees_with_pick(ws in proptest::collection::vec(0u32..=1_000_000, 0..16), e: u64) {
            prop_assert_eq!(pick_with_rest(ws.iter().copied(), e).map(|p| p.0), pick(ws.iter().copied(), e));
            for i in 0..ws.len() {
                if let Some(first) = first_entropy_of(ws.iter().copied(), i) {
                    prop_assert_eq!(pick(ws.iter().copied(), first), Some(i));
                    if first > 0 {
                        prop_assert!(pick(ws.iter().copied(), first - 1).is_some_and(|j| j < i));
                    }
                } else {
                    prop_assert_eq!(ws.get(i).copied().unwrap_or(0), 0);
                }
            }
        }
    }

    // Successive picks multiply: over the 2⁶⁴-spaced sweep of 16 entropies, a 1:1 split then a
    // 1:3 split on the rest lands on each pair exactly 16 × ½ × ¼ or × ¾ times.
    #[test]
    fn rests_of_a_sweep_are_uniform_again() {
        let mut counts = [[0u32; 2]; 2];
        for j in 0..16u64 {
            let e = (j << 60) | (1 << 59);
            let Some((a, rest)) = pick_with_rest([1u32, 1], e) else {
                panic!("no pick")
            };
            let Some(b) = pick([1u32, 3], rest) else {
                panic!("no pick")
            };
            counts[a][b] += 1;
        }
        assert_eq!(counts, [[2, 6], [2, 6]]);
    }
}
