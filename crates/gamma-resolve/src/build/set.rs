//! One frontend's route set: the winning kind (mesh), then the hostname, path, method and
//! gRPC indexes with candidate lists sorted by precedence key. This is the unit a rebuild of
//! one Service port or listener reruns; its inputs are that frontend's attached routes and the
//! arenas it appends to.

use std::sync::Arc;

use crate::cond::{Cond, NamedMatches, ValueMatch};
use crate::hostname::HostSpecificity;
use crate::index::{GrpcIndex, GrpcIndexBuilder, HostIndex, PathIndex, PathSlot};
use crate::input::StrMatch;
use crate::precedence::{GrpcMatchFacts, HttpMatchFacts, PathRank, PrecedenceKey, RouteRank};
use crate::table::{Excluded, ExcludedWhy, RouteSet, SetLabel};
use gamma_model::RouteKind;

use super::Builder;
use super::attach::{Attached, AttachedRoute};
use super::read::{MatchRead, NamesRead, PathRead, ValueRead};
use super::touch;

/// One match of an attached route under one effective hostname, as walked by
/// `Builder::for_each_match`.
#[derive(Debug, Clone, Copy)]
pub(super) struct MatchSite<'l, 'i> {
    /// The effective hostname (`None` = any).
    host: Option<&'l str>,
    host_spec: HostSpecificity,
    /// The route's own hostname that yielded `host` (see `AttachedRoute::route_hosts`).
    route_host: HostSpecificity,
    rank: RouteRank,
    rule_index: u16,
    /// Compiled rule id.
    rule_id: u32,
    match_index: u16,
    m: MatchRead<'i>,
}

/// Which kind of names a match list has (they compare differently).
#[derive(Debug, Clone, Copy)]
pub(super) enum Names {
    /// HTTP header names: case-insensitive (Gateway API HTTPHeaderMatch).
    Header,
    /// Query parameter names: case-sensitive (Gateway API HTTPQueryParamMatch).
    Query,
}

impl<'i> Builder<'i> {
    /// Compiles one context's attached routes into an indexed [`RouteSet`].
    pub(super) fn index_set(
        &mut self,
        attached: Attached,
        mesh: bool,
        label: SetLabel,
        ctx: (usize, u16, Option<String>),
    ) -> RouteSet {
        let mut set = RouteSet {
            label,
            ..RouteSet::default()
        };
        let mut by_kind = attached.by_kind;
        let mut excluded = Vec::new();
        if mesh {
            // GEP-1294 route types: one TCP-carried kind per Service port and group: GRPC > HTTP >
            // TLS > TCP.
            let winner = RouteKind::ALL
                .iter()
                .zip(&by_kind)
                .find(|(k, list)| **k != RouteKind::Udp && !list.is_empty())
                .map(|(k, _)| *k);
            set.mesh_kind = winner;
            for (k, list) in RouteKind::ALL.iter().zip(by_kind.iter_mut()) {
                if *k != RouteKind::Udp && Some(*k) != winner {
                    for a in std::mem::take(list) {
                        self.status.conflicted(a.ri, ctx.clone(), winner);
                        excluded.push(Excluded {
                            route: a.route_id,
                            rule: None,
                            why: ExcludedWhy::LostToKind(winner),
                        });
                    }
                }
            }
        }
        for (kind, list) in RouteKind::ALL.into_iter().zip(by_kind) {
            if list.is_empty() {
                continue;
            }
            self.dropped_rules(&list, &mut excluded);
            match kind {
                RouteKind::Http => set.http = Some(self.index_http(&list)),
                RouteKind::Grpc => set.grpc = Some(Box::new(self.index_grpc(&list))),
                RouteKind::Tls => set.tls = Some(Box::new(self.index_tls(&list))),
                RouteKind::Tcp => set.tcp = self.first_rule(&list, &mut excluded),
                RouteKind::Udp => set.udp = self.first_rule(&list, &mut excluded),
            }
        }
        if !excluded.is_empty() {
            excluded.sort_by_key(|e| (e.route, e.rule));
            excluded.dedup();
            set.excluded = excluded.into_boxed_slice();
        }
        set
    }

    /// The rules of `list`'s routes that failed validation and were dropped (their routes'
    /// `PartiallyInvalid` condition).
    fn dropped_rules(&self, list: &[AttachedRoute], out: &mut Vec<Excluded>) {
        for a in list {
            let Some(route) = self.route_irs.get(a.ri) else {
                continue;
            };
            for (i, rule) in route.rules.iter().enumerate() {
                if let Some(inv) = rule.invalid {
                    out.push(Excluded {
                        route: a.route_id,
                        rule: Some(u16::try_from(i).unwrap_or(u16::MAX)),
                        why: ExcludedWhy::RuleInvalid(inv.reason, inv.message.as_str().into()),
                    });
                }
            }
        }
    }

    /// TCP/UDP: the oldest route (then namespace/name) wins (Gateway API GRPCRoute cross serving;
    /// GEP-2644 conflict management); its first rule.
    /// The routes that lose are noted in `excluded`, shadowed by the winner's rule.
    pub(super) fn first_rule(
        &self,
        list: &[AttachedRoute],
        excluded: &mut Vec<Excluded>,
    ) -> Option<u32> {
        let winner = list
            .iter()
            .filter_map(|a| self.ranks.get(a.route_id as usize).map(|r| (*r, a)))
            .min_by_key(|(rank, _)| *rank)
            .map(|(_, a)| a)?;
        let rule = self.ids(winner.rules).first().copied().flatten()?;
        excluded.extend(
            list.iter()
                .filter(|a| a.route_id != winner.route_id)
                .map(|a| Excluded {
                    route: a.route_id,
                    rule: None,
                    why: ExcludedWhy::Shadowed(rule),
                }),
        );
        Some(rule)
    }

    pub(super) fn order(keys: &[PrecedenceKey]) -> impl Fn(&u32, &u32) -> std::cmp::Ordering + '_ {
        move |a, b| {
            let ka = keys.get(*a as usize);
            let kb = keys.get(*b as usize);
            ka.cmp(&kb)
        }
    }

    pub(super) fn value_match(&mut self, m: ValueRead<'_>) -> Option<ValueMatch> {
        match m {
            ValueRead::Exact(v) => Some(ValueMatch::Exact(v.into())),
            ValueRead::Regex(r) => self.regexes.intern(r).ok().map(ValueMatch::Regex),
        }
    }

    #[inline]
    pub(super) fn headers(&mut self, hs: NamesRead<'i>) -> Option<NamedMatches> {
        if hs.is_empty() {
            // most matches have no header conditions: no call
            return Some(NamedMatches::default());
        }
        self.named_matches(hs, Names::Header)
    }

    #[inline]
    pub(super) fn query(&mut self, qs: NamesRead<'i>) -> Option<NamedMatches> {
        if qs.is_empty() {
            return Some(NamedMatches::default());
        }
        self.named_matches(qs, Names::Query)
    }

    /// A header or query match list compiled, or `None` when a value cannot be used (a
    /// regex over the limits). Of names that compare equal only the first entry counts.
    pub(super) fn named_matches(
        &mut self,
        list: NamesRead<'i>,
        names: Names,
    ) -> Option<NamedMatches> {
        if list.is_empty() {
            return Some(NamedMatches::default());
        }
        // the same list on many rules (a tenant header, a canary flag): compiled once
        let cached = match names {
            Names::Header => self.header_lists.get(&list),
            Names::Query => self.query_lists.get(&list),
        };
        if let Some(m) = cached {
            return m.clone();
        }
        let mut out: Vec<(Arc<str>, ValueMatch)> = Vec::with_capacity(list.len());
        let mut ok = true;
        for (name, m) in list.iter() {
            let seen = match names {
                // Gateway API HTTPHeaderMatch: header names are case-insensitive; kept lowercase
                Names::Header => out.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)),
                // Gateway API HTTPQueryParamMatch: query parameter names are case-sensitive
                Names::Query => out.iter().any(|(n, _)| **n == *name),
            };
            if seen {
                continue;
            }
            let name = match names {
                Names::Header if name.bytes().any(|b| b.is_ascii_uppercase()) => {
                    self.intern(&name.to_ascii_lowercase())
                }
                _ => self.intern(name),
            };
            match self.value_match(m) {
                Some(v) => out.push((name, v)),
                None => {
                    ok = false;
                    break;
                }
            }
        }
        let m = ok.then(|| NamedMatches::from(out));
        match names {
            Names::Header => self.header_lists.insert(list, m.clone()),
            Names::Query => self.query_lists.insert(list, m.clone()),
        };
        m
    }

    /// Calls `f` on every (attached route, effective hostname, kept rule, match) of `list`,
    /// with the rank and hostname specificity the precedence key needs. The one walk shared by
    /// the HTTP and gRPC indexers; each only interprets its own [`MatchRead`] variant.
    pub(super) fn for_each_match<'l>(
        &mut self,
        list: &'l [AttachedRoute],
        mut f: impl FnMut(&mut Self, MatchSite<'l, 'i>),
    ) {
        let routes = self.route_irs;
        let touch = touch::worth_it(routes.len());
        for (j, a) in list.iter().enumerate() {
            if touch {
                touch::ahead(
                    j,
                    |n| list.get(n).and_then(|a| routes.get(a.ri)),
                    touch::match_level,
                );
            }
            let rank = self
                .ranks
                .get(a.route_id as usize)
                .copied()
                .unwrap_or_default();
            let Some(route_ir) = routes.get(a.ri) else {
                continue;
            };
            for (hi, host) in a.hosts.iter().enumerate() {
                let host_spec = HostSpecificity::of(host.as_deref());
                let route_host = a.route_hosts.get(hi).copied().unwrap_or_default();
                for rule_index in 0..a.rules.1 as usize {
                    let Some(rule_id) = self.ids(a.rules).get(rule_index).copied().flatten() else {
                        continue;
                    };
                    let Some(rule) = route_ir.rules.get(rule_index) else {
                        continue;
                    };
                    let rule_index = u16::try_from(rule_index).unwrap_or(u16::MAX);
                    for (mi, m) in rule.matches.iter().enumerate() {
                        f(
                            self,
                            MatchSite {
                                host: host.as_deref(),
                                host_spec,
                                route_host,
                                rank,
                                rule_index,
                                rule_id,
                                match_index: u16::try_from(mi).unwrap_or(u16::MAX),
                                m,
                            },
                        );
                    }
                }
            }
        }
    }

    pub(super) fn index_http(&mut self, list: &[AttachedRoute]) -> HostIndex<PathIndex> {
        let mut builders: HostIndex<crate::index::PathIndexBuilder> = HostIndex::default();
        self.for_each_match(list, |this, site| {
            let MatchRead::Http {
                path,
                method,
                headers,
                query,
            } = site.m
            else {
                return;
            };
            let (Some(hm), Some(qm)) = (this.headers(headers), this.query(query)) else {
                // a bad regex drops the match (the validator reports it)
                return;
            };
            let (slot, rank_path, path_regex) = match path {
                PathRead::Exact(p) => (PathSlot::Exact(p), PathRank::Exact, None),
                PathRead::Prefix(p) => (PathSlot::Prefix(p), PathRank::prefix(p), None),
                PathRead::Regex(r) => match this.regexes.intern(r) {
                    Ok(i) => {
                        // other conditions may reject a candidate whose regex matched
                        let rejectable = method.is_some() || !hm.is_empty() || !qm.is_empty();
                        let slot = PathSlot::Regex {
                            regex: i,
                            rejectable,
                        };
                        (slot, PathRank::Regex, Some(i))
                    }
                    Err(_) => return,
                },
            };
            let method_id = this.method_index(method);
            let facts = HttpMatchFacts {
                host: site.host_spec,
                route_host: site.route_host,
                path: rank_path,
                has_method: method.is_some(),
                headers: u8::try_from(hm.len()).unwrap_or(u8::MAX),
                query_params: u8::try_from(qm.len()).unwrap_or(u8::MAX),
            };
            let key = PrecedenceKey::http(facts, site.rank, site.rule_index);
            let cond = Cond {
                path_regex,
                headers: hm,
                query: qm,
                ..Cond::default()
            };
            if let Some(cid) =
                this.push_cand(key, (site.rule_id, site.match_index), method_id, cond)
            {
                let paths = &mut this.paths;
                let b = builders.group_mut(site.host, site.route_host.packed(), this.hash, || {
                    paths.index()
                });
                this.paths.add(b, slot, cid);
            }
        });
        let order = Self::order(&self.keys);
        let (paths, regexes) = (&mut self.paths, &mut self.regexes);
        builders.map(|b| paths.finish(b, &order, regexes))
    }

    pub(super) fn index_grpc(&mut self, list: &[AttachedRoute]) -> HostIndex<GrpcIndex> {
        let mut builders: HostIndex<GrpcIndexBuilder> = HostIndex::default();
        self.for_each_match(list, |this, site| {
            let MatchRead::Grpc {
                service,
                method,
                headers,
            } = site.m
            else {
                return;
            };
            let Some(hm) = this.headers(headers) else {
                return;
            };
            let mut cond = Cond {
                headers: hm,
                ..Cond::default()
            };
            let (mut svc_exact, mut method_exact) = (None, None);
            match service {
                Some(StrMatch::Exact(s)) => svc_exact = Some(s.as_str()),
                Some(StrMatch::Regex(r)) => match this.regexes.intern(r) {
                    Ok(i) => cond.service_regex = Some(i),
                    Err(_) => return,
                },
                None => {}
            }
            match method {
                Some(StrMatch::Exact(s)) => method_exact = Some(s.as_str()),
                Some(StrMatch::Regex(r)) => match this.regexes.intern(r) {
                    Ok(i) => cond.method_regex = Some(i),
                    Err(_) => return,
                },
                None => {}
            }
            let chars =
                |s: Option<&str>| s.map_or(0, |s| u16::try_from(s.len()).unwrap_or(u16::MAX));
            let facts = GrpcMatchFacts {
                host: site.host_spec,
                route_host: site.route_host,
                service_chars: chars(svc_exact),
                method_chars: chars(method_exact),
                headers: u8::try_from(cond.headers.len()).unwrap_or(u8::MAX),
            };
            let key = PrecedenceKey::grpc(facts, site.rank, site.rule_index);
            let cond_regexes = (cond.service_regex, cond.method_regex);
            if let Some(cid) = this.push_cand(key, (site.rule_id, site.match_index), 0, cond) {
                builders
                    .group_mut(site.host, site.route_host.packed(), this.hash, || {
                        GrpcIndexBuilder::new(this.hash)
                    })
                    .add(svc_exact, method_exact, cond_regexes, cid);
            }
        });
        let order = Self::order(&self.keys);
        let regexes = &mut self.regexes;
        builders.map(|b| b.finish(&order, regexes))
    }

    /// TLSRoute: by SNI hostname; among routes on the same hostname group the oldest wins.
    pub(super) fn index_tls(&mut self, list: &[AttachedRoute]) -> HostIndex<Box<[u32]>> {
        let mut groups: HostIndex<Vec<u32>> = HostIndex::default();
        for a in list {
            let rank = self
                .ranks
                .get(a.route_id as usize)
                .copied()
                .unwrap_or_default();
            let Some(rule_id) = self.ids(a.rules).first().copied().flatten() else {
                continue;
            };
            let rule_index = 0u16;
            for (hi, host) in a.hosts.iter().enumerate() {
                let route_host = a.route_hosts.get(hi).copied().unwrap_or_default();
                let facts = HttpMatchFacts {
                    host: HostSpecificity::of(host.as_deref()),
                    route_host,
                    path: PathRank::Regex,
                    has_method: false,
                    headers: 0,
                    query_params: 0,
                };
                let key = PrecedenceKey::http(facts, rank, rule_index);
                let Some(cid) = self.push_cand(key, (rule_id, 0), 0, Cond::default()) else {
                    continue;
                };
                groups
                    .group_mut(host.as_deref(), route_host.packed(), self.hash, Vec::new)
                    .push(cid);
            }
        }
        let order = Self::order(&self.keys);
        let freeze = |mut v: Vec<u32>| -> Box<[u32]> {
            v.sort_by(&order);
            v.into_boxed_slice()
        };
        groups.map(freeze)
    }
}
