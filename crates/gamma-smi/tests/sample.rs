//! The SMI sample in examples/manifests/smi: what its README says the conversion and the
//! authorizer do with it.

use std::path::PathBuf;

use gamma_model::gateway::PathMatchType;
use gamma_model::validate::{Channel, ValidateOptions};
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot, Validate, decode};
use gamma_smi::{AccessRequest, Authorizer, Severity, convert};

fn sample() -> Snapshot {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/manifests/smi");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut objects = Vec::new();
    for f in files {
        objects.extend(decode(&std::fs::read_to_string(&f).unwrap()).unwrap());
    }
    for o in &objects {
        assert!(
            o.validate().is_ok(),
            "{}: {:?}",
            ObjectKey::of(o),
            o.validate()
        );
    }
    assert_eq!(objects.len(), 15, "README: 15 objects");
    Snapshot::from_resources(objects)
}

fn kinds_and_names(resources: &[AnyResource]) -> Vec<(ResourceKind, String)> {
    resources
        .iter()
        .map(|r| (r.kind(), r.metadata().name.clone()))
        .collect()
}

// README "What `gammactl convert smi` prints".
#[test]
fn the_sample_converts_to_the_routes_and_report_its_readme_describes() {
    let out = convert(&sample());
    assert_eq!(
        kinds_and_names(&out.resources),
        [
            (ResourceKind::TcpRoute, "db-rollout-3306".to_owned()),
            (ResourceKind::HttpRoute, "website-ab-80".to_owned()),
            (ResourceKind::HttpRoute, "website-ab-9090".to_owned()),
        ]
    );
    for r in &out.resources {
        for ch in [Channel::Standard, Channel::Experimental] {
            assert!(r.validate_with(&ValidateOptions::channel(ch)).is_ok());
        }
    }
    let AnyResource::TcpRoute(db) = &out.resources[0] else {
        unreachable!()
    };
    let w: Vec<_> = db.spec.rules[0]
        .backend_refs
        .iter()
        .map(|b| b.weight)
        .collect();
    assert_eq!(w, [Some(9), Some(1)], "900m:100m");
    let AnyResource::HttpRoute(web80) = &out.resources[1] else {
        unreachable!()
    };
    let rules = web80.spec.rules.as_ref().unwrap();
    assert_eq!(rules.len(), 2);
    assert_eq!(
        rules[0].matches.as_ref().unwrap().len(),
        3,
        "firefox, POST, PUT"
    );
    let w: Vec<_> = rules[0]
        .backend_refs
        .iter()
        .map(|b| b.backend_ref.weight)
        .collect();
    assert_eq!(w, [Some(4), Some(1)], "80:20");
    let catch_all = rules[1].matches.as_ref().unwrap()[0].path.as_ref().unwrap();
    assert_eq!(catch_all.type_, Some(PathMatchType::RegularExpression));
    assert_eq!(rules[1].backend_refs[0].backend_ref.name, "website");

    let split = ObjectKey::new(ResourceKind::TrafficSplit, "store", "website-ab");
    let dropped: Vec<_> = out
        .report
        .findings()
        .iter()
        .filter(|f| f.severity == Severity::Dropped)
        .map(|f| (f.object.to_string(), f.field.as_str()))
        .collect();
    assert_eq!(
        dropped,
        [
            (split.to_string(), "spec.backends[1].service"),
            ("TrafficTarget store/website-api".to_owned(), ""),
            ("TrafficTarget store/website-metrics".to_owned(), ""),
        ]
    );
}

// README "What `gammactl authorize` answers".
#[test]
fn the_sample_access_table_holds() {
    let authz = Authorizer::build(&sample());
    assert!(authz.report().findings().is_empty(), "{}", authz.report());
    let website = "store/website".parse().unwrap();
    let cases = [
        (
            "storefront/storefront",
            AccessRequest::http("POST", "/api/cart").on_port(80),
            true,
        ),
        (
            "storefront/storefront",
            AccessRequest::http("GET", "/metrics").on_port(80),
            false,
        ),
        (
            "storefront/storefront",
            AccessRequest::http("GET", "/api").on_port(9090),
            false,
        ),
        (
            "store/storefront",
            AccessRequest::http("GET", "/api").on_port(80),
            false,
        ),
        (
            "monitoring/prometheus",
            AccessRequest::http("GET", "/metrics").on_port(9090),
            true,
        ),
        (
            "monitoring/prometheus",
            AccessRequest::http("POST", "/metrics").on_port(9090),
            false,
        ),
        ("monitoring/prometheus", AccessRequest::tcp(9090), true),
    ];
    for (src, req, allowed) in cases {
        let v = authz.authorize(&src.parse().unwrap(), &website, &req);
        assert_eq!(v.allowed, allowed, "{src} {req}: {}", v.explanation);
    }
    // The database has no TrafficTarget: not under SMI access control.
    let v = authz.authorize(
        &"anywhere/anyone".parse().unwrap(),
        &"store/db".parse().unwrap(),
        &AccessRequest::tcp(3306),
    );
    assert!(v.allowed && v.by.is_none());
}

// What `gammactl convert smi` re-reads and what the repository's fidelity tests expect: every
// SMI object of the sample encodes back to exactly what was written.
#[test]
fn the_sample_decodes_and_re_encodes_exactly() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/manifests/smi");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let originals: Vec<serde_json::Value> =
            serde_saphyr::from_multiple::<Option<serde_json::Value>>(&text)
                .unwrap()
                .into_iter()
                .flatten()
                .collect();
        let decoded = decode(&text).unwrap();
        assert_eq!(originals.len(), decoded.len());
        for (o, d) in originals.iter().zip(&decoded) {
            assert_eq!(&serde_json::to_value(d).unwrap(), o, "{}", f.display());
        }
    }
}
