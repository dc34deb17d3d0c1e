//! Read-only access to the compiled table by frontend: which Service port or Gateway listener a
//! route set belongs to, where a Service backend is bound, and whose namespace a frontend is.
//!
//! This is the one module (beside the resolve path) that reads the table's internal layout for
//! chains and views: when the table's layout changes, this file changes with it.

mod shadow;

use std::net::IpAddr;

use schemars::JsonSchema;
use serde::Serialize;

use crate::decision::{BackendTarget, Mirror, RouteRef, RuleRef};
use crate::index::HostIndex;
use crate::input::{HeaderEdits, L4, PathModifierIr};
use crate::table::{
    Action, BackendState, Binding, Excluded, ExcludedWhy, ParentIx, Part, RouteSet, RouteTable,
    RuleEntry, SetLabel,
};

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
    /// Routes that named the Service as parent but are in none of its route sets, being
    /// invalid as a whole (`HTTPRoute ns/x was left out: <error>`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<&'t str>,
    /// Routes that named this Service, Gateway (or one of its ListenerSets) as parent but
    /// that the parent did not accept, with the `Accepted=False` reason: no Service port or
    /// listener matches the parentRef, no listener admits the route, no hostname intersects,
    /// or every rule is invalid. Ordered by parent, then route.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_accepted: Vec<ExcludedView<'t>>,
}

/// One route set: what a proxy programs for one frontend and one kind of client.
///
/// Each route kind has its own list, in the order a request of that kind tries them. A
/// request carried over TCP tries, by protocol: gRPC, the `grpc` entries (on a Gateway
/// listener, then the `http` entries: Gateway API GRPCRoute cross serving); HTTP, the `http`
/// entries; TLS, the `tls` entries; then `tcp` (a request no HTTP entry takes fails, it never
/// falls through to `tcp`). UDP: `udp`.
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
    /// The HTTPRoute matches in the order a request tries them (hostname groups most
    /// specific first, then Gateway API match precedence): the first whose hostname and
    /// conditions hold decides.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub http: Vec<EntryView<'t>>,
    /// The GRPCRoute matches, in the same order (Gateway API GRPCRoute match precedence).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub grpc: Vec<EntryView<'t>>,
    /// The TLSRoute hostnames (SNI), most specific first; among entries of one hostname the
    /// first (the oldest route) takes the connection.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tls: Vec<EntryView<'t>>,
    /// The TCPRoute rule that takes every TCP connection (the oldest route's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<RuleView<'t>>,
    /// The UDPRoute rule that takes every UDP datagram (the oldest route's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub udp: Option<RuleView<'t>>,
    /// Routes and rules attached to this frontend that are not in the set, or that no
    /// request reaches (shadowed), and why: ordered by route (kind, namespace, name), then
    /// rule.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<ExcludedView<'t>>,
}

/// A hostname group: an exact name or a wildcard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HostView<'t> {
    /// An exact hostname (lower-case).
    Exact(&'t str),
    /// A wildcard, by its suffix with the leading dot (`.example.com` for `*.example.com`):
    /// matches names with at least one more label.
    Wildcard(&'t str),
}

impl HostView<'_> {
    /// Whether a request hostname (lower-case, no port) is in the group.
    pub fn matches(&self, host: &str) -> bool {
        match self {
            Self::Exact(h) => *h == host,
            Self::Wildcard(suffix) => host.len() > suffix.len() && host.ends_with(suffix),
        }
    }
}

impl std::fmt::Display for HostView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Exact(h) => f.write_str(h),
            Self::Wildcard(suffix) => write!(f, "*{suffix}"),
        }
    }
}

impl Serialize for HostView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A path condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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

/// A gRPC service or method condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct NameView<'t> {
    /// `true` for `RegularExpression` (a full match), `false` for `Exact`.
    pub regex: bool,
    /// The name or pattern.
    pub value: &'t str,
}

/// What one entry matches on, besides its hostname group.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum MatchView<'t> {
    /// An HTTPRouteMatch: all conditions must hold.
    #[serde(rename_all = "camelCase")]
    Http {
        /// The path condition.
        path: PathView<'t>,
        /// The method condition.
        #[serde(skip_serializing_if = "Option::is_none")]
        method: Option<&'t str>,
        /// Header conditions (first value of a repeated header).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        headers: Vec<ValueView<'t>>,
        /// Query parameter conditions (first value of a repeated parameter).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        query: Vec<ValueView<'t>>,
    },
    /// A GRPCRouteMatch on the request's `/service/method` path: all conditions must hold
    /// (an absent condition matches any, but a request without a service/method path
    /// matches only entries with neither).
    #[serde(rename_all = "camelCase")]
    Grpc {
        /// The service condition.
        #[serde(skip_serializing_if = "Option::is_none")]
        service: Option<NameView<'t>>,
        /// The method condition.
        #[serde(skip_serializing_if = "Option::is_none")]
        method: Option<NameView<'t>>,
        /// Header conditions (first value of a repeated header).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        headers: Vec<ValueView<'t>>,
    },
    /// A TLSRoute: the SNI hostname only (the entry's hostname group).
    Sni,
}

/// A path modifier of a rewrite or redirect (Gateway API HTTPPathModifier).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum PathModifierView<'t> {
    /// `ReplaceFullPath`.
    #[serde(rename_all = "camelCase")]
    ReplaceFullPath {
        /// The new path.
        path: &'t str,
    },
    /// `ReplacePrefixMatch`: the rule's matched `PathPrefix` is replaced.
    #[serde(rename_all = "camelCase")]
    ReplacePrefixMatch {
        /// The prefix the rule matches (`/` when not kept: any prefix).
        matched_prefix: &'t str,
        /// Its replacement.
        replacement: &'t str,
    },
}

/// A `URLRewrite` filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RewriteView<'t> {
    /// The new Host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<&'t str>,
    /// The path modifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathModifierView<'t>>,
}

/// The filters of a rule or backendRef, as data (borrowed from the table).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FiltersView<'t> {
    /// `RequestHeaderModifier`.
    #[serde(skip_serializing_if = "HeaderEdits::is_empty")]
    pub request_headers: &'t HeaderEdits,
    /// `ResponseHeaderModifier`.
    #[serde(skip_serializing_if = "HeaderEdits::is_empty")]
    pub response_headers: &'t HeaderEdits,
    /// `URLRewrite`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<RewriteView<'t>>,
    /// `RequestMirror`s.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub mirrors: &'t [Mirror],
    /// `CORS`, as the route wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cors: Option<&'t serde_json::Value>,
    /// The rule's `timeouts`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeouts: Option<&'t serde_json::Value>,
    /// The rule's `retry`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<&'t serde_json::Value>,
    /// `ExtensionRef` filters (`group/kind/name`).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub extensions: &'t [String],
}

impl FiltersView<'_> {
    /// No filter, timeout or retry.
    pub fn is_empty(&self) -> bool {
        self.request_headers.is_empty()
            && self.response_headers.is_empty()
            && self.rewrite.is_none()
            && self.mirrors.is_empty()
            && self.cors.is_none()
            && self.timeouts.is_none()
            && self.retry.is_none()
            && self.extensions.is_empty()
    }
}

/// A backendRef of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
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
    /// The backendRef's own filters.
    #[serde(skip_serializing_if = "FiltersView::is_empty")]
    pub filters: FiltersView<'t>,
}

/// What a matching rule does.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum ActionView<'t> {
    /// Forward to the backends by weight.
    Backends {
        /// The backendRefs, in rule order.
        backends: Vec<BackendView<'t>>,
    },
    /// Redirect (`RequestRedirect`).
    #[serde(rename_all = "camelCase")]
    Redirect {
        /// The status code.
        status: u16,
        /// The new scheme.
        #[serde(skip_serializing_if = "Option::is_none")]
        scheme: Option<crate::request::Scheme>,
        /// The new hostname.
        #[serde(skip_serializing_if = "Option::is_none")]
        hostname: Option<&'t str>,
        /// The new port.
        #[serde(skip_serializing_if = "Option::is_none")]
        port: Option<u16>,
        /// The path modifier.
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<PathModifierView<'t>>,
    },
    /// Answer with an error.
    Fail {
        /// Why.
        reason: crate::decision::RespondReason,
    },
}

/// A rule and what it does.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RuleView<'t> {
    /// The rule.
    pub rule: RuleRef<'t>,
    /// Its filters, timeouts and retry.
    #[serde(skip_serializing_if = "FiltersView::is_empty")]
    pub filters: FiltersView<'t>,
    /// What it does.
    pub action: ActionView<'t>,
}

/// One (rule, match, hostname group) of a route set.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EntryView<'t> {
    /// The rule.
    pub rule: RuleRef<'t>,
    /// Index of the match in the rule.
    pub match_index: u16,
    /// The hostname group the entry is in (`None`: any host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<HostView<'t>>,
    /// What the entry matches on.
    #[serde(rename = "match")]
    pub condition: MatchView<'t>,
    /// The rule's filters, timeouts and retry.
    #[serde(skip_serializing_if = "FiltersView::is_empty")]
    pub filters: FiltersView<'t>,
    /// What the rule does.
    pub action: ActionView<'t>,
    /// The candidate (explanations check its conditions).
    #[serde(skip)]
    pub(crate) cand: u32,
}

/// Why a route or rule attached to a frontend is not in its route set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum ExclusionView<'t> {
    /// The rule failed validation and was dropped (the route's `PartiallyInvalid`
    /// condition, Gateway API RouteConditionType).
    #[serde(rename_all = "camelCase")]
    RuleInvalid {
        /// The upstream reason.
        reason: &'t str,
        /// What is wrong.
        message: &'t str,
    },
    /// Another route kind won the Service port (GEP-1294 route types: GRPCRoute >
    /// HTTPRoute > TLSRoute > TCPRoute); `None`: no kind has usable routes.
    #[serde(rename_all = "camelCase")]
    LostToKind {
        /// The kind in force.
        #[serde(skip_serializing_if = "Option::is_none")]
        winner: Option<gamma_model::RouteKind>,
    },
    /// The parent did not accept the route (`Accepted=False`, Gateway API
    /// RouteConditionReason).
    #[serde(rename_all = "camelCase")]
    NotAccepted {
        /// The upstream reason (`NoMatchingParent`, `NotAllowedByListeners`,
        /// `NoMatchingListenerHostname`, or the reason of an invalid rule).
        reason: &'t str,
        /// Why, for people.
        message: &'t str,
    },
    /// Attached and accepted, but an earlier entry takes everything this one would (Gateway
    /// API route conflict resolution: the oldest route, then namespace/name, then the first
    /// rule). A TCPRoute or UDPRoute (the whole route, no hostname): every connection goes to
    /// the oldest route's rule (TCPRoute reference, "Merging"). A TLSRoute (the whole route,
    /// on one SNI hostname group): an older route has the same hostname. An HTTPRoute or
    /// GRPCRoute rule (`rule` set; one exclusion per hostname group and shadowing rule):
    /// every match of the rule comes after the same match, on the same hostname group, of
    /// an older route or an earlier rule.
    #[serde(rename_all = "camelCase")]
    Shadowed {
        /// The hostname group it is shadowed on (`None`: any host, or no hostnames at all
        /// for TCP and UDP).
        #[serde(skip_serializing_if = "Option::is_none")]
        hostname: Option<HostView<'t>>,
        /// The rule that takes the traffic.
        by: RuleRef<'t>,
    },
}

/// A route or rule left out of a route set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ExcludedView<'t> {
    /// The route.
    pub route: RouteRef<'t>,
    /// The rule index; `None`: the whole route.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<u16>,
    /// Why.
    pub reason: ExclusionView<'t>,
}

impl std::fmt::Display for ExcludedView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.route)?;
        if let Some(i) = self.rule {
            write!(f, " rule {i}")?;
        }
        match self.reason {
            ExclusionView::RuleInvalid { reason, message } => {
                write!(f, " was dropped ({reason}): {message}")
            }
            ExclusionView::LostToKind { winner: Some(k) } => write!(
                f,
                " is not bound: a {k} is attached to the same Service port and takes precedence"
            ),
            ExclusionView::LostToKind { winner: None } => {
                f.write_str(" is not bound: another kind takes the Service port")
            }
            ExclusionView::Shadowed { hostname, by } => {
                let on = |f: &mut std::fmt::Formatter<'_>| match hostname {
                    Some(h) => write!(f, " is shadowed on hostname {h}:"),
                    None => f.write_str(" is shadowed:"),
                };
                match self.route.kind {
                    gamma_model::RouteKind::Tcp | gamma_model::RouteKind::Udp => {
                        write!(f, " is shadowed: {by} takes every connection")
                    }
                    gamma_model::RouteKind::Tls => {
                        on(f)?;
                        write!(f, " {by} is older and takes those connections")
                    }
                    gamma_model::RouteKind::Http | gamma_model::RouteKind::Grpc => {
                        on(f)?;
                        write!(f, " {by} has the same matches and takes precedence")
                    }
                }
            }
            ExclusionView::NotAccepted { reason, message } => {
                write!(f, " is not accepted ({reason}): {message}")
            }
        }
    }
}

impl RouteTable {
    /// [`RouteTable::view`].
    pub(crate) fn binding_views(&self) -> Vec<BindingView<'_>> {
        let mut keys: Vec<_> = self.bindings.iter().collect();
        keys.sort_unstable_by_key(|(k, _)| **k);
        keys.into_iter()
            .map(|(&(address, port, transport), (part, binding))| {
                let part: &Part = part;
                let (sets, left_out, not_accepted) = match binding {
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
                        let not_accepted = part.not_accepted_of(ParentIx::Service(*service));
                        (sets, left_out, not_accepted)
                    }
                    // a ready endpoint of several headless Services: none of their sets
                    // serves it (requests get WorkloadConflict)
                    Binding::Conflict { .. } => (Vec::new(), Vec::new(), Vec::new()),
                    Binding::Gateway { gateway, listeners } => {
                        let mut parents = vec![ParentIx::Gateway(*gateway)];
                        for l in listeners.iter() {
                            if let Some(SetLabel::ListenerSetListener { listener_set, .. }) =
                                part.sets.get(l.set as usize).map(|s| &s.label)
                            {
                                parents.push(ParentIx::ListenerSet(*listener_set));
                            }
                        }
                        parents.sort_unstable();
                        parents.dedup();
                        let not_accepted = parents
                            .into_iter()
                            .flat_map(|p| part.not_accepted_of(p))
                            .collect();
                        let sets = listeners
                            .iter()
                            .filter_map(|l| {
                                part.set_view(part.sets.get(l.set as usize)?, l.hostname.as_deref())
                            })
                            .collect();
                        (sets, Vec::new(), not_accepted)
                    }
                };
                BindingView {
                    address,
                    port,
                    transport: if transport == L4::Udp { "UDP" } else { "TCP" },
                    sets,
                    left_out,
                    not_accepted,
                }
            })
            .collect()
    }
}

/// The hostname groups of an index in the order `HostIndex::find` tries them: exact names,
/// wildcards by longer suffix, then any host (names sorted among equals: the maps' order
/// depends on `BuildOptions::hash_seed`, a view's must not).
fn host_groups<G>(h: &HostIndex<G>) -> Vec<(Option<HostView<'_>>, &G)> {
    let mut out: Vec<(Option<HostView<'_>>, &G)> = Vec::new();
    if let Some(n) = h.named.as_deref() {
        let mut exact: Vec<_> = n.exact.iter().collect();
        exact.sort_by_key(|(k, _)| *k);
        let mut wild: Vec<_> = n.wild.iter().collect();
        wild.sort_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        out.extend(
            exact
                .into_iter()
                .map(|(k, g)| (Some(HostView::Exact(k)), g)),
        );
        out.extend(
            wild.into_iter()
                .map(|(k, g)| (Some(HostView::Wildcard(k)), g)),
        );
    }
    out.extend(h.any.iter().map(|g| (None, g)));
    out
}

/// The exact service and method names a gRPC candidate is indexed under.
type GrpcNames<'t> = (Option<&'t str>, Option<&'t str>);

impl Part {
    /// The view of one of this part's route sets.
    pub(crate) fn set_view<'t>(
        &'t self,
        set: &'t RouteSet,
        listener_hostname: Option<&'t str>,
    ) -> Option<SetView<'t>> {
        let (frontend, route_set) = self.set_frontend(set)?;
        let mut http = Vec::new();
        if let Some(h) = &set.http {
            for (hostname, pi) in host_groups(h) {
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
                self.sort_cands(&mut cands);
                http.extend(cands.into_iter().filter_map(|(c, path)| {
                    let cand = self.cands.get(c as usize)?;
                    let cond = self.cond_of(cand);
                    let condition = MatchView::Http {
                        path,
                        method: match cand.method {
                            0 => None,
                            m => self.methods.get(usize::from(m)).map(|m| &**m),
                        },
                        headers: cond.map(|c| self.values(&c.headers)).unwrap_or_default(),
                        query: cond.map(|c| self.values(&c.query)).unwrap_or_default(),
                    };
                    self.entry_view(c, hostname, condition)
                }));
            }
        }
        let mut grpc = Vec::new();
        if let Some(g) = &set.grpc {
            for (hostname, gi) in host_groups(g) {
                let mut cands: Vec<(u32, GrpcNames<'t>)> = Vec::new();
                for (k, list) in &gi.both {
                    let (s, m) = k.split_once('/').unwrap_or((k, ""));
                    cands.extend(list.iter().map(|c| (*c, (Some(s), Some(m)))));
                }
                for (k, list) in &gi.service {
                    cands.extend(list.iter().map(|c| (*c, (Some(&**k), None))));
                }
                for (k, list) in &gi.method {
                    cands.extend(list.iter().map(|c| (*c, (None, Some(&**k)))));
                }
                cands.extend(gi.rest.iter().map(|c| (*c, (None, None))));
                self.sort_cands(&mut cands);
                grpc.extend(cands.into_iter().filter_map(|(c, (s, m))| {
                    let cand = self.cands.get(c as usize)?;
                    let cond = self.cond_of(cand);
                    let name = |exact: Option<&'t str>, regex: Option<u32>| match (exact, regex) {
                        (Some(v), _) => Some(NameView {
                            regex: false,
                            value: v,
                        }),
                        (None, Some(i)) => Some(NameView {
                            regex: true,
                            value: self.regex_text(i),
                        }),
                        (None, None) => None,
                    };
                    let condition = MatchView::Grpc {
                        service: name(s, cond.and_then(|c| c.service_regex)),
                        method: name(m, cond.and_then(|c| c.method_regex)),
                        headers: cond.map(|c| self.values(&c.headers)).unwrap_or_default(),
                    };
                    self.entry_view(c, hostname, condition)
                }));
            }
        }
        let mut tls = Vec::new();
        if let Some(t) = &set.tls {
            for (hostname, list) in host_groups(t) {
                tls.extend(
                    list.iter()
                        .filter_map(|&c| self.entry_view(c, hostname, MatchView::Sni)),
                );
            }
        }
        let rule_view = |id: Option<u32>| {
            let rule = self.rules.get(id? as usize)?;
            Some(RuleView {
                rule: self.rule_ref(rule),
                filters: self.filters_view(rule.extras, Some(rule)),
                action: self.action_view(rule),
            })
        };
        let mut excluded: Vec<ExcludedView<'t>> = set
            .excluded
            .iter()
            .filter_map(|e| self.excluded_view(e))
            .collect();
        let facts = |e: &EntryView<'t>| self.keys.get(e.cand as usize).map_or(0, |k| k.facts());
        shadow::rules(&http, facts, &mut excluded);
        shadow::rules(&grpc, facts, &mut excluded);
        shadow::tls(&tls, &mut excluded);
        // by route (kind, namespace, name), then rule; stable: a rule's shadows stay in the
        // order of the list
        excluded.sort_by(|a, b| {
            let key =
                |x: &ExcludedView<'t>| (x.route.kind, x.route.namespace, x.route.name, x.rule);
            key(a).cmp(&key(b))
        });
        Some(SetView {
            frontend,
            route_set,
            listener_hostname,
            route_kind: set.mesh_kind,
            http,
            grpc,
            tls,
            tcp: rule_view(set.tcp),
            udp: rule_view(set.udp),
            excluded,
        })
    }

    /// Candidates in precedence order (the candidate id breaks ties, as the index does).
    fn sort_cands<T>(&self, cands: &mut [(u32, T)]) {
        cands.sort_by_key(|(c, _)| (self.keys.get(*c as usize).map_or(0, |k| k.0), *c));
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

    fn path_modifier<'t>(
        &'t self,
        m: &'t PathModifierIr,
        rule: Option<&'t RuleEntry>,
    ) -> PathModifierView<'t> {
        match m {
            PathModifierIr::Full(p) => PathModifierView::ReplaceFullPath { path: p },
            PathModifierIr::Prefix(r) => PathModifierView::ReplacePrefixMatch {
                matched_prefix: rule
                    .and_then(|rule| self.extras_of(rule.extras).prefix.as_deref())
                    .unwrap_or("/"),
                replacement: r,
            },
        }
    }

    /// The filters at an extras index; `rule` is the rule they belong to (or whose backendRef
    /// they are on), for the prefix a `ReplacePrefixMatch` replaces.
    fn filters_view<'t>(&'t self, extras: u32, rule: Option<&'t RuleEntry>) -> FiltersView<'t> {
        let x = self.extras_of(extras);
        FiltersView {
            request_headers: &x.request_headers,
            response_headers: &x.response_headers,
            rewrite: x.rewrite.as_ref().map(|rw| RewriteView {
                hostname: rw.hostname.as_deref(),
                path: rw.path.as_ref().map(|m| self.path_modifier(m, rule)),
            }),
            mirrors: &x.mirrors,
            cors: x.cors.as_ref(),
            timeouts: x.timeouts.as_ref(),
            retry: x.retry.as_ref(),
            extensions: &x.extensions,
        }
    }

    fn action_view<'t>(&'t self, rule: &'t RuleEntry) -> ActionView<'t> {
        match &rule.action {
            Action::Backends(..) => ActionView::Backends {
                backends: self
                    .backends_of(&rule.action)
                    .iter()
                    .filter_map(|b| {
                        let t = self.targets.get(b.target as usize)?;
                        Some(BackendView {
                            backend: crate::table::target(t),
                            weight: b.weight,
                            unusable: match b.state {
                                BackendState::Ok => None,
                                BackendState::NoEndpoints => Some("NoReadyEndpoints"),
                                BackendState::Invalid(r) => Some(r.as_str()),
                            },
                            filters: self.filters_view(b.extras, Some(rule)),
                        })
                    })
                    .collect(),
            },
            Action::Redirect(r) => ActionView::Redirect {
                status: r.status,
                scheme: r.scheme,
                hostname: r.hostname.as_deref(),
                port: r.port,
                path: r.path.as_ref().map(|m| self.path_modifier(m, Some(rule))),
            },
            Action::Fail(reason) => ActionView::Fail { reason: *reason },
        }
    }

    fn entry_view<'t>(
        &'t self,
        c: u32,
        hostname: Option<HostView<'t>>,
        condition: MatchView<'t>,
    ) -> Option<EntryView<'t>> {
        let cand = self.cands.get(c as usize)?;
        let rule = self.rules.get(cand.rule as usize)?;
        Some(EntryView {
            rule: self.rule_ref(rule),
            match_index: cand.match_index,
            hostname,
            condition,
            filters: self.filters_view(rule.extras, Some(rule)),
            action: self.action_view(rule),
            cand: c,
        })
    }

    /// The routes `parent` did not accept (a range of the sorted notes).
    pub(crate) fn not_accepted_of(&self, parent: ParentIx) -> Vec<ExcludedView<'_>> {
        let start = self.not_accepted.partition_point(|n| n.parent < parent);
        let end = self.not_accepted.partition_point(|n| n.parent <= parent);
        self.not_accepted
            .get(start..end)
            .unwrap_or(&[])
            .iter()
            .filter_map(|n| {
                let route = self.routes.get(n.route as usize)?;
                Some(ExcludedView {
                    route: RouteRef {
                        kind: route.kind,
                        namespace: self.route_namespace(route),
                        name: &route.name,
                    },
                    rule: None,
                    reason: ExclusionView::NotAccepted {
                        reason: n.reason,
                        message: n.message,
                    },
                })
            })
            .collect()
    }

    fn excluded_view<'t>(&'t self, e: &'t Excluded) -> Option<ExcludedView<'t>> {
        let route = self.routes.get(e.route as usize)?;
        let reason = match &e.why {
            ExcludedWhy::RuleInvalid(reason, message) => {
                ExclusionView::RuleInvalid { reason, message }
            }
            ExcludedWhy::LostToKind(winner) => ExclusionView::LostToKind { winner: *winner },
            ExcludedWhy::Shadowed(rule) => ExclusionView::Shadowed {
                hostname: None,
                by: self.rule_ref(self.rules.get(*rule as usize)?),
            },
        };
        Some(ExcludedView {
            route: RouteRef {
                kind: route.kind,
                namespace: self.route_namespace(route),
                name: &route.name,
            },
            rule: e.rule,
            reason,
        })
    }
}
