//! Kubernetes resource quantities (`500m`, `1.5`, `2Ki`, `1e3`), as TrafficSplit `v1alpha1`
//! writes backend weights, parsed into exact rationals.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A quantity as written: a string (`500m`) or a plain number (`1`). The text is kept verbatim so
/// that encoding gives back what was decoded; [`Quantity::value`] parses it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Quantity(String);

impl Quantity {
    /// A quantity with this text (not checked until [`Quantity::value`]).
    pub fn new(text: impl Into<String>) -> Self {
        Quantity(text.into())
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The exact value, following the Kubernetes quantity grammar:
    /// `<sign>?<digits>[.<digits>]` followed by a binary suffix (`Ki`…`Ei`), a decimal suffix
    /// (`n`, `u`, `m`, none, `k`, `M`, `G`, `T`, `P`, `E`) or an exponent (`e3`, `E-2`).
    ///
    /// ```
    /// use gamma_model::smi::Quantity;
    /// let q = Quantity::new("500m").value().unwrap();
    /// assert_eq!((q.numerator(), q.denominator()), (1, 2));
    /// assert!(Quantity::new("-1").value().is_err());
    /// ```
    pub fn value(&self) -> Result<Ratio, QuantityError> {
        parse(self.0.trim())
    }

    /// The value when it is a whole number (what TrafficSplit `v1alpha2`+ weights must be).
    pub fn as_whole_number(&self) -> Option<u128> {
        let r = self.value().ok()?;
        (r.denominator() == 1).then_some(r.numerator())
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Quantity {
    fn from(value: &str) -> Self {
        Quantity::new(value)
    }
}

impl From<u32> for Quantity {
    fn from(value: u32) -> Self {
        Quantity::new(value.to_string())
    }
}

impl Serialize for Quantity {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Plain integers go back out as numbers (v1alpha2+ weights are integers on the wire).
        match self.0.parse::<u64>() {
            Ok(n) if n.to_string() == self.0 => serializer.serialize_u64(n),
            _ => serializer.serialize_str(&self.0),
        }
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Quantity;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a quantity (string or number)")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Quantity, E> {
                Ok(Quantity::new(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Quantity, E> {
                Ok(Quantity::new(v.to_string()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Quantity, E> {
                Ok(Quantity::new(v.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Quantity, E> {
                Ok(Quantity::new(v.to_string()))
            }
        }
        deserializer.deserialize_any(V)
    }
}

impl JsonSchema for Quantity {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Quantity".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "anyOf": [{ "type": "string" }, { "type": "number" }] })
    }
}

/// A non-negative exact rational number in lowest terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: u128,
    den: u128,
}

impl Ratio {
    /// Zero.
    pub const ZERO: Ratio = Ratio { num: 0, den: 1 };

    /// `num / den` in lowest terms; `None` when `den` is zero.
    pub fn new(num: u128, den: u128) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let g = gcd(num, den).max(1);
        Some(Ratio {
            num: num / g,
            den: den / g,
        })
    }

    /// The numerator (in lowest terms).
    pub fn numerator(&self) -> u128 {
        self.num
    }

    /// The denominator (in lowest terms, at least 1).
    pub fn denominator(&self) -> u128 {
        self.den
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.num == 0
    }
}

/// The greatest common divisor (`gcd(0, 0) == 0`).
pub fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Why a quantity does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QuantityError {
    /// Not in the quantity grammar.
    #[error("{0:?} is not a Kubernetes quantity (expected e.g. `1`, `500m`, `1.5`, `2Ki`)")]
    Malformed(String),
    /// Negative (weights cannot be).
    #[error("{0:?} is negative")]
    Negative(String),
    /// Too many digits or too large an exponent to represent exactly.
    #[error("{0:?} is out of the representable range")]
    OutOfRange(String),
}

/// Exponents beyond this are rejected rather than computed (bounded work on any input).
const MAX_EXPONENT: i32 = 30;

fn parse(s: &str) -> Result<Ratio, QuantityError> {
    let malformed = || QuantityError::Malformed(s.to_owned());
    let out_of_range = || QuantityError::OutOfRange(s.to_owned());
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..).unwrap_or("")),
        Some(b'+') => (false, s.get(1..).unwrap_or("")),
        _ => (false, s),
    };
    let number_len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(number_len);
    let (int_part, frac_part) = match number.split_once('.') {
        Some((i, f)) => (i, f),
        None => (number, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() || frac_part.contains('.') {
        return Err(malformed());
    }
    // Base-10 exponent and base-2 exponent contributed by the suffix.
    let (mut exp10, exp2): (i32, u32) = match suffix {
        "" => (0, 0),
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        "Ki" => (0, 10),
        "Mi" => (0, 20),
        "Gi" => (0, 30),
        "Ti" => (0, 40),
        "Pi" => (0, 50),
        "Ei" => (0, 60),
        other => {
            let exp = other
                .strip_prefix('e')
                .or_else(|| other.strip_prefix('E'))
                .ok_or_else(malformed)?;
            let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(malformed());
            }
            let e: i32 = exp.parse().map_err(|_| out_of_range())?;
            if e.abs() > MAX_EXPONENT {
                return Err(out_of_range());
            }
            (e, 0)
        }
    };
    let digits: String = int_part.chars().chain(frac_part.chars()).collect();
    let digits = digits.trim_start_matches('0');
    if digits.len() > 38 {
        return Err(out_of_range());
    }
    let mantissa: u128 = if digits.is_empty() {
        0
    } else {
        digits.parse().map_err(|_| out_of_range())?
    };
    exp10 -= i32::try_from(frac_part.len()).map_err(|_| out_of_range())?;
    if mantissa != 0 && negative {
        return Err(QuantityError::Negative(s.to_owned()));
    }
    if exp10.abs() > MAX_EXPONENT + 38 {
        return Err(out_of_range());
    }
    let pow10 = 10u128
        .checked_pow(exp10.unsigned_abs())
        .ok_or_else(out_of_range)?;
    let pow2 = 1u128 << exp2;
    let (num, den) = if exp10 >= 0 {
        (
            mantissa
                .checked_mul(pow10)
                .and_then(|n| n.checked_mul(pow2))
                .ok_or_else(out_of_range)?,
            1,
        )
    } else {
        (mantissa.checked_mul(pow2).ok_or_else(out_of_range)?, pow10)
    };
    Ratio::new(num, den).ok_or_else(malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> (u128, u128) {
        let r = Quantity::new(s).value().unwrap();
        (r.numerator(), r.denominator())
    }

    // SMI traffic-split v1alpha1: "Identical to resources, 1 = 1000m".
    #[test]
    fn milli_and_plain_quantities_are_exact_rationals() {
        assert_eq!(v("1"), (1, 1));
        assert_eq!(v("1000m"), (1, 1));
        assert_eq!(v("10m"), (1, 100));
        assert_eq!(v("1500m"), (3, 2));
        assert_eq!(v("0m"), (0, 1));
        assert_eq!(v("1.5"), (3, 2));
        assert_eq!(v(".5"), (1, 2));
        assert_eq!(v("2."), (2, 1));
    }

    #[test]
    fn binary_decimal_and_exponent_suffixes() {
        assert_eq!(v("2Ki"), (2048, 1));
        assert_eq!(v("1k"), (1000, 1));
        assert_eq!(v("1e3"), (1000, 1));
        assert_eq!(v("1E-2"), (1, 100));
        assert_eq!(v("5n"), (1, 200_000_000));
        assert_eq!(v("1E"), (1_000_000_000_000_000_000, 1));
    }

    #[test]
    fn malformed_negative_and_huge_quantities_are_errors_not_panics() {
        for bad in ["", "m", "1x", "1.2.3", "e3", "1e", "1e+", "--1", "1 m"] {
            assert!(
                matches!(Quantity::new(bad).value(), Err(QuantityError::Malformed(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            Quantity::new("-5m").value(),
            Err(QuantityError::Negative(_))
        ));
        assert!(matches!(
            Quantity::new("1e99").value(),
            Err(QuantityError::OutOfRange(_))
        ));
        assert!(matches!(
            Quantity::new("99999999999999999999999999999999999999999Ei").value(),
            Err(QuantityError::OutOfRange(_))
        ));
        assert_eq!(v("-0"), (0, 1));
    }

    #[test]
    fn quantities_decode_from_strings_and_numbers_and_keep_their_text() {
        let q: Quantity = serde_json::from_str("\"500m\"").unwrap();
        assert_eq!(q.as_str(), "500m");
        let n: Quantity = serde_json::from_str("50").unwrap();
        assert_eq!(n.as_whole_number(), Some(50));
        assert_eq!(serde_json::to_string(&n).unwrap(), "50");
        assert_eq!(serde_json::to_string(&q).unwrap(), "\"500m\"");
        assert_eq!(Quantity::new("1.5").as_whole_number(), None);
    }
}
