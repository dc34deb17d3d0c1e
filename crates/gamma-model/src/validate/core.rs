//! Validation of the Kubernetes core subset (Service, Namespace, EndpointSlice).
//!
//! Only what gamma-rs relies on is checked: metadata, and port numbers it indexes by. The full
//! Kubernetes validation of these kinds is the API server's job and is not repeated here.

use super::common;
use super::meta::{self, NameRule};
use super::{Errors, FieldPath, Validate, ValidateOptions};
use crate::k8s::{EndpointSlice, IntOrString, Namespace, Service};

impl Validate for Service {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        // Service names are DNS-1035 labels (`ValidateServiceName`): they become DNS names.
        meta::object_meta(&self.metadata, path, true, NameRule::Dns1035Label, errors);
        let ppath = path.field("spec").field("ports");
        for (i, port) in self.spec.ports.iter().enumerate() {
            let ipath = ppath.index(i);
            errors.port(&ipath.field("port"), port.port);
            if let Some(IntOrString::Int(t)) = &port.target_port {
                errors.port(&ipath.field("targetPort"), *t);
            }
        }
        // Port names must be unique: routes refer to Service ports by name (sectionName).
        let mut seen = std::collections::HashSet::new();
        for (i, port) in self.spec.ports.iter().enumerate() {
            if let Some(n) = port.name.as_deref()
                && !seen.insert(n)
            {
                errors.push(
                    ppath.index(i).field("name"),
                    super::ErrorKind::Duplicate {
                        value: n.to_owned(),
                    },
                );
            }
        }
    }
}

impl Validate for Namespace {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        // Namespace names are RFC 1123 labels: other objects' `namespace` fields must match them.
        meta::object_meta(&self.metadata, path, false, NameRule::Label, errors);
    }
}

impl Validate for EndpointSlice {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let ppath = path.field("ports");
        for (i, port) in self.ports.iter().enumerate() {
            if let Some(n) = port.port {
                errors.port(&ppath.index(i).field("port"), n);
            }
        }
    }
}
