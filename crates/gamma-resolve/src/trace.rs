//! Chains: a request followed hop by hop. A Gateway listener's route forwards to Service A; if
//! A has mesh routes on that port they decide the next hop (GEP-1294: mesh routes bind to the
//! Service's cluster IPs and ports), whose backend may have routes again. Each hop is resolved
//! exactly as [`RouteTable::resolve`] resolves a request, on the request as the previous hop
//! sent it (header modifiers and URL rewrites applied). Semantics: `docs/chains.md`.

use std::fmt;
use std::net::IpAddr;

use schemars::JsonSchema;
use serde::Serialize;

use crate::decision::{BackendTarget, Decision, Respond, RuleRef};
use crate::fraction::Fraction;
use crate::headers::HeaderLookup;
use crate::input::HeaderEdits;
use crate::path::split_path_query;
use crate::request::{Protocol, Request, Scheme};
use crate::resolve::{Located, status_for};
use crate::table::{Action, RouteTable};
use crate::view::{Frontend, RouteSetKind};
use crate::weights;

/// Whose namespace the client of a later hop is (the namespace consumer routes are chosen by,
/// GEP-1294 namespace boundaries). Implementations differ here; see `docs/chains.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum NextClient {
    /// The namespace of the component that makes the call: the Gateway's namespace for the hop
    /// after a listener, the Service's namespace for the hop after that Service's mesh routes
    /// (its workloads, or a proxy acting for them, send the request on).
    #[default]
    Caller,
    /// The original client's namespace on every hop, as where the client's own proxy resolves
    /// the whole chain.
    Original,
}

/// Limits and choices of [`RouteTable::trace_with`] and
/// [`RouteTable::trace_distribution_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TraceOptions {
    /// The most hops a trace follows (at least 1; default 8). A trace that would go further
    /// ends with [`TraceEnd::DepthLimit`].
    pub max_hops: usize,
    /// Whose namespace later hops are sent from.
    pub next_client: NextClient,
    /// The most branches [`RouteTable::trace_distribution`] explores (every weighted pick of
    /// every hop counts one; default 4096): weighted splits behind weighted splits multiply.
    pub max_paths: usize,
    /// Whether a Gateway route's backend Service with mesh routes is a next hop (default
    /// `true`: the Gateway sends to the Service frontend, "Service routing", and the mesh
    /// applies the Service's routes). `false`: the Gateway picks the Service's endpoints
    /// itself ("endpoint routing"), and mesh routes on that Service are not applied on top
    /// (GEP-1294, multiple routes for a Service).
    pub gateway_to_mesh: bool,
}

impl Default for TraceOptions {
    fn default() -> Self {
        Self {
            max_hops: 8,
            next_client: NextClient::Caller,
            max_paths: 4096,
            gateway_to_mesh: true,
        }
    }
}

impl TraceOptions {
    /// Sets [`TraceOptions::max_hops`].
    pub fn with_max_hops(mut self, n: usize) -> Self {
        self.max_hops = n;
        self
    }

    /// Sets [`TraceOptions::next_client`].
    pub fn with_next_client(mut self, c: NextClient) -> Self {
        self.next_client = c;
        self
    }

    /// Sets [`TraceOptions::gateway_to_mesh`].
    pub fn with_gateway_to_mesh(mut self, follow: bool) -> Self {
        self.gateway_to_mesh = follow;
        self
    }

    /// Sets [`TraceOptions::max_paths`].
    pub fn with_max_paths(mut self, n: usize) -> Self {
        self.max_paths = n;
        self
    }
}

/// A request header as the chain left it: `value` is the header's (first, combined) value
/// now, `None` once removed. Headers no hop edited are as the client sent them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, JsonSchema)]
pub struct HeaderState {
    /// The header name, lower-case.
    pub name: String,
    /// The value, or `None` when a hop removed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// The request one hop receives, owned (later hops' requests are computed by the chain).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HopRequest {
    /// The client namespace (see [`NextClient`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_namespace: Option<String>,
    /// Destination address: for later hops, the backend Service's cluster IP (under
    /// [`crate::MeshBinding::Workloads`], for a headless Service, one of its ready endpoints).
    pub destination: IpAddr,
    /// Destination port: for later hops, the backendRef's port (for a headless Service's
    /// endpoint, that port's target port).
    pub port: u16,
    /// The protocol (kept along the chain).
    pub protocol: Protocol,
    /// The scheme (`None` for later hops: the mesh's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheme: Option<Scheme>,
    /// Host/authority (replaced by a URLRewrite `hostname`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// HTTP method.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Path and query (the path replaced by a URLRewrite `path`).
    pub path: String,
    /// TLS SNI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sni: Option<String>,
    /// The headers edited by earlier hops, by name; all others as the client sent them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub header_edits: Vec<HeaderState>,
}

impl HopRequest {
    /// The owned form of a request (no header edits yet).
    pub fn of(req: &Request<'_>) -> Self {
        Self {
            source_namespace: req.source_namespace.map(str::to_owned),
            destination: req.destination,
            port: req.port,
            protocol: req.protocol,
            scheme: req.scheme,
            host: req.host.map(str::to_owned),
            method: req.method.map(str::to_owned),
            path: req.path_and_query.to_owned(),
            sni: req.sni.map(str::to_owned),
            header_edits: Vec::new(),
        }
    }

    /// This request's headers: its edits over `received`, the headers the first hop received.
    pub fn headers_over<'a>(&'a self, received: &'a dyn HeaderLookup) -> EditedHeaders<'a> {
        EditedHeaders {
            received,
            edits: &self.header_edits,
        }
    }

    /// Borrows the request for [`RouteTable::resolve`], with `headers` from
    /// [`HopRequest::headers_over`].
    pub fn as_request<'a>(&'a self, headers: &'a EditedHeaders<'a>) -> Request<'a> {
        Request {
            source_namespace: self.source_namespace.as_deref(),
            source_labels: &[],
            destination: self.destination,
            port: self.port,
            protocol: self.protocol,
            scheme: self.scheme,
            host: self.host.as_deref(),
            method: self.method.as_deref(),
            path_and_query: &self.path,
            headers,
            sni: self.sni.as_deref(),
        }
    }
}

/// Header edits of a chain over the headers the first hop received.
#[derive(Clone, Copy)]
pub struct EditedHeaders<'a> {
    received: &'a dyn HeaderLookup,
    edits: &'a [HeaderState],
}

impl fmt::Debug for EditedHeaders<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EditedHeaders")
            .field("edits", &self.edits)
            .finish_non_exhaustive()
    }
}

impl HeaderLookup for EditedHeaders<'_> {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        match self
            .edits
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
        {
            Some(h) => h.value.as_deref().map(str::as_bytes),
            None => self.received.first_value(name),
        }
    }
}

/// Applies a `RequestHeaderModifier` (Gateway API HTTPHeaderFilter) to the chain's edits:
/// `set` replaces, `add` appends to an existing value comma-separated (the filter's own
/// example: `foo` plus `bar` gives `foo,bar`), `remove` drops. One filter names a header at
/// most once (CEL), so the order inside it does not matter.
fn apply_edits(edits: &mut Vec<HeaderState>, received: &dyn HeaderLookup, f: &HeaderEdits) {
    fn put(edits: &mut Vec<HeaderState>, name: &str, value: Option<String>) {
        let name = name.to_ascii_lowercase();
        match edits.binary_search_by(|h| h.name.as_str().cmp(&name)) {
            Ok(i) => {
                if let Some(h) = edits.get_mut(i) {
                    h.value = value;
                }
            }
            Err(i) => edits.insert(i, HeaderState { name, value }),
        }
    }
    for (k, v) in &f.set {
        put(edits, k, Some(v.clone()));
    }
    for (k, v) in &f.add {
        let now = EditedHeaders { received, edits }
            .first_value(k)
            .map(|old| format!("{},{v}", String::from_utf8_lossy(old)));
        put(edits, k, Some(now.unwrap_or_else(|| v.clone())));
    }
    for k in &f.remove {
        put(edits, k, None);
    }
}

/// What one hop did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "decision", rename_all = "camelCase")]
#[non_exhaustive]
pub enum HopOutcome<'t> {
    /// Forwarded to a backend.
    #[serde(rename_all = "camelCase")]
    Forward {
        /// The rule that matched.
        rule: RuleRef<'t>,
        /// The backend picked.
        backend: BackendTarget<'t>,
        /// Index of the picked backendRef in the rule.
        backend_index: u16,
    },
    /// Redirected the client.
    Redirect {
        /// The rule that matched.
        rule: RuleRef<'t>,
        /// Status code.
        status: u16,
        /// The `Location`.
        location: String,
    },
    /// Answered with an error status.
    Respond(Respond<'t>),
    /// Nothing is bound to the destination.
    Passthrough,
}

impl<'a> HopOutcome<'a> {
    /// The outcome of a [`Decision`] (what [`RouteTable::resolve`] returns): a trace's hop
    /// equals `resolve` on its request when their outcomes are equal.
    pub fn of(d: &Decision<'a>) -> Self {
        match d {
            Decision::Forward(f) => Self::Forward {
                rule: f.rule,
                backend: f.backend,
                backend_index: f.backend_index,
            },
            Decision::Redirect(r) => Self::Redirect {
                rule: r.rule,
                status: r.status,
                location: r.location.to_string(),
            },
            Decision::Respond(r) => Self::Respond(*r),
            Decision::Passthrough => Self::Passthrough,
        }
    }
}

impl fmt::Display for HopOutcome<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Forward { rule, backend, .. } => write!(f, "forward to {backend} (by {rule})"),
            Self::Redirect {
                rule,
                status,
                location,
            } => write!(f, "redirect {status} to {location} (by {rule})"),
            Self::Respond(r) => {
                write!(f, "respond {}: {}", r.status, r.reason)?;
                if let Some(rule) = r.rule {
                    write!(f, " (by {rule})")?;
                }
                Ok(())
            }
            Self::Passthrough => f.write_str("pass through: no route is bound to the destination"),
        }
    }
}

/// What a forwarding hop sent to its backend: the request after the rule's and the
/// backendRef's `RequestHeaderModifier` and the `URLRewrite` (Gateway API HTTPURLRewriteFilter).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Forwarded {
    /// Host/authority sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Path and query sent.
    pub path: String,
    /// Headers edited so far (see [`HopRequest::header_edits`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub header_edits: Vec<HeaderState>,
}

/// One hop of a [`Trace`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Hop<'t> {
    /// The request as this hop received it.
    pub request: HopRequest,
    /// The entropy of this hop's weighted pick (the first hop's is the caller's; each later
    /// one is what the previous pick left, [`weights::pick_with_rest`]).
    pub entropy: u64,
    /// What the request bound to, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontend: Option<Frontend<'t>>,
    /// The route set that applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_set: Option<RouteSetKind<'t>>,
    /// What the hop did.
    pub outcome: HopOutcome<'t>,
    /// What it sent to the backend, when it forwarded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forwarded: Option<Forwarded>,
}

/// How a chain ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "end", rename_all = "camelCase")]
#[non_exhaustive]
pub enum TraceEnd<'t> {
    /// The last hop forwarded to a backend without routes of its own on that port, to its own
    /// parent Service, or to something other than a Service: the request reaches the
    /// backend's endpoints.
    Delivered {
        /// The backend.
        backend: BackendTarget<'t>,
    },
    /// A hop redirected or answered itself.
    Answered {
        /// That hop's outcome.
        outcome: HopOutcome<'t>,
    },
    /// The first destination binds nothing: plain Kubernetes Service behaviour.
    Passthrough,
    /// Forwarding to the backend would repeat hop `revisits` exactly (same destination, client
    /// namespace and request): a routing loop, reported instead of followed.
    Cycle {
        /// The backend.
        backend: BackendTarget<'t>,
        /// Index of the hop that would repeat.
        revisits: usize,
    },
    /// The backend has routes, but [`TraceOptions::max_hops`] hops were followed already.
    DepthLimit {
        /// The backend.
        backend: BackendTarget<'t>,
    },
}

impl fmt::Display for TraceEnd<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Delivered { backend } => write!(f, "delivered to {backend}"),
            Self::Answered { outcome } => write!(f, "{outcome}"),
            Self::Passthrough => f.write_str("pass through"),
            Self::Cycle { backend, revisits } => {
                write!(f, "cycle: {backend} would repeat hop {}", revisits + 1)
            }
            Self::DepthLimit { backend } => write!(f, "depth limit reached before {backend}"),
        }
    }
}

/// A request followed through every hop ([`RouteTable::trace`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct Trace<'t> {
    /// The hops, first (the request as given) to last; never empty.
    pub hops: Vec<Hop<'t>>,
    /// How the chain ended.
    pub end: TraceEnd<'t>,
}

/// One end of a chain and its exact share of the traffic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct EndShare<'t> {
    /// The end.
    pub end: TraceEnd<'t>,
    /// Its share: the sum over the paths reaching it of the product of `weight / sum` of
    /// each pick along the path.
    pub share: Fraction,
}

/// The exact end-to-end split of a request ([`RouteTable::trace_distribution`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct Distribution<'t> {
    /// Every end, in the order a depth-first walk of the picks (backendRefs in rule order)
    /// first reaches it; the shares sum to 1.
    pub ends: Vec<EndShare<'t>>,
}

/// Why [`RouteTable::trace_distribution`] gave no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DistributionError {
    /// The weighted picks branch more often than [`TraceOptions::max_paths`].
    #[error("the chain branches into more than {limit} paths (TraceOptions::max_paths)")]
    TooManyPaths {
        /// The limit.
        limit: usize,
    },
    /// A share does not fit in a 128-bit fraction.
    #[error("an end-to-end share does not fit in a 128-bit fraction")]
    Overflow,
}

/// The result of resolving one hop.
struct Step<'t> {
    hop: Hop<'t>,
    next: Result<HopRequest, TraceEnd<'t>>,
    rest: u64,
}

/// Where a hop is in its chain.
struct Place<'c> {
    /// The requests of the earlier hops, first to last.
    earlier: &'c [HopRequest],
    /// The original client's namespace.
    origin: Option<&'c str>,
    options: &'c TraceOptions,
}

impl RouteTable {
    /// [`RouteTable::trace_with`].
    pub(crate) fn follow<'t>(
        &'t self,
        req: &Request<'_>,
        entropy: u64,
        options: &TraceOptions,
    ) -> Trace<'t> {
        let mut hops: Vec<Hop<'t>> = Vec::new();
        let mut requests: Vec<HopRequest> = Vec::new();
        let mut current = HopRequest::of(req);
        let mut entropy = entropy;
        loop {
            let place = Place {
                earlier: &requests,
                origin: req.source_namespace,
                options,
            };
            let step = if hops.is_empty() {
                self.step(req, &current, entropy, &place)
            } else {
                let headers = current.headers_over(req.headers);
                self.step(&current.as_request(&headers), &current, entropy, &place)
            };
            hops.push(step.hop);
            match step.next {
                Ok(next) => {
                    requests.push(std::mem::replace(&mut current, next));
                    entropy = step.rest;
                }
                Err(end) => return Trace { hops, end },
            }
        }
    }

    /// [`RouteTable::trace_distribution_with`].
    pub(crate) fn distribution<'t>(
        &'t self,
        req: &Request<'_>,
        options: &TraceOptions,
    ) -> Result<Distribution<'t>, DistributionError> {
        struct State {
            earlier: Vec<HopRequest>,
            current: HopRequest,
            share: Fraction,
        }
        let mut ends: Vec<EndShare<'t>> = Vec::new();
        let mut stack = vec![State {
            earlier: Vec::new(),
            current: HopRequest::of(req),
            share: Fraction::ONE,
        }];
        let mut paths = 0usize;
        while let Some(state) = stack.pop() {
            let headers = state.current.headers_over(req.headers);
            let later = state.current.as_request(&headers);
            let r = if state.earlier.is_empty() {
                req
            } else {
                &later
            };
            let place = Place {
                earlier: &state.earlier,
                origin: req.source_namespace,
                options,
            };
            let mut children = Vec::new();
            for (entropy, p) in self.split_at(r) {
                paths += 1;
                if paths > options.max_paths {
                    return Err(DistributionError::TooManyPaths {
                        limit: options.max_paths,
                    });
                }
                let share = state
                    .share
                    .checked_mul(p)
                    .ok_or(DistributionError::Overflow)?;
                match self.step(r, &state.current, entropy, &place).next {
                    Ok(next) => children.push((next, share)),
                    Err(end) => match ends.iter_mut().find(|e| e.end == end) {
                        Some(e) => {
                            e.share = e
                                .share
                                .checked_add(share)
                                .ok_or(DistributionError::Overflow)?
                        }
                        None => ends.push(EndShare { end, share }),
                    },
                }
            }
            // depth first, backendRefs in rule order
            for (next, share) in children.into_iter().rev() {
                let mut earlier = state.earlier.clone();
                earlier.push(state.current.clone());
                stack.push(State {
                    earlier,
                    current: next,
                    share,
                });
            }
        }
        Ok(Distribution { ends })
    }

    /// The picks of the hop `r`: for each backendRef with weight, the smallest entropy that
    /// picks it and its share; a single `(0, 1)` when the hop does not split.
    fn split_at(&self, r: &Request<'_>) -> Vec<(u64, Fraction)> {
        let pq = split_path_query(r.path_and_query);
        if let (Located::Rule(part, rule, _), _) = self.locate(r, pq)
            && let Action::Backends(..) = rule.action
        {
            let bs = part.backends_of(&rule.action);
            let ws = || bs.iter().map(|b| b.weight);
            let total: u64 = ws().map(u64::from).sum();
            let picks: Vec<(u64, Fraction)> = bs
                .iter()
                .enumerate()
                .filter_map(|(i, b)| {
                    let e = weights::first_entropy_of(ws(), i)?;
                    Some((e, Fraction::new(u128::from(b.weight), u128::from(total))?))
                })
                .collect();
            if !picks.is_empty() {
                return picks;
            }
        }
        vec![(0, Fraction::ONE)]
    }

    /// Resolves one hop `r` (whose owned form is `current`) and computes the next.
    fn step<'t>(
        &'t self,
        r: &Request<'_>,
        current: &HopRequest,
        entropy: u64,
        place: &Place<'_>,
    ) -> Step<'t> {
        let pq = split_path_query(r.path_and_query);
        let (located, set) = self.locate(r, pq);
        let (frontend, route_set) = set.and_then(|(p, s)| p.set_frontend(s)).unzip();
        let mut hop = Hop {
            request: current.clone(),
            entropy,
            frontend,
            route_set,
            outcome: HopOutcome::Passthrough,
            forwarded: None,
        };
        let answered = |hop: Hop<'t>| {
            let end = TraceEnd::Answered {
                outcome: hop.outcome.clone(),
            };
            Step {
                hop,
                next: Err(end),
                rest: entropy,
            }
        };
        let (part, rule, scheme) = match located {
            Located::Nothing => {
                return Step {
                    hop,
                    next: Err(TraceEnd::Passthrough),
                    rest: entropy,
                };
            }
            Located::Answer(reason) => {
                hop.outcome = HopOutcome::Respond(Respond {
                    rule: None,
                    status: status_for(r.protocol, reason),
                    reason,
                    listener_filters: None,
                });
                return answered(hop);
            }
            Located::Rule(part, rule, scheme) => (part, rule, scheme),
        };
        let rref = part.rule_ref(rule);
        let forward = match part.act(rule, r, scheme, pq, entropy) {
            Decision::Forward(f) => f,
            Decision::Redirect(d) => {
                hop.outcome = HopOutcome::Redirect {
                    rule: rref,
                    status: d.status,
                    location: d.location.to_string(),
                };
                return answered(hop);
            }
            Decision::Respond(d) => {
                // a trace hop reports the answer; the listener's filters are the decision's
                hop.outcome = HopOutcome::Respond(Respond {
                    rule: d.rule.map(|_| rref),
                    status: d.status,
                    reason: d.reason,
                    listener_filters: None,
                });
                return answered(hop);
            }
            Decision::Passthrough => {
                return Step {
                    hop,
                    next: Err(TraceEnd::Passthrough),
                    rest: entropy,
                };
            }
        };
        let bs = part.backends_of(&rule.action);
        let Some(t) = bs
            .get(usize::from(forward.backend_index))
            .and_then(|b| part.targets.get(b.target as usize))
        else {
            return Step {
                hop,
                next: Err(TraceEnd::Passthrough),
                rest: entropy,
            };
        };
        let backend = crate::table::target(t);
        hop.outcome = HopOutcome::Forward {
            rule: rref,
            backend,
            backend_index: forward.backend_index,
        };
        let rest = weights::pick_with_rest(bs.iter().map(|b| b.weight), entropy)
            .map_or(entropy, |(_, rest)| rest);
        // what the backend receives: the rule's header edits, then the backendRef's, then the
        // rewrite (Gateway API HTTPRouteRule.filters, BackendRef.filters)
        let mut header_edits = current.header_edits.clone();
        if r.protocol.is_http() {
            apply_edits(&mut header_edits, r.headers, forward.request_headers);
            apply_edits(
                &mut header_edits,
                r.headers,
                forward.backend_request_headers,
            );
        }
        let (host, path) = match forward.rewrite {
            Some(rw) => (
                rw.host.map(str::to_owned).or_else(|| current.host.clone()),
                match (rw.path, pq.1) {
                    (Some(p), Some(q)) => format!("{p}?{q}"),
                    (Some(p), None) => p.to_string(),
                    (None, _) => current.path.clone(),
                },
            ),
            None => (current.host.clone(), current.path.clone()),
        };
        let forwarded = Forwarded {
            host,
            path,
            header_edits,
        };
        hop.forwarded = Some(forwarded.clone());
        // Routes apply at a Service's frontend and a backendRef names its backend: a route
        // whose backend is its own parent Service sends to that Service's endpoints, never
        // through its routes again (GEP-1294, multiple routes for a Service).
        let own_service = matches!(hop.frontend, Some(Frontend::Service { namespace, name, .. })
            if namespace == backend.namespace && name == backend.name);
        let from_gateway = matches!(
            hop.frontend,
            Some(Frontend::Listener { .. } | Frontend::ListenerSetListener { .. })
        );
        let next_bound = if own_service || (from_gateway && !place.options.gateway_to_mesh) {
            None
        } else {
            self.backend_frontend(t, r.protocol)
        };
        let Some(crate::table::NextFrontend {
            address: destination,
            port,
        }) = next_bound
        else {
            return Step {
                hop,
                next: Err(TraceEnd::Delivered { backend }),
                rest,
            };
        };
        let source_namespace = match place.options.next_client {
            NextClient::Caller => hop.frontend.map(|f| f.namespace().to_owned()),
            NextClient::Original => place.origin.map(str::to_owned),
        };
        let next = HopRequest {
            source_namespace,
            destination,
            port,
            protocol: current.protocol,
            scheme: None,
            host: forwarded.host,
            method: current.method.clone(),
            path: forwarded.path,
            sni: current.sni.clone(),
            header_edits: forwarded.header_edits,
        };
        let next = if let Some(revisits) = place
            .earlier
            .iter()
            .chain(std::iter::once(current))
            .position(|q| *q == next)
        {
            Err(TraceEnd::Cycle { backend, revisits })
        } else if place.earlier.len() + 1 >= place.options.max_hops {
            Err(TraceEnd::DepthLimit { backend })
        } else {
            Ok(next)
        };
        Step { hop, next, rest }
    }
}
