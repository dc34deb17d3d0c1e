//! gammactl on a live cluster (`--kubeconfig`): the sample cluster created on a real Kubernetes API
//! server (tools/kube-testenv) gives the same answers as the same objects, read back from the
//! server, given as files with `-f`. Reported ignored (with the reason) when Go is absent, unless
//! GAMMA_REQUIRE_TESTENV=1.

mod common;

use common::live::{api, client, dump};
use common::{root, run};
use gamma_mesh::cluster::kinds::WATCHED;
use gamma_mesh::model::{AnyResource, ResourceKind};
use gamma_testenv::Channel;
use gamma_testenv::harness::experimental_server;
use kube::api::{DynamicObject, PostParams};

gamma_testenv::test_main! {
    #[tokio] a_live_cluster_answers_as_its_objects_given_as_files if experimental_server,
}

const CONFIG: &str = "examples/gamma-config.yaml";
const NOW: &str = "2026-11-29T12:00:00Z";

/// Creates the sample cluster (examples/manifests, top level), status through the status
/// subresource.
async fn create_sample(client: &kube::Client) {
    let dir = root().join("examples/manifests");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut objects: Vec<AnyResource> = Vec::new();
    for f in files {
        objects.extend(gamma_mesh::model::decode(&std::fs::read_to_string(f).unwrap()).unwrap());
    }
    objects.sort_by_key(|r| r.kind() != ResourceKind::Namespace);
    for r in &objects {
        let mut value = serde_json::to_value(r).unwrap();
        let status = value.as_object_mut().unwrap().remove("status");
        let object: DynamicObject = serde_json::from_value(value).unwrap();
        let api = api(client, r.kind(), r.metadata().namespace.as_deref());
        let created = api.create(&PostParams::default(), &object).await.unwrap();
        if let Some(status) = status {
            let mut with = created;
            with.data["status"] = status;
            api.replace_status(&r.metadata().name, &PostParams::default(), &with)
                .await
                .unwrap();
        }
    }
}

/// gammactl's read-only commands give the same answer for the cluster (`--kubeconfig`) as for
/// its objects as files (`-f`): ownership, status writes, request resolution, and reference
/// checks (`validate --refs`).
async fn a_live_cluster_answers_as_its_objects_given_as_files() {
    let env = gamma_testenv::server(Channel::Experimental);
    let client = client(env.kubeconfig()).await;
    create_sample(&client).await;
    let files = env.work_dir().join("dump");
    let dumped = dump(&client, WATCHED, &files).await;
    assert!(dumped > 40, "only {dumped} objects");
    let kubeconfig = env.kubeconfig().to_str().unwrap().to_owned();
    let files = files.to_str().unwrap().to_owned();
    let commands: [&[&str]; 5] = [
        &["owners", "--config", CONFIG, "--all"],
        &["status", "--config", CONFIG, "--as", "istio", "--now", NOW],
        &[
            "status", "--config", CONFIG, "--as", "linkerd", "--now", NOW, "-o", "json",
        ],
        &[
            "resolve",
            "--from",
            "shop",
            "--to",
            "checkout.shop:80",
            "-o",
            "json",
            "GET",
            "/api/orders",
        ],
        &[
            "explain",
            "--from",
            "shop",
            "--to",
            "10.96.10.20:80",
            "--header",
            "x-canary=true",
            "GET",
            "/api/orders",
        ],
    ];
    for command in commands {
        let with = |source: &[&str]| {
            let mut args: Vec<&str> = command.to_vec();
            args.splice(1..1, source.iter().copied());
            run(&args)
        };
        // The cluster is judged by the bundle its CRDs name; its objects as files by the flags.
        let live = with(&["--kubeconfig", &kubeconfig, "-q"]);
        let as_files = with(&[
            "-f",
            &files,
            "-q",
            "--bundle-version",
            env.release(),
            "--channel",
            "experimental",
        ]);
        assert_eq!(live.code, 0, "{command:?}: {}", live.stderr);
        assert!(!live.stdout.is_empty(), "{command:?}");
        assert_eq!(
            (live.code, &live.stdout),
            (as_files.code, &as_files.stdout),
            "{command:?}: the cluster and its files differ"
        );
    }
    // `validate --refs`: the same findings on the same objects; only where each was read
    // from (a file and line, or `cluster:<Kind>/...`) differs.
    let findings = |source: &[&str]| {
        let mut args = vec![
            "validate",
            "--refs",
            "--channel",
            "experimental",
            "-o",
            "json",
        ];
        args.extend_from_slice(source);
        let run = run(&args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        let mut report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let problems = report["problems"].as_array_mut().unwrap();
        for p in problems.iter_mut() {
            let p = p.as_object_mut().unwrap();
            for position in ["file", "document", "line"] {
                p.remove(position);
            }
        }
        problems.sort_by_key(|p| p.to_string());
        report
    };
    let live = findings(&["--kubeconfig", &kubeconfig]);
    assert!(
        !live["problems"].as_array().unwrap().is_empty(),
        "the sample has reference findings: {live}"
    );
    assert_eq!(
        live,
        findings(&["-f", &files, "--bundle-version", env.release()]),
        "validate --refs: the cluster and its files differ"
    );
    // The text counts objects read from the cluster as such, not as files (one text each).
    let text = run(&["validate", "--kubeconfig", &kubeconfig]);
    assert!(
        text.stdout.contains(" objects from the cluster: "),
        "{}",
        text.stdout
    );
    // A cluster is judged by the bundle its CRDs name (this server's: experimental channel of
    // its release), not by the flags' defaults for files; a flag given still wins.
    let release = env.release().trim_start_matches('v');
    let series = release.rsplit_once('.').map_or(release, |(s, _)| s);
    assert!(
        text.stdout
            .contains(&format!("(Gateway API v{series}, experimental channel")),
        "{}",
        text.stdout
    );
    let forced = run(&[
        "validate",
        "--kubeconfig",
        &kubeconfig,
        "--channel",
        "standard",
    ]);
    assert!(
        forced
            .stdout
            .contains(&format!("(Gateway API v{series}, standard channel")),
        "{}",
        forced.stdout
    );
    // Files and the cluster together are refused: one source or the other.
    let both = run(&["owners", "--all", "-f", &files, "--kubeconfig", &kubeconfig]);
    assert_eq!(both.code, 2, "{}", both.stderr);
}
