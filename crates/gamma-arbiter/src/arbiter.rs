//! [`Arbiter`]: decides every (route, parentRef) of a snapshot, and keeps those decisions up to
//! date one object change at a time.

use std::collections::BTreeMap;
use std::sync::Arc;

use gamma_model::{ObjectRef, Snapshot};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::{Config, ConfigError};
use crate::decision::{Decision, PairKey, Verdict};
use crate::index::{DependencyIndex, Scope};
use crate::ladder::Ladder;
use crate::registry::{Identity, Registry};
use crate::route_key::{RouteKey, RouteName};
use crate::routes::{ROUTE_KINDS, route_parts};
use crate::status::{DesiredStatus, ParentConditions, desired_entries};
use crate::verdicts::Verdicts;

/// The ownership arbiter. Pure: the same configuration and snapshot give the same
/// [`Decisions`], whoever computes them and in whatever order the objects arrived.
///
/// ```
/// use gamma_arbiter::{Arbiter, Config, Decision, Identity, MeshRegistration};
/// use gamma_model::{Snapshot, decode};
///
/// let arbiter = Arbiter::new(Config::new([
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
/// let route = gamma_model::ObjectRef::new(gamma_model::ResourceKind::HttpRoute, "shop", "checkout");
/// let me = Identity::new("istio.io/gateway-controller");
/// let d = decisions.decision(&route, 0, &me).unwrap();
/// assert!(d.is_owned());
/// assert!(d.to_string().contains("level 3"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Arbiter {
    config: Config,
}

impl Arbiter {
    /// An arbiter for a validated configuration.
    pub fn new(config: Config) -> Result<Arbiter, Vec<ConfigError>> {
        config.validate()?;
        Ok(Arbiter { config })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The registry for `snapshot` (configuration merged with its XMesh objects).
    pub fn registry(&self, snapshot: &Snapshot) -> Registry {
        Registry::build(&self.config, snapshot)
    }

    /// Decides every (route, parentRef) of every route kind in `snapshot`.
    pub fn decide_all(&self, snapshot: &Snapshot) -> Decisions {
        let registry = Arc::new(self.registry(snapshot));
        let mut ladder = Ladder::new(snapshot, &registry, &self.config);
        ladder.prefill();
        // The snapshot yields each kind in (namespace, name) order and ROUTE_KINDS is in kind
        // order, so `out` is already sorted by key and duplicate-free: it is stored as is (a
        // BTreeMap built from it cost a sort, a dedup and a node per few routes: ~28%).
        let mut out = Vec::with_capacity(snapshot.len());
        for kind in ROUTE_KINDS {
            for resource in snapshot.of_kind_shared(kind) {
                let Some((meta, refs, _)) = route_parts(resource) else {
                    continue;
                };
                // Shares the snapshot's object: no per-route copy of the name.
                let key = RouteKey::new(Arc::clone(resource));
                let ns = meta.namespace_or_default();
                // Most routes have one parent: stored inline, no allocation.
                let verdicts = match refs {
                    [p] => Verdicts::one(ladder.decide(ns, meta, p)),
                    _ => refs.iter().map(|p| ladder.decide(ns, meta, p)).collect(),
                };
                out.push((
                    key,
                    RouteVerdicts {
                        generation: meta.generation_or_zero(),
                        verdicts,
                    },
                ));
            }
        }
        drop(ladder);
        debug_assert!(out.is_sorted_by(|a, b| a.0 < b.0));
        Decisions {
            registry,
            routes: out,
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
        route: &ObjectRef,
        me: &Identity,
        supplied: &dyn Fn(usize) -> Option<ParentConditions>,
    ) -> Option<DesiredStatus> {
        let (meta, refs, _) = route_parts(snapshot.get(route)?)?;
        let verdicts = &decisions.route(route)?.verdicts;
        let reporter =
            self.config.no_owning_controller_reporter.as_deref() == Some(me.name.as_str());
        Some(desired_entries(
            me,
            &decisions.registry,
            refs,
            verdicts,
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
        changed: &ObjectRef,
    ) -> Vec<PairKey> {
        let mut index = match decisions.index.take() {
            Some(i) => i,
            None => DependencyIndex::build(snapshot, &self.config),
        };
        let mut scopes: BTreeMap<ObjectRef, Scope> = BTreeMap::new();
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
                    scopes.insert(ObjectRef::of(r), Scope::All);
                }
            }
            for (k, _) in &decisions.routes {
                scopes.insert(k.to_object_ref(), Scope::All);
            }
        }
        let mut changed_pairs = Vec::new();
        let registry = Arc::clone(&decisions.registry);
        let mut ladder = Ladder::new(snapshot, &registry, &self.config);
        for (route, scope) in scopes {
            let shared = snapshot.get_shared(&route);
            let Some((meta, refs, _)) = shared.and_then(|r| route_parts(r)) else {
                if let Ok(at) = decisions.find(&route) {
                    let (_, old) = decisions.routes.remove(at);
                    changed_pairs.extend((0..old.verdicts.len()).map(|i| PairKey {
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
                    let empty = RouteVerdicts {
                        generation: 0,
                        verdicts: Verdicts::new(),
                    };
                    decisions
                        .routes
                        .insert(at, (RouteKey::new(Arc::clone(shared)), empty));
                    at
                }
            };
            let Some((key, entry)) = decisions.routes.get_mut(slot) else {
                continue;
            };
            if !Arc::ptr_eq(key.resource(), shared) {
                *key = RouteKey::new(Arc::clone(shared));
            }
            entry.generation = meta.generation_or_zero();
            let old_len = entry.verdicts.len();
            for (i, p) in refs.iter().enumerate() {
                if !scope.covers(p, ns) && i < old_len {
                    continue;
                }
                let v = ladder.decide(ns, meta, p);
                match entry.verdicts.get_mut(i) {
                    Some(slot) if *slot == v => {}
                    Some(slot) => {
                        *slot = v;
                        changed_pairs.push(PairKey {
                            route: route.clone(),
                            parent_index: i,
                        });
                    }
                    None => {
                        entry.verdicts.push(v);
                        changed_pairs.push(PairKey {
                            route: route.clone(),
                            parent_index: i,
                        });
                    }
                }
            }
            if old_len > refs.len() {
                entry.verdicts.truncate(refs.len());
                changed_pairs.extend((refs.len()..old_len).map(|i| PairKey {
                    route: route.clone(),
                    parent_index: i,
                }));
            }
        }
        drop(ladder);
        decisions.index = Some(index);
        changed_pairs
    }
}

/// The verdicts of one route, one per parentRef in spec order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteVerdicts {
    /// The route's `metadata.generation` when decided.
    pub generation: i64,
    /// One verdict per `spec.parentRefs` entry, in order (a slice; a single verdict is
    /// stored inline).
    pub verdicts: Verdicts,
}

/// Every verdict for one snapshot, plus the registry they were computed with.
#[derive(Debug, Clone)]
pub struct Decisions {
    registry: Arc<Registry>,
    /// Sorted by key, no duplicates (binary-searched; see `decide_all`).
    routes: Vec<(RouteKey, RouteVerdicts)>,
    index: Option<DependencyIndex>,
}

impl PartialEq for Decisions {
    /// Equal when the verdicts and the registry are (the incremental index is a cache).
    fn eq(&self, other: &Self) -> bool {
        self.routes == other.routes && self.registry == other.registry
    }
}

impl Decisions {
    /// The registry the verdicts were computed with.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The verdicts of `route` (an [`ObjectRef`] or a [`RouteKey`]), one per parentRef.
    pub fn route(&self, route: &dyn RouteName) -> Option<&RouteVerdicts> {
        let at = self.find(route).ok()?;
        self.routes.get(at).map(|(_, v)| v)
    }

    /// Where `route` is (`Ok`) or would be inserted (`Err`) in `routes`.
    fn find(&self, route: &dyn RouteName) -> Result<usize, usize> {
        self.routes
            .binary_search_by(|(k, _)| (k as &dyn RouteName).cmp(route))
    }

    /// The verdict for parentRef `parent_index` of `route`.
    pub fn verdict(&self, route: &dyn RouteName, parent_index: usize) -> Option<&Verdict> {
        self.route(route)?.verdicts.get(parent_index)
    }

    /// What `me` makes of parentRef `parent_index` of `route`.
    pub fn decision(
        &self,
        route: &dyn RouteName,
        parent_index: usize,
        me: &Identity,
    ) -> Option<Decision> {
        Some(self.verdict(route, parent_index)?.view(me, &self.registry))
    }

    /// Every route and its verdicts, in [`ObjectRef`] order.
    pub fn routes(&self) -> impl Iterator<Item = (&RouteKey, &RouteVerdicts)> {
        self.routes.iter().map(|(k, v)| (k, v))
    }

    /// Every (route, parent index, verdict), in order.
    pub fn pairs(&self) -> impl Iterator<Item = (&RouteKey, usize, &Verdict)> {
        self.routes
            .iter()
            .flat_map(|(r, v)| v.verdicts.iter().enumerate().map(move |(i, v)| (r, i, v)))
    }

    /// Every (route, parent index, decision) as `me` sees them, in order.
    pub fn for_controller<'a>(
        &'a self,
        me: &'a Identity,
    ) -> impl Iterator<Item = (&'a RouteKey, usize, Decision)> + 'a {
        self.pairs()
            .map(move |(r, i, v)| (r, i, v.view(me, &self.registry)))
    }

    /// The number of (route, parent) pairs.
    pub fn len(&self) -> usize {
        self.routes.iter().map(|(_, v)| v.verdicts.len()).sum()
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
