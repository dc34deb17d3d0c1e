//! XBackend and XBackendTrafficPolicy validation (the experimental CRDs
//! `gateway.networking.x-k8s.io_xbackends.yaml` and `..._xbackendtrafficpolicies.yaml`): every
//! schema marker and CEL rule of their specs, in the shape of the chosen release (XBackend was
//! reshaped in v1.7: `port.number`, `endpointSelector`, `sessionPersistence`, TLS defaulted to
//! `mode: None`, rules tying the protocol to TLS).

use super::Release;
use super::common;
use super::patterns as p;
use super::policy::tls_validation;
use super::{Errors, FieldPath, Validate, ValidateOptions};
use crate::xbackend::{
    RetryConstraint, XBackend, XBackendProtocol, XBackendTlsMode, XBackendTrafficPolicy,
    XBackendType,
};

const HOUR_MS: u64 = 3_600_000;

impl Validate for XBackend {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let spath = path.field("spec");
        let s = &self.spec;
        let v1_7 = opts.release >= Release::V1_7;
        if let Some(t) = &s.type_ {
            let tpath = spath.field("type");
            if !v1_7 && *t == XBackendType::EndpointSelector {
                errors.unsupported(&tpath, t.as_str(), &["ExternalHostname"]);
            } else {
                errors.known(&tpath, t);
            }
            let external = *t == XBackendType::ExternalHostname;
            if external != s.external_hostname.is_some() {
                errors.rule(
                    spath.clone(),
                    "externalHostname must be set when type is ExternalHostname and must be unset otherwise",
                );
            }
            if v1_7 && (*t == XBackendType::EndpointSelector) != s.endpoint_selector.is_some() {
                errors.rule(
                    spath.clone(),
                    "endpointSelector must be set when type is EndpointSelector and must be unset otherwise",
                );
            }
        }
        if let Some(e) = &s.external_hostname {
            let hpath = spath.field("externalHostname").field("hostname");
            errors.precise_hostname(&hpath, &e.hostname);
            if e.hostname.ends_with(".cluster.local") {
                errors.rule(
                    hpath,
                    "hostname must not be an IP address or end with .cluster.local",
                );
            }
        }
        let ppath = spath.field("port");
        if v1_7 {
            match s.port.number {
                Some(n) => errors.port(&ppath.field("number"), n),
                // `minProperties: 1`: `port: {}` (or only v1.6 fields, which are pruned).
                None => errors.push(ppath.clone(), super::ErrorKind::TooFew { min: 1 }),
            }
        } else {
            if let Some(name) = &s.port.name {
                let npath = ppath.field("name");
                // `size(self) == 0 || format.dns1123Label().validate(self) == null`: `validate`
                // returns an optional (`optional.none()` for a valid label), which never equals
                // `null`, so the API server refuses every non-empty name, valid label or not
                // (observed on kube-apiserver v1.37; the differential test checks it). gamma-rs
                // answers as the API server does.
                if errors.length(&npath, name, 0, 63) && !name.is_empty() {
                    errors.rule(npath, "Name must be a valid DNS label");
                }
            }
            // A missing `port.port` is `Required` (field presence).
            if let Some(port) = s.port.port {
                errors.port(&ppath.field("port"), port);
            }
        }
        if let Some(protocol) = &s.protocol {
            let ppath = spath.field("protocol");
            if !v1_7 && matches!(protocol, XBackendProtocol::Grpc | XBackendProtocol::Wss) {
                errors.unsupported(
                    &ppath,
                    protocol.as_str(),
                    &["TCP", "HTTP", "HTTP2", "HTTP11", "H2C", "MCP"],
                );
            } else {
                errors.known(&ppath, protocol);
            }
        }
        if v1_7 {
            // From v1.7 an absent `tls` is defaulted to `mode: None` before the rules run.
            let tls_on = s
                .tls
                .as_ref()
                .is_some_and(|t| t.mode != XBackendTlsMode::None);
            match &s.protocol {
                Some(XBackendProtocol::H2c) if tls_on => errors.rule(
                    spath.clone(),
                    "tls must be disabled when protocol is H2C, use protocol HTTP2 for HTTP/2 with tls",
                ),
                Some(XBackendProtocol::Http2) if !tls_on => errors.rule(
                    spath.clone(),
                    "tls must be enabled when protocol is HTTP2, use protocol H2C for HTTP/2 without tls",
                ),
                Some(XBackendProtocol::Wss) if !tls_on => {
                    errors.rule(spath.clone(), "tls must be enabled when protocol is WSS")
                }
                _ => {}
            }
            if let Some(sel) = &s.endpoint_selector {
                let mpath = spath.field("endpointSelector").field("matchLabels");
                let n = sel.match_labels.len();
                if n == 0 {
                    errors.push(mpath.clone(), super::ErrorKind::TooFew { min: 1 });
                } else if n > 64 {
                    errors.push(mpath.clone(), super::ErrorKind::TooMany { max: 64 });
                }
                // `format.qualifiedName()`: the label-key rule with its prefix limit in one.
                if !sel.match_labels.keys().all(|k| {
                    p::is_label_key(k) && k.split('/').next().unwrap_or("").chars().count() <= 253
                }) {
                    errors.rule(
                        mpath.clone(),
                        "Label keys must be in the form of an optional DNS subdomain prefix not longer than 253 characters followed by a required name segment of up to 63 characters.",
                    );
                }
                for (k, v) in &sel.match_labels {
                    let vpath = mpath.key(k);
                    if errors.length(&vpath, v, 0, 63) {
                        errors.pattern(&vpath, v, p::is_label_value, p::LABEL_VALUE_PATTERN);
                    }
                }
            }
            if let Some(sp) = &s.session_persistence {
                if s.type_ != Some(XBackendType::EndpointSelector) {
                    errors.rule(
                        spath.clone(),
                        "sessionPersistence can only be set when type is EndpointSelector",
                    );
                }
                common::session_persistence(sp, &spath.field("sessionPersistence"), opts, errors);
            }
        }
        if let Some(tls) = &s.tls {
            let tpath = spath.field("tls");
            errors.known(&tpath.field("mode"), &tls.mode);
            if (tls.mode == XBackendTlsMode::ClientAndServer)
                != tls.client_certificate_ref.is_some()
            {
                errors.rule(
                    tpath.clone(),
                    "clientCertificateRef must be set if and only if mode is ClientAndServer",
                );
            }
            if v1_7 && (tls.mode == XBackendTlsMode::None) == tls.validation.is_some() {
                errors.rule(
                    tpath.clone(),
                    "validation must be set if and only if mode is either ClientAndServer or ServerOnly",
                );
            }
            if let Some(r) = &tls.client_certificate_ref {
                common::secret_ref(r, &tpath.field("clientCertificateRef"), errors);
            }
            if let Some(v) = &tls.validation {
                tls_validation(v, &tpath.field("validation"), opts, errors);
            }
        }
    }
}

impl Validate for XBackendTrafficPolicy {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let spath = path.field("spec");
        let s = &self.spec;
        let tpath = spath.field("targetRefs");
        common::policy_target_refs(&s.target_refs, &tpath, errors);
        // `listType=map` keyed by (group, kind, name): a repeated key is a duplicate.
        for (i, t) in s.target_refs.iter().enumerate() {
            if s.target_refs.iter().take(i).any(|u| u == t) {
                errors.push(
                    tpath.index(i),
                    super::ErrorKind::Duplicate {
                        value: format!("{}/{}/{}", t.group, t.kind, t.name),
                    },
                );
            }
        }
        if let Some(r) = &s.retry_constraint {
            retry_constraint(r, &spath.field("retryConstraint"), errors);
        }
        if let Some(sp) = &s.session_persistence {
            common::session_persistence(sp, &spath.field("sessionPersistence"), opts, errors);
        }
    }
}

fn retry_constraint(r: &RetryConstraint, path: &FieldPath, errors: &mut Errors) {
    if let Some(b) = &r.budget {
        let bpath = path.field("budget");
        if let Some(percent) = b.percent {
            errors.range(&bpath.field("percent"), i64::from(percent), 0, 100);
        }
        if let Some(interval) = &b.interval {
            let ipath = bpath.field("interval");
            errors.duration(&ipath, interval);
            // `!(duration(self) < duration('1s') || duration(self) > duration('1h'))`
            if p::parse_duration_ms(interval).is_some_and(|ms| !(1_000..=HOUR_MS).contains(&ms)) {
                errors.rule(
                    ipath,
                    "interval cannot be greater than one hour or less than one second",
                );
            }
        }
    }
    if let Some(m) = &r.min_retry_rate {
        let mpath = path.field("minRetryRate");
        if let Some(count) = m.count {
            errors.range(&mpath.field("count"), i64::from(count), 1, 1_000_000);
        }
        if let Some(interval) = &m.interval {
            let ipath = mpath.field("interval");
            errors.duration(&ipath, interval);
            // `!(duration(self) == duration('0s') || duration(self) > duration('1h'))`
            if p::parse_duration_ms(interval).is_some_and(|ms| ms == 0 || ms > HOUR_MS) {
                errors.rule(ipath, "interval cannot be greater than one hour");
            }
        }
    }
}
