//! The public surface of [`RouteTable`] (layer 9, the top): every public method of the table,
//! here or as a one-line forward to the layer that implements it (building in `build/`,
//! resolving in `resolve.rs`, explaining in `explain.rs`, views in `view/`, traces in
//! `trace.rs`, updates in `incremental/`).
//!
//! May use: every layer below.

use std::net::IpAddr;
use std::sync::Arc;

use gamma_model::{AnyResource, ObjectKey, Snapshot};

use crate::decision::Decision;
use crate::explain::Explanation;
use crate::input::TableInput;
use crate::regex::RegexPool;
use crate::request::Request;
use crate::status::ParentStatus;
use crate::table::{BuildOptions, Part, RouteTable, TableStats, add_conflicts, render_statuses};
use crate::trace::{Distribution, DistributionError, Trace, TraceOptions};
use crate::view::BindingView;

impl RouteTable {
    /// Builds a table from a snapshot: lowers it (defaults, selectors, readiness, dropped
    /// rules) and compiles it. Never fails as a whole; see [`RouteTable::parent_conditions`].
    pub fn build(snapshot: &gamma_model::Snapshot, options: &BuildOptions) -> Self {
        Self::lower_and_compile(snapshot, options, RegexPool::default(), &[])
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
        let regexes = RegexPool::reusing(&previous.parts);
        Self::lower_and_compile(snapshot, options, regexes, &previous.parts)
    }

    /// (Not named `build*`: the callgrind recipe of benches/README.md collects
    /// `*RouteTable*build*`, and a nested match would toggle collection off.) `kept`: the
    /// parts whose kept lowered routes are taken for unchanged objects
    /// ([`BuildOptions::keep_lowered_routes`]).
    fn lower_and_compile(
        snapshot: &gamma_model::Snapshot,
        options: &BuildOptions,
        mut regexes: RegexPool,
        kept: &[Arc<Part>],
    ) -> Self {
        let opts = options.lowering();
        let mut table = if options.keep_lowered_routes {
            let kept: Vec<&crate::lower::Lowered> = kept.iter().map(|p| &p.lowered).collect();
            let (input, (routes, objects, wire)) =
                crate::lower::lower_sharing(snapshot, &opts, &mut regexes, &kept);
            let lowered = crate::lower::Lowered::new(
                objects
                    .into_iter()
                    .zip(&routes)
                    .zip(&wire)
                    .map(|((o, r), w)| (o, Arc::clone(r), w.is_some())),
                options.hash_seed,
                options.bundles(),
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
        table.cluster_trust_bundles_complete = snapshot.cluster_trust_bundles_complete();
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

    /// The table after one object changed: `key` was upserted into `snapshot` or removed
    /// from it, and `previous` is the object it replaced (what [`Snapshot::upsert`] or
    /// [`Snapshot::remove`] returned; `None` when it is new). Rebuilds only the frontends and
    /// routes the change affects and shares the rest with `self`, which stays valid: a data
    /// plane keeps resolving against the old table while the new one is built, then swaps.
    ///
    /// `options` must be those `self` was built with, except for
    /// [`BuildOptions::include`] entries of routes passed as changed with `previous` the
    /// route's current object itself (an ownership change of a route is an update with that
    /// route as `key` and `previous` itself, which always rebuilds it). A new version of a
    /// route that changes nothing the table reads (its status, labels, annotations: the same
    /// spec, valid before and after) returns the table itself, shared: give such a route's
    /// new `include` entries in a second update, with `previous` itself. The result
    /// resolves every request, and reports every parent condition and Gateway status
    /// (and BackendTLSPolicy status) exactly as `RouteTable::build(snapshot, options)`
    /// would. A change of a kind the table does not know rebuilds the whole table, as does a
    /// scope past a quarter of the table's routes.
    pub fn update(
        &self,
        snapshot: &Snapshot,
        options: &BuildOptions,
        key: &ObjectKey,
        previous: Option<&AnyResource>,
    ) -> RouteTable {
        self.updated(snapshot, options, key, previous)
    }

    /// The compiled table as data: every bound (address, port, transport) in address order,
    /// its route sets, their entries of every route kind in the order a request tries them
    /// (with filters and weighted backends), and the routes and rules left out with the
    /// reason. Borrows from the table (strings and filters are not copied); allocates the
    /// lists only, in proportion to the table. See `examples/examples/proxy-config.rs` for a
    /// proxy configuration built from it, and `docs/view.md` for its model.
    pub fn view(&self) -> Vec<BindingView<'_>> {
        self.binding_views()
    }

    /// Follows `req` through every hop: the Gateway listener or Service it binds to, the rule
    /// and backend, then that backend Service's own routes (at its cluster IP and the
    /// backendRef's port; for a headless Service under [`crate::MeshBinding::Workloads`], at
    /// its lowest ready endpoint and the target port), and so on, until a backend without
    /// routes, an answer, a cycle or 8
    /// hops ([`TraceOptions`]). The first hop is exactly [`RouteTable::resolve`]`(req,
    /// entropy)`; each later hop resolves the request the previous one sent, with the entropy
    /// its pick left ([`crate::weights::pick_with_rest`]), so the picks of a chain are independent.
    /// Allocates; see `docs/chains.md`.
    pub fn trace<'t>(&'t self, req: &Request<'_>, entropy: u64) -> Trace<'t> {
        self.follow(req, entropy, &TraceOptions::default())
    }

    /// [`RouteTable::trace`] with options.
    pub fn trace_with<'t>(
        &'t self,
        req: &Request<'_>,
        entropy: u64,
        options: &TraceOptions,
    ) -> Trace<'t> {
        self.follow(req, entropy, options)
    }

    /// The exact end-to-end split of `req`: every end its chains can reach with its share, the
    /// product of `weight / sum` along each path (no sampling: each backendRef of each split is
    /// followed once). [`RouteTable::trace`] over entropies swept evenly over the `u64` range
    /// reaches each end with this share. Errors instead of overflowing or exploring without
    /// bound ([`TraceOptions::max_paths`]).
    pub fn trace_distribution<'t>(
        &'t self,
        req: &Request<'_>,
    ) -> Result<Distribution<'t>, DistributionError> {
        self.distribution(req, &TraceOptions::default())
    }

    /// [`RouteTable::trace_distribution`] with options.
    pub fn trace_distribution_with<'t>(
        &'t self,
        req: &Request<'_>,
        options: &TraceOptions,
    ) -> Result<Distribution<'t>, DistributionError> {
        self.distribution(req, options)
    }
}

/// Cheap: the clone shares every compiled part (and bindings shard) with the original.
impl Clone for RouteTable {
    fn clone(&self) -> Self {
        self.share()
    }
}
