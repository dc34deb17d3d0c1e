//! The generator: objects derived from a CRD version's own schema, each a valid-looking base
//! with one thing changed.
//!
//! Per schema node it makes the values at, inside and one past every limit the node declares
//! (`minLength`/`maxLength`, `minimum`/`maximum`, `minItems`/`maxItems`, `maxProperties`),
//! every `enum` value and one outside it, probe strings for a `pattern` or `format`, the
//! numbers of class 8 (whole floats, int32 and int64 overflow), `null` for each property, the
//! removal of each property, an undeclared member of each object and a repeated item of each
//! list. Nodes carrying `x-kubernetes-validations` rules also get their optional properties
//! switched on one and two at a time under each value of their enum-typed siblings: the common
//! rule shapes (`has(self.x)` implications, the filter-type unions, `!(has(a) && has(b))`, type
//! switches) are then both violated and satisfied. Whether each rule was seen violated and
//! satisfied is measured, not assumed ([`crate::differential::coverage`]).

use serde_json::{Map, Value, json};

use super::crd::Version;

/// One step of a path into an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// An object member.
    Field(String),
    /// The first item of a list.
    Item,
    /// The entry `a` of a map (`additionalProperties`).
    Key,
}

/// What a case changes at its node.
#[derive(Clone, Debug)]
pub enum Op {
    /// Set the node to this value.
    Set(Value),
    /// Remove the member from the node (an object).
    Remove(String),
    /// Set the members of the node (an object) to these values, each removed when `None`.
    Members(Members),
    /// Make the node (a list) hold this many items, copies of its first item made distinct.
    Items(usize),
    /// Make the node (a list) hold its first item twice.
    Repeat,
    /// Make the node (a list) hold its first item and a copy with this property toggled
    /// (removed when present, else set to its smallest value): two items that agree but for
    /// one field, the shape of the list uniqueness rules ("sectionName must be specified when
    /// parentRefs includes 2 or more references to the same parent").
    Pair(String),
    /// Make the node (a map) hold this many entries.
    Entries(usize),
    /// Make the node (a list) hold one copy of its first item per entry, with that entry's
    /// members set or removed: items that differ in chosen fields only (two rules of one
    /// name, two addresses of one value).
    Copies(Vec<Members>),
}

/// Members of an object to set (`Some`) or remove (`None`).
pub type Members = Vec<(String, Option<Value>)>;

/// One generated object: a base, a node and a change.
#[derive(Clone, Debug)]
pub struct Mutation {
    /// The node's path from the object's root.
    pub path: Vec<Seg>,
    /// The change.
    pub op: Op,
    /// What was changed, for people (`spec.rules[0].name: length 254`).
    pub label: String,
}

/// `path` as a field path (`spec.rules[0].name`).
pub fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Field(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Item => s.push_str("[0]"),
            Seg::Key => s.push_str("[a]"),
        }
    }
    s
}

/// The smallest value of a schema's type, with every required property filled.
pub fn minimal(schema: &Value) -> Value {
    if schema["x-kubernetes-int-or-string"] == true {
        return json!(1);
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    match schema["type"].as_str() {
        Some("object") => {
            let mut m = Map::new();
            for r in schema["required"].as_array().into_iter().flatten() {
                let r = r.as_str().unwrap();
                m.insert(r.to_owned(), minimal(&schema["properties"][r]));
            }
            Value::Object(m)
        }
        Some("array") => {
            let n = schema["minItems"].as_u64().unwrap_or(0);
            Value::Array((0..n).map(|_| minimal(&schema["items"])).collect())
        }
        Some("string") => valid_string(schema),
        Some("integer") | Some("number") => json!(inside(schema)),
        Some("boolean") => json!(false),
        _ => json!({}),
    }
}

/// A number inside the node's range: 1 when the range allows it (0 is often "unset" in Go
/// types), else the bound nearest to it.
fn inside(schema: &Value) -> i64 {
    let min = schema["minimum"].as_i64().unwrap_or(i64::MIN);
    let max = schema["maximum"].as_i64().unwrap_or(i64::MAX);
    1_i64.clamp(min, max.max(min))
}

fn min_length(schema: &Value) -> usize {
    schema["minLength"].as_u64().unwrap_or(0) as usize
}

fn pattern(schema: &Value) -> Option<regex::Regex> {
    schema["pattern"]
        .as_str()
        .and_then(|p| regex::Regex::new(p).ok())
}

/// A string of exactly `len` characters, matching the node's pattern when a simple filler
/// does (so a length case tests the length, not the pattern).
pub fn string_of_length(schema: &Value, len: usize) -> Value {
    if schema["format"] == "date-time" {
        return json!("2026-01-01T00:00:00Z");
    }
    let re = pattern(schema);
    let fillers: [&dyn Fn(usize) -> String; 8] = [
        &|n| "a".repeat(n),
        &|n| "1".repeat(n),
        &|n| format!("/{}", "a".repeat(n.saturating_sub(1))),
        &|n| cycle("a.", n, 'a'),
        &|n| cycle("a-", n, 'a'),
        &|n| format!("a.a/{}", "a".repeat(n.saturating_sub(4))),
        &|n| format!("https://{}", "a".repeat(n.saturating_sub(8))),
        &|n| "1s".chars().cycle().take(n).collect(),
    ];
    for f in fillers {
        let s = f(len);
        if s.chars().count() == len && re.as_ref().is_none_or(|re| re.is_match(&s)) {
            return json!(s);
        }
    }
    json!("a".repeat(len))
}

/// The first probe the node's pattern and lengths accept (a controller name must look like
/// `example.com/gateway-controller`), else a filler of the smallest length.
fn valid_string(schema: &Value) -> Value {
    let min = min_length(schema).max(1);
    let max = schema["maxLength"]
        .as_u64()
        .map_or(usize::MAX, |m| m as usize);
    if let Some(re) = pattern(schema) {
        let fits = |p: &&&str| (min..=max).contains(&p.chars().count()) && re.is_match(p);
        if let Some(p) = PROBES.iter().find(fits) {
            return json!(p);
        }
    }
    string_of_length(schema, min)
}

fn cycle(unit: &str, n: usize, last: char) -> String {
    let mut s: String = unit.chars().cycle().take(n).collect();
    if n > 0 && !s.ends_with(last) {
        s.pop();
        s.push(last);
    }
    s
}

/// Strings every pattern- or format-bearing string is probed with: common valid shapes of the
/// Gateway API types (hostnames, paths, durations, controller names, IPs, header names) and
/// near misses of each.
const PROBES: &[&str] = &[
    "",
    "a",
    "A",
    "1",
    "a.b",
    "a..b",
    ".a",
    "-a",
    "a-",
    "a_b",
    "a b",
    "*.a",
    "*",
    "a.*",
    "/",
    "/a",
    "/a/../b",
    "/a//b",
    "/a/./b",
    "/a/%2fb",
    "/a/%2Fb",
    "/a#b",
    "/a/..",
    "/a/.",
    "/a b",
    "a/b",
    "a.b/c",
    "example.com/gateway-controller",
    "a:b",
    "1s",
    "0s",
    "1h2m3s4ms",
    "100000s",
    "1.5s",
    "10.0.0.1",
    "10.0.0.256",
    "::1",
    "http://a.b",
    "https://a.b:8443",
    "https://*.a.b",
    "x-header",
    "é",
    "a\nb",
];

/// Every case of one CRD version, in schema order.
pub fn mutations(version: &Version) -> Vec<Mutation> {
    let mut out = Vec::new();
    metadata(&mut out);
    let schema = &version.schema;
    for (k, s) in schema["properties"].as_object().into_iter().flatten() {
        // apiVersion, kind and metadata are the API server's (metadata above); status is
        // dropped from a create by the status subresource (docs/validation.md).
        if matches!(k.as_str(), "apiVersion" | "kind" | "metadata" | "status") {
            continue;
        }
        walk(s, vec![Seg::Field(k.clone())], false, &mut out);
    }
    out
}

fn push(out: &mut Vec<Mutation>, path: &[Seg], op: Op, what: String) {
    out.push(Mutation {
        label: format!("{}: {what}", path_text(path)),
        path: path.to_vec(),
        op,
    });
}

fn child(path: &[Seg], seg: Seg) -> Vec<Seg> {
    let mut p = path.to_vec();
    p.push(seg);
    p
}

/// `ruled`: the node's object carries CEL rules, which may read the node's value (a path
/// `value` has no pattern; its rules are on the path object).
fn walk(schema: &Value, path: Vec<Seg>, ruled: bool, out: &mut Vec<Mutation>) {
    let ty = schema["type"].as_str();
    if let Some(values) = schema["enum"].as_array() {
        for v in values {
            push(out, &path, Op::Set(v.clone()), format!("enum value {v}"));
        }
        push(
            out,
            &path,
            Op::Set(json!("Zz")),
            "value outside the enum".into(),
        );
    }
    if schema["x-kubernetes-int-or-string"] == true {
        for v in [
            json!(0),
            json!(1),
            json!(65536),
            json!("a"),
            json!("1"),
            json!(""),
        ] {
            push(out, &path, Op::Set(v.clone()), format!("int-or-string {v}"));
        }
    }
    match ty {
        Some("string") => strings(schema, &path, ruled, out),
        Some("integer") | Some("number") => numbers(schema, &path, out),
        Some("boolean") => {
            for b in [true, false] {
                push(out, &path, Op::Set(json!(b)), format!("{b}"));
            }
            push(
                out,
                &path,
                Op::Set(json!("true")),
                "a string for a boolean".into(),
            );
        }
        Some("array") => {
            arrays(schema, &path, out);
            walk(&schema["items"], child(&path, Seg::Item), false, out);
        }
        Some("object") => {
            objects(schema, &path, out);
            if let Some(props) = schema["properties"].as_object() {
                for (k, s) in props {
                    let ruled = schema["x-kubernetes-validations"].is_array();
                    walk(s, child(&path, Seg::Field(k.clone())), ruled, out);
                }
            }
            if schema["additionalProperties"].is_object() {
                maps(schema, &path, out);
                walk(
                    &schema["additionalProperties"],
                    child(&path, Seg::Key),
                    false,
                    out,
                );
            }
        }
        _ => {}
    }
}

fn strings(schema: &Value, path: &[Seg], ruled: bool, out: &mut Vec<Mutation>) {
    let min = min_length(schema);
    let mut lengths = vec![min.max(1)];
    if min > 0 {
        lengths.push(min - 1);
    }
    if let Some(max) = schema["maxLength"].as_u64() {
        let max = max as usize;
        lengths.extend([max, max + 1, (min + max) / 2]);
    }
    lengths.sort_unstable();
    lengths.dedup();
    for n in lengths {
        push(
            out,
            path,
            Op::Set(string_of_length(schema, n)),
            format!("length {n}"),
        );
    }
    if schema["pattern"].is_string() || schema["format"].is_string() || ruled {
        for p in PROBES {
            push(out, path, Op::Set(json!(p)), format!("probe {p:?}"));
        }
    }
    push(out, path, Op::Set(json!(1)), "a number for a string".into());
}

fn numbers(schema: &Value, path: &[Seg], out: &mut Vec<Mutation>) {
    let min = schema["minimum"].as_i64();
    let max = schema["maximum"].as_i64();
    let mut values: Vec<i64> = vec![0, 1];
    for b in [min, max].into_iter().flatten() {
        values.extend([b - 1, b, b + 1]);
    }
    values.sort_unstable();
    values.dedup();
    for n in values {
        push(out, path, Op::Set(json!(n)), format!("{n}"));
    }
    // Class 8: a whole float inside the range, a fraction, and integers past int32, 2^53
    // and int64.
    let inside = inside(schema);
    push(
        out,
        path,
        Op::Set(json!(inside as f64)),
        format!("whole float {inside}.0"),
    );
    push(out, path, Op::Set(json!(1.5)), "fraction 1.5".into());
    push(
        out,
        path,
        Op::Set(json!(2_147_483_648_i64)),
        "int32 overflow 2147483648".into(),
    );
    push(
        out,
        path,
        Op::Set(json!(9_007_199_254_740_993_i64)),
        "2^53 + 1".into(),
    );
    push(
        out,
        path,
        Op::Set(json!(u64::MAX)),
        "int64 overflow 18446744073709551615".into(),
    );
    push(out, path, Op::Set(json!(1e20)), "float 1e20".into());
    push(
        out,
        path,
        Op::Set(json!("1")),
        "a string for a number".into(),
    );
}

fn arrays(schema: &Value, path: &[Seg], out: &mut Vec<Mutation>) {
    let min = schema["minItems"].as_u64().unwrap_or(0) as usize;
    let mut counts = vec![min, min + 1, 2];
    if min > 0 {
        counts.push(min - 1);
    }
    if let Some(max) = schema["maxItems"].as_u64() {
        let max = max as usize;
        counts.extend([max, max + 1]);
    }
    counts.sort_unstable();
    counts.dedup();
    for n in counts {
        push(out, path, Op::Items(n), format!("{n} items"));
    }
    push(out, path, Op::Repeat, "first item repeated".into());
    for k in schema["items"]["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
    {
        push(
            out,
            path,
            Op::Pair(k.clone()),
            format!("first item and a copy with {k} toggled"),
        );
    }
    push(out, path, Op::Set(json!({})), "an object for a list".into());
}

fn maps(schema: &Value, path: &[Seg], out: &mut Vec<Mutation>) {
    let mut counts = vec![0, 1, 2];
    if let Some(max) = schema["maxProperties"].as_u64() {
        counts.extend([max as usize, max as usize + 1]);
    }
    counts.sort_unstable();
    counts.dedup();
    for n in counts {
        push(out, path, Op::Entries(n), format!("{n} entries"));
    }
    for key in ["A", "a/b", "example.com/a", "-a", "a b", ""] {
        push(
            out,
            path,
            Op::Members(vec![(
                key.to_owned(),
                Some(minimal(&schema["additionalProperties"])),
            )]),
            format!("key {key:?}"),
        );
    }
}

fn objects(schema: &Value, path: &[Seg], out: &mut Vec<Mutation>) {
    let props = schema["properties"].as_object();
    if props.is_some() {
        push(
            out,
            path,
            Op::Members(vec![("zzUnknown".into(), Some(json!(1)))]),
            "unknown field zzUnknown".into(),
        );
    }
    for k in props.into_iter().flatten().map(|(k, _)| k) {
        push(out, path, Op::Remove(k.clone()), format!("without {k}"));
        push(
            out,
            path,
            Op::Members(vec![(k.clone(), Some(Value::Null))]),
            format!("{k}: null"),
        );
    }
    if schema["x-kubernetes-validations"].is_array() {
        rule_combinations(schema, path, out);
    }
    push(out, path, Op::Set(json!([])), "a list for an object".into());
}

/// The combinations that exercise the common CEL rule shapes of a node: every optional
/// property alone and in pairs, each under every value of each enum-typed sibling (the
/// discriminator of the union rules).
fn rule_combinations(schema: &Value, path: &[Seg], out: &mut Vec<Mutation>) {
    let Some(props) = schema["properties"].as_object() else {
        return;
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let discriminators: Vec<(&String, &Vec<Value>)> = props
        .iter()
        .filter_map(|(k, s)| s["enum"].as_array().map(|e| (k, e)))
        .collect();
    let optional: Vec<&String> = props
        .keys()
        .filter(|k| !required.contains(&k.as_str()))
        .filter(|k| !discriminators.iter().any(|(d, _)| d == k))
        .collect();
    let mut choices: Vec<Members> = Vec::new();
    // Every optional property off, then each one on alone, then pairs.
    let all_off: Members = optional.iter().map(|k| ((*k).clone(), None)).collect();
    choices.push(all_off.clone());
    for (i, a) in optional.iter().enumerate() {
        let mut one = all_off.clone();
        one[i].1 = Some(minimal(&props[a.as_str()]));
        choices.push(one.clone());
        for (j, b) in optional.iter().enumerate().skip(i + 1) {
            let mut two = one.clone();
            two[j].1 = Some(minimal(&props[b.as_str()]));
            choices.push(two);
        }
    }
    let mut tagged: Vec<(String, Members)> = Vec::new();
    if discriminators.is_empty() {
        tagged.extend(choices.into_iter().map(|c| (String::new(), c)));
    } else {
        for (d, values) in &discriminators {
            for v in *values {
                for c in &choices {
                    let mut c = c.clone();
                    c.push(((*d).clone(), Some(v.clone())));
                    tagged.push((format!("{d}={v} "), c));
                }
            }
        }
    }
    for (tag, members) in tagged {
        let on: Vec<&str> = members
            .iter()
            .filter(|(k, v)| v.is_some() && !tag.starts_with(&format!("{k}=")))
            .map(|(k, _)| k.as_str())
            .collect();
        let what = format!("rule combination {tag}with [{}]", on.join(", "));
        push(out, path, Op::Members(members), what);
    }
}

/// Object metadata, as the API server checks it for every custom resource.
fn metadata(out: &mut Vec<Mutation>) {
    let meta = vec![Seg::Field("metadata".into())];
    let name = child(&meta, Seg::Field("name".into()));
    for s in [
        "a".repeat(253),
        "a".repeat(254),
        "a.b".into(),
        "a..b".into(),
        "A".into(),
        "a_b".into(),
        "-a".into(),
        "a-".into(),
        "1".into(),
        format!("{}.{}", "a".repeat(63), "a".repeat(63)),
        format!("{}.a", "a".repeat(64)),
    ] {
        let what = format!("name of {} characters {:?}", s.len(), truncate(&s));
        push(out, &name, Op::Set(json!(s)), what);
    }
    push(
        out,
        &meta,
        Op::Members(vec![
            ("name".into(), None),
            ("generateName".into(), Some(json!("a-"))),
        ]),
        "generateName without name".into(),
    );
    push(
        out,
        &meta,
        Op::Members(vec![
            ("name".into(), None),
            ("generateName".into(), Some(json!("A-"))),
        ]),
        "invalid generateName without name".into(),
    );
    let label_keys = [
        "a".to_owned(),
        "a".repeat(63),
        "a".repeat(64),
        format!("{}/a", "a".repeat(253)),
        format!("{}/a", "a".repeat(254)),
        "example.com/a".into(),
        "Example.com/a".into(),
        "a/b/c".into(),
        "/a".into(),
        "a.".into(),
        "-a".into(),
        "a b".into(),
        String::new(),
    ];
    for key in &label_keys {
        for (field, value) in [("labels", json!("v")), ("annotations", json!("v"))] {
            push(
                out,
                &meta,
                Op::Members(vec![(field.into(), Some(json!({ key.clone(): value })))]),
                format!("{field} key {:?} ({} characters)", truncate(key), key.len()),
            );
        }
    }
    for value in [
        String::new(),
        "a".repeat(63),
        "a".repeat(64),
        "a.b-c_d".into(),
        "-a".into(),
        "a b".into(),
    ] {
        push(
            out,
            &meta,
            Op::Members(vec![("labels".into(), Some(json!({ "k": value.clone() })))]),
            format!(
                "label value {:?} ({} characters)",
                truncate(&value),
                value.len()
            ),
        );
    }
    // The total size of the annotations: keys plus values, at most 256 KiB.
    for total in [256 * 1024, 256 * 1024 + 1] {
        let value = "a".repeat(total - 1);
        push(
            out,
            &meta,
            Op::Members(vec![("annotations".into(), Some(json!({ "k": value })))]),
            format!("annotations of {total} bytes"),
        );
    }
    // No `metadata.namespace` cases: the namespace is also in the URL, and the API server
    // refuses a mismatch or a namespace that does not exist before it validates anything.
    push(
        out,
        &meta,
        Op::Members(vec![("zzUnknown".into(), Some(json!(1)))]),
        "unknown field zzUnknown".into(),
    );
    push(
        out,
        &meta,
        Op::Members(vec![("labels".into(), Some(Value::Null))]),
        "labels: null".into(),
    );
}

fn truncate(s: &str) -> String {
    if s.len() > 12 {
        format!("{}...", &s[..12])
    } else {
        s.to_owned()
    }
}
