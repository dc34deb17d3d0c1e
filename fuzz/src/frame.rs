//! How a fuzzer input becomes a set of resources.
//!
//! The first byte picks the mode:
//! - odd: the bytes up to the first NUL are a manifest (YAML or JSON) decoded with
//!   `gamma_model::decode`; the objects it yields are turned into JSON values and then mutated by
//!   the remaining bytes (a field replaced by an edge value, deleted, or a list grown past its
//!   limit). Seed files built by `seed.sh` from the upstream examples and the sample manifests use
//!   this mode, so the fuzzer starts from realistic objects.
//! - even: every object is generated from scratch by [`crate::generate`].

use arbitrary::Unstructured;
use serde_json::Value;

use crate::generate::{self, Gen};

/// The most objects one input produces.
pub const MAX_OBJECTS: usize = 48;
/// The most generator nodes one input may spend.
pub const NODE_BUDGET: usize = 4_000;

/// The resources an input describes (as JSON values), and the bytes left for the target's own use.
pub fn resources<'a>(data: &'a [u8]) -> (Vec<Value>, Unstructured<'a>) {
    let Some((&mode, rest)) = data.split_first() else {
        return (Vec::new(), Unstructured::new(&[]));
    };
    if mode & 1 == 1 {
        let (text, tail) = match rest.iter().position(|b| *b == 0) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &[][..]),
        };
        let mut values = base_values(text);
        let mut u = Unstructured::new(tail);
        let mut g = Gen::new(&mut u, NODE_BUDGET);
        let n = g.below(8);
        for _ in 0..n {
            mutate(&mut g, &mut values);
        }
        drop(g);
        (values, u)
    } else {
        let mut u = Unstructured::new(rest);
        let mut g = Gen::new(&mut u, NODE_BUDGET);
        let n = 1 + g.below(MAX_OBJECTS);
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            if !g.live() {
                break;
            }
            values.push(generate::resource(&mut g));
        }
        drop(g);
        (values, u)
    }
}

/// The objects of a manifest as JSON values; nothing when it does not decode.
pub fn base_values(text: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(text);
    match gamma_model::decode(&text) {
        Ok(resources) => resources
            .iter()
            .filter_map(|r| serde_json::to_value(r).ok())
            .take(MAX_OBJECTS)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Applies one structural mutation somewhere in `values`.
pub fn mutate(g: &mut Gen, values: &mut Vec<Value>) {
    if values.is_empty() || g.chance(16) {
        values.push(generate::resource(g));
        return;
    }
    let i = g.below(values.len());
    let Some(root) = values.get_mut(i) else {
        return;
    };
    let target = descend(g, root);
    match g.below(6) {
        // Replace with an edge value of a plausible type.
        0 | 1 => *target = edge_value(g),
        // Remove a field.
        2 => {
            if let Value::Object(m) = target {
                if !m.is_empty() {
                    let k = g.below(m.len());
                    let key = m.keys().nth(k).cloned();
                    if let Some(key) = key {
                        m.remove(&key);
                    }
                }
            }
        }
        // Grow a list to a CRD limit (or one past it) by cloning its first item.
        3 => {
            if let Value::Array(items) = target {
                if let Some(first) = items.first().cloned() {
                    let to = g.pick(&[2usize, 8, 16, 17, 32, 33, 64, 65, 128, 129]);
                    while items.len() < to {
                        items.push(first.clone());
                    }
                }
            }
        }
        // Replace with anything at all.
        4 => *target = g.wild(),
        // Put a freshly generated parentRef, filter-bearing rule, etc. in an array.
        _ => {
            if let Value::Array(items) = target {
                items.push(generate::parent_ref(g));
            } else {
                *target = generate::condition(g);
            }
        }
    }
}

/// Walks from `v` to a random node.
fn descend<'v>(g: &mut Gen, v: &'v mut Value) -> &'v mut Value {
    descend_at(g, v, 12)
}

fn descend_at<'v>(g: &mut Gen, v: &'v mut Value, depth: usize) -> &'v mut Value {
    let len = match &*v {
        Value::Object(m) => m.len(),
        Value::Array(a) => a.len(),
        _ => 0,
    };
    if depth == 0 || len == 0 || g.chance(40) {
        return v;
    }
    let k = g.below(len);
    match v {
        Value::Object(m) => {
            let next = m.values_mut().nth(k).expect("k < len");
            descend_at(g, next, depth - 1)
        }
        Value::Array(a) => descend_at(g, &mut a[k], depth - 1),
        other => other,
    }
}

fn edge_value(g: &mut Gen) -> Value {
    match g.below(9) {
        0 => g.name(),
        1 => g.hostname(),
        2 => g.path(),
        3 => g.regex(),
        4 => g.port(),
        5 => g.weight(),
        6 => g.timestamp(),
        7 => g.header_name(),
        _ => g.duration(),
    }
}
