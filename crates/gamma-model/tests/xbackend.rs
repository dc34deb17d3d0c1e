//! XBackend and XBackendTrafficPolicy (Gateway API v1.6.1 experimental CRDs
//! `gateway.networking.x-k8s.io_xbackends.yaml` and `..._xbackendtrafficpolicies.yaml`): decoded
//! as their own kinds, served only by the experimental channel, and every CEL rule of their specs
//! enforced as the API server enforces it.

use gamma_model::validate::{Channel, ErrorKind, ValidateOptions};
use gamma_model::{AnyResource, ResourceKind};
use gamma_model::{DecodeOptions, decode_documents};
use serde_json::{Value, json};

/// The errors of `doc` validated as the API server would (field check, Strict) on `channel`.
fn errors(doc: &Value, channel: Channel) -> Vec<(String, ErrorKind)> {
    let decoded = decode_documents(&doc.to_string(), &DecodeOptions::checking_fields()).unwrap();
    decoded.documents[0]
        .validate_with(&ValidateOptions::channel(channel))
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
