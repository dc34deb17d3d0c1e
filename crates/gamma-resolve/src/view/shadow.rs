//! Entries of a route set that no request reaches, found on the view's ordered lists: a
//! TLSRoute that an older route beats on one SNI hostname, and an HTTPRoute or GRPCRoute rule
//! whose every match comes after the same match of another rule.
//!
//! Both read only the lists [`super::SetView`] already holds, in the order a request tries
//! them, so they cost nothing at build time and agree with `resolve` by construction of that
//! order (docs/view.md, "Ordering").

use std::collections::HashMap;

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

/// Runs of at most this many entries are searched for equal matches pairwise; longer ones
/// (many routes with one path and no other condition, say) through a hash map.
const PAIRWISE: usize = 16;

/// HTTPRoute or GRPCRoute rules every entry of which (each match, under each hostname group)
/// comes after an entry of another rule with the same hostname group and the same
/// conditions: that entry takes every request the later one would (HTTPRouteRule and
/// GRPCRouteRule match precedence: on equal matches the older route, then namespace/name,
/// then the first rule wins), so the rule is never reached. One exclusion per rule and
/// (hostname group, shadowing rule), in the order of the list.
///
/// `facts` is an entry's precedence key without its route rank and rule index: equal
/// conditions have equal facts, and the list is sorted by key within each hostname group, so
/// equal matches are only looked for within a run of one hostname group and equal facts.
/// Only equal conditions count: an earlier match broader in another way (a header regex `.*`
/// before an exact value of that header) is not looked for.
pub(super) fn rules<'t>(
    entries: &[EntryView<'t>],
    facts: impl Fn(&EntryView<'t>) -> u128,
    out: &mut Vec<ExcludedView<'t>>,
) {
    // (entry, the first entry with its match), for entries after an equal match of another rule
    let mut shadowed: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    while let Some(first) = entries.get(start) {
        let key = (first.hostname, facts(first));
        let run = entries.get(start..).unwrap_or_default();
        let len = run
            .iter()
            .position(|e| (e.hostname, facts(e)) != key)
            .unwrap_or(run.len());
        equal_matches(run.get(..len).unwrap_or_default(), start, &mut shadowed);
        start += len.max(1);
    }
    if shadowed.is_empty() {
        return;
    }
    // the entries grouped by rule (stable: list order within a rule)
    let rule_key = |i: &usize| {
        entries.get(*i).map(|e| {
            (
                e.rule.route.kind,
                e.rule.route.namespace,
                e.rule.route.name,
                e.rule.index,
            )
        })
    };
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(rule_key);
    for group in order.chunk_by(|a, b| rule_key(a) == rule_key(b)) {
        // every entry of the rule shadowed: by whom, on which hostname group
        let shadows: Option<Vec<(Option<HostView<'t>>, RuleRef<'t>)>> = group
            .iter()
            .map(|&i| {
                let k = shadowed.binary_search_by_key(&i, |s| s.0).ok()?;
                let by = entries.get(shadowed.get(k)?.1)?.rule;
                Some((entries.get(i)?.hostname, by))
            })
            .collect();
        let (Some(shadows), Some(e)) = (shadows, group.first().and_then(|i| entries.get(*i)))
        else {
            continue;
        };
        let mut seen: Vec<(Option<HostView<'t>>, RuleRef<'t>)> = Vec::new();
        for (hostname, by) in shadows {
            if !seen.contains(&(hostname, by)) {
                seen.push((hostname, by));
                out.push(ExcludedView {
                    route: e.rule.route,
                    rule: Some(e.rule.index),
                    reason: ExclusionView::Shadowed { hostname, by },
                });
            }
        }
    }
}

/// Within `run` (entries `offset..` of a list, one hostname group and equal facts): each
/// entry whose match an earlier entry of another rule has, with the first such entry.
fn equal_matches(run: &[EntryView<'_>], offset: usize, shadowed: &mut Vec<(usize, usize)>) {
    if run.len() < 2 {
        return;
    }
    let mut note = |j: usize, first: usize| {
        if let (Some(a), Some(b)) = (run.get(j), run.get(first))
            && a.rule != b.rule
        {
            shadowed.push((offset + j, offset + first));
        }
    };
    if run.len() <= PAIRWISE {
        for (j, e) in run.iter().enumerate().skip(1) {
            let earlier = run.get(..j).unwrap_or_default();
            if let Some(first) = earlier.iter().position(|x| x.condition == e.condition) {
                note(j, first);
            }
        }
    } else {
        let mut firsts: HashMap<&MatchView<'_>, usize> = HashMap::with_capacity(run.len());
        for (j, e) in run.iter().enumerate() {
            let first = *firsts.entry(&e.condition).or_insert(j);
            if first != j {
                note(j, first);
            }
        }
    }
}
