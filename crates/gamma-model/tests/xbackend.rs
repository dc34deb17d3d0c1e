//! XBackend and XBackendTrafficPolicy (Gateway API experimental CRDs
//! `gateway.networking.x-k8s.io_xbackends.yaml` and `..._xbackendtrafficpolicies.yaml`): decoded
//! as their own kinds, served only by the experimental channel, and every CEL rule of their specs
//! enforced as the API server enforces it, in the v1.6 shape (`errors`) and in the v1.7 one
//! (`errors_v1_7`: `port.number`, `endpointSelector`, `sessionPersistence`, TLS defaulted to
//! `mode: None` and tied to the protocol).

use gamma_model::validate::{Bundle, Channel, ErrorKind, Release, ValidateOptions};
use gamma_model::{AnyResource, ResourceKind};
use gamma_model::{DecodeOptions, decode_documents};
use serde_json::{Value, json};

/// The errors of `doc` validated as a v1.6 API server would (field check, Strict) on `channel`.
fn errors(doc: &Value, channel: Channel) -> Vec<(String, ErrorKind)> {
    errors_in(doc, Bundle::new(Release::V1_6, channel))
}

/// The errors of `doc` validated as a v1.7 API server with the experimental CRDs would.
fn errors_v1_7(doc: &Value) -> Vec<(String, ErrorKind)> {
    errors_in(doc, Bundle::new(Release::V1_7, Channel::Experimental))
}

fn errors_in(doc: &Value, bundle: Bundle) -> Vec<(String, ErrorKind)> {
    let decoded = decode_documents(&doc.to_string(), &DecodeOptions::checking_fields()).unwrap();
    decoded.documents[0]
        .validate_with(&ValidateOptions::bundle(bundle))
        .errors
        .into_iter()
        .map(|e| (e.path.as_str().to_owned(), e.kind))
        .collect()
}

fn rule_at(errs: &[(String, ErrorKind)], path: &str, message: &str) -> bool {
    errs.iter()
        .any(|(p, k)| p == path && matches!(k, ErrorKind::Rule { message: m } if m == message))
}

fn backend(spec: Value) -> Value {
    json!({
        "apiVersion": "gateway.networking.x-k8s.io/v1alpha1", "kind": "XBackend",
        "metadata": {"name": "api", "namespace": "shop"}, "spec": spec
    })
}

fn policy(spec: Value) -> Value {
    json!({
        "apiVersion": "gateway.networking.x-k8s.io/v1alpha1", "kind": "XBackendTrafficPolicy",
        "metadata": {"name": "retries", "namespace": "shop"}, "spec": spec
    })
}

fn valid_backend() -> Value {
    backend(json!({
        "type": "ExternalHostname",
        "externalHostname": {"hostname": "api.example.com"},
        "port": {"port": 443},
        "protocol": "HTTP2",
        "tls": {"mode": "ServerOnly", "validation": {
            "hostname": "api.example.com", "wellKnownCACertificates": "System"
        }}
    }))
}

#[test]
fn both_kinds_decode_as_their_own_kinds_and_are_served_only_by_the_experimental_channel() {
    let decoded = decode_documents(
        &valid_backend().to_string(),
        &DecodeOptions::checking_fields(),
    )
    .unwrap();
    assert!(matches!(
        decoded.documents[0].resource,
        AnyResource::XBackend(_)
    ));
    assert_eq!(errors(&valid_backend(), Channel::Experimental), []);
    // XBackend CRD: only in config/crd/experimental.
    let standard = errors(&valid_backend(), Channel::Standard);
    assert!(matches!(standard[..], [(ref p, ErrorKind::NotServed { .. })] if p == "apiVersion"));
    let p = policy(json!({"targetRefs": [{"group": "", "kind": "Service", "name": "api"}]}));
    assert_eq!(errors(&p, Channel::Experimental), []);
    assert_eq!(
        ResourceKind::from_type(
            "gateway.networking.x-k8s.io/v1alpha1",
            "XBackendTrafficPolicy"
        ),
        Some(ResourceKind::XBackendTrafficPolicy)
    );
}

// XBackendSpec: "externalHostname must be set when type is ExternalHostname and must be unset
// otherwise".
#[test]
fn external_hostname_is_required_by_its_type() {
    let mut b = valid_backend();
    b["spec"]
        .as_object_mut()
        .unwrap()
        .remove("externalHostname");
    let errs = errors(&b, Channel::Experimental);
    assert!(rule_at(
        &errs,
        "spec",
        "externalHostname must be set when type is ExternalHostname and must be unset otherwise"
    ));
}

// ExternalHostname.hostname: PreciseHostname pattern and "hostname must not be an IP address or
// end with .cluster.local".
#[test]
fn external_hostnames_are_precise_and_outside_the_cluster() {
    let mut b = valid_backend();
    b["spec"]["externalHostname"]["hostname"] = json!("api.shop.svc.cluster.local");
    let errs = errors(&b, Channel::Experimental);
    assert!(rule_at(
        &errs,
        "spec.externalHostname.hostname",
        "hostname must not be an IP address or end with .cluster.local"
    ));
    b["spec"]["externalHostname"]["hostname"] = json!("*.example.com");
    let errs = errors(&b, Channel::Experimental);
    assert!(
        errs.iter()
            .any(|(p, k)| p == "spec.externalHostname.hostname"
                && matches!(k, ErrorKind::Pattern { .. }))
    );
}

// XBackendPort: port 1-65535 (required); name: "size(self) == 0 ||
// format.dns1123Label().validate(self) == null", which the API server evaluates as false for
// every non-empty name (`validate` returns an optional, never `null`).
#[test]
fn ports_are_in_range_and_a_non_empty_port_name_is_refused_as_by_the_api_server() {
    let mut b = valid_backend();
    b["spec"]["port"] = json!({"port": 65536});
    let errs = errors(&b, Channel::Experimental);
    assert!(
        errs.iter()
            .any(|(p, k)| p == "spec.port.port" && matches!(k, ErrorKind::OutOfRange { .. }))
    );
    b["spec"]["port"] = json!({"port": 443, "name": "https"});
    let errs = errors(&b, Channel::Experimental);
    assert!(rule_at(
        &errs,
        "spec.port.name",
        "Name must be a valid DNS label"
    ));
    b["spec"]["port"] = json!({"port": 443, "name": ""});
    assert_eq!(errors(&b, Channel::Experimental), []);
    b["spec"].as_object_mut().unwrap().remove("port");
    let errs = errors(&b, Channel::Experimental);
    assert!(errs.contains(&("spec.port".to_owned(), ErrorKind::Required)));
}

// BackendTLSConfig: "clientCertificateRef must be set if and only if mode is ClientAndServer";
// validation: the BackendTLSPolicy validation rules.
#[test]
fn client_certificates_go_with_mutual_tls_and_validation_needs_a_trust_source() {
    let mut b = valid_backend();
    b["spec"]["tls"]["mode"] = json!("ClientAndServer");
    let msg = "clientCertificateRef must be set if and only if mode is ClientAndServer";
    assert!(rule_at(&errors(&b, Channel::Experimental), "spec.tls", msg));
    b["spec"]["tls"]["clientCertificateRef"] = json!({"name": "client"});
    assert_eq!(errors(&b, Channel::Experimental), []);
    b["spec"]["tls"]["mode"] = json!("ServerOnly");
    assert!(rule_at(&errors(&b, Channel::Experimental), "spec.tls", msg));
    let mut b = valid_backend();
    b["spec"]["tls"]["validation"]
        .as_object_mut()
        .unwrap()
        .remove("wellKnownCACertificates");
    assert!(rule_at(
        &errors(&b, Channel::Experimental),
        "spec.tls.validation",
        "must specify either CACertificateRefs or WellKnownCACertificates"
    ));
}

// XBackendTrafficPolicy: targetRefs 1-16, a map keyed by (group, kind, name); budget percent
// 0-100 and interval 1s-1h; minRetryRate count 1-1000000 and interval above 0s, at most 1h;
// session persistence rules.
#[test]
fn traffic_policy_targets_budgets_and_rates_are_bounded() {
    let target = json!({"group": "", "kind": "Service", "name": "api"});
    let errs = errors(&policy(json!({"targetRefs": []})), Channel::Experimental);
    assert!(
        errs.iter()
            .any(|(p, k)| p == "spec.targetRefs" && matches!(k, ErrorKind::TooFew { .. }))
    );
    let errs = errors(
        &policy(json!({"targetRefs": [target, target]})),
        Channel::Experimental,
    );
    assert!(
        errs.iter()
            .any(|(p, k)| p == "spec.targetRefs[1]" && matches!(k, ErrorKind::Duplicate { .. }))
    );
    let with = |rc: Value| policy(json!({"targetRefs": [target], "retryConstraint": rc}));
    let budget = "interval cannot be greater than one hour or less than one second";
    for (interval, ok) in [("1s", true), ("1h", true), ("999ms", false), ("61m", false)] {
        let errs = errors(
            &with(json!({"budget": {"interval": interval, "percent": 20}})),
            Channel::Experimental,
        );
        assert_eq!(
            !rule_at(&errs, "spec.retryConstraint.budget.interval", budget),
            ok,
            "{interval}"
        );
    }
    let rate = "interval cannot be greater than one hour";
    for (interval, ok) in [("1ms", true), ("1h", true), ("0s", false), ("3601s", false)] {
        let errs = errors(
            &with(json!({"minRetryRate": {"interval": interval, "count": 1}})),
            Channel::Experimental,
        );
        assert_eq!(
            !rule_at(&errs, "spec.retryConstraint.minRetryRate.interval", rate),
            ok,
            "{interval}"
        );
    }
    let errs = errors(
        &with(json!({"budget": {"percent": 101}, "minRetryRate": {"count": 0}})),
        Channel::Experimental,
    );
    let out_of_range: Vec<&str> = errs
        .iter()
        .filter(|(_, k)| matches!(k, ErrorKind::OutOfRange { .. }))
        .map(|(p, _)| p.as_str())
        .collect();
    assert_eq!(
        out_of_range,
        [
            "spec.retryConstraint.budget.percent",
            "spec.retryConstraint.minRetryRate.count"
        ]
    );
    let errs = errors(
        &policy(json!({"targetRefs": [target], "sessionPersistence": {
            "type": "Header", "cookieConfig": {"lifetimeType": "Session"}
        }})),
        Channel::Experimental,
    );
    assert!(rule_at(
        &errs,
        "spec.sessionPersistence",
        "cookieConfig can only be set with type Cookie"
    ));
}

// ---------------------------------------------------------------------------------------------
// The v1.7 shape (gateway-api v1.7.0 `apisx/v1alpha1/xbackend_types.go`).

fn v1_7_backend(spec: Value) -> Value {
    backend(spec)
}

#[test]
fn v1_7_names_the_port_number_and_refuses_the_v1_6_port_fields() {
    let b = v1_7_backend(json!({
        "type": "ExternalHostname", "externalHostname": {"hostname": "api.example.com"},
        "port": {"number": 8080}, "protocol": "HTTP"
    }));
    assert_eq!(errors_v1_7(&b), []);
    // The v1.6 server does not know `number` and still requires `port`.
    let v1_6 = errors(&b, Channel::Experimental);
    assert!(
        v1_6.iter()
            .any(|(p, k)| p == "spec.port.number" && *k == ErrorKind::UnknownField),
        "{v1_6:?}"
    );
    let old = v1_7_backend(json!({
        "type": "ExternalHostname", "externalHostname": {"hostname": "api.example.com"},
        "port": {"port": 8080}, "protocol": "HTTP"
    }));
    assert_eq!(
        errors_v1_7(&old),
        [("spec.port.port".to_owned(), ErrorKind::UnknownField)]
    );
    let out_of_range = v1_7_backend(json!({
        "type": "ExternalHostname", "externalHostname": {"hostname": "api.example.com"},
        "port": {"number": 0}
    }));
    assert!(
        errors_v1_7(&out_of_range)
            .iter()
            .any(|(p, _)| p == "spec.port.number")
    );
    // `minProperties: 1`.
    let empty = v1_7_backend(json!({
        "type": "ExternalHostname", "externalHostname": {"hostname": "api.example.com"},
        "port": {}
    }));
    assert!(errors_v1_7(&empty).iter().any(|(p, _)| p == "spec.port"));
}

#[test]
fn v1_7_endpoint_selector_backends_select_pods_by_labels_and_may_persist_sessions() {
    let b = v1_7_backend(json!({
        "type": "EndpointSelector", "endpointSelector": {"matchLabels": {"app": "api"}},
        "port": {"number": 8080},
        "sessionPersistence": {"type": "Header", "header": {"name": "x-session"}}
    }));
    assert_eq!(errors_v1_7(&b), []);
    // v1.6 serves neither the type nor the fields.
    assert!(!errors(&b, Channel::Experimental).is_empty());
    let msg =
        "endpointSelector must be set when type is EndpointSelector and must be unset otherwise";
    let missing = v1_7_backend(json!({"type": "EndpointSelector", "port": {"number": 1}}));
    assert!(rule_at(&errors_v1_7(&missing), "spec", msg));
    let stray = v1_7_backend(json!({
        "type": "ExternalHostname", "externalHostname": {"hostname": "api.example.com"},
        "endpointSelector": {"matchLabels": {"app": "api"}}, "port": {"number": 1},
        "sessionPersistence": {"type": "Cookie", "cookie": {}}
    }));
    let errs = errors_v1_7(&stray);
    assert!(rule_at(&errs, "spec", msg), "{errs:?}");
    assert!(rule_at(
        &errs,
        "spec",
        "sessionPersistence can only be set when type is EndpointSelector"
    ));
    let empty = v1_7_backend(json!({
        "type": "EndpointSelector", "endpointSelector": {"matchLabels": {}}, "port": {"number": 1}
    }));
    assert!(errors_v1_7(&empty).iter().any(
        |(p, k)| p == "spec.endpointSelector.matchLabels" && *k == ErrorKind::TooFew { min: 1 }
    ));
    let bad_key = v1_7_backend(json!({
        "type": "EndpointSelector", "endpointSelector": {"matchLabels": {"-x": "a"}},
        "port": {"number": 1}
    }));
    assert!(
        errors_v1_7(&bad_key)
            .iter()
            .any(|(p, k)| p == "spec.endpointSelector.matchLabels"
                && matches!(k, ErrorKind::Rule { .. }))
    );
}

#[test]
fn v1_7_ties_the_protocol_to_tls_with_tls_defaulted_off() {
    let with = |protocol: &str, tls: Option<Value>| {
        let mut spec = json!({
            "type": "ExternalHostname", "externalHostname": {"hostname": "api.example.com"},
            "port": {"number": 443}, "protocol": protocol
        });
        if let Some(t) = tls {
            spec["tls"] = t;
        }
        errors_v1_7(&v1_7_backend(spec))
    };
    let on = json!({"mode": "ServerOnly", "validation": {
        "hostname": "api.example.com", "wellKnownCACertificates": "System"
    }});
    assert_eq!(with("HTTP2", Some(on.clone())), []);
    assert_eq!(with("WSS", Some(on.clone())), []);
    assert_eq!(with("H2C", None), []);
    assert_eq!(with("GRPC", None), []);
    assert!(rule_at(
        &with("HTTP2", None),
        "spec",
        "tls must be enabled when protocol is HTTP2, use protocol H2C for HTTP/2 without tls"
    ));
    assert!(rule_at(
        &with("WSS", Some(json!({"mode": "None"}))),
        "spec",
        "tls must be enabled when protocol is WSS"
    ));
    assert!(rule_at(
        &with("H2C", Some(on)),
        "spec",
        "tls must be disabled when protocol is H2C, use protocol HTTP2 for HTTP/2 with tls"
    ));
    assert!(rule_at(
        &with("TCP", Some(json!({"mode": "ServerOnly"}))),
        "spec.tls",
        "validation must be set if and only if mode is either ClientAndServer or ServerOnly"
    ));
    // GRPC and WSS are v1.7 values: a v1.6 server refuses them.
    let grpc = v1_7_backend(json!({
        "type": "ExternalHostname", "externalHostname": {"hostname": "api.example.com"},
        "port": {"port": 443}, "protocol": "GRPC"
    }));
    assert!(
        errors(&grpc, Channel::Experimental)
            .iter()
            .any(|(p, k)| p == "spec.protocol" && matches!(k, ErrorKind::UnsupportedValue { .. }))
    );
}

#[test]
fn v1_7_tls_validation_takes_exactly_one_trust_source() {
    let with = |validation: Value| {
        errors_v1_7(&v1_7_backend(json!({
            "type": "ExternalHostname", "externalHostname": {"hostname": "api.example.com"},
            "port": {"number": 443},
            "tls": {"mode": "ServerOnly", "validation": validation}
        })))
    };
    let msg =
        "exactly one of the fields in [caCertificateRefs wellKnownCACertificates] must be set";
    assert!(rule_at(
        &with(json!({"hostname": "api.example.com"})),
        "spec.tls.validation",
        msg
    ));
    assert!(rule_at(
        &with(json!({
            "hostname": "api.example.com", "wellKnownCACertificates": "System",
            "caCertificateRefs": [{"group": "", "kind": "ConfigMap", "name": "ca"}]
        })),
        "spec.tls.validation",
        msg
    ));
}
