//! The upstream CRDs of one channel and the upstream examples, read from `$GAMMA_UPSTREAM_DIR`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// One served version of one CRD.
pub struct Version {
    /// `spec.group`.
    pub group: String,
    /// The version name (`v1`, `v1alpha2`, ...).
    pub version: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.names.plural`: the resource in the URL.
    pub plural: String,
    /// `spec.scope == Namespaced`.
    pub namespaced: bool,
    /// `schema.openAPIV3Schema`.
    pub schema: Value,
}

impl Version {
    /// `group/version`.
    pub fn api_version(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }
}

fn read_yaml_documents(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_multiple_with_options::<Value>(
        &text,
        serde_saphyr::options! { strict_booleans: true },
    )
    .unwrap_or_default()
    .into_iter()
    .filter(|v| v.is_object())
    .collect()
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(path);
            }
        }
    }
    // Directory order is the file system's: sort, so the corpus is the same everywhere.
    out.sort();
    out
}

/// Every served version of every CRD of `channel` (`standard` or `experimental`), in file
/// order then version order.
pub fn served_versions(upstream: &Path, channel: &str) -> Vec<Version> {
    let mut out = Vec::new();
    for file in yaml_files(&upstream.join("config/crd").join(channel)) {
        for crd in read_yaml_documents(&file) {
            if crd["kind"] != "CustomResourceDefinition" {
                continue;
            }
            let spec = &crd["spec"];
            for v in spec["versions"].as_array().into_iter().flatten() {
                if v["served"] != true {
                    continue;
                }
                out.push(Version {
                    group: spec["group"].as_str().unwrap().to_owned(),
                    version: v["name"].as_str().unwrap().to_owned(),
                    kind: spec["names"]["kind"].as_str().unwrap().to_owned(),
                    plural: spec["names"]["plural"].as_str().unwrap().to_owned(),
                    namespaced: spec["scope"] == "Namespaced",
                    schema: v["schema"]["openAPIV3Schema"].clone(),
                });
            }
        }
    }
    out
}

/// Every object of the upstream examples (both channels' directories), in file order.
pub fn examples(upstream: &Path) -> Vec<Value> {
    yaml_files(&upstream.join("examples"))
        .iter()
        .flat_map(|f| read_yaml_documents(f))
        .collect()
}

/// The document `object` becomes for `version`: its type, and metadata the API server accepts
/// (name `a`, in `default` when namespaced); its status removed.
pub fn document(version: &Version, mut object: Value) -> Value {
    let o = object.as_object_mut().unwrap();
    o.remove("status");
    o.insert("apiVersion".into(), json!(version.api_version()));
    o.insert("kind".into(), json!(version.kind));
    let mut meta = json!({"name": "a"});
    if version.namespaced {
        meta["namespace"] = json!("default");
    }
    o.insert("metadata".into(), meta);
    object
}
