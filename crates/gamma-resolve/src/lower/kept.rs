//! Lowered routes kept for later builds and updates ([`Lowered`]): a route whose stored
//! object is unchanged is not lowered again (`docs/incremental.md`, "Lowered routes kept").

use std::collections::HashMap;
use std::sync::Arc;

use gamma_model::AnyResource;
use gamma_model::validate::KindBundles;

use crate::hash::HashKeys;
use crate::input::RouteIr;

/// The lowered input of the routes one build read (each with the stored object it was lowered
/// from), kept in its [`Part`](crate::table::Part) for later updates and builds: a route whose object is still the
/// one in the snapshot (the same `Arc`: [`Snapshot::upsert`](gamma_model::Snapshot::upsert) makes a new one for every change)
/// is not lowered again. Lowering depends only on the object and the validation options,
/// which an update shares with the build of its table.
///
/// An update's part keeps its scope's routes; the full build's part keeps every route only
/// under [`BuildOptions::keep_lowered_routes`](crate::BuildOptions::keep_lowered_routes) (it would otherwise double the table's memory).
/// Immutable and shared with the part: a build reads the routes in place (`Routes::Shared` in the build)
/// and its part keeps those it reused by `Arc`, so no update copies another part's map. Any
/// number of updates from one table see the same routes; the table stays `Send + Sync` with
/// no lock.
///
/// Lowering reads the validation release and channel too: routes kept by a build for another
/// bundle ([`RouteTable::build_reusing`](crate::RouteTable::build_reusing) takes any earlier table) are never used.
#[derive(Debug, Default)]
pub(crate) struct Lowered {
    /// The release and channel of each kind the routes were validated against.
    bundle: KindBundles,
    /// By the identity of the stored object each was lowered from ([`identity`]). A
    /// route's [`ObjectKey`](gamma_model::ObjectKey) would do as well (an entry is used only
    /// while its object is the one the snapshot holds), but costs a copy of two strings per
    /// kept route, in memory and on every update that keeps its scope's routes; the address
    /// is one word.
    routes: Kept,
}

/// Up to this many kept routes (an update's scope, most often) are searched in a list: a
/// hash table for a handful cost more to make than the comparisons it saves.
const FEW: usize = 16;

/// The kept routes, by identity.
#[derive(Debug)]
enum Kept {
    /// Up to [`FEW`], searched in order.
    Few(Box<[KeptRoute]>),
    /// More, by [`identity`].
    Many(HashMap<usize, KeptRoute, HashKeys>),
}

impl Default for Kept {
    fn default() -> Self {
        Kept::Few(Box::default())
    }
}

impl Kept {
    fn get(&self, id: usize) -> Option<&KeptRoute> {
        match self {
            Kept::Few(routes) => routes.iter().find(|r| identity(&r.0) == id),
            Kept::Many(map) => map.get(&id),
        }
    }

    fn len(&self) -> usize {
        match self {
            Kept::Few(routes) => routes.len(),
            Kept::Many(map) => map.len(),
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[cfg(test)]
    fn values(&self) -> Box<dyn Iterator<Item = &KeptRoute> + '_> {
        match self {
            Kept::Few(routes) => Box::new(routes.iter()),
            Kept::Many(map) => Box::new(map.values()),
        }
    }
}

/// A kept lowered route: the stored object it was lowered from, its lowered form, and whether
/// builds read its rules in place from the object (the lowered form then holds none:
/// `lower::lower_for_reading`).
pub(crate) type KeptRoute = (Arc<AnyResource>, Arc<RouteIr>, bool);

/// The identity of a stored object: its address (inside its `Arc`; a `&AnyResource` borrowed
/// from that `Arc` has the same). Two stored objects alive at
/// once have the same identity only if they are the same object, and an entry of
/// [`Lowered`] keeps its object alive, so no other object can take its address while the
/// entry exists.
fn identity(object: &AnyResource) -> usize {
    std::ptr::from_ref(object) as usize
}

impl Lowered {
    /// The routes of one build: each stored object with its lowered form.
    /// `hash_seed`: [`crate::BuildOptions::hash_seed`]; `bundle`: the release and channel of
    /// each kind the routes were validated against.
    pub(crate) fn new(
        routes: impl IntoIterator<Item = KeptRoute>,
        hash_seed: u64,
        bundle: KindBundles,
    ) -> Self {
        let routes: Vec<KeptRoute> = routes.into_iter().collect();
        let routes = if routes.len() <= FEW {
            Kept::Few(routes.into_boxed_slice())
        } else {
            let mut map = HashMap::with_capacity_and_hasher(routes.len(), HashKeys::new(hash_seed));
            map.extend(routes.into_iter().map(|r| (identity(&r.0), r)));
            Kept::Many(map)
        };
        Lowered { bundle, routes }
    }

    /// How many routes are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.routes.len()
    }

    /// The kept entry of route `key` (current or stale).
    #[cfg(test)]
    pub(crate) fn entry(&self, key: &gamma_model::ObjectKey) -> Option<&KeptRoute> {
        self.routes
            .values()
            .find(|(o, _, _)| gamma_model::ObjectKey::of(o) == *key)
    }
}

/// The kept lowered form of `current` (the stored object the snapshot holds now) in `kept`
/// (the kept routes of a table's parts, oldest first), and whether its rules are read in
/// place. Only an entry lowered from `current` itself is taken: an entry for an older object
/// of the same route (stale) has another identity, and is never used.
pub(crate) fn kept_route<'p>(
    kept: &[&'p Lowered],
    bundle: &KindBundles,
    current: &Arc<AnyResource>,
) -> Option<(&'p Arc<RouteIr>, bool)> {
    kept_entry(kept.iter().copied(), bundle, current).map(|(_, ir, in_place)| (ir, *in_place))
}

/// The entry a part keeps of `object` itself (by [`identity`]) for `bundle`, searching `kept`
/// (a table's parts, oldest first) newest first.
fn kept_entry<'p>(
    kept: impl DoubleEndedIterator<Item = &'p Lowered>,
    bundle: &KindBundles,
    object: &AnyResource,
) -> Option<&'p KeptRoute> {
    let id = identity(object);
    kept.rev()
        .filter(|l| !l.routes.is_empty() && l.bundle == *bundle)
        .find_map(|l| l.routes.get(id))
}

/// Whether `object` was valid, from the lowered form a part keeps of that very object (its
/// identity: the address `object` is at), searching `kept` (a table's parts, oldest first)
/// newest first; `None` when no part keeps it for `bundle`.
pub(crate) fn kept_verdict<'p>(
    kept: impl DoubleEndedIterator<Item = &'p Lowered>,
    bundle: &KindBundles,
    object: &AnyResource,
) -> Option<bool> {
    kept_entry(kept, bundle, object).map(|(_, ir, _)| ir.invalid.is_none())
}
