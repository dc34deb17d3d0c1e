//! `status` output that is safe to apply while other controllers write the same route:
//! `status.parents` is `x-kubernetes-list-type: atomic` in the Gateway API CRDs, so a write
//! that replaces it over a concurrent one silently drops the other controller's entry. Every
//! write therefore carries the resourceVersion precondition of the copy it was merged into.

mod common;

use common::run;

const STORED: &str = "crates/gammactl/tests/fixtures/stored-status.yaml";
const NOW: &str = "2026-11-29T12:00:00Z";

#[test]
fn status_patches_test_the_resource_version_of_the_copy_they_merged() {
    let r = run(&[
        "status",
        "-f",
        STORED,
        "--as",
        "istio.io/gateway-controller",
        "--now",
        NOW,
        "--form",
        "patch",
        "-o",
        "json",
        // its XMesh is served by the experimental channel only
        "--channel",
        "experimental",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // store/api has resourceVersion 48213 in the input: no warning about it.
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let patch = &v[0]["patch"];
    assert_eq!(v[0]["route"]["name"], "api");
    assert_eq!(patch[0]["op"], "test");
    assert_eq!(patch[0]["path"], "/metadata/resourceVersion");
    assert_eq!(patch[0]["value"], "48213");
    assert_eq!(patch[1]["path"], "/metadata/generation");
    assert_eq!(patch[2]["op"], "add");
    assert_eq!(patch[2]["path"], "/status");
}

#[test]
fn full_status_objects_carry_the_resource_version() {
    let r = run(&[
        "status",
        "-f",
        STORED,
        "--as",
        "istio.io/gateway-controller",
        "--now",
        NOW,
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v[0]["metadata"]["resourceVersion"], "48213");
}

#[test]
fn a_route_without_resource_version_is_said_to_be_unprotected() {
    let r = run(&[
        "status",
        "-f",
        "examples/manifests",
        "--config",
        "examples/gamma-config.yaml",
        "--as",
        "example.com/gateway-controller",
        "--now",
        NOW,
        "--form",
        "patch",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v[0]["patch"][0]["path"], "/metadata/generation");
    assert!(
        r.stderr.contains(
            "warning: no metadata.resourceVersion in the input for HTTPRoute web/storefront, \
             Gateway edge/public: the patches cannot detect a concurrent status write"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn kubectl_commands_name_the_fully_qualified_resource() {
    let r = run(&[
        "status",
        "-f",
        STORED,
        "--as",
        "istio.io/gateway-controller",
        "--now",
        NOW,
        "--form",
        "patch",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "  kubectl patch httproutes.gateway.networking.k8s.io api -n store \
             --subresource=status --type=json -p '[{\"op\":\"test\",\"path\":\
             \"/metadata/resourceVersion\",\"value\":\"48213\"},"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn status_help_describes_now_and_the_patch_form_as_they_are() {
    let r = run(&["status", "--help"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("Default: the current time"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("epoch"), "{}", r.stdout);
    assert!(r.stdout.contains("RFC 6902 JSON patch"), "{}", r.stdout);
    assert!(r.stdout.contains("--type=json"), "{}", r.stdout);
    assert!(!r.stdout.contains("merge patch"), "{}", r.stdout);
}

// A route written by hand has no `metadata.generation`: a patch testing the generation 0 it
// defaults to would be refused by the API server on every stored object (generation starts
// at 1), so the patch tests no generation, and the warning says so.
#[test]
fn a_patch_tests_no_generation_the_input_does_not_have() {
    let input = "apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {gamma.rs/mesh: linkerd}}
---
apiVersion: v1
kind: Service
metadata: {name: cart, namespace: shop}
spec: {clusterIP: 10.96.0.20, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{group: \"\", kind: Service, name: cart, port: 80}]
  rules: [{backendRefs: [{name: cart, port: 80}]}]
";
    let r = common::run_with_stdin(
        &[
            "status",
            "-f",
            "-",
            "--config",
            "examples/gamma-config.yaml",
            "--as",
            "linkerd.io/policy-controller",
            "--now",
            NOW,
            "--form",
            "patch",
            "-o",
            "json",
        ],
        Some(input),
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let ops: Vec<&str> = v[0]["patch"]
        .as_array()
        .unwrap()
        .iter()
        .map(|op| op["path"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["/status"], "{}", r.stdout);
    assert!(
        r.stderr
            .contains("where metadata.generation is missing too they test no generation"),
        "{}",
        r.stderr
    );
}
