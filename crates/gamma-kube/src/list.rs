//! One list of every kind the engines read, with no watch: the objects of a cluster as they
//! are now (for tools such as `gammactl --kubeconfig`).

use gamma_model::ResourceKind;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, ListParams};

use gamma_model::validate::BundleAnnotationError;

use crate::bundle;
use crate::crd_extension::{self, Availability, CrdState};
use crate::kinds::{self, api_resource};

/// What [`list_all`] read.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Listed {
    /// Every object, as the API's JSON with its `apiVersion` and `kind` filled in and
    /// `metadata.managedFields` left out (bookkeeping the engines never read), kind by kind in
    /// [`kinds::watched`] order then [`kinds::AUTHORIZATION`] order, then as the API server
    /// listed them. A Pod keeps only what authorization reads (`gamma_model::k8s::Pod`: name,
    /// namespace, labels, ServiceAccount, IPs, readiness), as the runtime keeps it.
    pub objects: Vec<serde_json::Value>,
    /// Each kind listed, with the version it was listed at.
    pub kinds: Vec<(ResourceKind, &'static str)>,
    /// Gateway API kinds not listed: no Established CRD serves a version gamma-rs models
    /// (XAuthorizationPolicy among them where its CRD is not installed; Pods are then not
    /// listed either, and not named here).
    pub missing: Vec<ResourceKind>,
    /// Whether the route CRDs declare `parentRefs[].controllers` (the gamma-rs CRD extension):
    /// where they do not, ladder level 1 must read only the route annotation
    /// (`ArbiterConfig::ignore_parent_ref_controllers`), as gamma-kube's runtime does.
    pub parent_ref_controllers: Availability,
    /// The Gateway API bundle (release and channel) the cluster's CRDs name, chosen as the
    /// runtime chooses it ([`bundle::Crds::choose`]); `None` without any Gateway API CRD.
    pub bundle: Option<bundle::Choice>,
    /// The bundle each kind is judged by: its own CRD's, and [`Listed::bundle`]'s for kinds
    /// without one ([`bundle::Crds::kinds`]); `None` without any Gateway API CRD.
    pub kind_bundles: Option<gamma_model::validate::KindBundles>,
    /// Gateway API CRDs whose annotations name no bundle gamma-rs knows, with why.
    pub unannotated: Vec<(String, BundleAnnotationError)>,
}

/// Lists every kind the engines read, cluster-wide, once: the Gateway API kinds at the newest
/// version their CRD serves (as [`crate::watches`] chooses), and Service, Namespace,
/// EndpointSlice and ConfigMap; and where an Established CRD serves XAuthorizationPolicy
/// (GEP-3779, proposal: `gammactl crd-extension authorization-policy`), the policies and the
/// Pods they select by, as the runtime watches them with
/// [`crate::RunConfig::authorization_policies`] (a cluster without the CRD is not asked for its
/// Pods). Pages through large lists (500 objects a page). Also reads which Gateway API bundle
/// the CRDs name ([`Listed::bundle`]).
pub async fn list_all(client: &kube::Client) -> Result<Listed, kube::Error> {
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut served = std::collections::BTreeMap::new();
    let mut route_crds = Vec::new();
    let mut bundles = bundle::Crds::default();
    let mut unannotated = Vec::new();
    for crd in crds.list(&ListParams::default()).await? {
        let name = crd.metadata.name.as_deref().unwrap_or_default();
        if crd_extension::ROUTE_CRDS.iter().any(|(_, n)| *n == name) {
            // A route CRD of a shape gamma-rs cannot read declares nothing.
            route_crds.push(
                CrdState::from_crd(&crd_extension::to_value(&crd))
                    .unwrap_or_else(|_| CrdState::unreadable(name)),
            );
        }
        if let Some(problem) = bundles.observe(&crd).and_then(|b| b.problem.clone()) {
            unannotated.push((crd.metadata.name.clone().unwrap_or_default(), problem));
        }
        let established = crd.status.as_ref().is_some_and(|s| {
            s.conditions
                .iter()
                .flatten()
                .any(|c| c.type_ == "Established" && c.status == "True")
        });
        if let Some((kind, version)) = kinds::of_crd(&crd)
            .or_else(|| kinds::of_authorization_crd(&crd))
            .filter(|_| established)
        {
            served.insert(kind, version);
        }
    }
    let mut listed = Listed {
        parent_ref_controllers: Availability::of(&route_crds),
        bundle: bundles.choose(),
        kind_bundles: bundles.kinds(),
        unannotated,
        ..Listed::default()
    };
    // The Pods are read for the policies only: listed when the policies are.
    let authorization = served.contains_key(&ResourceKind::XAuthorizationPolicy);
    let wanted = kinds::watched().chain(
        kinds::AUTHORIZATION
            .into_iter()
            .filter(|k| authorization || *k == ResourceKind::XAuthorizationPolicy),
    );
    for kind in wanted {
        let version = match kinds::builtin_version(kind) {
            Some(v) => v,
            None => match served.get(&kind) {
                Some(v) => *v,
                None => {
                    listed.missing.push(kind);
                    continue;
                }
            },
        };
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &api_resource(kind, version));
        let mut params = ListParams::default().limit(500);
        loop {
            let page = api.list(&params).await?;
            let next = page.metadata.continue_.clone().filter(|c| !c.is_empty());
            for mut object in page.items {
                object.metadata.managed_fields = None;
                let mut value = crate::watches::to_value(object);
                if let serde_json::Value::Object(map) = &mut value {
                    map.insert("apiVersion".into(), version.into());
                    map.insert("kind".into(), kind.as_str().into());
                }
                if kind == ResourceKind::Pod {
                    value = pod_kept(value);
                }
                listed.objects.push(value);
            }
            match next {
                Some(token) => params = params.continue_token(&token),
                None => break,
            }
        }
        listed.kinds.push((kind, version));
    }
    Ok(listed)
}

/// A Pod as the runtime keeps it ([`gamma_model::k8s::Pod`]: name, namespace, labels,
/// ServiceAccount, IPs, readiness), the rest of the API's object dropped: a cluster's Pods are
/// many and large, and authorization reads only these. A Pod that does not decode is kept
/// whole, so that its reader reports why as it would for the same object in a file.
fn pod_kept(value: serde_json::Value) -> serde_json::Value {
    serde_json::from_value::<gamma_model::k8s::Pod>(value.clone())
        .ok()
        .and_then(|pod| serde_json::to_value(pod).ok())
        .unwrap_or(value)
}

/// Why no client could be made for a cluster.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The kubeconfig could not be read or has no such context.
    #[error("kubeconfig: {0}")]
    Kubeconfig(#[from] kube::config::KubeconfigError),
    /// Neither a kubeconfig nor an in-cluster service account was found.
    #[error("no cluster configuration: {0}")]
    Infer(#[from] kube::config::InferConfigError),
    /// The configuration does not make a client (e.g. bad TLS data).
    #[error("client: {0}")]
    Client(#[from] kube::Error),
}

/// A client as kubectl would make one: from the kubeconfig at `kubeconfig` if given (its
/// `context`, or its current context); else from `$KUBECONFIG` or `~/.kube/config` with
/// `context`; else, with neither, as kube's `Config::infer` does (the kubeconfig, then the
/// in-cluster service account of a pod).
pub async fn connect(
    kubeconfig: Option<&std::path::Path>,
    context: Option<&str>,
) -> Result<kube::Client, ConnectError> {
    let options = kube::config::KubeConfigOptions {
        context: context.map(str::to_owned),
        ..Default::default()
    };
    let config = match (kubeconfig, context) {
        (Some(path), _) => {
            let file = kube::config::Kubeconfig::read_from(path)?;
            kube::Config::from_custom_kubeconfig(file, &options).await?
        }
        (None, Some(_)) => kube::Config::from_kubeconfig(&options).await?,
        (None, None) => kube::Config::infer().await?,
    };
    Ok(kube::Client::try_from(config)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_pod_keeps_what_authorization_reads_only() {
        let api = serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "db-0", "namespace": "shop", "labels": {"app": "db"},
                         "annotations": {"big": "x"}, "uid": "u"},
            "spec": {"serviceAccountName": "db", "nodeName": "n1",
                     "containers": [{"name": "db", "image": "db", "env": [{"name": "A"}]}]},
            "status": {"phase": "Running", "podIP": "10.0.0.10", "podIPs": [{"ip": "10.0.0.10"}],
                       "conditions": [{"type": "Ready", "status": "True",
                                       "lastTransitionTime": "2026-01-01T00:00:00Z"}],
                       "containerStatuses": [{"name": "db"}]}
        });
        let kept = pod_kept(api);
        assert_eq!(
            kept["spec"],
            serde_json::json!({"serviceAccountName": "db"})
        );
        assert_eq!(
            kept["status"],
            serde_json::json!({"podIP": "10.0.0.10", "podIPs": [{"ip": "10.0.0.10"}],
                               "conditions": [{"type": "Ready", "status": "True"}]})
        );
        assert_eq!(kept["metadata"]["labels"]["app"], "db");
        assert!(kept["metadata"].get("annotations").is_none(), "{kept}");
        assert_eq!(
            (kept["apiVersion"].as_str(), kept["kind"].as_str()),
            (Some("v1"), Some("Pod"))
        );
        // Not a Pod this model reads: kept whole, for its reader to say why.
        let odd = serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": 7});
        assert_eq!(pod_kept(odd.clone()), odd);
    }
}
