//! Why a test environment could not be had.

use std::path::PathBuf;

/// The piece whose absence makes the environment [`Error::Unavailable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Missing {
    /// No `go` on `PATH`: the API server is built from Go modules.
    Go,
    /// `GAMMA_UPSTREAM_DIR` is unset, or has no `config/crd/<channel>/`.
    UpstreamCrds,
    /// `go` is there but building `tools/kube-testenv` failed (e.g. no module proxy).
    Build,
    /// A Gateway API release tree could not be fetched (`tools/gateway-api-release` failed).
    ReleaseData,
}

/// A test environment that could not be started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A prerequisite is missing on this machine: tests are reported ignored (see
    /// [`crate::harness`]) unless `GAMMA_REQUIRE_TESTENV=1`.
    #[error("kube-testenv unavailable ({missing:?}): {detail}")]
    Unavailable {
        /// What is missing.
        missing: Missing,
        /// A sentence naming it, with the build's last error lines where there was a build.
        detail: String,
    },
    /// Everything was there but the server did not come up: always a failure.
    #[error("kube-testenv did not start: {detail}\n--- server log {log} (tail) ---\n{log_tail}")]
    Start {
        /// What went wrong.
        detail: String,
        /// The server's log file.
        log: PathBuf,
        /// The last lines of that log.
        log_tail: String,
    },
    /// Stopping the server left something behind or failed.
    #[error("kube-testenv did not stop cleanly: {detail}")]
    Stop {
        /// What went wrong.
        detail: String,
    },
    /// An I/O error while managing the process or its files.
    #[error("kube-testenv: {context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let context = context.into();
        move |source| Error::Io { context, source }
    }
}
