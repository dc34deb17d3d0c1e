//! Test binaries whose tests say when they cannot run: such a test is reported **ignored**,
//! with the reason, never passed.
//!
//! The built-in test harness decides `#[ignore]` at compile time only, so a test that finds
//! its environment missing (no Gateway API release data, no Go to build the API server) could
//! only return early, and was counted as passed. A test binary built with [`test_main!`](crate::test_main)
//! (declared `harness = false` in its crate's `Cargo.toml`) runs on
//! [libtest-mimic](https://docs.rs/libtest-mimic) instead, which takes the usual arguments
//! (`cargo test NAME`, `--exact`, `--skip`, `--list`, `--ignored`, `--test-threads`) and
//! reports an ignore decided at run time:
//!
//! ```text
//! test every_upstream_invalid_example_is_rejected_at_the_pinned_field ... ignored (kube-testenv unavailable (Go): ...)
//! test result: ok. 2 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out
//! ```
//!
//! Each test is a plain `fn()` (a `proptest!` function too, without its `#[test]`), or an
//! `async fn()` marked `#[tokio]`, run on a two-worker tokio runtime of its own. Its
//! [`Precondition`]s are checked first, once, in the test's own run: one that fails makes the
//! test ignored with its [`SkipReason`], or failed when `GAMMA_REQUIRE_TESTENV=1`
//! ([`REQUIRE_ENV`](crate::REQUIRE_ENV), set by CI) and the reason is
//! [`SkipReason::unavailable`] ([`decide`]). The body then takes what it needs with
//! [`crate::server`] and friends, which fail the test if it is missing after all.
//!
//! Unlike the built-in harness, libtest-mimic does not capture a test's output.

use std::fmt;
use std::process::ExitCode;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use crate::error::Error;
use crate::process::{Channel, TestEnv};

/// Why a test cannot run on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkipReason {
    reason: String,
    demanded: bool,
}

impl SkipReason {
    /// Something the test environment provides is missing (Go, Gateway API release data, the
    /// API server): the test is ignored, or fails when `GAMMA_REQUIRE_TESTENV=1`.
    pub fn unavailable(reason: impl Into<String>) -> SkipReason {
        SkipReason {
            reason: reason.into(),
            demanded: true,
        }
    }

    /// The case the test needs cannot be produced on this machine (running as root, which
    /// reads a mode-000 file anyway): the test is ignored, even when `GAMMA_REQUIRE_TESTENV=1`.
    pub fn inapplicable(reason: impl Into<String>) -> SkipReason {
        SkipReason {
            reason: reason.into(),
            demanded: false,
        }
    }

    /// The reason, as reported.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Whether `GAMMA_REQUIRE_TESTENV=1` turns this skip into a failure
    /// ([`SkipReason::unavailable`]).
    pub fn is_demanded(&self) -> bool {
        self.demanded
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

/// What a test needs, checked before it runs: `Err` says why it cannot run here.
pub type Precondition = fn() -> Result<(), SkipReason>;

/// What becomes of a test, given its preconditions ([`decide`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Every precondition holds: the test runs.
    Run,
    /// A precondition failed: the test is reported ignored with this reason.
    Ignore(String),
    /// A precondition failed and the environment is required: the test fails with this
    /// message.
    Fail(String),
}

/// Checks `preconditions` in order: the first that fails decides, as an ignore, or as a
/// failure when `required` (`GAMMA_REQUIRE_TESTENV=1`) and its reason is
/// [`SkipReason::unavailable`].
pub fn decide(preconditions: &[Precondition], required: bool) -> Decision {
    for precondition in preconditions {
        if let Err(skip) = precondition() {
            return if required && skip.is_demanded() {
                Decision::Fail(format!(
                    "{skip} ({}=1: the test environment is required)",
                    crate::REQUIRE_ENV
                ))
            } else {
                // one line, as the harness prints it after the test's name
                Decision::Ignore(skip.reason.lines().collect::<Vec<_>>().join("; "))
            };
        }
    }
    Decision::Run
}

/// A libtest-mimic trial named `name` that runs `test` once `preconditions` hold
/// ([`decide`], with `GAMMA_REQUIRE_TESTENV` read when the trial runs).
pub fn trial(name: &str, test: fn(), preconditions: &[Precondition]) -> Trial {
    let preconditions = preconditions.to_vec();
    Trial::ignorable_test(name, move || {
        match decide(&preconditions, crate::shared::required()) {
            Decision::Run => {
                test();
                Ok(Completion::Completed)
            }
            Decision::Ignore(reason) => Ok(Completion::ignored_with(reason)),
            Decision::Fail(message) => Err(Failed::from(message)),
        }
    })
}

/// Runs `trials` with the test binary's command-line arguments, as the built-in harness does;
/// the exit code is failure when a trial failed.
pub fn run(trials: Vec<Trial>) -> ExitCode {
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

/// The `main` of a `harness = false` test binary: each test, by its function's name, with the
/// [`Precondition`]s it needs after `if` (joined by `&&`, named in scope); an `async fn` test is
/// marked `#[tokio]` (the crate needs tokio's `rt-multi-thread`).
///
/// ```no_run
/// use gamma_testenv::harness::{release_trees, standard_server};
///
/// fn plain() {}
///
/// fn reads_the_release_data() {
///     let trees = gamma_testenv::upstream::all_trees().expect("release_trees held");
///     # let _ = trees;
/// }
///
/// fn talks_to_the_api_server() {
///     let env = gamma_testenv::server(gamma_testenv::Channel::Standard);
///     # let _ = env;
/// }
///
/// gamma_testenv::test_main! {
///     plain,
///     reads_the_release_data if release_trees,
///     talks_to_the_api_server if release_trees && standard_server,
///     // #[tokio] an_async_test if standard_server,
/// }
/// ```
#[macro_export]
macro_rules! test_main {
    ( $( $( #[$runtime:ident] )? $test:ident $( if $( $precondition:ident )&&+ )? ),* $(,)? ) => {
        fn main() -> ::std::process::ExitCode {
            $crate::harness::run(::std::vec![$(
                $crate::harness::trial(
                    ::std::stringify!($test),
                    $crate::test_main!(@body $($runtime)? $test),
                    &[$($( $precondition as $crate::harness::Precondition ),+)?],
                )
            ),*])
        }
    };
    (@body $test:ident) => { $test as fn() };
    (@body tokio $test:ident) => {
        (|| {
            ::tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a tokio runtime")
                .block_on($test())
        }) as fn()
    };
}

/// A failure to have something the preconditions promised: [`Error::Unavailable`] becomes a
/// [`SkipReason::unavailable`]; any other error (a server that did not start) panics, failing
/// the test.
#[allow(clippy::panic)] // failing the calling test is this function's job
fn unavailable(result: Result<(), Error>) -> Result<(), SkipReason> {
    match result {
        Ok(()) => Ok(()),
        Err(e @ Error::Unavailable { .. }) => Err(SkipReason::unavailable(e.to_string())),
        Err(e) => panic!("{e}"),
    }
}

/// [`unavailable`] for the release data: the reason is the error's detail alone (it names what
/// is missing: Go, or the fetch that failed).
fn no_release(result: Result<std::path::PathBuf, Error>) -> Result<(), SkipReason> {
    match result {
        Err(Error::Unavailable { detail, .. }) => Err(SkipReason::unavailable(detail)),
        other => unavailable(other.map(drop)),
    }
}

/// Precondition: every Gateway API release tree of [`crate::upstream::RELEASES`] is at hand
/// ([`crate::upstream::all_trees`] is `Some`).
pub fn release_trees() -> Result<(), SkipReason> {
    for version in crate::upstream::RELEASES {
        no_release(crate::upstream::release_tree(version))?;
    }
    Ok(())
}

/// Precondition: the Gateway API v1.6.1 tree is at hand, or `$GAMMA_UPSTREAM_DIR` is set
/// ([`crate::upstream::v1_6_1`] is `Some`).
pub fn release_v1_6_1() -> Result<(), SkipReason> {
    if std::env::var_os("GAMMA_UPSTREAM_DIR").is_some() {
        return Ok(());
    }
    no_release(crate::upstream::release_tree("v1.6.1"))
}

/// Precondition: a standard-channel API server can be started (its CRDs are at hand and
/// `tools/kube-testenv` builds; [`TestEnv::available`]). It is not started here.
pub fn standard_server() -> Result<(), SkipReason> {
    unavailable(TestEnv::available(Channel::Standard))
}

/// Precondition: an experimental-channel API server can be started, as [`standard_server`].
pub fn experimental_server() -> Result<(), SkipReason> {
    unavailable(TestEnv::available(Channel::Experimental))
}

/// Precondition: a server with the CRDs of every release of [`crate::upstream::RELEASES`] can be
/// started ([`release_trees`] and [`standard_server`]).
pub fn release_servers() -> Result<(), SkipReason> {
    release_trees()?;
    standard_server()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds() -> Result<(), SkipReason> {
        Ok(())
    }
    fn no_data() -> Result<(), SkipReason> {
        Err(SkipReason::unavailable("no release data"))
    }
    fn as_root() -> Result<(), SkipReason> {
        Err(SkipReason::inapplicable("running as root"))
    }

    #[test]
    fn a_missing_environment_is_an_ignore_unless_required_then_a_failure() {
        assert_eq!(decide(&[holds], false), Decision::Run);
        assert_eq!(decide(&[holds], true), Decision::Run);
        assert_eq!(
            decide(&[holds, no_data], false),
            Decision::Ignore("no release data".to_owned())
        );
        assert!(
            matches!(decide(&[no_data, holds], true), Decision::Fail(m) if m.contains("no release data"))
        );
    }

    #[test]
    fn a_case_this_machine_cannot_produce_is_ignored_even_when_required() {
        assert_eq!(
            decide(&[as_root], true),
            Decision::Ignore("running as root".to_owned())
        );
        // the first failing precondition decides
        assert_eq!(
            decide(&[as_root, no_data], true),
            Decision::Ignore("running as root".to_owned())
        );
    }
}
