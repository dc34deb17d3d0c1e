//! Which built-in APIs that not every cluster serves are served here, asked once at start
//! through API discovery.
//!
//! `certificates.k8s.io` ClusterTrustBundle (the CA references of GEP-5075) is GA (`v1`) and
//! served by default from Kubernetes 1.37; before that it was beta (`v1beta1`, 1.33) and alpha
//! (`v1alpha1`), served only where the cluster enabled it (the `ClusterTrustBundle` feature gate
//! and `--runtime-config`), and a 1.37 cluster may still turn it off. Where no modelled version
//! is served there is nothing to watch, and a watch would only fail with 404 forever.

use gamma_model::ResourceKind;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList;

/// The plural a ClusterTrustBundle is served under.
const CLUSTER_TRUST_BUNDLES: &str = "clustertrustbundles";

/// The version ClusterTrustBundle is watched at: the first of
/// [`ResourceKind::api_versions`] (newest first) whose discovery document lists
/// `clustertrustbundles`, or `None` where none does.
///
/// One discovery request per version (`GET /apis/certificates.k8s.io/VERSION`): a 404 says
/// that version is not served. Any other error (the API server unreachable, discovery
/// forbidden) also counts as not served, with a warning: ClusterTrustBundles are then not
/// watched, and the snapshot is not marked as holding them all, so no reference to one is
/// judged missing on the strength of an empty list.
pub async fn cluster_trust_bundle_version(client: &kube::Client) -> Option<&'static str> {
    for version in ResourceKind::ClusterTrustBundle.api_versions() {
        match client.list_api_group_resources(version).await {
            Ok(list) if lists(&list, CLUSTER_TRUST_BUNDLES) => return Some(version),
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.is_not_found() => {}
            Err(error) => {
                tracing::warn!(
                    api_version = version,
                    %error,
                    "API discovery failed: ClusterTrustBundles not watched"
                );
                return None;
            }
        }
    }
    None
}

/// Whether a discovery document lists the resource `plural` (not a subresource of it).
fn lists(list: &APIResourceList, plural: &str) -> bool {
    list.resources.iter().any(|r| r.name == plural)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(names: &[&str]) -> APIResourceList {
        serde_json::from_value(serde_json::json!({
            "groupVersion": "certificates.k8s.io/v1beta1",
            "resources": names.iter().map(|n| serde_json::json!({
                "name": n, "singularName": "", "namespaced": false,
                "kind": "ClusterTrustBundle", "verbs": ["list", "watch"]
            })).collect::<Vec<_>>(),
        }))
        .unwrap()
    }

    #[test]
    fn a_discovery_document_lists_cluster_trust_bundles_only_by_their_plural() {
        assert!(lists(
            &list(&["clustertrustbundles"]),
            CLUSTER_TRUST_BUNDLES
        ));
        // v1beta1 of certificates.k8s.io may serve other resources (PodCertificateRequests)
        // without ClusterTrustBundles, and a subresource is not the resource.
        assert!(!lists(
            &list(&["podcertificaterequests", "clustertrustbundles/status"]),
            CLUSTER_TRUST_BUNDLES
        ));
    }

    // Discovery that fails otherwise than with 404 (here: nothing listens) is "not served":
    // nothing watched, and no reference judged missing from an empty list.
    #[tokio::test]
    async fn discovery_that_cannot_reach_the_api_server_counts_as_not_served() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        drop(listener);
        let mut config = kube::Config::new(url.parse().unwrap());
        config.connect_timeout = Some(std::time::Duration::from_secs(2));
        let client = kube::Client::try_from(config).unwrap();
        assert_eq!(cluster_trust_bundle_version(&client).await, None);
    }

    // Kubernetes 1.37 serves ClusterTrustBundles at the GA `v1` only, unless the cluster also
    // enables `v1beta1` (off by default, as every beta API): discovery must ask `v1`, and ask
    // it first, so that a cluster serving both is watched at the GA version.
    #[test]
    fn discovery_asks_the_ga_version_first_then_beta_then_alpha() {
        assert_eq!(
            ResourceKind::ClusterTrustBundle.api_versions(),
            [
                "certificates.k8s.io/v1",
                "certificates.k8s.io/v1beta1",
                "certificates.k8s.io/v1alpha1"
            ]
        );
    }
}
