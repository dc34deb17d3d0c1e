//! Lookups by frontend over the table's bindings, built on first use ([`FrontendIndex`]):
//! where a Service backend is bound as a mesh frontend, for traces.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use super::{Binding, Part, RouteTable, Target};
use crate::input::L4;
use crate::request::Protocol;

/// A Service port by (namespace, name, port, transport).
type ServicePortKey = (Arc<str>, Box<str>, u16, L4);

/// Derived lookups over the table's bindings, built on first use (a resolver that never
/// traces never pays for them).
#[derive(Debug, Default)]
pub(crate) struct FrontendIndex {
    /// Every cluster IP of each bound Service port, by (namespace, name, port, transport),
    /// addresses sorted.
    service_ips: BTreeMap<ServicePortKey, Vec<IpAddr>>,
    /// Under workload binding, every (endpoint address, target port) a headless Service port
    /// is bound at, by the same key: the endpoints bound to it alone first, then those in
    /// conflict with another headless Service (`true`), each run sorted.
    endpoints: BTreeMap<ServicePortKey, Vec<(bool, IpAddr, u16)>>,
}

/// Where a backend is called as a mesh frontend: the address and port the next hop of a
/// trace is sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NextFrontend {
    pub(crate) address: IpAddr,
    pub(crate) port: u16,
}

impl RouteTable {
    fn frontend_index(&self) -> &FrontendIndex {
        self.frontend_index.get_or_init(|| {
            let mut index = FrontendIndex::default();
            let key_of = |part: &Part, b: &Binding, l4: L4| match b {
                Binding::Service { service, port, .. } => {
                    let svc = part.services.get(*service as usize)?;
                    Some((
                        Arc::clone(&svc.namespace),
                        Box::<str>::from(part.text(svc.name)),
                        *port,
                        l4,
                    ))
                }
                _ => None,
            };
            for (&(ip, at, l4), (part, binding)) in self.bindings.iter() {
                match binding {
                    Binding::Service { workload, .. } => {
                        let Some(key) = key_of(part, binding, l4) else {
                            continue;
                        };
                        if *workload {
                            index
                                .endpoints
                                .entry(key)
                                .or_default()
                                .push((false, ip, at));
                        } else {
                            index.service_ips.entry(key).or_default().push(ip);
                        }
                    }
                    // each claimant's own binding names its Service
                    Binding::Conflict { claims } => {
                        for (p, b) in claims.iter() {
                            if let Some(key) = key_of(p, b, l4) {
                                index.endpoints.entry(key).or_default().push((true, ip, at));
                            }
                        }
                    }
                    Binding::Gateway { .. } => {}
                }
            }
            for ips in index.service_ips.values_mut() {
                ips.sort_unstable();
            }
            for eps in index.endpoints.values_mut() {
                eps.sort_unstable();
            }
            index
        })
    }

    /// Where a backend is bound as a mesh frontend, for `protocol`'s transport: the lowest
    /// cluster IP of its Service with routes on the backendRef's port (every cluster IP of a
    /// Service port leads to the same route sets, so the choice only fixes what a trace
    /// shows); else, for a headless Service whose routes bind to its ready endpoints
    /// ([`crate::MeshBinding::Workloads`]), the lowest of those endpoints on that port's
    /// target port (each leads to the same route sets, those of the Service port; one in
    /// conflict with another headless Service only when every endpoint is). `None` for
    /// anything but a core Service with routes on that port.
    pub(crate) fn backend_frontend(&self, t: &Target, protocol: Protocol) -> Option<NextFrontend> {
        if !t.group.is_empty() || &*t.kind != "Service" {
            return None;
        }
        let l4 = if protocol == Protocol::Udp {
            L4::Udp
        } else {
            L4::Tcp
        };
        let port = t.port?;
        let key: ServicePortKey = (
            Arc::clone(&t.namespace),
            Box::<str>::from(&*t.name),
            port,
            l4,
        );
        let index = self.frontend_index();
        if let Some(ip) = index.service_ips.get(&key).and_then(|ips| ips.first()) {
            return Some(NextFrontend { address: *ip, port });
        }
        index
            .endpoints
            .get(&key)
            .and_then(|eps| eps.first())
            .map(|&(_, address, port)| NextFrontend { address, port })
    }
}
