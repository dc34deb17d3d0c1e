//! The build (layer 6): a [`RouteTable`] compiled from [`TableInput`].
//!
//! Build order: rank routes (Gateway API HTTPRouteRule.matches precedence, oldest Route then
//! namespace/name order); compile each rule (regexes, backends, filters); attach each (route,
//! parentRef) to Service ports (mesh: producer or consumer group, GEP-1294 namespace boundaries) or
//! Gateway listeners (allowedRoutes, hostname intersection, Gateway API hostname intersection);
//! pick the winning route kind per mesh group (GEP-1294 route types); index every group (hostnames,
//! paths, gRPC methods) with candidate lists pre-sorted by precedence key. Nothing fails as a
//! whole: unusable routes, rules and parents are left out and reported through the parent
//! conditions.
//!
//! Files by role: `arena` (the growing arrays and interning), `attach` (which (route,
//! parentRef) lands on which Service port or listener), `backend` (backendRef validity),
//! `backend_tls` (BackendTLSPolicy slots and status), `rule` (compiling one rule), `set`
//! (indexing one frontend's route set, what incremental builds rerun), `bind` (addresses to
//! route sets), `workload` (claiming headless Services' endpoints), `read` and `routes`
//! (rules read in place or lowered), `canonical` (input order) and `touch`.
//!
//! May use: every layer up to the table (the vocabulary, the input, `regex/`, `cond`,
//! `index/`, `lower/`, the listener and Gateway status modules, `table/`); never the
//! queries, the updates or the façade.
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;

use crate::cond::{Cond, NamedMatches};
use crate::hash::{HashKeys, Map};
use crate::index::{PathKeysBuilder, shrink_slack};
use crate::input::TableInput;
use crate::precedence::{PrecedenceKey, RouteRank};
use crate::regex::RegexPool;
use crate::table::{
    BackendEntry, BackendState, BuildOptions, Cand, Extras, LeftOut, Part, RouteInfo, RouteSet,
    RouteTable, RuleEntry, ServiceInfo, Target,
};
use crate::table::{RuleProblem, StatusBuilder};

mod arena;
mod attach;
mod backend;
mod backend_tls;
mod bind;
mod canonical;
mod read;
mod routes;
mod rule;
mod set;
mod touch;
mod workload;

use arena::TargetKey;
use attach::RuleIds;
pub(crate) use backend_tls::policy_status;
use canonical::canonical_order;
use read::NamesRead;
pub(crate) use read::RouteRead;
pub(crate) use routes::Routes;
pub(crate) use workload::{bind_all, rebind, unclaim};

/// The entries the build's interning tables are first sized for ([`Builder::reserve`]).
const SMALL_TABLE: usize = 16;

pub(crate) struct Builder<'i> {
    input: &'i TableInput,
    /// The routes read: `input.routes`, or an update's shared ones.
    route_irs: Routes<'i>,
    options: &'i BuildOptions,
    svc_by_name: Map<(&'i str, &'i str), usize>,
    gw_by_name: Map<(&'i str, &'i str), usize>,
    /// ListenerSets by (namespace, name); the first of duplicates wins.
    ls_by_name: Map<(&'i str, &'i str), usize>,
    /// Which ListenerSets join which Gateway, and the merged listeners' conflicts (GEP-1713).
    merged: crate::listener_set::Merged,
    /// The ListenerSets' status, computed once routes are attached (binding reads which
    /// ListenerSets are accepted).
    ls_status: Vec<crate::listener_set_status::ListenerSetStatus>,
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
    /// The route-hostname specificities of an attachment that ranks by the intersection
    /// alone: empty, shared by every such attachment.
    no_route_hosts: Rc<[crate::hostname::HostSpecificity]>,
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
    /// (route, parentRef) pairs the parent did not accept, for views.
    not_accepted: Vec<crate::table::NotAccepted>,
    status: StatusBuilder,
    /// (listener owner, listener, input route) for every route attached to a listener with
    /// `Accepted=True`, for ListenerStatus.attachedRoutes (distinct routes per listener).
    listener_routes: std::collections::BTreeSet<(attach::Owner, usize, usize)>,
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
    header_lists: Map<NamesRead<'i>, Option<NamedMatches>>,
    query_lists: Map<NamesRead<'i>, Option<NamedMatches>>,
    /// BackendTLSPolicies by target, winner first (empty without policies).
    tls_candidates: backend_tls::Candidates<'i>,
    /// The policy settings in effect, by slot ([`Target::tls`]).
    tls_slots: Vec<crate::table::TlsSlot>,
    /// (winning policy, its slot).
    tls_slot_of: Vec<(usize, u32)>,
    /// (Service, route, parentRef) of every pair attached to a headless Service
    /// ([`crate::MeshBinding::Workloads`]).
    workload_pairs: Vec<(usize, usize, usize)>,
}

/// The distinct routes attached to listener `li` of `owner`.
fn count_routes(
    routes: &std::collections::BTreeSet<(attach::Owner, usize, usize)>,
    owner: attach::Owner,
    li: usize,
) -> u32 {
    let n = routes
        .range((owner, li, 0)..=(owner, li, usize::MAX))
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<'i> Builder<'i> {
    /// Starts from regexes already compiled (by lowering): each distinct regex of a build is
    /// compiled once.
    pub(crate) fn with_regexes(mut self, regexes: RegexPool) -> Self {
        self.regexes = regexes;
        self
    }

    pub(crate) fn new(input: &'i TableInput, options: &'i BuildOptions) -> Self {
        Self::with_routes(input, Routes::input(&input.routes), options)
    }

    /// A builder reading `routes` instead of `input.routes` (an update: its scope's routes,
    /// shared with the tables that keep them).
    pub(crate) fn with_routes(
        input: &'i TableInput,
        routes: Routes<'i>,
        options: &'i BuildOptions,
    ) -> Self {
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
        let mut ls_by_name = Map::with_capacity_and_hasher(input.listener_sets.len(), hash);
        for (i, l) in input.listener_sets.iter().enumerate() {
            ls_by_name
                .entry((l.namespace.as_str(), l.name.as_str()))
                .or_insert(i);
        }
        Self {
            ls_by_name,
            merged: crate::listener_set::merge(input),
            ls_status: Vec::new(),
            hash,
            header_lists: Map::with_hasher(hash),
            query_lists: Map::with_hasher(hash),
            input,
            route_irs: routes,
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
            // entry 0 is pushed once the size is known (`reserve`)
            conds: Vec::new(),
            paths: PathKeysBuilder::new(hash),
            rule_ids: vec![[None, None]; routes.len()],
            any_host: Rc::from([None]),
            no_route_hosts: Rc::from([]),
            rule_id_pool: Vec::new(),
            target_states: Vec::new(),
            route_id: vec![None; routes.len()],
            rule_problems: Vec::new(),
            backend_problems: Vec::new(),
            left_out: Vec::new(),
            not_accepted: Vec::new(),
            strings: HashSet::with_hasher(hash),
            methods: vec!["".into()],
            targets: Vec::new(),
            target_ids: Map::with_hasher(hash),
            backends: Vec::new(),
            extras: vec![Extras::default()],
            rule_names: vec!["".into()],
            names: String::new(),
            status: StatusBuilder::default(),
            listener_routes: std::collections::BTreeSet::new(),
            tls_candidates: backend_tls::candidates(input),
            tls_slots: Vec::new(),
            tls_slot_of: Vec::new(),
            workload_pairs: Vec::new(),
        }
    }

    /// Sizes the build's arrays from one pass over the input (routes, rules, matches,
    /// backendRefs, parentRefs) instead of growing them by doubling: at 100,000 routes the
    /// doublings copied tens of megabytes into fresh pages.
    fn reserve(&mut self) {
        let routes = self.route_irs;
        let (mut rules, mut matches, mut backends, mut pairs) = (0usize, 0usize, 0usize, 0usize);
        for r in routes.iter() {
            rules += r.rules.len();
            pairs += r.ir.parents.len();
            for rule in r.rules.iter() {
                // a rule without matches still gets one candidate (TLS, TCP)
                matches += rule.matches.len().max(1);
                backends += rule.backends.len();
            }
        }
        let n = routes.len();
        self.routes.reserve(n);
        self.ranks.reserve(n);
        self.rules.reserve(rules);
        self.rule_id_pool.reserve(rules);
        self.backends.reserve(backends);
        self.cands.reserve(matches);
        self.keys.reserve(matches);
        // a candidate with conditions beyond its path and method has one (an upper bound);
        // allocated once at that size, with the unused entry 0
        self.conds.reserve_exact(matches + 1);
        if self.conds.is_empty() {
            self.conds.push(Cond::default());
        }
        // every build with a backend interns a few strings and targets: the first sizes,
        // which a small build (an update's) would otherwise grow through one by one, each
        // growth a new table and a rehash
        self.strings.reserve(SMALL_TABLE);
        self.target_ids.reserve(SMALL_TABLE);
        self.paths.reserve(matches);
        self.status.reserve(pairs);
    }

    /// Builds the whole table.
    pub(crate) fn build(self) -> RouteTable {
        self.build_keeping(crate::lower::Lowered::default())
    }

    /// Builds the whole table, its part keeping `lowered` (the routes it read, lowered:
    /// [`crate::BuildOptions::keep_lowered_routes`]).
    pub(crate) fn build_keeping(self, lowered: crate::lower::Lowered) -> RouteTable {
        let hash = self.hash;
        let mut built = self.build_part(crate::table::Covers::All);
        built.part.lowered = lowered;
        let part = Arc::new(built.part);
        let mut bindings = crate::table::Bindings::from_map(built.bindings, &part, hash);
        let mut workloads = crate::table::Workloads::new();
        workload::bind_all(&mut bindings, &part, built.workloads, &mut workloads);
        RouteTable {
            bindings,
            workloads: Arc::new(workloads),
            parts: vec![part],
            statuses: std::sync::OnceLock::new(),
            frontend_index: std::sync::OnceLock::new(),
            gateway_status: Arc::new(built.gateway_status),
            listener_set_status: Arc::new(built.listener_set_status),
            backend_tls_status: Arc::new(built.backend_tls_status),
            left_out: Arc::new(built.left_out),
            secrets_complete: false,
            cluster_trust_bundles_complete: false,
        }
    }

    /// Builds the part of the input's routes, Services and Gateways, with the bindings that
    /// lead to its route sets: the whole table, or the frontends an update rebuilds.
    pub(crate) fn build_part(mut self, covers: crate::table::Covers) -> Built {
        let input = self.input;
        self.reserve();
        // Deterministic processing order regardless of input order: kind, namespace, name;
        // duplicate (kind, namespace, name) entries: the first in canonical order is kept.
        let canonical = canonical_order(self.route_irs, self.hash);
        let (order, ranks) = (canonical.order, canonical.ranks);
        self.namespaces = canonical.namespaces.iter().map(|n| (*n).into()).collect();
        self.route_ns = canonical.route_ns;

        let (svc_attached, gw_attached) = self.attach_all(&order, &ranks);
        self.ls_status = crate::listener_set_status::compute(input, &self.merged, |lsi, li| {
            count_routes(&self.listener_routes, attach::Owner::Set(lsi), li)
        });
        let mut sets: Vec<RouteSet> = Vec::new();
        let mut bindings: bind::Bindings = Map::with_hasher(self.hash);
        let workloads = self.bind_services(svc_attached, &mut sets, &mut bindings);
        self.bind_listeners(gw_attached, &mut sets, &mut bindings);
        let mut built = self.freeze(sets, bindings, covers);
        built.workloads = workloads;
        built
    }

    /// Turns the build state and the route sets into the table, dropping the arrays' slack.
    fn freeze(
        mut self,
        mut sets: Vec<RouteSet>,
        bindings: bind::Bindings,
        covers: crate::table::Covers,
    ) -> Built {
        let input = self.input;
        let status =
            std::mem::take(&mut self.status).finish(|ri| self.route_irs.ir(ri), &self.route_id);
        let tls_reached = self.tls_reached(&status);
        let backend_tls_status =
            backend_tls::policy_status(input, &backend_tls::reached_pairs(&tls_reached));
        let listener_routes = std::mem::take(&mut self.listener_routes);
        let ls_status = std::mem::take(&mut self.ls_status);
        let merged = std::mem::take(&mut self.merged);
        let gateway_status = crate::gateway_status::compute(
            input,
            |gi, li| count_routes(&listener_routes, attach::Owner::Gateway(gi), li),
            |gi| {
                // GatewayStatus.attachedListenerSets: selected by allowedListeners, a parentRef
                // selecting the Gateway, and Accepted=True
                let n = merged
                    .sets
                    .iter()
                    .zip(&ls_status)
                    .filter(|(f, s)| {
                        f.attachment == crate::listener_set::Attachment::Attached(gi)
                            && s.is_accepted()
                    })
                    .count();
                u32::try_from(n).unwrap_or(u32::MAX)
            },
        );
        let mut ls_status = ls_status;
        ls_status.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        // duplicates of one namespace/name: the first in input order, as the build keeps
        ls_status.dedup_by(|b, a| a.namespace == b.namespace && a.name == b.name);
        let listener_sets: Vec<ServiceInfo> = input
            .listener_sets
            .iter()
            .map(|l| self.parent_info(&l.namespace, &l.name))
            .collect();
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
        // the build grew these by doubling, or reserved an upper bound: drop the slack (up
        // to half of each) where it weighs something
        shrink_slack(&mut self.rules);
        shrink_slack(&mut self.cands);
        shrink_slack(&mut self.conds);
        shrink_slack(&mut self.targets);
        shrink_slack(&mut self.backends);
        shrink_slack(&mut self.extras);
        shrink_slack(&mut self.rule_names);
        shrink_slack(&mut self.routes);
        shrink_slack(&mut sets);
        let part = Part {
            paths: self.paths.freeze(),
            routes: self.routes,
            namespaces: self.namespaces.into_boxed_slice(),
            rules: self.rules,
            cands: self.cands,
            keys: self.keys.into_boxed_slice(),
            conds: self.conds,
            regexes: self.regexes.finished(),
            sets,
            services,
            gateways,
            listener_sets,
            status,
            covers,
            lowered: crate::lower::Lowered::default(),
            backend_tls: self.tls_slots,
            tls_reached: tls_reached.into_boxed_slice(),
            methods: self.methods,
            targets: self.targets,
            backends: self.backends,
            backend_problems: self.backend_problems,
            extras: self.extras,
            rule_names: self.rule_names,
            names: self.names,
            not_accepted: {
                let mut n = std::mem::take(&mut self.not_accepted);
                n.sort();
                n.dedup();
                n.into_boxed_slice()
            },
        };
        Built {
            part,
            bindings,
            gateway_status,
            listener_set_status: ls_status,
            backend_tls_status,
            left_out: self.left_out,
            workloads: Vec::new(),
        }
    }
}

/// One build's output: its part, and the bindings, Gateway status and left-out routes of the
/// input it read.
pub(crate) struct Built {
    pub(crate) part: Part,
    pub(crate) bindings: bind::Bindings,
    pub(crate) gateway_status: Vec<crate::gateway_status::GatewayStatus>,
    pub(crate) listener_set_status: Vec<crate::listener_set_status::ListenerSetStatus>,
    pub(crate) backend_tls_status: Vec<crate::backend_tls::BackendTlsPolicyStatus>,
    pub(crate) left_out: Vec<LeftOut>,
    /// The headless Services with routes whose endpoints bind them
    /// ([`crate::MeshBinding::Workloads`]; claimed once the part exists).
    pub(crate) workloads: Vec<workload::Built>,
}
