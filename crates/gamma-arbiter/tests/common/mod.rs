//! Builders shared by the integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use gamma_arbiter::{ArbiterConfig, Identity, MeshRegistration};
use gamma_model::gateway::{
    Gateway, GatewayClass, GatewaySpec, HttpRoute, HttpRouteSpec, LabelSelector, ParentReference,
};
use gamma_model::k8s::{Namespace, Service, ServiceSpec};
use gamma_model::meta::ObjectMeta;
use gamma_model::xmesh::XMesh;
use gamma_model::{AnyResource, ObjectKey, ResourceKind};

pub const ISTIO: &str = "istio.io/gateway-controller";
pub const ISTIO_ALIAS: &str = "istio.io/mesh-controller";
pub const LINKERD: &str = "linkerd.io/policy-controller";
pub const GATEWAY: &str = "example.com/gateway-controller";

pub fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

pub fn selector(key: &str, value: &str) -> LabelSelector {
    LabelSelector {
        match_labels: labels(&[(key, value)]),
        ..LabelSelector::default()
    }
}

/// istio (alias istio.io/mesh-controller, selects istio-injection=enabled) and linkerd
/// (selects linkerd.io/inject=enabled); `default` names the default mesh, if any.
pub fn config(default: Option<&str>) -> ArbiterConfig {
    let mut istio = MeshRegistration::new("istio", ISTIO)
        .with_aliases([ISTIO_ALIAS])
        .with_selector(selector("istio-injection", "enabled"));
    let mut linkerd = MeshRegistration::new("linkerd", LINKERD)
        .with_selector(selector("linkerd.io/inject", "enabled"));
    match default {
        Some("istio") => istio = istio.as_default(),
        Some("linkerd") => linkerd = linkerd.as_default(),
        _ => {}
    }
    ArbiterConfig::new([istio, linkerd])
}

pub fn istio() -> Identity {
    Identity::new(ISTIO).with_aliases([ISTIO_ALIAS])
}

pub fn linkerd() -> Identity {
    Identity::new(LINKERD)
}

pub fn gateway_controller() -> Identity {
    Identity::new(GATEWAY)
}

pub fn namespace(name: &str, l: &[(&str, &str)]) -> AnyResource {
    let mut n = Namespace::new(name);
    n.metadata.labels = labels(l);
    AnyResource::Namespace(n)
}

pub fn service(ns: &str, name: &str, l: &[(&str, &str)], a: &[(&str, &str)]) -> AnyResource {
    let mut meta = ObjectMeta::namespaced(ns, name);
    meta.labels = labels(l);
    meta.annotations = labels(a);
    AnyResource::Service(Service::new(
        meta,
        ServiceSpec {
            cluster_ip: Some("10.96.0.1".into()),
            ..ServiceSpec::default()
        },
    ))
}

pub fn route_with(
    ns: &str,
    name: &str,
    parents: Vec<ParentReference>,
    a: &[(&str, &str)],
    generation: i64,
) -> AnyResource {
    let mut meta = ObjectMeta::namespaced(ns, name);
    meta.annotations = labels(a);
    meta.generation = Some(generation);
    AnyResource::HttpRoute(HttpRoute::new(
        meta,
        HttpRouteSpec {
            parent_refs: parents,
            ..HttpRouteSpec::default()
        },
    ))
}

pub fn route(ns: &str, name: &str, parents: Vec<ParentReference>) -> AnyResource {
    route_with(ns, name, parents, &[], 1)
}

pub fn svc_parent(name: &str) -> ParentReference {
    ParentReference::service(name)
}

pub fn svc_parent_in(ns: &str, name: &str) -> ParentReference {
    ParentReference {
        namespace: Some(ns.into()),
        ..ParentReference::service(name)
    }
}

pub fn gateway(ns: &str, name: &str, class: &str) -> AnyResource {
    AnyResource::from(Gateway::new(
        ObjectMeta::namespaced(ns, name),
        GatewaySpec {
            gateway_class_name: class.into(),
            ..GatewaySpec::default()
        },
    ))
}

pub fn class(name: &str, controller: &str) -> AnyResource {
    AnyResource::GatewayClass(GatewayClass::new(
        ObjectMeta::cluster_scoped(name),
        controller,
    ))
}

pub fn xmesh(name: &str, controller: &str) -> AnyResource {
    AnyResource::XMesh(XMesh::new(name, controller))
}

pub fn http_route_ref(ns: &str, name: &str) -> ObjectKey {
    ObjectKey::new(ResourceKind::HttpRoute, ns, name)
}

pub mod random {
    //! Random clusters for property tests and the convergence simulation.
    use super::*;
    use proptest::prelude::*;

    /// The last namespace and Service names are longer than a digest inlines
    /// (`gamma_model::digest::INLINE_NAME_LEN`), so full decisions take both their digest
    /// path and their object path for routes in and to them.
    pub const NAMESPACES: [&str; 4] = [
        "ns0",
        "ns1",
        "ns2",
        "ns3-with-a-name-longer-than-a-digest-inlines",
    ];
    pub const SERVICES: [&str; 3] = ["s0", "s1", "s2-with-a-name-longer-than-a-digest-inlines"];
    /// A mesh registered only through its XMesh object.
    pub const CILIUM: &str = "cilium.io/gateway-controller";

    #[derive(Debug, Clone)]
    pub struct NsSpec {
        pub present: bool,
        pub mesh: u8,
        pub istio_injection: bool,
        pub linkerd_inject: bool,
    }

    #[derive(Debug, Clone)]
    pub struct SvcSpec {
        pub present: bool,
        pub annotation: u8,
        pub delegation: u8,
    }

    #[derive(Debug, Clone)]
    pub enum ParentSpec {
        Service {
            ns: Option<u8>,
            svc: u8,
            controllers: u8,
        },
        Gateway,
        GrouplessService(u8),
        Claimed,
    }

    #[derive(Debug, Clone)]
    pub struct RouteSpec {
        pub ns: u8,
        pub annotation: u8,
        pub parents: Vec<ParentSpec>,
        pub generation: i64,
    }

    #[derive(Debug, Clone)]
    pub struct ClusterSpec {
        pub default: u8,
        pub xmesh_cilium: bool,
        /// 0: no waypoint Gateway; 1: class istio-waypoint; 2: class public.
        pub waypoint: u8,
        /// Bit 0: GatewayClass istio-waypoint present; bit 1: GatewayClass public present.
        pub classes: u8,
        pub namespaces: Vec<NsSpec>,
        /// Indexed [namespace][service].
        pub services: Vec<Vec<SvcSpec>>,
        pub routes: Vec<RouteSpec>,
    }

    fn controller_names(choice: u8) -> Option<&'static str> {
        match choice {
            1 => Some(ISTIO),
            2 => Some(LINKERD),
            3 => Some(ISTIO_ALIAS),
            4 => Some("istoi.io/typo"),
            5 => Some("istio.io/gateway-controller,linkerd.io/policy-controller"),
            6 => Some("none"),
            7 => Some(CILIUM),
            _ => None,
        }
    }

    fn ns_spec() -> impl Strategy<Value = NsSpec> {
        (
            prop::bool::weighted(0.9),
            0u8..7,
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(present, mesh, istio_injection, linkerd_inject)| NsSpec {
                present,
                mesh,
                istio_injection,
                linkerd_inject,
            })
    }

    fn svc_spec() -> impl Strategy<Value = SvcSpec> {
        (prop::bool::weighted(0.85), 0u8..12, 0u8..6).prop_map(
            |(present, annotation, delegation)| SvcSpec {
                present,
                annotation,
                delegation,
            },
        )
    }

    fn parent_spec() -> impl Strategy<Value = ParentSpec> {
        prop_oneof![
            6 => (prop::option::weighted(0.3, 0u8..4), 0u8..3, 0u8..14)
                .prop_map(|(ns, svc, controllers)| ParentSpec::Service { ns, svc, controllers }),
            1 => Just(ParentSpec::Gateway),
            1 => (0u8..3).prop_map(ParentSpec::GrouplessService),
            1 => Just(ParentSpec::Claimed),
        ]
    }

    fn route_spec() -> impl Strategy<Value = RouteSpec> {
        (
            0u8..4,
            0u8..16,
            prop::collection::vec(parent_spec(), 1..4),
            1i64..4,
        )
            .prop_map(|(ns, annotation, parents, generation)| RouteSpec {
                ns,
                annotation,
                parents,
                generation,
            })
    }

    pub fn cluster(max_routes: usize) -> impl Strategy<Value = ClusterSpec> {
        (
            (
                0u8..4,
                any::<bool>(),
                prop::sample::select(vec![1u8, 1, 1, 0, 2]),
                prop::sample::select(vec![3u8, 3, 3, 1, 2]),
            ),
            prop::collection::vec(ns_spec(), 4),
            prop::collection::vec(prop::collection::vec(svc_spec(), 3), 4),
            prop::collection::vec(route_spec(), 1..=max_routes),
        )
            .prop_map(
                |((default, xmesh_cilium, waypoint, classes), namespaces, services, routes)| {
                    ClusterSpec {
                        default,
                        xmesh_cilium,
                        waypoint,
                        classes,
                        namespaces,
                        services,
                        routes,
                    }
                },
            )
    }

    impl ClusterSpec {
        pub fn config(&self) -> ArbiterConfig {
            let mut c = config(match self.default {
                1 => Some("istio"),
                2 => Some("linkerd"),
                _ => None,
            });
            if self.default == 3 {
                // Two defaults: must conflict, never tie-break.
                c.meshes[0].default = true;
                c.meshes[1].default = true;
            }
            c.meshes[1] = c.meshes[1]
                .clone()
                .claiming("multicluster.x-k8s.io", "ServiceImport");
            c.no_owning_controller_reporter = Some(LINKERD.into());
            c
        }

        pub fn namespace(&self, i: usize) -> Option<AnyResource> {
            let n = self.namespaces.get(i)?;
            if !n.present {
                return None;
            }
            let mut l = vec![];
            let mesh = match n.mesh {
                1 => Some("istio"),
                2 => Some("linkerd"),
                3 => Some("typo"),
                4 => Some("none"),
                5 => Some("cilium"),
                _ => None,
            };
            if let Some(m) = mesh {
                l.push(("gamma.rs/mesh", m));
            }
            if n.istio_injection {
                l.push(("istio-injection", "enabled"));
            }
            if n.linkerd_inject {
                l.push(("linkerd.io/inject", "enabled"));
            }
            Some(namespace(NAMESPACES[i], &l))
        }

        pub fn service(&self, ns: usize, s: usize) -> Option<AnyResource> {
            let spec = self.services.get(ns)?.get(s)?;
            if !spec.present {
                return None;
            }
            let ann: Vec<(&str, &str)> = controller_names(spec.annotation)
                .map(|c| vec![("gamma.rs/controller", c)])
                .unwrap_or_default();
            let deleg: Vec<(&str, &str)> = match spec.delegation {
                1 => vec![
                    ("istio.io/use-waypoint", "wp"),
                    ("istio.io/use-waypoint-namespace", "mesh"),
                ],
                2 => vec![("istio.io/use-waypoint", "missing")],
                3 => vec![("istio.io/use-waypoint", "none")],
                _ => vec![],
            };
            Some(service(NAMESPACES[ns], SERVICES[s], &deleg, &ann))
        }

        pub fn route(&self, i: usize) -> Option<AnyResource> {
            let r = self.routes.get(i)?;
            let ns = NAMESPACES[usize::from(r.ns) % 4];
            let parents = r
                .parents
                .iter()
                .map(|p| match p {
                    ParentSpec::Service {
                        ns,
                        svc,
                        controllers,
                    } => {
                        let mut p = match ns {
                            Some(n) => svc_parent_in(
                                NAMESPACES[usize::from(*n) % 4],
                                SERVICES[usize::from(*svc) % 3],
                            ),
                            None => svc_parent(SERVICES[usize::from(*svc) % 3]),
                        };
                        p.controllers = controller_names(*controllers)
                            .map(|c| c.split(',').map(str::to_owned).collect());
                        p.port = Some(80 + i32::from(*controllers));
                        p
                    }
                    ParentSpec::Gateway => ParentReference {
                        namespace: Some("edge".into()),
                        ..ParentReference::gateway("public")
                    },
                    ParentSpec::GrouplessService(s) => ParentReference {
                        kind: Some("Service".into()),
                        name: SERVICES[usize::from(*s) % 3].into(),
                        ..ParentReference::default()
                    },
                    ParentSpec::Claimed => ParentReference {
                        group: Some("multicluster.x-k8s.io".into()),
                        kind: Some("ServiceImport".into()),
                        name: "imported".into(),
                        ..ParentReference::default()
                    },
                })
                .collect();
            let ann: Vec<(&str, &str)> = controller_names(r.annotation)
                .map(|c| vec![("gamma.rs/controllers", c)])
                .unwrap_or_default();
            Some(route_with(
                ns,
                &format!("r{i}"),
                parents,
                &ann,
                r.generation,
            ))
        }

        pub fn resources(&self) -> Vec<AnyResource> {
            let mut out = vec![
                gateway("edge", "public", "public"),
                xmesh("istio", ISTIO),
                xmesh("linkerd", LINKERD),
            ];
            match self.waypoint {
                1 => out.push(gateway("mesh", "wp", "istio-waypoint")),
                2 => out.push(gateway("mesh", "wp", "public")),
                _ => {}
            }
            if self.classes & 1 != 0 {
                out.push(class("istio-waypoint", ISTIO_ALIAS));
            }
            if self.classes & 2 != 0 {
                out.push(class("public", GATEWAY));
            }
            if self.xmesh_cilium {
                out.push(xmesh("cilium", CILIUM));
            }
            for i in 0..4 {
                out.extend(self.namespace(i));
                for s in 0..3 {
                    out.extend(self.service(i, s));
                }
            }
            for i in 0..self.routes.len() {
                out.extend(self.route(i));
            }
            out
        }
    }

    /// The identities the properties compare.
    pub fn identities() -> Vec<Identity> {
        vec![
            istio(),
            linkerd(),
            gateway_controller(),
            Identity::new(CILIUM),
        ]
    }
}
