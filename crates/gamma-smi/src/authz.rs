//! SMI access control (TrafficTarget) as a pure evaluator.
//!
//! Semantics (smi-spec `apis/traffic-access`; the decisions SMI leaves open are marked):
//! - A TrafficTarget **selects** the ServiceAccount named by its destination (namespace
//!   omitted: the TrafficTarget's). Once any TrafficTarget selects a destination, access to it
//!   is deny-by-default: a request is allowed only when some selecting TrafficTarget lists the
//!   source ServiceAccount (namespace omitted: the TrafficTarget's) and has a rule admitting the
//!   request. A destination no TrafficTarget selects is not under SMI access control: allowed.
//! - v1alpha1/v1alpha2 `destination.port`, when set, must equal the request's port.
//! - Rules are matched by protocol. An HTTP request needs an HTTPRouteGroup rule admitting it
//!   (rule `matches` names some of the group's matches; omitted: all of them); if the target
//!   also has TCPRoute rules, one must admit the port too, as the v1alpha3 examples pair a
//!   TCPRoute port rule with HTTPRouteGroup rules. A target with TCPRoute rules only admits
//!   HTTP on those ports (HTTP is TCP traffic). *(decision)*
//! - A TCP connection needs a TCPRoute rule, a UDP datagram a UDPRoute rule, admitting its port
//!   (`matches.ports` omitted or empty: every port).
//! - References to missing HTTPRouteGroups, TCPRoutes or match names admit nothing; they are
//!   listed in [`Authorizer::report`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use gamma_model::smi::{RuleKind, SERVICE_ACCOUNT, TrafficTarget};
use gamma_model::{ObjectKey, ResourceKind, Snapshot, Validate};

use crate::matching::{CompiledMatch, HttpRequest};
use crate::report::{Report, Severity};

/// A workload identity under SMI access control: a Kubernetes ServiceAccount, by namespace
/// and name (SMI `IdentityBindingSubject` of kind `ServiceAccount`).
///
/// Named for what it refers to, so that it reads apart from the arbiter's controller
/// identity (`gamma_arbiter::Identity`) and from k8s-openapi's `ServiceAccount` object in a
/// program that imports all three.
///
/// ```
/// use gamma_smi::ServiceAccountRef;
///
/// let sa: ServiceAccountRef = "shop/web".parse().unwrap();
/// assert_eq!(sa, ServiceAccountRef::new("shop", "web"));
/// assert_eq!(sa.to_string(), "shop/web");
/// assert!("web".parse::<ServiceAccountRef>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServiceAccountRef {
    /// The ServiceAccount's namespace.
    pub namespace: String,
    /// The ServiceAccount's name.
    pub name: String,
}

impl ServiceAccountRef {
    /// The ServiceAccount `namespace/name`.
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        ServiceAccountRef {
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

impl fmt::Display for ServiceAccountRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// Why a string is not `namespace/name`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a ServiceAccount; expected NAMESPACE/SERVICEACCOUNT")]
pub struct ParseServiceAccountError(String);

impl FromStr for ServiceAccountRef {
    type Err = ParseServiceAccountError;

    /// Parses `namespace/name`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.split_once('/') {
            Some((ns, name)) if !ns.is_empty() && !name.is_empty() && !name.contains('/') => {
                Ok(ServiceAccountRef::new(ns, name))
            }
            _ => Err(ParseServiceAccountError(s.to_owned())),
        }
    }
}

/// What the source asks the destination for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AccessRequest {
    /// An HTTP request, on a destination port when known.
    Http {
        /// The destination port, when known.
        port: Option<i32>,
        /// Method, path and headers.
        request: HttpRequest,
    },
    /// A TCP connection to a port.
    Tcp {
        /// The destination port.
        port: i32,
    },
    /// UDP traffic to a port.
    Udp {
        /// The destination port.
        port: i32,
    },
}

impl AccessRequest {
    /// An HTTP request with no headers and no known port.
    pub fn http(method: impl Into<String>, path: impl Into<String>) -> Self {
        AccessRequest::Http {
            port: None,
            request: HttpRequest::new(method, path),
        }
    }

    /// A TCP connection.
    pub fn tcp(port: i32) -> Self {
        AccessRequest::Tcp { port }
    }

    /// UDP traffic.
    pub fn udp(port: i32) -> Self {
        AccessRequest::Udp { port }
    }

    /// This HTTP request on `port` (no effect on TCP/UDP requests, which have one).
    #[must_use]
    pub fn on_port(mut self, p: i32) -> Self {
        if let AccessRequest::Http { port, .. } = &mut self {
            *port = Some(p);
        }
        self
    }

    /// This HTTP request with one more header (no effect on TCP/UDP requests).
    #[must_use]
    pub fn header(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        match self {
            AccessRequest::Http { port, request } => AccessRequest::Http {
                port,
                request: request.header(name, value),
            },
            other => other,
        }
    }

    fn port(&self) -> Option<i32> {
        match self {
            AccessRequest::Http { port, .. } => *port,
            AccessRequest::Tcp { port } | AccessRequest::Udp { port } => Some(*port),
        }
    }
}

impl fmt::Display for AccessRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessRequest::Http { port, request } => {
                write!(f, "{} {}", request.method, request.path)?;
                if let Some(p) = port {
                    write!(f, " on port {p}")?;
                }
                Ok(())
            }
            AccessRequest::Tcp { port } => write!(f, "TCP to port {port}"),
            AccessRequest::Udp { port } => write!(f, "UDP to port {port}"),
        }
    }
}

/// The answer to one authorization question ([`Authorizer::authorize`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AccessDecision {
    /// Whether the request is allowed.
    pub allowed: bool,
    /// The TrafficTarget that allowed it (`None` when denied, or allowed because no
    /// TrafficTarget selects the destination).
    pub by: Option<ObjectKey>,
    /// Why, for a person.
    pub explanation: String,
}

/// Port condition of a TCPRoute or UDPRoute rule.
#[derive(Debug, Clone)]
struct PortRule {
    name: String,
    /// `None`: every port.
    ports: Option<BTreeSet<i32>>,
}

impl PortRule {
    fn admits(&self, port: Option<i32>) -> bool {
        match (&self.ports, port) {
            (None, _) => true,
            (Some(set), Some(p)) => set.contains(&p),
            (Some(_), None) => false,
        }
    }
}

#[derive(Debug, Clone)]
struct HttpRule {
    group: String,
    matches: Vec<CompiledMatch>,
}

#[derive(Debug, Clone)]
struct CompiledTarget {
    reference: ObjectKey,
    sources: BTreeSet<ServiceAccountRef>,
    destination_port: Option<i32>,
    http: Vec<HttpRule>,
    tcp: Vec<PortRule>,
    udp: Vec<PortRule>,
}

/// Evaluates SMI TrafficTargets. Built once from a snapshot; [`Authorizer::authorize`] is pure
/// and allocates only the explanation.
#[derive(Debug, Clone, Default)]
pub struct Authorizer {
    by_destination: BTreeMap<ServiceAccountRef, Vec<CompiledTarget>>,
    report: Report,
}

impl Authorizer {
    /// Compiles every TrafficTarget of `snapshot`, with the HTTPRouteGroups, TCPRoutes and
    /// UDPRoutes they reference.
    ///
    /// ```
    /// use gamma_model::{Snapshot, decode};
    /// use gamma_smi::{AccessRequest, Authorizer, ServiceAccountRef};
    /// let snap = Snapshot::from_resources(decode(r#"
    /// apiVersion: specs.smi-spec.io/v1alpha4
    /// kind: HTTPRouteGroup
    /// metadata: {name: routes, namespace: default}
    /// spec: {matches: [{name: metrics, pathRegex: /metrics, methods: [GET]}]}
    /// ---
    /// apiVersion: access.smi-spec.io/v1alpha3
    /// kind: TrafficTarget
    /// metadata: {name: scrape, namespace: default}
    /// spec:
    ///   destination: {kind: ServiceAccount, name: api, namespace: default}
    ///   rules: [{kind: HTTPRouteGroup, name: routes, matches: [metrics]}]
    ///   sources: [{kind: ServiceAccount, name: prometheus, namespace: monitoring}]
    /// "#).unwrap());
    /// let authz = Authorizer::build(&snap);
    /// let api: ServiceAccountRef = "default/api".parse().unwrap();
    /// let prom: ServiceAccountRef = "monitoring/prometheus".parse().unwrap();
    /// assert!(authz.authorize(&prom, &api, &AccessRequest::http("GET", "/metrics")).allowed);
    /// assert!(!authz.authorize(&prom, &api, &AccessRequest::http("GET", "/admin")).allowed);
    /// ```
    pub fn build(snapshot: &Snapshot) -> Authorizer {
        let mut a = Authorizer::default();
        for tt in snapshot.traffic_targets() {
            a.add(snapshot, tt);
        }
        a
    }

    /// Problems found while compiling (missing references, invalid objects).
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The TrafficTargets selecting `destination`, in (namespace, name) order.
    pub fn targets_for(&self, destination: &ServiceAccountRef) -> impl Iterator<Item = &ObjectKey> {
        self.by_destination
            .get(destination)
            .into_iter()
            .flatten()
            .map(|t| &t.reference)
    }

    fn add(&mut self, snapshot: &Snapshot, tt: &TrafficTarget) {
        let ns = tt.metadata.namespace_or_default();
        let me = ObjectKey::new(ResourceKind::TrafficTarget, ns, &tt.metadata.name);
        if let Err(errors) = tt.validate() {
            for e in errors {
                self.report.push(
                    Severity::Note,
                    &me,
                    e.path.as_str(),
                    format!("{} (evaluated leniently)", e.kind),
                );
            }
        }
        let Some(dest) = tt.destination() else {
            return;
        };
        if dest.kind != SERVICE_ACCOUNT {
            self.report.push(
                Severity::Dropped,
                &me,
                "destination.kind",
                format!(
                    "destination kind {:?} is not ServiceAccount: selects nothing",
                    dest.kind
                ),
            );
            return;
        }
        let destination = ServiceAccountRef::new(dest.namespace_or(ns), &dest.name);
        let sources = tt
            .sources()
            .iter()
            .filter(|s| s.kind == SERVICE_ACCOUNT)
            .map(|s| ServiceAccountRef::new(s.namespace_or(ns), &s.name))
            .collect();
        let mut target = CompiledTarget {
            reference: me.clone(),
            sources,
            destination_port: dest.port,
            http: Vec::new(),
            tcp: Vec::new(),
            udp: Vec::new(),
        };
        for (i, rule) in tt.rules().iter().enumerate() {
            let field = format!(
                "{}[{i}]",
                if tt.spec.is_some() {
                    "spec.rules"
                } else {
                    "specs"
                }
            );
            match &rule.kind {
                RuleKind::HttpRouteGroup => {
                    let Some(group) = snapshot.http_route_group(ns, &rule.name) else {
                        self.report.push(
                            Severity::Note,
                            &me,
                            field,
                            format!(
                                "HTTPRouteGroup {ns}/{} not found: the rule admits nothing",
                                rule.name
                            ),
                        );
                        continue;
                    };
                    let mut matches = Vec::new();
                    let wanted: Vec<&str> = if rule.matches.is_empty() {
                        group.matches().iter().map(|m| m.name.as_str()).collect()
                    } else {
                        rule.matches.iter().map(String::as_str).collect()
                    };
                    for name in wanted {
                        match group.match_named(name).map(CompiledMatch::compile) {
                            Some(Ok(c)) => matches.push(c),
                            Some(Err(e)) => self.report.push(
                                Severity::Note,
                                &me,
                                field.clone(),
                                format!("match {name:?} of HTTPRouteGroup {ns}/{}: {e}; it admits nothing", rule.name),
                            ),
                            None => self.report.push(
                                Severity::Note,
                                &me,
                                format!("{field}.matches"),
                                format!("HTTPRouteGroup {ns}/{} has no match {name:?}: it admits nothing", rule.name),
                            ),
                        }
                    }
                    target.http.push(HttpRule {
                        group: rule.name.clone(),
                        matches,
                    });
                }
                RuleKind::TcpRoute => match snapshot.smi_tcp_route(ns, &rule.name) {
                    Some(r) => target.tcp.push(port_rule(&rule.name, r.ports())),
                    None => self.report.push(
                        Severity::Note,
                        &me,
                        field,
                        format!(
                            "TCPRoute {ns}/{} not found: the rule admits nothing",
                            rule.name
                        ),
                    ),
                },
                RuleKind::UdpRoute => match snapshot.smi_udp_route(ns, &rule.name) {
                    Some(r) => target.udp.push(port_rule(&rule.name, r.ports())),
                    None => self.report.push(
                        Severity::Note,
                        &me,
                        field,
                        format!(
                            "UDPRoute {ns}/{} not found: the rule admits nothing",
                            rule.name
                        ),
                    ),
                },
                RuleKind::Unknown(k) => self.report.push(
                    Severity::Note,
                    &me,
                    format!("{field}.kind"),
                    format!("unknown rule kind {k:?}: the rule admits nothing"),
                ),
            }
        }
        self.by_destination
            .entry(destination)
            .or_default()
            .push(target);
    }

    /// Whether `source` may send `request` to `destination`, and why.
    pub fn authorize(
        &self,
        source: &ServiceAccountRef,
        destination: &ServiceAccountRef,
        request: &AccessRequest,
    ) -> AccessDecision {
        let targets = self.by_destination.get(destination).map_or(&[][..], |v| v);
        if targets.is_empty() {
            return AccessDecision {
                allowed: true,
                by: None,
                explanation: format!(
                    "no TrafficTarget selects ServiceAccount {destination}: SMI access control does \
                     not apply to it, so {request} from {source} is allowed"
                ),
            };
        }
        let mut reasons = Vec::with_capacity(targets.len());
        for t in targets {
            match t.admits(source, request) {
                Ok(how) => {
                    return AccessDecision {
                        allowed: true,
                        by: Some(t.reference.clone()),
                        explanation: format!(
                            "{} allows {source} to send {request} to {destination} ({how})",
                            t.reference
                        ),
                    };
                }
                Err(why) => reasons.push(format!("{}: {why}", t.reference)),
            }
        }
        AccessDecision {
            allowed: false,
            by: None,
            explanation: format!(
                "denied by default: {} TrafficTarget(s) select {destination} and none allows {request} \
                 from {source} — {}",
                targets.len(),
                reasons.join("; ")
            ),
        }
    }
}

fn port_rule(name: &str, ports: &[i32]) -> PortRule {
    PortRule {
        name: name.to_owned(),
        ports: (!ports.is_empty()).then(|| ports.iter().copied().collect()),
    }
}

impl CompiledTarget {
    /// `Ok(which rule)` when this target admits the request, `Err(why not)` otherwise.
    fn admits(
        &self,
        source: &ServiceAccountRef,
        request: &AccessRequest,
    ) -> Result<String, String> {
        if !self.sources.contains(source) {
            return Err(format!("{source} is not among its sources"));
        }
        let port = request.port();
        if let Some(p) = self.destination_port
            && port != Some(p)
        {
            return Err(match port {
                Some(q) => format!("it only allows port {p}, not {q}"),
                None => format!("it only allows port {p} and the request's port is unknown"),
            });
        }
        let port_ok = |rules: &[PortRule], kind: &str| -> Result<String, String> {
            rules
                .iter()
                .find(|r| r.admits(port))
                .map(|r| format!("{kind} {}", r.name))
                .ok_or_else(|| match port {
                    Some(p) => format!("no {kind} rule admits port {p}"),
                    None => {
                        format!("its {kind} rules list ports and the request's port is unknown")
                    }
                })
        };
        match request {
            AccessRequest::Tcp { .. } if self.tcp.is_empty() => {
                Err("it has no TCPRoute rule".into())
            }
            AccessRequest::Tcp { .. } => port_ok(&self.tcp, "TCPRoute"),
            AccessRequest::Udp { .. } if self.udp.is_empty() => {
                Err("it has no UDPRoute rule".into())
            }
            AccessRequest::Udp { .. } => port_ok(&self.udp, "UDPRoute"),
            AccessRequest::Http { request: http, .. } => {
                let tcp = if self.tcp.is_empty() {
                    None
                } else {
                    Some(port_ok(&self.tcp, "TCPRoute")?)
                };
                if self.http.is_empty() {
                    return tcp
                        .ok_or_else(|| "it has no HTTPRouteGroup or TCPRoute rule".to_owned());
                }
                let hit = self.http.iter().find_map(|rule| {
                    rule.matches
                        .iter()
                        .find(|m| m.admits(http))
                        .map(|m| format!("HTTPRouteGroup {} match {:?}", rule.group, m.name))
                });
                match (hit, tcp) {
                    (Some(h), Some(t)) => Ok(format!("{h}, on a port {t} admits")),
                    (Some(h), None) => Ok(h),
                    (None, _) => Err(format!(
                        "no HTTPRouteGroup match admits {} {}",
                        http.method, http.path
                    )),
                }
            }
        }
    }
}
