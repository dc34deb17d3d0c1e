//! [`Snapshot`]: an indexed, cloneable set of cluster objects, the one input the engines read.

mod queries;

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use std::sync::Arc;

use crate::chunked::Chunked;
use crate::digest::{RouteDigest, ServiceDigest};
use crate::gateway::ParentReference;
use crate::resource::{AnyResource, ObjectKey, ResourceKind};
use crate::verdict::Verdicts;

/// The identity of a parent a route refers to, after upstream defaulting: group, kind,
/// namespace (empty for cluster-scoped) and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParentKey {
    /// The parent's API group (`""` for Services).
    pub group: String,
    /// The parent's kind.
    pub kind: String,
    /// The parent's namespace.
    pub namespace: String,
    /// The parent's name.
    pub name: String,
}

impl ParentKey {
    /// The key of `parent_ref` as written in a route in `route_namespace`.
    pub fn of(parent_ref: &ParentReference, route_namespace: &str) -> Self {
        ParentKey {
            group: parent_ref.group_or_default().to_owned(),
            kind: parent_ref.kind_or_default().to_owned(),
            namespace: parent_ref.namespace_or(route_namespace).to_owned(),
            name: parent_ref.name.clone(),
        }
    }

    /// The key of a core Service.
    pub fn service(namespace: &str, name: &str) -> Self {
        ParentKey {
            group: String::new(),
            kind: "Service".into(),
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// The key of a Gateway.
    pub fn gateway(namespace: &str, name: &str) -> Self {
        ParentKey {
            group: crate::gateway::GROUP.into(),
            kind: "Gateway".into(),
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

/// An immutable-by-default, indexed set of cluster objects, keyed by (kind, namespace, name).
///
/// Iteration is always in [`ObjectKey`] order, whatever order objects were inserted in, so every
/// engine reading a snapshot is deterministic. Cloning is cheap (objects are shared). Use
/// [`Snapshot::upsert`] and [`Snapshot::remove`] to apply watch events.
///
/// ```
/// use gamma_model::{Snapshot, decode};
/// let snap = Snapshot::from_resources(decode(r#"
/// apiVersion: v1
/// kind: Service
/// metadata: {name: web, namespace: shop}
/// spec: {clusterIP: 10.96.0.10, ports: [{name: http, port: 80}]}
/// "#).unwrap());
/// let svc = snap.service_by_ip("10.96.0.10".parse().unwrap()).unwrap();
/// assert_eq!(svc.metadata.name, "web");
/// ```
///
/// Two snapshots are equal when they hold equal objects (their indexes, derived from the objects,
/// are then equal too, whatever the order of the `upsert`s and `remove`s that built them) and
/// agree on [`Snapshot::secrets_complete`] and [`Snapshot::cluster_trust_bundles_complete`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    objects: BTreeMap<ObjectKey, Arc<AnyResource>>,
    /// Whether the snapshot holds every TLS Secret there is ([`Snapshot::secrets_complete`]).
    secrets_complete: bool,
    /// Whether the snapshot holds every ClusterTrustBundle there is
    /// ([`Snapshot::cluster_trust_bundles_complete`]).
    cluster_trust_bundles_complete: bool,
    /// Every route (the kinds with a [`RouteDigest`]) and its digest, in key order.
    /// (In sorted runs rather than a `BTreeMap`: a full pass over them is the point, see
    /// [`Chunked`].)
    route_digests: Chunked<ObjectKey, (Arc<AnyResource>, RouteDigest, Arc<Verdicts>)>,
    /// Every Service and its digest, in key order.
    service_digests: Chunked<ObjectKey, (Arc<AnyResource>, ServiceDigest)>,
    services_by_ip: BTreeMap<IpAddr, BTreeSet<ObjectKey>>,
    /// Gateways by every address they are reachable at (`Gateway::frontend_addresses`): an
    /// engine finding what shares a Service's address reads it instead of every Gateway.
    gateways_by_ip: BTreeMap<IpAddr, BTreeSet<ObjectKey>>,
    /// Routes by every parent they name, each with the stored object (a reader of a
    /// parent's routes gets them without a search of `objects` per route).
    routes_by_parent: BTreeMap<ParentKey, RouteIndex>,
    /// Routes by the (namespace, name) of every backendRef and `RequestMirror` backend they
    /// name (any kind: readers filter). Keys only: read on a Service's change, rarer than a
    /// route's, it does not pay a pointer per entry in every copy of the snapshot.
    routes_by_backend: BTreeMap<(String, String), BTreeSet<ObjectKey>>,
    /// EndpointSlices by namespace, then `kubernetes.io/service-name`: two levels, so a
    /// lookup borrows the names it is given (a route change reads the slices of the Services
    /// it rebuilds; a key of two owned strings was two allocations per lookup).
    slices_by_service: BTreeMap<String, BTreeMap<String, BTreeSet<ObjectKey>>>,
    /// How many objects of each kind (by `ResourceKind as usize`): a pass over a kind the
    /// snapshot has none of (most clusters have no BackendTLSPolicy, ConfigMap of a CA or
    /// ClusterTrustBundle in it) is an empty iterator, without a search of `objects`.
    kind_counts: [u32; KINDS],
}

/// The number of kinds.
const KINDS: usize = ResourceKind::ALL.len();

impl Snapshot {
    /// An empty snapshot.
    pub fn new() -> Self {
        Snapshot::default()
    }

    /// A snapshot of `resources`; later duplicates (same kind, namespace, name) replace earlier
    /// ones.
    pub fn from_resources(resources: impl IntoIterator<Item = AnyResource>) -> Self {
        let mut s = Snapshot::new();
        for r in resources {
            s.upsert(r);
        }
        s
    }

    /// Whether the snapshot holds every `kubernetes.io/tls` Secret a listener's
    /// `tls.certificateRefs` may name: set by whoever collected the objects (a controller
    /// watching Secrets, a tool given the Secrets as files), never inferred from the Secrets
    /// it holds. When `true`, a reference to a Secret the snapshot does not hold is a Secret
    /// that does not exist (Gateway API GatewayTLSConfig.certificateRefs:
    /// `InvalidCertificateRef`), even when it holds no Secret at all; when `false` (the
    /// default: Secrets are optional input) such a reference is not judged.
    pub fn secrets_complete(&self) -> bool {
        self.secrets_complete
    }

    /// Sets [`Snapshot::secrets_complete`].
    pub fn set_secrets_complete(&mut self, complete: bool) {
        self.secrets_complete = complete;
    }

    /// With [`Snapshot::secrets_complete`] set to `complete`.
    ///
    /// ```
    /// use gamma_model::Snapshot;
    /// let snap = Snapshot::new().with_secrets_complete(true);
    /// assert!(snap.secrets_complete() && snap.secrets().next().is_none());
    /// ```
    pub fn with_secrets_complete(mut self, complete: bool) -> Self {
        self.secrets_complete = complete;
        self
    }

    /// Whether the snapshot holds every ClusterTrustBundle (GEP-5075: a CA reference may name
    /// one): set by whoever collected the objects, as [`Snapshot::secrets_complete`] is. When
    /// `true`, a CA reference to a ClusterTrustBundle the snapshot does not hold names one
    /// that does not exist (`InvalidCACertificateRef`); when `false` (the default) such a
    /// reference is not judged missing.
    pub fn cluster_trust_bundles_complete(&self) -> bool {
        self.cluster_trust_bundles_complete
    }

    /// Sets [`Snapshot::cluster_trust_bundles_complete`].
    pub fn set_cluster_trust_bundles_complete(&mut self, complete: bool) {
        self.cluster_trust_bundles_complete = complete;
    }

    /// With [`Snapshot::cluster_trust_bundles_complete`] set to `complete`.
    pub fn with_cluster_trust_bundles_complete(mut self, complete: bool) -> Self {
        self.cluster_trust_bundles_complete = complete;
        self
    }

    /// Inserts or replaces an object; returns the previous version.
    pub fn upsert(&mut self, resource: AnyResource) -> Option<Arc<AnyResource>> {
        let key = ObjectKey::of(&resource);
        let previous = self.remove(&key);
        let shared = Arc::new(resource);
        self.index(&key, &shared);
        if let Some(n) = self.kind_counts.get_mut(key.kind as usize) {
            *n += 1;
        }
        if let Some(digest) = RouteDigest::of(&shared) {
            let verdicts = Arc::new(Verdicts::default());
            self.route_digests
                .insert(key.clone(), (Arc::clone(&shared), digest, verdicts));
        } else if let Some(digest) = ServiceDigest::of(&shared) {
            self.service_digests
                .insert(key.clone(), (Arc::clone(&shared), digest));
        }
        self.objects.insert(key, shared);
        previous
    }

    /// Removes an object; returns it if it was present.
    pub fn remove(&mut self, key: &ObjectKey) -> Option<Arc<AnyResource>> {
        let old = self.objects.remove(key)?;
        if let Some(n) = self.kind_counts.get_mut(key.kind as usize) {
            *n -= 1;
        }
        self.route_digests.remove(key);
        self.service_digests.remove(key);
        self.unindex(key, &old);
        Some(old)
    }

    // Every index entry is derived from the object alone (never from other objects), so indexing
    // and unindexing are exact inverses and the indexes depend only on the current set of
    // objects, not on the order of the events that built it.
    fn index(&mut self, key: &ObjectKey, shared: &Arc<AnyResource>) {
        match &**shared {
            AnyResource::Service(svc) => {
                for ip in svc.frontend_ips() {
                    insert(&mut self.services_by_ip, ip, key);
                }
            }
            AnyResource::Gateway(gw) => {
                for ip in gw.frontend_addresses() {
                    insert(&mut self.gateways_by_ip, ip, key);
                }
            }
            AnyResource::EndpointSlice(slice) => {
                if let Some(service) = slice.service_name() {
                    let by_name = self
                        .slices_by_service
                        .entry(key.namespace.clone())
                        .or_default();
                    insert(by_name, service.to_owned(), key);
                }
            }
            resource => {
                for p in parent_keys(resource, &key.namespace) {
                    insert_route(&mut self.routes_by_parent, p, key, shared);
                }
                for b in backend_keys(resource, &key.namespace) {
                    insert(&mut self.routes_by_backend, b, key);
                }
            }
        }
    }

    fn unindex(&mut self, key: &ObjectKey, resource: &AnyResource) {
        match resource {
            AnyResource::Service(svc) => {
                for ip in svc.frontend_ips() {
                    remove(&mut self.services_by_ip, &ip, key);
                }
            }
            AnyResource::Gateway(gw) => {
                for ip in gw.frontend_addresses() {
                    remove(&mut self.gateways_by_ip, &ip, key);
                }
            }
            AnyResource::EndpointSlice(slice) => {
                if let Some(service) = slice.service_name()
                    && let Some(by_name) = self.slices_by_service.get_mut(&key.namespace)
                {
                    remove(by_name, service, key);
                    if by_name.is_empty() {
                        self.slices_by_service.remove(&key.namespace);
                    }
                }
            }
            _ => {
                for p in parent_keys(resource, &key.namespace) {
                    remove_route(&mut self.routes_by_parent, &p, key);
                }
                for b in backend_keys(resource, &key.namespace) {
                    remove(&mut self.routes_by_backend, &b, key);
                }
            }
        }
    }

    /// The object with this identity.
    pub fn get(&self, key: &ObjectKey) -> Option<&AnyResource> {
        self.objects.get(key).map(|r| &**r)
    }

    /// The object with this identity, shared: cloning the `Arc` keeps it without copying.
    pub fn get_shared(&self, key: &ObjectKey) -> Option<&Arc<AnyResource>> {
        self.objects.get(key)
    }

    /// Whether the snapshot holds an object of `kind`.
    fn has_kind(&self, kind: ResourceKind) -> bool {
        self.kind_counts.get(kind as usize).is_some_and(|n| *n > 0)
    }

    /// The number of objects.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Whether there are no objects.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }
}

fn insert<K: Ord>(index: &mut BTreeMap<K, BTreeSet<ObjectKey>>, k: K, key: &ObjectKey) {
    index.entry(k).or_default().insert(key.clone());
}

fn remove<K: Ord + std::borrow::Borrow<Q>, Q: Ord + ?Sized>(
    index: &mut BTreeMap<K, BTreeSet<ObjectKey>>,
    k: &Q,
    key: &ObjectKey,
) {
    if let Some(set) = index.get_mut(k) {
        set.remove(key);
        if set.is_empty() {
            index.remove(k);
        }
    }
}

/// Routes by key, each with its stored object (the same `Arc` as `Snapshot::objects`).
type RouteIndex = BTreeMap<ObjectKey, Arc<AnyResource>>;

fn insert_route<K: Ord>(
    index: &mut BTreeMap<K, RouteIndex>,
    k: K,
    key: &ObjectKey,
    shared: &Arc<AnyResource>,
) {
    index
        .entry(k)
        .or_default()
        .insert(key.clone(), Arc::clone(shared));
}

fn remove_route<K: Ord>(index: &mut BTreeMap<K, RouteIndex>, k: &K, key: &ObjectKey) {
    if let Some(routes) = index.get_mut(k) {
        routes.remove(key);
        if routes.is_empty() {
            index.remove(k);
        }
    }
}

fn parent_keys(resource: &AnyResource, namespace: &str) -> BTreeSet<ParentKey> {
    let refs = resource.as_route().map_or(&[][..], |r| r.parent_refs);
    refs.iter().map(|p| ParentKey::of(p, namespace)).collect()
}

/// The (namespace, name) of every backendRef and `RequestMirror` backend of a route (rule
/// filters and backendRef filters alike), defaulted to the route's namespace.
///
/// Deduplicated while borrowed: a route names the same few backends in rule after rule, and
/// only the distinct ones are copied into owned keys.
fn backend_keys(resource: &AnyResource, namespace: &str) -> Vec<(String, String)> {
    let refs = resource.backend_refs();
    let mut keys: Vec<(&str, &str)> = refs
        .iter()
        .map(|b| (b.namespace_or(namespace), b.name()))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|(ns, name)| (ns.to_owned(), name.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests;
