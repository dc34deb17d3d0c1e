//! `group: core` on a Service parentRef (as Linkerd's docs write it) gets one answer from every
//! subcommand that reads routes: they all take the same `--config` and read routes under its
//! compatibility settings (`coreGroupAlias`, docs/ownership.md). The Gateway API names the
//! core group `""` (ParentReference.group), so without the setting the route binds nothing,
//! and `explain` says why.

mod common;

use common::run;

const INPUT: &str = "crates/gammactl/tests/fixtures/core-group.yaml";
const ALIAS: &str = "crates/gammactl/tests/fixtures/core-group-alias.yaml";
const ROUTE: &str = "HTTPRoute books/opinions-canary";

/// The four answers for the input, with `extra` arguments (a `--config`).
fn answers(extra: &[&str]) -> [String; 4] {
    let with = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend_from_slice(extra);
        let r = run(&all);
        assert_eq!(r.code, 0, "gammactl {all:?}\n{}\n{}", r.stdout, r.stderr);
        format!("{}{}", r.stdout, r.stderr)
    };
    [
        with(&["owners", "-f", INPUT, "--all"]),
        with(&[
            "status",
            "-f",
            INPUT,
            "--as",
            "linkerd.io/policy-controller",
            "--now",
            "2026-11-29T12:00:00Z",
        ]),
        with(&[
            "resolve",
            "-f",
            INPUT,
            "--to",
            "opinions.books:9080",
            "GET",
            "/",
        ]),
        with(&[
            "explain",
            "-f",
            INPUT,
            "--to",
            "opinions.books:9080",
            "GET",
            "/",
        ]),
    ]
}

#[test]
fn the_same_input_gives_the_same_verdict_in_owners_status_resolve_and_explain() {
    // with coreGroupAlias: owned, written, bound, and a candidate that wins
    let [owners, status, resolve, explain] = answers(&["--config", ALIAS]);
    assert!(owners.contains("owns"), "{owners}");
    assert!(
        status.contains(&format!("{ROUTE} (generation 0): write"))
            && status.contains("Accepted=True"),
        "{status}"
    );
    assert!(
        resolve.contains(&format!(
            "forward to books/opinions-v2:9080 (by {ROUTE} rule 0)"
        )),
        "{resolve}"
    );
    assert!(
        explain.contains(&format!(
            "{ROUTE} rule 0 match 0: PathPrefix / -> MATCH, wins"
        )),
        "{explain}"
    );
}

#[test]
fn without_the_alias_every_subcommand_says_the_core_group_route_is_not_bound() {
    let config = "crates/gammactl/tests/fixtures/core-group-no-alias.yaml";
    let [owners, status, resolve, explain] = answers(&["--config", config]);
    assert!(
        owners.contains("not a Service (did you mean group: \"\"?)"),
        "{owners}"
    );
    assert!(!status.contains(ROUTE), "{status}");
    assert!(
        resolve.contains("pass through: no route is bound"),
        "{resolve}"
    );
    // explain names the route that names the Service, why it is not bound, and the fix
    assert!(
        explain.contains(&format!(
            "excluded:  {ROUTE} names Service books/opinions in parentRefs[0] with group: core, \
             which is not bound"
        )) && explain.contains("set coreGroupAlias: true in the --config file"),
        "{explain}"
    );
    assert!(resolve.contains("set coreGroupAlias: true"), "{resolve}");
}

#[test]
fn explain_json_carries_the_core_group_route_that_is_not_bound() {
    let r = run(&[
        "explain",
        "-f",
        INPUT,
        "--to",
        "opinions.books:9080",
        "GET",
        "/",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let excluded = v["excluded"].as_array().expect("excluded listed");
    assert!(
        excluded
            .iter()
            .any(|e| e.as_str().is_some_and(|e| e.starts_with(ROUTE))),
        "{excluded:?}"
    );
}

#[test]
fn validate_takes_the_same_config_and_says_core_is_not_portable() {
    let plain = run(&["validate", "-f", INPUT]);
    assert!(
        plain
            .stdout
            .contains("group core is not the core API group"),
        "{}",
        plain.stdout
    );
    let aliased = run(&["validate", "-f", INPUT, "--refs", "--config", ALIAS]);
    assert_eq!(aliased.code, 0, "{}", aliased.stdout);
    assert!(
        aliased
            .stdout
            .contains("group core is read as the core API group under coreGroupAlias"),
        "{}",
        aliased.stdout
    );
}
