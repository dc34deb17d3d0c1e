//! The layer-4 routes: `TLSRoute`, `TCPRoute` and `UDPRoute` (`v1`, also decoded from the
//! deprecated `v1alpha2` and, for TLSRoute, `v1alpha3`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{BackendRef, GatewayDefaultScope, ParentReference, RouteStatus};
use crate::meta::ObjectMeta;

macro_rules! l4_route {
    ($(#[$doc:meta])* $name:ident, $spec:ident, $kind:literal, $kindfn:ident, $kindfn_str:literal, hostnames: $hostnames:tt) => {
        fn $kindfn() -> String {
            $kind.to_owned()
        }

        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// The apiVersion, kept as decoded.
            #[serde(default = "super::v1")]
            pub api_version: String,
            #[doc = concat!("Always `", $kind, "`.")]
            #[serde(default = $kindfn_str)]
            pub kind: String,
            /// Object metadata.
            #[serde(default)]
            pub metadata: ObjectMeta,
            /// The desired state.
            #[serde(default)]
            pub spec: $spec,
            /// The observed state.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub status: Option<RouteStatus>,
        }

        impl $name {
            /// The kind name on the wire.
            pub const KIND: &'static str = $kind;

            /// A new `v1` object.
            pub fn new(metadata: ObjectMeta, spec: $spec) -> Self {
                $name {
                    api_version: super::v1(),
                    kind: $kind.into(),
                    metadata,
                    spec,
                    status: None,
                }
            }
        }

        l4_route!(@spec $spec, $kind, $hostnames);
    };
    (@spec $spec:ident, $kind:literal, yes) => {
        #[doc = concat!("The desired state of a `", $kind, "`.")]
        #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $spec {
            /// Parents; at most 32.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub parent_refs: Vec<ParentReference>,
            /// SNI hostnames; 1 to 1024 (required).
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub hostnames: Vec<String>,
            /// Exactly one rule (v1).
            #[serde(default)]
            pub rules: Vec<L4RouteRule>,
            /// **\[experimental\]** default Gateway attachment.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub use_default_gateways: Option<GatewayDefaultScope>,
        }
    };
    (@spec $spec:ident, $kind:literal, no) => {
        #[doc = concat!("The desired state of a `", $kind, "`.")]
        #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $spec {
            /// Parents; at most 32.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub parent_refs: Vec<ParentReference>,
            /// Exactly one rule (v1; v1alpha2 allowed up to 16).
            #[serde(default)]
            pub rules: Vec<L4RouteRule>,
            /// **\[experimental\]** default Gateway attachment.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub use_default_gateways: Option<GatewayDefaultScope>,
        }
    };
}

l4_route!(
    /// A TLS route: routes TLS connections by SNI without terminating them (in Passthrough mode).
    TlsRoute, TlsRouteSpec, "TLSRoute", tls_route_kind, "tls_route_kind", hostnames: yes
);
l4_route!(
    /// A TCP route: forwards TCP connections to weighted backends.
    TcpRoute, TcpRouteSpec, "TCPRoute", tcp_route_kind, "tcp_route_kind", hostnames: no
);
l4_route!(
    /// A UDP route: forwards UDP datagrams to weighted backends.
    UdpRoute, UdpRouteSpec, "UDPRoute", udp_route_kind, "udp_route_kind", hostnames: no
);

/// The rule of a TLS, TCP or UDP route: just weighted backends.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct L4RouteRule {
    /// An optional rule name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Backends; 1 to 16.
    #[serde(default)]
    pub backend_refs: Vec<BackendRef>,
}
