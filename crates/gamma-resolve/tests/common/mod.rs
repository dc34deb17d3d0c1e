//! Builders for lowered input ([`gamma_resolve::input`]) used by the integration tests.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod manifest;

/// The naive reference matcher, from the library (feature `reference`, enabled for tests by
/// the self dev-dependency in Cargo.toml).
#[allow(unused_imports)]
pub use gamma_resolve::reference as oracle;

use std::net::IpAddr;

use gamma_model::RouteKind;
use gamma_resolve::input::*;

pub fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// A Service; `ip_s` is its `clusterIP` as written: `"None"` is headless, `""` not allocated.
pub fn service(ns: &str, name: &str, ip_s: &str, ports: &[(u16, &str)]) -> ServiceIr {
    ServiceIr {
        namespace: ns.into(),
        name: name.into(),
        cluster_ips: if ip_s.is_empty() || ip_s == "None" {
            vec![]
        } else {
            vec![ip(ip_s)]
        },
        headless: ip_s == "None",
        external_name: false,
        ports: ports
            .iter()
            .map(|(p, n)| ServicePortIr {
                name: (!n.is_empty()).then(|| n.to_string()),
                port: *p,
                protocol: L4::Tcp,
                app_protocol: None,
            })
            .collect(),
        ready: None,
        endpoints: Vec::new(),
    }
}

pub fn svc_parent(ns: &str, name: &str) -> ParentRefIr {
    ParentRefIr {
        kind: ParentRefKind::Service,
        namespace: ns.into(),
        name: name.into(),
        section_name: None,
        port: None,
    }
}

pub fn gw_parent(ns: &str, name: &str) -> ParentRefIr {
    ParentRefIr {
        kind: ParentRefKind::Gateway,
        namespace: ns.into(),
        name: name.into(),
        section_name: None,
        port: None,
    }
}

pub fn backend(ns: &str, name: &str, port: u16, weight: u32) -> BackendIr {
    BackendIr {
        group: "".into(),
        kind: "Service".into(),
        namespace: ns.into(),
        name: name.into(),
        port: Some(port),
        weight,
        filters: Filters::default(),
    }
}

pub fn prefix(p: &str) -> MatchIr {
    MatchIr::Http {
        path: PathMatchIr::Prefix(p.into()),
        method: None,
        headers: vec![],
        query: vec![],
    }
}

pub fn exact(p: &str) -> MatchIr {
    MatchIr::Http {
        path: PathMatchIr::Exact(p.into()),
        method: None,
        headers: vec![],
        query: vec![],
    }
}

pub fn with_headers(m: MatchIr, hs: &[(&str, &str)]) -> MatchIr {
    match m {
        MatchIr::Http {
            path,
            method,
            mut headers,
            query,
        } => {
            headers.extend(
                hs.iter()
                    .map(|(k, v)| (k.to_string().into(), StrMatch::Exact(v.to_string().into()))),
            );
            MatchIr::Http {
                path,
                method,
                headers,
                query,
            }
        }
        other => other,
    }
}

pub fn with_method(m: MatchIr, meth: &str) -> MatchIr {
    match m {
        MatchIr::Http {
            path,
            headers,
            query,
            ..
        } => MatchIr::Http {
            path,
            method: Some(meth.into()),
            headers,
            query,
        },
        other => other,
    }
}

pub fn with_query(m: MatchIr, qs: &[(&str, &str)]) -> MatchIr {
    match m {
        MatchIr::Http {
            path,
            method,
            headers,
            mut query,
        } => {
            query.extend(
                qs.iter()
                    .map(|(k, v)| (k.to_string().into(), StrMatch::Exact(v.to_string().into()))),
            );
            MatchIr::Http {
                path,
                method,
                headers,
                query,
            }
        }
        other => other,
    }
}

pub fn rule(matches: Vec<MatchIr>, backends: Vec<BackendIr>) -> RuleIr {
    RuleIr {
        matches: matches.into(),
        backends: backends.into(),
        ..RuleIr::default()
    }
}

pub fn route(
    kind: RouteKind,
    ns: &str,
    name: &str,
    parents: Vec<ParentRefIr>,
    rules: Vec<RuleIr>,
) -> RouteIr {
    RouteIr {
        kind,
        namespace: ns.into(),
        name: name.into(),
        created: None,
        hostnames: vec![],
        parents,
        rules,
        invalid: None,
    }
}

pub fn http(ns: &str, name: &str, parents: Vec<ParentRefIr>, rules: Vec<RuleIr>) -> RouteIr {
    route(RouteKind::Http, ns, name, parents, rules)
}

pub fn created(mut r: RouteIr, secs: i64) -> RouteIr {
    r.created = Some((secs, 0));
    r
}
