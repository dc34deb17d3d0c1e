//! One verdict per object (docs/validation.md, "One verdict per object"), through the real
//! binary: `validate`, `status`, `resolve` and `explain` say the same of the same manifests.
//!
//! - `infra/refused` breaks a CRD rule in one rule: the API server would refuse it, so
//!   `validate` errors, `status` says `Accepted=False` with that error, and `resolve` and
//!   `explain` note it as left out and serve none of its rules.
//! - `infra/dropped` is admitted with a rule gamma-rs cannot serve: `validate` warns at that
//!   rule, `status` says `Accepted=True` and `PartiallyInvalid=True` "Dropped Rule" (Gateway API
//!   RouteConditionPartiallyInvalid), `resolve` and `explain` note the dropped rule and serve
//!   the other one.

mod common;

use common::run;
use serde_json::Value;

const INPUT: &str = "crates/gammactl/tests/fixtures/one-verdict.yaml";

/// The message of condition `type_` on route `name`'s only parent in `status -o json`.
fn condition(status: &Value, name: &str, type_: &str) -> (String, String, String) {
    let route = status
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no status for {name}: {status:#}"));
    let c = route["status"]["parents"][0]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == type_)
        .unwrap_or_else(|| panic!("no {type_} on {name}: {route:#}"));
    let s = |k: &str| c[k].as_str().unwrap().to_owned();
    (s("status"), s("reason"), s("message"))
}

#[test]
fn validate_status_resolve_and_explain_agree_on_the_same_manifests() {
    let status = run(&[
        "status",
        "-f",
        INPUT,
        "--as",
        "example.com/gateway",
        "--now",
        "2026-11-29T12:00:00Z",
        "-o",
        "json",
    ]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let status: Value = serde_json::from_str(&status.stdout).unwrap();

    // refused: Accepted=False, with the API server's error as the message
    let (ok, reason, refused) = condition(&status, "refused", "Accepted");
    assert_eq!(
        (ok.as_str(), reason.as_str()),
        ("False", "IncompatibleFilters")
    );
    assert!(refused.starts_with("spec.rules[0]: "), "{refused}");
    // dropped: Accepted=True, PartiallyInvalid=True naming rule 0 and why
    let (ok, _, _) = condition(&status, "dropped", "Accepted");
    assert_eq!(ok, "True");
    let (ok, reason, pi) = condition(&status, "dropped", "PartiallyInvalid");
    assert_eq!((ok.as_str(), reason.as_str()), ("True", "UnsupportedValue"));
    let why = pi
        .strip_prefix("Dropped Rule(s) 0: rule 0: ")
        .unwrap_or_else(|| panic!("{pi}"));

    // validate: the refusal is an error, the dropped rule a warning, with the same words
    let validate = run(&["validate", "-f", INPUT]);
    assert_eq!(validate.code, 1, "{}", validate.stdout);
    assert!(
        validate
            .stdout
            .contains(&format!(": HTTPRoute infra/refused: {refused}\n")),
        "{}",
        validate.stdout
    );
    assert!(
        validate.stdout.contains(&format!(
            ": warning: HTTPRoute infra/dropped: spec.rules[0]: rule 0 is dropped by gamma-rs \
             (UnsupportedValue): {why}\n"
        )),
        "{}",
        validate.stdout
    );
    assert!(
        validate.stdout.contains(": 1 error, 1 warning"),
        "{}",
        validate.stdout
    );
    assert!(
        !validate.stdout.contains("infra/fine"),
        "{}",
        validate.stdout
    );

    let left_out = format!("HTTPRoute infra/refused was left out: {refused}");
    let dropped = format!("HTTPRoute infra/dropped rule 0 was dropped (UnsupportedValue): {why}");

    // resolve: the refused route serves nothing, the dropped route its other rule; both noted
    for (host, decision) in [
        ("refused.example", "respond HTTP 404"),
        (
            "dropped.example",
            "forward to infra/web:80 (by HTTPRoute infra/dropped rule 1)",
        ),
    ] {
        let r = run(&[
            "resolve",
            "-f",
            INPUT,
            "--to",
            "gateway/infra/edge:80",
            "--host",
            host,
            "GET",
            "/ok",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.starts_with(decision), "{host}: {}", r.stdout);
        for note in [&left_out, &dropped] {
            assert!(
                r.stderr.contains(&format!("note: {note}\n")),
                "{host}: {}",
                r.stderr
            );
        }
    }

    // explain: the same notes
    let e = run(&[
        "explain",
        "-f",
        INPUT,
        "--to",
        "gateway/infra/edge:80",
        "--host",
        "refused.example",
        "GET",
        "/ok",
    ]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    for note in [&left_out, &dropped] {
        assert!(
            e.stdout.contains(&format!("left out:  {note}\n")),
            "{}",
            e.stdout
        );
    }
    assert!(!e.stdout.contains("infra/refused rule"), "{}", e.stdout);
}
