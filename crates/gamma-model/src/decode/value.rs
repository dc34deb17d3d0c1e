//! Decoding one already-parsed JSON value (what a Kubernetes client hands over) into a typed
//! [`AnyResource`], with the tolerance and errors of [`decode`](super::decode) but no text: no
//! printing to a string only to parse it again.

use serde_json::Value;

use super::error::{DecodeError, Limit, Position, depth_message};
use super::options::DecodeOptions;
use super::{format_path, path_segments, type_info, value_kind};
use crate::resource::{AnyResource, ResourceKind};

impl AnyResource {
    /// Decodes one object from an already-parsed JSON value, with the default
    /// [`DecodeOptions`]: see [`decode_value`].
    ///
    /// ```
    /// use gamma_model::AnyResource;
    /// let value = serde_json::json!({
    ///     "apiVersion": "gateway.networking.k8s.io/v1",
    ///     "kind": "HTTPRoute",
    ///     "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "41"},
    ///     "spec": {"parentRefs": [{"group": "", "kind": "Service", "name": "web"}]},
    /// });
    /// let AnyResource::HttpRoute(route) = AnyResource::from_value(value)? else { unreachable!() };
    /// assert_eq!(route.spec.parent_refs[0].name, "web");
    /// # Ok::<(), gamma_model::DecodeError>(())
    /// ```
    pub fn from_value(value: Value) -> Result<AnyResource, DecodeError> {
        decode_value(value, &DecodeOptions::default())
    }
}

/// Decodes one object (not a `List`) from an already-parsed JSON value: the same types, the
/// same tolerance (unknown enum values kept as `Unknown`, unknown fields ignored) and the same
/// errors as [`decode_with`](crate::decode_with) on the equivalent text, at document 0 with no
/// line. The depth and node limits of `options` apply (a value built in memory can be deeper
/// than any parser allows); the size, document and alias limits concern text and do not.
/// [`DecodeOptions::skip_unsupported`] does not apply either: an unsupported kind is an error
/// the caller sees.
pub fn decode_value(mut value: Value, options: &DecodeOptions) -> Result<AnyResource, DecodeError> {
    let at = Position::default();
    check_limits(&value, options, at)?;
    // As in `decode`: `field: null` is an absent field and a whole float an integer (the API
    // server prunes the one and accepts the other).
    super::normalize::normalize(&mut value);
    let Value::Object(object) = &value else {
        return Err(DecodeError::NotAnObject {
            at,
            found: value_kind(&value),
        });
    };
    let (api_version, kind) = type_info(object, at)?;
    let Some(rk) = ResourceKind::from_type(api_version, kind) else {
        return Err(DecodeError::UnsupportedKind {
            at,
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
        });
    };
    if let Some(bundles) = &options.defaults {
        crate::validate::apply_defaults(rk, bundles.of(rk), &mut value);
    }
    // The fast path reads the value in place; only a failure pays for path tracking.
    AnyResource::from_value_ref(rk, &value).map_err(|plain| {
        let (path, message) = match AnyResource::from_value_ref_tracked(rk, &value) {
            Err(e) => (
                format_path(&path_segments(e.path())),
                e.into_inner().to_string(),
            ),
            Ok(_) => (String::new(), plain.to_string()),
        };
        DecodeError::Field {
            at,
            kind: rk,
            path,
            message,
        }
    })
}

/// The depth and node limits, checked without recursion (so a hostile value cannot overflow
/// the stack here either).
fn check_limits(value: &Value, options: &DecodeOptions, at: Position) -> Result<(), DecodeError> {
    let mut stack: Vec<(&Value, usize)> = vec![(value, 1)];
    let mut nodes = 0usize;
    while let Some((v, depth)) = stack.pop() {
        nodes += 1;
        if nodes > options.max_nodes {
            return Err(DecodeError::LimitExceeded {
                at,
                limit: Limit::Nodes,
                message: format!("more than {} nodes", options.max_nodes),
            });
        }
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(o) => Box::new(o.values()),
            _ => continue,
        };
        if depth > options.max_depth {
            return Err(DecodeError::LimitExceeded {
                at,
                limit: Limit::Depth,
                message: depth_message(options.max_depth),
            });
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::decode;

    fn route_json() -> Value {
        json!({
            "apiVersion": "gateway.networking.k8s.io/v1",
            "kind": "HTTPRoute",
            "metadata": {"name": "web", "namespace": "shop", "generation": 3},
            "spec": {
                "parentRefs": [{"group": "", "kind": "Service", "name": "web", "port": 80}],
                "rules": [{"matches": [{"path": {"type": "RegularExpressionish", "value": "/x"}}],
                           "backendRefs": [{"name": "web-v2", "port": 8080}]}],
            },
            "status": {"parents": [{"parentRef": {"name": "web"}, "controllerName": "a.io/c",
                "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted",
                                "message": "", "lastTransitionTime": "2026-01-05T10:00:00Z"}]}]},
        })
    }

    #[test]
    fn from_value_equals_decode_of_the_same_text_including_unknown_enum_values() {
        let value = route_json();
        let text = serde_json::to_string(&value).unwrap();
        let from_text = decode(&text).unwrap();
        assert_eq!(vec![AnyResource::from_value(value).unwrap()], from_text);
    }

    #[test]
    fn from_value_field_errors_carry_the_path_and_message_decode_gives() {
        let mut value = route_json();
        value["spec"]["rules"][0]["backendRefs"][0]["port"] = json!("eighty");
        let text = serde_json::to_string(&value).unwrap();
        let (Err(from_value), Err(from_text)) = (AnyResource::from_value(value), decode(&text))
        else {
            panic!("both must fail");
        };
        assert_eq!(
            from_value.field_path(),
            Some("spec.rules[0].backendRefs[0].port")
        );
        assert_eq!(from_value.field_path(), from_text.field_path());
        let (DecodeError::Field { message: a, .. }, DecodeError::Field { message: b, .. }) =
            (&from_value, &from_text)
        else {
            panic!("field errors expected: {from_value} / {from_text}");
        };
        assert_eq!(a, b);
    }

    #[test]
    fn from_value_reads_null_and_missing_fields_as_decode_does() {
        let mut value = route_json();
        value["spec"]["hostnames"] = Value::Null;
        let text = serde_json::to_string(&value).unwrap();
        assert_eq!(
            vec![AnyResource::from_value(value).unwrap()],
            decode(&text).unwrap()
        );
        let mut value = route_json();
        value["status"]["parents"][0]["conditions"][0]
            .as_object_mut()
            .unwrap()
            .remove("type");
        let text = serde_json::to_string(&value).unwrap();
        // A missing field with a default: the same outcome either way.
        let a = AnyResource::from_value(value).map_err(|e| e.field_path().map(str::to_owned));
        let b = decode(&text)
            .map(|mut v| v.remove(0))
            .map_err(|e| e.field_path().map(str::to_owned));
        assert_eq!(a, b);
    }

    #[test]
    fn from_value_refuses_non_objects_missing_type_info_and_unsupported_kinds() {
        assert!(matches!(
            AnyResource::from_value(json!([1])),
            Err(DecodeError::NotAnObject { .. })
        ));
        assert!(matches!(
            AnyResource::from_value(json!({"kind": "Service"})),
            Err(DecodeError::MissingTypeInfo {
                field: "apiVersion",
                ..
            })
        ));
        assert!(matches!(
            AnyResource::from_value(json!({"apiVersion": "apps/v1", "kind": "Deployment"})),
            Err(DecodeError::UnsupportedKind { .. })
        ));
    }

    #[test]
    fn from_value_enforces_depth_and_node_limits_without_recursing() {
        // Deeper than serde_json's parser allows (128): only a value built in memory gets here.
        // (Not much deeper: dropping a `Value` recurses.)
        let mut deep = json!(0);
        for _ in 0..1_000 {
            deep = json!([deep]);
        }
        let mut value = route_json();
        value["metadata"]["annotations"] = json!({"x": deep});
        let err = AnyResource::from_value(value).unwrap_err();
        assert_eq!(err.limit(), Some(Limit::Depth));
        let options = DecodeOptions {
            max_nodes: 10,
            ..DecodeOptions::default()
        };
        let err = decode_value(route_json(), &options).unwrap_err();
        assert_eq!(err.limit(), Some(Limit::Nodes));
    }
}
