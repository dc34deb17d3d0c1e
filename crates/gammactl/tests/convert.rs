//! `gammactl convert smi` on the SMI sample (examples/manifests/smi, whose README lists what
//! the conversion prints).

mod common;

use common::{check, run_with_stdin};

const SMI: &str = "examples/manifests/smi";

#[test]
fn convert_smi_prints_routes_and_a_located_report() {
    let r = check("convert-smi", &["convert", "smi", "-f", SMI], 0);
    assert!(
        r.stdout
            .contains("kind: TCPRoute\nmetadata:\n  name: db-rollout-3306")
    );
    assert!(r.stdout.contains("name: website-ab-80"));
    // The report names the SMI object's file and line.
    assert!(r.stderr.contains(
        "examples/manifests/smi/20-traffic-split.yaml:20: dropped: TrafficSplit store/website-ab"
    ), "{}", r.stderr);
    // The sample has no Pods: the TrafficTargets' destinations cannot be selected (widened).
    assert!(
        r.stderr.ends_with(
            "2 TrafficSplits converted into 3 routes; 1 dropped, 0 approximated, 3 notes\n\
         2 TrafficTargets converted into 0 XAuthorizationPolicies; 2 widened, 0 narrowed, 0 equal\n"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn converted_routes_are_valid_and_resolve_as_the_split_said() {
    let converted = common::run(&["convert", "smi", "-f", SMI]);
    assert_eq!(converted.code, 0);
    let v = run_with_stdin(&["validate", "-f", "-"], Some(&converted.stdout));
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    assert_eq!(
        v.stdout,
        "3 objects in 1 file: 0 errors, 0 warnings (Gateway API v1.7, standard channel)\n"
    );
    // db-rollout: 900m/100m, i.e. 9:1 (sample README).
    let r = run_with_stdin(
        &[
            "resolve",
            "-f",
            SMI,
            "-f",
            "-",
            "--to",
            "db.store:3306",
            "--sample",
            "10",
            "-o",
            "json",
        ],
        Some(&converted.stdout),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(d["outcomes"][0]["outcome"], "store/db-v1:3306");
    assert_eq!(d["outcomes"][0]["count"], 9);
    assert_eq!(d["outcomes"][1]["count"], 1);
}

#[test]
fn convert_smi_json_is_a_kubernetes_list() {
    let r = common::run(&["convert", "smi", "-f", SMI, "-o", "json"]);
    assert_eq!(r.code, 0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["kind"], "List");
    assert_eq!(v["items"].as_array().unwrap().len(), 3);
}

#[test]
fn authorize_answers_the_smi_sample_table() {
    // examples/manifests/smi/README.md, "What `gammactl authorize` answers".
    let rows: [(&str, &[&str], &str); 7] = [
        (
            "storefront/storefront",
            &["--port", "80", "POST", "/api/cart"],
            "allowed: TrafficTarget store/website-api",
        ),
        (
            "storefront/storefront",
            &["--port", "80", "GET", "/metrics"],
            "denied",
        ),
        (
            "storefront/storefront",
            &["--port", "9090", "GET", "/api"],
            "denied",
        ),
        (
            "store/storefront",
            &["--port", "80", "GET", "/api"],
            "denied",
        ),
        (
            "monitoring/prometheus",
            &["--port", "9090", "GET", "/metrics"],
            "allowed: TrafficTarget store/website-metrics",
        ),
        (
            "monitoring/prometheus",
            &["--port", "9090", "POST", "/metrics"],
            "denied",
        ),
        (
            "monitoring/prometheus",
            &["--port", "9090"],
            "allowed: TrafficTarget store/website-metrics",
        ),
    ];
    for (from, rest, expected) in rows {
        let mut args = vec![
            "authorize",
            "-f",
            SMI,
            "--from",
            from,
            "--to",
            "store/website",
        ];
        args.extend_from_slice(rest);
        let r = common::run(&args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(r.stdout.starts_with(expected), "{args:?}: {}", r.stdout);
    }
}

#[test]
fn authorize_without_a_selecting_target_allows() {
    let r = check(
        "authorize-unselected",
        &[
            "authorize",
            "-f",
            SMI,
            "--from",
            "a/b",
            "--to",
            "store/db",
            "--port",
            "3306",
            "-o",
            "json",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["allowed"], true);
}

#[test]
fn authorize_usage_errors_exit_2() {
    for args in [
        &[
            "authorize",
            "-f",
            SMI,
            "--from",
            "nobody",
            "--to",
            "store/website",
            "--port",
            "80",
        ][..],
        &[
            "authorize",
            "-f",
            SMI,
            "--from",
            "a/b",
            "--to",
            "store/website",
        ],
        &[
            "authorize",
            "-f",
            SMI,
            "--from",
            "a/b",
            "--to",
            "store/website",
            "--protocol",
            "http",
        ],
    ] {
        assert_eq!(common::run(args).code, 2, "{args:?}");
    }
}

/// `convert smi` turns TrafficTargets into XAuthorizationPolicies (GEP-3779, a proposal) and
/// puts the findings that widen access first: the HTTPRouteGroup match `api` is dropped, so
/// the policy lets `storefront` send any request on port 80.
#[test]
fn convert_smi_warns_first_that_dropped_http_matches_widen_access() {
    const FIXTURE: &str = "crates/gammactl/tests/fixtures/smi-authz.yaml";
    let r = common::run(&["convert", "smi", "-f", FIXTURE]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut lines = r.stderr.lines();
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("WARNING: the converted authorization policies ALLOW MORE"),
        "{}",
        r.stderr
    );
    let second = lines.next().unwrap();
    assert!(
        second.starts_with(&format!(
            "{FIXTURE}:44: WIDENED ACCESS: TrafficTarget store/website-api: spec.rules[0].matches: \
             HTTPRouteGroup store/website-routes match \"api\" (methods GET,POST, pathRegex \"/api\") is DROPPED"
        )),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains(
        "equal access: TrafficTarget store/db: converted to XAuthorizationPolicy store/db with the same access"
    ));
    assert!(r.stderr.ends_with(
        "2 TrafficTargets converted into 2 XAuthorizationPolicies; 1 widened, 0 narrowed, 1 equal\n"
    ));
    // The policies validate, and select the destinations' Pods by label.
    let v = run_with_stdin(&["validate", "-f", "-"], Some(&r.stdout));
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    assert!(r.stdout.contains("kind: XAuthorizationPolicy"));
    assert!(r.stdout.contains("gamma.rs/smi-access: widened"));
}

/// `-o json` carries the policies, each with the access it gives compared with its
/// TrafficTarget in the `gamma.rs/smi-access` annotation.
#[test]
fn convert_smi_json_carries_the_policies_and_their_access() {
    let r = common::run(&[
        "convert",
        "smi",
        "-f",
        "crates/gammactl/tests/fixtures/smi-authz.yaml",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let items = v["items"].as_array().unwrap();
    let access: Vec<(&str, &str)> = items
        .iter()
        .map(|i| {
            (
                i["metadata"]["name"].as_str().unwrap(),
                i["metadata"]["annotations"]["gamma.rs/smi-access"]
                    .as_str()
                    .unwrap(),
            )
        })
        .collect();
    assert_eq!(access, [("db", "equal"), ("website-api", "widened")]);
    let website = &items[1]["spec"];
    assert_eq!(
        website["targetRefs"][0]["selector"]["matchLabels"]["app"],
        "website"
    );
    assert_eq!(website["rules"][0]["networkAttributes"]["ports"][0], 80);
    // The report is on standard error, as JSON (below).
    let report: serde_json::Value = serde_json::from_str(&r.stderr).unwrap();
    assert_eq!(report["findings"][0]["severity"], "widened");
}

/// `-o json`: the report on standard error is one JSON document holding the findings the text
/// lists, in its order (widened access first), each with its severity, SMI object, field, what
/// changed, the policy it became and where it is, and the text's counts.
#[test]
fn convert_smi_json_reports_the_findings_as_structured_json_in_the_texts_order() {
    const FIXTURE: &str = "crates/gammactl/tests/fixtures/smi-authz.yaml";
    let r = common::run(&["convert", "smi", "-f", FIXTURE, "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report: serde_json::Value = serde_json::from_str(&r.stderr).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let widened = &findings[0];
    assert_eq!(widened["severity"], "widened");
    assert_eq!(
        widened["object"],
        serde_json::json!({"kind": "TrafficTarget", "namespace": "store", "name": "website-api"})
    );
    assert_eq!(widened["field"], "spec.rules[0].matches");
    assert_eq!(widened["policy"], "store/website-api");
    assert_eq!(widened["file"], FIXTURE);
    assert_eq!(widened["line"], 44);
    assert!(
        widened["message"]
            .as_str()
            .unwrap()
            .contains("match \"api\" (methods GET,POST, pathRegex \"/api\") is DROPPED"),
        "{widened}"
    );
    let equal = findings
        .iter()
        .find(|f| f["severity"] == "equal")
        .expect("an equal finding");
    assert_eq!(equal["object"]["name"], "db");
    assert_eq!(equal["policy"], "store/db");

    // The same findings as the text report, in the same order (the text's lines end with the
    // message), and the text's counts.
    let text = common::run(&["convert", "smi", "-f", FIXTURE]);
    let lines: Vec<&str> = text
        .stderr
        .lines()
        .filter(|l| !l.starts_with("WARNING:") && !l.contains(" converted into "))
        .collect();
    assert_eq!(lines.len(), findings.len(), "{}", text.stderr);
    for (line, f) in lines.iter().zip(findings) {
        assert!(
            line.ends_with(f["message"].as_str().unwrap()),
            "{line} / {f}"
        );
    }
    let severities: Vec<&str> = findings
        .iter()
        .map(|f| f["severity"].as_str().unwrap())
        .collect();
    let last_widened = severities.iter().rposition(|s| *s == "widened").unwrap();
    assert!(
        severities[..=last_widened].iter().all(|s| *s == "widened"),
        "widened first: {severities:?}"
    );
    let summary = &report["summary"];
    assert!(text.stderr.ends_with(&format!(
        "{} TrafficTargets converted into {} XAuthorizationPolicies; {} widened, {} narrowed, {} equal\n",
        summary["trafficTargets"], summary["policies"], summary["widened"], summary["narrowed"], summary["equal"]
    )), "{}", text.stderr);
    assert_eq!(summary["widened"], 1);
    assert_eq!(summary["equal"], 1);
}
