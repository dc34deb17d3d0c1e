//! Which routes' parent conditions a part holds ([`Covers`]): every route (a full build) or
//! an update's [`Scope`] (the Services, Gateways, ListenerSets and routes it rebuilt).

use gamma_model::{AnyResource, ObjectKey};

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
    /// Whether the part holds the parent conditions of the route `key`.
    pub(crate) fn contains(&self, key: &ObjectKey) -> bool {
        match self {
            Covers::All => true,
            Covers::Scope(s) => s.routes.contains(key),
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
pub(crate) type RouteKeys = Sorted<ObjectKey>;

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

    pub(crate) fn contains(&self, key: &T) -> bool {
        self.0.binary_search(key).is_ok()
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
            set.insert((ns.to_string(), name.to_string()));
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
