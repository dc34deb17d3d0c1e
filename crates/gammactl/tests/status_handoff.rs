//! Make-before-break on files (docs/status-protocol.md, "Make-before-break handoff"):
//! `status --as` follows the controller runtime's rule (gamma-controller's
//! `stored_handoff_directives` and `keep_retained_entries`, gamma-arbiter's `Handoff`). A
//! controller that still has a status entry for a parent it no longer owns keeps that entry as
//! stored until the new owner's entry says `Accepted=True` at the route's generation; only
//! then does it remove its own. The same handoff on a real API server is
//! crates/gamma-kube/tests/handoff.rs.

mod common;

use common::run_with_stdin;
use serde_json::Value;

const INPUT: &str = "crates/gammactl/tests/fixtures/handoff.yaml";
const CONFIG: &str = "examples/gamma-config.yaml";

fn status(input: &str, controller: &str, format: &str) -> common::Run {
    let r = run_with_stdin(
        &[
            "status",
            "-f",
            "-",
            "--config",
            CONFIG,
            "--as",
            controller,
            "--now",
            "2026-11-29T12:00:00Z",
            "-o",
            format,
        ],
        Some(input),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    r
}

/// The controllers with an entry in the status of the one route of `objects` (status -o json).
fn controllers_of(objects: &Value) -> Vec<String> {
    objects[0]["status"]["parents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["controllerName"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_old_owner_keeps_its_status_entry_until_the_new_owner_has_written_one() {
    let input = std::fs::read_to_string(common::root().join(INPUT)).unwrap();
    // linkerd lost the route (the Namespace now says istio) and istio has not written yet:
    // linkerd writes nothing (no `write` emptying the parents), and says why
    let old = status(&input, "linkerd", "json");
    assert_eq!(old.stdout.trim(), "[]", "{}", old.stdout);
    let text = status(&input, "linkerd", "text");
    assert!(
        text.stdout.contains(
            "HTTPRoute books/opinions: handing off Service books/opinions:9080: no longer owned"
        ) && text.stdout.contains(
            "kept until istio.io/gateway-controller's entry is Accepted=True at generation 3"
        ),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains(": write"), "{}", text.stdout);

    // istio writes its entry beside linkerd's (foreign entries are never touched)
    let new = status(&input, "istio", "json");
    let written: Value = serde_json::from_str(&new.stdout).unwrap();
    assert_eq!(
        controllers_of(&written),
        [
            "linkerd.io/policy-controller",
            "istio.io/gateway-controller"
        ]
    );

    // with istio's accepted entry stored, linkerd removes its own
    let parents = serde_json::to_string(&written[0]["status"]).unwrap();
    let stored = format!(
        "{}status: {parents}\n",
        input.split("status:\n").next().unwrap()
    );
    let after: Value = serde_json::from_str(&status(&stored, "linkerd", "json").stdout).unwrap();
    assert_eq!(controllers_of(&after), ["istio.io/gateway-controller"]);
}
