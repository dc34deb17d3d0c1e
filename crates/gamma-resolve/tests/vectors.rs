//! The engine-independent test vectors (`testdata/vectors`) run through every engine this crate
//! has: `RouteTable::resolve`, `RouteTable::explain` (its decision) and the reference matcher.
//! Each case's expectation was written from the Gateway API rule its `spec` field cites, not
//! from any engine's output; gammactl runs the same files through its binary.

#[path = "common/vectors.rs"]
mod vectors;

use gamma_model::Snapshot;
use gamma_resolve::reference::{self, Policy};
use gamma_resolve::{BuildOptions, Header, HeaderLookup, Protocol, Request, RouteTable};
use vectors::{Expect, VectorRequest};

/// The vectors' form of the reference matcher's outcome.
fn from_outcome(o: &reference::Outcome) -> Expect {
    use reference::Outcome;
    let route = |(k, ns, n): &(gamma_model::RouteKind, String, String)| format!("{k} {ns}/{n}");
    match o {
        Outcome::Forward {
            route: r,
            rule,
            backend: (ns, name, port),
        } => Expect::Forward {
            route: route(r),
            rule: *rule,
            backend: format!(
                "{ns}/{name}:{}",
                port.map_or("-".to_owned(), |p| p.to_string())
            ),
        },
        Outcome::Redirect {
            route: r,
            rule,
            status,
            location,
        } => Expect::Redirect {
            route: route(r),
            rule: *rule,
            status: *status,
            location: location.clone(),
        },
        Outcome::Respond { route: r, status } => Expect::Respond {
            status: status.clone(),
            by: r
                .as_ref()
                .map(|(k, ns, n, i)| format!("{k} {ns}/{n} rule {i}")),
        },
        Outcome::Passthrough => Expect::Passthrough,
        other => panic!("an outcome the vectors do not describe: {other:?}"),
    }
}

/// The request a vector describes, borrowing from it (`headers` is its scratch space).
fn request<'a>(r: &'a VectorRequest, headers: &'a dyn HeaderLookup) -> Request<'a> {
    let to = r.destination();
    let path = r.path.as_deref().unwrap_or("/");
    let mut req = match r.protocol.as_deref() {
        None | Some("http") => Request::http(
            to.ip(),
            to.port(),
            r.method.as_deref().unwrap_or("GET"),
            path,
        ),
        Some("grpc") => Request::grpc(to.ip(), to.port(), path),
        Some("tls") => Request::connection(to.ip(), to.port(), Protocol::Tls),
        Some("tcp") => Request::connection(to.ip(), to.port(), Protocol::Tcp),
        Some("udp") => Request::connection(to.ip(), to.port(), Protocol::Udp),
        Some(other) => panic!("unknown protocol {other:?}"),
    };
    if let Some(ns) = &r.from {
        req = req.from_namespace(ns);
    }
    if let Some(h) = &r.host {
        req = req.with_host(h);
    }
    if let Some(sni) = &r.sni {
        req = req.with_sni(sni);
    }
    req.with_headers(headers)
}

#[test]
fn every_engine_decides_every_vector_as_the_gateway_api_prescribes() {
    let mut failures = Vec::new();
    let mut cases = 0;
    for (path, file) in vectors::all() {
        let resources = gamma_model::decode(&file.manifests)
            .unwrap_or_else(|e| panic!("{}: manifests: {e}", path.display()));
        let snapshot = Snapshot::from_resources(resources);
        let table = RouteTable::build(&snapshot, &BuildOptions::default());
        let oracle_input = reference::modelled(&gamma_resolve::lower(&snapshot));
        for case in &file.cases {
            cases += 1;
            let headers: Vec<Header> = case
                .request
                .headers
                .iter()
                .map(|(name, value)| Header {
                    name: name.clone(),
                    value: value.clone(),
                })
                .collect();
            let req = request(&case.request, &headers);
            let entropy = case.request.entropy.unwrap_or(0);
            let decision = table.resolve(&req, entropy);
            let engines = [
                (
                    "RouteTable::resolve",
                    Expect::from_decision_json(&serde_json::to_value(decision).unwrap()),
                ),
                (
                    "RouteTable::explain",
                    Expect::from_decision_json(&table.explain(&req, entropy).decision_json),
                ),
                (
                    "reference::resolve",
                    from_outcome(&reference::resolve(
                        &oracle_input,
                        Policy::default(),
                        &req,
                        entropy,
                    )),
                ),
            ];
            for (engine, got) in engines {
                if got != case.expect {
                    failures.push(format!(
                        "{} case {:?} ({}): {engine} decided {got:?}, expected {:?}",
                        path.file_name().unwrap().to_string_lossy(),
                        case.name,
                        case.spec,
                        case.expect
                    ));
                }
            }
        }
    }
    assert!(cases > 0, "no vector cases ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
