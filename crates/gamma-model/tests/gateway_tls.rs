//! `Gateway.spec.tls` (upstream `GatewayTLSConfig`, CRD v1.6.1, identical in the standard and
//! experimental channels): typed decoding, and one table per CRD marker and CEL rule with
//! accepted and rejected values at the edges (max and max + 1), each at its field path.
//!
//! The limits below are restated from the CRD (`config/crd/*/gateway.networking.k8s.io_gateways.yaml`,
//! `spec.tls`); `tests/hostile_lists.rs` also reads the `maxItems` from the CRD files themselves.
//! HTTPRoute CRD v1.6.1 (the validated layer implements every CRD marker and CEL rule).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use gamma_model::gateway::{FrontendValidationModeType, Gateway};
use gamma_model::validate::{Channel, ErrorKind, ValidateOptions};
use gamma_model::{AnyResource, Validate, ValidationErrors};
use serde_json::{Value, json};

const CHANNELS: [Channel; 2] = [Channel::Standard, Channel::Experimental];

fn gateway(tls: Value) -> AnyResource {
    let text = json!({
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "gw", "namespace": "ns"},
        "spec": {
            "gatewayClassName": "c",
            "listeners": [{"name": "https", "protocol": "HTTPS", "port": 443,
                           "tls": {"certificateRefs": [{"name": "cert"}]}}],
            "tls": tls,
        },
    })
    .to_string();
    gamma_model::decode(&text).unwrap().remove(0)
}

fn typed(r: &AnyResource) -> &Gateway {
    match r {
        AnyResource::Gateway(g) => g,
        other => panic!("not a Gateway: {other:?}"),
    }
}

fn errors(tls: Value, channel: Channel) -> Vec<(String, ErrorKind)> {
    match gateway(tls).validate_with(&ValidateOptions::channel(channel)) {
        Ok(()) => Vec::new(),
        Err(e) => ValidationErrors::into_vec(e)
            .into_iter()
            .map(|e| (e.path.as_str().to_owned(), e.kind))
            .collect(),
    }
}

#[track_caller]
fn accepted(tls: Value) {
    for channel in CHANNELS {
        let e = errors(tls.clone(), channel);
        assert!(e.is_empty(), "{channel:?}: expected no errors, got {e:?}");
    }
}

/// Rejected on both channels with exactly one error, of `kind` at `path`.
#[track_caller]
fn rejected(tls: Value, path: &str, kind: impl Fn(&ErrorKind) -> bool) {
    for channel in CHANNELS {
        let e = errors(tls.clone(), channel);
        assert_eq!(
            e.len(),
            1,
            "{channel:?}: expected one error at {path}, got {e:?}"
        );
        assert_eq!(e[0].0, path, "{channel:?}: {e:?}");
        assert!(
            kind(&e[0].1),
            "{channel:?}: unexpected kind at {path}: {e:?}"
        );
    }
}

fn ca_ref(name: &str) -> Value {
    json!({"group": "", "kind": "ConfigMap", "name": name})
}

fn ca_refs(n: usize) -> Value {
    Value::Array((0..n).map(|i| ca_ref(&format!("ca-{i}"))).collect())
}

fn validation(refs: Value) -> Value {
    json!({"validation": {"caCertificateRefs": refs}})
}

fn frontend(default: Value, per_port: Value) -> Value {
    json!({"frontend": {"default": default, "perPort": per_port}})
}

fn per_port(ports: impl IntoIterator<Item = i64>) -> Value {
    Value::Array(
        ports
            .into_iter()
            .map(|p| json!({"port": p, "tls": validation(ca_refs(1))}))
            .collect(),
    )
}

// The upstream shape decodes into typed fields (no longer an opaque JSON value).
#[test]
fn spec_tls_decodes_into_typed_fields() {
    let g = gateway(json!({
        "backend": {"clientCertificateRef": {"name": "client", "namespace": "certs"}},
        "frontend": {
            "default": {"validation": {"caCertificateRefs": [ca_ref("ca")], "mode": "AllowInsecureFallback"}},
            "perPort": [{"port": 8443, "tls": validation(json!([ca_ref("other")]))}],
        },
    }));
    let tls = typed(&g).spec.tls.as_ref().unwrap();
    let client = tls
        .backend
        .as_ref()
        .unwrap()
        .client_certificate_ref
        .as_ref()
        .unwrap();
    assert_eq!(
        (client.name.as_str(), client.namespace.as_deref()),
        ("client", Some("certs"))
    );
    let f = tls.frontend.as_ref().unwrap();
    let default = f.default.as_ref().unwrap().validation.as_ref().unwrap();
    assert_eq!(default.ca_certificate_refs[0].kind, "ConfigMap");
    assert_eq!(
        default.mode,
        Some(FrontendValidationModeType::AllowInsecureFallback)
    );
    assert_eq!(f.per_port[0].port, 8443);
    let port_validation = f.per_port[0]
        .tls
        .as_ref()
        .unwrap()
        .validation
        .as_ref()
        .unwrap();
    assert_eq!(port_validation.ca_certificate_refs[0].name, "other");
    // CRD default: AllowValidOnly.
    assert_eq!(
        port_validation.mode_or_default(),
        FrontendValidationModeType::AllowValidOnly
    );
    accepted(serde_json::to_value(tls).unwrap());
}

// A value of the wrong type is a decode error at its field path (it used to pass decoding as
// opaque JSON and be reported by validation).
#[test]
fn wrong_types_are_decode_errors_at_the_field() {
    let text = json!({
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
        "metadata": {"name": "gw"},
        "spec": {"gatewayClassName": "c", "listeners": [],
                 "tls": {"frontend": {"default": {}, "perPort": [{"port": "x"}]}}},
    })
    .to_string();
    let e = gamma_model::decode(&text).unwrap_err();
    assert_eq!(
        e.field_path(),
        Some("spec.tls.frontend.perPort[0].port"),
        "{e}"
    );
}

// An unknown mode decodes (into `Unknown`) and is reported as UnsupportedValue at its path.
#[test]
fn unknown_mode_is_an_unsupported_value() {
    let tls = json!({"frontend": {"default": {"validation": {
        "caCertificateRefs": [ca_ref("ca")], "mode": "AllowAnything"}}}});
    let g = gateway(tls.clone());
    let mode = typed(&g)
        .spec
        .tls
        .as_ref()
        .unwrap()
        .frontend
        .as_ref()
        .unwrap()
        .default
        .as_ref()
        .unwrap()
        .validation
        .as_ref()
        .unwrap()
        .mode
        .clone();
    assert_eq!(
        mode,
        Some(FrontendValidationModeType::Unknown("AllowAnything".into()))
    );
    rejected(
        tls,
        "spec.tls.frontend.default.validation.mode",
        |k| matches!(k, ErrorKind::UnsupportedValue { value, .. } if value == "AllowAnything"),
    );
    for mode in FrontendValidationModeType::KNOWN {
        accepted(json!({"frontend": {"default": {"validation": {
            "caCertificateRefs": [ca_ref("ca")], "mode": mode}}}}));
    }
}

// `frontend.default` is required; `{}` (no validation) is allowed.
#[test]
fn frontend_default_is_required() {
    accepted(json!({"frontend": {"default": {}}}));
    rejected(json!({"frontend": {}}), "spec.tls.frontend.default", |k| {
        *k == ErrorKind::Required
    });
    rejected(
        json!({"frontend": {"perPort": per_port([443])}}),
        "spec.tls.frontend.default",
        |k| *k == ErrorKind::Required,
    );
    // `backend` alone, and an empty `tls`, are fine.
    accepted(json!({}));
    accepted(json!({"backend": {}}));
}

// `caCertificateRefs`: required, minItems 1, maxItems 16, in `default` and in each `perPort`.
#[test]
fn ca_certificate_refs_between_1_and_16() {
    let d = "spec.tls.frontend.default.validation.caCertificateRefs";
    accepted(frontend(validation(ca_refs(1)), json!([])));
    accepted(frontend(validation(ca_refs(16)), json!([])));
    rejected(frontend(validation(ca_refs(17)), json!([])), d, |k| {
        *k == ErrorKind::TooMany { max: 16 }
    });
    rejected(frontend(validation(ca_refs(0)), json!([])), d, |k| {
        *k == ErrorKind::TooFew { min: 1 }
    });
    // Omitted: the same error as empty (the wire list defaults to empty).
    rejected(
        json!({"frontend": {"default": {"validation": {"mode": "AllowValidOnly"}}}}),
        d,
        |k| *k == ErrorKind::TooFew { min: 1 },
    );
    let p = "spec.tls.frontend.perPort[1].tls.validation.caCertificateRefs";
    let ports = |n: usize| {
        json!([{"port": 443, "tls": validation(ca_refs(1))},
               {"port": 8443, "tls": validation(ca_refs(n))}])
    };
    accepted(frontend(json!({}), ports(16)));
    rejected(frontend(json!({}), ports(17)), p, |k| {
        *k == ErrorKind::TooMany { max: 16 }
    });
    rejected(frontend(json!({}), ports(0)), p, |k| {
        *k == ErrorKind::TooFew { min: 1 }
    });
}

// Each CA reference is an `ObjectReference`: group (pattern, <= 253), kind (1–63, pattern),
// name (1–253), namespace (RFC 1123 label, 1–63).
#[test]
fn ca_certificate_ref_fields() {
    let one = |r: Value| frontend(validation(json!([r])), json!([]));
    let at = |f: &str| format!("spec.tls.frontend.default.validation.caCertificateRefs[0].{f}");
    accepted(one(
        json!({"group": "example.com", "kind": "Bundle", "name": "n", "namespace": "ns"}),
    ));
    accepted(one(
        json!({"group": "", "kind": "K", "name": "x".repeat(253)}),
    ));
    rejected(
        one(json!({"group": "Bad_Group", "kind": "ConfigMap", "name": "n"})),
        &at("group"),
        |k| matches!(k, ErrorKind::Pattern { .. }),
    );
    // `group` is required too: omitted is not the core group `""`.
    rejected(
        one(json!({"kind": "ConfigMap", "name": "n"})),
        &at("group"),
        |k| *k == ErrorKind::Required,
    );
    rejected(
        one(json!({"group": "", "kind": "", "name": "n"})),
        &at("kind"),
        |k| matches!(k, ErrorKind::TooShort { .. } | ErrorKind::Required),
    );
    rejected(
        one(json!({"group": "", "kind": "K".repeat(64), "name": "n"})),
        &at("kind"),
        |k| *k == ErrorKind::TooLong { max: 63 },
    );
    rejected(one(json!({"group": "", "kind": "K"})), &at("name"), |k| {
        matches!(k, ErrorKind::TooShort { .. } | ErrorKind::Required)
    });
    rejected(
        one(json!({"group": "", "kind": "K", "name": "x".repeat(254)})),
        &at("name"),
        |k| *k == ErrorKind::TooLong { max: 253 },
    );
    rejected(
        one(json!({"group": "", "kind": "K", "name": "n", "namespace": "Not_A_Label"})),
        &at("namespace"),
        |k| matches!(k, ErrorKind::Pattern { .. }),
    );
}

// `perPort`: maxItems 64; `port` 1–65535 (the path names the entry, e.g. perPort[3].port); `tls`
// required; CEL "Port for TLS configuration must be unique within the Gateway" at the list.
#[test]
fn per_port_limits_ports_and_uniqueness() {
    let path = "spec.tls.frontend.perPort";
    accepted(frontend(json!({}), per_port(1..=64)));
    let e = errors(frontend(json!({}), per_port(1..=65)), Channel::Standard);
    assert_eq!(
        e,
        vec![(path.to_owned(), ErrorKind::TooMany { max: 64 })],
        "65 distinct ports: only the list limit"
    );
    accepted(frontend(json!({}), per_port([1, 65535])));
    for bad in [0, 65536, -1] {
        rejected(
            frontend(json!({}), per_port([80, 443, 8443, bad])),
            "spec.tls.frontend.perPort[3].port",
            |k| *k == ErrorKind::OutOfRange { min: 1, max: 65535 },
        );
    }
    // An omitted port decodes as 0: out of range.
    rejected(
        frontend(json!({}), json!([{"tls": {}}])),
        "spec.tls.frontend.perPort[0].port",
        |k| *k == ErrorKind::OutOfRange { min: 1, max: 65535 },
    );
    rejected(
        frontend(json!({}), json!([{"port": 443}])),
        "spec.tls.frontend.perPort[0].tls",
        |k| *k == ErrorKind::Required,
    );
    accepted(frontend(json!({}), json!([{"port": 443, "tls": {}}])));
    rejected(
        frontend(json!({}), per_port([443, 8443, 443])),
        path,
        |k| matches!(k, ErrorKind::Rule { message } if message == "Port for TLS configuration must be unique within the Gateway"),
    );
}

// `backend.clientCertificateRef` is a `SecretObjectReference`: name required; group, kind and
// namespace checked when set (defaults `""` and `Secret`).
#[test]
fn backend_client_certificate_ref() {
    let b = |r: Value| json!({"backend": {"clientCertificateRef": r}});
    let at = |f: &str| format!("spec.tls.backend.clientCertificateRef.{f}");
    accepted(b(json!({"name": "client"})));
    accepted(b(
        json!({"group": "", "kind": "Secret", "name": "client", "namespace": "certs"}),
    ));
    rejected(b(json!({"namespace": "certs"})), &at("name"), |k| {
        matches!(k, ErrorKind::TooShort { .. } | ErrorKind::Required)
    });
    rejected(
        b(json!({"name": "c", "kind": "1Secret"})),
        &at("kind"),
        |k| matches!(k, ErrorKind::Pattern { .. }),
    );
    rejected(
        b(json!({"name": "c", "group": "UPPER"})),
        &at("group"),
        |k| matches!(k, ErrorKind::Pattern { .. }),
    );
    rejected(
        b(json!({"name": "c", "namespace": "n".repeat(64)})),
        &at("namespace"),
        |k| *k == ErrorKind::TooLong { max: 63 },
    );
}

// Every error in `spec.tls` is collected, not only the first.
#[test]
fn all_errors_are_collected() {
    let tls = json!({
        "backend": {"clientCertificateRef": {}},
        "frontend": {"perPort": [{"port": 0}, {"port": 0, "tls": validation(ca_refs(17))}]},
    });
    let paths: Vec<String> = errors(tls, Channel::Standard)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    for want in [
        "spec.tls.backend.clientCertificateRef.name",
        "spec.tls.frontend.default",
        "spec.tls.frontend.perPort[0].port",
        "spec.tls.frontend.perPort[0].tls",
        "spec.tls.frontend.perPort[1].port",
        "spec.tls.frontend.perPort[1].tls.validation.caCertificateRefs",
        "spec.tls.frontend.perPort",
    ] {
        assert!(
            paths.iter().any(|p| p == want),
            "no error at {want}: {paths:?}"
        );
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A `TLSConfig` with `refs` CA references (`None`: no `validation`) and a mode.
    fn tls_config(refs: Option<usize>, mode: Option<&str>) -> Value {
        match refs {
            None => json!({}),
            Some(n) => {
                let mut v = json!({"caCertificateRefs": ca_refs(n)});
                if let Some(m) = mode {
                    v["mode"] = json!(m);
                }
                json!({ "validation": v })
            }
        }
    }

    fn refs() -> impl Strategy<Value = Option<usize>> {
        prop_oneof![Just(None), (0usize..=17).prop_map(Some)]
    }

    fn mode() -> impl Strategy<Value = Option<&'static str>> {
        prop::sample::select(vec![
            None,
            Some("AllowValidOnly"),
            Some("AllowInsecureFallback"),
            Some("Other"),
        ])
    }

    fn config_ok(refs: Option<usize>, mode: Option<&str>) -> bool {
        refs.is_none_or(|n| (1..=16).contains(&n) && mode != Some("Other"))
    }

    proptest! {
        // Validation agrees with the CRD rules restated independently here: a generated
        // `spec.tls` validates exactly when every list is within its limits, every port is in
        // 1–65535 and unique, every required field is present and every mode is known; and the
        // typed value re-encodes to the input. HTTPRoute CRD v1.6.1.
        #[test]
        fn validation_matches_the_crd_rules(
            default in prop::option::of((refs(), mode())),
            ports in prop::collection::vec(
                (prop::sample::select(vec![0i64, 1, 2, 3, 443, 65535, 65536]),
                 prop::option::of((refs(), mode()))),
                0..=66,
            ),
        ) {
            let mut frontend = json!({});
            if let Some((r, m)) = default {
                frontend["default"] = tls_config(r, m);
            }
            if !ports.is_empty() {
                frontend["perPort"] = Value::Array(ports.iter().map(|(p, t)| {
                    let mut e = json!({"port": p});
                    if let Some((r, m)) = t {
                        e["tls"] = tls_config(*r, *m);
                    }
                    e
                }).collect());
            }
            let tls = json!({"frontend": frontend});
            let mut seen = std::collections::HashSet::new();
            let expected_ok = default.is_some_and(|(r, m)| config_ok(r, m))
                && ports.len() <= 64
                && ports.iter().all(|(p, t)| {
                    (1..=65535).contains(p) && t.is_some_and(|(r, m)| config_ok(r, m))
                })
                && ports.iter().all(|(p, _)| seen.insert(*p));
            for channel in CHANNELS {
                let e = errors(tls.clone(), channel);
                prop_assert_eq!(e.is_empty(), expected_ok, "{:?}: {:?}", channel, e);
            }
            let g = gateway(tls.clone());
            prop_assert_eq!(serde_json::to_value(typed(&g).spec.tls.as_ref().unwrap()).unwrap(), tls);
        }
    }
}
