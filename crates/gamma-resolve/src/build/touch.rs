//! Software-pipelined "touches" of the build's input: prefetching in safe code.
//!
//! The input ([`crate::input::TableInput`]) is many small heap objects: a route entry points to
//! its rules, a rule to its backendRefs and matches, those to their strings. At 100,000
//! routes none of it is in cache when the build reaches it, and reading a route's data is a
//! chain of four or five dependent cache misses, each paid in full inside the hashes and
//! compares that need the bytes. The walks over routes therefore read, at each step, one
//! level of the routes a few steps ahead: level 1 (the route entry) of the route
//! [`DEPTH`] steps ahead, level 2 (its rules) of the one after it, and so on. The loads of
//! one step are independent of each other (their pointers were loaded in earlier steps), so
//! their misses overlap, and by the time the walk reaches a route its data is in cache.
//! Results are combined and passed to [`std::hint::black_box`] so the loads happen; nothing
//! depends on them. Rules read in place ([`super::read`]) are touched where they are, in the
//! stored objects.

use gamma_model::gateway::{HttpRouteMatch, HttpRouteRule};

use super::read::{RouteRead, RulesRead};
use crate::input::{FiltersIr, MatchIr, PathMatchIr, RuleIr, StrMatch};

/// Levels of the pipelines (pointer hops from the route entry to the bytes).
pub(crate) const DEPTH: usize = 4;

/// Builds of fewer routes skip the touches: a small build (an update's scope, most often)
/// reads routes it has just lowered or looked up, which are in cache, and its touches were
/// only instructions (about 1,100 per route of an update's scope, callgrind).
const FROM_ROUTES: usize = 256;

/// Whether a build of `routes` routes touches ahead.
pub(crate) fn worth_it(routes: usize) -> bool {
    routes >= FROM_ROUTES
}

fn first(s: &str) -> u8 {
    s.as_bytes().first().copied().unwrap_or(0)
}

/// The fields of a rule's or backendRef's filters that compiling it reads (behind the entry's
/// [`crate::input::Filters`]: for most entries the one shared empty `FiltersIr`, in cache).
fn filters(f: &FiltersIr) -> u8 {
    (f.extensions.len() ^ f.mirrors.len()) as u8
        ^ u8::from(f.request_headers.is_empty())
        ^ u8::from(f.response_headers.is_empty())
        ^ u8::from(f.rewrite.is_none())
        ^ u8::from(f.redirect.is_none())
        ^ u8::from(f.cors.is_none())
}

/// Level `level` (1 = the route entry) of what attaching `route` reads: parents, rules,
/// backendRefs and their strings.
pub(crate) fn attach_level(route: RouteRead<'_>, level: usize) -> u8 {
    let parents = &route.ir.parents;
    let mut t = 0u8;
    match level {
        1 => t ^= (parents.len() ^ route.rules.len()) as u8,
        2 => {
            for p in parents {
                t ^= p.namespace.len() as u8 ^ p.name.len() as u8;
            }
        }
        3 => {
            for p in parents {
                t ^= first(&p.namespace) ^ first(&p.name);
            }
        }
        _ => {}
    }
    t ^ match route.rules {
        RulesRead::Lowered(rules) => attach_level_lowered(rules, level),
        RulesRead::Wire { rules, .. } => attach_level_wire(rules, level),
    }
}

fn attach_level_lowered(rules: &[RuleIr], level: usize) -> u8 {
    let mut t = 0u8;
    match level {
        1 => {}
        2 => {
            // every field of the rule entry (184 bytes) that compiling it reads
            for rule in rules {
                t ^= filters(&rule.filters)
                    ^ rule.backends.len() as u8
                    ^ u8::from(rule.timeouts.is_none())
                    ^ u8::from(rule.retry.is_none())
                    ^ u8::from(rule.name.is_none())
                    ^ u8::from(rule.invalid.is_none());
            }
        }
        3 => {
            for rule in rules {
                // and of each backendRef entry (112 bytes)
                for b in &rule.backends {
                    t ^= filters(&b.filters)
                        ^ (b.name.len() ^ b.namespace.len()) as u8
                        ^ b.weight as u8;
                }
            }
        }
        _ => {
            for rule in rules {
                for b in &rule.backends {
                    t ^= first(&b.name) ^ first(&b.namespace) ^ first(&b.kind);
                }
            }
        }
    }
    t
}

fn attach_level_wire(rules: &[HttpRouteRule], level: usize) -> u8 {
    let mut t = 0u8;
    match level {
        1 => {}
        2 => {
            for rule in rules {
                t ^= (rule.backend_refs.len() ^ rule.filters.len()) as u8
                    ^ u8::from(rule.name.is_none());
            }
        }
        3 => {
            for rule in rules {
                for b in &rule.backend_refs {
                    let r = &b.backend_ref;
                    t ^= (b.filters.len() ^ r.name.len()) as u8
                        ^ u8::from(r.namespace.is_none())
                        ^ u8::from(r.weight.is_none());
                }
            }
        }
        _ => {
            for rule in rules {
                for b in &rule.backend_refs {
                    let r = &b.backend_ref;
                    t ^= first(&r.name) ^ r.namespace.as_deref().map_or(0, first);
                }
            }
        }
    }
    t
}

/// Level `level` of what indexing `route` reads: its matches and their strings.
pub(crate) fn match_level(route: RouteRead<'_>, level: usize) -> u8 {
    match route.rules {
        RulesRead::Lowered(rules) => match_level_lowered(rules, level),
        RulesRead::Wire { rules, .. } => match_level_wire(rules, level),
    }
}

fn match_level_lowered(rules: &[RuleIr], level: usize) -> u8 {
    let mut t = 0u8;
    match level {
        1 => t ^= rules.len() as u8,
        2 => {
            for rule in rules {
                t ^= rule.matches.len() as u8;
            }
        }
        3 => {
            for rule in rules {
                for m in &rule.matches {
                    if let MatchIr::Http {
                        path,
                        headers,
                        method,
                        query,
                    } = m
                    {
                        t ^= (path_str(path).len() ^ headers.len() ^ query.len()) as u8
                            ^ u8::from(method.is_none());
                    }
                }
            }
        }
        _ => {
            for rule in rules {
                for m in &rule.matches {
                    if let MatchIr::Http { path, headers, .. } = m {
                        t ^= first(path_str(path));
                        for (n, v) in headers {
                            let (StrMatch::Exact(v) | StrMatch::Regex(v)) = v;
                            t ^= first(n) ^ first(v);
                        }
                    }
                }
            }
        }
    }
    t
}

fn match_level_wire(rules: &[HttpRouteRule], level: usize) -> u8 {
    let matches = || rules.iter().flat_map(|r| r.matches.iter().flatten());
    let mut t = 0u8;
    match level {
        1 => t ^= rules.len() as u8,
        2 => {
            for rule in rules {
                t ^= rule.matches.as_ref().map_or(0, Vec::len) as u8;
            }
        }
        3 => {
            for m in matches() {
                t ^= (path(m).map_or(0, str::len) ^ m.headers.len() ^ m.query_params.len()) as u8
                    ^ u8::from(m.method.is_none());
            }
        }
        _ => {
            for m in matches() {
                t ^= path(m).map_or(0, first);
                for h in &m.headers {
                    t ^= first(&h.name) ^ first(&h.value);
                }
            }
        }
    }
    t
}

/// A wire match's path value, if written.
fn path(m: &HttpRouteMatch) -> Option<&str> {
    m.path.as_ref().and_then(|p| p.value.as_deref())
}

fn path_str(p: &PathMatchIr) -> &str {
    match p {
        PathMatchIr::Exact(s) | PathMatchIr::Prefix(s) | PathMatchIr::Regex(s) => s,
    }
}

/// At step `pos` of a walk, touches level `l` of the route at step `pos + DEPTH + 1 - l`
/// for every level (`route(i)`: the route at step `i`, if any).
#[inline]
pub(crate) fn ahead<'a>(
    pos: usize,
    route: impl Fn(usize) -> Option<RouteRead<'a>>,
    level: fn(RouteRead<'_>, usize) -> u8,
) {
    let mut t = 0u8;
    for l in 1..=DEPTH {
        if let Some(r) = route(pos + DEPTH + 1 - l) {
            t ^= level(r, l);
        }
    }
    std::hint::black_box(t);
}
