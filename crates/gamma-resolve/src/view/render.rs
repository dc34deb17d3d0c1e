//! Rendering the compiled table into its views ([`RouteTable::view`]): every binding, its
//! route sets, their entries in the order a request tries them, and what was left out.

use crate::decision::RouteRef;
use crate::index::HostIndex;
use crate::input::{L4, PathModifierIr};
use crate::table::{
    Action, BackendState, Binding, Excluded, ExcludedWhy, ParentIx, Part, RouteSet, RouteTable,
    RuleEntry, SetLabel,
};

use super::*;

impl RouteTable {
    /// [`RouteTable::view`].
    pub(crate) fn binding_views(&self) -> Vec<BindingView<'_>> {
        let mut keys: Vec<_> = self.bindings.iter().collect();
        keys.sort_unstable_by_key(|(k, _)| **k);
        keys.into_iter()
            .map(|(&(address, port, transport), (part, binding))| {
                let part: &Part = part;
                let (sets, left_out, not_accepted) = match binding {
                    Binding::Service {
                        service,
                        producer,
                        consumers,
                        ..
                    } => {
                        let ids = producer.iter().chain(consumers.iter().map(|(_, s)| s));
                        let left_out = part
                            .services
                            .get(*service as usize)
                            .map(|s| {
                                self.left_out_for_service(&s.namespace, part.text(s.name))
                                    .collect()
                            })
                            .unwrap_or_default();
                        let sets = ids
                            .filter_map(|s| part.set_view(part.sets.get(*s as usize)?, None))
                            .collect();
                        let not_accepted = part.not_accepted_of(ParentIx::Service(*service));
                        (sets, left_out, not_accepted)
                    }
                    // a ready endpoint of several headless Services: none of their sets
                    // serves it (requests get WorkloadConflict)
                    Binding::Conflict { .. } => (Vec::new(), Vec::new(), Vec::new()),
                    Binding::Gateway { gateway, listeners } => {
                        let mut parents = vec![ParentIx::Gateway(*gateway)];
                        for l in listeners.iter() {
                            if let Some(SetLabel::ListenerSetListener { listener_set, .. }) =
                                part.sets.get(l.set as usize).map(|s| &s.label)
                            {
                                parents.push(ParentIx::ListenerSet(*listener_set));
                            }
                        }
                        parents.sort_unstable();
                        parents.dedup();
                        let not_accepted = parents
                            .into_iter()
                            .flat_map(|p| part.not_accepted_of(p))
                            .collect();
                        let sets = listeners
                            .iter()
                            .filter_map(|l| {
                                part.set_view(part.sets.get(l.set as usize)?, l.hostname.as_deref())
                            })
                            .collect();
                        (sets, Vec::new(), not_accepted)
                    }
                };
                BindingView {
                    address,
                    port,
                    transport: if transport == L4::Udp { "UDP" } else { "TCP" },
                    sets,
                    left_out,
                    not_accepted,
                }
            })
            .collect()
    }
}

/// The hostname groups of an index in the order `HostIndex::find` tries them: exact names,
/// wildcards by longer suffix, then any host (names sorted among equals: the maps' order
/// depends on `BuildOptions::hash_seed`, a view's must not).
fn host_groups<G>(h: &HostIndex<G>) -> Vec<(Option<HostView<'_>>, &G)> {
    let mut out: Vec<(Option<HostView<'_>>, &G)> = Vec::new();
    if let Some(n) = h.named.as_deref() {
        let mut exact: Vec<_> = n.exact.iter().collect();
        exact.sort_by_key(|(k, _)| *k);
        let mut wild: Vec<_> = n.wild.iter().collect();
        wild.sort_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        // a hostname's tiers (routes ranked by their own hostnames) in the order tried
        out.extend(
            exact
                .into_iter()
                .flat_map(|(k, t)| t.iter().map(move |g| (Some(HostView::Exact(k)), g))),
        );
        out.extend(
            wild.into_iter()
                .flat_map(|(k, t)| t.iter().map(move |g| (Some(HostView::Wildcard(k)), g))),
        );
    }
    out.extend(h.any.iter().map(|g| (None, g)));
    out
}

/// The exact service and method names a gRPC candidate is indexed under.
type GrpcNames<'t> = (Option<&'t str>, Option<&'t str>);

impl Part {
    /// The view of one of this part's route sets.
    pub(crate) fn set_view<'t>(
        &'t self,
        set: &'t RouteSet,
        listener_hostname: Option<&'t str>,
    ) -> Option<SetView<'t>> {
        let (frontend, route_set) = self.set_frontend(set)?;
        let mut http = Vec::new();
        if let Some(h) = &set.http {
            for (hostname, pi) in host_groups(h) {
                let mut cands: Vec<(u32, PathView<'t>)> = Vec::new();
                for (p, list) in self.paths.exact_keys(pi) {
                    cands.extend(list.iter().map(|c| (*c, PathView::Exact(p))));
                }
                for (p, list) in self.paths.prefix_keys(pi) {
                    let p = if p.is_empty() { "/" } else { p };
                    cands.extend(list.iter().map(|c| (*c, PathView::PathPrefix(p))));
                }
                for &c in self.paths.list(pi.regex_run()) {
                    let pattern = self
                        .cands
                        .get(c as usize)
                        .and_then(|x| self.cond_of(x))
                        .and_then(|x| x.path_regex)
                        .map_or("", |i| self.regex_text(i));
                    cands.push((c, PathView::RegularExpression(pattern)));
                }
                self.sort_cands(&mut cands);
                http.extend(cands.into_iter().filter_map(|(c, path)| {
                    let cand = self.cands.get(c as usize)?;
                    let cond = self.cond_of(cand);
                    let condition = MatchView::Http {
                        path,
                        method: match cand.method {
                            0 => None,
                            m => self.methods.get(usize::from(m)).map(|m| &**m),
                        },
                        headers: cond.map(|c| self.values(&c.headers)).unwrap_or_default(),
                        query: cond.map(|c| self.values(&c.query)).unwrap_or_default(),
                    };
                    self.entry_view(c, hostname, condition)
                }));
            }
        }
        let mut grpc = Vec::new();
        if let Some(g) = &set.grpc {
            for (hostname, gi) in host_groups(g) {
                let mut cands: Vec<(u32, GrpcNames<'t>)> = Vec::new();
                for (k, list) in &gi.both {
                    let (s, m) = k.split_once('/').unwrap_or((k, ""));
                    cands.extend(list.iter().map(|c| (*c, (Some(s), Some(m)))));
                }
                for (k, list) in &gi.service {
                    cands.extend(list.iter().map(|c| (*c, (Some(&**k), None))));
                }
                for (k, list) in &gi.method {
                    cands.extend(list.iter().map(|c| (*c, (None, Some(&**k)))));
                }
                cands.extend(gi.rest.iter().map(|c| (*c, (None, None))));
                self.sort_cands(&mut cands);
                grpc.extend(cands.into_iter().filter_map(|(c, (s, m))| {
                    let cand = self.cands.get(c as usize)?;
                    let cond = self.cond_of(cand);
                    let name = |exact: Option<&'t str>, regex: Option<u32>| match (exact, regex) {
                        (Some(v), _) => Some(NameView {
                            regex: false,
                            value: v,
                        }),
                        (None, Some(i)) => Some(NameView {
                            regex: true,
                            value: self.regex_text(i),
                        }),
                        (None, None) => None,
                    };
                    let condition = MatchView::Grpc {
                        service: name(s, cond.and_then(|c| c.service_regex)),
                        method: name(m, cond.and_then(|c| c.method_regex)),
                        headers: cond.map(|c| self.values(&c.headers)).unwrap_or_default(),
                    };
                    self.entry_view(c, hostname, condition)
                }));
            }
        }
        let mut tls = Vec::new();
        if let Some(t) = &set.tls {
            for (hostname, list) in host_groups(t) {
                tls.extend(
                    list.iter()
                        .filter_map(|&c| self.entry_view(c, hostname, MatchView::Sni)),
                );
            }
        }
        let rule_view = |id: Option<u32>| {
            let rule = self.rules.get(id? as usize)?;
            Some(RuleView {
                rule: self.rule_ref(rule),
                filters: self.filters_view(rule.extras, Some(rule)),
                action: self.action_view(rule),
            })
        };
        let mut excluded: Vec<ExcludedView<'t>> = set
            .excluded
            .iter()
            .filter_map(|e| self.excluded_view(e))
            .collect();
        let facts = |e: &EntryView<'t>| self.keys.get(e.cand as usize).map_or(0, |k| k.facts());
        shadow::rules(&http, facts, &mut excluded);
        shadow::rules(&grpc, facts, &mut excluded);
        shadow::tls(&tls, &mut excluded);
        // by route (kind, namespace, name), then rule; stable: a rule's shadows stay in the
        // order of the list
        excluded.sort_by(|a, b| {
            let key =
                |x: &ExcludedView<'t>| (x.route.kind, x.route.namespace, x.route.name, x.rule);
            key(a).cmp(&key(b))
        });
        Some(SetView {
            frontend,
            route_set,
            listener_hostname,
            route_kind: set.mesh_kind,
            http,
            grpc,
            tls,
            tcp: rule_view(set.tcp),
            udp: rule_view(set.udp),
            excluded,
        })
    }

    /// Candidates in precedence order (the candidate id breaks ties, as the index does).
    fn sort_cands<T>(&self, cands: &mut [(u32, T)]) {
        cands.sort_by_key(|(c, _)| (self.keys.get(*c as usize).map_or(0, |k| k.0), *c));
    }

    /// A regex of the pool as written (the pool compiles it anchored as `^(?:…)$`).
    fn regex_text(&self, i: u32) -> &str {
        self.regexes.get(i).map_or("", |re| {
            let s = re.as_str();
            s.strip_prefix("^(?:")
                .and_then(|s| s.strip_suffix(")$"))
                .unwrap_or(s)
        })
    }

    fn values<'t>(&'t self, list: &'t crate::cond::NamedMatches) -> Vec<ValueView<'t>> {
        list.iter()
            .map(|(name, m)| match m {
                crate::cond::ValueMatch::Exact(v) => ValueView {
                    name,
                    regex: false,
                    value: v,
                },
                crate::cond::ValueMatch::Regex(i) => ValueView {
                    name,
                    regex: true,
                    value: self.regex_text(*i),
                },
            })
            .collect()
    }

    fn path_modifier<'t>(
        &'t self,
        m: &'t PathModifierIr,
        rule: Option<&'t RuleEntry>,
    ) -> PathModifierView<'t> {
        match m {
            PathModifierIr::Full(p) => PathModifierView::ReplaceFullPath { path: p },
            PathModifierIr::Prefix(r) => PathModifierView::ReplacePrefixMatch {
                matched_prefix: rule
                    .and_then(|rule| self.extras_of(rule.extras).prefix.as_deref())
                    .unwrap_or("/"),
                replacement: r,
            },
        }
    }

    /// The filters at an extras index; `rule` is the rule they belong to (or whose backendRef
    /// they are on), for the prefix a `ReplacePrefixMatch` replaces.
    fn filters_view<'t>(&'t self, extras: u32, rule: Option<&'t RuleEntry>) -> FiltersView<'t> {
        let x = self.extras_of(extras);
        FiltersView {
            request_headers: &x.request_headers,
            response_headers: &x.response_headers,
            rewrite: x.rewrite.as_ref().map(|rw| RewriteView {
                hostname: rw.hostname.as_deref(),
                path: rw.path.as_ref().map(|m| self.path_modifier(m, rule)),
            }),
            mirrors: &x.mirrors,
            cors: x.cors.as_ref(),
            timeouts: x.timeouts.as_ref(),
            retry: x.retry.as_ref(),
            extensions: &x.extensions,
        }
    }

    fn action_view<'t>(&'t self, rule: &'t RuleEntry) -> ActionView<'t> {
        match &rule.action {
            Action::Backends(..) => ActionView::Backends {
                backends: self
                    .backends_of(&rule.action)
                    .iter()
                    .filter_map(|b| {
                        let t = self.targets.get(b.target as usize)?;
                        Some(BackendView {
                            backend: crate::table::target(t),
                            weight: b.weight,
                            unusable: match b.state {
                                BackendState::Ok => None,
                                BackendState::NoEndpoints => Some("NoReadyEndpoints"),
                                BackendState::Invalid(r) => Some(r.as_str()),
                            },
                            filters: self.filters_view(b.extras, Some(rule)),
                        })
                    })
                    .collect(),
            },
            Action::Redirect(r) => ActionView::Redirect {
                status: r.status,
                scheme: r.scheme,
                hostname: r.hostname.as_deref(),
                port: r.port,
                path: r.path.as_ref().map(|m| self.path_modifier(m, Some(rule))),
            },
            Action::Fail(reason) => ActionView::Fail { reason: *reason },
        }
    }

    fn entry_view<'t>(
        &'t self,
        c: u32,
        hostname: Option<HostView<'t>>,
        condition: MatchView<'t>,
    ) -> Option<EntryView<'t>> {
        let cand = self.cands.get(c as usize)?;
        let rule = self.rules.get(cand.rule as usize)?;
        Some(EntryView {
            rule: self.rule_ref(rule),
            match_index: cand.match_index,
            hostname,
            condition,
            filters: self.filters_view(rule.extras, Some(rule)),
            action: self.action_view(rule),
            cand: c,
        })
    }

    /// The routes `parent` did not accept (a range of the sorted notes).
    pub(crate) fn not_accepted_of(&self, parent: ParentIx) -> Vec<ExcludedView<'_>> {
        let start = self.not_accepted.partition_point(|n| n.parent < parent);
        let end = self.not_accepted.partition_point(|n| n.parent <= parent);
        self.not_accepted
            .get(start..end)
            .unwrap_or(&[])
            .iter()
            .filter_map(|n| {
                let route = self.routes.get(n.route as usize)?;
                Some(ExcludedView {
                    route: RouteRef {
                        kind: route.kind,
                        namespace: self.route_namespace(route),
                        name: &route.name,
                    },
                    rule: None,
                    reason: ExclusionView::NotAccepted {
                        reason: n.reason,
                        message: n.message,
                    },
                })
            })
            .collect()
    }

    fn excluded_view<'t>(&'t self, e: &'t Excluded) -> Option<ExcludedView<'t>> {
        let route = self.routes.get(e.route as usize)?;
        let reason = match &e.why {
            ExcludedWhy::RuleInvalid(reason, message) => {
                ExclusionView::RuleInvalid { reason, message }
            }
            ExcludedWhy::LostToKind(winner) => ExclusionView::LostToKind { winner: *winner },
            ExcludedWhy::Shadowed(rule) => ExclusionView::Shadowed {
                hostname: None,
                by: self.rule_ref(self.rules.get(*rule as usize)?),
            },
        };
        Some(ExcludedView {
            route: RouteRef {
                kind: route.kind,
                namespace: self.route_namespace(route),
                name: &route.name,
            },
            rule: e.rule,
            reason,
        })
    }
}
