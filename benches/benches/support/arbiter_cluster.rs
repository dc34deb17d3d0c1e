//! The arbiter benchmark's cluster, shared by `benches/arbiter.rs` (criterion) and
//! `src/bin/arbiter_instructions.rs` (the callgrind driver), so both measure the same input.
//!
//! 1,000 namespaces, 10,000 Services (10 per namespace), 50,000 routes (5 per Service; every
//! 10th route is a consumer route in the next namespace, every 20th names its owners in the
//! `gamma.rs/controllers` annotation, every 50th also has a Gateway parent). Namespaces spread
//! over the ladder: a third carry `gamma.rs/mesh`, a fifth match a registration selector, some
//! match both selectors (Conflict), the rest fall to the default. One Service in 20 is annotated
//! `gamma.rs/controller`, one in 20 delegates to a waypoint.

use gamma_arbiter::{ArbiterConfig, MeshRegistration};
use gamma_model::AnyResource;
use gamma_model::gateway::{
    Gateway, GatewayClass, GatewaySpec, HttpRoute, HttpRouteSpec, LabelSelector, ParentReference,
};
use gamma_model::k8s::{Namespace, Service, ServiceSpec};
use gamma_model::meta::ObjectMeta;

pub const NAMESPACES: usize = 1_000;
pub const SERVICES_PER_NS: usize = 10;
pub const ROUTES_PER_SERVICE: usize = 5;

pub fn config() -> ArbiterConfig {
    let sel = |k: &str| LabelSelector {
        match_labels: [(k.to_owned(), "enabled".to_owned())].into(),
        ..LabelSelector::default()
    };
    ArbiterConfig::new([
        MeshRegistration::new("istio", "istio.io/gateway-controller")
            .with_aliases(["istio.io/mesh-controller"])
            .with_selector(sel("istio-injection")),
        MeshRegistration::new("linkerd", "linkerd.io/policy-controller")
            .with_selector(sel("linkerd.io/inject"))
            .as_default(),
    ])
}

pub fn service(ns: &str, s: usize, annotated: bool) -> AnyResource {
    let mut meta = ObjectMeta::namespaced(ns, format!("svc-{s}"));
    if s % 20 == 3 {
        meta.labels
            .insert("istio.io/use-waypoint".into(), "waypoint".into());
    }
    if annotated {
        meta.annotations.insert(
            "gamma.rs/controller".into(),
            "istio.io/gateway-controller".into(),
        );
    }
    AnyResource::Service(Service::new(
        meta,
        ServiceSpec {
            cluster_ip: Some(format!(
                "10.{}.{}.{}",
                96 + s / 65_536,
                (s / 256) % 256,
                s % 256
            )),
            ..ServiceSpec::default()
        },
    ))
}

pub fn cluster() -> Vec<AnyResource> {
    let mut out = vec![
        AnyResource::GatewayClass(GatewayClass::new(
            ObjectMeta::cluster_scoped("istio-waypoint"),
            "istio.io/mesh-controller",
        )),
        AnyResource::GatewayClass(GatewayClass::new(
            ObjectMeta::cluster_scoped("public"),
            "example.com/gateway-controller",
        )),
        AnyResource::from(Gateway::new(
            ObjectMeta::namespaced("edge", "public"),
            GatewaySpec {
                gateway_class_name: "public".into(),
                ..GatewaySpec::default()
            },
        )),
    ];
    for n in 0..NAMESPACES {
        let name = format!("ns-{n}");
        let mut ns = Namespace::new(&name);
        let labels = &mut ns.metadata.labels;
        match n % 15 {
            0..=2 => {
                labels.insert("gamma.rs/mesh".into(), "istio".into());
            }
            3..=4 => {
                labels.insert("gamma.rs/mesh".into(), "linkerd".into());
            }
            5..=6 => {
                labels.insert("istio-injection".into(), "enabled".into());
            }
            7 => {
                labels.insert("linkerd.io/inject".into(), "enabled".into());
            }
            8 => {
                labels.insert("istio-injection".into(), "enabled".into());
                labels.insert("linkerd.io/inject".into(), "enabled".into());
            }
            _ => {}
        }
        out.push(AnyResource::Namespace(ns));
        out.push(AnyResource::from(Gateway::new(
            ObjectMeta::namespaced(&name, "waypoint"),
            GatewaySpec {
                gateway_class_name: "istio-waypoint".into(),
                ..GatewaySpec::default()
            },
        )));
        for s in 0..SERVICES_PER_NS {
            let global = n * SERVICES_PER_NS + s;
            out.push(service(&name, global, global % 20 == 7));
            for r in 0..ROUTES_PER_SERVICE {
                let i = global * ROUTES_PER_SERVICE + r;
                let consumer = i % 10 == 9;
                let route_ns = if consumer {
                    format!("ns-{}", (n + 1) % NAMESPACES)
                } else {
                    name.clone()
                };
                let mut parent = ParentReference::service(format!("svc-{global}"));
                parent.port = Some(80);
                if consumer {
                    parent.namespace = Some(name.clone());
                }
                let mut parents = vec![parent];
                if i % 50 == 1 {
                    parents.push(ParentReference {
                        namespace: Some("edge".into()),
                        ..ParentReference::gateway("public")
                    });
                }
                let mut meta = ObjectMeta::namespaced(route_ns, format!("route-{i}"));
                meta.generation = Some(1);
                if i % 20 == 5 {
                    meta.annotations.insert(
                        "gamma.rs/controllers".into(),
                        "istio.io/gateway-controller,linkerd.io/policy-controller".into(),
                    );
                }
                out.push(AnyResource::HttpRoute(HttpRoute::new(
                    meta,
                    HttpRouteSpec {
                        parent_refs: parents,
                        ..HttpRouteSpec::default()
                    },
                )));
            }
        }
    }
    out
}
