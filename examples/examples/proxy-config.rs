//! Programming a proxy from the compiled table: `RouteTable::view` gives every bound frontend
//! (Service cluster IP and port, Gateway address and port), its route sets (producer routes,
//! each consumer namespace's, each listener's) and their HTTPRoute matches in the order a
//! request tries them. This example turns that view into a simple, ordered proxy configuration
//! (JSON) and routes requests through the configuration alone: first frontend, first route set,
//! first entry that matches. The test at the bottom checks that the configuration decides every
//! generated request as `RouteTable::resolve` does.
//!
//! Run it with:
//!
//! ```sh
//! cargo run -p gamma-examples --example proxy-config
//! ```

use std::net::IpAddr;

use gamma_mesh::resolve::{
    ActionView, BindingView, EntryView, PathView, RouteSetKind, RouteTable, ValueView,
};
use serde::Serialize;

/// The proxy configuration: listeners by (address, port), in address order.
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
    kind: Option<String>,
    routes: Vec<Entry>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    /// `HTTPRoute ns/name rule N`.
    name: String,
    host: Option<String>,
    path: (String, String),
    method: Option<String>,
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

fn entry(e: &EntryView<'_>) -> Entry {
    let (backends, action) = match &e.action {
        ActionView::Backends { backends } => (
            backends
                .iter()
                .map(|b| (b.backend.to_string(), b.weight))
                .collect(),
            "forward".to_owned(),
        ),
        ActionView::Redirect { status } => (Vec::new(), format!("redirect {status}")),
        ActionView::Fail { reason } => (Vec::new(), format!("fail {reason:?}")),
        _ => (Vec::new(), "fail unknown".to_owned()),
    };
    let path = match e.path {
        PathView::Exact(p) => ("Exact", p),
        PathView::PathPrefix(p) => ("PathPrefix", p),
        PathView::RegularExpression(p) => ("RegularExpression", p),
        _ => ("Unknown", ""),
    };
    Entry {
        name: e.rule.to_string(),
        host: e.hostname.clone(),
        path: (path.0.to_owned(), path.1.to_owned()),
        method: e.method.map(str::to_owned),
        headers: e.headers.iter().map(cond).collect(),
        query: e.query.iter().map(cond).collect(),
        backends,
        action,
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
                        routes: s.entries.iter().map(entry).collect(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// A request as the proxy sees it.
struct Req<'a> {
    from: Option<&'a str>,
    address: IpAddr,
    port: u16,
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
    /// A listener, but no table or entry: 404.
    NotFound,
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

/// First listener, first table for the client, first entry whose conditions hold.
fn route(config: &ProxyConfig, r: &Req<'_>) -> Routed {
    let Some(l) = config
        .listeners
        .iter()
        .find(|l| l.address == r.address && l.port == r.port && l.transport == "TCP")
    else {
        return Routed::NotIntercepted;
    };
    // the Host without port, lower-case
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
    let found = table.routes.iter().find(|e| {
        let host_ok = match (&e.host, &host) {
            (None, _) => true,
            (Some(p), Some(h)) => host_matches(p, h),
            (Some(_), None) => false,
        };
        let path_ok = match e.path.0.as_str() {
            "Exact" => path == e.path.1,
            "PathPrefix" => {
                let p = e.path.1.trim_end_matches('/');
                p.is_empty()
                    || path == p
                    || path
                        .strip_prefix(p)
                        .is_some_and(|rest| rest.starts_with('/'))
            }
            "RegularExpression" => full_match(&e.path.1, path),
            _ => false,
        };
        host_ok
            && path_ok
            && e.method.as_deref().is_none_or(|m| m == r.method)
            && e.headers
                .iter()
                .all(|c| value_matches(c, header_value(&c.name)))
            && e.query
                .iter()
                .all(|c| value_matches(c, query_value(&c.name)))
    });
    match found {
        Some(e) => Routed::Entry(e.name.clone()),
        None => Routed::NotFound,
    }
}

fn main() -> Result<(), gamma_examples::BoxError> {
    let snapshot = gamma_examples::sample_snapshot()?;
    let table = RouteTable::build(&snapshot, &Default::default());
    let config = config(&table.view());
    println!("{}", serde_json::to_string_pretty(&config)?);
    // and route one request through the configuration alone
    if let Some(l) = config.listeners.first() {
        let r = Req {
            from: None,
            address: l.address,
            port: l.port,
            host: None,
            method: "GET",
            path: "/",
            headers: &[],
        };
        println!(
            "GET / to {}:{}: {:?}",
            l.address,
            l.port,
            route(&config, &r)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_mesh::resolve::{Decision, Request, RespondReason};

    // Every request generated from the configuration's own frontends, namespaces, paths and
    // header values is decided alike by the table (resolve) and by the configuration (first
    // match in order): the same rule, or both "no route" (404) or both not intercepted.
    #[test]
    fn the_proxy_configuration_routes_like_the_table() {
        let snapshot = gamma_examples::sample_snapshot().unwrap();
        let table = RouteTable::build(&snapshot, &Default::default());
        let config = config(&table.view());
        assert!(!config.listeners.is_empty());
        let mut namespaces: Vec<Option<String>> = vec![None, Some("elsewhere".into())];
        let mut paths: Vec<String> = vec!["/".into(), "/nothing/here".into()];
        let mut hosts: Vec<Option<String>> = vec![None];
        let mut headers: Vec<(String, String)> = Vec::new();
        for l in &config.listeners {
            for t in &l.tables {
                if let Some(ns) = t.clients.strip_prefix("namespace:") {
                    namespaces.push(Some(ns.to_owned()));
                }
                for e in &t.routes {
                    paths.push(e.path.1.clone());
                    paths.push(format!("{}/x", e.path.1.trim_end_matches('/')));
                    if let Some(h) = &e.host {
                        hosts.push(Some(h.replace('*', "any")));
                    }
                    headers.extend(
                        e.headers
                            .iter()
                            .filter(|c| !c.regex)
                            .map(|c| (c.name.clone(), c.value.clone())),
                    );
                }
            }
        }
        let mut compared = 0;
        let mut matched = 0;
        // the view lists HTTPRoute matches: frontends where another kind won are left out
        let http = |l: &&Listener| {
            l.tables
                .iter()
                .all(|t| t.kind.as_deref().is_none_or(|k| k == "HTTPRoute"))
        };
        for l in config.listeners.iter().filter(http) {
            for ns in &namespaces {
                for path in &paths {
                    for host in &hosts {
                        for h in std::iter::once(None).chain(headers.iter().map(Some)) {
                            let hs: Vec<(&str, &str)> =
                                h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                            let r = Req {
                                from: ns.as_deref(),
                                address: l.address,
                                port: l.port,
                                host: host.as_deref(),
                                method: "GET",
                                path,
                                headers: &hs,
                            };
                            let owned: Vec<(String, String)> =
                                h.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                            let mut req =
                                Request::http(l.address, l.port, "GET", path).with_headers(&owned);
                            if let Some(ns) = &r.from {
                                req = req.from_namespace(ns);
                            }
                            if let Some(h) = r.host {
                                req = req.with_host(h);
                            }
                            let d = table.resolve(&req, 0);
                            let expected = match &d {
                                Decision::Passthrough => Routed::NotIntercepted,
                                Decision::Respond(x) if x.rule.is_none() => match x.reason {
                                    RespondReason::NoMatchingRule
                                    | RespondReason::NoMatchingListener => Routed::NotFound,
                                    other => panic!("{other:?}"),
                                },
                                other => Routed::Entry(
                                    other.rule().map(|r| r.to_string()).unwrap_or_default(),
                                ),
                            };
                            assert_eq!(
                                route(&config, &r),
                                expected,
                                "{} {path} from {ns:?} host {host:?} headers {hs:?}",
                                l.address
                            );
                            compared += 1;
                            matched += usize::from(matches!(expected, Routed::Entry(_)));
                        }
                    }
                }
            }
        }
        assert!(compared > 1000 && matched > 100, "{compared} / {matched}");
    }
}
