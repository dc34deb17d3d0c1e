//! Programming a proxy from the compiled table: `RouteTable::view` gives every bound frontend
//! (Service cluster IP and port, Gateway address and port), its route sets (producer routes,
//! each consumer namespace's, each listener's) and their entries of every route kind
//! (HTTPRoute and GRPCRoute matches, TLSRoute hostnames, the TCPRoute/UDPRoute rule) in the
//! order a request tries them. This example turns that view into a simple, ordered proxy
//! configuration (JSON) and routes requests through the configuration alone: first frontend,
//! first route set, first entry that matches. The tests at the bottom check that the
//! configuration decides every generated request (HTTP, gRPC, TLS, TCP) as
//! `RouteTable::resolve` does.
//!
//! Run it with:
//!
//! ```sh
//! cargo run -p gamma-examples --example proxy-config
//! ```

use std::net::IpAddr;

use gamma_mesh::resolve::{
    ActionView, BindingView, EntryView, MatchView, NameView, PathView, RouteSetKind, RouteTable,
    RuleView, ValueView,
};
use serde::Serialize;

/// The proxy configuration: listeners by (address, port, transport), in address order.
#[derive(Debug, Serialize)]
struct ProxyConfig {
    listeners: Vec<Listener>,
}

#[derive(Debug, Serialize)]
struct Listener {
    address: IpAddr,
    port: u16,
    transport: String,
    /// Route tables, tried in order; `clients` says which requests each one serves.
    tables: Vec<Table>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Table {
    /// `any` (producer routes), `namespace:<ns>` (consumer routes), `host:<name>` or
    /// `host:*` (Gateway listeners).
    clients: String,
    /// The route kind that won a Service port (`None` on listeners: kinds coexist).
    kind: Option<String>,
    /// gRPC requests try these first.
    grpc: Vec<Entry>,
    /// HTTP requests (and, on listeners, gRPC requests no gRPC entry took).
    http: Vec<Entry>,
    /// TLS connections, by SNI.
    tls: Vec<Entry>,
    /// Every other TCP connection (and HTTP on a port with a TCPRoute only).
    tcp: Option<Entry>,
    /// UDP datagrams.
    udp: Option<Entry>,
    /// What the table left out, for people reading the configuration.
    excluded: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    /// `HTTPRoute ns/name rule N`.
    name: String,
    host: Option<String>,
    /// HTTP: (type, value).
    path: Option<(String, String)>,
    method: Option<String>,
    /// gRPC: service and method conditions.
    grpc_service: Option<Cond>,
    grpc_method: Option<Cond>,
    headers: Vec<Cond>,
    query: Vec<Cond>,
    /// Backends as `namespace/name:port` with weights; empty for redirects and failures.
    backends: Vec<(String, u32)>,
    /// `forward`, `redirect 301`, `fail <reason>`.
    action: String,
}

#[derive(Debug, Clone, Serialize)]
struct Cond {
    name: String,
    regex: bool,
    value: String,
}

fn cond(v: &ValueView<'_>) -> Cond {
    Cond {
        name: v.name.to_owned(),
        regex: v.regex,
        value: v.value.to_owned(),
    }
}

fn name_cond(n: &NameView<'_>) -> Cond {
    Cond {
        name: String::new(),
        regex: n.regex,
        value: n.value.to_owned(),
    }
}

fn action(a: &ActionView<'_>) -> (Vec<(String, u32)>, String) {
    match a {
        ActionView::Backends { backends } => (
            backends
                .iter()
                .map(|b| (b.backend.to_string(), b.weight))
                .collect(),
            "forward".to_owned(),
        ),
        ActionView::Redirect { status, .. } => (Vec::new(), format!("redirect {status}")),
        ActionView::Fail { reason } => (Vec::new(), format!("fail {reason:?}")),
        _ => (Vec::new(), "fail unknown".to_owned()),
    }
}

fn entry(e: &EntryView<'_>) -> Entry {
    let (backends, action) = action(&e.action);
    let mut out = Entry {
        name: e.rule.to_string(),
        host: e.hostname.map(|h| h.to_string()),
        backends,
        action,
        ..Entry::default()
    };
    match &e.condition {
        MatchView::Http {
            path,
            method,
            headers,
            query,
        } => {
            let path = match path {
                PathView::Exact(p) => ("Exact", *p),
                PathView::PathPrefix(p) => ("PathPrefix", *p),
                PathView::RegularExpression(p) => ("RegularExpression", *p),
                _ => ("Unknown", ""),
            };
            out.path = Some((path.0.to_owned(), path.1.to_owned()));
            out.method = method.map(str::to_owned);
            out.headers = headers.iter().map(cond).collect();
            out.query = query.iter().map(cond).collect();
        }
        MatchView::Grpc {
            service,
            method,
            headers,
        } => {
            out.grpc_service = service.as_ref().map(name_cond);
            out.grpc_method = method.as_ref().map(name_cond);
            out.headers = headers.iter().map(cond).collect();
        }
        _ => {}
    }
    out
}

fn rule_entry(r: &RuleView<'_>) -> Entry {
    let (backends, action) = action(&r.action);
    Entry {
        name: r.rule.to_string(),
        backends,
        action,
        ..Entry::default()
    }
}

/// The configuration of a table's view.
fn config(view: &[BindingView<'_>]) -> ProxyConfig {
    ProxyConfig {
        listeners: view
            .iter()
            .map(|b| Listener {
                address: b.address,
                port: b.port,
                transport: b.transport.to_owned(),
                tables: b
                    .sets
                    .iter()
                    .map(|s| Table {
                        clients: match (s.route_set, s.listener_hostname) {
                            (RouteSetKind::Consumer { namespace }, _) => {
                                format!("namespace:{namespace}")
                            }
                            (RouteSetKind::Listener, Some(h)) => format!("host:{h}"),
                            (RouteSetKind::Listener, None) => "host:*".to_owned(),
                            _ => "any".to_owned(),
                        },
                        kind: s.route_kind.map(|k| k.to_string()),
                        grpc: s.grpc.iter().map(entry).collect(),
                        http: s.http.iter().map(entry).collect(),
                        tls: s.tls.iter().map(entry).collect(),
                        tcp: s.tcp.as_ref().map(rule_entry),
                        udp: s.udp.as_ref().map(rule_entry),
                        excluded: s.excluded.iter().map(ToString::to_string).collect(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// How a request is carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carried {
    Http,
    Grpc,
    Tls,
    Tcp,
    Udp,
}

/// A request as the proxy sees it.
struct Req<'a> {
    carried: Carried,
    from: Option<&'a str>,
    address: IpAddr,
    port: u16,
    /// Host (HTTP, gRPC) or SNI (TLS).
    host: Option<&'a str>,
    method: &'a str,
    path: &'a str,
    headers: &'a [(&'a str, &'a str)],
}

/// What the proxy does with a request.
#[derive(Debug, PartialEq, Eq)]
enum Routed {
    /// No listener: not intercepted.
    NotIntercepted,
    /// A listener, but no table or entry: 404 (gRPC UNIMPLEMENTED, connection refused).
    NotFound,
    /// A table that has no entries for this protocol: 400.
    WrongProtocol,
    /// The entry that matched.
    Entry(String),
}

fn host_matches(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix('*') {
        Some(suffix) => host.len() > suffix.len() && host.ends_with(suffix),
        None => pattern == host,
    }
}

fn full_match(pattern: &str, value: &str) -> bool {
    regex::Regex::new(&format!("^(?:{pattern})$")).is_ok_and(|re| re.is_match(value))
}

fn value_matches(c: &Cond, value: Option<&str>) -> bool {
    match value {
        Some(v) if c.regex => full_match(&c.value, v),
        Some(v) => c.value == v,
        None => false,
    }
}

fn path_matches(e: &Entry, path: &str) -> bool {
    let Some((kind, value)) = &e.path else {
        return false;
    };
    match kind.as_str() {
        "Exact" => path == value,
        "PathPrefix" => {
            let p = value.trim_end_matches('/');
            p.is_empty()
                || path == p
                || path
                    .strip_prefix(p)
                    .is_some_and(|rest| rest.starts_with('/'))
        }
        "RegularExpression" => full_match(value, path),
        _ => false,
    }
}

/// `/service/method` split (either may be empty); ("", "") when the path is not of that form.
fn grpc_parts(path: &str) -> (&str, &str) {
    match path.strip_prefix('/').unwrap_or("").split_once('/') {
        Some((s, m)) if !m.contains('/') => (s, m),
        _ => ("", ""),
    }
}

fn grpc_matches(e: &Entry, path: &str) -> bool {
    let (service, method) = grpc_parts(path);
    let exact = |c: &Option<Cond>| c.as_ref().is_some_and(|c| !c.regex);
    // a request without a service only reaches entries that name neither exactly (the
    // engine looks exact names up by the service/method it has)
    if service.is_empty() && (exact(&e.grpc_service) || exact(&e.grpc_method)) {
        return false;
    }
    e.grpc_service
        .as_ref()
        .is_none_or(|c| value_matches(c, Some(service)))
        && e.grpc_method
            .as_ref()
            .is_none_or(|c| value_matches(c, Some(method)))
}

/// First listener, first table for the client, first entry whose conditions hold.
fn route(config: &ProxyConfig, r: &Req<'_>) -> Routed {
    let transport = if r.carried == Carried::Udp {
        "UDP"
    } else {
        "TCP"
    };
    let Some(l) = config
        .listeners
        .iter()
        .find(|l| l.address == r.address && l.port == r.port && l.transport == transport)
    else {
        return Routed::NotIntercepted;
    };
    // the Host (or SNI) without port, lower-case
    let host = r.host.map(|h| {
        h.rsplit_once(':')
            .map_or(h, |(h, _)| h)
            .to_ascii_lowercase()
    });
    let consumer = r.from.and_then(|ns| {
        l.tables
            .iter()
            .find(|t| t.clients == format!("namespace:{ns}"))
    });
    let table = consumer.or_else(|| {
        l.tables
            .iter()
            .find(|t| match t.clients.strip_prefix("host:") {
                Some("*") => true,
                Some(h) => host.as_deref().is_some_and(|rh| host_matches(h, rh)),
                None => t.clients == "any",
            })
    });
    let Some(table) = table else {
        // a Gateway port whose listeners all refuse the host, or a Service with consumer
        // routes only: not served
        return if l.tables.iter().any(|t| t.clients.starts_with("host:")) {
            Routed::NotFound
        } else {
            Routed::NotIntercepted
        };
    };
    let (path, query) = r.path.split_once('?').unwrap_or((r.path, ""));
    let query_value = |name: &str| {
        query
            .split('&')
            .filter_map(|kv| kv.split_once('=').or(Some((kv, ""))))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
    };
    let header_value = |name: &str| {
        r.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    };
    let host_ok = |e: &Entry| match (&e.host, &host) {
        (None, _) => true,
        (Some(p), Some(h)) => host_matches(p, h),
        (Some(_), None) => false,
    };
    let headers_ok = |e: &Entry| {
        e.headers
            .iter()
            .all(|c| value_matches(c, header_value(&c.name)))
    };
    let found = |e: Option<&Entry>| match e {
        Some(e) => Routed::Entry(e.name.clone()),
        None => Routed::NotFound,
    };
    let empty = table.grpc.is_empty()
        && table.http.is_empty()
        && table.tls.is_empty()
        && table.tcp.is_none()
        && table.udp.is_none();
    // a port with a TCPRoute only takes every connection; one with nothing at all has no
    // entry to match; one with entries of other kinds only cannot serve this protocol
    let otherwise = |fallback: &Option<Entry>| match fallback {
        Some(e) => Routed::Entry(e.name.clone()),
        None if empty => Routed::NotFound,
        None => Routed::WrongProtocol,
    };
    match r.carried {
        Carried::Udp => found(table.udp.as_ref()),
        Carried::Http | Carried::Grpc => {
            if r.carried == Carried::Grpc && !table.grpc.is_empty() {
                let hit = table
                    .grpc
                    .iter()
                    .find(|e| host_ok(e) && grpc_matches(e, path) && headers_ok(e));
                // only a listener (no winning kind) falls through to its HTTP entries
                if hit.is_some() || table.kind.is_some() || table.http.is_empty() {
                    return found(hit);
                }
            }
            if !table.http.is_empty() {
                return found(table.http.iter().find(|e| {
                    host_ok(e)
                        && path_matches(e, path)
                        && e.method.as_deref().is_none_or(|m| m == r.method)
                        && headers_ok(e)
                        && e.query
                            .iter()
                            .all(|c| value_matches(c, query_value(&c.name)))
                }));
            }
            if !table.grpc.is_empty() {
                // gRPC entries match gRPC requests only
                return Routed::NotFound;
            }
            otherwise(&table.tcp)
        }
        Carried::Tls if !table.tls.is_empty() => found(table.tls.iter().find(|e| host_ok(e))),
        Carried::Tls | Carried::Tcp => otherwise(&table.tcp),
    }
}

fn main() -> Result<(), gamma_examples::BoxError> {
    let snapshot = gamma_examples::sample_snapshot()?;
    let table = RouteTable::build(&snapshot, &Default::default());
    let config = config(&table.view());
    println!("{}", serde_json::to_string_pretty(&config)?);
    // and route a request of every kind to each frontend through the configuration alone
    for l in &config.listeners {
        for carried in [
            Carried::Http,
            Carried::Grpc,
            Carried::Tls,
            Carried::Tcp,
            Carried::Udp,
        ] {
            let r = Req {
                carried,
                from: None,
                address: l.address,
                port: l.port,
                host: None,
                method: "GET",
                path: "/",
                headers: &[],
            };
            println!(
                "{carried:?} / to {}:{}: {:?}",
                l.address,
                l.port,
                route(&config, &r)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_mesh::resolve::{Decision, Protocol, Request, RespondReason};

    /// Requests generated from a configuration's own frontends, namespaces, paths, gRPC
    /// names, hostnames and header values.
    struct Probes {
        namespaces: Vec<Option<String>>,
        paths: Vec<String>,
        hosts: Vec<Option<String>>,
        headers: Vec<(String, String)>,
    }

    fn probes(config: &ProxyConfig) -> Probes {
        let mut p = Probes {
            namespaces: vec![None, Some("elsewhere".into())],
            paths: vec!["/".into(), "/nothing/here".into(), "/pkg.X/Nope".into()],
            hosts: vec![None, Some("unknown.example".into())],
            headers: Vec::new(),
        };
        for l in &config.listeners {
            for t in &l.tables {
                if let Some(ns) = t.clients.strip_prefix("namespace:") {
                    p.namespaces.push(Some(ns.to_owned()));
                }
                if let Some(h) = t.clients.strip_prefix("host:") {
                    p.hosts.push(Some(h.replace('*', "any")));
                }
                for e in t.http.iter().chain(&t.grpc).chain(&t.tls) {
                    if let Some((_, v)) = &e.path {
                        p.paths.push(v.clone());
                        p.paths.push(format!("{}/x", v.trim_end_matches('/')));
                    }
                    let exact = |c: &Option<Cond>| {
                        c.as_ref()
                            .filter(|c| !c.regex)
                            .map_or("Other", |c| c.value.as_str())
                            .to_owned()
                    };
                    if e.grpc_service.is_some() || e.grpc_method.is_some() {
                        let (s, m) = (exact(&e.grpc_service), exact(&e.grpc_method));
                        p.paths.push(format!("/{s}/{m}"));
                        p.paths.push(format!("/{s}/Other"));
                    }
                    if let Some(h) = &e.host {
                        p.hosts.push(Some(h.replace('*', "any")));
                    }
                    p.headers.extend(
                        e.headers
                            .iter()
                            .filter(|c| !c.regex)
                            .map(|c| (c.name.clone(), c.value.clone())),
                    );
                }
            }
        }
        p.paths.sort();
        p.paths.dedup();
        p.hosts.sort();
        p.hosts.dedup();
        p.headers.sort();
        p.headers.dedup();
        p
    }

    /// What the table decides, in the proxy's terms.
    fn expected(d: &Decision<'_>) -> Routed {
        match d {
            Decision::Passthrough => Routed::NotIntercepted,
            Decision::Respond(x) if x.rule.is_none() => match x.reason {
                RespondReason::NoMatchingRule | RespondReason::NoMatchingListener => {
                    Routed::NotFound
                }
                RespondReason::ProtocolMismatch => Routed::WrongProtocol,
                other => panic!("{other:?}"),
            },
            other => Routed::Entry(other.rule().map(|r| r.to_string()).unwrap_or_default()),
        }
    }

    /// Routes every generated request through the table and the configuration; returns
    /// (compared, matched).
    fn agree(table: &RouteTable, config: &ProxyConfig, carried: &[Carried]) -> (usize, usize) {
        let p = probes(config);
        let (mut compared, mut matched) = (0, 0);
        for l in &config.listeners {
            for &how in carried {
                for ns in &p.namespaces {
                    for path in &p.paths {
                        for host in &p.hosts {
                            for h in std::iter::once(None).chain(p.headers.iter().map(Some)) {
                                let hs: Vec<(&str, &str)> =
                                    h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                                let r = Req {
                                    carried: how,
                                    from: ns.as_deref(),
                                    address: l.address,
                                    port: l.port,
                                    host: host.as_deref(),
                                    method: if how == Carried::Grpc { "POST" } else { "GET" },
                                    path,
                                    headers: &hs,
                                };
                                let owned: Vec<(String, String)> =
                                    h.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                                let mut req = Request::http(l.address, l.port, r.method, path)
                                    .with_headers(&owned);
                                req.protocol = match how {
                                    Carried::Http => Protocol::Http,
                                    Carried::Grpc => Protocol::Grpc,
                                    Carried::Tls => Protocol::Tls,
                                    Carried::Tcp => Protocol::Tcp,
                                    Carried::Udp => Protocol::Udp,
                                };
                                if let Some(ns) = &r.from {
                                    req = req.from_namespace(ns);
                                }
                                req.host = r.host;
                                req.sni = r.host;
                                let want = expected(&table.resolve(&req, 0));
                                assert_eq!(
                                    route(config, &r),
                                    want,
                                    "{how:?} {}:{} {path} from {ns:?} host {host:?} headers {hs:?}",
                                    l.address,
                                    l.port
                                );
                                compared += 1;
                                matched += usize::from(matches!(want, Routed::Entry(_)));
                            }
                        }
                    }
                }
            }
        }
        (compared, matched)
    }

    const ALL: &[Carried] = &[
        Carried::Http,
        Carried::Grpc,
        Carried::Tls,
        Carried::Tcp,
        Carried::Udp,
    ];

    // Every request generated from the configuration's own frontends, namespaces, paths, gRPC
    // names and header values, carried as HTTP, gRPC, TLS, TCP and UDP, is decided alike by
    // the table (resolve) and by the configuration (first match in order): the same rule, or
    // both "no route" (404), both "wrong protocol" (400) or both not intercepted (GEP-1294
    // route types and namespace boundaries, Gateway API match precedence).
    #[test]
    fn the_proxy_configuration_routes_like_the_table() {
        let snapshot = gamma_examples::sample_snapshot().unwrap();
        let table = RouteTable::build(&snapshot, &Default::default());
        let config = config(&table.view());
        assert!(
            config
                .listeners
                .iter()
                .any(|l| l.tables.iter().any(|t| !t.grpc.is_empty()))
        );
        assert!(
            config
                .listeners
                .iter()
                .any(|l| l.tables.iter().any(|t| t.tcp.is_some()))
        );
        let (compared, matched) = agree(&table, &config, ALL);
        assert!(compared > 1000 && matched > 100, "{compared} / {matched}");
    }

    const LISTENERS: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.1}]
  listeners:
  - {name: web, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
  - {name: api, port: 80, protocol: HTTP, hostname: api.example.com, allowedRoutes: {namespaces: {from: All}}}
  - {name: tls, port: 443, protocol: TLS, hostname: "*.example.com", tls: {mode: Passthrough}, allowedRoutes: {namespaces: {from: All}}}
  - {name: raw, port: 5432, protocol: TCP, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: v1
kind: Service
metadata: {name: a, namespace: infra}
spec: {clusterIP: 10.96.0.10, ports: [{port: 80}, {port: 443}, {port: 5432}]}
---
apiVersion: v1
kind: Service
metadata: {name: b, namespace: infra}
spec: {clusterIP: 10.96.0.11, ports: [{port: 80}, {port: 443}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: rpc, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: api}]
  rules:
  - matches: [{method: {service: pkg.Store, method: Get}}]
    backendRefs: [{name: a, port: 80}]
  - matches: [{method: {service: pkg.Store}, headers: [{name: x-canary, value: "1"}]}]
    backendRefs: [{name: b, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /shop}}]
    backendRefs: [{name: a, port: 80}]
  - backendRefs: [{name: b, port: 80, weight: 3}, {name: a, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata: {name: tls, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: tls}]
  hostnames: [db.example.com]
  rules: [{backendRefs: [{name: a, port: 443}]}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: raw, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: raw}]
  rules: [{backendRefs: [{name: a, port: 5432}]}]
"#;

    // The same agreement on a Gateway whose listeners serve each kind side by side: gRPC
    // requests no GRPCRoute takes fall through to the HTTPRoutes of the listener (Gateway API
    // GRPCRoute cross serving), TLS by SNI, TCP to the TCPRoute.
    #[test]
    fn the_proxy_configuration_routes_listeners_like_the_table() {
        let resources = gamma_mesh::model::decode(LISTENERS).unwrap();
        let snapshot = gamma_mesh::model::Snapshot::from_resources(resources);
        let table = RouteTable::build(&snapshot, &Default::default());
        let config = config(&table.view());
        let kinds = |f: fn(&Table) -> bool| config.listeners.iter().any(|l| l.tables.iter().any(f));
        assert!(kinds(|t| !t.grpc.is_empty()));
        assert!(kinds(|t| !t.http.is_empty()));
        assert!(kinds(|t| !t.tls.is_empty()));
        assert!(kinds(|t| t.tcp.is_some()));
        let (compared, matched) = agree(&table, &config, ALL);
        assert!(compared > 500 && matched > 50, "{compared} / {matched}");
    }
}
