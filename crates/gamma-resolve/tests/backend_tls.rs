//! BackendTLSPolicy end to end (decode -> Snapshot -> RouteTable::build -> resolve and policy
//! status), after the upstream conformance tests `backendtlspolicy*.go` (Gateway API v1.6.1) and
//! the BackendTLSPolicy API reference.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::manifest::table;
use gamma_model::Snapshot;
use gamma_resolve::backend_tls::{
    self as bt, BackendTlsPolicyStatus, PolicyAncestorStatus, SubjectAltName,
};
use gamma_resolve::status::{ACCEPTED, RESOLVED_REFS};
use gamma_resolve::*;

const GW_IP: &str = "192.0.2.1";

/// A Gateway `infra/gw` on port 80 with one HTTPRoute whose rule `/NAME` forwards to Service
/// NAME port 443 for each name, and those Services (port 443 named `https`, 8443 `https-2`).
fn gateway_with(backends: &[&str], extra: &str) -> String {
    let mut y = String::from(
        r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.1}]
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
"#,
    );
    for b in backends {
        y.push_str(&format!(
            "  - matches: [{{path: {{type: Exact, value: /{b}}}}}]\n    backendRefs: [{{name: {b}, port: 443}}]\n"
        ));
        y.push_str(&format!(
            "  - matches: [{{path: {{type: Exact, value: /{b}-2}}}}]\n    backendRefs: [{{name: {b}, port: 8443}}]\n"
        ));
    }
    for (i, b) in backends.iter().enumerate() {
        y.push_str(&format!(
            "---\napiVersion: v1\nkind: Service\nmetadata: {{name: {b}, namespace: infra}}\n\
             spec: {{clusterIP: 10.96.7.{}, ports: [{{name: https, port: 443}}, {{name: https-2, port: 8443}}]}}\n",
            i + 1
        ));
    }
    y.push_str(extra);
    y
}

const CA: &str = r#"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ca, namespace: infra}
data: {ca.crt: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}
"#;

fn policy(
    name: &str,
    created: &str,
    service: &str,
    section: Option<&str>,
    validation: &str,
) -> String {
    let section = section.map_or(String::new(), |s| format!(", sectionName: {s}"));
    format!(
        r#"
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {{name: {name}, namespace: infra, creationTimestamp: "{created}"}}
spec:
  targetRefs: [{{group: "", kind: Service, name: {service}{section}}}]
  validation: {validation}
"#
    )
}

fn ca_refs(names: &[&str], hostname: &str) -> String {
    let refs: Vec<String> = names
        .iter()
        .map(|n| format!("{{group: \"\", kind: ConfigMap, name: {n}}}"))
        .collect();
    format!(
        "{{caCertificateRefs: [{}], hostname: {hostname}}}",
        refs.join(", ")
    )
}

fn get<'t>(t: &'t RouteTable, path: &'t str) -> Decision<'t> {
    t.resolve(&Request::http(GW_IP.parse().unwrap(), 80, "GET", path), 0)
}

fn status<'t>(t: &'t RouteTable, name: &str) -> &'t BackendTlsPolicyStatus {
    t.backend_tls_policy_status()
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no status for {name}: {:?}", t.backend_tls_policy_status()))
}

fn at_gateway<'t>(t: &'t RouteTable, name: &str) -> &'t PolicyAncestorStatus {
    status(t, name)
        .ancestor("Gateway", "infra", "gw")
        .unwrap_or_else(|| panic!("{name} has no Gateway ancestor: {:?}", status(t, name)))
}

fn cond(a: &PolicyAncestorStatus, type_: &str) -> (bool, String) {
    let c = a
        .condition(type_)
        .unwrap_or_else(|| panic!("no {type_}: {a:?}"));
    (c.status, c.reason.clone())
}

fn route_accepted(t: &RouteTable) -> bool {
    t.parent_conditions()
        .iter()
        .find(|s| s.name == "r")
        .and_then(|s| s.condition(ACCEPTED))
        .is_some_and(|c| c.status)
}

// BackendTLSPolicyValidation.hostname: "Hostname MUST be used as the SNI to connect to the
// backend"; caCertificateRefs: "A single CACertificateRef to a Kubernetes ConfigMap kind has
// Core support ... with the CA certificate in a key named `ca.crt`". The Forward decision carries
// what the data plane programs.
#[test]
fn a_valid_policy_puts_sni_ca_and_subject_alt_names_on_the_forward_decision() {
    let validation = r#"{caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}], hostname: abc.example.com,
    subjectAltNames: [{type: Hostname, hostname: "*.example.com"}, {type: URI, uri: "spiffe://td/ns/infra/sa/web"}]}"#;
    let yaml = gateway_with(
        &["web"],
        &format!(
            "{CA}{}",
            policy("tls", "2025-01-01T00:00:00Z", "web", None, validation)
        ),
    );
    let t = table(&yaml);
    let Decision::Forward(f) = get(&t, "/web") else {
        panic!("{}", get(&t, "/web"))
    };
    let tls = f.backend_tls.expect("the policy applies");
    assert_eq!(tls.hostname, "abc.example.com");
    assert_eq!(
        (&*tls.policy_namespace, &*tls.policy_name),
        ("infra", "tls")
    );
    assert_eq!(tls.ca_certificate_refs, ["ca"]);
    assert_eq!(tls.well_known_ca_certificates, None);
    assert_eq!(
        tls.subject_alt_names,
        [
            SubjectAltName::Hostname("*.example.com".into()),
            SubjectAltName::Uri("spiffe://td/ns/infra/sa/web".into())
        ]
    );
    let a = at_gateway(&t, "tls");
    assert_eq!(cond(a, ACCEPTED), (true, bt::ACCEPTED.into()));
    assert_eq!(cond(a, RESOLVED_REFS), (true, bt::RESOLVED_REFS.into()));
    // the JSON shape names the settings
    let json = serde_json::to_value(get(&t, "/web")).unwrap();
    assert_eq!(json["backendTls"]["hostname"], "abc.example.com");
    assert_eq!(json["backendTls"]["subjectAltNames"][1]["type"], "URI");
}

// BackendTLSPolicyValidation.wellKnownCACertificates: "System" - well-known system CA
// certificates; a value the implementation does not recognise: "the implementation MUST ensure
// the Accepted Condition ... is set to status: False, with a Reason Invalid".
#[test]
fn well_known_system_cas_are_carried_and_an_unknown_set_is_invalid_and_fails() {
    let system = policy(
        "sys",
        "2025-01-01T00:00:00Z",
        "web",
        None,
        "{wellKnownCACertificates: System, hostname: web.example.com}",
    );
    let other = policy(
        "custom",
        "2025-01-01T00:00:00Z",
        "api",
        None,
        "{wellKnownCACertificates: example.com/corp-cas, hostname: api.example.com}",
    );
    let t = table(&gateway_with(&["web", "api"], &format!("{system}{other}")));
    let Decision::Forward(f) = get(&t, "/web") else {
        panic!("{}", get(&t, "/web"))
    };
    let tls = f.backend_tls.unwrap();
    assert_eq!(tls.well_known_ca_certificates.as_deref(), Some("System"));
    assert!(tls.ca_certificate_refs.is_empty());
    assert_eq!(
        cond(at_gateway(&t, "sys"), ACCEPTED),
        (true, bt::ACCEPTED.into())
    );
    assert_eq!(
        cond(at_gateway(&t, "custom"), ACCEPTED),
        (false, bt::INVALID.into())
    );
    let Decision::Respond(r) = get(&t, "/api") else {
        panic!("{}", get(&t, "/api"))
    };
    assert_eq!(r.reason, RespondReason::InvalidBackendTls);
    assert_eq!(r.status, Status::Http(500));
}

// conformance BackendTLSPolicyInvalidCACertificateRef: a single CACertificateRef to a ConfigMap
// that does not exist, or to one with no `ca.crt`: Accepted=False NoValidCACertificate,
// ResolvedRefs=False InvalidCACertificateRef, and "HTTP requests to a backend targeted by this
// policy should fail with a 5xx response"; the route stays accepted.
#[test]
fn an_invalid_ca_certificate_ref_fails_requests_with_5xx_and_is_reported() {
    let malformed = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: malformed, namespace: infra}\ndata: {}\n";
    let extra = format!(
        "{malformed}{}{}",
        policy(
            "nonexistent-ca",
            "2025-01-01T00:00:00Z",
            "missing",
            None,
            &ca_refs(&["nonexistent"], "abc.example.com")
        ),
        policy(
            "malformed-ca",
            "2025-01-01T00:00:00Z",
            "bad",
            None,
            &ca_refs(&["malformed"], "abc.example.com")
        ),
    );
    let t = table(&gateway_with(&["missing", "bad"], &extra));
    assert!(route_accepted(&t));
    for (policy, path) in [("nonexistent-ca", "/missing"), ("malformed-ca", "/bad")] {
        let a = at_gateway(&t, policy);
        assert_eq!(
            cond(a, ACCEPTED),
            (false, bt::NO_VALID_CA_CERTIFICATE.into())
        );
        assert_eq!(
            cond(a, RESOLVED_REFS),
            (false, bt::INVALID_CA_CERTIFICATE_REF.into())
        );
        let d = get(&t, path);
        assert_eq!(d.status(), Some(Status::Http(500)), "{d}");
    }
    let message = &at_gateway(&t, "malformed-ca")
        .condition(RESOLVED_REFS)
        .unwrap()
        .message;
    assert!(
        message.contains("infra/malformed") && message.contains("ca.crt"),
        "{message}"
    );
    // the explanation says which policy and why
    let ex = t.explain(
        &Request::http(GW_IP.parse().unwrap(), 80, "GET", "/missing"),
        0,
    );
    let pick = ex.backend_pick.unwrap_or_default();
    assert!(
        pick.contains("nonexistent-ca") && pick.contains("does not exist"),
        "{pick}"
    );
}

// conformance BackendTLSPolicyInvalidKind: a CACertificateRef of an unsupported kind:
// Accepted=False NoValidCACertificate, ResolvedRefs=False InvalidKind, requests get a 5xx.
#[test]
fn a_ca_certificate_ref_of_an_unsupported_kind_is_invalid_kind_and_fails_requests() {
    let extra = policy(
        "invalid-kind",
        "2025-01-01T00:00:00Z",
        "web",
        None,
        r#"{caCertificateRefs: [{group: "", kind: Secret, name: ca}], hostname: abc.example.com}"#,
    );
    let t = table(&gateway_with(&["web"], &format!("{CA}{extra}")));
    let a = at_gateway(&t, "invalid-kind");
    assert_eq!(
        cond(a, ACCEPTED),
        (false, bt::NO_VALID_CA_CERTIFICATE.into())
    );
    assert_eq!(cond(a, RESOLVED_REFS), (false, bt::INVALID_KIND.into()));
    assert_eq!(get(&t, "/web").status(), Some(Status::Http(500)));
    assert!(route_accepted(&t));
}

// caCertificateRefs: "If ALL CACertificateRefs are invalid ... Accepted ... False ...
// NoValidCACertificate": with one valid and one invalid the policy stays accepted, ResolvedRefs
// is False, and "Connections using an invalid CACertificateRef MUST fail" (with several refs
// gamma-rs cannot tell which one a connection uses: every connection fails).
#[test]
fn one_invalid_ref_among_valid_ones_keeps_the_policy_accepted_but_fails_connections() {
    let extra = policy(
        "mixed",
        "2025-01-01T00:00:00Z",
        "web",
        None,
        &ca_refs(&["ca", "gone"], "abc.example.com"),
    );
    let t = table(&gateway_with(&["web"], &format!("{CA}{extra}")));
    let a = at_gateway(&t, "mixed");
    assert_eq!(cond(a, ACCEPTED), (true, bt::ACCEPTED.into()));
    assert_eq!(
        cond(a, RESOLVED_REFS),
        (false, bt::INVALID_CA_CERTIFICATE_REF.into())
    );
    assert_eq!(get(&t, "/web").status(), Some(Status::Http(500)));
}

// BackendTLSPolicySpec.targetRefs: "When more than one BackendTLSPolicy selects the same target
// and sectionName ... The older policy by creation timestamp takes precedence ... The policy
// appearing first in alphabetical order by {namespace}/{name}"; the others get Accepted=False
// Conflicted. conformance BackendTLSPolicyConflictResolution: a policy with a sectionName and
// one without on the same Service do not conflict; each port uses the more specific one.
#[test]
fn conflicting_policies_the_oldest_wins_then_name_and_section_names_do_not_conflict() {
    let v = |h: &str| ca_refs(&["ca"], h);
    let extra = [
        CA.to_owned(),
        // same target, no section: the older (2) wins over the newer (1)
        policy(
            "without-1",
            "2025-01-02T00:00:00Z",
            "a",
            None,
            &v("one.example.com"),
        ),
        policy(
            "without-2",
            "2025-01-01T00:00:00Z",
            "a",
            None,
            &v("two.example.com"),
        ),
        // same target and section, same timestamp: alphabetical
        policy(
            "with-b",
            "2025-01-01T00:00:00Z",
            "b",
            Some("https"),
            &v("b.example.com"),
        ),
        policy(
            "with-a",
            "2025-01-01T00:00:00Z",
            "b",
            Some("https"),
            &v("a.example.com"),
        ),
        // section and whole Service: no conflict
        policy(
            "port",
            "2025-01-03T00:00:00Z",
            "c",
            Some("https"),
            &v("port.example.com"),
        ),
        policy(
            "whole",
            "2025-01-01T00:00:00Z",
            "c",
            None,
            &v("whole.example.com"),
        ),
    ]
    .concat();
    let t = table(&gateway_with(&["a", "b", "c"], &extra));
    let sni = |path: &str| match get(&t, path) {
        Decision::Forward(f) => f.backend_tls.map(|b| b.hostname.clone()),
        d => panic!("{path}: {d}"),
    };
    assert_eq!(sni("/a").as_deref(), Some("two.example.com"));
    assert_eq!(
        cond(at_gateway(&t, "without-2"), ACCEPTED),
        (true, bt::ACCEPTED.into())
    );
    assert_eq!(
        cond(at_gateway(&t, "without-1"), ACCEPTED),
        (false, bt::CONFLICTED.into())
    );
    assert_eq!(sni("/b").as_deref(), Some("a.example.com"));
    // port 8443 of b is named by neither: no policy
    assert_eq!(sni("/b-2"), None);
    assert_eq!(
        cond(at_gateway(&t, "with-a"), ACCEPTED),
        (true, bt::ACCEPTED.into())
    );
    assert_eq!(
        cond(at_gateway(&t, "with-b"), ACCEPTED),
        (false, bt::CONFLICTED.into())
    );
    assert_eq!(sni("/c").as_deref(), Some("port.example.com"));
    assert_eq!(sni("/c-2").as_deref(), Some("whole.example.com"));
    assert_eq!(
        cond(at_gateway(&t, "port"), ACCEPTED),
        (true, bt::ACCEPTED.into())
    );
    assert_eq!(
        cond(at_gateway(&t, "whole"), ACCEPTED),
        (true, bt::ACCEPTED.into())
    );
    let msg = &at_gateway(&t, "without-1")
        .condition(ACCEPTED)
        .unwrap()
        .message;
    assert!(msg.contains("infra/without-2"), "{msg}");
}

// PolicyAncestorStatus: "a parent is also an ancestor": for a mesh route the ancestor is the
// parent Service the route is attached to (GEP-1294 parents); a policy no route reaches has no
// ancestors ("An empty list means the Policy is not relevant for any ancestors").
#[test]
fn for_mesh_routes_the_ancestor_is_the_parent_service_and_unreached_policies_have_none() {
    let yaml = format!(
        r#"
apiVersion: v1
kind: Service
metadata: {{name: front, namespace: infra}}
spec: {{clusterIP: 10.96.8.1, ports: [{{port: 80}}]}}
---
apiVersion: v1
kind: Service
metadata: {{name: web, namespace: infra}}
spec: {{clusterIP: 10.96.8.2, ports: [{{name: https, port: 443}}]}}
---
apiVersion: v1
kind: Service
metadata: {{name: idle, namespace: infra}}
spec: {{clusterIP: 10.96.8.3, ports: [{{name: https, port: 443}}]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {{name: m, namespace: infra}}
spec:
  parentRefs: [{{group: "", kind: Service, name: front, port: 80}}]
  rules: [{{backendRefs: [{{name: web, port: 443}}]}}]
{CA}{}{}"#,
        policy(
            "mesh",
            "2025-01-01T00:00:00Z",
            "web",
            None,
            &ca_refs(&["ca"], "web.example.com")
        ),
        policy(
            "idle",
            "2025-01-01T00:00:00Z",
            "idle",
            None,
            &ca_refs(&["ca"], "idle.example.com")
        ),
    );
    let t = table(&yaml);
    let s = status(&t, "mesh");
    assert_eq!(s.ancestors.len(), 1);
    let a = s.ancestor("Service", "infra", "front").unwrap();
    assert_eq!(a.ancestor_ref.group, "");
    assert_eq!(cond(a, ACCEPTED), (true, bt::ACCEPTED.into()));
    assert!(status(&t, "idle").ancestors.is_empty());
    let d = t.resolve(
        &Request::http("10.96.8.1".parse().unwrap(), 80, "GET", "/"),
        0,
    );
    let Decision::Forward(f) = d else {
        panic!("{d}")
    };
    assert_eq!(f.backend_tls.unwrap().hostname, "web.example.com");
}

// A policy the API server would refuse (validation: "must not contain both CACertificateRefs
// and WellKnownCACertificates") applies to nothing and is reported Accepted=False Invalid where
// it would apply (the same validation `gammactl validate` applies).
#[test]
fn a_policy_failing_crd_validation_is_invalid_and_applies_to_nothing() {
    let extra = policy(
        "both",
        "2025-01-01T00:00:00Z",
        "web",
        None,
        r#"{caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}], wellKnownCACertificates: System, hostname: abc.example.com}"#,
    );
    let t = table(&gateway_with(&["web"], &format!("{CA}{extra}")));
    let a = at_gateway(&t, "both");
    assert_eq!(cond(a, ACCEPTED), (false, bt::INVALID.into()));
    assert!(
        a.condition(ACCEPTED)
            .unwrap()
            .message
            .contains("must not contain both")
    );
    let Decision::Forward(f) = get(&t, "/web") else {
        panic!("{}", get(&t, "/web"))
    };
    assert!(f.backend_tls.is_none());
}

// Determinism: the statuses and decisions do not depend on the order of the input objects.
#[test]
fn policy_status_does_not_depend_on_input_order() {
    let v = |h: &str| ca_refs(&["ca"], h);
    let extra = [
        CA.to_owned(),
        policy(
            "p1",
            "2025-01-01T00:00:00Z",
            "a",
            None,
            &v("one.example.com"),
        ),
        policy(
            "p2",
            "2025-01-01T00:00:00Z",
            "a",
            None,
            &v("two.example.com"),
        ),
        policy(
            "p3",
            "2025-01-01T00:00:00Z",
            "b",
            None,
            &ca_refs(&["nope"], "b.example.com"),
        ),
    ]
    .concat();
    let yaml = gateway_with(&["a", "b"], &extra);
    let mut objects = gamma_model::decode(&yaml).unwrap();
    let base = RouteTable::build(
        &Snapshot::from_resources(objects.clone()),
        &BuildOptions::default(),
    );
    objects.reverse();
    let reversed = RouteTable::build(&Snapshot::from_resources(objects), &BuildOptions::default());
    assert_eq!(
        base.backend_tls_policy_status(),
        reversed.backend_tls_policy_status()
    );
    assert_eq!(base.backend_tls_policy_status().len(), 3);
    assert_eq!(
        get(&base, "/a").to_string(),
        get(&reversed, "/a").to_string()
    );
}

// RouteTable::update must report as a full build would: a ConfigMap that appears makes the
// CA reference valid (requests forwarded, policy accepted), and a route change moves the
// policy's ancestors.
#[test]
fn updates_report_policy_status_and_decisions_as_full_builds() {
    let extra = policy(
        "later-ca",
        "2025-01-01T00:00:00Z",
        "web",
        None,
        &ca_refs(&["ca"], "abc.example.com"),
    );
    let yaml = gateway_with(&["web"], &extra);
    let mut snapshot = Snapshot::from_resources(gamma_model::decode(&yaml).unwrap());
    let options = BuildOptions::default();
    let table = RouteTable::build(&snapshot, &options);
    assert_eq!(get(&table, "/web").status(), Some(Status::Http(500)));
    let mut ca = gamma_model::decode(CA).unwrap();
    let key = gamma_model::ObjectKey::of(&ca[0]);
    let previous = snapshot.upsert(ca.remove(0));
    let updated = table.update(&snapshot, &options, &key, previous.as_deref());
    let built = RouteTable::build(&snapshot, &options);
    assert_eq!(
        updated.backend_tls_policy_status(),
        built.backend_tls_policy_status()
    );
    assert_eq!(
        cond(at_gateway(&updated, "later-ca"), ACCEPTED),
        (true, bt::ACCEPTED.into())
    );
    assert!(matches!(get(&updated, "/web"), Decision::Forward(_)));
    // the route goes: the policy has no ancestor left
    let route = gamma_model::ObjectKey::new(gamma_model::ResourceKind::HttpRoute, "infra", "r");
    let previous = snapshot.remove(&route);
    let updated = updated.update(&snapshot, &options, &route, previous.as_deref());
    assert!(status(&updated, "later-ca").ancestors.is_empty());
}

const BUNDLES: &str = r#"
---
apiVersion: certificates.k8s.io/v1beta1
kind: ClusterTrustBundle
metadata: {name: roots}
spec: {trustBundle: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}
---
apiVersion: certificates.k8s.io/v1beta1
kind: ClusterTrustBundle
metadata: {name: no-pem}
spec: {trustBundle: "not a certificate"}
"#;

fn bundle_ref(name: &str) -> String {
    format!(
        "{{caCertificateRefs: [{{group: certificates.k8s.io, kind: ClusterTrustBundle, name: {name}}}], hostname: abc.example.com}}"
    )
}

/// Three policies naming ClusterTrustBundles: `roots` (holds PEM), `no-pem`, `absent`.
fn bundle_policies() -> String {
    [
        ("good", "a", "roots"),
        ("no-pem", "b", "no-pem"),
        ("absent", "c", "absent"),
    ]
    .iter()
    .map(|(p, svc, b)| policy(p, "2025-01-01T00:00:00Z", svc, None, &bundle_ref(b)))
    .collect()
}

// GEP-5075 (v1.7, experimental): "A single CACertificateRef to a ClusterTrustBundle uses the
// cluster-scoped resource by name"; a reference that "refers to a resource that cannot be
// resolved ... or is misconfigured" is `InvalidCACertificateRef`, and connections using it
// fail. A missing ClusterTrustBundle is judged only when the input holds every one
// (`Snapshot::cluster_trust_bundles_complete`), as Secrets are for listener certificates.
#[test]
fn cluster_trust_bundle_ca_refs_resolve_by_name_and_are_judged_as_secrets_are() {
    let yaml = gateway_with(&["a", "b", "c"], &format!("{BUNDLES}{}", bundle_policies()));
    let snapshot = common::manifest::snapshot(&yaml);
    for complete in [false, true] {
        let t = RouteTable::build(
            &snapshot
                .clone()
                .with_cluster_trust_bundles_complete(complete),
            &BuildOptions::default(),
        );
        // the bundle that holds PEM: accepted, carried on the decision by name
        let Decision::Forward(f) = get(&t, "/a") else {
            panic!("{}", get(&t, "/a"))
        };
        let tls = f.backend_tls.unwrap();
        assert_eq!(tls.cluster_trust_bundles, ["roots"]);
        assert!(tls.ca_certificate_refs.is_empty());
        let a = at_gateway(&t, "good");
        assert_eq!(cond(a, ACCEPTED), (true, ACCEPTED.into()));
        assert_eq!(cond(a, RESOLVED_REFS), (true, RESOLVED_REFS.into()));
        // one with no PEM: misconfigured, whatever the input claims
        let b = at_gateway(&t, "no-pem");
        assert_eq!(
            cond(b, RESOLVED_REFS),
            (false, bt::INVALID_CA_CERTIFICATE_REF.into())
        );
        assert_eq!(
            cond(b, ACCEPTED),
            (false, bt::NO_VALID_CA_CERTIFICATE.into())
        );
        assert_eq!(get(&t, "/b").status(), Some(Status::Http(500)));
        // one that is not in the input: missing only when the input holds them all
        let c = at_gateway(&t, "absent");
        if complete {
            assert_eq!(
                cond(c, RESOLVED_REFS),
                (false, bt::INVALID_CA_CERTIFICATE_REF.into())
            );
            let message = &c.condition(RESOLVED_REFS).unwrap().message;
            assert!(
                message.contains("ClusterTrustBundle absent does not exist"),
                "{message}"
            );
            assert_eq!(get(&t, "/c").status(), Some(Status::Http(500)));
        } else {
            assert_eq!(cond(c, RESOLVED_REFS), (true, RESOLVED_REFS.into()));
            assert!(matches!(get(&t, "/c"), Decision::Forward(_)));
        }
        assert!(route_accepted(&t));
    }
}

// An update that adds, changes or removes a ClusterTrustBundle gives the table a full build
// gives (the policies naming it are rebuilt).
#[test]
fn cluster_trust_bundle_updates_match_full_builds() {
    let yaml = gateway_with(&["a", "b", "c"], &format!("{BUNDLES}{}", bundle_policies()));
    let options = BuildOptions::default();
    let mut snapshot = common::manifest::snapshot(&yaml).with_cluster_trust_bundles_complete(true);
    let mut t = RouteTable::build(&snapshot, &options);
    let fixed = gamma_model::k8s::ClusterTrustBundle::new("no-pem", None, true);
    let added = gamma_model::k8s::ClusterTrustBundle::new("absent", None, true);
    for change in [fixed, added] {
        let change = gamma_model::AnyResource::from(change);
        let key = gamma_model::ObjectKey::of(&change);
        let previous = snapshot.upsert(change);
        t = t.update(&snapshot, &options, &key, previous.as_deref());
        let full = RouteTable::build(&snapshot, &options);
        for path in ["/a", "/b", "/c"] {
            assert_eq!(get(&t, path), get(&full, path), "{path}");
        }
        assert_eq!(
            t.backend_tls_policy_status(),
            full.backend_tls_policy_status()
        );
    }
    // every policy now resolves
    for path in ["/a", "/b", "/c"] {
        assert!(matches!(get(&t, path), Decision::Forward(_)), "{path}");
    }
}
