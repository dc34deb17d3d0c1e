//! `gammactl status` for a gateway controller: besides routes, the Gateway, listener,
//! ListenerSet and BackendTLSPolicy status it would write, in the text output and as status
//! objects or patches (`-o json|yaml`), in a stable order: routes, then Gateways, ListenerSets
//! and BackendTLSPolicies, each by namespace and name.

mod common;

use common::{check, run};

const INPUT: &str = "crates/gammactl/tests/fixtures/object-status.yaml";
const NOW: &str = "2026-11-29T12:00:00Z";
const ME: &str = "example.com/gateway";

// GEP-1713 (a ListenerSet's status is its parent Gateway's controller's) and GEP-713
// PolicyStatus (our ancestor entries only): the text output shows both.
#[test]
fn status_text_shows_listener_set_and_backend_tls_policy_status() {
    check(
        "status-objects",
        &["status", "-f", INPUT, "--as", ME, "--now", NOW],
        0,
    );
}

// The status objects a controller would write, golden: the route, the Gateway (with the
// computed attachedListenerSets), the ListenerSet, and the BackendTLSPolicy with the other
// controller's ancestor entry kept as stored, first.
#[test]
fn status_json_carries_gateway_listener_set_and_policy_objects() {
    check(
        "status-objects-json",
        &[
            "status", "-f", INPUT, "--as", ME, "--now", NOW, "-o", "json",
        ],
        0,
    );
    let r = run(&[
        "status", "-f", INPUT, "--as", ME, "--now", NOW, "-o", "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let kinds: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["HTTPRoute", "Gateway", "ListenerSet", "BackendTLSPolicy"]
    );
    let gateway = &v[1];
    assert_eq!(gateway["metadata"]["resourceVersion"], "101");
    assert_eq!(gateway["status"]["attachedListenerSets"], 1);
    assert_eq!(gateway["status"]["listeners"][0]["name"], "web");
    let ancestors = v[3]["status"]["ancestors"].as_array().unwrap();
    assert_eq!(ancestors.len(), 2);
    assert_eq!(ancestors[0]["controllerName"], "other.example.com/gateway");
    assert_eq!(ancestors[0]["conditions"][0]["message"], "theirs");
    assert_eq!(ancestors[1]["controllerName"], ME);
    assert_eq!(ancestors[1]["ancestorRef"]["name"], "edge");
}

// The same in YAML, and as patches: each object patch names its object and tests its
// resourceVersion (a policy's status.ancestors is an atomic list, shared by controllers).
#[test]
fn status_yaml_and_patches_carry_the_same_objects() {
    let json = run(&[
        "status", "-f", INPUT, "--as", ME, "--now", NOW, "-o", "json",
    ]);
    let yaml = run(&[
        "status", "-f", INPUT, "--as", ME, "--now", NOW, "-o", "yaml",
    ]);
    assert_eq!(yaml.code, 0, "{}", yaml.stderr);
    let from_json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let from_yaml: serde_json::Value = serde_saphyr::from_str(&yaml.stdout).unwrap();
    assert_eq!(from_json, from_yaml);
    let r = run(&[
        "status", "-f", INPUT, "--as", ME, "--now", NOW, "--form", "patch", "-o", "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v[0]["route"]["name"], "r");
    let policy = &v[3];
    assert!(policy.get("route").is_none(), "{policy}");
    assert_eq!(policy["object"]["kind"], "BackendTLSPolicy");
    assert_eq!(policy["patch"][0]["path"], "/metadata/resourceVersion");
    assert_eq!(policy["patch"][0]["value"], "104");
    assert_eq!(policy["patch"][1]["value"], 3);
    assert_eq!(
        policy["patch"][2]["value"]["ancestors"],
        from_json[3]["status"]["ancestors"]
    );
}
