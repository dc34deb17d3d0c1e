//! Hostname groups of a route set ([`HostIndex`]): exact hostnames, wildcard suffixes
//! longest first, then the routes without a hostname.

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
    pub(crate) exact: Map<Box<str>, G>,
    /// Keyed by the suffix including its leading dot (`.example.com`).
    pub(crate) wild: Map<Box<str>, G>,
    /// Suffix lengths present in `wild`, descending.
    pub(crate) wild_lens: Box<[usize]>,
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
    /// Gets or creates the group for a configured hostname (`None` = any); hostname maps
    /// are keyed with `keys`.
    pub(crate) fn group_mut(
        &mut self,
        hostname: Option<&str>,
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
                        named.wild.entry(suffix.into()).or_insert_with(new)
                    }
                    _ => named.exact.entry(h.into_boxed_str()).or_insert_with(new),
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
                exact.extend(n.exact.into_iter().map(|(k, g)| (k, f(g))));
                let mut wild = Map::with_capacity_and_hasher(n.wild.len(), keys);
                wild.extend(n.wild.into_iter().map(|(k, g)| (k, f(g))));
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
    pub(crate) fn find<R>(
        &self,
        host: Option<&str>,
        mut f: impl FnMut(&G) -> Option<R>,
    ) -> Option<R> {
        if let Some(named) = &self.named
            && let Some(host) = host
        {
            let mut buf = [0u8; MAX_HOSTNAME_LEN];
            if let Some(h) = hostname::lowercase_into(hostname::normalize_host(host), &mut buf) {
                if let Some(g) = named.exact.get(h)
                    && let Some(r) = f(g)
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
                        && let Some(r) = f(g)
                    {
                        return Some(r);
                    }
                }
            }
        }
        self.any.as_ref().and_then(f)
    }
}
