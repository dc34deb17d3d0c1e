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
use gamma_testenv::harness::standard_server;
use serde_json::Value;

gamma_testenv::test_main! {
    validate_status_resolve_and_explain_agree_on_the_same_manifests,
    validate_status_resolve_and_explain_agree_on_gateways_and_listener_sets,
    #[tokio] a_live_cluster_gets_the_same_verdicts_as_its_files if standard_server,
}

const INPUT: &str = "crates/gammactl/tests/fixtures/one-verdict.yaml";

/// Asserts that `out` contains `what`, showing `out` when not.
fn assert_has(out: &str, what: &str) {
    assert!(out.contains(what), "no {what:?} in:\n{out}");
}

/// The message of condition `type_` on route `name`'s only parent in `status -o json`.
fn condition(status: &Value, name: &str, type_: &str) -> (String, String, String) {
    let route = object(status, None, name);
    cond(&route["status"]["parents"][0]["conditions"], type_)
}

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
    assert_has(
        &validate.stdout,
        &format!(": HTTPRoute infra/refused: {refused}\n"),
    );
    assert_has(
        &validate.stdout,
        &format!(
            ": warning: HTTPRoute infra/dropped: spec.rules[0]: rule 0 is dropped by gamma-rs \
             (UnsupportedValue): {why}\n"
        ),
    );
    assert_has(&validate.stdout, ": 1 error, 1 warning");
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
        assert_has(&e.stdout, &format!("left out:  {note}\n"));
    }
    assert!(!e.stdout.contains("infra/refused rule"), "{}", e.stdout);
}

const GATEWAYS: &str = "crates/gammactl/tests/fixtures/one-verdict-gateways.yaml";

/// The status object of `name` (of `kind`, when given) in `status -o json`.
fn object<'v>(status: &'v Value, kind: Option<&str>, name: &str) -> &'v Value {
    status
        .as_array()
        .unwrap()
        .iter()
        .find(|o| kind.is_none_or(|k| o["kind"] == k) && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no status for {kind:?} {name}: {status:#}"))
}

/// (status, reason, message) of condition `type_` in a list of conditions.
fn cond(conditions: &Value, type_: &str) -> (String, String, String) {
    let c = conditions
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == type_)
        .unwrap_or_else(|| panic!("no {type_} in {conditions:#}"));
    let s = |k: &str| c[k].as_str().unwrap().to_owned();
    (s("status"), s("reason"), s("message"))
}

// One verdict for Gateways and ListenerSets (docs/validation.md "One verdict per object"): a
// Gateway (`dup`: two listeners named `web`) or ListenerSet (`bad-set`: a hostname on a TCP
// listener) the API server would refuse is a `validate` error, `status` says Accepted=False
// reason Invalid (GatewayConditionReason / ListenerSetConditionReason Invalid) with that error,
// routes naming it Accepted=False NoMatchingParent, `resolve` passes through with the note
// "Gateway infra/dup was left out: <error>" and `explain` shows it. An admitted Gateway with
// a listener of a protocol gamma-rs does not serve (`edge`, `tunnel`): no `validate` finding,
// the listener reported in `status` without an Accepted of gamma-rs's, the rest served.
fn validate_status_resolve_and_explain_agree_on_gateways_and_listener_sets() {
    let status = run(&[
        "status",
        "-f",
        GATEWAYS,
        "--as",
        "example.com/gateway",
        "--now",
        "2026-11-29T12:00:00Z",
        "-o",
        "json",
    ]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let status: Value = serde_json::from_str(&status.stdout).unwrap();
    let gw = object(&status, Some("Gateway"), "dup");
    let (ok, reason, dup_error) = cond(&gw["status"]["conditions"], "Accepted");
    assert_eq!((ok.as_str(), reason.as_str()), ("False", "Invalid"));
    assert_eq!(
        dup_error,
        "spec.listeners: Listener name must be unique within the Gateway"
    );
    assert!(gw["status"].get("listeners").is_none(), "{gw:#}");
    let set = object(&status, Some("ListenerSet"), "bad-set");
    let (ok, reason, set_error) = cond(&set["status"]["conditions"], "Accepted");
    assert_eq!((ok.as_str(), reason.as_str()), ("False", "Invalid"));
    assert!(set_error.starts_with("spec.listeners: "), "{set_error}");
    for (kind, route) in [("HTTPRoute", "to-dup"), ("TCPRoute", "to-bad-set")] {
        let r = object(&status, Some(kind), route);
        let (ok, reason, _) = cond(&r["status"]["parents"][0]["conditions"], "Accepted");
        assert_eq!(
            (ok.as_str(), reason.as_str()),
            ("False", "NoMatchingParent")
        );
    }
    for (kind, route) in [("HTTPRoute", "to-edge"), ("HTTPRoute", "to-extra")] {
        let r = object(&status, Some(kind), route);
        let (ok, _, _) = cond(&r["status"]["parents"][0]["conditions"], "Accepted");
        assert_eq!(ok, "True", "{route}");
    }
    let edge = object(&status, Some("Gateway"), "edge");
    assert_eq!(cond(&edge["status"]["conditions"], "Accepted").0, "True");
    let tunnel = edge["status"]["listeners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "tunnel")
        .unwrap();
    assert!(
        !tunnel["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "Accepted"),
        "{tunnel:#}"
    );
    assert_eq!(edge["status"]["attachedListenerSets"], 1);

    // validate: the two refusals are errors with the same words; nothing of edge or extra
    let validate = run(&["validate", "-f", GATEWAYS]);
    assert_eq!(validate.code, 1, "{}", validate.stdout);
    for line in [
        format!(": Gateway infra/dup: {dup_error}\n"),
        format!(": ListenerSet infra/bad-set: {set_error}\n"),
        ": 2 errors, 0 warnings".to_string(),
    ] {
        assert_has(&validate.stdout, &line);
    }
    assert!(
        !validate.stdout.contains("infra/edge"),
        "{}",
        validate.stdout
    );

    // resolve: nothing of dup binds; edge serves its HTTP listener and its admitted
    // ListenerSet's, not the tunnel; the notes name what was left out
    let gw_note = format!("Gateway infra/dup was left out: {dup_error}");
    let set_note = format!("ListenerSet infra/bad-set was left out: {set_error}");
    for (to, decision, note) in [
        ("gateway/infra/dup:80", "pass through", &gw_note),
        ("gateway/infra/dup:8080", "pass through", &gw_note),
        (
            "gateway/infra/edge:80",
            "forward to infra/web:80 (by HTTPRoute infra/to-edge rule 0)",
            &set_note,
        ),
        (
            "gateway/infra/edge:8081",
            "forward to infra/web:80 (by HTTPRoute infra/to-extra rule 0)",
            &set_note,
        ),
        ("gateway/infra/edge:9000", "pass through", &set_note),
        ("gateway/infra/edge:15008", "pass through", &set_note),
    ] {
        let r = run(&["resolve", "-f", GATEWAYS, "--to", to, "GET", "/"]);
        assert_eq!(r.code, 0, "{to}: {}", r.stderr);
        assert!(r.stdout.starts_with(decision), "{to}: {}", r.stdout);
        assert_has(&r.stderr, &format!("note: {note}\n"));
    }
    // a request addressed to the refused ListenerSet itself: an error naming its verdict
    let r = run(&[
        "resolve",
        "-f",
        GATEWAYS,
        "--to",
        "listenerset/infra/bad-set:9000",
        "GET",
        "/",
    ]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_has(
        &r.stderr,
        &format!("ListenerSet infra/bad-set is not accepted (Invalid: {set_error})"),
    );
    // explain: the same note
    let e = run(&[
        "explain",
        "-f",
        GATEWAYS,
        "--to",
        "gateway/infra/dup:80",
        "GET",
        "/",
    ]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert_has(&e.stdout, &format!("left out:  {gw_note}\n"));
}

/// The same verdicts from a live cluster (tools/kube-testenv, standard channel): the API
/// server refuses `refused` (so in a cluster it cannot exist), stores `dropped` and `fine`, and
/// `status` and `validate` read from the cluster say of them what they say of the files.
/// Reported ignored (with the reason) when Go is absent, unless GAMMA_REQUIRE_TESTENV=1.
async fn a_live_cluster_gets_the_same_verdicts_as_its_files() {
    use gamma_mesh::cluster::kinds::api_resource;
    use gamma_mesh::model::AnyResource;
    use kube::api::{Api, DynamicObject, PostParams};

    let env = gamma_testenv::server(gamma_testenv::Channel::Standard);
    // the fixture moved to a namespace and class of its own: the server is shared
    let text = std::fs::read_to_string(common::root().join(INPUT))
        .unwrap()
        .replace("namespace: infra", "namespace: one-verdict")
        .replace("{name: ours}", "{name: one-verdict}")
        .replace("gatewayClassName: ours", "gatewayClassName: one-verdict")
        .replace("example.com/gateway", "example.com/one-verdict");
    let text =
        format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: one-verdict}}\n---\n{text}");
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig()).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    let client = kube::Client::try_from(config).unwrap();
    let mut stored = Vec::new();
    for r in gamma_mesh::model::decode(&text).unwrap() {
        let kind = r.kind();
        let ar = api_resource(kind, kind.api_versions()[0]);
        let api: Api<DynamicObject> = match r.metadata().namespace.as_deref() {
            Some(ns) if kind.is_namespaced() => Api::namespaced_with(client.clone(), ns, &ar),
            _ => Api::all_with(client.clone(), &ar),
        };
        let object: DynamicObject =
            serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        let created = api.create(&PostParams::default(), &object).await;
        let name = r.metadata().name.clone();
        // the files hold the objects as the API server stored them (defaults applied)
        let created = match created {
            Err(kube::Error::Api(e)) if e.code == 409 => api.get(&name).await,
            other => other,
        };
        match created {
            Ok(mut o) => {
                o.metadata.managed_fields = None;
                let mut v = serde_json::to_value(&o).unwrap();
                v["apiVersion"] = kind.api_versions()[0].into();
                v["kind"] = kind.as_str().into();
                stored.push((r, v));
            }
            // the one the API server refuses: the CRD's CEL rule on that rule
            Err(kube::Error::Api(e)) if name == "refused" => {
                assert_eq!(e.code, 422, "{e:?}");
                assert!(
                    e.message.contains(
                        "RequestRedirect filter must not be used together with backendRefs"
                    ),
                    "{e:?}"
                );
            }
            Err(e) => panic!("{name}: {e:?}"),
        }
    }
    assert!(
        !stored
            .iter()
            .any(|(r, _): &(AnyResource, Value)| r.metadata().name == "refused")
    );
    // the stored objects as files
    let dir = env.work_dir().join("one-verdict");
    std::fs::create_dir_all(&dir).unwrap();
    for (i, (_, v)) in stored.iter().enumerate() {
        std::fs::write(
            dir.join(format!("{i:02}.json")),
            serde_json::to_string(v).unwrap(),
        )
        .unwrap();
    }
    let files = dir;
    let (kubeconfig, files) = (
        env.kubeconfig().to_str().unwrap().to_owned(),
        files.to_str().unwrap().to_owned(),
    );
    let status = |source: &[&str]| {
        let mut args = vec![
            "status",
            "-q",
            "--as",
            "example.com/one-verdict",
            "--now",
            "2026-11-29T12:00:00Z",
            "-o",
            "json",
        ];
        args.extend_from_slice(source);
        let r = run(&args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        serde_json::from_str::<Value>(&r.stdout).unwrap()
    };
    let live = status(&["--kubeconfig", &kubeconfig]);
    let (ok, reason, pi) = condition(&live, "dropped", "PartiallyInvalid");
    assert_eq!((ok.as_str(), reason.as_str()), ("True", "UnsupportedValue"));
    assert!(pi.starts_with("Dropped Rule(s) 0: "), "{pi}");
    assert_eq!(condition(&live, "fine", "Accepted").0, "True");
    // the status objects carry no resourceVersion from files; compare the statuses
    let statuses = |v: &Value| -> Vec<(Value, Value)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|o| (o["metadata"]["name"].clone(), o["status"].clone()))
            .collect()
    };
    assert_eq!(
        statuses(&live),
        statuses(&status(&["-f", &files])),
        "the cluster and its files differ"
    );
    // validate, on the cluster: the dropped rule is the same warning as for the file
    let v = run(&["validate", "-q", "--kubeconfig", &kubeconfig]);
    let why = pi.strip_prefix("Dropped Rule(s) 0: rule 0: ").unwrap();
    assert_has(
        &v.stdout,
        &format!(
            "HTTPRoute one-verdict/dropped: spec.rules[0]: rule 0 is dropped by gamma-rs \
             (UnsupportedValue): {why}"
        ),
    );
}
