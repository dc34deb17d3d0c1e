//! Compiled match conditions: what a candidate checks beyond the path/method index (path,
//! service and method regexes, headers, query parameters), against the table's regex pool.

use crate::headers::HeaderLookup;
use crate::path::query_param;
use crate::regex::RegexPool;

/// A compiled value condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ValueMatch {
    Exact(Box<str>),
    Regex(u32),
}

impl ValueMatch {
    pub(crate) fn matches_bytes(&self, v: &[u8], pool: &RegexPool) -> bool {
        match self {
            Self::Exact(e) => e.as_bytes() == v,
            // a non-UTF-8 value never matches a regex (documented in headers.rs)
            Self::Regex(i) => match (std::str::from_utf8(v), pool.get(*i)) {
                (Ok(s), Some(re)) => re.is_match(s),
                _ => false,
            },
        }
    }

    pub(crate) fn matches_str(&self, v: &str, pool: &RegexPool) -> bool {
        match self {
            Self::Exact(e) => &**e == v,
            Self::Regex(i) => pool.get(*i).is_some_and(|re| re.is_match(v)),
        }
    }
}

/// Compiled name/value conditions (headers or query parameters).
/// Names are interned (`Arc<str>`): the same header names repeat across thousands of rules.
/// Shared (`Arc`): identical lists (the same header match on many rules) are compiled once
/// per table.
pub(crate) type NamedMatches = std::sync::Arc<[(std::sync::Arc<str>, ValueMatch)]>;

/// The parts of a match that the path/method index does not already decide.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Cond {
    /// Path regex (HTTP `RegularExpression` path).
    pub(crate) path_regex: Option<u32>,
    /// gRPC service regex.
    pub(crate) service_regex: Option<u32>,
    /// gRPC method regex.
    pub(crate) method_regex: Option<u32>,
    /// Header conditions, names lower-cased, first duplicate only.
    pub(crate) headers: NamedMatches,
    /// Query conditions, first duplicate only.
    pub(crate) query: NamedMatches,
}

/// The first condition that failed, for explanations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failed {
    Method,
    PathRegex,
    Service,
    GrpcMethod,
    Header(usize),
    Query(usize),
}

/// The request fields conditions look at.
pub(crate) struct Probe<'r> {
    pub(crate) method: Option<&'r str>,
    pub(crate) path: &'r str,
    pub(crate) query: Option<&'r str>,
    pub(crate) headers: &'r dyn HeaderLookup,
    pub(crate) grpc_service: &'r str,
    pub(crate) grpc_method: &'r str,
    /// Whether the index already matched the path regex of every candidate it yields (the
    /// resolve path: [`RegexPool::find_in_set`]), so [`Cond::check`] skips it; explanations,
    /// which check every candidate, leave it `false`.
    pub(crate) path_regex_matched: bool,
    /// Whether the index already matched the gRPC service and method regexes of the
    /// candidate being checked (a confirmed position of a prefilter set,
    /// [`RegexPool::find_in_prefilter_set`]; an HTTP request's candidates have none), so
    /// [`Cond::check`] skips them; explanations leave it `false`.
    pub(crate) grpc_regexes_matched: bool,
}

impl Cond {
    /// Checks the method (`""` = none) and every condition, returning the first that fails.
    pub(crate) fn check_all(
        this: Option<&Self>,
        method: &str,
        p: &Probe<'_>,
        pool: &RegexPool,
    ) -> Result<(), Failed> {
        if !method.is_empty() && p.method != Some(method) {
            return Err(Failed::Method);
        }
        match this {
            Some(c) => c.check(p, pool),
            None => Ok(()),
        }
    }

    /// Checks every condition, returning the first that fails.
    pub(crate) fn check(&self, p: &Probe<'_>, pool: &RegexPool) -> Result<(), Failed> {
        // one test on the resolve path of HTTP requests, where the index matched every regex
        if !(p.path_regex_matched && p.grpc_regexes_matched) {
            self.check_regexes(p, pool)?;
        }
        for (i, (name, vm)) in self.headers.iter().enumerate() {
            match p.headers.first_value(name) {
                Some(v) if vm.matches_bytes(v, pool) => {}
                _ => return Err(Failed::Header(i)),
            }
        }
        for (i, (name, vm)) in self.query.iter().enumerate() {
            match p.query.and_then(|q| query_param(q, name)) {
                Some(v) if vm.matches_str(v, pool) => {}
                _ => return Err(Failed::Query(i)),
            }
        }
        Ok(())
    }

    /// Checks the path, gRPC service and gRPC method regexes the index did not match.
    fn check_regexes(&self, p: &Probe<'_>, pool: &RegexPool) -> Result<(), Failed> {
        if let Some(i) = self.path_regex
            && !p.path_regex_matched
            && !ValueMatch::Regex(i).matches_str(p.path, pool)
        {
            return Err(Failed::PathRegex);
        }
        if !p.grpc_regexes_matched {
            if let Some(i) = self.service_regex
                && !ValueMatch::Regex(i).matches_str(p.grpc_service, pool)
            {
                return Err(Failed::Service);
            }
            if let Some(i) = self.method_regex
                && !ValueMatch::Regex(i).matches_str(p.grpc_method, pool)
            {
                return Err(Failed::GrpcMethod);
            }
        }
        Ok(())
    }
}

/// Splits a gRPC `:path` (`/pkg.Service/Method`) into service and method; anything else
/// yields empty strings, which exact service/method conditions never match.
pub(crate) fn split_grpc_path(path: &str) -> (&str, &str) {
    let p = path.strip_prefix('/').unwrap_or("");
    // `/` is ASCII, so a byte search finds the same split as `split_once('/')` and the
    // slices stay on char boundaries; `str::split_once` and `contains` went through the
    // generic char searcher and `memchr` (~180 instructions a gRPC request, callgrind)
    match only_slash(p.as_bytes()).map(|i| (p.get(..i), p.get(i + 1..))) {
        Some((Some(s), Some(m))) => (s, m),
        _ => ("", ""),
    }
}

/// Index of the only `/` in `bytes` (`None`: no `/`, or more than one): one pass, 8 bytes
/// per step, the tail as one overlapping word.
#[inline]
fn only_slash(bytes: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // the high bit of each byte equal to `/`, exactly (no borrow or carry crosses bytes:
    // each byte's low seven bits plus 0x7f stay within the byte), so two flags are two
    // slashes
    let slashes = |w: u64| {
        let x = w ^ (LO * u64::from(b'/'));
        !(((x & LOW7) + LOW7) | x | LOW7)
    };
    let mut first = None;
    // a word's flags: a second slash (in the word, or after the first) ends the search
    let mut take = |m: u64, base: usize| -> Result<(), ()> {
        if m == 0 {
            return Ok(());
        }
        if first.is_some() || m & (m - 1) != 0 {
            return Err(());
        }
        first = Some(base + (m.trailing_zeros() / 8) as usize);
        Ok(())
    };
    let mut at = 0usize;
    let mut rest = bytes;
    while let Some((w, tail)) = rest.split_first_chunk::<8>() {
        take(slashes(u64::from_le_bytes(*w)), at).ok()?;
        at += 8;
        rest = tail;
    }
    if !rest.is_empty() {
        match bytes.last_chunk::<8>() {
            Some(w) => {
                // the last 8 bytes overlap bytes already searched: ignore those
                let seen = 8 - rest.len();
                let m = slashes(u64::from_le_bytes(*w)) & (u64::MAX << (8 * seen));
                take(m, bytes.len() - 8).ok()?;
            }
            None => {
                for (j, b) in rest.iter().enumerate() {
                    if *b == b'/' {
                        take(0x80, at + j).ok()?;
                    }
                }
            }
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    // Regexes are full matches (anchored), not substring searches.
    #[test]
    fn regex_is_full_match_and_shared() {
        let mut pool = RegexPool::default();
        let a = pool.intern("/v[0-9]+").unwrap_or(u32::MAX);
        let b = pool.intern("/v[0-9]+").unwrap_or(u32::MAX - 1);
        assert_eq!(a, b);
        assert_eq!(pool.len(), 1);
        let vm = ValueMatch::Regex(a);
        assert!(vm.matches_str("/v12", &pool));
        assert!(!vm.matches_str("/v12/x", &pool));
        assert!(!vm.matches_str("x/v12", &pool));
        // alternation must not escape the anchors
        let alt = pool.intern("a|b").unwrap_or(u32::MAX);
        assert!(!ValueMatch::Regex(alt).matches_str("ab", &pool));
        assert!(ValueMatch::Regex(alt).matches_str("b", &pool));
    }

    #[test]
    fn grpc_path_split() {
        assert_eq!(split_grpc_path("/pkg.Svc/Get"), ("pkg.Svc", "Get"));
        assert_eq!(split_grpc_path("/pkg.Svc/Get/x"), ("", ""));
        assert_eq!(split_grpc_path("nope"), ("", ""));
    }

    /// The split as `str::split_once` and `contains` define it (what the SWAR search must
    /// answer).
    fn split_by_str(path: &str) -> (&str, &str) {
        let p = path.strip_prefix('/').unwrap_or("");
        match p.split_once('/') {
            Some((s, m)) if !m.contains('/') => (s, m),
            _ => ("", ""),
        }
    }

    // Every slash position, in words and tails of every length, and non-ASCII bytes around
    // them (a `/` byte never occurs inside a multi-byte character).
    #[test]
    fn grpc_path_split_agrees_with_the_str_split() {
        for n in 0..20 {
            for i in 0..=n {
                for j in i..=n {
                    let mut s: Vec<char> = vec!['a'; n];
                    if let Some(c) = s.get_mut(i) {
                        *c = '/';
                    }
                    if let Some(c) = s.get_mut(j) {
                        *c = if j == i { 'é' } else { '/' };
                    }
                    for head in ["/", "", "é/"] {
                        let path = format!("{head}{}", s.iter().collect::<String>());
                        assert_eq!(split_grpc_path(&path), split_by_str(&path), "{path:?}");
                        let slashes: Vec<usize> = path
                            .bytes()
                            .enumerate()
                            .filter(|(_, b)| *b == b'/')
                            .map(|(k, _)| k)
                            .collect();
                        let only = match slashes.as_slice() {
                            [k] => Some(*k),
                            _ => None,
                        };
                        assert_eq!(only_slash(path.as_bytes()), only, "{path:?}");
                    }
                }
            }
        }
    }
}
