//! Gateway, GatewayClass and ListenerSet validation (CRDs at v1.6.1).

use std::collections::HashSet;

use super::common;
use super::patterns as p;
use super::{ErrorKind, Errors, FieldPath, Validate, ValidateOptions};
use crate::gateway::{
    AllowedRoutes, FromNamespaces, Gateway, GatewayClass, GatewaySpecAddress, GatewayStatusAddress,
    Listener, ListenerFilterType, ListenerFilters, ListenerSet, ListenerTlsConfig, TlsModeType,
};

impl Validate for GatewayClass {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, false, errors);
        let spath = path.field("spec");
        errors.gateway_controller(&spath.field("controllerName"), &self.spec.controller_name);
        if let Some(d) = &self.spec.description {
            errors.length(&spath.field("description"), d, 0, 64);
        }
        if let Some(r) = &self.spec.parameters_ref {
            common::object_reference(r, &spath.field("parametersRef"), errors);
        }
    }
}

impl Validate for Gateway {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let spath = path.field("spec");
        let s = &self.spec;
        errors.object_name(&spath.field("gatewayClassName"), &s.gateway_class_name);
        listeners(&s.listeners, &spath.field("listeners"), false, opts, errors);
        addresses(&s.addresses, &spath.field("addresses"), errors);
        if let Some(status) = &self.status {
            status_addresses(
                &status.addresses,
                &path.field("status").field("addresses"),
                errors,
            );
        }
        // `routability` (v1.7, experimental; GEP-3651) has one rule in spec and status.
        let routabilities = s
            .addresses
            .iter()
            .map(|a| (spath.field("addresses"), a.routability.as_deref()))
            .enumerate()
            .chain(self.status.iter().flat_map(|st| {
                st.addresses
                    .iter()
                    .map(|a| {
                        (
                            path.field("status").field("addresses"),
                            a.routability.as_deref(),
                        )
                    })
                    .enumerate()
            }));
        for (i, (list, r)) in routabilities {
            if let Some(r) = r {
                routability(r, &list.index(i).field("routability"), errors);
            }
        }
        if let Some(infra) = &s.infrastructure {
            let ipath = spath.field("infrastructure");
            common::label_map(&infra.labels, &ipath.field("labels"), 8, true, errors);
            common::label_map(
                &infra.annotations,
                &ipath.field("annotations"),
                super::by_release::infrastructure_annotations_max(opts.release),
                false,
                errors,
            );
            if let Some(r) = &infra.parameters_ref {
                common::local_object_ref(r, &ipath.field("parametersRef"), errors);
            }
        }
        if let Some(from) = s
            .allowed_listeners
            .as_ref()
            .and_then(|a| a.namespaces.as_ref())
            .and_then(|n| n.from.as_ref())
        {
            errors.known(
                &spath
                    .field("allowedListeners")
                    .field("namespaces")
                    .field("from"),
                from,
            );
        }
        if let Some(tls) = &s.tls {
            super::gateway_tls::gateway_tls(tls, &spath.field("tls"), opts, errors);
        }
        if let Some(d) = &s.default_scope {
            errors.known(&spath.field("defaultScope"), d);
        }
    }
}

impl Validate for ListenerSet {
    fn collect_errors(&self, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
        common::metadata(&self.metadata, path, true, errors);
        let spath = path.field("spec");
        let r = &self.spec.parent_ref;
        let ppath = spath.field("parentRef");
        if let Some(g) = &r.group {
            errors.group(&ppath.field("group"), g);
        }
        if let Some(k) = &r.kind {
            errors.kind(&ppath.field("kind"), k);
        }
        errors.object_name(&ppath.field("name"), &r.name);
        if let Some(ns) = &r.namespace {
            errors.namespace(&ppath.field("namespace"), ns);
        }
        listeners(
            &self.spec.listeners,
            &spath.field("listeners"),
            true,
            opts,
            errors,
        );
        if let Some(status) = &self.status {
            super::status::listener_set_status(status, &path.field("status"), errors);
        }
    }
}

/// The listener list of a Gateway or ListenerSet: 1–64 listeners, each valid, and the list CEL
/// rules (protocol/tls/hostname compatibility, unique names, unique (port, protocol, hostname)).
fn listeners(
    list: &[Listener],
    path: &FieldPath,
    _listener_set: bool,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    errors.items(path, list.len(), 1, 64);
    for (i, l) in list.iter().enumerate() {
        listener(l, &path.index(i), opts, errors);
    }
    fn proto(l: &Listener) -> &str {
        l.protocol.as_str()
    }
    let mode = |l: &Listener| {
        l.tls
            .as_ref()
            .map(|t| t.mode.clone().unwrap_or(TlsModeType::Terminate))
    };
    if list
        .iter()
        .any(|l| matches!(proto(l), "HTTP" | "TCP" | "UDP") && l.tls.is_some())
    {
        errors.rule(
            path.clone(),
            "tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']",
        );
    }
    if list
        .iter()
        .any(|l| proto(l) == "HTTPS" && mode(l).is_some_and(|m| m != TlsModeType::Terminate))
    {
        errors.rule(
            path.clone(),
            "tls mode must be Terminate for protocol HTTPS",
        );
    }
    // The API server defaults `tls.mode` to Terminate, so only a missing `tls` fails here.
    if list.iter().any(|l| proto(l) == "TLS" && l.tls.is_none()) {
        errors.rule(path.clone(), "tls mode must be set for protocol TLS");
    }
    if list.iter().any(|l| {
        matches!(proto(l), "TCP" | "UDP") && l.hostname.as_deref().is_some_and(|h| !h.is_empty())
    }) {
        errors.rule(
            path.clone(),
            "hostname must not be specified for protocols ['TCP', 'UDP']",
        );
    }
    let mut names = HashSet::new();
    if list.iter().any(|l| !names.insert(l.name.as_str())) {
        errors.rule(
            path.clone(),
            "Listener name must be unique within the Gateway",
        );
    }
    let mut keys = HashSet::new();
    if list
        .iter()
        .any(|l| !keys.insert((l.port, l.protocol.as_str(), l.hostname.as_deref())))
    {
        errors.rule(
            path.clone(),
            "Combination of port, protocol and hostname must be unique for each listener",
        );
    }
}

fn listener(l: &Listener, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
    errors.section_name(&path.field("name"), &l.name);
    if let Some(h) = &l.hostname {
        errors.hostname(&path.field("hostname"), h);
    }
    errors.port(&path.field("port"), l.port);
    let ppath = path.field("protocol");
    if errors.length(&ppath, &l.protocol, 1, 255) {
        errors.pattern(
            &ppath,
            &l.protocol,
            p::is_protocol_type,
            p::PROTOCOL_TYPE_PATTERN,
        );
    }
    if let Some(t) = &l.tls {
        tls_config(t, &path.field("tls"), errors);
    }
    if let Some(a) = &l.allowed_routes {
        allowed_routes(a, &path.field("allowedRoutes"), errors);
    }
    if let Some(f) = &l.filters {
        if !matches!(l.protocol.as_str(), "HTTP" | "HTTPS") {
            errors.rule(
                path.clone(),
                "filters may only be set when protocol is HTTP or HTTPS",
            );
        }
        listener_filters(f, &path.field("filters"), opts, errors);
    }
}

/// A listener's pre-routing `filters` (v1.7, experimental; GEP-5224): at most 16 request
/// filters, each carrying exactly the field its type names.
fn listener_filters(
    f: &ListenerFilters,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    let rpath = path.field("requests");
    errors.items(&rpath, f.requests.len(), 0, 16);
    for (i, r) in f.requests.iter().enumerate() {
        let ipath = rpath.index(i);
        // A missing `type` is `Required` (field presence); the rules compare it as absent.
        if let Some(t) = &r.type_ {
            errors.known(&ipath.field("type"), t);
        }
        let is = |t: ListenerFilterType| r.type_.as_ref() == Some(&t);
        let auth = is(ListenerFilterType::ExternalAuth);
        let ext = is(ListenerFilterType::ExtensionRef);
        if r.external_auth.is_some() && !auth {
            errors.rule(
                ipath.clone(),
                "filter.externalAuth must be nil if the filter.type is not ExternalAuth",
            );
        }
        if r.external_auth.is_none() && auth {
            errors.rule(
                ipath.clone(),
                "filter.externalAuth must be specified for ExternalAuth filter.type",
            );
        }
        if r.extension_ref.is_some() && !ext {
            errors.rule(
                ipath.clone(),
                "filter.extensionRef must be nil if the filter.type is not ExtensionRef",
            );
        }
        if r.extension_ref.is_none() && ext {
            errors.rule(
                ipath.clone(),
                "filter.extensionRef must be specified for ExtensionRef filter.type",
            );
        }
        if let Some(a) = &r.external_auth {
            super::httproute::external_auth(a, &ipath.field("externalAuth"), opts, errors);
        }
        if let Some(e) = &r.extension_ref {
            common::local_object_ref(e, &ipath.field("extensionRef"), errors);
        }
    }
}

/// A Gateway address's `routability` (v1.7, experimental; GEP-3651): empty, `Cluster`, or an
/// implementation-specific `prefix/path` whose prefix is a DNS subdomain outside `k8s.io`.
fn routability(r: &str, path: &FieldPath, errors: &mut Errors) {
    if !errors.length(path, r, 0, 253) {
        return;
    }
    let prefix = r.split('/').next().unwrap_or("");
    // `self.matches('^.*/.+$')`: a `/` with something after it, and (RE2's `.`) no newline.
    let prefixed = r.split_once('/').is_some_and(|(_, rest)| !rest.is_empty())
        && !r.contains('\n')
        && p::is_dns_subdomain(prefix)
        && prefix != "k8s.io"
        && !prefix.ends_with(".k8s.io");
    if !(r.is_empty() || r == "Cluster" || prefixed) {
        errors.rule(
            path.clone(),
            "Routability must be empty, Cluster, or an implementation-specific prefixed path; k8s.io and its subdomains are reserved",
        );
    }
}

fn tls_config(t: &ListenerTlsConfig, path: &FieldPath, errors: &mut Errors) {
    if let Some(m) = &t.mode {
        errors.known(&path.field("mode"), m);
    }
    let cpath = path.field("certificateRefs");
    errors.items(&cpath, t.certificate_refs.len(), 0, 64);
    for (i, c) in t.certificate_refs.iter().enumerate() {
        common::secret_ref(c, &cpath.index(i), errors);
    }
    let opath = path.field("options");
    if t.options.len() > 16 {
        errors.push(opath.clone(), ErrorKind::TooMany { max: 16 });
    }
    for (k, v) in &t.options {
        errors.length(&opath.key(k), v, 0, 4096);
    }
    let mode = t.mode.clone().unwrap_or(TlsModeType::Terminate);
    if mode == TlsModeType::Terminate && t.certificate_refs.is_empty() && t.options.is_empty() {
        errors.rule(
            path.clone(),
            "certificateRefs or options must be specified when mode is Terminate",
        );
    }
}

/// The namespace policies a listener's `allowedRoutes` accepts (`None` is ListenerSet-only).
const ROUTE_NAMESPACES_FROM: &[&str] = &["All", "Selector", "Same"];

fn allowed_routes(a: &AllowedRoutes, path: &FieldPath, errors: &mut Errors) {
    if let Some(from) = a.namespaces.as_ref().and_then(|n| n.from.as_ref())
        && (!from.is_known() || *from == FromNamespaces::None)
    {
        errors.unsupported(
            &path.field("namespaces").field("from"),
            from.as_str(),
            ROUTE_NAMESPACES_FROM,
        );
    }
    let kpath = path.field("kinds");
    errors.items(&kpath, a.kinds.len(), 0, 8);
    for (i, k) in a.kinds.iter().enumerate() {
        let ipath = kpath.index(i);
        if let Some(g) = &k.group {
            errors.group(&ipath.field("group"), g);
        }
        errors.kind(&ipath.field("kind"), &k.kind);
    }
}

/// Gateway `status.addresses` (`GatewayStatusAddress`, written by controllers): at most 16;
/// types match `AddressType`; values of 1 to 253 characters; Hostname values match `Hostname`
/// (the status variant of the rule: no empty value); IPAddress values IPv4 or IPv6 addresses
/// (the item's `oneOf`). No uniqueness rules, unlike `spec.addresses`.
fn status_addresses(list: &[GatewayStatusAddress], path: &FieldPath, errors: &mut Errors) {
    errors.items(path, list.len(), 0, 16);
    for (i, a) in list.iter().enumerate() {
        let ipath = path.index(i);
        if let Some(t) = &a.type_ {
            let tpath = ipath.field("type");
            if errors.length(&tpath, t, 1, 253) {
                errors.pattern(&tpath, t, p::is_address_type, p::ADDRESS_TYPE_PATTERN);
            }
        }
        errors.length(&ipath.field("value"), &a.value, 1, 253);
        let t = a.type_.as_deref().unwrap_or("IPAddress");
        if t == "Hostname" && !p::is_hostname(&a.value) {
            errors.rule(
                ipath.clone(),
                "Hostname value must only contain valid characters (matching ^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$)",
            );
        }
        if t == "IPAddress" && !p::is_ip(&a.value) {
            errors.rule(
                ipath.field("value"),
                "IPAddress value must be an IPv4 or IPv6 address",
            );
        }
    }
}

/// Gateway `spec.addresses`: at most 16; types match `AddressType`; Hostname values match
/// `Hostname`; IPAddress and Hostname values unique; IPAddress values (an empty one included)
/// IPv4 or IPv6 addresses, by the CRD's `oneOf` on the item (`format: ipv4` / `ipv6`).
fn addresses(list: &[GatewaySpecAddress], path: &FieldPath, errors: &mut Errors) {
    errors.items(path, list.len(), 0, 16);
    let type_of = |a: &GatewaySpecAddress| a.type_.clone().unwrap_or_else(|| "IPAddress".into());
    for (i, a) in list.iter().enumerate() {
        let ipath = path.index(i);
        if let Some(t) = &a.type_ {
            let tpath = ipath.field("type");
            if errors.length(&tpath, t, 1, 253) {
                errors.pattern(&tpath, t, p::is_address_type, p::ADDRESS_TYPE_PATTERN);
            }
        }
        if let Some(v) = &a.value {
            errors.length(&ipath.field("value"), v, 0, 253);
        }
        let t = type_of(a);
        if t == "Hostname"
            && let Some(v) = &a.value
            && !p::is_hostname(v)
        {
            errors.rule(
                ipath.clone(),
                "Hostname value must be empty or contain only valid characters (matching ^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$)",
            );
        }
        // The CRD's `oneOf`: type IPAddress makes `value` (when present, even empty) format
        // `ipv4` or `ipv6`.
        if t == "IPAddress"
            && let Some(v) = &a.value
            && !p::is_ip(v)
        {
            errors.rule(
                ipath.field("value"),
                "IPAddress value must be an IPv4 or IPv6 address",
            );
        }
    }
    for (ty, message) in [
        ("IPAddress", "IPAddress values must be unique"),
        ("Hostname", "Hostname values must be unique"),
    ] {
        let mut seen = HashSet::new();
        if list
            .iter()
            .filter(|a| type_of(a) == ty)
            .filter_map(|a| a.value.as_deref())
            .any(|v| !seen.insert(v))
        {
            errors.rule(path.clone(), message);
        }
    }
}
