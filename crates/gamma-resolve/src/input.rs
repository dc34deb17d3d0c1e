//! The lowered input of a route table: what [`crate::RouteTable`] compiles from.
//!
//! [`crate::RouteTable::build`] lowers a [`gamma_model::Snapshot`] into this form (applying
//! CRD defaults, resolving label selectors and recording validation failures); tests and
//! embedders without a snapshot can build it directly and call
//! [`crate::RouteTable::from_input`]. Everything here is owned, plain data: no indexes, no
//! compiled regexes.
//!
//! This module is an unstable, lower-level interface: it may change between minor versions.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::net::IpAddr;
use std::sync::Arc;

use gamma_model::RouteKind;
/// The owned string of the lowered input's paths, header and query names and values, methods
/// and backend names: held inline when short (see [`gamma_model::ir::IrString`]).
pub use gamma_model::ir::IrString;
use schemars::JsonSchema;
use serde::Serialize;
pub use smallvec::{SmallVec, smallvec};

/// L4 protocol of a Service port or listener binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum L4 {
    /// TCP (and everything carried over it).
    #[default]
    Tcp,
    /// UDP.
    Udp,
}

/// The whole input of a table.
///
/// Built with [`TableInput::new`] and the `with_*` methods (or by setting the public fields of
/// a `default()`), never by a struct literal: the input grows a field with every new object
/// kind the table reads, and `#[non_exhaustive]` keeps that from breaking callers.
///
/// ```
/// use gamma_resolve::input::{ServiceIr, TableInput};
/// let input = TableInput::new().with_services(vec![ServiceIr::default()]);
/// assert_eq!(input.services.len(), 1);
/// assert!(input.routes.is_empty());
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct TableInput {
    /// Services (mesh parents and backends).
    pub services: Vec<ServiceIr>,
    /// Gateways (north-south parents).
    pub gateways: Vec<GatewayIr>,
    /// Routes of every kind.
    pub routes: Vec<RouteIr>,
    /// ReferenceGrants.
    pub grants: Vec<GrantIr>,
    /// ListenerSets (GEP-1713): more listeners for a Gateway, each attached to it when the
    /// Gateway's [`GatewayIr::allowed_listeners`] admits the ListenerSet's namespace.
    pub listener_sets: Vec<ListenerSetIr>,
    /// BackendTLSPolicies.
    pub backend_tls_policies: Vec<BackendTlsPolicyIr>,
    /// ConfigMaps (what BackendTLSPolicy `caCertificateRefs` resolve to).
    pub config_maps: Vec<ConfigMapIr>,
    /// ClusterTrustBundles (GEP-5075: what a `certificates.k8s.io` `ClusterTrustBundle`
    /// `caCertificateRefs` entry resolves to).
    pub cluster_trust_bundles: Vec<ClusterTrustBundleIr>,
    /// Whether [`TableInput::cluster_trust_bundles`] holds every ClusterTrustBundle there is
    /// (`gamma_model::Snapshot::cluster_trust_bundles_complete`): only then is a reference to
    /// one it lacks judged missing.
    pub cluster_trust_bundles_complete: bool,
}

impl TableInput {
    /// An empty input: no objects of any kind.
    pub fn new() -> Self {
        TableInput::default()
    }

    /// With these Services.
    pub fn with_services(mut self, services: Vec<ServiceIr>) -> Self {
        self.services = services;
        self
    }

    /// With these Gateways.
    pub fn with_gateways(mut self, gateways: Vec<GatewayIr>) -> Self {
        self.gateways = gateways;
        self
    }

    /// With these routes.
    pub fn with_routes(mut self, routes: Vec<RouteIr>) -> Self {
        self.routes = routes;
        self
    }

    /// With these ReferenceGrants.
    pub fn with_grants(mut self, grants: Vec<GrantIr>) -> Self {
        self.grants = grants;
        self
    }

    /// With these ListenerSets.
    pub fn with_listener_sets(mut self, listener_sets: Vec<ListenerSetIr>) -> Self {
        self.listener_sets = listener_sets;
        self
    }

    /// With these BackendTLSPolicies.
    pub fn with_backend_tls_policies(mut self, policies: Vec<BackendTlsPolicyIr>) -> Self {
        self.backend_tls_policies = policies;
        self
    }

    /// With these ConfigMaps.
    pub fn with_config_maps(mut self, config_maps: Vec<ConfigMapIr>) -> Self {
        self.config_maps = config_maps;
        self
    }
}

/// A Service: frontend (cluster IPs and ports) and backend facts.
#[derive(Debug, Clone, Default)]
pub struct ServiceIr {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Cluster IPs (all families). Empty for headless Services (`clusterIP: None`), and for
    /// Services whose manifest has no `clusterIP` yet (the API server allocates it): those are
    /// still parents, only no address binds to them.
    pub cluster_ips: Vec<IpAddr>,
    /// `clusterIP: None`: no frontend, so never a parent (GEP-1294). Only this value means
    /// headless; an empty [`ServiceIr::cluster_ips`] alone does not.
    pub headless: bool,
    /// `type: ExternalName`: neither a parent nor a valid backend (Gateway API ParentReference).
    pub external_name: bool,
    /// Ports.
    pub ports: Vec<ServicePortIr>,
    /// Whether the Service has ready endpoints, when EndpointSlices are known; `None` when
    /// the snapshot has no EndpointSlices for it (assume ready).
    pub ready: Option<bool>,
    /// For a headless Service: its ready endpoints on each Service port, what
    /// [`crate::MeshBinding::Workloads`] binds (empty for other Services, and read by no
    /// other policy). Sorted and without duplicates after lowering.
    pub endpoints: Vec<EndpointIr>,
}

/// One ready endpoint of a headless Service on one of its ports: the endpoint's address,
/// and the port a request to it arrives on (the Service port's `targetPort`, resolved per
/// EndpointSlice; see `docs/workloads.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EndpointIr {
    /// The endpoint address (either family).
    pub address: IpAddr,
    /// The Service port (what parentRef `port` names).
    pub service_port: u16,
    /// The port on the endpoint (the resolved `targetPort`).
    pub port: u16,
    /// TCP or UDP, the Service port's.
    pub protocol: L4,
}

/// One Service port.
#[derive(Debug, Clone, Default)]
pub struct ServicePortIr {
    /// Port name (`sectionName` of a parentRef).
    pub name: Option<String>,
    /// The Service port.
    pub port: u16,
    /// TCP or UDP (SCTP ports are left out).
    pub protocol: L4,
    /// `appProtocol`, if set.
    pub app_protocol: Option<String>,
}

/// A Gateway with the addresses it serves and its listeners.
#[derive(Debug, Clone, Default)]
pub struct GatewayIr {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Addresses requests arrive on (from `status.addresses`, else `spec.addresses`).
    pub addresses: Vec<IpAddr>,
    /// Listeners, in spec order.
    pub listeners: Vec<ListenerIr>,
    /// `spec.allowedListeners.namespaces`: which namespaces' ListenerSets may attach, resolved
    /// at lowering time; `None` is `from: None`, the default ("By default, Gateways do not
    /// allow ListenerSet attachment", ListenerSet API reference).
    pub allowed_listeners: Option<AllowedNamespaces>,
    /// Set when the Gateway fails validation (the channel's CRD markers and CEL rules): the API
    /// server would not store it, so it is left out whole. None of its listeners binds, no
    /// route or ListenerSet attaches to it, and its status is `Accepted=False` with reason
    /// `Invalid` and this message (the first error, with its field path).
    pub invalid: Option<Invalid>,
    /// The field paths of the `spec.tls.frontend` client certificate validations whose `mode`
    /// is `AllowInsecureFallback` (GEP-91): while any is, the Gateway carries
    /// `InsecureFrontendValidationMode=True` (GatewayConditionInsecureFrontendValidationMode).
    pub insecure_frontend_validation: Vec<String>,
}

/// A ListenerSet (GEP-1713): listeners that join their parent Gateway, bound on its addresses.
#[derive(Debug, Clone, Default)]
pub struct ListenerSetIr {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `creationTimestamp` as (seconds, nanoseconds) since the epoch: the ListenerSet
    /// precedence of GEP-1713 (oldest first, then `namespace/name`).
    pub created: Option<(i64, u32)>,
    /// `spec.parentRef`, defaulted: the Gateway's namespace and name, or `None` when the
    /// reference is not to a `gateway.networking.k8s.io` Gateway.
    pub parent: Option<(String, String)>,
    /// Listeners, in spec order. Their `allowedRoutes.namespaces: Same` means the
    /// ListenerSet's namespace, and their certificate refs default to it.
    pub listeners: Vec<ListenerIr>,
    /// Set when the ListenerSet fails validation (the channel's CRD markers and CEL rules): it
    /// is left out whole. Its listeners join no Gateway, no route attaches to it, and its
    /// status is `Accepted=False` with reason `Invalid` and this message.
    pub invalid: Option<Invalid>,
}

/// Listener protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ListenerProtocol {
    /// `HTTP`
    #[default]
    Http,
    /// `HTTPS`
    Https,
    /// `TLS` (passthrough or terminate)
    Tls,
    /// `TCP`
    Tcp,
    /// `UDP`
    Udp,
}

impl ListenerProtocol {
    /// Route kinds a listener of this protocol supports by default.
    pub fn default_kinds(self) -> &'static [RouteKind] {
        match self {
            Self::Http | Self::Https => &[RouteKind::Http, RouteKind::Grpc],
            Self::Tls => &[RouteKind::Tls],
            Self::Tcp => &[RouteKind::Tcp],
            Self::Udp => &[RouteKind::Udp],
        }
    }
}

/// Which namespaces a listener admits routes from, resolved at lowering time.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AllowedNamespaces {
    /// Only the Gateway's namespace (the default).
    #[default]
    Same,
    /// Every namespace.
    All,
    /// The namespaces whose labels matched the selector.
    Only(BTreeSet<String>),
}

/// A Gateway listener.
#[derive(Debug, Clone, Default)]
pub struct ListenerIr {
    /// Listener name (`sectionName`).
    pub name: String,
    /// Port.
    pub port: u16,
    /// Protocol.
    pub protocol: ListenerProtocol,
    /// Hostname, if any.
    pub hostname: Option<String>,
    /// `allowedRoutes.namespaces`.
    pub allowed_namespaces: AllowedNamespaces,
    /// `allowedRoutes.kinds` that the listener serves; empty (with no `invalid_kinds`) means
    /// the protocol's default kinds. Read through [`ListenerIr::route_kinds`].
    pub allowed_kinds: Vec<RouteKind>,
    /// `allowedRoutes.kinds` entries the listener cannot serve (a kind gamma-rs does not
    /// know, or one its protocol does not carry), as `group/Kind`, in spec order. They are
    /// reported (`ResolvedRefs=False`, `InvalidRouteKinds`) and never widen the list: a listener
    /// that lists only such kinds admits no route (Gateway API Listener.allowedRoutes).
    pub invalid_kinds: Vec<String>,
    /// The protocol as written, when it is none of HTTP, HTTPS, TLS, TCP, UDP: such a listener
    /// admits no route, binds nothing, and is reported `Accepted=False UnsupportedProtocol`
    /// (Gateway API ListenerConditionReason). `protocol` is then meaningless.
    pub unsupported_protocol: Option<String>,
    /// `tls.certificateRefs`, defaulted (group `""`, kind `Secret`, the Gateway's namespace).
    pub certificate_refs: Vec<CertificateRefIr>,
    /// **\[experimental, v1.7\]** `filters.requests` (GEP-5224), in order: run before route
    /// matching on every HTTP request of the listener; carried on its decisions.
    pub filters: Vec<crate::listener_filter::ListenerFilter>,
    /// The client certificate validation the Gateway's `spec.tls.frontend` gives this listener
    /// (GEP-91; HTTPS listeners of the Gateway itself only), its CA references judged. `None`
    /// when none applies.
    pub client_validation: Option<ClientValidationIr>,
}

/// The client certificate validation of one HTTPS listener: the Gateway's
/// `spec.tls.frontend.perPort` entry for the listener's port, else `spec.tls.frontend.default`
/// (FrontendTLSConfig), with each `caCertificateRefs` entry judged from the input
/// (FrontendTLSValidation.caCertificateRefs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientValidationIr {
    /// The field path of the validation that applies
    /// (`spec.tls.frontend.default.validation`, `spec.tls.frontend.perPort[1].tls.validation`).
    pub path: String,
    /// What each `caCertificateRefs` entry resolved to, in spec order.
    pub refs: Vec<CaRefVerdict>,
}

impl ClientValidationIr {
    /// The entries that cannot be used: (listener `ResolvedRefs` reason, message naming the
    /// entry and why), in spec order.
    pub fn problems(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.refs.iter().filter_map(|r| match r {
            CaRefVerdict::Usable => None,
            CaRefVerdict::Invalid { reason, message } => Some((*reason, message.as_str())),
        })
    }

    /// Whether every entry is unusable: the listener is then not accepted, with reason
    /// `NoValidCACertificate` ("If ALL CACertificateRefs are invalid, the implementation MUST
    /// also ensure the `Accepted` condition on the listener is set to `status: False`").
    pub fn none_valid(&self) -> bool {
        !self.refs.is_empty() && self.refs.iter().all(|r| *r != CaRefVerdict::Usable)
    }
}

/// What one frontend `caCertificateRefs` entry resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CaRefVerdict {
    /// A CA bundle the listener can use: a core ConfigMap with a non-empty `ca.crt`, or a
    /// ClusterTrustBundle with a PEM certificate, or one the input cannot judge (a
    /// ClusterTrustBundle while the input does not hold them all).
    Usable,
    /// An entry that cannot be used, with the listener `ResolvedRefs` reason
    /// (`InvalidCACertificateRef`, `InvalidCACertificateKind`, `RefNotPermitted`) and a message
    /// naming the entry by its field path.
    Invalid {
        /// The reason.
        reason: &'static str,
        /// Which entry, and why.
        message: String,
    },
}

/// A listener's `tls.certificateRefs` entry after defaulting.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CertificateRefIr {
    /// API group (`""`: core).
    pub group: String,
    /// Kind (`Secret`).
    pub kind: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// What the input says of the Secret it names (for a core Secret reference).
    pub secret: SecretState,
}

/// What the input says of the Secret a listener certificate reference names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SecretState {
    /// The input does not claim to hold every Secret (a snapshot without
    /// `gamma_model::Snapshot::secrets_complete`, a controller not watching them): the
    /// reference is not checked beyond its kind and ReferenceGrant.
    #[default]
    Unknown,
    /// The input holds every Secret, and not this one.
    Missing,
    /// The Secret exists but cannot serve as a certificate: why (its type, a missing
    /// `tls.crt`/`tls.key` entry).
    Unusable(String),
    /// A `kubernetes.io/tls` Secret with `tls.crt` and `tls.key`.
    Usable,
}

impl ListenerIr {
    /// The route kinds the listener admits: the valid `allowedRoutes.kinds`, else (none
    /// listed) the protocol's default kinds; none for a listener whose list names only kinds
    /// it cannot serve, or whose protocol is unsupported.
    pub fn route_kinds(&self) -> &[RouteKind] {
        if self.unsupported_protocol.is_some() {
            &[]
        } else if self.allowed_kinds.is_empty() && self.invalid_kinds.is_empty() {
            self.protocol.default_kinds()
        } else {
            &self.allowed_kinds
        }
    }
}

/// A ReferenceGrant.
#[derive(Debug, Clone, Default)]
pub struct GrantIr {
    /// Namespace of the grant (the target namespace).
    pub namespace: String,
    /// `from`: (group, kind, namespace).
    pub from: Vec<(String, String, String)>,
    /// `to`: (group, kind, optional name).
    pub to: Vec<(String, String, Option<String>)>,
}

impl GrantIr {
    /// Whether this grant lets a `gateway.networking.k8s.io` object of kind `from_kind` in
    /// namespace `from_ns` refer to the object `to` = (group, kind, namespace, name)
    /// (ReferenceGrantSpec: the grant lives in the target's namespace; a `to` entry without a
    /// name admits every object of its group and kind).
    pub fn permits(&self, from_kind: &str, from_ns: &str, to: (&str, &str, &str, &str)) -> bool {
        let (group, kind, namespace, name) = to;
        self.namespace == namespace
            && self.from.iter().any(|(g, k, ns)| {
                g == gamma_model::gateway::GROUP && k == from_kind && ns == from_ns
            })
            && self
                .to
                .iter()
                .any(|(g, k, n)| g == group && k == kind && n.as_deref().is_none_or(|n| n == name))
    }
}

/// A BackendTLSPolicy (Gateway API BackendTLSPolicySpec): how connections to the backends it
/// targets are made with TLS.
#[derive(Debug, Clone, Default)]
pub struct BackendTlsPolicyIr {
    /// Namespace (the targets' and CA references' too: both are local references).
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `creationTimestamp` as (seconds, nanoseconds) since the epoch: the older policy takes
    /// precedence on a shared target (BackendTLSPolicySpec.targetRefs).
    pub created: Option<(i64, u32)>,
    /// `targetRefs`.
    pub targets: Vec<PolicyTargetIr>,
    /// `validation.hostname`: the SNI, and the name the certificate must match unless
    /// `subject_alt_names` are given.
    pub hostname: String,
    /// `validation.caCertificateRefs`, as written (group `""` is core).
    pub ca_certificate_refs: Vec<CaCertificateRefIr>,
    /// `validation.wellKnownCACertificates` (`System`), when set and not empty.
    pub well_known_ca_certificates: Option<String>,
    /// `validation.subjectAltNames`.
    pub subject_alt_names: Vec<crate::backend_tls::SubjectAltName>,
    /// `options`.
    pub options: Vec<(String, String)>,
    /// Set when the policy failed validation: it applies to nothing and is reported
    /// `Accepted=False` with this reason.
    pub invalid: Option<Invalid>,
}

/// A BackendTLSPolicy `targetRefs` entry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PolicyTargetIr {
    /// API group (`""`: core).
    pub group: String,
    /// Kind (`Service`).
    pub kind: String,
    /// Name.
    pub name: String,
    /// `sectionName`: a Service port name.
    pub section_name: Option<String>,
}

/// A BackendTLSPolicy `caCertificateRefs` entry (a local object reference).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CaCertificateRefIr {
    /// API group (`""`: core).
    pub group: String,
    /// Kind (`ConfigMap`).
    pub kind: String,
    /// Name.
    pub name: String,
}

/// A ClusterTrustBundle, as far as a CA reference reads it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClusterTrustBundleIr {
    /// Name (cluster-scoped).
    pub name: String,
    /// Whether its `trustBundle` holds a PEM certificate.
    pub has_pem: bool,
}

/// A ConfigMap, as far as a CA reference reads it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConfigMapIr {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Whether it holds a non-empty `ca.crt` entry in `data`.
    pub has_ca_certificate: bool,
}

/// Why a route, rule or parent is not usable, with the upstream reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// Upstream reason (`UnsupportedValue`, `IncompatibleFilters`, ...).
    pub reason: &'static str,
    /// Human-readable message with the field path.
    pub message: String,
}

/// A route of any kind, with CRD defaults applied.
#[derive(Debug, Clone)]
pub struct RouteIr {
    /// Kind.
    pub kind: RouteKind,
    /// Namespace.
    pub namespace: IrString,
    /// Name.
    pub name: IrString,
    /// `creationTimestamp` as (seconds, nanoseconds) since the epoch.
    pub created: Option<(i64, u32)>,
    /// `spec.hostnames` (HTTP, GRPC, TLS).
    pub hostnames: Vec<String>,
    /// `spec.parentRefs`.
    pub parents: Vec<ParentRefIr>,
    /// Rules (TCP/UDP/TLS routes have exactly one in v1).
    pub rules: Vec<RuleIr>,
    /// Set when the whole route failed validation: it is excluded and reported.
    pub invalid: Option<Invalid>,
}

/// A parentRef after defaulting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParentRefIr {
    /// What kind of parent.
    pub kind: ParentRefKind,
    /// Namespace (defaulted to the route's).
    pub namespace: IrString,
    /// Name.
    pub name: IrString,
    /// `sectionName`.
    pub section_name: Option<IrString>,
    /// `port`.
    pub port: Option<u16>,
}

/// Kinds of parents the engine knows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParentRefKind {
    /// Core Service (`group: ""`).
    Service,
    /// `gateway.networking.k8s.io/Gateway`.
    Gateway,
    /// `gateway.networking.k8s.io/ListenerSet` (GEP-1713).
    ListenerSet,
    /// Anything else, as `group/kind`.
    Other(String),
}

/// A string condition.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StrMatch {
    /// Byte-exact.
    Exact(IrString),
    /// Regular expression, full match.
    Regex(IrString),
}

/// A path condition.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PathMatchIr {
    /// `Exact`.
    Exact(IrString),
    /// `PathPrefix`.
    Prefix(IrString),
    /// `RegularExpression`.
    Regex(IrString),
}

/// One match of a rule (HTTP or gRPC shape).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MatchIr {
    /// HTTPRoute match.
    Http {
        /// Path.
        path: PathMatchIr,
        /// Method.
        method: Option<IrString>,
        /// Header conditions (names as written; duplicates are handled by the compiler).
        headers: Vec<(IrString, StrMatch)>,
        /// Query conditions.
        query: Vec<(IrString, StrMatch)>,
    },
    /// GRPCRoute match.
    Grpc {
        /// Service condition.
        service: Option<StrMatch>,
        /// Method condition.
        method: Option<StrMatch>,
        /// Header conditions.
        headers: Vec<(IrString, StrMatch)>,
    },
}

/// Header edits of a header-modifier filter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HeaderEdits {
    /// `set`: replace the value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub set: Vec<(String, String)>,
    /// `add`: append a value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub add: Vec<(String, String)>,
    /// `remove`: header names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remove: Vec<String>,
}

impl HeaderEdits {
    /// No edits (the same as `HeaderEdits::default()`, usable in a `const` or `static`).
    pub const fn new() -> Self {
        HeaderEdits {
            set: Vec::new(),
            add: Vec::new(),
            remove: Vec::new(),
        }
    }

    /// True when nothing is edited.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.add.is_empty() && self.remove.is_empty()
    }
}

/// A path modifier (owned form of [`crate::rewrite::PathModifier`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathModifierIr {
    /// `ReplaceFullPath`.
    Full(String),
    /// `ReplacePrefixMatch`.
    Prefix(String),
}

/// A `RequestRedirect` filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedirectIr {
    /// `scheme`.
    pub scheme: Option<crate::request::Scheme>,
    /// `hostname`.
    pub hostname: Option<String>,
    /// `port`.
    pub port: Option<u16>,
    /// `path`.
    pub path: Option<PathModifierIr>,
    /// `statusCode` (default 302).
    pub status: u16,
}

/// A `URLRewrite` filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RewriteIr {
    /// `hostname`.
    pub hostname: Option<String>,
    /// `path`.
    pub path: Option<PathModifierIr>,
}

/// A `RequestMirror` filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorIr {
    /// The mirror backend.
    pub backend: BackendIr,
    /// Fraction of requests mirrored, as (numerator, denominator).
    pub fraction: (u32, u32),
}

/// Filters of a rule or backendRef, grouped by type (each non-repeatable type at most once;
/// validation rejects repeats).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FiltersIr {
    /// `RequestHeaderModifier`.
    pub request_headers: HeaderEdits,
    /// `ResponseHeaderModifier`.
    pub response_headers: HeaderEdits,
    /// `RequestRedirect`.
    pub redirect: Option<RedirectIr>,
    /// `URLRewrite`.
    pub rewrite: Option<RewriteIr>,
    /// `RequestMirror` filters.
    pub mirrors: Vec<MirrorIr>,
    /// `CORS`, kept as its JSON form.
    pub cors: Option<serde_json::Value>,
    /// `ExtensionRef`s, as `group/kind/name`.
    pub extensions: Vec<String>,
}

/// The filters of a rule or backendRef, held only when there are any.
///
/// Most rules and backendRefs have no filters, and a [`FiltersIr`] is several hundred bytes:
/// inline, it would make every lowered rule and backendRef that large, and a route's rule list
/// a large allocation (costly to allocate and to free in a build of thousands of rules). An
/// empty `Filters` holds nothing; it reads as an empty [`FiltersIr`] through [`Deref`]
/// (`rule.filters.redirect`), and [`DerefMut`] makes room on the first write.
///
/// [`Deref`]: std::ops::Deref
/// [`DerefMut`]: std::ops::DerefMut
#[derive(Debug, Clone, Default)]
pub struct Filters(Option<Box<FiltersIr>>);

/// Filters are equal when they read alike: nothing held equals an empty `FiltersIr` held.
impl PartialEq for Filters {
    fn eq(&self, other: &Filters) -> bool {
        **self == **other
    }
}

impl Eq for Filters {}

/// What an empty [`Filters`] reads as.
pub(crate) static NO_FILTERS: FiltersIr = FiltersIr {
    request_headers: HeaderEdits::new(),
    response_headers: HeaderEdits::new(),
    redirect: None,
    rewrite: None,
    mirrors: Vec::new(),
    cors: None,
    extensions: Vec::new(),
};

impl Filters {
    /// Whether there are no filters (nothing is held).
    pub fn is_empty(&self) -> bool {
        self.0.as_deref().is_none_or(|f| *f == NO_FILTERS)
    }
}

impl From<FiltersIr> for Filters {
    fn from(f: FiltersIr) -> Self {
        if f == NO_FILTERS {
            Filters(None)
        } else {
            Filters(Some(Box::new(f)))
        }
    }
}

impl std::ops::Deref for Filters {
    type Target = FiltersIr;

    fn deref(&self) -> &FiltersIr {
        self.0.as_deref().unwrap_or(&NO_FILTERS)
    }
}

impl std::ops::DerefMut for Filters {
    fn deref_mut(&mut self) -> &mut FiltersIr {
        self.0.get_or_insert_with(Box::default)
    }
}

/// A backendRef after defaulting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendIr {
    /// Group (default `""`). Borrowed for the core group, as the IR gives it.
    pub group: Cow<'static, str>,
    /// Kind (default `Service`). Borrowed for `Service`, as the IR gives it: no allocation
    /// for the kind of almost every backendRef.
    pub kind: Cow<'static, str>,
    /// Namespace (default the route's). Shared, as the IR gives it: the backendRefs of a
    /// route that omit their namespace hold the route's one string, not a copy each.
    pub namespace: Arc<str>,
    /// Name.
    pub name: IrString,
    /// Port.
    pub port: Option<u16>,
    /// Weight (default 1).
    pub weight: u32,
    /// Filters on this backend.
    pub filters: Filters,
}

/// A rule's matches: one held inline (a rule has one match more often than not), more on the
/// heap. Build one with [`smallvec!`](crate::input::smallvec), from a `Vec` with `.into()`, or
/// collect one; it reads as a slice.
///
/// ```
/// use gamma_resolve::input::{Matches, MatchIr, PathMatchIr, smallvec};
///
/// let prefix = |p: &str| MatchIr::Http {
///     path: PathMatchIr::Prefix(p.into()),
///     method: None,
///     headers: vec![],
///     query: vec![],
/// };
/// let one: Matches = smallvec![prefix("/api")];
/// assert!(!one.spilled()); // no heap block for the common rule
/// let two: Matches = vec![prefix("/a"), prefix("/b")].into();
/// assert_eq!(two.len(), 2);
/// ```
pub type Matches = SmallVec<[MatchIr; 1]>;

/// A rule's backendRefs: up to two held inline, more on the heap. Built and read as
/// [`Matches`] are.
pub type Backends = SmallVec<[BackendIr; 2]>;

/// One rule, with defaults applied (a rule without matches has the default match).
#[derive(Debug, Clone, Default)]
pub struct RuleIr {
    /// `name`.
    pub name: Option<String>,
    /// Matches (ORed); empty for TLS/TCP/UDP rules.
    pub matches: Matches,
    /// Rule filters.
    pub filters: Filters,
    /// backendRefs.
    pub backends: Backends,
    /// Timeouts (GEP-1742), forwarded in decisions.
    pub timeouts: Option<crate::timing::RuleTimeouts>,
    /// Retry policy (GEP-1731), forwarded in decisions.
    pub retry: Option<crate::timing::RetryPolicy>,
    /// Set when the rule is unusable (dropped, `PartiallyInvalid`).
    pub invalid: Option<Invalid>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_filters_hold_nothing_and_read_as_no_filters() {
        let none = Filters::default();
        assert!(none.is_empty());
        assert!(none.redirect.is_none() && none.extensions.is_empty());
        // an empty FiltersIr is not boxed
        assert!(Filters::from(FiltersIr::default()).0.is_none());
    }

    #[test]
    fn a_first_write_makes_room_and_the_filters_keep_it() {
        let mut f = Filters::default();
        f.extensions.push("example.com/Auth/a".into());
        assert!(!f.is_empty());
        assert_eq!(f.extensions, ["example.com/Auth/a"]);
        let held = Filters::from(FiltersIr {
            extensions: vec!["example.com/Auth/a".into()],
            ..FiltersIr::default()
        });
        assert_eq!(f, held);
    }

    #[test]
    fn filters_compare_by_what_they_read_as() {
        // a mutable borrow that writes nothing leaves an empty FiltersIr held: still equal
        let mut touched = Filters::default();
        let _ = &mut touched.mirrors;
        assert!(touched.is_empty());
        assert_eq!(touched, Filters::default());
        assert_ne!(
            Filters::default(),
            Filters::from(FiltersIr {
                cors: Some(serde_json::json!({})),
                ..FiltersIr::default()
            })
        );
    }
}
