//! The compiled route table and its build step (from [`TableInput`]).
//!
//! Build order: rank routes (Gateway API HTTPRouteRule.matches precedence, oldest Route then
//! namespace/name order); compile each rule (regexes, backends, filters); attach each (route,
//! parentRef) to Service ports (mesh: producer or consumer group, GEP-1294 namespace boundaries) or
//! Gateway listeners (allowedRoutes, hostname intersection, Gateway API hostname intersection);
//! pick the winning route kind per mesh group (GEP-1294 route types); index every group (hostnames,
//! paths, gRPC methods) with candidate lists pre-sorted by precedence key. Nothing fails as a
//! whole: unusable routes, rules and parents are left out and reported through
//! [`RouteTable::parent_conditions`].

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::net::IpAddr;
use std::rc::Rc;
use std::sync::Arc;

use crate::canonical::canonical_order;
use crate::cond::{Cond, NamedMatches, RegexPool, ValueMatch};
use crate::decision::{Mirror, RespondReason};
use crate::hostname::{self, HostSpecificity, ListenerSpecificity};
use crate::index::{
    GrpcIndex, GrpcIndexBuilder, HashKeys, HostIndex, Map, PathIndex, PathKeys, PathKeysBuilder,
    PathSlot, same_bytes,
};
use crate::ir::{
    AllowedNamespaces, BackendIr, FiltersIr, GatewayIr, HeaderEdits, L4, ListenerProtocol, MatchIr,
    ParentRefIr, ParentRefKind, PathMatchIr, PathModifierIr, RedirectIr, RouteIr, RouteKind,
    RuleIr, StrMatch, TableInput,
};
use crate::precedence::{GrpcMatchFacts, HttpMatchFacts, PathRank, PrecedenceKey, RouteRank};
use crate::redirect::Scheme;
use crate::status::{ParentStatus, RuleProblem, StatusBuilder, StatusSource};
use crate::touch;

/// How mesh routes treat `spec.hostnames` (GEP-1294 hostnames field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MeshHostnames {
    /// Ignore hostnames on Service-parented routes (upstream GEP-1294; the default).
    #[default]
    Ignore,
    /// A route with hostnames only matches requests whose Host matches one of them (the
    /// alternative the project seeds describe). Routes without hostnames match any Host.
    MatchHostHeader,
}

/// Whether mesh routes need a ReferenceGrant for cross-namespace backendRefs (GEP-1294 namespace
/// boundaries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MeshReferenceGrants {
    /// Mesh routes may reference backends in any namespace (upstream mesh behaviour; default).
    #[default]
    NotRequired,
    /// Mesh routes need a ReferenceGrant like Gateway routes.
    Enforce,
}

/// What to do with `ExtensionRef` filters (Gateway API HTTPRouteRule.filters: never skip one
/// silently).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ExtensionRefs {
    /// The engine cannot apply them: matching requests get 500 and the route reports
    /// `ResolvedRefs=False, InvalidKind` (default).
    #[default]
    Reject,
    /// Pass them through in [`crate::Forward::extensions`] for the embedder to apply.
    PassThrough,
}

/// One (route, parentRef) pair, identifying what an embedder owns.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RouteParentKey {
    /// Route kind.
    pub kind: RouteKind,
    /// Route namespace.
    pub namespace: String,
    /// Route name.
    pub name: String,
    /// Index into `spec.parentRefs`.
    pub parent_index: usize,
}

/// Options of [`RouteTable::build`].
///
/// The hash seed stays out of `Debug` output (logs):
///
/// ```
/// # use gamma_resolve::BuildOptions;
/// let shown = format!("{:?}", BuildOptions::default().with_hash_seed(0x5eed_1234_5678));
/// assert!(!shown.contains(&0x5eed_1234_5678u64.to_string()) && !shown.contains("5eed"));
/// ```
///
/// ```
/// use std::hash::{BuildHasher, RandomState};
/// use gamma_resolve::{BuildOptions, MeshHostnames};
///
/// // a long-running controller keys the table's hashes with a random seed
/// let seed = RandomState::new().hash_one("gamma-resolve");
/// let options = BuildOptions::default()
///     .with_mesh_hostnames(MeshHostnames::MatchHostHeader)
///     .with_hash_seed(seed);
/// assert_eq!(options.hash_seed, seed);
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct BuildOptions {
    /// The (route, parent) pairs to include; `None` includes every pair.
    pub include: Option<BTreeSet<RouteParentKey>>,
    /// Hostname policy for mesh routes.
    pub mesh_hostnames: MeshHostnames,
    /// ReferenceGrant policy for mesh routes.
    pub mesh_reference_grants: MeshReferenceGrants,
    /// ExtensionRef policy.
    pub extension_refs: ExtensionRefs,
    /// Seed of the table's hashes of route-chosen keys (paths, hostnames, gRPC names, the
    /// names the build looks up). Decisions, explanations and conditions never depend on it;
    /// it only decides where keys land. A route author who knows the seed could choose paths
    /// that collide and slow lookups on every Service's large path index (bounded, never
    /// wrong); one who does not, cannot. Long-running embedders (controllers, proxies)
    /// should pass a random value per process, e.g. `RandomState::new().hash_one(..)` from
    /// `std::hash`; the core reads no randomness itself. Default 0, a fixed seed (fine for
    /// one-shot tools). Not printed by `Debug`.
    pub hash_seed: u64,
    /// Non-standard compatibility policy: read a parentRef `group: core` as the core group
    /// `""`, as Linkerd does. The Gateway API says the core group is `""`
    /// ([ParentReference.group](https://gateway-api.sigs.k8s.io/reference/spec/#parentreference)),
    /// so by default (`false`) such a parent is not a Service and its condition says so.
    pub core_group_alias: bool,
    /// The release channel whose CRD rules [`RouteTable::build`] validates routes against
    /// (default standard); a route invalid under it is left out and says so
    /// ([`RouteTable::left_out_at`]).
    pub channel: gamma_model::validate::Channel,
}

/// The condition message for a `kind: Service` parentRef with `group: core`.
const NOT_A_SERVICE_CORE: &str = "not a Service (did you mean group: \"\"?): group core is not the \
     core API group, which is written group: \"\"";
/// The condition message for a `kind: Service` parentRef without `group`.
const NOT_A_SERVICE_NO_GROUP: &str = "not a Service (did you mean group: \"\"?): kind Service \
     without group means gateway.networking.k8s.io/Service, which no controller implements";

impl std::fmt::Debug for BuildOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // the seed is a secret of the embedder: kept out of logs
        f.debug_struct("BuildOptions")
            .field("include", &self.include)
            .field("mesh_hostnames", &self.mesh_hostnames)
            .field("mesh_reference_grants", &self.mesh_reference_grants)
            .field("extension_refs", &self.extension_refs)
            .field("hash_seed", &"<hidden>")
            .field("core_group_alias", &self.core_group_alias)
            .field("channel", &self.channel)
            .finish()
    }
}

impl BuildOptions {
    /// Sets [`BuildOptions::channel`].
    pub fn with_channel(mut self, channel: gamma_model::validate::Channel) -> Self {
        self.channel = channel;
        self
    }
    /// Sets [`BuildOptions::core_group_alias`] (non-standard: `group: core` is the core group).
    pub fn with_core_group_alias(mut self, on: bool) -> Self {
        self.core_group_alias = on;
        self
    }
    /// Sets [`BuildOptions::mesh_hostnames`].
    pub fn with_mesh_hostnames(mut self, p: MeshHostnames) -> Self {
        self.mesh_hostnames = p;
        self
    }
    /// Sets [`BuildOptions::mesh_reference_grants`].
    pub fn with_mesh_reference_grants(mut self, p: MeshReferenceGrants) -> Self {
        self.mesh_reference_grants = p;
        self
    }
    /// Sets [`BuildOptions::extension_refs`].
    pub fn with_extension_refs(mut self, p: ExtensionRefs) -> Self {
        self.extension_refs = p;
        self
    }
    /// Sets [`BuildOptions::hash_seed`].
    pub fn with_hash_seed(mut self, seed: u64) -> Self {
        self.hash_seed = seed;
        self
    }
    /// Sets [`BuildOptions::include`].
    pub fn with_include(mut self, pairs: impl IntoIterator<Item = RouteParentKey>) -> Self {
        self.include = Some(pairs.into_iter().collect());
        self
    }
}

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
pub(crate) struct NameRef(u32, u32);

/// Appends a name to a names buffer.
fn push_name(names: &mut String, s: &str) -> NameRef {
    let start = u32::try_from(names.len()).unwrap_or(u32::MAX);
    names.push_str(s);
    NameRef(start, u32::try_from(s.len()).unwrap_or(0))
}

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
    pub(crate) namespace: Box<str>,
    pub(crate) name: Box<str>,
    /// The Service's cluster IPs, so a request to one finds the note.
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
    pub(crate) timeouts: Option<serde_json::Value>,
    pub(crate) retry: Option<serde_json::Value>,
    pub(crate) extensions: Vec<String>,
    /// The rule's single `PathPrefix` value, kept only when a `ReplacePrefixMatch` needs it.
    pub(crate) prefix: Option<Box<str>>,
}

pub(crate) static NO_EXTRAS: Extras = Extras {
    request_headers: HeaderEdits {
        set: Vec::new(),
        add: Vec::new(),
        remove: Vec::new(),
    },
    response_headers: HeaderEdits {
        set: Vec::new(),
        add: Vec::new(),
        remove: Vec::new(),
    },
    rewrite: None,
    mirrors: Vec::new(),
    cors: None,
    timeouts: None,
    retry: None,
    extensions: Vec::new(),
    prefix: None,
};

impl Extras {
    fn is_empty(&self) -> bool {
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
}

#[derive(Debug, Clone)]
pub(crate) struct ListenerEntry {
    pub(crate) hostname: Option<Box<str>>,
    pub(crate) set: u32,
    /// The scheme of requests on this listener when the caller gives none: https where the
    /// listener terminates TLS for HTTP (protocol `HTTPS`).
    pub(crate) scheme: Scheme,
}

#[derive(Debug)]
pub(crate) enum Binding {
    Service {
        service: u32,
        port: u16,
        producer: Option<u32>,
        /// Consumer route sets by client namespace, sorted by namespace (binary search; most
        /// Services have none, and then this is an empty slice, not a hash map).
        consumers: Box<[(Box<str>, u32)]>,
    },
    Gateway {
        gateway: u32,
        /// Sorted by listener precedence (exact > longer wildcard > none).
        listeners: Box<[ListenerEntry]>,
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

/// A compiled, indexed route table. Build once per snapshot change; resolve many times.
#[derive(Debug)]
pub struct RouteTable {
    pub(crate) routes: Vec<RouteInfo>,
    /// Namespaces of the routes ([`RouteInfo::namespace`]).
    pub(crate) namespaces: Box<[Box<str>]>,
    pub(crate) rules: Vec<RuleEntry>,
    pub(crate) cands: Vec<Cand>,
    /// Precedence key of each candidate (by candidate id), for explanations.
    pub(crate) keys: Box<[PrecedenceKey]>,
    /// Conditions of candidates; index 0 is the unused "nothing to check" entry.
    pub(crate) conds: Vec<Cond>,
    pub(crate) regexes: RegexPool,
    /// Keys and candidate lists of every path index.
    pub(crate) paths: PathKeys,
    pub(crate) sets: Vec<RouteSet>,
    pub(crate) bindings: Map<(IpAddr, u16, L4), Binding>,
    pub(crate) services: Vec<ServiceInfo>,
    pub(crate) gateways: Vec<ServiceInfo>,
    /// What the parent conditions are made of (compact, kept from the build).
    pub(crate) status: StatusSource,
    /// The rendered conditions, on first use: a resolver that never reports status never
    /// pays for their strings.
    pub(crate) statuses: std::sync::OnceLock<Vec<ParentStatus>>,
    /// Method names used by method conditions; index 0 is unused (no condition).
    pub(crate) methods: Vec<Box<str>>,
    /// Distinct backend targets.
    pub(crate) targets: Vec<Target>,
    /// Backends of every rule, by runs.
    pub(crate) backends: Vec<BackendEntry>,
    /// Why each invalid backend of [`RouteTable::backends`] is invalid (reason first), by
    /// index: sparse, for explanations.
    pub(crate) backend_problems: Vec<(u32, Box<str>)>,
    /// Routes left out of the table, per Service parent they named (rare).
    pub(crate) left_out: Vec<LeftOut>,
    /// Filters, timeouts and the like of rules and backends; index 0 is the empty set.
    pub(crate) extras: Vec<Extras>,
    /// Rule names; index 0 is unused (unnamed).
    pub(crate) rule_names: Vec<Box<str>>,
    /// Service and Gateway names ([`NameRef`]s point here).
    pub(crate) names: String,
}

/// Build counters, for reports and benches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct TableStats {
    /// Routes compiled.
    pub routes: usize,
    /// Rules compiled.
    pub rules: usize,
    /// Match candidates indexed.
    pub candidates: usize,
    /// Distinct regexes compiled.
    pub regexes: usize,
    /// (address, port) bindings.
    pub bindings: usize,
    /// Route sets (mesh groups and listeners).
    pub route_sets: usize,
}

impl RouteTable {
    /// Why routes that named a Service with cluster IP `ip` as parent are not in the table
    /// (`HTTPRoute ns/x was left out: <error>`): routes invalid as a whole, under the build's
    /// channel. A request to that Service is resolved without them, so a tool explaining it
    /// should say so rather than show another route (kind) as if it were the only one.
    pub fn left_out_at(&self, ip: IpAddr) -> impl Iterator<Item = &str> {
        self.left_out
            .iter()
            .filter(move |l| l.ips.contains(&ip))
            .map(|l| &*l.text)
    }

    /// [`RouteTable::left_out_at`] for Service `namespace/name`, whether it has an address.
    pub fn left_out_for_service<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> impl Iterator<Item = &'a str> {
        self.left_out
            .iter()
            .filter(move |l| &*l.namespace == namespace && &*l.name == name)
            .map(|l| &*l.text)
    }

    /// The namespace of a compiled route.
    #[inline]
    pub(crate) fn route_namespace(&self, r: &RouteInfo) -> &str {
        self.namespaces.get(r.namespace as usize).map_or("", |n| n)
    }

    /// The text of a Service or Gateway name.
    pub(crate) fn text(&self, n: NameRef) -> &str {
        name_text(&self.names, n)
    }

    /// The extras at an index (0 and anything unknown: the empty set).
    pub(crate) fn extras_of(&self, i: u32) -> &Extras {
        self.extras.get(i as usize).unwrap_or(&NO_EXTRAS)
    }

    /// The backends of a rule action (empty unless it forwards).
    pub(crate) fn backends_of(&self, action: &Action) -> &[BackendEntry] {
        match action {
            Action::Backends(start, len) => {
                let start = *start as usize;
                self.backends
                    .get(start..start + *len as usize)
                    .unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// The name of a rule.
    pub(crate) fn rule_name(&self, rule: &RuleEntry) -> Option<&str> {
        match rule.name {
            0 => None,
            i => self.rule_names.get(i as usize).map(|n| &**n),
        }
    }

    /// The conditions of a candidate (`None`: nothing beyond path/method).
    pub(crate) fn cond_of(&self, c: &Cand) -> Option<&Cond> {
        if c.cond == 0 {
            None
        } else {
            self.conds.get(c.cond as usize)
        }
    }

    /// Counters describing the table.
    pub fn stats(&self) -> TableStats {
        TableStats {
            routes: self.routes.len(),
            rules: self.rules.len(),
            candidates: self.cands.len(),
            regexes: self.regexes.len(),
            bindings: self.bindings.len(),
            route_sets: self.sets.len(),
        }
    }

    /// For every (route, parentRef) the build considered: the `Accepted`, `ResolvedRefs` and
    /// (when some rules were dropped) `PartiallyInvalid` conditions, with upstream reasons.
    pub fn parent_conditions(&self) -> &[ParentStatus] {
        self.statuses
            .get_or_init(|| self.status.render(&self.routes, &self.namespaces))
    }

    /// Compiles a table from lowered input. Never fails: unusable parts are reported.
    pub fn from_input(input: &TableInput, options: &BuildOptions) -> Self {
        Builder::new(input, options).build()
    }
}

// ---------------------------------------------------------------------------------------
// Build
// ---------------------------------------------------------------------------------------

/// Which group of routes on a Service port (GEP-1294 namespace boundaries).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Group {
    Producer,
    Consumer(String),
}

/// Route kinds in precedence order (GEP-1294 route types), the order of [`Attached::by_kind`].
const KINDS: [RouteKind; 5] = [
    RouteKind::Grpc,
    RouteKind::Http,
    RouteKind::Tls,
    RouteKind::Tcp,
    RouteKind::Udp,
];

fn kind_slot(k: RouteKind) -> usize {
    match k {
        RouteKind::Grpc => 0,
        RouteKind::Http => 1,
        RouteKind::Tls => 2,
        RouteKind::Tcp => 3,
        RouteKind::Udp => 4,
    }
}

impl Attached {
    fn push(&mut self, kind: RouteKind, a: AttachedRoute) {
        if let Some(list) = self.by_kind.get_mut(kind_slot(kind)) {
            list.push(a);
        }
    }
}

/// Routes attached to one context, before indexing. `hosts` are the effective hostnames
/// (`None` = any).
#[derive(Debug, Default)]
struct Attached {
    /// By kind, in [`KINDS`] order (an array: no map node per context).
    by_kind: [Vec<AttachedRoute>; 5],
}

/// The routes attached to each (Service, port index, group), while building.
#[derive(Debug)]
struct SvcAttached {
    ids: Map<(usize, usize, Group), u32>,
    lists: Vec<Attached>,
}

impl SvcAttached {
    /// The list of (Service, port index, group), created empty on first use (`None` only
    /// past `u32::MAX` lists).
    fn get(&mut self, si: usize, port_i: usize, group: &Group) -> Option<&mut Attached> {
        let next = u32::try_from(self.lists.len()).unwrap_or(u32::MAX);
        let i = *self.ids.entry((si, port_i, group.clone())).or_insert(next);
        if i == next {
            self.lists.push(Attached::default());
        }
        self.lists.get_mut(i as usize)
    }
}

#[derive(Debug, Clone)]
struct AttachedRoute {
    route_id: u32,
    /// Index of the route in the input.
    ri: usize,
    /// Shared between the contexts a route attaches to (and, for "any host", between routes):
    /// attaching allocates nothing.
    hosts: Rc<[Option<String>]>,
    /// Compiled rule ids by rule index (`None` = dropped), shared like `hosts`.
    rules: RuleIds,
}

/// Compiled rule ids of a route by rule index (`None` = dropped), shared by every context
/// the route attaches to.
/// A run (start, length) of `Builder::rule_id_pool`: no allocation per route.
type RuleIds = (u32, u32);

/// One match of an attached route under one effective hostname, as walked by
/// `Builder::for_each_match`.
#[derive(Debug, Clone, Copy)]
struct MatchSite<'l, 'i> {
    /// The effective hostname (`None` = any).
    host: Option<&'l str>,
    host_spec: HostSpecificity,
    rank: RouteRank,
    rule_index: u16,
    /// Compiled rule id.
    rule_id: u32,
    match_index: u16,
    m: &'i MatchIr,
}

/// (group, kind, namespace, name, port) of a backend target, borrowed from the input: a
/// repeated backendRef is found without interning its four strings again. Hashes only the
/// name, namespace and port (group and kind are nearly always `""`/`Service`); compares all.
#[derive(Debug, Clone, Copy)]
struct TargetKey<'i>(&'i BackendIr);

impl std::hash::Hash for TargetKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write(self.0.name.as_bytes());
        h.write(self.0.namespace.as_bytes());
        h.write_u32(self.0.port.map_or(u32::MAX, u32::from));
    }
}

impl PartialEq for TargetKey<'_> {
    fn eq(&self, o: &Self) -> bool {
        let (a, b) = (self.0, o.0);
        same_bytes(a.name.as_bytes(), b.name.as_bytes())
            && a.port == b.port
            && same_bytes(a.namespace.as_bytes(), b.namespace.as_bytes())
            && same_bytes(a.kind.as_bytes(), b.kind.as_bytes())
            && same_bytes(a.group.as_bytes(), b.group.as_bytes())
    }
}

impl Eq for TargetKey<'_> {}

/// Which kind of names a match list has (they compare differently).
#[derive(Debug, Clone, Copy)]
enum Names {
    /// HTTP header names: case-insensitive (Gateway API HTTPHeaderMatch).
    Header,
    /// Query parameter names: case-sensitive (Gateway API HTTPQueryParamMatch).
    Query,
}

struct Builder<'i> {
    input: &'i TableInput,
    options: &'i BuildOptions,
    svc_by_name: Map<(&'i str, &'i str), usize>,
    gw_by_name: Map<(&'i str, &'i str), usize>,
    regexes: RegexPool,
    routes: Vec<RouteInfo>,
    /// Ranks of the compiled routes (by route id): build-time only.
    ranks: Vec<RouteRank>,
    /// The input's distinct namespaces (route namespaces index it).
    namespaces: Vec<Box<str>>,
    /// Per input route: its namespace's index in `namespaces`.
    route_ns: Vec<u32>,
    rules: Vec<RuleEntry>,
    cands: Vec<Cand>,
    /// Precedence key of each candidate.
    keys: Vec<PrecedenceKey>,
    conds: Vec<Cond>,
    paths: PathKeysBuilder<'i>,
    /// Per input route: compiled rule ids per parent flavour (mesh, gateway), lazily.
    rule_ids: Vec<[Option<RuleIds>; 2]>,
    /// Compiled rule ids of every route (runs of it are [`RuleIds`]).
    rule_id_pool: Vec<Option<u32>>,
    /// The effective hostnames "any host" (`[None]`), shared.
    any_host: Rc<[Option<String>]>,
    /// Per backend target, per route kind: its state for a same-namespace reference (which
    /// depends on nothing else; cross-namespace ones also depend on grants and are not cached).
    target_states: Vec<[Option<BackendState>; 5]>,
    route_id: Vec<Option<u32>>,
    /// The unresolved references of the compiled rules that have any, as (rule id, (reason of
    /// the first, message listing all)), by rule id: sparse, most rules have none.
    rule_problems: Vec<(u32, RuleProblem)>,
    /// Why each invalid backend is invalid, by index into `backends` (sparse, in order).
    backend_problems: Vec<(u32, Box<str>)>,
    /// Routes left out (invalid as a whole) with the Service parents they named.
    left_out: Vec<LeftOut>,
    status: StatusBuilder,
    strings: HashSet<Arc<str>, HashKeys>,
    methods: Vec<Box<str>>,
    targets: Vec<Target>,
    target_ids: Map<TargetKey<'i>, u32>,
    backends: Vec<BackendEntry>,
    extras: Vec<Extras>,
    rule_names: Vec<Box<str>>,
    names: String,
    /// Keys of every hash of route-chosen keys ([`BuildOptions::hash_seed`]).
    hash: HashKeys,
    /// Compiled header and query match lists by their input (`None`: a bad regex).
    header_lists: Map<&'i [(String, StrMatch)], Option<NamedMatches>>,
    query_lists: Map<&'i [(String, StrMatch)], Option<NamedMatches>>,
}

impl<'i> Builder<'i> {
    fn new(input: &'i TableInput, options: &'i BuildOptions) -> Self {
        let hash = HashKeys::new(options.hash_seed);
        let mut svc_by_name = Map::with_capacity_and_hasher(input.services.len(), hash);
        svc_by_name.extend(
            input
                .services
                .iter()
                .enumerate()
                .map(|(i, s)| ((s.namespace.as_str(), s.name.as_str()), i)),
        );
        let mut gw_by_name = Map::with_capacity_and_hasher(input.gateways.len(), hash);
        gw_by_name.extend(
            input
                .gateways
                .iter()
                .enumerate()
                .map(|(i, g)| ((g.namespace.as_str(), g.name.as_str()), i)),
        );
        Self {
            hash,
            header_lists: Map::with_hasher(hash),
            query_lists: Map::with_hasher(hash),
            input,
            options,
            svc_by_name,
            gw_by_name,
            regexes: RegexPool::default(),
            routes: Vec::new(),
            ranks: Vec::new(),
            namespaces: Vec::new(),
            route_ns: Vec::new(),
            rules: Vec::new(),
            cands: Vec::new(),
            keys: Vec::new(),
            conds: vec![Cond::default()],
            paths: PathKeysBuilder::new(hash),
            rule_ids: vec![[None, None]; input.routes.len()],
            any_host: Rc::from([None]),
            rule_id_pool: Vec::new(),
            target_states: Vec::new(),
            route_id: vec![None; input.routes.len()],
            rule_problems: Vec::new(),
            backend_problems: Vec::new(),
            left_out: Vec::new(),
            strings: HashSet::with_hasher(hash),
            methods: vec!["".into()],
            targets: Vec::new(),
            target_ids: Map::with_hasher(hash),
            backends: Vec::new(),
            extras: vec![Extras::default()],
            rule_names: vec!["".into()],
            names: String::new(),
            status: StatusBuilder::default(),
        }
    }

    fn included(&self, r: &RouteIr, parent_index: usize) -> bool {
        match &self.options.include {
            None => true,
            Some(set) => set.contains(&RouteParentKey {
                kind: r.kind,
                namespace: r.namespace.clone(),
                name: r.name.clone(),
                parent_index,
            }),
        }
    }

    /// Sizes the build's arrays from one pass over the input (routes, rules, matches,
    /// backendRefs, parentRefs) instead of growing them by doubling: at 100,000 routes the
    /// doublings copied tens of megabytes into fresh pages.
    fn reserve(&mut self) {
        let input = self.input;
        let (mut rules, mut matches, mut backends, mut pairs) = (0usize, 0usize, 0usize, 0usize);
        for r in &input.routes {
            rules += r.rules.len();
            pairs += r.parents.len();
            for rule in &r.rules {
                // a rule without matches still gets one candidate (TLS, TCP)
                matches += rule.matches.len().max(1);
                backends += rule.backends.len();
            }
        }
        let n = input.routes.len();
        self.routes.reserve(n);
        self.ranks.reserve(n);
        self.rules.reserve(rules);
        self.rule_id_pool.reserve(rules);
        self.backends.reserve(backends);
        self.cands.reserve(matches);
        self.keys.reserve(matches);
        self.paths.reserve(matches);
        self.status.reserve(pairs);
    }

    fn build(mut self) -> RouteTable {
        let input = self.input;
        self.reserve();
        // Deterministic processing order regardless of input order: kind, namespace, name;
        // duplicate (kind, namespace, name) entries: the first in canonical order is kept.
        let canonical = canonical_order(&input.routes, self.hash);
        let (order, ranks) = (canonical.order, canonical.ranks);
        self.namespaces = canonical.namespaces.iter().map(|n| (*n).into()).collect();
        self.route_ns = canonical.route_ns;

        // Attach every (route, parent).
        // A hash map (to an index of `svc_lists`) while attaching: one lookup per (route,
        // parent), where a B-tree walked ~13 levels of keys for 9,000 Services; the keys
        // are sorted once afterwards for a deterministic build order.
        let mut svc_attached = SvcAttached {
            ids: Map::with_hasher(self.hash),
            lists: Vec::new(),
        };
        let mut gw_attached: BTreeMap<(usize, usize), Attached> = BTreeMap::new();
        for (pos, &ri) in order.iter().enumerate() {
            let Some(route) = input.routes.get(ri) else {
                continue;
            };
            touch::ahead(
                pos,
                |i| order.get(i).and_then(|r| input.routes.get(*r)),
                touch::attach_level,
            );
            let rank = ranks.get(pos).copied().unwrap_or_default();
            for (pi, parent) in route.parents.iter().enumerate() {
                if !self.included(route, pi) {
                    continue;
                }
                match &parent.kind {
                    ParentRefKind::Service => {
                        self.attach_service(ri, rank, route, pi, parent, &mut svc_attached);
                    }
                    ParentRefKind::Gateway => {
                        self.attach_gateway(ri, rank, route, pi, parent, &mut gw_attached);
                    }
                    ParentRefKind::Other(gk)
                        if gk == "core/Service" && self.options.core_group_alias =>
                    {
                        // the opt-in compatibility policy: `group: core` read as `""`
                        self.attach_service(ri, rank, route, pi, parent, &mut svc_attached);
                    }
                    // `kind: Service` with no group or `group: core` is almost always a core
                    // Service written wrong (ParentReference.group: the core group is ""):
                    // said in the table's conditions; no controller owns such a parent, so
                    // none writes it.
                    ParentRefKind::Other(gk) if gk == "core/Service" => {
                        self.status.no_parent(ri, pi, NOT_A_SERVICE_CORE);
                    }
                    ParentRefKind::Other(gk) if gk == "gateway.networking.k8s.io/Service" => {
                        self.status.no_parent(ri, pi, NOT_A_SERVICE_NO_GROUP);
                    }
                    // Parents of other kinds are not ours to report (Gateway API
                    // RouteStatus.parents).
                    ParentRefKind::Other(_) => {}
                }
            }
        }

        // Index mesh groups. Bindings: each cluster IP of the Service × the port.
        let mut sets: Vec<RouteSet> = Vec::new();
        let mut bindings: Map<(IpAddr, u16, L4), Binding> = Map::with_hasher(self.hash);
        let SvcAttached { ids, mut lists } = svc_attached;
        let mut ids: Vec<_> = ids.into_iter().collect();
        ids.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (k, ((si, port_i, group), i)) in ids.iter().enumerate() {
            let (si, port_i, i) = (*si, *port_i, *i);
            // the first routes of the next contexts (most have one): see `touch`
            touch::ahead(
                k,
                |j| {
                    ids.get(j)
                        .and_then(|(_, l)| lists.get(*l as usize))
                        .and_then(|l| l.by_kind.iter().find_map(|v| v.first()))
                        .and_then(|a| input.routes.get(a.ri))
                },
                touch::match_level,
            );
            let Some(attached) = lists.get_mut(i as usize).map(std::mem::take) else {
                continue;
            };
            let Some(svc) = input.services.get(si) else {
                continue;
            };
            let Some(port) = svc.ports.get(port_i) else {
                continue;
            };
            let label = SetLabel::Mesh {
                service: u32::try_from(si).unwrap_or(u32::MAX),
                port: port.port,
                consumer: group_key(group).map(|c| self.intern(&c)),
            };
            let set_id = u32::try_from(sets.len()).unwrap_or(u32::MAX);
            let set = self.index_set(attached, true, label, (si, port.port, group_key(group)));
            sets.push(set);
            for ip in &svc.cluster_ips {
                let b = bindings
                    .entry((*ip, port.port, port.protocol))
                    .or_insert_with(|| Binding::Service {
                        service: u32::try_from(si).unwrap_or(u32::MAX),
                        port: port.port,
                        producer: None,
                        consumers: Box::new([]),
                    });
                if let Binding::Service {
                    producer,
                    consumers,
                    ..
                } = b
                {
                    match &group {
                        Group::Producer => *producer = Some(set_id),
                        Group::Consumer(ns) => {
                            // kept sorted for the binary search; a later group of the
                            // same namespace replaces the earlier one (as a map would)
                            let mut v = std::mem::take(consumers).into_vec();
                            match v.binary_search_by(|(k, _)| (**k).cmp(ns.as_str())) {
                                Ok(i) => {
                                    if let Some(e) = v.get_mut(i) {
                                        e.1 = set_id;
                                    }
                                }
                                Err(i) => v.insert(i, (ns.as_str().into(), set_id)),
                            }
                            *consumers = v.into_boxed_slice();
                        }
                    }
                }
            }
        }

        // Index Gateway listeners, grouped by (address, port, l4).
        type PortListeners = Vec<(ListenerSpecificity, usize, ListenerEntry)>;
        let mut gw_ports: BTreeMap<(usize, u16, L4), PortListeners> = BTreeMap::new();
        for ((gi, li), attached) in gw_attached {
            let Some(gw) = input.gateways.get(gi) else {
                continue;
            };
            let Some(l) = gw.listeners.get(li) else {
                continue;
            };
            let label = SetLabel::Listener {
                gateway: u32::try_from(gi).unwrap_or(u32::MAX),
                listener: self.intern(&l.name),
            };
            let set_id = u32::try_from(sets.len()).unwrap_or(u32::MAX);
            let set = self.index_set(attached, false, label, (usize::MAX, l.port, None));
            sets.push(set);
            let l4 = if l.protocol == ListenerProtocol::Udp {
                L4::Udp
            } else {
                L4::Tcp
            };
            gw_ports.entry((gi, l.port, l4)).or_default().push((
                ListenerSpecificity::of(l.hostname.as_deref()),
                li,
                ListenerEntry {
                    hostname: l.hostname.as_deref().map(Into::into),
                    set: set_id,
                    scheme: if l.protocol == ListenerProtocol::Https {
                        Scheme::Https
                    } else {
                        Scheme::Http
                    },
                },
            ));
        }
        for ((gi, port, l4), mut ls) in gw_ports {
            let Some(gw) = input.gateways.get(gi) else {
                continue;
            };
            // most specific listener first; spec order breaks ties
            ls.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let entries: Box<[ListenerEntry]> = ls.into_iter().map(|(_, _, e)| e).collect();
            for ip in &gw.addresses {
                // The first binding of an (address, port) in canonical order is kept.
                bindings
                    .entry((*ip, port, l4))
                    .or_insert_with(|| Binding::Gateway {
                        gateway: u32::try_from(gi).unwrap_or(u32::MAX),
                        listeners: entries.clone(),
                    });
            }
        }

        let status = std::mem::take(&mut self.status).finish(input, &self.route_id);
        let services: Vec<ServiceInfo> = input
            .services
            .iter()
            .map(|s| self.parent_info(&s.namespace, &s.name))
            .collect();
        let gateways: Vec<ServiceInfo> = input
            .gateways
            .iter()
            .map(|g| self.parent_info(&g.namespace, &g.name))
            .collect();
        // the build grew these by doubling: drop the slack (up to half of each)
        self.rules.shrink_to_fit();
        self.cands.shrink_to_fit();
        self.conds.shrink_to_fit();
        self.targets.shrink_to_fit();
        self.backends.shrink_to_fit();
        self.extras.shrink_to_fit();
        self.rule_names.shrink_to_fit();
        self.routes.shrink_to_fit();
        sets.shrink_to_fit();
        RouteTable {
            paths: self.paths.freeze(),
            routes: self.routes,
            namespaces: self.namespaces.into_boxed_slice(),
            rules: self.rules,
            cands: self.cands,
            keys: self.keys.into_boxed_slice(),
            conds: self.conds,
            regexes: self.regexes,
            sets,
            bindings,
            services,
            gateways,
            status,
            statuses: std::sync::OnceLock::new(),
            methods: self.methods,
            targets: self.targets,
            backends: self.backends,
            backend_problems: self.backend_problems,
            left_out: self.left_out,
            extras: self.extras,
            rule_names: self.rule_names,
            names: self.names,
        }
    }

    /// A Service's or Gateway's namespace (interned) and name (in the names buffer).
    fn parent_info(&mut self, namespace: &str, name: &str) -> ServiceInfo {
        ServiceInfo {
            namespace: self.intern(namespace),
            name: push_name(&mut self.names, name),
        }
    }

    fn intern(&mut self, v: &str) -> Arc<str> {
        if let Some(a) = self.strings.get(v) {
            return Arc::clone(a);
        }
        let a: Arc<str> = Arc::from(v);
        self.strings.insert(Arc::clone(&a));
        a
    }

    fn method_index(&mut self, m: Option<&str>) -> u16 {
        let Some(m) = m else { return 0 };
        if let Some(i) = self.methods.iter().position(|x| **x == *m) {
            return u16::try_from(i).unwrap_or(0);
        }
        self.methods.push(m.into());
        u16::try_from(self.methods.len() - 1).unwrap_or(0)
    }

    /// Registers the route (once) and returns its id, or `None` when it failed validation.
    fn route(&mut self, ri: usize, rank: RouteRank, route: &'i RouteIr) -> Option<u32> {
        if route.invalid.is_some() {
            return None;
        }
        if let Some(id) = self.route_id.get(ri).copied().flatten() {
            return Some(id);
        }
        let id = u32::try_from(self.routes.len()).ok()?;
        let namespace = self.route_ns.get(ri).copied()?;
        self.routes.push(RouteInfo {
            name: route.name.as_str().into(),
            namespace,
            kind: route.kind,
        });
        self.ranks.push(rank);
        if let Some(slot) = self.route_id.get_mut(ri) {
            *slot = Some(id);
        }
        Some(id)
    }

    /// Compiles the rules of a route for mesh (`flavour` 0) or Gateway (1) parents; ids are
    /// `None` for dropped rules.
    fn rules_of(&mut self, ri: usize, route_id: u32, route: &'i RouteIr, mesh: bool) -> RuleIds {
        let f = usize::from(!mesh);
        if let Some(ids) = self
            .rule_ids
            .get(ri)
            .and_then(|s| s.get(f))
            .copied()
            .flatten()
        {
            return ids;
        }
        let start = u32::try_from(self.rule_id_pool.len()).unwrap_or(u32::MAX);
        for (i, rule) in route.rules.iter().enumerate() {
            let id = if rule.invalid.is_some() {
                None
            } else {
                self.compile_rule(
                    route_id,
                    u16::try_from(i).unwrap_or(u16::MAX),
                    route,
                    rule,
                    mesh,
                )
            };
            self.rule_id_pool.push(id);
        }
        let end = u32::try_from(self.rule_id_pool.len()).unwrap_or(u32::MAX);
        let ids = (start, end - start);
        if let Some(slot) = self.rule_ids.get_mut(ri).and_then(|s| s.get_mut(f)) {
            *slot = Some(ids);
        }
        ids
    }

    /// The compiled rule ids of a run.
    fn ids(&self, r: RuleIds) -> &[Option<u32>] {
        let start = r.0 as usize;
        self.rule_id_pool
            .get(start..start + r.1 as usize)
            .unwrap_or(&[])
    }

    fn backend_state(&self, route: &RouteIr, b: &BackendIr, mesh: bool) -> BackendState {
        if !(b.group.is_empty() && b.kind == "Service") {
            return BackendState::Invalid(InvalidRef::InvalidKind);
        }
        let cross = b.namespace != route.namespace;
        let needs_grant =
            cross && (!mesh || self.options.mesh_reference_grants == MeshReferenceGrants::Enforce);
        if needs_grant && !self.granted(route, b) {
            // Gateway API HTTPRouteRule.backendRefs: do not reveal whether the target exists.
            return BackendState::Invalid(InvalidRef::RefNotPermitted);
        }
        let Some(svc) = self
            .svc_by_name
            .get(&(b.namespace.as_str(), b.name.as_str()))
            .and_then(|i| self.input.services.get(*i))
        else {
            return BackendState::Invalid(InvalidRef::BackendNotFound);
        };
        if svc.external_name {
            // Gateway API ParentReference: ExternalName SHOULD NOT be a backend (CVE-2021-25740).
            return BackendState::Invalid(InvalidRef::BackendNotFound);
        }
        let Some(port) = b
            .port
            .and_then(|p| svc.ports.iter().find(|sp| sp.port == p))
        else {
            return BackendState::Invalid(InvalidRef::BackendNotFound);
        };
        if !app_protocol_compatible(route.kind, port.app_protocol.as_deref()) {
            return BackendState::Invalid(InvalidRef::UnsupportedProtocol);
        }
        if svc.ready == Some(false) {
            return BackendState::NoEndpoints;
        }
        BackendState::Ok
    }

    /// Why backend `target` is invalid with reason `r`, for people: the reason first, then
    /// what is wrong (for `BackendNotFound` on an existing Service, the port it lacks).
    fn invalid_detail(&self, r: InvalidRef, target: u32) -> String {
        let (ns, name) = (b_ns(&self.targets, target), b_name(&self.targets, target));
        let reason = r.as_str();
        match r {
            InvalidRef::RefNotPermitted => format!(
                "{reason}: cross-namespace reference to {ns}/{name} is not permitted by any ReferenceGrant"
            ),
            InvalidRef::BackendNotFound => {
                let svc = self
                    .svc_by_name
                    .get(&(ns, name))
                    .and_then(|i| self.input.services.get(*i));
                let port = self.targets.get(target as usize).and_then(|t| t.port);
                match (svc, port) {
                    (None, _) => format!("{reason} ({ns}/{name})"),
                    (Some(s), _) if s.external_name => {
                        format!("{reason} ({ns}/{name}): an ExternalName Service is not a backend")
                    }
                    (Some(_), None) => {
                        format!("{reason} ({ns}/{name}): the backendRef names no port")
                    }
                    (Some(s), Some(p)) => {
                        let ports: Vec<String> =
                            s.ports.iter().map(|p| p.port.to_string()).collect();
                        format!(
                            "{reason} ({ns}/{name}): the Service has no port {p} (its ports: {})",
                            if ports.is_empty() {
                                "none".to_owned()
                            } else {
                                ports.join(", ")
                            }
                        )
                    }
                }
            }
            _ => format!("{reason} ({ns}/{name})"),
        }
    }

    /// Keeps the note that `route`, invalid as a whole, is not in the table, for the Service
    /// `parent` it named: a request to that Service must not silently show another route.
    fn note_left_out(&mut self, route: &RouteIr, parent: &ParentRefIr) {
        let Some(invalid) = &route.invalid else {
            return;
        };
        let ips: Box<[IpAddr]> = self
            .svc_by_name
            .get(&(parent.namespace.as_str(), parent.name.as_str()))
            .and_then(|i| self.input.services.get(*i))
            .map(|s| s.cluster_ips.clone().into_boxed_slice())
            .unwrap_or_default();
        let note = LeftOut {
            namespace: parent.namespace.as_str().into(),
            name: parent.name.as_str().into(),
            ips,
            text: format!(
                "{} {}/{} was left out: {}",
                route.kind, route.namespace, route.name, invalid.message
            )
            .into(),
        };
        // several parentRefs to one Service (ports, sections) make one note
        if !self.left_out.contains(&note) {
            self.left_out.push(note);
        }
    }

    /// [`Self::backend_state`], cached per (target, route kind) for same-namespace references.
    fn backend_state_of(
        &mut self,
        target: u32,
        route: &RouteIr,
        b: &BackendIr,
        mesh: bool,
    ) -> BackendState {
        if b.namespace != route.namespace {
            return self.backend_state(route, b, mesh);
        }
        let k = route.kind as usize;
        if let Some(s) = self
            .target_states
            .get(target as usize)
            .and_then(|c| c.get(k))
            .copied()
            .flatten()
        {
            return s;
        }
        let s = self.backend_state(route, b, mesh);
        if let Some(slot) = self
            .target_states
            .get_mut(target as usize)
            .and_then(|c| c.get_mut(k))
        {
            *slot = Some(s);
        }
        s
    }

    fn granted(&self, route: &RouteIr, b: &BackendIr) -> bool {
        self.input.grants.iter().any(|g| {
            g.namespace == b.namespace
                && g.from.iter().any(|(grp, kind, ns)| {
                    grp == "gateway.networking.k8s.io"
                        && kind == route.kind.as_str()
                        && *ns == route.namespace
                })
                && g.to.iter().any(|(grp, kind, name)| {
                    *grp == b.group && *kind == b.kind && name.as_ref().is_none_or(|n| *n == b.name)
                })
        })
    }

    fn target(&mut self, b: &'i BackendIr) -> u32 {
        let key = TargetKey(b);
        if let Some(id) = self.target_ids.get(&key) {
            return *id;
        }
        let id = u32::try_from(self.targets.len()).unwrap_or(u32::MAX);
        let target = Target {
            group: self.intern(&b.group),
            kind: self.intern(&b.kind),
            namespace: self.intern(&b.namespace),
            name: self.intern(&b.name),
            port: b.port,
        };
        self.targets.push(target);
        self.target_states.push([None; 5]);
        self.target_ids.insert(key, id);
        id
    }

    /// Stores a non-empty set of extras and returns its index (0 for an empty one).
    fn push_extras(&mut self, e: Extras) -> u32 {
        if e.is_empty() {
            return 0;
        }
        let i = u32::try_from(self.extras.len()).unwrap_or(0);
        self.extras.push(e);
        i
    }

    fn compile_rule(
        &mut self,
        route_id: u32,
        index: u16,
        route: &RouteIr,
        rule: &'i RuleIr,
        mesh: bool,
    ) -> Option<u32> {
        let rewrite = |f: &FiltersIr| {
            f.rewrite.as_ref().map(|r| RewriteC {
                hostname: r.hostname.as_deref().map(Into::into),
                path: r.path.clone(),
            })
        };
        let mut extensions: Vec<String> = if rule.filters.extensions.is_empty() {
            Vec::new()
        } else {
            rule.filters.extensions.clone()
        };
        let action = if let Some(r) = &rule.filters.redirect {
            Action::Redirect(Box::new(r.clone()))
        } else if rule.filters.extensions.is_empty()
            || self.options.extension_refs == ExtensionRefs::PassThrough
        {
            if rule.backends.is_empty() {
                Action::Fail(RespondReason::NoBackends)
            } else {
                let start = u32::try_from(self.backends.len()).ok()?;
                for b in &rule.backends {
                    let target = self.target(b);
                    let mut state = self.backend_state_of(target, route, b, mesh);
                    if !b.filters.extensions.is_empty() {
                        if self.options.extension_refs == ExtensionRefs::Reject {
                            state = BackendState::Invalid(InvalidRef::InvalidKind);
                        } else {
                            extensions.extend(b.filters.extensions.iter().cloned());
                        }
                    }
                    // most backendRefs carry no filters: skip the clones entirely
                    let extras = if b.filters.request_headers.is_empty()
                        && b.filters.response_headers.is_empty()
                        && b.filters.rewrite.is_none()
                    {
                        0
                    } else {
                        self.push_extras(Extras {
                            request_headers: b.filters.request_headers.clone(),
                            response_headers: b.filters.response_headers.clone(),
                            rewrite: rewrite(&b.filters),
                            ..Extras::default()
                        })
                    };
                    self.backends.push(BackendEntry {
                        weight: b.weight,
                        target,
                        state,
                        extras,
                    });
                }
                let len = u32::try_from(rule.backends.len()).ok()?;
                Action::Backends(start, len)
            }
        } else {
            Action::Fail(RespondReason::UnsupportedFilter)
        };
        let mirrors: Vec<Mirror> = if rule.filters.mirrors.is_empty() {
            Vec::new()
        } else {
            rule.filters
                .mirrors
                .iter()
                .filter(|m| {
                    self.backend_state(route, &m.backend, mesh)
                        != BackendState::Invalid(InvalidRef::RefNotPermitted)
                })
                .filter(|m| {
                    matches!(
                        self.backend_state(route, &m.backend, mesh),
                        BackendState::Ok | BackendState::NoEndpoints
                    )
                })
                .map(|m| Mirror {
                    group: m.backend.group.clone(),
                    kind: m.backend.kind.clone(),
                    namespace: m.backend.namespace.clone(),
                    name: m.backend.name.clone(),
                    port: m.backend.port,
                    numerator: m.fraction.0,
                    denominator: m.fraction.1,
                })
                .collect()
        };
        let is_prefix_mod =
            |m: Option<&PathModifierIr>| matches!(m, Some(PathModifierIr::Prefix(_)));
        let needs_prefix =
            is_prefix_mod(rule.filters.redirect.as_ref().and_then(|r| r.path.as_ref()))
                || is_prefix_mod(rule.filters.rewrite.as_ref().and_then(|r| r.path.as_ref()))
                || rule.backends.iter().any(|b| {
                    is_prefix_mod(b.filters.rewrite.as_ref().and_then(|r| r.path.as_ref()))
                });
        let prefix: Option<Box<str>> = match rule.matches.as_slice() {
            [
                MatchIr::Http {
                    path: PathMatchIr::Prefix(p),
                    ..
                },
            ] if needs_prefix => Some(p.as_str().into()),
            _ => None,
        };
        // every unresolved reference of the rule, each with its own reason (a condition has
        // one reason, the first; its message lists them all)
        let mut problems: Vec<(&'static str, String)> = Vec::new();
        let mut note = |reason: &'static str, what: &str| {
            problems.push((reason, format!("rule {index}: {what}")));
        };
        match &action {
            Action::Backends(start, len) => {
                let start = *start as usize;
                let invalid: Vec<(usize, InvalidRef, u32)> = self
                    .backends
                    .get(start..start + *len as usize)
                    .unwrap_or(&[])
                    .iter()
                    .enumerate()
                    .filter_map(|(i, b)| match b.state {
                        BackendState::Invalid(r) => Some((i, r, b.target)),
                        _ => None,
                    })
                    .collect();
                for (i, r, target) in invalid {
                    let detail = self.invalid_detail(r, target);
                    note(r.as_str(), &format!("backendRefs[{i}]: {detail}"));
                    if let Ok(at) = u32::try_from(start + i) {
                        self.backend_problems.push((at, detail.into()));
                    }
                }
            }
            Action::Fail(RespondReason::UnsupportedFilter) => {
                note("InvalidKind", "ExtensionRef filters cannot be applied")
            }
            _ => {}
        }
        for (i, m) in rule.filters.mirrors.iter().enumerate() {
            if let BackendState::Invalid(r) = self.backend_state(route, &m.backend, mesh) {
                note(
                    r.as_str(),
                    &format!(
                        "RequestMirror {i}: backend {}/{} is not usable; the mirror is not configured",
                        m.backend.namespace, m.backend.name
                    ),
                );
            }
        }
        let id = u32::try_from(self.rules.len()).ok()?;
        if let Some((reason, _)) = problems.first() {
            let message: Vec<&str> = problems.iter().map(|(_, m)| m.as_str()).collect();
            self.rule_problems.push((id, (reason, message.join("; "))));
        }
        let name = match rule.name.as_deref() {
            None => 0,
            Some(n) => {
                let i = u32::try_from(self.rule_names.len()).ok()?;
                self.rule_names.push(n.into());
                i
            }
        };
        let extras = if rule.filters.request_headers.is_empty()
            && rule.filters.response_headers.is_empty()
            && rule.filters.rewrite.is_none()
            && mirrors.is_empty()
            && rule.filters.cors.is_none()
            && rule.timeouts.is_none()
            && rule.retry.is_none()
            && extensions.is_empty()
            && prefix.is_none()
        {
            0
        } else {
            self.push_extras(Extras {
                request_headers: rule.filters.request_headers.clone(),
                response_headers: rule.filters.response_headers.clone(),
                rewrite: rewrite(&rule.filters),
                mirrors,
                cors: rule.filters.cors.clone(),
                timeouts: rule.timeouts.clone(),
                retry: rule.retry.clone(),
                extensions,
                prefix,
            })
        };
        self.rules.push(RuleEntry {
            route: route_id,
            index,
            name,
            extras,
            action,
        });
        Some(id)
    }

    fn attach_service(
        &mut self,
        ri: usize,
        rank: RouteRank,
        route: &'i RouteIr,
        pi: usize,
        parent: &ParentRefIr,
        out: &mut SvcAttached,
    ) {
        let Some(route_id) = self.route(ri, rank, route) else {
            self.status.route_invalid(ri, pi);
            self.note_left_out(route, parent);
            return;
        };
        let si = self
            .svc_by_name
            .get(&(parent.namespace.as_str(), parent.name.as_str()))
            .copied();
        let Some(svc) = si.and_then(|i| self.input.services.get(i)) else {
            self.status
                .no_parent(ri, pi, "the parent Service does not exist");
            return;
        };
        if svc.external_name || svc.headless {
            // GEP-1294: headless and ExternalName Services have no frontend. A Service with no
            // cluster IP yet (not allocated in the manifests) is still a parent: its routes are
            // accepted and bind once it has an address.
            self.status.no_parent(
                ri,
                pi,
                "headless and ExternalName Services cannot be parents",
            );
            return;
        }
        let want_l4 = if route.kind == RouteKind::Udp {
            L4::Udp
        } else {
            L4::Tcp
        };
        // The matching Service ports, walked twice instead of collected: a `Vec` per
        // (route, parent) was one allocation per route of a snapshot of one-rule routes.
        let ports = || {
            svc.ports
                .iter()
                .enumerate()
                .filter(|(_, p)| parent.port.is_none_or(|want| want == p.port))
                .filter(|(_, p)| {
                    parent
                        .section_name
                        .as_ref()
                        .is_none_or(|s| p.name.as_ref() == Some(s))
                })
                .filter(move |(_, p)| p.protocol == want_l4)
        };
        if ports().next().is_none() {
            self.status.no_parent(
                ri,
                pi,
                "no Service port matches the parentRef port/sectionName",
            );
            return;
        }
        let rules = self.rules_of(ri, route_id, route, true);
        let start = rules.0 as usize;
        let ids = self
            .rule_id_pool
            .get(start..start + rules.1 as usize)
            .unwrap_or(&[]);
        self.status.rules(ri, pi, route, ids, &self.rule_problems);
        if ids.iter().all(Option::is_none) {
            // every rule was dropped: the route is not accepted and takes part in nothing
            // (not even the kind precedence of GEP-1294 route types)
            return;
        }
        let group = if route.namespace == parent.namespace {
            Group::Producer
        } else {
            Group::Consumer(route.namespace.clone())
        };
        let hosts: Rc<[Option<String>]> = match self.options.mesh_hostnames {
            MeshHostnames::Ignore => Rc::clone(&self.any_host),
            MeshHostnames::MatchHostHeader if route.hostnames.is_empty() => {
                Rc::clone(&self.any_host)
            }
            MeshHostnames::MatchHostHeader => route
                .hostnames
                .iter()
                .map(|h| Some(h.to_ascii_lowercase()))
                .collect(),
        };
        for (port_i, port) in ports() {
            let port_value = port.port;
            self.status.attached_mesh(
                ri,
                pi,
                si.unwrap_or_default(),
                port_value,
                group_key(&group),
            );
            if let Some(list) = out.get(si.unwrap_or_default(), port_i, &group) {
                list.push(
                    route.kind,
                    AttachedRoute {
                        route_id,
                        ri,
                        hosts: Rc::clone(&hosts),
                        rules,
                    },
                );
            }
        }
    }

    fn attach_gateway(
        &mut self,
        ri: usize,
        rank: RouteRank,
        route: &'i RouteIr,
        pi: usize,
        parent: &ParentRefIr,
        out: &mut BTreeMap<(usize, usize), Attached>,
    ) {
        let Some(route_id) = self.route(ri, rank, route) else {
            self.status.route_invalid(ri, pi);
            return;
        };
        let gi = self
            .gw_by_name
            .get(&(parent.namespace.as_str(), parent.name.as_str()))
            .copied();
        let Some(gw) = gi.and_then(|i| self.input.gateways.get(i)) else {
            self.status
                .no_parent(ri, pi, "the parent Gateway does not exist");
            return;
        };
        let gw: &GatewayIr = gw;
        let mut matched_section = false;
        let mut allowed = false;
        let mut attached = false;
        let mut attach_to = Vec::new();
        for (li, l) in gw.listeners.iter().enumerate() {
            if parent.section_name.as_ref().is_some_and(|s| *s != l.name)
                || parent.port.is_some_and(|p| p != l.port)
            {
                continue;
            }
            matched_section = true;
            let kinds = if l.allowed_kinds.is_empty() {
                l.protocol.default_kinds()
            } else {
                &l.allowed_kinds[..]
            };
            let ns_ok = match &l.allowed_namespaces {
                AllowedNamespaces::Same => route.namespace == gw.namespace,
                AllowedNamespaces::All => true,
                AllowedNamespaces::Only(set) => set.contains(&route.namespace),
            };
            if !kinds.contains(&route.kind) || !ns_ok {
                continue;
            }
            allowed = true;
            // Gateway API hostname intersection: effective hostnames are the intersections; a route
            // without hostnames gets the listener's hostname.
            let hosts: Vec<Option<String>> = if route.kind == RouteKind::Tcp
                || route.kind == RouteKind::Udp
            {
                vec![None]
            } else if route.hostnames.is_empty() {
                vec![l.hostname.clone()]
            } else {
                let mut hs: Vec<Option<String>> = route
                    .hostnames
                    .iter()
                    .filter_map(|h| hostname::intersect(l.hostname.as_deref(), Some(h.as_str())))
                    .map(|h| h.map(str::to_ascii_lowercase))
                    .collect();
                hs.sort();
                hs.dedup();
                hs
            };
            if hosts.is_empty() {
                continue;
            }
            attached = true;
            attach_to.push((li, hosts));
        }
        if !matched_section {
            self.status
                .no_parent(ri, pi, "no listener matches the parentRef sectionName/port");
            return;
        }
        if !allowed {
            self.status.not_allowed(ri, pi);
            return;
        }
        if !attached {
            self.status.no_hostname(ri, pi);
            return;
        }
        let rules = self.rules_of(ri, route_id, route, false);
        let start = rules.0 as usize;
        let ids = self
            .rule_id_pool
            .get(start..start + rules.1 as usize)
            .unwrap_or(&[]);
        self.status.rules(ri, pi, route, ids, &self.rule_problems);
        if ids.iter().all(Option::is_none) {
            // every rule was dropped: the route is not accepted and takes part in nothing
            // (not even the kind precedence of GEP-1294 route types)
            return;
        }
        self.status.attached_gateway(ri, pi);
        for (li, hosts) in attach_to {
            out.entry((gi.unwrap_or_default(), li)).or_default().push(
                route.kind,
                AttachedRoute {
                    route_id,
                    ri,
                    hosts: hosts.into(),
                    rules,
                },
            );
        }
    }

    /// Compiles one context's attached routes into an indexed [`RouteSet`].
    fn index_set(
        &mut self,
        attached: Attached,
        mesh: bool,
        label: SetLabel,
        ctx: (usize, u16, Option<String>),
    ) -> RouteSet {
        let mut set = RouteSet {
            label,
            ..RouteSet::default()
        };
        let mut by_kind = attached.by_kind;
        if mesh {
            // GEP-1294 route types: one TCP-carried kind per Service port and group: GRPC > HTTP >
            // TLS > TCP.
            let winner = KINDS
                .iter()
                .zip(&by_kind)
                .find(|(k, list)| **k != RouteKind::Udp && !list.is_empty())
                .map(|(k, _)| *k);
            set.mesh_kind = winner;
            for (k, list) in KINDS.iter().zip(by_kind.iter_mut()) {
                if *k != RouteKind::Udp && Some(*k) != winner {
                    for a in std::mem::take(list) {
                        self.status.conflicted(a.ri, ctx.clone(), winner);
                    }
                }
            }
        }
        for (kind, list) in KINDS.into_iter().zip(by_kind) {
            if list.is_empty() {
                continue;
            }
            match kind {
                RouteKind::Http => set.http = Some(self.index_http(&list)),
                RouteKind::Grpc => set.grpc = Some(Box::new(self.index_grpc(&list))),
                RouteKind::Tls => set.tls = Some(Box::new(self.index_tls(&list))),
                RouteKind::Tcp => set.tcp = self.first_rule(&list),
                RouteKind::Udp => set.udp = self.first_rule(&list),
            }
        }
        set
    }

    /// TCP/UDP: the oldest route (then namespace/name) wins (Gateway API GRPCRoute cross serving;
    /// GEP-2644 conflict management); its first rule.
    fn first_rule(&self, list: &[AttachedRoute]) -> Option<u32> {
        list.iter()
            .filter_map(|a| self.ranks.get(a.route_id as usize).map(|r| (*r, a)))
            .min_by_key(|(rank, _)| *rank)
            .and_then(|(_, a)| self.ids(a.rules).first().copied().flatten())
    }

    fn order(keys: &[PrecedenceKey]) -> impl Fn(&u32, &u32) -> std::cmp::Ordering + '_ {
        move |a, b| {
            let ka = keys.get(*a as usize);
            let kb = keys.get(*b as usize);
            ka.cmp(&kb)
        }
    }

    fn value_match(&mut self, m: &StrMatch) -> Option<ValueMatch> {
        match m {
            StrMatch::Exact(v) => Some(ValueMatch::Exact(v.as_str().into())),
            StrMatch::Regex(r) => self.regexes.intern(r).ok().map(ValueMatch::Regex),
        }
    }

    fn headers(&mut self, hs: &'i [(String, StrMatch)]) -> Option<NamedMatches> {
        self.named_matches(hs, Names::Header)
    }

    fn query(&mut self, qs: &'i [(String, StrMatch)]) -> Option<NamedMatches> {
        self.named_matches(qs, Names::Query)
    }

    /// A header or query match list compiled, or `None` when a value cannot be used (a
    /// regex over the limits). Of names that compare equal only the first entry counts.
    fn named_matches(
        &mut self,
        list: &'i [(String, StrMatch)],
        names: Names,
    ) -> Option<NamedMatches> {
        if list.is_empty() {
            return Some(NamedMatches::default());
        }
        // the same list on many rules (a tenant header, a canary flag): compiled once
        let cached = match names {
            Names::Header => self.header_lists.get(list),
            Names::Query => self.query_lists.get(list),
        };
        if let Some(m) = cached {
            return m.clone();
        }
        let mut out: Vec<(Arc<str>, ValueMatch)> = Vec::with_capacity(list.len());
        let mut ok = true;
        for (name, m) in list {
            let seen = match names {
                // Gateway API HTTPHeaderMatch: header names are case-insensitive; kept lowercase
                Names::Header => out.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)),
                // Gateway API HTTPQueryParamMatch: query parameter names are case-sensitive
                Names::Query => out.iter().any(|(n, _)| **n == **name),
            };
            if seen {
                continue;
            }
            let name = match names {
                Names::Header if name.bytes().any(|b| b.is_ascii_uppercase()) => {
                    self.intern(&name.to_ascii_lowercase())
                }
                _ => self.intern(name),
            };
            match self.value_match(m) {
                Some(v) => out.push((name, v)),
                None => {
                    ok = false;
                    break;
                }
            }
        }
        let m = ok.then(|| NamedMatches::from(out));
        match names {
            Names::Header => self.header_lists.insert(list, m.clone()),
            Names::Query => self.query_lists.insert(list, m.clone()),
        };
        m
    }

    /// Calls `f` on every (attached route, effective hostname, kept rule, match) of `list`,
    /// with the rank and hostname specificity the precedence key needs. The one walk shared by
    /// the HTTP and gRPC indexers; each only interprets its own [`MatchIr`] variant.
    fn for_each_match<'l>(
        &mut self,
        list: &'l [AttachedRoute],
        mut f: impl FnMut(&mut Self, MatchSite<'l, 'i>),
    ) {
        let input = self.input;
        for (j, a) in list.iter().enumerate() {
            touch::ahead(
                j,
                |n| list.get(n).and_then(|a| input.routes.get(a.ri)),
                touch::match_level,
            );
            let rank = self
                .ranks
                .get(a.route_id as usize)
                .copied()
                .unwrap_or_default();
            let Some(route_ir) = input.routes.get(a.ri) else {
                continue;
            };
            for host in a.hosts.iter() {
                let host_spec = HostSpecificity::of(host.as_deref());
                for rule_index in 0..a.rules.1 as usize {
                    let Some(rule_id) = self.ids(a.rules).get(rule_index).copied().flatten() else {
                        continue;
                    };
                    let Some(rule) = route_ir.rules.get(rule_index) else {
                        continue;
                    };
                    let rule_index = u16::try_from(rule_index).unwrap_or(u16::MAX);
                    for (mi, m) in rule.matches.iter().enumerate() {
                        f(
                            self,
                            MatchSite {
                                host: host.as_deref(),
                                host_spec,
                                rank,
                                rule_index,
                                rule_id,
                                match_index: u16::try_from(mi).unwrap_or(u16::MAX),
                                m,
                            },
                        );
                    }
                }
            }
        }
    }

    /// Appends a candidate and returns its id (`None` past `u32::MAX` candidates).
    fn push_cand(
        &mut self,
        key: PrecedenceKey,
        (rule, match_index): (u32, u16),
        method: u16,
        cond: Cond,
    ) -> Option<u32> {
        let cid = u32::try_from(self.cands.len()).ok()?;
        let cond = if cond == Cond::default() {
            0
        } else {
            let i = u32::try_from(self.conds.len()).ok()?;
            self.conds.push(cond);
            i
        };
        self.cands.push(Cand {
            rule,
            match_index,
            method,
            cond,
        });
        self.keys.push(key);
        Some(cid)
    }

    fn index_http(&mut self, list: &[AttachedRoute]) -> HostIndex<PathIndex> {
        let mut builders: HostIndex<crate::index::PathIndexBuilder> = HostIndex::default();
        self.for_each_match(list, |this, site| {
            let MatchIr::Http {
                path,
                method,
                headers,
                query,
            } = site.m
            else {
                return;
            };
            let (Some(hm), Some(qm)) = (this.headers(headers), this.query(query)) else {
                // a bad regex drops the match (the validator reports it)
                return;
            };
            let (slot, rank_path, path_regex) = match path {
                PathMatchIr::Exact(p) => (PathSlot::Exact(p), PathRank::Exact, None),
                PathMatchIr::Prefix(p) => (PathSlot::Prefix(p), PathRank::prefix(p), None),
                PathMatchIr::Regex(r) => match this.regexes.intern(r) {
                    Ok(i) => {
                        // other conditions may reject a candidate whose regex matched
                        let rejectable = method.is_some() || !hm.is_empty() || !qm.is_empty();
                        let slot = PathSlot::Regex {
                            regex: i,
                            rejectable,
                        };
                        (slot, PathRank::Regex, Some(i))
                    }
                    Err(_) => return,
                },
            };
            let method_id = this.method_index(method.as_deref());
            let facts = HttpMatchFacts {
                host: site.host_spec,
                path: rank_path,
                has_method: method.is_some(),
                headers: u8::try_from(hm.len()).unwrap_or(u8::MAX),
                query_params: u8::try_from(qm.len()).unwrap_or(u8::MAX),
            };
            let key = PrecedenceKey::http(facts, site.rank, site.rule_index);
            let cond = Cond {
                path_regex,
                headers: hm,
                query: qm,
                ..Cond::default()
            };
            if let Some(cid) =
                this.push_cand(key, (site.rule_id, site.match_index), method_id, cond)
            {
                let paths = &mut this.paths;
                let b = builders.group_mut(site.host, this.hash, || paths.index());
                this.paths.add(b, slot, cid);
            }
        });
        let order = Self::order(&self.keys);
        let (paths, regexes) = (&mut self.paths, &mut self.regexes);
        builders.map(|b| paths.finish(b, &order, regexes))
    }

    fn index_grpc(&mut self, list: &[AttachedRoute]) -> HostIndex<GrpcIndex> {
        let mut builders: HostIndex<GrpcIndexBuilder> = HostIndex::default();
        self.for_each_match(list, |this, site| {
            let MatchIr::Grpc {
                service,
                method,
                headers,
            } = site.m
            else {
                return;
            };
            let Some(hm) = this.headers(headers) else {
                return;
            };
            let mut cond = Cond {
                headers: hm,
                ..Cond::default()
            };
            let (mut svc_exact, mut method_exact) = (None, None);
            match service {
                Some(StrMatch::Exact(s)) => svc_exact = Some(s.as_str()),
                Some(StrMatch::Regex(r)) => match this.regexes.intern(r) {
                    Ok(i) => cond.service_regex = Some(i),
                    Err(_) => return,
                },
                None => {}
            }
            match method {
                Some(StrMatch::Exact(s)) => method_exact = Some(s.as_str()),
                Some(StrMatch::Regex(r)) => match this.regexes.intern(r) {
                    Ok(i) => cond.method_regex = Some(i),
                    Err(_) => return,
                },
                None => {}
            }
            let chars =
                |s: Option<&str>| s.map_or(0, |s| u16::try_from(s.len()).unwrap_or(u16::MAX));
            let facts = GrpcMatchFacts {
                host: site.host_spec,
                service_chars: chars(svc_exact),
                method_chars: chars(method_exact),
                headers: u8::try_from(cond.headers.len()).unwrap_or(u8::MAX),
            };
            let key = PrecedenceKey::grpc(facts, site.rank, site.rule_index);
            if let Some(cid) = this.push_cand(key, (site.rule_id, site.match_index), 0, cond) {
                builders
                    .group_mut(site.host, this.hash, || GrpcIndexBuilder::new(this.hash))
                    .add(svc_exact, method_exact, cid);
            }
        });
        let order = Self::order(&self.keys);
        builders.map(|b| b.finish(&order))
    }

    /// TLSRoute: by SNI hostname; among routes on the same hostname group the oldest wins.
    fn index_tls(&mut self, list: &[AttachedRoute]) -> HostIndex<Box<[u32]>> {
        let mut groups: HostIndex<Vec<u32>> = HostIndex::default();
        for a in list {
            let rank = self
                .ranks
                .get(a.route_id as usize)
                .copied()
                .unwrap_or_default();
            let Some(rule_id) = self.ids(a.rules).first().copied().flatten() else {
                continue;
            };
            let rule_index = 0u16;
            for host in a.hosts.iter() {
                let facts = HttpMatchFacts {
                    host: HostSpecificity::of(host.as_deref()),
                    path: PathRank::Regex,
                    has_method: false,
                    headers: 0,
                    query_params: 0,
                };
                let key = PrecedenceKey::http(facts, rank, rule_index);
                let Some(cid) = self.push_cand(key, (rule_id, 0), 0, Cond::default()) else {
                    continue;
                };
                groups
                    .group_mut(host.as_deref(), self.hash, Vec::new)
                    .push(cid);
            }
        }
        let order = Self::order(&self.keys);
        let freeze = |mut v: Vec<u32>| -> Box<[u32]> {
            v.sort_by(&order);
            v.into_boxed_slice()
        };
        groups.map(freeze)
    }
}

fn group_key(g: &Group) -> Option<String> {
    match g {
        Group::Producer => None,
        Group::Consumer(ns) => Some(ns.clone()),
    }
}

/// GEP-1911 backend protocol: a Service port's `appProtocol` the route kind cannot speak makes the
/// backend invalid. Only the KEP-3726 values and the plain names are known; anything else
/// (implementation-specific, domain-prefixed) is accepted.
fn app_protocol_compatible(kind: RouteKind, app: Option<&str>) -> bool {
    let Some(app) = app else { return true };
    match kind {
        RouteKind::Http => !matches!(app, "kubernetes.io/wss" | "grpc" | "udp"),
        RouteKind::Grpc => !matches!(
            app,
            "kubernetes.io/ws" | "kubernetes.io/wss" | "http" | "udp"
        ),
        RouteKind::Tls | RouteKind::Tcp => app != "udp",
        RouteKind::Udp => true,
    }
}

fn b_ns(targets: &[Target], id: u32) -> &str {
    targets.get(id as usize).map_or("?", |t| &t.namespace)
}

fn b_name(targets: &[Target], id: u32) -> &str {
    targets.get(id as usize).map_or("?", |t| &t.name)
}
