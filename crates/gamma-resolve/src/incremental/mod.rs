//! Incremental updates (layer 8) of a [`RouteTable`](crate::RouteTable): after one object
//! changed in the snapshot, rebuild only the frontends (Service ports, Gateway listeners) and
//! routes it affects, and share everything else with the previous table. The design is in
//! `docs/incremental.md`.
//!
//! An update finds a *scope*: the Services and Gateways whose frontends it rebuilds and the
//! routes it lowers again, closed so that every route in it has all of its parents in it and
//! every frontend in it has all of its routes in it (and every frontend bound at one of its
//! addresses). The scope is lowered and built by the same
//! [`Builder`](crate::build::Builder) as a full build, into a new
//! [`Part`](crate::table::Part); its bindings replace the scope's old ones, and its route
//! conditions replace the older parts' conditions of the same routes. A change whose effect
//! this module cannot bound rebuilds the whole table.
//!
//! Files: `update.rs` runs an update (the table methods), `scope.rs` finds and closes its
//! scope, `input.rs` lowers the scope's input, reusing kept routes, `probe.rs` looks objects up
//! by borrowed names, `unseen.rs` recognises route changes no table reads (status, labels).
//!
//! May use: every layer below (the table, its build and lowering); only the façade uses it.

mod input;
mod probe;
mod scope;
#[cfg(test)]
mod tests;
mod unseen;
mod update;

use std::sync::Arc;

use crate::table::{NameKeys, Scope};

/// At most this many parts: past it, an update first merges the parts of earlier updates
/// into one (rebuilding their scopes together), so a table never holds more.
pub(super) const MAX_PARTS: usize = 16;

/// Without [`BuildOptions::keep_lowered_routes`](crate::BuildOptions::keep_lowered_routes), an update's part keeps the lowered routes of
/// its scope only up to this many ([`Lowered`](crate::lower::Lowered)): a change with a larger scope is rare, and its
/// routes would weigh more than relowering them costs.
pub(super) const MAX_LOWERED: usize = 1024;

/// Replaces, in a shared status vector kept in (namespace, name) order, the entries of the
/// objects a scope rebuilt (`rebuilt`) with the new ones (`built`); copies the vector only when
/// there is something to replace (`Arc::make_mut`).
pub(super) fn replace_entries<T: Clone>(
    shared: &mut Arc<Vec<T>>,
    rebuilt: &NameKeys,
    built: Vec<T>,
    name: impl Fn(&T) -> (&str, &str),
) {
    if rebuilt.is_empty() && built.is_empty() {
        return;
    }
    let entries = Arc::make_mut(shared);
    entries.retain(|e| {
        let (ns, n) = name(e);
        !rebuilt.contains_name(ns, n)
    });
    entries.extend(built);
    entries.sort_by(|a, b| name(a).cmp(&name(b)));
}

/// What one change does to the table.
pub(super) enum Effect {
    /// Nothing the table reads.
    Nothing,
    /// More than an update can bound: rebuild the whole table.
    Full,
    /// Rebuild from these seeds (closed by [`close`](scope::close); nothing when empty), after rebinding
    /// the endpoints of these headless Services ([`crate::MeshBinding::Workloads`]).
    Seeds(Scope, Vec<(String, String)>),
}
