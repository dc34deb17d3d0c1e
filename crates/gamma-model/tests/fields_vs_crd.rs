//! Field presence checked against the upstream CRDs themselves, of every supported release
//! (v1.5.1, v1.6.1, v1.7.0), both channels, every version gamma-rs decodes, each under its own
//! release (Kubernetes API conventions: unknown fields are refused under
//! `fieldValidation=Strict`; a `required` property that is absent is `Required value`):
//!
//! - every `required` of every schema node: an object missing it is refused at its path, and
//!   the same object with it is not (at that path);
//! - every declared property is known on the channel that declares it, and an undeclared member
//!   of any object node is an unknown field at its path;
//! - `EXPERIMENTAL_ONLY` (less what a release lacks or made standard) is exactly the
//!   experimental CRDs' properties minus the standard ones'.
//!
//! Objects are built from the CRD schema: each level's required properties filled with the
//! smallest value of their type. Reported ignored, with the reason, where the release trees
//! cannot be had.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use gamma_model::ResourceKind;
use gamma_model::validate::{Bundle, Channel, ErrorKind, Release, ValidateOptions};
use gamma_model::validate::{EXPERIMENTAL_ONLY, FIELD_SPANS, STANDARD_SINCE};
use gamma_model::{DecodeOptions, decode_documents};
use gamma_testenv::harness::release_trees;
use serde_json::{Map, Value, json};

gamma_testenv::test_main! {
    every_required_property_of_every_crd_version_is_required_at_its_path if release_trees,
    declared_properties_are_known_and_undeclared_ones_unknown_at_their_paths if release_trees,
    experimental_only_fields_are_the_difference_between_the_channels if release_trees,
    experimental_fields_are_unknown_on_the_standard_channel_of_the_releases_without_them,
}

struct Crd {
    kind: ResourceKind,
    group: String,
    namespaced: bool,
    /// (version, openAPIV3Schema)
    versions: Vec<(String, Value)>,
}

/// Every supported release and its tree (the tests' precondition `release_trees`).
fn releases() -> Vec<(Release, PathBuf)> {
    let trees = gamma_testenv::upstream::all_trees().expect("the test's precondition");
    trees
        .into_iter()
        .map(|(v, dir)| (Release::parse(v).unwrap(), dir))
        .collect()
}

fn crds(dir: &Path, channel: &str) -> Vec<Crd> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir.join("config/crd").join(channel))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let Ok(crd) = serde_saphyr::from_str_with_options::<Value>(
            &text,
            serde_saphyr::options! { strict_booleans: true },
        ) else {
            continue;
        };
        if crd["kind"] != "CustomResourceDefinition" {
            continue;
        }
        let group = crd["spec"]["group"].as_str().unwrap().to_owned();
        let kind_name = crd["spec"]["names"]["kind"].as_str().unwrap();
        let versions: Vec<(String, Value)> = crd["spec"]["versions"]
            .as_array()
            .unwrap()
            .iter()
            // Unserved versions are refused before any field is read (tests/served_vs_crd.rs).
            .filter(|v| v["served"] == true)
            .map(|v| {
                (
                    v["name"].as_str().unwrap().to_owned(),
                    v["schema"]["openAPIV3Schema"].clone(),
                )
            })
            .collect();
        let Some(kind) = ResourceKind::from_type(&format!("{group}/{}", versions[0].0), kind_name)
            .or_else(|| {
                versions
                    .iter()
                    .find_map(|(v, _)| ResourceKind::from_type(&format!("{group}/{v}"), kind_name))
            })
        else {
            eprintln!("{channel}: {kind_name} is not modelled by gamma-rs: skipped");
            continue;
        };
        out.push(Crd {
            kind,
            group,
            namespaced: crd["spec"]["scope"] == "Namespaced",
            versions,
        });
    }
    out
}

/// The smallest value of a schema's type, with every required property filled.
fn minimal(schema: &Value) -> Value {
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
        Some("string") if schema["format"] == "date-time" => json!("2026-01-01T00:00:00Z"),
        Some("string") => {
            let n = schema["minLength"].as_u64().unwrap_or(1).max(1) as usize;
            json!("a".repeat(n))
        }
        Some("integer") | Some("number") => json!(schema["minimum"].as_i64().unwrap_or(1)),
        Some("boolean") => json!(false),
        _ => json!({}),
    }
}

#[derive(Clone, Debug)]
enum Seg {
    Field(String),
    Item,
}

/// Every object node of a schema, by path.
fn object_nodes<'a>(schema: &'a Value, path: Vec<Seg>, out: &mut Vec<(Vec<Seg>, &'a Value)>) {
    if let Some(props) = schema["properties"].as_object() {
        out.push((path.clone(), schema));
        for (k, v) in props {
            let mut p = path.clone();
            p.push(Seg::Field(k.clone()));
            object_nodes(v, p, out);
        }
    }
    if schema["items"].is_object() {
        let mut p = path;
        p.push(Seg::Item);
        object_nodes(&schema["items"], p, out);
    }
}

/// The minimal object with the node at `path` present (lists get one item there), and a
/// handle to that node.
fn build(schema: &Value, path: &[Seg]) -> Value {
    let mut v = minimal(schema);
    match path.split_first() {
        None => {}
        Some((Seg::Field(k), rest)) => {
            let child = build(&schema["properties"][k], rest);
            v.as_object_mut().unwrap().insert(k.clone(), child);
        }
        Some((Seg::Item, rest)) => {
            let item = build(&schema["items"], rest);
            let items = v.as_array_mut().unwrap();
            items.truncate(0);
            items.push(item);
        }
    }
    v
}

fn node_at<'a>(v: &'a mut Value, path: &[Seg]) -> &'a mut Value {
    match path.split_first() {
        None => v,
        Some((Seg::Field(k), rest)) => node_at(v.get_mut(k.as_str()).unwrap(), rest),
        Some((Seg::Item, rest)) => node_at(v.get_mut(0).unwrap(), rest),
    }
}

fn concrete(path: &[Seg]) -> String {
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
        }
    }
    s
}

fn shape(path: &[Seg]) -> String {
    concrete(path).replace("[0]", "[]")
}

/// The object as a whole document: type info and metadata the CRD leaves to the API server.
fn document(crd: &Crd, version: &str, mut object: Value) -> Value {
    let o = object.as_object_mut().unwrap();
    o.insert(
        "apiVersion".into(),
        json!(format!("{}/{version}", crd.group)),
    );
    o.insert("kind".into(), json!(crd.kind.as_str()));
    let mut meta = json!({"name": "a"});
    if crd.namespaced {
        meta["namespace"] = json!("default");
    }
    o.insert("metadata".into(), meta);
    object
}

fn decoded_versions(crd: &Crd) -> impl Iterator<Item = &(String, Value)> {
    crd.versions.iter().filter(|(v, _)| {
        crd.kind
            .api_versions()
            .contains(&format!("{}/{v}", crd.group).as_str())
    })
}

/// Subtrees gamma-rs keeps as opaque JSON (documented in docs/schema.md): nothing inside them
/// is checked, so unknown fields there go unreported (a listed disagreement, docs/validation.md).
const OPAQUE: &[(ResourceKind, &str)] = &[
    (ResourceKind::ListenerSet, "status"),
    (ResourceKind::BackendTlsPolicy, "status"),
    (ResourceKind::XBackend, "status"),
    (ResourceKind::XBackendTrafficPolicy, "status"),
];

fn is_opaque(kind: ResourceKind, path: &[Seg]) -> bool {
    let p = concrete(path);
    OPAQUE
        .iter()
        .any(|(k, o)| *k == kind && (p == *o || p.starts_with(&format!("{o}."))))
}

/// The errors of a document: a decode failure (a field the wire type cannot default is
/// missing) counts as an error at its path.
fn errors_of(doc: &Value, bundle: Bundle) -> Vec<(String, ErrorKind)> {
    let text = serde_json::to_string(doc).unwrap();
    let decoded = match decode_documents(&text, &DecodeOptions::checking_fields()) {
        Ok(d) => d,
        Err(gamma_model::DecodeError::Field { path, message, .. })
            if message.starts_with("missing field") =>
        {
            return vec![(path, ErrorKind::Required)];
        }
        Err(e) => panic!("{e}\n{text}"),
    };
    let report = decoded.documents[0].validate_with(&ValidateOptions::bundle(bundle));
    report
        .errors
        .into_iter()
        .map(|e| (e.path.as_str().to_owned(), e.kind))
        .collect()
}

fn every_required_property_of_every_crd_version_is_required_at_its_path() {
    let mut checked = 0;
    for (release, dir) in releases() {
        for channel in ["standard", "experimental"] {
            let ch = Bundle::new(
                release,
                if channel == "standard" {
                    Channel::Standard
                } else {
                    Channel::Experimental
                },
            );
            for crd in crds(&dir, channel) {
                for (version, schema) in decoded_versions(&crd) {
                    let mut nodes = Vec::new();
                    object_nodes(schema, Vec::new(), &mut nodes);
                    for (path, node) in nodes {
                        if matches!(path.first(), Some(Seg::Field(f)) if f == "metadata")
                            || is_opaque(crd.kind, &path)
                        {
                            continue;
                        }
                        for r in node["required"].as_array().into_iter().flatten() {
                            let r = r.as_str().unwrap();
                            let mut field = path.clone();
                            field.push(Seg::Field(r.to_owned()));
                            let at = concrete(&field);
                            let with = document(&crd, version, build(schema, &path));
                            let mut without = with.clone();
                            node_at(&mut without, &path)
                                .as_object_mut()
                                .unwrap()
                                .remove(r);
                            let what = format!("{release} {channel} {} {version} {at}", crd.kind);
                            let errs = errors_of(&without, ch);
                            assert!(
                                errs.iter()
                                    .any(|(p, k)| p == &at && *k == ErrorKind::Required),
                                "{what}: missing, not Required there: {errs:?}"
                            );
                            let errs = errors_of(&with, ch);
                            assert!(
                                !errs.iter().any(|(_, k)| *k == ErrorKind::Required),
                                "{what}: every required field present, yet Required: {errs:?}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    eprintln!("{checked} required properties checked");
    assert!(checked > 300, "only {checked} required properties found");
}

fn declared_properties_are_known_and_undeclared_ones_unknown_at_their_paths() {
    let mut checked = 0;
    for (release, dir) in releases() {
        let bundle = Bundle::new(release, Channel::Experimental);
        for crd in crds(&dir, "experimental") {
            for (version, schema) in decoded_versions(&crd) {
                let mut nodes = Vec::new();
                object_nodes(schema, Vec::new(), &mut nodes);
                for (path, node) in nodes {
                    if matches!(path.first(), Some(Seg::Field(f)) if f == "metadata") {
                        continue;
                    }
                    if is_opaque(crd.kind, &path) {
                        continue;
                    }
                    let props = node["properties"].as_object().unwrap();
                    let mut doc = document(&crd, version, build(schema, &path));
                    let target = node_at(&mut doc, &path).as_object_mut().unwrap();
                    for (k, sub) in props {
                        target.entry(k.clone()).or_insert_with(|| minimal(sub));
                    }
                    let ok = errors_of(&doc, bundle);
                    let what = format!("{release} {} {version} {}", crd.kind, concrete(&path));
                    assert!(
                        !ok.iter().any(|(_, k)| *k == ErrorKind::UnknownField),
                        "{what}: declared properties reported unknown: {ok:?}"
                    );
                    node_at(&mut doc, &path)
                        .as_object_mut()
                        .unwrap()
                        .insert("zzUndeclared".into(), json!(1));
                    let mut field = path.clone();
                    field.push(Seg::Field("zzUndeclared".into()));
                    let at = concrete(&field);
                    let errs = errors_of(&doc, bundle);
                    assert!(
                        errs.iter()
                            .any(|(p, k)| p == &at && *k == ErrorKind::UnknownField),
                        "{what}: undeclared member not unknown at {at}: {errs:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{checked} object nodes checked");
    assert!(checked > 300, "only {checked} object nodes found");
}

fn property_shapes(schema: &Value) -> BTreeSet<String> {
    let mut nodes = Vec::new();
    object_nodes(schema, Vec::new(), &mut nodes);
    let mut out = BTreeSet::new();
    for (path, node) in nodes {
        for k in node["properties"].as_object().unwrap().keys() {
            let mut p = path.clone();
            p.push(Seg::Field(k.clone()));
            out.insert(shape(&p));
        }
    }
    out
}

fn experimental_only_fields_are_the_difference_between_the_channels() {
    for (release, dir) in releases() {
        let standard: BTreeMap<(ResourceKind, String), BTreeSet<String>> = crds(&dir, "standard")
            .into_iter()
            .flat_map(|c| {
                let kind = c.kind;
                c.versions
                    .into_iter()
                    .map(move |(v, s)| ((kind, v), property_shapes(&s)))
            })
            .collect();
        for crd in crds(&dir, "experimental") {
            for (version, schema) in &crd.versions {
                let exp = property_shapes(schema);
                let std = standard
                    .get(&(crd.kind, version.clone()))
                    .cloned()
                    .unwrap_or_default();
                let extra: BTreeSet<&String> = exp.difference(&std).collect();
                // The topmost of each extra subtree: what a standard-channel API server refuses.
                let top: BTreeSet<&str> = extra
                    .iter()
                    .filter(|p| {
                        !extra.iter().any(|q| {
                            p.len() > q.len()
                                && p.starts_with(q.as_str())
                                && p[q.len()..].starts_with(['.', '['])
                        })
                    })
                    .map(|p| p.as_str())
                    .collect();
                let ours: BTreeSet<&str> = if std.is_empty() {
                    // A kind only the experimental channel has (XMesh): not a field question.
                    BTreeSet::new()
                } else {
                    EXPERIMENTAL_ONLY
                        .iter()
                        .find(|(k, _)| *k == crd.kind)
                        .map(|(_, p)| p.iter().copied().collect())
                        .unwrap_or_default()
                };
                // Less what this release lacks altogether or has made standard.
                let ours: BTreeSet<&str> = ours
                    .into_iter()
                    .filter(|shape| {
                        FIELD_SPANS
                            .iter()
                            .filter(|s| s.kind == crd.kind && s.shape == *shape)
                            .all(|s| s.declared_in(release))
                    })
                    .filter(|shape| {
                        !STANDARD_SINCE
                            .iter()
                            .any(|(k, s, since)| *k == crd.kind && s == shape && *since <= release)
                    })
                    .collect();
                let top = if std.is_empty() { BTreeSet::new() } else { top };
                assert_eq!(ours, top, "{release} {} {version}", crd.kind);
            }
        }
    }
}

/// `retry` is experimental-only up to Gateway API v1.6 and standard from v1.7 (GEP-1731; the
/// v1.7.0 standard HTTPRoute CRD declares `spec.rules[].retry`).
fn experimental_fields_are_unknown_on_the_standard_channel_of_the_releases_without_them() {
    let input = "apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - retry: {attempts: 2}
    backendRefs: [{name: web, port: 80}]
";
    let doc = &decode_documents(input, &DecodeOptions::checking_fields())
        .unwrap()
        .documents[0];
    for release in [Release::V1_5, Release::V1_6] {
        let std = doc.validate_with(&ValidateOptions::bundle(Bundle::new(
            release,
            Channel::Standard,
        )));
        assert_eq!(std.errors.len(), 1, "{release}: {std:?}");
        assert_eq!(std.errors[0].path.as_str(), "spec.rules[0].retry");
        assert_eq!(std.errors[0].kind, ErrorKind::UnknownField);
    }
    for bundle in Release::ALL.into_iter().flat_map(|r| {
        [
            Bundle::new(r, Channel::Experimental),
            Bundle::new(r, Channel::Standard),
        ]
    }) {
        if bundle.channel == Channel::Standard && bundle.release < Release::V1_7 {
            continue;
        }
        let report = doc.validate_with(&ValidateOptions::bundle(bundle));
        assert!(report.is_ok(), "{bundle}: {report:?}");
    }
}
