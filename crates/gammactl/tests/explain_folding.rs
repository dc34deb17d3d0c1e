//! `gammactl explain` on a port with many rules: the text lists every candidate that matches
//! and the first 20 that do not, counting each run of the rest in one line where it would have
//! been; `--all-candidates` and `-o json` list them all.

mod common;

use common::run_with_stdin;

/// A Service `app/web` on 10.96.0.1:80 and one HTTPRoute per `PathPrefix` in `rules`
/// (routes `app/r00`, `app/r01`, ...; longer prefixes rank first, Gateway API
/// HTTPRouteRule.matches precedence).
fn cluster(rules: &[String]) -> String {
    let mut out = String::from(
        "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: app}\n\
         spec: {clusterIP: 10.96.0.1, ports: [{port: 80}]}\n",
    );
    for (i, path) in rules.iter().enumerate() {
        out.push_str(&format!(
            "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
             metadata: {{name: r{i:02}, namespace: app}}\nspec:\n  \
             parentRefs: [{{group: \"\", kind: Service, name: web, port: 80}}]\n  \
             rules: [{{matches: [{{path: {{type: PathPrefix, value: {path}}}}}], \
             backendRefs: [{{name: web, port: 80}}]}}]\n"
        ));
    }
    out
}

fn explain(input: &str, extra: &[&str], path: &str) -> String {
    let mut args = vec!["explain", "-f", "-", "--to", "10.96.0.1:80"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["GET", path]);
    let run = run_with_stdin(&args, Some(input));
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

fn candidate_lines(text: &str) -> usize {
    text.lines().filter(|l| l.contains(" -> ")).count()
}

// A 404 among 50 prefixes: 20 listed, the other 30 counted in one line at the end.
#[test]
fn a_404_lists_twenty_candidates_and_counts_the_rest() {
    let rules: Vec<String> = (0..50).map(|i| format!("/p{i:02}")).collect();
    let input = cluster(&rules);
    let text = explain(&input, &[], "/none");
    assert_eq!(candidate_lines(&text), 20, "{text}");
    assert!(
        text.contains("... 30 more candidates that do not match (--all-candidates lists them)"),
        "{text}"
    );
    assert!(text.contains("respond HTTP 404"), "{text}");
    let all = explain(&input, &["--all-candidates"], "/none");
    assert_eq!(candidate_lines(&all), 50, "{all}");
    assert!(!all.contains("more candidate"), "{all}");
    let json = explain(&input, &["-o", "json"], "/none");
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["candidates"].as_array().map(Vec::len), Some(50));
}

// Matching candidates are always listed, in precedence order: the winner (the longest
// matching prefix) after 20 listed misses and a folded run, the lower-ranked match after it,
// and the runs of misses around them counted where they fall.
#[test]
fn matching_candidates_are_listed_after_a_folded_run() {
    // 40 long prefixes that miss, then `/api/v1` (the winner) and `/api` (ranks below)
    let mut rules: Vec<String> = (0..40).map(|i| format!("/zzzzzzzzzz{i:02}")).collect();
    rules.push("/api/v1".into());
    rules.push("/api".into());
    let text = explain(&cluster(&rules), &[], "/api/v1/orders");
    assert_eq!(candidate_lines(&text), 22, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let fold = lines
        .iter()
        .position(|l| l.contains("... 20 more candidates that do not match"))
        .expect("a folded run");
    assert!(
        lines[fold + 1].contains("PathPrefix /api/v1 -> MATCH, wins"),
        "{text}"
    );
    assert!(
        lines[fold + 2].contains("PathPrefix /api -> matches, but ranks below #41"),
        "{text}"
    );
}
