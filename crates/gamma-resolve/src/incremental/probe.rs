//! Snapshot lookups by borrowed names through one reused key ([`Probe`]).
//!
//! The snapshot's maps are keyed by owned keys ([`ObjectKey`], [`ParentKey`]), so a lookup
//! by `(namespace, name)` builds one: two or four string allocations, and as many frees,
//! per lookup. An update looks up each Service of its scope several times (closing the scope,
//! lowering it, unbinding its old addresses), which at a few hundred instructions each was a
//! visible share of a route change. A probe rewrites its keys in place instead: once their
//! strings have grown to the longest names looked up, a lookup allocates nothing. The
//! Services found are remembered: the same few are asked for again and again (closing,
//! lowering, unbinding), and a look through them is cheaper than the snapshot's search of
//! every object.

use std::sync::Arc;

use gamma_model::k8s::Service;
use gamma_model::{AnyResource, ObjectKey, ParentKey, ResourceKind, Snapshot};

use super::scope::NameRef;

/// At most this many Services found are remembered (an update's scope has a few).
const REMEMBERED: usize = 8;

/// One reused [`ObjectKey`] and [`ParentKey`], and the Services found through them (of one
/// snapshot).
pub(super) struct Probe<'s> {
    key: ObjectKey,
    parent: ParentKey,
    found: Vec<&'s Service>,
}

impl<'s> Probe<'s> {
    pub(super) fn new() -> Self {
        Probe {
            found: Vec::new(),
            key: ObjectKey::new(ResourceKind::Service, String::new(), String::new()),
            parent: ParentKey {
                group: String::new(),
                kind: String::new(),
                namespace: String::new(),
                name: String::new(),
            },
        }
    }

    /// Service `ns/name` of `snapshot` (what [`Snapshot::service`] gives); every call of one
    /// probe must pass the same snapshot.
    pub(super) fn service(
        &mut self,
        snapshot: &'s Snapshot,
        n: NameRef<'_>,
    ) -> Option<&'s Service> {
        if let Some(s) = self
            .found
            .iter()
            .find(|s| s.metadata.name == n.1 && s.metadata.namespace_or_default() == n.0)
        {
            return Some(s);
        }
        let s = match snapshot.get(self.key(ResourceKind::Service, n.0, n.1))? {
            AnyResource::Service(s) => s,
            _ => return None,
        };
        if self.found.len() < REMEMBERED {
            self.found.push(s);
        }
        Some(s)
    }

    /// Route (`kind`, `ns`, `name`) of `snapshot`, shared.
    pub(super) fn route(
        &mut self,
        snapshot: &'s Snapshot,
        (kind, ns, name): (ResourceKind, &str, &str),
    ) -> Option<&'s Arc<AnyResource>> {
        snapshot.get_shared(self.key(kind, ns, name))
    }

    /// The reused key, set to (`kind`, `ns`, `name`).
    pub(super) fn key(&mut self, kind: ResourceKind, ns: &str, name: &str) -> &ObjectKey {
        self.key.kind = kind;
        set(&mut self.key.namespace, ns);
        set(&mut self.key.name, name);
        &self.key
    }

    /// The key of parent (`group`, `kind`, `ns/name`), for [`Snapshot::routes_for_parent_shared`].
    pub(super) fn parent(&mut self, group: &str, kind: &str, n: NameRef<'_>) -> &ParentKey {
        set(&mut self.parent.group, group);
        set(&mut self.parent.kind, kind);
        set(&mut self.parent.namespace, n.0);
        set(&mut self.parent.name, n.1);
        &self.parent
    }
}

fn set(field: &mut String, value: &str) {
    field.clear();
    field.push_str(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_finds_what_the_typed_lookups_find_whatever_it_looked_up_before() {
        let snapshot = Snapshot::from_resources(
            gamma_model::decode(
                "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n\
                 spec: {clusterIP: 10.96.0.10, ports: [{port: 80}]}\n---\n\
                 apiVersion: v1\nkind: Service\nmetadata: {name: a-much-longer-name, namespace: s}\n\
                 spec: {clusterIP: 10.96.0.11, ports: [{port: 80}]}\n---\n\
                 apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: shop}\n",
            )
            .unwrap(),
        );
        let mut probe = Probe::new();
        // longer names first: a shorter one must not keep the tail of the previous; each
        // asked twice, the second time from the Services remembered
        for n in [
            ("s", "a-much-longer-name"),
            ("shop", "web"),
            ("shop", "we"),
            ("sho", "web"),
            ("s", "a-much-longer-name"),
            ("shop", "web"),
            ("shop", "we"),
            ("sho", "web"),
        ] {
            let found = probe.service(&snapshot, n).map(|s| &s.metadata.name);
            let typed = snapshot.service(n.0, n.1).map(|s| &s.metadata.name);
            assert_eq!(found, typed, "{n:?}");
        }
        // a ConfigMap of the same name is not a Service, nor is it a route
        assert!(
            probe
                .route(&snapshot, (ResourceKind::HttpRoute, "shop", "web"))
                .is_none()
        );
        assert_eq!(
            probe
                .route(&snapshot, (ResourceKind::ConfigMap, "shop", "web"))
                .map(|r| r.kind()),
            Some(ResourceKind::ConfigMap)
        );
        assert_eq!(
            *probe.parent("", "Service", ("shop", "web")),
            ParentKey::service("shop", "web")
        );
        assert_eq!(
            *probe.parent(gamma_model::gateway::GROUP, "Gateway", ("a", "b")),
            ParentKey::gateway("a", "b")
        );
    }
}
