//! The Gateway API release trees the tests read: CRDs, examples and invalid examples of every
//! release gamma-rs supports, obtained without manual steps.
//!
//! [`release_tree`] looks for `gateway-api-<version>/` under `$GAMMA_UPSTREAM_ROOT` first (CI
//! points it at a read-only copy of the trees), then asks `tools/gateway-api-release` (Go,
//! standard library only), which fetches the release's module zip from the Go module proxy
//! with `go mod download` and extracts `config/crd`, `examples`, `hack/invalid-examples` and
//! `LICENSE` into a cache shared by every clone (`$GAMMA_UPSTREAM_CACHE`, else the user's
//! cache folder). A machine with Go therefore needs no `git clone` and no environment variable.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::error::{Error, Missing};

/// The patch releases whose trees the tests use, one per supported minor series, oldest first.
pub const RELEASES: [&str; 3] = ["v1.5.1", "v1.6.1", "v1.7.0"];

/// The environment variable naming a folder that holds `gateway-api-<version>/` trees.
pub const ROOT_ENV: &str = "GAMMA_UPSTREAM_ROOT";

/// The fetch tool, in this repository.
const FETCH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tools/gateway-api-release"
);

/// Trees found so far in this process (each fetch runs at most once per version).
static FOUND: Mutex<BTreeMap<String, Result<PathBuf, String>>> = Mutex::new(BTreeMap::new());

/// The folder of release `version` (`v1.7.0`): it holds `config/crd/{standard,experimental}`,
/// `examples/` and `hack/invalid-examples/`.
///
/// # Errors
///
/// [`Error::Unavailable`] with [`Missing::Go`] when the tree is not under
/// `$GAMMA_UPSTREAM_ROOT` and there is no `go` to fetch it, or [`Missing::ReleaseData`] when
/// the fetch failed (no module proxy reachable, say).
pub fn release_tree(version: &str) -> Result<PathBuf, Error> {
    if let Some(root) = std::env::var_os(ROOT_ENV) {
        let dir = Path::new(&root).join(format!("gateway-api-{version}"));
        if dir.join("config").join("crd").is_dir() {
            return Ok(dir);
        }
    }
    let mut found = FOUND
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let entry = found
        .entry(version.to_owned())
        .or_insert_with(|| fetch(version));
    match entry {
        Ok(dir) => Ok(dir.clone()),
        Err(detail) if detail.starts_with("go not found") => Err(Error::Unavailable {
            missing: Missing::Go,
            detail: detail.clone(),
        }),
        Err(detail) => Err(Error::Unavailable {
            missing: Missing::ReleaseData,
            detail: detail.clone(),
        }),
    }
}

/// The tree of the tests that read one release, v1.6.1: `$GAMMA_UPSTREAM_DIR` when it is set
/// (a checkout of any release the caller wants to try), else [`release_tree`]`("v1.6.1")`.
/// `None` when neither is available, after saying why on standard error, so that the caller
/// can skip with its own note.
pub fn v1_6_1() -> Option<std::ffi::OsString> {
    if let Some(dir) = std::env::var_os("GAMMA_UPSTREAM_DIR") {
        return Some(dir);
    }
    match release_tree("v1.6.1") {
        Ok(dir) => Some(dir.into_os_string()),
        Err(e) => {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "{e}");
            None
        }
    }
}

/// Every release tree of [`RELEASES`], oldest first, as (version, folder). `None` when one is
/// unavailable, after saying why on standard error, so that the caller can skip with its own
/// note.
pub fn all_trees() -> Option<Vec<(&'static str, PathBuf)>> {
    let mut out = Vec::with_capacity(RELEASES.len());
    for version in RELEASES {
        match release_tree(version) {
            Ok(dir) => out.push((version, dir)),
            Err(e) => {
                use std::io::Write as _;
                let _ = writeln!(std::io::stderr(), "{e}");
                return None;
            }
        }
    }
    Some(out)
}

fn fetch(version: &str) -> Result<PathBuf, String> {
    let output = Command::new("go")
        .args(["run", ".", version])
        .current_dir(FETCH)
        .env("GOTOOLCHAIN", "local")
        .output();
    let output = match output {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "go not found on PATH: Gateway API {version}'s test data is fetched with `go mod download` (or set {ROOT_ENV} to a folder holding gateway-api-{version}/)"
            ));
        }
        Err(e) => return Err(format!("running {FETCH}: {e}")),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let dir = PathBuf::from(stdout.trim());
    if output.status.success() && dir.join("config").join("crd").is_dir() {
        Ok(dir)
    } else {
        Err(format!(
            "fetching Gateway API {version} with tools/gateway-api-release failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}
