//! Views (layer 7, a query): read-only access to the compiled table by frontend, as data
//! ([`RouteTable::view`](crate::RouteTable::view)): which Service port or Gateway listener a route set belongs to
//! ([`frontends`]), the view types ([`types`]), their rendering from the table's layout
//! ([`render`]), and the entries no request reaches ([`shadow`]).
//!
//! This is the one folder (beside the resolve path) that reads the table's internal layout
//! for chains and views: when the table's layout changes, `render.rs` changes with it.
//!
//! May use: every layer up to the table; never the build, updates or the façade.

mod frontends;
mod render;
mod shadow;
mod types;

pub use frontends::{Frontend, RouteSetKind};
pub use types::{
    ActionView, BackendView, BindingView, EntryView, ExcludedView, ExclusionView, FiltersView,
    HostView, MatchView, NameView, PathModifierView, PathView, RewriteView, RuleView, SetView,
    ValueView,
};
