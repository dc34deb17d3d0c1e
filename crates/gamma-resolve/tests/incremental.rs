//! Incremental updates agree with full builds: after any sequence of upserts and removes
//! (routes of several kinds, Services, EndpointSlices, Namespaces, Gateways, ListenerSets,
//! ReferenceGrants, GatewayClasses, XBackends, BackendTLSPolicies, ConfigMaps, Secrets), the table updated one change at a time with `RouteTable::update`
//! decides every generated request exactly as `RouteTable::build` of the same snapshot, and
//! reports the same parent conditions (Gateway API route status `parents[].conditions`),
//! Gateway, ListenerSet and BackendTLSPolicy status and left-out notes. The generated cluster is small so that changes
//! collide: shared cluster IPs, a Gateway on a Service's address, consumer and producer routes,
//! kinds competing on one Service port (GEP-1294 route types), cross-namespace backends
//! needing a ReferenceGrant (Gateway API ReferenceGrant), listener namespace selectors,
//! ListenerSets joining a Gateway's listeners (GEP-1713: `allowedListeners`, conflicts with
//! the Gateway's own listeners, routes naming a ListenerSet parent), listener certificateRefs
//! to Secrets present, absent, unusable or in another namespace (GatewayTLSConfig
//! .certificateRefs: `ResolvedRefs`/`InvalidCertificateRef`); and, with
//! `MeshBinding::Workloads` (beyond the spec, `docs/workloads.md`), headless Services bound at
//! ready endpoints shared between them (conflicts), named target ports resolved per
//! EndpointSlice, EndpointSlices changing addresses and readiness.
//!
//! Case count: `INCREMENTAL_CASES` sequences (default 96) of up to 24 changes, each change
//! compared on every request of the grid.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::net::IpAddr;

use gamma_model::{ObjectKey, Snapshot};
use gamma_resolve::{BuildOptions, Protocol, Request, RouteTable};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("INCREMENTAL_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96)
}

const NAMESPACES: &[&str] = &["a", "b"];
/// Services: (namespace, name); index i.
const SERVICES: &[(&str, &str)] = &[("a", "s0"), ("a", "s1"), ("b", "s2"), ("b", "s3")];
const GATEWAYS: &[(&str, &str)] = &[("a", "g0"), ("b", "g1")];
/// ListenerSets: (namespace, name); index i.
const LISTENER_SETS: &[(&str, &str)] = &[("a", "l0"), ("b", "l1")];
/// Cluster IPs and Gateway addresses come from one pool, so they collide.
const IPS: &[&str] = &["10.0.0.1", "10.0.0.2", "10.0.0.3"];
const PATHS: &[&str] = &["/", "/x", "/x/y", "/z"];
/// Endpoint addresses (`MeshBinding::Workloads`): shared by every slice, so that endpoints of
/// several headless Services collide; apart from the cluster IPs, as pod and Service CIDRs are.
const ENDPOINT_IPS: &[&str] = &["10.1.0.1", "10.1.0.2", "fd00::1", "10.1.0.3"];

/// One object of the universe, by its parameters.
#[derive(Debug, Clone)]
enum Obj {
    Namespace {
        i: usize,
        labeled: bool,
    },
    Service {
        i: usize,
        ip: usize,
        /// Bit 0: port 80, bit 1: port 8080 (none: no ports).
        ports: u8,
        headless: bool,
    },
    Slice {
        service: usize,
        ready: bool,
        /// Which of two slices of the Service.
        n: usize,
        /// Bits: which of [`ENDPOINT_IPS`] it lists (ready as `ready` says; the last one
        /// never ready).
        addrs: u8,
        /// The slice port of `http`: 80 or 7070 (what a named targetPort resolves to).
        named_port: bool,
    },
    Gateway {
        i: usize,
        ip: usize,
        host: bool,
        /// 0 Same, 1 All, 2 Selector env=x.
        from: u8,
        /// `allowedListeners.namespaces.from`: 0 absent (None), 1 Same, 2 All, 3 Selector env=x.
        sets: u8,
        /// An HTTPS listener on 8443 with certificateRef: 0 none, 1 Secret `cert` of its
        /// namespace, 2 Secret `a/cert` (cross-namespace for Gateway `b/g1`).
        cert: u8,
    },
    Secret {
        /// Its namespace ([`NAMESPACES`]).
        ns: usize,
        /// `cert` (named by listeners) or `other`.
        named: bool,
        /// A `kubernetes.io/tls` Secret with both keys (else Opaque).
        usable: bool,
    },
    ListenerSet {
        i: usize,
        /// The Gateway it names.
        gateway: usize,
        /// Its listener's port: 80 (may conflict with the Gateway's) or 8080.
        alt_port: bool,
        host: bool,
        /// An HTTPS listener on 9443 with a certificateRef to Secret `cert` of its namespace.
        cert: bool,
    },
    GatewayClass {
        ours: bool,
    },
    XBackend {
        alt: bool,
    },
    Policy {
        service: usize,
        /// A ConfigMap CA reference (else the system CAs).
        ca: bool,
        /// Named `q` (else `p`): two policies of a namespace may target one Service, `p`
        /// taking precedence (BackendTLSPolicySpec.targetRefs: `Conflicted`).
        second: bool,
    },
    ConfigMap {
        service: usize,
        ca: bool,
    },
    Grant {
        allow_grpc: bool,
    },
    Http {
        i: usize,
        parents: Vec<(usize, bool)>,
        rules: Vec<(usize, usize, u8)>,
        ts: u8,
        bad_host: bool,
        bad_regex: bool,
        /// After the upsert, the same route again with only what the table does not read
        /// changed ([`Obj::restated`]): 0 none, 1 a status, 2 a status the API server would
        /// refuse (33 parents), 3 a label, 4 a label it would refuse.
        then: u8,
    },
    Grpc {
        i: usize,
        parents: Vec<(usize, bool)>,
        backend: usize,
        ts: u8,
    },
    Tcp {
        i: usize,
        parents: Vec<(usize, bool)>,
        backend: usize,
        ts: u8,
    },
}

fn route_ns(i: usize) -> &'static str {
    NAMESPACES[i % 2]
}

/// A parentRef: index < 4 a Service (optionally with port 80), 4 and 5 a Gateway, else a
/// ListenerSet.
fn parent_yaml(p: usize, port: bool) -> String {
    if p < SERVICES.len() {
        let (ns, name) = SERVICES[p];
        let port = if port { ", port: 80" } else { "" };
        format!("{{group: \"\", kind: Service, name: {name}, namespace: {ns}{port}}}")
    } else if p >= SERVICES.len() + GATEWAYS.len() {
        let (ns, name) = LISTENER_SETS[(p - SERVICES.len()) % LISTENER_SETS.len()];
        format!("{{kind: ListenerSet, name: {name}, namespace: {ns}}}")
    } else {
        let (ns, name) = GATEWAYS[(p - SERVICES.len()) % GATEWAYS.len()];
        format!("{{name: {name}, namespace: {ns}}}")
    }
}

/// A backendRef: index < 4 a Service, else XBackend `a/x`.
fn backend_yaml(b: usize, weight: u8) -> String {
    if b >= SERVICES.len() {
        return format!(
            "{{group: gateway.networking.x-k8s.io, kind: XBackend, name: x, namespace: a, weight: {weight}}}"
        );
    }
    let (ns, name) = SERVICES[b];
    format!("{{name: {name}, namespace: {ns}, port: 80, weight: {weight}}}")
}

fn parents_yaml(parents: &[(usize, bool)]) -> String {
    let v: Vec<String> = parents
        .iter()
        .map(|(p, port)| parent_yaml(*p, *port))
        .collect();
    format!("[{}]", v.join(", "))
}

/// One entry of `status.parents` (a valid `RouteParentStatus`).
const STATUS_PARENT: &str = "  - parentRef: {name: web}\n    controllerName: example.com/mesh\n    \
    conditions: [{type: Accepted, status: \"True\", reason: Accepted, message: ok, \
    lastTransitionTime: \"2024-01-01T00:00:00Z\", observedGeneration: 1}]\n";

impl Obj {
    /// The object again with only its status or labels changed (`Obj::Http::then`): nothing
    /// lowering reads, though validity may change (the status and labels are validated).
    fn restated(&self) -> Option<String> {
        let Obj::Http { then, .. } = self else {
            return None;
        };
        let yaml = self.yaml();
        let labeled = |labels: &str| {
            yaml.replacen(
                "creationTimestamp:",
                &format!("labels: {labels}, resourceVersion: \"7\", creationTimestamp:"),
                1,
            )
        };
        match then {
            1 => Some(format!("{yaml}status:\n  parents:\n{STATUS_PARENT}")),
            2 => Some(format!(
                "{yaml}status:\n  parents:\n{}",
                STATUS_PARENT.repeat(33)
            )),
            3 => Some(labeled("{team: x}")),
            4 => Some(labeled("{\"bad key!\": x}")),
            _ => None,
        }
    }

    fn key(&self) -> ObjectKey {
        use gamma_model::ResourceKind as K;
        match self {
            Obj::Namespace { i, .. } => ObjectKey::new(K::Namespace, "", NAMESPACES[*i]),
            Obj::Service { i, .. } => ObjectKey::new(K::Service, SERVICES[*i].0, SERVICES[*i].1),
            Obj::Slice { service, n, .. } => ObjectKey::new(
                K::EndpointSlice,
                SERVICES[*service].0,
                format!("{}-{n}", SERVICES[*service].1),
            ),
            Obj::Gateway { i, .. } => ObjectKey::new(K::Gateway, GATEWAYS[*i].0, GATEWAYS[*i].1),
            Obj::Grant { .. } => ObjectKey::new(K::ReferenceGrant, "b", "allow"),
            Obj::Secret { ns, named, .. } => ObjectKey::new(
                K::Secret,
                NAMESPACES[*ns],
                if *named { "cert" } else { "other" },
            ),
            Obj::ListenerSet { i, .. } => {
                ObjectKey::new(K::ListenerSet, LISTENER_SETS[*i].0, LISTENER_SETS[*i].1)
            }
            Obj::GatewayClass { .. } => ObjectKey::new(K::GatewayClass, "", "c"),
            Obj::XBackend { .. } => ObjectKey::new(K::XBackend, "a", "x"),
            Obj::Policy {
                service, second, ..
            } => ObjectKey::new(
                K::BackendTlsPolicy,
                SERVICES[*service].0,
                if *second { "q" } else { "p" },
            ),
            Obj::ConfigMap { service, .. } => {
                ObjectKey::new(K::ConfigMap, SERVICES[*service].0, "ca")
            }
            Obj::Http { i, .. } => ObjectKey::new(K::HttpRoute, route_ns(*i), format!("r{i}")),
            Obj::Grpc { i, .. } => ObjectKey::new(K::GrpcRoute, route_ns(*i), format!("g{i}")),
            Obj::Tcp { i, .. } => ObjectKey::new(K::TcpRoute, route_ns(*i), format!("t{i}")),
        }
    }

    fn yaml(&self) -> String {
        match self {
            Obj::Namespace { i, labeled } => format!(
                "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {}{}}}\n",
                NAMESPACES[*i],
                if *labeled { ", labels: {env: x}" } else { "" }
            ),
            Obj::Service {
                i,
                ip,
                ports,
                headless,
            } => {
                let (ns, name) = SERVICES[*i];
                let mut p = Vec::new();
                if ports & 1 != 0 {
                    // a named targetPort on odd Services (resolved per EndpointSlice)
                    p.push(if i % 2 == 1 {
                        "{name: http, port: 80, targetPort: web}"
                    } else {
                        "{name: http, port: 80}"
                    });
                }
                if ports & 2 != 0 {
                    p.push("{name: alt, port: 8080}");
                }
                let ip = if *headless { "None" } else { IPS[*ip] };
                format!(
                    "apiVersion: v1\nkind: Service\nmetadata: {{name: {name}, namespace: {ns}}}\n\
                     spec: {{clusterIP: {ip}, ports: [{}]}}\n",
                    p.join(", ")
                )
            }
            Obj::Slice {
                service,
                ready,
                n,
                addrs,
                named_port,
            } => {
                let (ns, name) = SERVICES[*service];
                let mut eps: Vec<String> = ENDPOINT_IPS
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| addrs & (1 << i) != 0)
                    .map(|(i, a)| {
                        let ready = *ready && i + 1 < ENDPOINT_IPS.len();
                        format!("{{addresses: ['{a}'], conditions: {{ready: {ready}}}}}")
                    })
                    .collect();
                if eps.is_empty() {
                    eps.push(format!(
                        "{{addresses: [10.1.0.1], conditions: {{ready: {ready}}}}}"
                    ));
                }
                let port = if *named_port { 7070 } else { 80 };
                format!(
                    "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\n\
                     metadata: {{name: {name}-{n}, namespace: {ns}, labels: {{kubernetes.io/service-name: {name}}}}}\n\
                     addressType: IPv4\nendpoints: [{}]\nports: [{{name: http, port: {port}}}, {{name: alt, port: 8080}}]\n",
                    eps.join(", ")
                )
            }
            Obj::Gateway {
                i,
                ip,
                host,
                from,
                sets,
                cert,
            } => {
                let (ns, name) = GATEWAYS[*i];
                let cert = match cert {
                    0 => "",
                    1 => {
                        "  - {name: tls, port: 8443, protocol: HTTPS, tls: {certificateRefs: [{name: cert}]}}\n"
                    }
                    _ => {
                        "  - {name: tls, port: 8443, protocol: HTTPS, tls: {certificateRefs: [{name: cert, namespace: a}]}}\n"
                    }
                };
                let host = if *host { ", hostname: h.example" } else { "" };
                let from = from_yaml(*from);
                let sets = match sets {
                    0 => String::new(),
                    s => format!("  allowedListeners: {{namespaces: {}}}\n", from_yaml(s - 1)),
                };
                format!(
                    "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\n\
                     metadata: {{name: {name}, namespace: {ns}}}\n\
                     spec:\n  gatewayClassName: c\n  addresses: [{{type: IPAddress, value: {}}}]\n{sets}\
                     \x20 listeners:\n  - {{name: web, port: 80, protocol: HTTP{host}, allowedRoutes: {{namespaces: {from}}}}}\n{cert}",
                    IPS[*ip]
                )
            }
            Obj::ListenerSet {
                i,
                gateway,
                alt_port,
                host,
                cert,
            } => {
                let (ns, name) = LISTENER_SETS[*i];
                let (gns, gname) = GATEWAYS[*gateway];
                let port = if *alt_port { 8080 } else { 80 };
                let host = if *host { ", hostname: h.example" } else { "" };
                format!(
                    "apiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\n\
                     metadata: {{name: {name}, namespace: {ns}}}\n\
                     spec:\n  parentRef: {{name: {gname}, namespace: {gns}}}\n\
                     \x20 listeners:\n  - {{name: extra, port: {port}, protocol: HTTP{host}, allowedRoutes: {{namespaces: {{from: All}}}}}}\n{}",
                    if *cert {
                        "  - {name: tls, port: 9443, protocol: HTTPS, tls: {certificateRefs: [{name: cert}]}}\n"
                    } else {
                        ""
                    }
                )
            }
            Obj::GatewayClass { ours } => format!(
                "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\n\
                 metadata: {{name: c}}\nspec: {{controllerName: example.com/{}}}\n",
                if *ours { "gamma" } else { "other" }
            ),
            Obj::XBackend { alt } => format!(
                "apiVersion: gateway.networking.x-k8s.io/v1alpha1\nkind: XBackend\n\
                 metadata: {{name: x, namespace: a}}\n\
                 spec: {{type: ExternalHostname, externalHostname: {{hostname: {}.example}}, port: {{port: 80}}}}\n",
                if *alt { "alt" } else { "api" }
            ),
            Obj::Policy {
                service,
                ca,
                second,
            } => {
                let (ns, name) = SERVICES[*service];
                let validation = if *ca {
                    "{caCertificateRefs: [{group: \"\", kind: ConfigMap, name: ca}], hostname: s.example}"
                } else {
                    "{wellKnownCACertificates: System, hostname: s.example}"
                };
                format!(
                    "apiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\n\
                     metadata: {{name: {}, namespace: {ns}}}\n\
                     spec:\n  targetRefs: [{{group: \"\", kind: Service, name: {name}}}]\n  validation: {validation}\n",
                    if *second { "q" } else { "p" }
                )
            }
            Obj::ConfigMap { service, ca } => {
                let data = if *ca {
                    "{ca.crt: \"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n\"}"
                } else {
                    "{other: x}"
                };
                format!(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: ca, namespace: {}}}\ndata: {data}\n",
                    SERVICES[*service].0
                )
            }
            Obj::Secret { ns, named, usable } => format!(
                "apiVersion: v1\nkind: Secret\nmetadata: {{name: {}, namespace: {}}}\n{}",
                if *named { "cert" } else { "other" },
                NAMESPACES[*ns],
                if *usable {
                    "type: kubernetes.io/tls\ndata: {tls.crt: eA==, tls.key: eA==}\n"
                } else {
                    "data: {tls.crt: eA==}\n"
                }
            ),
            Obj::Grant { allow_grpc } => format!(
                "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\n\
                 metadata: {{name: allow, namespace: b}}\n\
                 spec:\n  from: [{{group: gateway.networking.k8s.io, kind: {}, namespace: a}}]\n\
                 \x20 to: [{{group: \"\", kind: Service}}]\n",
                if *allow_grpc {
                    "GRPCRoute"
                } else {
                    "HTTPRoute"
                }
            ),
            Obj::Http {
                i,
                parents,
                rules,
                ts,
                bad_host,
                bad_regex,
                ..
            } => {
                let mut r = String::new();
                for (k, (path, backend, weight)) in rules.iter().enumerate() {
                    let m = if *bad_regex && k == 0 {
                        "{path: {type: RegularExpression, value: '(('}}".to_string()
                    } else {
                        format!("{{path: {{type: PathPrefix, value: {}}}}}", PATHS[*path])
                    };
                    r.push_str(&format!(
                        "  - matches: [{m}]\n    backendRefs: [{}]\n",
                        backend_yaml(*backend, *weight)
                    ));
                }
                let hosts = if *bad_host {
                    "  hostnames: [Bad_Host]\n"
                } else {
                    ""
                };
                format!(
                    "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
                     metadata: {{name: r{i}, namespace: {}, creationTimestamp: \"2024-01-01T00:00:0{ts}Z\"}}\n\
                     spec:\n  parentRefs: {}\n{hosts}  rules:\n{r}",
                    route_ns(*i),
                    parents_yaml(parents)
                )
            }
            Obj::Grpc {
                i,
                parents,
                backend,
                ts,
            } => format!(
                "apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\n\
                 metadata: {{name: g{i}, namespace: {}, creationTimestamp: \"2024-01-01T00:00:0{ts}Z\"}}\n\
                 spec:\n  parentRefs: {}\n  rules:\n  - matches: [{{method: {{service: pkg.S}}}}]\n    backendRefs: [{}]\n",
                route_ns(*i),
                parents_yaml(parents),
                backend_yaml(*backend, 1)
            ),
            Obj::Tcp {
                i,
                parents,
                backend,
                ts,
            } => format!(
                "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\n\
                 metadata: {{name: t{i}, namespace: {}, creationTimestamp: \"2024-01-01T00:00:0{ts}Z\"}}\n\
                 spec:\n  parentRefs: {}\n  rules:\n  - backendRefs: [{}]\n",
                route_ns(*i),
                parents_yaml(parents),
                backend_yaml(*backend, 1)
            ),
        }
    }
}

/// `allowedRoutes.namespaces` or `allowedListeners.namespaces`: 0 Same, 1 All, 2 Selector env=x.
fn from_yaml(from: u8) -> &'static str {
    match from {
        0 => "{from: Same}",
        1 => "{from: All}",
        _ => "{from: Selector, selector: {matchLabels: {env: x}}}",
    }
}

fn parents() -> impl Strategy<Value = Vec<(usize, bool)>> {
    proptest::collection::vec((0usize..8, any::<bool>()), 1..3)
}

/// Every kind the table reads, BackendTLSPolicies and the ConfigMaps their
/// `caCertificateRefs` name among them (a policy change rebuilds the backends on the
/// Services it targets; every update recomputes the policies' status).
fn obj() -> impl Strategy<Value = Obj> {
    prop_oneof![
        2 => (0usize..2, any::<bool>()).prop_map(|(i, labeled)| Obj::Namespace { i, labeled }),
        8 => (0usize..4, 0usize..3, 0u8..4, proptest::bool::weighted(0.3)).prop_map(
            |(i, ip, ports, headless)| Obj::Service { i, ip, ports, headless }
        ),
        4 => (0usize..4, proptest::bool::weighted(0.8), 1usize..3, 0u8..16, any::<bool>())
            .prop_map(|(service, ready, n, addrs, named_port)| Obj::Slice {
                service,
                ready,
                n,
                addrs,
                named_port
            }),
        4 => (0usize..2, 0usize..3, any::<bool>(), 0u8..3, 0u8..4, 0u8..3).prop_map(
            |(i, ip, host, from, sets, cert)| Obj::Gateway { i, ip, host, from, sets, cert }
        ),
        3 => (0usize..2, proptest::bool::weighted(0.7), any::<bool>())
            .prop_map(|(ns, named, usable)| Obj::Secret { ns, named, usable }),
        4 => (0usize..2, 0usize..2, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
            |(i, gateway, alt_port, host, cert)| Obj::ListenerSet { i, gateway, alt_port, host, cert }
        ),
        2 => any::<bool>().prop_map(|ours| Obj::GatewayClass { ours }),
        2 => any::<bool>().prop_map(|alt| Obj::XBackend { alt }),
        3 => (0usize..4, any::<bool>(), any::<bool>())
            .prop_map(|(service, ca, second)| Obj::Policy { service, ca, second }),
        2 => (0usize..4, any::<bool>()).prop_map(|(service, ca)| Obj::ConfigMap { service, ca }),
        2 => any::<bool>().prop_map(|allow_grpc| Obj::Grant { allow_grpc }),
        12 => (
            0usize..4,
            parents(),
            proptest::collection::vec((0usize..4, 0usize..5, 0u8..3), 1..3),
            0u8..4,
            proptest::bool::weighted(0.1),
            proptest::bool::weighted(0.1),
        )
            .prop_flat_map(|(i, parents, rules, ts, bad_host, bad_regex)| {
                prop_oneof![4 => Just(0u8), 1 => 1u8..5].prop_map(move |then| Obj::Http {
                    i,
                    parents: parents.clone(),
                    rules: rules.clone(),
                    ts,
                    bad_host,
                    bad_regex,
                    then,
                })
            }),
        4 => (0usize..2, parents(), 0usize..4, 0u8..4)
            .prop_map(|(i, parents, backend, ts)| Obj::Grpc { i, parents, backend, ts }),
        2 => (0usize..2, parents(), 0usize..4, 0u8..4)
            .prop_map(|(i, parents, backend, ts)| Obj::Tcp { i, parents, backend, ts }),
    ]
}

/// A change: upsert the object, or (`false`) remove the object with its key.
fn change() -> impl Strategy<Value = (Obj, bool)> {
    (obj(), proptest::bool::weighted(0.75))
}

/// Every decision of the request grid, printed.
fn decisions(table: &RouteTable) -> Vec<String> {
    let mut out = Vec::new();
    for ip in IPS.iter().chain(ENDPOINT_IPS) {
        let ip: IpAddr = ip.parse().unwrap();
        for port in [80u16, 8080, 7070] {
            for src in [None, Some("a"), Some("b")] {
                let mut reqs: Vec<Request<'_>> = Vec::new();
                for path in PATHS {
                    reqs.push(Request::http(ip, port, "GET", path));
                    reqs.push(Request::http(ip, port, "GET", path).with_host("h.example"));
                }
                reqs.push(Request::grpc(ip, port, "/pkg.S/Get"));
                reqs.push(Request::connection(ip, port, Protocol::Tcp));
                for mut r in reqs {
                    if let Some(ns) = src {
                        r = r.from_namespace(ns);
                    }
                    for entropy in [0u64, u64::MAX / 2] {
                        out.push(format!("{r:?} {entropy}: {:?}", table.resolve(&r, entropy)));
                    }
                }
            }
            out.extend(table.left_out_at(ip).map(|l| format!("{ip}: {l}")));
        }
    }
    for (ns, name) in SERVICES {
        out.extend(
            table
                .left_out_for_service(ns, name)
                .map(|l| format!("{ns}/{name}: {l}")),
        );
    }
    out
}

fn assert_same(updated: &RouteTable, built: &RouteTable, step: usize) {
    let (u, b) = (decisions(updated), decisions(built));
    for (x, y) in u.iter().zip(&b) {
        assert_eq!(x, y, "decision differs after change {step}");
    }
    assert_eq!(
        u.len(),
        b.len(),
        "left-out notes differ after change {step}"
    );
    assert_eq!(
        updated.parent_conditions(),
        built.parent_conditions(),
        "parent conditions differ after change {step}"
    );
    assert_eq!(
        updated.gateway_status(),
        built.gateway_status(),
        "Gateway status differs after change {step}"
    );
    assert_eq!(
        updated.listener_set_status(),
        built.listener_set_status(),
        "ListenerSet status differs after change {step}"
    );
    assert_eq!(
        updated.backend_tls_policy_status(),
        built.backend_tls_policy_status(),
        "BackendTLSPolicy status differs after change {step}"
    );
}

/// Applies `changes` one at a time to a snapshot of `initial` whose `secrets_complete` is
/// `secrets` (listener certificateRefs judged against its Secrets), comparing each updated
/// table with a full build (without kept lowered routes: keeping them changes no result).
fn run_with(initial: &[Obj], changes: &[(Obj, bool)], options: &BuildOptions, secrets: bool) {
    let mut snapshot = Snapshot::new().with_secrets_complete(secrets);
    for o in initial {
        for r in gamma_model::decode(&o.yaml()).unwrap() {
            snapshot.upsert(r);
        }
    }
    let mut table = RouteTable::build(&snapshot, options);
    for (step, (o, upsert)) in changes.iter().enumerate() {
        let key = o.key();
        let previous = if *upsert {
            let mut objects = gamma_model::decode(&o.yaml()).unwrap();
            assert_eq!(objects.len(), 1, "{}", o.yaml());
            snapshot.upsert(objects.remove(0))
        } else {
            snapshot.remove(&key)
        };
        let updated = table.update(&snapshot, options, &key, previous.as_deref());
        let built = RouteTable::build(&snapshot, &options.clone().with_keep_lowered_routes(false));
        assert_same(&updated, &built, step);
        // the previous table is unchanged by the update (readers keep it until they swap)
        table = updated;
        // the same route with a new status or labels only
        if let Some(yaml) = o.restated().filter(|_| *upsert) {
            let mut objects = gamma_model::decode(&yaml).unwrap();
            assert_eq!(objects.len(), 1, "{yaml}");
            let previous = snapshot.upsert(objects.remove(0));
            let updated = table.update(&snapshot, options, &key, previous.as_deref());
            let built =
                RouteTable::build(&snapshot, &options.clone().with_keep_lowered_routes(false));
            assert_same(&updated, &built, step);
            table = updated;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn updated_tables_decide_and_report_as_full_builds(
        initial in proptest::collection::vec(obj(), 0..14),
        changes in proptest::collection::vec(change(), 1..24),
        enforce in proptest::bool::weighted(0.25),
        workloads in proptest::bool::weighted(0.5),
        secrets in proptest::bool::weighted(0.5),
    ) {
        let mut options = if enforce {
            BuildOptions::default()
                .with_mesh_reference_grants(gamma_resolve::MeshReferenceGrants::Enforce)
        } else {
            BuildOptions::default()
        };
        if workloads {
            // beyond the spec: headless Services bind at their ready endpoints
            options = options.with_mesh_binding(gamma_resolve::MeshBinding::Workloads);
        }
        // with secrets: Secrets complete, so listener certificateRefs are judged
        run_with(&initial, &changes, &options, secrets);
        // and with every route's lowered form kept: updates and rebuilds take those of
        // unchanged objects instead of lowering them again
        run_with(&initial, &changes, &options.with_keep_lowered_routes(true), secrets);
    }
}

// The old table keeps answering as before the change: an update never touches what a data
// plane still reads (structural sharing, not mutation).
#[test]
fn the_previous_table_is_unchanged_by_an_update() {
    let svc = Obj::Service {
        i: 0,
        ip: 0,
        ports: 1,
        headless: false,
    };
    let route = |path| Obj::Http {
        i: 0,
        parents: vec![(0, false)],
        rules: vec![(path, 1, 1)],
        ts: 0,
        bad_host: false,
        bad_regex: false,
        then: 0,
    };
    let mut snapshot = Snapshot::new();
    for o in [&svc, &route(1)] {
        for r in gamma_model::decode(&o.yaml()).unwrap() {
            snapshot.upsert(r);
        }
    }
    let options = BuildOptions::default();
    let old = RouteTable::build(&snapshot, &options);
    let before = decisions(&old);
    let changed = route(3);
    let previous = snapshot.upsert(gamma_model::decode(&changed.yaml()).unwrap().remove(0));
    let new = old.update(&snapshot, &options, &changed.key(), previous.as_deref());
    assert_eq!(decisions(&old), before);
    assert_ne!(decisions(&new), before, "the route moved from /x to /z");
    assert_same(&new, &RouteTable::build(&snapshot, &options), 0);
}
