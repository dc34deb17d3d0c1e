//! Exact integer weights from SMI weights (v1alpha1 quantities such as `500m`, or whole
//! numbers), preserving ratios and fitting the Gateway API cap.

use gamma_model::smi::{Ratio, gcd};

/// The largest weight a Gateway API backendRef accepts (Gateway API BackendRef.weight and
/// BackendRef).
pub const MAX_WEIGHT: u32 = 1_000_000;

/// Integer weights for a list of backends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntegerWeights {
    /// One weight per input, each at most [`MAX_WEIGHT`], in lowest terms (their gcd is 1
    /// unless all are zero).
    pub weights: Vec<u32>,
    /// Whether `weights[i] / sum(weights) == input[i] / sum(input)` holds exactly for every `i`.
    /// False only when the exact ratios need numbers above [`MAX_WEIGHT`].
    pub exact: bool,
}

/// Integer weights with the same ratios as `ratios`.
///
/// Exact rational arithmetic: scale by the lcm of the denominators, divide by the gcd of the
/// results. When the result exceeds [`MAX_WEIGHT`], weights are scaled so the largest is
/// [`MAX_WEIGHT`], rounded to nearest, and any non-zero weight that would round to zero is kept
/// at 1 (a backend SMI sends traffic to keeps receiving some); `exact` is then false.
///
/// ```
/// use gamma_model::smi::Quantity;
/// use gamma_smi::weights::integer_weights;
/// let r: Vec<_> = ["10m", "100m", "1500m"].iter().map(|q| Quantity::new(*q).value().unwrap()).collect();
/// let w = integer_weights(&r);
/// assert_eq!(w.weights, [1, 10, 150]);
/// assert!(w.exact);
/// ```
pub fn integer_weights(ratios: &[Ratio]) -> IntegerWeights {
    match exact_integers(ratios) {
        Some(ints) => {
            let max = ints.iter().copied().max().unwrap_or(0);
            if max <= u128::from(MAX_WEIGHT) {
                IntegerWeights {
                    weights: ints.iter().map(|&k| clamp_u32(k)).collect(),
                    exact: true,
                }
            } else {
                scale_down(&ints, max)
            }
        }
        None => approximate(ratios),
    }
}

fn clamp_u32(v: u128) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// The ratios as integers in lowest terms, or `None` on overflow.
fn exact_integers(ratios: &[Ratio]) -> Option<Vec<u128>> {
    let mut lcm: u128 = 1;
    for r in ratios {
        let d = r.denominator();
        lcm = (lcm / gcd(lcm, d)).checked_mul(d)?;
    }
    let mut ints = Vec::with_capacity(ratios.len());
    for r in ratios {
        ints.push(r.numerator().checked_mul(lcm / r.denominator())?);
    }
    let g = ints.iter().fold(0, |g, &k| gcd(g, k));
    if g > 1 {
        for k in &mut ints {
            *k /= g;
        }
    }
    Some(ints)
}

/// Scales integers whose maximum is `max` (> MAX_WEIGHT) down to at most MAX_WEIGHT.
fn scale_down(ints: &[u128], max: u128) -> IntegerWeights {
    let cap = u128::from(MAX_WEIGHT);
    let weights = ints
        .iter()
        .map(|&k| {
            // round(k * cap / max) without overflow: k <= max, so split k = q*max... use the
            // quotient/remainder of k by (max / cap) when the product would overflow.
            let scaled = match k.checked_mul(cap) {
                Some(p) => (p + max / 2) / max,
                None => k / (max / cap).max(1),
            };
            let w = scaled.min(cap);
            if k > 0 && w == 0 { 1 } else { clamp_u32(w) }
        })
        .collect::<Vec<u32>>();
    IntegerWeights {
        weights: reduce(weights),
        exact: false,
    }
}

/// Fallback when exact integers overflow u128: floating-point shares.
fn approximate(ratios: &[Ratio]) -> IntegerWeights {
    let values: Vec<f64> = ratios
        .iter()
        .map(|r| r.numerator() as f64 / r.denominator() as f64)
        .collect();
    let max = values.iter().copied().fold(0.0_f64, f64::max);
    let weights = values
        .iter()
        .zip(ratios)
        .map(|(v, r)| {
            if max <= 0.0 {
                return 0;
            }
            // In [0, MAX_WEIGHT] by construction; `as` saturates anyway.
            let w = (v / max * f64::from(MAX_WEIGHT)).round() as u32;
            if !r.is_zero() && w == 0 {
                1
            } else {
                w.min(MAX_WEIGHT)
            }
        })
        .collect();
    IntegerWeights {
        weights: reduce(weights),
        exact: false,
    }
}

fn reduce(weights: Vec<u32>) -> Vec<u32> {
    let g = weights.iter().fold(0u128, |g, &w| gcd(g, u128::from(w)));
    if g > 1 {
        weights
            .into_iter()
            .map(|w| clamp_u32(u128::from(w) / g))
            .collect()
    } else {
        weights
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_model::smi::Quantity;
    use proptest::prelude::*;

    fn q(s: &str) -> Ratio {
        Quantity::new(s).value().unwrap()
    }

    // smi-spec traffic-split v1alpha1 workflow: weights 1 and 500m split about 2:1.
    #[test]
    fn quantities_become_integers_in_lowest_terms() {
        assert_eq!(integer_weights(&[q("1"), q("500m")]).weights, [2, 1]);
        assert_eq!(integer_weights(&[q("100m"), q("900m")]).weights, [1, 9]);
        assert_eq!(integer_weights(&[q("50"), q("50")]).weights, [1, 1]);
        assert_eq!(integer_weights(&[q("1"), q("0m")]).weights, [1, 0]);
        assert_eq!(integer_weights(&[q("0"), q("0")]).weights, [0, 0]);
        assert_eq!(integer_weights(&[]).weights, Vec::<u32>::new());
    }

    // Gateway API BackendRef.weight: weights are capped at 1,000,000.
    #[test]
    fn ratios_needing_more_than_the_cap_are_approximated_and_never_zeroed() {
        let w = integer_weights(&[q("1n"), q("1k")]);
        assert!(!w.exact);
        assert_eq!(w.weights, [1, MAX_WEIGHT]);
        let w = integer_weights(&[q("1000001"), q("1000000")]);
        assert!(!w.exact);
        assert!(w.weights.iter().all(|&x| x <= MAX_WEIGHT && x > 0));
    }

    proptest! {
        // The output preserves every ratio exactly whenever it claims to.
        #[test]
        fn exact_weights_preserve_ratios(raw in prop::collection::vec((0u64..5000, 1u64..2000), 1..6)) {
            let ratios: Vec<Ratio> = raw.iter().map(|&(n, d)| Ratio::new(n.into(), d.into()).unwrap()).collect();
            let w = integer_weights(&ratios);
            prop_assert_eq!(w.weights.len(), ratios.len());
            prop_assert!(w.weights.iter().all(|&x| x <= MAX_WEIGHT));
            for (i, ri) in ratios.iter().enumerate() {
                prop_assert_eq!(w.weights[i] == 0, ri.is_zero());
                if w.exact {
                    for (j, rj) in ratios.iter().enumerate() {
                        // w_i / w_j == r_i / r_j  <=>  w_i * n_j * d_i == w_j * n_i * d_j
                        let lhs = u128::from(w.weights[i]) * rj.numerator() * ri.denominator();
                        let rhs = u128::from(w.weights[j]) * ri.numerator() * rj.denominator();
                        prop_assert_eq!(lhs, rhs);
                    }
                }
            }
        }
    }
}
