//! Read-only access to the compiled table by frontend: which Service port or Gateway listener a
//! route set belongs to, where a Service backend is bound, and whose namespace a frontend is.
//!
//! This is the one module (beside the resolve path) that reads the table's internal layout for
//! chains and views: when the table's layout changes, this file changes with it.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

use crate::decision::{BackendTarget, RuleRef};
use crate::input::HeaderEdits;
use crate::input::L4;
use crate::request::Protocol;
use crate::table::{Action, BackendState, Binding, Part, RouteSet, RouteTable, SetLabel, Target};

/// A frontend of the table: what a request binds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Frontend<'t> {
    /// A Service port: its cluster IPs × the port (GEP-1294 Service frontend).
    #[serde(rename_all = "camelCase")]
    Service {
        /// Namespace of the Service.
        namespace: &'t str,
        /// Name of the Service.
        name: &'t str,
        /// The Service port.
        port: u16,
    },
    /// A Gateway listener (Gateway API listener selection).
    #[serde(rename_all = "camelCase")]
    Listener {
        /// Namespace of the Gateway.
        namespace: &'t str,
        /// Name of the Gateway.
        gateway: &'t str,
        /// The listener's name.
        listener: &'t str,
    },
    /// A listener of a ListenerSet, served on its parent Gateway's addresses (GEP-1713).
    #[serde(rename_all = "camelCase")]
    ListenerSetListener {
        /// Namespace of the ListenerSet.
        namespace: &'t str,
        /// Name of the ListenerSet.
        listener_set: &'t str,
        /// Namespace of the parent Gateway.
        gateway_namespace: &'t str,
        /// Name of the parent Gateway.
        gateway: &'t str,
        /// The listener's name.
        listener: &'t str,
    },
}

impl Frontend<'_> {
    /// The namespace of the component that serves this frontend and makes the next call: the
    /// Service's, or the Gateway's (for a ListenerSet listener, its parent Gateway's: the
    /// Gateway is what forwards the request).
    pub fn namespace(&self) -> &str {
        match self {
            Self::Service { namespace, .. } | Self::Listener { namespace, .. } => namespace,
            Self::ListenerSetListener {
                gateway_namespace, ..
            } => gateway_namespace,
        }
    }
}

impl std::fmt::Display for Frontend<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Service {
                namespace,
                name,
                port,
            } => write!(f, "Service {namespace}/{name} port {port}"),
            Self::Listener {
                namespace,
                gateway,
                listener,
            } => write!(f, "listener {listener} of Gateway {namespace}/{gateway}"),
            Self::ListenerSetListener {
                namespace,
                listener_set,
                gateway_namespace,
                gateway,
                listener,
            } => write!(
                f,
                "listener {listener} of ListenerSet {namespace}/{listener_set} \
                 (Gateway {gateway_namespace}/{gateway})"
            ),
        }
    }
}

/// Which route set of a frontend applied (GEP-1294 namespace boundaries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum RouteSetKind<'t> {
    /// The producer routes of a Service (routes in the Service's namespace).
    Producer,
    /// The consumer routes of one client namespace.
    Consumer {
        /// The client namespace.
        namespace: &'t str,
    },
    /// The routes attached to a Gateway listener.
    Listener,
}

impl std::fmt::Display for RouteSetKind<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Producer => f.write_str("producer routes"),
            Self::Consumer { namespace } => write!(f, "consumer routes of namespace {namespace}"),
            Self::Listener => f.write_str("listener routes"),
        }
    }
}

/// A Service port by (namespace, name, port, transport).
type ServicePortKey = (Arc<str>, Box<str>, u16, L4);

/// Derived lookups over the table's bindings, built on first use (a resolver that never
/// traces never pays for them).
#[derive(Debug, Default)]
pub(crate) struct FrontendIndex {
    /// Every cluster IP of each bound Service port, by (namespace, name, port, transport),
    /// addresses sorted.
    service_ips: BTreeMap<ServicePortKey, Vec<IpAddr>>,
}

impl RouteTable {
    fn frontend_index(&self) -> &FrontendIndex {
        self.frontend_index.get_or_init(|| {
            let mut service_ips: BTreeMap<_, Vec<IpAddr>> = BTreeMap::new();
            for ((ip, _, l4), (part, binding)) in self.bindings.iter() {
                // a trace follows a backend to its Service's cluster IPs (a headless
                // Service's endpoints are on target ports, not the backendRef's port)
                if let Binding::Service {
                    service,
                    port,
                    workload: false,
                    ..
                } = binding
                    && let Some(svc) = part.services.get(*service as usize)
                {
                    let key = (
                        Arc::clone(&svc.namespace),
                        Box::from(part.text(svc.name)),
                        *port,
                        *l4,
                    );
                    service_ips.entry(key).or_default().push(*ip);
                }
            }
            for ips in service_ips.values_mut() {
                ips.sort_unstable();
            }
            FrontendIndex { service_ips }
        })
    }

    /// Where a backend is bound as a mesh frontend: the lowest cluster IP of its Service with
    /// routes on that port for `protocol`'s transport (every cluster IP of a Service port leads
    /// to the same route sets, so the choice only fixes what a trace shows). `None` for
    /// anything but a core Service with routes on that port.
    pub(crate) fn backend_frontend(&self, t: &Target, protocol: Protocol) -> Option<IpAddr> {
        if !t.group.is_empty() || &*t.kind != "Service" {
            return None;
        }
        let l4 = if protocol == Protocol::Udp {
            L4::Udp
        } else {
            L4::Tcp
        };
        let key: ServicePortKey = (
            Arc::clone(&t.namespace),
            Box::<str>::from(&*t.name),
            t.port?,
            l4,
        );
        self.frontend_index()
            .service_ips
            .get(&key)
            .and_then(|ips| ips.first().copied())
    }
}

impl Part {
    /// The frontend and route set kind one of this part's route sets belongs to.
    pub(crate) fn set_frontend<'t>(
        &'t self,
        set: &'t RouteSet,
    ) -> Option<(Frontend<'t>, RouteSetKind<'t>)> {
        match &set.label {
            SetLabel::None => None,
            SetLabel::Mesh {
                service,
                port,
                consumer,
            } => {
                let svc = self.services.get(*service as usize)?;
                Some((
                    Frontend::Service {
                        namespace: &svc.namespace,
                        name: self.text(svc.name),
                        port: *port,
                    },
                    match consumer {
                        Some(ns) => RouteSetKind::Consumer { namespace: ns },
                        None => RouteSetKind::Producer,
                    },
                ))
            }
            SetLabel::Listener { gateway, listener } => {
                let gw = self.gateways.get(*gateway as usize)?;
                Some((
                    Frontend::Listener {
                        namespace: &gw.namespace,
                        gateway: self.text(gw.name),
                        listener,
                    },
                    RouteSetKind::Listener,
                ))
            }
            SetLabel::ListenerSetListener {
                listener_set,
                gateway,
                listener,
            } => {
                let ls = self.listener_sets.get(*listener_set as usize)?;
                let gw = self.gateways.get(*gateway as usize)?;
                Some((
                    Frontend::ListenerSetListener {
                        namespace: &ls.namespace,
                        listener_set: self.text(ls.name),
                        gateway_namespace: &gw.namespace,
                        gateway: self.text(gw.name),
                        listener,
                    },
                    RouteSetKind::Listener,
                ))
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The table as data, for control planes that program proxies
// ---------------------------------------------------------------------------------------

/// One bound (address, port, transport) of the table and the route sets behind it
/// ([`RouteTable::view`]).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BindingView<'t> {
    /// The address (a Service cluster IP or a Gateway address).
    pub address: IpAddr,
    /// The port.
    pub port: u16,
    /// The transport: `TCP` (and everything carried over it) or `UDP`.
    pub transport: &'static str,
    /// The route sets: for a Service, its producer routes then each consumer namespace's (a
    /// request uses its namespace's consumer routes if there are any, else the producer
    /// routes, GEP-1294 namespace boundaries); for a Gateway, its listeners on the port, most
    /// specific hostname first (the first whose hostname matches serves the request, Gateway
    /// API listener selection).
    pub sets: Vec<SetView<'t>>,
    /// Routes that named the Service as parent but are not in the table, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<&'t str>,
}

/// One route set: what a proxy programs for one frontend and one kind of client.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SetView<'t> {
    /// The Service port or listener.
    pub frontend: Frontend<'t>,
    /// Producer, consumer (of which namespace) or listener routes.
    pub route_set: RouteSetKind<'t>,
    /// The listener's hostname, for a listener (`None`: any host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listener_hostname: Option<&'t str>,
    /// The route kind that won the Service port (GEP-1294: GRPCRoute > HTTPRoute > TLSRoute >
    /// TCPRoute); `None` on listeners, where kinds coexist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_kind: Option<gamma_model::RouteKind>,
    /// The HTTPRoute matches of the set in the order a request tries them (hostname groups
    /// most specific first, then Gateway API match precedence): the first whose hostname and
    /// conditions hold decides. Only HTTPRoute sets are listed so far.
    pub entries: Vec<EntryView<'t>>,
}

/// A path condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", content = "value")]
#[non_exhaustive]
pub enum PathView<'t> {
    /// `Exact`.
    Exact(&'t str),
    /// `PathPrefix`, normalised (no trailing `/`; `/` matches everything), matched by
    /// whole path segments.
    PathPrefix(&'t str),
    /// `RegularExpression`, as written (a full match).
    RegularExpression(&'t str),
}

/// A header or query parameter condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ValueView<'t> {
    /// The header name (lower-case) or query parameter name.
    pub name: &'t str,
    /// `true` for `RegularExpression` (a full match), `false` for `Exact`.
    pub regex: bool,
    /// The value or pattern.
    pub value: &'t str,
}

/// A backendRef of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BackendView<'t> {
    /// The backend.
    pub backend: BackendTarget<'t>,
    /// Its weight (its share is weight / sum).
    pub weight: u32,
    /// `None` when usable; else why its share is answered with an error (`BackendNotFound`,
    /// `RefNotPermitted`, `InvalidKind`, `UnsupportedProtocol`: 500; `NoReadyEndpoints`: 503).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unusable: Option<&'static str>,
}

/// What a matching rule does.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum ActionView<'t> {
    /// Forward to the backends by weight.
    Backends {
        /// The backendRefs, in rule order.
        backends: Vec<BackendView<'t>>,
    },
    /// Redirect (RequestRedirect).
    Redirect {
        /// The status code.
        status: u16,
    },
    /// Answer with an error.
    Fail {
        /// Why.
        reason: crate::RespondReason,
    },
}

/// One (rule, match, hostname group) of a route set.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EntryView<'t> {
    /// The rule.
    pub rule: RuleRef<'t>,
    /// Index of the match in the rule.
    pub match_index: u16,
    /// The hostname the entry is for (`*.example.com` for a wildcard; `None`: any host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// The path condition.
    pub path: PathView<'t>,
    /// The method condition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<&'t str>,
    /// Header conditions (all must hold; first value of a repeated header).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<ValueView<'t>>,
    /// Query parameter conditions (all must hold; first value of a repeated parameter).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub query: Vec<ValueView<'t>>,
    /// The rule's `RequestHeaderModifier`.
    #[serde(skip_serializing_if = "HeaderEdits::is_empty")]
    pub request_headers: &'t HeaderEdits,
    /// What the rule does.
    pub action: ActionView<'t>,
}

impl RouteTable {
    /// The compiled table as data: every bound (address, port, transport) in address order,
    /// its route sets and their HTTPRoute matches in the order a request tries them. Borrows
    /// from the table (strings and filters are not copied); allocates the lists. See
    /// `examples/examples/proxy-config.rs` for a proxy configuration built from it.
    pub fn view(&self) -> Vec<BindingView<'_>> {
        let mut keys: Vec<_> = self.bindings.iter().collect();
        keys.sort_unstable_by_key(|(k, _)| **k);
        keys.into_iter()
            .map(|(&(address, port, transport), (part, binding))| {
                let part: &Part = part;
                let (sets, left_out) = match binding {
                    Binding::Service {
                        service,
                        producer,
                        consumers,
                        ..
                    } => {
                        let ids = producer.iter().chain(consumers.iter().map(|(_, s)| s));
                        let left_out = part
                            .services
                            .get(*service as usize)
                            .map(|s| {
                                self.left_out_for_service(&s.namespace, part.text(s.name))
                                    .collect()
                            })
                            .unwrap_or_default();
                        let sets = ids
                            .filter_map(|s| part.set_view(part.sets.get(*s as usize)?, None))
                            .collect();
                        (sets, left_out)
                    }
                    // a ready endpoint of several headless Services: none of their sets
                    // serves it (requests get WorkloadConflict)
                    Binding::Conflict { .. } => (Vec::new(), Vec::new()),
                    Binding::Gateway { listeners, .. } => (
                        listeners
                            .iter()
                            .filter_map(|l| {
                                part.set_view(part.sets.get(l.set as usize)?, l.hostname.as_deref())
                            })
                            .collect(),
                        Vec::new(),
                    ),
                };
                BindingView {
                    address,
                    port,
                    transport: if transport == L4::Udp { "UDP" } else { "TCP" },
                    sets,
                    left_out,
                }
            })
            .collect()
    }
}

impl Part {
    fn set_view<'t>(
        &'t self,
        set: &'t RouteSet,
        listener_hostname: Option<&'t str>,
    ) -> Option<SetView<'t>> {
        let (frontend, route_set) = self.set_frontend(set)?;
        let mut entries = Vec::new();
        if let Some(h) = &set.http {
            let mut groups: Vec<_> = h.groups().collect();
            // the order `HostIndex::find` tries groups: exact names, wildcards by longer
            // suffix, then any host (names sorted among equals, for a deterministic view)
            groups.sort_by(|(a, _), (b, _)| {
                let rank = |h: &Option<String>| match h {
                    None => (2, 0),
                    Some(n) if n.starts_with('*') => (1, usize::MAX - n.len()),
                    Some(_) => (0, 0),
                };
                rank(a).cmp(&rank(b)).then_with(|| a.cmp(b))
            });
            for (hostname, pi) in groups {
                let mut cands: Vec<(u32, PathView<'t>)> = Vec::new();
                for (p, list) in self.paths.exact_keys(pi) {
                    cands.extend(list.iter().map(|c| (*c, PathView::Exact(p))));
                }
                for (p, list) in self.paths.prefix_keys(pi) {
                    let p = if p.is_empty() { "/" } else { p };
                    cands.extend(list.iter().map(|c| (*c, PathView::PathPrefix(p))));
                }
                for &c in self.paths.list(pi.regex_run()) {
                    let pattern = self
                        .cands
                        .get(c as usize)
                        .and_then(|x| self.cond_of(x))
                        .and_then(|x| x.path_regex)
                        .map_or("", |i| self.regex_text(i));
                    cands.push((c, PathView::RegularExpression(pattern)));
                }
                cands.sort_by_key(|(c, _)| (self.keys.get(*c as usize).map_or(0, |k| k.0), *c));
                entries.extend(
                    cands
                        .into_iter()
                        .filter_map(|(c, path)| self.entry_view(c, path, &hostname)),
                );
            }
        }
        Some(SetView {
            frontend,
            route_set,
            listener_hostname,
            route_kind: set.mesh_kind,
            entries,
        })
    }

    /// A regex of the pool as written (the pool compiles it anchored as `^(?:…)$`).
    fn regex_text(&self, i: u32) -> &str {
        self.regexes.get(i).map_or("", |re| {
            let s = re.as_str();
            s.strip_prefix("^(?:")
                .and_then(|s| s.strip_suffix(")$"))
                .unwrap_or(s)
        })
    }

    fn values<'t>(&'t self, list: &'t crate::cond::NamedMatches) -> Vec<ValueView<'t>> {
        list.iter()
            .map(|(name, m)| match m {
                crate::cond::ValueMatch::Exact(v) => ValueView {
                    name,
                    regex: false,
                    value: v,
                },
                crate::cond::ValueMatch::Regex(i) => ValueView {
                    name,
                    regex: true,
                    value: self.regex_text(*i),
                },
            })
            .collect()
    }

    fn entry_view<'t>(
        &'t self,
        c: u32,
        path: PathView<'t>,
        hostname: &Option<String>,
    ) -> Option<EntryView<'t>> {
        let cand = self.cands.get(c as usize)?;
        let rule = self.rules.get(cand.rule as usize)?;
        let cond = self.cond_of(cand);
        let action = match &rule.action {
            Action::Backends(..) => ActionView::Backends {
                backends: self
                    .backends_of(&rule.action)
                    .iter()
                    .filter_map(|b| {
                        let t = self.targets.get(b.target as usize)?;
                        Some(BackendView {
                            backend: crate::resolve::target(t),
                            weight: b.weight,
                            unusable: match b.state {
                                BackendState::Ok => None,
                                BackendState::NoEndpoints => Some("NoReadyEndpoints"),
                                BackendState::Invalid(r) => Some(r.as_str()),
                            },
                        })
                    })
                    .collect(),
            },
            Action::Redirect(r) => ActionView::Redirect { status: r.status },
            Action::Fail(reason) => ActionView::Fail { reason: *reason },
        };
        Some(EntryView {
            rule: self.rule_ref(rule),
            match_index: cand.match_index,
            hostname: hostname.clone(),
            path,
            method: match cand.method {
                0 => None,
                m => self.methods.get(usize::from(m)).map(|m| &**m),
            },
            headers: cond.map(|c| self.values(&c.headers)).unwrap_or_default(),
            query: cond.map(|c| self.values(&c.query)).unwrap_or_default(),
            request_headers: &self.extras_of(rule.extras).request_headers,
            action,
        })
    }
}
