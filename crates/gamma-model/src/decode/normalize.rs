//! What the API server does to a custom resource's JSON before validating it, done once over
//! the untyped document: `null` members are absent, and integral floats are integers.
//!
//! ## `null`
//!
//! For a custom resource, the API server prunes every object property whose value is `null`
//! when its schema is not `nullable` and has no default ("PruneNonNullableNullsWithoutDefaults"
//! in k8s.io/apiextensions-apiserver `pkg/apiserver/schema/defaulting/prunenulls.go`), and
//! defaults the ones that have a default. No v1.6.1 Gateway API schema is nullable, so a `null`
//! property means "absent" everywhere: optional fields are omitted and take their defaults,
//! required ones are then missing (`Required value`). An empty YAML value (`field:`) is `null`.
//!
//! `null` *items* of a list are not pruned (the API server keeps them and then refuses them as
//! the wrong type), so they stay and fail decoding at their index. Core objects (Service,
//! Namespace, EndpointSlice) are decoded by the API server's Go JSON decoder, which also reads
//! `null` as the zero value of a field.
//!
//! ## Numbers
//!
//! The API server decodes a custom resource's numbers as `int64` when the text is an integer
//! and as `float64` otherwise (k8s.io/apimachinery `pkg/util/json`, `convertNumber`), and the
//! schema validator accepts a `float64` for `type: integer` when it is a whole number within
//! ±(2^53 − 1) (k8s.io/kube-openapi `pkg/validation/validate/type.go`, `isFloatInt`, through
//! `swag.IsFloat64AJSONInteger`). So `port: 80.0` (or `8e1`) is port 80, while `80.5`, or a
//! whole float beyond 2^53, is refused as not an integer. Decoding turns such floats into
//! integers, and leaves the others to fail typing at their path.

use serde_json::{Number, Value};

/// The largest whole float the API server accepts as an integer (`2^53 − 1`).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Removes every `null` member of every object in `value` and makes whole floats integers,
/// recursively. Returns whether anything changed. Allocates nothing; recursion follows the
/// nesting, which decoding has already bounded
/// ([`DecodeOptions::max_depth`](super::DecodeOptions::max_depth)).
pub(crate) fn normalize(value: &mut Value) -> bool {
    match value {
        Value::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
            Some(f) if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER => {
                // Exact: |f| <= 2^53 - 1 converts to i64 without loss.
                #[allow(clippy::cast_possible_truncation)]
                let i = f as i64;
                *n = Number::from(i);
                true
            }
            _ => false,
        },
        Value::Object(map) => {
            let before = map.len();
            map.retain(|_, v| !v.is_null());
            let mut dropped = map.len() != before;
            for v in map.values_mut() {
                dropped |= normalize(v);
            }
            dropped
        }
        Value::Array(items) => {
            let mut dropped = false;
            for v in items {
                dropped |= normalize(v);
            }
            dropped
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn null_members_are_removed_at_every_depth_but_null_items_stay() {
        let mut v = json!({
            "a": null,
            "b": {"c": null, "d": 1},
            "e": [null, {"f": null, "g": [{"h": null}]}],
        });
        assert!(normalize(&mut v));
        assert_eq!(v, json!({"b": {"d": 1}, "e": [null, {"g": [{}]}]}));
        assert!(!normalize(&mut v));
    }

    #[test]
    fn whole_floats_within_2_pow_53_become_integers_and_others_stay() {
        let mut v = json!([
            80.0,
            -3.0,
            0.0,
            80.5,
            9007199254740991.0,
            9007199254740992.0,
            1e300,
            7
        ]);
        normalize(&mut v);
        assert_eq!(v[0], json!(80));
        assert!(v[0].is_i64());
        assert_eq!(v[1], json!(-3));
        assert!(v[2].is_i64());
        assert!(v[3].is_f64());
        assert_eq!(v[4], json!(9007199254740991_i64));
        assert!(v[5].is_f64());
        assert!(v[6].is_f64());
        assert!(v[7].is_u64());
    }
}
