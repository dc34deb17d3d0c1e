//! The hostile snapshot: many small HTTPRoutes, a tenth of them on one Service port.
//!
//! `hostile(100_000)` is the exact target shape: 100,000 HTTPRoutes, 10,000 of them
//! attached to `app/web:80` (the hot port, at [`crate::svc_ip`]`(0)`), the other 90,000 spread
//! ten per Service over 9,000 other Services. Routes have one to three rules each, so unlike
//! [`crate::one_port`] (100 rules per route) the table holds as many routes as the cluster.
//!
//! Precedence is exercised on purpose (Gateway API HTTPRouteRule.matches precedence): hot routes
//! come in pairs ("siblings" `2m` and `2m + 1`) whose shared rules have identical matches, so the
//! pair is decided by creationTimestamp; one pair in ten has equal timestamps (decided by
//! `namespace/name`), one route in 97 has none (it sorts after every route that has one), one odd
//! sibling in four adds a header match (header count beats age), and one route in ten adds a
//! shorter prefix `/h{m}` under the longer ones (longest prefix wins).

use gamma_model::RouteKind;
use gamma_resolve::input::*;

use crate::{Rng, http_rule, parent, service, svc_ip};

/// The hot Service's name (namespace `app`, port 80, address [`crate::svc_ip`]`(0)`).
pub const HOT_SERVICE: &str = "web";

/// Routes per cold Service.
const COLD_PER_SERVICE: usize = 10;

/// First creationTimestamp of the fixture (seconds).
const EPOCH: i64 = 1_700_000_000;

/// The sizes of a [`hostile`] snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostileShape {
    /// HTTPRoutes in total.
    pub routes: usize,
    /// HTTPRoutes attached to the hot port.
    pub hot_routes: usize,
    /// Rules on the hot port.
    pub hot_rules: usize,
    /// Rules in total.
    pub rules: usize,
    /// Services that are route parents (the hot one included).
    pub parent_services: usize,
}

/// Rules of hot route `k`: 1, 2 or 3.
fn hot_rule_count(k: usize) -> usize {
    1 + k % 3
}

/// Whether rule `r` of sibling pair `m` is a PathPrefix (otherwise an Exact path).
fn hot_is_prefix(m: usize, r: usize) -> bool {
    (m + r).is_multiple_of(2)
}

/// Whether rule `r` of sibling pair `m` also matches the `x-tenant` header.
fn hot_has_tenant(m: usize, r: usize) -> bool {
    (m + r).is_multiple_of(3)
}

/// Whether hot route `k` adds an `x-canary: 1` match to every rule (odd siblings, one pair in
/// four).
fn hot_has_canary(k: usize) -> bool {
    k % 2 == 1 && (k / 2) % 4 == 1
}

/// The tenant value pair `m`'s header matches want.
fn tenant(m: usize) -> String {
    format!("t{}", m % 5)
}

fn hot_route(k: usize) -> RouteIr {
    let m = k / 2;
    let created = if k.is_multiple_of(97) {
        None
    } else if m.is_multiple_of(10) {
        Some((EPOCH + m as i64, 0))
    } else {
        Some((EPOCH + ((k * 7919) % 10_000) as i64, 0))
    };
    let mut rules: Vec<RuleIr> = (0..hot_rule_count(k))
        .map(|r| {
            let path = if hot_is_prefix(m, r) {
                PathMatchIr::Prefix(format!("/h{m}/r{r}").into())
            } else {
                PathMatchIr::Exact(format!("/h{m}/r{r}/x").into())
            };
            let mut headers = Vec::new();
            if hot_has_tenant(m, r) {
                headers.push(("x-tenant".into(), StrMatch::Exact(tenant(m).into())));
            }
            if hot_has_canary(k) {
                headers.push(("x-canary".into(), StrMatch::Exact("1".into())));
            }
            http_rule(path, headers, k)
        })
        .collect();
    if k.is_multiple_of(10) {
        rules.push(http_rule(
            PathMatchIr::Prefix(format!("/h{m}").into()),
            Vec::new(),
            k + 1,
        ));
    }
    RouteIr {
        kind: RouteKind::Http,
        namespace: "app".into(),
        name: format!("hot-{k:05}").into(),
        created,
        hostnames: vec![],
        parents: vec![parent(HOT_SERVICE)],
        rules,
        invalid: None,
    }
}

fn cold_route(i: usize) -> RouteIr {
    RouteIr {
        kind: RouteKind::Http,
        namespace: "app".into(),
        name: format!("cold-{i:06}").into(),
        created: Some((EPOCH + (i % 1000) as i64, 0)),
        hostnames: vec![],
        parents: vec![parent(&cold_service_name(i / COLD_PER_SERVICE))],
        rules: vec![http_rule(
            PathMatchIr::Prefix(format!("/c{}", i % COLD_PER_SERVICE).into()),
            Vec::new(),
            i,
        )],
        invalid: None,
    }
}

fn cold_service_name(s: usize) -> String {
    format!("svc{s}")
}

/// The hostile snapshot with `routes` HTTPRoutes, `routes / 10` of them on the hot port (see
/// the module docs), and its shape.
pub fn hostile(routes: usize) -> (TableInput, HostileShape) {
    let hot = routes / 10;
    let cold = routes - hot;
    let cold_services = cold.div_ceil(COLD_PER_SERVICE);
    let mut services = vec![service("app", HOT_SERVICE, svc_ip(0))];
    services
        .extend((0..cold_services).map(|s| service("app", &cold_service_name(s), svc_ip(1 + s))));
    for b in 0..8 {
        services.push(service(
            "app",
            &format!("b{b}"),
            svc_ip(1 + cold_services + b),
        ));
    }
    let mut all: Vec<RouteIr> = (0..hot).map(hot_route).collect();
    let hot_rules = all.iter().map(|r| r.rules.len()).sum();
    all.extend((0..cold).map(cold_route));
    let rules = all.iter().map(|r| r.rules.len()).sum();
    let shape = HostileShape {
        routes,
        hot_routes: hot,
        hot_rules,
        rules,
        parent_services: 1 + cold_services,
    };
    (
        TableInput::new().with_services(services).with_routes(all),
        shape,
    )
}

/// The part of `input` the hot port sees: its routes and every Service (for backend checks).
/// What a reference matcher or a linear scan of that one port needs.
pub fn hot_port_only(input: &TableInput) -> TableInput {
    // Every other part of the input as it is, so an input kind added later is kept too.
    let mut hot = input.clone();
    hot.routes
        .retain(|r| r.parents.iter().any(|p| p.name == HOT_SERVICE));
    hot
}

/// A request to the hot port: a path and headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotRequest {
    /// Path (and query).
    pub path: String,
    /// Request headers.
    pub headers: Vec<(&'static str, String)>,
}

impl HotRequest {
    /// The headers in the form [`gamma_resolve::Request::with_headers`] takes.
    pub fn header_refs(&self) -> Vec<(&str, &str)> {
        self.headers.iter().map(|(n, v)| (*n, v.as_str())).collect()
    }
}

/// A random request to the hot port of a snapshot with `hot_routes` hot routes: it targets a
/// random rule of a random route (a deeper path under a prefix, the exact path otherwise),
/// sends the tenant that rule may want, a wrong tenant one time in eight and `x-canary: 1` half
/// the time; one request in sixteen goes to a path no rule matches.
pub fn hot_request(rng: &mut Rng, hot_routes: usize) -> HotRequest {
    let k = rng.below(hot_routes.max(1));
    let m = k / 2;
    let r = rng.below(hot_rule_count(k));
    let path = if rng.below(16) == 0 {
        format!("/nowhere/{k}")
    } else if hot_is_prefix(m, r) {
        format!("/h{m}/r{r}/items/{}", rng.below(100))
    } else {
        format!("/h{m}/r{r}/x")
    };
    let mut headers = Vec::new();
    let t = if rng.below(8) == 0 { m + 1 } else { m };
    headers.push(("x-tenant", tenant(t)));
    if rng.below(2) == 0 {
        headers.push(("x-canary", "1".to_string()));
    }
    HotRequest { path, headers }
}

/// A random request to a cold Service of a snapshot of `shape`: (Service index for
/// [`crate::svc_ip`], path).
pub fn cold_request(rng: &mut Rng, shape: &HostileShape) -> (usize, String) {
    let s = rng.below(shape.parent_services.saturating_sub(1).max(1));
    (
        1 + s,
        format!("/c{}/items", rng.below(COLD_PER_SERVICE + 1)),
    )
}
