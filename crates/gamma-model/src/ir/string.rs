//! [`IrString`]: the owned string of the converted routes, held inline when short.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use compact_str::CompactString;
use serde::{Serialize, Serializer};

/// An owned, immutable UTF-8 string that holds up to 24 bytes inline (on 64-bit targets)
/// and anything longer on the heap, as a `String` would.
///
/// Converting a route copies its paths, header names and values and backend names out of
/// the wire objects, and most of them are short (`/api`, `x-canary`, `reviews-v2`): held
/// inline, they cost no allocation to make, move, or free. An `IrString` is the same size as
/// a `String`, and reads as a `&str` (it dereferences to one; it compares, orders, hashes and
/// prints as its text does), so it can be looked up in a map keyed by `IrString` with a
/// `&str`.
///
/// ```
/// use gamma_model::ir::IrString;
///
/// let name = IrString::from("reviews-v2");
/// assert_eq!(name, "reviews-v2");
/// assert_eq!(name.len(), 10);
/// assert!(name.starts_with("reviews"));
/// assert_eq!(String::from(name), "reviews-v2");
/// ```
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct IrString(CompactString);

impl IrString {
    /// An empty string (no allocation).
    #[inline]
    pub const fn new() -> IrString {
        IrString(CompactString::const_new(""))
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The text as a `String` (a copy when held inline; the heap buffer otherwise).
    #[inline]
    pub fn into_string(self) -> String {
        self.0.into_string()
    }

    /// The ASCII lower-case form of `s` (what header names are compared as), made without an
    /// intermediate `String`.
    #[inline]
    pub fn ascii_lowercase(s: &str) -> IrString {
        let mut out = CompactString::new(s);
        out.make_ascii_lowercase();
        IrString(out)
    }
}

impl Deref for IrString {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for IrString {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for IrString {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

// Hashed as its text, so that `Borrow<str>` lookups find it.
impl Hash for IrString {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for IrString {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for IrString {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for IrString {
    #[inline]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl From<&str> for IrString {
    #[inline]
    fn from(s: &str) -> IrString {
        IrString(CompactString::new(s))
    }
}

impl From<&String> for IrString {
    #[inline]
    fn from(s: &String) -> IrString {
        IrString::from(s.as_str())
    }
}

/// Inline when short (the `String`'s buffer is freed); the buffer is kept otherwise.
impl From<String> for IrString {
    #[inline]
    fn from(s: String) -> IrString {
        IrString(CompactString::from(s))
    }
}

impl From<Cow<'_, str>> for IrString {
    #[inline]
    fn from(s: Cow<'_, str>) -> IrString {
        match s {
            Cow::Borrowed(s) => IrString::from(s),
            Cow::Owned(s) => IrString::from(s),
        }
    }
}

impl From<IrString> for String {
    #[inline]
    fn from(s: IrString) -> String {
        s.into_string()
    }
}

impl PartialEq<str> for IrString {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for IrString {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for IrString {
    #[inline]
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<IrString> for str {
    #[inline]
    fn eq(&self, other: &IrString) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<IrString> for &str {
    #[inline]
    fn eq(&self, other: &IrString) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<IrString> for String {
    #[inline]
    fn eq(&self, other: &IrString) -> bool {
        self.as_str() == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    // Every length from empty to well past the inline capacity reads back as written, and
    // compares, orders and hashes as its text.
    #[test]
    fn an_ir_string_reads_and_compares_as_its_text() {
        let texts: Vec<String> = (0..64).map(|n| "é/a".repeat(n)).collect();
        for (i, t) in texts.iter().enumerate() {
            let s = IrString::from(t.as_str());
            assert_eq!(s.as_str(), t);
            assert_eq!(s, IrString::from(t.clone()));
            assert_eq!(String::from(s.clone()), *t);
            assert_eq!(format!("{s:?}"), format!("{t:?}"));
            assert_eq!(s.to_string(), *t);
            for u in &texts[..i] {
                assert_eq!(
                    s.cmp(&IrString::from(u.as_str())),
                    t.as_str().cmp(u.as_str())
                );
            }
        }
        let map: HashMap<IrString, usize> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (IrString::from(t.as_str()), i))
            .collect();
        for (i, t) in texts.iter().enumerate() {
            assert_eq!(map.get(t.as_str()), Some(&i));
        }
    }

    #[test]
    fn ascii_lowercase_changes_only_ascii_letters() {
        assert_eq!(IrString::ascii_lowercase("X-Canary-É"), "x-canary-É");
        assert_eq!(IrString::new(), "");
    }
}
