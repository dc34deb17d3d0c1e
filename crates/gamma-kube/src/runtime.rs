//! The async shell: watch events -> [`SnapshotStore`] -> debounced, batched
//! [`Reconciler::reconcile_change`] (a full [`Reconciler::reconcile`] after a relist or on
//! gaining the lease) -> status writes, until shutdown.
//!
//! Nothing is reconciled or written until every watched kind has listed once (and the CRD
//! list says which Gateway API kinds exist), nor while another replica holds the lease. Table
//! builds run on `spawn_blocking`, so a large cluster never stalls the runtime's workers; the
//! snapshot is never held across an `.await` that waits for the API server, except for the
//! status writes, which read it only for the copies they were merged from.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use gamma_arbiter::Ownership;
use gamma_controller::{
    AuthorizationStatus, DesiredObjectStatus, Diagnostic, ObjectStatus, Reconciler,
    ReconcilerConfig, Reconciliation,
};
use gamma_model::meta::Time;
use gamma_model::validate::Bundle;
use gamma_model::{AnyResource, ObjectKey, ResourceKind};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::runtime::watcher::Event;
use tokio::sync::{mpsc, watch as channel};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::{Instrument, debug, info, info_span, warn};

use crate::bundle;
use crate::crd_extension::{self, Availability, CrdState};
use crate::kinds;
use crate::metrics::{Metrics, ReconcileLabels, VerdictLabels, WritePhase};
use crate::served;
use crate::snapshot_store::{Change, SnapshotStore};
use crate::status::{self, ObjectUpdate, StatusWriter, Update, WriteBackoff, Written};
use crate::watches::{self, Message};

/// Why the runtime stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The arbiter configuration is invalid. Not retryable: fix the configuration.
    #[error("invalid configuration: {0}")]
    Config(#[source] gamma_arbiter::ConfigErrors),
    /// The Lease could not be set up or held. Retryable (restart the runtime).
    #[error("leader election: {0}")]
    Lease(#[source] kube_lease_manager::LeaseManagerError),
    /// A table build panicked (a bug in gamma-rs). Not retryable.
    #[error("reconcile task failed: {0}")]
    Task(#[source] tokio::task::JoinError),
}

/// Leader election on a `coordination.k8s.io/v1` Lease: replicas of one controller share a
/// Lease name; only the holder reconciles and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeaseConfig {
    /// The Lease's namespace.
    pub namespace: String,
    /// The Lease's name (the same for every replica of one controller).
    pub name: String,
    /// This replica's identity (unique per replica, e.g. the pod name).
    pub holder: String,
    /// How long a Lease lasts without renewal, in seconds.
    pub duration_seconds: u64,
    /// How long before expiry the holder renews, in seconds.
    pub grace_seconds: u64,
}

impl LeaseConfig {
    /// A 15 s Lease renewed 5 s before expiry.
    pub fn new(
        namespace: impl Into<String>,
        name: impl Into<String>,
        holder: impl Into<String>,
    ) -> LeaseConfig {
        LeaseConfig {
            namespace: namespace.into(),
            name: name.into(),
            holder: holder.into(),
            duration_seconds: 15,
            grace_seconds: 5,
        }
    }
}

/// What [`run`] needs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunConfig {
    /// The reconciler (arbiter configuration, `me`, table options).
    pub reconciler: ReconcilerConfig,
    /// How long to wait after a change for more changes before reconciling them as a batch.
    pub debounce: Duration,
    /// Retries after status write conflicts.
    pub backoff: WriteBackoff,
    /// Status writes in flight at once (each to another route; at least 1).
    pub writes_in_flight: usize,
    /// Watch `kubernetes.io/tls` Secrets (field selector `type=kubernetes.io/tls`), so that
    /// listener `tls.certificateRefs` to a missing or unusable Secret get
    /// `ResolvedRefs=False InvalidCertificateRef`, also while no TLS Secret exists at all (the
    /// snapshot is marked `secrets_complete`). Off by default: it needs RBAC `list` and
    /// `watch` on `secrets` cluster-wide. Only a Secret's name, type and entry names are kept
    /// (`gamma_model::k8s::Secret`); the values are dropped while decoding.
    pub watch_secrets: bool,
    /// Watch ClusterTrustBundles (`certificates.k8s.io`: GA `v1` from Kubernetes 1.37, served
    /// by default; `v1beta1` or `v1alpha1` where an older cluster enables them) where served
    /// (asked once at start through API discovery, [`crate::served`]), so that BackendTLSPolicy
    /// CA references to a missing or empty bundle get `ResolvedRefs=False
    /// InvalidCACertificateRef` (the snapshot is marked `cluster_trust_bundles_complete`). Off
    /// by default, as for Secrets: it needs RBAC `list` and `watch` on `clustertrustbundles`,
    /// without which the watch would retry forever and the runtime never become ready. Off, or
    /// where the API is not served, references to bundles are never judged missing.
    pub watch_cluster_trust_bundles: bool,
    /// Validate routes against the Gateway API bundle (release and channel) the cluster's CRDs
    /// name ([`crate::bundle`]), switching rules in place when the CRDs are upgraded (on by
    /// default). Off, the bundle of `reconciler.build` is kept whatever the CRDs say (the
    /// CRDs' bundle is still reported in [`State::bundle`] and the metrics).
    pub follow_crd_bundle: bool,
    /// Watch XAuthorizationPolicies (GEP-3779, proposal: `gammactl crd-extension
    /// authorization-policy` prints the CRD) where their CRD is installed, and while it is,
    /// Pods; write `me`'s entry on every policy's status (`Accepted` with `Accepted`, `Invalid`
    /// or `TargetNotFound`, the policy's Namespace as ancestor;
    /// [`gamma_controller::authorization_policy_statuses`]). Off by default: for a controller
    /// that enforces the policies, and it needs RBAC `list` and `watch` on `pods` and
    /// `xauthorizationpolicies`, and `update` on `xauthorizationpolicies/status`. A Pod is
    /// kept with its name, namespace, labels, ServiceAccount, IPs and readiness only
    /// (`gamma_model::k8s::Pod`); the rest is dropped while decoding. Policy and Pod changes
    /// recompute the policies' status only, never the route tables.
    pub authorization_policies: bool,
    /// Leader election; `None` for a single replica.
    pub lease: Option<LeaseConfig>,
    /// Counters to update (register them with [`Metrics::register`]).
    pub metrics: Metrics,
}

impl RunConfig {
    /// A single-replica configuration with a 50 ms debounce and 8 status writes in flight.
    ///
    /// The route tables' hashes are keyed per process: a `hash_seed` of
    /// [`ReconcilerConfig::build`] left at its fixed default (0) is replaced by a random one (std's `RandomState`), so that a route
    /// author cannot choose paths that collide in a long-running controller's tables. Decisions
    /// never depend on the seed. A seed already set is kept; to fix one (e.g. to reproduce a
    /// slow lookup), set `config.reconciler.build.hash_seed` after `new`.
    pub fn new(mut reconciler: ReconcilerConfig) -> RunConfig {
        if reconciler.build.hash_seed == 0 {
            reconciler.build.hash_seed = random_seed();
        }
        RunConfig {
            reconciler,
            debounce: Duration::from_millis(50),
            backoff: WriteBackoff::default(),
            writes_in_flight: 8,
            watch_secrets: false,
            watch_cluster_trust_bundles: false,
            authorization_policies: false,
            follow_crd_bundle: true,
            lease: None,
            metrics: Metrics::default(),
        }
    }
}

/// A random seed, different in every process (and every call), never 0 (the fixed default).
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(0x67_616d_6d61_u64).max(1)
}

/// What the runtime is doing, published after every step (see [`Runner::state`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct State {
    /// Every watched kind has listed once.
    pub ready: bool,
    /// This replica holds the Lease (always, without leader election).
    pub leader: bool,
    /// Kinds watched, with the version.
    pub watching: BTreeMap<ResourceKind, &'static str>,
    /// Gateway API kinds skipped because no CRD serves them (picked up when one appears).
    pub missing: BTreeSet<ResourceKind>,
    /// Reconciliations run.
    pub reconciles: u64,
    /// Status writes accepted by the API server.
    pub writes: u64,
    /// 409 Conflicts met by status writes (each followed by a re-read and a re-merge).
    pub conflicts: u64,
    /// Lists of a kind after its first (a watch expired with 410 Gone, or reconnected after
    /// the API server was away): each replaced that kind's objects at once.
    pub relists: u64,
    /// Routes whose `status.parents` is at the 32-entry cap without room for every entry
    /// `me` wants: other controllers' entries are never evicted, so `me`'s are left out
    /// (reported with a warning and `gamma_status_entries_dropped_total`). Updated by every
    /// reconciliation of the route.
    pub status_full: BTreeSet<ObjectKey>,
    /// Changes seen but not reconciled yet (0 with `ready` and `leader`: caught up).
    pub pending: usize,
    /// Whether the route CRDs declare `parentRefs[].controllers` (the gamma-rs CRD extension,
    /// [`crate::crd_extension`]); `None` until the CRDs have listed. Unless it is
    /// [`Availability::Declared`], ladder level 1 reads only the route annotation (said once
    /// with a warning, and by the gauge `gamma_parent_ref_controllers_declared`).
    pub parent_ref_controllers: Option<Availability>,
    /// The Gateway API bundle (release and channel) the cluster's CRDs name
    /// ([`bundle::Crds::choose`]): the default of [`State::kinds`]. `None` until the CRDs are
    /// listed, and while no Gateway API CRD was ever seen; kept when every Gateway API CRD is
    /// deleted.
    pub bundle: Option<Bundle>,
    /// The bundle each kind is judged by: its own CRD's ([`bundle::Crds::kinds`]), and
    /// [`State::bundle`] for kinds without a CRD; with [`RunConfig::follow_crd_bundle`] (the
    /// default) the rules objects are validated by. `None` as [`State::bundle`].
    pub kinds: Option<gamma_model::validate::KindBundles>,
    /// Gateway API CRDs that name another bundle than [`State::bundle`], each with its own
    /// (empty on a cluster that installed one bundle; transiently not while an upgrade is
    /// applied CRD by CRD).
    pub bundle_disagreements: BTreeMap<String, Bundle>,
    /// Times the bundle changed after it was first known (an upgrade or downgrade in place).
    pub bundle_changes: u64,
}

/// A runtime before it runs: its state can be watched.
pub struct Runner {
    config: RunConfig,
    client: kube::Client,
    state: channel::Sender<State>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Runs the controller until `shutdown` completes; see [`Runner`].
pub async fn run(
    config: RunConfig,
    client: kube::Client,
    shutdown: impl Future<Output = ()>,
) -> Result<(), RunError> {
    Runner::new(config, client).run(shutdown).await
}

struct Loop {
    client: kube::Client,
    tx: mpsc::Sender<Message>,
    store: SnapshotStore,
    tasks: BTreeMap<ResourceKind, (&'static str, JoinHandle<()>)>,
    /// CRD name -> the kind and version it serves.
    crds: BTreeMap<String, (ResourceKind, &'static str)>,
    /// CRD names listed during a CRD relist.
    crd_relist: Option<BTreeSet<String>>,
    /// The route CRDs installed, as the `controllers` extension sees them.
    route_crds: BTreeMap<String, CrdState>,
    crds_synced: bool,
    /// The bundle each Gateway API CRD names.
    bundles: bundle::Crds,
    /// Gateway API CRDs already warned about for naming no bundle gamma-rs knows.
    unannotated_warned: BTreeSet<String>,
    pending: BTreeSet<ObjectKey>,
    full: bool,
    /// [`RunConfig::authorization_policies`].
    authorization: bool,
    /// An XAuthorizationPolicy or a Pod changed: the policies' status is computed again.
    authorization_changed: bool,
    deadline: Option<Instant>,
    state: State,
}

impl Runner {
    /// A runtime for `config` on `client`.
    pub fn new(config: RunConfig, client: kube::Client) -> Runner {
        Runner {
            config,
            client,
            state: channel::channel(State::default()).0,
        }
    }

    /// The runtime's state, updated after every step.
    pub fn state(&self) -> channel::Receiver<State> {
        self.state.subscribe()
    }

    /// Runs until `shutdown` completes: then stops the watches, releases the Lease and
    /// returns. Status writes in progress finish first.
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> Result<(), RunError> {
        let me = self.config.reconciler.me.clone();
        let span = info_span!("gamma_kube", controller = %me.name);
        self.run_inner(shutdown).instrument(span).await
    }

    async fn run_inner(self, shutdown: impl Future<Output = ()>) -> Result<(), RunError> {
        let Runner {
            config,
            client,
            state: state_tx,
        } = self;
        let mut reconciler =
            Some(Reconciler::new(config.reconciler.clone()).map_err(RunError::Config)?);
        let metrics = config.metrics.clone();
        let writer =
            StatusWriter::new(client.clone(), config.reconciler.me.clone(), config.backoff)
                .with_metrics(metrics.clone());
        let (mut leader, lease_task) = match &config.lease {
            None => (channel::channel(true).1, None),
            Some(l) => {
                let manager =
                    kube_lease_manager::LeaseManagerBuilder::new(client.clone(), l.name.clone())
                        .with_namespace(l.namespace.clone())
                        .with_identity(l.holder.clone())
                        .with_duration(l.duration_seconds)
                        .with_grace(l.grace_seconds)
                        .build()
                        .await
                        .map_err(RunError::Lease)?;
                let (rx, task) = manager.watch().await;
                (rx, Some(task))
            }
        };
        let (tx, mut rx) = mpsc::channel(1024);
        let mut l = Loop {
            client: client.clone(),
            tx,
            store: SnapshotStore::new(),
            tasks: BTreeMap::new(),
            crds: BTreeMap::new(),
            crd_relist: None,
            route_crds: BTreeMap::new(),
            crds_synced: false,
            bundles: bundle::Crds::default(),
            unannotated_warned: BTreeSet::new(),
            pending: BTreeSet::new(),
            full: true,
            authorization: config.authorization_policies,
            authorization_changed: false,
            deadline: None,
            state: State::default(),
        };
        for kind in kinds::watched() {
            if let Some(v) = kinds::builtin_version(kind) {
                l.start(kind, v);
            }
        }
        if config.watch_secrets {
            l.start(ResourceKind::Secret, "v1");
            // every TLS Secret there is arrives (the watch lists before the first
            // reconcile): a reference to one the snapshot lacks is to one that does not
            // exist, even while no TLS Secret exists at all
            l.store.set_secrets_complete(true);
        }
        // ClusterTrustBundle is served by default only from Kubernetes 1.37 (GA), and a
        // cluster may turn it off: asked once here, when the embedder asks for them. Where it
        // is not served nothing is watched and the snapshot stays incomplete for it, so a
        // reference to a bundle is never judged missing from an empty list.
        if config.watch_cluster_trust_bundles {
            if let Some(version) = served::cluster_trust_bundle_version(&client).await {
                l.start(ResourceKind::ClusterTrustBundle, version);
                l.store.set_cluster_trust_bundles_complete(true);
            } else {
                info!("ClusterTrustBundle not served: not watched");
            }
        }
        let crd_task = watches::spawn_crds(client.clone(), l.tx.clone());
        let mut shutdown = std::pin::pin!(shutdown);
        let mut was_leader = false;
        loop {
            let is_leader = *leader.borrow();
            if is_leader && !was_leader {
                info!("holding the lease: full reconcile");
                l.full = true;
                l.deadline.get_or_insert_with(Instant::now);
            }
            was_leader = is_leader;
            l.state.leader = is_leader;
            l.state.ready = l.crds_synced && l.store.is_ready();
            l.state.pending = l.pending.len() + usize::from(l.full);
            state_tx.send_replace(l.state.clone());
            let due = l.state.ready && is_leader && l.deadline.is_some();
            let deadline = l.deadline.unwrap_or_else(Instant::now);
            tokio::select! {
                biased;
                () = &mut shutdown => break,
                changed = leader.changed(), if config.lease.is_some() => {
                    if changed.is_err() {
                        warn!("leader election stopped");
                        break;
                    }
                }
                message = rx.recv() => match message {
                    Some(m) => l.handle(m, config.debounce, &metrics),
                    None => break,
                },
                () = tokio::time::sleep_until(deadline), if due => {
                    let Some(mut r) = reconciler.take() else { break };
                    // Level 1 reads `parentRefs[].controllers` only where the CRDs store it; a
                    // change of that re-decides everything.
                    let ignore = config.reconciler.arbiter.ignore_parent_ref_controllers
                        || !l.state.parent_ref_controllers.as_ref().is_some_and(Availability::is_declared);
                    if r.set_ignore_parent_ref_controllers(ignore) {
                        l.full = true;
                    }
                    // The CRDs' bundles changed (or are first known): every route is
                    // validated again, each kind under its own CRD's rules, in a full
                    // reconcile.
                    if config.follow_crd_bundle
                        && let Some(kinds) = &l.state.kinds
                        && r.set_bundles(kinds)
                    {
                        l.full = true;
                    }
                    // shared, not copied: a copy is every index and key of the cluster
                    // (about 1 KB a route), for each reconcile
                    let snapshot = l.store.shared();
                    let changes: Vec<ObjectKey> = std::mem::take(&mut l.pending).into_iter().collect();
                    // Each reconcile_change updates the route table for its object: a large
                    // batch (many objects created at once) costs one full build instead of
                    // many updates.
                    let full = std::mem::take(&mut l.full) || changes.len() > MAX_CHANGES_PER_BATCH;
                    let authorization = l.authorization
                        && (std::mem::take(&mut l.authorization_changed) || full);
                    l.deadline = None;
                    let now = Time::now();
                    let me = config.reconciler.me.clone();
                    let (back, (results, policies), took) = tokio::task::spawn_blocking(move || {
                        // Timed on the blocking thread: the work, not the wait for a thread.
                        let started = std::time::Instant::now();
                        let results = reconcile(&mut r, &snapshot, &changes, full, now);
                        let policies = authorization.then(|| {
                            gamma_controller::authorization_policy_statuses(&snapshot, &me, now)
                        });
                        (r, (results, policies), started.elapsed())
                    })
                    .await
                    .map_err(RunError::Task)?;
                    reconciler = Some(back);
                    let mode = if full { "full" } else { "change" };
                    metrics.reconciles.get_or_create(&ReconcileLabels { mode }).inc();
                    metrics.observe_reconcile(mode, took);
                    l.state.reconciles += 1;
                    l.write(&writer, &config, results, policies, full, now).await;
                }
            }
        }
        crd_task.abort();
        for (_, (_, task)) in std::mem::take(&mut l.tasks) {
            task.abort();
        }
        // Dropping the receiver makes the lease manager release the Lease.
        drop(leader);
        if let Some(task) = lease_task {
            match tokio::time::timeout(Duration::from_secs(5), task).await {
                Ok(Ok(Err(e))) => return Err(RunError::Lease(e)),
                Ok(Err(e)) => return Err(RunError::Task(e)),
                _ => {}
            }
        }
        Ok(())
    }
}

/// Above this many changed objects in one batch, the batch is reconciled in full.
const MAX_CHANGES_PER_BATCH: usize = 16;

/// The sync step: one full reconcile, or one `reconcile_change` per changed object.
fn reconcile(
    r: &mut Reconciler,
    snapshot: &gamma_model::Snapshot,
    changes: &[ObjectKey],
    full: bool,
    now: Time,
) -> Vec<Reconciliation> {
    if full {
        return vec![r.reconcile(snapshot, now)];
    }
    changes
        .iter()
        .map(|c| r.reconcile_change(snapshot, c, now))
        .collect()
}

/// Whether `kind` is one whose changes only the XAuthorizationPolicies' status reads.
fn is_authorization_kind(kind: ResourceKind) -> bool {
    kinds::AUTHORIZATION.contains(&kind)
}

/// One status write of a route or of a Gateway, ListenerSet or BackendTLSPolicy.
enum AnyUpdate<'a> {
    Route(Update<'a>),
    Object(ObjectUpdate<'a>),
}

/// One status write, with the object it was for and how long decoding the answer took.
async fn write_one(
    writer: &StatusWriter,
    update: &AnyUpdate<'_>,
    now: Time,
) -> (ObjectKey, status::Result<(Written, Duration)>) {
    match update {
        AnyUpdate::Route(u) => (u.route.clone(), writer.write_timed(u, now).await),
        AnyUpdate::Object(u) => (u.object.clone(), writer.write_object_timed(u, now).await),
    }
}

fn verdict(d: &Ownership) -> &'static str {
    match d {
        Ownership::Owned { .. } => "owned",
        Ownership::Foreign { .. } => "foreign",
        Ownership::Conflict { .. } => "conflict",
        Ownership::Unclaimed => "unclaimed",
        Ownership::Pending { .. } => "pending",
        _ => "other",
    }
}

impl Loop {
    fn start(&mut self, kind: ResourceKind, version: &'static str) {
        if let Some((v, _)) = self.tasks.get(&kind)
            && *v == version
        {
            return;
        }
        self.stop(kind);
        info!(kind = kind.as_str(), version, "watching");
        let task = watches::spawn_kind(self.client.clone(), kind, version, self.tx.clone());
        self.tasks.insert(kind, (version, task));
        self.store.expect(kind);
        self.state.watching.insert(kind, version);
        self.state.missing.remove(&kind);
        // The Pods are read for the policies only: watched while the policies are.
        if kind == ResourceKind::XAuthorizationPolicy {
            self.start(ResourceKind::Pod, "v1");
        }
    }

    fn stop(&mut self, kind: ResourceKind) {
        if let Some((_, task)) = self.tasks.remove(&kind) {
            task.abort();
            self.state.watching.remove(&kind);
            if self.store.forget_kind(kind) {
                self.full = true;
            }
        }
        if kind == ResourceKind::XAuthorizationPolicy {
            self.stop(ResourceKind::Pod);
        }
    }

    fn touch(&mut self, debounce: Duration) {
        self.deadline
            .get_or_insert_with(|| Instant::now() + debounce);
    }

    fn crd(&mut self, crd: &CustomResourceDefinition) {
        let name = crd.metadata.name.clone().unwrap_or_default();
        self.route_crd(&name, Some(crd));
        let established = crd.status.as_ref().is_some_and(|s| {
            s.conditions
                .iter()
                .flatten()
                .any(|c| c.type_ == "Established" && c.status == "True")
        });
        let kind = kinds::of_crd(crd).or_else(|| {
            self.authorization
                .then(|| kinds::of_authorization_crd(crd))
                .flatten()
        });
        match kind {
            Some((kind, version)) if established => {
                self.crds.insert(name, (kind, version));
                self.start(kind, version);
            }
            _ => {
                if let Some((kind, _)) = self.crds.remove(&name) {
                    self.stop(kind);
                }
            }
        }
    }

    /// Records route CRD `name` as `crd` shows it (`None`: deleted), for the `controllers`
    /// extension.
    fn route_crd(&mut self, name: &str, crd: Option<&CustomResourceDefinition>) {
        if !crd_extension::ROUTE_CRDS.iter().any(|(_, n)| *n == name) {
            return;
        }
        let Some(crd) = crd else {
            self.route_crds.remove(name);
            return;
        };
        match CrdState::from_crd(&crd_extension::to_value(crd)) {
            Ok(state) => {
                self.route_crds.insert(name.to_owned(), state);
            }
            Err(error) => {
                // Read as declaring nothing: level 1 then reads only the annotation.
                warn!(crd = name, %error, "route CRD not understood: parentRefs[].controllers taken as undeclared");
                self.route_crds
                    .insert(name.to_owned(), CrdState::unreadable(name));
            }
        }
    }

    /// Once the CRDs have listed: whether the route CRDs declare `parentRefs[].controllers`,
    /// said once per change (a warning when they do not, and the gauge), and a full
    /// reconciliation when it changed.
    fn controllers_availability(&mut self, metrics: &Metrics, debounce: Duration) {
        if !self.crds_synced {
            return;
        }
        let now = Availability::of(self.route_crds.values());
        if self.state.parent_ref_controllers.as_ref() == Some(&now) {
            return;
        }
        if now.is_declared() {
            info!(%now, "parentRefs[].controllers available: ladder level 1 reads it");
        } else {
            warn!(%now, "parentRefs[].controllers unavailable");
        }
        metrics
            .parent_ref_controllers_declared
            .set(i64::from(now.is_declared()));
        self.state.parent_ref_controllers = Some(now);
        self.full = true;
        self.touch(debounce);
    }

    /// Records the bundle a Gateway API CRD names; warns once per CRD that names none gamma-rs
    /// knows.
    fn observe_bundle(&mut self, crd: &CustomResourceDefinition) {
        let name = crd.metadata.name.as_deref().unwrap_or_default();
        if let Some(seen) = self.bundles.observe(crd)
            && let Some(problem) = &seen.problem
            && self.unannotated_warned.insert(name.to_owned())
        {
            warn!(
                crd = name,
                %problem,
                release = seen.bundle.release.as_str(),
                channel = seen.bundle.channel.as_str(),
                "Gateway API CRD names no bundle gamma-rs knows: taken as the release and channel given (the newest release where it names none)"
            );
        }
    }

    /// Chooses the cluster's bundle from the CRDs once they are listed; reports a change (log,
    /// metric, state) and asks for a full reconcile.
    fn choose_bundle(&mut self, debounce: Duration, metrics: &Metrics) {
        if !self.crds_synced {
            return;
        }
        let (Some(choice), Some(kinds)) = (self.bundles.choose(), self.bundles.kinds()) else {
            return;
        };
        let bundle = choice.bundle;
        if self.state.kinds.as_ref() != Some(&kinds) {
            // each kind judged by its own CRD: said where one differs from the default
            let list = kinds
                .overrides()
                .map(|(kind, b)| format!("{kind}: {b}"))
                .collect::<Vec<_>>()
                .join(", ");
            if !kinds.is_uniform() {
                info!(
                    release = bundle.release.as_str(),
                    channel = bundle.channel.as_str(),
                    kinds = %list,
                    "Gateway API kinds judged by their own CRD's bundle, not the default"
                );
            }
            metrics.set_kind_bundles(&kinds);
            self.state.kinds = Some(kinds);
            self.full = true;
            self.touch(debounce);
        }
        match self.state.bundle {
            Some(old) if old == bundle => {}
            Some(old) => {
                info!(
                    release = bundle.release.as_str(),
                    channel = bundle.channel.as_str(),
                    was_release = old.release.as_str(),
                    was_channel = old.channel.as_str(),
                    crd = %choice.from,
                    "Gateway API bundle changed: every route is validated again under its rules (full reconcile)"
                );
                self.state.bundle_changes += 1;
            }
            None => info!(
                release = bundle.release.as_str(),
                channel = bundle.channel.as_str(),
                crd = %choice.from,
                "Gateway API bundle"
            ),
        }
        if self.state.bundle != Some(bundle) {
            self.state.bundle = Some(bundle);
            metrics.set_bundle(bundle);
            self.full = true;
            self.touch(debounce);
        }
        if choice.disagreeing != self.state.bundle_disagreements {
            let list = || {
                choice
                    .disagreeing
                    .iter()
                    .map(|(name, b)| format!("{name}: {b}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if self.state.bundle_disagreements.is_empty() {
                warn!(
                    release = bundle.release.as_str(),
                    channel = bundle.channel.as_str(),
                    crd = %choice.from,
                    disagreeing = %list(),
                    "Gateway API CRDs of more than one bundle are installed: each kind is validated by its own CRD's (docs/kube.md, \"Mixed bundles\")"
                );
            } else if choice.disagreeing.is_empty() {
                info!(
                    release = bundle.release.as_str(),
                    channel = bundle.channel.as_str(),
                    "Gateway API CRDs all name one bundle again"
                );
            } else {
                debug!(disagreeing = %list(), "Gateway API CRDs of more than one bundle");
            }
            self.state.bundle_disagreements = choice.disagreeing;
        }
    }

    fn handle(&mut self, message: Message, debounce: Duration, metrics: &Metrics) {
        match message {
            Message::Objects(kind, event) => {
                // Events of a kind stopped meanwhile (its CRD deleted) are dropped.
                if !self.tasks.contains_key(&kind) {
                    return;
                }
                let listed_before = self.store.has_listed(kind);
                match self.store.apply(kind, event) {
                    Change::None => {}
                    // Policies and Pods change only the policies' status, never a route table.
                    Change::Object(_) if is_authorization_kind(kind) => {
                        self.authorization_changed = true;
                        self.touch(debounce);
                    }
                    Change::Object(o) => {
                        self.pending.insert(o);
                        self.touch(debounce);
                    }
                    Change::Relisted(kind) if is_authorization_kind(kind) => {
                        if listed_before {
                            self.state.relists += 1;
                            info!(kind = kind.as_str(), "relisted");
                        }
                        self.authorization_changed = true;
                        self.touch(debounce);
                    }
                    Change::Relisted(kind) => {
                        if listed_before {
                            self.state.relists += 1;
                            info!(kind = kind.as_str(), "relisted: full reconcile");
                        }
                        self.full = true;
                        self.touch(debounce);
                    }
                }
            }
            Message::Crd(event) => match *event {
                Event::Apply(c) | Event::InitApply(c) => {
                    if let Some(names) = &mut self.crd_relist {
                        names.insert(c.metadata.name.clone().unwrap_or_default());
                    }
                    self.crd(&c);
                    self.controllers_availability(metrics, debounce);
                    self.observe_bundle(&c);
                    self.choose_bundle(debounce, metrics);
                    self.touch(debounce);
                }
                Event::Delete(c) => {
                    self.route_crd(c.metadata.name.as_deref().unwrap_or_default(), None);
                    self.controllers_availability(metrics, debounce);
                    if self
                        .bundles
                        .forget(c.metadata.name.as_deref().unwrap_or_default())
                    {
                        self.choose_bundle(debounce, metrics);
                    }
                    if let Some((kind, _)) = self
                        .crds
                        .remove(c.metadata.name.as_deref().unwrap_or_default())
                    {
                        warn!(kind = kind.as_str(), "CRD deleted: objects dropped");
                        self.stop(kind);
                        self.state.missing.insert(kind);
                        self.full = true;
                        self.touch(debounce);
                    }
                }
                Event::Init => self.crd_relist = Some(BTreeSet::new()),
                Event::InitDone => {
                    let listed = self.crd_relist.take().unwrap_or_default();
                    let gone: Vec<String> = self
                        .crds
                        .keys()
                        .filter(|n| !listed.contains(*n))
                        .cloned()
                        .collect();
                    for name in gone {
                        if let Some((kind, _)) = self.crds.remove(&name) {
                            self.stop(kind);
                        }
                    }
                    self.route_crds.retain(|name, _| listed.contains(name));
                    let gone: Vec<String> = self
                        .bundles
                        .names()
                        .filter(|n| !listed.contains(*n))
                        .map(str::to_owned)
                        .collect();
                    for name in gone {
                        self.bundles.forget(&name);
                    }
                    self.crds_synced = true;
                    self.controllers_availability(metrics, debounce);
                    self.choose_bundle(debounce, metrics);
                    let authorization = self
                        .authorization
                        .then_some(ResourceKind::XAuthorizationPolicy);
                    for kind in kinds::watched().chain(authorization) {
                        if kinds::is_custom(kind)
                            && !self.tasks.contains_key(&kind)
                            && self.state.missing.insert(kind)
                        {
                            warn!(
                                kind = kind.as_str(),
                                "no CRD serves this kind: skipped until one appears"
                            );
                        }
                    }
                    self.full = true;
                    self.touch(debounce);
                }
            },
            Message::Undecodable { kind, name, error } => {
                metrics.undecodable.inc();
                warn!(kind = kind.as_str(), %name, %error, "object skipped: does not decode");
            }
            Message::WatchError(kind, error) => {
                warn!(kind = kind.as_str(), %error, "watch error (retrying)");
            }
        }
    }

    async fn write(
        &mut self,
        writer: &StatusWriter,
        config: &RunConfig,
        results: Vec<Reconciliation>,
        policies: Option<AuthorizationStatus>,
        full: bool,
        now: Time,
    ) {
        let metrics = &config.metrics;
        // The last reconciliation of a route in the batch has the newest desired status.
        let mut updates = BTreeMap::new();
        let mut object_updates: BTreeMap<ObjectKey, (ObjectStatus, &DesiredObjectStatus)> =
            BTreeMap::new();
        // Routes reconciled now are reported full again below if they still are.
        if full {
            self.state.status_full.clear();
        }
        for r in &results {
            for (pair, _, _) in &r.decisions {
                self.state.status_full.remove(&pair.route);
            }
        }
        for r in &results {
            for (_, d, _) in &r.decisions {
                metrics
                    .decisions
                    .get_or_create(&VerdictLabels {
                        verdict: verdict(d),
                    })
                    .inc();
            }
            for d in &r.diagnostics {
                if let Diagnostic::StatusFull { route, dropped } = d {
                    warn!(
                        route = %route.namespace, name = %route.name, dropped,
                        "status.parents is at its 32-entry cap: entries left out (other controllers' entries are never evicted)"
                    );
                    metrics.entries_dropped.inc_by(*dropped as u64);
                    self.state.status_full.insert(route.clone());
                } else if let Diagnostic::AncestorsFull { policy, dropped } = d {
                    warn!(
                        policy = %policy.namespace, name = %policy.name, dropped,
                        "status.ancestors is at its 16-entry cap: entries left out (other controllers' entries are never evicted)"
                    );
                    metrics.entries_dropped.inc_by(*dropped as u64);
                } else {
                    debug!(diagnostic = ?d, "reconcile");
                }
            }
            for (route, status) in &r.status_updates {
                if let Some(desired) = r.desired.get(route) {
                    updates.insert(route.clone(), (status, desired));
                }
            }
            // Gateways, ListenerSets and BackendTLSPolicies: the last reconciliation's wins
            // too; an object it found nothing to write for keeps an earlier one's write.
            let objects = r
                .gateway_status_updates
                .iter()
                .map(|(k, s)| (k, ObjectStatus::Gateway(s.clone())))
                .chain(
                    r.listener_set_status_updates
                        .iter()
                        .map(|(k, s)| (k, ObjectStatus::ListenerSet(s.clone()))),
                )
                .chain(
                    r.backend_tls_policy_status_updates
                        .iter()
                        .map(|(k, s)| (k, ObjectStatus::BackendTlsPolicy(s.clone()))),
                );
            for (key, status) in objects {
                if let Some(desired) = r.object_desired.get(key) {
                    object_updates.insert(key.clone(), (status, desired));
                }
            }
        }
        // XAuthorizationPolicies: written as BackendTLSPolicies are (one merge rule).
        if let Some(policies) = &policies {
            for d in &policies.diagnostics {
                if let Diagnostic::AncestorsFull { policy, dropped } = d {
                    warn!(
                        policy = %policy.namespace, name = %policy.name, dropped,
                        "XAuthorizationPolicy status.ancestors is at its 16-entry cap: our entry left out (other controllers' entries are never evicted)"
                    );
                    metrics.entries_dropped.inc_by(*dropped as u64);
                } else {
                    debug!(diagnostic = ?d, "authorization policy status");
                }
            }
            for (key, status) in &policies.updates {
                if let Some(desired) = policies.desired.get(key) {
                    object_updates.insert(
                        key.clone(),
                        (ObjectStatus::XAuthorizationPolicy(status.clone()), desired),
                    );
                }
            }
        }
        // Writes to different objects are independent (each has its own resourceVersion
        // precondition): up to `writes_in_flight` at once, as one write waits mostly on the
        // API server's round trip. One object is written at most once per batch.
        // the copies the writes merge into, held by `Arc` while they are in flight (the store
        // takes the writes' results meanwhile), not a copy of the whole snapshot
        let copies: BTreeMap<&ObjectKey, Arc<AnyResource>> = updates
            .keys()
            .chain(object_updates.keys())
            .filter_map(|k| Some((k, Arc::clone(self.store.snapshot().get_shared(k)?))))
            .collect();
        let updates: Vec<AnyUpdate<'_>> = updates
            .iter()
            .filter_map(|(route, (status, desired))| {
                let copy = copies.get(route)?;
                Some(AnyUpdate::Route(Update {
                    route,
                    api_version: copy.api_version(),
                    resource_version: copy.metadata().resource_version.as_deref(),
                    generation: copy.metadata().generation_or_zero(),
                    status,
                    desired,
                }))
            })
            .chain(
                object_updates
                    .iter()
                    .filter_map(|(object, (status, desired))| {
                        let copy = copies.get(object)?;
                        Some(AnyUpdate::Object(ObjectUpdate {
                            object,
                            api_version: copy.api_version(),
                            resource_version: copy.metadata().resource_version.as_deref(),
                            generation: copy.metadata().generation_or_zero(),
                            status,
                            desired,
                        }))
                    }),
            )
            .collect();
        // The futures are made by an iterator, not in a stream's `map` closure: that
        // closure's borrow of its argument would make the runtime's future not `Send` (a
        // known limit of the compiler's higher-ranked lifetime inference).
        let writes: Vec<_> = updates
            .iter()
            .map(|update| write_one(writer, update, now))
            .collect();
        let outcomes: Vec<(ObjectKey, status::Result<(Written, Duration)>)> =
            futures::stream::iter(writes)
                .buffer_unordered(config.writes_in_flight.max(1))
                .collect()
                .await;
        for (route, outcome) in outcomes {
            match outcome {
                Ok((Written::Written { conflicts, stored }, decoded)) => {
                    self.state.conflicts += u64::from(conflicts);
                    metrics.status_writes.inc();
                    metrics.conflicts.inc_by(u64::from(conflicts));
                    metrics.retries.inc_by(u64::from(conflicts));
                    self.state.writes += 1;
                    // The snapshot sees the write now, not when the watch brings it back: a
                    // reconciliation before that would merge into the older copy and meet 409.
                    // The route is reconciled again on the new copy, as the watch event
                    // would have made it (that event then changes nothing).
                    // A policy's own write changes none of the policies' status: it is only
                    // kept, for the next merge's precondition.
                    let started = std::time::Instant::now();
                    let upserted = stored.is_some_and(|s| self.store.wrote(*s).is_some());
                    metrics.observe_write_phase(WritePhase::Apply, decoded + started.elapsed());
                    if upserted && !is_authorization_kind(route.kind) {
                        self.pending.insert(route);
                        self.touch(config.debounce);
                    }
                }
                Ok((Written::Unchanged { conflicts }, _)) => {
                    self.state.conflicts += u64::from(conflicts);
                    metrics.conflicts.inc_by(u64::from(conflicts));
                    metrics.retries.inc_by(u64::from(conflicts));
                }
                Ok((Written::Stale | Written::Gone, _)) => {}
                Err(e) => {
                    metrics.write_errors.inc();
                    if let status::Error::Conflicts { attempts, .. } = &e {
                        self.state.conflicts += u64::from(*attempts);
                        metrics.conflicts.inc_by(u64::from(*attempts));
                    }
                    warn!(error = %e, "status write failed; retried on the next change");
                    // A later full reconcile tries again.
                    self.full = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_arbiter::{ArbiterConfig, Identity, MeshRegistration};

    fn reconciler() -> ReconcilerConfig {
        let me = "istio.io/gateway-controller";
        ReconcilerConfig::new(
            ArbiterConfig::new([MeshRegistration::new("istio", me)]),
            Identity::new(me),
        )
    }

    // BuildOptions::hash_seed: long-running embedders key their tables per process.
    #[test]
    fn a_run_config_keys_its_tables_with_a_random_seed_not_the_fixed_default() {
        assert_eq!(reconciler().build.hash_seed, 0, "the core's fixed default");
        let a = RunConfig::new(reconciler()).reconciler.build.hash_seed;
        let b = RunConfig::new(reconciler()).reconciler.build.hash_seed;
        assert_ne!(a, 0);
        assert_ne!(b, 0);
        assert_ne!(a, b, "each configuration draws its own seed");
    }

    #[test]
    fn a_seed_chosen_before_new_is_kept() {
        let mut chosen = reconciler();
        chosen.build = chosen.build.with_hash_seed(42);
        assert_eq!(RunConfig::new(chosen).reconciler.build.hash_seed, 42);
    }
}
