//! Frontends (a Service port, a Gateway listener, a ListenerSet listener) and the kind of
//! route set behind them, as views and traces name them.

use schemars::JsonSchema;
use serde::Serialize;

use crate::table::{Part, RouteSet, SetLabel};

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
    /// A listener of a ListenerSet, served on its parent Gateway's addresses (GEP-1713).
    #[serde(rename_all = "camelCase")]
    ListenerSetListener {
        /// Namespace of the ListenerSet.
        namespace: &'t str,
        /// Name of the ListenerSet.
        listener_set: &'t str,
        /// Namespace of the parent Gateway.
        gateway_namespace: &'t str,
        /// Name of the parent Gateway.
        gateway: &'t str,
        /// The listener's name.
        listener: &'t str,
    },
}

impl Frontend<'_> {
    /// The namespace of the component that serves this frontend and makes the next call: the
    /// Service's, or the Gateway's (for a ListenerSet listener, its parent Gateway's: the
    /// Gateway is what forwards the request).
    pub fn namespace(&self) -> &str {
        match self {
            Self::Service { namespace, .. } | Self::Listener { namespace, .. } => namespace,
            Self::ListenerSetListener {
                gateway_namespace, ..
            } => gateway_namespace,
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
            Self::ListenerSetListener {
                namespace,
                listener_set,
                gateway_namespace,
                gateway,
                listener,
            } => write!(
                f,
                "listener {listener} of ListenerSet {namespace}/{listener_set} \
                 (Gateway {gateway_namespace}/{gateway})"
            ),
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
            SetLabel::ListenerSetListener {
                listener_set,
                gateway,
                listener,
            } => {
                let ls = self.listener_sets.get(*listener_set as usize)?;
                let gw = self.gateways.get(*gateway as usize)?;
                Some((
                    Frontend::ListenerSetListener {
                        namespace: &ls.namespace,
                        listener_set: self.text(ls.name),
                        gateway_namespace: &gw.namespace,
                        gateway: self.text(gw.name),
                        listener,
                    },
                    RouteSetKind::Listener,
                ))
            }
        }
    }
}
