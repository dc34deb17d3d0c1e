//! Gateway `spec.tls` (frontend client-certificate validation and backend client certificate).
//!
//! The wire type keeps this block as raw JSON ([`crate::gateway::GatewaySpec::tls`]), so the
//! schema is checked here by walking the value: required fields, types, list limits, enums and
//! the per-port uniqueness rule.

use std::collections::HashSet;

use serde_json::Value;

use super::{ErrorKind, Errors, FieldPath};

const MODES: &[&str] = &["AllowValidOnly", "AllowInsecureFallback"];

fn wrong_type(path: &FieldPath, want: &str, errors: &mut Errors) {
    errors.rule(path.clone(), format!("must be {want}"));
}

fn object<'a>(
    v: &'a Value,
    path: &FieldPath,
    errors: &mut Errors,
) -> Option<&'a serde_json::Map<String, Value>> {
    let o = v.as_object();
    if o.is_none() {
        wrong_type(path, "an object", errors);
    }
    o
}

/// A string field: `Some` when present and a string; reports a missing required field.
fn string<'a>(
    o: &'a serde_json::Map<String, Value>,
    key: &str,
    required: bool,
    path: &FieldPath,
    errors: &mut Errors,
) -> Option<&'a str> {
    let fpath = path.field(key);
    match o.get(key) {
        None | Some(Value::Null) => {
            if required {
                errors.push(fpath, ErrorKind::Required);
            }
            None
        }
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            wrong_type(&fpath, "a string", errors);
            None
        }
    }
}

/// `spec.tls`.
pub(crate) fn gateway_tls(v: &Value, path: &FieldPath, errors: &mut Errors) {
    let Some(o) = object(v, path, errors) else {
        return;
    };
    if let Some(backend) = o.get("backend") {
        let bpath = path.field("backend");
        if let Some(b) = object(backend, &bpath, errors)
            && let Some(c) = b.get("clientCertificateRef")
        {
            let cpath = bpath.field("clientCertificateRef");
            if let Some(c) = object(c, &cpath, errors) {
                secret_like(c, &cpath, errors);
            }
        }
    }
    if let Some(frontend) = o.get("frontend") {
        let fpath = path.field("frontend");
        let Some(f) = object(frontend, &fpath, errors) else {
            return;
        };
        match f.get("default") {
            None | Some(Value::Null) => errors.push(fpath.field("default"), ErrorKind::Required),
            Some(d) => tls_config(d, &fpath.field("default"), errors),
        }
        if let Some(per_port) = f.get("perPort") {
            let ppath = fpath.field("perPort");
            let Some(list) = per_port.as_array() else {
                wrong_type(&ppath, "a list", errors);
                return;
            };
            errors.items(&ppath, list.len(), 0, 64);
            let mut ports = HashSet::new();
            let mut duplicate = false;
            for (i, entry) in list.iter().enumerate() {
                let ipath = ppath.index(i);
                let Some(e) = object(entry, &ipath, errors) else {
                    continue;
                };
                match e.get("port") {
                    None | Some(Value::Null) => {
                        errors.push(ipath.field("port"), ErrorKind::Required)
                    }
                    Some(p) => match p.as_i64() {
                        Some(n) => {
                            errors.range(&ipath.field("port"), n, 1, 65535);
                            duplicate |= !ports.insert(n);
                        }
                        None => wrong_type(&ipath.field("port"), "an integer", errors),
                    },
                }
                match e.get("tls") {
                    None | Some(Value::Null) => {
                        errors.push(ipath.field("tls"), ErrorKind::Required)
                    }
                    Some(t) => tls_config(t, &ipath.field("tls"), errors),
                }
            }
            if duplicate {
                errors.rule(
                    ppath,
                    "Port for TLS configuration must be unique within the Gateway",
                );
            }
        }
    }
}

/// A `TLSConfig` (frontend): `validation.caCertificateRefs` 1–16 and the mode enum.
fn tls_config(v: &Value, path: &FieldPath, errors: &mut Errors) {
    let Some(o) = object(v, path, errors) else {
        return;
    };
    let Some(validation) = o.get("validation") else {
        return;
    };
    let vpath = path.field("validation");
    let Some(val) = object(validation, &vpath, errors) else {
        return;
    };
    if let Some(m) = string(val, "mode", false, &vpath, errors)
        && !MODES.contains(&m)
    {
        errors.unsupported(&vpath.field("mode"), m, MODES);
    }
    let cpath = vpath.field("caCertificateRefs");
    match val.get("caCertificateRefs") {
        None | Some(Value::Null) => errors.push(cpath, ErrorKind::Required),
        Some(Value::Array(list)) => {
            errors.items(&cpath, list.len(), 1, 16);
            for (i, r) in list.iter().enumerate() {
                let ipath = cpath.index(i);
                if let Some(r) = object(r, &ipath, errors) {
                    if let Some(g) = string(r, "group", true, &ipath, errors) {
                        errors.group(&ipath.field("group"), g);
                    }
                    if let Some(k) = string(r, "kind", true, &ipath, errors) {
                        errors.kind(&ipath.field("kind"), k);
                    }
                    if let Some(n) = string(r, "name", true, &ipath, errors) {
                        errors.object_name(&ipath.field("name"), n);
                    }
                    if let Some(ns) = string(r, "namespace", false, &ipath, errors) {
                        errors.namespace(&ipath.field("namespace"), ns);
                    }
                }
            }
        }
        Some(_) => wrong_type(&cpath, "a list", errors),
    }
}

/// A `SecretObjectReference` given as JSON.
fn secret_like(o: &serde_json::Map<String, Value>, path: &FieldPath, errors: &mut Errors) {
    if let Some(g) = string(o, "group", false, path, errors) {
        errors.group(&path.field("group"), g);
    }
    if let Some(k) = string(o, "kind", false, path, errors) {
        errors.kind(&path.field("kind"), k);
    }
    if let Some(n) = string(o, "name", true, path, errors) {
        errors.object_name(&path.field("name"), n);
    }
    if let Some(ns) = string(o, "namespace", false, path, errors) {
        errors.namespace(&path.field("namespace"), ns);
    }
}
