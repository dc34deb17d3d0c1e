//! Validation of the Kubernetes core subset (Service, Namespace, EndpointSlice, ConfigMap).
//!
//! What gamma-rs reads is checked as the API server checks it: Service in `service.rs`,
//! EndpointSlice in `endpointslice.rs`, ConfigMap in `configmap.rs`, a Namespace's name here. Fields gamma-rs does not model
//! are not checked.

use super::meta::{self, NameRule};
use super::{Errors, FieldPath, Validate, ValidateOptions};
use crate::k8s::{ConfigMap, EndpointSlice, Namespace, Secret, Service};

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
        super::endpointslice::endpoint_slice(self, path, errors);
    }
}

impl Validate for ConfigMap {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        super::configmap::config_map(self, path, errors);
    }
}

impl Validate for Secret {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        super::configmap::secret(self, path, errors);
    }
}
