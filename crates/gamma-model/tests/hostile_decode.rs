//! Hostile input for `decode`, complementing the limit tests in `src/decode/tests.rs`:
//! alias bombs built from large scalars, 10,000-deep flow mappings and JSON objects, deep block
//! YAML, and the default document cap from both sides. Each is refused with a typed
//! [`Limit`] (or decodes, when it is ordinary input); nothing panics, overflows the stack or
//! allocates without bound.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use gamma_model::DecodeError;
use gamma_model::DecodeOptions;
use gamma_model::decode::Limit;

fn namespace_with_labels(labels: &str) -> String {
    format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n  labels:\n{labels}")
}

/// One 1 MiB anchored scalar referenced `aliases` times: few nodes, but every alias is a copy.
fn scalar_alias_bomb(aliases: usize) -> String {
    let mut labels = format!("    a0: &big \"{}\"\n", "x".repeat(1 << 20));
    for i in 1..=aliases {
        labels.push_str(&format!("    a{i}: *big\n"));
    }
    namespace_with_labels(&labels)
}

fn refused(input: &str) -> DecodeError {
    match gamma_model::decode(input) {
        Ok(v) => panic!("decoded {} objects from hostile input", v.len()),
        Err(e) => {
            // The error renders (and names the document).
            assert!(e.to_string().starts_with("document "), "{e}");
            e
        }
    }
}

// Aliases of one large scalar replay one parser event each, so the alias-expansion
// limit (counted in events) lets 300 of them through; 300 copies of 1 MiB would still be 300 MiB.
// The parser's scalar-bytes budget refuses them once the copies pass 16 MiB.
#[test]
fn yaml_large_scalar_alias_bomb_is_refused() {
    let e = refused(&scalar_alias_bomb(300));
    assert_eq!(e.limit(), Some(Limit::Parser), "{e}");
    assert!(e.to_string().contains("ScalarBytes"), "{e}");
    // 10 copies (10 MiB) are within the budget.
    assert_eq!(
        gamma_model::decode(&scalar_alias_bomb(10)).unwrap().len(),
        1
    );
}

// A few aliases of small values are ordinary YAML and decode (anchors are not refused as such).
#[test]
fn yaml_small_aliases_still_decode() {
    let text = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n  labels: &l {a: b}\n  annotations: *l\n";
    let v = gamma_model::decode(text).unwrap();
    assert_eq!(
        v[0].metadata().annotations.get("a").map(String::as_str),
        Some("b")
    );
}

// 10,000-deep nesting, in YAML flow sequences and mappings and in JSON arrays and
// objects, is refused by the depth limit instead of overflowing the stack. Every other shape,
// and the exact boundary, is in `tests/hostile_depth.rs`.
#[test]
fn ten_thousand_deep_nesting_is_refused_in_yaml_and_json() {
    let n = 10_000;
    let yaml_seq = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata: {{name: x, labels: {}{}}}\n",
        "[".repeat(n),
        "]".repeat(n)
    );
    let yaml_map = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata: {{name: x, labels: {}1{}}}\n",
        "{a: ".repeat(n),
        "}".repeat(n)
    );
    let json_arr = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{{\"name\":\"x\",\"labels\":{}{}}}}}",
        "[".repeat(n),
        "]".repeat(n)
    );
    let json_obj = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{{\"name\":\"x\",\"labels\":{}1{}}}}}",
        "{\"a\":".repeat(n),
        "}".repeat(n)
    );
    for (what, input, line) in [
        ("yaml flow sequences", yaml_seq, 3),
        ("yaml flow mappings", yaml_map, 3),
        ("json arrays", json_arr, 1),
        ("json objects", json_obj, 1),
    ] {
        let e = refused(&input);
        assert_eq!(e.limit(), Some(Limit::Depth), "{what}: {e}");
        assert_eq!(e.line(), Some(line), "{what}: {e}");
    }
}

// Deep block-style YAML (indentation, not brackets) is refused too: 2,000 levels of `a:` under
// an object's labels.
#[test]
fn deep_block_yaml_is_refused() {
    let mut text =
        String::from("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n  labels:\n");
    for depth in 0..2_000 {
        text.push_str(&" ".repeat(4 + depth));
        text.push_str("a:\n");
    }
    assert_eq!(refused(&text).limit(), Some(Limit::Depth));
}

fn namespaces_yaml(n: usize) -> String {
    (0..n)
        .map(|i| format!("---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: ns{i}}}\n"))
        .collect()
}

fn namespaces_json(n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| {
            format!(r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"ns{i}"}}}}"#)
        })
        .collect();
    format!("[{}]", items.join(","))
}

// A multi-document stream of more than 1,024 objects (a `kubectl get -A -o yaml` split into
// documents) is ordinary input and decodes; serde-saphyr's own default would refuse it.
#[test]
fn streams_of_thousands_of_documents_decode() {
    assert_eq!(
        gamma_model::decode(&namespaces_yaml(2_000)).unwrap().len(),
        2_000
    );
    assert_eq!(
        gamma_model::decode(&namespaces_json(2_000)).unwrap().len(),
        2_000
    );
}

// Just above the default cap: exactly DEFAULT_MAX_DOCUMENTS documents decode, one more
// is refused with Limit::Documents, in YAML and in a JSON array.
#[test]
fn the_default_document_cap_is_exact() {
    let cap = DecodeOptions::DEFAULT_MAX_DOCUMENTS;
    assert_eq!(
        gamma_model::decode(&namespaces_yaml(cap)).unwrap().len(),
        cap
    );
    assert_eq!(
        refused(&namespaces_yaml(cap + 1)).limit(),
        Some(Limit::Documents)
    );
    assert_eq!(
        gamma_model::decode(&namespaces_json(cap)).unwrap().len(),
        cap
    );
    assert_eq!(
        refused(&namespaces_json(cap + 1)).limit(),
        Some(Limit::Documents)
    );
}
