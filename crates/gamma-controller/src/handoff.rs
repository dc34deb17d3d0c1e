//! Make-before-break (docs/status-protocol.md, "Make-before-break handoff") as status: the
//! rule the [`crate::Reconciler`] applies to the status it writes, and the directives of one
//! reading of stored objects (`gammactl status` on files), which has no memory of earlier
//! reconciles and so reads what `me` programmed from `me`'s entries in the stored status.

use std::collections::BTreeMap;

use gamma_arbiter::{Decisions, DesiredStatus, Directive, Handoff, Identity, PairKey};
use gamma_model::Snapshot;
use gamma_model::gateway::{ParentReference, RouteStatus};
use gamma_model::meta::Time;

/// While `me` retains a pair it no longer owns ([`Directive::Retain`]), its status entry for
/// that parentRef stays exactly as stored until the new owner's entry is accepted: removing it
/// first would be the break before the make. `retained` are the retained parentRef indices
/// of the route whose parentRefs (as written) are `refs`.
pub fn keep_retained_entries(
    desired: &mut DesiredStatus,
    refs: &[ParentReference],
    retained: impl IntoIterator<Item = usize>,
) {
    for pref in retained.into_iter().filter_map(|i| refs.get(i)) {
        desired.entries.retain(|e| &e.parent_ref != pref);
        if !desired.keep.contains(pref) {
            desired.keep.push(pref.clone());
        }
    }
}

/// The handoff [`Directive`] of every (route, parent) for `me`, read from stored objects alone:
/// a pair `me` has an entry for in the route's stored status is one `me` programmed
/// ([`Handoff::resume`]); if `me` no longer owns it, it is retained until the new owner's
/// entry says `Accepted=True` at the route's current generation ([`Handoff::directive`], the
/// rule the runtime follows). A one-shot reader cannot know when the move began, so the grace
/// period counts from `now`: on stored objects a retention ends only when the new owner has
/// accepted.
pub fn stored_handoff_directives(
    decisions: &Decisions,
    snapshot: &Snapshot,
    me: &Identity,
    grace_seconds: i64,
    now: Time,
) -> BTreeMap<PairKey, Directive> {
    let mut handoff = Handoff::new(grace_seconds);
    let mut out = BTreeMap::new();
    let empty = RouteStatus::default();
    for (key, i, _) in decisions.pairs() {
        let route = key.to_object_key();
        let Some(view) = snapshot.get(&route).and_then(|r| r.as_route()) else {
            continue;
        };
        let Some(pref) = view.parent_refs.get(i) else {
            continue;
        };
        let Some(decision) = decisions.decision(&route, i, me) else {
            continue;
        };
        let status = view.status.unwrap_or(&empty);
        let pair = PairKey {
            route: route.clone(),
            parent_index: i,
        };
        let stored = status
            .parents
            .iter()
            .any(|e| e.parent_ref == *pref && me.answers_to(&e.controller_name));
        if stored {
            handoff.resume(pair.clone());
        }
        let directive = handoff.directive(
            &pair,
            &decision,
            pref,
            status,
            view.metadata.generation_or_zero(),
            decisions.registry(),
            now,
        );
        out.insert(pair, directive);
    }
    out
}
