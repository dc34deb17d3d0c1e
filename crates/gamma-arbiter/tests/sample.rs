//! The sample cluster in examples/manifests with examples/gamma-config.yaml: every row of the
//! ownership table in examples/manifests/README.md ("Ownership: who owns each (route, parent)").

use std::path::PathBuf;

use gamma_arbiter::{Arbiter, ArbiterConfig, Identity, Level, Ownership, Verdict};
use gamma_model::gateway::reasons::{ACCEPTED, OWNERSHIP_CONFLICT};
use gamma_model::{ObjectKey, ResourceKind, Snapshot, decode};

const ISTIO: &str = "istio.io/gateway-controller";
const LINKERD: &str = "linkerd.io/policy-controller";
const GATEWAY: &str = "example.com/gateway-controller";

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn load() -> (Arbiter, ArbiterConfig, Snapshot) {
    let config: ArbiterConfig = serde_saphyr::from_str(
        &std::fs::read_to_string(examples().join("gamma-config.yaml")).unwrap(),
    )
    .unwrap();
    let mut files: Vec<_> = std::fs::read_dir(examples().join("manifests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut objects = Vec::new();
    for f in files {
        objects.extend(decode(&std::fs::read_to_string(&f).unwrap()).unwrap());
    }
    assert_eq!(objects.len(), 58, "README: Files and objects (58)");
    (
        Arbiter::new(config.clone()).unwrap(),
        config,
        Snapshot::from_resources(objects),
    )
}

enum Want {
    Owned(&'static [&'static str], Option<u8>),
    Conflict(&'static [&'static str], u8),
    NotApplicable,
}

// The README table, row by row: (kind, namespace, name, verdict with owners and ladder level)
// for parentRefs[0], the only parentRef of every sample route.
const TABLE: &[(ResourceKind, &str, &str, Want)] = &[
    (
        ResourceKind::HttpRoute,
        "shop",
        "checkout",
        Want::Owned(&[ISTIO], Some(3)),
    ),
    (
        ResourceKind::HttpRoute,
        "shop",
        "checkout-canary",
        Want::Owned(&[ISTIO], Some(3)),
    ),
    (
        ResourceKind::HttpRoute,
        "shop",
        "checkout-qa-pin",
        Want::Owned(&[ISTIO], Some(3)),
    ),
    (
        ResourceKind::HttpRoute,
        "shop",
        "catalog",
        Want::Owned(&[ISTIO, LINKERD], Some(1)),
    ),
    (
        ResourceKind::HttpRoute,
        "shop",
        "cart",
        Want::Owned(&[LINKERD], Some(1)),
    ),
    (
        ResourceKind::HttpRoute,
        "web",
        "checkout-from-web",
        Want::Owned(&[LINKERD], Some(4)),
    ),
    (
        ResourceKind::GrpcRoute,
        "payments",
        "payments",
        Want::Owned(&[LINKERD], Some(3)),
    ),
    (
        ResourceKind::TcpRoute,
        "payments",
        "ledger",
        Want::Owned(&[LINKERD], Some(3)),
    ),
    (
        ResourceKind::HttpRoute,
        "inventory",
        "stock",
        Want::Owned(&[ISTIO], Some(2)),
    ),
    (
        ResourceKind::HttpRoute,
        "legacy",
        "billing",
        Want::Conflict(&[ISTIO, LINKERD], 4),
    ),
    (
        ResourceKind::HttpRoute,
        "batch",
        "reports",
        Want::Owned(&[ISTIO], Some(2)),
    ),
    (
        ResourceKind::HttpRoute,
        "batch",
        "scheduler",
        Want::Owned(&[LINKERD], Some(5)),
    ),
    (
        ResourceKind::HttpRoute,
        "web",
        "frontend",
        Want::NotApplicable,
    ),
    (
        ResourceKind::HttpRoute,
        "web",
        "storefront",
        Want::Owned(&[GATEWAY], None),
    ),
];

#[test]
fn sample_cluster_matches_the_readme_ownership_table() {
    let (arbiter, _, snap) = load();
    let d = arbiter.decide_all(&snap);
    assert_eq!(d.len(), TABLE.len(), "one parentRef per sample route");
    for (kind, ns, name, want) in TABLE {
        let r = ObjectKey::new(*kind, *ns, *name);
        let v = d
            .verdict(&r, 0)
            .unwrap_or_else(|| panic!("{r} not decided"));
        let ok = match (want, v) {
            (Want::Owned(o, rung), Verdict::Owned { owners, level, .. }) => {
                owners.names() == *o && level.rung() == *rung
            }
            (
                Want::Conflict(c, rung),
                Verdict::Conflict {
                    candidates, level, ..
                },
            ) => candidates.names() == *c && level.rung() == Some(*rung),
            // the frontend trap: not applicable, and the verdict says it is not a Service
            (Want::NotApplicable, Verdict::NotApplicable | Verdict::NotAService { .. }) => true,
            _ => false,
        };
        assert!(ok, "{r}: {v}");
    }
    // Level detail the table names: shop/cart by parentRefs[].controllers, catalog by annotation,
    // stock by delegation, reports by Service annotation.
    let level =
        |ns: &str, n: &str| match d.verdict(&ObjectKey::new(ResourceKind::HttpRoute, ns, n), 0) {
            Some(Verdict::Owned { level, .. }) => *level,
            other => panic!("{other:?}"),
        };
    assert_eq!(level("shop", "cart"), Level::ParentRefControllers);
    assert_eq!(level("shop", "catalog"), Level::RouteAnnotation);
    assert_eq!(level("inventory", "stock"), Level::Delegation);
    assert_eq!(level("batch", "reports"), Level::ServiceAnnotation);
    assert_eq!(level("web", "storefront"), Level::GatewayClass);
}

// README summary: istio owns 6 pairs, linkerd 6, the gateway controller 1, 1 Conflict,
// 1 NotApplicable, 0 Unclaimed, 0 Pending.
#[test]
fn sample_cluster_summary_counts_per_controller() {
    let (arbiter, config, snap) = load();
    let d = arbiter.decide_all(&snap);
    let count = |me: &Identity| {
        d.for_controller(me)
            .filter(|(_, _, x)| x.is_owned())
            .count()
    };
    let istio = Identity::of_mesh(&config, "istio").unwrap();
    let linkerd = Identity::of_mesh(&config, "linkerd").unwrap();
    assert_eq!(count(&istio), 6);
    assert_eq!(count(&linkerd), 6);
    assert_eq!(count(&Identity::new(GATEWAY)), 1);
    let conflicts = d
        .pairs()
        .filter(|(_, _, v)| matches!(v, Verdict::Conflict { .. }))
        .count();
    let na = d
        .pairs()
        .filter(|(_, _, v)| matches!(v, Verdict::NotApplicable | Verdict::NotAService { .. }))
        .count();
    let other = d
        .pairs()
        .filter(|(_, _, v)| matches!(v, Verdict::Unclaimed | Verdict::Pending { .. }))
        .count();
    assert_eq!((conflicts, na, other), (1, 1, 0));
    // Every controller sees the same owners: Owned for one is Foreign with the same owners for
    // the other.
    for ((_, _, a), (_, _, b)) in d.for_controller(&istio).zip(d.for_controller(&linkerd)) {
        if let (
            Ownership::Owned { owners: x, .. } | Ownership::Foreign { owners: x, .. },
            Ownership::Owned { owners: y, .. } | Ownership::Foreign { owners: y, .. },
        ) = (&a, &b)
        {
            assert_eq!(x, y);
        }
    }
}

// README "Expected status entries": catalog gets one entry per mesh, billing one
// OwnershipConflict entry per candidate, frontend none; observedGeneration = generation.
#[test]
fn sample_cluster_expected_status_entries() {
    let (arbiter, config, snap) = load();
    let d = arbiter.decide_all(&snap);
    let istio = Identity::of_mesh(&config, "istio").unwrap();
    let linkerd = Identity::of_mesh(&config, "linkerd").unwrap();
    let accepted = |_: usize| Some(gamma_arbiter::ParentConditions::accepted());
    let entries = |ns: &str, n: &str, me: &Identity| {
        arbiter
            .desired_status(
                &d,
                &snap,
                &ObjectKey::new(ResourceKind::HttpRoute, ns, n),
                me,
                &accepted,
            )
            .unwrap()
            .entries
    };
    assert_eq!(entries("shop", "catalog", &istio).len(), 1);
    assert_eq!(entries("shop", "catalog", &linkerd).len(), 1);
    for me in [&istio, &linkerd] {
        let e = entries("legacy", "billing", me);
        assert_eq!(e.len(), 1);
        let c = &e[0].conditions[0];
        assert_eq!(
            (c.type_.as_str(), c.reason.as_str()),
            (ACCEPTED, OWNERSHIP_CONFLICT)
        );
        assert_eq!(c.observed_generation, Some(5));
    }
    for me in [&istio, &linkerd, &Identity::new(GATEWAY)] {
        assert!(entries("web", "frontend", me).is_empty());
    }
    let stock = entries("inventory", "stock", &istio);
    assert_eq!(stock[0].conditions[0].observed_generation, Some(3));
    assert!(entries("inventory", "stock", &linkerd).is_empty());
}

// (The repository's sample configuration is read here, not in the crate's unit tests, so that
// the published package builds its tests without the repository.)
#[test]
fn sample_config_parses_with_documented_keys() {
    let text = std::fs::read_to_string(examples().join("gamma-config.yaml")).unwrap();
    let c: ArbiterConfig = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(c.meshes.len(), 2);
    assert_eq!(c.meshes[0].aliases, ["istio.io/mesh-controller"]);
    assert!(c.meshes[1].default);
    assert_eq!(c.keys, gamma_arbiter::Keys::default());
    c.validate().unwrap();
}

#[test]
fn the_documented_sample_decodes() {
    let text = std::fs::read_to_string(examples().join("gamma-config.yaml")).unwrap();
    let c = ArbiterConfig::decode(&text).unwrap();
    assert_eq!(c.meshes.len(), 2);
}
