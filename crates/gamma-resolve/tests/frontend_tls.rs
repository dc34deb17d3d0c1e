//! Client certificate validation on a Gateway's HTTPS listeners (Gateway API v1.7.0
//! FrontendTLSConfig and FrontendTLSValidation, GEP-91), judged from the input:
//!
//! - a `caCertificateRefs` entry that "refers to a resource that cannot be resolved (e.g., the
//!   referenced resource does not exist) or is misconfigured (e.g., a ConfigMap does not
//!   contain a key named `ca.crt`)" makes the listener's `ResolvedRefs` False with
//!   `InvalidCACertificateRef`; one of "an unknown or unsupported kind" with
//!   `InvalidCACertificateKind`; one into another namespace that no ReferenceGrant permits
//!   with `RefNotPermitted`;
//! - "If ALL CACertificateRefs are invalid, the implementation MUST also ensure the `Accepted`
//!   condition on the listener is set to `status: False`, with the Reason
//!   `NoValidCACertificate`": such a listener serves nothing;
//! - a `perPort` entry "overrides the default configuration for all Listeners handling HTTPS
//!   traffic that match this port";
//! - the Gateway carries `InsecureFrontendValidationMode=True` (reason `ConfigurationChanged`)
//!   while a validation's mode is `AllowInsecureFallback`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::manifest::{WEB_BEHIND_GW, snapshot, table};
use gamma_model::{AnyResource, ObjectKey, ResourceKind, decode};
use gamma_resolve::gateway_status::{
    CONFIGURATION_CHANGED, INSECURE_FRONTEND_VALIDATION_MODE, INVALID_CA_CERTIFICATE_KIND,
    INVALID_CA_CERTIFICATE_REF, LISTENERS_NOT_VALID, NO_VALID_CA_CERTIFICATE, REF_NOT_PERMITTED,
};
use gamma_resolve::status::{ACCEPTED, RESOLVED_REFS, RouteCondition};
use gamma_resolve::{BuildOptions, Decision, Request, RouteTable, Scheme};

/// A Gateway `infra/gw` at 192.0.2.1 with an HTTP listener on 80, HTTPS listeners `https` on
/// 443 and `alt` on 8443, the given `spec.tls.frontend`, a Service and a route on every
/// listener.
fn gateway(frontend: &str, extra: &str) -> String {
    format!(
        r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: infra}}
spec:
  gatewayClassName: example
  addresses: [{{type: IPAddress, value: 192.0.2.1}}]
  tls: {{frontend: {frontend}}}
  listeners:
  - {{name: http, port: 80, protocol: HTTP}}
  - {{name: https, port: 443, protocol: HTTPS, tls: {{certificateRefs: [{{name: cert}}]}}}}
  - {{name: alt, port: 8443, protocol: HTTPS, tls: {{certificateRefs: [{{name: cert}}]}}}}
{WEB_BEHIND_GW}{extra}"#
    )
}

/// `{default: {validation: {caCertificateRefs: [refs]}}}`.
fn default_validation(refs: &str) -> String {
    format!("{{default: {{validation: {{caCertificateRefs: [{refs}]}}}}}}")
}

fn config_map(ns: &str, name: &str, data: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: {ns}}}\n\
         data: {data}\n"
    )
}

const CA: &str = r#"{ca.crt: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}"#;

fn listener_condition(t: &RouteTable, listener: &str, type_: &str) -> RouteCondition {
    t.gateway_status()[0]
        .listener(listener)
        .and_then(|l| l.condition(type_))
        .cloned()
        .unwrap_or_else(|| panic!("no {type_} on {listener}"))
}

/// (status, reason) of a listener's condition.
fn verdict(t: &RouteTable, listener: &str, type_: &str) -> (bool, String) {
    let c = listener_condition(t, listener, type_);
    (c.status, c.reason)
}

/// Whether an HTTPS request to `port` is forwarded.
fn forwarded(t: &RouteTable, port: u16) -> bool {
    let req = Request::http("192.0.2.1".parse().unwrap(), port, "GET", "/")
        .with_host("web.example.com")
        .with_scheme(Scheme::Https);
    matches!(t.resolve(&req, 0), Decision::Forward(_))
}

// "It refers to a resource that cannot be resolved (e.g., the referenced resource does not
// exist) or is misconfigured (e.g., a ConfigMap does not contain a key named `ca.crt`)":
// InvalidCACertificateRef; with every entry invalid the listener is not accepted
// (NoValidCACertificate) and serves nothing, while the Gateway stays accepted with its other
// listeners (ListenersNotValid). A ConfigMap holding `ca.crt` resolves.
#[test]
fn a_missing_or_misconfigured_ca_config_map_rejects_the_https_listeners() {
    let refs = default_validation(r#"{group: "", kind: ConfigMap, name: ca}"#);
    for extra in [String::new(), config_map("infra", "ca", "{other: x}")] {
        let t = table(&gateway(&refs, &extra));
        for l in ["https", "alt"] {
            assert_eq!(
                verdict(&t, l, RESOLVED_REFS),
                (false, INVALID_CA_CERTIFICATE_REF.to_owned())
            );
            assert_eq!(
                verdict(&t, l, ACCEPTED),
                (false, NO_VALID_CA_CERTIFICATE.to_owned())
            );
        }
        let message = listener_condition(&t, "https", RESOLVED_REFS).message;
        assert!(
            message.starts_with(
                "spec.tls.frontend.default.validation.caCertificateRefs[0]: ConfigMap infra/ca "
            ),
            "{message}"
        );
        // the HTTP listener is not one "handling HTTPS traffic"
        assert_eq!(verdict(&t, "http", ACCEPTED), (true, ACCEPTED.to_owned()));
        let gw = t.gateway_status()[0].condition(ACCEPTED).unwrap().clone();
        assert_eq!((gw.status, gw.reason.as_str()), (true, LISTENERS_NOT_VALID));
        assert!(!forwarded(&t, 443));
    }
    let t = table(&gateway(&refs, &config_map("infra", "ca", CA)));
    for l in ["https", "alt"] {
        assert_eq!(
            verdict(&t, l, RESOLVED_REFS),
            (true, RESOLVED_REFS.to_owned())
        );
        assert_eq!(verdict(&t, l, ACCEPTED), (true, ACCEPTED.to_owned()));
    }
    assert!(forwarded(&t, 443));
}

// "In all cases, the implementation MUST ensure that the `ResolvedRefs` condition is set to
// `status: False` on all targeted listeners"; only "If ALL CACertificateRefs are invalid" is
// the listener not accepted. The first invalid entry gives the reason; the message names all.
#[test]
fn one_usable_ca_keeps_the_listener_accepted_with_resolved_refs_false() {
    let refs = default_validation(
        r#"{group: "", kind: ConfigMap, name: ca}, {group: example.com, kind: Vault, name: v}, {group: "", kind: ConfigMap, name: gone}"#,
    );
    let t = table(&gateway(&refs, &config_map("infra", "ca", CA)));
    let c = listener_condition(&t, "https", RESOLVED_REFS);
    assert_eq!(
        (c.status, c.reason.as_str()),
        (false, INVALID_CA_CERTIFICATE_KIND)
    );
    assert!(
        c.message
            .contains("caCertificateRefs[1]: example.com/Vault is not a supported kind"),
        "{}",
        c.message
    );
    assert!(
        c.message
            .contains("caCertificateRefs[2]: ConfigMap infra/gone does not exist"),
        "{}",
        c.message
    );
    assert_eq!(verdict(&t, "https", ACCEPTED), (true, ACCEPTED.to_owned()));
    assert!(forwarded(&t, 443));
}

// "It refers to a resource in another namespace UNLESS there is a ReferenceGrant in the target
// namespace that allows the CA certificate to be attached. If a ReferenceGrant does not allow
// this reference, the `ResolvedRefs` on all matching HTTPS listeners condition MUST be set
// with the Reason `RefNotPermitted`." A grant from Gateways of the namespace to that
// ConfigMap (or to every ConfigMap) permits it; one from elsewhere or to Secrets does not.
#[test]
fn a_ca_config_map_in_another_namespace_needs_a_reference_grant() {
    let refs = default_validation(r#"{group: "", kind: ConfigMap, name: ca, namespace: pki}"#);
    let cm = config_map("pki", "ca", CA);
    let grant = |from_ns: &str, to_kind: &str, name: &str| {
        format!(
            "---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\n\
             metadata: {{name: g, namespace: pki}}\nspec:\n  from: [{{group: gateway.networking.k8s.io, kind: Gateway, namespace: {from_ns}}}]\n\
             \x20 to: [{{group: \"\", kind: {to_kind}{name}}}]\n"
        )
    };
    for (extra, permitted) in [
        (String::new(), false),
        (grant("other", "ConfigMap", ""), false),
        (grant("infra", "Secret", ""), false),
        (grant("infra", "ConfigMap", ", name: other"), false),
        (grant("infra", "ConfigMap", ""), true),
        (grant("infra", "ConfigMap", ", name: ca"), true),
    ] {
        let t = table(&gateway(&refs, &format!("{cm}{extra}")));
        let expected = if permitted {
            (true, RESOLVED_REFS.to_owned())
        } else {
            (false, REF_NOT_PERMITTED.to_owned())
        };
        assert_eq!(verdict(&t, "https", RESOLVED_REFS), expected, "{extra}");
        assert_eq!(forwarded(&t, 443), permitted, "{extra}");
    }
}

// FrontendTLSConfig.perPort: "Once set this configuration overrides the default configuration
// for all Listeners handling HTTPS traffic that match this port". A per-port entry without a
// validation turns validation off for its port.
#[test]
fn a_per_port_entry_overrides_the_default_for_its_port() {
    let frontend = r#"{default: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: missing}]}},
      perPort: [{port: 8443, tls: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}]}}}]}"#;
    let t = table(&gateway(frontend, &config_map("infra", "ca", CA)));
    assert_eq!(
        verdict(&t, "https", ACCEPTED),
        (false, NO_VALID_CA_CERTIFICATE.to_owned())
    );
    assert_eq!(verdict(&t, "alt", ACCEPTED), (true, ACCEPTED.to_owned()));
    assert!(!forwarded(&t, 443));
    assert!(forwarded(&t, 8443));
    let message = listener_condition(&t, "https", ACCEPTED).message;
    assert!(
        message.contains("spec.tls.frontend.default.validation"),
        "{message}"
    );

    let off = r#"{default: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: missing}]}},
      perPort: [{port: 8443, tls: {}}]}"#;
    let t = table(&gateway(off, ""));
    assert_eq!(
        verdict(&t, "alt", RESOLVED_REFS),
        (true, RESOLVED_REFS.to_owned())
    );
    assert_eq!(verdict(&t, "alt", ACCEPTED), (true, ACCEPTED.to_owned()));
    assert_eq!(
        verdict(&t, "https", ACCEPTED),
        (false, NO_VALID_CA_CERTIFICATE.to_owned())
    );
}

// GatewayConditionInsecureFrontendValidationMode: "true when the Gateway
// FrontendValidationModeType is configured to allow insecure fallback behavior" (reason
// ConfigurationChanged, "either at the Gateway level or via a per-port override"), and
// "removed as soon as FrontendValidationModeType is changed back to `AllowValidOnly`".
#[test]
fn insecure_fallback_sets_the_gateway_condition_and_allow_valid_only_leaves_it_out() {
    let cm = config_map("infra", "ca", CA);
    let ca = r#"caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}]"#;
    for (frontend, path) in [
        (
            format!("{{default: {{validation: {{{ca}, mode: AllowInsecureFallback}}}}}}"),
            Some("spec.tls.frontend.default.validation.mode"),
        ),
        (
            format!(
                "{{default: {{validation: {{{ca}}}}}, perPort: [{{port: 8443, tls: {{validation: {{{ca}, mode: AllowInsecureFallback}}}}}}]}}"
            ),
            Some("spec.tls.frontend.perPort[0].tls.validation.mode"),
        ),
        (
            format!("{{default: {{validation: {{{ca}, mode: AllowValidOnly}}}}}}"),
            None,
        ),
        (format!("{{default: {{validation: {{{ca}}}}}}}"), None),
    ] {
        let t = table(&gateway(&frontend, &cm));
        let c = t.gateway_status()[0]
            .condition(INSECURE_FRONTEND_VALIDATION_MODE)
            .cloned();
        match path {
            Some(path) => {
                let c = c.unwrap_or_else(|| panic!("no condition for {frontend}"));
                assert_eq!((c.status, c.reason.as_str()), (true, CONFIGURATION_CHANGED));
                assert!(c.message.contains(path), "{}", c.message);
            }
            None => assert_eq!(c, None, "{frontend}"),
        }
        // the mode does not change what the listeners resolve
        assert!(forwarded(&t, 443));
    }
}

// GEP-5075 (v1.7, experimental): a ClusterTrustBundle is resolved by name, and judged missing
// only when the input holds every one (as for BackendTLSPolicy).
#[test]
fn cluster_trust_bundle_cas_are_judged_missing_only_from_a_complete_input() {
    let refs =
        default_validation("{group: certificates.k8s.io, kind: ClusterTrustBundle, name: roots}");
    let bundle = "---\napiVersion: certificates.k8s.io/v1beta1\nkind: ClusterTrustBundle\n\
                  metadata: {name: roots}\n\
                  spec: {trustBundle: \"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n\"}\n";
    let judge = |extra: &str, complete: bool| {
        let s = snapshot(&gateway(&refs, extra)).with_cluster_trust_bundles_complete(complete);
        let t = RouteTable::build(&s, &BuildOptions::default());
        (verdict(&t, "https", RESOLVED_REFS).1, forwarded(&t, 443))
    };
    assert_eq!(judge("", false), (RESOLVED_REFS.to_owned(), true));
    assert_eq!(
        judge("", true),
        (INVALID_CA_CERTIFICATE_REF.to_owned(), false)
    );
    assert_eq!(judge(bundle, true), (RESOLVED_REFS.to_owned(), true));
    let no_pem = bundle.replace(
        "\"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n\"",
        "\"not a certificate\"",
    );
    assert_eq!(
        judge(&no_pem, true),
        (INVALID_CA_CERTIFICATE_REF.to_owned(), false)
    );
}

/// The listeners' conditions and what each port answers: what an update must agree on with a
/// build.
fn observable(t: &RouteTable) -> String {
    format!(
        "{:?} {} {} {}",
        t.gateway_status(),
        forwarded(t, 80),
        forwarded(t, 443),
        forwarded(t, 8443)
    )
}

// docs/incremental.md: a ConfigMap or ClusterTrustBundle a Gateway's frontend validation names
// re-lowers that Gateway; the update gives what a build of the new snapshot gives, including
// for a ConfigMap in another namespace.
#[test]
fn creating_and_deleting_a_ca_updates_as_a_build_does() {
    let options = BuildOptions::default().with_keep_lowered_routes(true);
    let grant = "---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\n\
                 metadata: {name: g, namespace: pki}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}]\n\
                 \x20 to: [{group: \"\", kind: ConfigMap}]\n";
    let bundle = "apiVersion: certificates.k8s.io/v1beta1\nkind: ClusterTrustBundle\n\
                  metadata: {name: roots}\n\
                  spec: {trustBundle: \"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n\"}\n";
    let cases = [
        (
            default_validation(r#"{group: "", kind: ConfigMap, name: ca}"#),
            config_map("infra", "ca", CA),
        ),
        (
            default_validation(r#"{group: "", kind: ConfigMap, name: ca, namespace: pki}"#),
            config_map("pki", "ca", CA),
        ),
        (
            default_validation(
                "{group: certificates.k8s.io, kind: ClusterTrustBundle, name: roots}",
            ),
            bundle.to_owned(),
        ),
    ];
    for (refs, ca) in cases {
        let before = snapshot(&gateway(&refs, grant)).with_cluster_trust_bundles_complete(true);
        let table = RouteTable::build(&before, &options);
        let object = decode(&ca).unwrap().remove(0);
        let key = ObjectKey::of(&object);
        assert!(matches!(
            key.kind,
            ResourceKind::ConfigMap | ResourceKind::ClusterTrustBundle
        ));
        let mut after = before.clone();
        after.upsert(object);
        let updated = table.update(&after, &options, &key, None);
        assert_eq!(
            observable(&updated),
            observable(&RouteTable::build(&after, &options))
        );
        assert!(forwarded(&updated, 443), "{ca}");
        let previous: Option<AnyResource> = after.get(&key).cloned();
        let mut gone = after.clone();
        gone.remove(&key);
        let again = updated.update(&gone, &options, &key, previous.as_ref());
        assert_eq!(
            observable(&again),
            observable(&RouteTable::build(&gone, &options))
        );
        assert!(!forwarded(&again, 443), "{ca}");
    }
}
