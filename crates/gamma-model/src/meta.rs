//! Object metadata: the subset of Kubernetes `ObjectMeta` routing and ownership need.

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metadata of a Kubernetes object, reduced to what gamma-rs reads.
///
/// Labels and annotations are kept in sorted maps so that iteration, encoding and comparison are
/// deterministic. Fields the API server sets but gamma-rs does not use (`managedFields`,
/// `ownerReferences`, ...) are ignored on decode.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    /// The object's name, unique within its namespace (or the cluster, for cluster-scoped kinds).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// A prefix from which the API server makes a unique name, when `name` is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate_name: Option<String>,
    /// The namespace; absent for cluster-scoped kinds, and defaulted by the API server for
    /// namespaced ones (gamma-rs treats an absent namespace on a namespaced object as `default`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The object's unique id, when it came from a cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// The generation of the desired state, incremented by the API server on spec changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    /// The opaque resource version of this copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    /// When the object was created; the oldest route wins precedence ties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<Time>,
    /// Labels.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl ObjectMeta {
    /// Metadata with a name and namespace, the usual start for a namespaced object in tests and
    /// examples.
    pub fn namespaced(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        ObjectMeta {
            name: name.into(),
            namespace: Some(namespace.into()),
            ..ObjectMeta::default()
        }
    }

    /// Metadata with only a name, for cluster-scoped objects.
    pub fn cluster_scoped(name: impl Into<String>) -> Self {
        ObjectMeta {
            name: name.into(),
            ..ObjectMeta::default()
        }
    }

    /// The namespace, with the API server's default (`default`) applied.
    pub fn namespace_or_default(&self) -> &str {
        self.namespace.as_deref().unwrap_or("default")
    }

    /// The generation, or 0 when unknown.
    pub fn generation_or_zero(&self) -> i64 {
        self.generation.unwrap_or(0)
    }
}

/// A point in time with second (and optional sub-second) precision, as Kubernetes writes it
/// (RFC 3339, `2026-01-05T10:00:00Z`).
///
/// Ordered chronologically; the default is the Unix epoch. Kept as seconds and nanoseconds since the Unix epoch in UTC; encoded
/// back in the canonical UTC form (`Z`, fractional seconds only when non-zero).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Time {
    secs: i64,
    nanos: u32,
}

/// Why a string is not an RFC 3339 timestamp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid RFC 3339 timestamp {input:?}: {reason}")]
pub struct TimeParseError {
    input: String,
    reason: &'static str,
}

impl Time {
    /// The Unix epoch, `1970-01-01T00:00:00Z`.
    pub const UNIX_EPOCH: Time = Time { secs: 0, nanos: 0 };

    /// A time from seconds (and nanoseconds, at most 999,999,999) since the Unix epoch.
    /// Nanoseconds past a whole second are folded into the seconds.
    pub fn from_unix(secs: i64, nanos: u32) -> Time {
        Time {
            secs: secs.saturating_add(i64::from(nanos / 1_000_000_000)),
            nanos: nanos % 1_000_000_000,
        }
    }

    /// Seconds since the Unix epoch.
    pub fn unix_seconds(&self) -> i64 {
        self.secs
    }

    /// Sub-second nanoseconds.
    pub fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// This time plus `secs` seconds (saturating).
    pub fn plus_seconds(&self, secs: i64) -> Time {
        Time {
            secs: self.secs.saturating_add(secs),
            nanos: self.nanos,
        }
    }

    /// Parses an RFC 3339 timestamp (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`).
    ///
    /// ```
    /// use gamma_model::meta::Time;
    /// let t = Time::parse("2026-01-05T10:00:00Z").unwrap();
    /// assert_eq!(t.to_string(), "2026-01-05T10:00:00Z");
    /// assert!(Time::parse("2026-01-05T11:00:00+02:00").unwrap() < t);
    /// ```
    pub fn parse(input: &str) -> Result<Time, TimeParseError> {
        let err = |reason| TimeParseError {
            input: input.to_owned(),
            reason,
        };
        let b = input.as_bytes();
        if b.len() < 20 {
            return Err(err("too short"));
        }
        let num = |from: usize, to: usize| -> Result<i64, TimeParseError> {
            let digits = b.get(from..to).ok_or_else(|| err("truncated"))?;
            let mut v: i64 = 0;
            for &d in digits {
                if !d.is_ascii_digit() {
                    return Err(err("expected a digit"));
                }
                v = v * 10 + i64::from(d - b'0');
            }
            Ok(v)
        };
        let sep = |at: usize, want: &[u8]| -> Result<(), TimeParseError> {
            match b.get(at) {
                Some(c) if want.contains(c) => Ok(()),
                _ => Err(err("unexpected separator")),
            }
        };
        let year = num(0, 4)?;
        sep(4, b"-")?;
        let month = num(5, 7)?;
        sep(7, b"-")?;
        let day = num(8, 10)?;
        sep(10, b"Tt ")?;
        let hour = num(11, 13)?;
        sep(13, b":")?;
        let minute = num(14, 16)?;
        sep(16, b":")?;
        let second = num(17, 19)?;
        if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
            return Err(err("date out of range"));
        }
        if hour > 23 || minute > 59 || second > 60 {
            return Err(err("time out of range"));
        }
        let mut i = 19;
        let mut nanos: u32 = 0;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            let mut scale = 100_000_000u32;
            while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
                nanos += u32::from(d - b'0') * scale;
                scale /= 10;
                i += 1;
            }
            if i == start {
                return Err(err("empty fraction"));
            }
        }
        let offset = match b.get(i) {
            Some(b'Z' | b'z') if i + 1 == b.len() => 0,
            Some(&s @ (b'+' | b'-')) if i + 6 == b.len() => {
                sep(i + 3, b":")?;
                let oh = num(i + 1, i + 3)?;
                let om = num(i + 4, i + 6)?;
                if oh > 23 || om > 59 {
                    return Err(err("offset out of range"));
                }
                let o = oh * 3600 + om * 60;
                if s == b'+' { o } else { -o }
            }
            _ => return Err(err("expected 'Z' or an offset at the end")),
        };
        let days = days_from_civil(year, month, day);
        let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset;
        Ok(Time { secs, nanos })
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's days_from_civil: days since 1970-01-01 for a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.secs.div_euclid(86_400);
        let rem = self.secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
            rem / 3600,
            rem % 3600 / 60,
            rem % 60
        )?;
        if self.nanos != 0 {
            let frac = format!("{:09}", self.nanos);
            write!(f, ".{}", frac.trim_end_matches('0'))?;
        }
        f.write_str("Z")
    }
}

impl std::str::FromStr for Time {
    type Err = TimeParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Time::parse(s)
    }
}

impl Serialize for Time {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Time;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 timestamp")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Time, E> {
                Time::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(V)
    }
}

impl JsonSchema for Time {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Time".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "format": "date-time" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_round_trips_canonical_utc() {
        for s in [
            "1970-01-01T00:00:00Z",
            "2026-01-05T10:00:00Z",
            "2000-02-29T23:59:59Z",
            "2026-11-29T15:21:18.5Z",
            "1969-12-31T23:59:59Z",
        ] {
            assert_eq!(Time::parse(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn time_offsets_normalise_to_utc() {
        let a = Time::parse("2026-01-05T12:00:00+02:00").unwrap();
        let b = Time::parse("2026-01-05T10:00:00Z").unwrap();
        assert_eq!(a, b);
        assert_eq!(Time::parse("2026-01-05T05:30:00-04:30").unwrap(), b);
    }

    #[test]
    fn time_orders_chronologically() {
        let older = Time::parse("2025-12-31T23:59:59Z").unwrap();
        let newer = Time::parse("2026-01-01T00:00:00Z").unwrap();
        assert!(older < newer);
        let sub = Time::parse("2026-01-01T00:00:00.000001Z").unwrap();
        assert!(newer < sub);
    }

    #[test]
    fn time_rejects_malformed_input() {
        for s in [
            "",
            "2026-01-05",
            "2026-13-05T10:00:00Z",
            "2026-02-30T10:00:00Z",
            "2026-01-05T24:00:00Z",
            "2026-01-05T10:00:00",
            "2026-01-05T10:00:00.Z",
            "2026-01-05T10:00:00+0200",
            "2026-01-05T10:00:00Zjunk",
            "२०२६-01-05T10:00:00Z",
        ] {
            assert!(Time::parse(s).is_err(), "{s} should be rejected");
        }
    }
}
