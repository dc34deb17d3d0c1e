//! A real Kubernetes API server for gamma-rs tests.
//!
//! This dev-only crate manages the process of `tools/kube-testenv/start` (kube-apiserver with an
//! embedded etcd on 127.0.0.1, with the Gateway API CRDs of one release channel installed); it
//! has no Kubernetes client of its own: tests talk to the server through the
//! [`TestEnv::kubeconfig`] it writes.
//!
//! - [`shared`]: one server per test binary and [`Channel`], started on first use and stopped when
//!   the test binary exits (the server stops when its stdin closes, which the exit does).
//! - [`harness`] and [`test_main!`]: test binaries (`harness = false`) whose tests check their
//!   preconditions (release data, an API server that can start) first, and are reported
//!   **ignored** with the reason when one is missing, unless `GAMMA_REQUIRE_TESTENV=1` (set by
//!   CI) makes that a failure; [`server`] then gives such a test the shared server.
//! - [`shared_release`] / [`server_release`]: the same with the CRDs of any Gateway API
//!   release ([`TestEnv::start_release`]); [`shared`] installs [`DEFAULT_RELEASE`]'s (v1.6.1).
//! - [`TestEnv::start`]: a private server that [`TestEnv::stop`] stops, for tests of the
//!   environment itself; [`TestEnv::start_with`] for one that can be restarted
//!   ([`TestEnv::restart`]: same data, URL and kubeconfig) or whose etcd can be compacted
//!   ([`TestEnv::compact_etcd`]: watches from older resourceVersions get 410 Gone), for tests
//!   of faults, or whose kube-apiserver serves other built-in APIs than its defaults
//!   ([`Options::runtime_config`], [`Options::feature_gates`]).
//! - [`upstream::release_tree`]: the CRDs, examples and invalid examples of each supported
//!   Gateway API release ([`upstream::RELEASES`]), fetched from the Go module proxy on first use.
//! - [`TestEnv::namespace_name`]: a fresh unique namespace name per test (creating the
//!   Namespace is the caller's job).
//! - [`layers::check`]: whether a crate's modules import one way, bottom to top, by a layer
//!   table (the source-layout tests of gamma-resolve and gamma-model).
//!
//! ```no_run
//! use gamma_testenv::Channel;
//! use gamma_testenv::harness::standard_server;
//!
//! fn status_write() {
//!     let env = gamma_testenv::server(Channel::Standard);
//!     let namespace = env.namespace_name("status-write");
//!     // ... connect a client with env.kubeconfig(), create `namespace`, test ...
//!     # let _ = namespace;
//! }
//!
//! // tests/status.rs, declared `harness = false`: ignored, with the reason, where no API
//! // server can be started.
//! gamma_testenv::test_main! {
//!     status_write if standard_server,
//! }
//! ```
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

mod error;
pub mod harness;
mod kubeconfig;
// The layer check parses the project's own source files, run by tests: it indexes into text it
// has just measured, and a slip there fails a test rather than a program in production.
#[allow(clippy::indexing_slicing)]
pub mod layers;
mod names;
mod process;
mod shared;
pub mod upstream;

pub use error::{Error, Missing};
pub use names::namespace_name;
pub use process::{Channel, DEFAULT_RELEASE, Options, TestEnv};
pub use shared::{REQUIRE_ENV, server, server_release, shared, shared_release};
