//! Served versions per channel, against the v1.6.1 CRDs (`spec.versions[].served`): a version
//! a channel does not serve is refused with 404 by the API server; a version no CRD lists is a
//! removed version.

use std::path::PathBuf;

use gamma_model::ResourceKind;
use gamma_model::validate::served::{Served, served};
use gamma_model::validate::{Channel, ErrorKind, ValidateOptions};
use gamma_model::{DecodeOptions, decode_documents};
use serde_json::Value;

#[test]
fn the_served_table_is_the_crds_served_flags_in_both_channels() {
    let Some(dir) = std::env::var_os("GAMMA_UPSTREAM_DIR").map(PathBuf::from) else {
        gamma_skip_note("skipped: GAMMA_UPSTREAM_DIR is not set: skipping");
        return;
    };
    let mut checked = 0;
    for (name, channel) in [
        ("standard", Channel::Standard),
        ("experimental", Channel::Experimental),
    ] {
        let mut seen_kinds = Vec::new();
        for entry in std::fs::read_dir(dir.join("config/crd").join(name)).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let Ok(crd) = serde_saphyr::from_str::<Value>(&text) else {
                continue;
            };
            if crd["kind"] != "CustomResourceDefinition" {
                continue;
            }
            let group = crd["spec"]["group"].as_str().unwrap();
            let kind_name = crd["spec"]["names"]["kind"].as_str().unwrap();
            let Some(kind) = ResourceKind::ALL.iter().copied().find(|k| {
                k.as_str() == kind_name && k.api_versions().iter().any(|v| v.starts_with(group))
            }) else {
                continue;
            };
            seen_kinds.push(kind);
            for v in crd["spec"]["versions"].as_array().unwrap() {
                let api_version = format!("{group}/{}", v["name"].as_str().unwrap());
                let got = served(kind, &api_version, channel);
                if v["served"] == true {
                    assert_eq!(got, Served::Yes, "{name} {kind} {api_version}");
                } else {
                    assert_ne!(got, Served::Yes, "{name} {kind} {api_version}");
                }
                checked += 1;
            }
        }
        // A kind the channel does not install is served at no version.
        for kind in ResourceKind::ALL.iter().copied() {
            if seen_kinds.contains(&kind) {
                continue;
            }
            for v in kind.api_versions() {
                assert!(
                    matches!(
                        served(kind, v, channel),
                        Served::NotJudged | Served::OnlyBy(_)
                    ),
                    "{name} {kind} {v}"
                );
            }
        }
    }
    assert!(checked > 20, "{checked}");
}

fn report(input: &str, channel: Channel) -> Vec<(String, ErrorKind)> {
    let doc = &decode_documents(input, &DecodeOptions::checking_fields())
        .unwrap()
        .documents[0];
    doc.validate_with(&ValidateOptions::channel(channel))
        .errors
        .into_iter()
        .map(|e| (e.path.as_str().to_owned(), e.kind))
        .collect()
}

#[test]
fn an_experimental_only_version_is_not_served_on_the_standard_channel() {
    let input = "apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: t, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
";
    let std = report(input, Channel::Standard);
    assert_eq!(std.len(), 1);
    assert_eq!(std[0].0, "apiVersion");
    let ErrorKind::NotServed { message } = &std[0].1 else {
        panic!("{std:?}")
    };
    assert!(
        message.contains("not served by the standard channel"),
        "{message}"
    );
    assert!(
        message.contains("the experimental channel serves it"),
        "{message}"
    );
    assert!(report(input, Channel::Experimental).is_empty());
    let mesh = "apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XMesh
metadata: {name: m}
spec: {controllerName: example.com/mesh}
";
    assert_eq!(report(mesh, Channel::Standard)[0].0, "apiVersion");
    assert!(report(mesh, Channel::Experimental).is_empty());
}

/// Says a test skipped. Written to stderr directly rather than with `eprintln!`, which the test
/// harness captures: the note shows in the output of `cargo test`, not only when a test fails.
fn gamma_skip_note(message: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{message}");
}
