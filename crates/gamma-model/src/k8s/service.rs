//! `v1/Service`.

use std::collections::BTreeMap;
use std::net::IpAddr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::macros::string_enum;
use crate::meta::ObjectMeta;

/// A Kubernetes Service: the frontend (cluster IPs and ports) a mesh route attaches to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Service {
    /// `v1`.
    #[serde(default = "v1")]
    pub api_version: String,
    /// Always `Service`.
    #[serde(default = "service_kind")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: ServiceSpec,
}

fn v1() -> String {
    "v1".into()
}

fn service_kind() -> String {
    "Service".into()
}

impl Service {
    /// A new ClusterIP Service.
    pub fn new(metadata: ObjectMeta, spec: ServiceSpec) -> Self {
        Service {
            api_version: v1(),
            kind: service_kind(),
            metadata,
            spec,
        }
    }

    /// The cluster IPs that form this Service's frontend, parsed; empty for headless
    /// (`clusterIP: None`) and ExternalName Services, which have no frontend (GEP-1294).
    /// Unparseable entries are skipped. Duplicates between `clusterIP` and `clusterIPs` appear
    /// once, `clusterIP` first.
    pub fn frontend_ips(&self) -> Vec<IpAddr> {
        if !self.has_frontend() {
            return Vec::new();
        }
        let mut out: Vec<IpAddr> = Vec::new();
        let all = self
            .spec
            .cluster_ip
            .iter()
            .chain(self.spec.cluster_ips.iter());
        for s in all {
            if let Ok(ip) = s.parse::<IpAddr>()
                && !out.contains(&ip)
            {
                out.push(ip);
            }
        }
        out
    }

    /// Whether this Service has a frontend a mesh route can attach to: not headless, not
    /// ExternalName. A Service that omits `spec.clusterIP` (or leaves it `""`) has one: the API
    /// server allocates its cluster IP on create, so manifests as written usually carry none
    /// ([ServiceSpec.clusterIP](https://kubernetes.io/docs/reference/kubernetes-api/service-resources/service-v1/#ServiceSpec)).
    pub fn has_frontend(&self) -> bool {
        self.spec.type_ != Some(ServiceType::ExternalName) && !self.is_headless()
    }

    /// Whether this Service is headless: `clusterIP: None` (or `clusterIPs` starting with
    /// `None`). Only that value means headless; an absent or empty `clusterIP` means "not
    /// allocated yet".
    pub fn is_headless(&self) -> bool {
        self.spec.cluster_ip.as_deref() == Some("None")
            || self.spec.cluster_ips.first().map(String::as_str) == Some("None")
    }

    /// Whether this Service has a frontend but no cluster IP in its manifest yet (the API
    /// server allocates one when it is created): a valid parent, reachable by name but not by
    /// address.
    pub fn is_unallocated(&self) -> bool {
        self.has_frontend() && self.frontend_ips().is_empty()
    }

    /// The port with this Service port number.
    pub fn port(&self, port: i32) -> Option<&ServicePort> {
        self.spec.ports.iter().find(|p| p.port == port)
    }

    /// The port with this name.
    pub fn port_named(&self, name: &str) -> Option<&ServicePort> {
        self.spec
            .ports
            .iter()
            .find(|p| p.name.as_deref() == Some(name))
    }
}

string_enum! {
    /// The type of a Service.
    pub enum ServiceType {
        /// A virtual IP inside the cluster (the default).
        ClusterIp => "ClusterIP",
        /// ClusterIP plus a port on every node.
        NodePort => "NodePort",
        /// NodePort plus an external load balancer.
        LoadBalancer => "LoadBalancer",
        /// A DNS alias; has no frontend and is never a mesh parent.
        ExternalName => "ExternalName",
    }
}

/// The desired state of a [`Service`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServiceSpec {
    /// The Service type; defaults to ClusterIP.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<ServiceType>,
    /// The primary cluster IP; `None` for headless Services.
    #[serde(rename = "clusterIP", default, skip_serializing_if = "Option::is_none")]
    pub cluster_ip: Option<String>,
    /// All cluster IPs (dual-stack); the first equals `clusterIP`.
    #[serde(rename = "clusterIPs", default, skip_serializing_if = "Vec::is_empty")]
    pub cluster_ips: Vec<String>,
    /// The ports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<ServicePort>,
    /// The pod selector; absent for selector-less Services.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<BTreeMap<String, String>>,
    /// For ExternalName Services: the DNS name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_name: Option<String>,
    /// `None` or `ClientIP`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_affinity: Option<String>,
}

/// One port of a Service.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServicePort {
    /// The port name; required when there are several ports. A parentRef `sectionName` names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `TCP` (default), `UDP` or `SCTP`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// The application protocol (GEP-1911), e.g. `http`, `kubernetes.io/h2c`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_protocol: Option<String>,
    /// The Service port (what parentRef and backendRef `port` mean).
    #[serde(default)]
    pub port: i32,
    /// The port on the pods: a number or a named container port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_port: Option<IntOrString>,
    /// The node port, for NodePort and LoadBalancer Services.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_port: Option<i32>,
}

/// A Kubernetes `IntOrString`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum IntOrString {
    /// A number.
    Int(i32),
    /// A name.
    String(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svc(json: &str) -> Service {
        serde_json::from_str(json).unwrap()
    }

    // GAMMA Service facets; Gateway API ParentReference: headless and ExternalName Services have no
    // frontend.
    #[test]
    fn headless_and_external_name_services_have_no_frontend() {
        let headless = svc(r#"{"spec":{"clusterIP":"None","ports":[{"port":80}]}}"#);
        assert!(headless.frontend_ips().is_empty());
        let ext = svc(r#"{"spec":{"type":"ExternalName","externalName":"example.com"}}"#);
        assert!(ext.frontend_ips().is_empty());
        assert!(headless.is_headless() && !headless.has_frontend());
        assert!(!ext.has_frontend());
    }

    // ServiceSpec.clusterIP: "None" makes a headless Service; absent or "" means the API
    // server allocates an address on create, so the Service has a frontend without an IP yet.
    #[test]
    fn a_service_without_cluster_ip_is_unallocated_not_headless() {
        for json in [
            r#"{"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}"#,
            r#"{"spec":{"clusterIP":"","ports":[{"port":80}]}}"#,
        ] {
            let s = svc(json);
            assert!(!s.is_headless(), "{json}");
            assert!(s.has_frontend(), "{json}");
            assert!(s.is_unallocated(), "{json}");
            assert!(s.frontend_ips().is_empty(), "{json}");
        }
        let allocated = svc(r#"{"spec":{"clusterIP":"10.96.0.1","ports":[{"port":80}]}}"#);
        assert!(!allocated.is_unallocated());
    }

    #[test]
    fn dual_stack_service_exposes_every_cluster_ip_once() {
        let s = svc(
            r#"{"spec":{"clusterIP":"10.96.0.10","clusterIPs":["10.96.0.10","fd00::10"],"ports":[{"name":"http","port":80,"targetPort":"http"}]}}"#,
        );
        let ips: Vec<String> = s.frontend_ips().iter().map(|i| i.to_string()).collect();
        assert_eq!(ips, ["10.96.0.10", "fd00::10"]);
        assert_eq!(
            s.port_named("http").unwrap().target_port,
            Some(IntOrString::String("http".into()))
        );
    }
}
