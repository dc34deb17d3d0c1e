//! The gRPC index of one hostname group ([`GrpcIndex`]) and its builder: exact service and
//! method, exact service, exact method, then the rest through one prefilter regex set.

use crate::hash::{HashKeys, Map};
use crate::regex::RegexPool;

use super::Cands;
use super::path::len_bit;

/// gRPC index of one hostname group: exact service+method, exact service only, exact method
/// only, then the rest (Gateway API GRPCRouteRule.matches: service characters, then method
/// characters, decide first).
#[derive(Debug, Default)]
pub(crate) struct GrpcIndex {
    /// Keyed by `service/method`.
    pub(crate) both: Map<Box<str>, Cands>,
    pub(crate) service: Map<Box<str>, Cands>,
    pub(crate) method: Map<Box<str>, Cands>,
    /// Candidates without an exact service or method (regexes, or neither), in precedence
    /// order.
    pub(crate) rest: Cands,
    /// The prefilter set of `rest` ([`RegexPool::intern_grpc_set`]) when it holds at least
    /// [`GRPC_SET_MIN`] regex candidates: one pass over `service/method` instead of one or
    /// two regex searches per candidate.
    rest_set: Option<u32>,
    /// The key lengths of `both` ([`len_bit`] of each, or-ed): a `service/method` of a
    /// length no key has skips the hash and probe (~45 instructions a miss, callgrind; every
    /// gRPC request a regex takes missed). Not kept for `service` and `method`: they are
    /// often empty, which the map tells as cheaply, and a check per map cost gRPC 404s ~20
    /// instructions where no length was skipped.
    both_lens: u64,
}

/// Regex candidates in a gRPC `rest` list from which one multi-pattern pass replaces the scan.
const GRPC_SET_MIN: usize = 2;

/// A gRPC candidate: its id and its service and method regexes.
type GrpcCand = (u32, Option<u32>, Option<u32>);

/// Builder of a [`GrpcIndex`].
#[derive(Debug, Default)]
pub(crate) struct GrpcIndexBuilder {
    both: Map<Box<str>, Vec<u32>>,
    service: Map<Box<str>, Vec<u32>>,
    pub(super) method: Map<Box<str>, Vec<u32>>,
    pub(super) rest: Vec<GrpcCand>,
}

impl GrpcIndexBuilder {
    /// A builder whose maps are keyed with `keys`.
    pub(crate) fn new(keys: HashKeys) -> Self {
        Self {
            both: Map::with_hasher(keys),
            service: Map::with_hasher(keys),
            method: Map::with_hasher(keys),
            rest: Vec::new(),
        }
    }

    /// Adds candidate `cand` under its exact service and method (`None`: not exact);
    /// `regexes` are its service and method regexes (for the prefilter set of the rest).
    pub(crate) fn add(
        &mut self,
        service: Option<&str>,
        method: Option<&str>,
        regexes: (Option<u32>, Option<u32>),
        cand: u32,
    ) {
        match (service, method) {
            (Some(s), Some(m)) => self
                .both
                .entry(format!("{s}/{m}").into())
                .or_default()
                .push(cand),
            (Some(s), None) => self.service.entry(s.into()).or_default().push(cand),
            (None, Some(m)) => self.method.entry(m.into()).or_default().push(cand),
            (None, None) => self.rest.push((cand, regexes.0, regexes.1)),
        }
    }

    pub(crate) fn finish(
        self,
        order: &impl Fn(&u32, &u32) -> std::cmp::Ordering,
        pool: &mut RegexPool,
    ) -> GrpcIndex {
        let freeze = |mut v: Vec<u32>| -> Cands {
            v.sort_by(order);
            v.dedup();
            v.into_boxed_slice()
        };
        let both_lens = self.both.keys().fold(0, |l, k| l | len_bit(k.len()));
        let f = |m: Map<Box<str>, Vec<u32>>| {
            let mut out = Map::with_capacity_and_hasher(m.len(), *m.hasher());
            out.extend(m.into_iter().map(|(k, v)| (k, freeze(v))));
            out
        };
        let mut rest = self.rest;
        rest.sort_by(|a, b| order(&a.0, &b.0));
        rest.dedup_by_key(|(c, ..)| *c);
        let regexes = rest
            .iter()
            .filter(|(_, s, m)| s.is_some() || m.is_some())
            .count();
        let rest_set = (regexes >= GRPC_SET_MIN).then(|| {
            let parts: Vec<(Option<u32>, Option<u32>)> =
                rest.iter().map(|&(_, s, m)| (s, m)).collect();
            pool.intern_grpc_set(&parts)
        });
        GrpcIndex {
            both: f(self.both),
            service: f(self.service),
            method: f(self.method),
            rest: rest.iter().map(|(c, ..)| *c).collect(),
            rest_set,
            both_lens,
        }
    }
}

impl GrpcIndex {
    /// Calls `f` with each candidate that may match, in precedence order, until it returns
    /// `Some`. `path` is the gRPC `:path`; `service`/`method` its split parts
    /// ([`split_grpc_path`]); `pool` the table's regexes. `f` is also told whether the
    /// candidate's service and method regexes are known to match (the prefilter set confirmed
    /// them), so that it need not check them again.
    ///
    /// [`split_grpc_path`]: crate::cond::split_grpc_path
    pub(crate) fn find<R>(
        &self,
        pool: &RegexPool,
        path: &str,
        service: &str,
        method: &str,
        mut f: impl FnMut(u32, bool) -> Option<R>,
    ) -> Option<R> {
        // inlined: out of line (once the candidate check grew) it cost gRPC 404s, which
        // scan nothing, ~40 instructions (callgrind)
        #[inline]
        fn scan<R>(list: Option<&Cands>, f: &mut impl FnMut(u32, bool) -> Option<R>) -> Option<R> {
            list?.iter().find_map(|&c| f(c, false))
        }
        // Whether the split found `/service/method` (the path is exactly them and two
        // slashes, the second right after the service; an empty part is still a part): else
        // both are empty (`/a` as much as `/a/b/c`) and only the rest, scanned, can match.
        let split = service.len() + method.len() + 2 == path.len()
            && path.as_bytes().get(service.len() + 1) == Some(&b'/');
        if split {
            if let Some(key) = path.get(1..)
                && self.both_lens & len_bit(key.len()) != 0
                && let Some(r) = scan(self.both.get(key), &mut f)
            {
                return Some(r);
            }
            if let Some(r) = scan(self.service.get(service), &mut f) {
                return Some(r);
            }
            if let Some(r) = scan(self.method.get(method), &mut f) {
                return Some(r);
            }
        }
        // A well-formed `/service/method` is matched against the prefilter set in one pass;
        // anything else is scanned.
        if let Some(set) = self.rest_set
            && split
            && let Some(hay) = path.get(1..)
        {
            let rest = &self.rest;
            return pool
                .find_in_prefilter_set(set, hay, |i, confirmed| f(*rest.get(i)?, confirmed));
        }
        scan(Some(&self.rest), &mut f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cond::split_grpc_path;

    /// The candidates `index` yields for the gRPC `:path` `path`, in order.
    fn found(index: &GrpcIndex, pool: &RegexPool, path: &str) -> Vec<u32> {
        let (service, method) = split_grpc_path(path);
        let mut out = Vec::new();
        index.find(pool, path, service, method, |c, _| {
            out.push(c);
            None::<()>
        });
        out
    }

    // Gateway API GRPCRouteRule.matches: the key lengths of exact service and method pairs
    // skip only lookups no key could answer: every pair is found, whatever its length (63
    // bytes and more share a length bit), and pairs of other lengths fall through to the
    // service-only, method-only and remaining candidates.
    #[test]
    fn exact_pairs_are_found_at_every_length() {
        let mut b = GrpcIndexBuilder::new(HashKeys::new(5));
        let lens = [1usize, 2, 5, 9, 30, 62, 63, 64, 100];
        let name = |len: usize, c: char| c.to_string().repeat(len);
        for (i, &len) in (0u32..).zip(&lens) {
            b.add(Some(&name(len, 's')), Some("M"), (None, None), i);
        }
        b.add(Some("only"), None, (None, None), 100);
        b.add(None, Some("M"), (None, None), 101);
        b.add(None, None, (None, None), 102);
        let mut pool = RegexPool::default();
        let index = b.finish(&|a: &u32, b: &u32| a.cmp(b), &mut pool);
        for len in 1..110 {
            for c in ['s', 't'] {
                let path = format!("/{}/M", name(len, c));
                let pair = lens.iter().position(|&l| l == len && c == 's');
                let mut want: Vec<u32> = pair.map(|i| i as u32).into_iter().collect();
                want.extend([101, 102]);
                assert_eq!(found(&index, &pool, &path), want, "{path}");
            }
        }
        assert_eq!(found(&index, &pool, "/only/X"), vec![100, 102]);
    }
}
