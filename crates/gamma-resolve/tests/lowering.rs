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

// Gateway API HTTPRouteRule.filters: a rule the CRD rejects is dropped with its validation
// error; incompatible filters (the CEL rules on redirect with rewrite or with backendRefs)
// have reason IncompatibleFilters, other errors UnsupportedValue; the other rules still route.
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
    for (rule, reason, message) in cases {
        let t = table_with(&with_valid_rule(rule), Channel::Standard);
        let st = &t.parent_conditions()[0];
        assert!(st.condition(ACCEPTED).unwrap().status, "{rule}");
        let pi = st.condition(PARTIALLY_INVALID).unwrap();
        assert_eq!(pi.reason, reason, "{rule}: {}", pi.message);
        assert!(
            pi.message.starts_with("Dropped Rule(s) 0: rule 0: ") && pi.message.contains(message),
            "{rule}: {}",
            pi.message
        );
        assert_eq!(get(&t, "/ok"), None, "{rule}");
        assert_eq!(get(&t, "/x"), Some(404), "{rule}");
    }
}

// What the CRD admits but gamma-resolve cannot serve (HTTPRouteRule.filters: implementations
// reject the filters they cannot support): a regex past the size limit (UnsupportedValue), an
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
// as a route rejected as a whole, which would list every error of every rule).
#[test]
fn a_route_whose_every_rule_is_invalid_is_reported_rule_by_rule() {
    let t = table_with(
        "  rules:
  - matches: [{path: {value: /x}}]
    filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}]
    backendRefs: [{name: web, port: 80}]
  - matches: [{path: {value: /a/..}}]
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
            .starts_with("all rules are invalid; rule 0: spec.rules[0]: "),
        "{}",
        acc.message
    );
    assert!(!acc.message.contains("spec.rules[1]"), "{}", acc.message);
    let ip = "10.96.0.11".parse().unwrap();
    assert_eq!(t.left_out_at(ip).count(), 0);
    assert_eq!(t.stats().rules, 0);
}

// Route-level errors (here a hostname upstream's pattern refuses) reject the whole route:
// Accepted=False, UnsupportedValue, the field named, and a note on the Service it named.
#[test]
fn a_route_level_error_leaves_the_route_out() {
    let t = table_with(
        "  hostnames: [Bad.Example]
  rules:
  - backendRefs: [{name: web, port: 80}]
",
        Channel::Standard,
    );
    let acc = t.parent_conditions()[0]
        .condition(ACCEPTED)
        .unwrap()
        .clone();
    assert_eq!(
        (acc.status, acc.reason.as_str()),
        (false, "UnsupportedValue")
    );
    assert!(
        acc.message.starts_with("spec.hostnames[0]: "),
        "{}",
        acc.message
    );
    let ip = "10.96.0.11".parse().unwrap();
    assert_eq!(t.left_out_at(ip).count(), 1);
    assert_eq!(t.stats().routes, 0);
}

// GEP-2257 durations: timeouts and retry backoffs are forwarded in the Gateway API Duration
// form, from the validated values (hours, minutes, seconds, milliseconds).
#[test]
fn timeouts_are_forwarded_as_gateway_api_durations() {
    let t = table_with(
        "  rules:
  - timeouts: {request: 90m, backendRequest: 1500ms}
    backendRefs: [{name: web, port: 80}]
",
        Channel::Standard,
    );
    let ip = "10.96.0.11".parse().unwrap();
    let Decision::Forward(f) = t.resolve(&Request::http(ip, 80, "GET", "/"), 0) else {
        panic!()
    };
    assert_eq!(
        f.timeouts.unwrap(),
        &serde_json::json!({"request": "1h30m", "backendRequest": "1s500ms"})
    );
}

// One route lowers alone as it lowers within its snapshot (the per-route step an incremental
// build reruns), and a snapshot's validation verdicts are kept: a second build from the same
// snapshot (or a clone) lowers the same input.
#[test]
fn a_route_lowers_alone_as_within_its_snapshot() {
    let yaml = format!(
        "{SERVICE}---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: r, namespace: app}}
spec:
  parentRefs: [{{group: \"\", kind: Service, name: web}}]
{}",
        with_valid_rule(
            "  - matches: [{path: {type: RegularExpression, value: '/r[0-9]+'}}]
    backendRefs: [{name: web, port: 80}]
  - matches: [{path: {value: /a/..}}]
    backendRefs: [{name: web, port: 80}]
"
        )
    );
    // and a valid route, whose second lowering skips validation
    let yaml = format!(
        "{yaml}---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: s, namespace: app}}
spec:
  parentRefs: [{{group: \"\", kind: Service, name: web}}]
  rules:
  - matches: [{{path: {{type: PathPrefix, value: /v2/}}, headers: [{{name: X-A, value: b}}]}}]
    timeouts: {{request: 10s}}
    backendRefs: [{{name: web, port: 80, weight: 2}}]
"
    );
    let snapshot = Snapshot::from_resources(gamma_model::decode(&yaml).unwrap());
    let opts = gamma_model::validate::ValidateOptions::default();
    let alone: Vec<String> = snapshot
        .of_kind(gamma_model::ResourceKind::HttpRoute)
        .map(|r| format!("{:?}", lower_route(r, &opts).unwrap()))
        .collect();
    let alone = format!("[{}]", alone.join(", "));
    let within = || format!("{:?}", lower_with(&snapshot, &opts).routes);
    assert_eq!(alone, within());
    // the second lowering reads the kept verdicts
    assert_eq!(alone, within());
    assert_eq!(
        format!("{:?}", lower_with(&snapshot.clone(), &opts).routes),
        alone
    );
    assert!(lower_route(&gamma_model::decode(SERVICE).unwrap()[0], &opts).is_none());
}
