//! Entries of a route set that no request reaches, found on the view's ordered lists: a
//! TLSRoute that an older route beats on one SNI hostname, and an HTTPRoute or GRPCRoute rule
//! whose every match comes after the same match of another rule.
//!
//! Both read only the lists [`super::SetView`] already holds, in the order a request tries
//! them, so they cost nothing at build time and agree with `resolve` by construction of that
//! order (docs/view.md, "Ordering").

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use indexmap::IndexMap;

use super::{EntryView, ExcludedView, ExclusionView, HostView, MatchView};
use crate::decision::RuleRef;

/// TLSRoute: within one SNI hostname group the first entry (the oldest route, then
/// namespace/name: Gateway API route conflict resolution) takes every connection, so every
/// later entry of the group is shadowed on that hostname. `entries` is the set's `tls` list,
/// whose groups are contiguous.
pub(super) fn tls<'t>(entries: &[EntryView<'t>], out: &mut Vec<ExcludedView<'t>>) {
    let mut winner: Option<&EntryView<'t>> = None;
    for e in entries {
        match winner {
            Some(w) if w.hostname == e.hostname => {
                if w.rule.route != e.rule.route {
                    out.push(ExcludedView {
                        route: e.rule.route,
                        rule: None,
                        reason: ExclusionView::Shadowed {
                            hostname: e.hostname,
                            by: w.rule,
                        },
                    });
                }
            }
            _ => winner = Some(e),
        }
    }
}

/// HTTPRoute or GRPCRoute rules every entry of which (each match, under each hostname group)
/// comes after an entry of another rule with the same hostname group and the same
/// conditions: that entry takes every request the later one would (HTTPRouteRule and
/// GRPCRouteRule match precedence: on equal matches the older route, then namespace/name,
/// then the first rule wins), so the rule is never reached. One exclusion per rule and
/// (hostname group, shadowing rule), in the order of the list.
///
/// Only equal conditions count: an earlier match broader in another way (a header regex `.*`
/// before an exact value of that header) is not looked for.
pub(super) fn rules<'t>(entries: &[EntryView<'t>], out: &mut Vec<ExcludedView<'t>>) {
    if entries.len() < 2 {
        return;
    }
    let mut first: HashMap<(Option<HostView<'t>>, &MatchView<'t>), RuleRef<'t>> =
        HashMap::with_capacity(entries.len());
    // per rule, in order of first appearance: the (hostname, shadowing rule) of each entry
    // while every entry so far is shadowed; `None` once one is reached
    type Shadows<'t> = Option<Vec<(Option<HostView<'t>>, RuleRef<'t>)>>;
    let mut by_rule: IndexMap<RuleRef<'t>, Shadows<'t>> = IndexMap::new();
    for e in entries {
        let by = match first.entry((e.hostname, &e.condition)) {
            Entry::Occupied(o) => Some(*o.get()).filter(|r| *r != e.rule),
            Entry::Vacant(v) => {
                v.insert(e.rule);
                None
            }
        };
        let slot = by_rule.entry(e.rule).or_insert_with(|| Some(Vec::new()));
        match (slot.as_mut(), by) {
            (Some(list), Some(by)) => {
                if !list.contains(&(e.hostname, by)) {
                    list.push((e.hostname, by));
                }
            }
            _ => *slot = None,
        }
    }
    for (rule, shadows) in by_rule {
        for (hostname, by) in shadows.into_iter().flatten() {
            out.push(ExcludedView {
                route: rule.route,
                rule: Some(rule.index),
                reason: ExclusionView::Shadowed { hostname, by },
            });
        }
    }
}
