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

impl HeaderLookup for [(&str, &str)] {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        self.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
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
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
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
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
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
