//! How [`crate::Decisions`] stores a route's verdicts: one [`VerdictId`] per parentRef into the
//! decision's table of distinct verdicts ([`IdList`], inline for the common single-parent
//! route), read through the [`RouteVerdicts`] view. A full decision over 50,000 routes spent
//! most of its remaining time allocating a `Vec<Verdict>` per route and cloning and dropping
//! each verdict's shared parts; ids need neither.

use std::fmt;

use serde::Serialize;
use serde::ser::SerializeStruct;

use crate::decision::{Verdict, VerdictId};

/// The ids of one route's verdicts, in parentRef order. One id is stored inline.
#[derive(Debug, Clone)]
pub(crate) enum IdList {
    One(VerdictId),
    /// Zero, or two and more.
    Many(Vec<VerdictId>),
}

impl IdList {
    pub(crate) fn as_slice(&self) -> &[VerdictId] {
        match self {
            IdList::One(id) => std::slice::from_ref(id),
            IdList::Many(v) => v,
        }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [VerdictId] {
        match self {
            IdList::One(id) => std::slice::from_mut(id),
            IdList::Many(v) => v,
        }
    }

    pub(crate) fn push(&mut self, id: VerdictId) {
        match self {
            IdList::Many(v) if v.is_empty() => *self = IdList::One(id),
            IdList::Many(v) => v.push(id),
            IdList::One(first) => *self = IdList::Many(vec![*first, id]),
        }
    }

    pub(crate) fn truncate(&mut self, len: usize) {
        match self {
            IdList::One(_) if len == 0 => *self = IdList::Many(Vec::new()),
            IdList::One(_) => {}
            IdList::Many(v) => v.truncate(len),
        }
    }
}

impl FromIterator<VerdictId> for IdList {
    fn from_iter<I: IntoIterator<Item = VerdictId>>(iter: I) -> Self {
        let mut list = IdList::Many(Vec::new());
        for id in iter {
            list.push(id);
        }
        list
    }
}

/// The verdicts of one route, one per `spec.parentRefs` entry in order, as stored in a
/// [`crate::Decisions`] (a cheap view: copy it freely). Serializes as
/// `{"generation": …, "verdicts": […]}`.
#[derive(Clone, Copy)]
pub struct RouteVerdicts<'a> {
    generation: i64,
    ids: &'a [VerdictId],
    table: &'a [Verdict],
}

impl<'a> RouteVerdicts<'a> {
    pub(crate) fn new(generation: i64, ids: &'a [VerdictId], table: &'a [Verdict]) -> Self {
        RouteVerdicts {
            generation,
            ids,
            table,
        }
    }

    /// The route's `metadata.generation` when decided.
    pub fn generation(&self) -> i64 {
        self.generation
    }

    /// How many parentRefs (verdicts).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the route has no parentRefs.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The verdict for parentRef `index`.
    pub fn get(&self, index: usize) -> Option<&'a Verdict> {
        let table = self.table;
        self.ids.get(index).and_then(|id| table.get(id.index()))
    }

    /// The verdicts in parentRef order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a Verdict> + use<'a> {
        let table = self.table;
        // Every id of a decision is in its table; `filter_map` would break ExactSizeIterator.
        self.ids
            .iter()
            .map(move |id| table.get(id.index()).unwrap_or(&Verdict::NotApplicable))
    }

    /// The verdicts, cloned, in parentRef order.
    pub fn to_vec(&self) -> Vec<Verdict> {
        self.iter().cloned().collect()
    }
}

impl PartialEq for RouteVerdicts<'_> {
    /// Equal when the generations and the verdicts (not their ids) are.
    fn eq(&self, other: &Self) -> bool {
        self.generation == other.generation && self.iter().eq(other.iter())
    }
}

impl Eq for RouteVerdicts<'_> {}

impl fmt::Debug for RouteVerdicts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RouteVerdicts")
            .field("generation", &self.generation)
            .field("verdicts", &self.to_vec())
            .finish()
    }
}

impl Serialize for RouteVerdicts<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("RouteVerdicts", 2)?;
        st.serialize_field("generation", &self.generation)?;
        st.serialize_field("verdicts", &self.to_vec())?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_list_push_and_truncate_behave_like_a_vec_across_the_inline_boundary() {
        let ids = [VerdictId::at(3), VerdictId::at(1), VerdictId::at(4)];
        for n in 0..=ids.len() {
            let mut list = IdList::Many(Vec::new());
            for id in ids.iter().take(n) {
                list.push(*id);
            }
            assert_eq!(list.as_slice(), &ids[..n]);
            assert_eq!(
                ids[..n].iter().copied().collect::<IdList>().as_slice(),
                &ids[..n]
            );
            for len in 0..=n {
                let mut t = list.clone();
                t.truncate(len);
                assert_eq!(t.as_slice(), &ids[..len]);
            }
        }
    }

    #[test]
    fn view_reads_through_the_table_and_serializes_as_a_list() {
        let table = [Verdict::Unclaimed, Verdict::NotApplicable];
        let ids = [VerdictId::at(1), VerdictId::at(0), VerdictId::at(1)];
        let v = RouteVerdicts::new(7, &ids, &table);
        assert_eq!(v.len(), 3);
        assert_eq!(v.get(1), Some(&Verdict::Unclaimed));
        assert_eq!(v.get(3), None);
        let json = serde_json::to_value(v).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"generation": 7, "verdicts": [
                {"verdict": "notApplicable"}, {"verdict": "unclaimed"}, {"verdict": "notApplicable"}
            ]})
        );
        // Equal by value, whatever the ids.
        let table2 = [Verdict::NotApplicable, Verdict::Unclaimed];
        let ids2 = [VerdictId::at(0), VerdictId::at(1), VerdictId::at(0)];
        assert_eq!(v, RouteVerdicts::new(7, &ids2, &table2));
        assert_ne!(v, RouteVerdicts::new(8, &ids2, &table2));
    }
}
