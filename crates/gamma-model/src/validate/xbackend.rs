//! XBackend and XBackendTrafficPolicy validation (the v1.6.1 experimental CRDs
//! `gateway.networking.x-k8s.io_xbackends.yaml` and `..._xbackendtrafficpolicies.yaml`): every
//! schema marker and CEL rule of their specs.

use super::common;
use super::patterns as p;
use super::policy::tls_validation;
use super::{Errors, FieldPath, Validate, ValidateOptions};
use crate::xbackend::{
    RetryConstraint, XBackend, XBackendTlsMode, XBackendTrafficPolicy, XBackendType,
};

const HOUR_MS: u64 = 3_600_000;

impl Validate for XBackend {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let spath = path.field("spec");
        let s = &self.spec;
        if let Some(t) = &s.type_ {
            errors.known(&spath.field("type"), t);
            let external = *t == XBackendType::ExternalHostname;
            if external != s.external_hostname.is_some() {
                errors.rule(
                    spath.clone(),
                    "externalHostname must be set when type is ExternalHostname and must be unset otherwise",
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
        errors.port(&ppath.field("port"), s.port.port);
        if let Some(protocol) = &s.protocol {
            errors.known(&spath.field("protocol"), protocol);
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
            if let Some(r) = &tls.client_certificate_ref {
                common::secret_ref(r, &tpath.field("clientCertificateRef"), errors);
            }
            if let Some(v) = &tls.validation {
                tls_validation(v, &tpath.field("validation"), errors);
            }
        }
    }
}

impl Validate for XBackendTrafficPolicy {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let spath = path.field("spec");
        let s = &self.spec;
        let tpath = spath.field("targetRefs");
        errors.items(&tpath, s.target_refs.len(), 1, 16);
        for (i, t) in s.target_refs.iter().enumerate() {
            let ipath = tpath.index(i);
            errors.group(&ipath.field("group"), &t.group);
            errors.kind(&ipath.field("kind"), &t.kind);
            errors.object_name(&ipath.field("name"), &t.name);
        }
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
            common::session_persistence(sp, &spath.field("sessionPersistence"), errors);
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
