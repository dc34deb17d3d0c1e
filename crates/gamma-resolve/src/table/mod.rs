//! The compiled route table: [`RouteTable`], what it is made of, and every public method it
//! has (building it, resolving and explaining requests, its conditions and counters).

use std::net::IpAddr;
use std::sync::Arc;

use crate::cond::Cond;
use crate::regex::{HoldsRegexes, RegexPool};
use crate::decision::Decision;
use crate::explain::Explanation;
use crate::index::PathKeys;
use crate::input::TableInput;
use crate::precedence::PrecedenceKey;
use crate::request::Request;
use crate::status::ParentStatus;

mod bindings;
mod compiled;
mod covers;
mod frontends;
mod options;
mod status;
mod workloads;

pub(crate) use compiled::*;
pub(crate) use bindings::{Bindings, Key, Slot};
pub(crate) use covers::{Covers, Scope};
pub(crate) use frontends::{FrontendIndex, NextFrontend};
pub(crate) use status::{RuleProblem, StatusBuilder, StatusSource, render_statuses};
pub(crate) use workloads::{
    Frontends, Pair, ServiceName, Workloads, add_conflicts, claim_name, claims, is_claim_of,
};
pub use options::{
    BuildOptions, ExtensionRefs, MeshBinding, MeshHostnames, MeshReferenceGrants, RouteParentKey,
};

/// A compiled, indexed route table. Build once per snapshot; resolve many times; after one
/// object changed, [`RouteTable::update`] rebuilds only the frontends it affects and shares
/// the rest with the previous table (see `docs/incremental.md`).
#[derive(Debug)]
pub struct RouteTable {
    /// The compiled arrays, oldest first: the full build's, then one per update (the frontends
    /// it rebuilt). A binding names the part its route sets live in.
    pub(crate) parts: Vec<Arc<Part>>,
    /// Every (address, port, transport) bound: the part of its route sets, and the binding.
    pub(crate) bindings: Bindings,
    /// The headless Services with routes, what their endpoints bind
    /// ([`MeshBinding::Workloads`]; empty otherwise).
    pub(crate) workloads: Arc<Workloads>,
    /// The rendered conditions, on first use: a resolver that never reports status never
    /// pays for their strings.
    pub(crate) statuses: std::sync::OnceLock<Vec<ParentStatus>>,
    /// Lookups by frontend for traces and views, on first use (see [`crate::view`]).
    pub(crate) frontend_index: std::sync::OnceLock<FrontendIndex>,
    /// Every Gateway's computed status, by (namespace, name) (shared by the tables an update
    /// makes until one rebuilds a Gateway, as are the three below).
    pub(crate) gateway_status: Arc<Vec<crate::gateway_status::GatewayStatus>>,
    /// Every ListenerSet's computed status, by (namespace, name).
    pub(crate) listener_set_status: Arc<Vec<crate::listener_set_status::ListenerSetStatus>>,
    /// Every BackendTLSPolicy's status, by (namespace, name).
    pub(crate) backend_tls_status: Arc<Vec<crate::backend_tls::BackendTlsPolicyStatus>>,
    /// Routes left out of the table, per Service parent they named (rare).
    pub(crate) left_out: Arc<Vec<LeftOut>>,
    /// [`gamma_model::Snapshot::secrets_complete`] of the snapshot built from: an update from
    /// a snapshot that says otherwise rebuilds the table (every certificate reference changes
    /// meaning).
    pub(crate) secrets_complete: bool,
}

/// One build's compiled arrays: the whole table's after a full build, the rebuilt frontends'
/// after an update. Route sets index only their own part's arrays, so a part is shared
/// between tables (by `Arc`) for as long as any of its frontends is unchanged.
#[derive(Debug)]
pub(crate) struct Part {
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
    pub(crate) services: Vec<ServiceInfo>,
    pub(crate) gateways: Vec<ServiceInfo>,
    /// ListenerSet names, by input index (explanations).
    pub(crate) listener_sets: Vec<ServiceInfo>,
    /// What the parent conditions of this part's routes are made of (compact, kept from the
    /// build).
    pub(crate) status: StatusSource,
    /// The routes whose parent conditions this part holds (every route its build read,
    /// and the routes an update removed): a newer part's conditions of a route replace an
    /// older part's.
    pub(crate) covers: Covers,
    /// The lowered routes this part's build read, for later updates and builds (an update's
    /// scope; every route of a full build under [`BuildOptions::keep_lowered_routes`]; else
    /// empty).
    pub(crate) lowered: crate::lower::Lowered,
    /// The BackendTLSPolicy settings in effect, by [`Target::tls`].
    pub(crate) backend_tls: Vec<TlsSlot>,
    /// The (route, ancestor, Service target) pairs of this part's accepted routes on Services
    /// some BackendTLSPolicy targets: what the policies' status is made of.
    pub(crate) tls_reached: Box<[TlsReached]>,
    /// Method names used by method conditions; index 0 is unused (no condition).
    pub(crate) methods: Vec<Box<str>>,
    /// Distinct backend targets.
    pub(crate) targets: Vec<Target>,
    /// Backends of every rule, by runs.
    pub(crate) backends: Vec<BackendEntry>,
    /// Why each invalid backend of [`Part::backends`] is invalid (reason first), by
    /// index: sparse, for explanations.
    pub(crate) backend_problems: Vec<(u32, Box<str>)>,
    /// Filters, timeouts and the like of rules and backends; index 0 is the empty set.
    pub(crate) extras: Vec<Extras>,
    /// Rule names; index 0 is unused (unnamed).
    pub(crate) rule_names: Vec<Box<str>>,
    /// Service and Gateway names ([`NameRef`]s point here).
    pub(crate) names: String,
    /// The (route, parentRef) pairs this part's build read that their parent did not accept
    /// (sorted by parent): rare, for views and explanations.
    pub(crate) not_accepted: Box<[NotAccepted]>,
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
    /// Builds a table from a snapshot: lowers it (defaults, selectors, readiness, dropped
    /// rules) and compiles it. Never fails as a whole; see [`RouteTable::parent_conditions`].
    pub fn build(snapshot: &gamma_model::Snapshot, options: &BuildOptions) -> Self {
        Self::lower_and_compile(snapshot, options, crate::regex::RegexPool::default(), &[])
    }

    /// Builds a table from a snapshot as [`RouteTable::build`] does, taking the compiled
    /// regexes and regex sets of `previous` (any earlier table, e.g. the one this build
    /// replaces) wherever it needs the same ones instead of compiling them again: across
    /// builds each distinct regex is compiled once. The result is the table
    /// `RouteTable::build(snapshot, options)` returns: it resolves, explains and reports
    /// alike (the same pattern compiles to the same matcher). It shares the regexes it uses
    /// with `previous` (by `Arc`), and nothing else; `previous` stays valid.
    pub fn build_reusing(
        snapshot: &gamma_model::Snapshot,
        options: &BuildOptions,
        previous: &RouteTable,
    ) -> Self {
        let regexes = crate::regex::RegexPool::reusing(&previous.parts);
        Self::lower_and_compile(snapshot, options, regexes, &previous.parts)
    }

    /// (Not named `build*`: the callgrind recipe of benches/README.md collects
    /// `*RouteTable*build*`, and a nested match would toggle collection off.) `kept`: the
    /// parts whose kept lowered routes are taken for unchanged objects
    /// ([`BuildOptions::keep_lowered_routes`]).
    fn lower_and_compile(
        snapshot: &gamma_model::Snapshot,
        options: &BuildOptions,
        mut regexes: crate::regex::RegexPool,
        kept: &[Arc<Part>],
    ) -> Self {
        let opts = options.validate_options();
        let mut table = if options.keep_lowered_routes {
            let kept: Vec<&crate::lower::Lowered> = kept.iter().map(|p| &p.lowered).collect();
            let (input, (routes, objects, wire)) =
                crate::lower::lower_sharing(snapshot, &opts, &mut regexes, &kept);
            let lowered = crate::lower::Lowered::new(
                objects
                    .into_iter()
                    .zip(&routes)
                    .zip(&wire)
                    .map(|(((k, o), r), w)| (k, (o, Arc::clone(r), w.is_some()))),
                options.hash_seed,
                gamma_model::validate::Bundle::new(options.release, options.channel),
            );
            crate::build::Builder::with_routes(
                &input,
                crate::build::Routes::shared(&routes, &wire),
                options,
            )
            .with_regexes(regexes)
            .build_keeping(lowered)
        } else {
            // lowering accepts every regex (parsing it, and compiling it unless its size is
            // bounded already); the build reuses those
            let (input, wire) = crate::lower::lower_reading(snapshot, &opts, &mut regexes);
            crate::build::Builder::with_routes(
                &input,
                crate::build::Routes::reading(&input.routes, &wire),
                options,
            )
            .with_regexes(regexes)
            .build()
        };
        table.secrets_complete = snapshot.secrets_complete();
        table
    }

    /// Compiles a table from lowered input. Never fails: unusable parts are reported.
    pub fn from_input(input: &TableInput, options: &BuildOptions) -> Self {
        crate::build::Builder::new(input, options).build()
    }

    /// Resolves one request. `entropy` drives the weighted backend pick (any `u64`: a random
    /// number, or a hash of the connection for stickiness). Allocation-free.
    #[inline]
    pub fn resolve<'a>(&'a self, req: &Request<'a>, entropy: u64) -> Decision<'a> {
        self.decide(req, entropy)
    }

    /// Explains the decision for `req` step by step. Allocates; use [`RouteTable::resolve`]
    /// on hot paths.
    pub fn explain(&self, req: &Request<'_>, entropy: u64) -> Explanation {
        self.explanation(req, entropy)
    }

    /// For every (route, parentRef) the build considered: the `Accepted`, `ResolvedRefs` and
    /// (when some rules were dropped) `PartiallyInvalid` conditions, with upstream reasons.
    pub fn parent_conditions(&self) -> &[ParentStatus] {
        self.statuses.get_or_init(|| {
            let mut s = render_statuses(&self.parts);
            add_conflicts(&mut s, &self.bindings, &self.workloads);
            s
        })
    }

    /// Every Gateway's status for a gateway controller, by (namespace, name): the Gateway's
    /// `Accepted`, each listener's `Accepted`, `ResolvedRefs`, `Conflicted`, `attachedRoutes`
    /// and `supportedKinds` (see [`crate::gateway_status`]). A controller writes only those of
    /// the Gateways it owns; `Programmed` is its own to add.
    pub fn gateway_status(&self) -> &[crate::gateway_status::GatewayStatus] {
        &self.gateway_status
    }

    /// The status of every ListenerSet of the input, ordered by namespace and name (GEP-1713):
    /// its `Accepted` (`NotAllowed` when its Gateway's `allowedListeners` does not admit it,
    /// `ParentNotAccepted`, `ListenersNotValid`), and per listener `Accepted`, `ResolvedRefs`,
    /// `Conflicted` (in GEP-1713 listener precedence), `attachedRoutes` and `supportedKinds`
    /// (see [`crate::listener_set_status`]). A controller writes those whose parent Gateway it
    /// owns, and decides `Programmed=True` itself.
    pub fn listener_set_status(&self) -> &[crate::listener_set_status::ListenerSetStatus] {
        &self.listener_set_status
    }

    /// Every BackendTLSPolicy's status, by (namespace, name): per ancestor (the Gateways and
    /// mesh parent Services of the accepted routes whose backends the policy targets),
    /// `Accepted` and `ResolvedRefs` (see [`crate::backend_tls`]). A controller writes the
    /// entries of the ancestors it owns, with its `controllerName`.
    pub fn backend_tls_policy_status(&self) -> &[crate::backend_tls::BackendTlsPolicyStatus] {
        &self.backend_tls_status
    }

    /// Why routes (or rules) that named a Service with cluster IP `ip`, or a Gateway (or one
    /// of its ListenerSets) with address `ip`, as parent are not in the table: routes the API server would refuse under the build's channel
    /// (`HTTPRoute ns/x was left out: <error>`, their status `Accepted=False`) and rules of
    /// admitted routes that gamma-rs does not serve (`HTTPRoute ns/x rule 1 was dropped
    /// (<reason>): <error>`, their status `PartiallyInvalid`). A request to that Service is
    /// resolved without them, so a tool explaining it should say so rather than show another
    /// route (kind) as if it were the only one.
    ///
    /// Gateways and ListenerSets the API server would refuse come first, as `Gateway ns/name
    /// was left out: <error>` at the Gateway's addresses and `ListenerSet ns/name was left
    /// out: <error>` at its parent Gateway's (their status `Accepted=False`, reason `Invalid`):
    /// nothing of them is served, so a request there is resolved as if they did not exist.
    pub fn left_out_at(&self, ip: IpAddr) -> impl Iterator<Item = &str> {
        let at = move |g: &&crate::gateway_status::GatewayStatus| g.addresses.contains(&ip);
        let gateways = self
            .gateway_status
            .iter()
            .filter(at)
            .filter_map(|g| g.left_out.as_deref());
        let listener_sets = self
            .listener_set_status
            .iter()
            .filter(move |l| {
                l.left_out.is_some()
                    && l.gateway.as_ref().is_some_and(|parent| {
                        self.gateway_status
                            .iter()
                            .filter(at)
                            .any(|g| parent.is(&g.namespace, &g.name))
                    })
            })
            .filter_map(|l| l.left_out.as_deref());
        gateways.chain(listener_sets).chain(
            self.left_out
                .iter()
                .filter(move |l| l.ips.contains(&ip))
                .map(|l| &*l.text),
        )
    }

    /// [`RouteTable::left_out_at`] for Service `namespace/name`, whether it has an address.
    pub fn left_out_for_service<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> impl Iterator<Item = &'a str> {
        self.left_out
            .iter()
            .filter(move |l| l.service && &*l.namespace == namespace && &*l.name == name)
            .map(|l| &*l.text)
    }

    /// Counters describing the table. After [`RouteTable::update`] the compiled counts
    /// include what the shared parts still hold of frontends an update replaced, until the
    /// next full build.
    pub fn stats(&self) -> TableStats {
        let mut s = TableStats {
            bindings: self.bindings.len(),
            ..TableStats::default()
        };
        for p in &self.parts {
            s.routes += p.routes.len();
            s.rules += p.rules.len();
            s.candidates += p.cands.len();
            s.regexes += p.regexes.len();
            s.route_sets += p.sets.len();
        }
        s
    }
}

impl HoldsRegexes for Part {
    fn regexes(&self) -> &RegexPool {
        &self.regexes
    }
}

/// Crate-internal accessors of the compiled arrays (the resolve and explain paths).
impl Part {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUTES: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: web, namespace: app}
spec: {clusterIP: 10.96.0.1, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{kind: Service, group: "", name: web}]
  rules:
  - matches: [{path: {type: RegularExpression, value: '/v[0-9]+/.*'}}]
    backendRefs: [{name: web, port: 80}]
  - matches:
    - path: {type: RegularExpression, value: '/v[0-9]+/.*'}
      headers: [{type: RegularExpression, name: x-id, value: '[a-f]+'}]
    backendRefs: [{name: web, port: 80}]
"#;

    const MORE: &str = r#"
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: s, namespace: app}
spec:
  parentRefs: [{kind: Service, group: "", name: web}]
  rules:
  - matches: [{path: {type: RegularExpression, value: '/w[0-9]+'}}]
    backendRefs: [{name: web, port: 80}]
"#;

    fn snapshot_of(yaml: &str) -> gamma_model::Snapshot {
        gamma_model::Snapshot::from_resources(gamma_model::decode(yaml).unwrap_or_default())
    }

    /// Each regex of the table's first part, by pattern, with the address of its matcher.
    fn regexes_of(table: &RouteTable) -> std::collections::BTreeMap<String, usize> {
        table.parts[0]
            .regexes
            .compiled()
            .iter()
            .map(|re| (re.as_str().to_string(), Arc::as_ptr(re) as usize))
            .collect()
    }

    // Across builds each distinct regex is compiled once: a build that takes an earlier
    // table's regexes compiles only the new ones (and reuses a regex set over the same
    // regexes), and decides every request as a build from scratch.
    #[test]
    fn a_build_reusing_an_earlier_table_compiles_only_new_regexes() {
        let options = BuildOptions::default();
        let first = RouteTable::build(&snapshot_of(ROUTES), &options);
        let same = RouteTable::build_reusing(&snapshot_of(ROUTES), &options, &first);
        assert_eq!(regexes_of(&same), regexes_of(&first));
        let (a, b) = (first.parts[0].regexes.sets(), same.parts[0].regexes.sets());
        assert_eq!((a.len(), b.len()), (1, 1));
        assert!(a.iter().zip(b).all(|(a, b)| b.shares_engines_with(a)));

        let snapshot = snapshot_of(&format!("{ROUTES}{MORE}"));
        let later = RouteTable::build_reusing(&snapshot, &options, &first);
        let fresh = RouteTable::build(&snapshot, &options);
        let (before, after) = (regexes_of(&first), regexes_of(&later));
        assert_eq!(after.len(), 3);
        for (pattern, at) in &after {
            // the earlier table's two are the same matchers, the new one is compiled anew
            assert_eq!(
                before.get(pattern).is_some_and(|b| b == at),
                before.contains_key(pattern)
            );
        }
        assert!(after.keys().any(|p| p.contains("/w[0-9]+")));
        let ip = "10.96.0.1"
            .parse()
            .unwrap_or(std::net::IpAddr::from([0, 0, 0, 0]));
        for path in ["/v1/x", "/w2", "/w", "/v/x", "/", "/w12?q"] {
            let req = Request::http(ip, 80, "GET", path);
            assert_eq!(
                format!("{:?}", later.resolve(&req, 7)),
                format!("{:?}", fresh.resolve(&req, 7)),
                "{path}"
            );
        }
        // the earlier table is untouched
        assert_eq!(regexes_of(&first), before);
    }

    // Each distinct regex of a build is compiled once: the regexes lowering compiled to
    // validate the routes are the table's own (the same compiled objects, not equal copies).
    #[test]
    fn a_build_from_a_snapshot_compiles_each_regex_once() {
        let resources = gamma_model::decode(ROUTES).unwrap_or_default();
        let snapshot = gamma_model::Snapshot::from_resources(resources);
        let mut regexes = crate::regex::RegexPool::default();
        let opts = gamma_model::validate::ValidateOptions::default();
        let input = crate::lower::lower_into(&snapshot, &opts, &mut regexes);
        assert_eq!(regexes.len(), 2);
        let lowered: Vec<*const u8> = (0..2)
            .filter_map(|i| regexes.get(i).map(|re| re.as_str().as_ptr()))
            .collect();
        let table = crate::build::Builder::new(&input, &BuildOptions::default())
            .with_regexes(regexes)
            .build();
        assert_eq!(table.stats().regexes, 2);
        let built: Vec<*const u8> = (0..2)
            .filter_map(|i| table.parts[0].regexes.get(i).map(|re| re.as_str().as_ptr()))
            .collect();
        assert_eq!(lowered, built);
        // and the table built through `RouteTable::build` has the same regexes
        assert_eq!(
            RouteTable::build(&snapshot, &BuildOptions::default())
                .stats()
                .regexes,
            2
        );
    }
}
