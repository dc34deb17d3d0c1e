//! One object, three answers: what each supported Gateway API release's API server says about
//! it (strict field validation, then the typed rules), for the fields and rules the releases
//! differ on (`../docs/validation.md`, "Releases"). Each case names the upstream change.
//!
//! The verdicts follow each release's CRDs (`config/crd/{standard,experimental}` of v1.5.1,
//! v1.6.1 and v1.7.0); the differential tests against real API servers check the rules
//! themselves.

use gamma_model::validate::{Bundle, Channel, ErrorKind, Release, ValidateOptions};
use gamma_model::{DecodeOptions, decode_documents};
use serde_json::{Value, json};

const V1_5: Release = Release::V1_5;
const V1_6: Release = Release::V1_6;
const V1_7: Release = Release::V1_7;
const STD: Channel = Channel::Standard;
const EXP: Channel = Channel::Experimental;

/// The errors of `doc` as `bundle`'s API server reports them (fieldValidation=Strict).
fn errors(doc: &Value, release: Release, channel: Channel) -> Vec<(String, ErrorKind)> {
    let decoded = decode_documents(&doc.to_string(), &DecodeOptions::checking_fields()).unwrap();
    decoded.documents[0]
        .validate_with(&ValidateOptions::bundle(Bundle::new(release, channel)))
        .errors
        .into_iter()
        .map(|e| (e.path.as_str().to_owned(), e.kind))
        .collect()
}

#[track_caller]
fn accepted(doc: &Value, release: Release, channel: Channel) {
    let errs = errors(doc, release, channel);
    assert!(errs.is_empty(), "{release} {channel:?}: {errs:?}");
}

#[track_caller]
fn unknown_at(doc: &Value, release: Release, channel: Channel, path: &str) {
    let errs = errors(doc, release, channel);
    assert_eq!(
        errs,
        [(path.to_owned(), ErrorKind::UnknownField)],
        "{release} {channel:?}"
    );
}

#[track_caller]
fn rule_at(doc: &Value, release: Release, channel: Channel, path: &str, message: &str) {
    let errs = errors(doc, release, channel);
    assert!(
        errs.iter()
            .any(|(p, k)| p == path && matches!(k, ErrorKind::Rule { message: m } if m == message)),
        "{release} {channel:?}: expected {message:?} at {path}, got {errs:?}"
    );
}

#[track_caller]
fn error_at(doc: &Value, release: Release, channel: Channel, path: &str) {
    let errs = errors(doc, release, channel);
    assert!(
        errs.iter().any(|(p, _)| p == path),
        "{release} {channel:?}: expected an error at {path}, got {errs:?}"
    );
}

fn http_route(rules: Value) -> Value {
    json!({
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
        "metadata": {"name": "r", "namespace": "shop"},
        "spec": {"parentRefs": [{"name": "gw"}], "rules": rules}
    })
}

fn gateway(spec: Value) -> Value {
    let mut base = json!({"gatewayClassName": "c", "listeners": [
        {"name": "http", "port": 80, "protocol": "HTTP"}
    ]});
    base.as_object_mut()
        .unwrap()
        .extend(spec.as_object().unwrap().clone());
    json!({
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
        "metadata": {"name": "gw", "namespace": "shop"}, "spec": base
    })
}

// GEP-1619 (v1.7.0 `httproute_types.go` SessionPersistence): `cookie` and `header` replaced
// `sessionName` and `cookieConfig`; `idleTimeout` left in v1.6.
#[test]
fn session_persistence_takes_each_releases_shape() {
    let sp = |v: Value| http_route(json!([{"sessionPersistence": v, "backendRefs": []}]));
    let cookie =
        sp(json!({"type": "Cookie", "cookie": {"name": "sid", "lifetimeType": "Session"}}));
    accepted(&cookie, V1_7, EXP);
    unknown_at(
        &cookie,
        V1_6,
        EXP,
        "spec.rules[0].sessionPersistence.cookie",
    );
    let header = sp(json!({"type": "Header", "header": {"name": "x-session"}}));
    accepted(&header, V1_7, EXP);
    let named = sp(json!({"sessionName": "sid"}));
    accepted(&named, V1_6, EXP);
    accepted(&named, V1_5, EXP);
    unknown_at(
        &named,
        V1_7,
        EXP,
        "spec.rules[0].sessionPersistence.sessionName",
    );
    let idle = sp(json!({"sessionName": "sid", "idleTimeout": "1h"}));
    accepted(&idle, V1_5, EXP);
    unknown_at(
        &idle,
        V1_6,
        EXP,
        "spec.rules[0].sessionPersistence.idleTimeout",
    );
    // v1.7: type defaults to Cookie, which needs `cookie`.
    rule_at(
        &sp(json!({})),
        V1_7,
        EXP,
        "spec.rules[0].sessionPersistence",
        "cookie must be specified for Cookie type",
    );
    accepted(&sp(json!({})), V1_6, EXP);
    rule_at(
        &sp(json!({"type": "Header", "cookie": {}, "header": {"name": "h"}})),
        V1_7,
        EXP,
        "spec.rules[0].sessionPersistence",
        "cookie must be nil if type is not Cookie",
    );
    rule_at(
        &sp(json!({"type": "Cookie", "cookie": {"lifetimeType": "Permanent"}})),
        V1_7,
        EXP,
        "spec.rules[0].sessionPersistence",
        "AbsoluteTimeout must be specified when cookie lifetimeType is Permanent",
    );
    error_at(
        &sp(json!({"type": "Header", "header": {"name": "bad name"}})),
        V1_7,
        EXP,
        "spec.rules[0].sessionPersistence.header.name",
    );
    // The standard channel has no session persistence in any release.
    unknown_at(&cookie, V1_7, STD, "spec.rules[0].sessionPersistence");
}

// GEP-1731: `retry` standard from v1.7, `attempts` minimum 0 there (1 in v1.6, none in v1.5);
// `codes` a set from v1.6.
#[test]
fn retry_follows_each_releases_schema() {
    let retry = |v: Value| http_route(json!([{"retry": v, "backendRefs": []}]));
    let zero = retry(json!({"attempts": 0}));
    accepted(&zero, V1_7, STD);
    accepted(&zero, V1_7, EXP);
    unknown_at(&zero, V1_6, STD, "spec.rules[0].retry");
    error_at(&zero, V1_6, EXP, "spec.rules[0].retry.attempts");
    accepted(&zero, V1_5, EXP);
    let repeated = retry(json!({"codes": [500, 500]}));
    accepted(&repeated, V1_5, EXP);
    error_at(&repeated, V1_6, EXP, "spec.rules[0].retry.codes[1]");
}

// v1.7 standard CRDs carry the experimental "Rule name must be unique within the route".
#[test]
fn duplicate_rule_names_are_refused_on_v1_7_standard() {
    let r = http_route(json!([{"name": "a", "backendRefs": []}, {"name": "a", "backendRefs": []}]));
    accepted(&r, V1_6, STD);
    rule_at(
        &r,
        V1_7,
        STD,
        "spec.rules",
        "Rule name must be unique within the route",
    );
}

// v1.7.0 experimental: references to an XBackend carry no port.
#[test]
fn a_port_on_an_xbackend_reference_is_refused_from_v1_7() {
    let r = http_route(json!([{"backendRefs": [{
        "group": "gateway.networking.x-k8s.io", "kind": "XBackend", "name": "api", "port": 443
    }]}]));
    accepted(&r, V1_6, EXP);
    rule_at(
        &r,
        V1_7,
        EXP,
        "spec.rules[0].backendRefs[0]",
        "Must not have port for Backend reference",
    );
    // The standard v1.7 CRDs keep the v1.6 rules.
    accepted(&r, V1_7, STD);
}

// GEP-3651: Gateway address routability, experimental from v1.7.
#[test]
fn gateway_address_routability_is_a_v1_7_experimental_field() {
    let with = |r: &str| gateway(json!({"addresses": [{"value": "10.0.0.1", "routability": r}]}));
    for ok in ["", "Cluster", "example.com/private"] {
        accepted(&with(ok), V1_7, EXP);
    }
    unknown_at(&with("Cluster"), V1_6, EXP, "spec.addresses[0].routability");
    unknown_at(&with("Cluster"), V1_7, STD, "spec.addresses[0].routability");
    let msg = "Routability must be empty, Cluster, or an implementation-specific prefixed path; k8s.io and its subdomains are reserved";
    for bad in [
        "Public",
        "k8s.io/x",
        "a.k8s.io/x",
        "example.com/",
        "Example.com/x",
    ] {
        rule_at(&with(bad), V1_7, EXP, "spec.addresses[0].routability", msg);
    }
}

// GEP-5224: listener pre-routing filters, experimental from v1.7, HTTP and HTTPS listeners only.
#[test]
fn listener_filters_are_a_v1_7_experimental_field() {
    let with = |protocol: &str, filters: Value| {
        gateway(json!({"listeners": [
            {"name": "l", "port": 80, "protocol": protocol, "filters": filters}
        ]}))
    };
    let auth = json!({"requests": [{"type": "ExternalAuth", "externalAuth": {
        "protocol": "HTTP", "http": {}, "backendRef": {"name": "authz", "port": 8080}
    }}]});
    accepted(&with("HTTP", auth.clone()), V1_7, EXP);
    unknown_at(
        &with("HTTP", auth.clone()),
        V1_6,
        EXP,
        "spec.listeners[0].filters",
    );
    rule_at(
        &with("TCP", auth),
        V1_7,
        EXP,
        "spec.listeners[0]",
        "filters may only be set when protocol is HTTP or HTTPS",
    );
    rule_at(
        &with("HTTP", json!({"requests": [{"type": "ExtensionRef"}]})),
        V1_7,
        EXP,
        "spec.listeners[0].filters.requests[0]",
        "filter.extensionRef must be specified for ExtensionRef filter.type",
    );
    rule_at(
        &with(
            "HTTP",
            json!({"requests": [{"type": "ExternalAuth", "extensionRef": {
                "group": "x.io", "kind": "K", "name": "n"
            }}]}),
        ),
        V1_7,
        EXP,
        "spec.listeners[0].filters.requests[0]",
        "filter.extensionRef must be nil if the filter.type is not ExtensionRef",
    );
}

// v1.7.0 experimental Gateway frontend TLS: ClusterTrustBundles are cluster-scoped.
#[test]
fn a_cluster_trust_bundle_reference_names_no_namespace_from_v1_7() {
    let with = |r: Value| {
        gateway(json!({"tls": {"frontend": {"default": {"validation": {
            "caCertificateRefs": [r]
        }}}}}))
    };
    let ctb = json!({
        "group": "certificates.k8s.io", "kind": "ClusterTrustBundle", "name": "ca", "namespace": "x"
    });
    rule_at(
        &with(ctb.clone()),
        V1_7,
        EXP,
        "spec.tls.frontend.default.validation.caCertificateRefs",
        "ClusterTrustBundle references must not specify namespace",
    );
    accepted(&with(ctb), V1_6, EXP);
    accepted(
        &with(json!({"group": "certificates.k8s.io", "kind": "ClusterTrustBundle", "name": "ca"})),
        V1_7,
        EXP,
    );
}

fn backend_tls_policy(validation: Value) -> Value {
    json!({
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "BackendTLSPolicy",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {
            "targetRefs": [{"group": "", "kind": "Service", "name": "s"}],
            "validation": validation
        }
    })
}

// v1.7.0 experimental BackendTLSPolicy (and XBackend `tls`) validation: `caCertificateRefs`
// gained `minItems: 1` and the CA source rule became "exactly one of the fields", which reads
// `has(..)`: an empty list is present. Up to v1.6 (and on v1.7 standard) the rules read
// `size(self.caCertificateRefs) > 0`, so `[]` counts as no references.
#[test]
fn an_empty_ca_certificate_refs_list_is_refused_only_by_v1_7_experimental() {
    let empty_beside_system = backend_tls_policy(json!({
        "hostname": "s.example.com", "caCertificateRefs": [], "wellKnownCACertificates": "System"
    }));
    for (release, channel) in [
        (V1_5, STD),
        (V1_5, EXP),
        (V1_6, STD),
        (V1_6, EXP),
        (V1_7, STD),
    ] {
        accepted(&empty_beside_system, release, channel);
    }
    error_at(
        &empty_beside_system,
        V1_7,
        EXP,
        "spec.validation.caCertificateRefs",
    );
    rule_at(
        &empty_beside_system,
        V1_7,
        EXP,
        "spec.validation",
        "exactly one of the fields in [caCertificateRefs wellKnownCACertificates] must be set",
    );

    // Alone, `[]` is no CA source for the older rules; v1.7 experimental refuses it for
    // `minItems` (its "exactly one" rule is met: the list is present).
    let empty_alone =
        backend_tls_policy(json!({"hostname": "s.example.com", "caCertificateRefs": []}));
    for (release, channel) in [(V1_5, STD), (V1_6, EXP), (V1_7, STD)] {
        rule_at(
            &empty_alone,
            release,
            channel,
            "spec.validation",
            "must specify either CACertificateRefs or WellKnownCACertificates",
        );
    }
    assert_eq!(
        errors(&empty_alone, V1_7, EXP),
        [(
            "spec.validation.caCertificateRefs".to_owned(),
            ErrorKind::TooFew { min: 1 }
        )]
    );

    // Absent, and `null` (which the API server drops), are one state on every release.
    for absent in [
        json!({"hostname": "s.example.com", "wellKnownCACertificates": "System"}),
        json!({"hostname": "s.example.com", "wellKnownCACertificates": "System", "caCertificateRefs": null}),
    ] {
        for release in [V1_5, V1_6, V1_7] {
            for channel in [STD, EXP] {
                accepted(&backend_tls_policy(absent.clone()), release, channel);
            }
        }
    }
}

// v1.5.1 → v1.6.1: limits raised (infrastructure annotations 8 → 16, frontend CA references
// 8 → 16, TLSRoute hostnames 16 → 1024) and ReferenceGrant `spec` made required.
#[test]
fn v1_5_keeps_its_smaller_limits() {
    let annotations: serde_json::Map<String, Value> =
        (0..9).map(|i| (format!("a{i}"), json!("v"))).collect();
    let g = gateway(json!({"infrastructure": {"annotations": annotations}}));
    accepted(&g, V1_6, STD);
    error_at(&g, V1_5, STD, "spec.infrastructure.annotations");
    let hostnames: Vec<String> = (0..17).map(|i| format!("h{i}.example.com")).collect();
    let tls = json!({
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "TLSRoute",
        "metadata": {"name": "t", "namespace": "shop"},
        "spec": {"hostnames": hostnames, "rules": [{"backendRefs": [{"name": "s", "port": 443}]}]}
    });
    accepted(&tls, V1_6, STD);
    error_at(&tls, V1_5, STD, "spec.hostnames");
    let grant = json!({
        "apiVersion": "gateway.networking.k8s.io/v1beta1", "kind": "ReferenceGrant",
        "metadata": {"name": "g", "namespace": "shop"}
    });
    accepted(&grant, V1_5, STD);
    error_at(&grant, V1_6, STD, "spec");
}
