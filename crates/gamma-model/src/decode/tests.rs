//! Decoding behaviour: formats, positions, field paths, lists, skipping, and hostile input.

use super::*;
use crate::{decode, decode_documents, decode_with};

const ROUTE: &str = "apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{group: \"\", kind: Service, name: svc}]
";

fn yaml_routes(n: usize) -> String {
    (0..n)
        .map(|i| ROUTE.replace("name: r,", &format!("name: r{i},")))
        .collect::<Vec<_>>()
        .join("---\n")
}

#[test]
fn multi_document_yaml_keeps_document_index_and_start_line() {
    let input = format!("# leading comment\n---\n{ROUTE}---\n---\n{ROUTE}");
    let decoded = decode_documents(&input, &DecodeOptions::default()).unwrap();
    let at: Vec<_> = decoded
        .documents
        .iter()
        .map(|d| (d.at.document, d.at.line))
        .collect();
    // Empty documents are not counted; lines are those of each document's first key.
    assert_eq!(at, [(0, Some(3)), (1, Some(10))]);
}

#[test]
fn json_object_array_and_list_decode_through_one_entry_point() {
    let obj = r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}"#;
    assert_eq!(decode(obj).unwrap().len(), 1);
    let arr = format!("[\n{obj},\n{obj}\n]");
    let decoded = decode_documents(&arr, &DecodeOptions::default()).unwrap();
    let at: Vec<_> = decoded
        .documents
        .iter()
        .map(|d| (d.at.document, d.at.line))
        .collect();
    assert_eq!(at, [(0, Some(2)), (1, Some(3))]);
    let list = format!("{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{obj},\n{obj}]}}");
    let decoded = decode_documents(&list, &DecodeOptions::default()).unwrap();
    let at: Vec<_> = decoded
        .documents
        .iter()
        .map(|d| (d.at.item, d.at.line))
        .collect();
    assert_eq!(at, [(Some(0), Some(2)), (Some(1), Some(3))]);
}

#[test]
fn yaml_list_items_get_their_own_lines() {
    let input = "apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: a}
- apiVersion: v1
  kind: Namespace
  metadata: {name: b}
";
    let decoded = decode_documents(input, &DecodeOptions::default()).unwrap();
    let at: Vec<_> = decoded
        .documents
        .iter()
        .map(|d| (d.at.item, d.at.line))
        .collect();
    assert_eq!(at, [(Some(0), Some(4)), (Some(1), Some(7))]);
}

#[test]
fn typed_lists_lend_their_type_to_items_without_one() {
    // What the API server returns for GET .../httproutes: items omit apiVersion and kind.
    let input = r#"{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRouteList",
        "items":[{"metadata":{"name":"a","namespace":"n"},"spec":{}}]}"#;
    let objects = decode(input).unwrap();
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0].kind(), ResourceKind::HttpRoute);
    assert_eq!(objects[0].api_version(), "gateway.networking.k8s.io/v1");
}

#[test]
fn malformed_yaml_reports_the_document_and_line() {
    let input = format!(
        "{ROUTE}---\n{ROUTE}---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: [x}}\n"
    );
    let err = decode(&input).unwrap_err();
    assert!(matches!(err, DecodeError::Syntax { .. }), "{err}");
    assert_eq!(err.document(), Some(2));
    // The bad flow sequence is on line 15 of the input (two 6-line routes, then 3 lines).
    assert_eq!(err.line(), Some(15), "{err}");
}

#[test]
fn malformed_json_reports_the_array_element_and_line() {
    let obj = r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}"#;
    let input = format!("[\n{obj},\n{obj},\n{{\"apiVersion\": \"v1\",\n \"kind\": }}\n]");
    let err = decode(&input).unwrap_err();
    assert!(matches!(err, DecodeError::Syntax { .. }), "{err}");
    assert_eq!(err.document(), Some(2));
    assert_eq!(err.line(), Some(5));
}

#[test]
fn wrong_typed_field_reports_its_path_and_line_in_yaml() {
    let input = format!(
        "{ROUTE}---\n{ROUTE}  rules:\n  - backendRefs:\n    - name: b\n      port: eighty\n"
    );
    let err = decode(&input).unwrap_err();
    let DecodeError::Field { at, kind, path, .. } = &err else {
        panic!("expected a field error, got {err}");
    };
    assert_eq!(*kind, ResourceKind::HttpRoute);
    assert_eq!(path, "spec.rules[0].backendRefs[0].port");
    assert_eq!(at.document, 1);
    assert_eq!(at.line, Some(15), "{err}");
    assert!(
        err.to_string()
            .contains("spec.rules[0].backendRefs[0].port")
    );
}

#[test]
fn wrong_typed_field_reports_its_path_and_line_in_json() {
    let input = r#"[
{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}},
{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},
 "spec":{"ports":[{"port":80},
   {"port":"http"}]}}
]"#;
    let err = decode(input).unwrap_err();
    assert_eq!(err.field_path(), Some("spec.ports[1].port"));
    assert_eq!(err.document(), Some(1));
    assert_eq!(err.line(), Some(5));
}

#[test]
fn field_errors_in_list_items_name_the_item_and_its_line() {
    let input = "apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: a}
- apiVersion: v1
  kind: Namespace
  metadata:
    name: b
    labels: {a: [1]}
";
    let err = decode(input).unwrap_err();
    assert_eq!(err.position().unwrap().item, Some(1));
    assert_eq!(err.field_path(), Some("metadata.labels.a"));
    assert_eq!(err.line(), Some(11));
}

#[test]
fn missing_required_field_is_reported_at_its_own_path_and_the_enclosing_line() {
    // HTTPPathModifier.type is required by the CRD; the API server reports `Required value` at
    // the field's own path. The line is the enclosing object's, the nearest node that exists.
    let input = format!(
        "{ROUTE}  rules:\n  - filters:\n    - type: URLRewrite\n      urlRewrite:\n        path:\n          replaceFullPath: /x\n"
    );
    let err = decode(&input).unwrap_err();
    assert_eq!(
        err.field_path(),
        Some("spec.rules[0].filters[0].urlRewrite.path.type")
    );
    assert_eq!(err.line(), Some(11), "{err}");
}

#[test]
fn odd_keys_are_quoted_in_paths() {
    let input = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  annotations:\n    gamma.rs/controllers: 3\n";
    let err = decode(input).unwrap_err();
    assert_eq!(
        err.field_path(),
        Some("metadata.annotations[\"gamma.rs/controllers\"]")
    );
    assert_eq!(err.line(), Some(6));
}

#[test]
fn missing_type_info_and_non_objects_are_reported() {
    let err = decode("metadata: {name: a}\n").unwrap_err();
    assert!(matches!(
        err,
        DecodeError::MissingTypeInfo {
            field: "apiVersion",
            ..
        }
    ));
    let err = decode("apiVersion: v1\n").unwrap_err();
    assert!(matches!(
        err,
        DecodeError::MissingTypeInfo { field: "kind", .. }
    ));
    let err = decode("just a string\n").unwrap_err();
    assert!(matches!(
        err,
        DecodeError::NotAnObject {
            found: "a string",
            ..
        }
    ));
}

#[test]
fn unsupported_kinds_fail_by_default_and_are_reported_when_skipped() {
    let input =
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\n---\n{ROUTE}");
    let err = decode(&input).unwrap_err();
    assert!(
        matches!(&err, DecodeError::UnsupportedKind { kind, .. } if kind == "Deployment"),
        "{err}"
    );
    assert_eq!(err.line(), Some(1));
    let decoded = decode_documents(&input, &DecodeOptions::skipping_unsupported()).unwrap();
    assert_eq!(decoded.documents.len(), 1);
    assert_eq!(decoded.documents[0].at.document, 1);
    assert_eq!(decoded.skipped.len(), 1);
    assert_eq!(decoded.skipped[0].api_version, "apps/v1");
    // A known kind at an apiVersion gamma-rs does not decode is unsupported too.
    let old = ROUTE.replace("/v1\n", "/v1alpha1\n");
    assert!(matches!(
        decode(&old),
        Err(DecodeError::UnsupportedKind { .. })
    ));
}

#[test]
fn older_api_versions_keep_their_api_version() {
    let old = ROUTE.replace("/v1\n", "/v1beta1\n");
    let objects = decode(&old).unwrap();
    assert_eq!(
        objects[0].api_version(),
        "gateway.networking.k8s.io/v1beta1"
    );
}

#[test]
fn byte_order_mark_and_blank_input_are_accepted() {
    assert_eq!(decode(&format!("\u{feff}{ROUTE}")).unwrap().len(), 1);
    assert!(decode("").unwrap().is_empty());
    assert!(decode("---\n# nothing\n").unwrap().is_empty());
}

// Hostile input: each limit refuses with a typed error naming the limit.

#[test]
fn input_over_the_size_limit_is_refused_before_parsing() {
    let options = DecodeOptions {
        max_input_bytes: 1024,
        ..Default::default()
    };
    let err = decode_with(&yaml_routes(20), &options).unwrap_err();
    assert!(
        matches!(err, DecodeError::TooLarge { limit: 1024, .. }),
        "{err}"
    );
}

#[test]
fn yaml_alias_bomb_is_refused() {
    // "Billion laughs": 9 levels of 9 aliases each would expand to 9^9 strings.
    let mut bomb = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for level in ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] {
        let prev = char::from(level as u8 - 1);
        let refs = vec![format!("*{prev}"); 9].join(",");
        bomb.push_str(&format!("{level}: &{level} [{refs}]\n"));
    }
    let err = decode(&bomb).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::AliasExpansion), "{err}");
    assert_eq!(err.document(), Some(0));
}

#[test]
fn aliases_can_be_refused_altogether() {
    let input = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: &n a\n  labels: {x: *n}\n";
    assert_eq!(decode(input).unwrap().len(), 1);
    let options = DecodeOptions {
        max_alias_expansion: 0,
        ..Default::default()
    };
    let err = decode_with(input, &options).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::AliasExpansion), "{err}");
}

#[test]
fn ten_thousand_deep_nesting_is_refused_in_yaml_and_json() {
    let depth = 10_000;
    let yaml = format!(
        "apiVersion: v1\nkind: Namespace\nx: {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let err = decode(&yaml).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Depth), "{err}");
    assert_eq!(err.line(), Some(3), "{err}");
    // Block nesting costs indentation quadratic in depth; 200 levels are enough past 64.
    let block: String = (0..200).map(|i| format!("{}a:\n", " ".repeat(i))).collect();
    let err = decode(&block).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Depth), "{err}");
    let json = format!("{{\"x\":{}{}}}", "[".repeat(depth), "]".repeat(depth));
    let err = decode(&json).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Depth), "{err}");
}

#[test]
fn depth_limit_is_configurable() {
    // ROUTE nests 4 deep: root, spec, parentRefs, the reference.
    let mut options = DecodeOptions {
        max_depth: 4,
        ..Default::default()
    };
    assert!(decode_with(ROUTE, &options).is_ok());
    options.max_depth = 3;
    assert_eq!(
        decode_with(ROUTE, &options).unwrap_err().limit(),
        Some(Limit::Depth)
    );
    let json = r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"labels":{"a":"b"}}}"#;
    options.max_depth = 2;
    assert_eq!(
        decode_with(json, &options).unwrap_err().limit(),
        Some(Limit::Depth)
    );
    options.max_depth = 3;
    assert!(decode_with(json, &options).is_ok());
}

#[test]
fn document_limit_is_enforced_for_yaml_and_json_arrays() {
    let options = DecodeOptions {
        max_documents: 3,
        ..Default::default()
    };
    assert_eq!(decode_with(&yaml_routes(3), &options).unwrap().len(), 3);
    let err = decode_with(&yaml_routes(4), &options).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Documents), "{err}");
    let obj = r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}"#;
    let arr = format!("[{}]", [obj; 4].join(","));
    let err = decode_with(&arr, &options).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Documents), "{err}");
}

#[test]
fn node_limit_is_enforced_for_yaml_and_json() {
    let options = DecodeOptions {
        max_nodes: 100,
        ..Default::default()
    };
    let err = decode_with(&yaml_routes(10), &options).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Nodes), "{err}");
    let obj = r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}"#;
    let arr = format!("[{}]", vec![obj; 20].join(","));
    let err = decode_with(&arr, &options).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Nodes), "{err}");
}

#[test]
fn huge_inputs_are_refused_within_the_limits() {
    // A huge document is refused (or decoded) within set limits, without building an
    // unbounded tree. 20 MB inputs keep this affordable in CI's debug builds.
    let flat = format!(
        "apiVersion: v1\nkind: Namespace\nx: [{}0]\n",
        "0,".repeat(10_000_000)
    );
    assert!(flat.len() > 20_000_000);
    // By default: over the input-size limit, refused before parsing.
    assert!(matches!(decode(&flat), Err(DecodeError::TooLarge { .. })));
    // With a larger size limit, the node limit stops the parser early.
    let mut options = DecodeOptions {
        max_input_bytes: 32 * 1024 * 1024,
        max_nodes: 50_000,
        ..Default::default()
    };
    let err = decode_with(&flat, &options).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Nodes), "{err}");
    assert_eq!(err.line(), Some(3), "{err}");
    // JSON is counted by the pre-scan, before `serde_json` allocates anything.
    let json = format!("{{\"x\": [{}0]}}", "0,".repeat(10_000_000));
    options.max_nodes = DecodeOptions::DEFAULT_MAX_NODES;
    let err = decode_with(&json, &options).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Nodes), "{err}");
    // One huge scalar is a single node: it decodes when the size limit allows it.
    let big = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: {{a: \"{}\"}}\n",
        "x".repeat(20_000_000)
    );
    assert_eq!(decode_with(&big, &options).unwrap().len(), 1);
    assert!(matches!(decode(&big), Err(DecodeError::TooLarge { .. })));
}

#[test]
fn yaml_1_1_boolean_spellings_stay_strings() {
    // A namespace `n` or a header value `on` must not become a boolean (the "Norway problem").
    let input = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\n  labels: {a: on, b: yes, c: off}\n";
    let objects = decode(input).unwrap();
    let meta = objects[0].metadata();
    assert_eq!(meta.name, "n");
    assert_eq!(meta.labels["a"], "on");
    assert_eq!(meta.labels["b"], "yes");
}

#[test]
fn syntax_messages_do_not_repeat_the_position() {
    let err = decode("apiVersion: v1\nkind: Namespace\nmetadata: {name: [x}\n").unwrap_err();
    let DecodeError::Syntax { message, .. } = &err else {
        panic!("expected a syntax error, got {err}");
    };
    assert!(!message.contains("line"), "{message}");
    assert_eq!(err.line(), Some(3));
}

#[test]
fn field_line_maps_validation_paths_to_lines() {
    let options = DecodeOptions::default();
    let yaml = format!(
        "{ROUTE}---\n{ROUTE}  rules:\n  - matches:\n    - path: {{type: PathPrefix, value: /a/..}}\n"
    );
    let decoded = decode_documents(&yaml, &options).unwrap();
    let at = decoded.documents[1].at;
    assert_eq!(
        field_line(&yaml, &options, &at, "spec.rules[0].matches[0].path.value"),
        Some(14)
    );
    assert_eq!(
        field_line(&yaml, &options, &at, "spec.parentRefs[0]"),
        Some(11)
    );
    // A path that does not exist falls back to its deepest existing ancestor: `spec.rules`,
    // whose value (the block sequence) starts on line 13.
    assert_eq!(
        field_line(&yaml, &options, &at, "spec.rules[7].name"),
        Some(13)
    );
    // JSON, array element 1, map keys in every spelling.
    let json = "[{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"a\"}},\n{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"b\",\n\"labels\":{\"gamma.rs/mesh\":\"m\",\n\"3\":\"x\"}}}]";
    let decoded = decode_documents(json, &options).unwrap();
    let at = decoded.documents[1].at;
    assert_eq!(
        field_line(json, &options, &at, "metadata.labels[gamma.rs/mesh]"),
        Some(3)
    );
    assert_eq!(
        field_line(json, &options, &at, "metadata.labels[\"gamma.rs/mesh\"]"),
        Some(3)
    );
    assert_eq!(
        field_line(json, &options, &at, "metadata.labels[3]"),
        Some(4)
    );
    assert_eq!(field_line(json, &options, &at, "metadata..x"), None);
}

#[test]
fn field_errors_in_typed_list_items_keep_their_path() {
    // Items of a typed list lack apiVersion/kind; the error path re-reads them the same way.
    let input = r#"{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRouteList","items":[
{"metadata":{"name":"a","namespace":"n"},"spec":{}},
{"metadata":{"name":"b","namespace":"n"},
 "spec":{"parentRefs":[{"name":"p","port":"eighty"}]}}]}"#;
    let err = decode(input).unwrap_err();
    assert_eq!(err.position().unwrap().item, Some(1));
    assert_eq!(err.field_path(), Some("spec.parentRefs[0].port"));
    assert_eq!(err.line(), Some(4));
}
