//! Runs `N` resolves (first argument, default 0) of a scenario (second argument: `one-port-10`,
//! `one-port-<rules>`, `many-services[-<services>]`, `hostile-<routes>`,
//! `hostile-cold-<routes>`, `regex-mix-<rules>`, `regex-only-<rules>`, `regex-404-<rules>`, `grpc-mix-<rules>`,
//! `grpc-only-<rules>`, `grpc-404-<rules>`)
//! after building and warming up, so that `valgrind --tool=callgrind`
//! totals for N and 0 differ by exactly N resolves. `snapshot-<routes>` only builds: it decodes
//! `routes` realistic HTTPRoutes (three rules each) and their parent Services into a snapshot
//! and runs `RouteTable::build` once (lowering plus compiling; read `RouteTable::build`
//! inclusive). `snapshot-regex-mix-<rules>` builds the regex mix the same way, from its
//! manifests (`regex_mix_yaml`). `regex-crate-set-<patterns>` only compiles the `regex` crate's
//! `RegexSet` of the mix's first `patterns` path patterns (see `regex_crate_scenario`);
//! `regex-crate-match-<patterns>` and `regex-crate-set-match-<patterns>` run `N` searches of
//! the regex-only hits' paths with the `regex` crate alone (see `regex_crate_match_scenario`).
//! `update-<routes>`, `update-spread-<routes>`, `update-service-<routes>`,
//! `update-namespace-<routes>`, `update-listenerset-<routes>`, `update-policy-<routes>` and
//! `update-secret-<routes>` run `N` incremental updates of one route, of a different route
//! each time, of one Service, Namespace, ListenerSet, BackendTLSPolicy or Secret
//! (see `update_scenario`; `update-default-<routes>` and `update-spread-default-<routes>`
//! without `BuildOptions::keep_lowered_routes`); `update-slice-<routes>` one EndpointSlice of a headless Service
//! with workload binding on (see `update_slice_scenario`). `chain-3` runs `N` traces
//! (`RouteTable::trace`) through the chain of `gamma_benches::chain` (three or five hops);
//! `chain-3-distribution` runs `N` exact distributions (`RouteTable::trace_distribution`) of
//! the three-hop request. `view-<services>` builds [`many_services`] (`services` Services × 5
//! rules) and takes `N` views of it (`RouteTable::view`, dropped each time). Method in
//! benches/README.md.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::fmt::Write;
use std::hint::black_box;
use std::net::IpAddr;

use gamma_benches::grpc_mix::{grpc_mix, grpc_mix_request};
use gamma_benches::hostile::{HotRequest, cold_request, hostile, hot_request};
use gamma_benches::manifests::{http_routes_yaml, mesh_cluster, mesh_route_yaml};
use gamma_benches::regex_mix::{
    MixRequest, regex_mix, regex_mix_request, regex_mix_yaml, regex_path, regex_pattern,
};
use gamma_benches::{Rng, many_services, one_port, one_port_request, svc_ip};
use gamma_model::Snapshot;
use gamma_resolve::{BuildOptions, Request, RouteTable};

/// One prepared request: destination, path and headers.
type Req<'a> = (IpAddr, &'a str, &'a [(&'a str, &'a str)]);

/// Warms up (regex caches, page faults) with 2,048 resolves, then resolves `n` requests
/// cycling through `reqs` (1,024 of them); returns how many were forwarded.
fn warm_then_run(table: &RouteTable, reqs: &[Req<'_>], n: usize) -> usize {
    warm_then_run_as(table, reqs, n, false)
}

/// [`warm_then_run`] with gRPC calls (the path is the `:path`) when `grpc`.
fn warm_then_run_as(table: &RouteTable, reqs: &[Req<'_>], n: usize, grpc: bool) -> usize {
    let run = |count: usize| {
        let mut forwards = 0usize;
        for k in 0..count {
            let (dst, path, headers) = reqs[k & 1023];
            let req = if grpc {
                Request::grpc(dst, 80, path)
            } else {
                Request::http(dst, 80, "GET", path)
            }
            .with_headers(&headers);
            if matches!(
                black_box(table.resolve(&req, k as u64)),
                gamma_resolve::Decision::Forward(_)
            ) {
                forwards += 1;
            }
        }
        forwards
    };
    black_box(run(2048));
    run(n)
}

/// `hostile-<routes>`: the hostile snapshot (`routes` HTTPRoutes of one to three rules, a tenth of
/// them on one Service port); every request goes to the hot port. `hostile-cold-<routes>`: the
/// same table, every request to a random one of the other Services.
fn hostile_scenario(scenario: &str, routes: usize, n: usize, cold: bool) {
    let (input, shape) = hostile(routes);
    let table = RouteTable::from_input(&input, &BuildOptions::default());
    drop(input);
    let mut rng = Rng::new(5);
    let reqs: Vec<(IpAddr, HotRequest)> = (0..1024)
        .map(|_| {
            if cold {
                let (s, path) = cold_request(&mut rng, &shape);
                let headers = Vec::new();
                (svc_ip(s), HotRequest { path, headers })
            } else {
                (svc_ip(0), hot_request(&mut rng, shape.hot_routes))
            }
        })
        .collect();
    let headers: Vec<Vec<(&str, &str)>> = reqs.iter().map(|(_, q)| q.header_refs()).collect();
    let view: Vec<Req<'_>> = reqs
        .iter()
        .zip(&headers)
        .map(|((dst, q), h)| (*dst, q.path.as_str(), h.as_slice()))
        .collect();
    let forwards = warm_then_run(&table, &view, n);
    println!(
        "{scenario}: {} routes, {} rules ({} routes, {} rules on the hot port); {n} resolves, {forwards} forwarded",
        shape.routes, shape.rules, shape.hot_routes, shape.hot_rules
    );
}

/// `regex-mix-<rules>` (random rules: path hits, 2% of them regexes), `regex-only-<rules>`
/// (regex-only hits) and `regex-404-<rules>` (no rule matches): the regex mix on one port.
fn regex_scenario(scenario: &str, rules: usize, n: usize, kind: MixRequest) {
    let table = RouteTable::from_input(&regex_mix(rules), &BuildOptions::default());
    let mut rng = Rng::new(5);
    let reqs: Vec<(String, String)> = (0..1024)
        .map(|_| regex_mix_request(&mut rng, rules, kind))
        .collect();
    let headers: Vec<[(&str, &str); 1]> = reqs
        .iter()
        .map(|(_, t)| [("x-tenant", t.as_str())])
        .collect();
    let view: Vec<Req<'_>> = reqs
        .iter()
        .zip(&headers)
        .map(|((p, _), h)| (svc_ip(0), p.as_str(), h.as_slice()))
        .collect();
    let forwards = warm_then_run(&table, &view, n);
    println!("{scenario}: {n} resolves, {forwards} forwarded");
}

/// `grpc-mix-<rules>` (random rules: exact hits, 2% of them regexes), `grpc-only-<rules>`
/// (regex-only hits) and `grpc-404-<rules>` (no rule matches): the gRPC mix on one port.
fn grpc_scenario(scenario: &str, rules: usize, n: usize, kind: MixRequest) {
    let table = RouteTable::from_input(&grpc_mix(rules), &BuildOptions::default());
    let mut rng = Rng::new(5);
    let reqs: Vec<(String, String)> = (0..1024)
        .map(|_| grpc_mix_request(&mut rng, rules, kind))
        .collect();
    let headers: Vec<[(&str, &str); 1]> = reqs
        .iter()
        .map(|(_, t)| [("x-tenant", t.as_str())])
        .collect();
    let view: Vec<Req<'_>> = reqs
        .iter()
        .zip(&headers)
        .map(|((p, _), h)| (svc_ip(0), p.as_str(), h.as_slice()))
        .collect();
    let forwards = warm_then_run_as(&table, &view, n, true);
    println!("{scenario}: {n} resolves, {forwards} forwarded");
}

/// `snapshot-<routes>`: [`http_routes_yaml`] and the 100 Services they name (one per
/// (namespace, name) pair), decoded into a snapshot; one `RouteTable::build` of it.
fn snapshot_scenario(routes: usize) {
    let mut yaml = http_routes_yaml(routes);
    for k in 0..100 {
        let _ = write!(
            yaml,
            "---\napiVersion: v1\nkind: Service\nmetadata: {{name: svc-{k}, namespace: team-{}}}\n\
             spec: {{clusterIP: {}, ports: [{{port: 80}}]}}\n",
            k % 20,
            svc_ip(k)
        );
    }
    let snapshot = Snapshot::from_resources(gamma_model::decode(&yaml).unwrap());
    let table = black_box(RouteTable::build(&snapshot, &BuildOptions::default()));
    println!("snapshot-{routes}: {:?}", table.stats());
}

/// `chain-3`: `n` traces through the chain (three or five hops), after 2,048 to warm up.
fn chain_scenario(n: usize) {
    let table = gamma_benches::chain::chain3();
    let dst: IpAddr = gamma_benches::chain::CHAIN_GATEWAY.parse().unwrap();
    let run = |count: usize| {
        let mut hops = 0usize;
        for k in 0..count {
            let req = Request::http(dst, 80, "GET", "/api/orders");
            hops += black_box(table.trace(&req, (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
                .hops
                .len();
        }
        hops
    };
    black_box(run(2048));
    let hops = run(n);
    println!("chain-3: {n} traces, {hops} hops");
}

/// `chain-3-distribution`: `n` exact distributions of the three-hop chain's request, after
/// 2,048 to warm up.
fn chain_distribution_scenario(n: usize) {
    let table = gamma_benches::chain::chain3();
    let dst: IpAddr = gamma_benches::chain::CHAIN_GATEWAY.parse().unwrap();
    let run = |count: usize| {
        let mut ends = 0usize;
        for _ in 0..count {
            let req = Request::http(dst, 80, "GET", "/api/orders");
            ends +=
                black_box(table.trace_distribution(black_box(&req))).map_or(0, |d| d.ends.len());
        }
        ends
    };
    black_box(run(2048));
    let ends = run(n);
    println!("chain-3-distribution: {n} distributions, {ends} ends");
}

/// `view-<services>`: `n` views of the many-services table (each built and dropped), after
/// one to warm up (the view's lookups are built on first use).
fn view_scenario(services: usize, n: usize) {
    let table = RouteTable::from_input(&many_services(services, 5), &BuildOptions::default());
    let entries = |t: &RouteTable| {
        let v = black_box(t.view());
        v.iter()
            .flat_map(|b| &b.sets)
            .map(|s| s.http.len() + s.grpc.len() + s.tls.len())
            .sum::<usize>()
    };
    black_box(entries(&table));
    let mut total = 0;
    for _ in 0..n {
        total += entries(&table);
    }
    println!(
        "view-{services}: {n} views, {total} entries, {:?}",
        table.stats()
    );
}

/// `snapshot-load-<rules>`: the regex mix's manifests (`regex_mix_yaml(rules)`, ten rules per
/// route) decoded, then put into a `Snapshot` object by object (`Snapshot::upsert`, what a
/// controller does with the objects of its first list and every later event; toggle
/// `*Snapshot*upsert*`).
fn snapshot_load_scenario(rules: usize) {
    let objects = gamma_model::decode(&regex_mix_yaml(rules)).unwrap();
    let mut snapshot = Snapshot::default();
    for object in objects {
        black_box(snapshot.upsert(object));
    }
    println!("snapshot-load-{rules}: {} objects", snapshot.len());
}

/// `decode-checked-<routes>`: the manifests of `http_routes_yaml(routes)` decoded one document
/// at a time with `DecodeOptions::checking_fields` (unknown, missing and experimental-only
/// fields recorded), as `gammactl validate` reads files (toggle `*decode_documents*`).
fn decode_checked_scenario(routes: usize) {
    let yaml = http_routes_yaml(routes);
    let options = gamma_model::DecodeOptions::checking_fields();
    let mut objects = 0;
    let mut findings = 0;
    for doc in yaml.split("---\n").filter(|d| !d.trim().is_empty()) {
        let decoded = black_box(gamma_model::decode_documents(doc, &options)).unwrap();
        objects += decoded.documents.len();
        findings += decoded
            .documents
            .iter()
            .map(|d| d.fields.unknown.len() + d.fields.missing.len())
            .sum::<usize>();
    }
    println!("decode-checked-{routes}: {objects} objects, {findings} field findings");
}

/// `regex-crate-set-<patterns>`: the `regex` crate's own `RegexSet` of the regex mix's first
/// `patterns` distinct path patterns, each anchored as the table anchors it (`^(?:p)$`): what
/// the same patterns cost compiled the usual way, beside the table's share of a first build
/// (toggle `*regex_crate_set*`).
fn regex_crate_scenario(patterns: usize) {
    let anchored: Vec<String> = (0..patterns)
        .map(|k| format!("^(?:{})$", regex_pattern(k)))
        .collect();
    let set = black_box(regex_crate_set(&anchored));
    println!("regex-crate-set-{patterns}: {} patterns", set.len());
}

/// `regex-crate-match-<patterns>` and `regex-crate-set-match-<patterns>`: the yardstick of a
/// regex-only hit. The same 1,024 request paths as `regex-only-10000` (one of the mix's
/// patterns matches each), warmed up with 2,048 searches, then `N` searches with the `regex`
/// crate alone: `Regex::is_match` of the one regex that matches (the least any engine pays to
/// confirm that the path matches that regex, knowing which one it is), and
/// `RegexSet::matches` of all `patterns` (the lowest matching pattern of a set, as the table
/// needs it). Per search = (total with N − total with N = 0) / N.
fn regex_crate_match_scenario(patterns: usize, n: usize, set: bool) {
    let anchored: Vec<String> = (0..patterns)
        .map(|k| format!("^(?:{})$", regex_pattern(k)))
        .collect();
    let mut rng = Rng::new(5);
    let reqs: Vec<(usize, String)> = (0..1024)
        .map(|_| {
            let k = rng.below(patterns);
            (k, regex_path(k))
        })
        .collect();
    let hits = if set {
        let all = regex_crate_set(&anchored);
        let run = |count: usize| {
            (0..count)
                .filter(|i| {
                    let (k, path) = &reqs[i & 1023];
                    black_box(all.matches(path).iter().next()) == Some(*k)
                })
                .count()
        };
        black_box(run(2048));
        run(n)
    } else {
        let each: Vec<regex::Regex> = anchored
            .iter()
            .map(|p| regex::Regex::new(p).unwrap())
            .collect();
        let run = |count: usize| {
            (0..count)
                .filter(|i| {
                    let (k, path) = &reqs[i & 1023];
                    black_box(each[*k].is_match(path))
                })
                .count()
        };
        black_box(run(2048));
        run(n)
    };
    println!("regex-crate-match-{patterns} (set: {set}): {n} searches, {hits} hits");
}

/// `regex::RegexSet::new` of `patterns`, out of line so that callgrind can toggle on it.
#[inline(never)]
fn regex_crate_set(patterns: &[String]) -> regex::RegexSet {
    regex::RegexSet::new(patterns).unwrap()
}

/// `snapshot-regex-mix-<rules>`: the regex mix's manifests decoded into a snapshot; one
/// `RouteTable::build` of it. `snapshot-regex-mix-twice-<rules>`: two builds of the same
/// snapshot (the second reads the validation verdicts the first left in it): the second build
/// costs the difference of the two scenarios' `RouteTable::build` totals.
/// `snapshot-regex-mix-rebuild-<rules>`: the same two builds, the second through
/// `RouteTable::build_reusing` the first table (its regexes and regex sets taken, not compiled
/// again). `snapshot-regex-mix-kept-<rules>` and `snapshot-regex-mix-rebuild-kept-<rules>`:
/// one build, and the two builds through `build_reusing`, with
/// `BuildOptions::keep_lowered_routes` (the later build takes the first's lowered routes).
fn snapshot_regex_mix_scenario(rules: usize, builds: usize, reuse: bool, keep: bool) {
    let snapshot = Snapshot::from_resources(gamma_model::decode(&regex_mix_yaml(rules)).unwrap());
    let mut last: Option<RouteTable> = None;
    for _ in 0..builds {
        let options = BuildOptions::default().with_keep_lowered_routes(keep);
        let table = black_box(match (&last, reuse) {
            (Some(previous), true) => RouteTable::build_reusing(&snapshot, &options, previous),
            _ => RouteTable::build(&snapshot, &options),
        });
        println!("snapshot-regex-mix-{rules}: {:?}", table.stats());
        last = Some(table);
    }
}

/// What `update_scenario` changes.
#[derive(Clone, Copy, PartialEq)]
enum Change {
    /// Route 0's first path, toggled (`update-<routes>`): after the first change the table
    /// holds the lowered routes of route 0's Service, so this is the warm cost (with the
    /// default options: `update-default-<routes>`).
    Route,
    /// A different route each time, on a different Service (`update-spread-<routes>`): no
    /// lowered route of the last update is reused (the cold cost; the other routes of the
    /// Service are kept by the full build: with the default options, which keep none,
    /// `update-spread-default-<routes>`).
    Spread,
    /// Service 0's second port, toggled (`update-service-<routes>`).
    Service,
    /// Namespace `team-0`'s labels, toggled (`update-namespace-<routes>`).
    Namespace,
    /// ListenerSet `team-0/extra`'s listener hostname, toggled (`update-listenerset-<routes>`).
    ListenerSet,
    /// BackendTLSPolicy `team-0/tls` (targeting Service 0)'s hostname, toggled
    /// (`update-policy-<routes>`; the policy is in the cluster from the start).
    Policy,
    /// Secret `edge/cert` (named by the certificateRefs of Gateway `edge/tls`'s HTTPS
    /// listener; Secret `edge/other` beside it) toggled between a `kubernetes.io/tls` Secret
    /// and an Opaque one (`update-secret-<routes>`).
    Secret,
    /// Route 0's status, as a controller writes it (one parent entry, its message toggled),
    /// its spec unchanged (`update-status-<routes>`): a change no table reads.
    Status,
}

/// Route 0's `status` (`Change::Status`): one entry for its Service parent, message `m{v}`.
fn status_yaml(v: usize) -> String {
    format!(
        "status:\n  parents:\n  - parentRef: {{group: \"\", kind: Service, name: svc-0, port: 80}}\n    \
         controllerName: example.com/mesh\n    conditions:\n    - {{type: Accepted, status: \"True\", \
         reason: Accepted, message: m{v}, lastTransitionTime: \"2026-01-05T10:00:00Z\", \
         observedGeneration: 1}}\n"
    )
}

/// BackendTLSPolicy `team-0/tls` on Service 0 (`Change::Policy`), hostname `s{v}.example`.
fn policy_yaml(v: usize) -> String {
    format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\n\
         metadata: {{name: tls, namespace: team-0}}\n\
         spec:\n  targetRefs: [{{group: \"\", kind: Service, name: svc-0}}]\n\
         \x20 validation: {{wellKnownCACertificates: System, hostname: s{v}.example}}\n"
    )
}

/// Secret `edge/cert` (`Change::Secret`): usable (`kubernetes.io/tls` with both keys) for
/// `v = 1`, Opaque otherwise.
fn secret_yaml(v: usize) -> String {
    let body = if v == 1 {
        "type: kubernetes.io/tls\ndata: {tls.crt: eA==, tls.key: eA==}\n"
    } else {
        "data: {tls.crt: eA==}\n"
    };
    format!("apiVersion: v1\nkind: Secret\nmetadata: {{name: cert, namespace: edge}}\n{body}")
}

/// What `Change::Secret` adds: Gateway `edge/tls` (one HTTPS listener naming Secret
/// `edge/cert`), Secrets `edge/cert` and `edge/other`.
const SECRET_EDGE: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\n\
    metadata: {name: tls, namespace: edge}\n\
    spec:\n  gatewayClassName: gamma\n  addresses: [{type: IPAddress, value: 10.250.0.2}]\n\
    \x20 listeners: [{name: https, port: 443, protocol: HTTPS, tls: {certificateRefs: [{name: cert}]}}]\n\
    ---\napiVersion: v1\nkind: Secret\nmetadata: {name: other, namespace: edge}\n\
    type: kubernetes.io/tls\ndata: {tls.crt: eA==, tls.key: eA==}\n";

/// The edge of [`update_scenario`]: Gateway `edge/edge` (one HTTP listener, ListenerSets
/// allowed from every namespace), ListenerSet `team-0/extra` on it (one listener on port
/// 8080, hostname `h{v}.example`), two HTTPRoutes on the Gateway and one on the ListenerSet,
/// and Namespaces `edge` and `team-0` (labels `v: "{v}"`).
fn edge_yaml(v: usize) -> (String, String, String) {
    let ns = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata: {{name: team-0, labels: {{v: \"{v}\"}}}}\n"
    );
    let ls = format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\n\
         metadata: {{name: extra, namespace: team-0}}\n\
         spec:\n  parentRef: {{name: edge, namespace: edge}}\n\
         \x20 listeners: [{{name: alt, port: 8080, protocol: HTTP, hostname: h{v}.example, allowedRoutes: {{namespaces: {{from: All}}}}}}]\n"
    );
    let mut rest = String::from(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: edge}\n---\n\
         apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: edge, namespace: edge}\n\
         spec:\n  gatewayClassName: gamma\n  addresses: [{type: IPAddress, value: 10.250.0.1}]\n\
         \x20 allowedListeners: {namespaces: {from: All}}\n\
         \x20 listeners: [{name: web, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {v: \"1\"}}}}}]\n",
    );
    for (i, parent) in [
        "{name: edge, namespace: edge}",
        "{name: edge, namespace: edge}",
        "{kind: ListenerSet, name: extra}",
    ]
    .iter()
    .enumerate()
    {
        let _ = write!(
            rest,
            "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
             metadata: {{name: edge-{i}, namespace: team-0}}\n\
             spec: {{parentRefs: [{parent}], rules: [{{matches: [{{path: {{type: PathPrefix, value: /e{i}}}}}], backendRefs: [{{name: svc-0, port: 80}}]}}]}}\n"
        );
    }
    (ns, ls, rest)
}

/// `update-<routes>`, `update-spread-<routes>`, `update-service-<routes>`,
/// `update-namespace-<routes>`, `update-listenerset-<routes>`, `update-policy-<routes>`,
/// `update-secret-<routes>`, `update-status-<routes>`:
/// [`gamma_benches::manifests::mesh_cluster`] (5 routes per Service) and the edge of
/// [`edge_yaml`], built once with `BuildOptions::keep_lowered_routes` (what an embedder that
/// updates its table sets; `update-default-<routes>` and `update-spread-default-<routes>`:
/// the default options); then `n` one-object changes ([`Change`]), each applied to the
/// snapshot and the table updated from the previous one with `RouteTable::update`. Read
/// `RouteTable::update` inclusive (`--toggle-collect`), per change; `n = 0` with
/// `--toggle-collect='*RouteTable*build*'` gives the full build of the same snapshot. The
/// environment variable `PER` sets the routes per Service (default 5): the cost of one more
/// unchanged route in the changed route's scope is the difference of two runs.
fn update_scenario(routes: usize, n: usize, change: Change, options: BuildOptions) {
    let per = std::env::var("PER")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let services = routes.div_ceil(per);
    let mut objects = mesh_cluster(routes, per);
    let (ns, ls, rest) = edge_yaml(1);
    objects.extend(gamma_model::decode(&format!("{ns}---\n{ls}---\n{rest}")).unwrap());
    match change {
        Change::Policy => objects.extend(gamma_model::decode(&policy_yaml(1)).unwrap()),
        Change::Secret => {
            objects.extend(gamma_model::decode(SECRET_EDGE).unwrap());
            objects.extend(gamma_model::decode(&secret_yaml(1)).unwrap());
        }
        _ => {}
    }
    // `Change::Secret`: the snapshot holds every Secret, so certificateRefs are judged
    let mut snapshot =
        Snapshot::from_resources(objects).with_secrets_complete(change == Change::Secret);
    let mut table = RouteTable::build(&snapshot, &options);
    let version = |k: usize, v: usize| -> gamma_model::AnyResource {
        let yaml = match change {
            Change::Service => format!(
                "apiVersion: v1\nkind: Service\nmetadata: {{name: svc-0, namespace: team-0}}\n\
                 spec: {{clusterIP: {}, ports: [{{port: 80, name: http}}{}]}}\n",
                svc_ip(0),
                if v == 0 {
                    ", {port: 8080, name: alt}"
                } else {
                    ""
                }
            ),
            Change::Route => mesh_route_yaml(0, per, services, 2 + v),
            // route k*per*7+3 (mod routes): a different Service each change
            Change::Spread => mesh_route_yaml((k * per * 7 + 3) % routes, per, services, 2),
            Change::Status => format!("{}{}", mesh_route_yaml(0, per, services, 1), status_yaml(v)),
            Change::Namespace => edge_yaml(v).0,
            Change::ListenerSet => edge_yaml(v).1,
            Change::Policy => policy_yaml(v),
            Change::Secret => secret_yaml(v),
        };
        gamma_model::decode(&yaml).unwrap().remove(0)
    };
    for k in 0..n {
        let object = version(k, k % 2);
        let key = gamma_model::ObjectKey::of(&object);
        let previous = snapshot.upsert(object);
        table = black_box(table.update(&snapshot, &options, &key, previous.as_deref()));
    }
    println!("update-{routes}: {n} changes, {:?}", table.stats());
}

/// `update-slice-<routes>`: [`gamma_benches::manifests::workload_cluster`] (5 routes per
/// Service, every tenth Service headless) built with `MeshBinding::Workloads`; then `n`
/// EndpointSlice changes of headless Service `svc-0` (its third endpoint moved back and
/// forth: addresses only), each applied to the snapshot and the table updated from the
/// previous one. Read `RouteTable::update` inclusive (`--toggle-collect`), per change.
fn update_slice_scenario(routes: usize, n: usize) {
    let mut snapshot =
        Snapshot::from_resources(gamma_benches::manifests::workload_cluster(routes, 5));
    let options = BuildOptions::default().with_mesh_binding(gamma_resolve::MeshBinding::Workloads);
    let mut table = RouteTable::build(&snapshot, &options);
    let versions: Vec<gamma_model::AnyResource> = (0..2)
        .map(|v| {
            let yaml = gamma_benches::manifests::endpoint_slice_yaml(0, 1 - v);
            gamma_model::decode(&yaml).unwrap().remove(0)
        })
        .collect();
    for k in 0..n {
        let object = versions[k % 2].clone();
        let key = gamma_model::ObjectKey::of(&object);
        let previous = snapshot.upsert(object);
        table = black_box(table.update(&snapshot, &options, &key, previous.as_deref()));
    }
    println!("update-slice-{routes}: {n} changes, {:?}", table.stats());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0);
    let scenario = args.get(2).map(String::as_str).unwrap_or("one-port-10000");
    if scenario == "chain-3" {
        return chain_scenario(n);
    }
    if scenario == "chain-3-distribution" {
        return chain_distribution_scenario(n);
    }
    if let Some(services) = scenario.strip_prefix("view-").and_then(|r| r.parse().ok()) {
        return view_scenario(services, n);
    }
    if let Some(rules) = scenario
        .strip_prefix("snapshot-load-")
        .and_then(|r| r.parse().ok())
    {
        return snapshot_load_scenario(rules);
    }
    if let Some(routes) = scenario
        .strip_prefix("decode-checked-")
        .and_then(|r| r.parse().ok())
    {
        return decode_checked_scenario(routes);
    }
    if let Some(patterns) = scenario
        .strip_prefix("regex-crate-set-")
        .and_then(|r| r.parse().ok())
    {
        return regex_crate_scenario(patterns);
    }
    if let Some(rules) = scenario
        .strip_prefix("snapshot-regex-mix-twice-")
        .and_then(|r| r.parse().ok())
    {
        return snapshot_regex_mix_scenario(rules, 2, false, false);
    }
    if let Some(rules) = scenario
        .strip_prefix("snapshot-regex-mix-rebuild-kept-")
        .and_then(|r| r.parse().ok())
    {
        return snapshot_regex_mix_scenario(rules, 2, true, true);
    }
    if let Some(rules) = scenario
        .strip_prefix("snapshot-regex-mix-rebuild-")
        .and_then(|r| r.parse().ok())
    {
        return snapshot_regex_mix_scenario(rules, 2, true, false);
    }
    if let Some(rules) = scenario
        .strip_prefix("snapshot-regex-mix-kept-")
        .and_then(|r| r.parse().ok())
    {
        return snapshot_regex_mix_scenario(rules, 1, false, true);
    }
    if let Some(rules) = scenario
        .strip_prefix("snapshot-regex-mix-")
        .and_then(|r| r.parse().ok())
    {
        return snapshot_regex_mix_scenario(rules, 1, false, false);
    }
    if let Some(routes) = scenario
        .strip_prefix("update-slice-")
        .and_then(|r| r.parse().ok())
    {
        return update_slice_scenario(routes, n);
    }
    for (prefix, change) in [
        ("update-default-", Change::Route),
        ("update-spread-default-", Change::Spread),
    ] {
        if let Some(routes) = scenario.strip_prefix(prefix).and_then(|r| r.parse().ok()) {
            return update_scenario(routes, n, change, BuildOptions::default());
        }
    }
    for (prefix, change) in [
        ("update-service-", Change::Service),
        ("update-spread-", Change::Spread),
        ("update-namespace-", Change::Namespace),
        ("update-listenerset-", Change::ListenerSet),
        ("update-policy-", Change::Policy),
        ("update-secret-", Change::Secret),
        ("update-status-", Change::Status),
        ("update-", Change::Route),
    ] {
        if let Some(routes) = scenario.strip_prefix(prefix).and_then(|r| r.parse().ok()) {
            let options = BuildOptions::default().with_keep_lowered_routes(true);
            return update_scenario(routes, n, change, options);
        }
    }
    if let Some(routes) = scenario
        .strip_prefix("snapshot-")
        .and_then(|r| r.parse().ok())
    {
        return snapshot_scenario(routes);
    }
    if let Some(routes) = scenario
        .strip_prefix("hostile-cold-")
        .and_then(|r| r.parse().ok())
    {
        return hostile_scenario(scenario, routes, n, true);
    }
    if let Some(routes) = scenario
        .strip_prefix("hostile-")
        .and_then(|r| r.parse().ok())
    {
        return hostile_scenario(scenario, routes, n, false);
    }
    for (prefix, set) in [
        ("regex-crate-match-", false),
        ("regex-crate-set-match-", true),
    ] {
        if let Some(patterns) = scenario.strip_prefix(prefix).and_then(|r| r.parse().ok()) {
            return regex_crate_match_scenario(patterns, n, set);
        }
    }
    for (prefix, kind) in [
        ("regex-mix-", MixRequest::PathHit),
        ("regex-only-", MixRequest::RegexHit),
        ("regex-404-", MixRequest::NotFound),
    ] {
        if let Some(rules) = scenario.strip_prefix(prefix).and_then(|r| r.parse().ok()) {
            return regex_scenario(scenario, rules, n, kind);
        }
    }
    for (prefix, kind) in [
        ("grpc-mix-", MixRequest::PathHit),
        ("grpc-only-", MixRequest::RegexHit),
        ("grpc-404-", MixRequest::NotFound),
    ] {
        if let Some(rules) = scenario.strip_prefix(prefix).and_then(|r| r.parse().ok()) {
            return grpc_scenario(scenario, rules, n, kind);
        }
    }
    // `one-port-<rules>` puts every rule on one Service port; `many-services[-<services>]`
    // gives each Service 5 rules (10,000 Services by default). The growth curve uses
    // one-port-1000 / -10000 / -100000.
    let count_after = |prefix: &str| scenario.strip_prefix(prefix).and_then(|n| n.parse().ok());
    let (input, services, rules) = if let Some(n) = count_after("many-services-") {
        (many_services(n, 5), n, 5)
    } else if scenario == "many-services" {
        (many_services(10_000, 5), 10_000, 5)
    } else {
        let n = count_after("one-port-").unwrap_or(10_000);
        (one_port(n), 1, n)
    };
    let table = RouteTable::from_input(&input, &BuildOptions::default());
    let mut rng = Rng::new(5);
    let reqs: Vec<(usize, String, String)> = (0..1024)
        .map(|_| {
            let j = rng.below(services);
            let i = if services == 1 {
                rng.below(rules)
            } else {
                j + rng.below(rules)
            };
            let (p, t) = one_port_request(i);
            (j, p, t)
        })
        .collect();
    let headers: Vec<[(&str, &str); 1]> = reqs
        .iter()
        .map(|(_, _, t)| [("x-tenant", t.as_str())])
        .collect();
    let view: Vec<Req<'_>> = reqs
        .iter()
        .zip(&headers)
        .map(|((j, p, _), h)| (svc_ip(*j), p.as_str(), h.as_slice()))
        .collect();
    let forwards = warm_then_run(&table, &view, n);
    println!("{scenario}: {n} resolves, {forwards} forwarded");
}
