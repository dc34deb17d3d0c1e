//! The compiled entries a [`RouteTable`](super::RouteTable) is made of: routes, rules,
//! candidates, backends, route sets and bindings, each a compact record in a table array.

use std::net::IpAddr;
use std::sync::Arc;

use crate::backend_tls::{BackendTls, PolicyAncestorRef};
use crate::decision::{BackendTarget, Mirror, RespondReason};
use crate::index::{GrpcIndex, HostIndex, PathIndex};
use crate::input::{HeaderEdits, PathModifierIr, RedirectIr};
use gamma_model::RouteKind;

// ---------------------------------------------------------------------------------------
// Compiled structures
// ---------------------------------------------------------------------------------------

/// A compiled route: 24 bytes (one per route weighs per rule when routes have one or two
/// rules each). Its rank is needed by the build only and stays in the builder.
#[derive(Debug)]
pub(crate) struct RouteInfo {
    /// Boxed, not a [`NameRef`]: every decision borrows it, and slicing the shared buffer
    /// would read (and miss on) its bytes for the char-boundary checks on the resolve path.
    pub(crate) name: Box<str>,
    /// Index into [`RouteTable::namespaces`] (namespaces repeat across routes).
    pub(crate) namespace: u32,
    pub(crate) kind: RouteKind,
}

/// A string in [`RouteTable::names`] (start, length): Service and Gateway names (read by
/// explanations only) in one buffer instead of an allocation each.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NameRef(pub(crate) u32, pub(crate) u32);

/// The text of a name in a names buffer.
pub(crate) fn name_text(names: &str, n: NameRef) -> &str {
    let start = n.0 as usize;
    names.get(start..start + n.1 as usize).unwrap_or("")
}

/// Validity of a backendRef, decided at build time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BackendState {
    Ok,
    NoEndpoints,
    /// Invalid, with the `ResolvedRefs` reason.
    Invalid(InvalidRef),
}

/// A route left out of the table (invalid as a whole) and a Service parent it named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeftOut {
    /// The route left out: (kind, namespace, name).
    pub(crate) route: (RouteKind, Box<str>, Box<str>),
    /// The parent the route named: a Service, or a Gateway (also for a ListenerSet parent).
    pub(crate) namespace: Box<str>,
    pub(crate) name: Box<str>,
    /// Whether the parent is a Service (found by [`crate::RouteTable::left_out_for_service`]).
    pub(crate) service: bool,
    /// The Service's cluster IPs or the Gateway's addresses, so a request to one finds the
    /// note.
    pub(crate) ips: Box<[IpAddr]>,
    /// `HTTPRoute ns/x was left out: <error>`.
    pub(crate) text: Box<str>,
}

/// `ResolvedRefs=False` reasons of a backendRef (Gateway API HTTPRouteRule.backendRefs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InvalidRef {
    InvalidKind,
    RefNotPermitted,
    BackendNotFound,
    UnsupportedProtocol,
}

impl InvalidRef {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::InvalidKind => "InvalidKind",
            Self::RefNotPermitted => "RefNotPermitted",
            Self::BackendNotFound => "BackendNotFound",
            Self::UnsupportedProtocol => "UnsupportedProtocol",
        }
    }
}

/// Strings are interned (`Arc<str>`): namespaces, kinds and backend names repeat across
/// thousands of rules and cost one allocation each per table, not per rule.
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) group: Arc<str>,
    pub(crate) kind: Arc<str>,
    pub(crate) namespace: Arc<str>,
    pub(crate) name: Arc<str>,
    pub(crate) port: Option<u16>,
    /// The BackendTLSPolicy in effect: index into [`RouteTable::backend_tls`].
    pub(crate) tls: Option<u32>,
}

#[derive(Debug)]
pub(crate) struct BackendEntry {
    pub(crate) weight: u32,
    pub(crate) state: BackendState,
    /// Index into [`RouteTable::targets`] (interned: identical backendRefs share one entry).
    pub(crate) target: u32,
    /// Filters of the backendRef (header modifiers, rewrite): index into
    /// [`RouteTable::extras`], 0 for none (most have none). 16 bytes per backend.
    pub(crate) extras: u32,
}

/// Everything a rule or backendRef carries besides matching and backends. Boxed and absent
/// for the common case of a rule without filters, timeouts or retries (memory per rule).
#[derive(Debug, Default)]
pub(crate) struct Extras {
    pub(crate) request_headers: HeaderEdits,
    pub(crate) response_headers: HeaderEdits,
    pub(crate) rewrite: Option<RewriteC>,
    pub(crate) mirrors: Vec<Mirror>,
    pub(crate) cors: Option<serde_json::Value>,
    pub(crate) timeouts: Option<crate::timing::RuleTimeouts>,
    pub(crate) retry: Option<crate::timing::RetryPolicy>,
    pub(crate) extensions: Vec<String>,
    /// The rule's single `PathPrefix` value, kept only when a `ReplacePrefixMatch` needs it.
    pub(crate) prefix: Option<Box<str>>,
}

pub(crate) static NO_EXTRAS: Extras = Extras {
    request_headers: HeaderEdits::new(),
    response_headers: HeaderEdits::new(),
    rewrite: None,
    mirrors: Vec::new(),
    cors: None,
    timeouts: None,
    retry: None,
    extensions: Vec::new(),
    prefix: None,
};

impl Extras {
    pub(crate) fn is_empty(&self) -> bool {
        self.request_headers.is_empty()
            && self.response_headers.is_empty()
            && self.rewrite.is_none()
            && self.mirrors.is_empty()
            && self.cors.is_none()
            && self.timeouts.is_none()
            && self.retry.is_none()
            && self.extensions.is_empty()
            && self.prefix.is_none()
    }
}

#[derive(Debug, Clone)]
pub(crate) struct RewriteC {
    pub(crate) hostname: Option<Box<str>>,
    pub(crate) path: Option<PathModifierIr>,
}

#[derive(Debug)]
pub(crate) enum Action {
    Redirect(Box<RedirectIr>),
    /// A run (start, length) of [`RouteTable::backends`]: one array for every rule's
    /// backends instead of a boxed slice per rule.
    Backends(u32, u32),
    Fail(RespondReason),
}

/// A compiled rule: 32 bytes; names, extras and backends live in table arrays.
#[derive(Debug)]
pub(crate) struct RuleEntry {
    pub(crate) route: u32,
    pub(crate) index: u16,
    /// Index into [`RouteTable::rule_names`]; 0 = unnamed.
    pub(crate) name: u32,
    /// Index into [`RouteTable::extras`]; 0 = none.
    pub(crate) extras: u32,
    pub(crate) action: Action,
}

/// One candidate: a (rule, match, hostname group). 12 bytes: its 16-byte precedence key
/// (16-byte aligned) lives apart in [`RouteTable::keys`], read only by explanations.
#[derive(Debug)]
pub(crate) struct Cand {
    pub(crate) rule: u32,
    /// Index of the match in the rule (for explanations).
    pub(crate) match_index: u16,
    /// Index into [`RouteTable::methods`] (0 = no method condition).
    pub(crate) method: u16,
    /// Index into [`RouteTable::conds`] of the regex, header and query conditions; 0 for
    /// path-only matches (one arena instead of a box per candidate).
    pub(crate) cond: u32,
}

/// The routes that apply to one binding context (a mesh group on one Service port, or one
/// Gateway listener), compiled.
#[derive(Debug, Default)]
pub(crate) struct RouteSet {
    /// The kind that won (mesh) or `None` for Gateway listeners (kinds coexist there).
    pub(crate) mesh_kind: Option<RouteKind>,
    // inline: small (its keys live in the table's shared `PathKeys`), and the kind mesh
    // Services use most; the others are boxed (a set usually has one kind)
    pub(crate) http: Option<HostIndex<PathIndex>>,
    pub(crate) grpc: Option<Box<HostIndex<GrpcIndex>>>,
    pub(crate) tls: Option<Box<HostIndex<Box<[u32]>>>>,
    pub(crate) tcp: Option<u32>,
    pub(crate) udp: Option<u32>,
    /// What the set is, for explanations.
    pub(crate) label: SetLabel,
    /// Routes and rules attached to the set that are not in it, and why, by (route id, rule):
    /// for views and explanations (empty, and unallocated, for most sets).
    pub(crate) excluded: Box<[Excluded]>,
    /// A Gateway or ListenerSet listener's pre-routing filters (GEP-5224); `None` for mesh
    /// sets and listeners without filters, so the common path carries a null pointer.
    pub(crate) listener_filters: Option<Box<crate::listener_filter::ListenerFilters>>,
}

/// A (route, parentRef) its parent did not accept, by the parent it named: for views and
/// explanations of that parent's bindings.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct NotAccepted {
    pub(crate) parent: ParentIx,
    /// The compiled route (in the part).
    pub(crate) route: u32,
    /// The `Accepted=False` reason.
    pub(crate) reason: &'static str,
    pub(crate) message: &'static str,
}

/// A parent resource by input index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ParentIx {
    Service(u32),
    Gateway(u32),
    ListenerSet(u32),
}

/// A route or rule attached to a route set but left out of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Excluded {
    /// The compiled route (in the set's part).
    pub(crate) route: u32,
    /// The rule index; `None`: the whole route.
    pub(crate) rule: Option<u16>,
    pub(crate) why: ExcludedWhy,
}

/// Why a route or rule is not in a route set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExcludedWhy {
    /// The rule failed validation and was dropped (`PartiallyInvalid`): the upstream reason
    /// and the message.
    RuleInvalid(&'static str, Box<str>),
    /// Another route kind won the Service port (GEP-1294 route types); `None`: no kind won.
    LostToKind(Option<RouteKind>),
    /// A TCPRoute or UDPRoute: the oldest route of the set (then namespace/name) takes every
    /// connection; this one is shadowed by that route's rule (compiled rule id).
    Shadowed(u32),
}

impl RouteSet {
    /// No route of any kind: a Gateway listener nothing attached to.
    pub(crate) fn is_empty(&self) -> bool {
        self.http.is_none()
            && self.grpc.is_none()
            && self.tls.is_none()
            && self.tcp.is_none()
            && self.udp.is_none()
    }
}

/// What a route set is (rendered by explanations).
#[derive(Debug, Clone, Default)]
pub(crate) enum SetLabel {
    #[default]
    None,
    Mesh {
        service: u32,
        port: u16,
        consumer: Option<Arc<str>>,
    },
    Listener {
        gateway: u32,
        listener: Arc<str>,
    },
    /// A listener of a ListenerSet (GEP-1713), bound on its Gateway's addresses.
    ListenerSetListener {
        listener_set: u32,
        gateway: u32,
        listener: Arc<str>,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct ListenerEntry {
    pub(crate) hostname: Option<Box<str>>,
    pub(crate) set: u32,
    /// The scheme of requests on this listener when the caller gives none: https where the
    /// listener terminates TLS for HTTP (protocol `HTTPS`).
    pub(crate) scheme: crate::request::Scheme,
}

#[derive(Debug, Clone)]
pub(crate) enum Binding {
    Service {
        service: u32,
        port: u16,
        producer: Option<u32>,
        /// Consumer route sets by client namespace, sorted by namespace (binary search; most
        /// Services have none, and then this is an empty slice, not a hash map). Shared: an
        /// update copies the bindings shard it rebinds in, and a copy of a binding is then
        /// a reference count, not a copy of its lists.
        consumers: Arc<[(Box<str>, u32)]>,
        /// Bound at a ready endpoint of a headless Service ([`crate::MeshBinding::Workloads`]),
        /// not at a cluster IP; `port` is still the Service port.
        workload: bool,
    },
    /// A ready endpoint of several headless Services with routes
    /// ([`crate::MeshBinding::Workloads`]): each one's binding, sorted by Service namespace
    /// and name; none is picked.
    Conflict { claims: Arc<[super::Slot]> },
    Gateway {
        gateway: u32,
        /// Sorted by listener precedence (exact > longer wildcard > none).
        listeners: Arc<[ListenerEntry]>,
    },
}

/// The consumer route set of a client namespace (GEP-1294 namespace boundaries), from a binding's
/// sorted list.
pub(crate) fn consumer_set(consumers: &[(Box<str>, u32)], ns: &str) -> Option<u32> {
    consumers
        .binary_search_by(|(k, _)| (**k).cmp(ns))
        .ok()
        .and_then(|i| consumers.get(i))
        .map(|(_, s)| *s)
}

#[derive(Debug)]
pub(crate) struct ServiceInfo {
    /// Interned: namespaces repeat across Services.
    pub(crate) namespace: Arc<str>,
    pub(crate) name: NameRef,
}

/// The policy in effect for one target (Service, optional port name), and what competes.
#[derive(Debug)]
pub(crate) struct TlsSlot {
    /// The settings of the policy that takes precedence.
    pub(crate) tls: BackendTls,
    /// Why connections with it fail (an unusable CA reference), for explanations; `None` when
    /// they can be made.
    pub(crate) failure: Option<Box<str>>,
}

/// One (route, ancestor, Service target) a build's accepted route reaches, on a Service some
/// BackendTLSPolicy targets.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct TlsReached {
    /// The compiled route (of the part that keeps this).
    pub(crate) route: u32,
    /// The route's parent (PolicyStatus.ancestors).
    pub(crate) ancestor: PolicyAncestorRef,
    /// The Service target.
    pub(crate) namespace: Box<str>,
    pub(crate) service: Box<str>,
    /// The name of the Service port it reaches (policies may name it as `sectionName`).
    pub(crate) port_name: Option<Box<str>>,
}

/// A backend target as a decision names it.
pub(crate) fn target(t: &Target) -> BackendTarget<'_> {
    BackendTarget {
        group: &t.group,
        kind: &t.kind,
        namespace: &t.namespace,
        name: &t.name,
        port: t.port,
    }
}
