use std::hash::BuildHasher;

use super::path::*;
use super::path_build::*;
use crate::hash::HashKeys;
use crate::regex::RegexPool;

/// The hash the build computes once per key (for its key map) is the one the table's
/// slots use: every entry of a hashed index carries it.
#[test]
fn the_build_hash_of_a_key_is_its_slot_hash() {
    let mut b = PathKeysBuilder::new(HashKeys::new(9));
    let mut pool = RegexPool::default();
    let order = |a: &u32, b: &u32| a.cmp(b);
    let keys: Vec<String> = (0..40).map(|i| format!("/h/{i}")).collect();
    let mut ib = b.index();
    for (i, k) in (0u32..).zip(&keys) {
        b.add(&mut ib, PathSlot::Exact(k), 2 * i);
        b.add(&mut ib, PathSlot::Prefix(k), 2 * i + 1);
        b.add(&mut ib, PathSlot::Exact(k), 2 * i + 100);
    }
    let id = ib.id;
    let index = b.finish(ib, &order, &mut pool);
    let mut hashed = 0;
    for (salt, r) in [(id * 2, index.exact), ((id * 2) | 1, index.prefix)] {
        for ei in range(r) {
            let e = b.out.entries[ei];
            let want = salted_hash(b.out.hash, salt, b.out.key(&e));
            if let Some(h) = b.entry_hashes[ei] {
                assert_eq!(h, want);
                hashed += 1;
            }
        }
    }
    assert_eq!(hashed, 80);
    let pk = b.freeze();
    for (i, k) in (0u32..).zip(&keys) {
        // two candidates on each exact key, one on each prefix
        assert_eq!(
            pk.lookup(index.exact, id * 2, k).map(|e| e.run.1),
            Some(2),
            "{k}"
        );
        assert_eq!(
            pk.lookup(index.prefix, (id * 2) | 1, k).map(|e| e.run),
            Some((2 * i + 1, 1)),
            "{k}"
        );
    }
}

/// The counting sort of prefix keys orders them as the stable sort by descending length
/// did, for short and long lists and lengths past the counting sort's bound.
#[test]
fn longest_first_is_a_stable_sort_by_descending_length() {
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    for (count, max_len) in [(0, 8), (5, 8), (31, 40), (32, 40), (500, 12), (300, 5000)] {
        let keys: Vec<String> = (0..count)
            .map(|_| "/".repeat(usize::try_from(next(max_len)).unwrap_or(0) + 1))
            .collect();
        let pending: Vec<PendingKey<'_>> = keys
            .iter()
            .map(|k| PendingKey {
                key: k,
                prefix: true,
                first: 0,
                more: (NONE, NONE),
                next: NONE,
                hash: None,
            })
            .collect();
        let order: Vec<u32> = (0..u32::try_from(count).unwrap_or(0)).rev().collect();
        let mut want = order.clone();
        want.sort_by_key(|&pi| std::cmp::Reverse(keys[pi as usize].len()));
        let mut got = vec![7, 8];
        longest_first(&pending, &order, &mut Vec::new(), &mut got);
        assert_eq!(got[..2], [7, 8]);
        assert_eq!(got[2..], want[..], "{count} keys up to {max_len} bytes");
    }
}

/// Builds two indexes with the same `n` exact and `n` prefix keys (so large ones share
/// the hash and every key exists in both) and returns them with their keys.
fn two_indexes(n: u32, keys: &[String]) -> (PathKeys, PathIndex, PathIndex) {
    two_indexes_seeded(n, keys, 0)
}

fn two_indexes_seeded(n: u32, keys: &[String], seed: u64) -> (PathKeys, PathIndex, PathIndex) {
    let mut b = PathKeysBuilder::new(HashKeys::new(seed));
    let mut pool = RegexPool::default();
    let any = pool.intern(".*").unwrap_or(0);
    let order = |a: &u32, b: &u32| a.cmp(b);
    let mut built = Vec::new();
    for base in [0u32, 1000] {
        let mut ib = b.index();
        for i in 0..n {
            let k = keys.get(i as usize).map_or("", String::as_str);
            // candidate ids encode (index, key, kind); a second candidate on each exact
            // key, added first with a higher id, checks the run is sorted
            b.add(&mut ib, PathSlot::Exact(k), base + 2 * i + 100);
            b.add(&mut ib, PathSlot::Exact(k), base + 2 * i);
            b.add(&mut ib, PathSlot::Prefix(k), base + 2 * i + 1);
        }
        b.add(
            &mut ib,
            PathSlot::Regex {
                regex: any,
                rejectable: false,
            },
            base + 999,
        );
        built.push(b.finish(ib, &order, &mut pool));
    }
    let keys = b.freeze();
    (keys, built[0], built[1])
}

fn hits(keys: &PathKeys, pi: &PathIndex, path: &str) -> Vec<u32> {
    let mut out = Vec::new();
    // the indexes' one regex, `.*`, is the first a fresh pool interns (id 0), as in
    // `two_indexes_seeded`
    let mut pool = RegexPool::default();
    let _ = pool.intern(".*");
    pi.find(keys, &pool, path, |c| {
        out.push(c);
        None::<()>
    });
    out
}

// Gateway API HTTPPathMatch; Gateway API HTTPRouteRule.matches precedence, Exact path then
// longest PathPrefix: the same answers from the scanned (small) and the hashed (large) layout:
// exact candidates in precedence order, then prefixes longest first on segment boundaries, then
// regexes; an index never sees another index's keys.
#[test]
fn small_and_large_path_indexes_agree() {
    let keys: Vec<String> = (0..40).map(|i| format!("/k{i}")).collect();
    for n in [3u32, SCAN_MAX, SCAN_MAX + 1, 40] {
        let (pk, a, b) = two_indexes(n, &keys);
        assert_eq!(a.exact.1 > SCAN_MAX, n > SCAN_MAX);
        for i in 0..n {
            let k = &keys[i as usize];
            let e = 2 * i;
            assert_eq!(hits(&pk, &a, k), vec![e, e + 100, e + 1, 999], "n={n} {k}");
            assert_eq!(
                hits(&pk, &b, k),
                vec![1000 + e, 1100 + e, 1001 + e, 1999],
                "n={n} {k}"
            );
            assert_eq!(hits(&pk, &a, &format!("{k}/x")), vec![e + 1, 999]);
            // not on a segment boundary
            assert_eq!(hits(&pk, &a, &format!("{k}x")), vec![999]);
        }
        assert_eq!(hits(&pk, &a, "/other"), vec![999]);
    }
}

// Gateway API HTTPPathMatch: nested prefixes are tried longest first in both layouts.
#[test]
fn nested_prefixes_are_tried_longest_first() {
    let order = |a: &u32, b: &u32| a.cmp(b);
    for extra in [0u32, 20] {
        let mut b = PathKeysBuilder::default();
        let mut ib = b.index();
        b.add(&mut ib, PathSlot::Prefix("/"), 1);
        b.add(&mut ib, PathSlot::Prefix("/a/"), 2);
        b.add(&mut ib, PathSlot::Prefix("/a/b"), 3);
        let fillers: Vec<String> = (0..extra).map(|i| format!("/f{i}/g")).collect();
        for (i, f) in fillers.iter().enumerate() {
            b.add(&mut ib, PathSlot::Prefix(f), 100 + i as u32);
        }
        let pi = b.finish(ib, &order, &mut RegexPool::default());
        let pk = b.freeze();
        assert_eq!(hits(&pk, &pi, "/a/b/c"), vec![3, 2, 1], "extra={extra}");
        assert_eq!(hits(&pk, &pi, "/a/bc"), vec![2, 1], "extra={extra}");
        assert_eq!(hits(&pk, &pi, "/x"), vec![1], "extra={extra}");
    }
}

// BuildOptions::hash_seed: the seed moves keys to other slots of the shared path hash
// (so colliding keys found offline for one seed do not collide under another), while
// every lookup answers the same.
#[test]
fn hash_seed_moves_path_keys_but_not_answers() {
    let keys: Vec<String> = (0..40).map(|i| format!("/k{i}")).collect();
    let (pa, a0, a1) = two_indexes_seeded(40, &keys, 1);
    let (pb, b0, b1) = two_indexes_seeded(40, &keys, 2);
    assert_eq!(pa.slots.len(), pb.slots.len());
    assert_ne!(
        pa.slots, pb.slots,
        "the same keys in the same slots under two seeds"
    );
    assert_ne!(pa.hash, pb.hash);
    for k in &keys {
        for p in [k.clone(), format!("{k}/x"), format!("{k}x")] {
            assert_eq!(hits(&pa, &a0, &p), hits(&pb, &b0, &p), "{p}");
            assert_eq!(hits(&pa, &a1, &p), hits(&pb, &b1, &p), "{p}");
        }
    }
    // the maps' hasher is keyed the same way
    let (x, y) = (HashKeys::new(1), HashKeys::new(2));
    assert_ne!(x.hash_one("/k1"), y.hash_one("/k1"));
    assert_eq!(x.hash_one("/k1"), HashKeys::new(1).hash_one("/k1"));
}

// A difference in the top bit of one word and bit 4 of the next passes a rotate-xor-
// multiply hash unchanged whatever its initial state (the collision an unkeyed FxHash
// allows for any seed): the folded multiply does not let it through.
#[test]
fn top_bit_differences_do_not_collide_for_every_seed() {
    let a: [u8; 16] = *b"/aaaaaaa/aaaaaaa";
    let mut b = a;
    b[7] ^= 0x80;
    b[8] ^= 0x10;
    let collide = (0..64u64)
        .filter(|s| {
            let k = HashKeys::new(*s);
            salted_hash_bytes(k, 0, &a) == salted_hash_bytes(k, 0, &b)
        })
        .count();
    assert_eq!(collide, 0);
}

// Every key is found within the longest displacement the build recorded (the bound the
// lookup stops at).
#[test]
fn lookups_stop_at_the_recorded_probe_bound() {
    let keys: Vec<String> = (0..500).map(|i| format!("/p/{i}")).collect();
    let (pk, a, _) = two_indexes_seeded(500, &keys, 7);
    assert!(pk.max_probe <= PROBE_LIMIT);
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(hits(&pk, &a, k).first(), Some(&(2 * i as u32)), "{k}");
    }
}

// The probe bound holds at any load: with the hash filled to capacity (displacements far
// above the usual ones) every key is still found within the recorded maximum.
#[test]
fn a_full_hash_records_its_longest_probe_and_finds_every_key() {
    let keys: Vec<String> = (0..64).map(|i| format!("/full/{i}")).collect();
    let (mut pk, a, _) = two_indexes_seeded(64, &keys, 3);
    let large = [(a.id.wrapping_mul(2), a.exact)];
    let (slots, max_probe) = pk.fill_slots(&large, 64, &[]);
    assert!(max_probe > 0, "a full table displaces some key");
    pk.slots = slots;
    pk.max_probe = max_probe;
    for (i, k) in keys.iter().enumerate() {
        let e = pk.lookup(a.exact, a.id.wrapping_mul(2), k).map(|e| e.run.0);
        assert_eq!(e, Some(2 * i as u32), "{k}");
    }
    assert!(
        pk.lookup(a.exact, a.id.wrapping_mul(2), "/full/x")
            .is_none()
    );
}

/// Indexes built by [`indexes_of`]: each with its id and its keys.
type Built<'k> = Vec<(u32, PathIndex, &'k Vec<String>)>;

/// One index per key list of `lists`, all in one table hashed with `seed`: `add` puts key `i`
/// of list `n` into the list's index. The frozen table, and the indexes.
fn indexes_of<'k>(
    seed: u64,
    lists: &'k [Vec<String>],
    add: impl Fn(&mut PathKeysBuilder<'k>, &mut PathIndexBuilder, u32, u32, &'k str),
) -> (PathKeys, Built<'k>) {
    let mut b = PathKeysBuilder::new(HashKeys::new(seed));
    let mut pool = RegexPool::default();
    let order = |a: &u32, b: &u32| a.cmp(b);
    let mut built = Vec::new();
    for (n, keys) in (0u32..).zip(lists) {
        let mut ib = b.index();
        for (i, k) in (0u32..).zip(keys) {
            add(&mut b, &mut ib, n, i, k);
        }
        let id = ib.id;
        built.push((id, b.finish(ib, &order, &mut pool), keys));
    }
    (b.freeze(), built)
}

// The key lengths of large indexes' exact keys let a path of another length miss without a
// hash probe, and never hide a key: small and large indexes interleaved in one table, keys
// of many lengths (63 bytes and more share the last length bit).
#[test]
fn exact_key_lengths_skip_only_absent_lengths() {
    let key = |len: usize, c: char| format!("/{}", c.to_string().repeat(len - 1));
    let shapes: [Vec<usize>; 5] = [
        (2..=12).collect(),
        vec![4, 9],
        vec![3, 5, 7, 9, 11, 13, 15, 17, 19, 70, 100],
        (20..=40).step_by(2).collect(),
        (1..=8).collect(),
    ];
    // the builder borrows the keys
    let all_keys: Vec<Vec<String>> = shapes
        .iter()
        .map(|lens| lens.iter().map(|&l| key(l, 'a')).collect())
        .collect();
    let (pk, built) = indexes_of(3, &all_keys, |b, ib, n, i, k| {
        b.add(ib, PathSlot::Exact(k), 100 * n + i);
    });
    for (id, index, keys) in &built {
        let large = index.exact.1 > SCAN_MAX;
        for len in 1..120 {
            let present = keys.iter().any(|k| k.len() == len);
            let may = pk.may_hold_exact_len(index.exact, len);
            assert!(may || !present, "a key of {len} bytes hidden");
            if large && len < 63 {
                assert_eq!(may, present, "length {len} of index {id}");
            }
            for c in ['a', 'b'] {
                let path = key(len, c);
                let found = pk.lookup(index.exact, id * 2, &path).is_some();
                assert_eq!(found, keys.contains(&path), "{path:?} in index {id}");
                assert_eq!(
                    hits(&pk, index, &path).is_empty(),
                    !keys.contains(&path),
                    "{path:?} in index {id}"
                );
            }
        }
    }
}

// The (length, last byte) bits of large ranges let a probe miss without a hash, and never
// hide a key: exact and prefix keys of small and large indexes interleaved in one table,
// every key (the root prefix `""` included) found, every probe of another length or last
// byte answered as a full lookup answers it; the bit is a function of the key's length and
// last byte alone.
#[test]
fn key_tails_skip_only_absent_keys() {
    let shapes: [Vec<String>; 4] = [
        (0..30).map(|i| format!("/s{i}/exact")).collect(),
        (0..5).map(|i| format!("/x/{i}")).collect(),
        (0..12)
            .map(|i| format!("/p{}", "ab".repeat(i)))
            .chain([String::new()])
            .collect(),
        (0..70).map(|i| format!("/{}", "z".repeat(i))).collect(),
    ];
    let (pk, built) = indexes_of(11, &shapes, |b, ib, n, i, k| {
        b.add(ib, PathSlot::Exact(k), 1000 * n + 2 * i);
        b.add(ib, PathSlot::Prefix(k), 1000 * n + 2 * i + 1);
    });
    for (id, index, keys) in &built {
        let mut probes: Vec<String> = keys.to_vec();
        for k in keys.iter() {
            for tail in ["", "t", "/", "9", "z"] {
                probes.push(format!("{k}{tail}"));
                if let Some(p) = k.get(..k.len().saturating_sub(1)) {
                    probes.push(format!("{p}{tail}"));
                }
            }
        }
        for p in &probes {
            let normalized = crate::path::normalize_prefix(p);
            let exact = pk.lookup(index.exact, id * 2, p).map(|e| pk.key(e));
            assert_eq!(
                exact,
                keys.iter().find(|k| *k == p).map(String::as_str),
                "{p:?}"
            );
            let prefix = pk
                .lookup(index.prefix, (id * 2) | 1, normalized)
                .map(|e| pk.key(e));
            let want = keys
                .iter()
                .map(|k| crate::path::normalize_prefix(k))
                .find(|k| *k == normalized);
            assert_eq!(prefix, want, "{p:?} in index {id}");
        }
    }
    // the first index's keys all end in `t` (exact keys first in the table): a probe of
    // their lengths ending otherwise is told apart by its bit
    let bits = pk.tails.first().copied().unwrap_or(0);
    assert_ne!(bits, 0);
    assert_eq!(bits & tail_bit(b"/s1/exacz"), 0);
    assert_ne!(bits & tail_bit(b"/s1/exact"), 0);
    for len in 0..200usize {
        for last in [b'a', b'/', 0xff] {
            let mut k = vec![b'x'; len];
            if let Some(l) = k.last_mut() {
                *l = last;
            }
            let mut other = vec![b'y'; len];
            if let Some(l) = other.last_mut() {
                *l = last;
            }
            assert_eq!(tail_bit(&k), tail_bit(&other), "{len}");
            assert_eq!(tail_bit(&k).count_ones(), 1);
        }
    }
}
