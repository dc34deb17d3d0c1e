//! Numbers as the API server reads them for a custom resource: a whole float is an integer
//! (`port: 80.0` is port 80; kube-openapi `validate/type.go` accepts a float64 for
//! `type: integer` when `swag.IsFloat64AJSONInteger`), a fraction or a whole float beyond
//! 2^53 - 1 is not an integer, and an integer past the field's bounds is out of range.
//! See docs/validation.md, "Numbers".

use gamma_model::validate::ErrorKind;
use gamma_model::{AnyResource, DecodeError, Validate, decode};

fn route(port: &str) -> Result<AnyResource, DecodeError> {
    decode(&format!(
        "apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: r, namespace: shop}}
spec:
  parentRefs: [{{group: \"\", kind: Service, name: web, port: {port}}}]
  rules: [{{backendRefs: [{{name: web, port: 80, weight: 1e6}}]}}]
"
    ))
    .map(|mut v| v.remove(0))
}

fn not_an_integer(port: &str) {
    match route(port) {
        Err(DecodeError::Field { path, .. }) => assert_eq!(path, "spec.parentRefs[0].port"),
        other => panic!("{port}: {other:?}"),
    }
}

#[test]
fn a_whole_float_is_the_integer() {
    for port in ["80.0", "8e1", "80.000"] {
        let r = route(port).unwrap();
        r.validate().unwrap();
        let AnyResource::HttpRoute(h) = &r else {
            unreachable!()
        };
        assert_eq!(h.spec.parent_refs[0].port, Some(80), "{port}");
    }
}

#[test]
fn a_fraction_or_a_float_past_2_pow_53_is_not_an_integer() {
    not_an_integer("80.5");
    not_an_integer("9007199254740992.0");
    not_an_integer("1e300");
}

#[test]
fn integers_past_the_bounds_are_out_of_range_or_not_an_int32() {
    // Within int32: the schema's maximum applies.
    let r = route("65536").unwrap();
    let errs = r.validate().unwrap_err();
    assert!(
        errs.errors()
            .iter()
            .any(|e| e.path.as_str() == "spec.parentRefs[0].port"
                && matches!(e.kind, ErrorKind::OutOfRange { min: 1, max: 65535 })),
        "{errs}"
    );
    // Past int32 (and past int64, where the API server sees a float past 2^53): refused at
    // decoding, at the field's path.
    not_an_integer("4294967296");
    not_an_integer("9223372036854775808");
}
