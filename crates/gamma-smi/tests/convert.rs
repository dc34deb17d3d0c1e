//! Conversion of SMI TrafficSplits to Gateway API routes, checked against the SMI
//! spec texts (smi-spec `apis/traffic-split/*`, `apis/traffic-specs/*`) and the Gateway API v1.6.1
//! specification.

use gamma_model::Validate;
use gamma_model::gateway::{HttpRoute, HttpRouteRule, MatchType, PathMatchType};
use gamma_model::validate::{Channel, ValidateOptions};
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot, decode};
use gamma_smi::{Conversion, Severity};

/// Converts and checks that the converted resources pass gamma-model validation, on both release
/// channels.
fn convert(snapshot: &Snapshot) -> Conversion {
    let out = gamma_smi::convert(snapshot);
    for r in &out.resources {
        for channel in [Channel::Standard, Channel::Experimental] {
            if let Err(e) = r.validate_with(&ValidateOptions::channel(channel)) {
                panic!(
                    "{channel:?}: converted {} is invalid: {e}",
                    ObjectKey::of(r)
                );
            }
        }
    }
    out
}

fn snap(yaml: &str) -> Snapshot {
    Snapshot::from_resources(decode(yaml).unwrap())
}

fn http_routes(resources: &[AnyResource]) -> Vec<&HttpRoute> {
    resources
        .iter()
        .filter_map(|r| match r {
            AnyResource::HttpRoute(h) => Some(h),
            _ => None,
        })
        .collect()
}

fn rules(route: &HttpRoute) -> &[HttpRouteRule] {
    route.spec.rules.as_deref().unwrap()
}

fn backends(rule: &HttpRouteRule) -> Vec<(String, i32, i32)> {
    rule.backend_refs
        .iter()
        .map(|b| {
            (
                b.backend_ref.name.clone(),
                b.backend_ref.port.unwrap(),
                b.backend_ref.weight.unwrap(),
            )
        })
        .collect()
}

const BIRDS: &str = r#"
apiVersion: v1
kind: Service
metadata: {name: birds, namespace: zoo}
spec: {ports: [{name: grpc, port: 8080, appProtocol: http}, {name: rest, port: 9090, appProtocol: http}]}
---
apiVersion: v1
kind: Service
metadata: {name: blue-birds, namespace: zoo}
spec: {ports: [{name: grpc, port: 1024}, {name: rest, port: 9090}]}
---
apiVersion: v1
kind: Service
metadata: {name: green-birds, namespace: zoo}
spec: {ports: [{name: grpc, port: 8080, targetPort: 8081}, {name: rest, port: 9090}]}
"#;

// smi-spec traffic-split v1alpha1 "Specification": weights 10m, 100m, 1500m are 1:10:150.
// Gateway API ParentReference (Service parentRef shape), GEP-1294 ports (port), Gateway API
// BackendRef.weight (weights).
#[test]
fn v1alpha1_quantity_weights_become_integer_weights_on_a_service_producer_route() {
    let s = snap(
        r#"
apiVersion: v1
kind: Service
metadata: {name: numbers, namespace: default}
spec: {ports: [{port: 80, appProtocol: http}]}
---
apiVersion: v1
kind: Service
metadata: {name: one}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: two}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: three}
spec: {ports: [{port: 80}]}
---
apiVersion: split.smi-spec.io/v1alpha1
kind: TrafficSplit
metadata: {name: my-weights}
spec:
  service: numbers
  backends:
  - {service: one, weight: 10m}
  - {service: two, weight: 100m}
  - {service: three, weight: 1500m}
"#,
    );
    let out = convert(&s);
    assert!(out.report.is_lossless(), "{}", out.report);
    let routes = http_routes(&out.resources);
    assert_eq!(routes.len(), 1);
    let r = routes[0];
    assert_eq!(r.metadata.namespace.as_deref(), Some("default"));
    let p = &r.spec.parent_refs[0];
    assert_eq!(p.group.as_deref(), Some(""));
    assert_eq!(p.kind.as_deref(), Some("Service"));
    assert_eq!(p.name, "numbers");
    assert_eq!(p.port, Some(80));
    assert_eq!(rules(r).len(), 1);
    assert!(
        rules(r)[0].matches.is_none(),
        "an unmatched split takes every request"
    );
    assert_eq!(
        backends(&rules(r)[0]),
        [
            ("one".to_owned(), 80, 1),
            ("two".to_owned(), 80, 10),
            ("three".to_owned(), 80, 150)
        ]
    );
}

// smi-spec traffic-split "Ports": "There must be a match between a port on the root service and
// a port on every destination backend service. If they do not match, the backend service is not
// included". The example: birds:8080 goes only to green-birds; birds:9090 to both.
#[test]
fn one_route_per_root_port_and_backends_lacking_the_port_are_dropped_and_reported() {
    let s = snap(&format!(
        "{BIRDS}---\napiVersion: split.smi-spec.io/v1alpha2\nkind: TrafficSplit\nmetadata: {{name: birds, namespace: zoo}}\nspec:\n  service: birds\n  backends:\n  - {{service: blue-birds, weight: 50}}\n  - {{service: green-birds, weight: 50}}\n"
    ));
    let out = convert(&s);
    let routes = http_routes(&out.resources);
    let by_port: Vec<_> = routes
        .iter()
        .map(|r| (r.spec.parent_refs[0].port.unwrap(), backends(&rules(r)[0])))
        .collect();
    assert_eq!(
        by_port,
        [
            (8080, vec![("green-birds".to_owned(), 8080, 1)]),
            (
                9090,
                vec![
                    ("blue-birds".to_owned(), 9090, 1),
                    ("green-birds".to_owned(), 9090, 1)
                ]
            ),
        ]
    );
    let me = ObjectKey::new(ResourceKind::TrafficSplit, "zoo", "birds");
    let dropped: Vec<_> = out
        .report
        .about(&me)
        .filter(|f| f.severity == Severity::Dropped)
        .collect();
    assert_eq!(dropped.len(), 1, "{}", out.report);
    assert_eq!(dropped[0].field, "spec.backends[0].service");
    assert!(dropped[0].message.contains("no port 8080"));
}

// smi-spec traffic-split v1alpha4 "A/B test example" + traffic-specs v1alpha4 (methods,
// pathRegex, headers). Gateway API HTTPRouteMatch.method (one method per match), Gateway API
// HTTPRouteRule.matches (no match → 404, hence the catch-all), GEP-1294 multiple routes for a
// Service (a backendRef to the parent Service reaches its endpoints).
#[test]
fn route_group_matches_become_rules_with_an_explicit_catch_all_to_the_root_service() {
    let s = snap(
        r#"
apiVersion: v1
kind: Service
metadata: {name: website, namespace: web}
spec: {ports: [{name: http, port: 80, appProtocol: http}]}
---
apiVersion: v1
kind: Service
metadata: {name: website-v2, namespace: web}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: specs.smi-spec.io/v1alpha4
kind: HTTPRouteGroup
metadata: {name: ab-test, namespace: web}
spec:
  matches:
  - name: firefox-users
    headers: {user-agent: ".*Firefox.*"}
  - name: api
    pathRegex: "/api/.*"
    methods: [GET, HEAD]
    headers: {x-tier: gold}
---
apiVersion: split.smi-spec.io/v1alpha4
kind: TrafficSplit
metadata: {name: ab-test, namespace: web}
spec:
  service: website
  matches: [{kind: HTTPRouteGroup, name: ab-test}]
  backends: [{service: website-v2, weight: 100}]
"#,
    );
    let out = convert(&s);
    let routes = http_routes(&out.resources);
    assert_eq!(routes.len(), 1);
    let rs = rules(routes[0]);
    assert_eq!(rs.len(), 2);
    let ms = rs[0].matches.as_ref().unwrap();
    assert_eq!(ms.len(), 3, "firefox + api×{{GET, HEAD}}");
    assert_eq!(ms[0].headers[0].type_, Some(MatchType::RegularExpression));
    assert_eq!(ms[0].headers[0].value, ".*Firefox.*");
    let api_path = ms[1].path.as_ref().unwrap();
    assert_eq!(api_path.type_, Some(PathMatchType::RegularExpression));
    assert_eq!(api_path.value.as_deref(), Some("(?:/api/.*).*"));
    assert_eq!(ms[2].headers[0].type_, Some(MatchType::Exact));
    assert_eq!(backends(&rs[0]), [("website-v2".to_owned(), 80, 1)]);
    // The catch-all sends the rest to the root Service, ranking below the converted regex.
    let catch_all = &rs[1].matches.as_ref().unwrap()[0];
    let p = catch_all.path.as_ref().unwrap();
    assert_eq!(p.type_, Some(PathMatchType::RegularExpression));
    assert_eq!(p.value.as_deref(), Some(".*"));
    assert_eq!(backends(&rs[1]), [("website".to_owned(), 80, 1)]);
}

#[test]
fn header_only_matches_keep_a_core_path_prefix_catch_all() {
    let s = snap(
        r#"
apiVersion: v1
kind: Service
metadata: {name: website}
spec: {ports: [{port: 80, appProtocol: http}]}
---
apiVersion: v1
kind: Service
metadata: {name: website-v2}
spec: {ports: [{port: 80}]}
---
apiVersion: specs.smi-spec.io/v1alpha3
kind: HTTPRouteGroup
metadata: {name: ab}
spec: {matches: [{name: ff, headers: {user-agent: ".*Firefox.*"}}]}
---
apiVersion: split.smi-spec.io/v1alpha3
kind: TrafficSplit
metadata: {name: ab}
spec:
  service: website
  matches: [{kind: HTTPRouteGroup, name: ab}]
  backends: [{service: website-v2, weight: 1}]
"#,
    );
    let out = convert(&s);
    let rs = rules(http_routes(&out.resources)[0]);
    let p = rs[1].matches.as_ref().unwrap()[0].path.as_ref().unwrap();
    assert_eq!(p.type_, Some(PathMatchType::PathPrefix));
    assert_eq!(p.value.as_deref(), Some("/"));
    assert!(out.report.is_lossless(), "{}", out.report);
}

// Everything that cannot be expressed is listed in the report with the object and field, never
// silently dropped.
#[test]
fn inexpressible_matches_are_reported_on_the_route_group_with_their_field() {
    let s = snap(
        r#"
apiVersion: v1
kind: Service
metadata: {name: website}
spec: {ports: [{port: 80, appProtocol: http}]}
---
apiVersion: v1
kind: Service
metadata: {name: website-v2}
spec: {ports: [{port: 80}]}
---
apiVersion: specs.smi-spec.io/v1alpha2
kind: HTTPRouteGroup
metadata: {name: g}
matches:
- name: ok
  pathRegex: /ok
- name: pseudo
  headers: {":authority": "x"}
---
apiVersion: split.smi-spec.io/v1alpha3
kind: TrafficSplit
metadata: {name: s}
spec:
  service: website
  matches: [{kind: HTTPRouteGroup, name: g}, {kind: HTTPRouteGroup, name: missing}]
  backends: [{service: website-v2, weight: 1}]
"#,
    );
    let out = convert(&s);
    let group = ObjectKey::new(ResourceKind::HttpRouteGroup, "default", "g");
    let f: Vec<_> = out.report.about(&group).collect();
    assert_eq!(f.len(), 1, "{}", out.report);
    assert_eq!(f[0].severity, Severity::Dropped);
    assert_eq!(f[0].field, "matches[1].headers[:authority]");
    let split = ObjectKey::new(ResourceKind::TrafficSplit, "default", "s");
    assert!(
        out.report
            .about(&split)
            .any(|f| f.field == "spec.matches[1]" && f.message.contains("not found")),
        "{}",
        out.report
    );
    let rs = rules(http_routes(&out.resources)[0]);
    assert_eq!(rs[0].matches.as_ref().unwrap().len(), 1);
}

// smi-spec traffic-specs v1alpha4 TCPRoute `matches.ports`; TLSRoute, TCPRoute and UDPRoute CRDs
// v1.6.1 (one rule).
#[test]
fn tcp_route_matched_splits_become_tcp_routes_on_the_listed_ports_only() {
    let s = snap(
        r#"
apiVersion: v1
kind: Service
metadata: {name: db}
spec: {ports: [{name: mysql, port: 3306}, {name: admin, port: 6446}]}
---
apiVersion: v1
kind: Service
metadata: {name: db-v2}
spec: {ports: [{name: mysql, port: 3306}, {name: admin, port: 6446}]}
---
apiVersion: specs.smi-spec.io/v1alpha4
kind: TCPRoute
metadata: {name: mysql}
spec: {matches: {ports: [3306]}}
---
apiVersion: split.smi-spec.io/v1alpha4
kind: TrafficSplit
metadata: {name: db}
spec:
  service: db
  matches: [{kind: TCPRoute, name: mysql}]
  backends: [{service: db, weight: 3}, {service: db-v2, weight: 1}]
"#,
    );
    let out = convert(&s);
    assert_eq!(out.resources.len(), 1, "{:?}", out.resources);
    let AnyResource::TcpRoute(t) = &out.resources[0] else {
        panic!("{:?}", out.resources[0])
    };
    assert_eq!(t.spec.parent_refs[0].port, Some(3306));
    assert_eq!(t.spec.rules.len(), 1);
    let w: Vec<_> = t.spec.rules[0]
        .backend_refs
        .iter()
        .map(|b| (b.name.as_str(), b.weight.unwrap()))
        .collect();
    assert_eq!(w, [("db", 3), ("db-v2", 1)]);
    let me = ObjectKey::new(ResourceKind::TrafficSplit, "default", "db");
    assert!(out.report.about(&me).any(|f| f.message.contains("6446")));
}

#[test]
fn udp_ports_become_udp_routes_and_tcp_app_protocol_ports_tcp_routes() {
    let s = snap(
        r#"
apiVersion: v1
kind: Service
metadata: {name: dns}
spec: {ports: [{name: dns, port: 53, protocol: UDP}, {name: dns-tcp, port: 53, protocol: TCP, appProtocol: tcp}]}
---
apiVersion: v1
kind: Service
metadata: {name: dns-v2}
spec: {ports: [{name: dns, port: 53, protocol: UDP}, {name: dns-tcp, port: 53, protocol: TCP}]}
---
apiVersion: split.smi-spec.io/v1alpha2
kind: TrafficSplit
metadata: {name: dns}
spec:
  service: dns
  backends: [{service: dns-v2, weight: 1}]
"#,
    );
    let kinds: Vec<_> = convert(&s)
        .resources
        .iter()
        .map(AnyResource::kind)
        .collect();
    assert_eq!(kinds, [ResourceKind::UdpRoute, ResourceKind::TcpRoute]);
}

#[test]
fn a_missing_root_service_or_an_invalid_split_is_reported_and_not_converted() {
    let s = snap(
        r#"
apiVersion: split.smi-spec.io/v1alpha2
kind: TrafficSplit
metadata: {name: orphan}
spec: {service: nowhere, backends: [{service: a, weight: 1}]}
---
apiVersion: split.smi-spec.io/v1alpha2
kind: TrafficSplit
metadata: {name: bad}
spec: {service: nowhere, backends: [{service: a, weight: 500m}]}
"#,
    );
    let out = convert(&s);
    assert!(out.resources.is_empty());
    let fields: Vec<_> = out
        .report
        .findings()
        .iter()
        .map(|f| (f.object.name.as_str(), f.field.as_str()))
        .collect();
    assert_eq!(
        fields,
        [
            ("bad", "spec.backends[0].weight"),
            ("orphan", "spec.service")
        ]
    );
}

#[test]
fn traffic_targets_are_reported_as_having_no_gateway_api_equivalent() {
    let s = snap(
        "apiVersion: access.smi-spec.io/v1alpha3\nkind: TrafficTarget\nmetadata: {name: t, namespace: a}\nspec:\n  destination: {kind: ServiceAccount, name: x}\n  rules: [{kind: TCPRoute, name: r}]\n  sources: [{kind: ServiceAccount, name: client}]\n",
    );
    let out = convert(&s);
    assert_eq!(out.report.findings().len(), 1);
    assert_eq!(out.report.findings()[0].severity, Severity::Dropped);
    assert_eq!(
        out.report.findings()[0].object,
        ObjectKey::new(ResourceKind::TrafficTarget, "a", "t")
    );
}

// docs/architecture.md "Determinism": same resources in any order give the same result.
#[test]
fn conversion_does_not_depend_on_input_order() {
    let yaml = format!(
        "{BIRDS}---\napiVersion: split.smi-spec.io/v1alpha2\nkind: TrafficSplit\nmetadata: {{name: b, namespace: zoo}}\nspec:\n  service: birds\n  backends: [{{service: blue-birds, weight: 1}}, {{service: green-birds, weight: 2}}]\n---\napiVersion: split.smi-spec.io/v1alpha2\nkind: TrafficSplit\nmetadata: {{name: a, namespace: zoo}}\nspec:\n  service: birds\n  backends: [{{service: green-birds, weight: 1}}]\n"
    );
    let docs = decode(&yaml).unwrap();
    let fwd = convert(&Snapshot::from_resources(docs.clone()));
    let back = convert(&Snapshot::from_resources(docs.into_iter().rev()));
    assert_eq!(fwd.resources, back.resources);
    assert_eq!(fwd.report, back.report);
    // Two splits on one root Service: noted on the second.
    assert!(
        fwd.report
            .findings()
            .iter()
            .any(|f| f.object.name == "b" && f.message.contains("also splits"))
    );
}

// The converted YAML decodes back into the same resources (what `gammactl convert smi` prints).
#[test]
fn converted_resources_encode_and_decode_losslessly() {
    let s = snap(&format!(
        "{BIRDS}---\napiVersion: split.smi-spec.io/v1alpha1\nkind: TrafficSplit\nmetadata: {{name: birds, namespace: zoo}}\nspec:\n  service: birds\n  backends:\n  - {{service: blue-birds, weight: 250m}}\n  - {{service: green-birds, weight: '1'}}\n"
    ));
    let out = convert(&s);
    let json = serde_json::to_string(&out.resources).unwrap();
    let back = decode(&json).unwrap();
    assert_eq!(back, out.resources);
}
