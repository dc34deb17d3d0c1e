//! Explanations: the slow, allocating twin of the resolve path. It walks the same compiled
//! structures, but visits *every* candidate of the chosen route set in precedence order and
//! records the first condition that failed, so a person can see why a request went where it
//! went. The decision it reports is the one [`RouteTable::resolve`] returns.

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;

use crate::cond::{Cond, Probe, ValueMatch, split_grpc_path};
use crate::hostname::{self, HostSpecificity};
use crate::input::L4;
use crate::path::{prefix_matches, query_param, split_path_query};
use crate::precedence::PrecedenceKey;
use crate::request::{Protocol, Request};
use crate::resolve::{SetChoice, binding_key, matched_host};
use crate::table::{Action, Binding, Part, RouteSet, RouteTable, SetLabel};
use crate::view::{EntryView, HostView, MatchView, NameView, PathView, SetView};

/// One candidate rule match, in precedence order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CandidateExplanation {
    /// `Kind namespace/name`.
    pub route: String,
    /// Rule index.
    pub rule: u16,
    /// Rule name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_name: Option<String>,
    /// Index of the match in the rule.
    pub match_index: u16,
    /// The hostname group the candidate is in (`None` = any host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// How the route's own hostname behind `hostname` ranks it among candidates of the same
    /// hostname group (Gateway API v1.7, `GatewayRouteHostnameIntersectionPrecedence`:
    /// `exact, 15 characters` before `wildcard, 13 characters`); absent when only the
    /// intersection ranks ([`crate::HostnamePrecedence::Intersection`]) or the route has no
    /// hostname.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_hostname: Option<String>,
    /// The path (or gRPC method) condition, for display.
    pub condition: String,
    /// Every other condition of the match (method, headers, query parameters, regexes), in
    /// the order the engine checks them, each with the request's value and whether it meets
    /// it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<ConditionCheck>,
    /// `None` when the candidate matched; else the first condition that failed, with the
    /// expected and actual values (`header x-canary: expected "true", got "false"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// One condition of a candidate match beyond its path (or gRPC service/method), checked
/// against the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ConditionCheck {
    /// What the condition reads: `method`, `header x-canary`, `query page`, `path`,
    /// `gRPC service` or `gRPC method`.
    pub field: String,
    /// The value it expects, as written: `"true"`, `GET`, or `RegularExpression "v[0-9]+"`.
    pub expected: String,
    /// The request's value; `None` when the request has none (no such header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// Whether the request meets the condition.
    pub matched: bool,
}

impl ConditionCheck {
    /// Why the request does not meet it: `header x-canary: expected "true", got "false"`
    /// (or `got none`).
    pub fn mismatch(&self) -> String {
        let got = self
            .actual
            .as_deref()
            .map_or_else(|| "none".to_owned(), |a| format!("{a:?}"));
        format!("{}: expected {}, got {got}", self.field, self.expected)
    }
}

impl fmt::Display for ConditionCheck {
    /// `header x-canary "true"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.field, self.expected)
    }
}

/// Why a request went where it went.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    /// What the destination bound to (a Service port, a Gateway listener) and why.
    pub binding: String,
    /// The route set used (producer routes, consumer routes of a namespace, a listener).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_set: Option<String>,
    /// The route kind in force on the binding (mesh), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_kind: Option<String>,
    /// **\[experimental, v1.7\]** The pre-routing filters of the listener (GEP-5224), in the
    /// order the proxy runs them: before route matching, without changing the listener. Empty
    /// for mesh requests and listeners without filters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listener_filters: Vec<String>,
    /// Every candidate in precedence order.
    pub candidates: Vec<CandidateExplanation>,
    /// The winning rule, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// The backend pick, when the rule has backends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_pick: Option<String>,
    /// Routes that named the destination Service as parent but are not in the table (refused
    /// as a whole: `HTTPRoute ns/x was left out: <error>`), and their rules that are not
    /// (dropped: `HTTPRoute ns/x rule 1 was dropped (<reason>): <error>`); see
    /// [`RouteTable::left_out_at`](crate::RouteTable::left_out_at).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// Routes the destination's Service or Gateway did not accept
    /// ([`crate::BindingView::not_accepted`]), then the routes and rules attached to the route
    /// set used that are not in it or never reached, and why (a dropped rule, a kind that
    /// lost the Service port, a shadowed TCPRoute, TLSRoute hostname or HTTP/gRPC rule): the
    /// set's [`crate::SetView::excluded`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<String>,
    /// The decision, as a sentence.
    pub decision: String,
    /// The decision in its JSON shape.
    pub decision_json: serde_json::Value,
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "binding:   {}", self.binding)?;
        for l in &self.left_out {
            writeln!(f, "left out:  {l}")?;
        }
        if let Some(s) = &self.route_set {
            writeln!(f, "route set: {s}")?;
        }
        if let Some(k) = &self.route_kind {
            writeln!(
                f,
                "kind:      {k} (GRPCRoute > HTTPRoute > TLSRoute > TCPRoute)"
            )?;
        }
        for e in &self.excluded {
            writeln!(f, "excluded:  {e}")?;
        }
        if !self.listener_filters.is_empty() {
            writeln!(
                f,
                "listener filters (run before routing, in this order; they never change the listener):"
            )?;
            for (i, l) in self.listener_filters.iter().enumerate() {
                writeln!(f, "  {:>3}. {l}", i + 1)?;
            }
        }
        if !self.candidates.is_empty() {
            writeln!(f, "candidates, in precedence order:")?;
            for (i, c) in self.candidates.iter().enumerate() {
                let host = c
                    .hostname
                    .as_deref()
                    .map(|h| format!(" host {h}"))
                    .unwrap_or_default();
                let host = match &c.route_hostname {
                    Some(r) => format!("{host} (route hostname {r})"),
                    None => host,
                };
                let name = c
                    .rule_name
                    .as_deref()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default();
                let verdict = match &c.failed {
                    None => "MATCH".to_string(),
                    Some(why) => format!("no: {why}"),
                };
                let more: String = c.conditions.iter().map(|k| format!(", {k}")).collect();
                writeln!(
                    f,
                    "  {:>3}. {} rule {}{} match {}{}: {}{more} -> {}",
                    i + 1,
                    c.route,
                    c.rule,
                    name,
                    c.match_index,
                    host,
                    c.condition,
                    verdict
                )?;
            }
        }
        if let Some(w) = &self.winner {
            writeln!(f, "winner:    {w}")?;
        }
        if let Some(b) = &self.backend_pick {
            writeln!(f, "backend:   {b}")?;
        }
        write!(f, "decision:  {}", self.decision)
    }
}

struct Row {
    /// 0 for the kind tried first, 1 for HTTPRoutes a gRPC request falls through to.
    phase: u8,
    key: (u8, usize, u128),
    cand: u32,
    hostname: Option<String>,
    condition: String,
    conditions: Vec<ConditionCheck>,
    failed: Option<String>,
}

impl RouteTable {
    /// [`RouteTable::explain`]: the resolve path again, recording every step.
    pub(crate) fn explanation(&self, req: &Request<'_>, entropy: u64) -> Explanation {
        let decision = self.resolve(req, entropy);
        let decision_text = decision.to_string();
        let decision_json = serde_json::to_value(decision).unwrap_or(serde_json::Value::Null);
        let mut ex = Explanation {
            binding: String::new(),
            route_set: None,
            route_kind: None,
            listener_filters: Vec::new(),
            candidates: Vec::new(),
            winner: decision.rule().map(|r| r.to_string()),
            backend_pick: None,
            left_out: self
                .left_out_at(req.destination)
                .map(str::to_owned)
                .collect(),
            excluded: Vec::new(),
            decision: decision_text,
            decision_json,
        };
        let key = binding_key(req);
        let l4 = key.2;
        let found = self.bindings.get(&key).map(|(p, b)| (&**p, b));
        let Some((part, binding)) = found else {
            // Under MeshBinding::Workloads the ready endpoints of headless Services with routes
            // do bind, so the usual reminder would be wrong there.
            let why = if self.workloads.is_empty() {
                "no Service cluster IP or Gateway address with routes; \
                 pod IPs and headless Services never bind"
            } else {
                "no Service cluster IP, Gateway address or headless Service endpoint with routes"
            };
            ex.binding = format!(
                "nothing is bound to {}:{} ({}): {why}",
                req.destination,
                req.port,
                if l4 == L4::Udp { "UDP" } else { "TCP" }
            );
            return ex;
        };
        match binding {
            Binding::Conflict { claims } => {
                let names: Vec<String> = claims
                    .iter()
                    .filter_map(|(p, b)| match b {
                        Binding::Service { service, .. } => p
                            .services
                            .get(*service as usize)
                            .map(|s| format!("{}/{}", s.namespace, p.text(s.name))),
                        _ => None,
                    })
                    .collect();
                ex.binding = format!(
                    "{} is a ready endpoint of several headless Services with routes: {} \
                     (a conflict: none of their routes is picked; workload binding, beyond the \
                     Gateway API spec)",
                    crate::request::socket(req.destination, req.port),
                    names.join(", ")
                );
                return ex;
            }
            Binding::Service {
                service,
                port,
                workload,
                ..
            } => {
                ex.excluded.extend(
                    part.not_accepted_of(crate::table::ParentIx::Service(*service))
                        .iter()
                        .map(ToString::to_string),
                );
                let svc = part.services.get(*service as usize);
                let via = if *workload {
                    format!(
                        "destination {} is a ready endpoint of this headless Service (workload \
                         binding, beyond the Gateway API spec)",
                        crate::request::socket(req.destination, req.port)
                    )
                } else {
                    format!("destination {} is one of its cluster IPs", req.destination)
                };
                ex.binding = format!(
                    "Service {}/{} port {} ({via})",
                    svc.map_or("?", |s| &s.namespace),
                    svc.map_or("?", |s| part.text(s.name)),
                    port,
                );
            }
            Binding::Gateway { gateway, .. } => {
                ex.excluded.extend(
                    part.not_accepted_of(crate::table::ParentIx::Gateway(*gateway))
                        .iter()
                        .map(ToString::to_string),
                );
                let gw = part.gateways.get(*gateway as usize);
                ex.binding = format!(
                    "Gateway {}/{} port {}",
                    gw.map_or("?", |g| &g.namespace),
                    gw.map_or("?", |g| part.text(g.name)),
                    req.port
                );
            }
        }
        let set = match part.choose_set(binding, req) {
            SetChoice::Set(set, _) => set,
            SetChoice::NoServiceSet => {
                ex.route_set = Some(format!(
                    "none: the client namespace {} has no consumer routes and there are no producer routes",
                    req.source_namespace.unwrap_or("(unknown)")
                ));
                return ex;
            }
            SetChoice::NoListener(host) => {
                ex.route_set = Some(format!(
                    "none: no listener hostname matches {:?} (listener isolation: no fallback)",
                    host.unwrap_or("")
                ));
                return ex;
            }
            // answered with the binding above
            SetChoice::Conflict => return ex,
        };
        ex.route_set = Some(part.describe(&set.label));
        ex.route_kind = set.mesh_kind.map(|k| k.to_string());
        // GEP-5224: what resolve carries (HTTP requests only), named as a step before matching
        if let Some(filters) = decision.listener_filters() {
            ex.listener_filters = filters.requests.iter().map(ToString::to_string).collect();
        }
        // listener_hostname is not shown: the binding line names the listener
        if let Some(view) = part.set_view(set, None) {
            ex.excluded
                .extend(view.excluded.iter().map(ToString::to_string));
            ex.candidates = part.explain_candidates(&view, set, req);
        }
        if let Some(rule) = decision.rule()
            && let crate::decision::Decision::Forward(f) = decision
        {
            ex.backend_pick = Some(format!(
                "backendRefs[{}] {} (weighted pick from entropy {entropy}; rule {})",
                f.backend_index, f.backend, rule.index
            ));
        } else if let crate::decision::Decision::Respond(r) = decision
            && let Some(rule) = r.rule
            && let Some(entry) = part.rules.iter().find(|e| part.rule_ref(e) == rule)
            && let Action::Backends(..) = &entry.action
        {
            let bs = part.backends_of(&entry.action);
            let weights: Vec<String> = bs.iter().map(|b| b.weight.to_string()).collect();
            let mut pick = format!("weights [{}]: {}", weights.join(", "), r.reason);
            // which backend the weights picked, and why it is invalid
            if r.reason == crate::decision::RespondReason::InvalidBackend
                && let Action::Backends(start, _) = &entry.action
                && let Some(i) = crate::weights::pick(bs.iter().map(|b| b.weight), entropy)
                && let Some(b) = bs.get(i)
                && let Some(t) = part.targets.get(b.target as usize)
            {
                let at = u32::try_from(*start as usize + i).unwrap_or(u32::MAX);
                let why = part
                    .backend_problems
                    .binary_search_by_key(&at, |(k, _)| *k)
                    .ok()
                    .and_then(|k| part.backend_problems.get(k))
                    .map_or("", |(_, why)| &**why);
                pick.push_str(&format!(
                    ": backendRefs[{i}] {} (weighted pick from entropy {entropy}; rule {}): {why}",
                    crate::table::target(t),
                    rule.index
                ));
            }
            if r.reason == crate::decision::RespondReason::InvalidBackendTls
                && let Some(i) = crate::weights::pick(bs.iter().map(|b| b.weight), entropy)
                && let Some(b) = bs.get(i)
                && let Some(t) = part.targets.get(b.target as usize)
                && let Some(slot) = t.tls.and_then(|s| part.backend_tls.get(s as usize))
            {
                pick.push_str(&format!(
                    ": backendRefs[{i}] {} (weighted pick from entropy {entropy}; rule {}): {}",
                    crate::table::target(t),
                    rule.index,
                    slot.failure.as_deref().unwrap_or("")
                ));
            }
            ex.backend_pick = Some(pick);
        }
        ex
    }
}

impl Part {
    /// Every candidate of the route set a request tries, in the order it tries them, each
    /// with the first condition the request fails: the set's view (its entries and their
    /// conditions, in precedence order), checked against the request.
    fn explain_candidates(
        &self,
        view: &SetView<'_>,
        set: &RouteSet,
        req: &Request<'_>,
    ) -> Vec<CandidateExplanation> {
        let (path, query) = split_path_query(req.path_and_query);
        let (service, method) = split_grpc_path(path);
        let probe = Probe {
            method: req.method,
            path,
            query,
            headers: req.headers,
            grpc_service: service,
            grpc_method: method,
            path_regex_matched: false,
            grpc_regexes_matched: false,
        };
        let host = matched_host(req);
        // how the request's host ranks a hostname group: the matching groups in the order the
        // engine tries them (exact, longer wildcard, any host), then those that do not match
        let host_rank = |h: &Option<HostView<'_>>| -> (u8, usize) {
            match (h, host) {
                (None, _) => (2, 0),
                (Some(HostView::Exact(p)), Some(rh)) if hostname::matches(p, rh) => (0, 0),
                (Some(w @ HostView::Wildcard(suffix)), Some(rh))
                    if hostname::matches(&w.to_string(), rh) =>
                {
                    (1, usize::MAX - suffix.len() - 1)
                }
                (Some(_), _) => (3, 0),
            }
        };
        let mut rows: Vec<Row> = Vec::new();
        let use_grpc = req.protocol == Protocol::Grpc && set.grpc.is_some();
        // The same order as `match_in_set`: GRPCRoutes first for gRPC requests; on a Gateway
        // listener (kinds coexist, Gateway API GRPCRoute cross serving) a gRPC request no GRPCRoute
        // takes falls through to the HTTPRoutes, so those are candidates too, after every gRPC one.
        // In mesh only one kind is bound (GEP-1294 route types).
        let http_too = !use_grpc || (set.mesh_kind.is_none() && set.http.is_some());
        if use_grpc {
            for e in &view.grpc {
                rows.push(self.row(e, host_rank(&e.hostname), 0, &probe));
            }
        }
        if req.protocol.is_http() && http_too {
            for e in &view.http {
                rows.push(self.row(e, host_rank(&e.hostname), 1, &probe));
            }
        } else if req.protocol == Protocol::Tls {
            for e in &view.tls {
                let hr = host_rank(&e.hostname);
                rows.push(Row {
                    phase: 0,
                    key: (hr.0, hr.1, self.key_of(e.cand)),
                    cand: e.cand,
                    hostname: e.hostname.map(|h| h.to_string()),
                    condition: "SNI".into(),
                    conditions: Vec::new(),
                    failed: (hr.0 == 3).then(|| "SNI does not match the hostname".to_string()),
                });
            }
        }
        // the hostname and candidate id break ties between groups, as they always have
        rows.sort_by(|a, b| {
            (a.phase, a.key, &a.hostname, a.cand).cmp(&(b.phase, b.key, &b.hostname, b.cand))
        });
        rows.into_iter()
            .filter_map(|r| {
                let cand = self.cands.get(r.cand as usize)?;
                let rule = self.rules.get(cand.rule as usize)?;
                let rref = self.rule_ref(rule);
                let grpc = rref.route.kind == gamma_model::RouteKind::Grpc;
                let route_host = PrecedenceKey(self.key_of(r.cand)).route_host(grpc);
                let route_hostname = (route_host != HostSpecificity::default()).then(|| {
                    let kind = if route_host.non_wildcard_chars > 0 {
                        "exact"
                    } else {
                        "wildcard"
                    };
                    format!("{kind}, {} characters", route_host.chars)
                });
                Some(CandidateExplanation {
                    route: rref.route.to_string(),
                    rule: rule.index,
                    rule_name: self.rule_name(rule).map(str::to_string),
                    match_index: cand.match_index,
                    hostname: r.hostname,
                    route_hostname,
                    condition: r.condition,
                    conditions: r.conditions,
                    failed: r.failed,
                })
            })
            .collect()
    }

    fn key_of(&self, cand: u32) -> u128 {
        self.keys.get(cand as usize).map_or(0, |k| k.0)
    }

    fn describe(&self, label: &SetLabel) -> String {
        match label {
            SetLabel::None => String::new(),
            SetLabel::Mesh {
                service,
                port,
                consumer,
            } => {
                let svc = self.services.get(*service as usize);
                let (ns, name) = (
                    svc.map_or("?", |s| &s.namespace),
                    svc.map_or("?", |s| self.text(s.name)),
                );
                match consumer {
                    None => format!("producer routes of Service {ns}/{name} port {port}"),
                    Some(c) => format!(
                        "consumer routes of namespace {c} for Service {ns}/{name} port {port}"
                    ),
                }
            }
            SetLabel::Listener { gateway, listener } => {
                let gw = self.gateways.get(*gateway as usize);
                format!(
                    "listener {listener} of Gateway {}/{}",
                    gw.map_or("?", |g| &g.namespace),
                    gw.map_or("?", |g| self.text(g.name))
                )
            }
            SetLabel::ListenerSetListener {
                listener_set,
                gateway,
                listener,
            } => {
                let ls = self.listener_sets.get(*listener_set as usize);
                let gw = self.gateways.get(*gateway as usize);
                format!(
                    "listener {listener} of ListenerSet {}/{} (Gateway {}/{})",
                    ls.map_or("?", |l| &l.namespace),
                    ls.map_or("?", |l| self.text(l.name)),
                    gw.map_or("?", |g| &g.namespace),
                    gw.map_or("?", |g| self.text(g.name))
                )
            }
        }
    }

    /// Every condition of candidate `cand` beyond what the index matched, in the order
    /// [`Cond::check_all`] checks them, each checked against the request.
    fn checks(&self, cand: u32, probe: &Probe<'_>) -> Vec<ConditionCheck> {
        let mut out = Vec::new();
        let Some(c) = self.cands.get(cand as usize) else {
            return out;
        };
        let check = |field: String, expected: String, actual: Option<String>, matched: bool| {
            ConditionCheck {
                field,
                expected,
                actual,
                matched,
            }
        };
        let regex = |i: u32| format!("RegularExpression {:?}", self.regexes.raw(i).unwrap_or("?"));
        let method = self.methods.get(usize::from(c.method)).map_or("", |m| &**m);
        if !method.is_empty() {
            out.push(check(
                "method".into(),
                method.to_owned(),
                probe.method.map(str::to_owned),
                probe.method == Some(method),
            ));
        }
        let Some(cond) = self.cond_of(c) else {
            return out;
        };
        let value = |vm: &ValueMatch| match vm {
            ValueMatch::Exact(e) => format!("{e:?}"),
            ValueMatch::Regex(i) => regex(*i),
        };
        if let Some(i) = cond.path_regex {
            out.push(check(
                "path".into(),
                regex(i),
                Some(probe.path.to_owned()),
                ValueMatch::Regex(i).matches_str(probe.path, &self.regexes),
            ));
        }
        for (field, re, actual) in [
            ("gRPC service", cond.service_regex, probe.grpc_service),
            ("gRPC method", cond.method_regex, probe.grpc_method),
        ] {
            if let Some(i) = re {
                out.push(check(
                    field.into(),
                    regex(i),
                    Some(actual.to_owned()),
                    ValueMatch::Regex(i).matches_str(actual, &self.regexes),
                ));
            }
        }
        for (name, vm) in cond.headers.iter() {
            let got = probe.headers.first_value(name);
            out.push(check(
                format!("header {name}"),
                value(vm),
                got.map(|v| String::from_utf8_lossy(v).into_owned()),
                got.is_some_and(|v| vm.matches_bytes(v, &self.regexes)),
            ));
        }
        for (name, vm) in cond.query.iter() {
            let got = probe.query.and_then(|q| query_param(q, name));
            out.push(check(
                format!("query {name}"),
                value(vm),
                got.map(str::to_owned),
                got.is_some_and(|v| vm.matches_str(v, &self.regexes)),
            ));
        }
        out
    }

    /// One candidate row of an HTTP or gRPC entry: the first condition that fails, in the
    /// order the engine checks them (the hostname, what the index matched on, then the
    /// remaining conditions).
    fn row(&self, e: &EntryView<'_>, host_rank: (u8, usize), phase: u8, probe: &Probe<'_>) -> Row {
        let (condition, index_ok) = match &e.condition {
            MatchView::Http { path, .. } => match path {
                PathView::Exact(p) => (format!("Exact {p}"), *p == probe.path),
                PathView::PathPrefix(p) => {
                    (format!("PathPrefix {p}"), prefix_matches(p, probe.path))
                }
                _ => ("RegularExpression".to_string(), true),
            },
            MatchView::Grpc {
                service, method, ..
            } => {
                fn exact<'t>(n: &Option<NameView<'t>>) -> Option<&'t str> {
                    n.filter(|n| !n.regex).map(|n| n.value)
                }
                let has_service = !probe.grpc_service.is_empty();
                match (exact(service), exact(method)) {
                    (Some(s), Some(m)) => (
                        format!("service/method {s}/{m}"),
                        has_service && s == probe.grpc_service && m == probe.grpc_method,
                    ),
                    (Some(s), None) => (format!("service {s}"), s == probe.grpc_service),
                    (None, Some(m)) => {
                        (format!("method {m}"), has_service && m == probe.grpc_method)
                    }
                    (None, None) => ("any service/method".to_string(), true),
                }
            }
            _ => (String::new(), true),
        };
        let conditions = self.checks(e.cand, probe);
        let failed = if host_rank.0 == 3 {
            Some("Host does not match the hostname".to_string())
        } else if !index_ok {
            Some(match &e.condition {
                MatchView::Grpc { .. } => format!(
                    "gRPC service/method: expected {condition}, got {:?}",
                    format!("{}/{}", probe.grpc_service, probe.grpc_method)
                ),
                _ => format!("path: expected {condition}, got {:?}", probe.path),
            })
        } else {
            // the engine's verdict decides; the checks say why
            let engine = self.cands.get(e.cand as usize).and_then(|x| {
                let m = self.methods.get(usize::from(x.method)).map_or("", |m| &**m);
                Cond::check_all(self.cond_of(x), m, probe, &self.regexes).err()
            });
            engine.map(|_| {
                conditions.iter().find(|k| !k.matched).map_or_else(
                    || "a condition does not match".to_owned(),
                    ConditionCheck::mismatch,
                )
            })
        };
        Row {
            phase,
            key: (host_rank.0, host_rank.1, self.key_of(e.cand)),
            cand: e.cand,
            hostname: e.hostname.map(|h| h.to_string()),
            condition,
            conditions,
            failed,
        }
    }
}
