//! `Gateway`, `GatewayClass` and `ListenerSet` (`gateway.networking.k8s.io/v1`, Gateway and
//! GatewayClass also decoded from `v1beta1`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Condition, LabelSelector, LocalObjectReference, ObjectReference, SecretObjectReference,
};
use crate::macros::string_enum;
use crate::meta::ObjectMeta;

/// A class of Gateways, implemented by the controller named in `controllerName`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayClass {
    /// `gateway.networking.k8s.io/v1` or `v1beta1`.
    #[serde(default = "super::v1")]
    pub api_version: String,
    /// Always `GatewayClass`.
    #[serde(default = "gateway_class_kind")]
    pub kind: String,
    /// Object metadata (cluster-scoped).
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: GatewayClassSpec,
    /// The observed state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<GatewayClassStatus>,
}

fn gateway_class_kind() -> String {
    "GatewayClass".into()
}

impl GatewayClass {
    /// A new `v1` GatewayClass for `controller_name`.
    pub fn new(metadata: ObjectMeta, controller_name: impl Into<String>) -> Self {
        GatewayClass {
            api_version: super::v1(),
            kind: gateway_class_kind(),
            metadata,
            spec: GatewayClassSpec {
                controller_name: controller_name.into(),
                ..GatewayClassSpec::default()
            },
            status: None,
        }
    }
}

/// The desired state of a [`GatewayClass`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayClassSpec {
    /// The controller that manages Gateways of this class (`DOMAIN/PATH`); immutable.
    #[serde(default)]
    pub controller_name: String,
    /// Controller-specific configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters_ref: Option<ObjectReference>,
    /// A description; at most 64 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The observed state of a [`GatewayClass`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayClassStatus {
    /// Conditions; at most 8.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Features the controller supports; at most 64.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supported_features: Vec<SupportedFeature>,
}

/// A feature a controller supports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SupportedFeature {
    /// The feature name.
    #[serde(default)]
    pub name: String,
}

/// A Gateway: listeners on addresses, implemented by its class's controller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Gateway {
    /// `gateway.networking.k8s.io/v1` or `v1beta1`.
    #[serde(default = "super::v1")]
    pub api_version: String,
    /// Always `Gateway`.
    #[serde(default = "gateway_kind")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: GatewaySpec,
    /// The observed state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<GatewayStatus>,
}

fn gateway_kind() -> String {
    "Gateway".into()
}

impl Gateway {
    /// A new `v1` Gateway.
    pub fn new(metadata: ObjectMeta, spec: GatewaySpec) -> Self {
        Gateway {
            api_version: super::v1(),
            kind: gateway_kind(),
            metadata,
            spec,
            status: None,
        }
    }

    /// The IP addresses the Gateway is reachable at: those of `status.addresses` when it
    /// reports any, else those of `spec.addresses` (the addresses it asked for), each
    /// parsed as an IP address; values that are not one (a `Hostname` address) are left out.
    /// A mesh matches traffic to a Gateway by these.
    ///
    /// ```
    /// use gamma_model::{AnyResource, decode};
    /// let gw = decode(r#"
    /// apiVersion: gateway.networking.k8s.io/v1
    /// kind: Gateway
    /// metadata: {name: edge, namespace: infra}
    /// spec:
    ///   gatewayClassName: mesh
    ///   addresses: [{value: 10.0.0.9}]
    ///   listeners: [{name: http, port: 80, protocol: HTTP}]
    /// status:
    ///   addresses: [{value: 10.0.0.1}, {type: Hostname, value: edge.example}]
    /// "#).unwrap().remove(0);
    /// let AnyResource::Gateway(gw) = gw else { unreachable!() };
    /// assert_eq!(gw.frontend_addresses(), ["10.0.0.1".parse::<std::net::IpAddr>().unwrap()]);
    /// ```
    pub fn frontend_addresses(&self) -> Vec<std::net::IpAddr> {
        let addresses: Vec<std::net::IpAddr> = self
            .status
            .iter()
            .flat_map(|s| s.addresses.iter())
            .filter_map(|a| a.value.parse().ok())
            .collect();
        if !addresses.is_empty() {
            return addresses;
        }
        self.spec
            .addresses
            .iter()
            .filter_map(|a| a.value.as_deref()?.parse().ok())
            .collect()
    }
}

/// The desired state of a [`Gateway`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewaySpec {
    /// The GatewayClass.
    #[serde(default)]
    pub gateway_class_name: String,
    /// Listeners; 1 to 64, unique by name and by (port, protocol, hostname).
    #[serde(default)]
    pub listeners: Vec<Listener>,
    /// Requested addresses; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<GatewaySpecAddress>,
    /// Infrastructure labels, annotations and parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub infrastructure: Option<GatewayInfrastructure>,
    /// Which ListenerSets may attach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_listeners: Option<AllowedListeners>,
    /// Gateway-wide TLS settings: the Gateway's client certificate towards backends, and
    /// client certificate validation on its HTTPS listeners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<super::GatewayTlsConfig>,
    /// **\[experimental\]** whether this is a default Gateway (`All` or `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_scope: Option<super::GatewayDefaultScope>,
}

/// An address requested for a Gateway.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewaySpecAddress {
    /// `IPAddress` (default), `Hostname`, or a domain-prefixed type.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// The address; may be empty to let the implementation choose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// **\[experimental, v1.7\]** Where the address is reachable from: empty, `Cluster`, or
    /// an implementation-specific `domain/path` (GEP-3651).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routability: Option<String>,
}

/// Labels, annotations and parameters for the Gateway's infrastructure.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayInfrastructure {
    /// Labels for generated resources.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Annotations for generated resources.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// Implementation-specific parameters, in the Gateway's namespace (upstream
    /// `LocalParametersReference`: group, kind, name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters_ref: Option<LocalObjectReference>,
}

/// Which namespaces' ListenerSets may attach to a Gateway.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AllowedListeners {
    /// The namespace policy; defaults to `from: None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespaces: Option<ListenerNamespaces>,
}

/// A namespace policy for ListenerSet attachment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListenerNamespaces {
    /// `All`, `Selector`, `Same` or `None` (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<FromNamespaces>,
    /// For `Selector`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

string_enum! {
    /// Which namespaces a listener admits routes (or ListenerSets) from.
    pub enum FromNamespaces {
        /// Every namespace.
        All => "All",
        /// Namespaces matching a label selector.
        Selector => "Selector",
        /// The Gateway's own namespace.
        Same => "Same",
        /// No namespace (ListenerSets only).
        None => "None",
    }
}

/// A listener: a port, protocol and optional hostname that routes attach to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Listener {
    /// The listener name (a `SectionName`), unique in the Gateway.
    #[serde(default)]
    pub name: String,
    /// The hostname; absent matches every host. Not allowed for TCP and UDP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    /// The port, 1 to 65535.
    #[serde(default)]
    pub port: i32,
    /// `HTTP`, `HTTPS`, `TLS`, `TCP`, `UDP`, or a domain-prefixed protocol.
    #[serde(default)]
    pub protocol: String,
    /// TLS settings (required for HTTPS and TLS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<ListenerTlsConfig>,
    /// Which routes may attach; defaults to routes from the same namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_routes: Option<AllowedRoutes>,
    /// **\[experimental, v1.7\]** Filters the proxy runs on every request of the listener
    /// before routing (GEP-5224); HTTP and HTTPS listeners only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<ListenerFilters>,
}

/// **\[experimental, v1.7\]** A listener's pre-routing filters (GEP-5224).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListenerFilters {
    /// The request filters, in order; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<ListenerRequestFilter>,
}

string_enum! {
    /// The type of a listener request filter.
    pub enum ListenerFilterType {
        /// External authorization (`externalAuth`).
        ExternalAuth => "ExternalAuth",
        /// An implementation-specific filter (`extensionRef`).
        ExtensionRef => "ExtensionRef",
    }
}

/// One pre-routing request filter of a listener.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListenerRequestFilter {
    /// The filter type; required (`None` only when absent, which is `Required`).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<ListenerFilterType>,
    /// For type `ExternalAuth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_auth: Option<super::HttpExternalAuthFilter>,
    /// For type `ExtensionRef`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension_ref: Option<LocalObjectReference>,
}

string_enum! {
    /// How a TLS listener handles TLS.
    pub enum TlsModeType {
        /// Terminate TLS at the Gateway (the default).
        Terminate => "Terminate",
        /// Pass the TLS stream through to the backend.
        Passthrough => "Passthrough",
    }
}

/// TLS settings of a listener.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListenerTlsConfig {
    /// Terminate (default) or Passthrough.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<TlsModeType>,
    /// Certificates; at most 64.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub certificate_refs: Vec<SecretObjectReference>,
    /// Implementation-specific options; at most 16.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
}

/// Which routes may attach to a listener.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AllowedRoutes {
    /// The namespace policy; defaults to `from: Same`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespaces: Option<RouteNamespaces>,
    /// The route kinds; empty means the kinds the protocol implies. At most 8.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<RouteGroupKind>,
}

/// A namespace policy for route attachment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteNamespaces {
    /// `All`, `Selector` or `Same` (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<FromNamespaces>,
    /// For `Selector`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// A route group and kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RouteGroupKind {
    /// The group; defaults to `gateway.networking.k8s.io`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The kind, e.g. `HTTPRoute`.
    #[serde(default)]
    pub kind: String,
}

/// The observed state of a [`Gateway`] (the parts gamma-rs reads).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayStatus {
    /// The addresses bound; a mesh matches Gateway traffic by these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<GatewayStatusAddress>,
    /// Conditions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Per-listener status.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listeners: Vec<ListenerStatus>,
    /// The number of ListenerSets attached to the Gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attached_listener_sets: Option<i32>,
}

/// An address bound to a Gateway.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayStatusAddress {
    /// `IPAddress` (default), `Hostname`, or a domain-prefixed type.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// The address.
    #[serde(default)]
    pub value: String,
    /// **\[experimental, v1.7\]** Where the address is reachable from (GEP-3651).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routability: Option<String>,
}

/// The status of one listener.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListenerStatus {
    /// The listener name.
    #[serde(default)]
    pub name: String,
    /// Route kinds the listener supports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supported_kinds: Vec<RouteGroupKind>,
    /// The number of attached routes.
    #[serde(default)]
    pub attached_routes: i32,
    /// Conditions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// A set of listeners attached to a parent Gateway (GEP-1713).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListenerSet {
    /// `gateway.networking.k8s.io/v1`.
    #[serde(default = "super::v1")]
    pub api_version: String,
    /// Always `ListenerSet`.
    #[serde(default = "listener_set_kind")]
    pub kind: String,
    /// Object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The desired state.
    #[serde(default)]
    pub spec: ListenerSetSpec,
    /// The observed state, written by the parent Gateway's controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ListenerSetStatus>,
}

/// The observed state of a [`ListenerSet`] (GEP-1713 ListenerSetStatus): its conditions
/// (`Accepted`, `Programmed`) and one entry per listener, of the same shape as a Gateway's
/// listener status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListenerSetStatus {
    /// Conditions, keyed by `type`; at most 8.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Per-listener status, keyed by `name`; at most 64.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listeners: Vec<ListenerStatus>,
}

fn listener_set_kind() -> String {
    "ListenerSet".into()
}

/// The desired state of a [`ListenerSet`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListenerSetSpec {
    /// The Gateway the listeners attach to.
    #[serde(default)]
    pub parent_ref: ParentGatewayReference,
    /// The listeners; 1 to 64.
    #[serde(default)]
    pub listeners: Vec<Listener>,
}

/// A reference from a ListenerSet to its Gateway.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParentGatewayReference {
    /// The group; defaults to `gateway.networking.k8s.io`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The kind; defaults to `Gateway`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The Gateway name.
    #[serde(default)]
    pub name: String,
    /// The Gateway namespace; defaults to the ListenerSet's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}
