//! Digests: what a pass over every route or Service reads first, kept compact and inline.
//!
//! An object is a chain of separately allocated pieces: the `Arc<AnyResource>` (several hundred
//! bytes), its namespace and name strings, and for a route the parentRef list and each
//! parentRef's strings. A pass over 50,000 routes that reads each route's namespace and first
//! parent pays a cache miss at each link of that chain for every route: reading those fields
//! alone cost more than deciding with them (figures in `benches/records/arbiter.md`, "Round 4").
//! [`crate::Snapshot`] therefore keeps a digest of every route ([`RouteDigest`],
//! [`crate::Snapshot::route_digests`]) and every Service ([`ServiceDigest`],
//! [`crate::Snapshot::service_digests`]) beside its key: the same facts, with short names
//! copied inline, stored in key order in sorted runs (the snapshot's internal ordered index), so such a pass reads a few sequential
//! cache lines per object. Names too long to inline are reported as absent; readers then
//! take the object itself, which is always stored next to its digest. Digests are derived
//! from their object alone when it is inserted, so they can never disagree with it.

use std::fmt;

use crate::AnyResource;
use crate::gateway::{ParentKind, ParentReference};

/// How many bytes of a name [`InlineName`] holds. Kubernetes namespace and Service names are
/// at most 63 bytes, but most are far shorter; 31 keeps a digest within two cache lines.
pub const INLINE_NAME_LEN: usize = 31;

/// A name of at most [`INLINE_NAME_LEN`] bytes, stored inline.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct InlineName {
    len: u8,
    bytes: [u8; INLINE_NAME_LEN],
}

impl InlineName {
    /// `s` inline, or `None` when it is longer than [`INLINE_NAME_LEN`] bytes.
    ///
    /// ```
    /// use gamma_model::digest::InlineName;
    /// assert_eq!(InlineName::new("checkout").unwrap().as_str(), "checkout");
    /// assert!(InlineName::new(&"x".repeat(32)).is_none());
    /// ```
    pub fn new(s: &str) -> Option<InlineName> {
        let src = s.as_bytes();
        let mut bytes = [0u8; INLINE_NAME_LEN];
        bytes.get_mut(..src.len())?.copy_from_slice(src);
        Some(InlineName {
            len: u8::try_from(src.len()).ok()?,
            bytes,
        })
    }

    /// The name.
    ///
    /// Safe code can only turn bytes into a `&str` by validating them (a few dozen
    /// instructions): a pass over many names compares [`InlineName::as_bytes`] instead.
    #[inline]
    pub fn as_str(&self) -> &str {
        // The bytes are a whole `&str` copied in `new`, so they are always valid UTF-8 and
        // the fallback is never taken.
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    /// The name's bytes (UTF-8).
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        // `len` is at most `INLINE_NAME_LEN` (checked in `new`): the fallback is never taken.
        self.bytes.get(..usize::from(self.len)).unwrap_or_default()
    }
}

impl PartialEq<str> for InlineName {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl fmt::Debug for InlineName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The first parentRef of a route, as a [`RouteDigest`] keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParentDigest {
    kind: ParentKind,
    namespace: Option<InlineName>,
    name: InlineName,
    has_controllers: bool,
}

impl ParentDigest {
    /// `None` when the name, or the namespace if written, does not fit inline.
    fn of(p: &ParentReference) -> Option<ParentDigest> {
        Some(ParentDigest {
            kind: p.parent_kind(),
            namespace: match &p.namespace {
                Some(ns) => Some(InlineName::new(ns)?),
                None => None,
            },
            name: InlineName::new(&p.name)?,
            has_controllers: p.controllers.is_some(),
        })
    }

    /// What the parentRef points at ([`ParentReference::parent_kind`]).
    #[inline]
    pub fn kind(&self) -> ParentKind {
        self.kind
    }

    /// The namespace as written; `None` when absent (the route's own namespace).
    #[inline]
    pub fn namespace(&self) -> Option<&InlineName> {
        self.namespace.as_ref()
    }

    /// The parent's name.
    #[inline]
    pub fn name(&self) -> &InlineName {
        &self.name
    }

    /// Whether the parentRef sets `controllers` (the proposed mesh extension), empty or not.
    #[inline]
    pub fn has_controllers(&self) -> bool {
        self.has_controllers
    }
}

/// A compact, inline summary of one route (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute or
/// UDPRoute): its generation, namespace, whether it has annotations, and its first parentRef.
/// See the [module documentation](self) for why it exists.
///
/// ```
/// use gamma_model::gateway::ParentKind;
/// use gamma_model::digest::RouteDigest;
/// use gamma_model::decode;
///
/// let route = &decode(r#"
/// apiVersion: gateway.networking.k8s.io/v1
/// kind: HTTPRoute
/// metadata: {name: r, namespace: shop, generation: 3}
/// spec:
///   parentRefs: [{group: "", kind: Service, name: checkout, port: 80}]
/// "#)?[0];
/// let d = RouteDigest::of(route).unwrap();
/// assert_eq!((d.generation(), d.parent_count()), (3, 1));
/// assert_eq!(d.namespace().unwrap().as_str(), "shop");
/// let p = d.first_parent().unwrap();
/// assert_eq!((p.kind(), p.namespace(), p.name().as_str()), (ParentKind::Service, None, "checkout"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RouteDigest {
    generation: i64,
    namespace: Option<InlineName>,
    parent_count: usize,
    first_parent: Option<ParentDigest>,
    has_annotations: bool,
}

impl RouteDigest {
    /// The digest of `resource`; `None` when it is not a route kind.
    pub fn of(resource: &AnyResource) -> Option<RouteDigest> {
        let route = resource.as_route()?;
        let (meta, refs) = (route.metadata, route.parent_refs);
        Some(RouteDigest {
            generation: meta.generation_or_zero(),
            namespace: InlineName::new(meta.namespace_or_default()),
            parent_count: refs.len(),
            first_parent: refs.first().and_then(ParentDigest::of),
            has_annotations: !meta.annotations.is_empty(),
        })
    }

    /// `metadata.generation`, or 0 when unknown.
    #[inline]
    pub fn generation(&self) -> i64 {
        self.generation
    }

    /// The route's namespace (`default` when absent); `None` when it does not fit inline.
    #[inline]
    pub fn namespace(&self) -> Option<&InlineName> {
        self.namespace.as_ref()
    }

    /// How many parentRefs the route has.
    #[inline]
    pub fn parent_count(&self) -> usize {
        self.parent_count
    }

    /// The first parentRef; `None` when there is none, or when its name or written namespace
    /// does not fit inline.
    #[inline]
    pub fn first_parent(&self) -> Option<&ParentDigest> {
        self.first_parent.as_ref()
    }

    /// Whether the route has any annotation.
    #[inline]
    pub fn has_annotations(&self) -> bool {
        self.has_annotations
    }
}

/// A compact, inline summary of one Service: its namespace and name, and whether it has
/// labels or annotations (without either, a Service carries no ownership signal of its own).
/// See the [module documentation](self).
///
/// ```
/// use gamma_model::digest::ServiceDigest;
/// use gamma_model::decode;
/// let svc = &decode("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n")?[0];
/// let d = ServiceDigest::of(svc).unwrap();
/// assert_eq!((d.namespace().unwrap().as_str(), d.name().unwrap().as_str()), ("shop", "web"));
/// assert!(!d.has_labels_or_annotations());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServiceDigest {
    namespace: Option<InlineName>,
    name: Option<InlineName>,
    has_labels_or_annotations: bool,
}

impl ServiceDigest {
    /// The digest of `resource`; `None` when it is not a Service.
    pub fn of(resource: &AnyResource) -> Option<ServiceDigest> {
        let AnyResource::Service(svc) = resource else {
            return None;
        };
        let meta = &svc.metadata;
        Some(ServiceDigest {
            namespace: InlineName::new(meta.namespace_or_default()),
            name: InlineName::new(&meta.name),
            has_labels_or_annotations: !meta.labels.is_empty() || !meta.annotations.is_empty(),
        })
    }

    /// The namespace (`default` when absent); `None` when it does not fit inline.
    #[inline]
    pub fn namespace(&self) -> Option<&InlineName> {
        self.namespace.as_ref()
    }

    /// The name; `None` when it does not fit inline.
    #[inline]
    pub fn name(&self) -> Option<&InlineName> {
        self.name.as_ref()
    }

    /// Whether the Service has any label or annotation.
    #[inline]
    pub fn has_labels_or_annotations(&self) -> bool {
        self.has_labels_or_annotations
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode;

    fn digest(yaml: &str) -> Option<RouteDigest> {
        RouteDigest::of(&decode(yaml).unwrap()[0])
    }

    /// The point of a digest is to be read in a cache line or two: a field added carelessly
    /// (a `String`, a `Vec`) would bring back the pointer chase it exists to avoid.
    #[test]
    fn digests_stay_within_two_cache_lines_with_their_object_pointer() {
        assert!(size_of::<RouteDigest>() + size_of::<usize>() <= 128);
        assert!(size_of::<ServiceDigest>() + size_of::<usize>() <= 128);
    }

    #[test]
    fn inline_names_hold_up_to_the_limit_and_refuse_longer_ones() {
        for len in 0..=INLINE_NAME_LEN {
            let s = "a".repeat(len);
            let n = InlineName::new(&s).unwrap();
            assert_eq!((n.as_str(), n.as_bytes()), (s.as_str(), s.as_bytes()));
            assert_eq!(n, *s);
        }
        assert!(InlineName::new(&"a".repeat(INLINE_NAME_LEN + 1)).is_none());
        // multi-byte characters are copied whole
        assert_eq!(InlineName::new("névé").unwrap().as_str(), "névé");
        assert_eq!(format!("{:?}", InlineName::new("x").unwrap()), "\"x\"");
    }

    #[test]
    fn digest_records_every_fact_of_a_route_and_its_first_parent() {
        let d = digest(
            r#"
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: r, annotations: {a: b}}
spec:
  parentRefs:
  - {name: gw, namespace: edge, controllers: [x]}
  - {group: "", kind: Service, name: s}
"#,
        )
        .unwrap();
        assert_eq!(d.generation(), 0);
        assert_eq!(d.namespace().unwrap(), "default");
        assert_eq!(d.parent_count(), 2);
        assert!(d.has_annotations());
        let p = d.first_parent().unwrap();
        assert_eq!(p.kind(), ParentKind::Gateway);
        assert_eq!(p.namespace().unwrap(), "edge");
        assert_eq!(p.name(), "gw");
        assert!(p.has_controllers());
    }

    #[test]
    fn long_names_leave_the_fields_absent_rather_than_truncated() {
        let long = "n".repeat(INLINE_NAME_LEN + 1);
        let d = digest(&format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
             metadata: {{name: r, namespace: {long}}}\n\
             spec: {{parentRefs: [{{kind: Service, group: '', name: {long}}}]}}\n"
        ))
        .unwrap();
        assert_eq!(d.namespace(), None);
        assert_eq!(d.first_parent(), None);
        assert_eq!(d.parent_count(), 1);
        let d = digest(&format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: TCPRoute\n\
             metadata: {{name: r, namespace: ns}}\n\
             spec: {{parentRefs: [{{name: gw, namespace: {long}}}]}}\n"
        ))
        .unwrap();
        assert_eq!(d.first_parent(), None);
    }

    #[test]
    fn service_digests_record_names_and_signals_and_only_services_have_one() {
        let svc = |meta: &str| {
            let yaml = format!("apiVersion: v1\nkind: Service\nmetadata: {meta}\n");
            ServiceDigest::of(&decode(&yaml).unwrap()[0])
        };
        let d = svc("{name: s}").unwrap();
        assert_eq!(d.namespace().unwrap(), "default");
        assert_eq!(d.name().unwrap(), "s");
        assert!(!d.has_labels_or_annotations());
        assert!(
            svc("{name: s, labels: {a: b}}")
                .unwrap()
                .has_labels_or_annotations()
        );
        assert!(
            svc("{name: s, annotations: {a: b}}")
                .unwrap()
                .has_labels_or_annotations()
        );
        let long = "s".repeat(INLINE_NAME_LEN + 1);
        let d = svc(&format!("{{name: {long}, namespace: {long}}}")).unwrap();
        assert_eq!((d.name(), d.namespace()), (None, None));
        let ns = decode("apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n").unwrap();
        assert!(ServiceDigest::of(&ns[0]).is_none());
    }

    #[test]
    fn only_route_kinds_have_a_digest() {
        assert!(
            digest("apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: n}\n").is_none()
        );
        let d = digest(
            "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: UDPRoute\n\
             metadata: {name: r, namespace: n, generation: 7}\nspec: {}\n",
        )
        .unwrap();
        assert_eq!((d.generation(), d.parent_count()), (7, 0));
        assert_eq!(d.first_parent(), None);
    }
}
