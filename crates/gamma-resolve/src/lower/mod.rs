//! Lowering (layer 4): a [`Snapshot`] into [`TableInput`]: routes translated from their
//! [`gamma_model::ir`] conversion (defaults and validation applied there, once; see
//! [`route`]; valid plain HTTPRoutes match by match in [`plain`]), label selectors resolved
//! against Namespace labels, EndpointSlice readiness summarised ([`endpoints`]), and the
//! lowered routes a table keeps for later builds ([`kept`]).
//!
//! May use: the vocabulary, the input, the regex pool, the listener helpers and the
//! Gateway status reasons; never the table or anything above it.

mod endpoints;
pub(crate) mod frontend_tls;
mod kept;
mod plain;
mod route;

pub(crate) use endpoints::{endpoints, endpoints_with};
pub(crate) use kept::{Lowered, kept_route, kept_verdict};

use std::collections::BTreeSet;
use std::sync::Arc;

use gamma_model::Snapshot;
use gamma_model::Validate;
use gamma_model::gateway::{
    AllowedListeners, BackendTlsPolicy, FromNamespaces, LabelSelector, Listener,
    ListenerFilterType, ListenerSet, SubjectAltNameType,
};
use gamma_model::meta::ObjectMeta;
use gamma_model::validate::ValidateOptions;

use crate::input::*;
use crate::listener_filter::{ExtensionRef, ListenerFilter};
use crate::regex::RegexPool;
use gamma_model::{ResourceKind, RouteKind};

fn ns_of(meta: &ObjectMeta) -> String {
    meta.namespace_or_default().to_string()
}

fn created(meta: &ObjectMeta) -> Option<(i64, u32)> {
    meta.creation_timestamp
        .map(|t| (t.unix_seconds(), t.subsec_nanos()))
}

/// Lowers a snapshot into the engine's input.
pub fn lower(snapshot: &Snapshot) -> TableInput {
    lower_with(snapshot, &ValidateOptions::default())
}

/// [`lower`] validating routes against `opts` (the channel whose CRD rules apply): a route
/// invalid under them is left out of the table, and says so ([`crate::RouteTable::left_out_at`]).
pub fn lower_with(snapshot: &Snapshot, opts: &ValidateOptions) -> TableInput {
    lower_into(
        snapshot,
        &Lowering::new(opts, None),
        &mut RegexPool::default(),
    )
}

/// What lowering reads besides the objects: the validation options (each kind's bundle; header
/// values with CR, LF or NUL always refused, [`lowering_options`]), and what the embedder
/// declares it supports ([`crate::BuildOptions::gateway_parameter_kinds`]), which is no part of
/// object validation. Derefs to its validation options.
#[derive(Debug, Clone)]
pub(crate) struct Lowering {
    validate: ValidateOptions,
    gateway_parameter_kinds: Option<Vec<(String, String)>>,
}

impl Lowering {
    /// `validate` as every lowering uses it, with the embedder's parameters kinds.
    pub(crate) fn new(
        validate: &ValidateOptions,
        gateway_parameter_kinds: Option<Vec<(String, String)>>,
    ) -> Self {
        Lowering {
            validate: lowering_options(validate),
            gateway_parameter_kinds,
        }
    }
}

impl std::ops::Deref for Lowering {
    type Target = ValidateOptions;
    fn deref(&self) -> &ValidateOptions {
        &self.validate
    }
}

/// Lowers one route (`None` for a resource that is not a route) as [`lower_with`] lowers the
/// routes of a snapshot: for embedders and tools that look at one object, e.g. to show how a
/// route will be served before it is applied.
pub fn lower_route(resource: &gamma_model::AnyResource, opts: &ValidateOptions) -> Option<RouteIr> {
    route::lower_checked_route(
        resource,
        &lowering_options(opts),
        false,
        &mut RegexPool::default(),
    )
}

/// [`lower_with`], validating the routes' regexes by compiling them into `regexes`: the
/// table's pool when building from a snapshot, so the table reuses them instead of compiling
/// each regex a second time.
pub(crate) fn lower_into(
    snapshot: &Snapshot,
    opts: &Lowering,
    regexes: &mut RegexPool,
) -> TableInput {
    let mut input = lower_all_but_routes(snapshot, opts);
    for kind in ROUTE_ORDER {
        for (r, valid) in snapshot.validated_routes(kind.resource_kind(), opts) {
            input
                .routes
                .extend(route::lower_checked_route(r, opts, valid, regexes));
        }
    }
    input
}

/// The rules of the routes of a [`lower_reading`] input that the build reads in place, by
/// route index (`None`: lowered with the route).
pub(crate) type WireRules<'s> = Vec<Option<&'s [gamma_model::gateway::HttpRouteRule]>>;

/// [`lower_into`] without the rules of the valid HTTPRoutes the build can read in place from
/// `snapshot` (`build::read`): those routes are lowered without rules, and their rules are
/// in the second value at the route's index. For a build that does not keep the lowered
/// routes; it gives the table [`lower_into`] gives.
pub(crate) fn lower_reading<'s>(
    snapshot: &'s Snapshot,
    opts: &Lowering,
    regexes: &mut RegexPool,
) -> (TableInput, WireRules<'s>) {
    let mut input = lower_all_but_routes(snapshot, opts);
    let mut wire = Vec::new();
    for kind in ROUTE_ORDER {
        for (r, valid) in snapshot.validated_routes(kind.resource_kind(), opts) {
            if let Some((ir, rules)) = lower_for_reading(r, opts, valid, regexes) {
                input.routes.push(ir);
                wire.push(rules);
            }
        }
    }
    (input, wire)
}

/// Route `r` (`valid`: the snapshot's verdict under `opts`) lowered, without its rules when
/// the build can read them in place (a valid HTTPRoute `lower::plain` admits): those are
/// returned beside it. `None` for a resource that is not a route.
pub(crate) fn lower_for_reading<'s>(
    r: &'s gamma_model::AnyResource,
    opts: &ValidateOptions,
    valid: bool,
    regexes: &mut RegexPool,
) -> Option<(RouteIr, Option<&'s [gamma_model::gateway::HttpRouteRule]>)> {
    if valid
        && let gamma_model::AnyResource::HttpRoute(route) = r
        && let Some(view) = r.as_route()
        && let Some((ir, rules)) = plain::route_for_reading(view, route, regexes)
    {
        return Some((ir, Some(rules)));
    }
    route::lower_checked_route(r, opts, valid, regexes).map(|ir| (ir, None))
}

/// The rules of `r` as a build reads them in place (for a route [`lower_for_reading`] lowered
/// without them, and kept so).
pub(crate) fn rules_in_place(
    r: &gamma_model::AnyResource,
) -> Option<&[gamma_model::gateway::HttpRouteRule]> {
    match r {
        gamma_model::AnyResource::HttpRoute(route) => route.spec.rules.as_deref(),
        _ => None,
    }
}

/// Routes are lowered in kind order (HTTP, gRPC, TLS, TCP, UDP), each on its own; the snapshot
/// keeps each route's validation verdict, so a route is validated once, not per build.
const ROUTE_ORDER: [RouteKind; 5] = [
    RouteKind::Http,
    RouteKind::Grpc,
    RouteKind::Tls,
    RouteKind::Tcp,
    RouteKind::Udp,
];

/// The lowered routes of a snapshot, shared (`Arc`), with the stored object of each and the
/// rules of those the build reads in place ([`lower_for_reading`]), in the same order.
pub(crate) type SharedRoutes<'s> = (
    Vec<Arc<RouteIr>>,
    Vec<Arc<gamma_model::AnyResource>>,
    WireRules<'s>,
);

/// [`lower_reading`] with the routes held by `Arc`, each with its stored object (to be
/// kept in the table: [`crate::BuildOptions::keep_lowered_routes`]); a route that `kept`
/// holds lowered from the object the snapshot holds is taken from it, not lowered again.
pub(crate) fn lower_sharing<'s>(
    snapshot: &'s Snapshot,
    opts: &Lowering,
    regexes: &mut RegexPool,
    kept: &[&Lowered],
) -> (TableInput, SharedRoutes<'s>) {
    let bundles = opts.as_bundles();
    let input = lower_all_but_routes(snapshot, opts);
    let (mut routes, mut objects, mut wire) = (Vec::new(), Vec::new(), Vec::new());
    for kind in ROUTE_ORDER {
        for (r, valid) in snapshot.validated_routes(kind.resource_kind(), opts) {
            if let Some((ir, in_place)) = kept_route(kept, &bundles, r) {
                routes.push(Arc::clone(ir));
                wire.push(in_place.then(|| rules_in_place(r)).flatten());
            } else if let Some((ir, rules)) = lower_for_reading(r, opts, valid, regexes) {
                routes.push(Arc::new(ir));
                wire.push(rules);
            } else {
                continue;
            }
            objects.push(Arc::clone(r));
        }
    }
    (input, (routes, objects, wire))
}

/// Everything of a snapshot but its routes, lowered (`opts`: the lowering options).
fn lower_all_but_routes(snapshot: &Snapshot, opts: &Lowering) -> TableInput {
    let mut input = TableInput::default();
    for svc in snapshot.services() {
        input.services.push(lower_service(snapshot, svc));
    }
    for gw in snapshot.gateways() {
        input
            .gateways
            .push(lower_checked_gateway(snapshot, gw, opts));
    }
    for ls in snapshot.listener_sets() {
        input
            .listener_sets
            .push(lower_checked_listener_set(snapshot, ls, opts));
    }
    for g in snapshot.reference_grants() {
        input.grants.push(lower_grant(g));
    }
    lower_backend_tls(snapshot, opts, &mut input);
    input
}

/// Whether a BackendTLSPolicy `caCertificateRefs` entry of this group and kind is a core
/// ConfigMap, the one kind gamma-rs reads a CA bundle from: the build's check of the policy
/// and the incremental scope of a ConfigMap change both ask here, so they never disagree.
pub(crate) fn is_core_config_map(group: &str, kind: &str) -> bool {
    group.is_empty() && kind == "ConfigMap"
}

/// Every BackendTLSPolicy, ConfigMap and ClusterTrustBundle of the snapshot into `input` (few;
/// an incremental update reads them all).
pub(crate) fn lower_backend_tls(
    snapshot: &Snapshot,
    opts: &ValidateOptions,
    input: &mut TableInput,
) {
    for p in snapshot.backend_tls_policies() {
        input
            .backend_tls_policies
            .push(lower_backend_tls_policy(p, opts));
    }
    input.cluster_trust_bundles_complete = snapshot.cluster_trust_bundles_complete();
    for b in snapshot.cluster_trust_bundles() {
        input.cluster_trust_bundles.push(ClusterTrustBundleIr {
            name: b.metadata.name.clone(),
            has_pem: b.ca_problem().is_none(),
        });
    }
    for cm in snapshot.config_maps() {
        input.config_maps.push(ConfigMapIr {
            namespace: ns_of(&cm.metadata),
            name: cm.metadata.name.clone(),
            has_ca_certificate: cm.ca_certificate().is_some(),
        });
    }
}

/// A BackendTLSPolicy with its references as written; one that fails validation (CRD markers
/// and CEL rules of the channel) applies to nothing and is reported `Invalid`.
fn lower_backend_tls_policy(p: &BackendTlsPolicy, opts: &ValidateOptions) -> BackendTlsPolicyIr {
    let v = &p.spec.validation;
    BackendTlsPolicyIr {
        namespace: ns_of(&p.metadata),
        name: p.metadata.name.clone(),
        created: created(&p.metadata),
        targets: p
            .spec
            .target_refs
            .iter()
            .map(|t| PolicyTargetIr {
                group: t.group.clone(),
                kind: t.kind.clone(),
                name: t.name.clone(),
                section_name: t.section_name.clone().filter(|s| !s.is_empty()),
            })
            .collect(),
        hostname: v.hostname.clone(),
        ca_certificate_refs: v
            .ca_refs()
            .iter()
            .map(|c| CaCertificateRefIr {
                group: c.group.clone(),
                kind: c.kind.clone(),
                name: c.name.clone(),
            })
            .collect(),
        well_known_ca_certificates: v
            .well_known_ca_certificates
            .clone()
            .filter(|w| !w.is_empty()),
        subject_alt_names: v
            .subject_alt_names
            .iter()
            .filter_map(|san| match san.type_ {
                SubjectAltNameType::Hostname => san
                    .hostname
                    .clone()
                    .map(crate::backend_tls::SubjectAltName::Hostname),
                SubjectAltNameType::Uri => {
                    san.uri.clone().map(crate::backend_tls::SubjectAltName::Uri)
                }
                _ => None,
            })
            .collect(),
        options: p
            .spec
            .options
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        invalid: p
            .validate_with(&opts.for_kind(ResourceKind::BackendTlsPolicy))
            .err()
            .and_then(|e| {
                e.errors().first().map(|first| Invalid {
                    reason: crate::backend_tls::INVALID,
                    message: first.to_string(),
                })
            }),
    }
}

/// Lowers one Service (ports, cluster IPs, readiness from its EndpointSlices).
pub(crate) fn lower_service(snapshot: &Snapshot, svc: &gamma_model::k8s::Service) -> ServiceIr {
    let ns = ns_of(&svc.metadata);
    let external_name = svc
        .spec
        .type_
        .as_ref()
        .is_some_and(|t| t.as_str() == "ExternalName");
    let slices: Vec<_> = snapshot
        .endpoint_slices_for(&ns, &svc.metadata.name)
        .collect();
    let ready = (!slices.is_empty()).then(|| slices.iter().any(|s| s.has_ready_endpoint()));
    ServiceIr {
        namespace: ns,
        name: svc.metadata.name.clone(),
        cluster_ips: svc.frontend_ips(),
        headless: svc.is_headless(),
        external_name,
        ports: service_ports(svc)
            .map(|(p, port, protocol)| ServicePortIr {
                name: p.name.clone(),
                port,
                protocol,
                app_protocol: p.app_protocol.clone(),
            })
            .collect(),
        ready,
        endpoints: endpoints(svc, &slices),
    }
}

/// The ports of `svc` that carry routes, with their number and transport: TCP (the default)
/// and UDP; SCTP and unknown protocols carry none here. What [`lower_service`] lowers, for a
/// caller that needs only the keys a Service binds (without its EndpointSlices).
pub(crate) fn service_ports(
    svc: &gamma_model::k8s::Service,
) -> impl Iterator<Item = (&gamma_model::k8s::ServicePort, u16, L4)> {
    svc.spec.ports.iter().filter_map(|p| {
        let protocol = match p.protocol.as_deref() {
            None | Some("TCP") => L4::Tcp,
            Some("UDP") => L4::Udp,
            Some(_) => return None,
        };
        Some((p, u16::try_from(p.port).ok()?, protocol))
    })
}

/// [`lower_gateway`] with its validation verdict: a Gateway the API server would refuse under
/// `opts` (the channel's CRDs) is marked [`GatewayIr::invalid`], with its first error. The same
/// question as for a route (one verdict per object, `docs/validation.md`).
pub(crate) fn lower_checked_gateway(
    snapshot: &Snapshot,
    gw: &gamma_model::gateway::Gateway,
    opts: &Lowering,
) -> GatewayIr {
    let mut g = lower_gateway(snapshot, gw);
    // under the Gateway CRD's own bundle
    g.invalid = first_error(gw.validate_with(&opts.for_kind(ResourceKind::Gateway)))
        .or_else(|| invalid_parameters(snapshot, gw, opts));
    g
}

/// Gateway `spec.infrastructure.parametersRef`, judged from what gamma-rs is given
/// (GatewayInfrastructure.parametersRef: "If the referent cannot be found, refers to an
/// unsupported kind, or when the data within that resource is malformed, the Gateway SHOULD
/// be rejected with the "Accepted" status condition set to "False" and an "InvalidParameters"
/// reason"): a kind outside the embedder's supported kinds
/// ([`crate::BuildOptions::gateway_parameter_kinds`], when set), or a core `ConfigMap` the snapshot
/// does not hold in the Gateway's namespace. Another kind the embedder supports is its own to
/// resolve (gamma-rs has no input for it), and the data of a ConfigMap is the embedder's to
/// judge.
fn invalid_parameters(
    snapshot: &Snapshot,
    gw: &gamma_model::gateway::Gateway,
    opts: &Lowering,
) -> Option<Invalid> {
    let r = gw.spec.infrastructure.as_ref()?.parameters_ref.as_ref()?;
    let invalid = |message: String| {
        Some(Invalid {
            reason: crate::gateway_status::INVALID_PARAMETERS,
            message,
        })
    };
    let supported = opts
        .gateway_parameter_kinds
        .as_ref()
        .is_none_or(|kinds| kinds.iter().any(|(g, k)| *g == r.group && *k == r.kind));
    let group = if r.group.is_empty() { "core" } else { &r.group };
    if !supported {
        return invalid(format!(
            "spec.infrastructure.parametersRef: {group}/{} is not a supported kind",
            r.kind
        ));
    }
    let ns = ns_of(&gw.metadata);
    if is_core_config_map(&r.group, &r.kind) && snapshot.config_map(&ns, &r.name).is_none() {
        return invalid(format!(
            "spec.infrastructure.parametersRef: ConfigMap {ns}/{} does not exist",
            r.name
        ));
    }
    None
}

/// [`listener_set`] with its validation verdict ([`ListenerSetIr::invalid`]), as
/// [`lower_checked_gateway`].
pub(crate) fn lower_checked_listener_set(
    snapshot: &Snapshot,
    ls: &ListenerSet,
    opts: &ValidateOptions,
) -> ListenerSetIr {
    let mut l = listener_set(snapshot, ls);
    l.invalid = first_error(ls.validate_with(&opts.for_kind(ResourceKind::ListenerSet)));
    l
}

/// The first validation error of a Gateway or ListenerSet, as its `Invalid` verdict.
fn first_error(r: Result<(), gamma_model::ValidationErrors>) -> Option<Invalid> {
    let errors = r.err()?;
    let first = errors.errors().first()?;
    Some(Invalid {
        reason: crate::gateway_status::INVALID,
        message: first.to_string(),
    })
}

/// Lowers one Gateway (addresses, listeners with their namespace selectors resolved), without
/// validating it (see [`lower_checked_gateway`]).
pub(crate) fn lower_gateway(snapshot: &Snapshot, gw: &gamma_model::gateway::Gateway) -> GatewayIr {
    let ns = ns_of(&gw.metadata);
    let addresses = gw.frontend_addresses();
    let listeners = gw
        .spec
        .listeners
        .iter()
        .filter_map(|l| listener(snapshot, &ns, l))
        .map(|mut l| {
            if l.protocol == ListenerProtocol::Https && l.unsupported_protocol.is_none() {
                l.client_validation = frontend_tls::client_validation(snapshot, gw, &ns, l.port);
            }
            l
        })
        .collect();
    GatewayIr {
        namespace: ns,
        name: gw.metadata.name.clone(),
        addresses,
        allowed_listeners: allowed_listeners(snapshot, gw.spec.allowed_listeners.as_ref()),
        listeners,
        invalid: None,
        insecure_frontend_validation: frontend_tls::insecure_fallbacks(gw),
    }
}

/// Gateway `spec.allowedListeners.namespaces`: absent, `from: None` and unknown values admit
/// no ListenerSet (Gateway API AllowedListeners: "The default value is to allow no
/// ListenerSets").
fn allowed_listeners(
    snapshot: &Snapshot,
    allowed: Option<&AllowedListeners>,
) -> Option<AllowedNamespaces> {
    let ns = allowed.and_then(|a| a.namespaces.as_ref())?;
    match ns.from.as_ref()? {
        FromNamespaces::Same => Some(AllowedNamespaces::Same),
        FromNamespaces::All => Some(AllowedNamespaces::All),
        FromNamespaces::Selector => Some(AllowedNamespaces::Only(select_namespaces(
            snapshot,
            ns.selector.as_ref(),
        ))),
        _ => None,
    }
}

/// A ListenerSet with its parentRef defaulted (group `gateway.networking.k8s.io`, kind
/// `Gateway`, the ListenerSet's namespace) and its listeners lowered as a Gateway's are, in the
/// ListenerSet's namespace.
pub(crate) fn listener_set(snapshot: &Snapshot, ls: &ListenerSet) -> ListenerSetIr {
    let ns = ns_of(&ls.metadata);
    let p = &ls.spec.parent_ref;
    let group = p.group.as_deref().unwrap_or(gamma_model::gateway::GROUP);
    let kind = p.kind.as_deref().unwrap_or("Gateway");
    let parent = (group == gamma_model::gateway::GROUP && kind == "Gateway").then(|| {
        (
            p.namespace.clone().unwrap_or_else(|| ns.clone()),
            p.name.clone(),
        )
    });
    let listeners = ls
        .spec
        .listeners
        .iter()
        .filter_map(|l| listener(snapshot, &ns, l))
        .collect();
    ListenerSetIr {
        created: created(&ls.metadata),
        name: ls.metadata.name.clone(),
        namespace: ns,
        parent,
        listeners,
        invalid: None,
    }
}

/// Lowers one ReferenceGrant.
pub(crate) fn lower_grant(g: &gamma_model::gateway::ReferenceGrant) -> GrantIr {
    GrantIr {
        namespace: ns_of(&g.metadata),
        from: g
            .spec
            .iter()
            .flat_map(|s| s.from.iter())
            .map(|f| (f.group.clone(), f.kind.clone(), f.namespace.clone()))
            .collect(),
        to: g
            .spec
            .iter()
            .flat_map(|s| s.to.iter())
            .map(|t| (t.group.clone(), t.kind.clone(), t.name.clone()))
            .collect(),
    }
}

/// The validation options every lowering uses: the caller's, with header values carrying
/// CR, LF or NUL always refused.
pub(crate) fn lowering_options(opts: &ValidateOptions) -> ValidateOptions {
    // Header values with CR, LF or NUL are never programmed, on either channel and whatever
    // the caller's options: the rule is refused (UnsupportedValue, naming the field), which the
    // standard CRD leaves to us. Header injection is not a validation preference.
    let mut opts = opts.clone();
    opts.refuse_control_characters = true;
    opts
}

/// What the snapshot says of Secret `namespace/name`: [`SecretState::Unknown`] unless it
/// holds every Secret ([`Snapshot::secrets_complete`], set by whoever collected it: Secrets are
/// optional input, gamma-kube watches them only when asked), however many it holds.
/// The core Secret (namespace, name) a listener `certificateRefs` entry names, with the
/// defaults of SecretObjectReference (group `""`, kind `Secret`, the listener's namespace);
/// `None` for another kind. Lowering and incremental updates both read references by it.
pub(crate) fn certificate_secret<'a>(
    c: &'a gamma_model::gateway::SecretObjectReference,
    listener_ns: &'a str,
) -> Option<(&'a str, &'a str)> {
    (c.group.as_deref().unwrap_or_default().is_empty()
        && c.kind.as_deref().unwrap_or("Secret") == "Secret")
        .then(|| (c.namespace.as_deref().unwrap_or(listener_ns), &*c.name))
}

fn secret_state(snapshot: &Snapshot, namespace: &str, name: &str) -> SecretState {
    if !snapshot.secrets_complete() {
        return SecretState::Unknown;
    }
    match snapshot.secret(namespace, name) {
        None => SecretState::Missing,
        Some(s) => match s.tls_certificate_problem() {
            Some(why) => SecretState::Unusable(why),
            None => SecretState::Usable,
        },
    }
}

fn listener(snapshot: &Snapshot, gw_ns: &str, l: &Listener) -> Option<ListenerIr> {
    let (protocol, unsupported_protocol) = match l.protocol.as_str() {
        "HTTP" => (ListenerProtocol::Http, None),
        "HTTPS" => (ListenerProtocol::Https, None),
        "TLS" => (ListenerProtocol::Tls, None),
        "TCP" => (ListenerProtocol::Tcp, None),
        "UDP" => (ListenerProtocol::Udp, None),
        // implementation-specific protocols are not ours to serve: kept, so that the listener
        // is reported and routes naming it are NotAllowedByListeners
        other => (ListenerProtocol::default(), Some(other.to_string())),
    };
    let ar = l.allowed_routes.as_ref();
    let from = ar
        .and_then(|a| a.namespaces.as_ref())
        .and_then(|n| n.from.clone());
    let allowed_namespaces = match from {
        None | Some(FromNamespaces::Same) => AllowedNamespaces::Same,
        Some(FromNamespaces::All) => AllowedNamespaces::All,
        Some(FromNamespaces::Selector) => {
            let sel = ar
                .and_then(|a| a.namespaces.as_ref())
                .and_then(|n| n.selector.clone());
            AllowedNamespaces::Only(select_namespaces(snapshot, sel.as_ref()))
        }
        // `None` and unknown values admit no namespace
        Some(_) => AllowedNamespaces::Only(BTreeSet::new()),
    };
    let certificate_refs = l
        .tls
        .iter()
        .flat_map(|t| t.certificate_refs.iter())
        .map(|c| CertificateRefIr {
            group: c.group.clone().unwrap_or_default(),
            kind: c.kind.clone().unwrap_or_else(|| "Secret".into()),
            namespace: c.namespace.clone().unwrap_or_else(|| gw_ns.to_string()),
            name: c.name.clone(),
            secret: certificate_secret(c, gw_ns).map_or(SecretState::Unknown, |(ns, name)| {
                secret_state(snapshot, ns, name)
            }),
        })
        .collect();
    let (allowed_kinds, invalid_kinds) =
        crate::listener::listener_kinds(protocol, ar.map_or(&[][..], |a| &a.kinds[..]));
    Some(ListenerIr {
        name: l.name.clone(),
        port: u16::try_from(l.port).ok()?,
        protocol,
        hostname: l.hostname.clone(),
        allowed_namespaces,
        allowed_kinds,
        invalid_kinds,
        unsupported_protocol,
        certificate_refs,
        filters: listener_filters(gw_ns, l),
        client_validation: None,
    })
}

/// A listener's `filters.requests` (GEP-5224), lowered: each `externalAuth.backendRef`
/// defaulted (group `""`, kind `Service`, the namespace of the listener's Gateway or
/// ListenerSet). A filter whose type and payload disagree fails validation, which leaves the
/// whole Gateway or ListenerSet out; one that still gets here is skipped.
fn listener_filters(ns: &str, l: &Listener) -> Vec<ListenerFilter> {
    let Some(f) = &l.filters else {
        return Vec::new();
    };
    f.requests
        .iter()
        .filter_map(|r| match r.type_.as_ref()? {
            ListenerFilterType::ExternalAuth => {
                let mut auth = r.external_auth.clone()?;
                let b = &mut auth.backend_ref;
                b.group.get_or_insert_with(String::new);
                b.kind.get_or_insert_with(|| "Service".into());
                b.namespace.get_or_insert_with(|| ns.to_owned());
                Some(ListenerFilter::external_auth(auth))
            }
            ListenerFilterType::ExtensionRef => {
                let e = r.extension_ref.as_ref()?;
                Some(ListenerFilter::extension_ref(ExtensionRef::new(
                    e.group.clone(),
                    e.kind.clone(),
                    e.name.clone(),
                )))
            }
            _ => None,
        })
        .collect()
}

/// Namespaces whose labels satisfy `selector` (a missing selector selects nothing; an
/// unevaluable one, e.g. an unknown operator, selects nothing).
fn select_namespaces(snapshot: &Snapshot, selector: Option<&LabelSelector>) -> BTreeSet<String> {
    let Some(sel) = selector else {
        return BTreeSet::new();
    };
    snapshot
        .namespaces()
        .filter(|n| sel.matches(&n.metadata.labels) == Ok(true))
        .map(|n| n.metadata.name.clone())
        .collect()
}
