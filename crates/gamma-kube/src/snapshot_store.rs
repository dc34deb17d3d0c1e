//! The sync half: watcher events into a [`Snapshot`], no `.await`.
//!
//! Like kube-runtime's reflector store, a relist (`Init`, `InitApply`..., `InitDone`) is
//! buffered and applied at `InitDone` as one atomic replacement of that kind's objects, so a
//! relist never leaves an object deleted while the watch was down, and readers never see half
//! a list. The store is ready once every expected kind has completed one list.
//!
//! The runtime's own status writes enter the store as soon as the API server accepts them
//! ([`SnapshotStore::wrote`]), not only when the watch brings them back: a reconciliation that ran
//! on the copy from before the write would merge into it and meet 409 Conflict (its
//! `resourceVersion` precondition is stale), once per route written. Until the watch
//! delivers the written version, the events it delivers for that route are older than it
//! (a watch sends one resource's versions in order), and are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

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
pub struct SnapshotStore {
    /// Shared with a reconciliation running on another thread ([`SnapshotStore::shared`]);
    /// written copy-on-write, so an event applied meanwhile copies it once, and none is
    /// copied otherwise.
    snapshot: Arc<Snapshot>,
    /// Relists in progress: the objects listed so far.
    relisting: BTreeMap<ResourceKind, Vec<AnyResource>>,
    /// Kinds that must list once before the store is ready.
    expected: BTreeSet<ResourceKind>,
    /// Kinds that listed at least once.
    synced: BTreeSet<ResourceKind>,
    /// Objects written by the runtime and stored here ahead of the watch: the
    /// `resourceVersion` the API server gave the write, until the watch delivers it.
    ahead: BTreeMap<ObjectKey, String>,
}

impl SnapshotStore {
    /// An empty store waiting for no kind.
    pub fn new() -> SnapshotStore {
        SnapshotStore::default()
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The current snapshot, shared: what a reconciliation on another thread reads, without
    /// a copy (a [`Snapshot`] clone copies every index and key, about 1 KB a route). The
    /// store's next write copies it only if the reconciliation still holds it.
    pub fn shared(&self) -> Arc<Snapshot> {
        Arc::clone(&self.snapshot)
    }

    /// The snapshot, to write (copied first if a reader still shares it).
    fn write(&mut self) -> &mut Snapshot {
        Arc::make_mut(&mut self.snapshot)
    }

    /// Marks the snapshot as holding every `kubernetes.io/tls` Secret
    /// ([`Snapshot::secrets_complete`]): the runtime watches them
    /// ([`crate::RunConfig::watch_secrets`]), and reconciles only once they have listed.
    pub fn set_secrets_complete(&mut self, complete: bool) {
        self.write().set_secrets_complete(complete);
    }

    /// Marks the snapshot as holding every ClusterTrustBundle
    /// ([`Snapshot::cluster_trust_bundles_complete`]): the runtime watches them where the
    /// cluster serves the API ([`crate::served::cluster_trust_bundle_version`]), and reconciles
    /// only once they have listed.
    pub fn set_cluster_trust_bundles_complete(&mut self, complete: bool) {
        self.write().set_cluster_trust_bundles_complete(complete);
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

    /// Stores `object` as the API server returned it from a write of ours, ahead of the
    /// watch. Returns its key, or `None` (nothing stored) without a `resourceVersion`.
    ///
    /// Watch events for the object are then skipped until the one with this
    /// `resourceVersion` arrives: the watch delivers one resource's versions in order, so
    /// every event before it is older than what is stored. A relist of the kind, a delete
    /// or [`SnapshotStore::forget_kind`] ends the wait (a list is newer than anything it replaces).
    pub fn wrote(&mut self, object: AnyResource) -> Option<ObjectKey> {
        let version = object.metadata().resource_version.clone()?;
        let key = ObjectKey::of(&object);
        self.write().upsert(object);
        self.ahead.insert(key.clone(), version);
        Some(key)
    }

    /// Objects stored by [`SnapshotStore::wrote`] whose version the watch has not delivered yet.
    pub fn ahead_of_watch(&self) -> usize {
        self.ahead.len()
    }

    /// Applies one watcher event for objects of `kind`.
    pub fn apply(&mut self, kind: ResourceKind, event: Event<AnyResource>) -> Change {
        match event {
            Event::Apply(r) => {
                let key = ObjectKey::of(&r);
                if let Some(version) = self.ahead.get(&key) {
                    if r.metadata().resource_version.as_ref() != Some(version) {
                        // Older than our write, which is stored already.
                        return Change::None;
                    }
                    self.ahead.remove(&key);
                    if self.snapshot.get(&key) == Some(&r) {
                        // Our own write coming back: already seen.
                        return Change::None;
                    }
                }
                self.write().upsert(r);
                Change::Object(key)
            }
            Event::Delete(r) => {
                let key = ObjectKey::of(&r);
                self.ahead.remove(&key);
                self.write().remove(&key);
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
                // The list is the newest word on every object of the kind: a write of ours
                // that it predates comes after it through the watch.
                self.ahead.retain(|key, _| key.kind != kind);
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
        self.ahead.retain(|key, _| key.kind != kind);
        let stale: Vec<ObjectKey> = self.snapshot.of_kind(kind).map(ObjectKey::of).collect();
        for key in &stale {
            self.write().remove(key);
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
            self.write().remove(key);
        }
        for r in listed {
            // Objects whose content did not change keep their place; upsert replaces the rest.
            if self.snapshot.get(&ObjectKey::of(&r)) != Some(&r) {
                self.write().upsert(r);
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

    fn route(version: &str, message: &str) -> AnyResource {
        decode(&format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
             metadata: {{name: web, namespace: shop, resourceVersion: '{version}'}}\n\
             spec: {{parentRefs: [{{name: gw}}]}}\n\
             status: {{parents: [{{parentRef: {{name: gw}}, controllerName: example.com/x,\
             conditions: [{{type: Accepted, status: 'True', reason: Accepted,\
             message: '{message}', lastTransitionTime: '2026-01-01T00:00:00Z'}}]}}]}}\n"
        ))
        .unwrap()
        .remove(0)
    }

    fn version(store: &SnapshotStore) -> Option<String> {
        let key = ObjectKey::new(ResourceKind::HttpRoute, "shop", "web");
        store
            .snapshot()
            .get(&key)
            .and_then(|r| r.metadata().resource_version.clone())
    }

    /// A watch delivers one resource's versions in order (Kubernetes API concepts, "Efficient
    /// detection of changes"): after a write of ours is stored, the events still on their way
    /// are older than it and must not take the stored copy back; the write's own event comes
    /// back as no change, and the events after it apply.
    #[test]
    fn a_write_is_seen_at_once_and_older_watch_events_do_not_undo_it() {
        let kind = ResourceKind::HttpRoute;
        let mut s = SnapshotStore::new();
        s.apply(kind, Event::Apply(route("5", "before")));
        let key = s.wrote(route("7", "ours")).unwrap();
        assert_eq!(version(&s).as_deref(), Some("7"));
        assert_eq!(s.ahead_of_watch(), 1);
        // Another controller's write (6) that ours conflicted with and merged: older.
        assert_eq!(
            s.apply(kind, Event::Apply(route("6", "theirs"))),
            Change::None
        );
        assert_eq!(version(&s).as_deref(), Some("7"));
        // Ours comes back through the watch: nothing new.
        assert_eq!(
            s.apply(kind, Event::Apply(route("7", "ours"))),
            Change::None
        );
        assert_eq!(s.ahead_of_watch(), 0);
        // Later versions apply as usual.
        assert_eq!(
            s.apply(kind, Event::Apply(route("8", "later"))),
            Change::Object(key)
        );
        assert_eq!(version(&s).as_deref(), Some("8"));
    }

    /// A relist is newer than everything it replaces (its list is read after the write, or
    /// the watch sends the write after it), so it ends the wait for a write's event: a wait
    /// kept across it would skip every later event if the write's own was never sent again.
    #[test]
    fn a_relist_or_a_delete_ends_the_wait_for_a_write() {
        let kind = ResourceKind::HttpRoute;
        let mut s = SnapshotStore::new();
        s.wrote(route("7", "ours")).unwrap();
        s.apply(kind, Event::Init);
        s.apply(kind, Event::InitApply(route("9", "listed")));
        s.apply(kind, Event::InitDone);
        assert_eq!(version(&s).as_deref(), Some("9"));
        assert_eq!(s.ahead_of_watch(), 0);
        s.wrote(route("10", "ours")).unwrap();
        let key = ObjectKey::new(kind, "shop", "web");
        assert_eq!(
            s.apply(kind, Event::Delete(route("11", "gone"))),
            Change::Object(key.clone())
        );
        assert_eq!(s.ahead_of_watch(), 0);
        assert_eq!(
            s.apply(kind, Event::Apply(route("12", "new"))),
            Change::Object(key)
        );
        s.wrote(route("13", "ours")).unwrap();
        s.expect(kind);
        s.forget_kind(kind);
        assert_eq!(s.ahead_of_watch(), 0);
        assert!(
            s.snapshot()
                .get(&ObjectKey::new(kind, "shop", "web"))
                .is_none()
        );
    }

    #[test]
    fn a_write_without_a_resource_version_is_not_stored() {
        let mut s = SnapshotStore::new();
        let mut r = route("1", "x");
        r.metadata_mut().resource_version = None;
        assert_eq!(s.wrote(r), None);
        assert!(s.snapshot().is_empty());
    }

    fn names(store: &SnapshotStore) -> Vec<String> {
        store
            .snapshot()
            .of_kind(ResourceKind::Service)
            .map(|r| r.metadata().name.clone())
            .collect()
    }

    #[test]
    fn a_relist_replaces_the_kind_atomically_and_drops_objects_deleted_meanwhile() {
        let mut s = SnapshotStore::new();
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
        let mut s = SnapshotStore::new();
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
        let mut s = SnapshotStore::new();
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
