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
}
