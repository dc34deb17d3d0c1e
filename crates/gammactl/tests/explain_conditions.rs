//! `explain` shows every condition of each candidate match (method, headers, query
//! parameters, not only the path; Gateway API HTTPRouteMatch: all conditions of a match must
//! hold), and for one that fails, the expected and the actual value. `-o json` carries the same
//! data (`candidates[].conditions`), in camelCase as the rest of the output.

mod common;

use common::run;
use serde_json::Value;

const INPUT: &str = "crates/gammactl/tests/fixtures/explain-conditions.yaml";

fn explain(extra: &[&str]) -> common::Run {
    let mut args = vec!["explain", "-f", INPUT, "--to", "reviews.books:9080"];
    args.extend_from_slice(extra);
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r
}

#[test]
fn explain_shows_every_condition_of_each_candidate_and_why_one_fails() {
    let r = explain(&["-H", "x-canary=false", "GET", "/reviews?page=2"]);
    let out = &r.stdout;
    // rules that differ by headers, query and method show them, not only the path
    for line in [
        "HTTPRoute books/reviews rule 0 (canary) match 0: PathPrefix /reviews, header \
         x-canary \"true\" -> no: header x-canary: expected \"true\", got \"false\"",
        "HTTPRoute books/reviews rule 1 (beta) match 0: PathPrefix /reviews, header x-beta \
         RegularExpression \"on|yes\" -> no: header x-beta: expected RegularExpression \
         \"on|yes\", got none",
        "HTTPRoute books/reviews rule 2 (writes) match 0: PathPrefix /reviews, method POST -> \
         no: method: expected POST, got \"GET\"",
        "HTTPRoute books/reviews rule 3 (first-page) match 0: PathPrefix /reviews, query page \
         \"1\" -> no: query page: expected \"1\", got \"2\"",
        "HTTPRoute books/reviews rule 4 (rest) match 0: PathPrefix /reviews -> MATCH, wins",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
}

#[test]
fn explain_json_carries_every_condition_with_expected_and_actual_values() {
    let r = explain(&[
        "-H",
        "x-canary=false",
        "-o",
        "json",
        "GET",
        "/reviews?page=2",
    ]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let canary = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["ruleName"] == "canary")
        .expect("the canary rule is a candidate");
    assert_eq!(
        canary["conditions"],
        serde_json::json!([{
            "field": "header x-canary",
            "expected": "\"true\"",
            "actual": "false",
            "matched": false
        }])
    );
    assert_eq!(
        canary["failed"],
        "header x-canary: expected \"true\", got \"false\""
    );
    // camelCase throughout: the decision too (`backendIndex`, never `backend_index`)
    assert_eq!(v["decisionJson"]["backendIndex"], 0);
    assert!(!r.stdout.contains("backend_index"), "{}", r.stdout);
}
