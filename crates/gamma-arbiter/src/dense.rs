//! Sorted copies of a snapshot's parents for full decisions ([`Dense`]): a full decision looks
//! up a parent per route, and hashing `(namespace, name)` (SipHash) or the snapshot's own
//! lookups (each allocates an `ObjectKey`) cost most of its time. Routes come in namespace
//! order, so the lookups step through these vectors instead.

use gamma_model::gateway::{Gateway, GatewayClass};
use gamma_model::k8s::{Namespace, Service};
use gamma_model::{AnyResource, Snapshot};

use crate::config::NONE_VALUE;
use crate::decision::VerdictId;

/// Whether `a == b`, for the short names of Kubernetes objects: compared as at most four
/// overlapping machine words instead of through a `memcmp` call, which (with its dispatch)
/// cost more than the comparison itself. A full decision compares a few names per route.
#[inline]
pub(crate) fn same(a: impl AsRef<[u8]>, b: impl AsRef<[u8]>) -> bool {
    let (a, b) = (a.as_ref(), b.as_ref());
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= 16
        && let (Some(ah), Some(bh), Some(at), Some(bt)) = (
            a.first_chunk::<8>(),
            b.first_chunk::<8>(),
            a.last_chunk::<8>(),
            b.last_chunk::<8>(),
        )
    {
        return ah == bh && at == bt;
    }
    if a.len() < 8
        && let (Some(ah), Some(bh), Some(at), Some(bt)) = (
            a.first_chunk::<4>(),
            b.first_chunk::<4>(),
            a.last_chunk::<4>(),
            b.last_chunk::<4>(),
        )
    {
        return ah == bh && at == bt;
    }
    a == b
}

/// Every object of one kind in key order, found by binary search: a full decision looks up
/// thousands of them, and the snapshot's own lookups allocate an `ObjectKey` per call.
pub(crate) struct Sorted<'a, T> {
    pub(crate) items: Vec<(&'a str, &'a str, &'a T)>,
}

impl<'a, T> Sorted<'a, T> {
    pub(crate) fn new(items: impl Iterator<Item = (&'a str, &'a str, &'a T)>) -> Self {
        let items: Vec<_> = items.collect();
        // The snapshot keys objects by `ObjectKey::of` (kind, namespace or `default`, name),
        // so each kind comes out in exactly this order.
        debug_assert!(items.is_sorted_by(|a, b| (a.0, a.1) < (b.0, b.1)));
        Sorted { items }
    }

    /// The index of cluster-scoped object `name`, stepping forward from `cursor` (callers
    /// visit names in order; a step back searches). Over one ordered pass the cursor moves
    /// at most `items.len()` steps in total.
    #[inline]
    pub(crate) fn seek(&self, cursor: &mut usize, name: &str) -> Option<usize> {
        match self.items.get(*cursor) {
            Some(it) if it.1 <= name => {
                while self.items.get(*cursor).is_some_and(|it| it.1 < name) {
                    *cursor += 1;
                }
            }
            _ => *cursor = self.items.partition_point(|it| it.1 < name),
        }
        self.items
            .get(*cursor)
            .is_some_and(|it| same(it.1, name))
            .then_some(*cursor)
    }

    #[inline]
    pub(crate) fn get(&self, ns: &str, name: &str) -> Option<&'a T> {
        let at = self
            .items
            .binary_search_by(|(n, m, _)| (*n, *m).cmp(&(ns, name)))
            .ok()?;
        self.items.get(at).map(|(_, _, t)| *t)
    }
}

/// One Service of the snapshot and its level-2 outcome, computed on first use.
pub(crate) struct ServiceSlot<'a> {
    /// The name's bytes (from the Service's digest when it fits inline).
    pub(crate) name: &'a [u8],
    /// The Service (read only for the few with labels or annotations: see [`Dense::build`]).
    pub(crate) resource: &'a AnyResource,
    /// `None`: not computed yet; `Some(None)`: no signal at level 2.
    pub(crate) level2: Option<Option<VerdictId>>,
}

impl<'a> ServiceSlot<'a> {
    /// The Service (every slot holds one: slots are made from the snapshot's Service digests).
    pub(crate) fn service(&self) -> Option<&'a Service> {
        match self.resource {
            AnyResource::Service(svc) => Some(svc),
            _ => None,
        }
    }
}

/// The Services of one namespace: a range of [`Dense::services`].
#[derive(Clone, Copy)]
pub(crate) struct Block<'a> {
    /// The namespace's bytes.
    pub(crate) ns: &'a [u8],
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// The snapshot's Services, Gateways, GatewayClasses and Namespaces as sorted vectors (built
/// once per full decision; see [`crate::ladder::Ladder::prefill`]). A parent Service is found by its
/// namespace's block (cached: routes come in namespace order) and a binary search over the
/// few names in it, instead of hashing `(namespace, name)` per route.
pub(crate) struct Dense<'a> {
    /// In (namespace, name) order.
    pub(crate) services: Vec<ServiceSlot<'a>>,
    /// One per namespace with Services, in namespace order.
    pub(crate) blocks: Vec<Block<'a>>,
    /// The block of the last namespace defaulted from a route (a producer route's parent).
    pub(crate) route_block: Option<Block<'a>>,
    /// The block of the last namespace written in a parentRef (consumer routes).
    pub(crate) ref_block: Option<Block<'a>>,
    /// The index of the last Service found (consecutive routes often share it).
    pub(crate) last: usize,
    pub(crate) gateways: Sorted<'a, Gateway>,
    pub(crate) classes: Sorted<'a, GatewayClass>,
    pub(crate) namespaces: Sorted<'a, Namespace>,
    /// Levels 3 to 5 per entry of `namespaces`, once computed.
    pub(crate) namespace_levels: Vec<Option<VerdictId>>,
    /// Where the last entered namespace was found in `blocks` and `namespaces`.
    pub(crate) block_cursor: usize,
    pub(crate) namespace_cursor: usize,
    /// The index in `namespaces` of the entered namespace, when it exists.
    pub(crate) entered_namespace: Option<usize>,
}

impl<'a> Dense<'a> {
    /// `namespace_delegation_label` is the Namespace label level 2 reads for Services without
    /// a delegation label of their own ([`crate::config::Keys`]).
    pub(crate) fn build(snap: &'a Snapshot, namespace_delegation_label: &str) -> Self {
        let namespaces = Sorted::new(snap.namespaces().map(|n| ("", n.metadata.name.as_str(), n)));
        // Whether a Service without labels and annotations has no level-2 signal in namespace
        // `ns`: only when its Namespace exists and names no delegation Gateway (a missing
        // Namespace is Pending at level 2). Decided once per block.
        let plain = |ns: &[u8]| {
            std::str::from_utf8(ns)
                .ok()
                .and_then(|ns| namespaces.get("", ns))
                .is_some_and(|n| {
                    n.metadata
                        .labels
                        .get(namespace_delegation_label)
                        .map(|v| v.trim())
                        .is_none_or(|v| v.is_empty() || v == NONE_VALUE)
                })
        };
        let mut block_plain = false;
        let mut services: Vec<ServiceSlot<'a>> = Vec::with_capacity(1024);
        let mut blocks: Vec<Block<'a>> = Vec::new();
        // The snapshot keys objects by `ObjectKey::of` (kind, namespace or `default`, name),
        // so Services come out in exactly (namespace, name) order: blocks are contiguous and
        // names sorted within them.
        // Read through the Services' digests (see `gamma_model::digest`): a sequential pass
        // over inline names instead of three dependent cache misses per Service (its object,
        // its namespace string, its name string). The object is read only for names too long
        // to inline, and later for the Services with labels or annotations.
        for (resource, digest) in snap.service_digests() {
            let (ns, name) = match (digest.namespace(), digest.name()) {
                (Some(ns), Some(name)) => (ns.as_bytes(), name.as_bytes()),
                _ => {
                    let meta = resource.metadata();
                    (meta.namespace_or_default().as_bytes(), meta.name.as_bytes())
                }
            };
            let i = services.len();
            match blocks.last_mut() {
                Some(b) if same(b.ns, ns) => b.end = i + 1,
                _ => {
                    block_plain = plain(ns);
                    blocks.push(Block {
                        ns,
                        start: i,
                        end: i + 1,
                    })
                }
            }
            services.push(ServiceSlot {
                name,
                resource,
                // Without labels and annotations, in a namespace that delegates nothing, a
                // Service has no level-2 signal; the rest are computed by `Ladder::prefill`.
                level2: (block_plain && !digest.has_labels_or_annotations()).then_some(None),
            });
        }
        debug_assert!(blocks.is_sorted_by(|a, b| a.ns < b.ns));
        debug_assert!(blocks.iter().all(|b| {
            services
                .get(b.start..b.end)
                .is_some_and(|s| s.is_sorted_by(|x, y| x.name < y.name))
        }));
        let namespace_levels = vec![None; namespaces.items.len()];
        Dense {
            services,
            blocks,
            route_block: None,
            ref_block: None,
            last: usize::MAX,
            gateways: Sorted::new(snap.gateways().map(|g| {
                (
                    g.metadata.namespace_or_default(),
                    g.metadata.name.as_str(),
                    g,
                )
            })),
            classes: Sorted::new(
                snap.gateway_classes()
                    .map(|c| ("", c.metadata.name.as_str(), c)),
            ),
            namespaces,
            namespace_levels,
            block_cursor: 0,
            namespace_cursor: 0,
            entered_namespace: None,
        }
    }

    /// The block of `ns`, stepping forward from the last one entered (see [`Sorted::seek`]).
    #[inline]
    pub(crate) fn seek_block(&mut self, ns: &str) -> Option<Block<'a>> {
        match self.blocks.get(self.block_cursor) {
            Some(b) if b.ns <= ns.as_bytes() => {
                while self
                    .blocks
                    .get(self.block_cursor)
                    .is_some_and(|b| b.ns < ns.as_bytes())
                {
                    self.block_cursor += 1;
                }
            }
            _ => {
                self.block_cursor = self.blocks.partition_point(|b| b.ns < ns.as_bytes());
            }
        }
        self.blocks
            .get(self.block_cursor)
            .filter(|b| same(b.ns, ns))
            .copied()
    }

    #[inline]
    pub(crate) fn block(&self, ns: &[u8]) -> Option<Block<'a>> {
        let at = self.blocks.binary_search_by(|b| b.ns.cmp(ns)).ok()?;
        self.blocks.get(at).copied()
    }

    /// The index of Service `ns/name`. `defaulted`: `ns` is the route's own namespace (no
    /// namespace in the parentRef), which selects the block cache to use; `entered`: the
    /// route's namespace was entered ([`crate::ladder::Ladder::enter_namespace`]), so `route_block` is
    /// known to be `ns`'s without comparing names. Names are compared as bytes (equal to
    /// comparing them as strings), so that inline names need no UTF-8 validation. Inlined: a
    /// full decision calls it once per route, and the call cost a fifth of its instructions.
    #[inline(always)]
    pub(crate) fn find(
        &mut self,
        ns: &[u8],
        name: &[u8],
        defaulted: bool,
        entered: bool,
    ) -> Option<usize> {
        let block = if defaulted && entered {
            self.route_block?
        } else {
            let cached = if defaulted {
                self.route_block
            } else {
                self.ref_block
            };
            match cached {
                Some(b) if same(b.ns, ns) => b,
                _ => {
                    let b = self.block(ns)?;
                    if defaulted {
                        self.route_block = Some(b);
                    } else {
                        self.ref_block = Some(b);
                    }
                    b
                }
            }
        };
        // Consecutive routes often share a parent, or name the next Service (routes named
        // after their Services sort alike): try both before searching.
        for at in [self.last, self.last.wrapping_add(1)] {
            if (block.start..block.end).contains(&at)
                && self.services.get(at).is_some_and(|s| same(s.name, name))
            {
                self.last = at;
                return Some(at);
            }
        }
        let slots = self.services.get(block.start..block.end)?;
        // A namespace has a handful of Services: scanning them with `same` is cheaper than
        // the ordered comparisons of a binary search; large namespaces are searched.
        let found = if slots.len() <= 16 {
            slots.iter().position(|s| same(s.name, name))
        } else {
            slots.binary_search_by(|s| s.name.cmp(name)).ok()
        };
        let at = block.start + found?;
        self.last = at;
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn same_agrees_with_string_equality_at_every_length() {
        let base = "abcdefghijklmnopqrstuvwxyz0123456789";
        for len in 0..=base.len() {
            let a = &base[..len];
            assert!(same(a, a));
            // A copy elsewhere in memory: equal by content, not by address.
            let copy = String::from(a);
            assert!(same(a, &copy));
            for i in 0..len {
                let mut b = a.as_bytes().to_vec();
                b[i] = b'_';
                let b = String::from_utf8(b).unwrap();
                assert!(!same(a, &b), "{a:?} vs {b:?}");
            }
            if len > 0 {
                assert!(!same(a, &base[..len - 1]));
            }
        }
    }
}
