//! The sync half: watcher events into a [`Snapshot`], no `.await`.
//!
//! Like kube-runtime's reflector store, a relist (`Init`, `InitApply`..., `InitDone`) is
//! buffered and applied at `InitDone` as one atomic replacement of that kind's objects, so a
//! relist never leaves an object deleted while the watch was down, and readers never see half
//! a list. The store is ready once every expected kind has completed one list.

use std::collections::{BTreeMap, BTreeSet};

use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot};
use kube::runtime::watcher::Event;

/// What one event changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// Nothing visible (the start of a relist, or a buffered relist item).
    None,
    /// One object was inserted, replaced or removed.
    Object(ObjectKey),
    /// A relist of this kind completed: its objects were replaced at once.
    Relisted(ResourceKind),
}

/// Watcher events to a [`Snapshot`].
#[derive(Debug, Default)]
pub struct Store {
    snapshot: Snapshot,
    /// Relists in progress: the objects listed so far.
    relisting: BTreeMap<ResourceKind, Vec<AnyResource>>,
    /// Kinds that must list once before the store is ready.
    expected: BTreeSet<ResourceKind>,
    /// Kinds that listed at least once.
    synced: BTreeSet<ResourceKind>,
}

impl Store {
    /// An empty store waiting for no kind.
    pub fn new() -> Store {
        Store::default()
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// Waits for `kind` to list before reporting ready.
    pub fn expect(&mut self, kind: ResourceKind) {
        self.expected.insert(kind);
    }

    /// Whether every expected kind has listed once.
    pub fn is_ready(&self) -> bool {
        self.expected.is_subset(&self.synced)
    }

    /// Whether `kind` has completed a list (since it was last forgotten).
    pub fn has_listed(&self, kind: ResourceKind) -> bool {
        self.synced.contains(&kind)
    }

    /// The expected kinds that have not listed yet.
    pub fn unsynced(&self) -> impl Iterator<Item = ResourceKind> + '_ {
        self.expected.difference(&self.synced).copied()
    }

    /// Applies one watcher event for objects of `kind`.
    pub fn apply(&mut self, kind: ResourceKind, event: Event<AnyResource>) -> Change {
        match event {
            Event::Apply(r) => {
                let key = ObjectKey::of(&r);
                self.snapshot.upsert(r);
                Change::Object(key)
            }
            Event::Delete(r) => {
                let key = ObjectKey::of(&r);
                self.snapshot.remove(&key);
                Change::Object(key)
            }
            Event::Init => {
                self.relisting.insert(kind, Vec::new());
                Change::None
            }
            Event::InitApply(r) => {
                self.relisting.entry(kind).or_default().push(r);
                Change::None
            }
            Event::InitDone => {
                let listed = self.relisting.remove(&kind).unwrap_or_default();
                self.replace_kind(kind, listed);
                self.synced.insert(kind);
                Change::Relisted(kind)
            }
        }
    }

    /// Removes every object of `kind` and stops expecting it (its CRD was deleted). Returns
    /// whether anything was removed.
    pub fn forget_kind(&mut self, kind: ResourceKind) -> bool {
        self.expected.remove(&kind);
        self.synced.remove(&kind);
        self.relisting.remove(&kind);
        let stale: Vec<ObjectKey> = self.snapshot.of_kind(kind).map(ObjectKey::of).collect();
        for key in &stale {
            self.snapshot.remove(key);
        }
        !stale.is_empty()
    }

    fn replace_kind(&mut self, kind: ResourceKind, listed: Vec<AnyResource>) {
        let keep: BTreeSet<ObjectKey> = listed.iter().map(ObjectKey::of).collect();
        let gone: Vec<ObjectKey> = self
            .snapshot
            .of_kind(kind)
            .map(ObjectKey::of)
            .filter(|k| !keep.contains(k))
            .collect();
        for key in &gone {
            self.snapshot.remove(key);
        }
        for r in listed {
            // Objects whose content did not change keep their place; upsert replaces the rest.
            if self.snapshot.get(&ObjectKey::of(&r)) != Some(&r) {
                self.snapshot.upsert(r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use gamma_model::decode;

    use super::*;

    fn service(name: &str, ip: &str) -> AnyResource {
        decode(&format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: {name}, namespace: shop}}\n\
             spec: {{clusterIP: {ip}, ports: [{{port: 80}}]}}\n"
        ))
        .unwrap()
        .remove(0)
    }

    fn names(store: &Store) -> Vec<String> {
        store
            .snapshot()
            .of_kind(ResourceKind::Service)
            .map(|r| r.metadata().name.clone())
            .collect()
    }

    #[test]
    fn a_relist_replaces_the_kind_atomically_and_drops_objects_deleted_meanwhile() {
        let mut s = Store::new();
        s.expect(ResourceKind::Service);
        let svc = ResourceKind::Service;
        s.apply(svc, Event::Init);
        s.apply(svc, Event::InitApply(service("a", "10.0.0.1")));
        s.apply(svc, Event::InitApply(service("b", "10.0.0.2")));
        // Buffered until InitDone: nothing visible, not ready.
        assert!(names(&s).is_empty());
        assert!(!s.is_ready());
        assert_eq!(s.apply(svc, Event::InitDone), Change::Relisted(svc));
        assert_eq!(names(&s), ["a", "b"]);
        assert!(s.is_ready());
        // The watch expires (410 Gone); `a` was deleted while it was down, `b` changed.
        s.apply(svc, Event::Init);
        s.apply(svc, Event::InitApply(service("b", "10.0.0.3")));
        assert_eq!(names(&s), ["a", "b"], "the old objects stay until InitDone");
        s.apply(svc, Event::InitDone);
        assert_eq!(names(&s), ["b"]);
        let b = s.snapshot().service("shop", "b").unwrap();
        assert_eq!(b.spec.cluster_ip.as_deref(), Some("10.0.0.3"));
    }

    #[test]
    fn readiness_waits_for_every_expected_kind() {
        let mut s = Store::new();
        s.expect(ResourceKind::Service);
        s.expect(ResourceKind::HttpRoute);
        s.apply(ResourceKind::Service, Event::Init);
        s.apply(ResourceKind::Service, Event::InitDone);
        assert!(!s.is_ready());
        assert_eq!(s.unsynced().collect::<Vec<_>>(), [ResourceKind::HttpRoute]);
        s.apply(ResourceKind::HttpRoute, Event::Init);
        s.apply(ResourceKind::HttpRoute, Event::InitDone);
        assert!(s.is_ready());
    }

    #[test]
    fn apply_and_delete_change_one_object_and_forget_kind_removes_all() {
        let mut s = Store::new();
        let a = service("a", "10.0.0.1");
        let key = ObjectKey::of(&a);
        assert_eq!(
            s.apply(ResourceKind::Service, Event::Apply(a.clone())),
            Change::Object(key.clone())
        );
        assert_eq!(names(&s), ["a"]);
        s.apply(ResourceKind::Service, Event::Delete(a.clone()));
        assert!(names(&s).is_empty());
        s.apply(ResourceKind::Service, Event::Apply(a));
        s.expect(ResourceKind::Service);
        assert!(s.forget_kind(ResourceKind::Service));
        assert!(names(&s).is_empty());
        assert!(s.is_ready(), "a forgotten kind is no longer waited for");
    }
}
