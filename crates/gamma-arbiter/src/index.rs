//! Which (route, parent) pairs each object influences, so that one object change re-decides only
//! those pairs.
//!
//! | object changed | pairs re-decided |
//! |---|---|
//! | a route | all of that route's pairs |
//! | Service `s` | pairs whose parent is `s` |
//! | Namespace `n` | Service-parent pairs of routes in `n` (levels 3-5 read the route's namespace), and pairs whose parent is a Service in `n` (level 2 reads its Namespace's delegation label) |
//! | Gateway `g` | pairs whose parent is `g`, a ListenerSet of `g`, a Service delegating to `g`, or a Service in a namespace delegating to `g` |
//! | GatewayClass `c` | as for every Gateway of class `c` |
//! | ListenerSet `l` | pairs whose parent is `l` |
//! | XMesh `x` | Service-parent pairs of routes in namespaces labelled with mesh `x`; everything when the change makes a controller name resolve differently |
//!
//! Pairs with parents in a snapshot's reverse index come from
//! [`Snapshot::routes_for_parent`]; the rest are kept here as forward and reverse edges,
//! updated from the snapshot itself so no previous object is needed.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::Hash;

use gamma_model::gateway::{GROUP, ParentKind, ParentReference};
use gamma_model::{AnyResource, ObjectKey, ParentKey, ResourceKind, Snapshot};

use crate::config::{ArbiterConfig, NONE_VALUE};
use crate::routes::ROUTE_KINDS;

/// Which of a route's parentRefs an object change touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every parentRef (the route itself changed, or several scopes merged).
    All,
    /// Only parentRefs naming this parent.
    Parent(ParentKey),
    /// Only Service parentRefs.
    ServiceParents,
}

impl Scope {
    pub(crate) fn covers(&self, parent_ref: &ParentReference, route_ns: &str) -> bool {
        match self {
            Scope::All => true,
            // `group: core` too: a Service under the compatibility policy (re-deciding it
            // without the policy is harmless)
            Scope::ServiceParents => {
                parent_ref.parent_kind() == ParentKind::Service
                    || parent_ref.is_core_alias_service()
            }
            Scope::Parent(k) => {
                parent_ref.name == k.name
                    && parent_ref.kind_or_default() == k.kind
                    && parent_ref.group_or_default() == k.group
                    && parent_ref.namespace_or(route_ns) == k.namespace
            }
        }
    }

    fn merge(self, other: Scope) -> Scope {
        if self == other { self } else { Scope::All }
    }
}

fn add(scopes: &mut BTreeMap<ObjectKey, Scope>, route: ObjectKey, scope: Scope) {
    let s = match scopes.remove(&route) {
        Some(old) => old.merge(scope),
        None => scope,
    };
    scopes.insert(route, s);
}

/// A many-to-one relation with its reverse.
#[derive(Debug, Clone)]
struct Edges<K, V> {
    forward: HashMap<K, V>,
    reverse: HashMap<V, BTreeSet<K>>,
}

impl<K, V> Default for Edges<K, V> {
    fn default() -> Self {
        Edges {
            forward: HashMap::new(),
            reverse: HashMap::new(),
        }
    }
}

impl<K: Clone + Eq + Hash + Ord, V: Clone + Eq + Hash> Edges<K, V> {
    fn set(&mut self, k: K, v: Option<V>) {
        if let Some(old) = self.forward.remove(&k)
            && let Some(set) = self.reverse.get_mut(&old)
        {
            set.remove(&k);
            if set.is_empty() {
                self.reverse.remove(&old);
            }
        }
        if let Some(v) = v {
            self.reverse.entry(v.clone()).or_default().insert(k.clone());
            self.forward.insert(k, v);
        }
    }

    fn sources(&self, v: &V) -> impl Iterator<Item = &K> {
        self.reverse.get(v).into_iter().flatten()
    }
}

type Nn = (String, String);

/// The dependency index (see the module docs).
#[derive(Debug, Clone, Default)]
pub(crate) struct DependencyIndex {
    /// Route -> its namespace, for routes with at least one Service parent.
    service_routes: Edges<ObjectKey, String>,
    /// Service -> the Gateway its delegation label names.
    delegation: Edges<Nn, Nn>,
    /// Gateway -> its class.
    gateway_class: Edges<Nn, String>,
    /// ListenerSet -> its Gateway.
    listener_set: Edges<Nn, Nn>,
    /// Namespace -> the mesh its label names.
    namespace_mesh: Edges<String, String>,
    /// Namespace -> the Gateway its delegation label names (for its Services without one).
    namespace_delegation: Edges<String, Nn>,
}

impl DependencyIndex {
    pub(crate) fn build(snapshot: &Snapshot, config: &ArbiterConfig) -> Self {
        let mut idx = DependencyIndex::default();
        for kind in ROUTE_KINDS {
            for r in snapshot.of_kind(kind) {
                idx.record(snapshot, config, &ObjectKey::of(r));
            }
        }
        for kind in [
            ResourceKind::Service,
            ResourceKind::Gateway,
            ResourceKind::ListenerSet,
            ResourceKind::Namespace,
        ] {
            for r in snapshot.of_kind(kind) {
                idx.record(snapshot, config, &ObjectKey::of(r));
            }
        }
        idx
    }

    /// Updates the edges of `key` from its current state in `snapshot` (absent: removed).
    pub(crate) fn record(&mut self, snapshot: &Snapshot, config: &ArbiterConfig, key: &ObjectKey) {
        let obj = snapshot.get(key);
        let nn = || (key.namespace.clone(), key.name.clone());
        let keys = &config.keys;
        let signal = |v: Option<&String>| -> Option<String> {
            v.map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty() && s != NONE_VALUE)
        };
        match key.kind {
            k if k.is_route() => {
                let has_service = obj.and_then(|o| o.as_route()).is_some_and(|r| {
                    r.parent_refs.iter().any(|p| {
                        p.parent_kind() == ParentKind::Service || p.is_core_alias_service()
                    })
                });
                self.service_routes
                    .set(key.clone(), has_service.then(|| key.namespace.clone()));
            }
            ResourceKind::Service => {
                let target = match obj {
                    Some(AnyResource::Service(s)) => {
                        signal(s.metadata.labels.get(&keys.delegation_label)).map(|gw| {
                            let ns =
                                signal(s.metadata.labels.get(&keys.delegation_namespace_label))
                                    .unwrap_or_else(|| key.namespace.clone());
                            (ns, gw)
                        })
                    }
                    _ => None,
                };
                self.delegation.set(nn(), target);
            }
            ResourceKind::Gateway => {
                let class = match obj {
                    Some(AnyResource::Gateway(g)) => Some(g.spec.gateway_class_name.clone()),
                    _ => None,
                };
                self.gateway_class.set(nn(), class);
            }
            ResourceKind::ListenerSet => {
                let gw = match obj {
                    Some(AnyResource::ListenerSet(l)) => {
                        let p = &l.spec.parent_ref;
                        Some((
                            p.namespace.clone().unwrap_or_else(|| key.namespace.clone()),
                            p.name.clone(),
                        ))
                    }
                    _ => None,
                };
                self.listener_set.set(nn(), gw);
            }
            ResourceKind::Namespace => {
                let (mesh, delegation) = match obj {
                    Some(AnyResource::Namespace(n)) => {
                        let labels = &n.metadata.labels;
                        let gw = signal(labels.get(&keys.namespace_delegation_label)).map(|gw| {
                            let ns = signal(labels.get(&keys.namespace_delegation_namespace_label))
                                .unwrap_or_else(|| key.name.clone());
                            (ns, gw)
                        });
                        (signal(labels.get(&keys.namespace_mesh_label)), gw)
                    }
                    _ => (None, None),
                };
                self.namespace_mesh.set(key.name.clone(), mesh);
                self.namespace_delegation.set(key.name.clone(), delegation);
            }
            _ => {}
        }
    }

    /// Adds to `scopes` the pairs a change of `key` may affect (call before [`Self::record`]).
    pub(crate) fn affected(
        &self,
        snapshot: &Snapshot,
        key: &ObjectKey,
        scopes: &mut BTreeMap<ObjectKey, Scope>,
    ) {
        let parent = |scopes: &mut BTreeMap<ObjectKey, Scope>, p: ParentKey| {
            for r in snapshot.routes_for_parent(&p) {
                add(scopes, ObjectKey::of(r), Scope::Parent(p.clone()));
            }
        };
        match key.kind {
            k if k.is_route() => add(scopes, key.clone(), Scope::All),
            ResourceKind::Service => {
                parent(scopes, ParentKey::service(&key.namespace, &key.name));
                parent(scopes, core_alias_key(&key.namespace, &key.name));
            }
            ResourceKind::Namespace => {
                self.namespace_routes(&key.name, scopes);
                services_in(snapshot, &key.name, scopes);
            }
            ResourceKind::Gateway => {
                self.gateway_pairs(snapshot, &key.namespace, &key.name, scopes)
            }
            ResourceKind::GatewayClass => {
                for (ns, name) in self.gateway_class.sources(&key.name) {
                    self.gateway_pairs(snapshot, ns, name, scopes);
                }
            }
            ResourceKind::ListenerSet => {
                parent(scopes, listener_set_key(&key.namespace, &key.name))
            }
            ResourceKind::XMesh => {
                for ns in self.namespace_mesh.sources(&key.name) {
                    self.namespace_routes(ns, scopes);
                }
            }
            _ => {}
        }
    }

    fn namespace_routes(&self, ns: &str, scopes: &mut BTreeMap<ObjectKey, Scope>) {
        for r in self.service_routes.sources(&ns.to_owned()) {
            add(scopes, r.clone(), Scope::ServiceParents);
        }
    }

    fn gateway_pairs(
        &self,
        snapshot: &Snapshot,
        ns: &str,
        name: &str,
        scopes: &mut BTreeMap<ObjectKey, Scope>,
    ) {
        let gw = (ns.to_owned(), name.to_owned());
        let mut parents = vec![ParentKey::gateway(ns, name)];
        for (sns, sname) in self.delegation.sources(&gw) {
            parents.push(ParentKey::service(sns, sname));
            parents.push(core_alias_key(sns, sname));
        }
        for (lns, lname) in self.listener_set.sources(&gw) {
            parents.push(listener_set_key(lns, lname));
        }
        for p in parents {
            for r in snapshot.routes_for_parent(&p) {
                add(scopes, ObjectKey::of(r), Scope::Parent(p.clone()));
            }
        }
        for ns in self.namespace_delegation.sources(&gw) {
            services_in(snapshot, ns, scopes);
        }
    }
}

/// Adds the pairs whose parent is a Service in namespace `ns` (a Namespace-level delegation
/// may decide them; Services with their own label are re-decided too, harmlessly).
fn services_in(snapshot: &Snapshot, ns: &str, scopes: &mut BTreeMap<ObjectKey, Scope>) {
    for svc in snapshot.in_namespace(ResourceKind::Service, ns) {
        let name = &svc.metadata().name;
        for p in [ParentKey::service(ns, name), core_alias_key(ns, name)] {
            for r in snapshot.routes_for_parent(&p) {
                add(scopes, ObjectKey::of(r), Scope::Parent(p.clone()));
            }
        }
    }
}

/// The parent key of `kind: Service, group: core` (a Service under the compatibility policy).
fn core_alias_key(ns: &str, name: &str) -> ParentKey {
    ParentKey {
        group: "core".into(),
        kind: "Service".into(),
        namespace: ns.into(),
        name: name.into(),
    }
}

fn listener_set_key(ns: &str, name: &str) -> ParentKey {
    ParentKey {
        group: GROUP.into(),
        kind: "ListenerSet".into(),
        namespace: ns.into(),
        name: name.into(),
    }
}
