//! The gamma-rs embedding API: the one call a controller makes on every change.
//!
//! A controller embedding gamma-rs (a mesh or a gateway implementation) keeps a
//! [`gamma_model::Snapshot`] of the cluster and a [`Reconciler`]. [`Reconciler::reconcile`]
//! decides ownership for the embedding controller (`me`, see `gamma_arbiter`), builds the
//! route table of what `me` programs (owned parents plus parents in a make-before-break
//! handoff), and returns the exact status writes to make. [`Reconciler::reconcile_change`] is
//! the incremental path after one object changed.
//!
//! The names read beside kube-rs: kube's `runtime::Controller` runs an embedder's `reconcile`
//! function, and a [`Reconciler`] is what that function calls. Time is an input (`now`): this
//! crate does no I/O, reads no clock and has no async code; `gamma-kube` drives it against a
//! live API server.
//!
//! ```
//! use gamma_controller::{Reconciler, ReconcilerConfig};
//! use gamma_arbiter::{ArbiterConfig, Identity, MeshRegistration};
//! use gamma_model::{Snapshot, decode, meta::Time};
//!
//! let config = ArbiterConfig::new([MeshRegistration::new("istio", "istio.io/gateway-controller")]);
//! let mut reconciler = Reconciler::new(ReconcilerConfig::new(
//!     config,
//!     Identity::new("istio.io/gateway-controller"),
//! ))?;
//! let snapshot = Snapshot::from_resources(decode(r#"
//! apiVersion: v1
//! kind: Namespace
//! metadata: {name: shop, labels: {gamma.rs/mesh: istio}}
//! ---
//! apiVersion: v1
//! kind: Service
//! metadata: {name: checkout, namespace: shop}
//! spec: {clusterIP: 10.96.0.10, ports: [{port: 80}]}
//! ---
//! apiVersion: gateway.networking.k8s.io/v1
//! kind: HTTPRoute
//! metadata: {name: checkout, namespace: shop, generation: 2}
//! spec:
//!   parentRefs: [{group: "", kind: Service, name: checkout, port: 80}]
//!   rules: [{backendRefs: [{name: checkout, port: 80}]}]
//! "#)?);
//! let now = Time::parse("2026-01-05T10:00:00Z")?;
//! let r = reconciler.reconcile(&snapshot, now);
//! assert_eq!(r.status_updates.len(), 1);
//! let (route, status) = &r.status_updates[0];
//! assert_eq!(route.name, "checkout");
//! assert_eq!(status.parents[0].controller_name, "istio.io/gateway-controller");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

mod authorization;
mod handoff;
mod objects;
mod supply;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use gamma_arbiter::{
    Arbiter, ArbiterConfig, ConfigErrors, Decisions, Identity, Ownership, PairKey,
};
use gamma_arbiter::{DesiredStatus, ParentConditions};
use gamma_arbiter::{Directive, Handoff};
use gamma_arbiter::{MergeOutcome, merge_outcome};
use gamma_model::ResourceKind;
use gamma_model::gateway::{
    Condition, ConditionStatus, GatewayStatus, ListenerSetStatus, PolicyStatus, RouteStatus,
};
use gamma_model::meta::Time;
use gamma_model::validate::{Bundle, KindBundles};
use gamma_model::{AnyResource, ObjectKey, Snapshot};
use gamma_resolve::status::RouteCondition;
use gamma_resolve::{BuildOptions, RouteParentKey, RouteTable};

pub use authorization::{AuthorizationStatus, authorization_policy_statuses};
pub use handoff::{keep_retained_entries, stored_handoff_directives};
pub use objects::{
    DesiredObjectStatus, ObjectMerge, ObjectStatus, controls_gateway, desired_object_statuses,
    desired_object_statuses_supplied, owned_service_parents,
};
pub use supply::{NoSupplier, StatusSupplier, Supplied, has_routability, supplied_condition};

/// What a [`Reconciler`] needs: the shared arbiter configuration, who `me` is, how to build
/// tables, and how long a handoff may last.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReconcilerConfig {
    /// The arbiter configuration (the same for every controller in the cluster).
    pub arbiter: ArbiterConfig,
    /// The embedding controller.
    pub me: Identity,
    /// Table build options (the `include` set is managed by the controller). A long-running
    /// controller should key the table's hashes with a random seed per process, e.g.
    /// `build = build.with_hash_seed(std::hash::RandomState::new().hash_one(0u8))` (see
    /// [`BuildOptions::hash_seed`]); [`ReconcilerConfig::new`] leaves the fixed default, and
    /// gamma-kube's `RunConfig::new` replaces that default with a random seed.
    /// `build.mesh_binding = MeshBinding::Workloads` turns on workload binding (beyond the
    /// spec: headless Services' routes bind at their ready endpoints; `docs/workloads.md`);
    /// EndpointSlice changes then rebind in [`Reconciler::reconcile_change`].
    /// [`ReconcilerConfig::new`] turns on [`BuildOptions::keep_lowered_routes`]: the table
    /// keeps every route lowered, so [`Reconciler::reconcile_change`] lowers only the routes
    /// that changed (more memory; set it to `false` to trade that for slower changes).
    pub build: BuildOptions,
    /// The longest a make-before-break handoff lasts, in seconds (default 300).
    pub handoff_grace_seconds: i64,
    /// What the embedding controller writes itself (`Programmed`, a Gateway's bound addresses,
    /// implementation-specific conditions), asked for on every status write so that it goes
    /// in the same write as the computed status, at the same generation ([`StatusSupplier`];
    /// default: [`NoSupplier`]).
    pub status_supplier: Arc<dyn StatusSupplier>,
}

impl ReconcilerConfig {
    /// A configuration with default build options but for kept lowered routes (the
    /// incremental reconcile path updates its table), and a 300 s handoff grace period.
    pub fn new(arbiter: ArbiterConfig, me: Identity) -> Self {
        ReconcilerConfig {
            arbiter,
            me,
            build: BuildOptions::default().with_keep_lowered_routes(true),
            handoff_grace_seconds: 300,
            status_supplier: Arc::new(NoSupplier),
        }
    }

    /// With `supplier` as [`ReconcilerConfig::status_supplier`].
    pub fn with_status_supplier(mut self, supplier: Arc<dyn StatusSupplier>) -> Self {
        self.status_supplier = supplier;
        self
    }
}

/// Something the embedder should know about one reconciliation; never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Diagnostic {
    /// A note about merging the configuration with the snapshot's XMesh objects.
    Registry(gamma_arbiter::RegistryDiagnostic),
    /// The stored status is newer than the route copy in the snapshot: not written.
    StaleRoute {
        /// The route.
        route: ObjectKey,
        /// The newest stored observedGeneration.
        stored: i64,
        /// The generation in the snapshot.
        known: i64,
    },
    /// The stored status of a Gateway `me` controls is newer than the Gateway copy in the
    /// snapshot: not written.
    StaleGateway {
        /// The Gateway.
        gateway: ObjectKey,
        /// The newest stored observedGeneration.
        stored: i64,
        /// The generation in the snapshot.
        known: i64,
    },
    /// The stored status of a ListenerSet, BackendTLSPolicy or XAuthorizationPolicy is newer
    /// than the copy in the snapshot: not written.
    StaleObject {
        /// The ListenerSet, BackendTLSPolicy or XAuthorizationPolicy.
        object: ObjectKey,
        /// The newest stored observedGeneration.
        stored: i64,
        /// The generation in the snapshot.
        known: i64,
    },
    /// Ancestor entries `me` wanted on a BackendTLSPolicy or XAuthorizationPolicy that did not
    /// fit under the 16-entry cap (PolicyStatus.ancestors: "If this slice is full,
    /// implementations MUST NOT add further entries"; other controllers' entries are never
    /// evicted).
    AncestorsFull {
        /// The policy.
        policy: ObjectKey,
        /// How many entries were left out.
        dropped: usize,
    },
    /// Entries `me` wanted that did not fit under the 32-entry cap.
    StatusFull {
        /// The route.
        route: ObjectKey,
        /// How many entries were dropped.
        dropped: usize,
    },
}

/// The result of one reconciliation.
#[derive(Debug)]
#[non_exhaustive]
pub struct Reconciliation {
    /// The route table of what `me` programs: owned parents and parents in a handoff.
    pub table: RouteTable,
    /// The status writes to make (a read-modify-write on the route copy in the snapshot);
    /// only routes whose status would change.
    pub status_updates: Vec<(ObjectKey, RouteStatus)>,
    /// The Gateway status writes to make, for the Gateways whose GatewayClass names `me` as
    /// `controllerName` (a Gateway has one controller): the computed `Accepted` and listener
    /// status, with what [`ReconcilerConfig::status_supplier`] supplies (`Programmed`,
    /// addresses, ...), merged into the stored status (`gamma_arbiter::merge_gateway_status`:
    /// `Programmed` never left at an old generation, other condition types and unsupplied
    /// addresses as stored); only Gateways whose status would change. A read-modify-write on
    /// the Gateway copy in the snapshot.
    pub gateway_status_updates: Vec<(ObjectKey, GatewayStatus)>,
    /// The ListenerSet status writes to make, for the ListenerSets whose parent Gateway's
    /// GatewayClass names `me` (GEP-1713): the computed `Accepted` and listener entries, with
    /// what the status supplier supplies, merged into the stored status
    /// (`gamma_arbiter::merge_listener_set_status`, as for Gateways); only those whose status
    /// would change.
    pub listener_set_status_updates: Vec<(ObjectKey, ListenerSetStatus)>,
    /// The BackendTLSPolicy status writes to make: `me`'s ancestor entries (the Gateways `me`
    /// controls and the mesh parent Services it owns routes on) merged into the stored
    /// `ancestors` (`gamma_arbiter::merge_policy_status`: every other controller's entry stays
    /// as stored); only policies whose status would change.
    pub backend_tls_policy_status_updates: Vec<(ObjectKey, PolicyStatus)>,
    /// What `me` wants on each object of the three lists above: a writer that meets a conflict
    /// merges it again into the copy it reads back ([`DesiredObjectStatus::merge_into`]).
    pub object_desired: BTreeMap<ObjectKey, DesiredObjectStatus>,
    /// What `me` wants on each route of `status_updates`: a writer that finds the stored
    /// status changed (a conflict) merges this again into the status it reads back, with
    /// `gamma_arbiter::merge`, instead of writing a status computed from an old copy.
    pub desired: BTreeMap<ObjectKey, DesiredStatus>,
    /// `me`'s decision and data-plane directive for every (route, parentRef) considered.
    pub decisions: Vec<(PairKey, Ownership, Directive)>,
    /// Notes for the operator.
    pub diagnostics: Vec<Diagnostic>,
}

/// An embedding controller: arbiter decisions, handoff state and the last table conditions.
#[derive(Debug)]
pub struct Reconciler {
    arbiter: Arbiter,
    me: Identity,
    build: BuildOptions,
    handoff: Handoff,
    decisions: Option<Decisions>,
    /// The table conditions per pair from the previous reconciliation, to find routes whose
    /// status must be recomputed after an incremental change.
    conditions: BTreeMap<PairKey, Vec<RouteCondition>>,
    /// The last table (sharing its parts with the one returned), what an incremental change
    /// updates, and the pairs it included.
    table: Option<(RouteTable, BTreeSet<RouteParentKey>)>,
    /// The objects as of the last reconciliation, shared with the snapshot (the full
    /// reconcile takes them by `Arc`, not the snapshot's indexes: a `Snapshot` clone copies
    /// every index and key, about 1 KB a route), kept in step one changed object at a time, so
    /// that an incremental change knows the object it replaced (the frontends a route left,
    /// the addresses a Service had).
    seen: Option<BTreeMap<ObjectKey, Arc<AnyResource>>>,
    /// The bundle changed since the last full reconciliation ([`Reconciler::set_bundle`]):
    /// the next reconciliation is a full one, whichever is called.
    bundle_changed: bool,
    /// The embedder's own status ([`ReconcilerConfig::status_supplier`]).
    supplier: Arc<dyn StatusSupplier>,
}

fn to_condition(c: &RouteCondition) -> Condition {
    Condition {
        type_: c.type_.clone(),
        status: ConditionStatus::from(c.status),
        observed_generation: None,
        last_transition_time: Time::UNIX_EPOCH,
        reason: c.reason.clone(),
        message: c.message.clone(),
    }
}

impl Reconciler {
    /// A controller for a valid configuration.
    pub fn new(config: ReconcilerConfig) -> Result<Reconciler, ConfigErrors> {
        Ok(Reconciler {
            arbiter: Arbiter::new(config.arbiter)?,
            me: config.me,
            build: config.build,
            handoff: Handoff::new(config.handoff_grace_seconds),
            decisions: None,
            conditions: BTreeMap::new(),
            table: None,
            seen: None,
            bundle_changed: false,
            supplier: config.status_supplier,
        })
    }

    /// The Gateway API CRD bundle (release and channel) routes are validated against: the
    /// build options' [`BuildOptions::release`] and [`BuildOptions::channel`] (of every kind
    /// without its own, [`Reconciler::bundles`]).
    pub fn bundle(&self) -> Bundle {
        Bundle::new(self.build.release, self.build.channel)
    }

    /// The bundle each kind is validated against ([`BuildOptions::bundles`]).
    pub fn bundles(&self) -> KindBundles {
        self.build.bundles()
    }

    /// Switches each kind to the rules of its bundle in `bundles` (each kind under what its
    /// own CRD declares); returns whether anything changed, and then the next reconciliation
    /// is a full one, as after [`Reconciler::set_bundle`].
    pub fn set_bundles(&mut self, bundles: &KindBundles) -> bool {
        if self.build.bundles() == *bundles {
            return false;
        }
        self.build = std::mem::take(&mut self.build).with_bundles(bundles);
        self.bundle_changed = true;
        true
    }

    /// Switches to the rules of `bundle`, the bundle the cluster's CRDs now name (an upgrade
    /// or a downgrade in place); returns whether it changed. After a change the next
    /// reconciliation, [`Reconciler::reconcile`] or [`Reconciler::reconcile_change`], is a full
    /// one: every route is validated again under the new rules and the table is rebuilt (no
    /// route lowered under the old bundle is reused), and, as always, only the status that
    /// changed is written.
    pub fn set_bundle(&mut self, bundle: Bundle) -> bool {
        self.set_bundles(&KindBundles::new(bundle))
    }

    /// The arbiter.
    pub fn arbiter(&self) -> &Arbiter {
        &self.arbiter
    }

    /// Sets [`ArbiterConfig::ignore_parent_ref_controllers`]: whether ladder level 1 reads only
    /// the route annotation, learnt from the cluster's CRDs (gamma-kube's
    /// `crd_extension::Availability`). Returns whether it changed; the decisions made before are
    /// then dropped, so the next reconciliation, incremental or not, decides everything again.
    pub fn set_ignore_parent_ref_controllers(&mut self, ignore: bool) -> bool {
        let changed = self.arbiter.set_ignore_parent_ref_controllers(ignore);
        if changed {
            self.decisions = None;
        }
        changed
    }

    /// The current decisions (after the first reconciliation).
    pub fn decisions(&self) -> Option<&Decisions> {
        self.decisions.as_ref()
    }

    /// Decides everything for `snapshot` and recomputes the status of every route.
    pub fn reconcile(&mut self, snapshot: &Snapshot, now: Time) -> Reconciliation {
        self.bundle_changed = false;
        let decisions = self.arbiter.decide_all(snapshot);
        let routes: BTreeSet<ObjectKey> =
            decisions.routes().map(|(r, _)| r.to_object_key()).collect();
        self.decisions = Some(decisions);
        self.seen = Some(
            snapshot
                .iter_shared()
                .map(|(k, o)| (k.clone(), Arc::clone(o)))
                .collect(),
        );
        self.finish(snapshot, now, routes, None)
    }

    /// The incremental path: `changed` was inserted, replaced or removed in `snapshot`. Only
    /// the (route, parent) pairs it influences are re-decided, and status is recomputed only
    /// for routes whose verdicts or table conditions changed (and `changed` itself, when it
    /// is a route). The table is updated, not rebuilt: [`RouteTable::update`] rebuilds the
    /// frontends the change affects (and those of routes whose ownership it changed) and shares
    /// the rest with the previous table. Call it once for every object that changed since the
    /// last reconciliation (in any order, against the latest snapshot).
    pub fn reconcile_change(
        &mut self,
        snapshot: &Snapshot,
        changed: &ObjectKey,
        now: Time,
    ) -> Reconciliation {
        if self.bundle_changed {
            return self.reconcile(snapshot, now);
        }
        let Some(decisions) = self.decisions.as_mut() else {
            return self.reconcile(snapshot, now);
        };
        let changed_pairs = self.arbiter.update(decisions, snapshot, changed);
        // the object `changed` replaced, as the last reconciliation saw it
        let previous = self
            .seen
            .as_mut()
            .and_then(|seen| match snapshot.get_shared(changed) {
                Some(now) => seen.insert(changed.clone(), Arc::clone(now)),
                None => seen.remove(changed),
            });
        let mut routes: BTreeSet<ObjectKey> = changed_pairs.into_iter().map(|p| p.route).collect();
        if changed.kind.is_route() {
            routes.insert(changed.clone());
            if snapshot.get(changed).is_none() {
                self.handoff.forget_route(changed);
            }
        }
        self.finish(snapshot, now, routes, Some((changed, previous.as_deref())))
    }

    /// The table for `include`: updated from the last one (`last`) after `change` (the
    /// changed object and the one it replaced), or built whole.
    fn table_for(
        build: &BuildOptions,
        last: &mut Option<(RouteTable, BTreeSet<RouteParentKey>)>,
        snapshot: &Snapshot,
        include: BTreeSet<RouteParentKey>,
        change: Option<(&ObjectKey, Option<&AnyResource>)>,
    ) -> RouteTable {
        let mut options = build.clone();
        options.include = Some(include.clone());
        let table = match (change, last.take()) {
            (Some((key, previous)), Some((last, last_include))) => {
                let mut table = last.update(snapshot, &options, key, previous);
                // routes whose pairs `me` gained or lost program differently: update them too,
                // each as its own previous (the changed route included: a change the table
                // cannot see, such as a status write, leaves its table as it was)
                let moved: BTreeSet<ObjectKey> = last_include
                    .symmetric_difference(&include)
                    .map(|p| {
                        ObjectKey::new(p.kind.resource_kind(), p.namespace.clone(), p.name.clone())
                    })
                    .collect();
                for route in moved {
                    let current = snapshot.get(&route);
                    table = table.update(snapshot, &options, &route, current);
                }
                table
            }
            // built whole, compiling only the regexes the last table did not have
            (_, Some((last, _))) => RouteTable::build_reusing(snapshot, &options, &last),
            (_, None) => RouteTable::build(snapshot, &options),
        };
        *last = Some((table.clone(), include));
        table
    }

    fn finish(
        &mut self,
        snapshot: &Snapshot,
        now: Time,
        mut routes: BTreeSet<ObjectKey>,
        change: Option<(&ObjectKey, Option<&AnyResource>)>,
    ) -> Reconciliation {
        let full = change.is_none();
        let mut diagnostics = Vec::new();
        let Some(decisions) = self.decisions.as_ref() else {
            return Reconciliation {
                table: RouteTable::build(snapshot, &self.build),
                status_updates: Vec::new(),
                gateway_status_updates: Vec::new(),
                listener_set_status_updates: Vec::new(),
                backend_tls_policy_status_updates: Vec::new(),
                object_desired: BTreeMap::new(),
                desired: BTreeMap::new(),
                decisions: Vec::new(),
                diagnostics,
            };
        };
        diagnostics.extend(
            decisions
                .registry()
                .diagnostics()
                .iter()
                .cloned()
                .map(Diagnostic::Registry),
        );
        // Directives for every pair: what `me` programs.
        let mut out_decisions = Vec::new();
        let mut include = BTreeSet::new();
        for (key, i, _) in decisions.pairs() {
            let route = &key.to_object_key();
            let Some(view) = snapshot.get(route).and_then(|r| r.as_route()) else {
                continue;
            };
            let (meta, refs, status, kind) =
                (view.metadata, view.parent_refs, view.status, view.kind);
            let Some(pref) = refs.get(i) else {
                continue;
            };
            let pair = PairKey {
                route: route.clone(),
                parent_index: i,
            };
            let Some(decision) = decisions.decision(route, i, &self.me) else {
                continue;
            };
            let empty = RouteStatus::default();
            let directive = self.handoff.directive(
                &pair,
                &decision,
                pref,
                status.unwrap_or(&empty),
                meta.generation_or_zero(),
                decisions.registry(),
                now,
            );
            if matches!(directive, Directive::Program | Directive::Retain { .. }) {
                include.insert(RouteParentKey {
                    kind,
                    namespace: route.namespace.clone(),
                    name: route.name.clone(),
                    parent_index: i,
                });
            }
            out_decisions.push((pair, decision, directive));
        }
        let table = Self::table_for(&self.build, &mut self.table, snapshot, include, change);
        // Table conditions per pair; routes whose conditions changed need new status.
        let mut conditions: BTreeMap<PairKey, Vec<RouteCondition>> = BTreeMap::new();
        for ps in table.parent_conditions() {
            let pair = PairKey {
                route: ObjectKey::new(
                    ps.kind.resource_kind(),
                    ps.namespace.clone(),
                    ps.name.clone(),
                ),
                parent_index: ps.parent_index,
            };
            conditions.insert(pair, ps.conditions.clone());
        }
        if !full {
            let before = &self.conditions;
            for (pair, c) in &conditions {
                if before.get(pair) != Some(c) {
                    routes.insert(pair.route.clone());
                }
            }
            for pair in before.keys() {
                if !conditions.contains_key(pair) {
                    routes.insert(pair.route.clone());
                }
            }
        }
        let mut status_updates = Vec::new();
        let mut desired_of = BTreeMap::new();
        let mut retained: BTreeMap<ObjectKey, Vec<usize>> = BTreeMap::new();
        for (pair, _, directive) in &out_decisions {
            if matches!(directive, Directive::Retain { .. }) {
                retained
                    .entry(pair.route.clone())
                    .or_default()
                    .push(pair.parent_index);
            }
        }
        for route in routes {
            let Some((meta, refs, status)) = snapshot
                .get(&route)
                .and_then(|r| r.as_route())
                .map(|v| (v.metadata, v.parent_refs, v.status))
            else {
                continue;
            };
            let supplied = |i: usize| {
                let pair = PairKey {
                    route: route.clone(),
                    parent_index: i,
                };
                conditions.get(&pair).map(|cs| ParentConditions {
                    conditions: cs.iter().map(to_condition).collect(),
                })
            };
            let Some(mut desired) = self
                .arbiter
                .desired_status(decisions, snapshot, &route, &self.me, &supplied)
            else {
                continue;
            };
            // What the embedder writes itself goes in the same write, at the same generation
            for e in &mut desired.entries {
                let extra = self
                    .supplier
                    .route_parent(&route, &e.parent_ref, &e.conditions);
                supply::add_supplied(&mut e.conditions, extra, Some(meta.generation_or_zero()));
            }
            // Make-before-break: while `me` retains a pair it no longer owns, its entry stays
            // as it is until the new owner's entry is accepted (docs/status-protocol.md).
            // Removing it now would be the break before the make.
            keep_retained_entries(
                &mut desired,
                refs,
                retained.get(&route).into_iter().flatten().copied(),
            );
            let empty = RouteStatus::default();
            match merge_outcome(
                status.unwrap_or(&empty),
                &desired,
                &self.me,
                meta.generation_or_zero(),
                now,
            ) {
                MergeOutcome::Write { status, dropped } => {
                    if !dropped.is_empty() {
                        diagnostics.push(Diagnostic::StatusFull {
                            route: route.clone(),
                            dropped: dropped.len(),
                        });
                    }
                    desired_of.insert(route.clone(), desired);
                    status_updates.push((route, status));
                }
                MergeOutcome::Stale { stored, known } => diagnostics.push(Diagnostic::StaleRoute {
                    route,
                    stored,
                    known,
                }),
                _ => {
                    // Nothing to write can still mean that `me`'s entries do not fit: the
                    // list is full of other controllers' entries, which are never evicted.
                    let stored = status.unwrap_or(&empty);
                    let missing = desired
                        .entries
                        .iter()
                        .filter(|d| {
                            !stored.parents.iter().any(|e| {
                                e.parent_ref == d.parent_ref
                                    && self.me.answers_to(&e.controller_name)
                            })
                        })
                        .count();
                    if missing > 0 && stored.parents.len() >= gamma_arbiter::MAX_PARENTS {
                        diagnostics.push(Diagnostic::StatusFull {
                            route,
                            dropped: missing,
                        });
                    }
                }
            }
        }
        self.conditions = conditions;
        let owned_services = objects::owned_service_parents(decisions, snapshot, &self.me);
        let objects = self.object_updates(snapshot, &table, &owned_services, now, &mut diagnostics);
        Reconciliation {
            table,
            status_updates,
            gateway_status_updates: objects.gateways,
            listener_set_status_updates: objects.listener_sets,
            backend_tls_policy_status_updates: objects.policies,
            object_desired: objects.desired,
            desired: desired_of,
            decisions: out_decisions,
            diagnostics,
        }
    }

    /// The status writes of the Gateways `me` controls, the ListenerSets of those Gateways, and
    /// `me`'s ancestor entries on BackendTLSPolicies, each merged into the copy in the snapshot.
    fn object_updates(
        &self,
        snapshot: &Snapshot,
        table: &RouteTable,
        owned_services: &BTreeSet<(String, String)>,
        now: Time,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> ObjectUpdates {
        let wanted = desired_object_statuses_supplied(
            snapshot,
            table,
            &self.me,
            owned_services,
            self.supplier.as_ref(),
            Some(self.bundle()),
        );
        let mut out = ObjectUpdates::default();
        for (key, desired) in wanted {
            let Some(object) = snapshot.get(&key) else {
                continue;
            };
            let generation = object.metadata().generation_or_zero();
            match desired.merge_into(object, generation, &self.me, now) {
                ObjectMerge::Write { status, dropped } => {
                    if !dropped.is_empty() {
                        diagnostics.push(Diagnostic::AncestorsFull {
                            policy: key.clone(),
                            dropped: dropped.len(),
                        });
                    }
                    match status {
                        ObjectStatus::Gateway(s) => out.gateways.push((key.clone(), s)),
                        ObjectStatus::ListenerSet(s) => out.listener_sets.push((key.clone(), s)),
                        ObjectStatus::BackendTlsPolicy(s) => out.policies.push((key.clone(), s)),
                        // not among what `desired_object_statuses` wants (see
                        // `authorization_policy_statuses`)
                        ObjectStatus::XAuthorizationPolicy(_) => continue,
                    }
                    out.desired.insert(key, desired);
                }
                ObjectMerge::Stale { stored, known } => {
                    diagnostics.push(match key.kind {
                        ResourceKind::Gateway => Diagnostic::StaleGateway {
                            gateway: key,
                            stored,
                            known,
                        },
                        _ => Diagnostic::StaleObject {
                            object: key,
                            stored,
                            known,
                        },
                    });
                }
                _ => {
                    // nothing to write can still mean that `me`'s entries do not fit a full
                    // ancestor list
                    if let (
                        DesiredObjectStatus::BackendTlsPolicy(entries),
                        AnyResource::BackendTlsPolicy(p),
                    ) = (&desired, object)
                    {
                        let stored = p.status.as_ref().map_or(&[][..], |s| &s.ancestors[..]);
                        let missing = entries
                            .iter()
                            .filter(|d| {
                                !stored.iter().any(|e| {
                                    e.ancestor_ref == d.ancestor_ref
                                        && self.me.answers_to(&e.controller_name)
                                })
                            })
                            .count();
                        if missing > 0 && stored.len() >= gamma_arbiter::MAX_ANCESTORS {
                            diagnostics.push(Diagnostic::AncestorsFull {
                                policy: key,
                                dropped: missing,
                            });
                        }
                    }
                }
            }
        }
        out
    }
}

/// The object status writes of one reconciliation.
#[derive(Default)]
struct ObjectUpdates {
    gateways: Vec<(ObjectKey, GatewayStatus)>,
    listener_sets: Vec<(ObjectKey, ListenerSetStatus)>,
    policies: Vec<(ObjectKey, PolicyStatus)>,
    desired: BTreeMap<ObjectKey, DesiredObjectStatus>,
}
