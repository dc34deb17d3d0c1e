//! Which kinds are watched, at which API version, and how a CRD maps to one.

use gamma_model::ResourceKind;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::core::{ApiResource, GroupVersionKind};

/// Every kind the engines read (SMI aside: see [`watched`]), in [`ResourceKind`] order, and the
/// experimental XBackend, XBackendTrafficPolicy and XTelemetryPolicy (watched where their CRDs
/// are installed, so a snapshot holds them for an embedder's own use). ConfigMaps are watched for the CA bundles
/// BackendTLSPolicies name (`caCertificateRefs`).
pub const WATCHED: [ResourceKind; 18] = [
    ResourceKind::HttpRoute,
    ResourceKind::GrpcRoute,
    ResourceKind::TlsRoute,
    ResourceKind::TcpRoute,
    ResourceKind::UdpRoute,
    ResourceKind::Gateway,
    ResourceKind::GatewayClass,
    ResourceKind::ListenerSet,
    ResourceKind::ReferenceGrant,
    ResourceKind::BackendTlsPolicy,
    ResourceKind::XMesh,
    ResourceKind::XBackend,
    ResourceKind::XBackendTrafficPolicy,
    ResourceKind::XTelemetryPolicy,
    ResourceKind::Service,
    ResourceKind::Namespace,
    ResourceKind::EndpointSlice,
    ResourceKind::ConfigMap,
];

/// The SMI kinds watched with the feature `smi` (their CRDs come with an SMI installation): the
/// objects gamma-smi converts and authorizes.
#[cfg(feature = "smi")]
pub const SMI_WATCHED: [ResourceKind; 5] = [
    ResourceKind::TrafficSplit,
    ResourceKind::HttpRouteGroup,
    ResourceKind::SmiTcpRoute,
    ResourceKind::SmiUdpRoute,
    ResourceKind::TrafficTarget,
];

/// Every kind the runtime watches: [`WATCHED`], and with the feature `smi` the SMI kinds.
pub fn watched() -> impl Iterator<Item = ResourceKind> {
    let smi: &[ResourceKind] = {
        #[cfg(feature = "smi")]
        {
            &SMI_WATCHED
        }
        #[cfg(not(feature = "smi"))]
        {
            &[]
        }
    };
    WATCHED.into_iter().chain(smi.iter().copied())
}

/// Whether `kind` is served by a CustomResourceDefinition (every Gateway API kind and XMesh),
/// rather than built into the API server (Service, Namespace, EndpointSlice, ConfigMap).
pub fn is_custom(kind: ResourceKind) -> bool {
    !matches!(
        kind,
        ResourceKind::Service
            | ResourceKind::Namespace
            | ResourceKind::EndpointSlice
            | ResourceKind::ConfigMap
            | ResourceKind::Secret
            | ResourceKind::Pod
            | ResourceKind::ClusterTrustBundle
    )
}

/// The field selector Secrets are watched with (when [`crate::RunConfig::watch_secrets`] asks
/// for them): only `kubernetes.io/tls` Secrets, the only type a listener certificate can be,
/// so the controller never receives any other Secret.
pub const SECRET_FIELD_SELECTOR: &str = "type=kubernetes.io/tls";

/// The field selector `kind` is watched with, if any.
pub fn field_selector(kind: ResourceKind) -> Option<&'static str> {
    (kind == ResourceKind::Secret).then_some(SECRET_FIELD_SELECTOR)
}

/// The API resource (group, version, plural) of `kind` at `api_version` (`group/version`, or
/// `v1` for the core group).
pub fn api_resource(kind: ResourceKind, api_version: &str) -> ApiResource {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    ApiResource::from_gvk(&GroupVersionKind::gvk(group, version, kind.as_str()))
}

/// The kind a CRD defines and the version to watch: among the versions the CRD serves, the
/// first in [`ResourceKind::api_versions`] order (the newest gamma-rs models). `None` for a CRD
/// of another kind, or one serving no version gamma-rs models.
pub fn of_crd(crd: &CustomResourceDefinition) -> Option<(ResourceKind, &'static str)> {
    served(crd).filter(|(kind, _)| watched().any(|k| k == *kind))
}

/// The kinds watched with [`crate::RunConfig::authorization_policies`]: XAuthorizationPolicy
/// (GEP-3779, proposal) where its CRD is installed, and while it is, the Pods its selectors
/// select.
pub const AUTHORIZATION: [ResourceKind; 2] =
    [ResourceKind::XAuthorizationPolicy, ResourceKind::Pod];

/// [`of_crd`] for the XAuthorizationPolicy CRD (`gammactl crd-extension
/// authorization-policy`), watched only with [`crate::RunConfig::authorization_policies`].
pub fn of_authorization_crd(
    crd: &CustomResourceDefinition,
) -> Option<(ResourceKind, &'static str)> {
    served(crd).filter(|(kind, _)| *kind == ResourceKind::XAuthorizationPolicy)
}

/// The kind `crd` defines and the newest modelled version it serves.
fn served(crd: &CustomResourceDefinition) -> Option<(ResourceKind, &'static str)> {
    let spec = &crd.spec;
    let served: Vec<String> = spec
        .versions
        .iter()
        .filter(|v| v.served)
        .map(|v| format!("{}/{}", spec.group, v.name))
        .collect();
    let kind = served
        .iter()
        .find_map(|av| ResourceKind::from_type(av, &spec.names.kind))?;
    let version = kind
        .api_versions()
        .iter()
        .find(|av| served.iter().any(|s| s == *av))?;
    Some((kind, version))
}

/// The version a built-in kind is watched at (its only modelled version).
pub fn builtin_version(kind: ResourceKind) -> Option<&'static str> {
    (!is_custom(kind))
        .then(|| kind.api_versions().first().copied())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(group: &str, kind: &str, versions: &[(&str, bool)]) -> CustomResourceDefinition {
        serde_json::from_value(serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "x"},
            "spec": {
                "group": group,
                "names": {"kind": kind, "plural": "x"},
                "scope": "Namespaced",
                "versions": versions.iter().map(|(v, served)| serde_json::json!({
                    "name": v, "served": served, "storage": false
                })).collect::<Vec<_>>(),
            }
        }))
        .unwrap()
    }

    #[test]
    fn a_crd_is_watched_at_the_newest_modelled_version_it_serves() {
        // The experimental channel serves TLSRoute v1, v1alpha3 and v1alpha2.
        let c = crd(
            "gateway.networking.k8s.io",
            "TLSRoute",
            &[("v1alpha2", true), ("v1alpha3", true), ("v1", true)],
        );
        assert_eq!(
            of_crd(&c),
            Some((ResourceKind::TlsRoute, "gateway.networking.k8s.io/v1"))
        );
        let c = crd(
            "gateway.networking.k8s.io",
            "TLSRoute",
            &[("v1alpha2", true), ("v1", false)],
        );
        assert_eq!(
            of_crd(&c),
            Some((ResourceKind::TlsRoute, "gateway.networking.k8s.io/v1alpha2"))
        );
    }

    #[test]
    fn crds_of_other_kinds_or_unmodelled_versions_are_not_watched() {
        assert_eq!(of_crd(&crd("example.com", "Widget", &[("v1", true)])), None);
        assert_eq!(
            of_crd(&crd(
                "gateway.networking.k8s.io",
                "HTTPRoute",
                &[("v9", true)]
            )),
            None
        );
    }

    #[cfg(feature = "smi")]
    #[test]
    fn smi_crds_are_watched_with_the_smi_feature() {
        let c = crd(
            "split.smi-spec.io",
            "TrafficSplit",
            &[("v1alpha2", true), ("v1alpha4", true)],
        );
        assert_eq!(
            of_crd(&c),
            Some((ResourceKind::TrafficSplit, "split.smi-spec.io/v1alpha4"))
        );
        // SMI's TCPRoute is not the Gateway API's: its group tells them apart.
        let c = crd("specs.smi-spec.io", "TCPRoute", &[("v1alpha4", true)]);
        assert_eq!(
            of_crd(&c),
            Some((ResourceKind::SmiTcpRoute, "specs.smi-spec.io/v1alpha4"))
        );
        let ar = api_resource(ResourceKind::SmiTcpRoute, "specs.smi-spec.io/v1alpha4");
        assert_eq!(
            (ar.group.as_str(), ar.plural.as_str()),
            ("specs.smi-spec.io", "tcproutes")
        );
        assert_eq!(watched().count(), WATCHED.len() + SMI_WATCHED.len());
    }

    #[cfg(not(feature = "smi"))]
    #[test]
    fn smi_crds_are_not_watched_without_the_smi_feature() {
        let c = crd("split.smi-spec.io", "TrafficSplit", &[("v1alpha4", true)]);
        assert_eq!(of_crd(&c), None);
        assert_eq!(watched().count(), WATCHED.len());
    }

    #[test]
    fn the_authorization_policy_crd_is_recognised_apart_from_the_watched_kinds() {
        let c = crd(
            "gateway.networking.x-k8s.io",
            "XAuthorizationPolicy",
            &[("v1alpha1", true)],
        );
        assert_eq!(of_crd(&c), None, "watched only when asked for");
        assert_eq!(
            of_authorization_crd(&c),
            Some((
                ResourceKind::XAuthorizationPolicy,
                "gateway.networking.x-k8s.io/v1alpha1"
            ))
        );
        let mesh = crd(
            "gateway.networking.x-k8s.io",
            "XMesh",
            &[("v1alpha1", true)],
        );
        assert_eq!(of_authorization_crd(&mesh), None);
        assert_eq!(
            api_resource(
                ResourceKind::XAuthorizationPolicy,
                "gateway.networking.x-k8s.io/v1alpha1"
            )
            .plural,
            "xauthorizationpolicies"
        );
        assert_eq!(builtin_version(ResourceKind::Pod), Some("v1"));
    }

    #[test]
    fn plurals_match_the_upstream_crd_names() {
        let plural = |k: ResourceKind| api_resource(k, k.api_versions()[0]).plural;
        assert_eq!(plural(ResourceKind::GatewayClass), "gatewayclasses");
        assert_eq!(plural(ResourceKind::BackendTlsPolicy), "backendtlspolicies");
        assert_eq!(plural(ResourceKind::XMesh), "xmeshes");
        assert_eq!(plural(ResourceKind::XBackend), "xbackends");
        assert_eq!(
            plural(ResourceKind::XBackendTrafficPolicy),
            "xbackendtrafficpolicies"
        );
        assert_eq!(plural(ResourceKind::XTelemetryPolicy), "xtelemetrypolicies");
        assert_eq!(plural(ResourceKind::EndpointSlice), "endpointslices");
        assert_eq!(plural(ResourceKind::ConfigMap), "configmaps");
        assert_eq!(builtin_version(ResourceKind::ConfigMap), Some("v1"));
        let svc = api_resource(ResourceKind::Service, "v1");
        assert_eq!((svc.group.as_str(), svc.version.as_str()), ("", "v1"));
    }
}
