//! Engine-independent test vectors (`testdata/vectors/*.yaml`, format in
//! `testdata/vectors/README.md`): manifests, and requests with the decision the Gateway API
//! prescribes. Read here for every runner: the engine, `explain` and the reference matcher
//! (gamma-resolve `tests/vectors.rs`) and the real `gammactl` binary (gammactl
//! `tests/vectors.rs`, which includes this file by path), so that all of them are held to the
//! same expectations.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One vector file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VectorFile {
    /// What the file tests, with the Gateway API sections it follows.
    pub about: String,
    /// Kubernetes manifests (multi-document YAML), as `kubectl apply -f` takes them.
    pub manifests: String,
    /// Requests and what each must decide.
    pub cases: Vec<Case>,
}

/// One request and its expected decision.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// A name, unique in the file.
    pub name: String,
    /// The spec rule the case checks (cited, so that a failure says which rule broke).
    pub spec: String,
    /// The request, in `gammactl resolve --requests` form (`to` is `IP:PORT` here).
    pub request: VectorRequest,
    /// The decision.
    pub expect: Expect,
}

/// A request: the fields of a `gammactl resolve --requests` line.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VectorRequest {
    /// The client's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The destination `IP:PORT`.
    pub to: String,
    /// Host header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// HTTP method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Path and query (for gRPC, `/service/method`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Headers as `[name, value]` pairs, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// TLS SNI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sni: Option<String>,
    /// `http` (default), `grpc`, `tls`, `tcp` or `udp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Entropy for a weighted backend pick (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entropy: Option<u64>,
}

impl VectorRequest {
    /// The destination address.
    pub fn destination(&self) -> SocketAddr {
        self.to
            .parse()
            .unwrap_or_else(|e| panic!("vector `to` {:?} is not IP:PORT: {e}", self.to))
    }
}

/// A decision in the vectors' terms: what any engine must agree on (route, rule, backend,
/// redirect, status), without what only one computes (header edits, timeouts).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Expect {
    /// Forwarded by rule `rule` of `route` (`KIND namespace/name`) to `backend`
    /// (`namespace/name:port`).
    Forward {
        /// `KIND namespace/name`.
        route: String,
        /// The rule's index in the route.
        rule: u16,
        /// `namespace/name:port`.
        backend: String,
    },
    /// Answered with a redirect.
    Redirect {
        /// `KIND namespace/name`.
        route: String,
        /// The rule's index in the route.
        rule: u16,
        /// 301, 302, ...
        status: u16,
        /// The `Location`.
        location: String,
    },
    /// Answered with a status (`HTTP 404`, `HTTP 500`, `gRPC UNIMPLEMENTED`,
    /// `connection rejected`), by a rule when one matched.
    Respond {
        /// `HTTP 404`, ...
        status: String,
        /// The rule that matched but could not be used, as `KIND namespace/name rule N`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// Nothing bound at the destination: plain Kubernetes Service behaviour.
    Passthrough,
}

impl Expect {
    /// The vectors' form of a decision in the engine's stable JSON shape (`gammactl resolve -o
    /// json`, `Explanation::decision_json`, `serde_json::to_value(&decision)`).
    pub fn from_decision_json(v: &serde_json::Value) -> Expect {
        let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_owned();
        let route = |r: &serde_json::Value| {
            format!(
                "{} {}/{}",
                s(&r["route"]["kind"]),
                s(&r["route"]["namespace"]),
                s(&r["route"]["name"])
            )
        };
        let index = |r: &serde_json::Value| {
            u16::try_from(r["index"].as_u64().unwrap_or(u64::MAX)).unwrap_or(u16::MAX)
        };
        match v["decision"].as_str() {
            Some("forward") => {
                let b = &v["backend"];
                Expect::Forward {
                    route: route(&v["rule"]),
                    rule: index(&v["rule"]),
                    backend: format!(
                        "{}/{}:{}",
                        s(&b["namespace"]),
                        s(&b["name"]),
                        b["port"].as_u64().map_or("-".to_owned(), |p| p.to_string())
                    ),
                }
            }
            Some("redirect") => Expect::Redirect {
                route: route(&v["rule"]),
                rule: index(&v["rule"]),
                status: u16::try_from(v["status"].as_u64().unwrap_or(0)).unwrap_or(0),
                location: s(&v["location"]),
            },
            Some("respond") => {
                let status: gamma_resolve::Status = serde_json::from_value(v["status"].clone())
                    .unwrap_or_else(|e| panic!("status of {v}: {e}"));
                Expect::Respond {
                    status: status.to_string(),
                    by: v
                        .get("rule")
                        .filter(|r| !r.is_null())
                        .map(|r| format!("{} rule {}", route(r), index(r))),
                }
            }
            Some("passthrough") => Expect::Passthrough,
            _ => panic!("not a decision: {v}"),
        }
    }
}

/// The vector directory (`testdata/vectors` at the workspace root).
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vectors")
}

/// Every vector file, in name order, with its path.
pub fn all() -> Vec<(PathBuf, VectorFile)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("testdata/vectors exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no vector files in {}", dir().display());
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable vector file");
            let file: VectorFile =
                serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let mut names: Vec<&str> = file.cases.iter().map(|c| c.name.as_str()).collect();
            names.sort_unstable();
            let n = names.len();
            names.dedup();
            assert_eq!(names.len(), n, "{}: case names repeat", p.display());
            (p, file)
        })
        .collect()
}
