//! [`Verdicts`]: the verdicts of one route, one per parentRef. Almost every route has a single
//! parent; storing that one inline (instead of in a `Vec`) saves an allocation and a free per
//! route, which in a full decision over 50,000 routes was the largest single cost left.

use std::fmt;
use std::ops::{Deref, DerefMut};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::decision::Verdict;

/// One verdict per `spec.parentRefs` entry of a route, in order. Dereferences to
/// `[Verdict]`; serializes as a list. A single verdict is stored inline (no allocation).
///
/// ```
/// use gamma_arbiter::{Verdict, Verdicts};
///
/// let mut v = Verdicts::new();
/// v.push(Verdict::Unclaimed);
/// v.push(Verdict::NotApplicable);
/// assert_eq!(v.len(), 2);
/// assert_eq!(v[1], Verdict::NotApplicable);
/// assert_eq!(v, [Verdict::Unclaimed, Verdict::NotApplicable].into_iter().collect());
/// ```
#[derive(Clone, Default)]
pub struct Verdicts(Repr);

#[derive(Clone)]
enum Repr {
    One(Verdict),
    /// Zero, or two and more.
    Many(Vec<Verdict>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Many(Vec::new())
    }
}

impl Verdicts {
    /// No verdicts.
    pub fn new() -> Self {
        Verdicts(Repr::Many(Vec::new()))
    }

    /// A single verdict (no allocation).
    pub fn one(verdict: Verdict) -> Self {
        Verdicts(Repr::One(verdict))
    }

    /// Appends a verdict.
    pub fn push(&mut self, verdict: Verdict) {
        match &mut self.0 {
            Repr::Many(v) if v.is_empty() => self.0 = Repr::One(verdict),
            Repr::Many(v) => v.push(verdict),
            Repr::One(_) => {
                let Repr::One(first) = std::mem::take(&mut self.0) else {
                    return;
                };
                self.0 = Repr::Many(vec![first, verdict]);
            }
        }
    }

    /// Keeps the first `len` verdicts.
    pub fn truncate(&mut self, len: usize) {
        match &mut self.0 {
            Repr::One(_) if len == 0 => self.0 = Repr::Many(Vec::new()),
            Repr::One(_) => {}
            Repr::Many(v) => v.truncate(len),
        }
    }

    /// The verdicts as a `Vec`.
    pub fn into_vec(self) -> Vec<Verdict> {
        match self.0 {
            Repr::One(v) => vec![v],
            Repr::Many(v) => v,
        }
    }
}

impl Deref for Verdicts {
    type Target = [Verdict];
    fn deref(&self) -> &[Verdict] {
        match &self.0 {
            Repr::One(v) => std::slice::from_ref(v),
            Repr::Many(v) => v,
        }
    }
}

impl DerefMut for Verdicts {
    fn deref_mut(&mut self) -> &mut [Verdict] {
        match &mut self.0 {
            Repr::One(v) => std::slice::from_mut(v),
            Repr::Many(v) => v,
        }
    }
}

impl PartialEq for Verdicts {
    /// Equal when the lists are (however they are stored).
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Verdicts {}

impl fmt::Debug for Verdicts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl FromIterator<Verdict> for Verdicts {
    fn from_iter<I: IntoIterator<Item = Verdict>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        let Some(first) = iter.next() else {
            return Verdicts::new();
        };
        let Some(second) = iter.next() else {
            return Verdicts::one(first);
        };
        let mut v = Vec::with_capacity(2 + iter.size_hint().0);
        v.push(first);
        v.push(second);
        v.extend(iter);
        Verdicts(Repr::Many(v))
    }
}

impl From<Vec<Verdict>> for Verdicts {
    fn from(v: Vec<Verdict>) -> Self {
        if v.len() == 1 {
            v.into_iter().collect()
        } else {
            Verdicts(Repr::Many(v))
        }
    }
}

impl From<Verdicts> for Vec<Verdict> {
    fn from(v: Verdicts) -> Self {
        v.into_vec()
    }
}

impl<'a> IntoIterator for &'a Verdicts {
    type Item = &'a Verdict;
    type IntoIter = std::slice::Iter<'a, Verdict>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl Serialize for Verdicts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Verdicts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<Verdict>::deserialize(d)?.into())
    }
}

impl JsonSchema for Verdicts {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Verdicts".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Vec::<Verdict>::json_schema(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_and_truncate_behave_like_a_vec_across_the_inline_boundary() {
        let items = [
            Verdict::Unclaimed,
            Verdict::NotApplicable,
            Verdict::Unclaimed,
        ];
        for n in 0..=items.len() {
            let mut v = Verdicts::new();
            let mut reference = Vec::new();
            for it in items.iter().take(n) {
                v.push(it.clone());
                reference.push(it.clone());
                assert_eq!(&*v, &reference[..]);
            }
            for len in (0..=n).rev() {
                let mut t = v.clone();
                t.truncate(len);
                let mut r = reference.clone();
                r.truncate(len);
                assert_eq!(&*t, &r[..]);
                assert_eq!(t, Verdicts::from(r));
            }
        }
    }

    #[test]
    fn serializes_as_a_plain_list() {
        let v = Verdicts::one(Verdict::Unclaimed);
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(
            json,
            serde_json::to_value(vec![Verdict::Unclaimed]).unwrap()
        );
        let back: Verdicts = serde_json::from_value(json).unwrap();
        assert_eq!(back, v);
    }
}
