//! `gammactl crd-extension controllers`, run as the real binary: the printed patches (one
//! `kubectl patch crd` command per route CRD of the release and channel, quoted for a shell),
//! their idempotence and their inverse on every release's upstream manifests, and, against a
//! real API server (tools/kube-testenv), applying, applying again, a dry run and removal
//! (docs/ownership.md, "The `controllers` field on a real cluster"). The live test is reported
//! ignored (with the reason) when Go is absent, unless GAMMA_REQUIRE_TESTENV=1.

mod common;

use std::path::{Path, PathBuf};

use common::run;
use gamma_mesh::model::validate::Release;
use gamma_testenv::harness::{release_trees, standard_server};
use serde_json::Value;

gamma_testenv::test_main! {
    the_printed_script_passes_each_route_crd_its_json_patch,
    the_printed_patches_are_idempotent_and_remove_inverts_them_on_every_release if release_trees,
    #[tokio] applying_twice_changes_nothing_and_remove_takes_the_field_away_on_a_real_api_server
        if standard_server,
}

const CHANNELS: [&str; 2] = ["standard", "experimental"];

/// The route CRD manifests of `channel` in the release tree `dir`, by CRD name.
fn manifests(dir: &Path, channel: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (_, name) in gamma_mesh::cluster::crd_extension::ROUTE_CRDS {
        let (plural, group) = name.split_once('.').unwrap();
        let file = dir
            .join("config/crd")
            .join(channel)
            .join(format!("{group}_{plural}.yaml"));
        if let Ok(text) = std::fs::read_to_string(&file) {
            out.push((name.to_owned(), serde_saphyr::from_str(&text).unwrap()));
        }
    }
    out
}

/// Runs the printed script with a `kubectl` that records each call's arguments (one file per
/// call, one argument per line): what a shell passes to kubectl, quoting included.
fn run_script(script: &str, work: &Path) -> Vec<Vec<String>> {
    let bin = work.join("bin");
    let calls = work.join("calls");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&calls).unwrap();
    let kubectl = bin.join("kubectl");
    std::fs::write(
        &kubectl,
        "#!/bin/sh\nn=$(ls \"$CALLS\" | wc -l)\nprintf '%s\\n' \"$@\" > \"$CALLS/$(printf %03d $n)\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&kubectl, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("PATH", path)
        .env("CALLS", &calls)
        .status()
        .unwrap();
    assert!(status.success());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&calls)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

fn apply_patch(doc: &Value, patch: &Value) -> Value {
    let patch: json_patch::Patch = serde_json::from_value(patch.clone()).unwrap();
    let mut doc = doc.clone();
    json_patch::patch(&mut doc, &patch).unwrap();
    doc
}

// The text form is one `kubectl patch crd NAME --type=json -p PATCH` per route CRD of the
// release and channel; run by a shell, kubectl receives exactly the patch of `-o json` (the
// schema's pattern holds a `'`, which the quoting must survive).
fn the_printed_script_passes_each_route_crd_its_json_patch() {
    let work = std::env::temp_dir().join(format!("gammactl-crd-ext-script-{}", std::process::id()));
    for release in Release::ALL {
        for channel in CHANNELS {
            let _ = std::fs::remove_dir_all(&work);
            let args = [
                "crd-extension",
                "controllers",
                "--bundle-version",
                release.as_str(),
                "--channel",
                channel,
            ];
            let text = run(&args);
            assert_eq!(text.code, 0, "{}", text.stderr);
            let json: Vec<&str> = args.iter().copied().chain(["-o", "json"]).collect();
            let json = run(&json);
            let report: Value = serde_json::from_str(&json.stdout).unwrap();
            let calls = run_script(&text.stdout, &work);
            let patches = report["patches"].as_array().unwrap();
            assert_eq!(calls.len(), patches.len(), "{release} {channel}");
            for (call, p) in calls.iter().zip(patches) {
                let crd = p["crd"].as_str().unwrap();
                assert_eq!(call[..5], ["patch", "crd", crd, "--type=json", "-p"]);
                let sent: Value = serde_json::from_str(&call[5]).unwrap();
                assert_eq!(sent, p["patch"], "{crd} {release} {channel}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}

// For every supported release and channel, the printed patch applied to the release's own
// manifests declares `controllers` in every served version's spec.parentRefs[] and
// status.parents[].parentRef with the schema gamma-rs validates, a second application changes
// nothing, and the printed `--remove` patch gives the manifests back.
fn the_printed_patches_are_idempotent_and_remove_inverts_them_on_every_release() {
    let trees = gamma_testenv::upstream::all_trees().expect("the test's precondition");
    let schema = gamma_mesh::cluster::crd_extension::controllers_schema().unwrap();
    for (version, dir) in trees {
        let release = Release::parse(version).unwrap();
        for channel in CHANNELS {
            let printed = |remove: bool| -> Value {
                let mut args = vec![
                    "crd-extension",
                    "controllers",
                    "--bundle-version",
                    version,
                    "--channel",
                    channel,
                    "-o",
                    "json",
                ];
                if remove {
                    args.push("--remove");
                }
                let r = run(&args);
                assert_eq!(r.code, 0, "{}", r.stderr);
                serde_json::from_str(&r.stdout).unwrap()
            };
            let (install, remove) = (printed(false), printed(true));
            assert_eq!(install["gatewayApi"], release.as_str());
            let files = manifests(&dir, channel);
            let crds: Vec<&str> = install["patches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["crd"].as_str().unwrap())
                .collect();
            let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(crds, names, "{version} {channel}");
            for (i, (name, manifest)) in files.iter().enumerate() {
                let once = apply_patch(manifest, &install["patches"][i]["patch"]);
                for v in manifest["spec"]["versions"].as_array().unwrap() {
                    let at = v["name"].as_str().unwrap();
                    let patched = once["spec"]["versions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|w| w["name"] == at)
                        .unwrap();
                    let root = &patched["schema"]["openAPIV3Schema"]["properties"];
                    let spec = &root["spec"]["properties"]["parentRefs"]["items"]["properties"];
                    let status = &root["status"]["properties"]["parents"]["items"]["properties"]["parentRef"]
                        ["properties"];
                    let served = v["served"] == true;
                    for place in [spec, status] {
                        match served {
                            true => assert_eq!(place["controllers"], schema, "{name} {at}"),
                            false => assert!(place.get("controllers").is_none(), "{name} {at}"),
                        }
                    }
                }
                assert_eq!(
                    once["metadata"]["annotations"]["gamma-rs.dev/crd-extension"],
                    "controllers"
                );
                // the bundle's annotations, which the safe-upgrades policy reads, are kept
                for key in [
                    gamma_mesh::model::validate::BUNDLE_VERSION_ANNOTATION,
                    gamma_mesh::model::validate::CHANNEL_ANNOTATION,
                ] {
                    assert_eq!(
                        once["metadata"]["annotations"][key],
                        manifest["metadata"]["annotations"][key]
                    );
                }
                let twice = apply_patch(&once, &install["patches"][i]["patch"]);
                assert_eq!(twice, once, "{name} {version} {channel}: applied twice");
                let removed = apply_patch(&once, &remove["patches"][i]["patch"]);
                assert_eq!(&removed, manifest, "{name} {version} {channel}: removed");
            }
        }
    }
}

/// Every route CRD of the server as JSON, in `ROUTE_CRDS` order.
async fn route_crds(client: &kube::Client) -> Vec<Value> {
    let crd = kube::core::ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
    ));
    let api: kube::Api<kube::api::DynamicObject> = kube::Api::all_with(client.clone(), &crd);
    let mut out = Vec::new();
    for (_, name) in gamma_mesh::cluster::crd_extension::ROUTE_CRDS {
        if let Some(crd) = api.get_opt(name).await.unwrap() {
            out.push(serde_json::to_value(crd).unwrap());
        }
    }
    out
}

fn versions_of(crds: &[Value]) -> Vec<(String, String)> {
    crds.iter()
        .map(|c| {
            (
                c["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
                c["metadata"]["generation"].to_string(),
            )
        })
        .collect()
}

// Against a real API server: applying patches every route CRD and `owners --kubeconfig` stops
// noting that the field is unavailable; applying again sends nothing (every CRD keeps its
// resourceVersion); `--remove --dry-run` is admitted and stores nothing; `--remove` takes the
// field away again, and `owners --kubeconfig` notes it.
async fn applying_twice_changes_nothing_and_remove_takes_the_field_away_on_a_real_api_server() {
    let env = gamma_testenv::server(gamma_testenv::Channel::Standard);
    let kubeconfig = env.kubeconfig().to_str().unwrap().to_owned();
    let client = {
        let file = kube::config::Kubeconfig::read_from(env.kubeconfig()).unwrap();
        let config = kube::Config::from_custom_kubeconfig(file, &Default::default())
            .await
            .unwrap();
        kube::Client::try_from(config).unwrap()
    };
    let k = kubeconfig.as_str();
    let owners = || run(&["owners", "--all", "--kubeconfig", k, "-q"]);
    let before = owners();
    assert_eq!(before.code, 0, "{}", before.stderr);
    assert!(
        before
            .stderr
            .contains("do not declare parentRefs[].controllers"),
        "{}",
        before.stderr
    );

    let first = run(&["crd-extension", "controllers", "--kubeconfig", k]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let crds = route_crds(&client).await;
    assert_eq!(
        first.stdout.matches(": patched:").count(),
        crds.len(),
        "{}",
        first.stdout
    );
    assert!(first.stdout.ends_with(
        "every route CRD declares parentRefs[].controllers (the gamma-rs CRD extension)\n"
    ));
    let after_first = versions_of(&crds);
    let with = owners();
    assert!(
        !with.stderr.contains("parentRefs[].controllers"),
        "{}",
        with.stderr
    );

    let second = run(&[
        "crd-extension",
        "controllers",
        "--kubeconfig",
        k,
        "-o",
        "json",
    ]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let report: Value = serde_json::from_str(&second.stdout).unwrap();
    assert!(
        report["crds"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["patch"].as_array().unwrap().is_empty()),
        "{report}"
    );
    assert_eq!(versions_of(&route_crds(&client).await), after_first);

    let dry = run(&[
        "crd-extension",
        "controllers",
        "--kubeconfig",
        k,
        "--remove",
        "--dry-run",
    ]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_eq!(
        dry.stdout.matches("would be patched").count(),
        crds.len(),
        "{}",
        dry.stdout
    );
    assert_eq!(dry.stdout.matches("kubectl patch crd").count(), crds.len());
    assert_eq!(versions_of(&route_crds(&client).await), after_first);

    let removed = run(&[
        "crd-extension",
        "controllers",
        "--kubeconfig",
        k,
        "--remove",
    ]);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert!(
        removed
            .stdout
            .contains("the route CRDs do not declare parentRefs[].controllers")
    );
    for crd in route_crds(&client).await {
        assert!(
            crd["metadata"]["annotations"]
                .get("gamma-rs.dev/crd-extension")
                .is_none()
        );
    }
    let again = owners();
    assert!(
        again
            .stderr
            .contains("do not declare parentRefs[].controllers"),
        "{}",
        again.stderr
    );
}
