//! A rule's timeouts (GEP-1742) and retry policy (GEP-1731), typed for the data plane that
//! programs them: carried on [`crate::Forward`] and shown by views and `explain`. Serialized in
//! the Gateway API's own shape (durations as Gateway API Duration strings, GEP-2257), so JSON
//! consumers read what the route wrote.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Serialize, Serializer};

/// The timeouts of an HTTPRoute rule (Gateway API HTTPRouteTimeouts, GEP-1742).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RuleTimeouts {
    // (fields in the wire names' alphabetical order: the JSON keys come out as they did when
    // these were kept as JSON objects)
    /// One request to a backend, every retry attempt included separately.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_duration"
    )]
    #[schemars(with = "Option<String>")]
    pub backend_request: Option<Duration>,
    /// The whole request, from the first byte received to the last byte of the response
    /// (`None`: the implementation's; a zero duration disables it).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_duration"
    )]
    #[schemars(with = "Option<String>")]
    pub request: Option<Duration>,
}

impl RuleTimeouts {
    /// Timeouts with the given request and backend-request durations.
    pub fn new(request: Option<Duration>, backend_request: Option<Duration>) -> Self {
        RuleTimeouts {
            request,
            backend_request,
        }
    }
}

/// The retry policy of an HTTPRoute rule (Gateway API HTTPRouteRetry, GEP-1731; standard from
/// v1.7).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RetryPolicy {
    // (fields in the wire names' alphabetical order, as for `RuleTimeouts`)
    /// Retries after the first attempt, as written. Absent means [`RetryPolicy::DEFAULT_ATTEMPTS`]
    /// under v1.7 (the API server of a v1.7 cluster stores that default) and the
    /// implementation's count before; see [`RetryPolicy::attempts`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    /// The minimum wait between attempts (`None`: the implementation's).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_duration"
    )]
    #[schemars(with = "Option<String>")]
    pub backoff: Option<Duration>,
    /// HTTP status codes (400-599) that make a request eligible for a retry; empty: the
    /// implementation's set.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub codes: Box<[u16]>,
}

impl RetryPolicy {
    /// The v1.7 CRD's default of `attempts`.
    pub const DEFAULT_ATTEMPTS: u32 = 1;

    /// A policy of the given codes, attempts and backoff.
    pub fn new(
        codes: impl Into<Box<[u16]>>,
        attempts: Option<u32>,
        backoff: Option<Duration>,
    ) -> Self {
        RetryPolicy {
            codes: codes.into(),
            attempts,
            backoff,
        }
    }

    /// The retries to make: `attempts` as written, else [`RetryPolicy::DEFAULT_ATTEMPTS`].
    ///
    /// ```
    /// use gamma_resolve::RetryPolicy;
    /// assert_eq!(RetryPolicy::new([503], None, None).attempts(), 1);
    /// assert!(RetryPolicy::new([], Some(0), None).is_disabled());
    /// ```
    pub fn attempts(&self) -> u32 {
        self.attempts.unwrap_or(Self::DEFAULT_ATTEMPTS)
    }

    /// Whether the policy disables retries: `attempts: 0` (valid from v1.7).
    pub fn is_disabled(&self) -> bool {
        self.attempts == Some(0)
    }
}

/// A Gateway API Duration (GEP-2257) for a validated value: hours, minutes, seconds and
/// milliseconds, zero parts left out (`10s`, `1h30m`, `1s500ms`; `0s` for zero).
pub fn gateway_duration(d: Duration) -> String {
    use std::fmt::Write;
    let ms = d.as_millis();
    if ms == 0 {
        return "0s".to_string();
    }
    let parts = [
        (ms / 3_600_000, "h"),
        (ms / 60_000 % 60, "m"),
        (ms / 1_000 % 60, "s"),
        (ms % 1_000, "ms"),
    ];
    let mut out = String::new();
    for (n, unit) in parts {
        if n > 0 {
            let _ = write!(out, "{n}{unit}");
        }
    }
    out
}

fn serialize_duration<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_str(&gateway_duration(*d)),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // GEP-2257: the route's own duration strings come back out.
    #[test]
    fn timeouts_and_retries_serialize_in_the_gateway_api_shape() {
        let t = RuleTimeouts::new(
            Some(Duration::from_millis(5_400_000)),
            Some(Duration::from_millis(1_500)),
        );
        assert_eq!(
            serde_json::to_value(t).unwrap_or_default(),
            serde_json::json!({"backendRequest": "1s500ms", "request": "1h30m"})
        );
        let r = RetryPolicy::new([500, 503], Some(2), Some(Duration::from_millis(100)));
        assert_eq!(
            serde_json::to_value(&r).unwrap_or_default(),
            serde_json::json!({"codes": [500, 503], "attempts": 2, "backoff": "100ms"})
        );
        assert_eq!(
            serde_json::to_value(RuleTimeouts::default()).unwrap_or_default(),
            serde_json::json!({})
        );
        assert_eq!(gateway_duration(Duration::ZERO), "0s");
    }

    #[test]
    fn attempts_default_to_one_and_zero_disables() {
        assert_eq!(RetryPolicy::new([], None, None).attempts(), 1);
        assert!(!RetryPolicy::new([], None, None).is_disabled());
        assert_eq!(RetryPolicy::new([], Some(3), None).attempts(), 3);
        assert!(RetryPolicy::new([], Some(0), None).is_disabled());
    }
}
