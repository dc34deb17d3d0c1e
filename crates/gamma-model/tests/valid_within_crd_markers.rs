//! Property (validation is total, and valid objects satisfy every documented limit):
//! every object that `validate()` accepts also satisfies every structural marker of the upstream
//! CRD schema: `maxItems`/`minItems`, `maxLength`/`minLength`, `pattern`, `enum`,
//! `minimum`/`maximum`, `maxProperties`, `required` and list-map key uniqueness.
//!
//! The oracle is independent of the validator: it reads the markers from the CRDs'
//! `openAPIV3Schema` at run time and checks the object's JSON form with the `regex` crate. The
//! objects are the upstream examples with random structural mutations (a node set to an edge
//! value, a key removed, a list grown to a limit or one past it), so most are near a boundary.
//! CEL rules (`x-kubernetes-validations`) are not re-checked here; the table-driven validation
//! tests own them. Reported ignored (with the reason) without the Gateway API v1.6.1 release tree
//! (`GAMMA_UPSTREAM_DIR`, or the tree of `gamma_testenv::upstream`): checked once, before the
//! property's cases run.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use gamma_model::Validate;
use gamma_model::validate::{Channel, ValidateOptions};
use gamma_testenv::harness::release_v1_6_1;
use proptest::prelude::*;
use regex::Regex;
use serde_json::{Value, json};

gamma_testenv::test_main! {
    valid_objects_satisfy_every_crd_marker if release_v1_6_1,
    the_marker_oracle_flags_violations if release_v1_6_1,
}

struct Fixture {
    /// (apiVersion, kind, channel) -> openAPIV3Schema.
    schemas: HashMap<(String, String, &'static str), Value>,
    /// Example objects as JSON.
    examples: Vec<Value>,
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml") {
            out.push(p);
        }
    }
}

/// The schemas and examples of the v1.6.1 tree (the tests' precondition `release_v1_6_1`).
fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir =
            PathBuf::from(gamma_testenv::upstream::v1_6_1().expect("the test's precondition"));
        let mut schemas = HashMap::new();
        for channel in ["standard", "experimental"] {
            let mut files = Vec::new();
            yaml_files(&dir.join("config/crd").join(channel), &mut files);
            for f in files {
                let docs: Vec<Value> =
                    serde_saphyr::from_multiple(&std::fs::read_to_string(&f).unwrap()).unwrap();
                for crd in docs
                    .iter()
                    .filter(|d| d["kind"] == "CustomResourceDefinition")
                {
                    let group = crd["spec"]["group"].as_str().unwrap();
                    let kind = crd["spec"]["names"]["kind"].as_str().unwrap();
                    for v in crd["spec"]["versions"].as_array().unwrap() {
                        let api = format!("{group}/{}", v["name"].as_str().unwrap());
                        schemas.insert(
                            (api, kind.to_owned(), channel),
                            v["schema"]["openAPIV3Schema"].clone(),
                        );
                    }
                }
            }
        }
        let mut files = Vec::new();
        yaml_files(&dir.join("examples"), &mut files);
        let mut examples = Vec::new();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let Ok(objects) = gamma_model::decode(&text) else {
                continue;
            };
            for o in objects {
                let v = serde_json::to_value(&o).unwrap();
                let key = (
                    o.api_version().to_owned(),
                    o.kind().as_str().to_owned(),
                    "experimental",
                );
                if schemas.contains_key(&key) {
                    examples.push(v);
                }
            }
        }
        Fixture { schemas, examples }
    })
}

fn pattern(p: &str) -> Regex {
    static CACHE: OnceLock<std::sync::Mutex<HashMap<String, Regex>>> = OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
    cache
        .entry(p.to_owned())
        .or_insert_with(|| Regex::new(p).unwrap())
        .clone()
}

/// Every marker violation in `v` against `schema`, as "path: what".
fn violations(v: &Value, schema: &Value, path: &str, out: &mut Vec<String>) {
    if let Some(e) = schema.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        out.push(format!("{path}: {v} not in enum"));
    }
    match v {
        Value::Object(m) => {
            let props = schema.get("properties").and_then(Value::as_object);
            if let Some(max) = schema.get("maxProperties").and_then(Value::as_u64)
                && m.len() as u64 > max
            {
                out.push(format!("{path}: {} properties > {max}", m.len()));
            }
            for r in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !m.contains_key(r) {
                    out.push(format!("{path}: required {r} missing"));
                }
            }
            for (k, child) in m {
                let sub = props
                    .and_then(|p| p.get(k))
                    .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()));
                if let Some(sub) = sub {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    violations(child, sub, &p, out);
                }
            }
        }
        Value::Array(items) => {
            let n = items.len() as u64;
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
                && n > max
            {
                out.push(format!("{path}: {n} items > maxItems {max}"));
            }
            if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
                && n < min
            {
                out.push(format!("{path}: {n} items < minItems {min}"));
            }
            let list_type = schema.get("x-kubernetes-list-type").and_then(Value::as_str);
            let keys: Vec<&str> = schema
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let mut seen = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let key: Value = match list_type {
                    Some("map") => keys
                        .iter()
                        .map(|k| item.get(*k).cloned())
                        .collect::<Vec<_>>()
                        .into(),
                    Some("set") => item.clone(),
                    _ => Value::Null,
                };
                if !key.is_null() {
                    if seen.contains(&key) {
                        out.push(format!("{path}[{i}]: duplicate {list_type:?} key {key}"));
                    }
                    seen.push(key);
                }
                if let Some(sub) = schema.get("items") {
                    violations(item, sub, &format!("{path}[{i}]"), out);
                }
            }
        }
        Value::String(s) => {
            let n = s.chars().count() as u64;
            if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
                && n > max
            {
                out.push(format!("{path}: length {n} > maxLength {max}"));
            }
            if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
                && n < min
            {
                out.push(format!("{path}: length {n} < minLength {min}"));
            }
            if let Some(p) = schema.get("pattern").and_then(Value::as_str)
                && !pattern(p).is_match(s)
            {
                out.push(format!("{path}: {s:?} does not match {p}"));
            }
        }
        Value::Number(x) => {
            if let (Some(min), Some(x)) =
                (schema.get("minimum").and_then(Value::as_f64), x.as_f64())
                && x < min
            {
                out.push(format!("{path}: {x} < minimum {min}"));
            }
            if let (Some(max), Some(x)) =
                (schema.get("maximum").and_then(Value::as_f64), x.as_f64())
                && x > max
            {
                out.push(format!("{path}: {x} > maximum {max}"));
            }
        }
        _ => {}
    }
}

#[derive(Debug, Clone)]
struct Mutation {
    /// Choices while walking down from the root (each taken modulo the node's width).
    walk: Vec<u16>,
    op: u8,
    pick: u16,
}

fn edge_value(pick: u16) -> Value {
    let long = |n: usize| Value::String("a".repeat(n));
    match pick % 24 {
        0 => json!(""),
        1 => json!("a"),
        2 => long(63),
        3 => long(64),
        4 => long(253),
        5 => long(254),
        6 => long(1024),
        7 => long(1025),
        8 => json!("A_B"),
        9 => json!("/a/../b"),
        10 => json!("*.example.com"),
        11 => json!("example.com/x"),
        12 => json!(0),
        13 => json!(-1),
        14 => json!(1),
        15 => json!(65535),
        16 => json!(65536),
        17 => json!(1_000_000),
        18 => json!(1_000_001),
        19 => json!("/"),
        20 => json!("10s"),
        21 => json!("é"),
        22 => json!({}),
        _ => json!([]),
    }
}

fn mutate(root: &mut Value, m: &Mutation) {
    let mut cur = root;
    for w in &m.walk {
        let width = match &*cur {
            Value::Object(o) => o.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        };
        if width == 0 {
            break;
        }
        let i = *w as usize % width;
        cur = match cur {
            Value::Object(o) => o.values_mut().nth(i).unwrap(),
            Value::Array(a) => &mut a[i],
            _ => unreachable!(),
        };
    }
    match m.op % 4 {
        0 | 1 => *cur = edge_value(m.pick),
        2 => {
            if let Value::Object(o) = cur
                && !o.is_empty()
            {
                let k = o.keys().nth(m.pick as usize % o.len()).cloned().unwrap();
                o.remove(&k);
            }
        }
        _ => {
            if let Value::Array(a) = cur
                && let Some(first) = a.first().cloned()
            {
                let to = [2usize, 8, 9, 16, 17, 32, 33, 64, 65][m.pick as usize % 9];
                while a.len() < to {
                    a.push(first.clone());
                }
            }
        }
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (
        prop::collection::vec(any::<u16>(), 0..10),
        any::<u8>(),
        any::<u16>(),
    )
        .prop_map(|(walk, op, pick)| Mutation { walk, op, pick })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, failure_persistence: None, .. ProptestConfig::default() })]

    // Validation is total (valid, or at least one error) and a valid object satisfies
    // every CRD marker; HTTPRoute CRD v1.6.1 (the validated layer implements every marker).
    fn valid_objects_satisfy_every_crd_marker(
        example in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..4),
        experimental in any::<bool>(),
    ) {
        let f = fixture();
        prop_assume!(!f.examples.is_empty());
        let mut v = f.examples[example.index(f.examples.len())].clone();
        for m in &mutations {
            // apiVersion and kind stay: the oracle needs the schema of the kind.
            let (api, kind) = (v["apiVersion"].clone(), v["kind"].clone());
            mutate(&mut v, m);
            if !v.is_object() {
                v = json!({});
            }
            v["apiVersion"] = api;
            v["kind"] = kind;
        }
        let Ok(mut objects) = gamma_model::decode(&v.to_string()) else {
            return Ok(());
        };
        prop_assume!(objects.len() == 1);
        let object = objects.remove(0);
        let (channel, name) = if experimental {
            (Channel::Experimental, "experimental")
        } else {
            (Channel::Standard, "standard")
        };
        let key = (object.api_version().to_owned(), object.kind().as_str().to_owned(), name);
        let schema = f.schemas.get(&key).expect("the test's precondition");
        match object.validate_with(&ValidateOptions::channel(channel)) {
            // Totality: an Err always carries at least one error.
            Err(e) => prop_assert!(!e.is_empty()),
            Ok(()) => {
                let json = serde_json::to_value(&object).unwrap();
                let mut found = Vec::new();
                // metadata is the API server's, not the CRD's; status is written by controllers.
                if let Some(spec) = json.get("spec") {
                    violations(spec, &schema["properties"]["spec"], "spec", &mut found);
                }
                prop_assert!(
                    found.is_empty(),
                    "valid under {} rules but breaks CRD markers: {:?}\nobject: {}",
                    name, found, json
                );
            }
        }
    }
}

// The oracle is not vacuous: it flags each kind of marker it checks on an HTTPRoute spec.
fn the_marker_oracle_flags_violations() {
    let f = fixture();
    let key = (
        "gateway.networking.k8s.io/v1".to_owned(),
        "HTTPRoute".to_owned(),
        "standard",
    );
    let schema = &f.schemas[&key]["properties"]["spec"];
    let parent = json!({"name": "gw"});
    for (spec, want) in [
        (json!({"hostnames": ["A_B"]}), "does not match"),
        (json!({"hostnames": ["a".repeat(254)]}), "maxLength"),
        (json!({"parentRefs": vec![parent.clone(); 33]}), "maxItems"),
        (
            json!({"rules": [{"backendRefs": [{"name": "x", "weight": 1_000_001}]}]}),
            "maximum",
        ),
        (
            json!({"rules": [{"matches": [{"method": "BREW"}]}]}),
            "enum",
        ),
        (json!({"parentRefs": [{"port": 80}]}), "required name"),
    ] {
        let mut found = Vec::new();
        violations(&spec, schema, "spec", &mut found);
        assert!(
            found.iter().any(|v| v.contains(want)),
            "{spec}: expected a {want} violation, got {found:?}"
        );
    }
}
