//! `null` as absent: what the API server does with `field: null` before validating.
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

use serde_json::Value;

/// Removes every `null` member of every object in `value`, recursively. Returns whether any
/// was removed. Allocates nothing; recursion follows the nesting, which decoding has already
/// bounded ([`DecodeOptions::max_depth`](super::DecodeOptions::max_depth)).
pub(crate) fn drop_nulls(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let before = map.len();
            map.retain(|_, v| !v.is_null());
            let mut dropped = map.len() != before;
            for v in map.values_mut() {
                dropped |= drop_nulls(v);
            }
            dropped
        }
        Value::Array(items) => {
            let mut dropped = false;
            for v in items {
                dropped |= drop_nulls(v);
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
        assert!(drop_nulls(&mut v));
        assert_eq!(v, json!({"b": {"d": 1}, "e": [null, {"g": [{}]}]}));
        assert!(!drop_nulls(&mut v));
    }
}
