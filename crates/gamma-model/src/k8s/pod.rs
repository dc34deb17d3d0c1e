//! `v1/Pod`: the subset authorization needs (the workloads an `XAuthorizationPolicy` selects):
//! name, namespace, labels, ServiceAccount, IPs and readiness. Every other field (containers,
//! volumes, environment, annotations, the other conditions' messages) is dropped while
//! decoding, so a snapshot of a large cluster keeps little per Pod and nothing it does not use.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::meta::ObjectMeta;

/// A Kubernetes Pod, as far as authorization reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pod {
    /// `v1`.
    #[serde(default = "v1")]
    pub api_version: String,
    /// Always `Pod`.
    #[serde(default = "pod_kind")]
    pub kind: String,
    /// Object metadata; annotations are dropped while decoding.
    #[serde(default, deserialize_with = "meta_without_annotations")]
    pub metadata: ObjectMeta,
    /// The ServiceAccount (the only field of `spec` kept).
    #[serde(default)]
    pub spec: PodSpec,
    /// IPs and readiness (the only fields of `status` kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PodStatus>,
}

fn v1() -> String {
    "v1".into()
}

fn pod_kind() -> String {
    "Pod".into()
}

fn meta_without_annotations<'de, D: Deserializer<'de>>(d: D) -> Result<ObjectMeta, D::Error> {
    let mut meta = ObjectMeta::deserialize(d)?;
    meta.annotations.clear();
    Ok(meta)
}

/// The part of a Pod's spec authorization reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    /// The Pod's ServiceAccount; absent: `default`, as the API server sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
}

/// The part of a Pod's status authorization reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    /// The primary IP.
    #[serde(default, rename = "podIP", skip_serializing_if = "Option::is_none")]
    pub pod_ip: Option<String>,
    /// Every IP (the primary first, then one per other address family).
    #[serde(default, rename = "podIPs", skip_serializing_if = "Vec::is_empty")]
    pub pod_ips: Vec<PodIp>,
    /// Conditions; only their `type` and `status` are kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<PodCondition>,
}

/// One IP of a Pod.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PodIp {
    /// The address.
    #[serde(default)]
    pub ip: String,
}

/// A Pod condition, `type` and `status` only.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PodCondition {
    /// `Ready`, `ContainersReady`, ...
    #[serde(rename = "type", default)]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default)]
    pub status: String,
}

impl Pod {
    /// A Pod `namespace/name` running as ServiceAccount `service_account` with `ips` and
    /// `labels`, ready.
    pub fn new<'a>(
        namespace: impl Into<String>,
        name: impl Into<String>,
        service_account: &str,
        ips: impl IntoIterator<Item = &'a str>,
        labels: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Self {
        let mut metadata = ObjectMeta::namespaced(namespace, name);
        metadata.labels = labels
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        Pod {
            api_version: v1(),
            kind: pod_kind(),
            metadata,
            spec: PodSpec {
                service_account_name: Some(service_account.to_owned()),
            },
            status: Some(PodStatus {
                pod_ip: None,
                pod_ips: ips
                    .into_iter()
                    .map(|ip| PodIp { ip: ip.to_owned() })
                    .collect(),
                conditions: vec![PodCondition {
                    type_: "Ready".into(),
                    status: "True".into(),
                }],
            }),
        }
    }

    /// The ServiceAccount the Pod runs as (`default` when unset).
    pub fn service_account(&self) -> &str {
        self.spec
            .service_account_name
            .as_deref()
            .filter(|s| !s.is_empty())
            .unwrap_or("default")
    }

    /// The Pod's IPs: `podIPs`, and `podIP` when it is not among them; no duplicates.
    pub fn ips(&self) -> impl Iterator<Item = &str> {
        let status = self.status.as_ref();
        let listed = status
            .into_iter()
            .flat_map(|s| s.pod_ips.iter().map(|p| p.ip.as_str()));
        let primary = status
            .and_then(|s| s.pod_ip.as_deref())
            .filter(|ip| !status.is_some_and(|s| s.pod_ips.iter().any(|p| p.ip == *ip)));
        listed.chain(primary).filter(|ip| !ip.is_empty())
    }

    /// Whether the Pod's `Ready` condition is `True`.
    pub fn is_ready(&self) -> bool {
        self.status.as_ref().is_some_and(|s| {
            s.conditions
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True")
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{AnyResource, decode};

    // Only name, namespace, labels, ServiceAccount, IPs and readiness survive decoding.
    #[test]
    fn a_pod_decodes_to_what_authorization_reads_and_drops_the_rest() {
        let text = "\
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: shop
  labels: {app: web}
  annotations: {secret-ish: do-not-keep}
spec:
  serviceAccountName: web
  containers: [{name: app, image: example/web, env: [{name: TOKEN, value: hunter2}]}]
status:
  podIP: 10.0.0.5
  podIPs: [{ip: 10.0.0.5}, {ip: 'fd00::5'}]
  conditions:
  - {type: Ready, status: 'True', message: all good, lastTransitionTime: '2026-01-01T00:00:00Z'}
";
        let objects = decode(text).unwrap();
        let AnyResource::Pod(pod) = &objects[0] else {
            panic!("{:?}", objects[0].kind())
        };
        assert_eq!(pod.service_account(), "web");
        assert_eq!(pod.ips().collect::<Vec<_>>(), ["10.0.0.5", "fd00::5"]);
        assert!(pod.is_ready());
        assert_eq!(
            pod.metadata.labels.get("app").map(String::as_str),
            Some("web")
        );
        let json = serde_json::to_string(pod).unwrap();
        for dropped in [
            "hunter2",
            "containers",
            "do-not-keep",
            "all good",
            "lastTransitionTime",
        ] {
            assert!(!json.contains(dropped), "{dropped} kept: {json}");
        }
    }

    #[test]
    fn a_pod_without_a_service_account_runs_as_default_and_is_not_ready_without_the_condition() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: n}\nstatus: {podIP: 10.1.1.1}\n";
        let objects = decode(text).unwrap();
        let AnyResource::Pod(pod) = &objects[0] else {
            panic!()
        };
        assert_eq!(pod.service_account(), "default");
        assert!(!pod.is_ready());
        assert_eq!(pod.ips().collect::<Vec<_>>(), ["10.1.1.1"]);
    }
}
