//! The core kinds gamma-rs reads (Service, Namespace, EndpointSlice) have no CRD: their field
//! names come from the API server's own OpenAPI v3 document (`/openapi/v3/api/v1`,
//! `/openapi/v3/apis/discovery.k8s.io/v1`). gamma-model embeds them, reduced to field names
//! ([`field_schema`]), to report unknown fields as strict decoding does; this module derives
//! that reduction from a live server and generates unknown-field cases from it.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// The core kinds and their OpenAPI component names.
pub const KINDS: &[(&str, &str)] = &[
    ("EndpointSlice", "io.k8s.api.discovery.v1.EndpointSlice"),
    ("Namespace", "io.k8s.api.core.v1.Namespace"),
    ("Service", "io.k8s.api.core.v1.Service"),
];

/// The field schema gamma-model embeds: `{"kinds": {Kind: {"$ref"}}, "$defs": {...}}`, each
/// node only `properties`, `items`, `additionalProperties` or a `$ref`, everything reachable
/// from the kinds but `metadata` (checked against the whole `ObjectMeta` by name).
pub fn field_schema(components: &Map<String, Value>) -> Value {
    let mut defs: BTreeMap<String, Value> = BTreeMap::new();
    let mut todo: Vec<String> = KINDS.iter().map(|(_, n)| (*n).to_owned()).collect();
    while let Some(name) = todo.pop() {
        if defs.contains_key(&name) {
            continue;
        }
        let node = match components.get(&name) {
            Some(s) => reduce(s, &mut todo, true),
            None => json!({}),
        };
        defs.insert(name, node);
    }
    let kinds: Map<String, Value> = KINDS
        .iter()
        .map(|(k, n)| ((*k).to_owned(), json!({"$ref": format!("#/$defs/{n}")})))
        .collect();
    json!({"kinds": kinds, "$defs": defs})
}

fn reference(schema: &Value) -> Option<&str> {
    let r = schema.get("$ref").or_else(|| {
        schema
            .get("allOf")
            .and_then(Value::as_array)
            .filter(|a| a.len() == 1)
            .and_then(|a| a[0].get("$ref"))
    })?;
    r.as_str()?.strip_prefix("#/components/schemas/")
}

fn reduce(schema: &Value, todo: &mut Vec<String>, root: bool) -> Value {
    if let Some(name) = reference(schema) {
        todo.push(name.to_owned());
        return json!({"$ref": format!("#/$defs/{name}")});
    }
    let mut out = Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let reduced: Map<String, Value> = props
            .iter()
            .map(|(k, s)| {
                let node = if root && k == "metadata" {
                    json!({})
                } else {
                    reduce(s, todo, false)
                };
                (k.clone(), node)
            })
            .collect();
        out.insert("properties".into(), Value::Object(reduced));
    }
    if let Some(items) = schema.get("items").filter(|s| s.is_object()) {
        out.insert("items".into(), reduce(items, todo, false));
    }
    if let Some(add) = schema.get("additionalProperties").filter(|s| s.is_object()) {
        out.insert("additionalProperties".into(), reduce(add, todo, false));
    }
    Value::Object(out)
}

/// Paths (JSON pointers' segments, `0` for the first item, `k` for a map entry) to every
/// object node of `kind` in the field schema, and an unknown-field case on each: the node
/// created where missing (`{}` objects, one-item lists) with a member `zzUnknown`.
pub fn unknown_field_objects(schema: &Value, kind: &str, base: &Value) -> Vec<(String, Value)> {
    let defs = &schema["$defs"];
    let mut paths = Vec::new();
    let root = &schema["kinds"][kind];
    collect(defs, root, Vec::new(), &mut paths, 0);
    paths
        .into_iter()
        .map(|path| {
            let mut object = base.clone();
            let mut node = &mut object;
            for seg in &path {
                node = match seg.as_str() {
                    "[0]" => {
                        if !node.is_array() || node.as_array().is_some_and(Vec::is_empty) {
                            *node = json!([{}]);
                        }
                        &mut node[0]
                    }
                    k => {
                        if !node.is_object() {
                            *node = json!({});
                        }
                        node.as_object_mut()
                            .unwrap()
                            .entry(k.to_owned())
                            .or_insert_with(|| json!({}))
                    }
                };
            }
            if !node.is_object() {
                *node = json!({});
            }
            node["zzUnknown"] = json!(1);
            let label = format!("{}.zzUnknown", path.join(".").replace(".[0]", "[0]"));
            (label, object)
        })
        .collect()
}

fn resolve<'a>(defs: &'a Value, mut s: &'a Value) -> &'a Value {
    for _ in 0..8 {
        match s
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
        {
            Some(name) => s = &defs[name],
            None => break,
        }
    }
    s
}

fn collect(defs: &Value, s: &Value, path: Vec<String>, out: &mut Vec<Vec<String>>, depth: usize) {
    // The core types nest a few levels (status.loadBalancer.ingress[].ports[]); a bound keeps
    // a recursive type from looping.
    if depth > 8 {
        return;
    }
    let s = resolve(defs, s);
    if let Some(props) = s.get("properties").and_then(Value::as_object) {
        // `metadata` is checked by name, as for the Gateway API kinds; at the root it is
        // covered by the CRD cases' `metadata.zzUnknown`.
        out.push(path.clone());
        for (k, sub) in props {
            if path.is_empty() && k == "metadata" {
                continue;
            }
            let mut p = path.clone();
            p.push(k.clone());
            collect(defs, sub, p, out, depth + 1);
        }
    } else if let Some(items) = s.get("items") {
        let mut p = path;
        p.push("[0]".into());
        collect(defs, items, p, out, depth + 1);
    }
}
