//! What the build reads of a route's rules, from either of two forms: a lowered rule
//! ([`RuleIr`]), or the wire rule of a valid HTTPRoute read in place.
//!
//! A build from a [`gamma_model::Snapshot`] lowers most routes only to their route-level
//! fields (kind, name, hostnames, parentRefs) and reads the rules of a valid HTTPRoute
//! without filters, timeouts or retries straight from the stored object (an update reads
//! them from the object a kept route was lowered from, `docs/incremental.md`): building and
//! then freeing a lowered copy of every rule, match and backendRef was about a quarter of a
//! first build. Every default the lowering applies is applied here as the rule is read, the same
//! way (`lower::plain` admits a route to this form only when reading it is equivalent to
//! lowering it, which the tests of `lower::plain` check table against table):
//!
//! - an omitted or empty match list is one `PathPrefix /` match; an omitted path is
//!   `PathPrefix /`; a `PathPrefix` value loses a trailing `/` (Gateway API HTTPPathMatch:
//!   `/foo/` and `/foo` match the same paths);
//! - a header or query value is `Exact` unless its type is `RegularExpression`;
//! - a backendRef's group is `""`, its kind `Service`, its namespace the route's and its
//!   weight 1 unless given (Gateway API BackendRef defaults).
//!
//! Header names are read as written and query names case-sensitively: the build's compiler
//! of match lists keeps the first of equal names and lowercases header names, as the
//! lowering does.

use std::hash::{Hash, Hasher};

use gamma_model::gateway::{
    HttpBackendRef, HttpHeaderMatch, HttpQueryParamMatch, HttpRouteMatch, HttpRouteRule, MatchType,
    PathMatchType,
};
use gamma_model::ir::Method;

use crate::input::{
    BackendIr, FiltersIr, Invalid, IrString, MatchIr, NO_FILTERS, PathMatchIr, RouteIr, RuleIr,
    StrMatch,
};

/// A route as the build reads it: its route-level fields lowered, its rules in either form.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RouteRead<'i> {
    /// The lowered route. Its `rules` are empty for a route whose rules are read in place:
    /// read [`RouteRead::rules`].
    pub(crate) ir: &'i RouteIr,
    /// The route's rules.
    pub(crate) rules: RulesRead<'i>,
}

impl<'i> RouteRead<'i> {
    /// A lowered route, rules included.
    pub(crate) fn lowered(ir: &'i RouteIr) -> Self {
        RouteRead {
            ir,
            rules: RulesRead::Lowered(&ir.rules),
        }
    }

    /// A route whose rules are `rules`, read in place (its lowered `ir` holds none).
    pub(crate) fn wire(ir: &'i RouteIr, rules: &'i [HttpRouteRule]) -> Self {
        RouteRead {
            ir,
            rules: RulesRead::Wire {
                rules,
                namespace: &ir.namespace,
            },
        }
    }
}

/// A route's rules.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RulesRead<'i> {
    /// Lowered.
    Lowered(&'i [RuleIr]),
    /// A valid HTTPRoute's rules without filters, timeouts or retries; `namespace` is the
    /// route's (what a backendRef without one refers to).
    Wire {
        rules: &'i [HttpRouteRule],
        namespace: &'i str,
    },
}

impl<'i> RulesRead<'i> {
    /// How many rules.
    pub(crate) fn len(self) -> usize {
        match self {
            RulesRead::Lowered(r) => r.len(),
            RulesRead::Wire { rules, .. } => rules.len(),
        }
    }

    /// Rule `i`.
    #[inline]
    pub(crate) fn get(self, i: usize) -> Option<RuleRead<'i>> {
        match self {
            RulesRead::Lowered(r) => r.get(i).map(RuleRead::lowered),
            RulesRead::Wire { rules, namespace } => {
                rules.get(i).map(|r| RuleRead::wire(r, namespace))
            }
        }
    }

    /// The rules in order.
    pub(crate) fn iter(self) -> impl Iterator<Item = RuleRead<'i>> {
        match self {
            RulesRead::Lowered(r) => Either::Lowered(r.iter().map(RuleRead::lowered)),
            RulesRead::Wire { rules, namespace } => {
                Either::Wire(rules.iter().map(move |r| RuleRead::wire(r, namespace)))
            }
        }
    }
}

/// One of two iterators of one item type: over a lowered list, or over a list read in place.
enum Either<L, W> {
    Lowered(L),
    Wire(W),
}

impl<T, L: Iterator<Item = T>, W: Iterator<Item = T>> Iterator for Either<L, W> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self {
            Either::Lowered(l) => l.next(),
            Either::Wire(w) => w.next(),
        }
    }
}

/// One rule, with the defaults applied.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleRead<'i> {
    /// `name`.
    pub(crate) name: Option<&'i str>,
    /// The matches (at least one for an HTTP or gRPC rule).
    pub(crate) matches: MatchesRead<'i>,
    /// The rule's filters (none for a rule read in place).
    pub(crate) filters: &'i FiltersIr,
    /// The backendRefs.
    pub(crate) backends: BackendsRead<'i>,
    /// Timeouts, as the lowering keeps them.
    pub(crate) timeouts: Option<&'i crate::timing::RuleTimeouts>,
    /// Retry, as the lowering keeps it.
    pub(crate) retry: Option<&'i crate::timing::RetryPolicy>,
    /// Why the rule is dropped, if it is (never for a rule read in place).
    pub(crate) invalid: Option<&'i Invalid>,
}

impl<'i> RuleRead<'i> {
    fn lowered(r: &'i RuleIr) -> Self {
        RuleRead {
            name: r.name.as_deref(),
            matches: MatchesRead::Lowered(&r.matches),
            filters: &r.filters,
            backends: BackendsRead::Lowered(&r.backends),
            timeouts: r.timeouts.as_ref(),
            retry: r.retry.as_ref(),
            invalid: r.invalid.as_ref(),
        }
    }

    fn wire(r: &'i HttpRouteRule, namespace: &'i str) -> Self {
        RuleRead {
            name: r.name.as_deref(),
            matches: match r.matches.as_deref() {
                None | Some([]) => MatchesRead::Root,
                Some(ms) => MatchesRead::Wire(ms),
            },
            filters: &NO_FILTERS,
            backends: BackendsRead::Wire {
                refs: &r.backend_refs,
                namespace,
            },
            timeouts: None,
            retry: None,
            invalid: None,
        }
    }
}

/// A rule's matches.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MatchesRead<'i> {
    /// Lowered.
    Lowered(&'i [MatchIr]),
    /// As written (a non-empty list).
    Wire(&'i [HttpRouteMatch]),
    /// An omitted or empty list: one `PathPrefix /` match (Gateway API HTTPRouteRule.matches
    /// default).
    Root,
}

impl<'i> MatchesRead<'i> {
    /// How many.
    pub(crate) fn len(self) -> usize {
        match self {
            MatchesRead::Lowered(m) => m.len(),
            MatchesRead::Wire(m) => m.len(),
            MatchesRead::Root => 1,
        }
    }

    /// The matches in order (a wire match of a type the lowering refuses, which a route read
    /// in place never has, is left out).
    pub(crate) fn iter(self) -> impl Iterator<Item = MatchRead<'i>> {
        match self {
            MatchesRead::Lowered(m) => Either::Lowered(m.iter().map(MatchRead::lowered)),
            MatchesRead::Wire(m) => {
                Either::Wire(Either::Lowered(m.iter().filter_map(MatchRead::wire)))
            }
            MatchesRead::Root => Either::Wire(Either::Wire(std::iter::once(ROOT))),
        }
    }

    fn get(self, i: usize) -> Option<MatchRead<'i>> {
        match self {
            MatchesRead::Lowered(m) => m.get(i).map(MatchRead::lowered),
            MatchesRead::Wire(m) => m.get(i).and_then(MatchRead::wire),
            MatchesRead::Root if i == 0 => Some(ROOT),
            MatchesRead::Root => None,
        }
    }

    /// The value of the rule's only match when that is a `PathPrefix` (what
    /// `ReplacePrefixMatch` replaces).
    pub(crate) fn single_prefix(self) -> Option<&'i str> {
        if self.len() != 1 {
            return None;
        }
        match self.get(0)? {
            MatchRead::Http {
                path: PathRead::Prefix(p),
                ..
            } => Some(p),
            _ => None,
        }
    }
}

/// The default match: `PathPrefix /` and nothing else.
const ROOT: MatchRead<'static> = MatchRead::Http {
    path: PathRead::Prefix("/"),
    method: None,
    headers: NamesRead::Lowered(&[]),
    query: NamesRead::Lowered(&[]),
};

/// One match, with the defaults applied.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MatchRead<'i> {
    /// An HTTPRoute match.
    Http {
        /// The path condition.
        path: PathRead<'i>,
        /// The method, upper-case.
        method: Option<&'i str>,
        /// Header conditions (names as written).
        headers: NamesRead<'i>,
        /// Query parameter conditions.
        query: NamesRead<'i>,
    },
    /// A GRPCRoute match (always lowered).
    Grpc {
        /// The service condition.
        service: Option<&'i StrMatch>,
        /// The method condition.
        method: Option<&'i StrMatch>,
        /// Header conditions.
        headers: NamesRead<'i>,
    },
}

impl<'i> MatchRead<'i> {
    fn lowered(m: &'i MatchIr) -> Self {
        match m {
            MatchIr::Http {
                path,
                method,
                headers,
                query,
            } => MatchRead::Http {
                path: match path {
                    PathMatchIr::Exact(p) => PathRead::Exact(p),
                    PathMatchIr::Prefix(p) => PathRead::Prefix(p),
                    PathMatchIr::Regex(r) => PathRead::Regex(r),
                },
                method: method.as_deref(),
                headers: NamesRead::Lowered(headers),
                query: NamesRead::Lowered(query),
            },
            MatchIr::Grpc {
                service,
                method,
                headers,
            } => MatchRead::Grpc {
                service: service.as_ref(),
                method: method.as_ref(),
                headers: NamesRead::Lowered(headers),
            },
        }
    }

    /// `None` for a path type or method the lowering refuses.
    fn wire(m: &'i HttpRouteMatch) -> Option<Self> {
        Some(MatchRead::Http {
            path: PathRead::wire(m)?,
            method: match &m.method {
                None => None,
                Some(w) => Some(Method::from_wire(w)?.as_str()),
            },
            headers: NamesRead::Headers(&m.headers),
            query: NamesRead::Query(&m.query_params),
        })
    }
}

/// A path condition.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PathRead<'i> {
    /// `Exact`.
    Exact(&'i str),
    /// `PathPrefix`, normalised (no trailing `/` but for the root).
    Prefix(&'i str),
    /// `RegularExpression`.
    Regex(&'i str),
}

impl<'i> PathRead<'i> {
    fn wire(m: &'i HttpRouteMatch) -> Option<Self> {
        let Some(p) = &m.path else {
            return Some(PathRead::Prefix("/"));
        };
        let value = p.value_or_default();
        match &p.type_ {
            None | Some(PathMatchType::PathPrefix) => Some(PathRead::Prefix(
                value
                    .strip_suffix('/')
                    .filter(|t| !t.is_empty())
                    .unwrap_or(value),
            )),
            Some(PathMatchType::Exact) => Some(PathRead::Exact(value)),
            Some(PathMatchType::RegularExpression) => Some(PathRead::Regex(value)),
            Some(PathMatchType::Unknown(_)) => None,
        }
    }
}

/// A header or query parameter value condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ValueRead<'i> {
    /// Byte-exact.
    Exact(&'i str),
    /// A regular expression, full match.
    Regex(&'i str),
}

impl<'i> ValueRead<'i> {
    fn lowered(m: &'i StrMatch) -> Self {
        match m {
            StrMatch::Exact(v) => ValueRead::Exact(v),
            StrMatch::Regex(r) => ValueRead::Regex(r),
        }
    }

    fn wire(t: Option<&MatchType>, value: &'i str) -> Self {
        match t {
            Some(MatchType::RegularExpression) => ValueRead::Regex(value),
            _ => ValueRead::Exact(value),
        }
    }
}

/// A list of header or query parameter conditions: (name, value condition) pairs in order.
/// Compared and hashed by what they read as, whatever their form (the build compiles each
/// distinct list once).
#[derive(Debug, Clone, Copy)]
pub(crate) enum NamesRead<'i> {
    /// Lowered.
    Lowered(&'i [(IrString, StrMatch)]),
    /// HTTPRoute header matches as written.
    Headers(&'i [HttpHeaderMatch]),
    /// HTTPRoute query parameter matches as written.
    Query(&'i [HttpQueryParamMatch]),
}

impl<'i> NamesRead<'i> {
    /// How many entries (before equal names are folded).
    pub(crate) fn len(self) -> usize {
        match self {
            NamesRead::Lowered(l) => l.len(),
            NamesRead::Headers(l) => l.len(),
            NamesRead::Query(l) => l.len(),
        }
    }

    /// Whether there are none.
    pub(crate) fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The entries in order.
    pub(crate) fn iter(self) -> impl Iterator<Item = (&'i str, ValueRead<'i>)> {
        match self {
            NamesRead::Lowered(l) => {
                Either::Lowered(l.iter().map(|(n, m)| (n.as_str(), ValueRead::lowered(m))))
            }
            NamesRead::Headers(l) => {
                Either::Wire(Either::Lowered(l.iter().map(|h| {
                    (h.name.as_str(), ValueRead::wire(h.type_.as_ref(), &h.value))
                })))
            }
            NamesRead::Query(l) => {
                Either::Wire(Either::Wire(l.iter().map(|q| {
                    (q.name.as_str(), ValueRead::wire(q.type_.as_ref(), &q.value))
                })))
            }
        }
    }
}

impl PartialEq for NamesRead<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.len() == o.len() && self.iter().eq(o.iter())
    }
}

impl Eq for NamesRead<'_> {}

impl Hash for NamesRead<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_usize(self.len());
        for (name, value) in self.iter() {
            name.hash(h);
            value.hash(h);
        }
    }
}

/// A rule's backendRefs.
#[derive(Debug, Clone, Copy)]
pub(crate) enum BackendsRead<'i> {
    /// Lowered.
    Lowered(&'i [BackendIr]),
    /// As written (without filters); `namespace` is the route's.
    Wire {
        refs: &'i [HttpBackendRef],
        namespace: &'i str,
    },
}

impl<'i> BackendsRead<'i> {
    /// How many.
    pub(crate) fn len(self) -> usize {
        match self {
            BackendsRead::Lowered(b) => b.len(),
            BackendsRead::Wire { refs, .. } => refs.len(),
        }
    }

    /// Whether there are none.
    pub(crate) fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The backendRefs in order.
    pub(crate) fn iter(self) -> impl Iterator<Item = BackendRead<'i>> {
        match self {
            BackendsRead::Lowered(b) => Either::Lowered(b.iter().map(BackendRead::lowered)),
            BackendsRead::Wire { refs, namespace } => Either::Wire(refs.iter().map(move |b| {
                let b = &b.backend_ref;
                BackendRead {
                    group: b.group.as_deref().unwrap_or(""),
                    kind: b.kind.as_deref().unwrap_or("Service"),
                    namespace: b.namespace.as_deref().unwrap_or(namespace),
                    name: &b.name,
                    port: b.port.and_then(|p| u16::try_from(p).ok()),
                    // validation bounds it (0 to 1,000,000); the lowering reads anything
                    // else as 0 too
                    weight: u32::try_from(b.weight.unwrap_or(1)).unwrap_or(0),
                    filters: &NO_FILTERS,
                }
            })),
        }
    }
}

/// A backendRef with the defaults applied.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BackendRead<'i> {
    /// Group.
    pub(crate) group: &'i str,
    /// Kind.
    pub(crate) kind: &'i str,
    /// Namespace.
    pub(crate) namespace: &'i str,
    /// Name.
    pub(crate) name: &'i str,
    /// Port.
    pub(crate) port: Option<u16>,
    /// Weight.
    pub(crate) weight: u32,
    /// Filters on this backend (none for one read in place).
    pub(crate) filters: &'i FiltersIr,
}

impl<'i> BackendRead<'i> {
    /// A lowered backendRef.
    pub(crate) fn lowered(b: &'i BackendIr) -> Self {
        BackendRead {
            group: &b.group,
            kind: &b.kind,
            namespace: &b.namespace,
            name: &b.name,
            port: b.port,
            weight: b.weight,
            filters: &b.filters,
        }
    }
}
