//! Checks for the types shared by several resources: metadata, names, references, header
//! filters, mirrors, session persistence (Gateway API shared types, ParentReference and
//! BackendRef).

use std::collections::{BTreeMap, HashSet};

use super::patterns as p;
use super::{Channel, ErrorKind, Errors, FieldPath, ValidateOptions};
use crate::gateway::{
    BackendObjectReference, BackendRef, BackendRefExt, CookieLifetimeType, Fraction,
    GatewayDefaultScope, HttpHeaderFilter, HttpRequestMirrorFilter, LocalObjectReference,
    ObjectReference, ParentReference, SecretObjectReference, SessionPersistence,
    SessionPersistenceType,
};
use crate::meta::ObjectMeta;

/// Maximum number of `parentRefs` (all route kinds).
pub(crate) const MAX_PARENT_REFS: usize = 32;
/// Maximum number of `controllers` on one parentRef (gamma-rs extension).
pub(crate) const MAX_CONTROLLERS: usize = 16;

impl Errors {
    /// `ObjectName`: 1–253 characters, no pattern.
    pub(crate) fn object_name(&mut self, path: &FieldPath, v: &str) {
        self.length(path, v, 1, 253);
    }

    /// `Namespace`: an RFC 1123 label, 1–63 characters.
    pub(crate) fn namespace(&mut self, path: &FieldPath, v: &str) {
        if self.length(path, v, 1, 63) {
            self.pattern(path, v, p::is_namespace, p::NAMESPACE_PATTERN);
        }
    }

    /// `Group`: empty or an RFC 1123 subdomain, at most 253 characters.
    pub(crate) fn group(&mut self, path: &FieldPath, v: &str) {
        if self.length(path, v, 0, 253) {
            self.pattern(path, v, p::is_group, p::GROUP_PATTERN);
        }
    }

    /// `Kind`: 1–63 characters.
    pub(crate) fn kind(&mut self, path: &FieldPath, v: &str) {
        if self.length(path, v, 1, 63) {
            self.pattern(path, v, p::is_kind, p::KIND_PATTERN);
        }
    }

    /// `SectionName`: an RFC 1123 subdomain, 1–253 characters.
    pub(crate) fn section_name(&mut self, path: &FieldPath, v: &str) {
        if self.length(path, v, 1, 253) {
            self.pattern(path, v, p::is_section_name, p::SECTION_NAME_PATTERN);
        }
    }

    /// `Hostname` (wildcard allowed), 1–253 characters.
    pub(crate) fn hostname(&mut self, path: &FieldPath, v: &str) {
        if self.length(path, v, 1, 253) {
            self.pattern(path, v, p::is_hostname, p::HOSTNAME_PATTERN);
        }
    }

    /// `PreciseHostname` (no wildcard), 1–253 characters.
    pub(crate) fn precise_hostname(&mut self, path: &FieldPath, v: &str) {
        if self.length(path, v, 1, 253) {
            self.pattern(path, v, p::is_precise_hostname, p::PRECISE_HOSTNAME_PATTERN);
        }
    }

    /// `GatewayController`: `DOMAIN/PATH`, 1–253 characters.
    pub(crate) fn gateway_controller(&mut self, path: &FieldPath, v: &str) {
        if self.length(path, v, 1, 253) {
            self.pattern(
                path,
                v,
                p::is_gateway_controller,
                p::GATEWAY_CONTROLLER_PATTERN,
            );
        }
    }

    /// `HeaderName`, 1–256 characters.
    pub(crate) fn header_name(&mut self, path: &FieldPath, v: &str) {
        if self.length(path, v, 1, 256) {
            self.pattern(path, v, p::is_header_name, p::HEADER_NAME_PATTERN);
        }
    }

    /// `PortNumber`: 1–65535.
    pub(crate) fn port(&mut self, path: &FieldPath, v: i32) {
        self.range(path, i64::from(v), 1, 65535);
    }

    /// `Duration` (GEP-2257).
    pub(crate) fn duration(&mut self, path: &FieldPath, v: &str) {
        self.pattern(path, v, p::is_duration, p::DURATION_PATTERN);
    }

    /// An enum value decoded into an `Unknown` variant.
    pub(crate) fn known<T: KnownEnum>(&mut self, path: &FieldPath, v: &T) {
        if !v.is_known_value() {
            self.unsupported(path, v.wire(), T::known_values());
        }
    }

    /// Items of a `listType=set` list (or the keys of a `listType=map` list with one key) must be
    /// unique: each repeat is reported at its own index.
    #[inline]
    pub(crate) fn unique<'a, I>(&mut self, path: &FieldPath, keys: I, item_field: Option<&str>)
    where
        I: IntoIterator<Item = &'a str>,
        I::IntoIter: Clone,
    {
        let keys = keys.into_iter();
        // Nothing to compare in lists of fewer than two items (the common case, twice per
        // HTTPRoute match): answered inline from the slice's length, no call.
        if keys.size_hint().1.is_some_and(|n| n < 2) {
            return;
        }
        self.repeats(path, keys, item_field);
    }

    /// [`Errors::unique`] of any list: a key is a repeat when an earlier key equals it.
    fn repeats<'a>(
        &mut self,
        path: &FieldPath,
        keys: impl Iterator<Item = &'a str> + Clone,
        item_field: Option<&str>,
    ) {
        // Short lists (nearly all: most are bounded at 16 or 64) compare each key with the
        // ones before it, which allocates nothing; a set would cost more to build than that.
        if keys.clone().nth(FEW_KEYS).is_none() {
            for (i, k) in keys.clone().enumerate() {
                if keys.clone().take(i).any(|e| e == k) {
                    self.duplicate(path, i, k, item_field);
                }
            }
            return;
        }
        let mut seen = HashSet::new();
        for (i, k) in keys.enumerate() {
            if !seen.insert(k) {
                self.duplicate(path, i, k, item_field);
            }
        }
    }

    /// Reports key `k`, item `i` of the list at `path`, as a repeat.
    fn duplicate(&mut self, path: &FieldPath, i: usize, k: &str, item_field: Option<&str>) {
        let at = path.index(i);
        let at = match item_field {
            Some(f) => at.field(f),
            None => at,
        };
        self.push(
            at,
            ErrorKind::Duplicate {
                value: k.to_owned(),
            },
        );
    }
}

/// Lists of at most this many keys are checked for repeats without a set.
const FEW_KEYS: usize = 32;

/// The string enums generated by `string_enum!`, seen generically.
pub(crate) trait KnownEnum {
    fn is_known_value(&self) -> bool;
    fn wire(&self) -> &str;
    fn known_values() -> &'static [&'static str];
}

macro_rules! known_enum {
    ($($t:ty),+ $(,)?) => {$(
        impl KnownEnum for $t {
            fn is_known_value(&self) -> bool { self.is_known() }
            fn wire(&self) -> &str { self.as_str() }
            fn known_values() -> &'static [&'static str] { <$t>::KNOWN }
        }
    )+};
}

known_enum!(
    crate::gateway::GatewayDefaultScope,
    crate::gateway::PathMatchType,
    crate::gateway::MatchType,
    crate::gateway::HttpMethod,
    crate::gateway::HttpRouteFilterType,
    crate::gateway::RedirectScheme,
    crate::gateway::PathModifierType,
    crate::gateway::ExternalAuthProtocol,
    crate::gateway::SessionPersistenceType,
    crate::gateway::CookieLifetimeType,
    crate::gateway::GrpcRouteFilterType,
    crate::gateway::FromNamespaces,
    crate::gateway::ListenerFilterType,
    crate::gateway::TlsModeType,
    crate::gateway::SubjectAltNameType,
    crate::gateway::FrontendValidationModeType,
    crate::k8s::ServiceType,
    crate::xbackend::XBackendType,
    crate::xbackend::XBackendProtocol,
    crate::xbackend::XBackendTlsMode,
    crate::xtelemetry::TracingMode,
    crate::xtelemetry::AttributeSourceType,
    crate::xauthz::AuthorizationAction,
    crate::xauthz::EnforcementLevel,
    crate::xauthz::AuthorizationSourceType,
);

/// A policy's `targetRefs` (upstream `LocalPolicyTargetReference`s in the policy's namespace):
/// 1 to 16, each with a valid group, kind and name.
pub(crate) fn policy_target_refs(
    refs: &[crate::xbackend::PolicyTargetReference],
    path: &FieldPath,
    errors: &mut Errors,
) {
    errors.items(path, refs.len(), 1, 16);
    for (i, t) in refs.iter().enumerate() {
        let ipath = path.index(i);
        errors.group(&ipath.field("group"), &t.group);
        errors.kind(&ipath.field("kind"), &t.kind);
        errors.object_name(&ipath.field("name"), &t.name);
    }
}

/// Object metadata of a custom resource (names are DNS-1123 subdomains); see [`super::meta`].
pub(crate) fn metadata(meta: &ObjectMeta, path: &FieldPath, namespaced: bool, errors: &mut Errors) {
    super::meta::object_meta(
        meta,
        path,
        namespaced,
        super::meta::NameRule::Subdomain,
        errors,
    );
}

/// `useDefaultGateways` (experimental field; validated whenever present).
pub(crate) fn use_default_gateways(
    v: Option<&GatewayDefaultScope>,
    path: &FieldPath,
    errors: &mut Errors,
) {
    if let Some(v) = v {
        errors.known(&path.field("useDefaultGateways"), v);
    }
}

/// One `ParentReference` (Gateway API ParentReference) plus the gamma-rs `controllers` extension.
pub(crate) fn parent_ref(r: &ParentReference, path: &FieldPath, errors: &mut Errors) {
    if let Some(g) = &r.group {
        errors.group(&path.field("group"), g);
    }
    if let Some(k) = &r.kind {
        errors.kind(&path.field("kind"), k);
    }
    if let Some(ns) = &r.namespace {
        errors.namespace(&path.field("namespace"), ns);
    }
    errors.object_name(&path.field("name"), &r.name);
    if let Some(s) = &r.section_name {
        errors.section_name(&path.field("sectionName"), s);
    }
    if let Some(port) = r.port {
        errors.port(&path.field("port"), port);
    }
    if let Some(cs) = &r.controllers {
        let cpath = path.field("controllers");
        errors.items(&cpath, cs.len(), 0, MAX_CONTROLLERS);
        for (i, c) in cs.iter().enumerate() {
            errors.gateway_controller(&cpath.index(i), c);
        }
        errors.unique(&cpath, cs.iter().map(String::as_str), None);
    }
}

/// `parentRefs`: at most 32, each valid, plus the uniqueness CEL rules. The standard channel
/// keys references to the same parent by `sectionName`; the experimental channel by
/// `sectionName` and `port` (Gateway API ParentReference and experimental channel).
pub(crate) fn parent_refs(
    refs: &[ParentReference],
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    let path = path.field("parentRefs");
    errors.items(&path, refs.len(), 0, MAX_PARENT_REFS);
    for (i, r) in refs.iter().enumerate() {
        parent_ref(r, &path.index(i), errors);
    }
    // One reference (nearly every route) cannot break either rule: it is compared only with
    // itself, which is the same parent with the same key (test
    // one_parent_ref_breaks_no_key_rule), so the comparisons are skipped.
    let with_port = opts.channel == Channel::Experimental;
    let (specified_violated, unique_violated) = if refs.len() < 2 {
        (false, false)
    } else {
        parent_ref_key_rules(refs, with_port)
    };
    let (specified, unique) = if with_port {
        (
            "sectionName or port must be specified when parentRefs includes 2 or more references to the same parent",
            "sectionName or port must be unique when parentRefs includes 2 or more references to the same parent",
        )
    } else {
        (
            "sectionName must be specified when parentRefs includes 2 or more references to the same parent",
            "sectionName must be unique when parentRefs includes 2 or more references to the same parent",
        )
    };
    if specified_violated {
        errors.rule(path.clone(), specified);
    }
    if unique_violated {
        errors.rule(path, unique);
    }
}

/// The CEL rules on `parentRefs` keys: whether "sectionName (or port) must be specified" and
/// whether "... must be unique" are broken, in that order.
fn parent_ref_key_rules(refs: &[ParentReference], with_port: bool) -> (bool, bool) {
    // CEL compares group/kind after defaulting and namespace with "" == unset; it never applies
    // the route's namespace (an explicit namespace equal to the route's is a different key).
    let same_parent = |a: &ParentReference, b: &ParentReference| {
        a.group_or_default() == b.group_or_default()
            && a.kind_or_default() == b.kind_or_default()
            && a.name == b.name
            && a.namespace.as_deref().unwrap_or("") == b.namespace.as_deref().unwrap_or("")
    };
    fn section(r: &ParentReference) -> Option<&str> {
        r.section_name.as_deref().filter(|s| !s.is_empty())
    }
    let port = |r: &ParentReference| r.port.filter(|&p| p != 0);
    let mut specified_violated = false;
    let mut unique_violated = false;
    for a in refs {
        let mut same_key = 0;
        for b in refs {
            if !same_parent(a, b) {
                continue;
            }
            let sec_presence = section(a).is_some() == section(b).is_some();
            let port_presence = !with_port || port(a).is_some() == port(b).is_some();
            if !(sec_presence && port_presence) {
                specified_violated = true;
            }
            if section(a) == section(b) && (!with_port || port(a) == port(b)) {
                same_key += 1;
            }
        }
        if same_key != 1 {
            unique_violated = true;
        }
    }
    (specified_violated, unique_violated)
}

/// The upstream limit on matches across all rules of one route ("less than 128" in the
/// message, `<= 128` in the rule: HTTPRoute CRD total-matches rule). Shared by HTTPRoute and
/// GRPCRoute.
pub const MAX_TOTAL_MATCHES: usize = 128;

/// The CEL rule on HTTPRoute and GRPCRoute `spec.rules`: at most [`MAX_TOTAL_MATCHES`] matches
/// across all rules, reported at `rules` with upstream's message.
pub(crate) fn total_matches(total: usize, rules: &FieldPath, errors: &mut Errors) {
    if total > MAX_TOTAL_MATCHES {
        errors.rule(
            rules.clone(),
            "While 16 rules and 64 matches per rule are allowed, the total number of matches across all rules in a route must be less than 128",
        );
    }
}

pub(crate) fn route_hostnames(hostnames: &[String], path: &FieldPath, errors: &mut Errors) {
    let path = path.field("hostnames");
    errors.items(&path, hostnames.len(), 0, 16);
    for (i, h) in hostnames.iter().enumerate() {
        errors.hostname(&path.index(i), h);
    }
}

/// The fields of a `BackendObjectReference`, and its CEL rules "Must have port for Service
/// reference" and, in v1.7's experimental CRDs, "Must not have port for Backend reference"
/// (Gateway API BackendRef).
pub(crate) fn backend_object_ref(
    b: &impl BackendRefExt,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    if let Some(g) = b.group_raw() {
        errors.group(&path.field("group"), g);
    }
    if let Some(k) = b.kind_raw() {
        errors.kind(&path.field("kind"), k);
    }
    // The name's and port's checks are asked first without building their paths (every
    // backendRef has a name and nearly every one a port): `length` passes a name of 1 to 253
    // bytes, and `port` what is in range, so the checks are skipped only where they find nothing.
    let name = b.name();
    if name.is_empty() || name.len() > 253 {
        errors.object_name(&path.field("name"), name);
    }
    if let Some(ns) = b.namespace_raw() {
        errors.namespace(&path.field("namespace"), ns);
    }
    match b.port() {
        Some(port) => {
            if !(1..=65535).contains(&port) {
                errors.port(&path.field("port"), port);
            }
            // the reference first: it is one compare for a Service, the bundle several
            if b.group_raw() == Some(crate::xbackend::GROUP)
                && b.kind_raw() == Some("XBackend")
                && super::by_release::xbackend_refs_without_port(opts.as_bundle())
            {
                errors.rule(path.clone(), "Must not have port for Backend reference");
            }
        }
        None if b.is_service() => {
            errors.rule(path.clone(), "Must have port for Service reference");
        }
        None => {}
    }
}

/// A `BackendObjectReference` (mirror and ExternalAuth targets).
pub(crate) fn backend_object_reference(
    b: &BackendObjectReference,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    backend_object_ref(b, path, opts, errors);
}

/// Whether [`backend_ref`] finds nothing wrong with `b`, for the shape nearly every route
/// writes: a Service (group and kind omitted, or `""` and `Service`) in the route's namespace,
/// a name of 1 to 253 bytes, a port in range and a weight omitted or in range. Asked inline,
/// before the call; `false` says only that the checks must run.
#[inline]
pub(crate) fn is_plain_service_ref(b: &BackendRef) -> bool {
    b.group.as_deref().is_none_or(str::is_empty)
        && b.kind.as_deref().is_none_or(|k| k == "Service")
        && b.namespace.is_none()
        && !b.name.is_empty()
        && b.name.len() <= 253
        && b.port.is_some_and(|p| (1..=65535).contains(&p))
        && b.weight.is_none_or(|w| (0..=1_000_000).contains(&w))
}

/// A weighted `BackendRef`: the object reference plus weight 0–1,000,000.
pub(crate) fn backend_ref(
    b: &BackendRef,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    backend_object_ref(b, path, opts, errors);
    // the range asked before the path is built, as `backend_object_ref` does the port's
    if let Some(w) = b.weight
        && !(0..=1_000_000).contains(&w)
    {
        errors.range(&path.field("weight"), i64::from(w), 0, 1_000_000);
    }
}

/// A `LocalObjectReference` (ExtensionRef filters): group, kind and name are all required.
pub(crate) fn local_object_ref(r: &LocalObjectReference, path: &FieldPath, errors: &mut Errors) {
    errors.group(&path.field("group"), &r.group);
    errors.kind(&path.field("kind"), &r.kind);
    errors.object_name(&path.field("name"), &r.name);
}

/// An `ObjectReference` / `ParametersReference` (group, kind, name required; namespace optional).
pub(crate) fn object_reference(r: &ObjectReference, path: &FieldPath, errors: &mut Errors) {
    match &r.group {
        Some(g) => errors.group(&path.field("group"), g),
        None => errors.push(path.field("group"), ErrorKind::Required),
    }
    errors.kind(&path.field("kind"), &r.kind);
    errors.object_name(&path.field("name"), &r.name);
    if let Some(ns) = &r.namespace {
        errors.namespace(&path.field("namespace"), ns);
    }
}

/// A `SecretObjectReference` (certificate references).
pub(crate) fn secret_ref(r: &SecretObjectReference, path: &FieldPath, errors: &mut Errors) {
    if let Some(g) = &r.group {
        errors.group(&path.field("group"), g);
    }
    if let Some(k) = &r.kind {
        errors.kind(&path.field("kind"), k);
    }
    errors.object_name(&path.field("name"), &r.name);
    if let Some(ns) = &r.namespace {
        errors.namespace(&path.field("namespace"), ns);
    }
}

/// `HTTPHeaderFilter` (Gateway API HTTPHeaderFilter): set/add/remove at most 16 each, names are
/// `HeaderName`s unique per list (`listType=map` / `set`, compared exactly as the API server
/// does), values 1–4096 (plus the printable-ASCII pattern on the experimental channel).
///
/// Also the spec-text rule "configuring multiple actions for the same header is invalid"
/// (case-insensitive, across set/add/remove); the API server does not enforce it, gamma-rs does
/// because the filter's meaning is undefined otherwise.
pub(crate) fn header_filter(
    f: &HttpHeaderFilter,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    for (field, list) in [("set", &f.set), ("add", &f.add)] {
        let lpath = path.field(field);
        errors.items(&lpath, list.len(), 0, 16);
        for (i, h) in list.iter().enumerate() {
            let ipath = lpath.index(i);
            errors.header_name(&ipath.field("name"), &h.name);
            header_value(&h.value, &ipath.field("value"), opts, errors);
        }
        errors.unique(&lpath, list.iter().map(|h| h.name.as_str()), None);
    }
    let rpath = path.field("remove");
    errors.items(&rpath, f.remove.len(), 0, 16);
    errors.unique(&rpath, f.remove.iter().map(String::as_str), None);

    // One action per header name (case-insensitive), across the three lists. An exact repeat
    // inside one list is already reported as a duplicate above, so it is not reported twice.
    if f.set.len() + f.add.len() + f.remove.len() < 2 {
        return;
    }
    let mut seen: BTreeMap<String, (&'static str, &str)> = BTreeMap::new();
    let entries = (f
        .set
        .iter()
        .enumerate()
        .map(|(i, h)| ("set", i, h.name.as_str())))
    .chain(
        f.add
            .iter()
            .enumerate()
            .map(|(i, h)| ("add", i, h.name.as_str())),
    )
    .chain(
        f.remove
            .iter()
            .enumerate()
            .map(|(i, n)| ("remove", i, n.as_str())),
    );
    for (field, i, name) in entries {
        match seen.get(&name.to_ascii_lowercase()) {
            Some(&(first_field, first_name)) if first_field == field && first_name == name => {}
            Some(&(first_field, _)) => errors.rule(
                path.field(field).index(i),
                format!(
                    "header {name:?} already has an action in {first_field}: a header modifier must have at most one action per header name"
                ),
            ),
            None => {
                seen.insert(name.to_ascii_lowercase(), (field, name));
            }
        }
    }
}

/// A header value (match, set, add): 1–4096 characters; on the experimental channel also the
/// printable-ASCII pattern (Gateway API HTTPHeaderMatch and experimental channel), which
/// forbids CR, LF and NUL; on the standard channel, whose CRD admits them, those are refused
/// only with [`ValidateOptions::refuse_control_characters`].
pub(crate) fn header_value(v: &str, path: &FieldPath, opts: &ValidateOptions, errors: &mut Errors) {
    if !errors.length(path, v, 1, 4096) {
        return;
    }
    if opts.channel == Channel::Experimental {
        errors.pattern(path, v, p::is_header_value, p::HEADER_VALUE_PATTERN);
    } else {
        control_characters(v, path, opts, errors);
    }
}

/// Whether [`header_value`] finds nothing wrong with `v`, answered without a path: 1 to 4096
/// bytes (so as many characters at most), and the channel's further check.
pub(crate) fn is_plain_header_value(v: &str, opts: &ValidateOptions) -> bool {
    !v.is_empty()
        && v.len() <= 4096
        && match opts.channel {
            Channel::Experimental => p::is_header_value(v),
            Channel::Standard => {
                !opts.refuse_control_characters
                    || !v.bytes().any(|b| matches!(b, b'\r' | b'\n' | 0))
            }
        }
}

/// [`ErrorKind::ControlCharacter`] for a header value with CR, LF or NUL, when the options
/// refuse them.
pub(crate) fn control_characters(
    v: &str,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    if opts.refuse_control_characters && v.bytes().any(|b| matches!(b, b'\r' | b'\n' | 0)) {
        errors.push(path.clone(), ErrorKind::ControlCharacter);
    }
}

/// `HTTPRequestMirrorFilter` (Gateway API HTTPRequestMirrorFilter).
pub(crate) fn mirror(
    m: &HttpRequestMirrorFilter,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    backend_object_reference(&m.backend_ref, &path.field("backendRef"), opts, errors);
    if let Some(pct) = m.percent {
        errors.range(&path.field("percent"), i64::from(pct), 0, 100);
    }
    if let Some(f) = &m.fraction {
        fraction(f, &path.field("fraction"), errors);
    }
    if m.percent.is_some() && m.fraction.is_some() {
        errors.rule(
            path.clone(),
            "Only one of percent or fraction may be specified in HTTPRequestMirrorFilter",
        );
    }
}

pub(crate) fn fraction(f: &Fraction, path: &FieldPath, errors: &mut Errors) {
    errors.range(
        &path.field("numerator"),
        i64::from(f.numerator),
        0,
        i64::from(i32::MAX),
    );
    let denominator = f.denominator.unwrap_or(100);
    if f.denominator.is_some() {
        errors.range(
            &path.field("denominator"),
            i64::from(denominator),
            1,
            i64::from(i32::MAX),
        );
    }
    if f.numerator > denominator {
        errors.rule(
            path.clone(),
            "numerator must be less than or equal to denominator",
        );
    }
}

/// `SessionPersistence` (experimental field; GEP-1619 session persistence), in the shape and
/// with the rules of the chosen release: `sessionName` and `cookieConfig` up to v1.6
/// (`idleTimeout` in v1.5 too), `cookie` and `header` from v1.7. A field the release does not
/// declare is an unknown field ([`super::fields`]), not checked here.
pub(crate) fn session_persistence(
    s: &SessionPersistence,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) {
    if let Some(t) = &s.absolute_timeout {
        errors.duration(&path.field("absoluteTimeout"), t);
    }
    if let Some(t) = &s.type_ {
        errors.known(&path.field("type"), t);
    }
    // `type` defaults to Cookie before the rules run.
    let type_ = s.type_.clone().unwrap_or(SessionPersistenceType::Cookie);
    let permanent_without_timeout = |lifetime: Option<&CookieLifetimeType>| {
        lifetime == Some(&CookieLifetimeType::Permanent) && s.absolute_timeout.is_none()
    };
    if opts.release >= super::Release::V1_7 {
        if let Some(c) = &s.cookie {
            let cpath = path.field("cookie");
            if let Some(l) = &c.lifetime_type {
                errors.known(&cpath.field("lifetimeType"), l);
            }
            if let Some(n) = &c.name {
                header_token(n, &cpath.field("name"), errors);
            }
            if let Some(p) = &c.path {
                errors.length(&cpath.field("path"), p, 0, 1024);
            }
        }
        if let Some(h) = &s.header {
            header_token(&h.name, &path.field("header").field("name"), errors);
        }
        if permanent_without_timeout(s.cookie.as_ref().and_then(|c| c.lifetime_type.as_ref())) {
            errors.rule(
                path.clone(),
                "AbsoluteTimeout must be specified when cookie lifetimeType is Permanent",
            );
        }
        let cookie = type_ == SessionPersistenceType::Cookie;
        let header = type_ == SessionPersistenceType::Header;
        if s.cookie.is_some() && !cookie {
            errors.rule(path.clone(), "cookie must be nil if type is not Cookie");
        }
        if cookie && s.cookie.is_none() {
            errors.rule(path.clone(), "cookie must be specified for Cookie type");
        }
        if s.header.is_some() && !header {
            errors.rule(path.clone(), "header must be nil if type is not Header");
        }
        if header && s.header.is_none() {
            errors.rule(path.clone(), "header must be specified for Header type");
        }
        return;
    }
    if let Some(n) = &s.session_name {
        errors.length(&path.field("sessionName"), n, 0, 128);
    }
    if opts.release < super::Release::V1_6
        && let Some(t) = &s.idle_timeout
    {
        errors.duration(&path.field("idleTimeout"), t);
    }
    let lifetime = s
        .cookie_config
        .as_ref()
        .and_then(|c| c.lifetime_type.as_ref());
    if let Some(l) = lifetime {
        errors.known(&path.field("cookieConfig").field("lifetimeType"), l);
    }
    if permanent_without_timeout(lifetime) {
        errors.rule(
            path.clone(),
            "AbsoluteTimeout must be specified when cookie lifetimeType is Permanent",
        );
    }
    if s.cookie_config.is_some() && type_ != SessionPersistenceType::Cookie {
        errors.rule(
            path.clone(),
            "cookieConfig can only be set with type Cookie",
        );
    }
}

/// A cookie or header name of session persistence: an HTTP token of 1 to 256 characters.
fn header_token(name: &str, path: &FieldPath, errors: &mut Errors) {
    if errors.length(path, name, 1, 256) {
        errors.pattern(path, name, p::is_header_name, p::HEADER_NAME_PATTERN);
    }
}

/// The experimental CEL "Rule name must be unique within the route", reported at `rules`.
pub(crate) fn unique_rule_names<'a, I>(
    names: I,
    path: &FieldPath,
    opts: &ValidateOptions,
    errors: &mut Errors,
) where
    I: IntoIterator<Item = Option<&'a str>>,
    I::IntoIter: Clone,
{
    if !super::by_release::unique_rule_names(opts.as_bundle()) {
        return;
    }
    if repeats_a_name(names.into_iter()) {
        errors.rule(path.clone(), "Rule name must be unique within the route");
    }
}

/// Whether a name (of the rules' names, `None` for a rule without one) comes twice.
fn repeats_a_name<'a>(names: impl Iterator<Item = Option<&'a str>> + Clone) -> bool {
    // A valid route has at most 16 rules, and most rules no name: compare each name with the
    // earlier ones, which builds no set and reads no hasher keys (a thread-local access per
    // route, even when no rule has a name). The rules' count is the slice's, known up front.
    if names.size_hint().1.is_some_and(|n| n <= FEW_KEYS) {
        return names
            .clone()
            .enumerate()
            .any(|(i, n)| n.is_some() && names.clone().take(i).any(|e| e == n));
    }
    let mut seen = HashSet::new();
    names.flatten().any(|n| !seen.insert(n))
}

/// Rule names (`SectionName`).
#[inline]
pub(crate) fn rule_name(name: Option<&str>, path: &FieldPath, errors: &mut Errors) {
    // most rules have no name: answered inline, the check of a name out of line
    if let Some(n) = name {
        named_rule(n, path, errors);
    }
}

/// [`rule_name`] of a rule with a name.
fn named_rule(name: &str, path: &FieldPath, errors: &mut Errors) {
    errors.section_name(&path.field("name"), name);
}

/// Labels or annotations maps of Gateway infrastructure: key patterns, prefix length, value
/// limits, and the map size.
pub(crate) fn label_map(
    map: &BTreeMap<String, String>,
    path: &FieldPath,
    max_entries: usize,
    labels: bool,
    errors: &mut Errors,
) {
    if map.len() > max_entries {
        errors.push(path.clone(), ErrorKind::TooMany { max: max_entries });
    }
    let what = if labels { "Label" } else { "Annotation" };
    let what_lower = if labels { "label" } else { "annotation" };
    if !map.keys().all(|k| p::is_label_key(k)) {
        errors.rule(
            path.clone(),
            format!(
                "{what} keys must be in the form of an optional DNS subdomain prefix followed by a required name segment of up to 63 characters."
            ),
        );
    }
    if !map
        .keys()
        .all(|k| k.split('/').next().unwrap_or("").chars().count() < 253)
    {
        errors.rule(
            path.clone(),
            format!(
                "If specified, the {what_lower} key's prefix must be a DNS subdomain not longer than 253 characters in total."
            ),
        );
    }
    for (k, v) in map {
        let vpath = path.key(k);
        if labels {
            if errors.length(&vpath, v, 0, 63) {
                errors.pattern(&vpath, v, p::is_label_value, p::LABEL_VALUE_PATTERN);
            }
        } else {
            errors.length(&vpath, v, 0, 4096);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use proptest::prelude::*;

    use super::{ErrorKind, Errors, FEW_KEYS, FieldPath, ParentReference};

    /// [`Errors::unique`] as it was: every list through a `HashSet`.
    fn unique_with_a_set(path: &FieldPath, keys: &[String], item_field: Option<&str>) -> Errors {
        let mut errors = Errors::default();
        let mut seen = HashSet::new();
        for (i, k) in keys.iter().enumerate() {
            if !seen.insert(k.as_str()) {
                let at = path.index(i);
                let at = match item_field {
                    Some(f) => at.field(f),
                    None => at,
                };
                errors.push(at, ErrorKind::Duplicate { value: k.clone() });
            }
        }
        errors
    }

    fn unique_now(path: &FieldPath, keys: &[String], item_field: Option<&str>) -> Errors {
        let mut errors = Errors::default();
        errors.unique(path, keys.iter().map(String::as_str), item_field);
        errors
    }

    proptest! {
        /// One parent reference breaks neither key rule, on either channel, whatever its
        /// fields: `parent_refs` skips the comparisons for it.
        #[test]
        fn one_parent_ref_breaks_no_key_rule(
            group in prop::option::of(prop::sample::select(&["", "gateway.networking.k8s.io", "x"][..])),
            kind in prop::option::of(prop::sample::select(&["", "Gateway", "Service"][..])),
            namespace in prop::option::of(prop::sample::select(&["", "ns"][..])),
            name in prop::sample::select(&["", "gw"][..]),
            section in prop::option::of(prop::sample::select(&["", "http"][..])),
            port in prop::option::of(prop::sample::select(&[0, 80][..])),
            with_port in any::<bool>(),
        ) {
            let r = ParentReference {
                group: group.map(str::to_owned),
                kind: kind.map(str::to_owned),
                namespace: namespace.map(str::to_owned),
                name: name.to_owned(),
                section_name: section.map(str::to_owned),
                port,
                ..ParentReference::default()
            };
            prop_assert_eq!(super::parent_ref_key_rules(std::slice::from_ref(&r), with_port), (false, false));
            prop_assert_eq!(super::parent_ref_key_rules(&[], with_port), (false, false));
        }
    }

    proptest! {
        /// The inline answer for short lists and the comparisons without a set report the
        /// same repeats, at the same paths, in the same order, as the set did: on both sides
        /// of [`FEW_KEYS`], with few distinct keys so that repeats are common.
        #[test]
        fn unique_reports_what_the_set_reported(
            keys in prop::collection::vec("[ab]{0,2}", 0..FEW_KEYS + 8),
            field in prop::option::of(Just("name")),
        ) {
            let path = FieldPath::root().field("list");
            let want = unique_with_a_set(&path, &keys, field);
            let got = unique_now(&path, &keys, field);
            prop_assert_eq!(got.as_slice(), want.as_slice());
            prop_assert_eq!(got.len(), want.len());
        }
    }

    /// `items` and `range`, answered inline when in bounds, report what their checks one by
    /// one did, at every position around small bounds (`min > max` included).
    #[test]
    fn items_and_range_agree_with_their_checks_one_by_one() {
        let path = FieldPath::root().field("list");
        for min in 0..5usize {
            for max in 0..5usize {
                for len in 0..7usize {
                    let mut want = Errors::default();
                    let want_ok = if len < min {
                        want.push(path.clone(), ErrorKind::TooFew { min });
                        false
                    } else if len > max {
                        want.push(path.clone(), ErrorKind::TooMany { max });
                        false
                    } else {
                        true
                    };
                    let mut got = Errors::default();
                    assert_eq!(got.items(&path, len, min, max), want_ok);
                    assert_eq!(got.as_slice(), want.as_slice(), "{len} in {min}..={max}");
                    let (v, lo, hi) = (len as i64 - 1, min as i64, max as i64);
                    let mut got = Errors::default();
                    let in_range = got.range(&path, v, lo, hi);
                    assert_eq!(in_range, v >= lo && v <= hi);
                    assert_eq!(got.len(), usize::from(!in_range));
                }
            }
        }
    }

    /// Repeated rule names are found as the set found them, on both sides of [`FEW_KEYS`].
    #[test]
    fn repeated_rule_names_are_those_a_set_finds() {
        for n in [0, 1, 2, 3, FEW_KEYS, FEW_KEYS + 1, FEW_KEYS + 3] {
            for pattern in 0..4u32 {
                let names: Vec<Option<String>> = (0..n)
                    .map(|i| match pattern {
                        0 => Some(i.to_string()),
                        1 => (i % 2 == 0).then(|| "a".to_owned()),
                        2 => (i % 3 != 0).then(|| (i / 2).to_string()),
                        _ => (i + 1 == n).then(|| "0".to_owned()).or(Some(i.to_string())),
                    })
                    .collect();
                let mut seen = HashSet::new();
                let want = names.iter().flatten().any(|n| !seen.insert(n.as_str()));
                let got = super::repeats_a_name(names.iter().map(Option::as_deref));
                assert_eq!(got, want, "{n} names, pattern {pattern}");
            }
        }
    }

    /// Every list of up to [`FEW_KEYS`] + 2 keys over two values at its length bounds, and the
    /// counting collector, agree with the set.
    #[test]
    fn unique_agrees_with_the_set_at_the_bounds() {
        for n in [
            0,
            1,
            2,
            3,
            FEW_KEYS - 1,
            FEW_KEYS,
            FEW_KEYS + 1,
            FEW_KEYS + 2,
        ] {
            for pattern in 0..4u32 {
                let keys: Vec<String> = (0..n)
                    .map(|i| match pattern {
                        0 => "a".to_owned(),
                        1 => i.to_string(),
                        2 => (i % 2).to_string(),
                        _ => (i / 3).to_string(),
                    })
                    .collect();
                let path = FieldPath::root().field("list");
                let want = unique_with_a_set(&path, &keys, None);
                assert_eq!(unique_now(&path, &keys, None).as_slice(), want.as_slice());
                let mut counting = Errors::counting();
                counting.unique(
                    &FieldPath::detached(),
                    keys.iter().map(String::as_str),
                    None,
                );
                assert_eq!(counting.len(), want.len(), "{n} keys, pattern {pattern}");
            }
        }
    }
}
