//! JSON input: a linear pre-scan that enforces the depth and node limits before `serde_json`
//! builds anything, and finds the lines of objects and of field-error nodes (`serde_json` keeps
//! no positions in a `Value`).
//!
//! The scanner is lenient: it tokenizes just enough to track nesting, keys and array indices,
//! never fails on malformed text (that is `serde_json`'s job, which runs next), and does O(1)
//! work per byte.

use std::collections::BTreeMap;

use serde_json::Value;

use super::error::{DecodeError, Limit, Position, depth_message};
use super::options::DecodeOptions;
use super::{PathSegment, RawDocument};

/// One open container during a scan.
#[derive(Debug, Clone, Copy)]
struct Frame {
    array: bool,
    /// The index of the current element (arrays).
    index: usize,
    /// The byte range of the current key's content, without quotes (objects).
    key: Option<(usize, usize)>,
    /// Whether the next string in this object is a key.
    expect_key: bool,
}

/// What to do after a value start.
enum Flow {
    Continue,
    Stop,
}

/// Why a scan stopped early.
enum Stop {
    Depth { line: usize },
    Nodes { line: usize },
}

struct Scanner<'a> {
    text: &'a str,
    stack: Vec<Frame>,
}

impl<'a> Scanner<'a> {
    fn key(&self, frame: &Frame) -> Option<&'a str> {
        let (start, end) = frame.key?;
        self.text.get(start..end)
    }

    /// Walks the text, calling `on_value(scanner, line)` at the start of every value (the
    /// stack then describes the value's path).
    fn run(
        text: &'a str,
        max_depth: usize,
        max_nodes: usize,
        mut on_value: impl FnMut(&Scanner<'a>, usize) -> Flow,
    ) -> Result<(), Stop> {
        let mut s = Scanner {
            text,
            stack: Vec::new(),
        };
        let bytes = text.as_bytes();
        let mut line = 1usize;
        let mut nodes = 0usize;
        let mut i = 0usize;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\n' => {
                    line += 1;
                    i += 1;
                }
                b' ' | b'\t' | b'\r' | b':' => i += 1,
                b',' => {
                    if let Some(top) = s.stack.last_mut() {
                        if top.array {
                            top.index += 1;
                        } else {
                            top.expect_key = true;
                        }
                    }
                    i += 1;
                }
                b'"' => {
                    let start = i + 1;
                    let mut j = start;
                    while let Some(&c) = bytes.get(j) {
                        match c {
                            b'\\' => j += 2,
                            b'"' => break,
                            b'\n' => {
                                line += 1;
                                j += 1;
                            }
                            _ => j += 1,
                        }
                    }
                    let end = j.min(bytes.len());
                    nodes += 1;
                    if nodes > max_nodes {
                        return Err(Stop::Nodes { line });
                    }
                    let is_key = matches!(s.stack.last(), Some(f) if !f.array && f.expect_key);
                    if is_key {
                        if let Some(top) = s.stack.last_mut() {
                            top.key = Some((start, end));
                            top.expect_key = false;
                        }
                    } else if let Flow::Stop = on_value(&s, line) {
                        return Ok(());
                    }
                    i = end + 1;
                }
                b'{' | b'[' => {
                    nodes += 1;
                    if nodes > max_nodes {
                        return Err(Stop::Nodes { line });
                    }
                    if let Flow::Stop = on_value(&s, line) {
                        return Ok(());
                    }
                    if s.stack.len() >= max_depth {
                        return Err(Stop::Depth { line });
                    }
                    s.stack.push(Frame {
                        array: b == b'[',
                        index: 0,
                        key: None,
                        expect_key: b == b'{',
                    });
                    i += 1;
                }
                b'}' | b']' => {
                    s.stack.pop();
                    i += 1;
                }
                _ => {
                    // A literal or number: one value, up to the next delimiter.
                    nodes += 1;
                    if nodes > max_nodes {
                        return Err(Stop::Nodes { line });
                    }
                    if let Flow::Stop = on_value(&s, line) {
                        return Ok(());
                    }
                    while let Some(&c) = bytes.get(i) {
                        if matches!(
                            c,
                            b',' | b'}' | b']' | b':' | b'"' | b' ' | b'\t' | b'\r' | b'\n'
                        ) {
                            break;
                        }
                        i += 1;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The deepest nesting `serde_json` parses (its recursion limit of 128 refuses the 128th
/// level).
const SERDE_JSON_MAX_DEPTH: usize = 127;

/// The depth limit for JSON input: `max_depth`, capped at what `serde_json` parses, so that
/// input `serde_json` would refuse with its own (untyped) recursion error is refused by the
/// pre-scan with [`Limit::Depth`] instead.
fn max_depth(options: &DecodeOptions) -> usize {
    options.max_depth.min(SERDE_JSON_MAX_DEPTH)
}

/// The lines of the parts of a JSON input that become documents.
#[derive(Debug, Default)]
struct Lines {
    root: Option<usize>,
    /// Elements of a top-level array.
    elements: Vec<usize>,
    /// `items` entries of List objects: (element, item) -> line; element 0 for a root object.
    items: BTreeMap<(usize, usize), usize>,
}

fn index(input: &str, options: &DecodeOptions) -> Result<Lines, DecodeError> {
    let mut lines = Lines::default();
    let result = Scanner::run(input, max_depth(options), options.max_nodes, |s, line| {
        let st = &s.stack;
        match st.as_slice() {
            [] => lines.root = Some(line),
            [root] if root.array => lines.elements.push(line),
            [root, items] if !root.array && items.array && s.key(root) == Some("items") => {
                lines.items.insert((0, items.index), line);
            }
            [root, elem, items]
                if root.array && !elem.array && items.array && s.key(elem) == Some("items") =>
            {
                lines.items.insert((root.index, items.index), line);
            }
            _ => {}
        }
        Flow::Continue
    });
    let at = |line: usize| Position::new(document_at(&lines.elements, line), None, Some(line));
    match result {
        Ok(()) => Ok(lines),
        Err(Stop::Depth { line }) => Err(DecodeError::LimitExceeded {
            at: at(line),
            limit: Limit::Depth,
            message: depth_message(max_depth(options)),
        }),
        Err(Stop::Nodes { line }) => Err(DecodeError::LimitExceeded {
            at: at(line),
            limit: Limit::Nodes,
            message: format!("more than {} nodes", options.max_nodes),
        }),
    }
}

/// The element of a top-level array that a line falls in (0 if none).
fn document_at(elements: &[usize], line: usize) -> usize {
    elements
        .partition_point(|&start| start <= line)
        .saturating_sub(1)
}

/// Parses JSON input: one object, or an array of objects.
pub(super) fn parse(input: &str, options: &DecodeOptions) -> Result<Vec<RawDocument>, DecodeError> {
    let lines = index(input, options)?;
    if lines.elements.len() > options.max_documents {
        let line = lines.elements.get(options.max_documents).copied();
        return Err(DecodeError::LimitExceeded {
            at: Position::new(options.max_documents, None, line),
            limit: Limit::Documents,
            message: format!("more than {} documents", options.max_documents),
        });
    }
    let value: Value = serde_json::from_str(input).map_err(|e| {
        let line = e.line();
        DecodeError::Syntax {
            at: Position::new(document_at(&lines.elements, line), None, Some(line)),
            message: e.to_string(),
        }
    })?;
    let item_lines = |element: usize| -> Vec<usize> {
        lines
            .items
            .range((element, 0)..(element, usize::MAX))
            .map(|(_, &line)| line)
            .collect()
    };
    Ok(match value {
        Value::Array(elements) => elements
            .into_iter()
            .enumerate()
            .map(|(i, value)| RawDocument {
                index: i,
                line: lines.elements.get(i).copied(),
                item_lines: item_lines(i),
                value,
            })
            .collect(),
        value => vec![RawDocument {
            index: 0,
            line: lines.root,
            item_lines: item_lines(0),
            value,
        }],
    })
}

/// The line of the node at `path` in JSON `input` (the document's own path first: its array
/// index when the input is an array), or of its deepest existing ancestor.
pub(super) fn line_of(input: &str, options: &DecodeOptions, path: &[PathSegment]) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None; // (matched depth, line)
    let _ = Scanner::run(input, max_depth(options), options.max_nodes, |s, line| {
        let depth = s.stack.len();
        if depth > path.len() {
            return Flow::Continue;
        }
        let matches = s.stack.iter().zip(path).all(|(frame, seg)| match seg {
            PathSegment::Index(i) if frame.array => frame.index == *i,
            // `labels[3]` in a validation path is the key "3".
            PathSegment::Index(i) => key_equals(s, frame, &i.to_string()),
            PathSegment::Key(k) => !frame.array && key_equals(s, frame, k),
        });
        if matches && best.is_none_or(|(d, _)| depth > d) {
            best = Some((depth, line));
            if depth == path.len() {
                return Flow::Stop;
            }
        }
        Flow::Continue
    });
    best.map(|(_, line)| line)
}

fn key_equals(s: &Scanner<'_>, frame: &Frame, want: &str) -> bool {
    let Some(raw) = s.key(frame) else {
        return false;
    };
    if !raw.contains('\\') {
        return raw == want;
    }
    serde_json::from_str::<String>(&format!("\"{raw}\"")).is_ok_and(|k| k == want)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(segments: &[&str]) -> Vec<PathSegment> {
        PathSegment::parse_all(segments)
    }

    #[test]
    fn line_of_finds_nested_nodes_and_falls_back_to_the_deepest_ancestor() {
        let text =
            "[\n {\"a\": 1},\n {\"spec\": {\n   \"rules\": [\n     {\"port\": \"x\"}\n   ]\n }}\n]";
        let o = DecodeOptions::default();
        assert_eq!(
            line_of(text, &o, &path(&["1", "spec", "rules", "0", "port"])),
            Some(5)
        );
        assert_eq!(line_of(text, &o, &path(&["1", "spec", "missing"])), Some(3));
        assert_eq!(line_of(text, &o, &path(&["0", "a"])), Some(2));
    }

    #[test]
    fn escaped_keys_and_strings_do_not_confuse_the_scanner() {
        let text = "{\"k\\\"ey\": \"a,]}\\\"\",\n \"b\": [1,\n 2]}";
        let o = DecodeOptions::default();
        assert_eq!(line_of(text, &o, &path(&["b", "1"])), Some(3));
        assert_eq!(line_of(text, &o, &path(&["k\"ey"])), Some(1));
    }

    #[test]
    fn list_items_and_array_elements_get_their_lines() {
        let text = "[\n{\"kind\":\"List\",\"items\":[\n{},\n{}]},\n{}\n]";
        let lines = index(text, &DecodeOptions::default()).ok().unwrap();
        assert_eq!(lines.elements, vec![2, 5]);
        assert_eq!(lines.items.get(&(0, 1)), Some(&4));
    }
}
