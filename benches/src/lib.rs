//! Fixtures and the pre-sorted linear scan used by the gamma-rs benches.
//!
//! Everything is deterministic (a fixed xorshift stream), so runs are comparable.
#![forbid(unsafe_code)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod authz;
pub mod chain;
pub mod counting;
pub mod grpc_mix;
pub mod hostile;
pub mod manifests;
pub mod regex_mix;

use std::net::{IpAddr, Ipv4Addr};

use gamma_model::RouteKind;
use gamma_resolve::input::*;

/// A small deterministic PRNG (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Self {
        Self(seed | 1)
    }
    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A value below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Address of Service number `j`.
pub fn svc_ip(j: usize) -> IpAddr {
    let j = j as u32 + 1;
    IpAddr::V4(Ipv4Addr::new(
        10,
        96 + (j >> 16) as u8,
        (j >> 8) as u8,
        j as u8,
    ))
}

pub(crate) fn service(ns: &str, name: &str, ip: IpAddr) -> ServiceIr {
    ServiceIr {
        namespace: ns.into(),
        name: name.into(),
        cluster_ips: vec![ip],
        headless: false,
        external_name: false,
        ports: vec![ServicePortIr {
            name: Some("http".into()),
            port: 80,
            protocol: L4::Tcp,
            app_protocol: None,
        }],
        ready: None,
        endpoints: Vec::new(),
    }
}

pub(crate) fn backend(name: &str, weight: u32) -> BackendIr {
    BackendIr {
        group: "".into(),
        kind: "Service".into(),
        namespace: "app".into(),
        name: name.into(),
        port: Some(80),
        weight,
        filters: Filters::default(),
    }
}

pub(crate) fn parent(name: &str) -> ParentRefIr {
    ParentRefIr {
        kind: ParentRefKind::Service,
        namespace: "app".into(),
        name: name.into(),
        section_name: None,
        port: None,
    }
}

/// Rule `i` of the one-port fixture: alternating PathPrefix `/s{i}/api` and Exact
/// `/s{i}/exact`, every third with a header match, weighted over two backends.
pub(crate) fn one_port_rule(i: usize) -> RuleIr {
    let path = if i.is_multiple_of(2) {
        PathMatchIr::Prefix(format!("/s{i}/api").into())
    } else {
        PathMatchIr::Exact(format!("/s{i}/exact").into())
    };
    let headers = if i.is_multiple_of(3) {
        vec![(
            "x-tenant".into(),
            StrMatch::Exact(format!("t{}", i % 7).into()),
        )]
    } else {
        vec![]
    };
    http_rule(path, headers, i)
}

/// One HTTP match (`path`, `headers`) weighted 3:1 over backends `b{seed % 8}` and
/// `b{(seed + 1) % 8}`: the rule shape every fixture uses.
pub(crate) fn http_rule(
    path: PathMatchIr,
    headers: Vec<(IrString, StrMatch)>,
    seed: usize,
) -> RuleIr {
    RuleIr {
        matches: smallvec![MatchIr::Http {
            path,
            method: None,
            headers,
            query: vec![],
        }],
        backends: smallvec![
            backend(&format!("b{}", seed % 8), 3),
            backend(&format!("b{}", (seed + 1) % 8), 1),
        ],
        ..RuleIr::default()
    }
}

/// `rules` HTTPRoute rules on one Service port (`10.96.0.1:80`), 100 rules per route.
pub fn one_port(rules: usize) -> TableInput {
    one_port_of(rules, one_port_rule)
}

/// `rules` HTTPRoute rules made by `rule(i)` on one Service port (`10.96.0.1:80`) with eight
/// backend Services, 100 rules per route: the layout every one-port fixture shares.
pub(crate) fn one_port_of(rules: usize, rule: fn(usize) -> RuleIr) -> TableInput {
    one_port_grouped(rules, 100, rule)
}

/// [`one_port_of`] with `per_route` rules per route.
pub(crate) fn one_port_grouped(
    rules: usize,
    per_route: usize,
    rule: fn(usize) -> RuleIr,
) -> TableInput {
    let mut services = vec![service("app", "web", svc_ip(0))];
    for b in 0..8 {
        services.push(service("app", &format!("b{b}"), svc_ip(1000 + b)));
    }
    let routes = (0..rules.div_ceil(per_route))
        .map(|r| RouteIr {
            kind: RouteKind::Http,
            namespace: "app".into(),
            name: format!("route-{r:05}").into(),
            created: Some((1_700_000_000 + r as i64, 0)),
            hostnames: vec![],
            parents: vec![parent("web")],
            rules: (r * per_route..((r + 1) * per_route).min(rules))
                .map(rule)
                .collect(),
            invalid: None,
        })
        .collect();
    TableInput::new()
        .with_services(services)
        .with_routes(routes)
}

/// A request of the one-port fixture that matches rule `i`: (path, tenant header value).
pub fn one_port_request(i: usize) -> (String, String) {
    let path = if i.is_multiple_of(2) {
        format!("/s{i}/api/items/42")
    } else {
        format!("/s{i}/exact")
    };
    (path, format!("t{}", i % 7))
}

/// `services` Services with one HTTPRoute of `rules_per` rules each.
pub fn many_services(services: usize, rules_per: usize) -> TableInput {
    let mut svcs: Vec<ServiceIr> = (0..services)
        .map(|j| service("app", &format!("svc{j}"), svc_ip(j)))
        .collect();
    for b in 0..8 {
        svcs.push(service("app", &format!("b{b}"), svc_ip(services + b)));
    }
    let routes = (0..services)
        .map(|j| RouteIr {
            kind: RouteKind::Http,
            namespace: "app".into(),
            name: format!("svc{j}").into(),
            created: Some((1_700_000_000, 0)),
            hostnames: vec![],
            parents: vec![parent(&format!("svc{j}"))],
            rules: (0..rules_per).map(|i| one_port_rule(i + j)).collect(),
            invalid: None,
        })
        .collect();
    TableInput::new().with_services(svcs).with_routes(routes)
}

/// One entry of the pre-sorted linear scan.
#[derive(Debug)]
struct Entry {
    exact: Option<String>,
    prefix: Option<String>,
    headers: Vec<(String, String)>,
    backend: String,
}

/// The best a scanning design can do: every match of one Service port pre-sorted by
/// precedence once, then scanned in order per request until the first full match. Handles the
/// shapes the one-port fixture uses (Exact/PathPrefix paths, exact header matches).
#[derive(Debug)]
pub struct LinearScan {
    entries: Vec<Entry>,
}

impl LinearScan {
    /// Pre-sorts the matches of `input` (all routes are on the same port).
    pub fn new(input: &TableInput) -> Self {
        type Key = (u8, usize, usize, (i64, u32), String, usize);
        let mut keyed: Vec<(Key, Entry)> = Vec::new();
        for r in &input.routes {
            for (ri, rule) in r.rules.iter().enumerate() {
                for m in &rule.matches {
                    let MatchIr::Http { path, headers, .. } = m else {
                        continue;
                    };
                    let (exact, prefix, rank, len) = match path {
                        PathMatchIr::Exact(p) => (Some(p.to_string()), None, 0u8, 0usize),
                        PathMatchIr::Prefix(p) => (
                            None,
                            Some(p.trim_end_matches('/').to_string()),
                            1,
                            usize::MAX - p.len(),
                        ),
                        // regexes, and path match types added later: not in this baseline
                        _ => continue,
                    };
                    let hs: Vec<(String, String)> = headers
                        .iter()
                        .filter_map(|(n, v)| match v {
                            StrMatch::Exact(v) => Some((n.to_ascii_lowercase(), v.to_string())),
                            _ => None,
                        })
                        .collect();
                    let key = (
                        rank,
                        len,
                        usize::MAX - hs.len(),
                        r.created.unwrap_or((i64::MAX, 0)),
                        format!("{}/{}", r.namespace, r.name),
                        ri,
                    );
                    let backend = rule
                        .backends
                        .first()
                        .map(|b| b.name.to_string())
                        .unwrap_or_default();
                    keyed.push((
                        key,
                        Entry {
                            exact,
                            prefix,
                            headers: hs,
                            backend,
                        },
                    ));
                }
            }
        }
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        Self {
            entries: keyed.into_iter().map(|(_, e)| e).collect(),
        }
    }

    /// The first matching entry's first backend.
    pub fn resolve(&self, path: &str, headers: &[(&str, &str)]) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| {
                let path_ok = match (&e.exact, &e.prefix) {
                    (Some(x), _) => x == path,
                    (None, Some(p)) => path
                        .strip_prefix(p.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/')),
                    _ => false,
                };
                path_ok
                    && e.headers.iter().all(|(n, v)| {
                        headers
                            .iter()
                            .find(|(k, _)| k.eq_ignore_ascii_case(n))
                            .is_some_and(|(_, x)| x == v)
                    })
            })
            .map(|e| e.backend.as_str())
    }
}
