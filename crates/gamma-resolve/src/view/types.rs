//! The view types: the table as data, borrowed from it, for control planes that program
//! proxies (`docs/view.md`).

use std::net::IpAddr;

use serde::Serialize;

use super::frontends::{Frontend, RouteSetKind};
use crate::decision::{BackendTarget, Mirror, RouteRef, RuleRef};
use crate::input::HeaderEdits;

// ---------------------------------------------------------------------------------------
// The table as data, for control planes that program proxies
// ---------------------------------------------------------------------------------------

/// One bound (address, port, transport) of the table and the route sets behind it
/// ([`RouteTable::view`](crate::RouteTable::view)).
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
    pub timeouts: Option<&'t crate::timing::RuleTimeouts>,
    /// The rule's `retry`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<&'t crate::timing::RetryPolicy>,
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
