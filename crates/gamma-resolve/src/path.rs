//! Path matching (Gateway API HTTPPathMatch): `Exact` and segment-boundary `PathPrefix`, plus
//! splitting a request target into path and query and reading query parameters (Gateway API
//! HTTPQueryParamMatch).
//!
//! Paths are compared as received, byte for byte: no percent-decoding and no dot-segment
//! removal. A caller that wants normalisation does it before resolving (the spec leaves it to
//! the implementation; doing it here would force an allocation per request).

/// Splits a request target (`/p?q#f`) into its path and optional query. A fragment is
/// dropped. An empty path is returned as `"/"` would be by an HTTP stack only if the
/// caller sends it; here it stays empty and matches only `PathPrefix /`.
///
/// ```
/// use gamma_resolve::path::split_path_query;
/// assert_eq!(split_path_query("/a/b?x=1&y=2#top"), ("/a/b", Some("x=1&y=2")));
/// assert_eq!(split_path_query("/a"), ("/a", None));
/// ```
pub fn split_path_query(target: &str) -> (&str, Option<&str>) {
    let bytes = target.as_bytes();
    let Some(i) = query_or_fragment(bytes) else {
        return (target, None);
    };
    let path = target.get(..i).unwrap_or(target);
    if bytes.get(i) == Some(&b'#') {
        return (path, None);
    }
    let rest = target.get(i + 1..).unwrap_or("");
    let query = match rest.as_bytes().iter().position(|b| *b == b'#') {
        Some(j) => rest.get(..j).unwrap_or(rest),
        None => rest,
    };
    (path, Some(query))
}

/// Index of the first `?` or `#`: one pass, 8 bytes per step (SWAR: a byte equal to the
/// needle becomes a zero byte, and the lowest flagged zero byte is exact), the tail as one
/// overlapping word. On the resolve path a byte loop cost ~7 instructions per path byte.
fn query_or_fragment(bytes: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    let mask = |x: u64| zero(x ^ (LO * u64::from(b'?'))) | zero(x ^ (LO * u64::from(b'#')));
    let mut at = 0usize;
    let mut rest = bytes;
    while let Some((w, tail)) = rest.split_first_chunk::<8>() {
        let m = mask(u64::from_le_bytes(*w));
        if m != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        at += 8;
        rest = tail;
    }
    if rest.is_empty() {
        return None;
    }
    match bytes.last_chunk::<8>() {
        Some(w) => {
            // the last 8 bytes overlap bytes already searched: ignore those
            let seen = 8 - rest.len();
            let m = mask(u64::from_le_bytes(*w)) & (u64::MAX << (8 * seen));
            (m != 0).then(|| bytes.len() - 8 + (m.trailing_zeros() / 8) as usize)
        }
        None => rest
            .iter()
            .position(|b| *b == b'?' || *b == b'#')
            .map(|j| at + j),
    }
}

/// The `PathPrefix` value with its trailing slashes removed: the form that is compared on
/// segment boundaries (Gateway API HTTPPathMatch: "a trailing `/` in the configured value is
/// ignored"). `/` normalises to the empty string, which matches every path.
pub fn normalize_prefix(prefix: &str) -> &str {
    prefix.trim_end_matches('/')
}

/// `Exact` path match: whole path, case-sensitive, trailing slash significant (Gateway API
/// HTTPPathMatch).
pub fn exact_matches(configured: &str, path: &str) -> bool {
    configured == path
}

/// `PathPrefix` match on path-element boundaries (Gateway API HTTPPathMatch): `/abc` matches
/// `/abc`, `/abc/` and `/abc/def` but not `/abcd`; a trailing `/` in `prefix` is ignored.
///
/// ```
/// use gamma_resolve::path::prefix_matches;
/// assert!(prefix_matches("/abc/", "/abc"));
/// assert!(!prefix_matches("/abc", "/abcd"));
/// ```
pub fn prefix_matches(prefix: &str, path: &str) -> bool {
    let p = normalize_prefix(prefix);
    match path.strip_prefix(p) {
        Some(rest) => rest.is_empty() || rest.starts_with('/'),
        None => false,
    }
}

/// Iterates over the segment-boundary prefixes of `path`, longest first, as normalised
/// prefixes (no trailing slash): for `/a/b/` it yields `/a/b`, `/a`, `` (the root).
/// This is the order in which a prefix index is probed.
pub fn boundary_prefixes(path: &str) -> impl Iterator<Item = &str> {
    let trimmed = path.trim_end_matches('/');
    let mut end = Some(trimmed.len());
    std::iter::from_fn(move || {
        let e = end?;
        let cur = trimmed.get(..e)?;
        end = if e == 0 {
            None
        } else {
            Some(cur.rfind('/').unwrap_or(0))
        };
        Some(cur)
    })
}

/// First value of the query parameter `name` (exact, case-sensitive name; Gateway API
/// HTTPQueryParamMatch recommends the first value of repeated parameters). Values are returned raw
/// (not decoded); a parameter without `=` has the empty value.
///
/// ```
/// use gamma_resolve::path::query_param;
/// assert_eq!(query_param("a=1&b=2&a=3", "a"), Some("1"));
/// assert_eq!(query_param("flag&b=2", "flag"), Some(""));
/// assert_eq!(query_param("A=1", "a"), None);
/// ```
pub fn query_param<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then_some(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Gateway API HTTPPathMatch: Exact is whole-path and trailing-slash significant.
    #[test]
    fn exact_path_is_case_and_trailing_slash_sensitive() {
        assert!(exact_matches("/abc", "/abc"));
        assert!(!exact_matches("/abc", "/abc/"));
        assert!(!exact_matches("/abc", "/Abc"));
        assert!(!exact_matches("/abc", "/abcd"));
    }

    // Gateway API HTTPPathMatch and conformance httproute-matching.go: prefix on segment
    // boundaries.
    #[test]
    fn path_prefix_matches_on_segment_boundaries() {
        for (prefix, path, want) in [
            ("/abc", "/abc", true),
            ("/abc", "/abc/", true),
            ("/abc", "/abc/def", true),
            ("/abc", "/abcd", false),
            ("/abc/", "/abc", true),
            ("/abc/", "/abcd", false),
            ("/v2", "/v2example", false),
            ("/v2", "/foo/v2/example", false),
            ("/", "/anything", true),
            ("/", "/", true),
            ("/", "", true),
            ("/abc", "/ABC", false),
            ("/a/b", "/a", false),
        ] {
            assert_eq!(prefix_matches(prefix, path), want, "{prefix} vs {path}");
        }
    }

    #[test]
    fn boundary_prefixes_longest_first() {
        let got: Vec<&str> = boundary_prefixes("/a/b/c").collect();
        assert_eq!(got, ["/a/b/c", "/a/b", "/a", ""]);
        let got: Vec<&str> = boundary_prefixes("/a/b/").collect();
        assert_eq!(got, ["/a/b", "/a", ""]);
        let got: Vec<&str> = boundary_prefixes("/").collect();
        assert_eq!(got, [""]);
        let got: Vec<&str> = boundary_prefixes("").collect();
        assert_eq!(got, [""]);
        // every yielded prefix really matches as a PathPrefix
        for p in boundary_prefixes("/x//y/z") {
            assert!(
                prefix_matches(if p.is_empty() { "/" } else { p }, "/x//y/z"),
                "{p}"
            );
        }
    }

    #[test]
    fn split_drops_fragment_and_keeps_empty_query() {
        assert_eq!(split_path_query("/a?"), ("/a", Some("")));
        assert_eq!(split_path_query("/a#x?y"), ("/a", None));
        assert_eq!(split_path_query("/a?b?c"), ("/a", Some("b?c")));
    }

    // Gateway API HTTPQueryParamMatch: first value wins, names are case-sensitive.
    #[test]
    fn query_param_first_value_case_sensitive_name() {
        assert_eq!(query_param("x=1&x=2", "x"), Some("1"));
        assert_eq!(query_param("", "x"), None);
        assert_eq!(query_param("xy=1", "x"), None);
        assert_eq!(query_param("x==1", "x"), Some("=1"));
    }

    // The word-at-a-time search finds the same first `?`/`#` as a byte loop, at every
    // position and length (full words, overlapping tail, short targets, bytes >= 0x80).
    #[test]
    fn query_or_fragment_agrees_with_a_byte_loop() {
        let naive = |b: &[u8]| b.iter().position(|c| *c == b'?' || *c == b'#');
        for len in 0..40usize {
            for pos in 0..=len {
                for needle in [b'?', b'#'] {
                    let mut v: Vec<u8> = (0..len).map(|i| b"/ab\xff>@xy"[i % 8]).collect();
                    if let Some(c) = v.get_mut(pos) {
                        *c = needle;
                    }
                    assert_eq!(query_or_fragment(&v), naive(&v), "len {len} pos {pos}");
                    // a second needle later does not change the answer
                    if pos + 3 < len {
                        v[pos + 3] = b'?';
                        assert_eq!(query_or_fragment(&v), naive(&v), "len {len} pos {pos}");
                    }
                }
            }
        }
    }
}
