//! Read-only access to the compiled table by frontend: which Service port or Gateway listener a
//! route set belongs to, where a Service backend is bound, and whose namespace a frontend is.
//!
//! This is the one module (beside the resolve path) that reads the table's internal layout for
//! chains and views: when the table's layout changes, this file changes with it.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

use crate::input::L4;
use crate::request::Protocol;
use crate::table::{Binding, Part, RouteSet, RouteTable, SetLabel, Target};

/// A frontend of the table: what a request binds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Frontend<'t> {
    /// A Service port: its cluster IPs × the port (GEP-1294 Service frontend).
    #[serde(rename_all = "camelCase")]
    Service {
        /// Namespace of the Service.
        namespace: &'t str,
        /// Name of the Service.
        name: &'t str,
        /// The Service port.
        port: u16,
    },
    /// A Gateway listener (Gateway API listener selection).
    #[serde(rename_all = "camelCase")]
    Listener {
        /// Namespace of the Gateway.
        namespace: &'t str,
        /// Name of the Gateway.
        gateway: &'t str,
        /// The listener's name.
        listener: &'t str,
    },
}

impl Frontend<'_> {
    /// The namespace of the Service or Gateway.
    pub fn namespace(&self) -> &str {
        match self {
            Self::Service { namespace, .. } | Self::Listener { namespace, .. } => namespace,
        }
    }
}

impl std::fmt::Display for Frontend<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Service {
                namespace,
                name,
                port,
            } => write!(f, "Service {namespace}/{name} port {port}"),
            Self::Listener {
                namespace,
                gateway,
                listener,
            } => write!(f, "listener {listener} of Gateway {namespace}/{gateway}"),
        }
    }
}

/// Which route set of a frontend applied (GEP-1294 namespace boundaries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum RouteSetKind<'t> {
    /// The producer routes of a Service (routes in the Service's namespace).
    Producer,
    /// The consumer routes of one client namespace.
    Consumer {
        /// The client namespace.
        namespace: &'t str,
    },
    /// The routes attached to a Gateway listener.
    Listener,
}

impl std::fmt::Display for RouteSetKind<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Producer => f.write_str("producer routes"),
            Self::Consumer { namespace } => write!(f, "consumer routes of namespace {namespace}"),
            Self::Listener => f.write_str("listener routes"),
        }
    }
}

/// A Service port by (namespace, name, port, transport).
type ServicePortKey = (Arc<str>, Box<str>, u16, L4);

/// Derived lookups over the table's bindings, built on first use (a resolver that never
/// traces never pays for them).
#[derive(Debug, Default)]
pub(crate) struct FrontendIndex {
    /// Every cluster IP of each bound Service port, by (namespace, name, port, transport),
    /// addresses sorted.
    service_ips: BTreeMap<ServicePortKey, Vec<IpAddr>>,
}

impl RouteTable {
    fn frontend_index(&self) -> &FrontendIndex {
        self.frontend_index.get_or_init(|| {
            let mut service_ips: BTreeMap<_, Vec<IpAddr>> = BTreeMap::new();
            for ((ip, _, l4), (part, binding)) in self.bindings.iter() {
                if let Binding::Service { service, port, .. } = binding
                    && let Some(svc) = part.services.get(*service as usize)
                {
                    let key = (
                        Arc::clone(&svc.namespace),
                        Box::from(part.text(svc.name)),
                        *port,
                        *l4,
                    );
                    service_ips.entry(key).or_default().push(*ip);
                }
            }
            for ips in service_ips.values_mut() {
                ips.sort_unstable();
            }
            FrontendIndex { service_ips }
        })
    }

    /// Where a backend is bound as a mesh frontend: the lowest cluster IP of its Service with
    /// routes on that port for `protocol`'s transport (every cluster IP of a Service port leads
    /// to the same route sets, so the choice only fixes what a trace shows). `None` for
    /// anything but a core Service with routes on that port.
    pub(crate) fn backend_frontend(&self, t: &Target, protocol: Protocol) -> Option<IpAddr> {
        if !t.group.is_empty() || &*t.kind != "Service" {
            return None;
        }
        let l4 = if protocol == Protocol::Udp {
            L4::Udp
        } else {
            L4::Tcp
        };
        let key: ServicePortKey = (
            Arc::clone(&t.namespace),
            Box::<str>::from(&*t.name),
            t.port?,
            l4,
        );
        self.frontend_index()
            .service_ips
            .get(&key)
            .and_then(|ips| ips.first().copied())
    }
}

impl Part {
    /// The frontend and route set kind one of this part's route sets belongs to.
    pub(crate) fn set_frontend<'t>(
        &'t self,
        set: &'t RouteSet,
    ) -> Option<(Frontend<'t>, RouteSetKind<'t>)> {
        match &set.label {
            SetLabel::None => None,
            SetLabel::Mesh {
                service,
                port,
                consumer,
            } => {
                let svc = self.services.get(*service as usize)?;
                Some((
                    Frontend::Service {
                        namespace: &svc.namespace,
                        name: self.text(svc.name),
                        port: *port,
                    },
                    match consumer {
                        Some(ns) => RouteSetKind::Consumer { namespace: ns },
                        None => RouteSetKind::Producer,
                    },
                ))
            }
            SetLabel::Listener { gateway, listener } => {
                let gw = self.gateways.get(*gateway as usize)?;
                Some((
                    Frontend::Listener {
                        namespace: &gw.namespace,
                        gateway: self.text(gw.name),
                        listener,
                    },
                    RouteSetKind::Listener,
                ))
            }
        }
    }
}
