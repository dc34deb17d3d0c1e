//! The naive reference matcher: scans every route and rule for every request, evaluates every
//! condition directly, and sorts the matching candidates by the spec's precedence criteria
//! (spec-digest §2.1, §2.2) written out as a plain tuple comparison. It shares no code with
//! the engine's index, key packing or condition compiler; it covers Service (mesh) parents.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::cmp::Ordering;

use gamma_resolve::ir::*;
use gamma_resolve::{Protocol, Request};

/// A decision in owned, comparable form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Forward {
        route: (RouteKind, String, String),
        rule: u16,
        backend: (String, String, Option<u16>),
    },
    Redirect {
        route: (RouteKind, String, String),
        rule: u16,
        status: u16,
        location: String,
    },
    Respond {
        route: Option<(RouteKind, String, String, u16)>,
        status: String,
    },
    Passthrough,
}

impl Outcome {
    pub fn of(d: &gamma_resolve::Decision<'_>) -> Self {
        use gamma_resolve::Decision;
        let rr = |r: &gamma_resolve::RuleRef<'_>| {
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
            _ => panic!("unknown decision"),
        }
    }
}

/// Policies the oracle understands.
#[derive(Debug, Clone, Copy, Default)]
pub struct Policy {
    pub match_host_header: bool,
    pub enforce_grants: bool,
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
        // one or more labels before the suffix
        let labels: Vec<&str> = host.split('.').collect();
        let suffix_labels: Vec<&str> = suffix.split('.').collect();
        labels.len() > suffix_labels.len()
            && labels[labels.len() - suffix_labels.len()..] == suffix_labels[..]
            && labels[..labels.len() - suffix_labels.len()]
                .iter()
                .all(|l| !l.is_empty())
    } else {
        pattern == host
    }
}

fn full_regex(pattern: &str, s: &str) -> bool {
    regex::Regex::new(&format!("^(?:{pattern})$"))
        .map(|r| r.is_match(s))
        .unwrap_or(false)
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
    got.len() >= want.len() && got[..want.len()] == want[..] && !prefix.contains("//")
}

fn dedup_names(list: &[(String, StrMatch)], ci: bool) -> Vec<&(String, StrMatch)> {
    let mut out: Vec<&(String, StrMatch)> = Vec::new();
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
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    host_nonwild: usize,
    host_chars: usize,
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

fn compare(a: &Key, b: &Key) -> Ordering {
    b.host_nonwild
        .cmp(&a.host_nonwild)
        .then(b.host_chars.cmp(&a.host_chars))
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

fn backend_valid(
    input: &TableInput,
    route: &RouteIr,
    b: &BackendIr,
    policy: Policy,
) -> Result<bool, ()> {
    // Ok(true) valid, Ok(false) no endpoints, Err invalid
    if !(b.group.is_empty() && b.kind == "Service") {
        return Err(());
    }
    if b.namespace != route.namespace && policy.enforce_grants {
        let granted = input.grants.iter().any(|g| {
            g.namespace == b.namespace
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
        .find(|s| s.namespace == b.namespace && s.name == b.name)
        .ok_or(())?;
    if svc.external_name || !svc.ports.iter().any(|p| Some(p.port) == b.port) {
        return Err(());
    }
    Ok(svc.ready != Some(false))
}

/// Resolves `req` against mesh (Service) parents by brute force.
pub fn resolve(input: &TableInput, policy: Policy, req: &Request<'_>, entropy: u64) -> Outcome {
    let udp = req.protocol == Protocol::Udp;
    let want_l4 = if udp { L4::Udp } else { L4::Tcp };
    let Some((svc, port)) = input.services.iter().find_map(|s| {
        if s.external_name || !s.cluster_ips.contains(&req.destination) {
            return None;
        }
        s.ports
            .iter()
            .find(|p| p.port == req.port && p.protocol == want_l4)
            .map(|p| (s, p))
    }) else {
        return Outcome::Passthrough;
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
                        .is_none_or(|s| port.name.as_ref() == Some(s))
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
    let kind = if udp {
        RouteKind::Udp
    } else {
        [
            RouteKind::Grpc,
            RouteKind::Http,
            RouteKind::Tls,
            RouteKind::Tcp,
        ]
        .into_iter()
        .find(|k| set.iter().any(|r| r.kind == *k))
        .unwrap()
    };
    let set: Vec<&RouteIr> = set.into_iter().filter(|r| r.kind == kind).collect();
    let oldest = |set: &[&RouteIr]| -> Option<(usize, usize)> {
        let mut best: Option<usize> = None;
        for (i, r) in set.iter().enumerate() {
            let better = match best {
                None => true,
                Some(b) => {
                    let (x, y) = (r, set[b]);
                    let k = |r: &RouteIr| Key {
                        host_nonwild: 0,
                        host_chars: 0,
                        exact: false,
                        prefix_chars: 0,
                        is_regex: false,
                        method: false,
                        headers: 0,
                        query: 0,
                        svc_chars: 0,
                        meth_chars: 0,
                        created: r.created,
                        nsname: format!("{}/{}", r.namespace, r.name),
                        rule: 0,
                    };
                    compare(&k(x), &k(y)) == Ordering::Less
                }
            };
            if better {
                best = Some(i);
            }
        }
        best.map(|b| (b, 0))
    };
    let winner: Option<(&RouteIr, usize)> = match (kind, req.protocol) {
        (RouteKind::Udp, _) => oldest(&set).map(|(i, r)| (set[i], r)),
        (RouteKind::Tcp, p) if p != Protocol::Udp => oldest(&set).map(|(i, r)| (set[i], r)),
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
                        cands.push((
                            Key {
                                host_nonwild: nonwild,
                                host_chars: len,
                                exact: false,
                                prefix_chars: 0,
                                is_regex: false,
                                method: false,
                                headers: 0,
                                query: 0,
                                svc_chars: 0,
                                meth_chars: 0,
                                created: r.created,
                                nsname: format!("{}/{}", r.namespace, r.name),
                                rule: 0,
                            },
                            r,
                        ));
                    }
                }
            }
            cands.sort_by(|a, b| compare(&a.0, &b.0));
            match cands.first() {
                Some((_, r)) => Some((r, 0)),
                None => {
                    return Outcome::Respond {
                        route: None,
                        status: status(req.protocol, "404"),
                    };
                }
            }
        }
        (RouteKind::Tls, _) => {
            return Outcome::Respond {
                route: None,
                status: status(req.protocol, "mismatch"),
            };
        }
        (RouteKind::Http | RouteKind::Grpc, p) if !p.is_http() => {
            return Outcome::Respond {
                route: None,
                status: status(req.protocol, "mismatch"),
            };
        }
        (RouteKind::Grpc, Protocol::Http) => {
            return Outcome::Respond {
                route: None,
                status: status(req.protocol, "404"),
            };
        }
        (RouteKind::Http | RouteKind::Grpc, _) => {
            let (path, query) = match req.path_and_query.split_once('?') {
                Some((p, q)) => (p, Some(q)),
                None => (req.path_and_query, None),
            };
            let path = path.split('#').next().unwrap_or("");
            let query = query.map(|q| q.split('#').next().unwrap_or(""));
            let req_host = req.host.map(host_of);
            let mut cands: Vec<(Key, &RouteIr, usize)> = Vec::new();
            for r in &set {
                let hosts: Vec<Option<&str>> =
                    if policy.match_host_header && !r.hostnames.is_empty() {
                        r.hostnames.iter().map(|h| Some(h.as_str())).collect()
                    } else {
                        vec![None]
                    };
                for h in hosts {
                    let host_ok = match (h, &req_host) {
                        (None, _) => true,
                        (Some(p), Some(rh)) => host_matches(&p.to_ascii_lowercase(), rh),
                        (Some(_), None) => false,
                    };
                    if !host_ok {
                        continue;
                    }
                    let (hn, hc) = match h {
                        None => (0, 0),
                        Some(h) if h.starts_with("*.") => (0, h.len()),
                        Some(h) => (h.len(), h.len()),
                    };
                    for (ri, rule) in r.rules.iter().enumerate() {
                        if rule.invalid.is_some() {
                            continue;
                        }
                        for m in &rule.matches {
                            let mut key = Key {
                                host_nonwild: hn,
                                host_chars: hc,
                                exact: false,
                                prefix_chars: 0,
                                is_regex: false,
                                method: false,
                                headers: 0,
                                query: 0,
                                svc_chars: 0,
                                meth_chars: 0,
                                created: r.created,
                                nsname: format!("{}/{}", r.namespace, r.name),
                                rule: ri,
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
                                            key.prefix_chars = v.len();
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
                                        && method.as_ref().is_none_or(|m| req.method == Some(m.as_str()))
                                        && hs.iter().all(|(n, v)| {
                                            req.headers
                                                .first_value(n)
                                                .and_then(|b| std::str::from_utf8(b).ok().map(|s| str_ok(v, s)).or(Some(matches!(v, StrMatch::Exact(e) if e.as_bytes() == b))))
                                                .unwrap_or(false)
                                        })
                                        && q.iter().all(|(n, v)| query.and_then(|qq| query_first(qq, n)).is_some_and(|x| str_ok(v, x)))
                                }
                                MatchIr::Grpc {
                                    service,
                                    method,
                                    headers,
                                } => {
                                    if kind != RouteKind::Grpc {
                                        continue;
                                    }
                                    let (s, mm) = match path
                                        .strip_prefix('/')
                                        .and_then(|p| p.split_once('/'))
                                    {
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
            match cands.first() {
                Some((_, r, ri)) => Some((r, *ri)),
                None => {
                    return Outcome::Respond {
                        route: None,
                        status: status(req.protocol, "404"),
                    };
                }
            }
        }
        (RouteKind::Tcp, _) => unreachable!(),
    };
    let Some((route, ri)) = winner else {
        return Outcome::Respond {
            route: None,
            status: status(req.protocol, "404"),
        };
    };
    let rid = (route.kind, route.namespace.clone(), route.name.clone());
    let rule = &route.rules[ri];
    let fail = |what: &str| Outcome::Respond {
        route: Some((
            route.kind,
            route.namespace.clone(),
            route.name.clone(),
            ri as u16,
        )),
        status: status(req.protocol, what),
    };
    if rule.invalid.is_some() {
        return fail("404");
    }
    if let Some(r) = &rule.filters.redirect {
        let (path, query) = match req.path_and_query.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (req.path_and_query, None),
        };
        let scheme = r.scheme.unwrap_or(req.scheme);
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
            Some(PathModifierIr::Prefix(repl)) => {
                let pref = match rule.matches.as_slice() {
                    [
                        MatchIr::Http {
                            path: PathMatchIr::Prefix(p),
                            ..
                        },
                    ] => p.trim_end_matches('/').to_string(),
                    _ => String::new(),
                };
                let rest = &path[pref.len()..];
                let joined = format!("{}{}", repl.trim_end_matches('/'), rest);
                if joined.is_empty() {
                    "/".into()
                } else {
                    joined
                }
            }
        };
        let port_s = if port == scheme.default_port() {
            String::new()
        } else {
            format!(":{port}")
        };
        let q = query.map(|q| format!("?{q}")).unwrap_or_default();
        return Outcome::Redirect {
            route: rid,
            rule: ri as u16,
            status: r.status,
            location: format!("{}://{}{}{}{}", scheme.as_str(), host, port_s, new_path, q),
        };
    }
    if !rule.filters.extensions.is_empty() {
        return fail("500");
    }
    if rule.backends.is_empty() {
        return fail("500");
    }
    let total: u64 = rule.backends.iter().map(|b| u64::from(b.weight)).sum();
    if total == 0 {
        return fail("500");
    }
    let mut target = ((u128::from(entropy) * u128::from(total)) >> 64) as u64;
    let mut picked = None;
    for b in &rule.backends {
        if target < u64::from(b.weight) {
            picked = Some(b);
            break;
        }
        target -= u64::from(b.weight);
    }
    let b = picked.unwrap();
    match backend_valid(input, route, b, policy) {
        Err(()) => fail("500"),
        Ok(false) => fail("503"),
        Ok(true) if !b.filters.extensions.is_empty() => fail("500"),
        Ok(true) => Outcome::Forward {
            route: rid,
            rule: ri as u16,
            backend: (b.namespace.clone(), b.name.clone(), b.port),
        },
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
