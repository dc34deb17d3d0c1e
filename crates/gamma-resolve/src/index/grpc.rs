//! The gRPC index of one hostname group ([`GrpcIndex`]) and its builder: exact service and
//! method, exact service, exact method, then the rest through one prefilter regex set.

use crate::hash::{HashKeys, Map};
use crate::regex::RegexPool;

use super::Cands;

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
