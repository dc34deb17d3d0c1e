//! One server per test binary and channel (and per release, for [`shared_release`]).

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use crate::error::Error;
use crate::process::{Channel, TestEnv};

/// The environment variable that turns [`Error::Unavailable`] into a test failure instead of an
/// ignored test ([`crate::harness::decide`]): CI sets it to `1`, so that CI never skips.
pub const REQUIRE_ENV: &str = "GAMMA_REQUIRE_TESTENV";

static STANDARD: OnceLock<Result<TestEnv, Error>> = OnceLock::new();
static EXPERIMENTAL: OnceLock<Result<TestEnv, Error>> = OnceLock::new();

/// The test binary's server for `channel`, started on first use (concurrent first callers wait
/// for the one start). It is never dropped: it stops when the test binary exits, because the
/// exit closes the server's stdin. A failed start is remembered, not retried.
pub fn shared(channel: Channel) -> Result<&'static TestEnv, &'static Error> {
    let cell = match channel {
        Channel::Standard => &STANDARD,
        Channel::Experimental => &EXPERIMENTAL,
    };
    cell.get_or_init(|| TestEnv::start(channel)).as_ref()
}

/// One server per release and channel started by [`shared_release`], each never dropped.
type Cell = &'static OnceLock<Result<TestEnv, Error>>;
static BY_RELEASE: Mutex<BTreeMap<(String, &'static str), Cell>> = Mutex::new(BTreeMap::new());

/// The test binary's server with the CRDs of Gateway API `release` (`v1.7.0`) and `channel`
/// ([`TestEnv::start_release`]), started on first use and shared like [`shared`]'s. Tests that
/// change the CRDs (an upgrade) start a private server instead.
pub fn shared_release(release: &str, channel: Channel) -> Result<&'static TestEnv, &'static Error> {
    let cell: Cell = {
        let mut cells = BY_RELEASE
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        cells
            .entry((release.to_owned(), channel.as_str()))
            .or_insert_with(|| Box::leak(Box::new(OnceLock::new())))
    };
    cell.get_or_init(|| TestEnv::start_release(release, channel))
        .as_ref()
}

/// [`shared`] for the body of a test whose [`crate::harness`] preconditions hold
/// ([`crate::harness::standard_server`] or [`crate::harness::experimental_server`]).
///
/// # Panics
///
/// When the server cannot be had after all (it did not start): the calling test fails with the
/// reason.
pub fn server(channel: Channel) -> &'static TestEnv {
    or_fail(shared(channel))
}

/// [`shared_release`] for the body of a test, as [`server`] is for [`shared`].
///
/// # Panics
///
/// As [`server`].
pub fn server_release(release: &str, channel: Channel) -> &'static TestEnv {
    or_fail(shared_release(release, channel))
}

#[allow(clippy::panic)] // failing the calling test is this function's job
fn or_fail(started: Result<&'static TestEnv, &'static Error>) -> &'static TestEnv {
    match started {
        Ok(env) => env,
        Err(e) => panic!("{e}"),
    }
}

/// Whether `GAMMA_REQUIRE_TESTENV=1`: a missing environment fails the tests that need it.
pub(crate) fn required() -> bool {
    std::env::var(REQUIRE_ENV).is_ok_and(|v| v == "1")
}
