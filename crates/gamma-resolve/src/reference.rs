//! The naive reference matcher: a deliberately simple, slow, obviously-correct resolver to test
//! fast engines against. **Not for production** (feature `reference`, off by default).
//!
//! [`resolve`] scans every route and rule of a [`TableInput`] for every request, evaluates every
//! condition directly (compiling regexes on the spot), and sorts the matching candidates by the
//! spec's precedence criteria (Gateway API HTTPRouteRule.matches precedence and
//! GRPCRouteRule.matches) written out as one plain tuple comparison. It shares no code with the
//! engine's index, key packing, condition compiler or backend interning, so a bug in one is
//! unlikely to be mirrored in the other: when [`crate::RouteTable::resolve`] and this module
//! disagree, one of them is wrong.
//!
//! It is used by gamma-rs's own differential property tests, the `resolve_differential` fuzz
//! target and the benches' "naive-oracle" comparison; an embedder that wraps or re-implements
//! the engine can use it the same way. It costs a heap allocation per candidate and a regex
//! compilation per regex condition per request: milliseconds per request on large tables.
//!
//! Scope: Service (mesh) parents (GEP-1294 binding by cluster IP and Service port,
//! producer and consumer route sets, route kind precedence, HTTPRoute and GRPCRoute matching,
//! TLSRoute by SNI, TCP/UDP oldest-wins, redirects, weighted backend picks and backend
//! validity), and HTTPRoutes on the `HTTP` listeners of Gateways and their ListenerSets
//! (GEP-1713: `allowedListeners`, listener precedence and conflicts, listener selection by
//! hostname, `allowedRoutes.namespaces`, hostname intersection). Pass an input through
//! [`modelled`] before comparing: it cuts the Gateways and ListenerSets to what the reference
//! models.
//! Decisions are compared in the owned form [`Outcome`], which keeps what both sides decide
//! (route, rule, backend, redirect location, status) and drops what only the engine computes
//! (header edits, rewrites, mirrors, timeouts).
//!
//! ```
//! use gamma_model::RouteKind;
//! use gamma_resolve::input::*;
//! use gamma_resolve::reference::{self, Outcome, Policy};
//! use gamma_resolve::{Request, RouteTable};
//!
//! let web = ServiceIr {
//!     namespace: "app".into(),
//!     name: "web".into(),
//!     cluster_ips: vec!["10.96.0.1".parse()?],
//!     ports: vec![ServicePortIr { port: 80, ..ServicePortIr::default() }],
//!     ..ServiceIr::default()
//! };
//! let backend = ServiceIr { name: "web-v2".into(), cluster_ips: vec![], ..web.clone() };
//! let rule = |path: &str, to: &str| RuleIr {
//!     matches: smallvec![MatchIr::Http {
//!         path: PathMatchIr::Prefix(path.into()),
//!         method: None,
//!         headers: vec![],
//!         query: vec![],
//!     }],
//!     backends: smallvec![BackendIr {
//!         group: "".into(),
//!         kind: "Service".into(),
//!         namespace: "app".into(),
//!         name: to.into(),
//!         port: Some(80),
//!         weight: 1,
//!         filters: Filters::default(),
//!     }],
//!     ..RuleIr::default()
//! };
//! let input = TableInput::new()
//!     .with_services(vec![web, backend])
//!     .with_routes(vec![RouteIr {
//!         kind: RouteKind::Http,
//!         namespace: "app".into(),
//!         name: "split".into(),
//!         created: Some((1_700_000_000, 0)),
//!         hostnames: vec![],
//!         parents: vec![ParentRefIr {
//!             kind: ParentRefKind::Service,
//!             namespace: "app".into(),
//!             name: "web".into(),
//!             section_name: None,
//!             port: None,
//!         }],
//!         rules: vec![rule("/", "web"), rule("/v2", "web-v2")],
//!         invalid: None,
//!     }]);
//!
//! // The engine and the reference, built with the same policy...
//! let policy = Policy::default();
//! let table = RouteTable::from_input(&input, &policy.build_options());
//! for path in ["/", "/v2/items", "/v2x", "/v3"] {
//!     let req = Request::http("10.96.0.1".parse()?, 80, "GET", path);
//!     // ...must agree on every request.
//!     let engine = Outcome::of(&table.resolve(&req, 7));
//!     let naive = reference::resolve(&input, policy, &req, 7);
//!     assert_eq!(engine, naive, "{path}");
//! }
//! // The longest matching prefix wins: `/v2/items` goes to web-v2, `/v2x` does not.
//! let req = Request::http("10.96.0.1".parse()?, 80, "GET", "/v2/items");
//! assert!(matches!(
//!     reference::resolve(&input, policy, &req, 0),
//!     Outcome::Forward { backend: (_, name, _), .. } if name == "web-v2"
//! ));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod gateway;

pub use gateway::modelled;

use std::cmp::Ordering;

use crate::input::{
    BackendIr, IrString, L4, MatchIr, ParentRefKind, PathMatchIr, PathModifierIr, RouteIr, RuleIr,
    StrMatch, TableInput,
};
use crate::request::Scheme;
use crate::{
    BuildOptions, Decision, HostnamePrecedence, MeshHostnames, MeshReferenceGrants, Protocol,
    Request,
};
use gamma_model::RouteKind;

/// A route's identity in an [`Outcome`]: (kind, namespace, name).
pub type RouteId = (RouteKind, String, String);

/// A decision in owned, comparable form: what the engine and the reference both decide.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Forward to a backend.
    Forward {
        /// The matched route.
        route: RouteId,
        /// The matched rule's index in the route.
        rule: u16,
        /// The picked backend: (namespace, name, port).
        backend: (String, String, Option<u16>),
    },
    /// Answer with a redirect.
    Redirect {
        /// The matched route.
        route: RouteId,
        /// The matched rule's index in the route.
        rule: u16,
        /// The HTTP status (301, 302, ...).
        status: u16,
        /// The computed `Location`.
        location: String,
    },
    /// Answer with an error status.
    Respond {
        /// The matched route and rule index, when a rule matched but could not be used.
        route: Option<(RouteKind, String, String, u16)>,
        /// The status as [`crate::Status`] displays it (`HTTP 404`, `gRPC UNIMPLEMENTED`,
        /// `connection rejected`).
        status: String,
    },
    /// Nothing is bound: plain Kubernetes Service behaviour.
    Passthrough,
}

impl Outcome {
    /// The owned form of an engine decision.
    pub fn of(d: &Decision<'_>) -> Self {
        let rr = |r: &crate::RuleRef<'_>| {
            (
                r.route.kind,
                r.route.namespace.to_string(),
                r.route.name.to_string(),
            )
        };
        match d {
            Decision::Forward(f) => Outcome::Forward {
                route: rr(&f.rule),
                rule: f.rule.index,
                backend: (
                    f.backend.namespace.to_string(),
                    f.backend.name.to_string(),
                    f.backend.port,
                ),
            },
            Decision::Redirect(r) => Outcome::Redirect {
                route: rr(&r.rule),
                rule: r.rule.index,
                status: r.status,
                location: r.location.to_string(),
            },
            Decision::Respond(r) => Outcome::Respond {
                route: r.rule.map(|x| {
                    let (k, n, m) = rr(&x);
                    (k, n, m, x.index)
                }),
                status: r.status.to_string(),
            },
            Decision::Passthrough => Outcome::Passthrough,
        }
    }
}

/// The table policies the reference understands; [`Policy::build_options`] gives the engine's
/// equivalent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Policy {
    /// Mesh routes with hostnames only match requests whose Host matches one of them
    /// ([`MeshHostnames::MatchHostHeader`]); otherwise mesh hostnames are ignored.
    pub match_host_header: bool,
    /// Cross-namespace backendRefs of mesh routes need a ReferenceGrant
    /// ([`MeshReferenceGrants::Enforce`]).
    pub enforce_grants: bool,
    /// Routes whose listener∩route hostnames are equal rank by the intersection alone
    /// (Gateway API up to v1.6, [`HostnamePrecedence::Intersection`]); otherwise, as v1.7
    /// specifies, by the route's own hostname next.
    pub intersection_precedence: bool,
}

impl Policy {
    /// Sets [`Policy::match_host_header`].
    pub fn with_match_host_header(mut self, on: bool) -> Self {
        self.match_host_header = on;
        self
    }

    /// Sets [`Policy::intersection_precedence`].
    pub fn with_intersection_precedence(mut self, on: bool) -> Self {
        self.intersection_precedence = on;
        self
    }

    /// Sets [`Policy::enforce_grants`].
    pub fn with_enforce_grants(mut self, on: bool) -> Self {
        self.enforce_grants = on;
        self
    }

    /// The engine's build options for the same policy (every route included).
    pub fn build_options(self) -> BuildOptions {
        let mut o = BuildOptions::default();
        if self.match_host_header {
            o = o.with_mesh_hostnames(MeshHostnames::MatchHostHeader);
        }
        if self.enforce_grants {
            o = o.with_mesh_reference_grants(MeshReferenceGrants::Enforce);
        }
        o.with_hostname_precedence(if self.intersection_precedence {
            HostnamePrecedence::Intersection
        } else {
            HostnamePrecedence::RouteHostname
        })
    }
}

fn host_of(h: &str) -> String {
    let h = h.trim();
    let h = match h.rsplit_once(':') {
        Some((a, p))
            if p.chars().all(|c| c.is_ascii_digit()) && !a.contains(']') && !a.starts_with('[') =>
        {
            a
        }
        _ => h,
    };
    h.trim_end_matches('.').to_ascii_lowercase()
}

fn host_matches(pattern: &str, host: &str) -> bool {
    if let Some(suffix) = pattern.strip_prefix("*.") {
        // the suffix's labels end the host, preceded by one or more non-empty labels
        let mut labels = host.rsplit('.');
        let suffix_ok = suffix.rsplit('.').all(|s| labels.next() == Some(s));
        let rest: Vec<&str> = labels.collect();
        suffix_ok && !rest.is_empty() && rest.iter().all(|l| !l.is_empty())
    } else {
        pattern == host
    }
}

/// Whether `pattern` matches the whole of `s`: the pattern must be a regex on its own (one
/// such as `a)|(b` is one only inside the anchors, which it escapes), then is anchored.
fn full_regex(pattern: &str, s: &str) -> bool {
    regex_syntax::Parser::new().parse(pattern).is_ok()
        && regex::Regex::new(&format!("^(?:{pattern})$")).is_ok_and(|r| r.is_match(s))
}

fn str_ok(m: &StrMatch, v: &str) -> bool {
    match m {
        StrMatch::Exact(e) => e == v,
        StrMatch::Regex(r) => full_regex(r, v),
    }
}

fn prefix_ok(prefix: &str, path: &str) -> bool {
    // compare path element by element
    let want: Vec<&str> = prefix.split('/').filter(|s| !s.is_empty()).collect();
    if !path.starts_with('/') && !path.is_empty() {
        return false;
    }
    let got: Vec<&str> = path.split('/').skip(1).collect();
    if want.is_empty() {
        return true;
    }
    got.len() >= want.len() && got.iter().zip(&want).all(|(g, w)| g == w) && !prefix.contains("//")
}

fn dedup_names(list: &[(IrString, StrMatch)], ci: bool) -> Vec<&(IrString, StrMatch)> {
    let mut out: Vec<&(IrString, StrMatch)> = Vec::new();
    for e in list {
        let dup = out.iter().any(|o| {
            if ci {
                o.0.eq_ignore_ascii_case(&e.0)
            } else {
                o.0 == e.0
            }
        });
        if !dup {
            out.push(e);
        }
    }
    out
}

fn query_first<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    for pair in query.split('&') {
        let mut it = pair.splitn(2, '=');
        let k = it.next().unwrap_or("");
        if k == name {
            return Some(it.next().unwrap_or(""));
        }
    }
    None
}

/// The precedence tuple; compared so that `Less` = higher precedence.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Key {
    host_nonwild: usize,
    host_chars: usize,
    /// The route's own hostname behind the effective one (Gateway API v1.7), else (0, 0).
    route_host_nonwild: usize,
    route_host_chars: usize,
    // HTTP
    exact: bool,
    prefix_chars: usize,
    is_regex: bool,
    method: bool,
    headers: usize,
    query: usize,
    // gRPC
    svc_chars: usize,
    meth_chars: usize,
    created: Option<(i64, u32)>,
    nsname: String,
    rule: usize,
}

impl Key {
    /// The key of route `r` before any match criteria are filled in.
    fn of_route(r: &RouteIr) -> Self {
        Key {
            created: r.created,
            nsname: format!("{}/{}", r.namespace, r.name),
            ..Key::default()
        }
    }
}

fn compare(a: &Key, b: &Key) -> Ordering {
    b.host_nonwild
        .cmp(&a.host_nonwild)
        .then(b.host_chars.cmp(&a.host_chars))
        .then(b.route_host_nonwild.cmp(&a.route_host_nonwild))
        .then(b.route_host_chars.cmp(&a.route_host_chars))
        .then(b.exact.cmp(&a.exact))
        .then(a.is_regex.cmp(&b.is_regex))
        .then(b.prefix_chars.cmp(&a.prefix_chars))
        .then(b.svc_chars.cmp(&a.svc_chars))
        .then(b.meth_chars.cmp(&a.meth_chars))
        .then(b.method.cmp(&a.method))
        .then(b.headers.cmp(&a.headers))
        .then(b.query.cmp(&a.query))
        .then(match (a.created, b.created) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        })
        .then(a.nsname.cmp(&b.nsname))
        .then(a.rule.cmp(&b.rule))
}

fn status(protocol: Protocol, what: &str) -> String {
    match (protocol, what) {
        (Protocol::Grpc, "404" | "mismatch") => "gRPC UNIMPLEMENTED".into(),
        (Protocol::Grpc, _) => "gRPC UNAVAILABLE".into(),
        (Protocol::Http, "mismatch") => "HTTP 400".into(),
        (Protocol::Http, code) => format!("HTTP {code}"),
        _ => "connection rejected".into(),
    }
}

/// Whether backend `b` of `route` is usable: `Ok(true)` valid, `Ok(false)` known to have no
/// ready endpoints, `Err(())` invalid (wrong kind, not granted, missing Service or port).
fn backend_valid(
    input: &TableInput,
    route: &RouteIr,
    b: &BackendIr,
    policy: Policy,
) -> Result<bool, ()> {
    if !(b.group.is_empty() && b.kind == "Service") {
        return Err(());
    }
    if *b.namespace != *route.namespace && policy.enforce_grants {
        let granted = input.grants.iter().any(|g| {
            *g.namespace == *b.namespace
                && g.from.iter().any(|f| {
                    f.0 == "gateway.networking.k8s.io"
                        && f.1 == route.kind.as_str()
                        && f.2 == route.namespace
                })
                && g.to.iter().any(|t| {
                    t.0 == b.group && t.1 == b.kind && t.2.as_ref().is_none_or(|n| *n == b.name)
                })
        });
        if !granted {
            return Err(());
        }
    }
    let svc = input
        .services
        .iter()
        .find(|s| *s.namespace == *b.namespace && s.name == b.name)
        .ok_or(())?;
    if svc.external_name || !svc.ports.iter().any(|p| Some(p.port) == b.port) {
        return Err(());
    }
    Ok(svc.ready != Some(false))
}

/// The oldest route of `set` (creationTimestamp, then `namespace/name`; Gateway API
/// HTTPRouteRule.matches precedence).
fn oldest<'r>(set: &[&'r RouteIr]) -> Option<&'r RouteIr> {
    set.iter()
        .copied()
        .min_by(|x, y| compare(&Key::of_route(x), &Key::of_route(y)))
}

/// Resolves `req` against the Service (mesh) and Gateway parents of `input` by brute force.
///
/// `entropy` picks the weighted backend exactly as [`crate::RouteTable::resolve`] documents.
/// A request no Service binds goes to a Gateway listener with its address, if any (only what
/// [`modelled`] keeps is modelled).
pub fn resolve(input: &TableInput, policy: Policy, req: &Request<'_>, entropy: u64) -> Outcome {
    let udp = req.protocol == Protocol::Udp;
    let want_l4 = if udp { L4::Udp } else { L4::Tcp };
    let Some((svc, port)) = input.services.iter().find_map(|s| {
        if s.external_name || s.headless || !s.cluster_ips.contains(&req.destination) {
            return None;
        }
        s.ports
            .iter()
            .find(|p| p.port == req.port && p.protocol == want_l4)
            .map(|p| (s, p))
    }) else {
        return at_gateway(input, policy, req, entropy);
    };
    // routes attached to this Service port
    let attached: Vec<&RouteIr> = input
        .routes
        .iter()
        .filter(|r| r.invalid.is_none())
        .filter(|r| r.rules.iter().any(|x| x.invalid.is_none()))
        .filter(|r| (r.kind == RouteKind::Udp) == (port.protocol == L4::Udp))
        .filter(|r| {
            r.parents.iter().any(|p| {
                p.kind == ParentRefKind::Service
                    && p.namespace == svc.namespace
                    && p.name == svc.name
                    && p.port.is_none_or(|x| x == port.port)
                    && p.section_name
                        .as_ref()
                        .is_none_or(|s| port.name.as_deref() == Some(s.as_str()))
            })
        })
        .collect();
    let consumers: Vec<&RouteIr> = match req.source_namespace {
        Some(ns) => attached
            .iter()
            .copied()
            .filter(|r| r.namespace == ns && r.namespace != svc.namespace)
            .collect(),
        None => vec![],
    };
    let set: Vec<&RouteIr> = if consumers.is_empty() {
        attached
            .iter()
            .copied()
            .filter(|r| r.namespace == svc.namespace)
            .collect()
    } else {
        consumers
    };
    if set.is_empty() {
        return Outcome::Passthrough;
    }
    // On a UDP port every attached route is a UDPRoute; on a TCP port none is, and the first
    // kind in mesh precedence present wins (GEP-1294 route types). `set` is non-empty here, so a
    // kind is always found.
    let Some(kind) = (if udp {
        Some(RouteKind::Udp)
    } else {
        [
            RouteKind::Grpc,
            RouteKind::Http,
            RouteKind::Tls,
            RouteKind::Tcp,
        ]
        .into_iter()
        .find(|k| set.iter().any(|r| r.kind == *k))
    }) else {
        return Outcome::Passthrough;
    };
    let set: Vec<&RouteIr> = set.into_iter().filter(|r| r.kind == kind).collect();
    let not_found = || Outcome::Respond {
        route: None,
        status: status(req.protocol, "404"),
    };
    let mismatch = || Outcome::Respond {
        route: None,
        status: status(req.protocol, "mismatch"),
    };
    let winner: (&RouteIr, usize) = match (kind, req.protocol) {
        // Only UDP requests reach a UDP port, and only they see UDPRoutes.
        (RouteKind::Udp | RouteKind::Tcp, _) => match oldest(&set) {
            Some(r) => (r, 0),
            None => return not_found(),
        },
        (RouteKind::Tls, Protocol::Tls) => {
            // hostnames ignored unless the policy says otherwise; oldest among matching
            let sni = req.sni.map(host_of);
            let mut cands: Vec<(Key, &RouteIr)> = Vec::new();
            for r in &set {
                let hosts: Vec<Option<&str>> =
                    if policy.match_host_header && !r.hostnames.is_empty() {
                        r.hostnames.iter().map(|h| Some(h.as_str())).collect()
                    } else {
                        vec![None]
                    };
                for h in hosts {
                    let ok = match (h, &sni) {
                        (None, _) => true,
                        (Some(p), Some(s)) => host_matches(p, s),
                        (Some(_), None) => false,
                    };
                    if ok {
                        let len = h.map_or(0, str::len);
                        let nonwild =
                            h.map_or(0, |h| if h.starts_with("*.") { 0 } else { h.len() });
                        let key = Key {
                            host_nonwild: nonwild,
                            host_chars: len,
                            ..Key::of_route(r)
                        };
                        cands.push((key, r));
                    }
                }
            }
            cands.sort_by(|a, b| compare(&a.0, &b.0));
            match cands.first() {
                Some((_, r)) => (r, 0),
                None => return not_found(),
            }
        }
        (RouteKind::Tls, _) => return mismatch(),
        (RouteKind::Http | RouteKind::Grpc, p) if !p.is_http() => return mismatch(),
        (RouteKind::Grpc, Protocol::Http) => return not_found(),
        (RouteKind::Http | RouteKind::Grpc, _) => {
            // mesh hostnames count only under the policy that says so
            // (a mesh route's hostnames are its own: nothing ranks behind them)
            let set: Vec<(&RouteIr, gateway::EffectiveHosts)> = set
                .iter()
                .map(|r| {
                    let hosts = if policy.match_host_header && !r.hostnames.is_empty() {
                        r.hostnames
                            .iter()
                            .map(|h| (Some(h.clone()), (0, 0)))
                            .collect()
                    } else {
                        vec![(None, (0, 0))]
                    };
                    (*r, hosts)
                })
                .collect();
            match http_winner(kind, &set, req) {
                Some(w) => w,
                None => return not_found(),
            }
        }
    };
    decide(input, policy, req, entropy, winner)
}

/// A request no Service binds: a Gateway listener's, if a Gateway has the address (see
/// [`gateway`] for what is modelled), else passthrough.
fn at_gateway(input: &TableInput, policy: Policy, req: &Request<'_>, entropy: u64) -> Outcome {
    // HTTP listeners take TCP connections only
    if req.protocol == Protocol::Udp {
        return Outcome::Passthrough;
    }
    let host = match req.protocol {
        Protocol::Tls => req.sni,
        _ => req.host,
    };
    let respond = |what: &str| Outcome::Respond {
        route: None,
        status: status(req.protocol, what),
    };
    let by_route_host = !policy.intersection_precedence;
    let set = match gateway::find(input, by_route_host, req.destination, req.port, host) {
        gateway::Found::Nothing => return Outcome::Passthrough,
        // Gateway API listener selection: no listener for the host answers 404
        gateway::Found::NoListener => return respond("404"),
        gateway::Found::Routes(set) => set,
    };
    // HTTPRouteRule.matches: "When no rules matching a request have been successfully
    // attached to the parent a request is coming from, a HTTP 404 status code MUST be
    // returned"
    if set.is_empty() {
        return respond("404");
    }
    if !req.protocol.is_http() {
        return respond("mismatch");
    }
    match http_winner(RouteKind::Http, &set, req) {
        // Gateway routes always need a ReferenceGrant for another namespace's backend
        // (GEP-709); the mesh policy does not apply
        Some(w) => decide(input, policy.with_enforce_grants(true), req, entropy, w),
        None => respond("404"),
    }
}

/// The highest-precedence (route, rule index) of `set` matching the HTTP or gRPC request;
/// each route comes with the hostnames it matches (`None`: any host).
fn http_winner<'r>(
    kind: RouteKind,
    set: &[(&'r RouteIr, gateway::EffectiveHosts)],
    req: &Request<'_>,
) -> Option<(&'r RouteIr, usize)> {
    let (path, query) = match req.path_and_query.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (req.path_and_query, None),
    };
    let path = path.split('#').next().unwrap_or("");
    let query = query.map(|q| q.split('#').next().unwrap_or(""));
    let req_host = req.host.map(host_of);
    let mut cands: Vec<(Key, &RouteIr, usize)> = Vec::new();
    for (r, hosts) in set {
        let r: &'r RouteIr = r;
        for (h, (origin_nonwild, origin_chars)) in hosts.iter().map(|(h, o)| (h.as_deref(), *o)) {
            let host_ok = match (h, &req_host) {
                (None, _) => true,
                (Some(p), Some(rh)) => host_matches(&p.to_ascii_lowercase(), rh),
                (Some(_), None) => false,
            };
            if !host_ok {
                continue;
            }
            let (hn, hc) = gateway::specificity_of(h);
            for (ri, rule) in r.rules.iter().enumerate() {
                if rule.invalid.is_some() {
                    continue;
                }
                for m in &rule.matches {
                    let mut key = Key {
                        host_nonwild: hn,
                        host_chars: hc,
                        route_host_nonwild: origin_nonwild,
                        route_host_chars: origin_chars,
                        rule: ri,
                        ..Key::of_route(r)
                    };
                    let ok = match m {
                        MatchIr::Http {
                            path: pm,
                            method,
                            headers,
                            query: qs,
                        } => {
                            if kind != RouteKind::Http {
                                continue;
                            }
                            let path_ok = match pm {
                                PathMatchIr::Exact(v) => {
                                    key.exact = true;
                                    v == path
                                }
                                PathMatchIr::Prefix(v) => {
                                    // the prefix as matched: a trailing `/` is ignored
                                    key.prefix_chars = v.trim_end_matches('/').len();
                                    prefix_ok(v, path)
                                }
                                PathMatchIr::Regex(v) => {
                                    key.is_regex = true;
                                    full_regex(v, path)
                                }
                            };
                            key.method = method.is_some();
                            let hs = dedup_names(headers, true);
                            let q = dedup_names(qs, false);
                            key.headers = hs.len();
                            key.query = q.len();
                            path_ok
                                && method
                                    .as_ref()
                                    .is_none_or(|m| req.method == Some(m.as_str()))
                                && hs.iter().all(|(n, v)| {
                                    // a value that is not UTF-8 can only equal an exact match
                                    // byte for byte
                                    req.headers.first_value(n).is_some_and(|b| {
                                        match std::str::from_utf8(b) {
                                            Ok(s) => str_ok(v, s),
                                            Err(_) => {
                                                matches!(v, StrMatch::Exact(e) if e.as_bytes() == b)
                                            }
                                        }
                                    })
                                })
                                && q.iter().all(|(n, v)| {
                                    query
                                        .and_then(|qq| query_first(qq, n))
                                        .is_some_and(|x| str_ok(v, x))
                                })
                        }
                        MatchIr::Grpc {
                            service,
                            method,
                            headers,
                        } => {
                            if kind != RouteKind::Grpc {
                                continue;
                            }
                            let (s, mm) =
                                match path.strip_prefix('/').and_then(|p| p.split_once('/')) {
                                    Some((s, m)) if !m.contains('/') => (s, m),
                                    _ => ("", ""),
                                };
                            let svc_ok = match service {
                                None => true,
                                Some(StrMatch::Exact(e)) => {
                                    key.svc_chars = e.len();
                                    e == s
                                }
                                Some(StrMatch::Regex(r)) => full_regex(r, s),
                            };
                            let meth_ok = match method {
                                None => true,
                                Some(StrMatch::Exact(e)) => {
                                    key.meth_chars = e.len();
                                    e == mm
                                }
                                Some(StrMatch::Regex(r)) => full_regex(r, mm),
                            };
                            let hs = dedup_names(headers, true);
                            key.headers = hs.len();
                            svc_ok
                                && meth_ok
                                && hs.iter().all(|(n, v)| {
                                    req.headers
                                        .first_value(n)
                                        .and_then(|b| std::str::from_utf8(b).ok())
                                        .is_some_and(|x| str_ok(v, x))
                                })
                        }
                    };
                    if ok {
                        cands.push((key, r, ri));
                    }
                }
            }
        }
    }
    cands.sort_by(|a, b| compare(&a.0, &b.0));
    cands.first().map(|(_, r, ri)| (*r, *ri))
}

/// What the winning rule `ri` of `route` does with the request.
fn decide(
    input: &TableInput,
    policy: Policy,
    req: &Request<'_>,
    entropy: u64,
    (route, ri): (&RouteIr, usize),
) -> Outcome {
    let rid = (
        route.kind,
        route.namespace.to_string(),
        route.name.to_string(),
    );
    let rule_index = u16::try_from(ri).unwrap_or(u16::MAX);
    let fail = |what: &str| Outcome::Respond {
        route: Some((
            route.kind,
            route.namespace.to_string(),
            route.name.to_string(),
            rule_index,
        )),
        status: status(req.protocol, what),
    };
    let Some(rule) = route.rules.get(ri) else {
        return fail("404");
    };
    if rule.invalid.is_some() {
        return fail("404");
    }
    if let Some(r) = &rule.filters.redirect {
        let (path, query) = match req.path_and_query.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (req.path_and_query, None),
        };
        // mesh only: no listener terminates TLS here, so an unset scheme is http
        let scheme = r.scheme.or(req.scheme).unwrap_or(Scheme::Http);
        let port = r.port.unwrap_or(match r.scheme {
            Some(s) => s.default_port(),
            None => req.port,
        });
        let host = r
            .hostname
            .clone()
            .or(req.host.map(host_of_keep_case))
            .unwrap_or_else(|| req.destination.to_string());
        let new_path = match &r.path {
            None => path.to_string(),
            Some(PathModifierIr::Full(p)) => p.clone(),
            Some(PathModifierIr::Prefix(repl)) => replace_prefix(rule, path, repl),
        };
        let port_s = if port == scheme.default_port() {
            String::new()
        } else {
            format!(":{port}")
        };
        let q = query.map(|q| format!("?{q}")).unwrap_or_default();
        return Outcome::Redirect {
            route: rid,
            rule: rule_index,
            status: r.status,
            location: format!("{}://{}{}{}{}", scheme.as_str(), host, port_s, new_path, q),
        };
    }
    if !rule.filters.extensions.is_empty() {
        return fail("500");
    }
    let total: u64 = rule.backends.iter().map(|b| u64::from(b.weight)).sum();
    if total == 0 {
        // no backends, or every weight zero
        return fail("500");
    }
    // the same scaling as the engine: entropy/2^64 of the total weight
    let mut target =
        u64::try_from((u128::from(entropy) * u128::from(total)) >> 64).unwrap_or(u64::MAX);
    let mut picked = None;
    for b in &rule.backends {
        if target < u64::from(b.weight) {
            picked = Some(b);
            break;
        }
        target -= u64::from(b.weight);
    }
    // target < total, so some backend was picked
    let Some(b) = picked else {
        return fail("500");
    };
    match backend_valid(input, route, b, policy) {
        Err(()) => fail("500"),
        Ok(false) => fail("503"),
        Ok(true) if !b.filters.extensions.is_empty() => fail("500"),
        Ok(true) => Outcome::Forward {
            route: rid,
            rule: rule_index,
            backend: (b.namespace.to_string(), b.name.to_string(), b.port),
        },
    }
}

/// `ReplacePrefixMatch`: the rule's single PathPrefix (trailing `/` trimmed) replaced by `repl`.
fn replace_prefix(rule: &RuleIr, path: &str, repl: &str) -> String {
    let pref = match rule.matches.as_slice() {
        [
            MatchIr::Http {
                path: PathMatchIr::Prefix(p),
                ..
            },
        ] => p.trim_end_matches('/'),
        _ => "",
    };
    // the request matched `pref` segment by segment, so it starts with it
    let rest = path.strip_prefix(pref).unwrap_or(path);
    let joined = format!("{}{}", repl.trim_end_matches('/'), rest);
    if joined.is_empty() {
        "/".into()
    } else {
        joined
    }
}

fn host_of_keep_case(h: &str) -> String {
    let h = h.trim();
    let h = match h.rsplit_once(':') {
        Some((a, p)) if p.chars().all(|c| c.is_ascii_digit()) && !a.starts_with('[') => a,
        _ => h,
    };
    h.trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::smallvec;

    // Gateway API hostname wildcards: `*.example.com` covers one or more labels, never the bare
    // suffix.
    #[test]
    fn wildcard_hostnames_cover_one_or_more_labels() {
        assert!(host_matches("*.example.com", "test.example.com"));
        assert!(host_matches("*.example.com", "foo.test.example.com"));
        assert!(!host_matches("*.example.com", "example.com"));
        assert!(!host_matches("*.example.com", "testexample.com"));
        assert!(!host_matches("*.example.com", ".example.com"));
        assert!(host_matches("*.com", "www.example.com"));
        assert!(host_matches("foo.example.com", "foo.example.com"));
        assert!(!host_matches("foo.example.com", "bar.example.com"));
    }

    // Gateway API HTTPPathMatch: PathPrefix matches whole path elements; a trailing `/` is ignored.
    #[test]
    fn path_prefixes_match_whole_elements() {
        for (prefix, path, want) in [
            ("/v2", "/v2", true),
            ("/v2", "/v2/", true),
            ("/v2", "/v2/example", true),
            ("/v2/", "/v2", true),
            ("/v2", "/v2example", false),
            ("/v2", "/foo/v2/example", false),
            ("/", "/anything", true),
            ("/a/b", "/a", false),
        ] {
            assert_eq!(prefix_ok(prefix, path), want, "{prefix} on {path}");
        }
    }

    // Gateway API HTTPRequestRedirectFilter (RequestRedirect `ReplacePrefixMatch`): the matched
    // prefix is replaced, never doubling `/`.
    #[test]
    fn replace_prefix_match_follows_the_spec_examples() {
        let rule = |p: &str| RuleIr {
            matches: smallvec![MatchIr::Http {
                path: PathMatchIr::Prefix(p.into()),
                method: None,
                headers: vec![],
                query: vec![],
            }],
            ..RuleIr::default()
        };
        for (path, prefix, repl, want) in [
            ("/foo/bar", "/foo", "/xyz", "/xyz/bar"),
            ("/foo/bar", "/foo/", "/xyz/", "/xyz/bar"),
            ("/foo", "/foo", "/xyz", "/xyz"),
            ("/foo/bar", "/foo", "", "/bar"),
            ("/foo", "/foo", "", "/"),
            ("/a/b", "/", "/x", "/x/a/b"),
        ] {
            assert_eq!(
                replace_prefix(&rule(prefix), path, repl),
                want,
                "{path} {prefix} {repl}"
            );
        }
    }
}
