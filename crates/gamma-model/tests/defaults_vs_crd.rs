//! `CRD_DEFAULTS` checked against the upstream CRDs themselves: for every supported release
//! (v1.5.1, v1.6.1, v1.7.0) and channel, the rows a bundle declares are exactly the `default`s
//! of the served versions of the kinds gamma-rs models (the structural schema's defaults,
//! which the API server applies to every object it stores), and every served version of a
//! kind declares the same ones. Skips with a message when the release trees cannot be had.

use std::collections::BTreeSet;

use gamma_testenv::harness::release_trees;

gamma_testenv::test_main! {
    crd_defaults_are_exactly_the_defaults_of_every_release_and_channel if release_trees,
}
use std::path::Path;

use gamma_model::ResourceKind;
use gamma_model::validate::{Bundle, CRD_DEFAULTS, Channel, Release};
use serde_json::Value;

/// (kind, path, default as compact JSON)
type Row = (ResourceKind, String, String);

/// Every `default` of a schema node and its descendants, by path (`[]` for list items).
fn defaults_of(schema: &Value, path: &str, out: &mut BTreeSet<(String, String)>) {
    if let Some(default) = schema.get("default") {
        out.insert((path.to_owned(), serde_json::to_string(default).unwrap()));
    }
    if let Some(props) = schema["properties"].as_object() {
        for (name, prop) in props {
            let child = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            defaults_of(prop, &child, out);
        }
    }
    if schema.get("items").is_some() {
        defaults_of(&schema["items"], &format!("{path}[]"), out);
    }
    assert!(
        !schema["additionalProperties"].is_object()
            || schema["additionalProperties"].get("default").is_none(),
        "{path}: a default under additionalProperties is not modelled"
    );
}

/// The defaults the CRDs of one release tree and channel declare for modelled kinds, and the
/// kinds they declare that gamma-rs does not model.
fn crd_defaults(dir: &Path, channel: &str) -> (BTreeSet<Row>, BTreeSet<String>) {
    let mut rows = BTreeSet::new();
    let mut unmodelled = BTreeSet::new();
    let mut files: Vec<_> = std::fs::read_dir(dir.join("config/crd").join(channel))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let Ok(crd) = serde_saphyr::from_str_with_options::<Value>(
            &text,
            serde_saphyr::options! { strict_booleans: true },
        ) else {
            continue;
        };
        if crd["kind"] != "CustomResourceDefinition" {
            continue;
        }
        let group = crd["spec"]["group"].as_str().unwrap();
        let kind_name = crd["spec"]["names"]["kind"].as_str().unwrap();
        let mut per_version = Vec::new();
        let mut kind = None;
        for v in crd["spec"]["versions"].as_array().unwrap() {
            if v["served"] != true {
                continue;
            }
            let version = v["name"].as_str().unwrap();
            kind =
                kind.or_else(|| ResourceKind::from_type(&format!("{group}/{version}"), kind_name));
            let mut found = BTreeSet::new();
            defaults_of(&v["schema"]["openAPIV3Schema"], "", &mut found);
            per_version.push((version.to_owned(), found));
        }
        let Some(kind) = kind else {
            unmodelled.insert(kind_name.to_owned());
            continue;
        };
        let Some((first_version, first)) = per_version.first() else {
            continue;
        };
        for (version, found) in &per_version {
            assert_eq!(
                found, first,
                "{kind_name} {version} and {first_version} declare different defaults: \
                 CRD_DEFAULTS assumes one set per kind"
            );
        }
        rows.extend(first.iter().map(|(p, v)| (kind, p.clone(), v.clone())));
    }
    (rows, unmodelled)
}

fn table(bundle: Bundle) -> BTreeSet<Row> {
    CRD_DEFAULTS
        .iter()
        .filter(|row| row.declared_by(bundle))
        .map(|row| {
            let value: Value = serde_json::from_str(row.value).unwrap();
            (
                row.kind,
                row.path.to_owned(),
                serde_json::to_string(&value).unwrap(),
            )
        })
        .collect()
}

fn crd_defaults_are_exactly_the_defaults_of_every_release_and_channel() {
    let trees = gamma_testenv::upstream::all_trees().expect("the test's precondition");
    let mut checked = 0;
    for (version, dir) in trees {
        let release = Release::parse(version).unwrap();
        for (name, channel) in [
            ("standard", Channel::Standard),
            ("experimental", Channel::Experimental),
        ] {
            let (crd, unmodelled) = crd_defaults(&dir, name);
            let ours = table(Bundle::new(release, channel));
            let missing: Vec<_> = crd.difference(&ours).collect();
            let extra: Vec<_> = ours.difference(&crd).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{version} {name}: CRD_DEFAULTS lacks {missing:#?}\nand has {extra:#?}, which \
                 the CRDs do not declare"
            );
            // Every kind is modelled: a kind that is not fails here, so that modelling it
            // means adding its defaults.
            assert!(
                unmodelled.is_empty(),
                "{version} {name}: not modelled: {unmodelled:?}"
            );
            checked += crd.len();
        }
    }
    assert!(checked > 500, "only {checked} defaults checked");
}
