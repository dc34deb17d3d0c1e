//! The build's canonical route order (kind, namespace, name; duplicates dropped) and the
//! routes' precedence ranks (Gateway API HTTPRouteRule.matches precedence, oldest Route then
//! namespace/name order: oldest `creationTimestamp`, then `namespace/name`), both from compact sort
//! keys.
//!
//! Sorting route indexes with comparators that follow them into the input reads each route
//! and its two strings ~17 times at 100,000 routes, mostly cache misses. Here each route is
//! read once, in storage order, into a 32-byte record whose `u128` key compares like
//! (namespace, name): the namespace as its rank among the distinct namespaces (few), the name
//! as its first 13 bytes. One stable sort of those records (presorted runs in the input cost
//! O(n)) gives (namespace, name) order, from which a counting pass by kind gives the canonical
//! order and a pass over the namespaces in `namespace/name` order gives every route's name
//! rank. The precedence ranks then sort one `u128` per route: timestamp and name rank.
//! Names longer than 13 bytes with an equal prefix fall back to comparing the strings.

use std::cmp::Ordering;

use super::Routes;
use crate::hash::{HashKeys, Map};
#[cfg(test)]
use crate::input::RouteIr;
use crate::precedence::{RouteOrder, RouteRank, rank_routes};

/// How many routes ahead the first pass touches their strings.
const AHEAD: usize = 4;

/// Up to this many routes, [`general`] (the same order and ranks) is cheaper.
const FEW: usize = 16;

/// Name bytes in a [`Rec`] key.
const NAME_BYTES: usize = 13;
/// Bits of a namespace rank in a [`Rec`] key.
const NS_BITS: u32 = 128 - 8 * NAME_BYTES as u32 - 3;

/// A route while sorting: `key` = namespace rank (pair order) | first 13 name bytes
/// (zero-padded, big-endian, so integer order is byte order) | kind.
#[derive(Debug, Clone, Copy)]
struct Rec {
    key: u128,
    /// Index of the route in the input.
    ri: u32,
    /// Length of the name.
    len: u32,
}

/// The first [`NAME_BYTES`] bytes of a name, big-endian.
fn name_prefix(name: &str) -> u128 {
    let b = name.as_bytes();
    let mut w = [0u8; 16];
    let n = b.len().min(NAME_BYTES);
    if let (Some(dst), Some(src)) = (w.get_mut(16 - NAME_BYTES..16 - NAME_BYTES + n), b.get(..n)) {
        dst.copy_from_slice(src);
    }
    u128::from_be_bytes(w)
}

/// What [`canonical_order`] computes.
#[derive(Debug)]
pub(crate) struct Canonical<'i> {
    /// Indexes into the routes in processing order; of routes with the same (kind,
    /// namespace, name) only the first in input order.
    pub(crate) order: Vec<usize>,
    /// The precedence rank of each route in `order`, by position.
    pub(crate) ranks: Vec<RouteRank>,
    /// The distinct namespaces, in first-seen input order.
    pub(crate) namespaces: Vec<&'i str>,
    /// Per input route: its namespace's index in `namespaces` (the build hashes each
    /// namespace string once).
    pub(crate) route_ns: Vec<u32>,
}

/// The canonical processing order of `routes`, the ranks and the namespaces.
pub(crate) fn canonical_order(routes: Routes<'_>, hash: HashKeys) -> Canonical<'_> {
    let (namespaces, route_ns, created, nanos_fit) = scan(routes, hash);
    let (order, ranks) = order_and_ranks(routes, &namespaces, &route_ns, &created, nanos_fit);
    Canonical {
        order,
        ranks,
        namespaces,
        route_ns,
    }
}

/// Timestamps by input route.
type Created = Vec<Option<(i64, u32)>>;

/// One pass over the routes in storage order: namespace ids (one hash per route), the
/// timestamps, and whether every nanosecond field fits the packed rank key.
fn scan(routes: Routes<'_>, hash: HashKeys) -> (Vec<&str>, Vec<u32>, Created, bool) {
    // namespaces: ids in first-seen order, one hash per route
    let small = routes.len() <= FEW;
    let mut ids: Map<&str, u32> = Map::with_hasher(hash);
    let mut distinct: Vec<&str> = Vec::new();
    let mut route_ns: Vec<u32> = Vec::with_capacity(routes.len());
    // timestamps copied out in the same pass: the rank keys read them twice more, by
    // position, and a route's entry is 192 bytes where this is 16
    let mut created: Vec<Option<(i64, u32)>> = Vec::with_capacity(routes.len());
    let mut nanos_fit = true;
    for (i, r) in routes.irs().enumerate() {
        // the strings of a route a few entries ahead: their misses overlap this work (see
        // `touch`; a few routes are in cache)
        if !small && let Some(a) = routes.ir(i + AHEAD) {
            std::hint::black_box(
                a.namespace.as_bytes().first().copied().unwrap_or(0)
                    ^ a.name.as_bytes().first().copied().unwrap_or(0),
            );
        }
        created.push(r.created);
        nanos_fit &= r.created.is_none_or(|(_, n)| n < (1 << 30));
        let next = u32::try_from(distinct.len()).unwrap_or(u32::MAX);
        let id = if small {
            // a few routes (an update's scope): a search of the few namespaces seen, without
            // the table
            distinct
                .iter()
                .position(|ns| *ns == r.namespace.as_str())
                .map_or(next, |i| u32::try_from(i).unwrap_or(u32::MAX))
        } else {
            *ids.entry(r.namespace.as_str()).or_insert(next)
        };
        if id == next {
            distinct.push(&r.namespace);
        }
        route_ns.push(id);
    }
    (distinct, route_ns, created, nanos_fit)
}

/// The processing order and the ranks by position.
fn order_and_ranks(
    routes: Routes<'_>,
    distinct: &[&str],
    route_ns: &[u32],
    created: &[Option<(i64, u32)>],
    nanos_fit: bool,
) -> (Vec<usize>, Vec<RouteRank>) {
    let fits = distinct.len() < (1 << NS_BITS)
        && u32::try_from(routes.len()).is_ok()
        // a namespace with `/` (no valid object has one) lets names decide between two
        // namespaces in `namespace/name` order; a nanosecond field past 2^30 (beyond a valid
        // timestamp's 10^9) does not fit the rank key: both take the general path
        && !distinct.iter().any(|ns| ns.contains('/'))
        && nanos_fit;
    // a few routes (an update's scope, most often): the direct sorts are cheaper than
    // preparing the keys
    if !fits || routes.len() <= FEW {
        return general(routes);
    }
    let pair_rank = ranks_by(distinct, |a, b| a.cmp(b));
    let name = |ri: u32| routes.ir(ri as usize).map_or("", |r| r.name.as_str());

    let mut recs: Vec<Rec> = routes
        .irs()
        .zip(route_ns)
        .enumerate()
        .map(|(ri, (r, ns))| {
            if let Some(a) = routes.ir(ri + AHEAD) {
                std::hint::black_box(a.name.as_bytes().first().copied().unwrap_or(0));
            }
            let ns = u128::from(pair_rank.get(*ns as usize).copied().unwrap_or(0));
            Rec {
                key: (ns << (128 - NS_BITS)) | (name_prefix(&r.name) << 3) | (r.kind as u128),
                ri: ri as u32,
                len: u32::try_from(r.name.len()).unwrap_or(u32::MAX),
            }
        })
        .collect();
    // (namespace, name, kind) order; equal keys: the names decide when either is longer than
    // the prefix, else the shorter first (zero padding: exactly byte order, NUL included)
    let by_name = |a: &Rec, b: &Rec| {
        let (ka, kb) = (a.key >> 3, b.key >> 3);
        match ka.cmp(&kb) {
            Ordering::Equal if a.len as usize > NAME_BYTES || b.len as usize > NAME_BYTES => {
                name(a.ri).cmp(name(b.ri))
            }
            Ordering::Equal => a.len.cmp(&b.len),
            c => c,
        }
    };
    // stable: input order among duplicates (the first is kept)
    recs.sort_by(|a, b| by_name(a, b).then((a.key & 7).cmp(&(b.key & 7))));
    // duplicates (same kind, namespace and name) are adjacent: the first in input order stays
    recs.dedup_by(|b, a| a.key == b.key && by_name(a, b) == Ordering::Equal);

    // the name rank of every route (equal for the same namespace and name): namespaces in
    // `namespace/name` order, each one's routes already in name order
    let joined_rank = ranks_by(distinct, |a, b| {
        a.bytes()
            .chain(std::iter::once(b'/'))
            .cmp(b.bytes().chain(std::iter::once(b'/')))
    });
    let mut ns_start = vec![0u32; distinct.len() + 1];
    for r in &recs {
        let ns = (r.key >> (128 - NS_BITS)) as usize;
        if let Some(c) = ns_start.get_mut(ns + 1) {
            *c += 1;
        }
    }
    for i in 1..ns_start.len() {
        let prev = ns_start.get(i - 1).copied().unwrap_or(0);
        if let Some(c) = ns_start.get_mut(i) {
            *c += prev;
        }
    }
    // by pair rank, the namespaces in joined order
    let mut by_joined: Vec<(u32, u32)> = pair_rank
        .iter()
        .zip(&joined_rank)
        .map(|(p, j)| (*j, *p))
        .collect();
    by_joined.sort_unstable();
    let mut name_rank = vec![0u32; routes.len()];
    let mut rank = 0u32;
    for (_, p) in by_joined {
        let (s, e) = (
            ns_start.get(p as usize).copied().unwrap_or(0) as usize,
            ns_start.get(p as usize + 1).copied().unwrap_or(0) as usize,
        );
        let group = recs.get(s..e).unwrap_or(&[]);
        for (i, r) in group.iter().enumerate() {
            if i > 0
                && let Some(prev) = group.get(i - 1)
                && by_name(prev, r) != Ordering::Equal
            {
                rank += 1;
            }
            if let Some(slot) = name_rank.get_mut(r.ri as usize) {
                *slot = rank;
            }
        }
        rank += 1;
    }

    // canonical (kind, namespace, name) order: a stable counting pass by kind
    let mut kind_start = [0usize; 9];
    for r in &recs {
        if let Some(c) = kind_start.get_mut((r.key & 7) as usize + 1) {
            *c += 1;
        }
    }
    for i in 1..kind_start.len() {
        let prev = kind_start.get(i - 1).copied().unwrap_or(0);
        if let Some(c) = kind_start.get_mut(i) {
            *c += prev;
        }
    }
    let mut order = vec![0usize; recs.len()];
    for r in &recs {
        if let Some(at) = kind_start.get_mut((r.key & 7) as usize) {
            if let Some(slot) = order.get_mut(*at) {
                *slot = r.ri as usize;
            }
            *at += 1;
        }
    }
    drop(recs);

    let created = |ri: usize| created.get(ri).copied().flatten();
    let name_rank_of = |ri: usize| name_rank.get(ri).copied().unwrap_or(0);
    let ranks = match packed_rank_keys(&order, &created, &name_rank_of) {
        Some((mut keys, pos_bits)) => {
            // (a radix sort of these keys measured no faster than this)
            keys.sort_unstable();
            ranks_of_sorted(
                order.len(),
                keys.iter()
                    .map(|k| (k >> pos_bits, k & ((1 << pos_bits) - 1))),
            )
        }
        None => {
            // (no timestamp, seconds, nanoseconds, name rank) in one u128
            let mut keyed: Vec<(u128, u32)> = order
                .iter()
                .enumerate()
                .map(|(pos, &r)| {
                    let ts = match created(r) {
                        None => 1u128 << 126,
                        // seconds offset to sort as unsigned
                        Some((s, n)) => {
                            (u128::from((s as u64) ^ (1 << 63)) << 62) | (u128::from(n) << 32)
                        }
                    };
                    (ts | u128::from(name_rank_of(r)), pos as u32)
                })
                .collect();
            keyed.sort_unstable();
            ranks_of_sorted(
                order.len(),
                keyed.into_iter().map(|(k, p)| (k, u64::from(p))),
            )
        }
    };
    (order, ranks)
}

/// Bits needed to hold `v`.
fn bits(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// The rank sort keys packed into `u64`s when they fit (they do for any real cluster):
/// (no timestamp | seconds since the oldest | nanoseconds | name rank | position), each
/// field only as wide as its largest value. Returns the keys and the position bits.
fn packed_rank_keys(
    order: &[usize],
    created: &impl Fn(usize) -> Option<(i64, u32)>,
    name_rank: &impl Fn(usize) -> u32,
) -> Option<(Vec<u64>, u32)> {
    let (mut min_s, mut max_s, mut max_n, mut max_r) = (i64::MAX, i64::MIN, 0u32, 0u32);
    for &r in order {
        if let Some((s, n)) = created(r) {
            min_s = min_s.min(s);
            max_s = max_s.max(s);
            max_n = max_n.max(n);
        }
        max_r = max_r.max(name_rank(r));
    }
    let span = if min_s <= max_s {
        u64::try_from(i128::from(max_s) - i128::from(min_s)).ok()?
    } else {
        0
    };
    let (bs, bn, br) = (bits(span), bits(u64::from(max_n)), bits(u64::from(max_r)));
    let bp = bits(order.len() as u64);
    let total = 1 + bs + bn + br + bp;
    if total > 64 {
        return None;
    }
    let keys = order
        .iter()
        .enumerate()
        .map(|(pos, &r)| {
            let ts = match created(r) {
                None => 1u64 << (bs + bn),
                Some((s, n)) => {
                    // `s - min_s` fits `bs` bits: checked through `span` above
                    let d = (i128::from(s) - i128::from(min_s)) as u64;
                    (d << bn) | u64::from(n)
                }
            };
            (((ts << br) | u64::from(name_rank(r))) << bp) | pos as u64
        })
        .collect();
    Some((keys, bp))
}

/// Ranks by position from (key, position) pairs sorted by key: equal keys, equal ranks.
fn ranks_of_sorted<K: PartialEq>(
    n: usize,
    sorted: impl Iterator<Item = (K, u64)>,
) -> Vec<RouteRank> {
    let mut ranks = vec![RouteRank(0); n];
    let mut rank = 0u32;
    let mut prev: Option<K> = None;
    for (k, pos) in sorted {
        if prev.as_ref().is_some_and(|p| *p != k) {
            rank += 1;
        }
        if let Some(slot) = ranks.get_mut(pos as usize) {
            *slot = RouteRank(rank);
        }
        prev = Some(k);
    }
    ranks
}

/// The order and ranks through the routes themselves (inputs the compact keys cannot hold).
fn general(routes: Routes<'_>) -> (Vec<usize>, Vec<RouteRank>) {
    let mut order: Vec<usize> = (0..routes.len()).collect();
    let key = |i: &usize| routes.ir(*i).map(|r| (r.kind, &r.namespace, &r.name));
    order.sort_by(|a, b| key(a).cmp(&key(b)));
    order.dedup_by(|b, a| key(a) == key(b));
    let orders: Vec<RouteOrder<'_, (i64, u32)>> = order
        .iter()
        .filter_map(|i| routes.ir(*i))
        .map(|r| RouteOrder {
            created: r.created,
            namespace: &r.namespace,
            name: &r.name,
        })
        .collect();
    let ranks = rank_routes(&orders);
    (order, ranks)
}

/// The rank of each of `items` (distinct) in the order `cmp`.
fn ranks_by(items: &[&str], cmp: impl Fn(&str, &str) -> Ordering) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..u32::try_from(items.len()).unwrap_or(u32::MAX)).collect();
    let at = |i: u32| items.get(i as usize).copied().unwrap_or("");
    idx.sort_unstable_by(|a, b| cmp(at(*a), at(*b)));
    let mut ranks = vec![0u32; items.len()];
    for (rank, i) in idx.into_iter().enumerate() {
        if let Some(r) = ranks.get_mut(i as usize) {
            *r = u32::try_from(rank).unwrap_or(u32::MAX);
        }
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_model::RouteKind;
    use proptest::prelude::*;

    /// The order and ranks as the build computed them before the compact keys: sorting
    /// route indexes through the routes (stable, then dedup), and [`rank_routes`]. That is
    /// [`general`], the path for inputs the keys cannot hold.
    fn reference(routes: &[RouteIr]) -> (Vec<usize>, Vec<RouteRank>) {
        general(Routes::input(routes))
    }

    fn route(kind: RouteKind, ns: &str, name: &str, created: Option<(i64, u32)>) -> RouteIr {
        RouteIr {
            kind,
            namespace: ns.into(),
            name: name.into(),
            created,
            hostnames: vec![],
            parents: vec![],
            rules: vec![],
            invalid: None,
        }
    }

    // Namespaces that are prefixes of each other around `/` (`a-b/x` < `a/y` < `a.b/z` as
    // joined strings, not as pairs), names sharing 16-byte prefixes, NUL bytes and duplicates.
    const NAMESPACES: &[&str] = &["a", "a-b", "a.b", "ab", "a0", "b", ""];
    const NAMES: &[&str] = &[
        "x",
        "x\0",
        "x\0\0",
        "y",
        "route-0123456789a",
        "route-0123456789b",
        "route-0123456789",
        "route-0123456789ab",
        "route-012345",
        "route-0123456",
        "route-01234567",
        "",
    ];

    fn routes_strategy(
        namespaces: &'static [&'static str],
        sizes: std::ops::Range<usize>,
    ) -> impl Strategy<Value = Vec<RouteIr>> {
        proptest::collection::vec(
            (
                proptest::sample::select(&[RouteKind::Http, RouteKind::Grpc, RouteKind::Tcp][..]),
                proptest::sample::select(namespaces),
                proptest::sample::select(NAMES),
                proptest::option::of((
                    prop_oneof![8 => -2i64..3, 1 => Just(i64::MIN), 1 => Just(i64::MAX), 1 => Just(1_700_000_000i64)],
                    prop_oneof![8 => 0u32..2, 1 => Just(999_999_999u32), 1 => Just(u32::MAX)],
                )),
            )
                .prop_map(|(k, ns, n, c)| route(k, ns, n, c)),
            sizes,
        )
    }

    proptest! {
        // The namespaces are the distinct ones in first-seen order and every route indexes
        // its own, whether found by a search (a few routes) or through the table.
        #[test]
        fn namespaces_are_distinct_in_first_seen_order(
            routes in routes_strategy(NAMESPACES, 0..FEW * 3),
            seed: u64,
        ) {
            let c = canonical_order(Routes::input(&routes), HashKeys::new(seed));
            let mut seen: Vec<&str> = Vec::new();
            for r in &routes {
                if !seen.contains(&r.namespace.as_str()) {
                    seen.push(&r.namespace);
                }
            }
            prop_assert_eq!(&c.namespaces, &seen);
            prop_assert_eq!(c.route_ns.len(), routes.len());
            for (r, ns) in routes.iter().zip(&c.route_ns) {
                prop_assert_eq!(c.namespaces.get(*ns as usize).copied(), Some(r.namespace.as_str()));
            }
        }

        // Gateway API HTTPRouteRule.matches precedence, oldest Route then namespace/name order and
        // the build's canonical order: the compact-record sorts give exactly the order, duplicates
        // and ranks of the sorts through the routes.
        #[test]
        fn compact_sorts_agree_with_sorting_through_the_routes(
            // more than `FEW`: up to `FEW` routes take `general` itself, the reference
            routes in routes_strategy(NAMESPACES, FEW + 1..FEW + 40),
            seed: u64,
        ) {
            let c = canonical_order(Routes::input(&routes), HashKeys::new(seed));
            prop_assert_eq!((c.order, c.ranks), reference(&routes));
            // the same routes with valid nanoseconds, so that the packed keys are used
            let valid: Vec<RouteIr> = routes
                .into_iter()
                .map(|mut r| {
                    if let Some((_, n)) = &mut r.created {
                        *n %= 1_000_000_000;
                    }
                    r
                })
                .collect();
            let c = canonical_order(Routes::input(&valid), HashKeys::new(seed));
            prop_assert_eq!((c.order, c.ranks), reference(&valid));
        }

        // A namespace with `/` (invalid, but the table takes any input) uses the joined
        // strings.
        #[test]
        fn namespaces_with_slashes_rank_by_the_joined_strings(
            routes in routes_strategy(&["a", "a/b", "a/", "a-b", "b"], FEW + 1..FEW + 40),
        ) {
            let c = canonical_order(Routes::input(&routes), HashKeys::default());
            prop_assert_eq!((c.order, c.ranks), reference(&routes));
        }
    }
}
