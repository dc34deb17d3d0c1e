//! The JSON Schema of each Gateway API kind against the upstream CRD's `openAPIV3Schema`
//! (v1.6.1, experimental channel, a superset of standard), version by version: property names,
//! `required` lists and enums, recursively through objects and arrays.
//!
//! Any difference fails the test unless it is listed in `ALLOWED` with its reason (the same
//! list is documented in docs/schema.md); an `ALLOWED` entry that no longer occurs fails too, so
//! the list stays exact. Rules applied everywhere:
//! - `metadata` is not compared: the CRDs leave it to the API server (`type: object`), gamma-rs
//!   models the subset it reads.
//! - Nullability is not compared (gamma-rs accepts `null` for optional fields).
//!
//! Skips with a message when `GAMMA_UPSTREAM_DIR` is unset.

use std::collections::BTreeSet;
use std::path::PathBuf;

use gamma_model::ResourceKind;
use gamma_model::schema::schema_for;
use serde_json::Value;

/// Documented differences: (kind or `*`, path, difference, why).
const ALLOWED: &[(&str, &str, &str, &str)] = &[
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
        _ => return None,
    })
}

fn crd_schema(dir: &std::path::Path, file: &str, version: &str) -> Value {
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
        .unwrap_or_else(|| panic!("{file}: no version {version}"))["schema"]["openAPIV3Schema"]
        .clone()
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

#[test]
fn schemas_match_the_upstream_crds_but_for_documented_differences() {
    let Some(dir) = gamma_testenv::upstream::v1_6_1().map(PathBuf::from) else {
        gamma_skip_note(
            "skipped: GAMMA_UPSTREAM_DIR is not set: skipping the CRD schema comparison",
        );
        return;
    };
    let crds = dir.join("config/crd/experimental");
    let mut unexpected = Vec::new();
    let mut used = BTreeSet::new();
    let mut compared = 0;
    for &kind in ResourceKind::ALL {
        let Some(file) = crd_file(kind) else { continue };
        let ours = serde_json::to_value(schema_for(kind)).unwrap();
        for api_version in kind.api_versions() {
            let version = api_version.rsplit('/').next().unwrap();
            let crd = crd_schema(&crds, file, version);
            let mut cmp = Compare {
                ours_root: &ours,
                diffs: Vec::new(),
            };
            cmp.node(&ours, &crd, "");
            compared += 1;
            for (path, what) in cmp.diffs {
                let allowed = ALLOWED.iter().position(|(k, p, w, _)| {
                    (*k == "*" || *k == kind.as_str() || *k == format!("{kind} {version}"))
                        && *p == path
                        && *w == what
                });
                match allowed {
                    Some(i) => {
                        used.insert(i);
                    }
                    None => unexpected.push(format!("{kind} {version}: {path}: {what}")),
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
    assert!(compared >= 20, "compared only {compared} versions");
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "unexpected differences:\n{}\n\nALLOWED entries that no longer occur:\n{}",
        unexpected.join("\n"),
        stale.join("\n")
    );
}

/// Says a test skipped. Written to stderr directly rather than with `eprintln!`, which the test
/// harness captures: the note shows in the output of `cargo test`, not only when a test fails.
fn gamma_skip_note(message: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{message}");
}
