//! The routes a build reads: its input's own, or lowered routes an update shares with the
//! table it was made from (`docs/incremental.md`, "Lowered routes kept"):
//! those are read in place, never copied.

use std::sync::Arc;

use crate::input::RouteIr;

/// The routes of a build, by input index.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Routes<'i> {
    /// [`crate::input::TableInput::routes`].
    Input(&'i [RouteIr]),
    /// Routes held by `Arc` (an update's scope, or a full build under
    /// `BuildOptions::keep_lowered_routes`: kept by earlier tables, or lowered now).
    Shared(&'i [Arc<RouteIr>]),
}

impl<'i> Routes<'i> {
    /// The route at input index `i`.
    #[inline]
    pub(crate) fn get(self, i: usize) -> Option<&'i RouteIr> {
        match self {
            Routes::Input(r) => r.get(i),
            Routes::Shared(r) => r.get(i).map(|r| &**r),
        }
    }

    /// How many.
    pub(crate) fn len(self) -> usize {
        match self {
            Routes::Input(r) => r.len(),
            Routes::Shared(r) => r.len(),
        }
    }

    /// In input order.
    pub(crate) fn iter(self) -> impl Iterator<Item = &'i RouteIr> {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}
