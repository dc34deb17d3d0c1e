//! Decoding fidelity against the upstream Gateway API examples (v1.6.1) and the repository's
//! sample manifests:
//! - every manifest decodes;
//! - encoding a decoded object gives back the input document exactly (so the JSON round trip
//!   decode -> encode -> decode is lossless, and no upstream field is silently dropped);
//! - older apiVersions keep their apiVersion; unknown fields are accepted and ignored.
//!
//! The upstream files are found through `GAMMA_UPSTREAM_DIR` or `gamma_testenv::upstream`;
//! without them those tests are reported ignored, with the reason (the repository's own
//! manifests are always checked).

use std::path::{Path, PathBuf};

use gamma_model::{AnyResource, decode};
use gamma_model::{DecodeOptions, decode_documents};
use gamma_testenv::harness::release_v1_6_1;
use serde_json::Value;

gamma_testenv::test_main! {
    every_upstream_example_decodes_and_round_trips_exactly if release_v1_6_1,
    every_repository_manifest_decodes_and_round_trips_exactly,
    older_api_versions_keep_the_version_they_came_with if release_v1_6_1,
    older_api_versions_of_every_served_kind_decode,
    unknown_fields_are_accepted_and_ignored,
    upstream_gateways_with_spec_tls_decode_it_typed if release_v1_6_1,
}

/// The v1.6.1 tree (the tests' precondition `release_v1_6_1`).
fn upstream_dir() -> PathBuf {
    PathBuf::from(gamma_testenv::upstream::v1_6_1().expect("the test's precondition"))
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml" | "json")
            ) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn repo_manifests() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/manifests")
}

/// The input documents as plain JSON values, read as gamma-rs reads YAML (YAML 1.2 booleans).
fn originals(text: &str) -> Vec<Value> {
    serde_saphyr::from_multiple_with_options(text, serde_saphyr::options! { strict_booleans: true })
        .unwrap()
}

/// Whether every field of `encoded` is in `original` with the same value (objects may lack
/// fields of `original`; arrays must match element by element).
fn assert_subset(encoded: &Value, original: &Value, path: &str) {
    match (encoded, original) {
        (Value::Object(e), Value::Object(o)) => {
            for (k, v) in e {
                let Some(ov) = o.get(k) else {
                    panic!("{path}.{k}: added by encoding: {v}");
                };
                assert_subset(v, ov, &format!("{path}.{k}"));
            }
        }
        (Value::Array(e), Value::Array(o)) => {
            assert_eq!(e.len(), o.len(), "{path}: array length changed");
            for (i, (ev, ov)) in e.iter().zip(o).enumerate() {
                assert_subset(ev, ov, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(encoded, original, "{path}: value changed"),
    }
}

/// Decodes `path`, checks each object re-encodes to its input document, and that a second
/// decode of the encoding gives the same object. Returns the number of objects.
///
/// Gateway API objects must re-encode exactly: every upstream field is modelled. The core
/// kinds (Service, Namespace, EndpointSlice) are modelled as the subset routing needs, so
/// their encoding must only be a subset of the input.
fn check_file(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let decoded = decode_documents(&text, &DecodeOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        decoded.skipped.is_empty(),
        "{}: unsupported kinds",
        path.display()
    );
    let originals = originals(&text);
    assert_eq!(
        originals.len(),
        decoded.documents.len(),
        "{}",
        path.display()
    );
    for (doc, original) in decoded.documents.iter().zip(&originals) {
        let encoded = serde_json::to_value(&doc.resource).unwrap();
        let at = format!("{}:{}", path.display(), doc.at.line.unwrap_or(0));
        if doc.resource.api_version().starts_with("gateway.networking") {
            assert_eq!(
                &encoded,
                original,
                "{at}: re-encoding {} changed the document",
                doc.resource.kind()
            );
        } else {
            assert_subset(&encoded, original, &at);
        }
        let again = decode(&serde_json::to_string(&encoded).unwrap()).unwrap();
        assert_eq!(again.len(), 1, "{}", path.display());
        assert_eq!(again[0], doc.resource, "{}", path.display());
    }
    decoded.documents.len()
}

fn every_upstream_example_decodes_and_round_trips_exactly() {
    let dir = upstream_dir();
    let files = yaml_files(&dir.join("examples"));
    assert!(files.len() > 50, "found only {} example files", files.len());
    let objects: usize = files.iter().map(|f| check_file(f)).sum();
    eprintln!("{} upstream example files, {objects} objects", files.len());
}

fn every_repository_manifest_decodes_and_round_trips_exactly() {
    let files = yaml_files(&repo_manifests());
    assert!(!files.is_empty());
    let objects: usize = files.iter().map(|f| check_file(f)).sum();
    assert!(objects > 10);
}

fn older_api_versions_keep_the_version_they_came_with() {
    let dir = upstream_dir();
    let mut seen = 0;
    for file in yaml_files(&dir.join("examples")) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (object, original) in decode(&text).unwrap().iter().zip(&originals(&text)) {
            assert_eq!(object.api_version(), original["apiVersion"]);
            if !object.api_version().ends_with("/v1") && object.api_version() != "v1" {
                seen += 1;
                let encoded = serde_json::to_value(object).unwrap();
                assert_eq!(encoded["apiVersion"], original["apiVersion"]);
            }
        }
    }
    assert!(seen > 0, "no example uses an older apiVersion");
}

fn older_api_versions_of_every_served_kind_decode() {
    // One object per (kind, older apiVersion) the CRDs still serve.
    for (api_version, kind) in [
        ("gateway.networking.k8s.io/v1beta1", "HTTPRoute"),
        ("gateway.networking.k8s.io/v1beta1", "ReferenceGrant"),
        ("gateway.networking.k8s.io/v1alpha2", "TLSRoute"),
        ("gateway.networking.k8s.io/v1alpha3", "TLSRoute"),
        ("gateway.networking.k8s.io/v1alpha2", "TCPRoute"),
        ("gateway.networking.k8s.io/v1alpha2", "UDPRoute"),
    ] {
        let text = format!(
            "apiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: x, namespace: y}}\nspec: {{}}\n"
        );
        let objects = decode(&text).unwrap_or_else(|e| panic!("{api_version} {kind}: {e}"));
        assert_eq!(objects[0].api_version(), api_version);
        assert_eq!(objects[0].kind().as_str(), kind);
    }
}

fn unknown_fields_are_accepted_and_ignored() {
    let with_unknown = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  namespace: n
  managedFields: [{manager: kubectl}]
  ownerReferences: [{kind: X, name: y}]
futureTopLevel: 1
spec:
  futureSpecField: {a: b}
  parentRefs: [{group: "", kind: Service, name: s, futureRefField: true}]
  rules:
  - backendRefs: [{name: b, port: 80, futureBackendField: [1, 2]}]
    futureRuleField: x
status:
  parents: []
  futureStatusField: 1
"#;
    let without = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: n}
spec:
  parentRefs: [{group: "", kind: Service, name: s}]
  rules:
  - backendRefs: [{name: b, port: 80}]
status:
  parents: []
"#;
    let a = decode(with_unknown).unwrap();
    assert_eq!(a, decode(without).unwrap());
    let AnyResource::HttpRoute(route) = &a[0] else {
        panic!("expected an HTTPRoute");
    };
    assert_eq!(route.spec.parent_refs[0].name, "s");
    assert_eq!(route.metadata.namespace.as_deref(), Some("n"));
}

// `Gateway.spec.tls` is typed. Every upstream example that sets it (frontend CA
// validation, backend client certificate) decodes it into the typed fields, re-encodes it to
// exactly the input's `spec.tls`, and validates on both channels.
fn upstream_gateways_with_spec_tls_decode_it_typed() {
    use gamma_model::Validate;
    use gamma_model::validate::{Channel, ValidateOptions};
    let dir = upstream_dir();
    let mut found = Vec::new();
    for file in yaml_files(&dir.join("examples")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let decoded = decode_documents(&text, &DecodeOptions::default()).unwrap();
        for (doc, original) in decoded.documents.iter().zip(originals(&text)) {
            let AnyResource::Gateway(g) = &doc.resource else {
                continue;
            };
            let Some(want) = original["spec"].get("tls") else {
                continue;
            };
            let at = format!("{}:{}", file.display(), doc.at.line.unwrap_or(0));
            let tls = g
                .spec
                .tls
                .as_ref()
                .unwrap_or_else(|| panic!("{at}: tls dropped"));
            assert_eq!(&serde_json::to_value(tls).unwrap(), want, "{at}");
            // The typed fields carry the input's values (not a pass-through of raw JSON).
            if let Some(name) = want["backend"]["clientCertificateRef"]["name"].as_str() {
                let r = tls
                    .backend
                    .as_ref()
                    .and_then(|b| b.client_certificate_ref.as_ref());
                assert_eq!(r.map(|r| r.name.as_str()), Some(name), "{at}");
            }
            if let Some(ports) = want["frontend"]["perPort"].as_array() {
                let f = tls.frontend.as_ref().unwrap();
                let typed: Vec<i64> = f.per_port.iter().map(|p| i64::from(p.port)).collect();
                let input: Vec<i64> = ports.iter().map(|p| p["port"].as_i64().unwrap()).collect();
                assert_eq!(typed, input, "{at}");
            }
            for channel in [Channel::Standard, Channel::Experimental] {
                if let Err(e) = doc
                    .resource
                    .validate_with(&ValidateOptions::channel(channel))
                {
                    panic!("{at} ({channel:?}): {e}");
                }
            }
            found.push(at);
        }
    }
    // v1.6.1 has two: examples/standard/frontend-cert-validation.yaml and backend-tls.yaml.
    assert!(found.len() >= 2, "only {found:?} set spec.tls");
}
