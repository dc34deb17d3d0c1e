//! Reading the server URL back from the kubeconfig the server wrote.

use serde::Deserialize;

#[derive(Deserialize)]
struct Kubeconfig {
    clusters: Vec<NamedCluster>,
}

#[derive(Deserialize)]
struct NamedCluster {
    cluster: Cluster,
}

#[derive(Deserialize)]
struct Cluster {
    server: String,
}

/// The `server` of the kubeconfig's only cluster (kube-testenv writes exactly one).
pub(crate) fn server_url(text: &str) -> Result<String, String> {
    let config: Kubeconfig =
        serde_saphyr::from_str(text).map_err(|e| format!("unreadable kubeconfig: {e}"))?;
    let mut clusters = config.clusters.into_iter();
    match (clusters.next(), clusters.next()) {
        (Some(named), None) => Ok(named.cluster.server),
        _ => Err("kubeconfig does not have exactly one cluster".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_url_is_read_from_the_single_cluster() {
        let text = "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: AAAA\n    server: https://127.0.0.1:40123\n  name: kube-testenv\n";
        assert_eq!(server_url(text).unwrap(), "https://127.0.0.1:40123");
    }

    #[test]
    fn kubeconfig_without_a_cluster_is_an_error() {
        assert!(server_url("clusters: []\n").is_err());
        assert!(server_url("not: [a kubeconfig\n").is_err());
    }
}
