//! Targeted cases: objects for the CEL rules the schema walk of [`super::generate`] does not
//! break or satisfy, because they need a combination of valid values it does not build (two
//! filters of one type each valid alone, a `replacePrefixMatch` rewrite beside a non-prefix
//! match, 129 matches, a listener protocol with a `tls` mode, two equal Hostname addresses, a
//! label key with a 253-character prefix). Each rule gets a case that breaks it and one that
//! satisfies it; the API server answers both, so neither is an expected result written here.
//! Every case is an ordinary [`Mutation`] applied to the kind's bases.

use serde_json::{Value, json};

use super::crd::Version;
use super::generate::{Members, Mutation, Op, Seg};

/// `spec.rules[0].filters` as segments (`[0]` is the first item, the only one a path names).
fn at(path: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    for part in path.split('.') {
        match part.strip_suffix("[0]") {
            Some(field) => {
                out.push(Seg::Field(field.to_owned()));
                out.push(Seg::Item);
            }
            None => out.push(Seg::Field(part.to_owned())),
        }
    }
    out
}

fn case(out: &mut Vec<Mutation>, path: &str, op: Op, what: &str) {
    out.push(Mutation {
        label: format!("{path}: targeted: {what}"),
        path: at(path),
        op,
    });
}

fn members(pairs: &[(&str, Option<Value>)]) -> Members {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

/// Whether the version's schema has the node at `path` (written as for [`at`]).
fn has(version: &Version, path: &str) -> bool {
    let mut s = &version.schema;
    for seg in at(path) {
        s = match seg {
            Seg::Field(k) => &s["properties"][k.as_str()],
            Seg::Item => &s["items"],
            Seg::Key => &s["additionalProperties"],
        };
    }
    s.is_object()
}

/// Every targeted case of one CRD version.
pub fn mutations(version: &Version) -> Vec<Mutation> {
    let mut out = Vec::new();
    rule_names(version, &mut out);
    backend_ports(version, &mut out);
    cluster_trust_bundles(version, &mut out);
    match version.kind.as_str() {
        "HTTPRoute" => http_route(version, &mut out),
        "GRPCRoute" => {
            filter_lists("GRPCRoute", &mut out);
            total_matches(
                &mut out,
                |j| json!({"method": {"service": format!("s{j}")}}),
            );
        }
        "Gateway" => {
            listeners(&mut out);
            listener_filters(version, &mut out);
            addresses(&mut out);
            infrastructure(&mut out);
        }
        "ListenerSet" => {
            listeners(&mut out);
            listener_filters(version, &mut out);
        }
        "BackendTLSPolicy" => trust_sources(&mut out, "spec.validation"),
        "XBackend" => {
            trust_sources(&mut out, "spec.tls.validation");
            // v1.7: an EndpointSelector backend, the only type that may have
            // `sessionPersistence`, alone and with each kind of persistence.
            let selector = json!({"matchLabels": {"app": "a"}});
            for (persistence, what) in [
                (None, "an EndpointSelector backend"),
                (
                    Some(json!({"type": "Cookie", "cookie": {"name": "s"}})),
                    "an EndpointSelector backend with cookie persistence",
                ),
                (
                    Some(json!({"type": "Header", "header": {"name": "x-s"}})),
                    "an EndpointSelector backend with header persistence",
                ),
            ] {
                if has(version, "spec.sessionPersistence") || persistence.is_none() {
                    let m = members(&[
                        ("type", Some(json!("EndpointSelector"))),
                        ("endpointSelector", Some(selector.clone())),
                        ("externalHostname", None),
                        ("sessionPersistence", persistence),
                    ]);
                    case(&mut out, "spec", Op::Members(m), what);
                }
            }
            // "tls must be disabled when protocol is H2C" (v1.7): the bases have `tls`.
            case(
                &mut out,
                "spec.protocol",
                Op::Set(json!("H2C")),
                "protocol H2C with tls",
            );
            // "Name must be a valid DNS label" holds only for "" (docs/validation.md).
            case(
                &mut out,
                "spec.port.name",
                Op::Set(json!("")),
                "an empty port name",
            );
            for (host, what) in [
                ("a.cluster.local", "a cluster-local hostname"),
                ("api.example.com", "an external hostname"),
            ] {
                case(
                    &mut out,
                    "spec.externalHostname.hostname",
                    Op::Set(json!(host)),
                    what,
                );
            }
        }
        _ => {}
    }
    out
}

/// Status cases, written to the status subresource (a create drops `status`): the CEL rules
/// of Gateway `status.addresses[]`.
pub fn status_mutations(version: &Version) -> Vec<Mutation> {
    let mut out = Vec::new();
    if version.kind != "Gateway" || !has(version, "status.addresses[0]") {
        return out;
    }
    for (ty, value, what) in [
        ("Hostname", "a_b", "a Hostname address with an underscore"),
        (
            "Hostname",
            "A.example.com",
            "a Hostname address in upper case",
        ),
        ("Hostname", "a.example.com", "a Hostname address"),
        ("Hostname", "", "an empty Hostname address"),
        ("IPAddress", "10.0.0.1", "an IPAddress address"),
        (
            "IPAddress",
            "a.example.com",
            "a hostname as an IPAddress address",
        ),
    ] {
        case(
            &mut out,
            "status.addresses",
            Op::Set(json!([{"type": ty, "value": value}])),
            what,
        );
    }
    // v1.7's `routability`: empty, `Cluster`, or a prefixed path outside `k8s.io`.
    if has(version, "status.addresses[0].routability") {
        for routability in [
            "Cluster",
            "example.com/public",
            "k8s.io/public",
            "a.k8s.io/b",
            "Public",
        ] {
            case(
                &mut out,
                "status.addresses",
                Op::Set(json!([{"type": "IPAddress", "value": "10.0.0.1",
                                "routability": routability}])),
                &format!("an address of routability {routability}"),
            );
        }
    }
    out
}

/// The nodes of the version's schema (written as for [`at`], `status` left out: a create drops
/// it) with a CEL rule whose message starts with `message`.
fn rule_nodes(version: &Version, message: &str) -> Vec<String> {
    fn walk(s: &Value, path: &str, message: &str, out: &mut Vec<String>) {
        let rules = s["x-kubernetes-validations"].as_array();
        if rules.is_some_and(|rs| {
            rs.iter().any(|r| {
                r["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with(message))
            })
        }) {
            out.push(path.to_owned());
        }
        if let Some(props) = s["properties"].as_object() {
            for (k, p) in props {
                if path.is_empty() && k == "status" {
                    continue;
                }
                let child = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                walk(p, &child, message, out);
            }
        }
        if s["items"].is_object() && !path.is_empty() {
            walk(&s["items"], &format!("{path}[0]"), message, out);
        }
    }
    let mut out = Vec::new();
    walk(&version.schema, "", message, &mut out);
    out
}

/// "Must not have port for Backend reference" (v1.7): every backendRef naming an XBackend,
/// with a port and without.
fn backend_ports(version: &Version, out: &mut Vec<Mutation>) {
    for path in rule_nodes(version, "Must not have port for Backend reference") {
        for (port, what) in [
            (Some(json!(80)), "an XBackend reference with a port"),
            (None, "an XBackend reference without a port"),
        ] {
            let m = members(&[
                ("group", Some(json!("gateway.networking.x-k8s.io"))),
                ("kind", Some(json!("XBackend"))),
                ("name", Some(json!("b"))),
                ("port", port),
            ]);
            case(out, &path, Op::Members(m), what);
        }
    }
}

/// "ClusterTrustBundle references must not specify namespace" (v1.7): a ClusterTrustBundle
/// reference with a namespace and without.
fn cluster_trust_bundles(version: &Version, out: &mut Vec<Mutation>) {
    for path in rule_nodes(version, "ClusterTrustBundle references must not") {
        for (namespace, what) in [
            (
                Some("ns"),
                "a ClusterTrustBundle reference with a namespace",
            ),
            (None, "a ClusterTrustBundle reference without a namespace"),
        ] {
            let mut r = json!({"group": "certificates.k8s.io", "kind": "ClusterTrustBundle",
                               "name": "ca"});
            if let Some(ns) = namespace {
                r["namespace"] = json!(ns);
            }
            case(out, &path, Op::Set(json!([r])), what);
        }
    }
}

/// Listener request filters (v1.7, on an HTTP listener): ExternalAuth of each protocol and
/// ExtensionRef, each valid alone.
fn listener_filters(version: &Version, out: &mut Vec<Mutation>) {
    if !has(version, "spec.listeners[0].filters") {
        return;
    }
    let auth = |protocol: &str, member: &str| {
        json!({"type": "ExternalAuth", "externalAuth": {
            "protocol": protocol, "backendRef": {"name": "auth", "port": 80}, member: {}}})
    };
    for (filter, what) in [
        (auth("HTTP", "http"), "an HTTP ExternalAuth listener filter"),
        (auth("GRPC", "grpc"), "a GRPC ExternalAuth listener filter"),
        (
            json!({"type": "ExtensionRef",
                   "extensionRef": {"group": "example.com", "kind": "Filter", "name": "f"}}),
            "an ExtensionRef listener filter",
        ),
    ] {
        let m = members(&[
            ("protocol", Some(json!("HTTP"))),
            ("tls", None),
            ("hostname", None),
            ("filters", Some(json!({"requests": [filter]}))),
        ]);
        case(out, "spec.listeners[0]", Op::Members(m), what);
    }
}

/// "Rule name must be unique within the route": two copies of the first rule with one name,
/// and with two names.
fn rule_names(version: &Version, out: &mut Vec<Mutation>) {
    if !has(version, "spec.rules[0].name") {
        return;
    }
    for (names, what) in [
        (["a", "a"], "two rules named a"),
        (["a", "b"], "rules a and b"),
    ] {
        let copies = names
            .iter()
            .map(|n| members(&[("name", Some(json!(n)))]))
            .collect();
        case(out, "spec.rules", Op::Copies(copies), what);
    }
}

/// Filters each valid alone: the first of each type is also sent twice (the CRDs allow one
/// of most types per list) and beside others; the rest satisfy the rules inside a filter
/// (CORS wildcards, mirror fractions, ExternalAuth protocols).
fn filters(kind: &str) -> Vec<(&'static str, Value)> {
    let mirror = |extra: Value| {
        let mut m = json!({"backendRef": {"name": "m", "port": 80}});
        if let (Some(m), Some(extra)) = (m.as_object_mut(), extra.as_object()) {
            m.extend(extra.clone());
        }
        json!({"type": "RequestMirror", "requestMirror": m})
    };
    let cors = |c: Value| json!({"type": "CORS", "cors": c});
    let auth = |protocol: &str, member: &str| {
        json!({"type": "ExternalAuth", "externalAuth": {
            "protocol": protocol, "backendRef": {"name": "auth", "port": 80}, member: {}}})
    };
    let mut out = vec![
        (
            "RequestHeaderModifier",
            json!({"type": "RequestHeaderModifier",
                   "requestHeaderModifier": {"add": [{"name": "x-a", "value": "b"}]}}),
        ),
        (
            "ResponseHeaderModifier",
            json!({"type": "ResponseHeaderModifier",
                   "responseHeaderModifier": {"add": [{"name": "x-a", "value": "b"}]}}),
        ),
        ("RequestMirror", mirror(json!({}))),
        (
            "RequestMirror",
            mirror(json!({"fraction": {"numerator": 1, "denominator": 2}})),
        ),
        (
            "RequestMirror",
            mirror(json!({"fraction": {"numerator": 3, "denominator": 2}})),
        ),
        ("RequestMirror", mirror(json!({"percent": 50}))),
    ];
    if kind == "HTTPRoute" {
        out.extend([
            (
                "RequestRedirect",
                json!({"type": "RequestRedirect", "requestRedirect": {"statusCode": 301}}),
            ),
            (
                "URLRewrite",
                json!({"type": "URLRewrite", "urlRewrite": {"hostname": "a.example.com"}}),
            ),
            (
                "CORS",
                cors(json!({"allowOrigins": ["https://a.example.com"]})),
            ),
            ("CORS", cors(json!({"allowMethods": ["GET"]}))),
            ("CORS", cors(json!({"allowMethods": ["*", "GET"]}))),
            ("CORS", cors(json!({"allowMethods": ["*"]}))),
            ("CORS", cors(json!({"allowHeaders": ["x-a"]}))),
            ("CORS", cors(json!({"allowHeaders": ["*", "x-a"]}))),
            ("CORS", cors(json!({"allowHeaders": ["*"]}))),
            ("ExternalAuth", auth("HTTP", "http")),
            ("ExternalAuth", auth("GRPC", "grpc")),
        ]);
    }
    out
}

/// The filter lists of a route rule and of its backendRef: each catalogue filter alone, the
/// first of each type twice, and pairs of types.
fn filter_lists(kind: &str, out: &mut Vec<Mutation>) {
    // Of a rule, and of a rule's backendRef (the rule's own filters removed, so that only the
    // backendRef's list is judged).
    type List = fn(Value) -> Members;
    let lists: [(&str, List); 2] = [
        ("rule filters", |list| members(&[("filters", Some(list))])),
        ("backendRef filters", |list| {
            members(&[
                ("filters", None),
                (
                    "backendRefs",
                    Some(json!([{"name": "s", "port": 80, "filters": list}])),
                ),
            ])
        }),
    ];
    let fs = filters(kind);
    for (where_, make) in lists {
        for (i, (name, f)) in fs.iter().enumerate() {
            case(
                out,
                "spec.rules[0]",
                Op::Members(make(json!([f]))),
                &format!("{where_}: {name} {f}"),
            );
            if fs.iter().position(|(n, _)| n == name) == Some(i) {
                case(
                    out,
                    "spec.rules[0]",
                    Op::Members(make(json!([f, f]))),
                    &format!("{where_}: {name} twice"),
                );
            }
        }
        let pick = |n: &str| fs.iter().find(|(k, _)| *k == n).map(|(_, f)| f.clone());
        for (a, b) in [
            ("RequestRedirect", "URLRewrite"),
            ("RequestHeaderModifier", "ResponseHeaderModifier"),
            ("CORS", "RequestMirror"),
        ] {
            if let (Some(fa), Some(fb)) = (pick(a), pick(b)) {
                case(
                    out,
                    "spec.rules[0]",
                    Op::Members(make(json!([fa, fb]))),
                    &format!("{where_}: {a} and {b}"),
                );
            }
        }
    }
}

fn http_route(version: &Version, out: &mut Vec<Mutation>) {
    filter_lists("HTTPRoute", out);

    // `replacePrefixMatch` needs exactly one PathPrefix match, for a rule's filters and for
    // its backendRefs' filters.
    let prefix = |v: &str| json!({"path": {"type": "PathPrefix", "value": v}});
    let match_sets = [
        ("one PathPrefix match", json!([prefix("/a")])),
        (
            "one Exact match",
            json!([{"path": {"type": "Exact", "value": "/a"}}]),
        ),
        (
            "two PathPrefix matches",
            json!([prefix("/a"), prefix("/c")]),
        ),
        (
            "one match without a path",
            json!([{"headers": [{"name": "x-a", "value": "b"}]}]),
        ),
        ("no matches", json!([])),
    ];
    for (filter, member) in [
        ("RequestRedirect", "requestRedirect"),
        ("URLRewrite", "urlRewrite"),
    ] {
        let f = json!({"type": filter, member: {"path": {
            "type": "ReplacePrefixMatch", "replacePrefixMatch": "/b"}}});
        for (what, matches) in &match_sets {
            let on_rule = members(&[
                ("filters", Some(json!([f]))),
                ("matches", Some(matches.clone())),
            ]);
            case(
                out,
                "spec.rules[0]",
                Op::Members(on_rule),
                &format!("{filter} replacePrefixMatch with {what}"),
            );
            let on_backend = members(&[
                ("filters", None),
                ("matches", Some(matches.clone())),
                (
                    "backendRefs",
                    Some(json!([{"name": "s", "port": 80, "filters": [f]}])),
                ),
            ]);
            case(
                out,
                "spec.rules[0]",
                Op::Members(on_backend),
                &format!("backendRef {filter} replacePrefixMatch with {what}"),
            );
        }
    }
    if has(version, "spec.rules[0].matches") {
        total_matches(
            out,
            |j| json!({"path": {"type": "PathPrefix", "value": format!("/a{j}")}}),
        );
    }
}

/// "the total number of matches across all rules in a route must be less than 128" (the rule
/// says `<= 128`): 64 + 64 and 64 + 64 + 1 matches.
fn total_matches(out: &mut Vec<Mutation>, item: fn(usize) -> Value) {
    for counts in [&[64, 64][..], &[64, 64, 1]] {
        let rules: Vec<Value> = counts
            .iter()
            .map(|&n| json!({"matches": (0..n).map(item).collect::<Vec<_>>()}))
            .collect();
        let total: usize = counts.iter().sum();
        case(
            out,
            "spec.rules",
            Op::Set(Value::Array(rules)),
            &format!("{total} matches in total"),
        );
    }
}

/// The listener rules on protocol, `tls` and `hostname` (Gateway and ListenerSet), each
/// combination on the first listener.
fn listeners(out: &mut Vec<Mutation>) {
    let terminate = json!({"mode": "Terminate", "certificateRefs": [{"name": "c"}]});
    let passthrough = json!({"mode": "Passthrough"});
    let host = json!("a.example.com");
    let combos: [(&str, Option<&Value>, Option<&Value>, &str); 12] = [
        (
            "HTTPS",
            Some(&passthrough),
            None,
            "HTTPS with tls mode Passthrough",
        ),
        (
            "HTTPS",
            Some(&terminate),
            Some(&host),
            "HTTPS with tls mode Terminate",
        ),
        ("TLS", None, Some(&host), "TLS without tls"),
        (
            "TLS",
            Some(&passthrough),
            Some(&host),
            "TLS with tls mode Passthrough",
        ),
        ("TLS", Some(&json!({})), Some(&host), "TLS with tls {}"),
        ("HTTP", Some(&terminate), None, "HTTP with tls"),
        (
            "HTTP",
            None,
            Some(&host),
            "HTTP with a hostname, without tls",
        ),
        ("TCP", Some(&terminate), None, "TCP with tls"),
        ("TCP", None, Some(&host), "TCP with a hostname"),
        ("TCP", None, None, "TCP without hostname or tls"),
        ("UDP", Some(&terminate), None, "UDP with tls"),
        ("UDP", None, Some(&host), "UDP with a hostname"),
    ];
    for (protocol, tls, hostname, what) in combos {
        let m = members(&[
            ("protocol", Some(json!(protocol))),
            ("tls", tls.cloned()),
            ("hostname", hostname.cloned()),
            ("allowedRoutes", None),
        ]);
        case(out, "spec.listeners[0]", Op::Members(m), what);
    }
}

/// Gateway `spec.addresses`: Hostname values, their characters and their uniqueness.
fn addresses(out: &mut Vec<Mutation>) {
    let hostname =
        |v: &str| members(&[("type", Some(json!("Hostname"))), ("value", Some(json!(v)))]);
    for (v, what) in [
        ("a_b", "a Hostname address with an underscore"),
        ("A.example.com", "a Hostname address in upper case"),
        ("a.example.com", "a Hostname address"),
        ("*.example.com", "a wildcard Hostname address"),
    ] {
        case(out, "spec.addresses[0]", Op::Members(hostname(v)), what);
    }
    for (values, what) in [
        (
            ["a.example.com", "a.example.com"],
            "two equal Hostname addresses",
        ),
        (
            ["a.example.com", "b.example.com"],
            "two different Hostname addresses",
        ),
    ] {
        let copies = values.iter().map(|v| hostname(v)).collect();
        case(out, "spec.addresses", Op::Copies(copies), what);
    }
}

/// A DNS subdomain of exactly `n` characters (labels of at most 63).
fn subdomain(n: usize) -> String {
    let mut s = String::with_capacity(n);
    while s.len() < n {
        if s.len() % 64 == 63 {
            s.push('.');
        } else {
            s.push('a');
        }
    }
    if s.ends_with('.') {
        s.pop();
        s.push('a');
    }
    s
}

/// Gateway `spec.infrastructure` label and annotation keys with a prefix of 252 and of 253
/// characters (the rule: shorter than 253).
fn infrastructure(out: &mut Vec<Mutation>) {
    for field in ["labels", "annotations"] {
        for n in [252, 253] {
            let key = format!("{}/a", subdomain(n));
            let m = members(&[(field, Some(json!({ key: "v" })))]);
            case(
                out,
                "spec.infrastructure",
                Op::Members(m),
                &format!("{field} key with a prefix of {n} characters"),
            );
        }
    }
}

/// BackendTLSPolicy (and XBackend `tls`) validation: `caCertificateRefs` and
/// `wellKnownCACertificates`, each alone, both and neither.
fn trust_sources(out: &mut Vec<Mutation>, path: &str) {
    let refs = json!([{"group": "", "kind": "ConfigMap", "name": "ca"}]);
    let system = json!("System");
    for (r, w, what) in [
        (
            Some(&refs),
            Some(&system),
            "caCertificateRefs and wellKnownCACertificates",
        ),
        (Some(&refs), None, "caCertificateRefs only"),
        (None, Some(&system), "wellKnownCACertificates only"),
        (
            None,
            None,
            "neither caCertificateRefs nor wellKnownCACertificates",
        ),
    ] {
        let m = members(&[
            ("caCertificateRefs", r.cloned()),
            ("wellKnownCACertificates", w.cloned()),
        ]);
        case(out, path, Op::Members(m), what);
    }
}
