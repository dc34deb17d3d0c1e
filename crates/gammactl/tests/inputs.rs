//! Input habits from kubectl: comma-separated `-f`, one summary line for the kinds gamma-rs
//! does not read (`--quiet` hides it), a removed API version named as such, and a bare
//! Service name looked up in the client's namespace.

mod common;

use common::{run, run_with_stdin};

const M: &str = "examples/manifests";

/// Real folders hold kinds gamma-rs does not model, a route in a version the Gateway API no
/// longer serves (GRPCRoute v1alpha2; the v1.6.1 CRDs serve only v1), and a List.
const MIXED: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: cfg, namespace: shop}
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: GRPCRoute
metadata: {name: grpc, namespace: shop}
spec: {}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ServiceAccount
  metadata: {name: sa, namespace: shop}
";

#[test]
fn comma_separated_filenames_are_read_like_kubectl() {
    let both = run(&[
        "validate",
        "-f",
        "examples/manifests/00-namespaces.yaml,examples/manifests/20-services.yaml",
    ]);
    let repeated = run(&[
        "validate",
        "-f",
        "examples/manifests/00-namespaces.yaml",
        "-f",
        "examples/manifests/20-services.yaml",
    ]);
    assert_eq!(both.code, 0, "{}", both.stderr);
    assert_eq!(both.stdout, repeated.stdout);
    assert!(both.stdout.contains(" in 2 files"), "{}", both.stdout);
}

#[test]
fn kinds_gamma_rs_does_not_read_are_summarised_once() {
    let r = run_with_stdin(&["validate", "-f", "-"], Some(MIXED));
    // exit 1: MIXED also holds a removed version, which validate reports as an error
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let summaries: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("gamma-rs does not read"))
        .collect();
    assert_eq!(
        summaries,
        [
            "warning: skipped 4 objects of 3 kinds gamma-rs does not read: apps/v1 Deployment, \
             v1 PersistentVolumeClaim, v1 ServiceAccount (--quiet hides this)"
        ]
    );
    assert!(!r.stdout.contains("Deployment"), "{}", r.stdout);
    let quiet = run_with_stdin(&["validate", "-q", "-f", "-"], Some(MIXED));
    assert!(quiet.stderr.is_empty(), "{}", quiet.stderr);
    let json = run_with_stdin(&["validate", "-q", "-o", "json", "-f", "-"], Some(MIXED));
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["skipped"]["objects"], 4);
    assert_eq!(
        v["skipped"]["kinds"],
        serde_json::json!([
            "apps/v1 Deployment",
            "v1 PersistentVolumeClaim",
            "v1 ServiceAccount"
        ])
    );
    // The same summary on the commands that answer from the manifests.
    let r = run_with_stdin(
        &["owners", "-f", "-", "-f", M, "--all"],
        Some("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("skipped 1 object of 1 kind gamma-rs does not read: apps/v1 Deployment"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_removed_api_version_is_named_as_such_not_as_an_unknown_kind() {
    // No v1.6.1 CRD serves GRPCRoute v1alpha2: the API server answers 404, so `validate`
    // reports an error; commands that only read (resolve, explain) warn and read on.
    let r = run_with_stdin(&["validate", "--quiet", "-f", "-"], Some(MIXED));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout,
        "<stdin>:13: skipped GRPCRoute shop/grpc: gateway.networking.k8s.io/v1alpha2 is a \
         removed version of GRPCRoute, no longer served by the Gateway API CRDs; gamma-rs reads \
         gateway.networking.k8s.io/v1 (change apiVersion)\n\
         0 objects in 1 file: 1 error, 0 warnings (Gateway API v1.7, standard channel)\n"
    );
}

#[test]
fn a_bare_service_name_with_from_is_looked_up_in_that_namespace() {
    // Inside namespace shop, `checkout` is checkout.shop (the DNS search path).
    let bare = run(&[
        "resolve",
        "-f",
        M,
        "--from",
        "shop",
        "--to",
        "checkout:80",
        "-o",
        "json",
        "GET",
        "/api/orders",
    ]);
    let full = run(&[
        "resolve",
        "-f",
        M,
        "--from",
        "shop",
        "--to",
        "checkout.shop:80",
        "-o",
        "json",
        "GET",
        "/api/orders",
    ]);
    assert_eq!(bare.code, 0, "{}", bare.stderr);
    assert_eq!(bare.stdout, full.stdout);
    // without --from or -n, the name is in `default`, as kubectl's names are
    let without = run(&["resolve", "-f", M, "--to", "checkout:80", "/api/orders"]);
    assert_eq!(without.code, 1);
    assert!(
        without
            .stderr
            .contains("Service default/checkout is not in the manifests"),
        "{}",
        without.stderr
    );
}

#[test]
fn only_resolve_mentions_requests_in_its_output_help() {
    for command in ["validate", "explain", "owners", "status", "authorize"] {
        let r = run(&[command, "--help"]);
        assert_eq!(r.code, 0);
        let help = r
            .stdout
            .lines()
            .skip_while(|l| !l.contains("--output <FORMAT>"))
            .nth(1)
            .unwrap_or_default();
        assert!(
            help.contains("Output format") && !help.contains("--requests"),
            "{command}: {help}"
        );
    }
    let r = run(&["resolve", "--help"]);
    assert!(
        r.stdout
            .contains("Output format [default: text; with --requests, JSON lines]"),
        "{}",
        r.stdout
    );
}

// kubectl refuses a folder with nothing to apply (`error: no objects passed to apply`); so does
// every gammactl command on files: "0 objects: 0 errors" would pass a mistyped path.
#[test]
fn an_empty_folder_is_an_error_as_in_kubectl() {
    let dir = std::env::temp_dir().join(format!("gammactl-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a manifest\n").unwrap();
    let path = dir.to_str().unwrap();
    for args in [
        vec!["validate", "-f", path],
        vec!["owners", "--all", "-f", path],
        vec!["resolve", "-f", path, "--to", "10.0.0.1:80"],
    ] {
        let r = run(&args);
        assert_eq!(r.code, 1, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains(&format!("no manifests found in {path}"))
                && r.stderr.contains("no objects passed to apply"),
            "{args:?}: {}",
            r.stderr
        );
    }
    // empty standard input too
    let r = run_with_stdin(&["validate", "-f", "-"], Some("# nothing\n"));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    std::fs::remove_dir_all(&dir).ok();
}
