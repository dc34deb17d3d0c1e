//! The harness of `gamma_testenv::harness`, run for real: this binary re-executes itself with
//! `GAMMA_HARNESS_FIXTURE=1`, where its `main` runs a few trials of its own (one whose
//! precondition fails), and reads the summary the harness prints.

use std::process::{Command, ExitCode, Output};

use gamma_testenv::REQUIRE_ENV;
use gamma_testenv::harness::{Precondition, SkipReason, run, trial};

const FIXTURE: &str = "GAMMA_HARNESS_FIXTURE";

fn main() -> ExitCode {
    if std::env::var_os(FIXTURE).is_some() {
        return fixture::run();
    }
    let tests: [(&str, fn()); 3] = [
        (
            "a_test_whose_precondition_fails_is_reported_ignored_with_the_reason",
            a_test_whose_precondition_fails_is_reported_ignored_with_the_reason,
        ),
        (
            "a_missing_environment_fails_the_test_under_gamma_require_testenv",
            a_missing_environment_fails_the_test_under_gamma_require_testenv,
        ),
        (
            "a_name_filter_selects_tests_as_with_the_builtin_harness",
            a_name_filter_selects_tests_as_with_the_builtin_harness,
        ),
    ];
    run(tests
        .into_iter()
        .map(|(name, test)| trial(name, test, &[] as &[Precondition]))
        .collect())
}

/// The fixture's tests, declared as the test binaries of the workspace declare theirs.
mod fixture {
    use super::{as_root, no_release_data};

    fn runs() {}

    fn needs_what_is_missing() {
        panic!("ran although its precondition failed");
    }

    fn cannot_be_produced_here() {
        panic!("ran although its precondition failed");
    }

    gamma_testenv::test_main! {
        runs,
        needs_what_is_missing if no_release_data,
        cannot_be_produced_here if as_root && no_release_data,
    }

    pub(super) fn run() -> std::process::ExitCode {
        main()
    }
}

fn no_release_data() -> Result<(), SkipReason> {
    Err(SkipReason::unavailable(
        "no Gateway API release data\n(second line)",
    ))
}

fn as_root() -> Result<(), SkipReason> {
    Err(SkipReason::inapplicable("running as root"))
}

/// The fixture's run with `args`, with or without `GAMMA_REQUIRE_TESTENV=1`.
fn fixture(required: bool, args: &[&str]) -> (Output, String) {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .env(FIXTURE, "1")
        .env_remove(REQUIRE_ENV)
        .args(["--test-threads=1", "--color=never"])
        .args(args);
    if required {
        command.env(REQUIRE_ENV, "1");
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    (output, stdout)
}

/// What the harness printed for test `name`: `ok`, `FAILED`, `ignored (reason)`.
fn outcome<'a>(stdout: &'a str, name: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|line| {
            let (test, outcome) = line.strip_prefix("test ")?.split_once(" ... ")?;
            (test.trim_end() == name).then_some(outcome)
        })
        .unwrap_or_else(|| panic!("no line for {name}:\n{stdout}"))
}

fn a_test_whose_precondition_fails_is_reported_ignored_with_the_reason() {
    let (output, stdout) = fixture(false, &[]);
    assert!(output.status.success(), "{stdout}");
    assert!(outcome(&stdout, "runs") == "ok", "{stdout}");
    assert!(
        outcome(&stdout, "needs_what_is_missing")
            == "ignored (no Gateway API release data; (second line))",
        "{stdout}"
    );
    assert!(
        outcome(&stdout, "cannot_be_produced_here") == "ignored (running as root)",
        "{stdout}"
    );
    assert!(
        stdout.contains("test result: ok. 1 passed; 0 failed; 2 ignored; 0 measured;"),
        "{stdout}"
    );
}

fn a_missing_environment_fails_the_test_under_gamma_require_testenv() {
    let (output, stdout) = fixture(true, &[]);
    assert!(!output.status.success(), "{stdout}");
    assert!(
        outcome(&stdout, "needs_what_is_missing") == "FAILED",
        "{stdout}"
    );
    assert!(
        stdout.contains("no Gateway API release data\n(second line) (GAMMA_REQUIRE_TESTENV=1"),
        "{stdout}"
    );
    // what this machine cannot produce is not demanded
    assert!(
        outcome(&stdout, "cannot_be_produced_here") == "ignored (running as root)",
        "{stdout}"
    );
    assert!(
        stdout.contains("test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured;"),
        "{stdout}"
    );
}

fn a_name_filter_selects_tests_as_with_the_builtin_harness() {
    let (output, stdout) = fixture(true, &["needs_what", "--skip", "cannot"]);
    assert!(!output.status.success(), "{stdout}");
    assert!(
        stdout.contains("0 passed; 1 failed; 0 ignored; 0 measured; 2 filtered out"),
        "{stdout}"
    );
    let (output, stdout) = fixture(true, &["--exact", "runs"]);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.contains("1 passed; 0 failed; 0 ignored; 0 measured; 2 filtered out"),
        "{stdout}"
    );
}
