//! Lowering from `gamma_model::ir` (manifests -> Snapshot -> RouteTable::build): the CRD's
//! own rules decide first, the engine's checks (regexes, unsupported filters, a redirect on a
//! backendRef) apply to rules the API server would accept, and reasons are the Gateway API's
//! (RouteConditionReason: `IncompatibleFilters` for incompatible filters, `UnsupportedValue`
//! otherwise); a route whose every rule is invalid is reported rule by rule.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use gamma_model::Snapshot;
use gamma_model::validate::Channel;
use gamma_resolve::status::{ACCEPTED, PARTIALLY_INVALID};
use gamma_resolve::*;

const SERVICE: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: web, namespace: app}
spec: {clusterIP: 10.96.0.11, ports: [{port: 80}]}
"#;

/// One HTTPRoute on `app/web` with the given `spec` lines after `parentRefs`.
fn table_with(spec: &str, channel: Channel) -> RouteTable {
    let yaml = format!(
        "{SERVICE}---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: r, namespace: app}}
spec:
  parentRefs: [{{group: \"\", kind: Service, name: web}}]
{spec}"
    );
    let snapshot = Snapshot::from_resources(gamma_model::decode(&yaml).unwrap());
    let mut opts = BuildOptions::default();
    opts.channel = channel;
    RouteTable::build(&snapshot, &opts)
}

/// `rule` (YAML, indented as a list item under `rules`) followed by a valid rule for `/ok`.
fn with_valid_rule(rule: &str) -> String {
    format!(
        "  rules:\n{rule}  - matches: [{{path: {{value: /ok}}}}]\n    backendRefs: [{{name: web, port: 80}}]\n"
    )
}

fn get(t: &RouteTable, path: &str) -> Option<u16> {
    let ip = "10.96.0.11".parse().unwrap();
    match t.resolve(&Request::http(ip, 80, "GET", path), 0) {
        Decision::Forward(_) => None,
        d => d.status().map(|s| match s {
            Status::Http(c) => c,
            other => panic!("{other:?}"),
        }),
    }
}

// A rule the CRD rejects makes the API server refuse the whole route (it cannot exist in a
// cluster), so the route is left out whole, never served by its other rules: Accepted=False
// with its validation error; incompatible filters (the CEL rules on redirect with rewrite or
// with backendRefs) have reason IncompatibleFilters, other errors UnsupportedValue (Gateway API
// RouteConditionReason). One verdict per object: docs/validation.md.
#[test]
fn crd_rules_decide_first_with_the_gateway_api_reasons() {
    let cases = [
        (
            "  - matches: [{path: {value: /x}}]
    filters:
    - {type: RequestRedirect, requestRedirect: {statusCode: 301}}
    - {type: URLRewrite, urlRewrite: {hostname: a.example}}
",
            "IncompatibleFilters",
            "spec.rules[0].filters: May specify either httpRouteFilterRequestRedirect",
        ),
        (
            "  - matches: [{path: {value: /x}}]
    filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}]
    backendRefs: [{name: web, port: 80}]
",
            "IncompatibleFilters",
            "spec.rules[0]: RequestRedirect filter must not be used together with backendRefs",
        ),
        // the regex is past the engine's size limit, but the API server would already refuse
        // the rule for its second match: that is what is reported
        (
            "  - matches:
    - path: {type: RegularExpression, value: '(a{1000}){1000}'}
    - path: {type: Exact, value: /a/..}
    backendRefs: [{name: web, port: 80}]
",
            "UnsupportedValue",
            "spec.rules[0].matches[1].path.value",
        ),
        (
            "  - matches: [{path: {type: Glob, value: /x}}]
    backendRefs: [{name: web, port: 80}]
",
            "UnsupportedValue",
            "spec.rules[0].matches[0].path.type: unsupported value \"Glob\"",
        ),
    ];
    let ip = "10.96.0.11".parse().unwrap();
    for (rule, reason, message) in cases {
        let t = table_with(&with_valid_rule(rule), Channel::Standard);
        let st = &t.parent_conditions()[0];
        let acc = st.condition(ACCEPTED).unwrap();
        assert!(!acc.status, "{rule}");
        assert_eq!(acc.reason, reason, "{rule}: {}", acc.message);
        assert!(acc.message.contains(message), "{rule}: {}", acc.message);
        assert!(st.condition(PARTIALLY_INVALID).is_none(), "{rule}");
        let left_out: Vec<&str> = t.left_out_at(ip).collect();
        assert!(
            left_out.len() == 1 && left_out[0].contains(message),
            "{rule}: {left_out:?}"
        );
        let d = t.resolve(&Request::http(ip, 80, "GET", "/ok"), 0);
        assert!(matches!(d, Decision::Passthrough), "{rule}: {d:?}");
    }
}

// What the CRD admits but gamma-resolve cannot serve (HTTPRouteRule.filters: implementations
// reject the filters they cannot support): a regex past the size limit or one that is a regex
// only inside the full-match anchors, which it would escape (UnsupportedValue), an
// ExternalAuth filter (UnsupportedValue), a RequestRedirect on a backendRef (the backend would
// answer instead of forwarding: IncompatibleFilters).
#[test]
fn the_engines_own_checks_apply_to_rules_the_crd_admits() {
    let cases = [
        (
            "  - matches: [{path: {type: RegularExpression, value: '(a{1000}){1000}'}}]
    backendRefs: [{name: web, port: 80}]
",
            Channel::Standard,
            "UnsupportedValue",
            "spec.rules[0].matches[0].path.value: invalid regular expression",
        ),
        (
            "  - matches: [{headers: [{name: x-a, type: RegularExpression, value: '(b{1000}){1000}'}]}]
    backendRefs: [{name: web, port: 80}]
",
            Channel::Standard,
            "UnsupportedValue",
            "spec.rules[0].matches[0].headers[0]: invalid regular expression",
        ),
        (
            "  - matches: [{path: {type: RegularExpression, value: '/a)|(/b'}}]
    backendRefs: [{name: web, port: 80}]
",
            Channel::Standard,
            "UnsupportedValue",
            "spec.rules[0].matches[0].path.value: invalid regular expression \"/a)|(/b\"",
        ),
        (
            "  - filters:
    - type: ExternalAuth
      externalAuth: {protocol: GRPC, backendRef: {name: auth, port: 9000}, grpc: {}}
    backendRefs: [{name: web, port: 80}]
",
            Channel::Experimental,
            "UnsupportedValue",
            "spec.rules[0].filters[0]: filter type \"ExternalAuth\" is not supported",
        ),
        (
            "  - backendRefs:
    - name: web
      port: 80
      filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}]
",
            Channel::Standard,
            "IncompatibleFilters",
            "spec.rules[0].backendRefs[0].filters: RequestRedirect on a backendRef",
        ),
    ];
    for (rule, channel, reason, message) in cases {
        let t = table_with(&with_valid_rule(rule), channel);
        let st = &t.parent_conditions()[0];
        assert!(st.condition(ACCEPTED).unwrap().status, "{rule}");
        let pi = st.condition(PARTIALLY_INVALID).unwrap();
        assert_eq!(pi.reason, reason, "{rule}: {}", pi.message);
        assert!(pi.message.contains(message), "{rule}: {}", pi.message);
        assert_eq!(get(&t, "/ok"), None, "{rule}");
    }
}

// Gateway API HTTPRouteRule.filters: "If all Route Rules in a Route are invalid, the entire
// Route would be considered invalid"; route conditions: Accepted=False with the reason of the
// first invalid rule, each rule reported as the table reports a partially invalid route (not
// as a route rejected as a whole, which would list every error of every rule). The rules here
// are ones the CRD admits and the engine refuses (a regex past the size limit, a redirect on a
// backendRef), so the API server would store the route.
#[test]
fn a_route_whose_every_rule_is_invalid_is_reported_rule_by_rule() {
    let t = table_with(
        "  rules:
  - backendRefs:
    - name: web
      port: 80
      filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}]
  - matches: [{path: {type: RegularExpression, value: '(a{1000}){1000}'}}]
    backendRefs: [{name: web, port: 80}]
",
        Channel::Standard,
    );
    let acc = t.parent_conditions()[0]
        .condition(ACCEPTED)
        .unwrap()
        .clone();
    assert!(!acc.status);
    assert_eq!(acc.reason, "IncompatibleFilters", "{}", acc.message);
    assert!(
        acc.message
            .starts_with("all rules are invalid; rule 0: spec.rules[0].backendRefs[0]"),
        "{}",
        acc.message
    );
    assert!(!acc.message.contains("spec.rules[1]"), "{}", acc.message);
    // explain and resolve note each dropped rule with the same reason
    let ip = "10.96.0.11".parse().unwrap();
    let notes: Vec<&str> = t.left_out_at(ip).collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].starts_with("HTTPRoute app/r rule 0 was dropped (IncompatibleFilters): "),
        "{notes:?}"
    );
    assert!(
        notes[1].starts_with("HTTPRoute app/r rule 1 was dropped (UnsupportedValue): "),
        "{notes:?}"
    );
    assert_eq!(t.stats().rules, 0);
}
