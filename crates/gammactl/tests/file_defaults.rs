//! Files are read as the API server stores them: with the CRD defaults of `--bundle-version` and
//! `--channel` (docs/validation.md, "Defaults"). A `kind: Service` parentRef written without
//! `group` is the one a cluster stores with `group: gateway.networking.k8s.io` (ParentReference:
//! `group` defaults to `gateway.networking.k8s.io`), and an HTTPRoute rule without `matches` is
//! the one stored with one `PathPrefix /` match (HTTPRouteRule.matches default).

mod common;

use common::run;

const OMITTED: &str = "crates/gammactl/tests/fixtures/defaults-omitted.yaml";
const CONFIG: &str = "examples/gamma-config.yaml";
const NOW: &str = "2026-11-29T12:00:00Z";

/// The same manifests with the defaulted values written out, in a temporary file.
fn written_out() -> std::path::PathBuf {
    let text = std::fs::read_to_string(common::root().join(OMITTED)).unwrap();
    let group = text.replacen(
        "  - kind: Service\n    name: opinions\n",
        "  - group: gateway.networking.k8s.io\n    kind: Service\n    name: opinions\n",
        1,
    );
    let explicit = group.replace(
        "  rules:\n  - backendRefs:",
        "  rules:\n  - matches:\n    - path:\n        type: PathPrefix\n        value: /\n    backendRefs:",
    );
    assert_ne!(explicit, group, "the rules without matches");
    assert_ne!(group, text, "the parentRef without group");
    let path = std::env::temp_dir().join(format!("gammactl-defaults-{}.yaml", std::process::id()));
    std::fs::write(&path, explicit).unwrap();
    path
}

/// owners, status (text, JSON, patch) and explain (text, JSON), stdout and exit code.
fn answers(input: &str, channel: &str) -> Vec<(i32, String)> {
    let commands: [&[&str]; 6] = [
        &["owners", "--all", "--config", CONFIG],
        &[
            "status", "--as", "linkerd", "--config", CONFIG, "--now", NOW,
        ],
        &[
            "status", "--as", "linkerd", "--config", CONFIG, "--now", NOW, "-o", "json",
        ],
        &[
            "status", "--as", "linkerd", "--config", CONFIG, "--now", NOW, "--form", "patch",
        ],
        &["explain", "--to", "opinions.books:9080", "GET", "/"],
        &[
            "explain",
            "--to",
            "opinions.books:9080",
            "-o",
            "json",
            "GET",
            "/",
        ],
    ];
    commands
        .iter()
        .map(|c| {
            let mut args = c.to_vec();
            args.extend_from_slice(&["-f", input, "-q", "--channel", channel]);
            let r = run(&args);
            (r.code, r.stdout)
        })
        .collect()
}

#[test]
fn a_file_without_the_defaulted_values_reads_as_the_file_with_them() {
    let explicit = written_out();
    for channel in ["standard", "experimental"] {
        let omitted = answers(OMITTED, channel);
        let written = answers(explicit.to_str().unwrap(), channel);
        assert_eq!(omitted, written, "--channel {channel}");
        for (code, _) in &omitted {
            assert_eq!(*code, 0);
        }
    }
    let _ = std::fs::remove_file(explicit);
}

#[test]
fn a_service_parent_ref_without_group_keeps_the_not_a_service_hint() {
    let [owners, ..] = &answers(OMITTED, "standard")[..] else {
        unreachable!()
    };
    assert!(
        owners
            .1
            .contains("gateway.networking.k8s.io/Service books/opinions:9080")
            && owners
                .1
                .contains("not a Service (did you mean group: \"\"?)"),
        "{}",
        owners.1
    );
}

#[test]
fn a_rule_without_matches_reads_as_path_prefix_slash_in_explain() {
    let out = run(&[
        "explain",
        "-f",
        OMITTED,
        "--to",
        "opinions.books:9080",
        "GET",
        "/",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("HTTPRoute books/no-matches rule 0 match 0: PathPrefix / -> MATCH, wins"),
        "{}",
        out.stdout
    );
}

/// The defaulted form is what `status` copies into `status.parents[].parentRef`, as the route a
/// cluster stores holds it: a parentRef written without `group` and `kind` reads `group:
/// gateway.networking.k8s.io`, `kind: Gateway`.
#[test]
fn status_copies_the_defaulted_parent_ref() {
    let text = "\
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: public
spec:
  controllerName: example.com/gateway-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: books
spec:
  gatewayClassName: public
  listeners:
  - name: http
    port: 80
    protocol: HTTP
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  namespace: books
spec:
  parentRefs:
  - name: gw
  rules:
  - backendRefs:
    - name: opinions
      port: 9080
";
    let out = common::run_with_stdin(
        &[
            "status",
            "-f",
            "-",
            "--as",
            "example.com/gateway-controller",
            "--config",
            CONFIG,
            "--now",
            NOW,
            "-o",
            "json",
            "-q",
        ],
        Some(text),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let mut refs = Vec::new();
    parent_refs(&value, &mut refs);
    assert_eq!(
        refs,
        [
            serde_json::json!({"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"})
        ],
        "{}",
        out.stdout
    );
}

/// Every `parentRef` object in `value`.
fn parent_refs(value: &serde_json::Value, found: &mut Vec<serde_json::Value>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                if k == "parentRef" {
                    found.push(v.clone());
                } else {
                    parent_refs(v, found);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| parent_refs(v, found)),
        _ => {}
    }
}
