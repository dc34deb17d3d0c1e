//! Validation of the Kubernetes core subset (Service, Namespace, EndpointSlice).
//!
//! Only what gamma-rs relies on is checked: metadata, and port numbers it indexes by. The full
//! Kubernetes validation of these kinds is the API server's job and is not repeated here.

use super::common;
use super::meta::{self, NameRule};
use super::{Errors, FieldPath, Validate, ValidateOptions};
use crate::k8s::{EndpointSlice, Namespace, Service};

impl Validate for Service {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        super::service::service(self, path, errors);
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
