//! Hostname groups of a route set ([`HostIndex`]): exact hostnames, wildcard suffixes
//! longest first, then the routes without a hostname. A hostname's group is split into tiers
//! when the routes that yield it rank apart by their own hostnames (Gateway API v1.7,
//! `HostnamePrecedence::RouteHostname`): each tier is tried whole before the next.

use crate::hash::{HashKeys, Map};
use crate::hostname::{self, MAX_HOSTNAME_LEN};

/// Hostname groups (Gateway API HTTPRoute hostnames precedence): exact hostnames, wildcard suffixes
/// (longest first), then routes without a hostname. For one request host the groups that match are
/// totally ordered by hostname specificity, so trying them in that order preserves precedence.
///
/// Most route sets have only the "any host" group: it is stored inline and the hostname maps
/// (boxed, absent) cost one pointer.
#[derive(Debug)]
pub(crate) struct HostIndex<G> {
    pub(crate) any: Option<G>,
    pub(crate) named: Option<Box<NamedHosts<G>>>,
}

/// The hostname groups of a [`HostIndex`] that have a hostname.
#[derive(Debug)]
pub(crate) struct NamedHosts<G> {
    pub(crate) exact: Map<Box<str>, Tiers<G>>,
    /// Keyed by the suffix including its leading dot (`.example.com`).
    pub(crate) wild: Map<Box<str>, Tiers<G>>,
    /// Suffix lengths present in `wild`, descending.
    pub(crate) wild_lens: Box<[usize]>,
}

/// The groups of one hostname, highest tier first. A tier is the specificity of the routes'
/// own hostnames behind the hostname (`HostSpecificity`, packed: non-wildcard characters
/// above characters), 0 when only the intersection ranks; almost every hostname has one tier,
/// held inline.
#[derive(Debug)]
pub(crate) struct Tiers<G> {
    pub(crate) tier: u32,
    pub(crate) group: G,
    /// Lower tiers, highest first.
    pub(crate) next: Option<Box<Tiers<G>>>,
}

impl<G> Tiers<G> {
    fn new(tier: u32, group: G) -> Self {
        Tiers {
            tier,
            group,
            next: None,
        }
    }

    /// The group of `tier`, created with `new` in its place when absent.
    fn tier_mut(&mut self, tier: u32, new: impl FnOnce() -> G) -> &mut G {
        if tier > self.tier {
            // becomes the head: the old head moves one down
            let old = std::mem::replace(self, Tiers::new(tier, new()));
            self.next = Some(Box::new(old));
            return &mut self.group;
        }
        if tier == self.tier {
            return &mut self.group;
        }
        if self.next.as_ref().is_some_and(|n| n.tier >= tier) {
            return match self.next.as_mut() {
                Some(next) => next.tier_mut(tier, new),
                // (checked just above)
                None => &mut self.group,
            };
        }
        let mut t = Tiers::new(tier, new());
        t.next = self.next.take();
        &mut self.next.insert(Box::new(t)).group
    }

    /// Calls `f` on each tier's group, highest first, until it returns `Some`.
    #[inline]
    fn find<R>(&self, f: &mut impl FnMut(&G) -> Option<R>) -> Option<R> {
        let mut t = self;
        loop {
            if let Some(r) = f(&t.group) {
                return Some(r);
            }
            t = t.next.as_deref()?;
        }
    }

    fn map<H>(self, f: &mut impl FnMut(G) -> H) -> Tiers<H> {
        Tiers {
            tier: self.tier,
            group: f(self.group),
            next: self.next.map(|n| Box::new(n.map(f))),
        }
    }

    /// Each tier's group, highest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &G> {
        std::iter::successors(Some(self), |t| t.next.as_deref()).map(|t| &t.group)
    }
}

impl<G> Default for HostIndex<G> {
    fn default() -> Self {
        Self {
            any: None,
            named: None,
        }
    }
}

impl<G> HostIndex<G> {
    /// Gets or creates the group for a configured hostname (`None` = any) and tier (see
    /// [`Tiers`]; the "any host" group has only tier 0: no route hostname stands behind it);
    /// hostname maps are keyed with `keys`.
    pub(crate) fn group_mut(
        &mut self,
        hostname: Option<&str>,
        tier: u32,
        keys: HashKeys,
        new: impl FnOnce() -> G,
    ) -> &mut G {
        match hostname {
            None => self.any.get_or_insert_with(new),
            Some(h) => {
                let named = self.named.get_or_insert_with(|| {
                    Box::new(NamedHosts {
                        exact: Map::with_hasher(keys),
                        wild: Map::with_hasher(keys),
                        wild_lens: Box::new([]),
                    })
                });
                let h = h.to_ascii_lowercase();
                match h.strip_prefix('*') {
                    Some(suffix) if suffix.starts_with('.') => {
                        let len = suffix.len();
                        if !named.wild_lens.contains(&len) {
                            let mut v = named.wild_lens.to_vec();
                            v.push(len);
                            v.sort_unstable_by(|a, b| b.cmp(a));
                            named.wild_lens = v.into_boxed_slice();
                        }
                        tiered(named.wild.entry(suffix.into()), tier, new)
                    }
                    _ => tiered(named.exact.entry(h.into_boxed_str()), tier, new),
                }
            }
        }
    }

    /// Converts every group with `f` (freezing builders into indexes), keeping the keys.
    pub(crate) fn map<H>(self, mut f: impl FnMut(G) -> H) -> HostIndex<H> {
        HostIndex {
            named: self.named.map(|n| {
                let n = *n;
                let keys = *n.exact.hasher();
                let mut exact = Map::with_capacity_and_hasher(n.exact.len(), keys);
                exact.extend(n.exact.into_iter().map(|(k, g)| (k, g.map(&mut f))));
                let mut wild = Map::with_capacity_and_hasher(n.wild.len(), keys);
                wild.extend(n.wild.into_iter().map(|(k, g)| (k, g.map(&mut f))));
                Box::new(NamedHosts {
                    exact,
                    wild,
                    wild_lens: n.wild_lens,
                })
            }),
            any: self.any.map(f),
        }
    }

    /// Calls `f` on each group matching `host` (a request Host/SNI as received; it is
    /// normalised here, only when hostname groups exist), most specific first, until `f`
    /// returns `Some`.
    ///
    /// Inlined for the common shape, the "any host" group alone (every mesh route set without
    /// hostnames): the hostname groups take a call of their own (with their 253-byte
    /// lower-casing buffer), so that the common shape pays no call and frame for them.
    #[inline]
    pub(crate) fn find<R>(&self, host: Option<&str>, f: impl FnMut(&G) -> Option<R>) -> Option<R> {
        match (&self.named, host) {
            (Some(named), Some(host)) => self.find_named(named, host, f),
            _ => self.any.as_ref().and_then(f),
        }
    }

    /// [`HostIndex::find`] with hostname groups and a host.
    #[inline(never)]
    fn find_named<R>(
        &self,
        named: &NamedHosts<G>,
        host: &str,
        mut f: impl FnMut(&G) -> Option<R>,
    ) -> Option<R> {
        let mut buf = [0u8; MAX_HOSTNAME_LEN];
        if let Some(h) = hostname::lowercase_into(hostname::normalize_host(host), &mut buf) {
            if let Some(g) = named.exact.get(h)
                && let Some(r) = g.find(&mut f)
            {
                return Some(r);
            }
            for &len in named.wild_lens.iter() {
                // the wildcard must cover at least one character before the dot
                if h.len() <= len {
                    continue;
                }
                if let Some(suffix) = h.get(h.len() - len..)
                    && let Some(g) = named.wild.get(suffix)
                    && let Some(r) = g.find(&mut f)
                {
                    return Some(r);
                }
            }
        }
        self.any.as_ref().and_then(f)
    }
}

/// The group of `tier` in a hostname's entry, created with `new` where absent.
fn tiered<'a, G>(
    entry: std::collections::hash_map::Entry<'a, Box<str>, Tiers<G>>,
    tier: u32,
    new: impl FnOnce() -> G,
) -> &'a mut G {
    use std::collections::hash_map::Entry;
    match entry {
        Entry::Occupied(o) => o.into_mut().tier_mut(tier, new),
        Entry::Vacant(v) => &mut v.insert(Tiers::new(tier, new())).group,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A hostname's tiers are tried highest first, whatever order they were created in, and
    // each tier keeps the group it was given.
    #[test]
    fn tiers_are_tried_highest_first_whatever_the_insertion_order() {
        for order in [[1u32, 5, 3, 0], [0, 1, 3, 5], [5, 3, 1, 0], [3, 0, 5, 1]] {
            let mut index: HostIndex<Vec<u32>> = HostIndex::default();
            for tier in order {
                index
                    .group_mut(Some("a.example.com"), tier, HashKeys::default(), Vec::new)
                    .push(tier);
                // the same tier again lands in the same group
                index
                    .group_mut(Some("a.example.com"), tier, HashKeys::default(), Vec::new)
                    .push(tier);
            }
            let mut seen = Vec::new();
            let none: Option<()> = index.find(Some("A.example.com"), |g| {
                seen.push(g.clone());
                None
            });
            assert!(none.is_none());
            assert_eq!(seen, [[5, 5], [3, 3], [1, 1], [0, 0]], "{order:?}");
            let first = index.find(Some("a.example.com"), |g| g.first().copied());
            assert_eq!(first, Some(5));
        }
    }
}
