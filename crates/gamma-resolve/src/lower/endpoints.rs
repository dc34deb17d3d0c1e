//! The ready endpoints of headless Services (workload binding, [`crate::MeshBinding::Workloads`]),
//! lowered from their EndpointSlices.

use std::net::IpAddr;

use gamma_model::ObjectKey;
use gamma_model::k8s::{EndpointSlice, IntOrString, Service};

use crate::input::{EndpointIr, L4};

/// The ready endpoints of a headless Service on each of its ports (empty for any other
/// Service), from `slices` (those labelled with its name): every address of every ready
/// endpoint (EndpointSlice API: `conditions.ready` unset means ready) that parses as an IP
/// (`addressType: FQDN` slices bind nothing), on the port's `targetPort`: a number as is, a
/// name resolved per slice from the slice port of the Service port's name (the EndpointSlice
/// controller writes each Service port there under its name, with the target port resolved
/// for that slice's pods), and the Service port itself when `targetPort` is unset. Sorted,
/// without duplicates.
pub(crate) fn endpoints(svc: &Service, slices: &[&EndpointSlice]) -> Vec<EndpointIr> {
    let mut out = Vec::new();
    if !svc.is_headless() {
        return out;
    }
    for p in &svc.spec.ports {
        let protocol = match p.protocol.as_deref() {
            None | Some("TCP") => L4::Tcp,
            Some("UDP") => L4::Udp,
            Some(_) => continue,
        };
        let Ok(service_port) = u16::try_from(p.port) else {
            continue;
        };
        for slice in slices {
            let port = match &p.target_port {
                None => Some(service_port),
                Some(IntOrString::Int(n)) => u16::try_from(*n).ok(),
                Some(IntOrString::String(_)) => slice
                    .ports
                    .iter()
                    .find(|sp| {
                        sp.name.as_deref().unwrap_or("") == p.name.as_deref().unwrap_or("")
                            && sp.protocol.as_deref().unwrap_or("TCP")
                                == p.protocol.as_deref().unwrap_or("TCP")
                    })
                    .and_then(|sp| sp.port)
                    .and_then(|n| u16::try_from(n).ok()),
            };
            let Some(port) = port.filter(|n| *n != 0) else {
                continue;
            };
            for e in slice.endpoints.iter().filter(|e| e.is_ready()) {
                out.extend(
                    e.addresses
                        .iter()
                        .filter_map(|a| a.parse::<IpAddr>().ok())
                        .map(|address| EndpointIr {
                            address,
                            service_port,
                            port,
                            protocol,
                        }),
                );
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// [`endpoints`] of `svc` with the snapshot's slices, one of them (`slice`) replaced by
/// `with` (`None`: absent): the endpoints before an EndpointSlice change.
pub(crate) fn endpoints_with<'s>(
    snapshot: &'s gamma_model::Snapshot,
    svc: &Service,
    slice: &ObjectKey,
    with: Option<&'s EndpointSlice>,
) -> Vec<EndpointIr> {
    let ns = svc.metadata.namespace_or_default();
    let name = svc.metadata.name.as_str();
    let others = snapshot
        .endpoint_slices_for(ns, name)
        .filter(|s| !(s.metadata.name == slice.name && ns == slice.namespace));
    let with = with.filter(|s| s.service_name() == Some(name));
    let slices: Vec<&EndpointSlice> = others.chain(with).collect();
    endpoints(svc, &slices)
}
