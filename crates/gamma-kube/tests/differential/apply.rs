//! Building a case's object: the base, the node made present, the change applied.

use serde_json::{Map, Value, json};

use super::generate::{Members, Mutation, Op, Seg, minimal};

/// The schema of the node at `path` (`Value::Null` past the schema, e.g. inside `metadata`).
pub fn schema_at<'a>(schema: &'a Value, path: &[Seg]) -> &'a Value {
    path.iter().fold(schema, |s, seg| match seg {
        Seg::Field(k) => &s["properties"][k.as_str()],
        Seg::Item => &s["items"],
        Seg::Key => &s["additionalProperties"],
    })
}

/// The node at `path`, created (with the smallest valid-looking values) where missing.
pub fn ensure<'a>(mut v: &'a mut Value, mut schema: &Value, path: &[Seg]) -> &'a mut Value {
    for seg in path {
        match seg {
            Seg::Field(k) => {
                schema = &schema["properties"][k.as_str()];
                if !v.is_object() {
                    *v = json!({});
                }
                let m = v.as_object_mut().unwrap();
                v = m.entry(k.clone()).or_insert_with(|| minimal(schema));
                if v.is_null() {
                    *v = minimal(schema);
                }
            }
            Seg::Item => {
                schema = &schema["items"];
                if !v.is_array() {
                    *v = json!([]);
                }
                let items = v.as_array_mut().unwrap();
                if items.is_empty() {
                    items.push(minimal(schema));
                }
                v = &mut items[0];
            }
            Seg::Key => {
                schema = &schema["additionalProperties"];
                if !v.is_object() {
                    *v = json!({});
                }
                let m = v.as_object_mut().unwrap();
                if m.is_empty() {
                    m.insert("a".into(), minimal(schema));
                }
                let first = m.keys().next().unwrap().clone();
                v = m.get_mut(&first).unwrap();
            }
        }
    }
    v
}

/// How much of `path` already exists in `v` (a base with more of it present is preferred).
pub fn present_depth(v: &Value, path: &[Seg]) -> usize {
    let mut v = v;
    for (i, seg) in path.iter().enumerate() {
        let next = match seg {
            Seg::Field(k) => v.get(k.as_str()),
            Seg::Item => v.get(0),
            Seg::Key => v.as_object().and_then(|m| m.values().next()),
        };
        match next {
            Some(n) if !n.is_null() => v = n,
            _ => return i,
        }
    }
    path.len()
}

/// `item` made different from the other copies of a list: its own strings and numbers get
/// the copy's index (keys of `listType=map` lists and items of sets are then unique).
fn distinct(item: &Value, i: usize, schema: &Value) -> Value {
    if i == 0 {
        return item.clone();
    }
    match item {
        Value::String(s) => {
            let max = schema["maxLength"].as_u64().unwrap_or(u64::MAX) as usize;
            let suffix = i.to_string();
            let mut s = s.clone();
            while s.chars().count() + suffix.len() > max && !s.is_empty() {
                s.pop();
            }
            json!(format!("{s}{suffix}"))
        }
        Value::Number(n) => match n.as_i64() {
            Some(n) => json!(n + i as i64),
            None => item.clone(),
        },
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, v) in m {
                let s = &schema["properties"][k.as_str()];
                let changed = match v {
                    Value::String(_) | Value::Number(_) if s["enum"].is_null() => distinct(v, i, s),
                    _ => v.clone(),
                };
                out.insert(k.clone(), changed);
            }
            Value::Object(out)
        }
        _ => item.clone(),
    }
}

/// `members` set (or removed, for `None`) on `node`, made an object first if it is not one.
fn set_members(node: &mut Value, members: &Members) {
    if !node.is_object() {
        *node = json!({});
    }
    let o = node.as_object_mut().unwrap();
    for (k, value) in members {
        match value {
            Some(value) => {
                o.insert(k.clone(), value.clone());
            }
            None => {
                o.remove(k);
            }
        }
    }
}

/// The case's object: `base` with the mutation applied.
pub fn apply(base: &Value, schema: &Value, m: &Mutation) -> Value {
    let mut v = base.clone();
    let node_schema = schema_at(schema, &m.path);
    let node = ensure(&mut v, schema, &m.path);
    match &m.op {
        Op::Set(value) => *node = value.clone(),
        Op::Remove(k) => {
            if let Some(o) = node.as_object_mut() {
                o.remove(k);
            }
        }
        Op::Members(members) => set_members(node, members),
        Op::Items(n) => {
            let items_schema = &node_schema["items"];
            let first = node
                .get(0)
                .cloned()
                .unwrap_or_else(|| minimal(items_schema));
            *node = Value::Array((0..*n).map(|i| distinct(&first, i, items_schema)).collect());
        }
        Op::Repeat => {
            let first = node
                .get(0)
                .cloned()
                .unwrap_or_else(|| minimal(&node_schema["items"]));
            *node = json!([first.clone(), first]);
        }
        Op::Pair(k) => {
            let items_schema = &node_schema["items"];
            let first = node
                .get(0)
                .cloned()
                .unwrap_or_else(|| minimal(items_schema));
            let mut second = first.clone();
            if let Some(o) = second.as_object_mut()
                && o.remove(k).is_none()
            {
                o.insert(k.clone(), minimal(&items_schema["properties"][k.as_str()]));
            }
            *node = json!([first, second]);
        }
        Op::Copies(copies) => {
            let first = node
                .get(0)
                .cloned()
                .unwrap_or_else(|| minimal(&node_schema["items"]));
            let items = copies
                .iter()
                .map(|members| {
                    let mut item = first.clone();
                    set_members(&mut item, members);
                    item
                })
                .collect();
            *node = Value::Array(items);
        }
        Op::Entries(n) => {
            let value = minimal(&node_schema["additionalProperties"]);
            let mut m = Map::new();
            for i in 0..*n {
                m.insert(format!("k{i}"), value.clone());
            }
            *node = Value::Object(m);
        }
    }
    v
}
