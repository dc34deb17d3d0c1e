//! Shared by the gamma-rs library examples (`examples/examples/*.rs`): loading the sample
//! cluster in `examples/manifests/` and its arbiter configuration `examples/gamma-config.yaml`.
//!
//! The examples themselves are the documentation; run one with
//! `cargo run -p gamma-examples --example resolve` (or `arbitrate`, `controller`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

use std::error::Error;
use std::path::{Path, PathBuf};

use gamma_mesh::arbiter::ArbiterConfig;
use gamma_mesh::model::{AnyResource, Snapshot, decode};

/// Errors of this crate: a file that cannot be read or decoded, named in the message.
pub type BoxError = Box<dyn Error + Send + Sync>;

/// The folder of this package (`examples/`), found at compile time so that the examples run
/// from any working directory.
pub fn package_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The sample cluster's manifest files: the `*.yaml` files directly in `examples/manifests/`,
/// in name order (the order `gammactl -f examples/manifests/` reads them in). The `smi/`
/// subfolder is a separate sample and is not included.
pub fn sample_files() -> Result<Vec<PathBuf>, BoxError> {
    let dir = package_dir().join("manifests");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry?.path();
        if path.is_file() && path.extension().is_some_and(|x| x == "yaml") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Every object of the sample cluster, in file order and, within a file, document order.
pub fn sample_resources() -> Result<Vec<AnyResource>, BoxError> {
    let mut out = Vec::new();
    for path in sample_files()? {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        out.extend(decode(&text).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    Ok(out)
}

/// The sample cluster as one [`Snapshot`].
pub fn sample_snapshot() -> Result<Snapshot, BoxError> {
    Ok(Snapshot::from_resources(sample_resources()?))
}

/// The arbiter configuration of the sample (`examples/gamma-config.yaml`): Istio and Linkerd
/// registered with their namespace selectors, Linkerd the explicit default.
pub fn sample_config() -> Result<ArbiterConfig, BoxError> {
    let path = package_dir().join("gamma-config.yaml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(ArbiterConfig::decode(&text).map_err(|e| format!("{}: {e}", path.display()))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_loads_with_the_object_count_its_readme_states() {
        // examples/manifests/README.md: "Files and objects (58)".
        let objects = sample_resources().unwrap();
        assert_eq!(objects.len(), 58);
        assert_eq!(sample_config().unwrap().meshes.len(), 2);
    }
}

// The repository README's and docs/kube.md's Rust snippets are doctests of this crate (which
// is not published, so it may read files outside itself), so they always compile.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

#[cfg(doctest)]
#[doc = include_str!("../../docs/kube.md")]
struct KubeDocDoctests;
