//! One object, one verdict: the README's sample (examples/manifests), applied to a real
//! Kubernetes API server (tools/kube-testenv) as written, with strict field validation (kubectl's
//! default), reads the same from the cluster (`--kubeconfig`) as from the files people wrote
//! (`-f`): the API server's defaults are the ones gammactl reads files with
//! (docs/validation.md, "Defaults"). With the `controllers` CRD extension every object is
//! stored; without it, the routes that use `parentRefs[].controllers` are refused, exactly the
//! ones `gammactl validate` reports and every other command warns about, and the cluster reads
//! as the files without them. Reported ignored (with the reason) when Go is absent, unless
//! GAMMA_REQUIRE_TESTENV=1.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::live::client;
use common::{root, run};
use gamma_mesh::cluster::kinds::api_resource;
use gamma_mesh::model::ResourceKind;
use gamma_testenv::harness::experimental_server;
use gamma_testenv::{Channel, TestEnv};
use kube::api::{DynamicObject, PostParams};
use kube::core::Resource as _;

gamma_testenv::test_main! {
    #[tokio] the_sample_applied_with_the_controllers_extension_reads_as_its_files if experimental_server,
    #[tokio] the_sample_applied_without_the_extension_reads_as_its_files_minus_the_refused_routes if experimental_server,
}

const CONFIG: &str = "examples/gamma-config.yaml";
const NOW: &str = "2026-11-29T12:00:00Z";
const SAMPLE: &str = "examples/manifests";

/// `Kind namespace/name` of a manifest as written.
type Key = String;

/// The sample's documents as written (top-level files, in sorted order, Namespaces first).
fn sample() -> Vec<serde_json::Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(SAMPLE))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut docs = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let values: Vec<serde_json::Value> = serde_saphyr::from_multiple(&text).unwrap();
        docs.extend(values.into_iter().filter(|v| !v.is_null()));
    }
    docs.sort_by_key(|v| v["kind"] != "Namespace");
    docs
}

fn key(doc: &serde_json::Value) -> Key {
    format!(
        "{} {}/{}",
        doc["kind"].as_str().unwrap(),
        doc["metadata"]["namespace"].as_str().unwrap_or(""),
        doc["metadata"]["name"].as_str().unwrap()
    )
}

/// Creates every document as written, as `kubectl apply` (client-side) creates a new object:
/// a POST with `fieldValidation=Strict`, kubectl's default. Returns the ones the API server
/// refused for an unknown field. With `retry`, a refusal is retried for a while first (a CRD
/// just patched takes a moment to serve its new schema).
async fn apply_strict(
    client: &kube::Client,
    docs: &[serde_json::Value],
    retry: bool,
) -> BTreeSet<Key> {
    let mut refused = BTreeSet::new();
    for doc in docs {
        let kind = ResourceKind::from_kind_name(doc["kind"].as_str().unwrap()).unwrap();
        let ar = api_resource(kind, doc["apiVersion"].as_str().unwrap());
        let namespace = kind
            .is_namespaced()
            .then(|| doc["metadata"]["namespace"].as_str().unwrap_or("default"));
        let url = DynamicObject::url_path(&ar, namespace);
        let mut attempts = if retry { 40 } else { 1 };
        loop {
            let mut request = kube::core::Request::new(&url)
                .create(&PostParams::default(), serde_json::to_vec(doc).unwrap())
                .unwrap();
            let uri = request.uri().to_string();
            let sep = if uri.contains('?') { '&' } else { '?' };
            *request.uri_mut() = format!("{uri}{sep}fieldValidation=Strict").parse().unwrap();
            match client.request::<DynamicObject>(request).await {
                Ok(_) => break,
                Err(kube::Error::Api(e)) if e.message.contains("unknown field") => {
                    attempts -= 1;
                    if attempts == 0 {
                        refused.insert(key(doc));
                        break;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(250)).await;
                }
                Err(e) => panic!("{}: {e}", key(doc)),
            }
        }
    }
    refused
}

/// The one thing a cluster cannot store as written: `metadata.generation` (the API server sets
/// 1 on create) and the `resourceVersion` it assigns. `status` reports them (its header line,
/// `observedGeneration`, the patches' tests), so its outputs are compared with those numbers
/// masked; everything else byte for byte.
fn mask_generations(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    let marks = [
        "(generation ",
        ", resourceVersion ",
        "\"observedGeneration\":",
        "\"generation\":",
        "\"/metadata/generation\",\"value\":",
        "\"resourceVersion\": \"",
        "\"/metadata/resourceVersion\",\"value\":\"",
    ];
    while let Some((at, mark)) = marks
        .iter()
        .filter_map(|m| rest.find(m).map(|i| (i, *m)))
        .min()
    {
        out.push_str(&rest[..at + mark.len()]);
        rest = &rest[at + mark.len()..];
        let spaces = rest.len() - rest.trim_start_matches(' ').len();
        out.push_str(&rest[..spaces]);
        rest = &rest[spaces..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        rest = &rest[digits..];
        out.push('N');
    }
    out.push_str(rest);
    // What only a stored object has: its resourceVersion (the files hold none).
    out.replace(", resourceVersion N", "")
        .replace(
            "{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"N\"},",
            "",
        )
        .lines()
        .filter(|l| !l.trim_start().starts_with("\"resourceVersion\":"))
        .map(|l| l.trim_end_matches(','))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The read-only commands of live_cluster.rs, under the sample's bundle.
fn commands(release: &str) -> Vec<Vec<String>> {
    let common = [
        "--config",
        CONFIG,
        "--channel",
        "experimental",
        "--bundle-version",
        release,
    ];
    let with = |args: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        v.splice(1..1, common.iter().map(|s| (*s).to_owned()));
        v
    };
    vec![
        with(&["owners", "--all"]),
        with(&["status", "--as", "istio", "--now", NOW]),
        with(&["status", "--as", "linkerd", "--now", NOW, "-o", "json"]),
        with(&["status", "--as", "linkerd", "--now", NOW, "--form", "patch"]),
        with(&[
            "resolve",
            "--from",
            "shop",
            "--to",
            "checkout.shop:80",
            "-o",
            "json",
            "GET",
            "/api/orders",
        ]),
        with(&[
            "explain",
            "--from",
            "shop",
            "--to",
            "10.96.10.20:80",
            "--header",
            "x-canary=true",
            "GET",
            "/api/orders",
        ]),
    ]
}

/// Each command's stdout from the cluster equals its stdout from `files`, byte for byte.
/// Returns the number of (route, parent) verdicts of `owners --all`.
fn assert_same_answers(kubeconfig: &Path, release: &str, files: &str) -> usize {
    let kubeconfig = kubeconfig.to_str().unwrap();
    let mut owners_lines = 0;
    for command in commands(release) {
        let with = |source: &[&str]| {
            let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
            args.splice(1..1, source.iter().copied());
            run(&args)
        };
        let live = with(&["--kubeconfig", kubeconfig, "-q"]);
        let as_files = with(&["-f", files, "-q"]);
        assert_eq!(live.code, 0, "{command:?}: {}", live.stderr);
        // What the cluster stored, it stored: nothing of it to refuse or prune.
        assert_eq!(warned(&live.stderr), BTreeSet::new(), "{command:?}");
        assert!(!live.stdout.is_empty(), "{command:?}");
        if command.first().is_some_and(|c| c == "status") {
            assert_eq!(
                (live.code, mask_generations(&live.stdout)),
                (as_files.code, mask_generations(&as_files.stdout)),
                "{command:?}: the cluster and the files differ"
            );
        } else {
            assert_eq!(
                (live.code, &live.stdout),
                (as_files.code, &as_files.stdout),
                "{command:?}: the cluster and the files differ, byte for byte"
            );
        }
        if command.first().is_some_and(|c| c == "owners") {
            // One line per (route, parent) verdict, between the header and the summary.
            owners_lines = live
                .stdout
                .lines()
                .filter(|l| {
                    l.split_whitespace()
                        .next()
                        .is_some_and(|w| w.ends_with("Route"))
                })
                .count();
            eprintln!(
                "owners --all, the same {owners_lines} verdicts:\n{}",
                live.stdout
            );
        }
    }
    owners_lines
}

/// The objects a command's standard error says the API server would not store as written:
/// the `Kind namespace/name` of each `validate` line after the warning that introduces them.
fn warned(stderr: &str) -> BTreeSet<Key> {
    let mut lines = stderr.lines();
    if !lines.any(|l| l.contains("would not be stored as written by the API server")) {
        return BTreeSet::new();
    }
    lines
        .map_while(|l| {
            // `file:line: Kind namespace/name: field.path: message`
            let mut parts = l.splitn(3, ": ");
            let located = parts.next()?.rsplit_once(':')?.1.parse::<usize>().is_ok();
            located.then(|| parts.next().map(str::to_owned))?
        })
        .collect()
}

/// The objects `gammactl validate` (without `--crd-extension controllers`) reports as errors
/// for the unknown field `parentRefs[].controllers`.
fn refused_by_validate(release: &str) -> BTreeSet<Key> {
    let out = run(&[
        "validate",
        "-f",
        SAMPLE,
        "--channel",
        "experimental",
        "--bundle-version",
        release,
        "-o",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            p["severity"] == "error"
                && p["path"].as_str().unwrap().ends_with(".controllers")
                && p["message"].as_str().unwrap().starts_with("unknown field")
        })
        .map(|p| {
            let o = &p["object"];
            format!(
                "{} {}/{}",
                o["kind"].as_str().unwrap(),
                o["namespace"].as_str().unwrap_or(""),
                o["name"].as_str().unwrap()
            )
        })
        .collect()
}

/// With the `controllers` CRD extension installed (`gammactl crd-extension controllers`), the
/// whole sample is stored under strict field validation, and the cluster answers every command
/// as the files do.
async fn the_sample_applied_with_the_controllers_extension_reads_as_its_files() {
    let env = gamma_testenv::server(Channel::Experimental);
    let kubeconfig = env.kubeconfig().to_str().unwrap();
    let installed = run(&["crd-extension", "controllers", "--kubeconfig", kubeconfig]);
    assert_eq!(installed.code, 0, "{}", installed.stderr);
    let client = client(env.kubeconfig()).await;
    let refused = apply_strict(&client, &sample(), true).await;
    assert!(
        refused.is_empty(),
        "refused with the extension: {refused:?}"
    );
    let lines = assert_same_answers(env.kubeconfig(), env.release(), SAMPLE);
    eprintln!("with the extension: {lines} (route, parent) verdicts agree");
}

/// Without the extension, the API server refuses (strict field validation) exactly the routes
/// `gammactl validate` reports for the unknown field `controllers`; the cluster then answers
/// as the files without those routes.
async fn the_sample_applied_without_the_extension_reads_as_its_files_minus_the_refused_routes() {
    let env = TestEnv::start(Channel::Experimental).unwrap();
    let client = client(env.kubeconfig()).await;
    let docs = sample();
    let refused = apply_strict(&client, &docs, false).await;
    assert!(
        !refused.is_empty(),
        "the sample uses parentRefs[].controllers"
    );
    assert_eq!(refused, refused_by_validate(env.release()));
    // Every other command warns, before its answer, about exactly the objects refused.
    for mut command in commands(env.release()) {
        command.splice(1..1, ["-f".to_owned(), SAMPLE.to_owned()]);
        let out = run(&command.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(out.code, 0, "{command:?}: {}", out.stderr);
        assert_eq!(warned(&out.stderr), refused, "{command:?}: {}", out.stderr);
    }
    let stored = env.work_dir().join("stored");
    std::fs::create_dir_all(&stored).unwrap();
    for (n, doc) in docs
        .iter()
        .filter(|d| !refused.contains(&key(d)))
        .enumerate()
    {
        std::fs::write(
            stored.join(format!("{n:05}.json")),
            serde_json::to_string_pretty(doc).unwrap(),
        )
        .unwrap();
    }
    let lines = assert_same_answers(env.kubeconfig(), env.release(), stored.to_str().unwrap());
    eprintln!(
        "without the extension ({} refused): {lines} (route, parent) verdicts agree",
        refused.len()
    );
    // The refused routes' verdicts are the only ones missing: one per parentRef.
    let refused_parents: usize = docs
        .iter()
        .filter(|d| refused.contains(&key(d)))
        .map(|d| d["spec"]["parentRefs"].as_array().map_or(0, Vec::len))
        .sum();
    let mut whole = commands(env.release()).swap_remove(0);
    whole.splice(1..1, ["-f".to_owned(), SAMPLE.to_owned(), "-q".to_owned()]);
    let whole = run(&whole.iter().map(String::as_str).collect::<Vec<_>>());
    let whole_verdicts = whole
        .stdout
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|w| w.ends_with("Route"))
        })
        .count();
    assert_eq!(whole_verdicts, lines + refused_parents, "{}", whole.stdout);
    env.stop().unwrap();
}
