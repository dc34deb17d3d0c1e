//! Listener certificate references against the Secrets of the input (Gateway API
//! GatewayTLSConfig.certificateRefs and ListenerConditionReason): a reference to a Secret that
//! does not exist, or that is not a `kubernetes.io/tls` Secret with `tls.crt` and `tls.key`,
//! is `ResolvedRefs=False InvalidCertificateRef`; one into another namespace without a
//! ReferenceGrant is `RefNotPermitted` whether or not the Secret exists. Without Secrets in
//! the input, references are checked as before (kind and ReferenceGrant only).
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
    let snapshot = Snapshot::from_resources(gamma_model::decode(yaml).unwrap());
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

// Without Secrets in the input (a controller not watching them), a reference to a Secret is
// not judged missing: ResolvedRefs stays True, as before Secrets were modelled.
#[test]
fn without_secrets_in_the_input_certificate_refs_are_not_judged_missing() {
    let yaml = gateway(&[("https", "infra", "nope")], "");
    assert!(resolved_refs(&yaml, "https").status);
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
