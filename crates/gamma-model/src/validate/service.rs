//! Service, as the API server validates a create (k8s.io/kubernetes
//! `pkg/apis/core/validation/validation.go`, `ValidateService`), for the fields gamma-rs reads:
//! `type`, `clusterIP`/`clusterIPs` (syntax, consistency, `None` only for headless), ports
//! (numbers, names, protocols, target ports) and the selector's labels.
//!
//! `clusterIP: 10.0.0.300` is an error at its path, not a Service that is silently headless.

use std::collections::HashSet;
use std::net::IpAddr;

use super::meta::{self, NameRule};
use super::patterns as p;
use super::{ErrorKind, Errors, FieldPath};
use crate::k8s::{IntOrString, Service, ServiceType};

const PROTOCOLS: &[&str] = &["TCP", "UDP", "SCTP"];

pub(crate) fn service(svc: &Service, path: &FieldPath, errors: &mut Errors) {
    // A DNS-1123 label: Kubernetes v1.37 validates Service names with `NameIsDNSLabel`
    // (KEP-5311, relaxed Service name validation), so a name may start with a digit.
    meta::object_meta(&svc.metadata, path, true, NameRule::Label, errors);
    let spec = &svc.spec;
    let sp = path.field("spec");
    // `type: ""` is defaulted to ClusterIP before validation (`SetDefaults_Service`).
    if let Some(t) = spec.type_.as_ref().filter(|t| !t.as_str().is_empty()) {
        errors.known(&sp.field("type"), t);
    }
    let external = spec.type_ == Some(ServiceType::ExternalName);
    // `clusterIPs` is defaulted from `clusterIP`, not the reverse: a create that sets
    // `clusterIPs` without `clusterIP` is refused ("must be empty when `clusterIP` is not
    // specified", `ValidateService`).
    if spec.cluster_ip.as_deref().is_none_or(str::is_empty) && !spec.cluster_ips.is_empty() {
        errors.rule(
            sp.field("clusterIPs"),
            "must be empty when `clusterIP` is not specified",
        );
    }
    // The API server defaults clusterIPs from clusterIP before validating.
    let ips: Vec<&str> = if spec.cluster_ips.is_empty() {
        spec.cluster_ip
            .iter()
            .map(String::as_str)
            .filter(|s| !s.is_empty())
            .collect()
    } else {
        spec.cluster_ips.iter().map(String::as_str).collect()
    };
    let headless = ips.first() == Some(&"None");
    if let (Some(ip), Some(first)) = (spec.cluster_ip.as_deref(), spec.cluster_ips.first())
        && !ip.is_empty()
        && ip != first
    {
        errors.rule(
            sp.field("clusterIPs").index(0),
            "must match `clusterIP` when set",
        );
    }
    let ips_path = if spec.cluster_ips.is_empty() {
        None
    } else {
        Some(sp.field("clusterIPs"))
    };
    let at = |i: usize| match &ips_path {
        Some(p) => p.index(i),
        None => sp.field("clusterIP"),
    };
    if external {
        if !ips.is_empty() {
            errors.push(
                at(0),
                ErrorKind::Forbidden {
                    reason: "may not be set for ExternalName services".into(),
                },
            );
        }
        match spec.external_name.as_deref() {
            None | Some("") => errors.push(sp.field("externalName"), ErrorKind::Required),
            Some(n) => {
                let n = n.strip_suffix('.').unwrap_or(n);
                if n.len() > 253 || !p::is_dns_subdomain(n) {
                    errors.push(
                        sp.field("externalName"),
                        ErrorKind::Pattern {
                            pattern: meta::DNS1123_SUBDOMAIN_PATTERN,
                        },
                    );
                }
            }
        }
    } else {
        if ips.len() > 2 {
            errors.push(
                ips_path.clone().unwrap_or_else(|| sp.field("clusterIPs")),
                ErrorKind::TooMany { max: 2 },
            );
        }
        let mut families = Vec::new();
        for (i, ip) in ips.iter().enumerate() {
            if *ip == "None" {
                if i > 0 || ips.len() > 1 {
                    errors.rule(at(i), "`None` must be the only value of clusterIPs");
                }
                continue;
            }
            match ip.parse::<IpAddr>() {
                Ok(addr) => families.push(addr.is_ipv4()),
                Err(_) => errors.rule(at(i), "must be a valid IP address (or `None`)"),
            }
        }
        if let [a, b] = families.as_slice()
            && a == b
        {
            errors.rule(at(1), "may specify no more than one IP for each IP family");
        }
        if headless
            && matches!(
                spec.type_,
                Some(ServiceType::NodePort | ServiceType::LoadBalancer)
            )
        {
            errors.rule(
                at(0),
                "may not be `None` for NodePort or LoadBalancer services",
            );
        }
    }
    ports(svc, &sp, headless || external, errors);
    if let Some(selector) = &spec.selector {
        let mut labels = crate::meta::ObjectMeta::cluster_scoped("x");
        labels.labels = selector.clone();
        let mut inner = Errors::default();
        meta::object_meta(
            &labels,
            &FieldPath::root(),
            false,
            NameRule::Subdomain,
            &mut inner,
        );
        for e in inner.into_vec() {
            let rest = e.path.as_str().trim_start_matches("metadata.labels");
            errors.push(
                FieldPath::from(format!("{}{rest}", sp.field("selector").as_str()).as_str()),
                e.kind,
            );
        }
    }
}

fn ports(svc: &Service, sp: &FieldPath, may_be_empty: bool, errors: &mut Errors) {
    let list = &svc.spec.ports;
    let pp = sp.field("ports");
    if list.is_empty() && !may_be_empty {
        errors.push(pp.clone(), ErrorKind::Required);
    }
    let mut names = HashSet::new();
    let mut keys = HashSet::new();
    for (i, port) in list.iter().enumerate() {
        let ip = pp.index(i);
        match port.name.as_deref().filter(|n| !n.is_empty()) {
            None if list.len() > 1 => errors.push(ip.field("name"), ErrorKind::Required),
            None => {}
            Some(n) => {
                if n.len() > 63 || !p::is_dns_label(n) {
                    errors.push(
                        ip.field("name"),
                        ErrorKind::Pattern {
                            pattern: meta::DNS1123_LABEL_PATTERN,
                        },
                    );
                }
                if !names.insert(n) {
                    errors.push(
                        ip.field("name"),
                        ErrorKind::Duplicate {
                            value: n.to_owned(),
                        },
                    );
                }
            }
        }
        errors.port(&ip.field("port"), port.port);
        // Absent and "" are defaulted to TCP (`SetDefaults_ServicePort`).
        let protocol = port
            .protocol
            .as_deref()
            .filter(|p| !p.is_empty())
            .unwrap_or("TCP");
        if !PROTOCOLS.contains(&protocol) {
            errors.unsupported(&ip.field("protocol"), protocol, PROTOCOLS);
        }
        if !keys.insert((port.port, protocol)) {
            errors.push(
                ip.clone(),
                ErrorKind::Duplicate {
                    value: format!("{}/{protocol}", port.port),
                },
            );
        }
        match &port.target_port {
            // 0 and "" default to `port`.
            Some(IntOrString::Int(0)) | None => {}
            Some(IntOrString::Int(t)) => errors.port(&ip.field("targetPort"), *t),
            Some(IntOrString::String(s)) if s.is_empty() => {}
            Some(IntOrString::String(s)) => {
                if !is_iana_svc_name(s) {
                    errors.rule(
                        ip.field("targetPort"),
                        "must be a port number or an IANA service name (at most 15 lower-case \
                         letters, digits and non-consecutive '-' inside, with a letter)",
                    );
                }
            }
        }
        if let Some(a) = &port.app_protocol
            && !meta::is_qualified_name(a)
        {
            errors.push(
                ip.field("appProtocol"),
                ErrorKind::Pattern {
                    pattern: meta::QUALIFIED_NAME_PATTERN,
                },
            );
        }
    }
}

/// `IsValidPortName`: an IANA service name.
fn is_iana_svc_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 15
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && b.iter().any(u8::is_ascii_lowercase)
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--")
}
