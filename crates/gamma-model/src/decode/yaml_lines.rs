//! The line of a node in YAML input, found by walking the parser's event stream (error path
//! only).
//!
//! An earlier version deserialized the whole failing document into a tree with a span on every
//! node; serde's recursion costs tens of KB of stack per level in debug builds, so a document
//! nested 60 deep overflowed a 2 MB test thread. Walking events keeps an explicit stack of at
//! most `max_depth` small frames instead, and stops as soon as the node is found.

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, Tag};

use super::PathSegment;
use super::options::DecodeOptions;

/// One open collection during the walk.
struct Frame {
    /// `Some(index)` for a sequence: the index of the current element.
    index: Option<usize>,
    /// Mappings: the current key, when it is a scalar.
    key: Option<String>,
    /// Mappings: whether the next node is a key.
    expect_key: bool,
    /// Whether this collection is (inside) a mapping key, which no path can name.
    in_key: bool,
}

impl Frame {
    fn matches(&self, segment: &PathSegment) -> bool {
        if self.in_key {
            return false;
        }
        match (self.index, segment) {
            (Some(index), PathSegment::Index(i)) => index == *i,
            (Some(_), PathSegment::Key(_)) => false,
            // `labels[3]` in a validation path is the key "3".
            (None, PathSegment::Index(i)) => self.key.as_deref() == Some(i.to_string().as_str()),
            (None, PathSegment::Key(k)) => self.key.as_deref() == Some(k.as_str()),
        }
    }

    /// A child node of this collection is complete: move to the next slot.
    fn advance(&mut self) {
        match &mut self.index {
            Some(index) => *index += 1,
            None => self.expect_key = !self.expect_key,
        }
    }
}

/// The line of the node at `path` in non-empty document `document` of YAML `input`, or of its
/// deepest existing ancestor. `None` when the document cannot be reached (a parse error before
/// it, or fewer documents).
pub(super) fn line_of(
    input: &str,
    options: &DecodeOptions,
    document: usize,
    path: &[PathSegment],
) -> Option<usize> {
    let mut parser_options = serde_saphyr::granit_parser::Options::default();
    parser_options.flow_nesting_limit = options.max_depth;
    parser_options.block_nesting_limit = parser_options
        .block_nesting_limit
        .max(options.max_depth.saturating_add(1));
    let events = Parser::new_from_str_with_options(input, parser_options);
    // Every node is at least one event: the walk is bounded like the parse that preceded it.
    let max_events = options.max_nodes.saturating_mul(2).saturating_add(16);

    let mut documents_seen = 0usize;
    // Inside the wanted document?
    let mut walking = false;
    // At a document's root, before its first node?
    let mut at_root = false;
    let mut stack: Vec<Frame> = Vec::new();
    let mut best: Option<(usize, usize)> = None; // (matched depth, line)

    for event in events.take(max_events) {
        let Ok((event, span)) = event else {
            break;
        };
        let line = span.start.line();
        let is_collection = matches!(event, Event::SequenceStart(..) | Event::MappingStart(..));
        match event {
            Event::DocumentStart(..) => {
                at_root = true;
                stack.clear();
                continue;
            }
            Event::DocumentEnd => {
                if walking {
                    break;
                }
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                stack.pop();
                complete_child(&mut stack);
                continue;
            }
            Event::Scalar(ref value, style, _, ref tag) if at_root => {
                // A root that serde-saphyr skips as an empty document is not counted.
                at_root = false;
                if !is_null_root(value, style, tag.as_deref()) {
                    if documents_seen == document {
                        return Some(line).filter(|&l| l > 0);
                    }
                    documents_seen += 1;
                }
                continue;
            }
            Event::Scalar(..)
            | Event::SequenceStart(..)
            | Event::MappingStart(..)
            | Event::Alias(..) => {}
            _ => continue,
        }
        if at_root {
            at_root = false;
            walking = documents_seen == document;
            documents_seen += 1;
        }
        if walking {
            let is_key = stack
                .last()
                .is_some_and(|f| f.index.is_none() && f.expect_key);
            if is_key {
                if let (Some(top), Event::Scalar(value, ..)) = (stack.last_mut(), &event) {
                    top.key = Some(value.to_string());
                } else if let Some(top) = stack.last_mut() {
                    top.key = None;
                }
            } else {
                let depth = stack.len();
                let on_path = depth <= path.len()
                    && stack
                        .iter()
                        .zip(path)
                        .all(|(frame, seg)| frame.matches(seg));
                if on_path && best.is_none_or(|(d, _)| depth > d) {
                    best = Some((depth, line));
                    if depth == path.len() {
                        break;
                    }
                }
            }
            if is_collection {
                if stack.len() >= options.max_depth {
                    break;
                }
                let in_key = is_key || stack.last().is_some_and(|f| f.in_key);
                stack.push(Frame {
                    index: matches!(event, Event::SequenceStart(..)).then_some(0),
                    key: None,
                    expect_key: true,
                    in_key,
                });
            } else {
                complete_child(&mut stack);
            }
        }
    }
    best.map(|(_, line)| line).filter(|&l| l > 0)
}

/// A node just ended inside the collection on top of `stack` (or at the root).
fn complete_child(stack: &mut [Frame]) {
    if let Some(top) = stack.last_mut() {
        top.advance();
    }
}

/// Whether a document's root scalar makes it one serde-saphyr skips: untagged plain null-like
/// text, or an explicit `!!null`.
fn is_null_root(value: &str, style: ScalarStyle, tag: Option<&Tag>) -> bool {
    match tag {
        None => style == ScalarStyle::Plain && matches!(value, "" | "~" | "null" | "Null" | "NULL"),
        Some(tag) => tag.handle() == "tag:yaml.org,2002:" && tag.suffix() == "null",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(segments: &[&str]) -> Vec<PathSegment> {
        PathSegment::parse_all(segments)
    }

    #[test]
    fn finds_nested_nodes_in_the_right_document_and_falls_back_to_ancestors() {
        let text = "a: 1\n---\n---\nspec:\n  rules:\n  - port: x\n    name: [a,\n      b]\n";
        let o = DecodeOptions::default();
        // The empty document between the two is not counted.
        assert_eq!(
            line_of(text, &o, 1, &path(&["spec", "rules", "0", "port"])),
            Some(6)
        );
        assert_eq!(
            line_of(text, &o, 1, &path(&["spec", "rules", "0", "name", "1"])),
            Some(8)
        );
        // The value of `spec` (a block mapping) starts at its first key.
        assert_eq!(line_of(text, &o, 1, &path(&["spec", "missing"])), Some(5));
        assert_eq!(line_of(text, &o, 1, &path(&[])), Some(4));
        assert_eq!(line_of(text, &o, 0, &path(&["a"])), Some(1));
        assert_eq!(line_of(text, &o, 2, &path(&["a"])), None);
    }

    // The documents counted are those serde-saphyr yields: empty, plain null-like and `!!null`
    // roots are skipped; quoted or otherwise tagged null-like roots count.
    #[test]
    fn documents_are_counted_as_serde_saphyr_counts_them() {
        let text = "--- !!null\n--- ~\n---\n--- null\n--- 'null'\n--- !x null\n---\na: 1\n";
        let o = DecodeOptions::default();
        let mut reader = text.as_bytes();
        let saphyr: Vec<usize> =
            serde_saphyr::read::<_, serde_saphyr::Spanned<serde::de::IgnoredAny>>(&mut reader)
                .map(|d| d.unwrap().referenced.line() as usize)
                .collect();
        assert_eq!(saphyr, [5, 6, 8]);
        for (document, line) in saphyr.iter().enumerate() {
            assert_eq!(line_of(text, &o, document, &[]), Some(*line));
        }
        assert_eq!(line_of(text, &o, 2, &path(&["a"])), Some(8));
    }

    #[test]
    fn complex_keys_and_numeric_keys_do_not_confuse_the_walk() {
        let text = "? [port]\n: 1\nlabels:\n  \"3\": x\nport:\n  7\n";
        let o = DecodeOptions::default();
        assert_eq!(line_of(text, &o, 0, &path(&["labels", "3"])), Some(4));
        assert_eq!(line_of(text, &o, 0, &path(&["port"])), Some(6));
    }

    #[test]
    fn deep_documents_are_walked_without_recursion() {
        // 64 levels (the default max_depth): the old span tree overflowed here in debug builds.
        let text = format!("a: {}1{}\n", "[".repeat(63), "]".repeat(63));
        let o = DecodeOptions::default();
        let deep: Vec<&str> = std::iter::once("a")
            .chain(std::iter::repeat_n("0", 63))
            .collect();
        assert_eq!(line_of(&text, &o, 0, &path(&deep)), Some(1));
    }
}
