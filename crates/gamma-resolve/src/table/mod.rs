//! The compiled route table (layer 5): [`RouteTable`] and what it is made of: its parts
//! ([`Part`]: compiled routes, rules, candidates, route sets, regexes), bindings, workloads,
//! frontend index, the covers of each part, the route conditions it keeps
//! (`status.rs`: the status builder and source) and its options. Its public methods are in
//! `api.rs`.
//!
//! May use: the vocabulary, the input, `regex/`, `cond`, `index/`, `lower/` (kept routes)
//! and the Gateway/ListenerSet status types; never the build, the queries, the updates or
//! the façade.

use std::sync::Arc;

use crate::cond::Cond;
use crate::index::PathKeys;
use crate::precedence::PrecedenceKey;
use crate::regex::{HoldsRegexes, RegexPool};
use crate::status::ParentStatus;

mod bindings;
mod compiled;
mod covers;
mod frontends;
mod options;
mod status;
mod workloads;

pub(crate) use bindings::{Bindings, Key, Slot};
pub(crate) use compiled::*;
pub(crate) use covers::{
    Covers, Frontend, NameKeys, RouteKeys, Scope, ScopeRoute, frontend_parents,
};
pub(crate) use frontends::{FrontendIndex, NextFrontend};
pub use options::{
    BuildOptions, ExtensionRefs, HostnamePrecedence, MeshBinding, MeshHostnames,
    MeshReferenceGrants, RouteParentKey,
};
pub(crate) use status::{RuleProblem, StatusBuilder, StatusSource, render_statuses};
pub(crate) use workloads::{
    Frontends, Pair, ServiceName, Workloads, add_conflicts, claim_name, claims, is_claim_of,
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
    /// [`gamma_model::Snapshot::cluster_trust_bundles_complete`] of the snapshot built from,
    /// likewise for CA references to ClusterTrustBundles.
    pub(crate) cluster_trust_bundles_complete: bool,
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
    use crate::request::Request;

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
        let opts = crate::lower::Lowering::new(&Default::default(), None);
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
