//! `certificates.k8s.io` ClusterTrustBundle (`v1`, `v1beta1` or `v1alpha1`: one schema): the
//! subset a CA reference needs (Gateway API v1.7, experimental; GEP-5075: BackendTLSPolicy and
//! Gateway frontend TLS
//! `caCertificateRefs` may name one, `group: certificates.k8s.io, kind: ClusterTrustBundle`,
//! cluster-scoped). Kept: the name, `spec.signerName`, and whether `spec.trustBundle` holds a
//! PEM certificate; the bundle itself is dropped while decoding (the data plane reads it from
//! the API server), so a snapshot holds no copy of it.

use std::fmt;

use schemars::JsonSchema;
use serde::de::{Deserializer, Visitor};
use serde::{Deserialize, Serialize};

use crate::meta::ObjectMeta;

/// The API group of ClusterTrustBundle.
pub const CLUSTER_TRUST_BUNDLE_GROUP: &str = "certificates.k8s.io";
/// The kind name of ClusterTrustBundle.
pub const CLUSTER_TRUST_BUNDLE_KIND: &str = "ClusterTrustBundle";
/// The line a PEM certificate block opens with.
const PEM_CERTIFICATE: &str = "-----BEGIN CERTIFICATE-----";

/// A ClusterTrustBundle, as far as CA references read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTrustBundle {
    /// `certificates.k8s.io/v1` (or `v1beta1`, `v1alpha1`).
    #[serde(default = "v1beta1")]
    pub api_version: String,
    /// Always `ClusterTrustBundle`.
    #[serde(default = "kind")]
    pub kind: String,
    /// Object metadata (cluster-scoped: no namespace).
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The spec, reduced.
    #[serde(default)]
    pub spec: ClusterTrustBundleSpec,
}

/// The kept part of a ClusterTrustBundle's spec.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTrustBundleSpec {
    /// The signer the bundle belongs to, if any (`example.com/signer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signer_name: Option<String>,
    /// Whether `trustBundle` holds at least one PEM certificate block (the text itself is
    /// discarded while decoding and never written).
    #[serde(
        rename = "trustBundle",
        default,
        deserialize_with = "holds_pem",
        skip_serializing
    )]
    #[schemars(with = "String")]
    pub has_pem: bool,
}

fn v1beta1() -> String {
    "certificates.k8s.io/v1beta1".into()
}

fn kind() -> String {
    CLUSTER_TRUST_BUNDLE_KIND.into()
}

/// Whether a `trustBundle` text holds a PEM certificate block; the text is not kept.
fn holds_pem<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    struct Pem;
    impl Visitor<'_> for Pem {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a PEM trust bundle")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<bool, E> {
            Ok(v.contains(PEM_CERTIFICATE))
        }
    }
    d.deserialize_any(Pem)
}

impl ClusterTrustBundle {
    /// A ClusterTrustBundle `name` with `signer_name`, holding a PEM certificate or not.
    pub fn new(name: impl Into<String>, signer_name: Option<&str>, has_pem: bool) -> Self {
        ClusterTrustBundle {
            api_version: v1beta1(),
            kind: kind(),
            metadata: ObjectMeta {
                name: name.into(),
                ..ObjectMeta::default()
            },
            spec: ClusterTrustBundleSpec {
                signer_name: signer_name.map(str::to_owned),
                has_pem,
            },
        }
    }

    /// Why the bundle cannot serve as a CA reference, or `None` when it can: it must hold a
    /// PEM certificate (BackendTLSPolicyValidation.caCertificateRefs: a reference that "is
    /// misconfigured" is invalid).
    pub fn ca_problem(&self) -> Option<&'static str> {
        (!self.spec.has_pem).then_some("its trustBundle holds no PEM certificate")
    }
}

/// Whether a CA reference of this `group` and `kind` names a ClusterTrustBundle.
pub fn is_cluster_trust_bundle(group: &str, kind: &str) -> bool {
    group == CLUSTER_TRUST_BUNDLE_GROUP && kind == CLUSTER_TRUST_BUNDLE_KIND
}

#[cfg(test)]
mod tests {
    use crate::{AnyResource, ResourceKind, Snapshot, decode};

    // GEP-5075: a ClusterTrustBundle is cluster-scoped and named by a CA reference; only
    // whether its trustBundle holds PEM is kept.
    #[test]
    fn a_cluster_trust_bundle_decodes_into_the_snapshot_without_its_bundle() {
        let objects = decode(
            "apiVersion: certificates.k8s.io/v1beta1\nkind: ClusterTrustBundle\n\
             metadata: {name: example.com:signer:roots}\n\
             spec: {signerName: example.com/signer, trustBundle: \"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n\"}\n\
             ---\napiVersion: certificates.k8s.io/v1beta1\nkind: ClusterTrustBundle\n\
             metadata: {name: empty}\nspec: {trustBundle: \"not pem\"}\n",
        )
        .unwrap();
        assert!(matches!(&objects[0], AnyResource::ClusterTrustBundle(_)));
        assert_eq!(objects[0].kind(), ResourceKind::ClusterTrustBundle);
        let text = serde_json::to_string(&objects[0]).unwrap();
        assert!(!text.contains("MIIB"), "{text}");
        let snapshot = Snapshot::from_resources(objects);
        let roots = snapshot
            .cluster_trust_bundle("example.com:signer:roots")
            .unwrap();
        assert_eq!(
            roots.spec.signer_name.as_deref(),
            Some("example.com/signer")
        );
        assert_eq!(roots.ca_problem(), None);
        let empty = snapshot.cluster_trust_bundle("empty").unwrap();
        assert!(empty.ca_problem().is_some());
        assert_eq!(snapshot.cluster_trust_bundles().count(), 2);
    }

    // Kubernetes 1.37 serves ClusterTrustBundle as GA at `certificates.k8s.io/v1`, by default
    // the only version served (k8s.io/api certificates/v1 ClusterTrustBundle: the v1beta1
    // schema), so a cluster's bundles arrive at v1.
    #[test]
    fn a_cluster_trust_bundle_of_the_ga_version_decodes() {
        assert_eq!(
            ResourceKind::from_type("certificates.k8s.io/v1", "ClusterTrustBundle"),
            Some(ResourceKind::ClusterTrustBundle)
        );
        let objects = decode(
            "apiVersion: certificates.k8s.io/v1\nkind: ClusterTrustBundle\n\
             metadata: {name: roots}\n\
             spec: {trustBundle: \"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n\"}\n",
        )
        .unwrap();
        let snapshot = Snapshot::from_resources(objects);
        assert_eq!(
            snapshot.cluster_trust_bundle("roots").unwrap().ca_problem(),
            None
        );
    }
}
