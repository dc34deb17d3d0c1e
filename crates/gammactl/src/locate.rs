//! Finding the line of a field path (`spec.rules[1].matches[0].path.value`) in the text of a
//! block-style YAML document, so a validation error points at the offending line rather than at
//! the start of its object.
//!
//! Best effort by design: it follows indentation and `- ` items, the shape `kubectl` and most
//! people write. When the path enters flow style (`{...}`, `[...]`) or cannot be followed, it
//! answers the deepest line it reached, which is still the right neighbourhood.

/// One path step.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step<'a> {
    Field(&'a str),
    Index(usize),
}

/// Splits `a.b[2].c[key]` into steps. Bracketed non-numbers are map keys (`labels[app]`).
fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (head, mut rest) = match part.find('[') {
            Some(i) => part.split_at(i),
            None => (part, ""),
        };
        if !head.is_empty() {
            out.push(Step::Field(head));
        }
        while let Some(stripped) = rest.strip_prefix('[') {
            let Some(end) = stripped.find(']') else { break };
            let inner = &stripped[..end];
            out.push(match inner.parse::<usize>() {
                Ok(i) => Step::Index(i),
                Err(_) => Step::Field(inner),
            });
            rest = &stripped[end + 1..];
        }
    }
    out
}

/// A content line: its indentation, and where its mapping content starts (after `- ` for
/// sequence items).
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    /// 1-based line number in the document text.
    number: usize,
    /// Column of the first non-space character.
    col: usize,
    /// Whether the line starts a sequence item.
    dash: bool,
    /// Column and text of the content after the dash (or the whole content).
    content_col: usize,
    content: &'a str,
}

fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("---") {
            continue;
        }
        let col = raw.len() - trimmed.len();
        let (dash, content_col, content) = if trimmed == "-" {
            (true, col + 1, "")
        } else if let Some(rest) = trimmed.strip_prefix("- ") {
            let rest_trim = rest.trim_start_matches(' ');
            (true, col + 2 + (rest.len() - rest_trim.len()), rest_trim)
        } else {
            (false, col, trimmed)
        };
        out.push(Line {
            number: i + 1,
            col,
            dash,
            content_col,
            content,
        });
    }
    out
}

fn is_key(content: &str, key: &str) -> bool {
    for quoted in [
        content.strip_prefix(key),
        content
            .strip_prefix('"')
            .and_then(|c| c.strip_prefix(key))
            .and_then(|c| c.strip_prefix('"')),
        content
            .strip_prefix('\'')
            .and_then(|c| c.strip_prefix(key))
            .and_then(|c| c.strip_prefix('\'')),
    ]
    .into_iter()
    .flatten()
    {
        if let Some(after) = quoted.strip_prefix(':')
            && (after.is_empty() || after.starts_with(' '))
        {
            return true;
        }
    }
    false
}

/// The 1-based line (within `text`) of the value at `path`, or of the deepest ancestor that
/// could be found; `None` when not even the first step is found.
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    let all = lines(text);
    let steps = steps(path);
    // The current node: lines[from..to], whose entries sit at column `indent`.
    let mut from = 0usize;
    let mut to = all.len();
    let mut indent = all.first().map(|l| l.content_col)?;
    let mut best: Option<usize> = None;
    for step in steps {
        let node = all.get(from..to)?;
        match step {
            Step::Field(key) => {
                let Some(pos) = node.iter().position(|l| {
                    (l.content_col == indent && is_key(l.content, key))
                        || (!l.dash && l.col == indent && is_key(l.content, key))
                }) else {
                    return best;
                };
                let key_line = node.get(pos)?;
                best = Some(key_line.number);
                let start = from + pos + 1;
                // The value runs until a line at or left of the key's column, except that a
                // sequence may sit at the key's own column (`rules:\n- ...`).
                let end = all
                    .get(start..to)?
                    .iter()
                    .position(|l| l.col < indent || (l.col == indent && !l.dash))
                    .map_or(to, |p| start + p);
                let Some(first) = all.get(start..end).and_then(|s| s.first()) else {
                    return best; // inline or flow value: the key line is as deep as we get
                };
                from = start;
                to = end;
                indent = if first.dash {
                    first.col
                } else {
                    first.content_col
                };
            }
            Step::Index(i) => {
                let items: Vec<usize> = node
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.dash && l.col == indent)
                    .map(|(p, _)| from + p)
                    .collect();
                let Some(&start) = items.get(i) else {
                    return best;
                };
                let end = items.get(i + 1).copied().unwrap_or(to);
                let item = all.get(start)?;
                best = Some(item.number);
                from = start;
                to = end;
                indent = item.content_col;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUTE: &str = "\
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: cart
  labels:
    app: cart
spec:
  parentRefs: [{group: \"\", kind: Service, name: cart}]
  rules:
  - matches:
    - path:
        type: PathPrefix
        value: /a
    - path:
        value: b
    backendRefs:
    - name: cart
      port: 80
  - backendRefs:
      - name: other
";

    #[test]
    fn steps_split_fields_indexes_and_keys() {
        assert_eq!(
            steps("spec.rules[1].matches[0]"),
            vec![
                Step::Field("spec"),
                Step::Field("rules"),
                Step::Index(1),
                Step::Field("matches"),
                Step::Index(0)
            ]
        );
        assert_eq!(
            steps("metadata.labels[app]"),
            vec![
                Step::Field("metadata"),
                Step::Field("labels"),
                Step::Field("app")
            ]
        );
    }

    #[test]
    fn finds_nested_fields_through_sequence_items() {
        assert_eq!(
            line_of(ROUTE, "spec.rules[0].matches[1].path.value"),
            Some(15)
        );
        assert_eq!(
            line_of(ROUTE, "spec.rules[0].matches[0].path.value"),
            Some(13)
        );
        assert_eq!(
            line_of(ROUTE, "spec.rules[0].backendRefs[0].port"),
            Some(18)
        );
        assert_eq!(
            line_of(ROUTE, "spec.rules[1].backendRefs[0].name"),
            Some(20)
        );
        assert_eq!(line_of(ROUTE, "metadata.labels[app]"), Some(6));
    }

    #[test]
    fn flow_values_answer_the_key_line() {
        assert_eq!(line_of(ROUTE, "spec.parentRefs[0].name"), Some(8));
    }

    #[test]
    fn missing_fields_answer_the_deepest_ancestor() {
        assert_eq!(line_of(ROUTE, "spec.rules[0].timeouts.request"), Some(10));
        assert_eq!(line_of(ROUTE, "spec.rules[7]"), Some(9));
        assert_eq!(line_of(ROUTE, "status"), None);
    }

    proptest::proptest! {
        // Bad input never panics, and an answer is always a line of the text.
        #[test]
        fn any_text_and_path_give_a_line_inside_the_text_or_none(
            text in "([a-z]{0,3}:? ?|- |  |\\[|\\{|#|\n){0,60}",
            path in "([a-z]{1,3}|\\[[0-9]\\]|\\.){0,8}",
        ) {
            if let Some(line) = line_of(&text, &path) {
                proptest::prop_assert!(line >= 1 && line <= text.lines().count());
            }
        }
    }
}
