//! End to end from manifests: decode -> Snapshot -> RouteTable::build -> resolve.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::manifest::{outcome, snapshot};
use gamma_resolve::status::{ACCEPTED, NO_MATCHING_LISTENER_HOSTNAME, NOT_ALLOWED_BY_LISTENERS};
use gamma_resolve::*;

const MESH: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: app}
spec:
  clusterIP: 10.96.0.11
  ports: [{name: http, port: 80}, {name: http-alt, port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: echo-v1, namespace: app}
spec: {clusterIP: 10.96.0.12, ports: [{name: http, port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: echo-v2, namespace: app}
spec: {clusterIP: 10.96.0.13, ports: [{name: http, port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: split, namespace: app, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  parentRefs: [{group: "", kind: Service, name: echo, port: 80}]
  rules:
  - matches: [{path: {type: Exact, value: /v2}}]
    backendRefs: [{name: echo-v2, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /old}}]
    filters:
    - type: RequestRedirect
      requestRedirect:
        scheme: https
        path: {type: ReplacePrefixMatch, replacePrefixMatch: /new}
  - matches: [{path: {type: PathPrefix, value: /api/}}]
    filters:
    - type: URLRewrite
      urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /}}
    backendRefs: [{name: echo-v1, port: 80}]
  - backendRefs: [{name: echo-v1, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: wrong-group, namespace: app}
spec:
  parentRefs: [{kind: Service, name: echo}]
  rules: [{backendRefs: [{name: echo-v2, port: 80}]}]
"#;

// Gateway API ParentReference: `{kind: Service}` without `group: ""` is not a Service parent; the
// rest of the manifest routes as the spec says (exact path, redirect, rewrite, default rule).
#[test]
fn mesh_manifest_routes_end_to_end() {
    let snap = snapshot(MESH);
    let t = RouteTable::build(&snap, &BuildOptions::default());
    let ip = "10.96.0.11".parse().unwrap();
    let get = |p: &'static str| Request::http(ip, 80, "GET", p).with_host("echo.app");
    assert_eq!(outcome(&t.resolve(&get("/v2"), 0)), "echo-v2");
    assert_eq!(outcome(&t.resolve(&get("/v2/x"), 0)), "echo-v1");
    assert_eq!(
        outcome(&t.resolve(&get("/old/page?q=1"), 0)),
        "redirect 302 https://echo.app/new/page?q=1"
    );
    let d = t.resolve(&get("/api/users"), 0);
    let Decision::Forward(f) = d else {
        panic!("{d:?}")
    };
    assert_eq!(f.rewrite.unwrap().path.unwrap().to_string(), "/users");
    // the route is bound to port 80 only
    assert_eq!(
        outcome(&t.resolve(&Request::http(ip, 8080, "GET", "/v2"), 0)),
        "passthrough"
    );
    // the mis-grouped parentRef attaches nowhere, and its condition says why and names the fix
    // (no controller owns it, so the arbiter has nobody write it)
    let wrong = t
        .parent_conditions()
        .iter()
        .find(|s| s.name == "wrong-group")
        .unwrap();
    let accepted = wrong.condition(gamma_resolve::status::ACCEPTED).unwrap();
    assert!(!accepted.status);
    assert!(
        accepted
            .message
            .starts_with("not a Service (did you mean group: \"\"?)")
    );
}

const GATEWAY: &str = r#"
apiVersion: v1
kind: Namespace
metadata: {name: infra, labels: {gw: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {gw: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.1}]
  listeners:
  - name: exact
    port: 80
    protocol: HTTP
    hostname: foo.example.com
    allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {gw: "yes"}}}}
  - name: wild
    port: 80
    protocol: HTTP
    hostname: "*.example.com"
    allowedRoutes: {namespaces: {from: All}}
  - name: any
    port: 80
    protocol: HTTP
---
apiVersion: v1
kind: Service
metadata: {name: a, namespace: team-a}
spec: {clusterIP: 10.96.1.1, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: b, namespace: team-b}
spec: {clusterIP: 10.96.1.2, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: infra-svc, namespace: infra}
spec: {clusterIP: 10.96.1.3, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a, namespace: team-a}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: exact}]
  rules: [{backendRefs: [{name: a, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: b-exact, namespace: team-b}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: exact}]
  rules: [{backendRefs: [{name: b, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: b, namespace: team-b}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: wild}]
  hostnames: [bar.example.com, bar.example.net]
  rules:
  - matches: [{path: {value: /b}}]
    backendRefs: [{name: b, port: 80}]
  - matches: [{path: {value: /cross}}]
    backendRefs: [{name: a, namespace: team-a, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: nohost, namespace: team-b}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: wild}]
  hostnames: [other.net]
  rules: [{backendRefs: [{name: b, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: infra, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: any}]
  rules: [{backendRefs: [{name: infra-svc, port: 80}]}]
"#;

// Gateway API listener selection: listener selection exact > wildcard > none, no fallback to a less
// specific listener; allowedRoutes Selector with a real label selector; Gateway API hostname
// intersection intersection; Gateway API ReferenceGrant ReferenceGrant.
#[test]
fn gateway_listener_selection_allowed_routes_and_reference_grants() {
    let snap = snapshot(GATEWAY);
    let t = RouteTable::build(&snap, &BuildOptions::default());
    let ip = "192.0.2.1".parse().unwrap();
    let get = |host: &'static str, p: &'static str| Request::http(ip, 80, "GET", p).with_host(host);
    assert_eq!(outcome(&t.resolve(&get("foo.example.com", "/"), 0)), "a");
    // the exact listener is selected and has no rule for team-b: 404, no fallback
    assert_eq!(
        outcome(&t.resolve(&get("FOO.example.com:80", "/b"), 0)),
        "a"
    );
    assert_eq!(outcome(&t.resolve(&get("bar.example.com", "/b"), 0)), "b");
    assert_eq!(
        outcome(&t.resolve(&get("baz.example.com", "/b"), 0)),
        "HTTP 404"
    );
    assert_eq!(
        outcome(&t.resolve(&get("bar.example.net", "/b"), 0)),
        "infra-svc"
    );
    assert_eq!(
        outcome(&t.resolve(&get("elsewhere.org", "/"), 0)),
        "infra-svc"
    );
    // cross-namespace backend without a grant: 500 (Gateway routes always need one)
    assert_eq!(
        outcome(&t.resolve(&get("bar.example.com", "/cross"), 0)),
        "HTTP 500"
    );
    let cond = |name: &str| {
        t.parent_conditions()
            .iter()
            .find(|s| s.name == name)
            .and_then(|s| s.condition(ACCEPTED))
            .cloned()
            .unwrap()
    };
    assert_eq!(cond("b-exact").reason, NOT_ALLOWED_BY_LISTENERS);
    assert_eq!(cond("nohost").reason, NO_MATCHING_LISTENER_HOSTNAME);
    assert!(cond("b").status);

    // with a ReferenceGrant in team-a the cross-namespace backend resolves
    let grant = r#"
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: allow-b, namespace: team-a}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: team-b}]
  to: [{group: "", kind: Service}]
"#;
    let snap = snapshot(&format!("{GATEWAY}\n---\n{grant}"));
    let t = RouteTable::build(&snap, &BuildOptions::default());
    assert_eq!(
        outcome(&t.resolve(&get("bar.example.com", "/cross"), 0)),
        "a"
    );
}

// GEP-1294 implicit backendRef; Gateway API HTTPRouteRule.backendRefs: EndpointSlices without ready
// endpoints make the share 503.
#[test]
fn endpoint_slices_without_ready_endpoints_give_503() {
    let yaml = format!(
        "{MESH}\n---\n{}",
        r#"
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: echo-v2-abc, namespace: app, labels: {kubernetes.io/service-name: echo-v2}}
addressType: IPv4
endpoints: [{addresses: [10.244.0.9], conditions: {ready: false}}]
"#
    );
    let t = RouteTable::build(&snapshot(&yaml), &BuildOptions::default());
    let ip = "10.96.0.11".parse().unwrap();
    assert_eq!(
        outcome(&t.resolve(&Request::http(ip, 80, "GET", "/v2"), 0)),
        "HTTP 503"
    );
    assert_eq!(
        outcome(&t.resolve(&Request::http(ip, 80, "GET", "/x"), 0)),
        "echo-v1"
    );
}

// Gateway API HTTPPathMatch and route conditions: an unknown enum value drops the rule with
// UnsupportedValue; others still route.
#[test]
fn unknown_enum_value_drops_the_rule() {
    let yaml = r#"
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: app}
spec: {clusterIP: 10.96.0.11, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: echo}]
  rules:
  - matches: [{path: {type: Glob, value: "/*"}}]
    backendRefs: [{name: echo, port: 80}]
  - matches: [{path: {value: /ok}}]
    backendRefs: [{name: echo, port: 80}]
"#;
    let t = RouteTable::build(&snapshot(yaml), &BuildOptions::default());
    let st = &t.parent_conditions()[0];
    assert!(st.condition(ACCEPTED).unwrap().status);
    let pi = st
        .condition(gamma_resolve::status::PARTIALLY_INVALID)
        .unwrap();
    assert_eq!(pi.reason, "UnsupportedValue");
    let ip = "10.96.0.11".parse().unwrap();
    assert_eq!(
        outcome(&t.resolve(&Request::http(ip, 80, "GET", "/ok"), 0)),
        "echo"
    );
    assert_eq!(
        outcome(&t.resolve(&Request::http(ip, 80, "GET", "/x"), 0)),
        "HTTP 404"
    );
}

// Gateway API CRDs v1.6.1, bad input: upstream validation runs while building; an error
// inside a rule drops that rule, an error elsewhere excludes the route; both are reported, never a
// panic.
#[test]
fn validation_failures_drop_rules_or_exclude_routes() {
    let yaml = r#"
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: app}
spec: {clusterIP: 10.96.0.11, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: rule-bad, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: echo}]
  rules:
  - matches: [{path: {type: PathPrefix, value: "no-leading-slash"}}]
    backendRefs: [{name: echo, port: 80}]
  - matches: [{path: {value: /ok}}]
    backendRefs: [{name: echo, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route-bad, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: echo}]
  hostnames: ["Not_A_Hostname"]
  rules: [{backendRefs: [{name: echo, port: 80}]}]
"#;
    let t = RouteTable::build(&snapshot(yaml), &BuildOptions::default());
    let st = |name: &str| {
        t.parent_conditions()
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .clone()
    };
    let rule_bad = st("rule-bad");
    assert!(rule_bad.condition(ACCEPTED).unwrap().status);
    let pi = rule_bad
        .condition(gamma_resolve::status::PARTIALLY_INVALID)
        .unwrap();
    assert!(pi.message.contains("spec.rules[0]"), "{}", pi.message);
    let route_bad = st("route-bad");
    let acc = route_bad.condition(ACCEPTED).unwrap();
    assert!(
        !acc.status && acc.message.contains("spec.hostnames"),
        "{acc:?}"
    );
    let ip = "10.96.0.11".parse().unwrap();
    assert_eq!(
        outcome(&t.resolve(&Request::http(ip, 80, "GET", "/ok"), 0)),
        "echo"
    );
    assert_eq!(
        outcome(&t.resolve(&Request::http(ip, 80, "GET", "/other"), 0)),
        "HTTP 404"
    );
}

const HTTPS_GATEWAY: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.7}]
  listeners:
  - name: https
    port: 443
    protocol: HTTPS
    tls: {mode: Terminate, certificateRefs: [{name: cert}]}
  - name: http
    port: 8080
    protocol: HTTP
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: moved, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /old}}]
    filters:
    - type: RequestRedirect
      requestRedirect: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /new}}
"#;

// Gateway API `Listener.protocol`: an HTTPS listener terminates TLS, so its requests are https;
// HTTPRequestRedirectFilter: a redirect without a scheme keeps the request's, and the well-known
// port of that scheme (443 for https) is left out of `Location`. A request that gives no scheme
// takes the listener's; one that gives a scheme keeps it.
#[test]
fn a_redirect_through_an_https_listener_keeps_https_and_omits_port_443() {
    let table = RouteTable::build(&snapshot(HTTPS_GATEWAY), &BuildOptions::default());
    let ip = "192.0.2.7".parse().unwrap();
    let tls = Request::http(ip, 443, "GET", "/old/x").with_host("shop.example.com");
    assert_eq!(
        outcome(&table.resolve(&tls, 0)),
        "redirect 302 https://shop.example.com/new/x"
    );
    let plain = Request::http(ip, 8080, "GET", "/old/x").with_host("shop.example.com");
    assert_eq!(
        outcome(&table.resolve(&plain, 0)),
        "redirect 302 http://shop.example.com:8080/new/x"
    );
    // the caller's scheme wins over the listener's
    assert_eq!(
        outcome(&table.resolve(&tls.with_scheme(Scheme::Http), 0)),
        "redirect 302 http://shop.example.com:443/new/x"
    );
}

// Gateway API HTTPRoute status, `ResolvedRefs`: every backendRef that does not resolve is
// reported, each with its own reason and field, not only the first (the condition carries the
// first reason and lists them all in its message).
#[test]
fn every_unresolved_backend_ref_is_listed_with_its_reason_and_field() {
    let yaml = r#"
apiVersion: v1
kind: Service
metadata: {name: web, namespace: app}
spec: {clusterIP: 10.96.3.1, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: web, port: 80}]
  rules:
  - backendRefs: [{name: web, port: 80}, {name: missing, port: 80}]
  - backendRefs: [{group: example.com, kind: Widget, name: w}, {name: web, port: 81}]
"#;
    let table = RouteTable::build(&snapshot(yaml), &BuildOptions::default());
    let status = table.parent_conditions();
    let p = status.iter().find(|p| p.name == "r").unwrap();
    let got: Vec<(&str, &str)> = p
        .unresolved
        .iter()
        .map(|u| (u.field.as_str(), u.reason.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("spec.rules[0].backendRefs[1]", "BackendNotFound"),
            ("spec.rules[1].backendRefs[0]", "InvalidKind"),
            ("spec.rules[1].backendRefs[1]", "BackendNotFound"),
        ]
    );
    assert!(
        p.unresolved[2].message.contains("no port 81"),
        "{:?}",
        p.unresolved
    );
    let rr = p.condition(status::RESOLVED_REFS).unwrap();
    assert!(!rr.status);
    assert_eq!(rr.reason, "BackendNotFound");
    assert_eq!(rr.message.matches("; ").count(), 2, "{}", rr.message);
}
