//! Header values with CR, LF or NUL: the experimental CRDs forbid them (HTTPHeader.value and
//! HTTPHeaderMatch.value carry the pattern `^[!-~]+([\t ]?[!-~]+)*$`, "printable US-ASCII
//! characters, optionally separated by single tabs or spaces"); the standard CRDs do not, so
//! there they are warnings of `validate` (the API server accepts them; gamma-rs never programs
//! them, see `ErrorKind::ControlCharacter`).
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use gamma_model::validate::{Channel, ErrorKind, Report, ValidateOptions};
use gamma_model::{DecodeOptions, decode_documents};

/// YAML double-quoted strings, so the escapes reach the decoder as control characters.
const ROUTES: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{headers: [{name: x-a, value: "a\rb"}]}]
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier: {set: [{name: x-b, value: "ok\r\nX-Evil: 1"}]}
    backendRefs:
    - name: web
      port: 80
      filters:
      - type: ResponseHeaderModifier
        responseHeaderModifier: {add: [{name: x-c, value: "nul\u0000"}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: g, namespace: app}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{headers: [{name: x-d, value: "d\ne"}]}]
"#;

fn reports(channel: Channel) -> Vec<Report> {
    let decoded = decode_documents(ROUTES, &DecodeOptions::checking_fields()).unwrap();
    decoded
        .documents
        .iter()
        .map(|d| d.validate_with(&ValidateOptions::channel(channel)))
        .collect()
}

fn paths(list: &[gamma_model::ValidationError]) -> Vec<String> {
    list.iter().map(|e| e.path.as_str().to_owned()).collect()
}

#[test]
fn control_characters_in_header_values_warn_on_standard() {
    let r = reports(Channel::Standard);
    assert!(r[0].errors.is_empty(), "{:?}", r[0].errors);
    assert_eq!(
        paths(&r[0].warnings),
        [
            "spec.rules[0].matches[0].headers[0].value",
            "spec.rules[0].filters[0].requestHeaderModifier.set[0].value",
            "spec.rules[0].backendRefs[0].filters[0].responseHeaderModifier.add[0].value",
        ]
    );
    assert!(
        r[0].warnings
            .iter()
            .all(|w| w.kind == ErrorKind::ControlCharacter)
    );
    // GRPCRoute header match values have no pattern on either channel
    assert_eq!(
        paths(&r[1].warnings),
        ["spec.rules[0].matches[0].headers[0].value"]
    );
}

#[test]
fn control_characters_in_header_values_are_errors_on_experimental() {
    let r = reports(Channel::Experimental);
    assert_eq!(
        paths(&r[0].errors),
        [
            "spec.rules[0].matches[0].headers[0].value",
            "spec.rules[0].filters[0].requestHeaderModifier.set[0].value",
            "spec.rules[0].backendRefs[0].filters[0].responseHeaderModifier.add[0].value",
        ]
    );
    assert!(
        r[0].errors
            .iter()
            .all(|e| matches!(e.kind, ErrorKind::Pattern { .. }))
    );
    assert!(r[0].warnings.is_empty());
    assert!(r[1].errors.is_empty());
    assert_eq!(r[1].warnings.len(), 1);
}

// The typed validation alone (what the API server enforces) accepts them on standard.
#[test]
fn standard_typed_validation_admits_control_characters_unless_refused() {
    use gamma_model::Validate;
    let decoded = decode_documents(ROUTES, &DecodeOptions::default()).unwrap();
    let route = &decoded.documents[0].resource;
    assert!(route.validate().is_ok());
    let mut opts = ValidateOptions::default();
    opts.refuse_control_characters = true;
    assert_eq!(route.validate_with(&opts).unwrap_err().len(), 3);
}
