//! Transition rules (`oldSelf` in the CRDs' `x-kubernetes-validations`): every one of the
//! CRDs of every supported release, both channels, is in `TRANSITION_RULES` and enforced by `validate_update`
//! (Kubernetes CRD validation rules: transition rules apply on update, when the field exists in
//! both versions).

use std::collections::BTreeSet;

use gamma_model::decode;
use gamma_model::validate::TRANSITION_RULES;
use gamma_model::validate::{Release, ValidateOptions, immutable_message, validate_update};
use gamma_testenv::harness::release_trees;
use serde_json::Value;

gamma_testenv::test_main! {
    every_transition_rule_of_the_crds_is_listed if release_trees,
    controller_name_is_immutable_on_gateway_classes_and_meshes,
}

fn walk(s: &Value, path: &str, out: &mut BTreeSet<(String, String, String)>) {
    for r in s["x-kubernetes-validations"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let rule = r["rule"].as_str().unwrap();
        if rule.contains("oldSelf") {
            out.insert((
                path.trim_start_matches('.').to_owned(),
                rule.to_owned(),
                r["message"].as_str().unwrap_or("").to_owned(),
            ));
        }
    }
    for (k, v) in s["properties"].as_object().into_iter().flatten() {
        walk(v, &format!("{path}.{k}"), out);
    }
    if s["items"].is_object() {
        walk(&s["items"], &format!("{path}[]"), out);
    }
}

fn every_transition_rule_of_the_crds_is_listed() {
    let trees = gamma_testenv::upstream::all_trees().expect("the test's precondition");
    for (version, dir) in trees {
        let release = Release::parse(version).unwrap();
        let mut found = BTreeSet::new();
        for channel in ["standard", "experimental"] {
            for entry in std::fs::read_dir(dir.join("config/crd").join(channel)).unwrap() {
                let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
                let Ok(crd) = serde_saphyr::from_str::<Value>(&text) else {
                    continue;
                };
                if crd["kind"] != "CustomResourceDefinition" {
                    continue;
                }
                let kind = crd["spec"]["names"]["kind"].as_str().unwrap().to_owned();
                for v in crd["spec"]["versions"].as_array().unwrap() {
                    let mut rules = BTreeSet::new();
                    walk(&v["schema"]["openAPIV3Schema"], "", &mut rules);
                    for (p, r, m) in rules {
                        found.insert((kind.clone(), p, r, m));
                    }
                }
            }
        }
        // Each release words the rule its own way; the list holds the newest wording.
        let ours: BTreeSet<(String, String, String, String)> = TRANSITION_RULES
            .iter()
            .map(|(k, p, r, _)| {
                let m = immutable_message(release);
                (k.as_str().to_owned(), (*p).into(), (*r).into(), m.into())
            })
            .collect();
        assert_eq!(ours, found, "{release}");
    }
}

fn object(kind: &str, controller: &str) -> gamma_model::AnyResource {
    let group = if kind == "XMesh" {
        "gateway.networking.x-k8s.io/v1alpha1"
    } else {
        "gateway.networking.k8s.io/v1"
    };
    decode(&format!(
        "apiVersion: {group}\nkind: {kind}\nmetadata: {{name: c}}\nspec: {{controllerName: {controller}}}\n"
    ))
    .unwrap()
    .remove(0)
}

fn controller_name_is_immutable_on_gateway_classes_and_meshes() {
    for (kind, _, _, _) in TRANSITION_RULES {
        let kind = kind.as_str();
        let old = object(kind, "example.com/a");
        let opts = ValidateOptions::default();
        validate_update(&old, &object(kind, "example.com/a"), &opts).unwrap();
        let errors = validate_update(&old, &object(kind, "example.com/b"), &opts).unwrap_err();
        assert_eq!(
            errors.to_string(),
            "spec.controllerName: field is immutable",
            "{kind}"
        );
        // v1.5 and v1.6 word it "Value is immutable".
        let mut v1_6 = ValidateOptions::default();
        v1_6.release = Release::V1_6;
        let errors = validate_update(&old, &object(kind, "example.com/b"), &v1_6).unwrap_err();
        assert_eq!(
            errors.to_string(),
            "spec.controllerName: Value is immutable",
            "{kind}"
        );
    }
    // Not a transition between versions of one kind: nothing to compare.
    let class = object("GatewayClass", "example.com/a");
    let mesh = object("XMesh", "example.com/b");
    assert!(gamma_model::validate::transition_errors(&class, &mesh).is_empty());
}
