//! Validation of the Kubernetes core subset (Service, Namespace, EndpointSlice, ConfigMap,
//! Secret, Pod).
//!
//! What gamma-rs reads is checked as the API server checks it: Service in `service.rs`,
//! EndpointSlice in `endpointslice.rs`, ConfigMap in `configmap.rs`, a Namespace's name here. Fields gamma-rs does not model
//! are not checked.

use super::meta::{self, NameRule};
use super::{Errors, FieldPath, Validate, ValidateOptions};
use crate::k8s::{ClusterTrustBundle, ConfigMap, EndpointSlice, Namespace, Pod, Secret, Service};

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

impl Validate for Pod {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        // Pod names are DNS-1123 subdomains; of the spec only the ServiceAccount is kept, a
        // DNS-1123 subdomain too (ValidatePodSpec, ValidateServiceAccountName).
        meta::object_meta(&self.metadata, path, true, NameRule::Subdomain, errors);
        let sapath = path.field("spec").field("serviceAccountName");
        if let Some(sa) = self
            .spec
            .service_account_name
            .as_deref()
            .filter(|s| !s.is_empty())
            && errors.length(&sapath, sa, 1, 253)
            && !super::patterns::is_dns_subdomain(sa)
        {
            errors.rule(sapath, "must be a lowercase RFC 1123 subdomain");
        }
    }
}

impl Validate for ClusterTrustBundle {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        // Its name rules (`signerName` with `/` as `:` for a prefix, path-segment names) are
        // the API server's; gamma-rs reads only the name, the signer and whether it holds PEM,
        // so it checks that the name is there and that the object is cluster-scoped.
        let mpath = path.field("metadata");
        if self.metadata.name.is_empty() {
            errors.push(mpath.field("name"), super::ErrorKind::Required);
        }
        if self
            .metadata
            .namespace
            .as_deref()
            .is_some_and(|n| !n.is_empty())
        {
            errors.rule(
                mpath.field("namespace"),
                "ClusterTrustBundle is cluster-scoped: no namespace",
            );
        }
    }
}
