//! One table-driven test per validation rule: accepted and rejected values, including the edges.
//! Each test cites the upstream Gateway API source it pins; the limits come from the v1.6.1 CRDs.

use gamma_model::validate::{Bundle, Channel, ErrorKind, Release, ValidateOptions};
use gamma_model::{AnyResource, Validate, ValidationErrors};
use serde_json::{Value, json};

const STD: Channel = Channel::Standard;
const EXP: Channel = Channel::Experimental;

fn object(api_version: &str, kind: &str, spec: Value) -> AnyResource {
    let v = json!({
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "r", "namespace": "ns"},
        "spec": spec,
    });
    let text = serde_json::to_string(&v).unwrap();
    let mut objects = gamma_model::decode(&text).unwrap();
    assert_eq!(objects.len(), 1);
    objects.remove(0)
}

fn http(spec: Value) -> AnyResource {
    object("gateway.networking.k8s.io/v1", "HTTPRoute", spec)
}

/// An HTTPRoute with one rule.
fn http_rule(rule: Value) -> AnyResource {
    http(json!({"rules": [rule]}))
}

fn grpc(spec: Value) -> AnyResource {
    object("gateway.networking.k8s.io/v1", "GRPCRoute", spec)
}

fn gateway(spec: Value) -> AnyResource {
    object("gateway.networking.k8s.io/v1", "Gateway", spec)
}

fn gateway_listeners(listeners: Value) -> AnyResource {
    gateway(json!({"gatewayClassName": "c", "listeners": listeners}))
}

/// A channel of the newest release, or a whole bundle (release and channel).
trait Under: Copy + std::fmt::Debug {
    fn options(self) -> ValidateOptions;
}

impl Under for Channel {
    fn options(self) -> ValidateOptions {
        ValidateOptions::channel(self)
    }
}

impl Under for Bundle {
    fn options(self) -> ValidateOptions {
        ValidateOptions::bundle(self)
    }
}

const V1_6_STD: Bundle = Bundle::new(Release::V1_6, Channel::Standard);
const V1_6_EXP: Bundle = Bundle::new(Release::V1_6, Channel::Experimental);

fn run(o: &AnyResource, channel: impl Under) -> Result<(), ValidationErrors> {
    o.validate_with(&channel.options())
}

#[track_caller]
fn accepted(o: AnyResource, channel: impl Under) {
    if let Err(e) = run(&o, channel) {
        panic!("expected {channel:?} to accept, got: {e}");
    }
}

#[track_caller]
fn rejected_at(o: AnyResource, channel: impl Under, path: &str) -> ValidationErrors {
    match run(&o, channel) {
        Ok(()) => panic!("expected {channel:?} to reject at {path}, but it was accepted"),
        Err(e) => {
            assert!(
                e.has_error_at(path),
                "expected an error at {path}, got: {e}"
            );
            e
        }
    }
}

#[track_caller]
fn rejected_with(o: AnyResource, channel: impl Under, path: &str, message: &str) {
    let e = rejected_at(o, channel, path);
    assert!(
        e.errors()
            .iter()
            .any(|x| x.path.as_str() == path && x.kind.to_string().contains(message)),
        "expected {message:?} at {path}, got: {e}"
    );
}

fn svc_backend(name: &str) -> Value {
    json!({"name": name, "port": 80})
}

fn n_matches(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"path": {"type": "PathPrefix", "value": format!("/p{i}")}}))
            .collect(),
    )
}

// ---------------------------------------------------------------------------------------------
// HTTPRoute: spec-level limits (HTTPRoute CRD v1.6.1)

// HTTPRoute CRD v1.6.1; HTTPRoute CRD total-matches rule: the total-matches CEL checks <= 128 (its
// message says "less than").
#[test]
fn total_matches_at_most_128_across_rules() {
    let rules = |counts: &[usize]| {
        Value::Array(
            counts
                .iter()
                .map(|&n| json!({"matches": n_matches(n)}))
                .collect(),
        )
    };
    accepted(http(json!({"rules": rules(&[64, 64])})), STD);
    accepted(http(json!({"rules": rules(&[64, 63, 1])})), STD);
    rejected_with(
        http(json!({"rules": rules(&[64, 64, 1])})),
        STD,
        "spec.rules",
        "total number of matches",
    );
    // An omitted `matches` counts as its one default match.
    rejected_with(
        http(json!({"rules": [{"matches": n_matches(64)}, {"matches": n_matches(64)}, {}]})),
        STD,
        "spec.rules",
        "less than 128",
    );
}

// HTTPRoute CRD v1.6.1: rules 1–16, omitted is defaulted, `[]` is rejected.
#[test]
fn rules_between_1_and_16_and_empty_list_rejected() {
    let rules = |n: usize| Value::Array((0..n).map(|_| json!({})).collect());
    accepted(http(json!({})), STD);
    accepted(http(json!({"rules": rules(1)})), STD);
    accepted(http(json!({"rules": rules(16)})), STD);
    rejected_at(http(json!({"rules": rules(17)})), STD, "spec.rules");
    let e = rejected_at(http(json!({"rules": []})), STD, "spec.rules");
    assert!(matches!(e.errors()[0].kind, ErrorKind::TooFew { min: 1 }));
}

// HTTPRoute CRD v1.6.1: matches per rule at most 64.
#[test]
fn matches_per_rule_at_most_64() {
    accepted(http_rule(json!({"matches": n_matches(64)})), STD);
    rejected_at(
        http_rule(json!({"matches": n_matches(65)})),
        STD,
        "spec.rules[0].matches",
    );
}

// HTTPRoute CRD v1.6.1: hostnames at most 16, each a Hostname.
#[test]
fn route_hostnames_at_most_16_valid_hostnames() {
    let hosts =
        |n: usize| Value::Array((0..n).map(|i| json!(format!("h{i}.example.com"))).collect());
    accepted(http(json!({"hostnames": hosts(16)})), STD);
    rejected_at(http(json!({"hostnames": hosts(17)})), STD, "spec.hostnames");
    accepted(http(json!({"hostnames": ["*.example.com"]})), STD);
    for bad in ["Example.com", "*", "a..b", "http://a<", "foo.com:80", ""] {
        rejected_at(http(json!({"hostnames": [bad]})), STD, "spec.hostnames[0]");
    }
}

// ---------------------------------------------------------------------------------------------
// Matches (Gateway API HTTPPathMatch, HTTPHeaderMatch, HTTPQueryParamMatch and
// HTTPRouteMatch.method)

// Gateway API HTTPPathMatch: the path value CEL rules for Exact and PathPrefix.
#[test]
fn path_value_rules_for_exact_and_prefix() {
    let m = |t: &str, v: &str| http_rule(json!({"matches": [{"path": {"type": t, "value": v}}]}));
    for ok in [
        "/",
        "/a/b",
        "/a..b",
        "/.well-known/x",
        "/a%20b",
        "/@:;=!$&'()*+,",
    ] {
        accepted(m("Exact", ok), STD);
        accepted(m("PathPrefix", ok), STD);
    }
    let cases = [
        ("a", "start with '/'"),
        ("/a//b", "'//'"),
        ("/a/./b", "'/./'"),
        ("/a/../b", "'/../'"),
        ("/a%2fb", "'%2f'"),
        ("/a%2Fb", "'%2F'"),
        ("/a#b", "'#'"),
        ("/a/..", "end with '/..'"),
        ("/a/.", "end with '/.'"),
        ("/[]", "valid characters"),
        ("/a b", "valid characters"),
        ("/%zz", "valid characters"),
    ];
    for (bad, msg) in cases {
        for t in ["Exact", "PathPrefix"] {
            rejected_with(m(t, bad), STD, "spec.rules[0].matches[0].path.value", msg);
        }
    }
    // The CEL rules do not apply to regular expressions.
    accepted(m("RegularExpression", "^/a/.*$"), STD);
    // Length limit 1024 applies to all types.
    let long = format!("/{}", "a".repeat(1023));
    accepted(m("PathPrefix", &long), STD);
    rejected_at(
        m("PathPrefix", &format!("{long}a")),
        STD,
        "spec.rules[0].matches[0].path.value",
    );
}

// Gateway API HTTPPathMatch: an unknown path type is UnsupportedValue at the field.
#[test]
fn unknown_path_type_is_unsupported_value() {
    let e = rejected_at(
        http_rule(json!({"matches": [{"path": {"type": "Glob", "value": "/*"}}]})),
        STD,
        "spec.rules[0].matches[0].path.type",
    );
    assert!(e.errors()[0].is_unsupported_value());
}

// Gateway API HTTPHeaderMatch: header names are RFC 7230 tokens (so no pseudo-headers), 1–256
// characters.
#[test]
fn header_match_name_is_a_token() {
    let m =
        |name: &str| http_rule(json!({"matches": [{"headers": [{"name": name, "value": "v"}]}]}));
    accepted(m("x-version"), STD);
    accepted(m(&"a".repeat(256)), STD);
    for bad in [":authority", "magic/", "a b", "", &"a".repeat(257)] {
        rejected_at(m(bad), STD, "spec.rules[0].matches[0].headers[0].name");
    }
}

// Gateway API HTTPHeaderMatch: header matches at most 16; exact duplicate names rejected (list-map
// key), case-variants accepted (the data plane keeps the first, see the IR tests).
#[test]
fn header_matches_at_most_16_with_unique_names() {
    let headers = |n: usize| {
        Value::Array(
            (0..n)
                .map(|i| json!({"name": format!("h{i}"), "value": "v"}))
                .collect(),
        )
    };
    accepted(
        http_rule(json!({"matches": [{"headers": headers(16)}]})),
        STD,
    );
    rejected_at(
        http_rule(json!({"matches": [{"headers": headers(17)}]})),
        STD,
        "spec.rules[0].matches[0].headers",
    );
    accepted(
        http_rule(json!({"matches": [{"headers": [
            {"name": "Foo", "value": "a"}, {"name": "foo", "value": "b"}]}]})),
        STD,
    );
    rejected_at(
        http_rule(json!({"matches": [{"headers": [
            {"name": "foo", "value": "a"}, {"name": "foo", "value": "b"}]}]})),
        STD,
        "spec.rules[0].matches[0].headers[1]",
    );
}

// Gateway API HTTPHeaderMatch and experimental channel: the header value pattern exists only on the
// experimental channel.
#[test]
fn header_value_pattern_is_experimental_only() {
    let m = |v: &str| http_rule(json!({"matches": [{"headers": [{"name": "x", "value": v}]}]}));
    let path = "spec.rules[0].matches[0].headers[0].value";
    accepted(m("a\nb"), STD);
    rejected_at(m("a\nb"), EXP, path);
    rejected_at(m(" a"), EXP, path);
    rejected_at(m("a  b"), EXP, path);
    accepted(m("a b\tc"), EXP);
    accepted(m(&"v".repeat(4096)), EXP);
    rejected_at(m(&"v".repeat(4097)), STD, path);
    rejected_at(m(""), STD, path);
}

// Gateway API HTTPQueryParamMatch: query params at most 16, value 1–1024, unique names
// (case-sensitive).
#[test]
fn query_param_matches_limits() {
    let m = |name: &str, v: &str| {
        http_rule(json!({"matches": [{"queryParams": [{"name": name, "value": v}]}]}))
    };
    accepted(m("q", &"v".repeat(1024)), STD);
    rejected_at(
        m("q", &"v".repeat(1025)),
        STD,
        "spec.rules[0].matches[0].queryParams[0].value",
    );
    rejected_at(
        m("a=b", "v"),
        STD,
        "spec.rules[0].matches[0].queryParams[0].name",
    );
    accepted(
        http_rule(json!({"matches": [{"queryParams": [
            {"name": "Q", "value": "a"}, {"name": "q", "value": "b"}]}]})),
        STD,
    );
    rejected_at(
        http_rule(json!({"matches": [{"queryParams": [
            {"name": "q", "value": "a"}, {"name": "q", "value": "b"}]}]})),
        STD,
        "spec.rules[0].matches[0].queryParams[1]",
    );
}

// Gateway API HTTPRouteMatch.method: methods are the nine upper-case names.
#[test]
fn method_is_one_of_nine_upper_case_names() {
    for ok in [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
    ] {
        accepted(http_rule(json!({"matches": [{"method": ok}]})), STD);
    }
    for bad in ["get", "NOTREAL", "PROPFIND"] {
        let e = rejected_at(
            http_rule(json!({"matches": [{"method": bad}]})),
            STD,
            "spec.rules[0].matches[0].method",
        );
        assert!(e.errors()[0].is_unsupported_value());
    }
}

// ---------------------------------------------------------------------------------------------
// parentRefs (Gateway API ParentReference) and the gamma-rs `controllers` extension

// Gateway API ParentReference: at most 32 parentRefs.
#[test]
fn parent_refs_at_most_32() {
    let refs = |n: usize| {
        Value::Array(
            (0..n)
                .map(|i| json!({"name": "gw", "sectionName": format!("l{i}")}))
                .collect(),
        )
    };
    accepted(http(json!({"parentRefs": refs(32)})), STD);
    rejected_at(
        http(json!({"parentRefs": refs(33)})),
        STD,
        "spec.parentRefs",
    );
}

// Gateway API ParentReference: same parent twice needs distinct sectionNames (std) or
// sectionName/port (exp).
#[test]
fn parent_refs_to_the_same_parent_need_distinct_sections() {
    let p = |refs: Value| http(json!({"parentRefs": refs}));
    accepted(
        p(json!([{"name": "gw", "sectionName": "a"}, {"name": "gw", "sectionName": "b"}])),
        STD,
    );
    accepted(p(json!([{"name": "gw"}, {"name": "other"}])), STD);
    // Different namespaces are different parents.
    accepted(
        p(json!([{"name": "gw"}, {"name": "gw", "namespace": "x"}])),
        STD,
    );
    rejected_with(
        p(json!([{"name": "gw"}, {"name": "gw", "sectionName": "a"}])),
        STD,
        "spec.parentRefs",
        "sectionName must be specified",
    );
    rejected_with(
        p(json!([{"name": "gw", "sectionName": "a"}, {"name": "gw", "sectionName": "a"}])),
        STD,
        "spec.parentRefs",
        "sectionName must be unique",
    );
    rejected_with(
        p(json!([{"name": "gw"}, {"name": "gw"}])),
        STD,
        "spec.parentRefs",
        "sectionName must be unique",
    );
    // Distinct ports: the standard channel only looks at sectionName; experimental accepts.
    let by_port = || {
        p(json!([
            {"group": "", "kind": "Service", "name": "s", "port": 80},
            {"group": "", "kind": "Service", "name": "s", "port": 8080}]))
    };
    rejected_at(by_port(), STD, "spec.parentRefs");
    accepted(by_port(), EXP);
    rejected_with(
        p(json!([
            {"group": "", "kind": "Service", "name": "s", "port": 80},
            {"group": "", "kind": "Service", "name": "s"}])),
        EXP,
        "spec.parentRefs",
        "sectionName or port must be specified",
    );
}

// Gateway API ParentReference and shared types: parentRef fields.
#[test]
fn parent_ref_fields_follow_their_types() {
    let p = |r: Value| http(json!({"parentRefs": [r]}));
    accepted(
        p(json!({"group": "", "kind": "Service", "name": "s", "port": 65535})),
        STD,
    );
    rejected_at(
        p(json!({"name": "s", "port": 0})),
        STD,
        "spec.parentRefs[0].port",
    );
    rejected_at(
        p(json!({"name": "s", "port": 65536})),
        STD,
        "spec.parentRefs[0].port",
    );
    rejected_at(p(json!({"name": ""})), STD, "spec.parentRefs[0].name");
    rejected_at(
        p(json!({"name": "s", "namespace": "Bad"})),
        STD,
        "spec.parentRefs[0].namespace",
    );
    rejected_at(
        p(json!({"name": "s", "kind": "1x"})),
        STD,
        "spec.parentRefs[0].kind",
    );
    rejected_at(
        p(json!({"name": "s", "group": "core/v1"})),
        STD,
        "spec.parentRefs[0].group",
    );
    rejected_at(
        p(json!({"name": "s", "sectionName": "A"})),
        STD,
        "spec.parentRefs[0].sectionName",
    );
}

// gamma-rs extension (gateway-api#3444): controllers are GatewayController names, ≤16, unique.
#[test]
fn parent_ref_controllers_are_valid_unique_and_at_most_16() {
    let p = |cs: Value| {
        http(
            json!({"parentRefs": [{"group": "", "kind": "Service", "name": "s", "controllers": cs}]}),
        )
    };
    let names = |n: usize| Value::Array((0..n).map(|i| json!(format!("mesh{i}.io/c"))).collect());
    accepted(p(names(16)), STD);
    rejected_at(p(names(17)), STD, "spec.parentRefs[0].controllers");
    rejected_at(
        p(json!(["a.io/x", "a.io/x"])),
        STD,
        "spec.parentRefs[0].controllers[1]",
    );
    rejected_at(
        p(json!(["not-a-controller"])),
        STD,
        "spec.parentRefs[0].controllers[0]",
    );
    rejected_at(
        p(json!(["Istio.io/x"])),
        STD,
        "spec.parentRefs[0].controllers[0]",
    );
}

// ---------------------------------------------------------------------------------------------
// backendRefs (Gateway API BackendRef)

// Gateway API BackendRef.weight: weight 0–1,000,000.
#[test]
fn backend_weight_between_0_and_1_000_000() {
    let b = |w: i64| http_rule(json!({"backendRefs": [{"name": "s", "port": 80, "weight": w}]}));
    accepted(b(0), STD);
    accepted(b(1_000_000), STD);
    rejected_at(b(1_000_001), STD, "spec.rules[0].backendRefs[0].weight");
    rejected_at(b(-1), STD, "spec.rules[0].backendRefs[0].weight");
}

// Gateway API BackendRef: a core Service backend needs a port; other kinds do not.
#[test]
fn service_backend_requires_port() {
    let b = |r: Value| http_rule(json!({"backendRefs": [r]}));
    accepted(b(json!({"name": "s", "port": 1})), STD);
    accepted(
        b(json!({"group": "example.com", "kind": "Bucket", "name": "s"})),
        STD,
    );
    rejected_with(
        b(json!({"name": "s"})),
        STD,
        "spec.rules[0].backendRefs[0]",
        "Must have port for Service reference",
    );
    rejected_at(
        b(json!({"name": "s", "port": 0})),
        STD,
        "spec.rules[0].backendRefs[0].port",
    );
}

// HTTPRoute CRD v1.6.1: at most 16 backendRefs per rule.
#[test]
fn backend_refs_at_most_16() {
    let bs = |n: usize| Value::Array((0..n).map(|i| svc_backend(&format!("s{i}"))).collect());
    accepted(http_rule(json!({"backendRefs": bs(16)})), STD);
    rejected_at(
        http_rule(json!({"backendRefs": bs(17)})),
        STD,
        "spec.rules[0].backendRefs",
    );
}

// ---------------------------------------------------------------------------------------------
// Filters (Gateway API HTTPRouteFilter)

fn header_mod(cfg: Value) -> Value {
    json!({"type": "RequestHeaderModifier", "requestHeaderModifier": cfg})
}

// Gateway API HTTPRouteRule.filters: union discipline: the field of `type` set, every other one
// nil.
#[test]
fn filter_union_discipline() {
    let f = |filter: Value| http_rule(json!({"filters": [filter]}));
    accepted(
        f(header_mod(json!({"set": [{"name": "a", "value": "b"}]}))),
        STD,
    );
    rejected_with(
        f(json!({"type": "RequestHeaderModifier"})),
        STD,
        "spec.rules[0].filters[0]",
        "filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type",
    );
    rejected_with(
        f(
            json!({"type": "RequestHeaderModifier", "requestHeaderModifier": {},
                 "urlRewrite": {"hostname": "a"}}),
        ),
        STD,
        "spec.rules[0].filters[0]",
        "filter.urlRewrite must be nil if the filter.type is not URLRewrite",
    );
    rejected_with(
        f(json!({"type": "CORS"})),
        STD,
        "spec.rules[0].filters[0]",
        "filter.cors must be specified for CORS filter.type",
    );
}

// Gateway API HTTPRouteRule.filters: an unknown filter type is UnsupportedValue; ExternalAuth is
// experimental.
#[test]
fn unknown_filter_type_is_unsupported_value() {
    let e = rejected_at(
        http_rule(json!({"filters": [{"type": "FancyNew", "fancyNew": {}}]})),
        STD,
        "spec.rules[0].filters[0].type",
    );
    assert!(e.errors()[0].is_unsupported_value());
    let ext = || {
        http_rule(
            json!({"filters": [{"type": "ExternalAuth", "externalAuth": {
            "protocol": "HTTP", "backendRef": {"name": "auth", "port": 9000}, "http": {}}}]}),
        )
    };
    rejected_at(ext(), STD, "spec.rules[0].filters[0].type");
    accepted(ext(), EXP);
}

// Gateway API HTTPRouteRule.filters: CORS, header modifiers, redirect and rewrite cannot repeat;
// mirrors can.
#[test]
fn non_repeatable_filters() {
    let two = |f: Value| http_rule(json!({"filters": [f.clone(), f]}));
    rejected_with(
        two(header_mod(json!({"remove": ["a"]}))),
        STD,
        "spec.rules[0].filters",
        "RequestHeaderModifier filter cannot be repeated",
    );
    rejected_with(
        two(json!({"type": "ResponseHeaderModifier", "responseHeaderModifier": {"remove": ["a"]}})),
        STD,
        "spec.rules[0].filters",
        "ResponseHeaderModifier filter cannot be repeated",
    );
    rejected_with(
        two(json!({"type": "CORS", "cors": {"allowOrigins": ["*"]}})),
        STD,
        "spec.rules[0].filters",
        "CORS filter cannot be repeated",
    );
    rejected_with(
        two(json!({"type": "URLRewrite", "urlRewrite": {"hostname": "a"}})),
        STD,
        "spec.rules[0].filters",
        "URLRewrite filter cannot be repeated",
    );
    rejected_with(
        two(json!({"type": "RequestRedirect", "requestRedirect": {"scheme": "https"}})),
        STD,
        "spec.rules[0].filters",
        "RequestRedirect filter cannot be repeated",
    );
    accepted(
        two(json!({"type": "RequestMirror", "requestMirror": {"backendRef": svc_backend("m")}})),
        STD,
    );
    accepted(
        two(
            json!({"type": "ExtensionRef", "extensionRef": {"group": "x.io", "kind": "K", "name": "n"}}),
        ),
        STD,
    );
    // The same rules hold for backendRef filters.
    rejected_at(
        http_rule(
            json!({"backendRefs": [{"name": "s", "port": 80, "filters": [
            header_mod(json!({"remove": ["a"]})), header_mod(json!({"remove": ["b"]}))]}]}),
        ),
        STD,
        "spec.rules[0].backendRefs[0].filters",
    );
}

// Gateway API HTTPRouteRule.filters: at most 16 filters.
#[test]
fn filters_at_most_16() {
    let mirrors = |n: usize| {
        Value::Array(
            (0..n)
                .map(|_| json!({"type": "RequestMirror", "requestMirror": {"backendRef": svc_backend("m")}}))
                .collect(),
        )
    };
    accepted(http_rule(json!({"filters": mirrors(16)})), STD);
    rejected_at(
        http_rule(json!({"filters": mirrors(17)})),
        STD,
        "spec.rules[0].filters",
    );
}

// Gateway API HTTPRouteRule.filters: redirect and rewrite together are rejected.
#[test]
fn redirect_and_rewrite_are_exclusive() {
    rejected_with(
        http_rule(json!({"filters": [
            {"type": "RequestRedirect", "requestRedirect": {"scheme": "https"}},
            {"type": "URLRewrite", "urlRewrite": {"hostname": "a"}}]})),
        STD,
        "spec.rules[0].filters",
        "May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite",
    );
}

// Gateway API HTTPRouteRule.filters: a redirect rule must not have backendRefs.
#[test]
fn redirect_with_backend_refs_rejected() {
    let redirect = json!({"type": "RequestRedirect", "requestRedirect": {"statusCode": 301}});
    accepted(http_rule(json!({"filters": [redirect.clone()]})), STD);
    accepted(
        http_rule(json!({"filters": [redirect.clone()], "backendRefs": []})),
        STD,
    );
    rejected_with(
        http_rule(json!({"filters": [redirect], "backendRefs": [svc_backend("s")]})),
        STD,
        "spec.rules[0]",
        "RequestRedirect filter must not be used together with backendRefs",
    );
}

// Gateway API HTTPRequestRedirectFilter: ReplacePrefixMatch needs exactly one PathPrefix match
// (defaults count).
#[test]
fn replace_prefix_match_needs_exactly_one_prefix_match() {
    let rewrite = json!({"type": "URLRewrite", "urlRewrite": {
        "path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": "/new"}}});
    let rule = |matches: Option<Value>| {
        let mut r = json!({"filters": [rewrite.clone()], "backendRefs": [svc_backend("s")]});
        if let Some(m) = matches {
            r["matches"] = m;
        }
        http_rule(r)
    };
    accepted(rule(None), STD);
    accepted(
        rule(Some(
            json!([{"path": {"type": "PathPrefix", "value": "/old"}}]),
        )),
        STD,
    );
    accepted(
        rule(Some(json!([{"headers": [{"name": "a", "value": "b"}]}]))),
        STD,
    );
    let msg = "When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified";
    rejected_with(
        rule(Some(json!([{"path": {"type": "Exact", "value": "/old"}}]))),
        STD,
        "spec.rules[0]",
        msg,
    );
    rejected_with(rule(Some(n_matches(2))), STD, "spec.rules[0]", msg);
    let redirect = http_rule(json!({
        "matches": [{"path": {"type": "Exact", "value": "/x"}}],
        "filters": [{"type": "RequestRedirect", "requestRedirect": {
            "path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": "/y"}}}]}));
    rejected_with(
        redirect,
        STD,
        "spec.rules[0]",
        "When using RequestRedirect filter with path.replacePrefixMatch",
    );
    let in_backend = http_rule(json!({
        "matches": [{"path": {"type": "Exact", "value": "/x"}}],
        "backendRefs": [{"name": "s", "port": 80, "filters": [rewrite.clone()]}]}));
    rejected_with(
        in_backend,
        STD,
        "spec.rules[0]",
        "Within backendRefs, When using URLRewrite filter",
    );
}

// Gateway API HTTPRequestRedirectFilter: path modifier type and field go together.
#[test]
fn path_modifier_type_matches_its_field() {
    let rw = |path: Value| {
        http_rule(json!({"filters": [{"type": "URLRewrite", "urlRewrite": {"path": path}}]}))
    };
    let at = "spec.rules[0].filters[0].urlRewrite.path";
    accepted(
        rw(json!({"type": "ReplaceFullPath", "replaceFullPath": "/x"})),
        STD,
    );
    rejected_with(
        rw(json!({"type": "ReplaceFullPath"})),
        STD,
        at,
        "replaceFullPath must be specified when type is set to 'ReplaceFullPath'",
    );
    rejected_with(
        rw(json!({"type": "ReplaceFullPath", "replacePrefixMatch": "/x", "replaceFullPath": "/y"})),
        STD,
        at,
        "type must be 'ReplacePrefixMatch' when replacePrefixMatch is set",
    );
    rejected_at(
        rw(json!({"type": "ReplaceFullPath", "replaceFullPath": format!("/{}", "a".repeat(1024))})),
        STD,
        "spec.rules[0].filters[0].urlRewrite.path.replaceFullPath",
    );
}

// Gateway API HTTPRequestRedirectFilter: redirect fields: scheme, PreciseHostname, port, status
// code enum.
#[test]
fn redirect_fields() {
    let r = |cfg: Value| {
        http_rule(json!({"filters": [{"type": "RequestRedirect", "requestRedirect": cfg}]}))
    };
    let at = |f: &str| format!("spec.rules[0].filters[0].requestRedirect.{f}");
    for code in [301, 302, 303, 307, 308] {
        accepted(r(json!({"statusCode": code})), STD);
    }
    let e = rejected_at(r(json!({"statusCode": 304})), STD, &at("statusCode"));
    assert!(e.errors()[0].is_unsupported_value());
    rejected_at(r(json!({"scheme": "ftp"})), STD, &at("scheme"));
    rejected_at(
        r(json!({"hostname": "*.example.com"})),
        STD,
        &at("hostname"),
    );
    accepted(r(json!({"hostname": "example.com", "port": 65535})), STD);
    rejected_at(r(json!({"port": 0})), STD, &at("port"));
}

// Gateway API HTTPHeaderFilter: header modifier lists: ≤16 each, names are tokens, unique per list.
#[test]
fn header_modifier_lists() {
    let set = |n: usize| {
        Value::Array(
            (0..n)
                .map(|i| json!({"name": format!("h{i}"), "value": "v"}))
                .collect(),
        )
    };
    let at = "spec.rules[0].filters[0].requestHeaderModifier";
    accepted(
        http_rule(json!({"filters": [header_mod(json!({"set": set(16)}))]})),
        STD,
    );
    rejected_at(
        http_rule(json!({"filters": [header_mod(json!({"set": set(17)}))]})),
        STD,
        &format!("{at}.set"),
    );
    rejected_at(
        http_rule(json!({"filters": [header_mod(json!({"add": [
            {"name": "a", "value": "1"}, {"name": "a", "value": "2"}]}))]})),
        STD,
        &format!("{at}.add[1]"),
    );
    rejected_at(
        http_rule(
            json!({"filters": [header_mod(json!({"set": [{"name": ":path", "value": "1"}]}))]}),
        ),
        STD,
        &format!("{at}.set[0].name"),
    );
}

// Gateway API HTTPHeaderFilter: one action per header name, case-insensitively, across
// set/add/remove.
#[test]
fn header_modifier_one_action_per_name() {
    let at = "spec.rules[0].filters[0].requestHeaderModifier";
    accepted(
        http_rule(json!({"filters": [header_mod(json!({
            "set": [{"name": "a", "value": "1"}], "add": [{"name": "b", "value": "2"}],
            "remove": ["c"]}))]})),
        STD,
    );
    rejected_at(
        http_rule(json!({"filters": [header_mod(json!({
            "set": [{"name": "X-A", "value": "1"}], "remove": ["x-a"]}))]})),
        STD,
        &format!("{at}.remove[0]"),
    );
    rejected_at(
        http_rule(json!({"filters": [header_mod(json!({
            "set": [{"name": "Foo", "value": "1"}, {"name": "foo", "value": "2"}]}))]})),
        STD,
        &format!("{at}.set[1]"),
    );
}

// Gateway API HTTPRequestMirrorFilter: percent xor fraction; percent 0–100; numerator ≤ denominator
// (default 100).
#[test]
fn mirror_percent_and_fraction() {
    let m = |extra: Value| {
        let mut cfg = json!({"backendRef": svc_backend("m")});
        for (k, v) in extra.as_object().unwrap() {
            cfg[k] = v.clone();
        }
        http_rule(json!({"filters": [{"type": "RequestMirror", "requestMirror": cfg}]}))
    };
    let at = "spec.rules[0].filters[0].requestMirror";
    accepted(m(json!({})), STD);
    accepted(m(json!({"percent": 0})), STD);
    accepted(m(json!({"percent": 100})), STD);
    rejected_at(m(json!({"percent": 101})), STD, &format!("{at}.percent"));
    accepted(m(json!({"fraction": {"numerator": 100}})), STD);
    rejected_with(
        m(json!({"fraction": {"numerator": 101}})),
        STD,
        &format!("{at}.fraction"),
        "numerator must be less than or equal to denominator",
    );
    accepted(
        m(json!({"fraction": {"numerator": 3, "denominator": 3}})),
        STD,
    );
    rejected_at(
        m(json!({"fraction": {"numerator": 0, "denominator": 0}})),
        STD,
        &format!("{at}.fraction.denominator"),
    );
    rejected_at(
        m(json!({"fraction": {"numerator": -1}})),
        STD,
        &format!("{at}.fraction.numerator"),
    );
    rejected_with(
        m(json!({"percent": 10, "fraction": {"numerator": 1}})),
        STD,
        at,
        "Only one of percent or fraction",
    );
    // The mirror target follows the backend rules.
    rejected_at(
        http_rule(
            json!({"filters": [{"type": "RequestMirror", "requestMirror": {"backendRef": {"name": "m"}}}]}),
        ),
        STD,
        &format!("{at}.backendRef"),
    );
}

// Gateway API HTTPCORSFilter: CORS: `*` alone, origin pattern, method enum, maxAge ≥ 1, list
// limits.
#[test]
fn cors_rules() {
    let c = |cfg: Value| http_rule(json!({"filters": [{"type": "CORS", "cors": cfg}]}));
    let at = |f: &str| format!("spec.rules[0].filters[0].cors.{f}");
    accepted(
        c(
            json!({"allowOrigins": ["https://a.example.com", "http://*.example.com:8080"],
                 "allowMethods": ["GET", "POST"], "allowHeaders": ["x-a"],
                 "exposeHeaders": ["x-b"], "maxAge": 1, "allowCredentials": true}),
        ),
        STD,
    );
    accepted(
        c(json!({"allowOrigins": ["*"], "allowMethods": ["*"], "allowHeaders": ["*"]})),
        STD,
    );
    rejected_with(
        c(json!({"allowOrigins": ["*", "https://a.com"]})),
        STD,
        &at("allowOrigins"),
        "AllowOrigins cannot contain '*' alongside other origins",
    );
    rejected_at(
        c(json!({"allowMethods": ["*", "GET"]})),
        STD,
        &at("allowMethods"),
    );
    rejected_at(
        c(json!({"allowHeaders": ["*", "x"]})),
        STD,
        &at("allowHeaders"),
    );
    rejected_at(
        c(json!({"allowOrigins": ["ftp://a.com"]})),
        STD,
        &at("allowOrigins[0]"),
    );
    rejected_at(
        c(json!({"allowOrigins": ["https://a.com/x"]})),
        STD,
        &at("allowOrigins[0]"),
    );
    rejected_at(
        c(json!({"allowMethods": ["get"]})),
        STD,
        &at("allowMethods[0]"),
    );
    rejected_at(c(json!({"maxAge": 0})), STD, &at("maxAge"));
    let origins =
        |n: usize| Value::Array((0..n).map(|i| json!(format!("https://o{i}.com"))).collect());
    accepted(c(json!({"allowOrigins": origins(64)})), STD);
    rejected_at(
        c(json!({"allowOrigins": origins(65)})),
        STD,
        &at("allowOrigins"),
    );
}

// Gateway API HTTPRouteRule.filters (experimental ExternalAuth): protocol required and paired with
// its config.
#[test]
fn external_auth_protocol_pairs_with_config() {
    let a =
        |cfg: Value| http_rule(json!({"filters": [{"type": "ExternalAuth", "externalAuth": cfg}]}));
    let at = "spec.rules[0].filters[0].externalAuth";
    let backend = json!({"name": "auth", "port": 9000});
    accepted(
        a(json!({"protocol": "GRPC", "backendRef": backend, "grpc": {}})),
        EXP,
    );
    rejected_with(
        a(json!({"protocol": "GRPC", "backendRef": backend})),
        EXP,
        at,
        "grpc must be specified when protocol is set to 'GRPC'",
    );
    rejected_with(
        a(json!({"protocol": "GRPC", "backendRef": backend, "grpc": {}, "http": {}})),
        EXP,
        at,
        "protocol must be 'HTTP' when http is set",
    );
    rejected_at(
        a(json!({"backendRef": backend})),
        EXP,
        &format!("{at}.protocol"),
    );
}

// ---------------------------------------------------------------------------------------------
// Timeouts, retry, session persistence (GEP-1742 timeouts; GEP-1731 retries; GEP-1619 session
// persistence)

// GEP-1742 timeouts; GEP-2257 durations: backendRequest ≤ request unless request is 0s; Duration
// syntax.
#[test]
fn timeouts_backend_request_not_longer_than_request() {
    let t = |cfg: Value| http_rule(json!({"timeouts": cfg}));
    let at = "spec.rules[0].timeouts";
    accepted(t(json!({"request": "10s", "backendRequest": "10s"})), STD);
    accepted(t(json!({"request": "1m", "backendRequest": "59s"})), STD);
    accepted(t(json!({"request": "0s", "backendRequest": "1h"})), STD);
    accepted(t(json!({"request": "1h2h20m10m"})), STD);
    rejected_with(
        t(json!({"request": "1s", "backendRequest": "1001ms"})),
        STD,
        at,
        "backendRequest timeout cannot be longer than request timeout",
    );
    for bad in ["0", "1.5s", "1d", "-1s", "123456s", "1h1m1s1ms1s"] {
        rejected_at(t(json!({"request": bad})), STD, &format!("{at}.request"));
    }
}

// GEP-1731 retries: retry codes 400–599 (a set), attempts ≥ 1, backoff a Duration.
#[test]
fn retry_limits() {
    let r = |cfg: Value| http_rule(json!({"retry": cfg}));
    let at = "spec.rules[0].retry";
    accepted(
        r(json!({"codes": [400, 599], "attempts": 1, "backoff": "100ms"})),
        EXP,
    );
    rejected_at(r(json!({"codes": [399]})), EXP, &format!("{at}.codes[0]"));
    rejected_at(r(json!({"codes": [600]})), EXP, &format!("{at}.codes[0]"));
    rejected_at(
        r(json!({"codes": [500, 500]})),
        EXP,
        &format!("{at}.codes[1]"),
    );
    rejected_at(r(json!({"attempts": -1})), EXP, &format!("{at}.attempts"));
    rejected_at(r(json!({"backoff": "1"})), EXP, &format!("{at}.backoff"));
    // `attempts` minimum 1 up to v1.6; from v1.7 (standard, GEP-1731) minimum 0, which
    // disables retries.
    rejected_at(
        r(json!({"attempts": 0})),
        V1_6_EXP,
        &format!("{at}.attempts"),
    );
    accepted(r(json!({"attempts": 0})), EXP);
    accepted(r(json!({"attempts": 0})), STD);
    // Experimental-only fields are validated whenever present.
    rejected_at(
        r(json!({"attempts": 0})),
        V1_6_STD,
        &format!("{at}.attempts"),
    );
}

// GEP-1619 session persistence, v1.5 and v1.6 shape: Permanent needs absoluteTimeout;
// cookieConfig only with type Cookie.
#[test]
fn session_persistence_rules() {
    let s = |cfg: Value| http_rule(json!({"sessionPersistence": cfg}));
    let at = "spec.rules[0].sessionPersistence";
    accepted(
        s(
            json!({"sessionName": "s", "type": "Cookie", "cookieConfig": {"lifetimeType": "Session"}}),
        ),
        V1_6_EXP,
    );
    accepted(
        s(json!({"absoluteTimeout": "1h", "cookieConfig": {"lifetimeType": "Permanent"}})),
        V1_6_EXP,
    );
    rejected_with(
        s(json!({"cookieConfig": {"lifetimeType": "Permanent"}})),
        V1_6_EXP,
        at,
        "AbsoluteTimeout must be specified when cookie lifetimeType is Permanent",
    );
    rejected_with(
        s(json!({"type": "Header", "cookieConfig": {}})),
        V1_6_EXP,
        at,
        "cookieConfig can only be set with type Cookie",
    );
    rejected_at(
        s(json!({"sessionName": "x".repeat(129)})),
        V1_6_EXP,
        &format!("{at}.sessionName"),
    );
}

// HTTPRoute CRD v1.6.1; Gateway API experimental channel: unique rule names are enforced on the
// experimental channel only.
#[test]
fn rule_names_unique_on_experimental_channel_and_on_standard_from_v1_7() {
    let r = || http(json!({"rules": [{"name": "a"}, {"name": "a"}]}));
    // Up to v1.6 only the experimental CRD carries the rule; v1.7's standard HTTPRoute and
    // GRPCRoute CRDs carry it too.
    accepted(r(), V1_6_STD);
    for under in [V1_6_EXP, Bundle::new(Release::V1_7, Channel::Standard)] {
        rejected_with(
            r(),
            under,
            "spec.rules",
            "Rule name must be unique within the route",
        );
    }
    rejected_with(
        r(),
        EXP,
        "spec.rules",
        "Rule name must be unique within the route",
    );
    accepted(
        http(json!({"rules": [{"name": "a"}, {"name": "b"}, {}]})),
        EXP,
    );
    rejected_at(
        http(json!({"rules": [{"name": "A"}]})),
        STD,
        "spec.rules[0].name",
    );
}

// ---------------------------------------------------------------------------------------------
// GRPCRoute (Gateway API GRPCRouteRule.matches; GRPCRoute CRD v1.6.1)

// Gateway API GRPCRouteRule.matches: method match CEL: a type needs service or method; Exact
// patterns.
#[test]
fn grpc_method_match_rules() {
    let m = |method: Value| grpc(json!({"rules": [{"matches": [{"method": method}]}]}));
    let at = "spec.rules[0].matches[0].method";
    accepted(
        m(json!({"service": "helloworld.Greeter", "method": "SayHello"})),
        STD,
    );
    accepted(m(json!({"type": "Exact", "method": "SayHello"})), STD);
    accepted(
        m(json!({"type": "RegularExpression", "service": "hello.*"})),
        STD,
    );
    rejected_with(
        m(json!({"type": "Exact"})),
        STD,
        at,
        "One or both of 'service' or 'method'",
    );
    rejected_with(
        m(json!({"service": "a/b"})),
        STD,
        at,
        "service must only contain valid characters",
    );
    rejected_with(
        m(json!({"method": "Say.Hello"})),
        STD,
        at,
        "method must only contain valid characters",
    );
    rejected_at(
        m(json!({"type": "Glob", "service": "a"})),
        STD,
        &format!("{at}.type"),
    );
}

// GRPCRoute CRD v1.6.1: GRPCRoute totals and filter repetition; empty rules allowed.
#[test]
fn grpc_route_limits() {
    accepted(grpc(json!({})), STD);
    let ms = |n: usize| {
        Value::Array(
            (0..n)
                .map(|_| json!({"method": {"service": "s"}}))
                .collect(),
        )
    };
    accepted(
        grpc(json!({"rules": [{"matches": ms(64)}, {"matches": ms(64)}]})),
        STD,
    );
    rejected_at(
        grpc(json!({"rules": [{"matches": ms(64)}, {"matches": ms(64)}, {"matches": ms(1)}]})),
        STD,
        "spec.rules",
    );
    let hm = json!({"type": "ResponseHeaderModifier", "responseHeaderModifier": {"remove": ["a"]}});
    rejected_with(
        grpc(json!({"rules": [{"filters": [hm.clone(), hm]}]})),
        STD,
        "spec.rules[0].filters",
        "ResponseHeaderModifier filter cannot be repeated",
    );
    rejected_at(
        grpc(json!({"rules": [{"filters": [{"type": "RequestRedirect"}]}]})),
        STD,
        "spec.rules[0].filters[0].type",
    );
}

// ---------------------------------------------------------------------------------------------
// TLSRoute, TCPRoute, UDPRoute (TLSRoute, TCPRoute and UDPRoute CRDs v1.6.1)

fn tls(api_version: &str, spec: Value) -> AnyResource {
    object(api_version, "TLSRoute", spec)
}

const V1: &str = "gateway.networking.k8s.io/v1";
const V1A2: &str = "gateway.networking.k8s.io/v1alpha2";

// TLSRoute, TCPRoute and UDPRoute CRDs v1.6.1: TLSRoute v1: 1–1024 hostnames, no IPs; exactly one
// rule.
#[test]
fn tls_route_hostnames_and_single_rule() {
    let rule = json!([{"backendRefs": [svc_backend("s")]}]);
    let hosts =
        |n: usize| Value::Array((0..n).map(|i| json!(format!("h{i}.example.com"))).collect());
    accepted(
        tls(V1, json!({"hostnames": hosts(1024), "rules": rule})),
        STD,
    );
    rejected_at(
        tls(V1, json!({"hostnames": hosts(1025), "rules": rule})),
        STD,
        "spec.hostnames",
    );
    rejected_at(tls(V1, json!({"rules": rule})), STD, "spec.hostnames");
    rejected_with(
        tls(V1, json!({"hostnames": ["1.2.3.4"], "rules": rule})),
        STD,
        "spec.hostnames",
        "Hostnames cannot contain an IP",
    );
    rejected_at(
        tls(
            V1,
            json!({"hostnames": ["a.com"], "rules": [rule[0], rule[0]]}),
        ),
        STD,
        "spec.rules",
    );
    rejected_at(
        tls(V1, json!({"hostnames": ["a.com"], "rules": []})),
        STD,
        "spec.rules",
    );
    // v1alpha2: hostnames optional, up to 16 rules.
    accepted(tls(V1A2, json!({"rules": [rule[0], rule[0]]})), EXP);
}

// TLSRoute, TCPRoute and UDPRoute CRDs v1.6.1: TCPRoute/UDPRoute v1: one rule with 1–16 backends;
// v1alpha2 up to 16 rules.
#[test]
fn tcp_and_udp_routes_have_one_rule_with_1_to_16_backends() {
    for kind in ["TCPRoute", "UDPRoute"] {
        let bs = |n: usize| Value::Array((0..n).map(|i| svc_backend(&format!("s{i}"))).collect());
        accepted(
            object(V1, kind, json!({"rules": [{"backendRefs": bs(1)}]})),
            STD,
        );
        accepted(
            object(V1, kind, json!({"rules": [{"backendRefs": bs(16)}]})),
            STD,
        );
        rejected_at(
            object(V1, kind, json!({"rules": [{"backendRefs": bs(17)}]})),
            STD,
            "spec.rules[0].backendRefs",
        );
        rejected_at(
            object(V1, kind, json!({"rules": [{"backendRefs": []}]})),
            STD,
            "spec.rules[0].backendRefs",
        );
        let two = json!({"rules": [{"backendRefs": bs(1)}, {"backendRefs": bs(1)}]});
        rejected_at(object(V1, kind, two.clone()), STD, "spec.rules");
        accepted(object(V1A2, kind, two), EXP);
        rejected_with(
            object(
                V1A2,
                kind,
                json!({"rules": [{"name": "a", "backendRefs": bs(1)}, {"name": "a", "backendRefs": bs(1)}]}),
            ),
            EXP,
            "spec.rules",
            "Rule name must be unique",
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Gateway, ListenerSet, GatewayClass

fn listener(name: &str, protocol: &str, port: i64) -> Value {
    json!({"name": name, "protocol": protocol, "port": port})
}

fn certs() -> Value {
    json!({"certificateRefs": [{"name": "cert"}]})
}

// Gateway CRD CEL: protocol/tls/hostname compatibility of listeners.
#[test]
fn listener_protocol_tls_and_hostname_compatibility() {
    let l = |extra: Value, protocol: &str| {
        let mut v = listener("l", protocol, 443);
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        gateway_listeners(json!([v]))
    };
    accepted(l(json!({"tls": certs()}), "HTTPS"), STD);
    accepted(l(json!({"tls": {"mode": "Passthrough"}}), "TLS"), STD);
    accepted(l(json!({"hostname": "*.example.com"}), "HTTP"), STD);
    accepted(l(json!({}), "example.com/custom"), STD);
    for p in ["HTTP", "TCP", "UDP"] {
        rejected_with(
            l(json!({"tls": certs()}), p),
            STD,
            "spec.listeners",
            "tls must not be specified",
        );
    }
    rejected_with(
        l(json!({"tls": {"mode": "Passthrough"}}), "HTTPS"),
        STD,
        "spec.listeners",
        "tls mode must be Terminate for protocol HTTPS",
    );
    rejected_with(
        l(json!({}), "TLS"),
        STD,
        "spec.listeners",
        "tls mode must be set for protocol TLS",
    );
    for p in ["TCP", "UDP"] {
        rejected_with(
            l(json!({"hostname": "a.com"}), p),
            STD,
            "spec.listeners",
            "hostname must not be specified",
        );
    }
    rejected_with(
        l(json!({"tls": {}}), "HTTPS"),
        STD,
        "spec.listeners[0].tls",
        "certificateRefs or options must be specified when mode is Terminate",
    );
    rejected_at(l(json!({}), "Bad Proto"), STD, "spec.listeners[0].protocol");
}

// Gateway CRD: listener names unique; (port, protocol, hostname) unique; 1–64 listeners.
#[test]
fn listeners_unique_and_between_1_and_64() {
    accepted(
        gateway_listeners(json!([
            listener("a", "HTTP", 80),
            listener("b", "HTTP", 8080)
        ])),
        STD,
    );
    rejected_with(
        gateway_listeners(json!([
            listener("a", "HTTP", 80),
            listener("a", "HTTP", 8080)
        ])),
        STD,
        "spec.listeners",
        "Listener name must be unique",
    );
    rejected_with(
        gateway_listeners(json!([
            listener("a", "HTTP", 80),
            listener("b", "HTTP", 80)
        ])),
        STD,
        "spec.listeners",
        "Combination of port, protocol and hostname must be unique",
    );
    let mut a = listener("a", "HTTP", 80);
    a["hostname"] = json!("a.com");
    accepted(
        gateway_listeners(json!([a, listener("b", "HTTP", 80)])),
        STD,
    );
    let many = |n: usize| {
        Value::Array(
            (0..n)
                .map(|i| listener(&format!("l{i}"), "HTTP", 1000 + i as i64))
                .collect(),
        )
    };
    accepted(gateway_listeners(many(64)), STD);
    rejected_at(gateway_listeners(many(65)), STD, "spec.listeners");
    rejected_at(gateway_listeners(json!([])), STD, "spec.listeners");
    rejected_at(
        gateway_listeners(json!([listener("a", "HTTP", 0)])),
        STD,
        "spec.listeners[0].port",
    );
}

// Gateway CRD: address types, Hostname values, uniqueness; IPAddress values parse (gamma-rs).
#[test]
fn gateway_addresses() {
    let g = |addrs: Value| {
        gateway(
            json!({"gatewayClassName": "c", "listeners": [listener("a", "HTTP", 80)], "addresses": addrs}),
        )
    };
    accepted(
        g(
            json!([{"value": "10.0.0.1"}, {"type": "IPAddress", "value": "::1"},
                 {"type": "Hostname", "value": "gw.example.com"},
                 {"type": "example.com/custom", "value": "anything goes"},
                 {"type": "NamedAddress", "value": "pool-a"}]),
        ),
        STD,
    );
    rejected_at(
        g(json!([{"type": "Hostname", "value": "foo.com:80"}])),
        STD,
        "spec.addresses[0]",
    );
    rejected_at(
        g(json!([{"value": "1.1.1"}])),
        STD,
        "spec.addresses[0].value",
    );
    rejected_with(
        g(json!([{"value": "10.0.0.1"}, {"type": "IPAddress", "value": "10.0.0.1"}])),
        STD,
        "spec.addresses",
        "IPAddress values must be unique",
    );
    rejected_at(
        g(json!([{"type": "bogus type"}])),
        STD,
        "spec.addresses[0].type",
    );
    let many = Value::Array(
        (0..17)
            .map(|i| json!({"value": format!("10.0.0.{i}")}))
            .collect(),
    );
    rejected_at(g(many), STD, "spec.addresses");
}

// Gateway CRD, `status.addresses` (`GatewayStatusAddress`): the API server checks it on
// writes to the status subresource: values of 1-253 characters, Hostname values match
// `Hostname` ("Hostname value must only contain valid characters"), IPAddress values IPv4 or
// IPv6 (the item's `oneOf`), at most 16; no uniqueness rule.
#[test]
fn gateway_status_addresses() {
    let g = |addrs: Value| {
        let v = json!({
            "apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
            "metadata": {"name": "r", "namespace": "ns"},
            "spec": {"gatewayClassName": "c", "listeners": [listener("a", "HTTP", 80)]},
            "status": {"addresses": addrs},
        });
        gamma_model::decode(&v.to_string()).unwrap().remove(0)
    };
    accepted(
        g(json!([{"value": "10.0.0.1"}, {"value": "10.0.0.1"},
                 {"type": "Hostname", "value": "*.gw.example.com"},
                 {"type": "NamedAddress", "value": "pool-a"}])),
        STD,
    );
    for bad in ["a_b", "A.example.com", ""] {
        rejected_with(
            g(json!([{"type": "Hostname", "value": bad}])),
            STD,
            "status.addresses[0]",
            "Hostname value must only contain valid characters",
        );
    }
    rejected_at(g(json!([{"value": ""}])), STD, "status.addresses[0].value");
    rejected_at(
        g(json!([{"type": "IPAddress", "value": "gw.example.com"}])),
        STD,
        "status.addresses[0].value",
    );
    let many = Value::Array(
        (0..17)
            .map(|i| json!({"value": format!("10.0.0.{i}")}))
            .collect(),
    );
    rejected_at(g(many), STD, "status.addresses");
}

// Gateway CRD: infrastructure labels/annotations and allowedRoutes.
#[test]
fn gateway_infrastructure_and_allowed_routes() {
    let g = |extra: Value, l: Value| {
        let mut spec = json!({"gatewayClassName": "c", "listeners": [l]});
        for (k, v) in extra.as_object().unwrap() {
            spec[k] = v.clone();
        }
        gateway(spec)
    };
    let l = listener("a", "HTTP", 80);
    accepted(
        g(
            json!({"infrastructure": {"labels": {"example.com/a": "b"}}}),
            l.clone(),
        ),
        STD,
    );
    rejected_at(
        g(
            json!({"infrastructure": {"labels": {"-a": "b"}}}),
            l.clone(),
        ),
        STD,
        "spec.infrastructure.labels",
    );
    rejected_at(
        g(
            json!({"infrastructure": {"labels": {"a": "-b"}}}),
            l.clone(),
        ),
        STD,
        "spec.infrastructure.labels[a]",
    );
    let nine: serde_json::Map<String, Value> =
        (0..9).map(|i| (format!("k{i}"), json!("v"))).collect();
    rejected_at(
        g(json!({"infrastructure": {"labels": nine}}), l.clone()),
        STD,
        "spec.infrastructure.labels",
    );
    let mut with_routes = l.clone();
    with_routes["allowedRoutes"] = json!({"namespaces": {"from": "None"}});
    rejected_at(
        g(json!({}), with_routes),
        STD,
        "spec.listeners[0].allowedRoutes.namespaces.from",
    );
    let mut kinds = l;
    kinds["allowedRoutes"] = json!({"kinds": [{"kind": "HTTPRoute"}, {"kind": "*"}]});
    rejected_at(
        g(json!({}), kinds),
        STD,
        "spec.listeners[0].allowedRoutes.kinds[1].kind",
    );
}

// ListenerSet CRD: parentRef and the listener rules.
#[test]
fn listener_set_rules() {
    let ls = |spec: Value| object(V1, "ListenerSet", spec);
    accepted(
        ls(json!({"parentRef": {"name": "gw"}, "listeners": [listener("a", "HTTP", 80)]})),
        STD,
    );
    rejected_at(
        ls(json!({"parentRef": {"name": "gw"}, "listeners": []})),
        STD,
        "spec.listeners",
    );
    rejected_at(
        ls(json!({"parentRef": {"name": ""}, "listeners": [listener("a", "HTTP", 80)]})),
        STD,
        "spec.parentRef.name",
    );
    rejected_at(
        ls(
            json!({"parentRef": {"name": "gw"}, "listeners": [listener("a", "TCP", 80), listener("a", "UDP", 81)]}),
        ),
        STD,
        "spec.listeners",
    );
}

/// An object with a `status` beside its `spec`.
fn with_status(api_version: &str, kind: &str, spec: Value, status: Value) -> AnyResource {
    let v = json!({
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "r", "namespace": "ns"},
        "spec": spec,
        "status": status,
    });
    let mut objects = gamma_model::decode(&serde_json::to_string(&v).unwrap()).unwrap();
    objects.remove(0)
}

fn condition(type_: &str) -> Value {
    json!({"type": type_, "status": "True", "reason": "Accepted", "message": "",
           "lastTransitionTime": "2026-01-01T00:00:00Z"})
}

// ListenerSet CRD status (ListenerSetStatus): conditions a map keyed by type (at most 8),
// listeners a map keyed by name (at most 64), each with at most 8 supportedKinds.
#[test]
fn listener_set_status_rules() {
    let ls = |status: Value| {
        with_status(
            V1,
            "ListenerSet",
            json!({"parentRef": {"name": "gw"}, "listeners": [listener("a", "HTTP", 80)]}),
            status,
        )
    };
    let entry = |name: &str| {
        json!({"name": name, "attachedRoutes": 1, "conditions": [condition("Accepted")],
               "supportedKinds": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute"}]})
    };
    accepted(
        ls(
            json!({"conditions": [condition("Accepted"), condition("Programmed")],
                  "listeners": [entry("a")]}),
        ),
        STD,
    );
    rejected_at(
        ls(json!({"conditions": [condition("Accepted"), condition("Accepted")]})),
        STD,
        "status.conditions[1].type",
    );
    let nine: Vec<Value> = (0..9).map(|i| condition(&format!("T{i}"))).collect();
    rejected_at(ls(json!({"conditions": nine})), STD, "status.conditions");
    rejected_at(
        ls(json!({"listeners": [entry("a"), entry("a")]})),
        STD,
        "status.listeners[1].name",
    );
    rejected_at(
        ls(json!({"listeners": [entry("Not_A_Name")]})),
        STD,
        "status.listeners[0].name",
    );
    let mut bad_kind = entry("a");
    bad_kind["supportedKinds"][0]["kind"] = json!("");
    rejected_at(
        ls(json!({"listeners": [bad_kind]})),
        STD,
        "status.listeners[0].supportedKinds[0].kind",
    );
    let many: Vec<Value> = (0..65).map(|i| entry(&format!("l{i}"))).collect();
    rejected_at(ls(json!({"listeners": many})), STD, "status.listeners");
}

// BackendTLSPolicy CRD status (PolicyStatus, GEP-713): at most 16 ancestors, each with an
// ancestorRef, a controllerName of the form DOMAIN/PATH and 1 to 8 conditions.
#[test]
fn policy_status_rules() {
    let policy = |status: Value| {
        with_status(
            V1,
            "BackendTLSPolicy",
            json!({"targetRefs": [{"group": "", "kind": "Service", "name": "web"}],
                   "validation": {"hostname": "web.example.com", "wellKnownCACertificates": "System"}}),
            status,
        )
    };
    let ancestor = |name: &str, controller: &str, conditions: Value| {
        json!({"ancestorRef": {"name": name}, "controllerName": controller,
               "conditions": conditions})
    };
    accepted(
        policy(
            json!({"ancestors": [ancestor("gw", "example.com/gw", json!([condition("Accepted")]))]}),
        ),
        STD,
    );
    accepted(policy(json!({"ancestors": []})), STD);
    rejected_at(
        policy(json!({"ancestors": [ancestor("gw", "example.com/gw", json!([]))]})),
        STD,
        "status.ancestors[0].conditions",
    );
    rejected_at(
        policy(json!({"ancestors": [ancestor("gw", "nodomain", json!([condition("Accepted")]))]})),
        STD,
        "status.ancestors[0].controllerName",
    );
    rejected_at(
        policy(
            json!({"ancestors": [ancestor("", "example.com/gw", json!([condition("Accepted")]))]}),
        ),
        STD,
        "status.ancestors[0].ancestorRef.name",
    );
    let seventeen: Vec<Value> = (0..17)
        .map(|i| {
            ancestor(
                &format!("gw{i}"),
                "example.com/gw",
                json!([condition("Accepted")]),
            )
        })
        .collect();
    rejected_at(
        policy(json!({"ancestors": seventeen})),
        STD,
        "status.ancestors",
    );
}

// GatewayClass and XMesh: controllerName is a GatewayController; description ≤ 64.
#[test]
fn controller_names_and_descriptions() {
    let gc = |spec: Value| object(V1, "GatewayClass", spec);
    accepted(
        gc(json!({"controllerName": "example.com/gateway", "description": "d".repeat(64)})),
        STD,
    );
    rejected_at(
        gc(json!({"controllerName": "example"})),
        STD,
        "spec.controllerName",
    );
    rejected_at(
        gc(json!({"controllerName": "a.com/x", "description": "d".repeat(65)})),
        STD,
        "spec.description",
    );
    let mesh = |spec: Value| object("gateway.networking.x-k8s.io/v1alpha1", "XMesh", spec);
    accepted(mesh(json!({"controllerName": "linkerd.io/mesh"})), EXP);
    rejected_at(
        mesh(json!({"controllerName": ""})),
        EXP,
        "spec.controllerName",
    );
    rejected_at(
        mesh(json!({"controllerName": "a.io/x", "description": "d".repeat(65)})),
        EXP,
        "spec.description",
    );
}

// GatewayClass and XMesh `parametersRef` (upstream `ParametersReference`): group, kind and name
// are required. An omitted group is reported (it is not read as the core group `""`).
#[test]
fn parameters_ref_requires_group_kind_and_name() {
    let gc = |r: Value| {
        object(
            V1,
            "GatewayClass",
            json!({"controllerName": "a.com/x", "parametersRef": r}),
        )
    };
    accepted(
        gc(json!({"group": "", "kind": "ConfigMap", "name": "p", "namespace": "ns"})),
        STD,
    );
    accepted(
        gc(json!({"group": "example.com", "kind": "Params", "name": "p"})),
        STD,
    );
    rejected_at(
        gc(json!({"kind": "ConfigMap", "name": "p"})),
        STD,
        "spec.parametersRef.group",
    );
    rejected_at(
        gc(json!({"group": "", "name": "p"})),
        STD,
        "spec.parametersRef.kind",
    );
    rejected_at(
        gc(json!({"group": "", "kind": "ConfigMap"})),
        STD,
        "spec.parametersRef.name",
    );
    let mesh = |r: Value| {
        object(
            "gateway.networking.x-k8s.io/v1alpha1",
            "XMesh",
            json!({"controllerName": "linkerd.io/mesh", "parametersRef": r}),
        )
    };
    accepted(
        mesh(json!({"group": "", "kind": "ConfigMap", "name": "p"})),
        EXP,
    );
    rejected_at(
        mesh(json!({"kind": "ConfigMap", "name": "p"})),
        EXP,
        "spec.parametersRef.group",
    );
}

// ---------------------------------------------------------------------------------------------
// ReferenceGrant and BackendTLSPolicy (ReferenceGrant and XMesh CRDs v1.6.1; Gateway API
// ReferenceGrant)

// ReferenceGrant and XMesh CRDs v1.6.1: from/to 1–16 entries, namespace required in from.
#[test]
fn reference_grant_from_and_to() {
    let from = |n: usize| {
        Value::Array(
            (0..n)
                .map(|i| json!({"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "namespace": format!("n{i}")}))
                .collect(),
        )
    };
    let to = json!([{"group": "", "kind": "Service"}]);
    let rg = |spec: Value| object(V1, "ReferenceGrant", spec);
    accepted(rg(json!({"from": from(16), "to": to})), STD);
    rejected_at(rg(json!({"from": from(17), "to": to})), STD, "spec.from");
    rejected_at(rg(json!({"from": from(1), "to": []})), STD, "spec.to");
    rejected_at(
        rg(json!({"from": [{"group": "", "kind": "HTTPRoute"}], "to": to})),
        STD,
        "spec.from[0].namespace",
    );
    rejected_at(
        rg(json!({"from": from(1), "to": [{"group": "", "kind": "Service", "name": ""}]})),
        STD,
        "spec.to[0].name",
    );
    let no_spec = gamma_model::decode(
        r#"{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ReferenceGrant","metadata":{"name":"g"}}"#,
    )
    .unwrap()
    .remove(0);
    rejected_at(no_spec, STD, "spec");
}

// BackendTLSPolicy CRD: CA refs xor well-known CAs; SAN type pairing; targetRef sections.
#[test]
fn backend_tls_policy_rules() {
    let p = |validation: Value, targets: Value| {
        object(
            V1,
            "BackendTLSPolicy",
            json!({"targetRefs": targets, "validation": validation}),
        )
    };
    let t = json!([{"group": "", "kind": "Service", "name": "s"}]);
    let ca = json!([{"group": "", "kind": "ConfigMap", "name": "ca"}]);
    accepted(
        p(
            json!({"hostname": "s.example.com", "wellKnownCACertificates": "System"}),
            t.clone(),
        ),
        STD,
    );
    accepted(
        p(
            json!({"hostname": "s.example.com", "caCertificateRefs": ca}),
            t.clone(),
        ),
        STD,
    );
    rejected_with(
        p(json!({"hostname": "s.example.com"}), t.clone()),
        STD,
        "spec.validation",
        "must specify either CACertificateRefs or WellKnownCACertificates",
    );
    rejected_with(
        p(
            json!({"hostname": "s.example.com", "caCertificateRefs": ca, "wellKnownCACertificates": "System"}),
            t.clone(),
        ),
        STD,
        "spec.validation",
        "must not contain both",
    );
    rejected_at(
        p(
            json!({"hostname": "*.example.com", "wellKnownCACertificates": "System"}),
            t.clone(),
        ),
        STD,
        "spec.validation.hostname",
    );
    rejected_with(
        p(
            json!({"hostname": "s.example.com", "wellKnownCACertificates": "System",
                 "subjectAltNames": [{"type": "URI", "hostname": "a.com"}]}),
            t.clone(),
        ),
        STD,
        "spec.validation.subjectAltNames[0]",
        "SubjectAltName element must contain URI",
    );
    accepted(
        p(
            json!({"hostname": "s.example.com", "wellKnownCACertificates": "System",
                 "subjectAltNames": [{"type": "URI", "uri": "spiffe://td/ns/a"}]}),
            t.clone(),
        ),
        STD,
    );
    rejected_with(
        p(
            json!({"hostname": "s.example.com", "wellKnownCACertificates": "System"}),
            json!([{"group": "", "kind": "Service", "name": "s"}, {"group": "", "kind": "Service", "name": "s", "sectionName": "h"}]),
        ),
        STD,
        "spec.targetRefs",
        "sectionName must be specified when targetRefs includes 2 or more references to the same target",
    );
}

// ---------------------------------------------------------------------------------------------
// Metadata and error collection

// Metadata: name 1–253, namespace an RFC 1123 label.
#[test]
fn metadata_name_and_namespace() {
    let with_meta = |meta: Value| {
        let text = serde_json::to_string(&json!({
            "apiVersion": V1, "kind": "HTTPRoute", "metadata": meta, "spec": {}}))
        .unwrap();
        gamma_model::decode(&text).unwrap().remove(0)
    };
    accepted(with_meta(json!({"name": "a".repeat(253)})), STD);
    rejected_at(
        with_meta(json!({"name": "a".repeat(254)})),
        STD,
        "metadata.name",
    );
    rejected_at(with_meta(json!({})), STD, "metadata.name");
    rejected_at(
        with_meta(json!({"name": "a", "namespace": "Bad_NS"})),
        STD,
        "metadata.namespace",
    );
    rejected_at(
        with_meta(json!({"name": "a", "namespace": "a".repeat(64)})),
        STD,
        "metadata.namespace",
    );
}

// Validation collects every error rather than stopping at the first.
#[test]
fn all_errors_are_collected() {
    let e = rejected_at(
        http(json!({
            "hostnames": ["Bad"],
            "parentRefs": [{"name": "gw", "port": 0}],
            "rules": [
                {"matches": [{"path": {"value": "/a/.."}}]},
                {"backendRefs": [{"name": "s", "weight": 2_000_000}]}
            ]
        })),
        STD,
        "spec.hostnames[0]",
    );
    for path in [
        "spec.parentRefs[0].port",
        "spec.rules[0].matches[0].path.value",
        "spec.rules[1].backendRefs[0]",
        "spec.rules[1].backendRefs[0].weight",
    ] {
        assert!(e.has_error_at(path), "missing {path} in {e}");
    }
}

// Core kinds: port ranges and unique Service port names; Namespace names are labels.
#[test]
fn core_kinds_basic_checks() {
    let svc = |ports: Value| object("v1", "Service", json!({"ports": ports}));
    accepted(
        svc(
            json!([{"name": "http", "port": 80, "targetPort": 8080}, {"name": "grpc", "port": 90}]),
        ),
        STD,
    );
    rejected_at(svc(json!([{"port": 0}])), STD, "spec.ports[0].port");
    rejected_at(
        svc(json!([{"name": "a", "port": 1}, {"name": "a", "port": 2}])),
        STD,
        "spec.ports[1].name",
    );
    let ns = |name: &str| {
        gamma_model::decode(&format!(
            r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{name}"}}}}"#
        ))
        .unwrap()
        .remove(0)
    };
    accepted(ns("shop"), STD);
    rejected_at(ns("Shop"), STD, "metadata.name");
}

// Gateway API RouteStatus: route status: ≤32 parent entries, 1–8 conditions, metav1.Condition
// rules.
#[test]
fn route_status_limits() {
    let cond = json!({"type": "Accepted", "status": "True", "reason": "Accepted", "message": "",
                      "lastTransitionTime": "2026-01-01T00:00:00Z"});
    let entry = |i: usize, conditions: Value| {
        json!({"parentRef": {"name": format!("gw{i}")}, "controllerName": "example.com/gw",
               "conditions": conditions})
    };
    let route = |parents: Vec<Value>| {
        let text = serde_json::to_string(&json!({
            "apiVersion": V1, "kind": "HTTPRoute", "metadata": {"name": "r"}, "spec": {},
            "status": {"parents": parents}}))
        .unwrap();
        gamma_model::decode(&text).unwrap().remove(0)
    };
    accepted(
        route((0..32).map(|i| entry(i, json!([cond]))).collect()),
        STD,
    );
    rejected_at(
        route((0..33).map(|i| entry(i, json!([cond]))).collect()),
        STD,
        "status.parents",
    );
    rejected_at(
        route(vec![entry(0, json!([]))]),
        STD,
        "status.parents[0].conditions",
    );
    let nine: Vec<Value> = (0..9).map(|_| cond.clone()).collect();
    rejected_at(
        route(vec![entry(0, json!(nine))]),
        STD,
        "status.parents[0].conditions",
    );
    let mut bad = cond.clone();
    bad["reason"] = json!("Not Valid");
    bad["status"] = json!("Maybe");
    rejected_at(
        route(vec![entry(0, json!([bad.clone()]))]),
        STD,
        "status.parents[0].conditions[0].reason",
    );
    rejected_at(
        route(vec![entry(0, json!([bad]))]),
        STD,
        "status.parents[0].conditions[0].status",
    );
    let mut no_controller = entry(0, json!([cond]));
    no_controller["controllerName"] = json!("gw");
    rejected_at(
        route(vec![no_controller]),
        STD,
        "status.parents[0].controllerName",
    );
}

// Gateway CRD `spec.tls`: frontend default required, CA refs 1–16, mode enum, unique ports.
#[test]
fn gateway_tls_frontend_and_backend() {
    let g = |tls: Value| {
        gateway(
            json!({"gatewayClassName": "c", "listeners": [listener("a", "HTTP", 80)], "tls": tls}),
        )
    };
    let ca = json!({"caCertificateRefs": [{"group": "", "kind": "ConfigMap", "name": "ca"}]});
    accepted(
        g(json!({"frontend": {"default": {"validation": ca},
                              "perPort": [{"port": 443, "tls": {"validation": ca}}]},
                 "backend": {"clientCertificateRef": {"name": "client"}}})),
        STD,
    );
    rejected_at(g(json!({"frontend": {}})), STD, "spec.tls.frontend.default");
    rejected_at(
        g(json!({"frontend": {"default": {"validation": {"caCertificateRefs": []}}}})),
        STD,
        "spec.tls.frontend.default.validation.caCertificateRefs",
    );
    rejected_at(
        g(
            json!({"frontend": {"default": {"validation": {"caCertificateRefs": ca["caCertificateRefs"], "mode": "Lax"}}}}),
        ),
        STD,
        "spec.tls.frontend.default.validation.mode",
    );
    rejected_with(
        g(
            json!({"frontend": {"default": {"validation": ca}, "perPort": [
            {"port": 443, "tls": {"validation": ca}}, {"port": 443, "tls": {"validation": ca}}]}}),
        ),
        STD,
        "spec.tls.frontend.perPort",
        "Port for TLS configuration must be unique within the Gateway",
    );
    rejected_at(
        g(json!({"backend": {"clientCertificateRef": {"namespace": "x"}}})),
        STD,
        "spec.tls.backend.clientCertificateRef.name",
    );
}

// Gateway API v1.6.1 Gateway CRD, `spec.addresses` items: a `oneOf` makes the `value` of an
// `IPAddress` address `format: ipv4` or `ipv6` whenever it is present, an empty one included
// (kube-apiserver v1.37 refuses `{value: ""}`, found by validation_differential.rs in
// gamma-kube).
#[test]
fn gateway_ip_address_values_must_be_ip_addresses_even_when_empty() {
    let with = |addresses: Value| {
        gateway(json!({
            "gatewayClassName": "example",
            "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}],
            "addresses": addresses
        }))
    };
    accepted(
        with(json!([{"value": "10.0.0.1"}, {"type": "IPAddress", "value": "2001:db8::1"}])),
        Channel::Standard,
    );
    for bad in ["", "10.0.0.256", "example.com"] {
        rejected_with(
            with(json!([{"value": bad}])),
            Channel::Standard,
            "spec.addresses[0].value",
            "IPAddress value must be an IPv4 or IPv6 address",
        );
    }
    // Despite its message ("must be empty or ..."), the Hostname rule refuses "" too:
    // `self.value.matches(...)` is false for it (kube-apiserver v1.37 agrees).
    rejected_at(
        with(json!([{"type": "Hostname", "value": ""}])),
        Channel::Standard,
        "spec.addresses[0]",
    );
}
