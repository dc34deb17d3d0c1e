//! Request header access for matching (Gateway API HTTPHeaderMatch).
//!
//! Names are compared ASCII-case-insensitively (RFC 7230 §3.2). Values are bytes: a header
//! value need not be UTF-8, and such a value can still match an `Exact` header match byte for
//! byte (it never matches a regular expression).
//!
//! **Repeated headers: first wins.** The spec leaves the representation of repeated request
//! headers to the implementation and points at RFC 7230 §3.2.2 (combine with commas). This
//! crate matches against the **first** value of a repeated header instead, because combining
//! would allocate on every request, and because it is the behaviour the spec recommends for
//! repeated query parameters (Gateway API HTTPQueryParamMatch). An embedder that wants RFC 7230
//! combining implements [`HeaderLookup`] over its own pre-combined map.

/// Case-insensitive, first-value-wins header lookup.
pub trait HeaderLookup {
    /// The first value of the header `name` (compared ASCII-case-insensitively), if present.
    fn first_value(&self, name: &str) -> Option<&[u8]>;
}

impl<T: HeaderLookup + ?Sized> HeaderLookup for &T {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        (**self).first_value(name)
    }
}

/// Whether two header names are equal ASCII-case-insensitively (`str::eq_ignore_ascii_case`),
/// compared 8 bytes at a time: the byte-by-byte compare cost ~180 instructions a header
/// condition on the resolve path (callgrind), most of it folding each byte's case.
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let word = |w: &[u8; 8]| fold(u64::from_le_bytes(*w));
    let (mut ra, mut rb) = (a, b);
    while let (Some((wa, ta)), Some((wb, tb))) =
        (ra.split_first_chunk::<8>(), rb.split_first_chunk::<8>())
    {
        if word(wa) != word(wb) {
            return false;
        }
        (ra, rb) = (ta, tb);
    }
    if ra.is_empty() {
        return true;
    }
    match (a.last_chunk::<8>(), b.last_chunk::<8>()) {
        // the last 8 bytes of each (equal lengths): bytes compared again compare equal again
        (Some(wa), Some(wb)) => word(wa) == word(wb),
        _ => ra.eq_ignore_ascii_case(rb),
    }
}

/// `w` with each ASCII upper-case letter byte lower-cased (`u8::to_ascii_lowercase` per
/// byte; other bytes, non-ASCII included, unchanged). Each byte's low seven bits plus a
/// constant stays under 0x100, so no carry crosses bytes.
#[inline]
fn fold(w: u64) -> u64 {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let low7 = w & !HI;
    // high bit set where the low seven bits are at least `A`, and where they pass `Z`
    let from_a = low7 + LO * u64::from(0x80 - b'A');
    let past_z = low7 + LO * u64::from(0x80 - b'Z' - 1);
    let upper = from_a & !past_z & !w & HI;
    // 0x80 >> 2 is 0x20, the case bit
    w | (upper >> 2)
}

impl HeaderLookup for [(&str, &str)] {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        self.iter()
            .find(|(k, _)| same_name(k, name))
            .map(|(_, v)| v.as_bytes())
    }
}

impl<const N: usize> HeaderLookup for [(&str, &str); N] {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        self.as_slice().first_value(name)
    }
}

impl HeaderLookup for [(String, String)] {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        self.iter()
            .find(|(k, _)| same_name(k, name))
            .map(|(_, v)| v.as_bytes())
    }
}

impl HeaderLookup for Vec<(String, String)> {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        self.as_slice().first_value(name)
    }
}

impl HeaderLookup for [(String, Vec<u8>)] {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        self.iter()
            .find(|(k, _)| same_name(k, name))
            .map(|(_, v)| v.as_slice())
    }
}

impl HeaderLookup for Vec<(String, Vec<u8>)> {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        self.as_slice().first_value(name)
    }
}

/// No headers at all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoHeaders;

impl HeaderLookup for NoHeaders {
    fn first_value(&self, _name: &str) -> Option<&[u8]> {
        None
    }
}

#[cfg(feature = "http")]
impl HeaderLookup for http::HeaderMap {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        // HeaderMap stores names lower-cased and `get` with a `&str` parses it
        // case-insensitively; invalid names simply find nothing.
        self.get(name).map(http::HeaderValue::as_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Gateway API HTTPHeaderMatch: header names are case-insensitive; first entry wins for repeats.
    #[test]
    fn header_names_case_insensitive_first_value_wins() {
        let h = [("X-Version", "one"), ("x-version", "two"), ("Other", "x")];
        assert_eq!(h.first_value("x-VERSION"), Some(&b"one"[..]));
        assert_eq!(h.first_value("missing"), None);
        let v: Vec<(String, String)> = vec![("A".into(), "1".into()), ("a".into(), "2".into())];
        assert_eq!(v.first_value("a"), Some(&b"1"[..]));
        let raw: Vec<(String, Vec<u8>)> = vec![("bin".into(), vec![0xff, 0xfe])];
        assert_eq!(raw.first_value("BIN"), Some(&[0xffu8, 0xfe][..]));
        assert_eq!(NoHeaders.first_value("a"), None);
    }

    // The word-wise compare answers as `str::eq_ignore_ascii_case`: every byte value against
    // its case variants and neighbours, at every position of names of every length up to
    // three words, non-ASCII bytes included.
    #[test]
    fn same_name_agrees_with_eq_ignore_ascii_case() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        for len in 0..=24usize {
            for pos in [0, len / 2, len.saturating_sub(1)] {
                for &x in &bytes {
                    for y in [x, x ^ 0x20, x.wrapping_add(1), x ^ 0x80, b'a', b'A'] {
                        let mut a = vec![b'k'; len];
                        let mut b = vec![b'K'; len];
                        if let (Some(p), Some(q)) = (a.get_mut(pos), b.get_mut(pos)) {
                            (*p, *q) = (x, y);
                        }
                        let (sa, sb) = (String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
                        assert_eq!(
                            same_name(&sa, &sb),
                            sa.eq_ignore_ascii_case(&sb),
                            "{sa:?} {sb:?}"
                        );
                    }
                }
            }
        }
        assert!(!same_name("x-tenant", "x-tenan"));
        assert!(same_name("X-Tenant-Id-Long", "x-tenant-id-LONG"));
    }

    #[test]
    fn fold_lowers_exactly_the_ascii_capitals() {
        for x in 0..=255u8 {
            let w = u64::from_le_bytes([x, b'Q', x, 0, 0xff, x, b'@', b'[']);
            let want = u64::from_le_bytes(
                [x, b'Q', x, 0, 0xff, x, b'@', b'['].map(|b| b.to_ascii_lowercase()),
            );
            assert_eq!(fold(w), want, "{x:#x}");
        }
    }

    #[cfg(feature = "http")]
    #[test]
    fn http_header_map_lookup_is_case_insensitive_first_wins() {
        let mut m = http::HeaderMap::new();
        m.append("x-a", http::HeaderValue::from_static("1"));
        m.append("x-a", http::HeaderValue::from_static("2"));
        assert_eq!(m.first_value("X-A"), Some(&b"1"[..]));
        assert_eq!(m.first_value("bad name"), None);
    }
}
