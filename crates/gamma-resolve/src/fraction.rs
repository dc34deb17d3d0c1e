//! Exact shares of weighted splits: non-negative fractions of `u128`, always reduced, with
//! checked arithmetic (an overflow is an error for the caller to report, never a panic or a
//! silent rounding).

use std::fmt;

use schemars::JsonSchema;
use serde::{Serialize, Serializer};

/// A reduced fraction `numerator / denominator` (`denominator > 0`), such as the end-to-end
/// share of a backend behind several weighted splits (Gateway API BackendRef.weight: each
/// split gives `weight / sum`; successive splits multiply).
///
/// Serializes as the string `"3/8"` (JSON numbers lose precision past 2⁵³).
///
/// ```
/// use gamma_resolve::Fraction;
/// let half = Fraction::new(2, 4).unwrap_or(Fraction::ZERO);
/// let quarter = half.checked_mul(half).unwrap_or(Fraction::ZERO);
/// assert_eq!(quarter.to_string(), "1/4");
/// assert_eq!(quarter.checked_add(half).map(|f| f.to_string()).as_deref(), Some("3/4"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, JsonSchema)]
#[schemars(with = "String")]
pub struct Fraction {
    numerator: u128,
    denominator: u128,
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Fraction {
    /// Zero.
    pub const ZERO: Self = Self {
        numerator: 0,
        denominator: 1,
    };
    /// One (the whole).
    pub const ONE: Self = Self {
        numerator: 1,
        denominator: 1,
    };

    /// `numerator / denominator`, reduced; `None` for a zero denominator.
    pub fn new(numerator: u128, denominator: u128) -> Option<Self> {
        if denominator == 0 {
            return None;
        }
        let g = gcd(numerator, denominator).max(1);
        Some(Self {
            numerator: numerator / g,
            denominator: denominator / g,
        })
    }

    /// The numerator (reduced).
    pub fn numerator(self) -> u128 {
        self.numerator
    }

    /// The denominator (reduced, at least 1).
    pub fn denominator(self) -> u128 {
        self.denominator
    }

    /// The product, or `None` when it does not fit in `u128` even reduced.
    pub fn checked_mul(self, other: Self) -> Option<Self> {
        // cross-reduce first, so that only a product that is too large reduced overflows
        let g1 = gcd(self.numerator, other.denominator).max(1);
        let g2 = gcd(other.numerator, self.denominator).max(1);
        let n = (self.numerator / g1).checked_mul(other.numerator / g2)?;
        let d = (self.denominator / g2).checked_mul(other.denominator / g1)?;
        Self::new(n, d)
    }

    /// The sum, or `None` when it does not fit in `u128` even reduced.
    pub fn checked_add(self, other: Self) -> Option<Self> {
        let g = gcd(self.denominator, other.denominator).max(1);
        let d = (self.denominator / g).checked_mul(other.denominator)?;
        let n = self
            .numerator
            .checked_mul(other.denominator / g)?
            .checked_add(other.numerator.checked_mul(self.denominator / g)?)?;
        Self::new(n, d)
    }

    /// The nearest `f64` (for display).
    pub fn to_f64(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }
}

impl fmt::Display for Fraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.numerator, self.denominator)
    }
}

impl Serialize for Fraction {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn zero_denominator_is_refused_and_results_are_reduced() {
        assert_eq!(Fraction::new(1, 0), None);
        assert_eq!(Fraction::new(0, 7), Some(Fraction::ZERO));
        assert_eq!(
            Fraction::new(6, 4).map(|f| (f.numerator(), f.denominator())),
            Some((3, 2))
        );
    }

    #[test]
    fn overflow_is_reported_not_wrapped() {
        let tiny = Fraction::new(1, u128::MAX).unwrap_or(Fraction::ONE);
        assert_eq!(
            tiny.checked_mul(Fraction::new(1, 2).unwrap_or(Fraction::ONE)),
            None
        );
        // cross-reduction keeps exact products that fit
        let big = Fraction::new(u128::MAX, 3).unwrap_or(Fraction::ONE);
        let third = Fraction::new(3, u128::MAX).unwrap_or(Fraction::ONE);
        assert_eq!(big.checked_mul(third), Some(Fraction::ONE));
    }

    proptest! {
        // Exact arithmetic: a/b · c/d and a/b + c/d compared by cross-multiplication in u128
        // (small operands cannot overflow there).
        #[test]
        fn arithmetic_is_exact(a in 0u128..1 << 30, b in 1u128..1 << 30, c in 0u128..1 << 30, d in 1u128..1 << 30) {
            let (x, y) = (Fraction::new(a, b), Fraction::new(c, d));
            let (Some(x), Some(y)) = (x, y) else { return Err(TestCaseError::fail("zero denominator")) };
            let p = x.checked_mul(y);
            prop_assert!(p.is_some_and(|p| p.numerator() * b * d == a * c * p.denominator()));
            let s = x.checked_add(y);
            prop_assert!(s.is_some_and(|s| s.numerator() * b * d == (a * d + c * b) * s.denominator()));
        }
    }
}
