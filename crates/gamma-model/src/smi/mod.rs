//! Service Mesh Interface (SMI) resources, for migration off SMI: `split.smi-spec.io`
//! TrafficSplit (v1alpha1–v1alpha4), `specs.smi-spec.io` HTTPRouteGroup and TCPRoute
//! (v1alpha1–v1alpha4) and UDPRoute (v1alpha4, the only version that has it), and
//! `access.smi-spec.io` TrafficTarget (v1alpha1–v1alpha3).
//!
//! One Rust type per kind covers every version: fields that moved between versions (the
//! top-level `matches` of HTTPRouteGroup v1alpha1/v1alpha2 went under `spec` in v1alpha3; the
//! top-level `destination`/`specs`/`sources` of TrafficTarget v1alpha1 became
//! `spec.destination`/`spec.rules`/`spec.sources` in v1alpha2) are all decodable, accessors
//! return the one the object's `apiVersion` uses, and [`crate::Validate`] reports fields that do
//! not belong to the object's version. Field facts come from the SMI spec documents
//! (`servicemeshinterface/smi-spec`, `apis/*/v1alpha*/`) and the CRDs and Go types of
//! `servicemeshinterface/smi-sdk-go`.
//!
//! The SMI kinds `TCPRoute` and `UDPRoute` share their names with Gateway API kinds; they are
//! told apart by API group (see [`crate::ResourceKind::from_type`]) and are named
//! [`SmiTcpRoute`]/[`SmiUdpRoute`] here.

mod access;
mod quantity;
mod specs;
mod split;

pub use access::*;
pub use quantity::{Quantity, QuantityError, Ratio, gcd};
pub use specs::*;
pub use split::*;

use crate::validate::{Errors, FieldPath};

/// The API group of TrafficSplit.
pub const SPLIT_GROUP: &str = "split.smi-spec.io";
/// The API group of HTTPRouteGroup, TCPRoute and UDPRoute.
pub const SPECS_GROUP: &str = "specs.smi-spec.io";
/// The API group of TrafficTarget.
pub const ACCESS_GROUP: &str = "access.smi-spec.io";

/// An SMI API version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum SmiVersion {
    /// `v1alpha1`.
    V1Alpha1,
    /// `v1alpha2`.
    V1Alpha2,
    /// `v1alpha3`.
    V1Alpha3,
    /// `v1alpha4`.
    V1Alpha4,
}

impl SmiVersion {
    /// The version of an `apiVersion` such as `split.smi-spec.io/v1alpha2` (the group is not
    /// checked here; decoding already did).
    pub fn of(api_version: &str) -> Option<SmiVersion> {
        match api_version.rsplit('/').next()? {
            "v1alpha1" => Some(SmiVersion::V1Alpha1),
            "v1alpha2" => Some(SmiVersion::V1Alpha2),
            "v1alpha3" => Some(SmiVersion::V1Alpha3),
            "v1alpha4" => Some(SmiVersion::V1Alpha4),
            _ => None,
        }
    }

    /// The wire spelling (`v1alpha3`).
    pub fn as_str(&self) -> &'static str {
        match self {
            SmiVersion::V1Alpha1 => "v1alpha1",
            SmiVersion::V1Alpha2 => "v1alpha2",
            SmiVersion::V1Alpha3 => "v1alpha3",
            SmiVersion::V1Alpha4 => "v1alpha4",
        }
    }
}

/// Checks that `api_version` is one of `known` and returns its version (`None`, with an error
/// recorded, otherwise).
fn check_api_version(
    api_version: &str,
    known: &[&str],
    errors: &mut Errors,
    path: &FieldPath,
) -> Option<SmiVersion> {
    if known.contains(&api_version) {
        SmiVersion::of(api_version)
    } else {
        errors.unsupported(&path.field("apiVersion"), api_version, known);
        None
    }
}

/// Records that `field` does not exist in `version` of the kind.
fn not_in_version(errors: &mut Errors, path: FieldPath, version: SmiVersion, hint: &str) {
    errors.push(
        path,
        crate::validate::ErrorKind::Forbidden {
            reason: format!("not part of {}{hint}", version.as_str()),
        },
    );
}

/// A DNS-1123 label check (Service and ServiceAccount names are at most 253 characters of DNS
/// subdomain; SMI references them by name only).
fn is_dns_subdomain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

const DNS_SUBDOMAIN: &str = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/// Compiles an SMI regular expression with bounded size (bad input never costs unbounded work).
pub fn compile_regex(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
        .build()
}

fn check_name(errors: &mut Errors, path: &FieldPath, value: &str) {
    if value.is_empty() {
        errors.push(path.clone(), crate::validate::ErrorKind::Required);
    } else {
        errors.pattern(path, value, is_dns_subdomain, DNS_SUBDOMAIN);
    }
}

#[cfg(test)]
mod tests {
    use crate::{AnyResource, ObjectKey, ResourceKind, decode};

    // The SMI TCPRoute and the Gateway API TCPRoute share a kind name; the API group decides.
    #[test]
    fn tcp_route_kind_names_are_dispatched_by_api_group() {
        let docs = decode(
            "apiVersion: specs.smi-spec.io/v1alpha4\nkind: TCPRoute\nmetadata: {name: t, namespace: ns}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: TCPRoute\nmetadata: {name: t, namespace: ns}\n---\napiVersion: specs.smi-spec.io/v1alpha3\nkind: UDPRoute\nmetadata: {name: u}\n",
        );
        let err = docs.unwrap_err().to_string();
        assert!(err.contains("specs.smi-spec.io/v1alpha3/UDPRoute"), "{err}");
        let docs = decode(
            "apiVersion: specs.smi-spec.io/v1alpha4\nkind: TCPRoute\nmetadata: {name: t, namespace: ns}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: TCPRoute\nmetadata: {name: t, namespace: ns}\n",
        )
        .unwrap();
        assert!(matches!(docs[0], AnyResource::SmiTcpRoute(_)));
        assert!(matches!(docs[1], AnyResource::TcpRoute(_)));
        // Both fit in one snapshot: their identities differ.
        let snap = crate::Snapshot::from_resources(docs);
        assert_eq!(snap.len(), 2);
        assert!(snap.smi_tcp_route("ns", "t").is_some());
        assert!(snap.tcp_route("ns", "t").is_some());
    }

    #[test]
    fn resource_kinds_encode_by_unique_name_and_round_trip() {
        let mut names = std::collections::BTreeSet::new();
        for k in ResourceKind::ALL {
            assert!(names.insert(k.unique_name()), "{k:?}");
            let json = serde_json::to_string(k).unwrap();
            assert_eq!(serde_json::from_str::<ResourceKind>(&json).unwrap(), *k);
        }
        let r = ObjectKey::new(ResourceKind::SmiTcpRoute, "ns", "t");
        assert_eq!(r.to_string(), "TCPRoute.specs.smi-spec.io ns/t");
        assert_eq!(ResourceKind::TcpRoute.to_string(), "TCPRoute");
        assert_eq!(
            ResourceKind::from_kind_name("TCPRoute"),
            Some(ResourceKind::TcpRoute)
        );
    }
}
