//! The route table built from the manifests, and turning a [`RequestLine`] into the engine's
//! request: destination lookup (Service names to cluster IPs, Gateways to their addresses),
//! protocol defaults, and the "binds nothing" check.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};

use gamma_mesh::model::gateway::GatewaySpecAddress;
use gamma_mesh::model::k8s::Service;
use gamma_mesh::model::{AnyResource, Snapshot};
use gamma_resolve::{
    BuildOptions, Decision, Explanation, Hop, Protocol, Request, RouteTable, Scheme, Trace,
};

use crate::cli::{ProtocolArg, SchemeArg};
use crate::request::{Destination, RequestLine, method_case_warning};

/// The manifests compiled for resolution.
pub struct Engine {
    /// The snapshot the table was built from (Gateways without an address got one).
    pub snapshot: Snapshot,
    /// The compiled table.
    pub table: RouteTable,
    /// Addresses gammactl gave to Gateways that have none in the manifests.
    pub assigned: BTreeMap<(String, String), IpAddr>,
    /// Stand-in cluster IPs gammactl gave to Services whose manifests have none (the API
    /// server allocates them on create), keyed by (namespace, name).
    pub stand_ins: BTreeMap<(String, String), IpAddr>,
    /// Whether the table reads `group: core` as the core group (`coreGroupAlias` in
    /// `--config`).
    pub core_group_alias: bool,
}

/// Where stand-in cluster IPs come from: 198.18.0.0/15, reserved for benchmarking (RFC 2544,
/// IANA special-purpose registry), so never a cluster's service CIDR in practice; addresses
/// the manifests already use are skipped.
pub const STAND_IN_RANGE: &str = "198.18.0.0/15";

/// A request ready for the engine: owned parts the borrowed [`Request`] points into.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The destination as written.
    pub destination: Destination,
    /// The address it resolved to.
    pub address: IpAddr,
    /// The port.
    pub port: u16,
    /// The protocol.
    pub protocol: Protocol,
    /// Method (HTTP and gRPC).
    pub method: String,
    /// Path and query (HTTP and gRPC).
    pub path: String,
    /// The rest of the request line.
    pub line: RequestLine,
    /// Why nothing is bound, when the destination IP is no Service's and no Gateway's: the
    /// decision is then Passthrough, and this says why.
    pub unbound: Option<String>,
    /// Things worth saying about the request as written (a lower-case method).
    pub warnings: Vec<String>,
    /// The scheme: as given, else https through a TLS-terminating Gateway listener.
    pub scheme: Scheme,
}

impl Engine {
    /// Builds the table. Gateways with no IP address in `spec.addresses` or
    /// `status.addresses` are given one from 192.0.2.0/24 (TEST-NET-1, never a real cluster
    /// address), so `--to gateway/NS/NAME:PORT` can reach their listeners.
    /// `binding` says which addresses mesh routes bind to (`--bind`); `options` carries the
    /// `--config` compatibility settings ([`crate::cli::ConfigArgs::build_options`]).
    pub fn build(
        snapshot: &Snapshot,
        bundles: &gamma_mesh::model::validate::KindBundles,
        binding: gamma_mesh::resolve::MeshBinding,
        options: BuildOptions,
    ) -> Self {
        let mut snapshot = snapshot.clone();
        let mut assigned = BTreeMap::new();
        let mut next: u8 = 1;
        let without: Vec<_> = snapshot
            .gateways()
            .filter(|g| gateway_ips(g).is_empty())
            .cloned()
            .collect();
        for mut gw in without {
            let ip = loop {
                let candidate = IpAddr::V4(Ipv4Addr::new(192, 0, 2, next));
                next = next.saturating_add(1);
                if snapshot.services_by_ip(candidate).next().is_none() || next == u8::MAX {
                    break candidate;
                }
            };
            gw.spec.addresses.push(GatewaySpecAddress {
                type_: Some("IPAddress".into()),
                value: Some(ip.to_string()),
                ..GatewaySpecAddress::default()
            });
            assigned.insert(
                (
                    gw.metadata.namespace_or_default().to_owned(),
                    gw.metadata.name.clone(),
                ),
                ip,
            );
            snapshot.upsert(AnyResource::from(gw));
        }
        let stand_ins = assign_stand_ins(&mut snapshot);
        let core_group_alias = options.core_group_alias;
        let options = options.with_bundles(bundles).with_mesh_binding(binding);
        let table = RouteTable::build(&snapshot, &options);
        Engine {
            snapshot,
            table,
            assigned,
            stand_ins,
            core_group_alias,
        }
    }

    /// Checks and completes a request line; the error says why it cannot be resolved.
    pub fn prepare(&self, line: &RequestLine) -> Result<Prepared, String> {
        let destination = line.destination()?;
        let mut unbound = None;
        let (address, port) =
            match &destination {
                Destination::Address(a) => {
                    let ip = a.ip();
                    let services: Vec<&Service> = self.snapshot.services_by_ip(ip).collect();
                    if let Some(first) = services.first()
                        && !services.iter().any(|s| has_port(s, a.port()))
                    {
                        return Err(no_such_port(first, &ip.to_string(), a.port()));
                    }
                    if services.is_empty()
                        && !self.is_gateway_address(ip)
                        && !self.is_bound_endpoint(ip, a.port())
                    {
                        // What the library decides (Passthrough), said with the reason: the mesh
                        // has nothing addressed there to route (GEP-1294).
                        unbound = Some(format!(
                            "{ip} is not the cluster IP of any Service nor the address of any \
                         Gateway in the manifests: it binds no Service frontend (a pod IP, or an \
                         address outside the cluster), so no route applies and the mesh passes \
                         the traffic through unchanged (GEP-1294)"
                        ));
                    }
                    (ip, a.port())
                }
                Destination::Service {
                    name,
                    namespace,
                    port,
                } => {
                    let service = self.snapshot.service(namespace, name).ok_or_else(|| {
                        format!("Service {namespace}/{name} is not in the manifests")
                    })?;
                    let ip = service.frontend_ips().into_iter().next().ok_or_else(|| {
                        let what = if service.is_headless() {
                            "headless: clusterIP: None"
                        } else if service.has_frontend() {
                            "and no stand-in address is left"
                        } else {
                            "ExternalName"
                        };
                        format!(
                            "Service {namespace}/{name} has no cluster IP ({what}): there is \
                         no Service frontend \
                         to send to, and a request to one of its pod IPs binds no Service \
                         (GEP-1294)"
                        )
                    })?;
                    if !has_port(service, *port) {
                        return Err(no_such_port(service, &destination.to_string(), *port));
                    }
                    (ip, *port)
                }
                Destination::Gateway {
                    namespace,
                    name,
                    port,
                } => {
                    let gw = self.snapshot.gateway(namespace, name).ok_or_else(|| {
                        format!("Gateway {namespace}/{name} is not in the manifests")
                    })?;
                    let ip = gateway_ips(gw)
                        .into_iter()
                        .next()
                        .ok_or_else(|| format!("Gateway {namespace}/{name} has no IP address"))?;
                    (ip, *port)
                }
                Destination::ListenerSet {
                    namespace,
                    name,
                    port,
                } => (self.listener_set_address(namespace, name, *port)?, *port),
            };
        let protocol = match line.protocol() {
            ProtocolArg::Http => Protocol::Http,
            ProtocolArg::Grpc => Protocol::Grpc,
            ProtocolArg::Tls => Protocol::Tls,
            ProtocolArg::Tcp => Protocol::Tcp,
            ProtocolArg::Udp => Protocol::Udp,
        };
        let method = line.method.clone().unwrap_or_else(|| {
            if protocol == Protocol::Grpc {
                "POST"
            } else {
                "GET"
            }
            .into()
        });
        let warnings = method_case_warning(&method).into_iter().collect();
        let scheme = match line.scheme {
            Some(SchemeArg::Http) => Scheme::Http,
            Some(SchemeArg::Https) => Scheme::Https,
            None if self.terminates_tls(address, port) => Scheme::Https,
            None => Scheme::Http,
        };
        let path = line.path.clone().unwrap_or_else(|| "/".into());
        if protocol.is_http() && !path.starts_with('/') {
            return Err(format!("path {path:?} must start with '/'"));
        }
        Ok(Prepared {
            destination,
            address,
            port,
            protocol,
            method,
            path,
            line: line.clone(),
            unbound,
            warnings,
            scheme,
        })
    }

    /// The engine's borrowed request for a prepared one.
    pub fn request<'a>(p: &'a Prepared) -> Request<'a> {
        let mut req = match p.protocol {
            Protocol::Http => Request::http(p.address, p.port, &p.method, &p.path),
            Protocol::Grpc => Request::grpc(p.address, p.port, &p.path),
            other => Request::connection(p.address, p.port, other),
        };
        if let Some(ns) = &p.line.from {
            req = req.from_namespace(ns);
        }
        if let Some(h) = &p.line.host {
            req = req.with_host(h);
        }
        if let Some(s) = &p.line.sni {
            req = req.with_sni(s);
        }
        req.with_headers(&p.line.headers).with_scheme(p.scheme)
    }

    /// Resolves a prepared request with its own entropy, else `entropy`.
    pub fn resolve<'a>(&'a self, p: &'a Prepared, entropy: u64) -> Decision<'a> {
        self.table
            .resolve(&Self::request(p), p.line.entropy.unwrap_or(entropy))
    }

    /// Traces a prepared request through every hop, with its own entropy, else `entropy`.
    pub fn trace<'a>(&'a self, p: &Prepared, entropy: u64) -> Trace<'a> {
        self.table
            .trace(&Self::request(p), p.line.entropy.unwrap_or(entropy))
    }

    /// Explains one later hop of a trace of `p` (whose headers the hop's edits apply over).
    pub fn explain_hop(&self, p: &Prepared, hop: &Hop<'_>) -> Explanation {
        let first = Self::request(p);
        let headers = hop.request.headers_over(first.headers);
        self.table
            .explain(&hop.request.as_request(&headers), hop.entropy)
    }

    /// Explains a prepared request with its own entropy, else `entropy`.
    pub fn explain(&self, p: &Prepared, entropy: u64) -> Explanation {
        self.table
            .explain(&Self::request(p), p.line.entropy.unwrap_or(entropy))
    }

    /// The routes that name the destination's Service as a parent with `group: core`, which the
    /// table does not bind unless `coreGroupAlias` is set (the Gateway API's core group is
    /// `""`): one sentence each, with the fix, since such a route is otherwise invisible behind
    /// "no route is bound". Empty under `coreGroupAlias` (the routes are bound, and listed as
    /// candidates).
    pub fn core_group_notes(&self, p: &Prepared) -> Vec<String> {
        if self.core_group_alias {
            return Vec::new();
        }
        let services: Vec<(String, String)> = match &p.destination {
            Destination::Service {
                name, namespace, ..
            } => vec![(namespace.clone(), name.clone())],
            Destination::Address(a) => self
                .snapshot
                .services_by_ip(a.ip())
                .map(|s| {
                    (
                        s.metadata.namespace_or_default().to_owned(),
                        s.metadata.name.clone(),
                    )
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut notes = Vec::new();
        for kind in gamma_mesh::model::RouteKind::ALL {
            for route in self.snapshot.of_kind(kind.resource_kind()) {
                let Some(view) = route.as_route() else {
                    continue;
                };
                let route_ns = view.metadata.namespace_or_default();
                for (i, r) in view.parent_refs.iter().enumerate() {
                    let ns = r.namespace.as_deref().unwrap_or(route_ns);
                    let names_it = services
                        .iter()
                        .any(|(sns, sname)| *sns == ns && *sname == r.name);
                    let port_ok = r.port.is_none_or(|port| i32::from(p.port) == port);
                    if r.is_core_alias_service() && names_it && port_ok {
                        notes.push(format!(
                            "{kind} {route_ns}/{} names Service {ns}/{} in parentRefs[{i}] with \
                             group: core, which is not bound: the Gateway API's core group is \
                             written group: \"\" (write that), or set coreGroupAlias: true in the \
                             --config file to read core as the core group (non-standard, as \
                             Linkerd does)",
                            view.metadata.name, r.name
                        ));
                    }
                }
            }
        }
        notes
    }

    /// The address gammactl gave a Gateway destination (or a ListenerSet's Gateway), if it
    /// had none of its own.
    pub fn assigned_address(&self, d: &Destination) -> Option<IpAddr> {
        match d {
            Destination::Gateway {
                namespace, name, ..
            } => self
                .assigned
                .get(&(namespace.clone(), name.clone()))
                .copied(),
            Destination::ListenerSet {
                namespace, name, ..
            } => {
                let (gns, gname) = self.listener_set_gateway(namespace, name)?;
                self.assigned.get(&(gns, gname)).copied()
            }
            _ => None,
        }
    }

    /// The Gateway (namespace, name) a ListenerSet's parentRef names.
    fn listener_set_gateway(&self, namespace: &str, name: &str) -> Option<(String, String)> {
        let ls = self.snapshot.listener_set(namespace, name)?;
        let p = &ls.spec.parent_ref;
        Some((
            p.namespace.clone().unwrap_or_else(|| namespace.to_owned()),
            p.name.clone(),
        ))
    }

    /// Where a request to a ListenerSet's listener on `port` goes: its parent Gateway's
    /// address (ListenerSetSpec.listeners: "Listeners define logical endpoints that are bound
    /// on this referenced parent Gateway's addresses"). Refused, with the reason, when the
    /// ListenerSet is not accepted (its listeners are bound nowhere) or has no listener on
    /// the port.
    fn listener_set_address(
        &self,
        namespace: &str,
        name: &str,
        port: u16,
    ) -> Result<IpAddr, String> {
        let ls = self
            .snapshot
            .listener_set(namespace, name)
            .ok_or_else(|| format!("ListenerSet {namespace}/{name} is not in the manifests"))?;
        let status = self
            .table
            .listener_set_status()
            .iter()
            .find(|s| s.namespace == namespace && s.name == name);
        if let Some(c) = status
            .and_then(|s| s.condition(gamma_resolve::status::ACCEPTED))
            .filter(|c| !c.status)
        {
            return Err(format!(
                "ListenerSet {namespace}/{name} is not accepted ({}: {}): its listeners are \
                 bound on no Gateway (GEP-1713)",
                c.reason, c.message
            ));
        }
        if !ls.spec.listeners.iter().any(|l| l.port == i32::from(port)) {
            let ports: Vec<String> = ls
                .spec
                .listeners
                .iter()
                .map(|l| l.port.to_string())
                .collect();
            return Err(format!(
                "ListenerSet {namespace}/{name} has no listener on port {port} (its ports: {})",
                ports.join(", ")
            ));
        }
        let (gns, gname) = self
            .listener_set_gateway(namespace, name)
            .ok_or_else(|| format!("ListenerSet {namespace}/{name} is not in the manifests"))?;
        let gw = self
            .snapshot
            .gateway(&gns, &gname)
            .ok_or_else(|| format!("Gateway {gns}/{gname} is not in the manifests"))?;
        gateway_ips(gw)
            .into_iter()
            .next()
            .ok_or_else(|| format!("Gateway {gns}/{gname} has no IP address"))
    }

    /// Whether a Gateway at `ip` has a listener on `port` that terminates TLS for HTTP
    /// (protocol HTTPS): requests through it have scheme https (Gateway API reference,
    /// `Listener.protocol`; the RequestRedirect filter keeps the request's scheme).
    fn terminates_tls(&self, ip: IpAddr, port: u16) -> bool {
        let https = |l: &gamma_mesh::model::gateway::Listener| {
            l.port == i32::from(port) && l.protocol == "HTTPS"
        };
        let at_ip: Vec<_> = self
            .snapshot
            .gateways()
            .filter(|g| gateway_ips(g).contains(&ip))
            .collect();
        // and the listeners of the accepted ListenerSets of those Gateways (GEP-1713)
        let of_sets = self.table.listener_set_status().iter().filter(|s| {
            s.is_accepted()
                && s.gateway.as_ref().is_some_and(|g| {
                    at_ip
                        .iter()
                        .any(|gw| g.is(gw.metadata.namespace_or_default(), &gw.metadata.name))
                })
        });
        at_ip
            .iter()
            .flat_map(|g| g.spec.listeners.iter())
            .any(https)
            || of_sets
                .filter_map(|s| self.snapshot.listener_set(&s.namespace, &s.name))
                .flat_map(|ls| ls.spec.listeners.iter())
                .any(https)
    }

    /// The stand-in cluster IP gammactl gave a Service destination, if its manifest has none.
    pub fn stand_in_address(&self, d: &Destination) -> Option<IpAddr> {
        match d {
            Destination::Service {
                namespace, name, ..
            } => self
                .stand_ins
                .get(&(namespace.clone(), name.clone()))
                .copied(),
            _ => None,
        }
    }

    /// The one-line note that says a destination was given a stand-in address, if it was.
    pub fn stand_in_note(&self, d: &Destination) -> Option<String> {
        let ip = self.stand_in_address(d)?;
        Some(format!(
            "the Service has no clusterIP in the manifests (the API server allocates one); \
             gammactl sends to the stand-in {ip} (from {STAND_IN_RANGE}, reserved, unused in \
             the input)"
        ))
    }

    /// Whether the table binds `ip:port` anyway: a ready endpoint of a headless Service with
    /// routes under `--bind workloads`.
    fn is_bound_endpoint(&self, ip: IpAddr, port: u16) -> bool {
        [
            gamma_mesh::resolve::Protocol::Tcp,
            gamma_mesh::resolve::Protocol::Udp,
        ]
        .into_iter()
        .any(|p| {
            let req = gamma_mesh::resolve::Request::connection(ip, port, p);
            !matches!(
                self.table.resolve(&req, 0),
                gamma_mesh::resolve::Decision::Passthrough
            )
        })
    }

    fn is_gateway_address(&self, ip: IpAddr) -> bool {
        self.snapshot
            .gateways()
            .any(|g| gateway_ips(g).contains(&ip))
    }
}

fn has_port(service: &Service, port: u16) -> bool {
    service.spec.ports.iter().any(|p| p.port == i32::from(port))
}

/// `Service shop/checkout (10.96.10.20:1234) has no port 1234; its ports: 80/TCP (http), ...`.
fn no_such_port(service: &Service, written: &str, port: u16) -> String {
    let ports: Vec<String> = service
        .spec
        .ports
        .iter()
        .map(|p| {
            let mut s = format!("{}/{}", p.port, p.protocol.as_deref().unwrap_or("TCP"));
            if let Some(n) = &p.name {
                s.push_str(&format!(" ({n})"));
            }
            s
        })
        .collect();
    let listed = if ports.is_empty() {
        "it has none".to_owned()
    } else {
        format!("its ports: {}", ports.join(", "))
    };
    format!(
        "Service {}/{} ({written}) has no port {port}; {listed}",
        service.metadata.namespace_or_default(),
        service.metadata.name
    )
}

/// Gives every Service that has a frontend but no cluster IP in the manifests a stand-in
/// address from [`STAND_IN_RANGE`], in snapshot order (deterministic), skipping every address
/// a Service or Gateway of the input already has. Headless and ExternalName Services get none.
fn assign_stand_ins(snapshot: &mut Snapshot) -> BTreeMap<(String, String), IpAddr> {
    let used: std::collections::BTreeSet<IpAddr> = snapshot
        .services()
        .flat_map(|s| s.frontend_ips())
        .chain(snapshot.gateways().flat_map(gateway_ips))
        .collect();
    let unallocated: Vec<_> = snapshot
        .services()
        .filter(|s| s.is_unallocated())
        .cloned()
        .collect();
    let base = u32::from(Ipv4Addr::new(198, 18, 0, 0));
    // 198.18.0.1 ..= 198.19.255.254: the /15 without its first and last address
    let mut candidates = (1..(1u32 << 17) - 1)
        .map(|i| IpAddr::V4(Ipv4Addr::from(base + i)))
        .filter(|ip| !used.contains(ip));
    let mut out = BTreeMap::new();
    for mut svc in unallocated {
        let Some(ip) = candidates.next() else {
            break;
        };
        svc.spec.cluster_ip = Some(ip.to_string());
        svc.spec.cluster_ips = vec![ip.to_string()];
        out.insert(
            (
                svc.metadata.namespace_or_default().to_owned(),
                svc.metadata.name.clone(),
            ),
            ip,
        );
        snapshot.upsert(AnyResource::Service(svc));
    }
    out
}

fn gateway_ips(gw: &gamma_mesh::model::gateway::Gateway) -> Vec<IpAddr> {
    let status: Vec<IpAddr> = gw
        .status
        .iter()
        .flat_map(|s| s.addresses.iter())
        .filter_map(|a| a.value.parse().ok())
        .collect();
    if !status.is_empty() {
        return status;
    }
    gw.spec
        .addresses
        .iter()
        .filter_map(|a| a.value.as_deref()?.parse().ok())
        .collect()
}
