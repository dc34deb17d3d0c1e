//! `--sample N`: resolve one request with N entropies spread evenly over the `u64` range and
//! count the outcomes, so a weighted split shows at a glance.

use serde::Serialize;

/// The `i`-th of `n` entropies: the midpoints of `n` equal slices of the `u64` range,
/// `⌊(2i+1)·2⁶⁴ / 2n⌋`. The engine maps entropy onto weights proportionally, so a 90/10 split
/// sampled 100 times gives exactly 90 and 10.
pub fn entropy(i: u32, n: u32) -> u64 {
    let num = (2 * u128::from(i) + 1) << 64;
    let den = 2 * u128::from(n.max(1));
    // i < n keeps the quotient below 2⁶⁴; saturate rather than wrap if misused.
    u64::try_from(num / den).unwrap_or(u64::MAX)
}

/// How often each outcome came up.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Distribution {
    /// The number of samples.
    pub samples: u32,
    /// Outcomes with their counts, most frequent first (ties: first seen first).
    pub outcomes: Vec<Outcome>,
}

/// One outcome and its count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// What happened (`shop/checkout-v1:8080`, `HTTP 500 (InvalidBackend)`).
    pub outcome: String,
    /// How many samples.
    pub count: u32,
    /// The share in percent, rounded to one decimal.
    pub percent: f64,
}

impl Distribution {
    /// Counts `outcomes`.
    pub fn count(outcomes: impl IntoIterator<Item = String>) -> Self {
        let mut seen: Vec<(String, u32)> = Vec::new();
        let mut samples = 0u32;
        for o in outcomes {
            samples += 1;
            match seen.iter_mut().find(|(s, _)| *s == o) {
                Some((_, c)) => *c += 1,
                None => seen.push((o, 1)),
            }
        }
        // Stable sort keeps first-seen order among equal counts.
        seen.sort_by_key(|s| std::cmp::Reverse(s.1));
        let outcomes = seen
            .into_iter()
            .map(|(outcome, count)| Outcome {
                outcome,
                count,
                percent: (f64::from(count) * 1000.0 / f64::from(samples.max(1))).round() / 10.0,
            })
            .collect();
        Distribution { samples, outcomes }
    }

    /// A small table: count, percent, a bar, the outcome.
    pub fn render(&self) -> String {
        let width = self.samples.to_string().len();
        let mut out = String::new();
        for o in &self.outcomes {
            let bar = "#".repeat((o.percent / 5.0).round() as usize);
            out.push_str(&format!(
                "{:>width$}  {:>5.1}%  {:<20}  {}\n",
                o.count, o.percent, bar, o.outcome
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropies_are_slice_midpoints_in_increasing_order() {
        assert_eq!(entropy(0, 1), 1u64 << 63);
        assert_eq!(entropy(0, 2), 1u64 << 62);
        assert_eq!(entropy(1, 2), 3u64 << 62);
        let all: Vec<u64> = (0..100).map(|i| entropy(i, 100)).collect();
        assert!(all.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_90_10_split_sampled_100_times_is_exact() {
        // Same mapping as the engine's (entropy * total) >> 64 (Gateway API BackendRef.weight
        // shares).
        let pick = |e: u64| ((u128::from(e) * 100) >> 64) < 90;
        let v1 = (0..100).filter(|&i| pick(entropy(i, 100))).count();
        assert_eq!(v1, 90);
    }

    #[test]
    fn counts_sort_by_frequency_then_first_seen() {
        let d = Distribution::count(["b", "a", "a", "c", "b", "a"].into_iter().map(String::from));
        let order: Vec<_> = d
            .outcomes
            .iter()
            .map(|o| (o.outcome.as_str(), o.count))
            .collect();
        assert_eq!(order, vec![("a", 3), ("b", 2), ("c", 1)]);
        assert_eq!(d.outcomes[0].percent, 50.0);
    }
}
