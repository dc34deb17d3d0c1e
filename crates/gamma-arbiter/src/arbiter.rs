//! [`Arbiter`]: decides every (route, parentRef) of a snapshot, and keeps those decisions up to
//! date one object change at a time.

use std::collections::BTreeMap;
use std::sync::Arc;

use gamma_model::digest::{InlineName, RouteDigest};
use gamma_model::{AnyResource, ObjectKey, Snapshot};

use crate::config::{ArbiterConfig, ConfigErrors};
use crate::decision::{Ownership, PairKey, Verdict, VerdictId};
use crate::dense::same;
use crate::index::{DependencyIndex, Scope};
use crate::ladder::Ladder;
use crate::registry::{Identity, Registry};
use crate::route_key::{RouteKey, RouteName};
use crate::route_verdicts::{IdList, RouteVerdicts};
use crate::routes::{ROUTE_KINDS, digest_service_parent};
use crate::status::{DesiredStatus, ParentConditions, desired_entries};

/// The ownership arbiter. Pure: the same configuration and snapshot give the same
/// [`Decisions`], whoever computes them and in whatever order the objects arrived.
///
/// ```
/// use gamma_arbiter::{Arbiter, ArbiterConfig, Ownership, Identity, MeshRegistration};
/// use gamma_model::{Snapshot, decode};
///
/// let arbiter = Arbiter::new(ArbiterConfig::new([
///     MeshRegistration::new("istio", "istio.io/gateway-controller"),
///     MeshRegistration::new("linkerd", "linkerd.io/policy-controller").as_default(),
/// ])).unwrap();
/// let snapshot = Snapshot::from_resources(decode(r#"
/// apiVersion: v1
/// kind: Namespace
/// metadata: {name: shop, labels: {gamma.rs/mesh: istio}}
/// ---
/// apiVersion: v1
/// kind: Service
/// metadata: {name: checkout, namespace: shop}
/// spec: {clusterIP: 10.96.0.10, ports: [{port: 80}]}
/// ---
/// apiVersion: gateway.networking.k8s.io/v1
/// kind: HTTPRoute
/// metadata: {name: checkout, namespace: shop}
/// spec:
///   parentRefs: [{group: "", kind: Service, name: checkout, port: 80}]
/// "#)?);
/// let decisions = arbiter.decide_all(&snapshot);
/// let route = gamma_model::ObjectKey::new(gamma_model::ResourceKind::HttpRoute, "shop", "checkout");
/// let me = Identity::new("istio.io/gateway-controller");
/// let d = decisions.decision(&route, 0, &me).unwrap();
/// assert!(d.is_owned());
/// assert!(d.to_string().contains("level 3"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Arbiter {
    config: ArbiterConfig,
}

/// How many routes a full decision takes at once (see [`touch_objects`]).
const BATCH: usize = 16;

/// Reads each route object of a batch (its kind, on the cache line of its reference count)
/// before the batch is decided. Each key of a full decision shares its route's `Arc`: a locked
/// reference-count increment, which waits for every earlier load. Made on an object that left
/// the cache, it pays a full memory round trip with nothing overlapping it (50,000 of them
/// made the decision take twice as long); read first, with plain loads that overlap, the
/// objects are in cache when their increments come.
fn touch_objects(batch: &[(&Arc<AnyResource>, &RouteDigest)]) {
    let mut touched = 0u8;
    for (resource, _) in batch {
        touched ^= resource.kind() as u8;
    }
    std::hint::black_box(touched);
}

/// A full decision's walk over the routes of one kind, in key order.
struct Walk<'l, 'a> {
    ladder: &'l mut Ladder<'a>,
    /// The namespace entered last: routes of a kind come in namespace order, so one
    /// comparison per route here spares the ladder comparing namespaces per parent.
    current: Option<&'a [u8]>,
}

impl<'a> Walk<'_, 'a> {
    /// The verdict ids of one route, in parentRef order; `None` for an object that is not a
    /// route. The common route (one core Service parent, no level-1 signal, short names:
    /// [`digest_service_parent`]) is decided from its digest, without reading the object;
    /// every other route from its object, and both give the same verdicts.
    fn decide(&mut self, resource: &'a AnyResource, digest: &'a RouteDigest) -> Option<IdList> {
        let from_digest = digest_service_parent(digest).and_then(|(ns, p)| {
            // Names are compared as bytes: only entering a namespace needs its `&str`, which
            // safe code gets from inline bytes by validating them.
            let ns = ns.as_bytes();
            if !self.current.is_some_and(|c| same(c, ns)) {
                self.ladder.enter_namespace(std::str::from_utf8(ns).ok()?);
                self.current = Some(ns);
            }
            self.ladder.decide_service_cached(
                ns,
                p.namespace().map(InlineName::as_bytes),
                p.name().as_bytes(),
            )
        });
        if let Some(id) = from_digest {
            return Some(IdList::One(id));
        }
        let view = resource.as_route()?;
        let (meta, refs) = (view.metadata, view.parent_refs);
        let ns = meta.namespace_or_default();
        if !self.current.is_some_and(|c| same(c, ns)) {
            self.ladder.enter_namespace(ns);
            self.current = Some(ns.as_bytes());
        }
        // Most routes have one parent: its id is stored inline, no allocation.
        Some(match refs {
            [p] => IdList::One(match self.ladder.decide_cached(ns, meta, p) {
                Some(id) => id,
                None => self.ladder.decide(ns, meta, p),
            }),
            _ => refs
                .iter()
                .map(|p| self.ladder.decide(ns, meta, p))
                .collect(),
        })
    }
}

impl Arbiter {
    /// An arbiter for a validated configuration.
    pub fn new(config: ArbiterConfig) -> Result<Arbiter, ConfigErrors> {
        config.validate()?;
        Ok(Arbiter { config })
    }

    /// The configuration.
    pub fn config(&self) -> &ArbiterConfig {
        &self.config
    }

    /// Sets [`ArbiterConfig::ignore_parent_ref_controllers`] (whether the route CRDs declare
    /// `parentRefs[].controllers` is learnt from the cluster, after the arbiter is made).
    /// Returns whether it changed: decisions made before then must be made again in full
    /// ([`Arbiter::decide_all`]), as [`Arbiter::update`] re-decides only what an object changed.
    pub fn set_ignore_parent_ref_controllers(&mut self, ignore: bool) -> bool {
        let changed = self.config.ignore_parent_ref_controllers != ignore;
        self.config.ignore_parent_ref_controllers = ignore;
        changed
    }

    /// The registry for `snapshot` (configuration merged with its XMesh objects).
    pub fn registry(&self, snapshot: &Snapshot) -> Registry {
        Registry::build(&self.config, snapshot)
    }

    /// Decides every (route, parentRef) of every route kind in `snapshot`.
    pub fn decide_all(&self, snapshot: &Snapshot) -> Decisions {
        let registry = Arc::new(self.registry(snapshot));
        let mut ladder = Ladder::new(snapshot, &registry, &self.config, Vec::new());
        ladder.prefill();
        // The snapshot yields each kind in (namespace, name) order and ROUTE_KINDS is in kind
        // order, so `out` is already sorted by key and duplicate-free: it is stored as is (a
        // BTreeMap built from it cost a sort, a dedup and a node per few routes: ~28%).
        let mut out = Vec::with_capacity(snapshot.len());
        let mut batch = Vec::with_capacity(BATCH);
        for kind in ROUTE_KINDS {
            // Routes are read through their digests (see `gamma_model::digest`), a batch at a
            // time (see `touch_objects`).
            let mut walk = Walk {
                ladder: &mut ladder,
                current: None,
            };
            let mut routes = snapshot.route_digests(kind);
            loop {
                batch.clear();
                batch.extend(routes.by_ref().take(BATCH));
                if batch.is_empty() {
                    break;
                }
                touch_objects(&batch);
                for &(resource, digest) in &batch {
                    let Some(ids) = walk.decide(resource, digest) else {
                        continue;
                    };
                    out.push(RouteEntry {
                        // Shares the snapshot's object: no per-route copy of the name.
                        key: RouteKey::of_kind(kind, Arc::clone(resource)),
                        generation: digest.generation(),
                        ids,
                    });
                }
            }
        }
        let table = ladder.into_table();
        debug_assert!(out.is_sorted_by(|a, b| a.key < b.key));
        Decisions {
            registry,
            routes: out,
            table,
            appended: 0,
            index: None,
        }
    }

    /// The status entries `me` wants on `route` (see [`desired_entries`]); `supplied(i)` gives
    /// the conditions for parentRef `i` when `me` owns it. `None` when the route is not in the
    /// snapshot or was not decided.
    pub fn desired_status(
        &self,
        decisions: &Decisions,
        snapshot: &Snapshot,
        route: &ObjectKey,
        me: &Identity,
        supplied: &dyn Fn(usize) -> Option<ParentConditions>,
    ) -> Option<DesiredStatus> {
        let view = snapshot.get(route)?.as_route()?;
        let (meta, refs) = (view.metadata, view.parent_refs);
        let verdicts = decisions.route(route)?.to_vec();
        let reporter =
            self.config.no_owning_controller_reporter.as_deref() == Some(me.name.as_str());
        Some(desired_entries(
            me,
            &decisions.registry,
            refs,
            &verdicts,
            meta.generation_or_zero(),
            supplied,
            reporter,
        ))
    }

    /// Brings `decisions` up to date after one object (`changed`, of any kind) was inserted,
    /// replaced or removed in `snapshot` (which already reflects the change). Only the
    /// (route, parent) pairs the object influences are re-decided. Returns the pairs whose
    /// verdict changed (including pairs that appeared or disappeared), in order.
    ///
    /// The first call builds the dependency index (linear in the snapshot); later calls cost
    /// in proportion to the pairs affected.
    pub fn update(
        &self,
        decisions: &mut Decisions,
        snapshot: &Snapshot,
        changed: &ObjectKey,
    ) -> Vec<PairKey> {
        let mut index = match decisions.index.take() {
            Some(i) => i,
            None => DependencyIndex::build(snapshot, &self.config),
        };
        let mut scopes: BTreeMap<ObjectKey, Scope> = BTreeMap::new();
        let mut all = false;
        match changed.kind {
            gamma_model::ResourceKind::XMesh | gamma_model::ResourceKind::GatewayClass => {
                let registry = self.registry(snapshot);
                all = !registry.same_resolution(&decisions.registry);
                decisions.registry = Arc::new(registry);
                if !all {
                    index.affected(snapshot, changed, &mut scopes);
                }
            }
            _ => index.affected(snapshot, changed, &mut scopes),
        }
        index.record(snapshot, &self.config, changed);
        if all {
            for kind in ROUTE_KINDS {
                for r in snapshot.of_kind(kind) {
                    scopes.insert(ObjectKey::of(r), Scope::All);
                }
            }
            for e in &decisions.routes {
                scopes.insert(e.key.to_object_key(), Scope::All);
            }
        }
        let mut changed_pairs = Vec::new();
        let registry = Arc::clone(&decisions.registry);
        let table = std::mem::take(&mut decisions.table);
        let table_len = table.len();
        let mut ladder = Ladder::new(snapshot, &registry, &self.config, table);
        for (route, scope) in scopes {
            let shared = snapshot.get_shared(&route);
            let Some((meta, refs)) = shared
                .and_then(|r| r.as_route())
                .map(|v| (v.metadata, v.parent_refs))
            else {
                if let Ok(at) = decisions.find(&route) {
                    let old = decisions.routes.remove(at);
                    changed_pairs.extend((0..old.ids.as_slice().len()).map(|i| PairKey {
                        route: route.clone(),
                        parent_index: i,
                    }));
                }
                continue;
            };
            let ns = meta.namespace_or_default();
            let Some(shared) = shared else { continue };
            // Key on the current object so the result does not keep a stale version alive.
            let slot = match decisions.find(&route) {
                Ok(at) => at,
                Err(at) => {
                    // A new route: O(routes) to shift the tail, paid only when routes appear.
                    let entry = RouteEntry {
                        key: RouteKey::new(Arc::clone(shared)),
                        generation: 0,
                        ids: IdList::Many(Vec::new()),
                    };
                    decisions.routes.insert(at, entry);
                    at
                }
            };
            let Some(entry) = decisions.routes.get_mut(slot) else {
                continue;
            };
            if !Arc::ptr_eq(entry.key.resource(), shared) {
                entry.key = RouteKey::new(Arc::clone(shared));
            }
            entry.generation = meta.generation_or_zero();
            let old_len = entry.ids.as_slice().len();
            for (i, p) in refs.iter().enumerate() {
                if !scope.covers(p, ns) && i < old_len {
                    continue;
                }
                let id = ladder.decide(ns, meta, p);
                match entry.ids.as_mut_slice().get_mut(i) {
                    // Compared by value: ids differ whenever the ladder decided anew.
                    Some(old) if ladder.verdict(*old) == ladder.verdict(id) => {}
                    Some(old) => {
                        *old = id;
                        changed_pairs.push(PairKey {
                            route: route.clone(),
                            parent_index: i,
                        });
                    }
                    None => {
                        entry.ids.push(id);
                        changed_pairs.push(PairKey {
                            route: route.clone(),
                            parent_index: i,
                        });
                    }
                }
            }
            if old_len > refs.len() {
                entry.ids.truncate(refs.len());
                changed_pairs.extend((refs.len()..old_len).map(|i| PairKey {
                    route: route.clone(),
                    parent_index: i,
                }));
            }
        }
        decisions.table = ladder.into_table();
        decisions.appended += decisions.table.len() - table_len;
        decisions.compact_if_due();
        decisions.index = Some(index);
        changed_pairs
    }
}

/// One decided route.
#[derive(Debug, Clone)]
struct RouteEntry {
    key: RouteKey,
    /// The route's `metadata.generation` when decided.
    generation: i64,
    /// One id per parentRef into [`Decisions::table`].
    ids: IdList,
}

/// Every verdict for one snapshot, plus the registry they were computed with.
#[derive(Debug, Clone)]
pub struct Decisions {
    registry: Arc<Registry>,
    /// Sorted by key, no duplicates (binary-searched; see `decide_all`).
    routes: Vec<RouteEntry>,
    /// The distinct verdicts, by [`VerdictId`] (full decisions add each once; updates append
    /// what they decide, and [`Decisions::compact_if_due`] drops what no route uses).
    table: Vec<Verdict>,
    /// Entries appended by updates since the table was last built or compacted.
    appended: usize,
    index: Option<DependencyIndex>,
}

impl PartialEq for Decisions {
    /// Equal when the verdicts (by value, not by id) and the registry are (the incremental
    /// index is a cache).
    fn eq(&self, other: &Self) -> bool {
        self.registry == other.registry
            && self.routes.len() == other.routes.len()
            && self.routes().zip(other.routes()).all(|(a, b)| a == b)
    }
}

impl Decisions {
    /// The registry the verdicts were computed with.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    fn view<'a>(&'a self, e: &'a RouteEntry) -> RouteVerdicts<'a> {
        RouteVerdicts::new(e.generation, e.ids.as_slice(), &self.table)
    }

    /// The verdicts of `route` (an [`ObjectKey`] or a [`RouteKey`]), one per parentRef.
    pub fn route(&self, route: &dyn RouteName) -> Option<RouteVerdicts<'_>> {
        let at = self.find(route).ok()?;
        self.routes.get(at).map(|e| self.view(e))
    }

    /// Where `route` is (`Ok`) or would be inserted (`Err`) in `routes`.
    fn find(&self, route: &dyn RouteName) -> Result<usize, usize> {
        self.routes
            .binary_search_by(|e| (&e.key as &dyn RouteName).cmp(route))
    }

    /// The verdict for parentRef `parent_index` of `route`.
    pub fn verdict(&self, route: &dyn RouteName, parent_index: usize) -> Option<&Verdict> {
        self.route(route)?.get(parent_index)
    }

    /// What `me` makes of parentRef `parent_index` of `route`.
    pub fn decision(
        &self,
        route: &dyn RouteName,
        parent_index: usize,
        me: &Identity,
    ) -> Option<Ownership> {
        Some(self.verdict(route, parent_index)?.view(me, &self.registry))
    }

    /// Every route and its verdicts, in [`ObjectKey`] order.
    pub fn routes(&self) -> impl Iterator<Item = (&RouteKey, RouteVerdicts<'_>)> {
        self.routes.iter().map(|e| (&e.key, self.view(e)))
    }

    /// Every (route, parent index, verdict), in order.
    pub fn pairs(&self) -> impl Iterator<Item = (&RouteKey, usize, &Verdict)> {
        self.routes()
            .flat_map(|(r, v)| v.iter().enumerate().map(move |(i, v)| (r, i, v)))
    }

    /// Every (route, parent index, decision) as `me` sees them, in order.
    pub fn for_controller<'a>(
        &'a self,
        me: &'a Identity,
    ) -> impl Iterator<Item = (&'a RouteKey, usize, Ownership)> + 'a {
        self.pairs()
            .map(move |(r, i, v)| (r, i, v.view(me, &self.registry)))
    }

    /// The number of (route, parent) pairs.
    pub fn len(&self) -> usize {
        self.routes.iter().map(|e| e.ids.as_slice().len()).sum()
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops the table entries no route uses once updates have appended more than an eighth
    /// as many as there are routes (at least 64): the table stays within that of what is
    /// live, and the O(pairs) compaction costs a constant per appended entry (routes have at
    /// most 32 parentRefs). Counting routes, not pairs, keeps the check O(1) per update.
    fn compact_if_due(&mut self) {
        let due = self.appended > 64 && self.appended > self.routes.len() / 8;
        if !due {
            return;
        }
        let mut old: Vec<Option<Verdict>> = std::mem::take(&mut self.table)
            .into_iter()
            .map(Some)
            .collect();
        let mut moved: Vec<Option<VerdictId>> = vec![None; old.len()];
        let mut table = Vec::new();
        for e in &mut self.routes {
            for id in e.ids.as_mut_slice() {
                let i = id.index();
                let new = match moved.get(i).copied().flatten() {
                    Some(new) => new,
                    None => {
                        let new = VerdictId::at(table.len());
                        table.push(
                            old.get_mut(i)
                                .and_then(Option::take)
                                .unwrap_or(Verdict::NotApplicable),
                        );
                        if let Some(m) = moved.get_mut(i) {
                            *m = Some(new);
                        }
                        new
                    }
                };
                *id = new;
            }
        }
        self.table = table;
        self.appended = 0;
    }

    /// The size of the verdict table (distinct verdicts plus not-yet-compacted stale ones).
    #[cfg(test)]
    fn table_len(&self) -> usize {
        self.table.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MeshRegistration;
    use gamma_model::decode;

    fn cluster(annotated: bool) -> Snapshot {
        let ann = if annotated {
            "annotations: {gamma.rs/controller: linkerd.io/policy-controller}"
        } else {
            "annotations: {}"
        };
        let mut yaml = format!(
            "apiVersion: v1\nkind: Namespace\nmetadata: {{name: shop, labels: {{gamma.rs/mesh: istio}}}}\n---\napiVersion: v1\nkind: Service\nmetadata: {{name: svc, namespace: shop, {ann}}}\nspec: {{ports: [{{port: 80}}]}}\n"
        );
        for i in 0..20 {
            yaml.push_str(&format!(
                "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{name: r{i}, namespace: shop}}\nspec: {{parentRefs: [{{group: \"\", kind: Service, name: svc}}]}}\n"
            ));
        }
        Snapshot::from_resources(decode(&yaml).unwrap())
    }

    /// Updates append the verdicts they decide to the shared table; stale entries must be
    /// dropped (bounded memory in a long-running controller) without changing any verdict.
    #[test]
    fn repeated_updates_keep_the_verdict_table_bounded_and_the_verdicts_exact() {
        let arbiter = Arbiter::new(ArbiterConfig::new([
            MeshRegistration::new("istio", "istio.io/gateway-controller"),
            MeshRegistration::new("linkerd", "linkerd.io/policy-controller"),
        ]))
        .unwrap();
        let snaps = [cluster(false), cluster(true)];
        let svc = ObjectKey::new(gamma_model::ResourceKind::Service, "shop", "svc");
        let mut d = arbiter.decide_all(&snaps[0]);
        let mut largest = 0;
        for k in 1..200 {
            let snap = &snaps[k % 2];
            let changed = arbiter.update(&mut d, snap, &svc);
            assert_eq!(changed.len(), 20, "every route's verdict flips");
            assert_eq!(d, arbiter.decide_all(snap));
            largest = largest.max(d.table_len());
        }
        // 20 pairs: compaction after more than 64 appended entries.
        assert!(largest <= 64 + 20 + 2, "table grew to {largest}");
    }
}
