//! The resolve path: one hash lookup on (address, port), the route set for the client, the
//! hostname group, then the path/method index yielding candidates in precedence order; the
//! first candidate whose remaining conditions hold wins. Allocation-free.

use crate::cond::{Cond, Probe, split_grpc_path};
use crate::decision::{
    Decision, Forward, GrpcCode, Redirect, Respond, RespondReason, RouteRef, RuleRef, Status,
    UrlRewrite,
};
use crate::hostname::{self, normalize_host};
use crate::index::{GrpcIndex, HostIndex};
use crate::input::{L4, PathModifierIr};
use crate::listener_filter::ListenerFilters;
use crate::path::split_path_query;
use crate::redirect::{Location, RedirectRequest, RedirectSpec};
use crate::request::Scheme;
use crate::request::{Protocol, Request};
use crate::rewrite::{PathModifier, RewrittenPath};
use crate::table::{
    Action, BackendState, Binding, Cand, Key, Part, RouteSet, RouteTable, RuleEntry,
};
use crate::weights;
use gamma_model::RouteKind;

/// Where the request was bound, for decisions and explanations.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Bound<'a> {
    Nothing,
    /// A Gateway port with no listener for the host.
    NoListener,
    /// A ready endpoint of several headless Services with routes
    /// ([`crate::MeshBinding::Workloads`]).
    Conflict,
    /// A route set of a part, and the scheme of requests that give none (the listener's).
    Set(&'a Part, &'a RouteSet, Scheme),
}

/// What binding and matching found for a request (the steps of [`RouteTable::resolve`] before
/// the action, for traces).
pub(crate) enum Located<'a> {
    /// Nothing is bound: passthrough.
    Nothing,
    /// The engine answers itself, with no rule.
    Answer(RespondReason),
    /// A rule of a part decides; the scheme is the listener's (for requests that give none).
    Rule(&'a Part, &'a RuleEntry, Scheme),
}

/// What the route set lookup found.
pub(crate) enum Matched {
    /// A rule (by id), and the candidate that matched.
    Rule(u32),
    NoMatch,
    ProtocolMismatch,
}

/// The key a request is bound at: its destination address and port, and its transport.
#[inline]
pub(crate) fn binding_key(req: &Request<'_>) -> Key {
    let l4 = if req.protocol == Protocol::Udp {
        L4::Udp
    } else {
        L4::Tcp
    };
    (req.destination, req.port, l4)
}

/// The host a request is matched by (listeners, hostname groups): the SNI of a TLS request,
/// else the `Host` header, normalised.
#[inline]
pub(crate) fn matched_host<'r>(req: &Request<'r>) -> Option<&'r str> {
    match req.protocol {
        Protocol::Tls => req.sni,
        _ => req.host,
    }
    .map(normalize_host)
}

/// Which route set of its binding a request goes to: the one choice [`RouteTable::resolve`]
/// makes and [`RouteTable::explain`] reports.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SetChoice<'a, 'r> {
    /// A route set of the binding's part, and the scheme of requests that give none (the
    /// listener's).
    Set(&'a RouteSet, Scheme),
    /// A Service binding with no route set for the client: no consumer routes in its
    /// namespace and no producer routes.
    NoServiceSet,
    /// A Gateway binding with no listener for the host (normalised; `None`: the request gave
    /// none).
    NoListener(Option<&'r str>),
    /// A ready endpoint of several headless Services with routes
    /// ([`crate::MeshBinding::Workloads`]).
    Conflict,
}

impl Part {
    /// The route set of `binding` (one of this part's) that `req` goes to. For a Service
    /// (GEP-1294 namespace boundaries): the client namespace's consumer routes if it has any,
    /// else the producer routes, never merged. For a Gateway (Gateway API listener
    /// selection): the most specific listener whose hostname matches the host (the SNI for
    /// TLS), with no fallback.
    // Inlined into the resolve path (an out-of-line call cost ~35 instructions a resolve,
    // 3%, measured with callgrind); explain pays the copy.
    #[inline(always)]
    pub(crate) fn choose_set<'a, 'r>(
        &'a self,
        binding: &'a Binding,
        req: &Request<'r>,
    ) -> SetChoice<'a, 'r> {
        match binding {
            Binding::Service {
                producer,
                consumers,
                ..
            } => {
                let consumer = match req.source_namespace {
                    Some(ns) if !consumers.is_empty() => crate::table::consumer_set(consumers, ns),
                    _ => None,
                };
                match consumer
                    .or(*producer)
                    .and_then(|s| self.sets.get(s as usize))
                {
                    Some(set) => SetChoice::Set(set, Scheme::Http),
                    None => SetChoice::NoServiceSet,
                }
            }
            Binding::Conflict { .. } => SetChoice::Conflict,
            Binding::Gateway { listeners, .. } => {
                let host = matched_host(req);
                // Gateway API listener selection: the most specific listener whose hostname
                // matches; no fallback.
                let l = listeners.iter().find(|l| match (&l.hostname, host) {
                    (None, _) => true,
                    (Some(h), Some(req_host)) => hostname::matches(h, req_host),
                    (Some(_), None) => false,
                });
                match l.and_then(|l| Some((self.sets.get(l.set as usize)?, l.scheme))) {
                    Some((set, scheme)) => SetChoice::Set(set, scheme),
                    None => SetChoice::NoListener(host),
                }
            }
        }
    }
}

impl RouteTable {
    pub(crate) fn bind<'a>(&'a self, req: &Request<'_>) -> Bound<'a> {
        let Some((part, binding)) = self.bindings.get(&binding_key(req)) else {
            return Bound::Nothing;
        };
        match part.choose_set(binding, req) {
            SetChoice::Set(set, scheme) => Bound::Set(part, set, scheme),
            SetChoice::NoServiceSet => Bound::Nothing,
            SetChoice::NoListener(_) => Bound::NoListener,
            SetChoice::Conflict => Bound::Conflict,
        }
    }

    /// [`RouteTable::resolve`]: bind, match in the route set, act.
    pub(crate) fn decide<'a>(&'a self, req: &Request<'a>, entropy: u64) -> Decision<'a> {
        match self.bind(req) {
            Bound::Nothing => Decision::Passthrough,
            Bound::NoListener => respond(req.protocol, None, RespondReason::NoMatchingListener),
            Bound::Conflict => respond(req.protocol, None, RespondReason::WorkloadConflict),
            Bound::Set(part, set, scheme) => match set.listener_filters.as_deref() {
                None => part.decide_in(set, req, scheme, entropy),
                Some(filters) => part.decide_through(filters, set, req, scheme, entropy),
            },
        }
    }
}

impl Part {
    /// [`Part::decide_in`] for a listener with pre-routing filters (GEP-5224): they apply to
    /// HTTP requests (gRPC included), which carry them; the listener, route and backend are
    /// the ones without them. Filters the engine cannot apply (an `ExtensionRef` under
    /// `ExtensionRefs::Reject`) fail the request before routing.
    #[cold]
    #[inline(never)]
    pub(crate) fn decide_through<'a>(
        &'a self,
        filters: &'a ListenerFilters,
        set: &'a RouteSet,
        req: &Request<'a>,
        scheme: Scheme,
        entropy: u64,
    ) -> Decision<'a> {
        if !matches!(req.protocol, Protocol::Http | Protocol::Grpc) {
            return self.decide_in(set, req, scheme, entropy);
        }
        if !filters.applicable() {
            return respond(req.protocol, None, RespondReason::UnsupportedListenerFilter)
                .through(filters);
        }
        self.decide_in(set, req, scheme, entropy).through(filters)
    }
}

impl RouteTable {
    /// Binds a request and finds the rule that decides it (or why none does), with the part
    /// and route set it was found in: [`RouteTable::resolve`] up to the action.
    pub(crate) fn locate<'a>(
        &'a self,
        req: &Request<'_>,
        pq: (&str, Option<&str>),
    ) -> (Located<'a>, Option<(&'a Part, &'a RouteSet)>) {
        match self.bind(req) {
            Bound::Nothing => (Located::Nothing, None),
            Bound::NoListener => (Located::Answer(RespondReason::NoMatchingListener), None),
            Bound::Conflict => (Located::Answer(RespondReason::WorkloadConflict), None),
            Bound::Set(_, set, _)
                if matches!(req.protocol, Protocol::Http | Protocol::Grpc)
                    && set
                        .listener_filters
                        .as_deref()
                        .is_some_and(|f| !f.applicable()) =>
            {
                (
                    Located::Answer(RespondReason::UnsupportedListenerFilter),
                    None,
                )
            }
            Bound::Set(part, set, scheme) => {
                let located = match part.rule_in(set, req, pq) {
                    Ok(rule) => Located::Rule(part, rule, scheme),
                    Err(reason) => Located::Answer(reason),
                };
                (located, Some((part, set)))
            }
        }
    }
}

impl Part {
    /// Finds the winning rule in a route set. Out of line, as it always was: inlined into
    /// [`Part::rule_in`] it costs every resolve about ten instructions more (measured).
    #[inline(never)]
    pub(crate) fn match_in_set(
        &self,
        set: &RouteSet,
        req: &Request<'_>,
        (path, query): (&str, Option<&str>),
    ) -> Matched {
        let hit = |r: Option<u32>| r.map_or(Matched::NoMatch, Matched::Rule);
        match req.protocol {
            Protocol::Udp => hit(set.udp),
            Protocol::Http | Protocol::Grpc => {
                let host = req.host;
                let (service, method) = if req.protocol == Protocol::Grpc {
                    split_grpc_path(path)
                } else {
                    ("", "")
                };
                let probe = Probe {
                    method: req.method,
                    path,
                    query,
                    headers: req.headers,
                    grpc_service: service,
                    grpc_method: method,
                    path_regex_matched: true,
                    // HTTPRoute candidates have no gRPC regexes; GRPCRoute candidates the
                    // prefilter set confirms skip theirs (`Part::find_grpc`)
                    grpc_regexes_matched: req.protocol != Protocol::Grpc,
                };
                let check = |c: u32| self.check(c, &probe);
                if req.protocol == Protocol::Grpc
                    && let Some(g) = &set.grpc
                {
                    let r = self.find_grpc(g, host, &probe);
                    // On a Gateway listener both kinds coexist (Gateway API GRPCRoute cross
                    // serving): a gRPC request no GRPCRoute takes may still match an HTTPRoute. In
                    // mesh only one kind is bound (GEP-1294 route types).
                    if r.is_some() || set.mesh_kind.is_some() || set.http.is_none() {
                        return hit(r);
                    }
                }
                if let Some(h) = &set.http {
                    return hit(h.find(host, |pi| pi.find(&self.paths, &self.regexes, path, check)));
                }
                if set.grpc.is_some() {
                    // GRPCRoutes only match gRPC requests.
                    return Matched::NoMatch;
                }
                match set.tcp {
                    Some(r) => Matched::Rule(r),
                    // a listener with no route attached: no rule matches (404, HTTPRouteRule.matches)
                    None if set.is_empty() => Matched::NoMatch,
                    None => Matched::ProtocolMismatch,
                }
            }
            Protocol::Tls | Protocol::Tcp => {
                if req.protocol == Protocol::Tls
                    && let Some(t) = &set.tls
                {
                    let sni = req.sni;
                    let r = t.find(sni, |list| {
                        list.first()
                            .and_then(|c| self.cands.get(*c as usize))
                            .map(|c| c.rule)
                    });
                    return hit(r);
                }
                match set.tcp {
                    Some(r) => Matched::Rule(r),
                    // a listener with no route attached: no rule matches (404, HTTPRouteRule.matches)
                    None if set.is_empty() => Matched::NoMatch,
                    None => Matched::ProtocolMismatch,
                }
            }
        }
    }

    /// The rule of candidate `c` when its method and conditions hold for `probe`.
    #[inline]
    fn check(&self, c: u32, probe: &Probe<'_>) -> Option<u32> {
        match self.decided(c, probe, probe.grpc_regexes_matched)? {
            Ok(rule) => Some(rule),
            Err((cand, cond)) => self.check_conds(cand, cond, probe),
        }
    }

    /// [`Part::check`] of a gRPC request's candidate, `grpc_matched` telling whether the
    /// prefilter set confirmed it (in place of the probe's [`Probe::grpc_regexes_matched`],
    /// `false` for a gRPC request), so that a confirmed candidate needs no copy of the probe
    /// (~15 instructions a gRPC regex hit, callgrind) unless it has conditions left to check.
    /// Apart from [`Part::check`], which HTTP requests run inlined: one body for both cost
    /// them a few instructions more (callgrind).
    #[inline]
    fn check_as(&self, c: u32, probe: &Probe<'_>, grpc_matched: bool) -> Option<u32> {
        match self.decided(c, probe, grpc_matched)? {
            Ok(rule) => Some(rule),
            Err((cand, cond)) if grpc_matched => self.check_confirmed_conds(cand, cond, probe),
            Err((cand, cond)) => self.check_conds(cand, cond, probe),
        }
    }

    /// Candidate `c`'s rule when the index decided it: a path-only match, or a regex-only
    /// match whose regexes matched (`grpc_matched`: the gRPC ones, as [`Part::check`] and
    /// [`Part::check_as`] know it), which is all `Cond::check_all` would find, without its
    /// call; else the candidate and its condition, to check. Always inlined into both: the
    /// shared step of two bodies kept apart for their callers' code.
    #[inline(always)]
    fn decided(
        &self,
        c: u32,
        probe: &Probe<'_>,
        grpc_matched: bool,
    ) -> Option<Result<u32, (&Cand, Option<&Cond>)>> {
        let cand = self.cands.get(c as usize)?;
        if cand.method == 0 && cand.cond == 0 {
            // path-only match: the index already decided it
            return Some(Ok(cand.rule));
        }
        let cond = self.cond_of(cand);
        if cand.method == 0
            && probe.path_regex_matched
            && grpc_matched
            && cond.is_none_or(|c| c.headers.is_empty() && c.query.is_empty())
        {
            // a regex-only match the index has matched (the regex set's hit, a confirmed
            // gRPC prefilter position)
            return Some(Ok(cand.rule));
        }
        Some(Err((cand, cond)))
    }

    /// [`Part::check_conds`] of a candidate whose gRPC regexes the prefilter set confirmed:
    /// the probe's copy that says so is made here, for the few such candidates with a
    /// method or conditions left to check.
    #[inline(never)]
    fn check_confirmed_conds(
        &self,
        cand: &Cand,
        cond: Option<&Cond>,
        probe: &Probe<'_>,
    ) -> Option<u32> {
        let confirmed = Probe {
            grpc_regexes_matched: true,
            ..*probe
        };
        self.check_conds(cand, cond, &confirmed)
    }

    /// [`Part::check`] of a candidate with a method or conditions left to check. Out of
    /// line: inlined, it made every caller's frame larger (gRPC 404s, which check no
    /// candidate, paid 36 instructions more; callgrind).
    #[inline(never)]
    fn check_conds(&self, cand: &Cand, cond: Option<&Cond>, probe: &Probe<'_>) -> Option<u32> {
        let method = self
            .methods
            .get(usize::from(cand.method))
            .map_or("", |m| &**m);
        Cond::check_all(cond, method, probe, &self.regexes)
            .ok()
            .map(|()| cand.rule)
    }

    /// The first rule of a route set's gRPC index whose match `probe` (a gRPC request)
    /// satisfies; a candidate the prefilter set confirmed skips its service and method
    /// regexes. Out of line, so that the HTTP path of [`Part::match_in_set`] compiles as
    /// small as it did before (inlined, it costs HTTP requests about 15 instructions).
    #[inline(never)]
    fn find_grpc(
        &self,
        g: &HostIndex<GrpcIndex>,
        host: Option<&str>,
        probe: &Probe<'_>,
    ) -> Option<u32> {
        let (path, service, method) = (probe.path, probe.grpc_service, probe.grpc_method);
        g.find(host, |gi| {
            // `probe` is a gRPC request's: its own flag is `false` (`Part::match_in_set`)
            gi.find(&self.regexes, path, service, method, |c, matched| {
                self.check_as(c, probe, matched)
            })
        })
    }

    /// Matches in one of this part's route sets and acts.
    #[inline]
    pub(crate) fn decide_in<'a>(
        &'a self,
        set: &'a RouteSet,
        req: &Request<'a>,
        scheme: Scheme,
        entropy: u64,
    ) -> Decision<'a> {
        // split once; both matching and the action need it
        let pq = split_path_query(req.path_and_query);
        match self.rule_in(set, req, pq) {
            Ok(rule) => self.act(rule, req, scheme, pq, entropy),
            Err(reason) => respond(req.protocol, None, reason),
        }
    }

    /// The rule of one of this part's route sets that decides `req` (`pq`: its path and
    /// query, split), or why none does.
    #[inline]
    pub(crate) fn rule_in<'a>(
        &'a self,
        set: &RouteSet,
        req: &Request<'_>,
        pq: (&str, Option<&str>),
    ) -> Result<&'a RuleEntry, RespondReason> {
        match self.match_in_set(set, req, pq) {
            Matched::NoMatch => Err(RespondReason::NoMatchingRule),
            Matched::ProtocolMismatch => Err(RespondReason::ProtocolMismatch),
            Matched::Rule(id) => self
                .rules
                .get(id as usize)
                .ok_or(RespondReason::NoMatchingRule),
        }
    }

    pub(crate) fn rule_ref<'a>(&'a self, rule: &'a RuleEntry) -> RuleRef<'a> {
        let route = self.routes.get(rule.route as usize);
        RuleRef {
            route: RouteRef {
                kind: route.map_or(gamma_model::RouteKind::Http, |r| r.kind),
                namespace: route.map_or("", |r| self.route_namespace(r)),
                name: route.map_or("", |r| &r.name),
            },
            index: rule.index,
            name: self.rule_name(rule),
        }
    }

    /// Turns a matched rule into a decision.
    pub(crate) fn act<'a>(
        &'a self,
        rule: &'a RuleEntry,
        req: &Request<'a>,
        listener_scheme: Scheme,
        (path, query): (&'a str, Option<&'a str>),
        entropy: u64,
    ) -> Decision<'a> {
        let rref = self.rule_ref(rule);
        let modifier = |m: &'a PathModifierIr| match m {
            PathModifierIr::Full(p) => PathModifier::ReplaceFullPath(p),
            PathModifierIr::Prefix(r) => PathModifier::ReplacePrefixMatch {
                matched_prefix: self.extras_of(rule.extras).prefix.as_deref().unwrap_or("/"),
                replacement: r,
            },
        };
        match &rule.action {
            Action::Fail(reason) => respond(req.protocol, Some(rref), *reason),
            Action::Redirect(r) => {
                let new_path = r.path.as_ref().map_or(RewrittenPath::unchanged(path), |m| {
                    RewrittenPath::apply(modifier(m), path)
                });
                let location = Location::compute(
                    RedirectSpec {
                        scheme: r.scheme,
                        hostname: r.hostname.as_deref(),
                        port: r.port,
                    },
                    RedirectRequest {
                        scheme: req.scheme.unwrap_or(listener_scheme),
                        host: req.host.map(normalize_host),
                        address: req.destination,
                        bound_port: req.port,
                        query,
                    },
                    new_path,
                );
                Decision::Redirect(Redirect {
                    rule: rref,
                    status: r.status,
                    location,
                    listener_filters: None,
                })
            }
            Action::Backends(..) => {
                let bs = self.backends_of(&rule.action);
                let Some(i) = weights::pick(bs.iter().map(|b| b.weight), entropy) else {
                    return respond(req.protocol, Some(rref), RespondReason::AllWeightsZero);
                };
                let Some(b) = bs.get(i) else {
                    return respond(req.protocol, Some(rref), RespondReason::AllWeightsZero);
                };
                match b.state {
                    BackendState::Invalid(_) => {
                        return respond(req.protocol, Some(rref), RespondReason::InvalidBackend);
                    }
                    BackendState::NoEndpoints => {
                        return respond(req.protocol, Some(rref), RespondReason::NoReadyEndpoints);
                    }
                    BackendState::Ok => {}
                }
                let rx = self.extras_of(rule.extras);
                let bx = self.extras_of(b.extras);
                let rw = rx.rewrite.as_ref().or(bx.rewrite.as_ref());
                let rewrite = rw.map(|rw| UrlRewrite {
                    host: rw.hostname.as_deref(),
                    path: rw
                        .path
                        .as_ref()
                        .map(|m| RewrittenPath::apply(modifier(m), path)),
                });
                let Some(t) = self.targets.get(b.target as usize) else {
                    return respond(req.protocol, Some(rref), RespondReason::InvalidBackend);
                };
                // BackendTLSPolicy applies to HTTPRoute and GRPCRoute backends (its Extended
                // support); a policy whose CA certificates cannot be used fails the request.
                let backend_tls = match t.tls {
                    Some(i) if matches!(rref.route.kind, RouteKind::Http | RouteKind::Grpc) => {
                        match self.backend_tls.get(i as usize) {
                            Some(slot) if slot.failure.is_none() => Some(&slot.tls),
                            _ => {
                                return respond(
                                    req.protocol,
                                    Some(rref),
                                    RespondReason::InvalidBackendTls,
                                );
                            }
                        }
                    }
                    _ => None,
                };
                Decision::Forward(Forward {
                    rule: rref,
                    backend: crate::table::target(t),
                    backend_index: u16::try_from(i).unwrap_or(u16::MAX),
                    request_headers: &rx.request_headers,
                    response_headers: &rx.response_headers,
                    backend_request_headers: &bx.request_headers,
                    backend_response_headers: &bx.response_headers,
                    rewrite,
                    mirrors: &rx.mirrors,
                    cors: rx.cors.as_ref(),
                    timeouts: rx.timeouts.as_ref(),
                    retry: rx.retry.as_ref(),
                    extensions: &rx.extensions,
                    backend_tls,
                    listener_filters: None,
                })
            }
        }
    }
}

/// The status for a reason, by protocol (Gateway API GRPCRouteRule.matches: gRPC UNIMPLEMENTED /
/// UNAVAILABLE; Gateway API HTTPRouteRule.backendRefs: L4 connections are rejected).
pub(crate) fn status_for(protocol: Protocol, reason: RespondReason) -> Status {
    match protocol {
        Protocol::Grpc => Status::Grpc(match reason {
            RespondReason::NoMatchingRule
            | RespondReason::NoMatchingListener
            | RespondReason::ProtocolMismatch => GrpcCode::Unimplemented,
            _ => GrpcCode::Unavailable,
        }),
        Protocol::Http => Status::Http(match reason {
            RespondReason::NoMatchingRule | RespondReason::NoMatchingListener => 404,
            RespondReason::NoReadyEndpoints => 503,
            RespondReason::ProtocolMismatch => 400,
            _ => 500,
        }),
        _ => Status::Reject,
    }
}

fn respond(protocol: Protocol, rule: Option<RuleRef<'_>>, reason: RespondReason) -> Decision<'_> {
    Decision::Respond(Respond {
        rule,
        status: status_for(protocol, reason),
        reason,
        listener_filters: None,
    })
}
