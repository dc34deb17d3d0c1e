//! Hostile nesting: on 10,000-deep nesting, decode refuses or finishes within set limits with a
//! clear error. Every shape of over-deep input, YAML flow sequences and mappings, block mappings
//! and sequences, block and flow mixed, JSON arrays and objects, is refused with the same
//! [`Limit::Depth`] error naming the configured `max_depth` and the line of the collection that
//! went too deep; input at exactly `max_depth` decodes. Brackets inside quoted strings, block
//! scalars and comments are text, not nesting.
//!
//! Depth counts open collections with the root as 1 (`DecodeOptions::max_depth`). Every input
//! here is a `Namespace` whose unknown field `x` (ignored by the model) holds the nesting, so an
//! input within the limit decodes to one object.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use gamma_model::DecodeError;
use gamma_model::decode::Limit;
use gamma_model::{DecodeOptions, decode_with};

const HEADER: &str = "apiVersion: v1\nkind: Namespace\n";
/// `x:` is on line 3; its value is level 2.
const X_LINE: usize = 3;

/// The shapes of nesting, each a document of exactly `depth` levels (root included), and the
/// line on which level `level` opens.
#[derive(Debug, Clone, Copy)]
enum Shape {
    FlowSequences,
    FlowMappings,
    /// Flow mappings and sequences alternating: `{a: [{a: [...`.
    FlowMixed,
    /// Compact block sequences on one line: `- - - - 1`.
    BlockSequences,
    /// One block mapping per line, one more space each.
    BlockMappings,
    /// Block mappings for the first `BLOCK_LEVELS` levels under `x`, then flow sequences.
    BlockThenFlow,
    /// Block sequence entries holding flow mappings holding block... as deep as YAML allows
    /// mixing: block sequences, then a flow mapping of flow sequences.
    BlockSequenceThenFlowMapping,
    JsonArrays,
    JsonObjects,
}

const BLOCK_LEVELS: usize = 4;

impl Shape {
    const ALL: [Shape; 9] = [
        Shape::FlowSequences,
        Shape::FlowMappings,
        Shape::FlowMixed,
        Shape::BlockSequences,
        Shape::BlockMappings,
        Shape::BlockThenFlow,
        Shape::BlockSequenceThenFlowMapping,
        Shape::JsonArrays,
        Shape::JsonObjects,
    ];

    /// A document nested exactly `depth` levels deep (`depth >= 2`).
    fn document(self, depth: usize) -> String {
        // Levels below the root.
        let k = depth - 1;
        match self {
            Shape::FlowSequences => format!("{HEADER}x: {}{}\n", "[".repeat(k), "]".repeat(k)),
            Shape::FlowMappings => format!("{HEADER}x: {}1{}\n", "{a: ".repeat(k), "}".repeat(k)),
            Shape::FlowMixed => {
                let open: String = (0..k)
                    .map(|i| if i % 2 == 0 { "{a: " } else { "[" })
                    .collect();
                let close: String = (0..k)
                    .rev()
                    .map(|i| if i % 2 == 0 { "}" } else { "]" })
                    .collect();
                format!("{HEADER}x: {open}1{close}\n")
            }
            Shape::BlockSequences => format!("{HEADER}x:\n{}1\n", "- ".repeat(k)),
            Shape::BlockMappings => {
                let mut s = format!("{HEADER}x:\n");
                for i in 0..k {
                    s.push_str(&" ".repeat(i + 1));
                    s.push_str(if i + 1 == k { "a: 1\n" } else { "a:\n" });
                }
                s
            }
            Shape::BlockThenFlow => {
                let block = BLOCK_LEVELS.min(k);
                let flow = k - block;
                let mut s = format!("{HEADER}x:\n");
                for i in 0..block {
                    s.push_str(&" ".repeat(i + 1));
                    if i + 1 == block {
                        s.push_str(&format!("a: {}1{}\n", "[".repeat(flow), "]".repeat(flow)));
                    } else {
                        s.push_str("a:\n");
                    }
                }
                s
            }
            Shape::BlockSequenceThenFlowMapping => {
                let block = BLOCK_LEVELS.min(k);
                let flow = k - block;
                let inner = if flow == 0 {
                    "1".to_owned()
                } else {
                    format!("{{a: {}1{}}}", "[".repeat(flow - 1), "]".repeat(flow - 1))
                };
                format!("{HEADER}x:\n{}{inner}\n", "- ".repeat(block))
            }
            Shape::JsonArrays => format!(
                "{{\"apiVersion\": \"v1\", \"kind\": \"Namespace\",\n\n\"x\": {}{}}}\n",
                "[".repeat(k),
                "]".repeat(k)
            ),
            Shape::JsonObjects => format!(
                "{{\"apiVersion\": \"v1\", \"kind\": \"Namespace\",\n\n\"x\": {}1{}}}\n",
                "{\"a\": ".repeat(k),
                "}".repeat(k)
            ),
        }
    }

    /// The line on which level `level` (>= 2) opens in [`Shape::document`].
    fn line_of_level(self, level: usize) -> usize {
        match self {
            Shape::FlowSequences
            | Shape::FlowMappings
            | Shape::FlowMixed
            | Shape::JsonArrays
            | Shape::JsonObjects => X_LINE,
            Shape::BlockSequences | Shape::BlockSequenceThenFlowMapping => X_LINE + 1,
            // Level 2 is the mapping whose first key is on line 4, and so on.
            Shape::BlockMappings => X_LINE + level - 1,
            // The last block mapping (level BLOCK_LEVELS + 1) holds the flow on its line.
            Shape::BlockThenFlow => X_LINE + (level - 1).min(BLOCK_LEVELS),
        }
    }
}

fn options(max_depth: usize) -> DecodeOptions {
    let mut options = DecodeOptions::default();
    options.max_depth = max_depth;
    options
}

fn assert_depth_refused(shape: Shape, depth: usize, max_depth: usize) {
    let text = shape.document(depth);
    let e = match decode_with(&text, &options(max_depth)) {
        Ok(v) => panic!("{shape:?} at depth {depth} decoded {} objects", v.len()),
        Err(e) => e,
    };
    let DecodeError::LimitExceeded { at, limit, message } = &e else {
        panic!("{shape:?} at depth {depth}: not a limit error: {e}");
    };
    assert_eq!(*limit, Limit::Depth, "{shape:?} at depth {depth}: {e}");
    assert!(
        message.contains(&format!("limit of {max_depth} levels")),
        "{shape:?} at depth {depth}: {e}"
    );
    assert_eq!(at.document, 0, "{shape:?}: {e}");
    assert_eq!(
        at.line,
        Some(shape.line_of_level(max_depth + 1)),
        "{shape:?} at depth {depth}: the line of the first level past the limit: {e}"
    );
}

fn assert_decodes(shape: Shape, depth: usize, max_depth: usize) {
    let text = shape.document(depth);
    match decode_with(&text, &options(max_depth)) {
        Ok(v) => assert_eq!(v.len(), 1, "{shape:?} at depth {depth}"),
        Err(e) => panic!("{shape:?} at depth {depth} (max {max_depth}) refused: {e}"),
    }
}

// The limit is exact for every shape: `max_depth` levels decode, one more is refused, with the
// default (64) and with a configured limit.
#[test]
fn every_shape_decodes_at_max_depth_and_is_refused_one_deeper() {
    for max_depth in [DecodeOptions::DEFAULT_MAX_DEPTH, 7] {
        for shape in Shape::ALL {
            assert_decodes(shape, max_depth, max_depth);
            assert_depth_refused(shape, max_depth + 1, max_depth);
        }
    }
}

// 10,000 levels, in every shape, are refused with the same typed error (before this,
// deep flow sequences hit the YAML scanner's own guard and came back as a `Syntax` error).
#[test]
fn ten_thousand_levels_are_refused_in_every_shape() {
    for shape in Shape::ALL {
        // Block mappings cost indentation quadratic in depth: 4,000 levels are ~8 MB, within the
        // 16 MiB input limit.
        let depth = match shape {
            Shape::BlockMappings => 4_000,
            _ => 10_000,
        };
        assert_depth_refused(shape, depth, DecodeOptions::DEFAULT_MAX_DEPTH);
    }
    // Half the default input limit (8 MiB) of brackets: the guards stop at level 65, so the
    // cost does not grow with the nesting past the limit.
    assert_depth_refused(
        Shape::FlowSequences,
        4 << 20,
        DecodeOptions::DEFAULT_MAX_DEPTH,
    );
}

// The error names the document the deep nesting is in, after documents that were fine.
#[test]
fn the_depth_error_names_its_document() {
    let ok = Shape::FlowMappings.document(DecodeOptions::DEFAULT_MAX_DEPTH);
    let deep = Shape::FlowSequences.document(10_000);
    let text = format!("{ok}---\n{ok}---\n{deep}");
    let e = decode_with(&text, &DecodeOptions::default()).unwrap_err();
    assert_eq!(e.limit(), Some(Limit::Depth), "{e}");
    assert_eq!(e.document(), Some(2), "{e}");
    // Two 4-line documents (3 lines each plus `---`) before it.
    assert_eq!(e.line(), Some(8 + X_LINE), "{e}");
}

// A field error deep in a document within the limit reports its path and line (the line search
// used to recurse through serde per level and overflowed a 2 MB stack at ~60 levels).
#[test]
fn field_errors_in_documents_at_max_depth_get_their_line() {
    // labels.a holds a sequence, not a string: root, metadata, labels, then 61 sequences = 64.
    let text = format!(
        "{HEADER}metadata:\n  name: x\n  labels:\n    b: c\n    a: {}{}\n",
        "[".repeat(61),
        "]".repeat(61)
    );
    let e = decode_with(&text, &DecodeOptions::default()).unwrap_err();
    assert_eq!(e.field_path(), Some("metadata.labels.a"), "{e}");
    assert_eq!(e.line(), Some(7), "{e}");
    let block: String = (0..61)
        .map(|i| format!("{}-\n", " ".repeat(6 + i)))
        .collect();
    let text = format!("{HEADER}metadata:\n  name: x\n  labels:\n    a:\n{block}");
    let e = decode_with(&text, &DecodeOptions::default()).unwrap_err();
    assert_eq!(e.field_path(), Some("metadata.labels.a"), "{e}");
    // `a:` is on line 6; its value, the outermost block sequence, starts on the next line.
    assert_eq!(e.line(), Some(7), "{e}");
}

// Brackets and braces that are text, 10,000 of each, are not nesting: in double- and
// single-quoted scalars (also as keys), literal and folded block scalars, plain scalars in
// block context, comments, and JSON strings.
#[test]
fn brackets_in_text_are_not_nesting() {
    let b = "[{".repeat(10_000);
    let inputs = [
        format!("{HEADER}metadata:\n  name: x\n  labels:\n    a: \"{b}\"\n"),
        format!("{HEADER}metadata:\n  name: x\n  labels:\n    a: '{b}'\n"),
        // (Implicit keys are at most 1,024 characters, a YAML rule.)
        format!(
            "{HEADER}metadata:\n  name: x\n  labels:\n    \"{}\": x\n",
            &b[..1_000]
        ),
        format!("{HEADER}metadata:\n  name: x\n  labels: {{a: \"{b}\", b: '{b}'}}\n"),
        format!("{HEADER}metadata:\n  name: x\n  labels:\n    a: |\n      {b}\n      {b}\n"),
        format!("{HEADER}metadata:\n  name: x\n  labels:\n    a: >-\n      {b}\n"),
        format!("{HEADER}metadata:\n  name: x\n  labels:\n    a: x{b}\n"),
        format!("{HEADER}# {b}\nmetadata:\n  name: x # {b}\n"),
        format!(
            "{{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {{\"name\": \"x\", \"labels\": {{\"a\": \"{b}\"}}}}}}"
        ),
    ];
    for (i, input) in inputs.iter().enumerate() {
        let decoded = decode_with(input, &DecodeOptions::default());
        assert!(decoded.is_ok(), "input {i}: {}", decoded.unwrap_err());
    }
}

// JSON deeper than `serde_json` parses (127 levels) is refused by the pre-scan with the same typed
// error, even when `max_depth` allows more (it used to surface as serde_json's `Syntax` error
// "recursion limit exceeded").
#[test]
fn json_is_capped_at_what_serde_json_parses_with_the_same_error() {
    let max = 200;
    for shape in [Shape::JsonArrays, Shape::JsonObjects] {
        assert_decodes(shape, 127, max);
        let e = decode_with(&shape.document(128), &options(max)).unwrap_err();
        assert_eq!(e.limit(), Some(Limit::Depth), "{shape:?}: {e}");
        assert!(e.to_string().contains("limit of 127 levels"), "{e}");
        assert_eq!(e.line(), Some(X_LINE), "{e}");
    }
}
