//! Scenarios of the TrafficTarget to XAuthorizationPolicy conversion (`gamma_smi::gep`): the
//! smi-spec traffic-access examples (`apis/traffic-access/v1alpha3/traffic-access.md`) and the
//! mapping's edge cases (docs/authorization.md, "Migrating from SMI"), each checked on the
//! policy, the report and the verdicts of the GEP-3779 engine (gamma-authz).
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use gamma_authz::{Config, Identity};
use gamma_model::{AnyResource, Snapshot, decode};
use gamma_smi::gep::{ACCESS_ANNOTATION, PolicyConversion, convert_traffic_targets};
use gamma_smi::{AccessRequest, Authorizer, Severity};

fn convert(yaml: &str) -> (Snapshot, PolicyConversion) {
    let snap = Snapshot::from_resources(decode(yaml).unwrap());
    let out = convert_traffic_targets(&snap);
    (snap, out)
}

/// Whether `ns/sa` may reach Pod `pod_ns/pod` on `port` under the converted policies.
fn gep_allows(
    snap: &Snapshot,
    out: &PolicyConversion,
    from: (&str, &str),
    pod: (&str, &str),
    port: u16,
) -> bool {
    let mut snap = snap.clone();
    for p in &out.policies {
        snap.upsert(AnyResource::XAuthorizationPolicy(p.clone()));
    }
    let config = Config::default();
    let a = gamma_authz::Authorizer::build(&snap, config.clone());
    let w = a.workload_named(pod.0, pod.1).unwrap();
    let peer = Identity::service_account(&config.trust_domain, from.0, from.1);
    a.decide(Some(&peer), w, port).allowed()
}

fn severities(out: &PolicyConversion) -> Vec<Severity> {
    out.report.findings().iter().map(|f| f.severity).collect()
}

const SERVICE_A_PODS: &str = r#"
apiVersion: v1
kind: Pod
metadata: {name: service-a-0, namespace: default, labels: {app: service-a, pod-template-hash: abc}}
spec: {serviceAccountName: service-a}
---
apiVersion: v1
kind: Pod
metadata: {name: service-a-1, namespace: default, labels: {app: service-a, pod-template-hash: def}}
spec: {serviceAccountName: service-a}
---
"#;

/// smi-spec v1alpha3 "path-specific": Prometheus may GET /metrics on port 8080. The policy
/// keeps the source and the port; the HTTPRouteGroup match is dropped, and the report says
/// first that this widens access (POST /admin on 8080 is now allowed).
#[test]
fn smi_spec_path_specific_example_keeps_source_and_port_and_reports_the_dropped_match_first() {
    let (snap, out) = convert(&format!(
        "{SERVICE_A_PODS}{}",
        r#"
apiVersion: specs.smi-spec.io/v1alpha4
kind: TCPRoute
metadata: {name: the-routes, namespace: default}
spec: {matches: {ports: [8080]}}
---
apiVersion: specs.smi-spec.io/v1alpha4
kind: HTTPRouteGroup
metadata: {name: the-routes, namespace: default}
spec:
  matches:
  - {name: metrics, pathRegex: /metrics, methods: [GET]}
---
apiVersion: access.smi-spec.io/v1alpha3
kind: TrafficTarget
metadata: {name: path-specific, namespace: default}
spec:
  destination: {kind: ServiceAccount, name: service-a, namespace: default}
  rules:
  - {kind: TCPRoute, name: the-routes}
  - {kind: HTTPRouteGroup, name: the-routes, matches: [metrics]}
  sources:
  - {kind: ServiceAccount, name: prometheus, namespace: default}
"#
    ));
    assert_eq!(out.policies.len(), 1);
    let p = &out.policies[0];
    assert_eq!(
        (p.metadata.namespace.as_deref(), p.metadata.name.as_str()),
        (Some("default"), "path-specific")
    );
    assert_eq!(p.metadata.annotations[ACCESS_ANNOTATION], "widened");
    // The label both Pods share; not the per-ReplicaSet hash.
    let selector = p.spec.target_refs[0].selector.as_ref().unwrap();
    assert_eq!(selector.match_labels.len(), 1);
    assert_eq!(selector.match_labels["app"], "service-a");
    let first = &out.report.findings()[0];
    assert_eq!(first.severity, Severity::Widened);
    assert_eq!(first.field, "spec.rules[1].matches");
    assert!(
        first
            .message
            .contains("match \"metrics\" (methods GET, pathRegex \"/metrics\") is DROPPED"),
        "{first}"
    );

    // SMI: GET /metrics allowed, POST /admin denied; the policy: any request on 8080.
    let smi = Authorizer::build(&snap);
    let prom = "default/prometheus".parse().unwrap();
    let sa = "default/service-a".parse().unwrap();
    let admin = AccessRequest::http("POST", "/admin").on_port(8080);
    assert!(!smi.authorize(&prom, &sa, &admin).allowed);
    assert!(gep_allows(
        &snap,
        &out,
        ("default", "prometheus"),
        ("default", "service-a-1"),
        8080
    ));
    // What stays equal: other ports and other sources are denied.
    assert!(!gep_allows(
        &snap,
        &out,
        ("default", "prometheus"),
        ("default", "service-a-1"),
        9090
    ));
    assert!(!gep_allows(
        &snap,
        &out,
        ("default", "grafana"),
        ("default", "service-a-0"),
        8080
    ));
}

/// HTTPRouteGroup rules without a TCPRoute rule: SMI admits only matching HTTP, on any port;
/// the policy admits any TCP traffic on every port, reported as widened.
#[test]
fn http_only_target_is_widened_to_all_tcp_traffic() {
    let (snap, out) = convert(&format!(
        "{SERVICE_A_PODS}{}",
        r#"
apiVersion: specs.smi-spec.io/v1alpha4
kind: HTTPRouteGroup
metadata: {name: all, namespace: default}
spec: {matches: [{name: everything, pathRegex: ".*"}]}
---
apiVersion: access.smi-spec.io/v1alpha3
kind: TrafficTarget
metadata: {name: http-only, namespace: default}
spec:
  destination: {kind: ServiceAccount, name: service-a}
  rules: [{kind: HTTPRouteGroup, name: all}]
  sources: [{kind: ServiceAccount, name: web}]
"#
    ));
    // A match admitting every request loses nothing; the missing TCPRoute rule does.
    assert_eq!(severities(&out)[0], Severity::Widened);
    assert_eq!(
        severities(&out)
            .iter()
            .filter(|s| **s == Severity::Widened)
            .count(),
        1
    );
    assert!(
        out.report.findings()[0]
            .message
            .contains("no TCPRoute rule")
    );
    let rule = &out.policies[0].spec.rules.as_ref().unwrap()[0];
    assert!(rule.network_attributes.is_none());
    let smi = Authorizer::build(&snap);
    let web = "default/web".parse().unwrap();
    let sa = "default/service-a".parse().unwrap();
    assert!(!smi.authorize(&web, &sa, &AccessRequest::tcp(5432)).allowed);
    assert!(gep_allows(
        &snap,
        &out,
        ("default", "web"),
        ("default", "service-a-0"),
        5432
    ));
}

/// A UDPRoute rule has no GEP-3779 equivalent: narrowed; the policy without rules allows
/// nothing, as SMI allowed no TCP traffic.
#[test]
fn udp_only_target_is_narrowed_and_allows_no_tcp() {
    let (snap, out) = convert(&format!(
        "{SERVICE_A_PODS}{}",
        r#"
apiVersion: specs.smi-spec.io/v1alpha4
kind: UDPRoute
metadata: {name: dns, namespace: default}
spec: {matches: {ports: [53]}}
---
apiVersion: access.smi-spec.io/v1alpha3
kind: TrafficTarget
metadata: {name: dns, namespace: default}
spec:
  destination: {kind: ServiceAccount, name: service-a}
  rules: [{kind: UDPRoute, name: dns}]
  sources: [{kind: ServiceAccount, name: web}]
"#
    ));
    assert_eq!(severities(&out)[0], Severity::Narrowed);
    assert_eq!(
        out.policies[0].metadata.annotations[ACCESS_ANNOTATION],
        "narrowed"
    );
    assert_eq!(out.policies[0].spec.rules.as_deref(), Some(&[][..]));
    assert!(!gep_allows(
        &snap,
        &out,
        ("default", "web"),
        ("default", "service-a-0"),
        53
    ));
    let smi = Authorizer::build(&snap);
    let web = "default/web".parse().unwrap();
    let sa = "default/service-a".parse().unwrap();
    assert!(smi.authorize(&web, &sa, &AccessRequest::udp(53)).allowed);
    assert!(!smi.authorize(&web, &sa, &AccessRequest::tcp(53)).allowed);
}

/// A TrafficTarget in another namespace than its destination: the policy moves to the
/// destination's namespace (GEP-3779: a policy only targets objects in its namespace), is named
/// `NAMESPACE.NAME`, and writes out the sources' namespace (SMI's default, the TrafficTarget's,
/// is not GEP-3779's, the policy's).
#[test]
fn target_in_another_namespace_moves_to_the_destination_and_keeps_source_namespaces() {
    let (snap, out) = convert(&format!(
        "{SERVICE_A_PODS}{}",
        r#"
apiVersion: specs.smi-spec.io/v1alpha4
kind: TCPRoute
metadata: {name: any, namespace: ops}
spec: {matches: {}}
---
apiVersion: access.smi-spec.io/v1alpha3
kind: TrafficTarget
metadata: {name: scrape, namespace: ops}
spec:
  destination: {kind: ServiceAccount, name: service-a, namespace: default}
  rules: [{kind: TCPRoute, name: any}]
  sources: [{kind: ServiceAccount, name: prometheus}]
"#
    ));
    let p = &out.policies[0];
    assert_eq!(p.metadata.namespace.as_deref(), Some("default"));
    assert_eq!(p.metadata.name, "ops.scrape");
    let sa = p.spec.rules.as_ref().unwrap()[0].sources.as_ref().unwrap()[0]
        .service_account
        .clone()
        .unwrap();
    assert_eq!(
        (sa.namespace.as_deref(), sa.name.as_str()),
        (Some("ops"), "prometheus")
    );
    assert_eq!(p.metadata.annotations[ACCESS_ANNOTATION], "equal");
    assert!(
        out.report
            .findings()
            .iter()
            .any(|f| f.field == "spec.destination.namespace")
    );
    assert!(gep_allows(
        &snap,
        &out,
        ("ops", "prometheus"),
        ("default", "service-a-0"),
        1234
    ));
    assert!(!gep_allows(
        &snap,
        &out,
        ("default", "prometheus"),
        ("default", "service-a-0"),
        1234
    ));
}

/// No Pod of the destination ServiceAccount in the input: nothing to select, no policy, and
/// the report says the Pods stay open (widened).
#[test]
fn destination_without_pods_gets_no_policy_and_a_widened_finding() {
    let (_, out) = convert(
        r#"
apiVersion: access.smi-spec.io/v1alpha3
kind: TrafficTarget
metadata: {name: lonely, namespace: default}
spec:
  destination: {kind: ServiceAccount, name: nobody}
  sources: [{kind: ServiceAccount, name: web}]
"#,
    );
    assert!(out.policies.is_empty());
    // (The other finding is the validation note: v1alpha3 requires `rules`.)
    assert_eq!(severities(&out)[0], Severity::Widened);
    assert!(!severities(&out)[1..].contains(&Severity::Widened));
    assert!(
        out.report.findings()[0]
            .message
            .contains("no Pod of ServiceAccount default/nobody")
    );
}

/// A selector that also catches another ServiceAccount's Pod: narrowed for it, and widened
/// where another TrafficTarget protects it; both name the Pod.
#[test]
fn selector_catching_other_accounts_pods_is_reported_both_ways() {
    let (snap, out) = convert(
        r#"
apiVersion: v1
kind: Pod
metadata: {name: api-0, namespace: shop, labels: {tier: backend}}
spec: {serviceAccountName: api}
---
apiVersion: v1
kind: Pod
metadata: {name: db-0, namespace: shop, labels: {tier: backend}}
spec: {serviceAccountName: db}
---
apiVersion: specs.smi-spec.io/v1alpha4
kind: TCPRoute
metadata: {name: any, namespace: shop}
spec: {matches: {}}
---
apiVersion: access.smi-spec.io/v1alpha3
kind: TrafficTarget
metadata: {name: api, namespace: shop}
spec:
  destination: {kind: ServiceAccount, name: api}
  rules: [{kind: TCPRoute, name: any}]
  sources: [{kind: ServiceAccount, name: web}]
---
apiVersion: access.smi-spec.io/v1alpha3
kind: TrafficTarget
metadata: {name: db, namespace: shop}
spec:
  destination: {kind: ServiceAccount, name: db}
  rules: [{kind: TCPRoute, name: any}]
  sources: [{kind: ServiceAccount, name: api}]
"#,
    );
    let about_api: Vec<_> = out
        .report
        .findings()
        .iter()
        .filter(|f| f.object.name == "api" && f.message.contains("shop/db-0"))
        .map(|f| f.severity)
        .collect();
    assert_eq!(about_api, [Severity::Widened, Severity::Narrowed]);
    // web may now reach db-0 (the api policy selects it); SMI denied it.
    let smi = Authorizer::build(&snap);
    let (web, db) = ("shop/web".parse().unwrap(), "shop/db".parse().unwrap());
    assert!(!smi.authorize(&web, &db, &AccessRequest::tcp(5432)).allowed);
    assert!(gep_allows(
        &snap,
        &out,
        ("shop", "web"),
        ("shop", "db-0"),
        5432
    ));
}
