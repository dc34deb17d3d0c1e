//! Served versions per release and channel, against the CRDs of every supported Gateway API
//! release (`spec.versions[].served`): a version a bundle does not serve is refused with 404 by
//! the API server; a version no CRD lists is a removed version.

use gamma_model::ResourceKind;
use gamma_model::validate::served::{Served, served, served_in};
use gamma_model::validate::{Bundle, Channel, ErrorKind, Release, ValidateOptions};
use gamma_model::{DecodeOptions, decode_documents};
use gamma_testenv::harness::release_trees;
use serde_json::Value;

gamma_testenv::test_main! {
    the_served_table_is_the_crds_served_flags_of_every_release_and_channel if release_trees,
    a_version_a_release_does_not_serve_names_the_releases_that_do,
    an_experimental_only_version_is_not_served_on_the_standard_channel,
}

fn the_served_table_is_the_crds_served_flags_of_every_release_and_channel() {
    let mut checked = 0;
    for release in Release::ALL {
        let dir = gamma_testenv::upstream::release_tree(release.reference_patch())
            .unwrap_or_else(|e| panic!("{e}"));
        for (name, channel) in [
            ("standard", Channel::Standard),
            ("experimental", Channel::Experimental),
        ] {
            let bundle = Bundle::new(release, channel);
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
                    let got = served_in(kind, &api_version, bundle);
                    if v["served"] == true {
                        assert_eq!(got, Served::Yes, "{bundle} {kind} {api_version}");
                    } else {
                        assert_ne!(got, Served::Yes, "{bundle} {kind} {api_version}");
                    }
                    checked += 1;
                }
            }
            // A kind the bundle does not install is served at no version.
            for kind in ResourceKind::ALL.iter().copied() {
                if seen_kinds.contains(&kind) {
                    continue;
                }
                for v in kind.api_versions() {
                    assert!(
                        matches!(
                            served_in(kind, v, bundle),
                            Served::NotJudged | Served::OnlyBy(_) | Served::InOtherReleases
                        ),
                        "{bundle} {kind} {v}"
                    );
                }
            }
        }
    }
    assert!(checked > 60, "{checked}");
}

/// TCPRoute `v1` is served from v1.6 on; on a v1.5 cluster the message names where it is.
fn a_version_a_release_does_not_serve_names_the_releases_that_do() {
    let input = "apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata: {name: db, namespace: shop}
spec:
  rules: [{backendRefs: [{name: db, port: 5432}]}]
";
    let doc = &decode_documents(input, &DecodeOptions::checking_fields())
        .unwrap()
        .documents[0];
    let v1_5 = doc.validate_with(&ValidateOptions::bundle(Bundle::new(
        Release::V1_5,
        Channel::Standard,
    )));
    assert_eq!(v1_5.errors.len(), 1, "{v1_5:?}");
    let ErrorKind::NotServed { message } = &v1_5.errors[0].kind else {
        panic!("{v1_5:?}")
    };
    assert_eq!(
        message,
        "gateway.networking.k8s.io/v1 is not served by the standard channel of Gateway API \
         v1.5; both channels of v1.6 and v1.7 serve it"
    );
    for release in [Release::V1_6, Release::V1_7] {
        let report = doc.validate_with(&ValidateOptions::bundle(Bundle::new(
            release,
            Channel::Standard,
        )));
        assert!(report.is_ok(), "{release}: {report:?}");
    }
    assert_eq!(
        served(
            ResourceKind::TcpRoute,
            "gateway.networking.k8s.io/v1",
            Channel::Standard
        ),
        Served::Yes
    );
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
        message.ends_with("the experimental channel of v1.5, v1.6 and v1.7 serves it"),
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
