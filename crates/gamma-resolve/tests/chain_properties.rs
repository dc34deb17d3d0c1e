//! Chains against single hops, for generated clusters of Services whose routes forward to each
//! other (and a Gateway in front): the first hop of every trace is `resolve` on the request,
//! every later hop is `resolve` on the request the hop before sent, from the caller's namespace
//! at the backend's cluster IP (GEP-1294: routes bind to the Service frontend); the exact
//! distribution sums to 1 and a sweep of evenly spaced entropies reaches each end exactly in
//! its share (Gateway API BackendRef.weight: weight / sum per split, splits multiply).
//!
//! In some clusters the last Service is headless, with ready endpoints; built with workload
//! binding (`MeshBinding::Workloads`, beyond the spec, docs/workloads.md) a hop to it goes to
//! its lowest ready endpoint on the target port, where its routes apply; with the default
//! binding it is a final backend.
//!
//! Case count: `CHAIN_CASES` clusters (default 48) × 6 requests.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write as _;
use std::net::IpAddr;

use gamma_model::Snapshot;
use gamma_resolve::*;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("CHAIN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

const NAMESPACES: &[&str] = &["ns0", "ns1"];
const SERVICES: usize = 5;
const PATHS: &[&str] = &["/", "/", "/a", "/a/x", "/b"];
const GATEWAY_IP: &str = "192.0.2.1";
/// At most this many hops, so that the sweep below (2¹² entropies) resolves every split of
/// every path exactly: each split's weights are powers of two summing to at most 8.
const MAX_HOPS: usize = 4;
const SWEEP_BITS: u32 = 12;
/// Weight patterns: every weight a power of two (or 0), every sum a power of two.
const WEIGHTS: &[&[u32]] = &[
    &[1],
    &[1, 1],
    &[2, 2],
    &[1, 1, 2],
    &[4, 4],
    &[2, 1, 1],
    &[0, 1],
];

/// Service `i`: `s{i}` in namespace `ns{i % 2}` at 10.96.0.{i + 1}, port 80.
fn service_ns(i: usize) -> &'static str {
    NAMESPACES[i % NAMESPACES.len()]
}

fn service_ip(i: usize) -> IpAddr {
    format!("10.96.0.{}", i + 1).parse().unwrap()
}

/// The Service that is headless when a cluster has one: port 80, targetPort 8080, ready
/// endpoints [`ENDPOINTS`].
const HEADLESS: usize = SERVICES - 1;
const ENDPOINTS: &[&str] = &["10.1.0.2", "10.1.0.1"];
const TARGET_PORT: u16 = 8080;

/// Where a request to Service `i` is sent: its cluster IP and port 80, or for the headless
/// Service its lowest ready endpoint on the target port.
fn service_frontend(i: usize, headless: bool) -> (IpAddr, u16) {
    if headless && i == HEADLESS {
        ("10.1.0.1".parse().unwrap(), TARGET_PORT)
    } else {
        (service_ip(i), 80)
    }
}

#[derive(Debug, Clone)]
struct Rule {
    path: Option<&'static str>,
    header_match: bool,
    set_header: Option<u8>,
    rewrite: Option<&'static str>,
    weights: &'static [u32],
    /// Backend service index per weight; `SERVICES` names a Service that does not exist.
    targets: Vec<usize>,
}

#[derive(Debug, Clone)]
struct Route {
    /// The parent Service.
    parent: usize,
    /// A consumer route: in the other namespace.
    consumer: bool,
    rules: Vec<Rule>,
}

fn rule() -> impl Strategy<Value = Rule> {
    (
        proptest::option::weighted(0.4, proptest::sample::select(&["/a", "/b"][..])),
        proptest::bool::weighted(0.2),
        proptest::option::of(0u8..2),
        proptest::option::weighted(0.3, proptest::sample::select(&["/a", "/b/x"][..])),
        proptest::sample::select(WEIGHTS),
        proptest::collection::vec(0..=SERVICES, 3),
    )
        .prop_map(
            |(path, header_match, set_header, rewrite, weights, targets)| Rule {
                path,
                header_match,
                set_header,
                rewrite,
                weights,
                targets,
            },
        )
}

fn route() -> impl Strategy<Value = Route> {
    (
        0..SERVICES,
        proptest::bool::weighted(0.3),
        proptest::collection::vec(rule(), 1..3),
    )
        .prop_map(|(parent, consumer, rules)| Route {
            parent,
            consumer,
            rules,
        })
}

fn rules_yaml(out: &mut String, rules: &[Rule]) {
    out.push_str("  rules:\n");
    for r in rules {
        out.push_str("  - matches:\n");
        match r.path {
            Some(p) => writeln!(out, "    - path: {{type: PathPrefix, value: {p}}}").unwrap(),
            None => out.push_str("    - path: {type: PathPrefix, value: /}\n"),
        }
        if r.header_match {
            out.push_str("      headers: [{name: x-h, value: v1}]\n");
        }
        if r.set_header.is_some() || r.rewrite.is_some() {
            out.push_str("    filters:\n");
        }
        if let Some(v) = r.set_header {
            writeln!(
                out,
                "    - {{type: RequestHeaderModifier, requestHeaderModifier: {{set: [{{name: x-h, value: v{v}}}]}}}}"
            )
            .unwrap();
        }
        if let Some(p) = r.rewrite {
            writeln!(
                out,
                "    - {{type: URLRewrite, urlRewrite: {{path: {{type: ReplaceFullPath, replaceFullPath: {p}}}}}}}"
            )
            .unwrap();
        }
        out.push_str("    backendRefs:\n");
        for (w, t) in r.weights.iter().zip(&r.targets) {
            let (ns, name) = if *t == SERVICES {
                ("ns0", "ghost".to_string())
            } else {
                (service_ns(*t), format!("s{t}"))
            };
            writeln!(
                out,
                "    - {{name: {name}, namespace: {ns}, port: 80, weight: {w}}}"
            )
            .unwrap();
        }
    }
}

fn cluster(routes: &[Route], gateway: &[Rule], headless: bool) -> String {
    let mut y = String::new();
    for ns in NAMESPACES {
        // mesh backendRefs to other namespaces, allowed either way
        writeln!(
            y,
            "---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\n\
             metadata: {{name: all, namespace: {ns}}}\nspec:\n  \
             from: [{{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: ns0}}, \
             {{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: ns1}}]\n  \
             to: [{{group: \"\", kind: Service}}]"
        )
        .unwrap();
    }
    for i in 0..SERVICES {
        if headless && i == HEADLESS {
            let addresses: Vec<String> = ENDPOINTS
                .iter()
                .map(|a| format!("{{addresses: [{a}]}}"))
                .collect();
            writeln!(
                y,
                "---\napiVersion: v1\nkind: Service\nmetadata: {{name: s{i}, namespace: {ns}}}\n\
                 spec: {{clusterIP: None, ports: [{{port: 80, targetPort: {TARGET_PORT}}}]}}\n\
                 ---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\n\
                 metadata: {{name: s{i}-1, namespace: {ns}, labels: {{kubernetes.io/service-name: s{i}}}}}\n\
                 addressType: IPv4\nendpoints: [{}]\nports: [{{port: {TARGET_PORT}}}]",
                addresses.join(", "),
                ns = service_ns(i),
            )
            .unwrap();
            continue;
        }
        writeln!(
            y,
            "---\napiVersion: v1\nkind: Service\nmetadata: {{name: s{i}, namespace: {}}}\n\
             spec: {{clusterIP: {}, ports: [{{port: 80}}]}}",
            service_ns(i),
            service_ip(i)
        )
        .unwrap();
    }
    writeln!(
        y,
        "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\n\
         metadata: {{name: gw, namespace: ns0}}\nspec:\n  gatewayClassName: example\n  \
         addresses: [{{type: IPAddress, value: {GATEWAY_IP}}}]\n  \
         listeners: [{{name: http, port: 80, protocol: HTTP}}]\n\
         ---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
         metadata: {{name: edge, namespace: ns0}}\nspec:\n  parentRefs: [{{name: gw}}]"
    )
    .unwrap();
    rules_yaml(&mut y, gateway);
    for (k, r) in routes.iter().enumerate() {
        let svc_ns = service_ns(r.parent);
        let ns = if r.consumer {
            NAMESPACES[(r.parent + 1) % NAMESPACES.len()]
        } else {
            svc_ns
        };
        writeln!(
            y,
            "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
             metadata: {{name: r{k}, namespace: {ns}}}\nspec:\n  \
             parentRefs: [{{group: \"\", kind: Service, name: s{}, namespace: {svc_ns}}}]",
            r.parent
        )
        .unwrap();
        rules_yaml(&mut y, &r.rules);
    }
    y
}

#[derive(Debug, Clone)]
struct Req {
    to_gateway: bool,
    service: usize,
    from: Option<&'static str>,
    path: &'static str,
    header: bool,
    entropy: u64,
}

fn request() -> impl Strategy<Value = Req> {
    (
        any::<bool>(),
        0..SERVICES,
        proptest::option::of(proptest::sample::select(NAMESPACES)),
        proptest::sample::select(PATHS),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(|(to_gateway, service, from, path, header, entropy)| Req {
            to_gateway,
            service,
            from,
            path,
            header,
            entropy,
        })
}

const X_H: [(&str, &str); 1] = [("x-h", "v1")];

fn check_trace(
    t: &RouteTable,
    req: &Request<'_>,
    entropy: u64,
    opts: &TraceOptions,
    headless: bool,
) {
    let trace = t.trace_with(req, entropy, opts);
    assert!(!trace.hops.is_empty() && trace.hops.len() <= MAX_HOPS);
    // the first hop is resolve itself
    assert_eq!(
        HopOutcome::of(&t.resolve(req, entropy)),
        trace.hops[0].outcome
    );
    assert_eq!(trace.hops[0].entropy, entropy);
    for pair in trace.hops.windows(2) {
        let (before, hop) = (&pair[0], &pair[1]);
        // the next hop is the previous backend's frontend, from the caller's namespace
        let HopOutcome::Forward { backend, .. } = &before.outcome else {
            panic!("a hop after {:?}", before.outcome)
        };
        let i: usize = backend.name[1..].parse().unwrap();
        assert_eq!(
            (hop.request.destination, hop.request.port),
            service_frontend(i, headless)
        );
        assert_eq!(backend.port, Some(80));
        assert_eq!(
            hop.request.source_namespace.as_deref(),
            before.frontend.as_ref().map(|f| f.namespace())
        );
        assert_eq!(
            before.forwarded.as_ref().map(|f| &f.path),
            Some(&hop.request.path)
        );
        // and it is resolve on that request, with the entropy the pick before left
        let headers = hop.request.headers_over(req.headers);
        let again = hop.request.as_request(&headers);
        assert_eq!(HopOutcome::of(&t.resolve(&again, hop.entropy)), hop.outcome);
        let explained = t.explain(&again, hop.entropy);
        assert_eq!(
            explained.decision,
            t.resolve(&again, hop.entropy).to_string()
        );
    }
    // a chain ends at a Service backend only where nothing is bound for the caller (or the
    // route sent to its own parent Service, GEP-1294): the headless Service under workload
    // binding is followed, never delivered to, when its routes apply
    if let TraceEnd::Delivered { backend } = &trace.end
        && let Some(i) = backend.name.strip_prefix('s').and_then(|n| n.parse().ok())
    {
        let last = trace.hops.last().unwrap();
        let own =
            matches!(last.frontend, Some(Frontend::Service { name, .. }) if name == backend.name);
        if !own {
            let (dest, port) = service_frontend(i, headless);
            let mut next = Request::http(dest, port, "GET", "/");
            if let Some(f) = &last.frontend {
                next = next.from_namespace(f.namespace());
            }
            assert_eq!(t.resolve(&next, 0), Decision::Passthrough, "{trace:?}");
        }
    }
}

fn check_distribution(t: &RouteTable, req: &Request<'_>, opts: &TraceOptions) {
    let dist = t.trace_distribution_with(req, opts).unwrap();
    let sum = dist
        .ends
        .iter()
        .try_fold(Fraction::ZERO, |s, e| s.checked_add(e.share));
    assert_eq!(sum, Some(Fraction::ONE), "{dist:?}");
    // a sweep of 2^SWEEP_BITS midpoints reaches each end exactly share × n times
    let n = 1u64 << SWEEP_BITS;
    let mut counts: Vec<(TraceEnd<'_>, u128)> = Vec::new();
    for i in 0..n {
        let e = (2 * i + 1) << (63 - SWEEP_BITS);
        let end = t.trace_with(req, e, opts).end;
        match counts.iter_mut().find(|(x, _)| *x == end) {
            Some((_, c)) => *c += 1,
            None => counts.push((end, 1)),
        }
    }
    assert_eq!(counts.len(), dist.ends.len(), "{counts:?} vs {dist:?}");
    for e in &dist.ends {
        let c = counts.iter().find(|(x, _)| *x == e.end).map_or(0, |x| x.1);
        assert_eq!(
            c * e.share.denominator(),
            u128::from(n) * e.share.numerator(),
            "{}: {c} of {n} vs {}",
            e.end,
            e.share
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn every_hop_is_resolve_and_splits_compose(
        routes in proptest::collection::vec(route(), 3..9),
        gateway in proptest::collection::vec(rule(), 1..3),
        requests in proptest::collection::vec(request(), 6),
        headless in proptest::bool::weighted(0.5),
        workloads in any::<bool>(),
    ) {
        let yaml = cluster(&routes, &gateway, headless);
        let resources = gamma_model::decode(&yaml).unwrap();
        let binding = if workloads { MeshBinding::Workloads } else { MeshBinding::ClusterIps };
        let options = BuildOptions::default().with_mesh_binding(binding);
        let t = RouteTable::build(&Snapshot::from_resources(resources), &options);
        let opts = TraceOptions::default().with_max_hops(MAX_HOPS);
        // a hop into the headless Service follows its endpoints only under workload binding
        let followed = headless && workloads;
        for r in &requests {
            let (dest, port) = if r.to_gateway {
                (GATEWAY_IP.parse().unwrap(), 80)
            } else {
                service_frontend(r.service, followed)
            };
            let mut req = Request::http(dest, port, "GET", r.path);
            if let Some(ns) = r.from {
                req = req.from_namespace(ns);
            }
            if r.header {
                req = req.with_headers(&X_H);
            }
            check_trace(&t, &req, r.entropy, &opts, followed);
            check_distribution(&t, &req, &opts);
        }
    }
}
