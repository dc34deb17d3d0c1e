//! The ownership ladder (GEP-3949 XMesh for why it exists): every level alone, every
//! pair of levels, and the safety rules (unknown names, missing objects, no silent tie-breaks).

mod common;

use common::*;
use gamma_arbiter::{Arbiter, ArbiterConfig, Level, Owners, Ownership, Verdict};
use gamma_model::gateway::ParentReference;
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot};

/// A mesh-ownership signal at one ladder level, pointing at one mesh.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Signal {
    ParentRefControllers,
    RouteAnnotation,
    ServiceAnnotation,
    Delegation,
    NamespaceLabel,
    Selector,
    Default,
}

const SIGNALS: [Signal; 7] = [
    Signal::ParentRefControllers,
    Signal::RouteAnnotation,
    Signal::ServiceAnnotation,
    Signal::Delegation,
    Signal::NamespaceLabel,
    Signal::Selector,
    Signal::Default,
];

impl Signal {
    fn level(self) -> Level {
        match self {
            Signal::ParentRefControllers => Level::ParentRefControllers,
            Signal::RouteAnnotation => Level::RouteAnnotation,
            Signal::ServiceAnnotation => Level::ServiceAnnotation,
            Signal::Delegation => Level::Delegation,
            Signal::NamespaceLabel => Level::NamespaceLabel,
            Signal::Selector => Level::Selector,
            Signal::Default => Level::Default,
        }
    }
}

/// A producer route `app/r` on Service `app/svc`, with each signal pointing at a mesh
/// (`"istio"` or `"linkerd"`).
struct Cluster {
    signals: Vec<(Signal, &'static str)>,
}

fn controller_of(mesh: &str) -> &'static str {
    if mesh == "istio" { ISTIO } else { LINKERD }
}

impl Cluster {
    fn build(&self) -> (ArbiterConfig, Snapshot) {
        let mut parent = svc_parent("svc");
        let mut route_ann = vec![];
        let mut svc_ann = vec![];
        let mut svc_labels = vec![];
        let mut ns_labels = vec![];
        let mut default = None;
        for &(s, mesh) in &self.signals {
            match s {
                Signal::ParentRefControllers => {
                    parent.controllers = Some(vec![controller_of(mesh).into()])
                }
                Signal::RouteAnnotation => {
                    route_ann.push(("gamma.rs/controllers", controller_of(mesh)))
                }
                Signal::ServiceAnnotation => {
                    svc_ann.push(("gamma.rs/controller", controller_of(mesh)))
                }
                Signal::Delegation => svc_labels.push((
                    "istio.io/use-waypoint",
                    if mesh == "istio" {
                        "wp-istio"
                    } else {
                        "wp-linkerd"
                    },
                )),
                Signal::NamespaceLabel => ns_labels.push(("gamma.rs/mesh", mesh)),
                Signal::Selector => ns_labels.push(if mesh == "istio" {
                    ("istio-injection", "enabled")
                } else {
                    ("linkerd.io/inject", "enabled")
                }),
                Signal::Default => default = Some(mesh),
            }
        }
        let snap = Snapshot::from_resources([
            namespace("app", &ns_labels),
            service("app", "svc", &svc_labels, &svc_ann),
            route_with("app", "r", vec![parent], &route_ann, 1),
            // Delegation targets: the istio waypoint's class uses istio's alias.
            gateway("app", "wp-istio", "istio-waypoint"),
            class("istio-waypoint", ISTIO_ALIAS),
            gateway("app", "wp-linkerd", "linkerd-gw"),
            class("linkerd-gw", LINKERD),
        ]);
        (config(default), snap)
    }

    fn verdict(&self) -> Verdict {
        let (config, snap) = self.build();
        let d = Arbiter::new(config).unwrap().decide_all(&snap);
        d.verdict(&http_route_ref("app", "r"), 0).unwrap().clone()
    }
}

fn owned(owners: &[&str], level: Level) -> impl Fn(&Verdict) -> bool {
    let want = Owners::new(owners.iter().copied());
    move |v| matches!(v, Verdict::Owned { owners, level: l, .. } if *owners == want && *l == level)
}

// Ownership ladder: each level alone decides, naming the mesh its signal names.
#[test]
fn every_level_alone_decides() {
    for s in SIGNALS {
        for mesh in ["istio", "linkerd"] {
            let v = Cluster {
                signals: vec![(s, mesh)],
            }
            .verdict();
            assert!(
                owned(&[controller_of(mesh)], s.level())(&v),
                "{s:?} -> {mesh}: got {v}"
            );
        }
    }
}

// Ownership ladder: the first level with any candidate decides; lower levels are never mixed in.
#[test]
fn every_pair_of_levels_the_higher_wins() {
    for (i, &hi) in SIGNALS.iter().enumerate() {
        for &lo in SIGNALS.iter().skip(i + 1) {
            for (hm, lm) in [("istio", "linkerd"), ("linkerd", "istio")] {
                let v = Cluster {
                    signals: vec![(hi, hm), (lo, lm)],
                }
                .verdict();
                assert!(
                    owned(&[controller_of(hm)], hi.level())(&v),
                    "{hi:?}={hm} over {lo:?}={lm}: got {v}"
                );
            }
        }
    }
}

#[test]
fn no_signal_and_no_default_is_unclaimed() {
    let v = Cluster { signals: vec![] }.verdict();
    assert_eq!(v, Verdict::Unclaimed);
}

// Ladder level 4: two selector matches make a Conflict; level 5 is not consulted.
#[test]
fn two_selector_matches_conflict_and_the_default_is_not_consulted() {
    let v = Cluster {
        signals: vec![
            (Signal::Selector, "istio"),
            (Signal::Selector, "linkerd"),
            (Signal::Default, "linkerd"),
        ],
    }
    .verdict();
    assert!(
        matches!(&v, Verdict::Conflict { candidates, level: Level::Selector, .. } if *candidates == Owners::new([ISTIO, LINKERD])),
        "{v}"
    );
    let (config, snap) = Cluster {
        signals: vec![(Signal::Selector, "istio"), (Signal::Selector, "linkerd")],
    }
    .build();
    let d = Arbiter::new(config).unwrap().decide_all(&snap);
    let r = http_route_ref("app", "r");
    for me in [istio(), linkerd()] {
        let dec = d.decision(&r, 0, &me).unwrap();
        assert!(
            matches!(
                dec,
                Ownership::Conflict {
                    candidate: true,
                    ..
                }
            ),
            "{dec}"
        );
    }
    let dec = d.decision(&r, 0, &gateway_controller()).unwrap();
    assert!(matches!(
        dec,
        Ownership::Conflict {
            candidate: false,
            ..
        }
    ));
}

// Two controllers are never tie-broken silently, not even two defaults.
#[test]
fn two_defaults_conflict() {
    let mut c = config(Some("istio"));
    c.meshes[1].default = true;
    let snap = Snapshot::from_resources([
        namespace("app", &[]),
        service("app", "svc", &[], &[]),
        route("app", "r", vec![svc_parent("svc")]),
    ]);
    let d = Arbiter::new(c).unwrap().decide_all(&snap);
    assert!(matches!(
        d.verdict(&http_route_ref("app", "r"), 0),
        Some(Verdict::Conflict {
            level: Level::Default,
            ..
        })
    ));
}

// Ladder level 1: several names mean shared ownership; each sees Owned.
#[test]
fn several_names_at_level_one_share_ownership() {
    let snap = Snapshot::from_resources([
        namespace("app", &[("gamma.rs/mesh", "istio")]),
        service("app", "svc", &[], &[]),
        route_with(
            "app",
            "r",
            vec![svc_parent("svc")],
            &[(
                "gamma.rs/controllers",
                " istio.io/mesh-controller , linkerd.io/policy-controller,",
            )],
            1,
        ),
    ]);
    let d = Arbiter::new(config(None)).unwrap().decide_all(&snap);
    let r = http_route_ref("app", "r");
    // The alias is reported under istio's canonical name.
    assert!(owned(&[ISTIO, LINKERD], Level::RouteAnnotation)(
        d.verdict(&r, 0).unwrap()
    ));
    assert!(d.decision(&r, 0, &istio()).unwrap().is_owned());
    assert!(d.decision(&r, 0, &linkerd()).unwrap().is_owned());
    assert!(!d.decision(&r, 0, &gateway_controller()).unwrap().is_owned());
}

// Safety: an unknown controller name never falls through (a typo gives Foreign).
#[test]
fn unknown_names_never_fall_through() {
    for (route_ann, svc_ann, ns_mesh, owner) in [
        (
            "istoi.io/gateway-controller",
            "",
            "",
            "istoi.io/gateway-controller",
        ),
        (
            "",
            "istoi.io/gateway-controller",
            "",
            "istoi.io/gateway-controller",
        ),
        ("", "", "istoi", "xmesh:istoi"),
    ] {
        let mut ns_labels = vec![("istio-injection", "enabled")];
        if !ns_mesh.is_empty() {
            ns_labels.push(("gamma.rs/mesh", ns_mesh));
        }
        let ra: Vec<(&str, &str)> = if route_ann.is_empty() {
            vec![]
        } else {
            vec![("gamma.rs/controllers", route_ann)]
        };
        let sa: Vec<(&str, &str)> = if svc_ann.is_empty() {
            vec![]
        } else {
            vec![("gamma.rs/controller", svc_ann)]
        };
        let snap = Snapshot::from_resources([
            namespace("app", &ns_labels),
            service("app", "svc", &[], &sa),
            route_with("app", "r", vec![svc_parent("svc")], &ra, 1),
        ]);
        let d = Arbiter::new(config(Some("linkerd")))
            .unwrap()
            .decide_all(&snap);
        let r = http_route_ref("app", "r");
        let v = d.verdict(&r, 0).unwrap();
        assert_eq!(v.owners().unwrap().names(), [owner], "{v}");
        for me in [istio(), linkerd()] {
            assert!(matches!(
                d.decision(&r, 0, &me).unwrap(),
                Ownership::Foreign { .. }
            ));
        }
    }
}

// The value `none` means no signal at every level.
#[test]
fn none_values_are_no_signal() {
    let snap = Snapshot::from_resources([
        namespace("app", &[("gamma.rs/mesh", "none")]),
        service(
            "app",
            "svc",
            &[("istio.io/use-waypoint", "none")],
            &[("gamma.rs/controller", "none")],
        ),
        route_with(
            "app",
            "r",
            vec![svc_parent("svc")],
            &[("gamma.rs/controllers", "none")],
            1,
        ),
    ]);
    let d = Arbiter::new(config(Some("linkerd")))
        .unwrap()
        .decide_all(&snap);
    assert!(owned(&[LINKERD], Level::Default)(
        d.verdict(&http_route_ref("app", "r"), 0).unwrap()
    ));
}

fn pending_on(v: &Verdict, kind: ResourceKind, ns: &str, name: &str) -> bool {
    matches!(v, Verdict::Pending { waiting_on, .. } if waiting_on == &[ObjectKey::new(kind, ns, name)])
}

// Safety: a referenced object missing from the cache is Pending, never a fall-through.
#[test]
fn missing_objects_are_pending() {
    let arbiter = Arbiter::new(config(Some("linkerd"))).unwrap();
    let r = http_route_ref("app", "r");
    // Service missing (even though the namespace names a mesh).
    let snap = Snapshot::from_resources([
        namespace("app", &[("gamma.rs/mesh", "istio")]),
        route("app", "r", vec![svc_parent("svc")]),
    ]);
    let d = arbiter.decide_all(&snap);
    assert!(pending_on(
        d.verdict(&r, 0).unwrap(),
        ResourceKind::Service,
        "app",
        "svc"
    ));
    // Namespace missing.
    let snap = Snapshot::from_resources([
        service("app", "svc", &[], &[]),
        route("app", "r", vec![svc_parent("svc")]),
    ]);
    let d = arbiter.decide_all(&snap);
    assert!(pending_on(
        d.verdict(&r, 0).unwrap(),
        ResourceKind::Namespace,
        "",
        "app"
    ));
    // Delegation Gateway missing, then its GatewayClass missing.
    let mut snap = Snapshot::from_resources([
        namespace("app", &[]),
        service(
            "app",
            "svc",
            &[
                ("istio.io/use-waypoint", "wp"),
                ("istio.io/use-waypoint-namespace", "mesh"),
            ],
            &[],
        ),
        route("app", "r", vec![svc_parent("svc")]),
    ]);
    let d = arbiter.decide_all(&snap);
    assert!(pending_on(
        d.verdict(&r, 0).unwrap(),
        ResourceKind::Gateway,
        "mesh",
        "wp"
    ));
    snap.upsert(gateway("mesh", "wp", "waypoints"));
    let d = arbiter.decide_all(&snap);
    assert!(pending_on(
        d.verdict(&r, 0).unwrap(),
        ResourceKind::GatewayClass,
        "",
        "waypoints"
    ));
    snap.upsert(class("waypoints", ISTIO_ALIAS));
    let d = arbiter.decide_all(&snap);
    assert!(owned(&[ISTIO], Level::Delegation)(
        d.verdict(&r, 0).unwrap()
    ));
}

// A Service deleted and re-created is Pending in between; ownership never flips
// to the default (which would make a second mesh program it for the duration).
#[test]
fn service_deleted_and_recreated_is_pending_never_flips() {
    let arbiter = Arbiter::new(config(Some("linkerd"))).unwrap();
    let mut snap = Snapshot::from_resources([
        namespace("app", &[("gamma.rs/mesh", "istio")]),
        service("app", "svc", &[], &[]),
        route("app", "r", vec![svc_parent("svc")]),
    ]);
    let r = http_route_ref("app", "r");
    let svc = ObjectKey::new(ResourceKind::Service, "app", "svc");
    let mut d = arbiter.decide_all(&snap);
    let before = d.verdict(&r, 0).unwrap().clone();
    assert!(owned(&[ISTIO], Level::NamespaceLabel)(&before));
    let removed = snap.remove(&svc).unwrap();
    let changed = arbiter.update(&mut d, &snap, &svc);
    assert_eq!(changed.len(), 1);
    assert!(pending_on(
        d.verdict(&r, 0).unwrap(),
        ResourceKind::Service,
        "app",
        "svc"
    ));
    assert!(!d.decision(&r, 0, &linkerd()).unwrap().is_owned());
    assert!(!d.decision(&r, 0, &istio()).unwrap().is_owned());
    snap.upsert((*removed).clone());
    arbiter.update(&mut d, &snap, &svc);
    assert_eq!(d.verdict(&r, 0).unwrap(), &before);
    assert_eq!(d, arbiter.decide_all(&snap));
}

// GEP-1294 namespace boundaries: levels 3 and 4 read the Service's namespace for producer routes
// and the route's namespace for consumer routes.
#[test]
fn producer_reads_service_namespace_consumer_reads_route_namespace() {
    let snap = Snapshot::from_resources([
        namespace(
            "shop",
            &[("gamma.rs/mesh", "istio"), ("istio-injection", "enabled")],
        ),
        namespace("web", &[("linkerd.io/inject", "enabled")]),
        namespace("batch", &[("gamma.rs/mesh", "linkerd")]),
        service("shop", "checkout", &[], &[]),
        route("shop", "producer", vec![svc_parent("checkout")]),
        route("web", "consumer", vec![svc_parent_in("shop", "checkout")]),
        route("batch", "consumer", vec![svc_parent_in("shop", "checkout")]),
    ]);
    let d = Arbiter::new(config(None)).unwrap().decide_all(&snap);
    assert!(owned(&[ISTIO], Level::NamespaceLabel)(
        d.verdict(&http_route_ref("shop", "producer"), 0).unwrap()
    ));
    assert!(owned(&[LINKERD], Level::Selector)(
        d.verdict(&http_route_ref("web", "consumer"), 0).unwrap()
    ));
    assert!(owned(&[LINKERD], Level::NamespaceLabel)(
        d.verdict(&http_route_ref("batch", "consumer"), 0).unwrap()
    ));
}

// GEP-3949 XMesh (gateway-api#2630): a route with a Gateway and a Service parent has two owners
// that do not interfere; Gateway parents are decided by the GatewayClass alone.
#[test]
fn gateway_and_service_parents_on_one_route_have_independent_owners() {
    let snap = Snapshot::from_resources([
        namespace("app", &[("gamma.rs/mesh", "istio")]),
        service("app", "svc", &[], &[("gamma.rs/controller", LINKERD)]),
        gateway("edge", "public", "public"),
        class("public", GATEWAY),
        route_with(
            "app",
            "r",
            vec![
                ParentReference {
                    namespace: Some("edge".into()),
                    ..ParentReference::gateway("public")
                },
                svc_parent("svc"),
            ],
            // Level-1 annotation applies to Service parents only.
            &[("gamma.rs/controllers", ISTIO)],
            1,
        ),
    ]);
    let d = Arbiter::new(config(None)).unwrap().decide_all(&snap);
    let r = http_route_ref("app", "r");
    assert!(owned(&[GATEWAY], Level::GatewayClass)(
        d.verdict(&r, 0).unwrap()
    ));
    assert!(owned(&[ISTIO], Level::RouteAnnotation)(
        d.verdict(&r, 1).unwrap()
    ));
    assert!(d.decision(&r, 0, &gateway_controller()).unwrap().is_owned());
    assert!(!d.decision(&r, 1, &gateway_controller()).unwrap().is_owned());
    assert!(!d.decision(&r, 0, &istio()).unwrap().is_owned());
    assert!(d.decision(&r, 1, &istio()).unwrap().is_owned());
}

#[test]
fn gateway_parent_missing_gateway_or_class_is_pending() {
    let arbiter = Arbiter::new(config(None)).unwrap();
    let r = http_route_ref("app", "r");
    let mut snap =
        Snapshot::from_resources([route("app", "r", vec![ParentReference::gateway("gw")])]);
    assert!(pending_on(
        arbiter.decide_all(&snap).verdict(&r, 0).unwrap(),
        ResourceKind::Gateway,
        "app",
        "gw"
    ));
    snap.upsert(gateway("app", "gw", "c"));
    assert!(pending_on(
        arbiter.decide_all(&snap).verdict(&r, 0).unwrap(),
        ResourceKind::GatewayClass,
        "",
        "c"
    ));
}

// Gateway API ParentReference: only `group: ""` is a core Service; an absent group means
// gateway.networking.k8s.io/Service and `core` is not a group (gateway-api#2309).
#[test]
fn group_spellings_only_empty_is_a_service_parent() {
    let with_group = |g: Option<&str>| ParentReference {
        group: g.map(Into::into),
        kind: Some("Service".into()),
        name: "svc".into(),
        ..ParentReference::default()
    };
    let snap = Snapshot::from_resources([
        namespace("app", &[("gamma.rs/mesh", "istio")]),
        service("app", "svc", &[], &[]),
        route(
            "app",
            "r",
            vec![
                with_group(Some("")),
                with_group(None),
                with_group(Some("core")),
            ],
        ),
    ]);
    let d = Arbiter::new(config(Some("linkerd")))
        .unwrap()
        .decide_all(&snap);
    let r = http_route_ref("app", "r");
    assert!(owned(&[ISTIO], Level::NamespaceLabel)(
        d.verdict(&r, 0).unwrap()
    ));
    // neither is a Service; nobody arbitrates them, and the verdict names the fix
    let not_a_service = |g: &str| Verdict::NotAService { group: g.into() };
    assert_eq!(
        d.verdict(&r, 1),
        Some(&not_a_service("gateway.networking.k8s.io"))
    );
    assert_eq!(d.verdict(&r, 2), Some(&not_a_service("core")));
    assert_eq!(
        d.decision(&r, 1, &istio()),
        Some(Ownership::NotAService {
            group: "gateway.networking.k8s.io".into()
        })
    );
}

// Other parent kinds are NotApplicable unless a registration claims the group/kind.
#[test]
fn other_parent_kinds_need_a_claim() {
    let import = ParentReference {
        group: Some("multicluster.x-k8s.io".into()),
        kind: Some("ServiceImport".into()),
        name: "svc".into(),
        ..ParentReference::default()
    };
    let snap = Snapshot::from_resources([route("app", "r", vec![import])]);
    let r = http_route_ref("app", "r");
    let d = Arbiter::new(config(None)).unwrap().decide_all(&snap);
    assert_eq!(d.verdict(&r, 0), Some(&Verdict::NotApplicable));
    let mut c = config(None);
    c.meshes[0] = c.meshes[0]
        .clone()
        .claiming("multicluster.x-k8s.io", "ServiceImport");
    let d = Arbiter::new(c).unwrap().decide_all(&snap);
    assert!(owned(&[ISTIO], Level::KindClaim)(d.verdict(&r, 0).unwrap()));
}

// XMesh objects register meshes too; their names resolve at level 3.
#[test]
fn xmesh_objects_register_meshes_for_level_three() {
    let mut snap = Snapshot::from_resources([
        namespace("app", &[("gamma.rs/mesh", "cilium")]),
        service("app", "svc", &[], &[]),
        route("app", "r", vec![svc_parent("svc")]),
    ]);
    let arbiter = Arbiter::new(config(Some("linkerd"))).unwrap();
    let r = http_route_ref("app", "r");
    let mut d = arbiter.decide_all(&snap);
    assert!(owned(&["xmesh:cilium"], Level::NamespaceLabel)(
        d.verdict(&r, 0).unwrap()
    ));
    snap.upsert(xmesh("cilium", "cilium.io/gateway-controller"));
    let changed = arbiter.update(
        &mut d,
        &snap,
        &ObjectKey::new(ResourceKind::XMesh, "", "cilium"),
    );
    assert_eq!(changed.len(), 1);
    assert!(owned(
        &["cilium.io/gateway-controller"],
        Level::NamespaceLabel
    )(d.verdict(&r, 0).unwrap()));
    assert!(
        d.decision(
            &r,
            0,
            &gamma_arbiter::Identity::new("cilium.io/gateway-controller")
        )
        .unwrap()
        .is_owned()
    );
}

// Keys are configurable.
#[test]
fn configured_keys_replace_the_defaults() {
    let mut c = config(None);
    c.keys.namespace_mesh_label = "example.com/mesh".into();
    let snap = Snapshot::from_resources([
        namespace(
            "app",
            &[("gamma.rs/mesh", "istio"), ("example.com/mesh", "linkerd")],
        ),
        service("app", "svc", &[], &[]),
        route("app", "r", vec![svc_parent("svc")]),
    ]);
    let d = Arbiter::new(c).unwrap().decide_all(&snap);
    assert!(owned(&[LINKERD], Level::NamespaceLabel)(
        d.verdict(&http_route_ref("app", "r"), 0).unwrap()
    ));
}

// Explanations are readable and carry the concrete signal.
#[test]
fn decisions_explain_themselves_and_round_trip_through_serde() {
    let (config, snap) = Cluster {
        signals: vec![(Signal::Delegation, "istio")],
    }
    .build();
    let d = Arbiter::new(config).unwrap().decide_all(&snap);
    let dec = d
        .decision(&http_route_ref("app", "r"), 0, &linkerd())
        .unwrap();
    let text = dec.to_string();
    assert!(
        text.starts_with("foreign: owned by istio.io/gateway-controller, decided by level 2"),
        "{text}"
    );
    assert!(text.contains("Service app/svc label istio.io/use-waypoint=wp-istio -> Gateway app/wp-istio -> GatewayClass istio-waypoint (controllerName istio.io/mesh-controller)"), "{text}");
    let json = serde_json::to_string(&dec).unwrap();
    assert_eq!(serde_json::from_str::<Ownership>(&json).unwrap(), dec);
    let v = d.verdict(&http_route_ref("app", "r"), 0).unwrap();
    let json = serde_json::to_string(v).unwrap();
    assert_eq!(&serde_json::from_str::<Verdict>(&json).unwrap(), v);
}

#[test]
fn services_other_than_the_parent_do_not_matter() {
    // A route's parent Service in another namespace: the Service annotation of that Service
    // (level 2) applies to the consumer route too.
    let snap = Snapshot::from_resources([
        namespace("web", &[("gamma.rs/mesh", "linkerd")]),
        namespace("shop", &[]),
        service("shop", "svc", &[], &[("gamma.rs/controller", ISTIO)]),
        route("web", "r", vec![svc_parent_in("shop", "svc")]),
        AnyResource::from(gamma_model::k8s::Namespace::new("other")),
    ]);
    let d = Arbiter::new(config(None)).unwrap().decide_all(&snap);
    assert!(owned(&[ISTIO], Level::ServiceAnnotation)(
        d.verdict(&http_route_ref("web", "r"), 0).unwrap()
    ));
}

/// A cluster where Namespace `app` delegates to the waypoint `mesh/wp` (class of istio's
/// alias), Services `plain` (no label), `own` (its own waypoint `app/wp-own`, class of
/// linkerd) and `optout` (`istio.io/use-waypoint: none`), one producer route per Service.
fn waypoint_cluster(ns_labels: &[(&str, &str)]) -> Snapshot {
    Snapshot::from_resources([
        namespace("app", ns_labels),
        service("app", "plain", &[], &[]),
        service("app", "own", &[("istio.io/use-waypoint", "wp-own")], &[]),
        service("app", "optout", &[("istio.io/use-waypoint", "none")], &[]),
        route("app", "to-plain", vec![svc_parent("plain")]),
        route("app", "to-own", vec![svc_parent("own")]),
        route("app", "to-optout", vec![svc_parent("optout")]),
        gateway("mesh", "wp", "waypoints"),
        class("waypoints", ISTIO_ALIAS),
        gateway("app", "wp-own", "linkerd-waypoint"),
        class("linkerd-waypoint", LINKERD),
    ])
}

// Istio's ambient waypoint lookup reads `istio.io/use-waypoint` on the Service first, then on
// its Namespace (with `istio.io/use-waypoint-namespace` beside it): level 2 does the same.
#[test]
fn a_namespace_waypoint_label_delegates_its_services_without_one() {
    let snap = waypoint_cluster(&[
        ("istio.io/use-waypoint", "wp"),
        ("istio.io/use-waypoint-namespace", "mesh"),
    ]);
    let d = Arbiter::new(config(Some("linkerd")))
        .unwrap()
        .decide_all(&snap);
    let plain = d.verdict(&http_route_ref("app", "to-plain"), 0).unwrap();
    assert!(owned(&[ISTIO], Level::Delegation)(plain), "{plain:?}");
    let Verdict::Owned { evidence, .. } = plain else {
        unreachable!()
    };
    assert!(
        evidence
            .to_string()
            .starts_with("Namespace app label istio.io/use-waypoint=wp (Service app/plain has no delegation label) -> Gateway mesh/wp"),
        "{evidence}"
    );
    // the Service's own label comes first
    assert!(owned(&[LINKERD], Level::Delegation)(
        d.verdict(&http_route_ref("app", "to-own"), 0).unwrap()
    ));
    // `none` on the Service opts it out of its Namespace's waypoint: lower levels decide
    assert!(owned(&[LINKERD], Level::Default)(
        d.verdict(&http_route_ref("app", "to-optout"), 0).unwrap()
    ));
}

// The Namespace key is configurable like the Service key.
#[test]
fn the_namespace_delegation_label_is_configurable() {
    let snap = waypoint_cluster(&[("example.com/waypoint", "wp-own")]);
    let mut cfg = config(Some("linkerd"));
    let d = Arbiter::new(cfg.clone()).unwrap().decide_all(&snap);
    // the default key reads nothing here
    assert!(owned(&[LINKERD], Level::Default)(
        d.verdict(&http_route_ref("app", "to-plain"), 0).unwrap()
    ));
    cfg.keys.namespace_delegation_label = "example.com/waypoint".into();
    let d = Arbiter::new(cfg).unwrap().decide_all(&snap);
    assert!(owned(&[LINKERD], Level::Delegation)(
        d.verdict(&http_route_ref("app", "to-plain"), 0).unwrap()
    ));
}

// Incremental decisions agree with full ones: labelling the Namespace, or changing the class of
// the Gateway it names, re-decides the pairs of its Services.
#[test]
fn namespace_delegation_changes_are_seen_incrementally() {
    let arbiter = Arbiter::new(config(Some("linkerd"))).unwrap();
    let mut snap = waypoint_cluster(&[]);
    let mut d = arbiter.decide_all(&snap);
    let plain = http_route_ref("app", "to-plain");
    assert!(owned(&[LINKERD], Level::Default)(
        d.verdict(&plain, 0).unwrap()
    ));

    snap.upsert(namespace(
        "app",
        &[
            ("istio.io/use-waypoint", "wp"),
            ("istio.io/use-waypoint-namespace", "mesh"),
        ],
    ));
    arbiter.update(
        &mut d,
        &snap,
        &ObjectKey::new(ResourceKind::Namespace, "", "app"),
    );
    assert!(owned(&[ISTIO], Level::Delegation)(
        d.verdict(&plain, 0).unwrap()
    ));
    assert_eq!(d, arbiter.decide_all(&snap));

    snap.upsert(gateway("mesh", "wp", "linkerd-waypoint"));
    arbiter.update(
        &mut d,
        &snap,
        &ObjectKey::new(ResourceKind::Gateway, "mesh", "wp"),
    );
    assert!(owned(&[LINKERD], Level::Delegation)(
        d.verdict(&plain, 0).unwrap()
    ));
    assert_eq!(d, arbiter.decide_all(&snap));
}

// A consumer route's parent Service in a Namespace missing from the snapshot: that Namespace's
// label could decide level 2, so the pair is Pending on it, never a fall-through.
#[test]
fn a_missing_service_namespace_is_pending_at_delegation() {
    let snap = Snapshot::from_resources([
        namespace("client", &[("gamma.rs/mesh", "istio")]),
        service("app", "plain", &[], &[]),
        route("client", "r", vec![svc_parent_in("app", "plain")]),
    ]);
    let d = Arbiter::new(config(Some("linkerd")))
        .unwrap()
        .decide_all(&snap);
    let v = d.verdict(&http_route_ref("client", "r"), 0).unwrap();
    assert!(
        matches!(
            v,
            Verdict::Pending {
                level: Level::Delegation,
                ..
            }
        ),
        "{v:?}"
    );
    assert!(pending_on(v, ResourceKind::Namespace, "", "app"));
}

// ParentReference.group: the core group is "". `kind: Service` without `group` or with
// `group: core` is no Service: nobody owns it, and the verdict names the fix. The opt-in
// compatibility policy reads `core` as the core group (Linkerd does), the omitted group never.
// The omitted group and the group it defaults to (what a cluster stores) read the same.
#[test]
fn a_misgrouped_service_parent_is_not_a_service_unless_core_is_aliased() {
    let written = |group: Option<&str>| ParentReference {
        group: group.map(str::to_owned),
        kind: Some("Service".into()),
        name: "svc".into(),
        ..ParentReference::default()
    };
    let mut snap = Snapshot::from_resources([
        namespace("app", &[("gamma.rs/mesh", "istio")]),
        service("app", "svc", &[], &[]),
        route(
            "app",
            "r",
            vec![
                written(Some("core")),
                written(None),
                written(Some("gateway.networking.k8s.io")),
            ],
        ),
    ]);
    let r = http_route_ref("app", "r");
    let strict = Arbiter::new(config(Some("linkerd"))).unwrap();
    let d = strict.decide_all(&snap);
    assert_eq!(
        d.verdict(&r, 1),
        d.verdict(&r, 2),
        "omitted and defaulted group"
    );
    for i in [0, 1, 2] {
        let v = d.verdict(&r, i).unwrap();
        assert!(matches!(v, Verdict::NotAService { .. }), "{v:?}");
        assert!(
            v.to_string()
                .contains("not a Service (did you mean group: \"\"?)"),
            "{v}"
        );
    }
    let compat = Arbiter::new(config(Some("linkerd")).with_core_group_alias(true)).unwrap();
    let mut d = compat.decide_all(&snap);
    assert!(owned(&[ISTIO], Level::NamespaceLabel)(
        d.verdict(&r, 0).unwrap()
    ));
    assert!(matches!(
        d.verdict(&r, 1).unwrap(),
        Verdict::NotAService { .. }
    ));
    // incremental updates see the aliased parent's Service change
    snap.upsert(service(
        "app",
        "svc",
        &[],
        &[("gamma.rs/controller", LINKERD)],
    ));
    compat.update(
        &mut d,
        &snap,
        &ObjectKey::new(ResourceKind::Service, "app", "svc"),
    );
    assert!(owned(&[LINKERD], Level::ServiceAnnotation)(
        d.verdict(&r, 0).unwrap()
    ));
    assert_eq!(d, compat.decide_all(&snap));
}

// docs/ownership.md, "The `controllers` field on a real cluster": where the route CRDs do not
// declare `parentRefs[].controllers`, the API server prunes it, so level 1 reads only the route
// annotation. Ignoring the field decides every route as if the field were not written, whatever
// the other signals, on the full and the incremental path.
#[test]
fn ignoring_parent_ref_controllers_decides_as_if_the_field_were_pruned() {
    for &lo in SIGNALS.iter().skip(1) {
        for (hm, lm) in [("istio", "linkerd"), ("linkerd", "istio")] {
            let with_field = Cluster {
                signals: vec![(Signal::ParentRefControllers, hm), (lo, lm)],
            };
            let pruned = Cluster {
                signals: vec![(lo, lm)],
            };
            let (config, snap) = with_field.build();
            let ignoring = Arbiter::new(config.with_ignore_parent_ref_controllers(true)).unwrap();
            let got = ignoring.decide_all(&snap);
            let want = pruned.verdict();
            let r = http_route_ref("app", "r");
            assert_eq!(got.verdict(&r, 0), Some(&want), "{hm} over {lo:?}={lm}");
            // the incremental path agrees: the route re-decided after a change to it
            let mut updated = got.clone();
            ignoring.update(
                &mut updated,
                &snap,
                &ObjectKey::new(ResourceKind::HttpRoute, "app", "r"),
            );
            assert_eq!(updated, got);
        }
    }
}

#[test]
fn the_option_to_ignore_parent_ref_controllers_is_a_configuration_key_and_a_setter() {
    let config = ArbiterConfig::decode("meshes: []\nignoreParentRefControllers: true\n").unwrap();
    assert!(config.ignore_parent_ref_controllers);
    assert!(
        !ArbiterConfig::decode("meshes: []\n")
            .unwrap()
            .ignore_parent_ref_controllers
    );
    let mut arbiter = Arbiter::new(ArbiterConfig::default()).unwrap();
    assert!(arbiter.set_ignore_parent_ref_controllers(true));
    assert!(!arbiter.set_ignore_parent_ref_controllers(true));
    assert!(arbiter.config().ignore_parent_ref_controllers);
    assert!(arbiter.set_ignore_parent_ref_controllers(false));
}
