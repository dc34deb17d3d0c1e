//! Round-trip proof: for generated SMI objects and requests, resolving the converted
//! routes with gamma-resolve sends each request where SMI would have, in the same shares.
//!
//! The SMI side is an oracle written from the SMI spec texts: a request to the root Service on
//! port P is split among the backends that have port P (traffic-split "Ports"), by weight, when
//! the split has no `matches` or one of its HTTPRouteGroup matches admits the request
//! (traffic-split v1alpha3+), or, for a split matching an SMI TCPRoute, when the connection's
//! port is one the TCPRoute lists; otherwise it goes to the root Service (plain Kubernetes). The
//! match semantics are those of `gamma_smi::matching` (prefix-anchored path regex, full-match
//! header regexes).
//!
//! Shares on the Gateway side are measured by resolving each request with N evenly spaced
//! entropy values; gamma-resolve maps entropy uniformly onto the weight sum, so each observed
//! share is within 1/N of the exact one. The tolerance below is 2/N.

use std::collections::BTreeMap;
use std::net::IpAddr;

use gamma_model::k8s::{Service, ServicePort, ServiceSpec};
use gamma_model::meta::ObjectMeta;
use gamma_model::smi::{
    HeaderFilters, HttpMatch, HttpRouteGroup, HttpRouteMethod, Quantity, SmiTcpRoute,
    SplitMatchKind, TrafficSplit, TrafficSplitBackend, TrafficSplitMatch, TrafficSplitSpec,
};
use gamma_model::{AnyResource, Snapshot};
use gamma_resolve::{BuildOptions, Decision, Protocol, Request, RespondReason, RouteTable};
use gamma_smi::matching::{CompiledMatch, HttpRequest};
use proptest::prelude::*;

const NS: &str = "shop";
const ROOT: &str = "root";
const ROOT_IP: &str = "10.0.0.1";
const SAMPLES: u64 = 4000;

/// Where a request ends up: backend Service name → share; `"<500>"` for the Gateway API's
/// answer when every weight is zero.
type Outcome = BTreeMap<String, f64>;

#[derive(Debug, Clone)]
struct Scenario {
    root_ports: Vec<i32>,
    /// Backend Services: name and the ports they expose.
    services: Vec<(String, Vec<i32>)>,
    /// TrafficSplit backends: service name (maybe missing or the root) and weight text.
    backends: Vec<(String, String)>,
    v1alpha1: bool,
    /// `Some`: the split references one HTTPRouteGroup with these matches.
    matches: Option<Vec<HttpMatch>>,
    /// `Some`: the split references one SMI TCPRoute with these ports (empty: every port),
    /// and the probes are TCP connections.
    tcp_ports: Option<Vec<i32>>,
}

#[derive(Debug, Clone)]
struct Probe {
    port: i32,
    method: &'static str,
    path: &'static str,
    headers: Vec<(String, String)>,
}

fn service(name: &str, ip: &str, ports: &[i32]) -> AnyResource {
    Service::new(
        ObjectMeta::namespaced(NS, name),
        ServiceSpec {
            cluster_ip: Some(ip.into()),
            ports: ports
                .iter()
                .map(|p| ServicePort {
                    port: *p,
                    app_protocol: Some("http".into()),
                    ..ServicePort::default()
                })
                .collect(),
            ..ServiceSpec::default()
        },
    )
    .into()
}

impl Scenario {
    fn smi_objects(&self) -> Vec<AnyResource> {
        let mut out = vec![service(ROOT, ROOT_IP, &self.root_ports)];
        for (i, (name, ports)) in self.services.iter().enumerate() {
            out.push(service(name, &format!("10.0.1.{}", i + 1), ports));
        }
        let version = if self.v1alpha1 {
            "split.smi-spec.io/v1alpha1"
        } else {
            "split.smi-spec.io/v1alpha4"
        };
        let mut spec = TrafficSplitSpec {
            service: ROOT.into(),
            backends: self
                .backends
                .iter()
                .map(|(s, w)| TrafficSplitBackend {
                    service: s.clone(),
                    weight: Some(Quantity::new(w.as_str())),
                })
                .collect(),
            matches: Vec::new(),
        };
        if let Some(ms) = &self.matches {
            spec.matches.push(TrafficSplitMatch {
                api_group: None,
                kind: SplitMatchKind::HttpRouteGroup,
                name: "group".into(),
            });
            out.push(HttpRouteGroup::new(ObjectMeta::namespaced(NS, "group"), ms.clone()).into());
        }
        if let Some(ports) = &self.tcp_ports {
            spec.matches.push(TrafficSplitMatch {
                api_group: None,
                kind: SplitMatchKind::TcpRoute,
                name: "tcp".into(),
            });
            out.push(SmiTcpRoute::new(ObjectMeta::namespaced(NS, "tcp"), ports.clone()).into());
        }
        out.push(TrafficSplit::new(version, ObjectMeta::namespaced(NS, "split"), spec).into());
        out
    }

    /// What SMI does with the probe, per the spec texts.
    fn smi_outcome(&self, probe: &Probe) -> Outcome {
        let root_only = BTreeMap::from([(ROOT.to_owned(), 1.0)]);
        if !self.root_ports.contains(&probe.port) {
            return root_only;
        }
        if let Some(ports) = &self.tcp_ports
            && !ports.is_empty()
            && !ports.contains(&probe.port)
        {
            return root_only;
        }
        if let Some(ms) = &self.matches {
            let req = probe
                .headers
                .iter()
                .fold(HttpRequest::new(probe.method, probe.path), |r, (k, v)| {
                    r.header(k, v)
                });
            let admitted = ms
                .iter()
                .any(|m| CompiledMatch::compile(m).unwrap().admits(&req));
            if !admitted {
                return root_only;
            }
        }
        // Backends that exist and have the port, with exact weights.
        let mut kept: Vec<(&str, f64)> = Vec::new();
        for (name, w) in &self.backends {
            let has_port = if name == ROOT {
                true
            } else {
                self.services
                    .iter()
                    .any(|(s, ports)| s == name && ports.contains(&probe.port))
            };
            if has_port {
                let r = Quantity::new(w.as_str()).value().unwrap();
                kept.push((name, r.numerator() as f64 / r.denominator() as f64));
            }
        }
        if kept.is_empty() {
            return root_only; // not split: plain Service behaviour
        }
        let total: f64 = kept.iter().map(|(_, w)| w).sum();
        if total == 0.0 {
            // SMI says nothing; the conversion documents the Gateway API's 500.
            return BTreeMap::from([("<500>".to_owned(), 1.0)]);
        }
        let mut out = Outcome::new();
        for (name, w) in kept {
            if w > 0.0 {
                *out.entry(name.to_owned()).or_default() += w / total;
            }
        }
        out
    }
}

/// What gamma-resolve does with the probe on the converted routes, by sampling entropy.
fn gateway_outcome(table: &RouteTable, probe: &Probe, tcp: bool) -> Outcome {
    let ip: IpAddr = ROOT_IP.parse().unwrap();
    let port = u16::try_from(probe.port).unwrap();
    let req = if tcp {
        Request::connection(ip, port, Protocol::Tcp).from_namespace("client")
    } else {
        Request::http(ip, port, probe.method, probe.path)
            .from_namespace("client")
            .with_headers(&probe.headers)
    };
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let step = u64::MAX / SAMPLES;
    for k in 0..SAMPLES {
        let key = match table.resolve(&req, k * step + step / 2) {
            Decision::Passthrough => ROOT.to_owned(),
            Decision::Forward(f) => f.backend.name.to_owned(),
            Decision::Respond(r) if matches!(r.reason, RespondReason::AllWeightsZero) => {
                "<500>".to_owned()
            }
            other => format!("{other:?}"),
        };
        *counts.entry(key).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(k, c)| (k, c as f64 / SAMPLES as f64))
        .collect()
}

fn same_shares(a: &Outcome, b: &Outcome) -> bool {
    let tol = 2.0 / SAMPLES as f64;
    a.keys().chain(b.keys()).all(|k| {
        let x = a.get(k).copied().unwrap_or(0.0);
        let y = b.get(k).copied().unwrap_or(0.0);
        (x - y).abs() <= tol
    })
}

const PATHS: &[&str] = &[
    "/",
    "/api",
    "/api/x",
    "/apix",
    "/v1/items",
    "/a",
    "/b/c",
    "/x/api",
];
const PATH_REGEXES: &[&str] = &["/api", "/api/.*", "/v[0-9]+/", ".*", "/a|/b", "^/x"];

fn smi_match() -> impl Strategy<Value = HttpMatch> {
    (
        prop::option::of(prop::sample::select(PATH_REGEXES)),
        prop::sample::subsequence(vec!["GET", "POST", "*"], 0..=2),
        prop::sample::subsequence(
            vec![
                ("x-user", "alice"),
                ("x-user", "a.*"),
                ("x-tier", "gold|silver"),
            ],
            0..=1,
        ),
    )
        .prop_map(|(path, methods, headers)| HttpMatch {
            name: String::new(),
            methods: methods.into_iter().map(HttpRouteMethod::from).collect(),
            path_regex: path.map(str::to_owned),
            headers: headers
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect::<HeaderFilters>(),
        })
}

fn scenario() -> impl Strategy<Value = Scenario> {
    let ports = prop::sample::subsequence(vec![80, 8080], 1..=2);
    let services = prop::collection::vec(
        prop::sample::subsequence(vec![80, 8080, 9090], 0..=3),
        1..=4,
    );
    // The split's matches: none, an HTTPRouteGroup, or an SMI TCPRoute.
    let matched = prop_oneof![
        Just((None, None)),
        prop::collection::vec(smi_match(), 1..=3).prop_map(|m| (Some(m), None)),
        prop::sample::subsequence(vec![80, 8080, 9090], 0..=2).prop_map(|p| (None, Some(p))),
    ];
    (ports, services, any::<bool>(), matched)
        .prop_flat_map(|(root_ports, svc_ports, v1alpha1, matched)| {
            let n = svc_ports.len();
            // Backend names: existing services, the root itself, or a missing one.
            let name = prop_oneof![
                8 => (0..n).prop_map(|i| format!("b{i}")),
                1 => Just(ROOT.to_owned()),
                1 => Just("missing".to_owned()),
            ];
            let weight = if v1alpha1 {
                prop::sample::select(vec!["0", "1", "10m", "250m", "1500m", "2", "1k"])
                    .prop_map(str::to_owned)
                    .boxed()
            } else {
                (0u32..100).prop_map(|w| w.to_string()).boxed()
            };
            let backends = prop::collection::vec((name, weight), 1..=4);
            (
                Just(root_ports),
                Just(svc_ports),
                Just(v1alpha1),
                Just(matched),
                backends,
            )
        })
        .prop_map(
            |(root_ports, svc_ports, v1alpha1, (matches, tcp_ports), backends)| Scenario {
                root_ports,
                services: svc_ports
                    .into_iter()
                    .enumerate()
                    .map(|(i, p)| (format!("b{i}"), p))
                    .collect(),
                backends,
                // v1alpha1 has no `matches`.
                matches: if v1alpha1 {
                    None
                } else {
                    matches.map(|ms| {
                        ms.into_iter()
                            .enumerate()
                            .map(|(i, m)| HttpMatch {
                                name: format!("m{i}"),
                                ..m
                            })
                            .collect()
                    })
                },
                tcp_ports: if v1alpha1 { None } else { tcp_ports },
                v1alpha1,
            },
        )
}

fn probe() -> impl Strategy<Value = Probe> {
    (
        prop::sample::select(vec![80, 8080, 9090]),
        prop::sample::select(vec!["GET", "POST", "PUT"]),
        prop::sample::select(PATHS),
        prop::sample::subsequence(
            vec![
                ("x-user", "alice"),
                ("x-user", "anna"),
                ("x-tier", "gold"),
                ("x-tier", "bronze"),
            ],
            0..=2,
        ),
    )
        .prop_map(|(port, method, path, hs)| {
            // One value per header name: gamma-resolve reads the first value only.
            let mut headers: Vec<(String, String)> = Vec::new();
            for (k, v) in hs {
                if !headers.iter().any(|(n, _)| n == k) {
                    headers.push((k.to_owned(), v.to_owned()));
                }
            }
            Probe {
                port,
                method,
                path,
                headers,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn converted_routes_send_every_request_where_smi_would(
        s in scenario(),
        probes in prop::collection::vec(probe(), 1..12),
    ) {
        let smi = s.smi_objects();
        let conversion = gamma_smi::convert(&Snapshot::from_resources(smi.clone()));
        // Resolve against the cluster with the SMI objects replaced by the converted routes.
        let cluster: Vec<AnyResource> = smi
            .into_iter()
            .filter(|r| matches!(r, AnyResource::Service(_)))
            .chain(conversion.resources.iter().cloned())
            .collect();
        let table = RouteTable::build(&Snapshot::from_resources(cluster), &BuildOptions::default());
        for p in &probes {
            let want = s.smi_outcome(p);
            let got = gateway_outcome(&table, p, s.tcp_ports.is_some());
            prop_assert!(
                same_shares(&want, &got),
                "probe {:?}\nSMI {:?}\ngateway {:?}\nroutes {}\nreport {}",
                p, want, got,
                serde_json::to_string(&conversion.resources).unwrap(),
                conversion.report
            );
        }
    }
}
