//! Precedence keys for HTTPRoute and GRPCRoute matches (Gateway API HTTPRouteRule.matches
//! precedence and GRPCRouteRule.matches), computed once at build time as totally ordered integers:
//! **smaller key = higher precedence**, so sorting candidates ascending yields them in the order
//! the spec tries them.
//!
//! Each key is packed into a `u128` from most to least significant criterion. Criteria where
//! "larger wins" are stored inverted (`MAX - value`). Cross-route tie-breaks (oldest
//! `creationTimestamp`, then `namespace/name`) are folded into one [`RouteRank`]: the route's
//! position in that order over the whole table, computed when the table is built.
//!
//! Choices the spec leaves open (documented in `docs/precedence.md`):
//! - `RegularExpression` paths rank below every `PathPrefix` (Gateway API HTTPPathMatch:
//!   implementation-specific).
//! - `PathPrefix` length is that of the normalised prefix, without its trailing `/` (`/foo/` and
//!   `/foo` are 4): the two accept exactly the same paths (a trailing `/` is ignored, HTTPRoute
//!   `PathMatch` API reference), so they tie on path and method, headers and query decide.
//! - Header and query counts are of *effective* matches: a repeated (case-equivalent) header
//!   name, or a repeated query name, counts once, because only the first entry is used.
//! - A GRPCRoute regex service or method counts 0 characters (an exact one counts its length).
//! - A route without `creationTimestamp` sorts after all routes that have one.

use crate::hostname::HostSpecificity;

/// Kind of path match, ordered as Gateway API HTTPRouteRule.matches precedence, Exact path then
/// longest PathPrefix rank them (plus the regex choice above).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PathRank {
    /// `Exact`: beats every other path type.
    Exact,
    /// `PathPrefix`, with the length of the normalised prefix (see [`PathRank::prefix`]).
    Prefix(u16),
    /// `RegularExpression`: after every prefix.
    Regex,
}

impl PathRank {
    /// The rank of a `PathPrefix` value: its length without trailing `/` (the root `/` is 0).
    /// "Most characters" (HTTPRoute rule precedence) is counted on the prefix as matched, so
    /// `/a/` and `/a`, which accept the same set of paths, rank the same.
    pub fn prefix(value: &str) -> Self {
        let normalised = value.trim_end_matches('/');
        Self::Prefix(u16::try_from(normalised.len()).unwrap_or(u16::MAX))
    }

    fn encode(self) -> u32 {
        match self {
            Self::Exact => 0,
            Self::Prefix(chars) => (1 << 16) | u32::from(u16::MAX - chars),
            Self::Regex => 2 << 16,
        }
    }
}

/// Position of a route in the cross-route tie-break order (Gateway API HTTPRouteRule.matches
/// precedence, oldest Route then namespace/name order: oldest `creationTimestamp`, then
/// `namespace/name`). Smaller = older / alphabetically first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RouteRank(pub u32);

/// What the cross-route tie-break compares. `T` is the timestamp type (any total order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteOrder<'a, T> {
    /// `metadata.creationTimestamp`; `None` sorts after every known timestamp.
    pub created: Option<T>,
    /// `metadata.namespace`.
    pub namespace: &'a str,
    /// `metadata.name`.
    pub name: &'a str,
}

impl<T: Ord> PartialOrd for RouteOrder<'_, T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: Ord> Ord for RouteOrder<'_, T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let ts = match (&self.created, &other.created) {
            (Some(a), Some(b)) => a.cmp(b),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        // "{namespace}/{name}" compared as one string, exactly as the spec words it. This is
        // not the pair order: `-` and `.` sort below `/`, so "a-b/x" < "a/y".
        ts.then_with(|| cmp_joined((self.namespace, self.name), (other.namespace, other.name)))
    }
}

/// `"{a.0}/{a.1}"` against `"{b.0}/{b.1}"` without walking bytes one by one in the common
/// cases (the build sorts every route by this): equal namespaces compare by name, and
/// namespaces that differ before either ends decide alone. Only when one namespace is a
/// proper prefix of the other does the `/` take part, and then the joined bytes decide.
fn cmp_joined(a: (&str, &str), b: (&str, &str)) -> std::cmp::Ordering {
    if a.0 == b.0 {
        a.1.cmp(b.1)
    } else if a.0.starts_with(b.0) || b.0.starts_with(a.0) {
        joined(a.0, a.1).cmp(joined(b.0, b.1))
    } else {
        a.0.cmp(b.0)
    }
}

fn joined<'s>(ns: &'s str, name: &'s str) -> impl Iterator<Item = u8> + 's {
    ns.bytes().chain(std::iter::once(b'/')).chain(name.bytes())
}

/// Assigns [`RouteRank`]s: `ranks[i]` is the rank of `orders[i]`. Equal orders (the same
/// route) get equal ranks.
pub fn rank_routes<T: Ord>(orders: &[RouteOrder<'_, T>]) -> Vec<RouteRank> {
    let mut idx: Vec<usize> = (0..orders.len()).collect();
    idx.sort_by(|a, b| orders.get(*a).cmp(&orders.get(*b)));
    let mut ranks = vec![RouteRank(0); orders.len()];
    let mut rank = 0u32;
    let mut prev: Option<usize> = None;
    for i in idx {
        if let Some(p) = prev
            && orders.get(p) != orders.get(i)
        {
            rank += 1;
        }
        if let Some(r) = ranks.get_mut(i) {
            *r = RouteRank(rank);
        }
        prev = Some(i);
    }
    ranks
}

/// The facts of one HTTPRoute match that Gateway API HTTPRouteRule.matches precedence ranks on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HttpMatchFacts {
    /// Specificity of the hostname that matched (the listener∩route intersection; Gateway API
    /// HTTPRoute hostnames precedence).
    pub host: HostSpecificity,
    /// Specificity of the route's own hostname that yielded it, ranked after `host`
    /// ([`HostnamePrecedence::RouteHostname`](crate::HostnamePrecedence::RouteHostname));
    /// the default `(0, 0)` everywhere when only the intersection ranks.
    pub route_host: HostSpecificity,
    /// Path match kind (Exact, then the longest PathPrefix).
    pub path: PathRank,
    /// Whether the match has a method condition.
    pub has_method: bool,
    /// Effective header matches.
    pub headers: u8,
    /// Effective query-param matches.
    pub query_params: u8,
}

/// The facts of one GRPCRoute match that Gateway API GRPCRouteRule.matches ranks on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GrpcMatchFacts {
    /// Specificity of the route hostname that matched (Gateway API GRPCRouteRule.matches
    /// precedence, hostname).
    pub host: HostSpecificity,
    /// Specificity of the route's own hostname that yielded it (as in [`HttpMatchFacts`]).
    pub route_host: HostSpecificity,
    /// Characters of an exact `service` match.
    pub service_chars: u16,
    /// Characters of an exact `method` match.
    pub method_chars: u16,
    /// Effective header matches.
    pub headers: u8,
}

/// A packed precedence key; smaller sorts first and wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PrecedenceKey(pub u128);

/// The hostname part of a key, 32 bits: the matching hostname's non-wildcard characters and
/// characters, then the route hostname's (each 8 bits, more sorting first). A hostname has at
/// most 253 characters (RFC 1123, the CRDs' `maxLength`); a longer one, which validation never
/// lets through, ranks as 255.
fn host_bits(h: HostSpecificity, route: HostSpecificity) -> u128 {
    let inv = |n: u16| u128::from(u8::MAX - u8::try_from(n).unwrap_or(u8::MAX));
    (inv(h.non_wildcard_chars) << 24)
        | (inv(h.chars) << 16)
        | (inv(route.non_wildcard_chars) << 8)
        | inv(route.chars)
}

fn tail_bits(route: RouteRank, rule: u16) -> u128 {
    (u128::from(route.0) << 16) | u128::from(rule)
}

impl PrecedenceKey {
    /// Key of an HTTPRoute match (Gateway API HTTPRouteRule.matches precedence). Layout, high to
    /// low bits: host (32) | path (18) | method (1) | headers (8) | query (8) | route rank (32) |
    /// rule (16).
    pub fn http(facts: HttpMatchFacts, route: RouteRank, rule: u16) -> Self {
        let mut k = host_bits(facts.host, facts.route_host);
        k = (k << 18) | u128::from(facts.path.encode());
        k = (k << 1) | u128::from(!facts.has_method);
        k = (k << 8) | u128::from(u8::MAX - facts.headers);
        k = (k << 8) | u128::from(u8::MAX - facts.query_params);
        k = (k << 48) | tail_bits(route, rule);
        Self(k)
    }

    /// Key of a GRPCRoute match (Gateway API GRPCRouteRule.matches). Layout, high to low bits:
    /// host (32) | service (16) | method (16) | headers (8) | route rank (32) | rule (16).
    pub fn grpc(facts: GrpcMatchFacts, route: RouteRank, rule: u16) -> Self {
        let mut k = host_bits(facts.host, facts.route_host);
        k = (k << 16) | u128::from(u16::MAX - facts.service_chars);
        k = (k << 16) | u128::from(u16::MAX - facts.method_chars);
        k = (k << 8) | u128::from(u8::MAX - facts.headers);
        k = (k << 48) | tail_bits(route, rule);
        Self(k)
    }

    /// The route-hostname specificity a key was built with (see [`HttpMatchFacts::route_host`]),
    /// as far as the key holds it (8 bits a count); `grpc` says which layout the key has.
    pub(crate) fn route_host(self, grpc: bool) -> HostSpecificity {
        // below the route-hostname bits: HTTP 18 + 1 + 8 + 8 + 48, gRPC 16 + 16 + 8 + 48
        let shift = if grpc { 88 } else { 83 };
        let bits = self.0 >> shift;
        let count = |b: u128| u16::from(u8::MAX - (b & 0xff) as u8);
        HostSpecificity {
            non_wildcard_chars: count(bits >> 8),
            chars: count(bits),
        }
    }

    /// The key without its route rank and rule index (the low 48 bits of either layout): the
    /// same for two matches of equal conditions on one hostname, whatever their routes.
    pub(crate) fn facts(self) -> u128 {
        self.0 >> 48
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // HTTPRoute PathMatch: a trailing `/` is ignored, so the rank is the normalised length.
    #[test]
    fn prefix_rank_ignores_a_trailing_slash() {
        assert_eq!(PathRank::prefix("/a/"), PathRank::prefix("/a"));
        assert_eq!(PathRank::prefix("/a"), PathRank::Prefix(2));
        assert_eq!(PathRank::prefix("/"), PathRank::Prefix(0));
        assert!(PathRank::prefix("/a/b").encode() < PathRank::prefix("/a/").encode());
    }

    // Gateway API HTTPRouteRule.matches precedence, namespace/name order: "{namespace}/{name}" as
    // one string; the shortcut agrees with the joined bytes on equal namespaces, prefixes (where
    // `-`/`.` < `/` < letters matters) and others.
    #[test]
    fn joined_name_order_matches_the_joined_string() {
        let parts = [
            "", "a", "a-b", "a.b", "a/b", "ab", "b", "a0", "z", "a-", "ä",
        ];
        for an in parts {
            for am in parts {
                for bn in parts {
                    for bm in parts {
                        let want = format!("{an}/{am}").cmp(&format!("{bn}/{bm}"));
                        assert_eq!(
                            cmp_joined((an, am), (bn, bm)),
                            want,
                            "{an}/{am} vs {bn}/{bm}"
                        );
                    }
                }
            }
        }
    }

    fn facts(path: PathRank) -> HttpMatchFacts {
        HttpMatchFacts {
            host: HostSpecificity::default(),
            route_host: HostSpecificity::default(),
            path,
            has_method: false,
            headers: 0,
            query_params: 0,
        }
    }

    fn k(f: HttpMatchFacts, route: u32, rule: u16) -> PrecedenceKey {
        PrecedenceKey::http(f, RouteRank(route), rule)
    }

    // Gateway API HTTPRouteRule.matches precedence: each criterion decides only on a tie of all
    // earlier ones. The list below is in strictly decreasing precedence; each entry differs from
    // the next in one criterion.
    #[test]
    fn http_precedence_follows_spec_order() {
        let base = facts(PathRank::Prefix(4));
        let ordered = [
            // 1a: exact hostname chars
            k(
                HttpMatchFacts {
                    host: HostSpecificity::of(Some("a.b.c")),
                    ..base
                },
                9,
                9,
            ),
            // 1b: wildcard hostname chars
            k(
                HttpMatchFacts {
                    host: HostSpecificity::of(Some("*.longer.example")),
                    ..base
                },
                9,
                9,
            ),
            // 1c (v1.7, on an equal intersection): the route's own hostname, exact before
            // wildcard
            k(
                HttpMatchFacts {
                    host: HostSpecificity::of(Some("*.b.c")),
                    route_host: HostSpecificity::of(Some("x.b.c")),
                    ..base
                },
                9,
                9,
            ),
            k(
                HttpMatchFacts {
                    host: HostSpecificity::of(Some("*.b.c")),
                    route_host: HostSpecificity::of(Some("*.b.c")),
                    ..base
                },
                9,
                9,
            ),
            k(
                HttpMatchFacts {
                    host: HostSpecificity::of(Some("*.b.c")),
                    ..base
                },
                9,
                9,
            ),
            // 2: exact path
            k(facts(PathRank::Exact), 9, 9),
            // 3: longer prefix
            k(facts(PathRank::Prefix(10)), 9, 9),
            // 4: method
            k(
                HttpMatchFacts {
                    has_method: true,
                    ..base
                },
                9,
                9,
            ),
            // 5: more headers
            k(
                HttpMatchFacts {
                    headers: 2,
                    query_params: 0,
                    ..base
                },
                9,
                9,
            ),
            k(
                HttpMatchFacts {
                    headers: 1,
                    query_params: 5,
                    ..base
                },
                9,
                9,
            ),
            // 6: more query params
            k(
                HttpMatchFacts {
                    query_params: 1,
                    ..base
                },
                9,
                9,
            ),
            // 7/8: route rank
            k(base, 0, 9),
            k(base, 1, 0),
            // 9: rule order
            k(base, 2, 0),
            k(base, 2, 1),
            // regex ranks below every prefix (implementation choice)
            k(facts(PathRank::Prefix(1)), 0, 0),
            k(facts(PathRank::Regex), 0, 0),
        ];
        for w in ordered.windows(2) {
            if let [a, b] = w {
                assert!(a < b, "{a:?} should precede {b:?}");
            }
        }
    }

    // The route-hostname specificity can be read back from either layout.
    #[test]
    fn route_host_reads_back_from_http_and_grpc_keys() {
        let rh = HostSpecificity::of(Some("abc.example.com"));
        let h = PrecedenceKey::http(
            HttpMatchFacts {
                route_host: rh,
                has_method: true,
                headers: 3,
                ..facts(PathRank::Prefix(7))
            },
            RouteRank(5),
            2,
        );
        assert_eq!(h.route_host(false), rh);
        let g = PrecedenceKey::grpc(
            GrpcMatchFacts {
                host: HostSpecificity::of(Some("*.example.com")),
                route_host: rh,
                service_chars: 9,
                method_chars: 4,
                headers: 1,
            },
            RouteRank(5),
            2,
        );
        assert_eq!(g.route_host(true), rh);
        assert_eq!(
            PrecedenceKey::http(facts(PathRank::Exact), RouteRank(1), 0).route_host(false),
            HostSpecificity::default()
        );
    }

    // Gateway API GRPCRouteRule.matches: hostname, service chars, method chars, headers, then
    // route, then rule.
    #[test]
    fn grpc_precedence_follows_spec_order() {
        let base = GrpcMatchFacts {
            host: HostSpecificity::default(),
            route_host: HostSpecificity::default(),
            service_chars: 3,
            method_chars: 3,
            headers: 0,
        };
        let g = |f: GrpcMatchFacts, r: u32, rule: u16| PrecedenceKey::grpc(f, RouteRank(r), rule);
        let ordered = [
            g(
                GrpcMatchFacts {
                    host: HostSpecificity::of(Some("x.io")),
                    ..base
                },
                9,
                9,
            ),
            g(
                GrpcMatchFacts {
                    service_chars: 20,
                    method_chars: 0,
                    ..base
                },
                9,
                9,
            ),
            g(
                GrpcMatchFacts {
                    method_chars: 10,
                    headers: 0,
                    ..base
                },
                9,
                9,
            ),
            g(GrpcMatchFacts { headers: 3, ..base }, 9, 9),
            g(base, 0, 5),
            g(base, 1, 0),
            g(base, 1, 1),
        ];
        for w in ordered.windows(2) {
            if let [a, b] = w {
                assert!(a < b, "{a:?} should precede {b:?}");
            }
        }
    }

    // Gateway API HTTPRouteRule.matches precedence, oldest Route then namespace/name order: oldest
    // first, then namespace/name; missing timestamps last.
    #[test]
    fn route_rank_oldest_then_namespace_name() {
        let orders = [
            RouteOrder {
                created: Some(5),
                namespace: "b",
                name: "x",
            },
            RouteOrder {
                created: Some(5),
                namespace: "a",
                name: "z",
            },
            RouteOrder {
                created: None,
                namespace: "a",
                name: "a",
            },
            RouteOrder {
                created: Some(1),
                namespace: "z",
                name: "z",
            },
            RouteOrder {
                created: Some(5),
                namespace: "a",
                name: "z",
            },
        ];
        let ranks = rank_routes(&orders);
        assert_eq!(
            ranks,
            [
                RouteRank(2),
                RouteRank(1),
                RouteRank(3),
                RouteRank(0),
                RouteRank(1)
            ]
        );
    }

    #[test]
    fn namespace_name_compared_as_joined_string() {
        // Gateway API HTTPRouteRule.matches precedence, namespace/name order compares
        // "{namespace}/{name}": "a-b/a" < "a/b" because '-' < '/', although the namespace "a" <
        // "a-b" as a pair.
        let a = RouteOrder::<u8> {
            created: None,
            namespace: "a",
            name: "b",
        };
        let b = RouteOrder::<u8> {
            created: None,
            namespace: "a-b",
            name: "a",
        };
        assert!(b < a);
        assert_eq!("a-b/a".cmp("a/b"), std::cmp::Ordering::Less);
    }
}
