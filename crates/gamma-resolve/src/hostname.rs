//! Hostname handling: request `Host` normalisation, wildcard matching, listener × route
//! intersection and the specificity keys used for precedence (Gateway API hostnames guide).
//!
//! Spec hostnames are lower-case by validation (Gateway API Hostname); request hosts are compared
//! ASCII-case-insensitively so that the resolve path never has to allocate a lower-cased copy.

use std::cmp::Ordering;

/// Longest hostname the Gateway API accepts (Gateway API Hostname). Longer request hosts can match
/// no configured hostname, only "no hostname".
pub const MAX_HOSTNAME_LEN: usize = 253;

/// Normalises a request `Host` header or `:authority` for matching (Gateway API Hostname and Host
/// header matching): strips any userinfo, the port (including around bracketed IPv6 literals) and
/// one trailing dot. Case is *not* changed; every comparison in this module ignores ASCII case.
///
/// ```
/// use gamma_resolve::hostname::normalize_host;
/// assert_eq!(normalize_host("Foo.Example.COM.:8080"), "Foo.Example.COM");
/// assert_eq!(normalize_host("[::1]:80"), "[::1]");
/// ```
pub fn normalize_host(host: &str) -> &str {
    let host = host.trim();
    // userinfo is not allowed in Host, but an :authority may carry it.
    let host = match host.rfind('@') {
        Some(at) => host.get(at + 1..).unwrap_or(""),
        None => host,
    };
    let host = if host.starts_with('[') {
        // IPv6 literal: keep the brackets, drop what follows the closing one.
        match host.find(']') {
            Some(end) => host.get(..=end).unwrap_or(host),
            None => host,
        }
    } else {
        match host.rfind(':') {
            // Only strip a numeric (or empty) port; anything else is left for matching to reject.
            Some(colon)
                if host
                    .get(colon + 1..)
                    .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit())) =>
            {
                host.get(..colon).unwrap_or(host)
            }
            _ => host,
        }
    };
    host.strip_suffix('.').unwrap_or(host)
}

/// True when `pattern` is a wildcard hostname (`*.example.com`).
pub fn is_wildcard(pattern: &str) -> bool {
    pattern.starts_with("*.")
}

/// Does a configured hostname (exact or `*.suffix`) match a normalised request host?
///
/// A wildcard covers **one or more** labels and never the apex (Gateway API hostname wildcards):
/// `*.example.com` matches `a.example.com` and `a.b.example.com`, not `example.com`.
pub fn matches(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix('*') {
        Some(dot_suffix) if dot_suffix.starts_with('.') => {
            host.len() > dot_suffix.len()
                && host
                    .get(host.len() - dot_suffix.len()..)
                    .is_some_and(|tail| tail.eq_ignore_ascii_case(dot_suffix))
                // the covered part must be a non-empty label sequence
                && !host.starts_with('.')
        }
        _ => pattern.eq_ignore_ascii_case(host),
    }
}

/// Intersection of a listener hostname and one route hostname (Gateway API hostname intersection),
/// or `None` when they do not intersect. `None` for either side means "unset" (matches anything);
/// the result of `intersect(None, None)` is `Some(None)`: the effective hostname is "any".
///
/// The result is always the more specific of the two inputs, so it borrows from them.
pub fn intersect<'a>(listener: Option<&'a str>, route: Option<&'a str>) -> Option<Option<&'a str>> {
    match (listener, route) {
        (None, r) => Some(r),
        (l, None) => Some(l),
        (Some(l), Some(r)) => {
            let (lw, rw) = (is_wildcard(l), is_wildcard(r));
            match (lw, rw) {
                (false, false) => l.eq_ignore_ascii_case(r).then_some(Some(r)),
                (true, false) => matches(l, r).then_some(Some(r)),
                (false, true) => matches(r, l).then_some(Some(l)),
                (true, true) => {
                    // `*.com` ∩ `*.example.com` = `*.example.com`: the longer suffix, if it
                    // is covered by the shorter one (or they are equal).
                    let (short, long) = if l.len() <= r.len() { (l, r) } else { (r, l) };
                    let long_suffix = long.get(1..).unwrap_or("");
                    let short_suffix = short.get(1..).unwrap_or("");
                    let covered = long_suffix.len() >= short_suffix.len()
                        && long_suffix
                            .get(long_suffix.len() - short_suffix.len()..)
                            .is_some_and(|t| t.eq_ignore_ascii_case(short_suffix));
                    covered.then_some(Some(long))
                }
            }
        }
    }
}

/// Route-precedence key for the hostname that matched (Gateway API HTTPRoute hostnames precedence;
/// Gateway API GRPCRouteRule.matches precedence, hostname): characters of a matching
/// **non-wildcard** hostname first, then characters of the matching hostname. Larger is more
/// specific. "No hostname" is `(0, 0)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct HostSpecificity {
    /// Characters of the matching hostname when it is not a wildcard, else 0.
    pub non_wildcard_chars: u16,
    /// Characters of the matching hostname.
    pub chars: u16,
}

impl HostSpecificity {
    /// The specificity as one number that orders as the pair does (non-wildcard characters
    /// above characters): the tier of a hostname group (`index::host::Tiers`).
    pub(crate) fn packed(self) -> u32 {
        (u32::from(self.non_wildcard_chars) << 16) | u32::from(self.chars)
    }

    /// Specificity of a configured hostname (`None` = no hostname).
    pub fn of(hostname: Option<&str>) -> Self {
        match hostname {
            None => Self::default(),
            Some(h) => {
                let chars = u16::try_from(h.len()).unwrap_or(u16::MAX);
                Self {
                    non_wildcard_chars: if is_wildcard(h) { 0 } else { chars },
                    chars,
                }
            }
        }
    }
}

/// Listener selection precedence (Gateway API listener selection): exact hostname, then wildcards
/// with the longest suffix (most labels right of `*`), then no hostname. Larger is preferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[allow(
    clippy::exhaustive_enums,
    reason = "the three kinds of listener hostname: none, a wildcard, an exact name"
)]
pub enum ListenerSpecificity {
    /// The listener has no hostname.
    Any,
    /// A wildcard listener; the payload is the number of characters after `*`.
    Wildcard(u16),
    /// An exact hostname.
    Exact,
}

impl ListenerSpecificity {
    /// Precedence of a listener hostname.
    pub fn of(hostname: Option<&str>) -> Self {
        match hostname {
            None => Self::Any,
            Some(h) if is_wildcard(h) => {
                Self::Wildcard(u16::try_from(h.len() - 1).unwrap_or(u16::MAX))
            }
            Some(_) => Self::Exact,
        }
    }
}

/// Compares two listener hostnames for a request that both match: `Greater` when `a` should
/// be selected over `b`.
pub fn compare_listeners(a: Option<&str>, b: Option<&str>) -> Ordering {
    ListenerSpecificity::of(a).cmp(&ListenerSpecificity::of(b))
}

/// Copies `host` into `buf` lower-cased, returning the copy, or `None` when it is too long
/// or not ASCII (then it can match no valid configured hostname). Used on the resolve path
/// to hash hosts without allocating.
pub fn lowercase_into<'b>(host: &str, buf: &'b mut [u8; MAX_HOSTNAME_LEN]) -> Option<&'b str> {
    if host.len() > MAX_HOSTNAME_LEN || !host.is_ascii() {
        return None;
    }
    let out = buf.get_mut(..host.len())?;
    for (o, b) in out.iter_mut().zip(host.bytes()) {
        *o = b.to_ascii_lowercase();
    }
    std::str::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Gateway API Hostname and Host header matching: ports are ignored, case and a trailing dot are
    // normalised.
    #[test]
    fn request_host_normalisation_strips_port_and_trailing_dot() {
        assert_eq!(normalize_host("example.com:8080"), "example.com");
        assert_eq!(normalize_host("example.com."), "example.com");
        assert_eq!(normalize_host("example.com.:443"), "example.com");
        assert_eq!(normalize_host("Example.COM"), "Example.COM");
        assert_eq!(normalize_host("[2001:db8::1]:80"), "[2001:db8::1]");
        assert_eq!(normalize_host("user@host:1"), "host");
        assert_eq!(normalize_host(""), "");
        assert_eq!(normalize_host("a:b"), "a:b");
    }

    // Gateway API hostname wildcards: a wildcard covers one or more labels, not the apex.
    #[test]
    fn wildcard_covers_one_or_more_labels_but_not_apex() {
        assert!(matches("*.example.com", "test.example.com"));
        assert!(matches("*.example.com", "foo.test.example.com"));
        assert!(!matches("*.example.com", "example.com"));
        assert!(!matches("*.example.com", ".example.com"));
        assert!(!matches("*.example.com", "xexample.com"));
        assert!(matches("*.com", "example.com"));
        assert!(matches("*.com", "www.example.com"));
        assert!(matches("*.example.com", "TEST.Example.com"));
        assert!(matches("www.example.com", "WWW.example.com"));
        assert!(!matches("www.example.com", "ww.example.com"));
    }

    // Gateway API hostname intersection: the intersection table of hostnames.md, row by row.
    #[test]
    fn listener_route_intersection_table() {
        type Row<'a> = (Option<&'a str>, Option<&'a str>, Option<Option<&'a str>>);
        let rows: [Row<'_>; 10] = [
            (
                Some("www.example.com"),
                Some("www.example.com"),
                Some(Some("www.example.com")),
            ),
            (
                Some("*.example.com"),
                Some("sub.domain.example.com"),
                Some(Some("sub.domain.example.com")),
            ),
            (
                Some("www.example.com"),
                Some("*.example.com"),
                Some(Some("www.example.com")),
            ),
            (
                Some("*.com"),
                Some("*.example.com"),
                Some(Some("*.example.com")),
            ),
            (
                Some("*.example.com"),
                Some("*.com"),
                Some(Some("*.example.com")),
            ),
            (None, Some("www.example.com"), Some(Some("www.example.com"))),
            (Some("*.example.com"), None, Some(Some("*.example.com"))),
            (None, None, Some(None)),
            (Some("*.example.com"), Some("test.example.net"), None),
            (Some("*.example.com"), Some("*.example.net"), None),
        ];
        for (l, r, want) in rows {
            assert_eq!(intersect(l, r), want, "listener {l:?} route {r:?}");
        }
        // apex is not covered by the listener wildcard
        assert_eq!(intersect(Some("*.example.com"), Some("example.com")), None);
        assert_eq!(intersect(Some("a.com"), Some("b.com")), None);
    }

    // Gateway API HTTPRoute hostnames precedence: non-wildcard characters first, then characters.
    #[test]
    fn hostname_specificity_prefers_exact_then_length() {
        let exact_short = HostSpecificity::of(Some("a.io"));
        let wild_long = HostSpecificity::of(Some("*.very-long-domain.example.com"));
        let none = HostSpecificity::of(None);
        assert!(exact_short > wild_long);
        assert!(wild_long > none);
        assert!(
            HostSpecificity::of(Some("*.foo.example.com"))
                > HostSpecificity::of(Some("*.example.com"))
        );
        assert_eq!(
            exact_short,
            HostSpecificity {
                non_wildcard_chars: 4,
                chars: 4
            }
        );
    }

    // Gateway API listener selection: exact > longer wildcard > shorter wildcard > none.
    #[test]
    fn listener_precedence_exact_then_longer_wildcard_then_none() {
        let mut ls = [
            None,
            Some("*.example.com"),
            Some("foo.example.com"),
            Some("*.foo.example.com"),
        ];
        ls.sort_by(|a, b| compare_listeners(*b, *a));
        assert_eq!(
            ls,
            [
                Some("foo.example.com"),
                Some("*.foo.example.com"),
                Some("*.example.com"),
                None
            ]
        );
    }

    #[test]
    fn lowercase_into_rejects_long_and_non_ascii() {
        let mut buf = [0u8; MAX_HOSTNAME_LEN];
        assert_eq!(lowercase_into("A.B", &mut buf), Some("a.b"));
        assert_eq!(lowercase_into(&"a".repeat(300), &mut buf), None);
        assert_eq!(lowercase_into("é.com", &mut buf), None);
    }
}
