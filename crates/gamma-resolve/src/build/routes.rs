//! The routes a build reads: its input's own, or lowered routes an update shares with the
//! table it was made from (`docs/incremental.md`, "Lowered routes kept"):
//! those are read in place, never copied. A build from a snapshot may also read some routes'
//! rules in place from the stored objects ([`super::read`]).

use std::sync::Arc;

use gamma_model::gateway::HttpRouteRule;

use super::read::RouteRead;
use crate::input::RouteIr;

/// The routes of a build, by input index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Routes<'i> {
    irs: Irs<'i>,
    /// Per input index, the wire rules of a route read in place (empty: none is).
    wire: &'i [Option<&'i [HttpRouteRule]>],
}

#[derive(Debug, Clone, Copy)]
enum Irs<'i> {
    /// [`crate::input::TableInput::routes`].
    Input(&'i [RouteIr]),
    /// Routes held by `Arc` (an update's scope, or a full build under
    /// `BuildOptions::keep_lowered_routes`: kept by earlier tables, or lowered now).
    Shared(&'i [Arc<RouteIr>]),
}

impl<'i> Routes<'i> {
    /// [`crate::input::TableInput::routes`], lowered whole.
    pub(crate) fn input(routes: &'i [RouteIr]) -> Self {
        Routes {
            irs: Irs::Input(routes),
            wire: &[],
        }
    }

    /// Lowered routes held by `Arc`, where `wire[i]`, when set, holds the rules of route `i`
    /// (lowered without them).
    pub(crate) fn shared(
        routes: &'i [Arc<RouteIr>],
        wire: &'i [Option<&'i [HttpRouteRule]>],
    ) -> Self {
        Routes {
            irs: Irs::Shared(routes),
            wire,
        }
    }

    /// `routes`, where `wire[i]`, when set, holds the rules of route `i` (lowered without
    /// them).
    pub(crate) fn reading(routes: &'i [RouteIr], wire: &'i [Option<&'i [HttpRouteRule]>]) -> Self {
        Routes {
            irs: Irs::Input(routes),
            wire,
        }
    }

    /// The lowered route at input index `i`, for its route-level fields (its rules may be
    /// read in place: [`Routes::get`] reads them).
    #[inline]
    pub(crate) fn ir(self, i: usize) -> Option<&'i RouteIr> {
        match self.irs {
            Irs::Input(r) => r.get(i),
            Irs::Shared(r) => r.get(i).map(|r| &**r),
        }
    }

    /// The route at input index `i`.
    #[inline]
    pub(crate) fn get(self, i: usize) -> Option<RouteRead<'i>> {
        let ir = self.ir(i)?;
        Some(match self.wire.get(i).copied().flatten() {
            Some(rules) => RouteRead::wire(ir, rules),
            None => RouteRead::lowered(ir),
        })
    }

    /// How many.
    pub(crate) fn len(self) -> usize {
        match self.irs {
            Irs::Input(r) => r.len(),
            Irs::Shared(r) => r.len(),
        }
    }

    /// In input order.
    pub(crate) fn iter(self) -> impl Iterator<Item = RouteRead<'i>> {
        (0..self.len()).filter_map(move |i| self.get(i))
    }

    /// The lowered routes in input order, for their route-level fields.
    pub(crate) fn irs(self) -> impl Iterator<Item = &'i RouteIr> {
        (0..self.len()).filter_map(move |i| self.ir(i))
    }
}
