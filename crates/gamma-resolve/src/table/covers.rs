//! Which routes' parent conditions a part holds ([`Covers`]): every route (a full build) or
//! an update's [`Scope`] (the Services, Gateways, ListenerSets and routes it rebuilt).

use std::sync::Arc;

use gamma_model::{AnyResource, ObjectKey, ResourceKind};

/// The routes whose parent conditions a part holds.
#[derive(Debug)]
pub(crate) enum Covers {
    /// Every route of the snapshot (a full build).
    All,
    /// The routes of an update's scope (present or removed), and the scope itself (an
    /// update that merges parts rebuilds their scopes together).
    Scope(Scope),
}

impl Covers {
    /// Whether the part holds the parent conditions of the route (`kind`, `ns`, `name`).
    pub(crate) fn contains(&self, kind: ResourceKind, ns: &str, name: &str) -> bool {
        match self {
            Covers::All => true,
            Covers::Scope(s) => s.routes.contains_route(kind, ns, name),
        }
    }
}

/// What an update rebuilds.
#[derive(Debug, Default, Clone)]
pub(crate) struct Scope {
    /// Services (namespace, name) whose frontends are rebuilt.
    pub(crate) services: NameKeys,
    /// Gateways (namespace, name) whose listeners are rebuilt.
    pub(crate) gateways: NameKeys,
    /// ListenerSets (namespace, name) whose listeners and status are rebuilt (with their
    /// parent Gateways: GEP-1713 merges a Gateway's listeners with its ListenerSets').
    pub(crate) listener_sets: NameKeys,
    /// Routes lowered and compiled again (those still in the snapshot) or dropped.
    pub(crate) routes: RouteKeys,
}

/// Keys sorted and distinct: a scope's routes, Services, Gateways and ListenerSets. A sorted
/// vector rather than a set: a closed scope is made once from keys already in order and
/// then only searched, and a set cost a sort and a tree of nodes per kind for every update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sorted<T>(Vec<T>);

/// A scope's routes.
pub(crate) type RouteKeys = Sorted<ScopeRoute>;

/// A route of a scope, ordered as its [`ObjectKey`] (kind, namespace, name): the object the
/// snapshot held when the scope was made, shared rather than its names copied (a closed
/// scope has one per route, and an update's part keeps its scope); or, for a route the
/// snapshot does not hold (removed), its key. A stored object may be older than the
/// snapshot's by the time the scope is read again: only its identity counts.
#[derive(Debug, Clone)]
pub(crate) enum ScopeRoute {
    /// The route as stored.
    Stored(Arc<AnyResource>),
    /// The key of a route that is not stored.
    Key(ObjectKey),
}

impl ScopeRoute {
    /// The key of `route`.
    pub(crate) fn key_of(route: &AnyResource) -> Self {
        ScopeRoute::Key(ObjectKey::of(route))
    }

    /// The route's (kind, namespace, name).
    pub(crate) fn id(&self) -> (ResourceKind, &str, &str) {
        match self {
            ScopeRoute::Stored(r) => {
                let meta = r.metadata();
                (r.kind(), meta.namespace_or_default(), &meta.name)
            }
            ScopeRoute::Key(k) => (k.kind, &k.namespace, &k.name),
        }
    }
}

impl PartialEq for ScopeRoute {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

impl Eq for ScopeRoute {}

impl PartialOrd for ScopeRoute {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ScopeRoute {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.id().cmp(&other.id())
    }
}

impl RouteKeys {
    /// Whether route (`kind`, `ns`, `name`) is in, compared without copying it.
    pub(crate) fn contains_route(&self, kind: ResourceKind, ns: &str, name: &str) -> bool {
        self.0
            .binary_search_by(|r| r.id().cmp(&(kind, ns, name)))
            .is_ok()
    }
}

/// A scope's Services, Gateways or ListenerSets, by (namespace, name).
pub(crate) type NameKeys = Sorted<(String, String)>;

impl<T> Default for Sorted<T> {
    fn default() -> Self {
        Sorted(Vec::new())
    }
}

impl<T: Ord> Sorted<T> {
    /// The keys of `sorted`, which are in order and distinct (a closed scope's, from its
    /// ordered maps); sorted again otherwise, so the order holds whatever the caller gives.
    pub(crate) fn from_sorted(mut sorted: Vec<T>) -> Self {
        if !sorted.windows(2).all(|w| matches!(w, [a, b] if a < b)) {
            sorted.sort_unstable();
            sorted.dedup();
        }
        Sorted(sorted)
    }

    /// Adds `key` (nothing when present).
    pub(crate) fn insert(&mut self, key: T) {
        if let Err(at) = self.0.binary_search(&key) {
            self.0.insert(at, key);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The keys in order.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }
}

impl NameKeys {
    /// Whether `ns/name` is in, compared without copying it.
    pub(crate) fn contains_name(&self, ns: &str, name: &str) -> bool {
        self.0
            .binary_search_by(|(a, b)| (a.as_str(), b.as_str()).cmp(&(ns, name)))
            .is_ok()
    }
}

impl<T: Ord> Extend<T> for Sorted<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, keys: I) {
        self.0.extend(keys);
        self.0.sort_unstable();
        self.0.dedup();
    }
}

impl<'a, T> IntoIterator for &'a Sorted<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Scope {
    /// Nothing to rebuild.
    pub(crate) fn is_empty(&self) -> bool {
        self.services.is_empty()
            && self.gateways.is_empty()
            && self.listener_sets.is_empty()
            && self.routes.is_empty()
    }

    pub(crate) fn absorb(&mut self, o: &Scope) {
        self.services.extend(o.services.iter().cloned());
        self.gateways.extend(o.gateways.iter().cloned());
        self.listener_sets.extend(o.listener_sets.iter().cloned());
        self.routes.extend(o.routes.iter().cloned());
    }

    pub(crate) fn add_parents(&mut self, route: &AnyResource) {
        for (kind, ns, name) in frontend_parents(route) {
            let set = match kind {
                Frontend::Service => &mut self.services,
                Frontend::Gateway => &mut self.gateways,
                Frontend::ListenerSet => &mut self.listener_sets,
            };
            // the old and new parents are mostly the same: no copy for one already in
            if !set.contains_name(ns, name) {
                set.insert((ns.to_string(), name.to_string()));
            }
        }
    }
}

/// The kinds of parent an update rebuilds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Frontend {
    Service,
    Gateway,
    ListenerSet,
}

/// The Services, Gateways and ListenerSets `route` names as parents, as (kind, namespace,
/// name) borrowed from it. A Service is of the core group, or of `core` (read as core under
/// `core_group_alias`; naming more only widens a scope); parents of other kinds never attach,
/// whatever exists.
pub(crate) fn frontend_parents(
    route: &AnyResource,
) -> impl Iterator<Item = (Frontend, &str, &str)> {
    let view = route.as_route();
    let ns = view
        .as_ref()
        .map_or("", |v| v.metadata.namespace_or_default());
    view.into_iter()
        .flat_map(|v| v.parent_refs.iter())
        .filter_map(move |p| {
            let group = p.group_or_default();
            let kind = match p.kind_or_default() {
                "Service" if group.is_empty() || group == "core" => Frontend::Service,
                "Gateway" if group == gamma_model::gateway::GROUP => Frontend::Gateway,
                "ListenerSet" if group == gamma_model::gateway::GROUP => Frontend::ListenerSet,
                _ => return None,
            };
            Some((kind, p.namespace_or(ns), p.name.as_str()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stored(kind: &str, ns: &str, name: &str) -> ScopeRoute {
        let yaml = format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: {kind}\n\
             metadata: {{name: {name}, namespace: {ns}}}\nspec: {{}}\n"
        );
        let mut objects = gamma_model::decode(&yaml).unwrap();
        ScopeRoute::Stored(Arc::new(objects.remove(0)))
    }

    // A scope's routes, stored or by key, are ordered and found exactly as their ObjectKeys.
    proptest! {
        #[test]
        fn scope_routes_order_and_search_as_their_object_keys(
            routes in proptest::collection::vec(
                (0usize..2, "[ab]{1,2}", "[a-c]{1,3}", any::<bool>()),
                0..12,
            ),
            probe in (0usize..2, "[ab]{1,2}", "[a-c]{1,3}"),
        ) {
            let kinds = [("HTTPRoute", ResourceKind::HttpRoute), ("GRPCRoute", ResourceKind::GrpcRoute)];
            let mut keys: Vec<ObjectKey> = Vec::new();
            let mut scope: Vec<ScopeRoute> = Vec::new();
            for (k, ns, name, as_stored) in &routes {
                let (kind_name, kind) = kinds[*k];
                keys.push(ObjectKey::new(kind, ns.as_str(), name.as_str()));
                scope.push(if *as_stored {
                    stored(kind_name, ns, name)
                } else {
                    ScopeRoute::Key(ObjectKey::new(kind, ns.as_str(), name.as_str()))
                });
            }
            keys.sort();
            keys.dedup();
            let sorted = RouteKeys::from_sorted(scope);
            let ids: Vec<(ResourceKind, String, String)> = sorted
                .iter()
                .map(|r| {
                    let (k, ns, name) = r.id();
                    (k, ns.to_string(), name.to_string())
                })
                .collect();
            let want: Vec<(ResourceKind, String, String)> =
                keys.iter().map(|k| (k.kind, k.namespace.clone(), k.name.clone())).collect();
            prop_assert_eq!(&ids, &want);
            let (k, ns, name) = probe;
            let kind = kinds[k].1;
            prop_assert_eq!(
                sorted.contains_route(kind, &ns, &name),
                keys.contains(&ObjectKey::new(kind, ns.as_str(), name.as_str()))
            );
        }
    }
}
