//! The bundle of every CRD of every supported Gateway API release, read from its annotations
//! (`Bundle::from_crd_annotations`), is the release and channel of the tree it ships in.

use std::collections::BTreeMap;
use std::path::Path;

use gamma_model::validate::{Bundle, Channel, Release};
use gamma_testenv::harness::release_trees;
use serde_json::Value;

gamma_testenv::test_main! {
    every_crd_of_every_release_and_channel_names_the_bundle_of_its_tree if release_trees,
    a_crd_stripped_of_its_annotations_names_no_bundle if release_trees,
}

/// The release trees of `gamma_testenv::upstream::RELEASES` (the test's precondition
/// `release_trees`).
fn trees() -> Vec<(&'static str, std::path::PathBuf)> {
    gamma_testenv::upstream::all_trees().expect("the test's precondition")
}

/// Every CustomResourceDefinition document in `dir/*.yaml`, as JSON.
fn crds(dir: &Path) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
        for doc in docs {
            if doc["kind"] == "CustomResourceDefinition" {
                out.push((doc["metadata"]["name"].as_str().unwrap().to_owned(), doc));
            }
        }
    }
    out
}

fn annotations(crd: &Value) -> BTreeMap<String, String> {
    crd["metadata"]["annotations"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
        .collect()
}

fn every_crd_of_every_release_and_channel_names_the_bundle_of_its_tree() {
    let trees = trees();
    for (version, dir) in trees {
        let release = Release::parse(version).unwrap();
        for channel in [Channel::Standard, Channel::Experimental] {
            let crds = crds(&dir.join("config/crd").join(channel.as_str()));
            assert!(!crds.is_empty(), "{version} {channel:?}: no CRD");
            for (name, crd) in &crds {
                assert_eq!(
                    Bundle::from_crd_annotations(&annotations(crd)),
                    Ok(Bundle::new(release, channel)),
                    "{version} {} {name}",
                    channel.as_str()
                );
            }
        }
    }
}

fn a_crd_stripped_of_its_annotations_names_no_bundle() {
    let trees = trees();
    for (version, dir) in trees {
        for (name, crd) in crds(&dir.join("config/crd/experimental")) {
            let mut a = annotations(&crd);
            a.retain(|k, _| !k.starts_with("gateway.networking.k8s.io/"));
            let err = Bundle::from_crd_annotations(&a).unwrap_err();
            assert_eq!((err.release, err.channel), (None, None), "{version} {name}");
            assert_eq!(err.problems.len(), 2, "{version} {name}");
        }
    }
}
