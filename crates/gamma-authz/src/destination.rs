//! From an address to workloads: a Pod IP is that Pod; a Service IP and port lead to the Pods
//! behind it, through the Service's EndpointSlices (the port's number on the Pods), or, with
//! no EndpointSlice, through its selector and a numeric `targetPort`.

use std::net::IpAddr;

use gamma_model::Snapshot;
use gamma_model::k8s::{IntOrString, Service};

use crate::engine::{Authorizer, WorkloadId};

/// Where an address leads.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Destination {
    /// A Pod IP: that workload, on the port asked.
    Pod(WorkloadId),
    /// A Service IP and port: the workloads behind it, each with the port on the Pod.
    Service {
        /// The Service, `namespace/name`.
        service: (String, String),
        /// The workloads and their target ports, in workload order.
        backends: Vec<(WorkloadId, u16)>,
        /// What could not be followed (an endpoint that is no known Pod, a named targetPort
        /// without EndpointSlices).
        unresolved: Vec<String>,
    },
    /// Neither a Pod nor a Service port.
    Unknown,
}

fn service_has_ip(s: &Service, ip: IpAddr) -> bool {
    let spec = &s.spec;
    spec.cluster_ip
        .iter()
        .chain(spec.cluster_ips.iter())
        .any(|c| c.parse::<IpAddr>().ok() == Some(ip))
}

impl Authorizer {
    /// Where `ip`:`port` leads in `snapshot` (the snapshot this authorizer was built from).
    pub fn destination(&self, snapshot: &Snapshot, ip: IpAddr, port: u16) -> Destination {
        if let Some(w) = self.workload_at(ip) {
            return Destination::Pod(w);
        }
        let Some(service) = snapshot.services().find(|s| service_has_ip(s, ip)) else {
            return Destination::Unknown;
        };
        self.service_port(snapshot, service, port)
    }

    /// Where port `port` of Service `namespace`/`name` leads in `snapshot`: the Pods behind it
    /// as for its IP in [`Authorizer::destination`] (also for a headless Service, which has
    /// no IP). [`Destination::Unknown`] when the Service or the port is not in the snapshot.
    pub fn service_destination(
        &self,
        snapshot: &Snapshot,
        namespace: &str,
        name: &str,
        port: u16,
    ) -> Destination {
        match snapshot
            .services()
            .find(|s| s.metadata.name == name && s.metadata.namespace_or_default() == namespace)
        {
            Some(service) => self.service_port(snapshot, service, port),
            None => Destination::Unknown,
        }
    }

    fn service_port(&self, snapshot: &Snapshot, service: &Service, port: u16) -> Destination {
        let ns = service.metadata.namespace_or_default();
        let Some(sp) = service
            .spec
            .ports
            .iter()
            .find(|p| p.port == i32::from(port))
        else {
            return Destination::Unknown;
        };
        let mut backends = Vec::new();
        let mut unresolved = Vec::new();
        let slices: Vec<_> = snapshot
            .endpoint_slices_for(ns, &service.metadata.name)
            .collect();
        if !slices.is_empty() {
            for slice in slices {
                let number = slice
                    .ports
                    .iter()
                    .find(|p| p.name.as_deref().unwrap_or("") == sp.name.as_deref().unwrap_or(""))
                    .and_then(|p| p.port)
                    .and_then(|p| u16::try_from(p).ok());
                let Some(number) = number else { continue };
                for e in &slice.endpoints {
                    for a in &e.addresses {
                        match a.parse::<IpAddr>().ok().and_then(|ip| self.workload_at(ip)) {
                            Some(w) => backends.push((w, number)),
                            None => unresolved.push(format!("endpoint {a} is no known Pod")),
                        }
                    }
                }
            }
        } else if let Some(selector) = &service.spec.selector {
            let target = match &sp.target_port {
                None => Some(port),
                Some(IntOrString::Int(n)) => u16::try_from(*n).ok(),
                Some(IntOrString::String(name)) => {
                    unresolved.push(format!(
                        "targetPort {name:?} is a port name and the Service has no EndpointSlices"
                    ));
                    None
                }
            };
            if let Some(target) = target {
                for pod in snapshot.pods() {
                    let same_ns = pod.metadata.namespace_or_default() == ns;
                    let selected = selector
                        .iter()
                        .all(|(k, v)| pod.metadata.labels.get(k) == Some(v));
                    if same_ns
                        && selected
                        && let Some(w) = self.workload_named(ns, &pod.metadata.name)
                    {
                        backends.push((w, target));
                    }
                }
            }
        }
        backends.sort_unstable();
        backends.dedup();
        Destination::Service {
            service: (ns.to_owned(), service.metadata.name.clone()),
            backends,
            unresolved,
        }
    }
}
