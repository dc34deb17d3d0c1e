//! Which CEL rules the cases exercised: a rule counts as violated when the API server refused a
//! case with a cause at the rule's node carrying its message (several nodes share a message:
//! the filter rules of `rules[].filters` and `rules[].backendRefs[].filters`), and as satisfied
//! when it accepted a case in which the rule's node is present (the server evaluates every rule
//! of every present node, so all of them held).

use std::collections::BTreeSet;

use serde_json::Value;

use super::server::Cause;

/// One `x-kubernetes-validations` rule of a CRD version.
pub struct Rule {
    /// `group/version kind`.
    pub owner: String,
    /// The node's path with `[]` for list items and map entries (as [`shape`] writes a
    /// server's field path).
    pub node: String,
    /// What the server says when it fails: the rule's `message`, else `failed rule: <rule>`.
    pub message: String,
    /// Rules comparing with `oldSelf` are only evaluated on updates.
    pub transition: bool,
}

impl Rule {
    /// Whether the server's causes name this rule: a cause at the rule's node (list indexes
    /// and map keys ignored) with the rule's message.
    pub fn broken_by(&self, causes: &[Cause]) -> bool {
        causes
            .iter()
            .any(|c| shape(&c.field) == self.node && c.message.contains(&self.message))
    }

    /// The rule as people read it in a coverage report.
    pub fn title(&self) -> String {
        format!("{} {}: {}", self.owner, self.node, self.message)
    }
}

/// A concrete field path (`spec.rules[0].filters`, `spec.infrastructure.labels[a/b]`) as a
/// node shape (`spec.rules[].filters`, `spec.infrastructure.labels[]`).
pub fn shape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut depth = 0_usize;
    for c in field.chars() {
        match c {
            '[' => {
                if depth == 0 {
                    out.push_str("[]");
                }
                depth += 1;
            }
            ']' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    out
}

/// Every rule of a schema, in schema order.
pub fn rules(owner: &str, schema: &Value) -> Vec<Rule> {
    let mut out = Vec::new();
    collect(owner, schema, String::new(), &mut out);
    out
}

fn collect(owner: &str, schema: &Value, node: String, out: &mut Vec<Rule>) {
    for r in schema["x-kubernetes-validations"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let rule = r["rule"].as_str().unwrap_or_default();
        let message = match r["message"].as_str() {
            Some(m) => m.to_owned(),
            None => format!("failed rule: {rule}"),
        };
        out.push(Rule {
            owner: owner.to_owned(),
            node: node.clone(),
            message,
            transition: rule.contains("oldSelf"),
        });
    }
    let join = |k: &str| {
        if node.is_empty() {
            k.to_owned()
        } else {
            format!("{node}.{k}")
        }
    };
    for (k, s) in schema["properties"].as_object().into_iter().flatten() {
        collect(owner, s, join(k), out);
    }
    if schema["items"].is_object() {
        collect(owner, &schema["items"], format!("{node}[]"), out);
    }
    if schema["additionalProperties"].is_object() {
        collect(
            owner,
            &schema["additionalProperties"],
            format!("{node}[]"),
            out,
        );
    }
}

/// The shapes (as in [`Rule::node`]) of every node present in `value`.
pub fn present_nodes(value: &Value, schema: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk(value, schema, String::new(), &mut out);
    out
}

fn walk(value: &Value, schema: &Value, node: String, out: &mut BTreeSet<String>) {
    if value.is_null() {
        return;
    }
    out.insert(node.clone());
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                let s = &schema["properties"][k.as_str()];
                if s.is_object() {
                    let n = if node.is_empty() {
                        k.clone()
                    } else {
                        format!("{node}.{k}")
                    };
                    walk(v, s, n, out);
                } else if schema["additionalProperties"].is_object() {
                    walk(v, &schema["additionalProperties"], format!("{node}[]"), out);
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                walk(v, &schema["items"], format!("{node}[]"), out);
            }
        }
        _ => {}
    }
}
