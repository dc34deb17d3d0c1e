//! One server per test binary and channel.

use std::sync::OnceLock;

use crate::error::Error;
use crate::process::{Channel, TestEnv};

/// The environment variable that turns [`Error::Unavailable`] into a test failure in
/// [`shared_or_skip`]: CI sets it to `1`, so that CI never skips silently.
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

/// [`shared`] for a test: `None` after printing `skipped: <what is missing>` when the
/// environment is unavailable, so the test can return.
///
/// # Panics
///
/// When the environment is unavailable and `GAMMA_REQUIRE_TESTENV=1`, or when the server failed
/// to start: the calling test fails with the reason.
#[allow(clippy::panic)] // failing the calling test is this function's job
pub fn shared_or_skip(channel: Channel) -> Option<&'static TestEnv> {
    match shared(channel) {
        Ok(env) => Some(env),
        Err(e @ Error::Unavailable { .. }) if !required() => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

pub(crate) fn required() -> bool {
    std::env::var(REQUIRE_ENV).is_ok_and(|v| v == "1")
}
