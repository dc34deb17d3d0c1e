//! [`RouteKey`]: how [`crate::Decisions`] names a route without copying its name. A full
//! decision over 50,000 routes spent a fifth of its time allocating two `String`s per route for
//! owned [`ObjectKey`] keys; a `RouteKey` shares the snapshot's object instead (one reference
//! count increment), and lookups by [`ObjectKey`] go through [`RouteName`].

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use gamma_model::{AnyResource, ObjectKey, ResourceKind};

/// Anything that names an object by (kind, namespace, name), ordered exactly as
/// [`ObjectKey`] is: lets a map keyed by [`RouteKey`] be searched with an [`ObjectKey`].
pub trait RouteName {
    /// The (kind, namespace, name); the namespace is empty for cluster-scoped kinds.
    fn route_name(&self) -> (ResourceKind, &str, &str);
}

impl RouteName for ObjectKey {
    fn route_name(&self) -> (ResourceKind, &str, &str) {
        (self.kind, &self.namespace, &self.name)
    }
}

impl PartialEq for dyn RouteName + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.route_name() == other.route_name()
    }
}

impl Eq for dyn RouteName + '_ {}

impl PartialOrd for dyn RouteName + '_ {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for dyn RouteName + '_ {
    fn cmp(&self, other: &Self) -> Ordering {
        self.route_name().cmp(&other.route_name())
    }
}

/// A route's identity, sharing the snapshot's object (cloning it allocates nothing). Ordered,
/// compared and hashed like the [`ObjectKey`] of the route; [`RouteKey::to_object_key`] gives
/// that `ObjectKey`.
#[derive(Clone)]
pub struct RouteKey {
    /// Kept beside the object: comparisons (the result map is built by sorting) then skip a
    /// dispatch on the resource variant.
    kind: ResourceKind,
    resource: Arc<AnyResource>,
}

impl RouteKey {
    /// The key of `resource` (as stored in a snapshot).
    pub fn new(resource: Arc<AnyResource>) -> Self {
        RouteKey {
            kind: resource.kind(),
            resource,
        }
    }

    /// The key of `resource`, already known to be of `kind` (spares the dispatch on the
    /// resource variant; a full decision makes 50,000 keys).
    pub(crate) fn of_kind(kind: ResourceKind, resource: Arc<AnyResource>) -> Self {
        debug_assert_eq!(kind, resource.kind());
        RouteKey { kind, resource }
    }

    /// The kind.
    pub fn kind(&self) -> ResourceKind {
        self.kind
    }

    /// The namespace (empty for cluster-scoped kinds).
    pub fn namespace(&self) -> &str {
        if self.kind.is_namespaced() {
            self.resource.metadata().namespace_or_default()
        } else {
            ""
        }
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.resource.metadata().name
    }

    /// The route object this key was taken from (the version last decided).
    pub fn resource(&self) -> &Arc<AnyResource> {
        &self.resource
    }

    /// The equivalent [`ObjectKey`] (allocates).
    pub fn to_object_key(&self) -> ObjectKey {
        ObjectKey::new(self.kind(), self.namespace(), self.name())
    }
}

impl RouteName for RouteKey {
    fn route_name(&self) -> (ResourceKind, &str, &str) {
        (self.kind, self.namespace(), self.name())
    }
}

impl<'a> Borrow<dyn RouteName + 'a> for RouteKey {
    fn borrow(&self) -> &(dyn RouteName + 'a) {
        self
    }
}

impl PartialEq for RouteKey {
    fn eq(&self, other: &Self) -> bool {
        self.route_name() == other.route_name()
    }
}

impl Eq for RouteKey {}

impl PartialEq<ObjectKey> for RouteKey {
    fn eq(&self, other: &ObjectKey) -> bool {
        self.route_name() == other.route_name()
    }
}

impl PartialOrd for RouteKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RouteKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.route_name().cmp(&other.route_name())
    }
}

impl Hash for RouteKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.route_name().hash(state);
    }
}

impl From<&RouteKey> for ObjectKey {
    fn from(k: &RouteKey) -> ObjectKey {
        k.to_object_key()
    }
}

impl fmt::Debug for RouteKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, namespace, name) = self.route_name();
        f.debug_struct("RouteKey")
            .field("kind", &kind)
            .field("namespace", &namespace)
            .field("name", &name)
            .finish()
    }
}

impl fmt::Display for RouteKey {
    /// As the route's [`ObjectKey`] displays.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, namespace, name) = self.route_name();
        if namespace.is_empty() {
            write!(f, "{kind} {name}")
        } else {
            write!(f, "{kind} {namespace}/{name}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_model::gateway::HttpRoute;
    use gamma_model::meta::ObjectMeta;

    fn key(ns: &str, name: &str) -> RouteKey {
        RouteKey::new(Arc::new(AnyResource::HttpRoute(HttpRoute::new(
            ObjectMeta::namespaced(ns, name),
            Default::default(),
        ))))
    }

    #[test]
    fn route_key_orders_and_displays_like_its_object_key() {
        let keys = [key("a", "z"), key("b", "a"), key("a", "b")];
        let mut by_key: Vec<&RouteKey> = keys.iter().collect();
        by_key.sort();
        let mut refs: Vec<ObjectKey> = keys.iter().map(RouteKey::to_object_key).collect();
        refs.sort();
        let sorted: Vec<ObjectKey> = by_key.iter().map(|k| k.to_object_key()).collect();
        assert_eq!(sorted, refs);
        for k in &keys {
            assert_eq!(k.to_string(), k.to_object_key().to_string());
            assert_eq!(*k, k.to_object_key());
        }
    }

    #[test]
    fn map_keyed_by_route_key_is_searchable_by_object_key() {
        let map: std::collections::BTreeMap<RouteKey, u8> =
            [(key("a", "x"), 1), (key("b", "y"), 2)]
                .into_iter()
                .collect();
        let hit = ObjectKey::new(ResourceKind::HttpRoute, "b", "y");
        let miss = ObjectKey::new(ResourceKind::GrpcRoute, "b", "y");
        assert_eq!(map.get(&hit as &dyn RouteName), Some(&2));
        assert_eq!(map.get(&miss as &dyn RouteName), None);
    }
}
