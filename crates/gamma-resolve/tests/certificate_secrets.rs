//! Listener certificate references against the Secrets of the input (Gateway API
//! GatewayTLSConfig.certificateRefs and ListenerConditionReason): a reference to a Secret that
//! does not exist, or that is not a `kubernetes.io/tls` Secret with `tls.crt` and `tls.key`,
//! is `ResolvedRefs=False InvalidCertificateRef`; one into another namespace without a
//! ReferenceGrant is `RefNotPermitted` whether or not the Secret exists. Unless the input says
//! it holds every Secret (`Snapshot::secrets_complete`), references are checked as before
//! (kind and ReferenceGrant only), however many Secrets it holds.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use gamma_model::Snapshot;
use gamma_resolve::gateway_status::{INVALID_CERTIFICATE_REF, REF_NOT_PERMITTED};
use gamma_resolve::status::{RESOLVED_REFS, RouteCondition};
use gamma_resolve::*;

const KEY_MATERIAL: &str = "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t";

/// A Gateway `infra/gw` with one HTTPS listener per (name, certificate Secret namespace/name).
fn gateway(listeners: &[(&str, &str, &str)], extra: &str) -> String {
    let mut y = String::from(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\n\
         metadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: example\n  listeners:\n",
    );
    for (i, (name, ns, secret)) in listeners.iter().enumerate() {
        y.push_str(&format!(
            "  - {{name: {name}, port: 443, protocol: HTTPS, hostname: h{i}.example.com, \
             tls: {{certificateRefs: [{{name: {secret}, namespace: {ns}}}]}}}}\n"
        ));
    }
    y.push_str(extra);
    y
}

fn secret(ns: &str, name: &str, type_: &str, keys: &[&str]) -> String {
    let data: Vec<String> = keys
        .iter()
        .map(|k| format!("{k}: {KEY_MATERIAL}"))
        .collect();
    format!(
        "---\napiVersion: v1\nkind: Secret\nmetadata: {{name: {name}, namespace: {ns}}}\n\
         type: {type_}\ndata: {{{}}}\n",
        data.join(", ")
    )
}

fn resolved_refs(yaml: &str, listener: &str) -> RouteCondition {
    resolved_refs_with(yaml, listener, true)
}

/// [`resolved_refs`] from a snapshot whose `secrets_complete` is `complete`.
fn resolved_refs_with(yaml: &str, listener: &str, complete: bool) -> RouteCondition {
    let snapshot = Snapshot::from_resources(gamma_model::decode(yaml).unwrap())
        .with_secrets_complete(complete);
    let table = RouteTable::build(&snapshot, &BuildOptions::default());
    table.gateway_status()[0]
        .listener(listener)
        .and_then(|l| l.condition(RESOLVED_REFS))
        .cloned()
        .unwrap_or_else(|| panic!("no ResolvedRefs on {listener}"))
}

// GatewayTLSConfig.certificateRefs: "a reference to a Secret that does not exist" (or is not a
// usable TLS Secret) makes the listener's ResolvedRefs False with InvalidCertificateRef; a
// kubernetes.io/tls Secret with both keys resolves.
#[test]
fn certificate_refs_to_missing_or_unusable_secrets_are_invalid_certificate_refs() {
    let yaml = gateway(
        &[
            ("ok", "infra", "good"),
            ("missing", "infra", "nope"),
            ("opaque", "infra", "opaque"),
            ("half", "infra", "half"),
        ],
        &[
            secret(
                "infra",
                "good",
                "kubernetes.io/tls",
                &["tls.crt", "tls.key"],
            ),
            secret("infra", "opaque", "Opaque", &["tls.crt", "tls.key"]),
            secret("infra", "half", "kubernetes.io/tls", &["tls.crt"]),
        ]
        .concat(),
    );
    assert!(resolved_refs(&yaml, "ok").status);
    for (listener, says) in [
        ("missing", "Secret infra/nope does not exist"),
        (
            "opaque",
            "Secret infra/opaque is of type Opaque, not kubernetes.io/tls",
        ),
        ("half", "Secret infra/half has no tls.key"),
    ] {
        let c = resolved_refs(&yaml, listener);
        assert_eq!(
            (c.status, c.reason.as_str()),
            (false, INVALID_CERTIFICATE_REF),
            "{listener}: {c:?}"
        );
        assert!(c.message.contains(says), "{listener}: {}", c.message);
        assert!(!c.message.contains(KEY_MATERIAL));
    }
}

// An input that does not say it holds every Secret (a controller not watching them) has a
// reference to a Secret it lacks not judged missing, whether it holds other Secrets or none:
// ResolvedRefs stays True, as before Secrets were modelled.
#[test]
fn unless_secrets_are_complete_certificate_refs_are_not_judged_missing() {
    let some = secret(
        "infra",
        "unrelated",
        "kubernetes.io/tls",
        &["tls.crt", "tls.key"],
    );
    for extra in ["", some.as_str()] {
        let yaml = gateway(&[("https", "infra", "nope")], extra);
        assert!(resolved_refs_with(&yaml, "https", false).status, "{extra}");
    }
}

// GatewayTLSConfig.certificateRefs: "a reference to a Secret that does not exist" is
// InvalidCertificateRef. An input that holds every Secret and holds none (a controller
// watching Secrets before any TLS Secret exists) makes every reference one to a Secret that
// does not exist: the verdict depends on the input's word, not on how many Secrets it holds.
#[test]
fn with_secrets_complete_and_no_secret_at_all_a_reference_is_invalid_certificate_ref() {
    let yaml = gateway(&[("https", "infra", "nope")], "");
    let c = resolved_refs_with(&yaml, "https", true);
    assert_eq!(
        (c.status, c.reason.as_str()),
        (false, INVALID_CERTIFICATE_REF),
        "{c:?}"
    );
    assert!(
        c.message.contains("Secret infra/nope does not exist"),
        "{}",
        c.message
    );
}

// RouteTable::update gives what a build of the same snapshot gives: a snapshot whose
// secrets_complete differs from the one the table was built from changes every reference's
// verdict, whatever object changed.
#[test]
fn an_update_from_a_snapshot_with_other_secrets_knowledge_equals_a_build() {
    let yaml = format!(
        "{}---\napiVersion: v1\nkind: Service\nmetadata: {{name: web, namespace: infra}}\n\
         spec: {{clusterIP: 10.96.0.9, ports: [{{port: 80}}]}}\n",
        gateway(&[("https", "infra", "nope")], "")
    );
    let before = Snapshot::from_resources(gamma_model::decode(&yaml).unwrap());
    let options = BuildOptions::default();
    let table = RouteTable::build(&before, &options);
    assert!(
        table.gateway_status()[0].listeners[0]
            .condition(RESOLVED_REFS)
            .unwrap()
            .status
    );
    let mut after = before.clone().with_secrets_complete(true);
    let key = gamma_model::ObjectKey::new(gamma_model::ResourceKind::Service, "infra", "web");
    let previous = after.remove(&key);
    let updated = table.update(&after, &options, &key, previous.as_deref());
    assert_eq!(
        updated.gateway_status(),
        RouteTable::build(&after, &options).gateway_status()
    );
    assert!(
        !updated.gateway_status()[0].listeners[0]
            .condition(RESOLVED_REFS)
            .unwrap()
            .status
    );
}

// A reference into another namespace without a ReferenceGrant is RefNotPermitted whether or not
// the Secret exists there: the status says nothing of another namespace's Secrets.
#[test]
fn a_cross_namespace_ref_without_a_grant_is_ref_not_permitted_whether_or_not_it_exists() {
    for other in [
        secret(
            "certs",
            "shared",
            "kubernetes.io/tls",
            &["tls.crt", "tls.key"],
        ),
        secret(
            "certs",
            "unrelated",
            "kubernetes.io/tls",
            &["tls.crt", "tls.key"],
        ),
    ] {
        let c = resolved_refs(&gateway(&[("https", "certs", "shared")], &other), "https");
        assert_eq!(
            (c.status, c.reason.as_str()),
            (false, REF_NOT_PERMITTED),
            "{c:?}"
        );
        assert!(!c.message.contains("exist"), "{}", c.message);
    }
    // granted: then the Secret is checked
    let grant = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: ReferenceGrant\n\
                 metadata: {name: g, namespace: certs}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}]\n  to: [{group: \"\", kind: Secret}]\n";
    let yaml = gateway(
        &[("https", "certs", "gone")],
        &[
            grant.to_string(),
            secret(
                "certs",
                "shared",
                "kubernetes.io/tls",
                &["tls.crt", "tls.key"],
            ),
        ]
        .concat(),
    );
    let c = resolved_refs(&yaml, "https");
    assert_eq!(
        (c.status, c.reason.as_str()),
        (false, INVALID_CERTIFICATE_REF)
    );
}
