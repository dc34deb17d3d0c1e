//! The defaulted IR: defaults applied as the API server would, duplicates dropped as the spec
//! requires, invalid rules dropped and reported.

use std::time::Duration;

use gamma_model::gateway::{self, ParentKind};
use gamma_model::ir::{self, HttpFilter, Method, PathMatch, RedirectStatus, ValueMatch};
use gamma_model::validate::{Channel, ValidateOptions};
use serde_json::{Value, json};

fn wire_http(spec: Value) -> gateway::HttpRoute {
    serde_json::from_value(json!({
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
        "metadata": {"name": "r", "namespace": "shop"},
        "spec": spec,
    }))
    .unwrap()
}

fn http(spec: Value) -> ir::HttpRoute {
    ir::HttpRoute::from_wire(&wire_http(spec)).unwrap()
}

fn std_opts() -> ValidateOptions {
    ValidateOptions::default()
}

// Gateway API HTTPRouteRule.matches: omitted rules, matches and path all become PathPrefix /.
#[test]
fn omitted_rules_matches_and_path_default_to_prefix_root() {
    let r = http(json!({}));
    assert_eq!(r.rules.len(), 1);
    assert_eq!(r.rules[0].matches.len(), 1);
    assert_eq!(r.rules[0].matches[0].path, PathMatch::root());
    assert!(r.rules[0].backend_refs.is_empty());

    let r = http(json!({"rules": [{"backendRefs": [{"name": "s", "port": 80}]}]}));
    assert_eq!(r.rules[0].matches[0].path, PathMatch::root());

    let r = http(json!({"rules": [{"matches": [{"headers": [{"name": "v", "value": "1"}]}]}]}));
    let m = &r.rules[0].matches[0];
    assert_eq!(m.path, PathMatch::root());
    assert_eq!(m.headers.len(), 1);
}

// Gateway API HTTPPathMatch: a PathPrefix trailing slash is dropped (the root stays), Exact keeps
// it.
#[test]
fn path_prefix_is_normalised_and_exact_kept() {
    let r = http(json!({"rules": [{"matches": [
        {"path": {"type": "PathPrefix", "value": "/match/"}},
        {"path": {"value": "/"}},
        {"path": {"type": "Exact", "value": "/abc/"}},
        {"path": {"type": "RegularExpression", "value": "/a.*"}}]}]}));
    let paths: Vec<String> = r.rules[0]
        .matches
        .iter()
        .map(|m| m.path.to_string())
        .collect();
    assert_eq!(
        paths,
        [
            "PathPrefix /match",
            "PathPrefix /",
            "Exact /abc/",
            "RegularExpression /a.*"
        ]
    );
}

// Gateway API HTTPHeaderMatch: header names lower-cased; only the first of case-insensitive
// duplicates.
#[test]
fn header_matches_keep_first_of_case_insensitive_duplicates() {
    let r = http(json!({"rules": [{"matches": [{"headers": [
        {"name": "X-Version", "value": "one"},
        {"name": "x-version", "value": "two"},
        {"type": "RegularExpression", "name": "Accept", "value": "text/.*"}]}]}]}));
    let h = &r.rules[0].matches[0].headers;
    assert_eq!(h.len(), 2);
    assert_eq!(h[0].name.as_str(), "x-version");
    assert_eq!(h[0].value, ValueMatch::Exact("one".into()));
    assert_eq!(h[1].name.as_str(), "accept");
    assert_eq!(h[1].value, ValueMatch::RegularExpression("text/.*".into()));
}

// A valid route's paths and header names are not checked a second time during conversion;
// a partially invalid route's valid rules are converted with every check. Both must give the
// same rule.
#[test]
fn valid_and_partially_invalid_routes_convert_a_rule_alike() {
    let rule = json!({"matches": [
        {"path": {"type": "PathPrefix", "value": "/v2/"},
         "headers": [{"name": "X-Version", "value": "one"}, {"name": "x-version", "value": "2"}]},
        {"path": {"type": "Exact", "value": "/abc/"}, "headers": [{"name": "Accept", "value": "a"}]}],
        "backendRefs": [{"name": "s", "port": 80}]});
    let valid = http(json!({"rules": [rule.clone()]}));
    let wire = wire_http(json!({"rules": [rule, {"matches": [{"path": {"value": "/a/.."}}]}]}));
    let partial = ir::HttpRoute::from_wire_partial(&wire, &std_opts()).unwrap();
    assert_eq!(partial.dropped.len(), 1);
    assert_eq!(partial.value.rules, valid.rules);
    let m = &valid.rules[0].matches;
    assert_eq!(m[0].path.to_string(), "PathPrefix /v2");
    assert_eq!(m[0].headers.len(), 1);
    assert_eq!(m[0].headers[0].name.as_str(), "x-version");
    assert_eq!(m[1].path.to_string(), "Exact /abc/");
    assert_eq!(m[1].headers[0].name.as_str(), "accept");
}

// Gateway API HTTPQueryParamMatch: query names are case-sensitive; only the first of equal names
// counts. The API server rejects exact repeats, so only case variants reach the IR, and both are
// kept.
#[test]
fn query_param_names_are_case_sensitive() {
    let r = http(json!({"rules": [{"matches": [{"queryParams": [
        {"name": "Q", "value": "a"}, {"name": "q", "value": "b"}]}]}]}));
    let q = &r.rules[0].matches[0].query_params;
    assert_eq!(q.len(), 2);
    assert_eq!((q[0].name.as_str(), q[1].name.as_str()), ("Q", "q"));
}

// Gateway API HTTPRouteMatch.method: methods convert to the closed enum.
#[test]
fn methods_convert_to_the_closed_enum() {
    let r = http(json!({"rules": [{"matches": [{"method": "PATCH"}]}]}));
    assert_eq!(r.rules[0].matches[0].method, Some(Method::Patch));
    assert_eq!(Method::Patch.as_str(), "PATCH");
}

// Gateway API BackendObjectReference and BackendRef.weight: backend defaults: core group, Service
// kind, route namespace, weight 1.
#[test]
fn backend_refs_get_group_kind_namespace_and_weight_defaults() {
    let r = http(json!({"rules": [{"backendRefs": [
        {"name": "a", "port": 80},
        {"name": "b", "namespace": "other", "port": 8080, "weight": 0},
        {"group": "example.com", "kind": "Bucket", "name": "c"}]}]}));
    let b: Vec<_> = r.rules[0].backend_refs.iter().map(|b| &b.backend).collect();
    assert_eq!(b[0].target.group, "");
    assert_eq!(b[0].target.kind, "Service");
    assert_eq!(&*b[0].target.namespace, "shop");
    assert_eq!(b[0].target.port, Some(80));
    assert_eq!(b[0].weight, 1);
    assert!(b[0].target.is_service());
    assert_eq!((&*b[1].target.namespace, b[1].weight), ("other", 0));
    assert!(b[1].target.is_cross_namespace("shop"));
    assert!(!b[2].target.is_service());
    assert_eq!(b[2].target.port, None);
    assert_eq!(
        (&*b[2].target.group, &*b[2].target.kind),
        ("example.com", "Bucket")
    );
}

// The defaults every backendRef of a typical route has are borrowed, not allocated per
// backendRef; other values are the route's own.
#[test]
fn backend_group_and_service_kind_are_borrowed() {
    use std::borrow::Cow;
    let r = http(json!({"rules": [{"backendRefs": [
        {"name": "a", "port": 80},
        {"group": "", "kind": "Service", "name": "b", "port": 80},
        {"group": "example.com", "kind": "Bucket", "name": "c"}]}]}));
    let t: Vec<_> = r.rules[0]
        .backend_refs
        .iter()
        .map(|b| &b.backend.target)
        .collect();
    for target in &t[..2] {
        assert!(matches!(target.group, Cow::Borrowed("")));
        assert!(matches!(target.kind, Cow::Borrowed("Service")));
    }
    assert!(matches!(t[2].group, Cow::Owned(_)));
    assert!(matches!(t[2].kind, Cow::Owned(_)));
}

// Gateway API BackendObjectReference.namespace: omitted means the route's namespace. Every
// backendRef that omits it, in any rule, holds the route's one shared string; a written
// namespace is its own, even when it names the route's namespace.
#[test]
fn defaulted_backend_namespaces_share_the_routes_string() {
    use std::sync::Arc;
    let r = http(json!({"rules": [
        {"backendRefs": [{"name": "a", "port": 80}, {"name": "b", "port": 80}]},
        {"backendRefs": [{"name": "c", "port": 80}, {"name": "d", "namespace": "shop", "port": 80}]}]}));
    let ns: Vec<&Arc<str>> = r
        .rules
        .iter()
        .flat_map(|rule| &rule.backend_refs)
        .map(|b| &b.backend.target.namespace)
        .collect();
    assert!(ns.iter().all(|n| &***n == "shop"));
    assert!(Arc::ptr_eq(ns[0], ns[1]));
    assert!(Arc::ptr_eq(ns[0], ns[2]));
    assert!(!Arc::ptr_eq(ns[0], ns[3]));
}

// Gateway API ParentReference: an omitted parentRef group means gateway.networking.k8s.io.
#[test]
fn parent_ref_group_default_keeps_the_service_trap() {
    let r = http(json!({"parentRefs": [
        {"kind": "Service", "name": "x"},
        {"group": "", "kind": "Service", "name": "y", "port": 80, "controllers": ["a.io/mesh"]},
        {"name": "gw", "namespace": "infra"}]}));
    let p = &r.parent_refs;
    assert_eq!(p[0].group, "gateway.networking.k8s.io");
    assert_eq!(p[0].parent_kind(), ParentKind::Other);
    assert_eq!(p[1].parent_kind(), ParentKind::Service);
    assert_eq!(p[1].namespace, "shop");
    assert_eq!(p[1].port, Some(80));
    assert_eq!(p[1].controllers, ["a.io/mesh"]);
    assert_eq!(p[2].parent_kind(), ParentKind::Gateway);
    assert_eq!(p[2].kind, "Gateway");
    assert_eq!(p[2].namespace, "infra");
    assert_eq!(p.iter().map(|p| p.index).collect::<Vec<_>>(), [0, 1, 2]);
}

// Gateway API HTTPRequestRedirectFilter: redirect status defaults to 302; scheme ports.
#[test]
fn redirect_defaults_to_302() {
    let r = http(json!({"rules": [{"filters": [
        {"type": "RequestRedirect", "requestRedirect": {"scheme": "https", "hostname": "a.example.com",
         "path": {"type": "ReplaceFullPath", "replaceFullPath": "/x"}}}]}]}));
    let HttpFilter::RequestRedirect(rd) = &r.rules[0].filters[0] else {
        panic!("not a redirect")
    };
    assert_eq!(rd.status, RedirectStatus::Found);
    assert_eq!(rd.status.code(), 302);
    assert_eq!(rd.scheme.map(|s| s.default_port()), Some(443));
    assert_eq!(
        rd.hostname.as_ref().map(|h| h.as_str()),
        Some("a.example.com")
    );
    assert_eq!(rd.port, None);
}

// Gateway API HTTPRequestMirrorFilter: a mirror with neither percent nor fraction mirrors
// everything.
#[test]
fn mirror_fraction_defaults() {
    let mirror = |extra: Value| {
        let mut cfg = json!({"backendRef": {"name": "m", "port": 80}});
        for (k, v) in extra.as_object().unwrap() {
            cfg[k] = v.clone();
        }
        let r = http(
            json!({"rules": [{"filters": [{"type": "RequestMirror", "requestMirror": cfg}]}]}),
        );
        match &r.rules[0].filters[0] {
            HttpFilter::RequestMirror(m) => (m.fraction, m.target.namespace.to_string()),
            other => panic!("{other:?}"),
        }
    };
    let (all, ns) = mirror(json!({}));
    assert_eq!((all.numerator, all.denominator), (100, 100));
    assert_eq!(ns, "shop");
    let (p, _) = mirror(json!({"percent": 25}));
    assert_eq!((p.numerator, p.denominator), (25, 100));
    let (q, _) = mirror(json!({"fraction": {"numerator": 1, "denominator": 3}}));
    assert_eq!((q.numerator, q.denominator), (1, 3));
    let (d, _) = mirror(json!({"fraction": {"numerator": 7}}));
    assert_eq!((d.numerator, d.denominator), (7, 100));
}

// Gateway API HTTPCORSFilter: CORS maxAge defaults to 5, credentials to false.
#[test]
fn cors_defaults() {
    let r =
        http(json!({"rules": [{"filters": [{"type": "CORS", "cors": {"allowOrigins": ["*"]}}]}]}));
    let HttpFilter::Cors(c) = &r.rules[0].filters[0] else {
        panic!()
    };
    assert_eq!((c.max_age, c.allow_credentials), (5, false));
}

// GEP-1742 timeouts; GEP-2257 durations: durations sum their components; 0s is kept as zero.
#[test]
fn timeouts_convert_to_durations() {
    let r =
        http(json!({"rules": [{"timeouts": {"request": "1h2h20m10m", "backendRequest": "0s"}}]}));
    let t = r.rules[0].timeouts.unwrap();
    assert_eq!(t.request, Some(Duration::from_secs(3 * 3600 + 30 * 60)));
    assert_eq!(t.backend_request, Some(Duration::ZERO));
}

// Gateway API HTTPRouteRule.filters: an invalid rule drops only that rule (PartiallyInvalid); the
// route keeps the others with their original indexes.
#[test]
fn partial_conversion_drops_only_invalid_rules() {
    let wire = wire_http(json!({"rules": [
        {"name": "good", "backendRefs": [{"name": "a", "port": 80}]},
        {"name": "bad", "backendRefs": [{"name": "b"}]},
        {"filters": [{"type": "FancyNew", "fancyNew": {}}]},
        {"matches": [{"path": {"type": "Exact", "value": "/ok"}}]}]}));
    assert!(ir::HttpRoute::from_wire(&wire).is_err());
    let p = ir::HttpRoute::from_wire_partial(&wire, &std_opts()).unwrap();
    assert!(p.is_partially_invalid());
    let kept: Vec<usize> = p.value.rules.iter().map(|r| r.index).collect();
    assert_eq!(kept, [0, 3]);
    let dropped: Vec<(usize, Option<&str>, bool)> = p
        .dropped
        .iter()
        .map(|d| (d.index, d.name.as_deref(), d.is_unsupported_value()))
        .collect();
    assert_eq!(dropped, [(1, Some("bad"), false), (2, None, true)]);
    assert!(
        p.dropped[0]
            .errors
            .has_error_at("spec.rules[1].backendRefs[0]")
    );
}

// Gateway API HTTPRouteRule.filters: "If all Route Rules in a Route are invalid, the entire
// Route would be considered invalid". The conversion still answers rule by rule (each dropped
// rule with its own errors), so that an engine reports every rule's reason, as for a partially
// invalid route; a route-level error is still an error.
#[test]
fn partial_conversion_reports_each_rule_when_every_rule_is_invalid() {
    let wire = wire_http(json!({"rules": [
        {"backendRefs": [{"name": "b"}]},
        {"matches": [{"path": {"value": "/a/.."}}]}]}));
    let p = ir::HttpRoute::from_wire_partial(&wire, &std_opts()).unwrap();
    assert!(p.all_rules_dropped());
    assert!(p.value.rules.is_empty());
    let dropped: Vec<usize> = p.dropped.iter().map(|d| d.index).collect();
    assert_eq!(dropped, [0, 1]);
    assert!(
        p.dropped[0]
            .errors
            .has_error_at("spec.rules[0].backendRefs[0]")
    );
    assert!(
        !p.dropped[0]
            .errors
            .has_error_at("spec.rules[1].matches[0].path.value")
    );
    assert!(
        p.dropped[1]
            .errors
            .has_error_at("spec.rules[1].matches[0].path.value")
    );
    // the same for the other kinds
    let grpc: gateway::GrpcRoute = serde_json::from_value(json!({
        "metadata": {"name": "g", "namespace": "shop"},
        "spec": {"rules": [{"backendRefs": [{"name": "b"}]}]}}))
    .unwrap();
    let p = ir::GrpcRoute::from_wire_partial(&grpc, &std_opts()).unwrap();
    assert!(p.all_rules_dropped() && p.value.rules.is_empty());
    let tcp: gateway::TcpRoute = serde_json::from_value(json!({
        "metadata": {"name": "t", "namespace": "shop"},
        "spec": {"rules": [{"backendRefs": [{"name": "b"}]}]}}))
    .unwrap();
    let p = ir::TcpRoute::from_wire_partial(&tcp, &std_opts()).unwrap();
    assert!(p.all_rules_dropped() && p.value.rules.is_empty());
    // a valid route keeps its rules and drops none
    let ok = wire_http(json!({"rules": [{"backendRefs": [{"name": "b", "port": 80}]}]}));
    let p = ir::HttpRoute::from_wire_partial(&ok, &std_opts()).unwrap();
    assert!(!p.all_rules_dropped() && !p.is_partially_invalid());
}

// Route-level errors (metadata, parentRefs, hostnames, totals) reject the whole route.
#[test]
fn partial_conversion_fails_on_route_level_errors() {
    for spec in [
        json!({"hostnames": ["Bad"], "rules": [{}]}),
        json!({"parentRefs": [{"name": "gw"}, {"name": "gw"}], "rules": [{}]}),
        json!({"rules": []}),
    ] {
        assert!(
            ir::HttpRoute::from_wire_partial(&wire_http(spec.clone()), &std_opts()).is_err(),
            "{spec}"
        );
    }
}

// Gateway API experimental channel: channel matters for the IR too (ExternalAuth is experimental).
#[test]
fn conversion_follows_the_channel() {
    let wire = wire_http(json!({"rules": [
        {"backendRefs": [{"name": "a", "port": 80}]},
        {"filters": [{"type": "ExternalAuth", "externalAuth": {
            "protocol": "GRPC", "backendRef": {"name": "auth", "port": 9000}, "grpc": {}}}]}]}));
    let std = ir::HttpRoute::from_wire_partial(&wire, &std_opts()).unwrap();
    assert_eq!(std.dropped.len(), 1);
    let exp =
        ir::HttpRoute::from_wire_with(&wire, &ValidateOptions::channel(Channel::Experimental))
            .unwrap();
    assert!(matches!(
        exp.rules[1].filters[0],
        HttpFilter::ExternalAuth(_)
    ));
}

// A single rule converts on its own (for engines re-checking one rule).
#[test]
fn single_rule_conversion() {
    let rule: gateway::HttpRouteRule = serde_json::from_value(json!({
        "matches": [{"path": {"type": "PathPrefix", "value": "/v2/"}}],
        "backendRefs": [{"name": "a", "port": 80}]}))
    .unwrap();
    let r = ir::HttpRule::from_wire(&rule, 3, "shop", &std_opts()).unwrap();
    assert_eq!(r.index, 3);
    assert_eq!(r.matches[0].path.to_string(), "PathPrefix /v2");
    let bad: gateway::HttpRouteRule =
        serde_json::from_value(json!({"backendRefs": [{"name": "a"}]})).unwrap();
    let e = ir::HttpRule::from_wire(&bad, 3, "shop", &std_opts()).unwrap_err();
    assert!(e.has_error_at("spec.rules[3].backendRefs[0]"));
}

// Gateway API GRPCRouteRule.matches: a GRPCRoute rule without matches matches every request.
#[test]
fn grpc_rule_without_matches_matches_everything() {
    let wire: gateway::GrpcRoute = serde_json::from_value(json!({
        "metadata": {"name": "g", "namespace": "shop"},
        "spec": {"rules": [
            {"backendRefs": [{"name": "a", "port": 50051}]},
            {"matches": [{"method": {"service": "helloworld.Greeter"},
                          "headers": [{"name": "A", "value": "1"}, {"name": "a", "value": "2"}]}]}]}}))
    .unwrap();
    let r = ir::GrpcRoute::from_wire(&wire).unwrap();
    assert_eq!(r.rules[0].matches.len(), 1);
    assert_eq!(r.rules[0].matches[0].method, None);
    assert!(r.rules[0].matches[0].headers.is_empty());
    let m = &r.rules[1].matches[0];
    assert_eq!(
        m.method.as_ref().and_then(|m| m.service.as_deref()),
        Some("helloworld.Greeter")
    );
    assert_eq!(m.headers.len(), 1);
    let empty: gateway::GrpcRoute =
        serde_json::from_value(json!({"metadata": {"name": "g"}, "spec": {}})).unwrap();
    assert!(ir::GrpcRoute::from_wire(&empty).unwrap().rules.is_empty());
}

// TLSRoute, TCPRoute and UDPRoute CRDs v1.6.1: L4 routes convert their single rule and (TLS)
// hostnames.
#[test]
fn l4_routes_convert() {
    let tls: gateway::TlsRoute = serde_json::from_value(json!({
        "metadata": {"name": "t", "namespace": "shop"},
        "spec": {"hostnames": ["*.example.com"], "rules": [{"backendRefs": [{"name": "a", "port": 443, "weight": 5}]}]}}))
    .unwrap();
    let r = ir::TlsRoute::from_wire(&tls).unwrap();
    assert!(r.hostnames[0].is_wildcard());
    assert_eq!(r.rules[0].backend_refs[0].weight, 5);
    let tcp: gateway::TcpRoute = serde_json::from_value(json!({
        "metadata": {"name": "t"}, "spec": {"rules": [{"backendRefs": [{"name": "a"}]}]}}))
    .unwrap();
    let e = ir::TcpRoute::from_wire(&tcp).unwrap_err();
    assert!(e.has_error_at("spec.rules[0].backendRefs[0]"));
    let udp: gateway::UdpRoute = serde_json::from_value(json!({
        "metadata": {"name": "u"}, "spec": {"rules": [{"backendRefs": [{"name": "a", "port": 53}]}]}}))
    .unwrap();
    let u = ir::UdpRoute::from_wire(&udp).unwrap();
    assert_eq!(u.namespace, "default");
    assert_eq!(u.rules[0].backend_refs[0].target.port, Some(53));
}

// Gateway API HTTPHeaderFilter: `remove` entries have no pattern upstream; non-token entries are
// accepted by validation and left out of the IR (they cannot name a header).
#[test]
fn header_remove_entries_that_cannot_name_a_header_are_ignored() {
    let r = http(
        json!({"rules": [{"filters": [{"type": "RequestHeaderModifier",
        "requestHeaderModifier": {"remove": ["X-A", "not a header", ""]}}]}]}),
    );
    let HttpFilter::RequestHeaderModifier(m) = &r.rules[0].filters[0] else {
        panic!()
    };
    let names: Vec<&str> = m.remove.iter().map(|n| n.as_str()).collect();
    assert_eq!(names, ["x-a"]);
}

// Gateway API HTTPRoute hostnames precedence: non-wildcard characters first, then all characters.
#[test]
fn hostname_precedence_prefers_exact_names() {
    let exact = ir::Hostname::new("a.example.com").unwrap();
    let wild = ir::Hostname::new("*.example.com").unwrap();
    assert_eq!(exact.precedence_key(), (13, 13));
    assert_eq!(wild.precedence_key(), (0, 13));
    assert!(exact.precedence_key() > wild.precedence_key());
}

// A single GRPCRoute rule converts on its own.
#[test]
fn single_grpc_rule_conversion() {
    let rule: gateway::GrpcRouteRule = serde_json::from_value(json!({
        "matches": [{"method": {"service": "a.B", "method": "C"}}],
        "backendRefs": [{"name": "a", "port": 80}]}))
    .unwrap();
    let r = ir::GrpcRule::from_wire(&rule, 1, "shop", &std_opts()).unwrap();
    assert_eq!(r.index, 1);
    assert_eq!(&*r.backend_refs[0].backend.target.namespace, "shop");
    let bad: gateway::GrpcRouteRule =
        serde_json::from_value(json!({"matches": [{"method": {"type": "Exact"}}]})).unwrap();
    let e = ir::GrpcRule::from_wire(&bad, 1, "shop", &std_opts()).unwrap_err();
    assert!(e.has_error_at("spec.rules[1].matches[0].method"));
}

// Gateway API HTTPRouteRule.filters: incompatible filters may be reported with reason
// IncompatibleFilters; the CEL rules on filter combinations say which errors those are.
#[test]
fn filter_combination_errors_are_marked_incompatible_filters() {
    let redirect = json!({"type": "RequestRedirect", "requestRedirect": {"statusCode": 301}});
    let rewrite = json!({"type": "URLRewrite", "urlRewrite": {"hostname": "a.example"}});
    for (rule, incompatible) in [
        (json!({"filters": [redirect.clone(), rewrite]}), true),
        (
            json!({"filters": [redirect], "backendRefs": [{"name": "b", "port": 80}]}),
            true,
        ),
        (json!({"matches": [{"path": {"value": "/a/.."}}]}), false),
    ] {
        let e = ir::HttpRoute::from_wire(&wire_http(json!({"rules": [rule.clone()]}))).unwrap_err();
        assert_eq!(
            e.errors().iter().any(|e| e.is_incompatible_filters()),
            incompatible,
            "{rule}: {e}"
        );
    }
}
