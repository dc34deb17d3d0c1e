//! `--config` is a contract: every controller sharing a cluster must compute the same
//! ownership table from it, so a key gamma-rs does not know, a value of the wrong type or a
//! missing required key stops the command (exit 1) at its file, line and path instead of
//! silently deciding with a different configuration.

mod common;

use common::run;

const M: &str = "examples/manifests";

/// `owners --all` with the configuration `text` (written to a temporary file); the run and
/// the file's name.
fn owners_with(name: &str, text: &str) -> (common::Run, String) {
    let dir = std::env::temp_dir().join(format!("gammactl-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let file = path.display().to_string();
    (run(&["owners", "-f", M, "--config", &file, "--all"]), file)
}

#[test]
fn a_misspelt_default_key_is_an_error_not_a_config_without_default() {
    // Without the check, `defualt: true` decodes as no default mesh: batch/scheduler would be
    // unclaimed instead of linkerd's.
    // (the sample's bundle, so that the API server would store every object: the configuration
    // error is all standard error says)
    let r = run(&[
        "owners",
        "-f",
        M,
        "--channel",
        "experimental",
        "--crd-extension",
        "controllers",
        "--config",
        "crates/gammactl/tests/fixtures/typo-config.yaml",
        "--all",
    ]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.is_empty());
    assert_eq!(
        r.stderr,
        "gammactl: error: invalid arbiter configuration: \
         crates/gammactl/tests/fixtures/typo-config.yaml:9: meshes[1].defualt: unknown field \
         `defualt`, expected one of name, controllerName, aliases, namespaceSelector, default, \
         parentKinds\n"
    );
}

#[test]
fn a_misspelt_selector_key_is_an_error_not_a_selector_of_every_namespace() {
    let (r, file) = owners_with(
        "selecter.yaml",
        "meshes:\n- name: istio\n  controllerName: istio.io/gateway-controller\n  namespaceSelecter:\n    matchLabels: {istio-injection: enabled}\n",
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(&format!(
            "{file}:4: meshes[0].namespaceSelecter: unknown field"
        )),
        "{}",
        r.stderr
    );
    let (r, file) = owners_with(
        "matchlabel.yaml",
        "meshes:\n- name: istio\n  controllerName: istio.io/gateway-controller\n  namespaceSelector:\n    matchLabel: {istio-injection: enabled}\n",
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(&format!(
            "{file}:5: meshes[0].namespaceSelector.matchLabel: unknown field"
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn a_missing_required_key_is_an_error_naming_it() {
    let (r, file) = owners_with("missing.yaml", "meshes:\n- name: istio\n  default: true\n");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(&format!(
            "{file}:3: meshes[0].controllerName: missing field `controllerName`"
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn json_configurations_are_held_to_the_same_contract() {
    let (r, file) = owners_with(
        "typo.json",
        "{\"meshes\": [\n  {\"name\": \"istio\", \"controllerName\": \"istio.io/c\",\n   \"default\": \"yes\"}]}\n",
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(&format!(
            "{file}:3: meshes[0].default: invalid type: string"
        )),
        "{}",
        r.stderr
    );
    let (r, _) = owners_with(
        "good.json",
        "{\"meshes\": [{\"name\": \"istio\", \"controllerName\": \"istio.io/c\"}]}\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
}
