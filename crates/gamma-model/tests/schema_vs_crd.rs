//! The JSON Schema of each Gateway API kind against the upstream CRD's `openAPIV3Schema` of
//! every supported release (v1.5.1, v1.6.1, v1.7.0; experimental channel, a superset of
//! standard), version by version: property names, `required` lists and enums, recursively
//! through objects and arrays.
//!
//! gamma-rs's types hold every release's fields at once. A field the types have and a
//! release's CRD lacks must be listed in `FIELD_SPANS` as not declared by that release, and
//! every such entry must be seen lacking, so the table is exact. Any other difference fails the
//! test unless it is listed in `ALLOWED` with its reason (the same list is documented in
//! docs/schema.md); an `ALLOWED` entry that no longer occurs fails too, so the list stays
//! exact. Rules applied everywhere:
//! - `metadata` is not compared: the CRDs leave it to the API server (`type: object`), gamma-rs
//!   models the subset it reads.
//! - Nullability is not compared (gamma-rs accepts `null` for optional fields).
//!
//! Reported ignored, with the reason, where the release trees cannot be had.

use std::collections::BTreeSet;

use gamma_model::ResourceKind;
use gamma_model::schema::schema_for;
use gamma_model::validate::{FIELD_SPANS, Release};
use gamma_testenv::harness::release_trees;
use serde_json::Value;

gamma_testenv::test_main! {
    schemas_match_every_releases_crds_but_for_release_bound_and_documented_differences
        if release_trees,
}

/// Documented differences: (kind or `*`, with ` version` or `@release` to narrow it; path;
/// difference; why).
const ALLOWED: &[(&str, &str, &str, &str)] = &[
    // Enum values a later release added: typed validation refuses them under older releases.
    (
        "XBackend@v1.6",
        "spec.type",
        "enum: missing [] extra [EndpointSelector]",
        "v1.7 added EndpointSelector backends; refused under v1.6 by validation",
    ),
    (
        "XBackend@v1.6",
        "spec.protocol",
        "enum: missing [] extra [GRPC, WSS]",
        "v1.7 added GRPC and WSS; refused under v1.6 by validation",
    ),
    // A requirement a later release added: not reported under older releases.
    (
        "ReferenceGrant@v1.5",
        "",
        "required: missing [] extra [spec]",
        "spec is required from v1.6 (validate::by_release REQUIRED_SINCE)",
    ),
    // gamma-rs extension (proposal gateway-api#3444): controllers allowed to implement a route
    // for a Service parent. Not in any upstream CRD (clusters with upstream CRDs prune it).
    (
        "*",
        "spec.parentRefs[].controllers",
        "extra",
        "ParentReference.controllers extension",
    ),
    (
        "*",
        "status.parents[].parentRef.controllers",
        "extra",
        "status reuses ParentReference, so it carries the extension too",
    ),
    (
        "BackendTLSPolicy",
        "status.ancestors[].ancestorRef.controllers",
        "extra",
        "policy status reuses ParentReference for ancestorRef, so it carries the extension too",
    ),
    (
        "XTelemetryPolicy",
        "status.ancestors[].ancestorRef.controllers",
        "extra",
        "policy status reuses ParentReference for ancestorRef, so it carries the extension too",
    ),
    // Kept as opaque JSON values: gamma-rs does not read them, and round-trips them verbatim.
    (
        "XBackend",
        "status",
        "opaque",
        "XBackend parent status, not read by gamma-rs",
    ),
    (
        "XBackendTrafficPolicy",
        "status",
        "opaque",
        "policy ancestor status, not read by gamma-rs",
    ),
    // Modelled more loosely than the CRD; validate() enforces the CRD's values.
    (
        "*",
        "spec.listeners[].allowedRoutes.namespaces.from",
        "enum: missing [] extra [None]",
        "one enum (FromNamespaces) serves allowedListeners, which allows None, and allowedRoutes",
    ),
    (
        "HTTPRoute",
        "spec.rules[].filters[].cors.allowMethods[]",
        "enum: missing [*, CONNECT, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT, TRACE] extra []",
        "CORS methods are plain strings",
    ),
    (
        "HTTPRoute",
        "spec.rules[].backendRefs[].filters[].cors.allowMethods[]",
        "enum: missing [*, CONNECT, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT, TRACE] extra []",
        "CORS methods are plain strings",
    ),
    // One Rust type serves every served version; older versions differ slightly.
    (
        "TLSRoute v1alpha2",
        "spec",
        "required: missing [] extra [hostnames]",
        "v1alpha2 made hostnames optional; v1alpha3 and v1 require them",
    ),
];

fn crd_file(kind: ResourceKind) -> Option<&'static str> {
    Some(match kind {
        ResourceKind::HttpRoute => "gateway.networking.k8s.io_httproutes.yaml",
        ResourceKind::GrpcRoute => "gateway.networking.k8s.io_grpcroutes.yaml",
        ResourceKind::TlsRoute => "gateway.networking.k8s.io_tlsroutes.yaml",
        ResourceKind::TcpRoute => "gateway.networking.k8s.io_tcproutes.yaml",
        ResourceKind::UdpRoute => "gateway.networking.k8s.io_udproutes.yaml",
        ResourceKind::Gateway => "gateway.networking.k8s.io_gateways.yaml",
        ResourceKind::GatewayClass => "gateway.networking.k8s.io_gatewayclasses.yaml",
        ResourceKind::ListenerSet => "gateway.networking.k8s.io_listenersets.yaml",
        ResourceKind::ReferenceGrant => "gateway.networking.k8s.io_referencegrants.yaml",
        ResourceKind::BackendTlsPolicy => "gateway.networking.k8s.io_backendtlspolicies.yaml",
        ResourceKind::XMesh => "gateway.networking.x-k8s.io_xmeshes.yaml",
        ResourceKind::XBackend => "gateway.networking.x-k8s.io_xbackends.yaml",
        ResourceKind::XBackendTrafficPolicy => {
            "gateway.networking.x-k8s.io_xbackendtrafficpolicies.yaml"
        }
        ResourceKind::XTelemetryPolicy => "gateway.networking.x-k8s.io_xtelemetrypolicies.yaml",
        _ => return None,
    })
}

/// The schema of `version` in the CRD, `None` when this release's CRD has no such version.
fn crd_schema(dir: &std::path::Path, file: &str, version: &str) -> Option<Value> {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let crd: Value = serde_saphyr::from_str_with_options(
        &text,
        serde_saphyr::options! { strict_booleans: true },
    )
    .unwrap();
    crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == version)
        .map(|v| v["schema"]["openAPIV3Schema"].clone())
}

/// Follows `$ref`s and drops the `null` alternative of optional fields.
fn resolve<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
    for _ in 0..64 {
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            let name = r.trim_start_matches("#/$defs/");
            node = &root["$defs"][name];
            continue;
        }
        if let Some(alts) = node
            .get("anyOf")
            .or(node.get("oneOf"))
            .and_then(Value::as_array)
        {
            let non_null: Vec<&Value> = alts.iter().filter(|a| a["type"] != "null").collect();
            if let [only] = non_null.as_slice() {
                node = only;
                continue;
            }
        }
        break;
    }
    node
}

/// A schema that accepts anything (a field kept as a `serde_json::Value`).
fn is_opaque(schema: &Value) -> bool {
    match schema {
        Value::Bool(true) => true,
        Value::Object(m) => ![
            "type",
            "properties",
            "items",
            "enum",
            "$ref",
            "anyOf",
            "oneOf",
        ]
        .iter()
        .any(|k| m.contains_key(*k)),
        _ => false,
    }
}

fn names(v: Option<&Value>) -> BTreeSet<String> {
    match v {
        Some(Value::Object(m)) => m.keys().cloned().collect(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| x.to_string().trim_matches('"').to_owned())
            .collect(),
        _ => BTreeSet::new(),
    }
}

fn list(set: impl IntoIterator<Item = String>) -> String {
    set.into_iter().collect::<Vec<_>>().join(", ")
}

struct Compare<'a> {
    ours_root: &'a Value,
    diffs: Vec<(String, String)>,
}

impl Compare<'_> {
    fn node(&mut self, ours: &Value, crd: &Value, path: &str) {
        let ours = resolve(self.ours_root, ours);
        if path == "metadata" {
            return;
        }
        if is_opaque(ours) {
            if crd.get("properties").is_some() || crd.get("items").is_some() {
                self.diffs.push((path.to_owned(), "opaque".into()));
            }
            return;
        }
        let (oe, ce) = (ours.get("enum"), crd.get("enum"));
        if oe.is_some() || ce.is_some() {
            let (o, c) = (names(oe), names(ce));
            if o != c {
                self.diffs.push((
                    path.to_owned(),
                    format!(
                        "enum: missing [{}] extra [{}]",
                        list(c.difference(&o).cloned()),
                        list(o.difference(&c).cloned())
                    ),
                ));
            }
        }
        let (op, cp) = (ours.get("properties"), crd.get("properties"));
        if op.is_some() || cp.is_some() {
            let (o, c) = (names(op), names(cp));
            for k in c.difference(&o) {
                self.diffs.push((join(path, k), "missing".into()));
            }
            for k in o.difference(&c) {
                self.diffs.push((join(path, k), "extra".into()));
            }
            let (or, cr) = (names(ours.get("required")), names(crd.get("required")));
            if or != cr {
                self.diffs.push((
                    path.to_owned(),
                    format!(
                        "required: missing [{}] extra [{}]",
                        list(cr.difference(&or).cloned()),
                        list(or.difference(&cr).cloned())
                    ),
                ));
            }
            for k in o.intersection(&c) {
                self.node(
                    &ours["properties"][k],
                    &crd["properties"][k],
                    &join(path, k),
                );
            }
        }
        match (ours.get("items"), crd.get("items")) {
            (Some(oi), Some(ci)) => self.node(oi, ci, &format!("{path}[]")),
            (None, Some(_)) => self.diffs.push((path.to_owned(), "not an array".into())),
            (Some(_), None) => self.diffs.push((path.to_owned(), "is an array".into())),
            (None, None) => {}
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Whether `diff` at `path` is a field of the types that `release` does not declare (or a
/// `required` list that differs only by such fields): the release-bound fields of
/// `FIELD_SPANS`. Returns the index of each span that explains it.
fn span_diffs(kind: ResourceKind, release: Release, path: &str, what: &str) -> Option<Vec<usize>> {
    let undeclared = |shape: &str| {
        FIELD_SPANS
            .iter()
            .position(|s| s.kind == kind && s.shape == shape && !s.declared_in(release))
    };
    if what == "extra" {
        return undeclared(path).map(|i| vec![i]);
    }
    // `required: missing [] extra [a, b]`: every extra one undeclared here.
    let extra = what
        .strip_prefix("required: missing [] extra [")?
        .strip_suffix(']')?;
    extra
        .split(", ")
        .map(|name| undeclared(&join(path, name)))
        .collect()
}

fn schemas_match_every_releases_crds_but_for_release_bound_and_documented_differences() {
    let trees = gamma_testenv::upstream::all_trees().expect("the test's precondition");
    let mut unexpected = Vec::new();
    let mut used = BTreeSet::new();
    let mut spans_seen = BTreeSet::new();
    let mut spans_expected = BTreeSet::new();
    let mut compared = 0;
    for (version_text, dir) in trees {
        let release = Release::parse(version_text).unwrap();
        let crds = dir.join("config/crd/experimental");
        for &kind in ResourceKind::ALL {
            let Some(file) = crd_file(kind) else { continue };
            if !crds.join(file).is_file() {
                // A kind this release does not have (XBackend before v1.6).
                continue;
            }
            // (A field inside another the release lacks is not compared, so not seen.)
            let lacking =
                |s: &gamma_model::validate::FieldSpan| s.kind == kind && !s.declared_in(release);
            for (i, s) in FIELD_SPANS.iter().enumerate() {
                let inside_another = FIELD_SPANS.iter().any(|o| {
                    lacking(o)
                        && s.shape.len() > o.shape.len()
                        && s.shape.starts_with(o.shape)
                        && s.shape[o.shape.len()..].starts_with(['.', '['])
                });
                if lacking(s) && !inside_another {
                    spans_expected.insert((release, i));
                }
            }
            let ours = serde_json::to_value(schema_for(kind)).unwrap();
            for api_version in kind.api_versions() {
                let version = api_version.rsplit('/').next().unwrap();
                let Some(crd) = crd_schema(&crds, file, version) else {
                    continue;
                };
                let mut cmp = Compare {
                    ours_root: &ours,
                    diffs: Vec::new(),
                };
                cmp.node(&ours, &crd, "");
                compared += 1;
                for (path, what) in cmp.diffs {
                    if let Some(spans) = span_diffs(kind, release, &path, &what) {
                        spans_seen.extend(spans.into_iter().map(|i| (release, i)));
                        continue;
                    }
                    let allowed = ALLOWED.iter().position(|(k, p, w, _)| {
                        (*k == "*"
                            || *k == kind.as_str()
                            || *k == format!("{kind} {version}")
                            || *k == format!("{kind}@{release}"))
                            && *p == path
                            && *w == what
                    });
                    match allowed {
                        Some(i) => {
                            used.insert(i);
                        }
                        None => {
                            unexpected.push(format!("{release} {kind} {version}: {path}: {what}"))
                        }
                    }
                }
            }
        }
    }
    let stale: Vec<_> = ALLOWED
        .iter()
        .enumerate()
        .filter(|(i, _)| !used.contains(i))
        .map(|(_, (k, p, w, _))| format!("{k}: {p}: {w}"))
        .collect();
    // A span that says a release lacks a field the release in fact declares is a wrong row.
    let wrong_spans: Vec<_> = spans_expected
        .difference(&spans_seen)
        .map(|(r, i)| format!("{r}: {:?}", FIELD_SPANS[*i]))
        .collect();
    assert!(compared >= 60, "compared only {compared} versions");
    assert!(
        unexpected.is_empty() && stale.is_empty() && wrong_spans.is_empty(),
        "unexpected differences:\n{}\n\nALLOWED entries that no longer occur:\n{}\n\nFIELD_SPANS rows the CRDs contradict:\n{}",
        unexpected.join("\n"),
        stale.join("\n"),
        wrong_spans.join("\n")
    );
}
