//! The defaults the Gateway API CRDs declare, and structural defaulting as the API server
//! applies it, so that an object read from a file reads as its stored form does.
//!
//! The API server defaults a custom resource by its structural schema
//! (k8s.io/apiextensions-apiserver `pkg/apiserver/schema/defaulting/algorithm.go`): walking
//! the object top-down, every property its schema declares with a `default` that the object
//! lacks (after `null`s are pruned) is set to a copy of that default, and the walk then
//! continues into it, so a default inside a defaulted value applies too. Defaulting runs on
//! every request body and on every read from etcd, so a stored object never lacks a defaulted
//! field: `kubectl get` shows a `parentRef` written without `group` with
//! `group: gateway.networking.k8s.io`, and an HTTPRoute rule without `matches` with a
//! `PathPrefix /` match.
//!
//! [`CRD_DEFAULTS`] lists every default of every kind gamma-rs models, for each release and
//! channel; `tests/defaults_vs_crd.rs` derives the same list from every supported release's
//! CRDs and holds the two equal. [`apply_defaults`] applies the rows of one [`Bundle`] to an
//! untyped object; decoding does it when asked ([`DecodeOptions::defaults`]).
//!
//! [`DecodeOptions::defaults`]: crate::DecodeOptions::defaults

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::{Bundle, Channel, Release};
use crate::resource::ResourceKind;

/// One `default` of a CRD schema: the kind, the property's path from the object's root
/// (list items written `[]`), the default as JSON text, and the bundles whose CRDs declare it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CrdDefault {
    /// The kind whose CRD declares the default (the same in every served version).
    pub kind: ResourceKind,
    /// The property's path: `spec.rules[].backendRefs[].weight`.
    pub path: &'static str,
    /// The default, as JSON text: `1`, `"Service"`, `{"namespaces":{"from":"Same"}}`.
    pub value: &'static str,
    /// The first release whose standard CRDs declare it (`None`: no standard CRD does).
    pub standard: Option<Release>,
    /// The first release whose experimental CRDs declare it (`None`: no experimental CRD does).
    pub experimental: Option<Release>,
    /// The first release that no longer declares it (a renamed or removed field), if any.
    pub until: Option<Release>,
}

impl CrdDefault {
    /// Whether `bundle`'s CRDs declare this default.
    pub fn declared_by(&self, bundle: Bundle) -> bool {
        let since = match bundle.channel {
            Channel::Standard => self.standard,
            Channel::Experimental => self.experimental,
        };
        since.is_some_and(|first| first <= bundle.release)
            && self.until.is_none_or(|end| bundle.release < end)
    }
}

const ALL: Option<Release> = Some(Release::V1_5);

macro_rules! row {
    ($kind:ident, $path:literal, $value:expr, $standard:expr, $experimental:expr, $until:expr) => {
        CrdDefault {
            kind: ResourceKind::$kind,
            path: $path,
            value: $value,
            standard: $standard,
            experimental: $experimental,
            until: $until,
        }
    };
}

/// Every `default` the CRDs of the supported releases declare for the kinds gamma-rs models,
/// grouped by kind and sorted by path within a kind (so a parent comes before its children). Held equal to the CRDs by `tests/defaults_vs_crd.rs`; a new
/// release adds or ends rows here.
pub const CRD_DEFAULTS: &[CrdDefault] = &[
    row!(
        BackendTlsPolicy,
        "status.ancestors[].ancestorRef.group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        BackendTlsPolicy,
        "status.ancestors[].ancestorRef.kind",
        r#""Gateway""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.parentRefs[].group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.parentRefs[].kind",
        r#""Gateway""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].backendRefs[].filters[].requestMirror.backendRef.group",
        r#""""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].backendRefs[].filters[].requestMirror.backendRef.kind",
        r#""Service""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].backendRefs[].filters[].requestMirror.fraction.denominator",
        "100",
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].backendRefs[].group",
        r#""""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].backendRefs[].kind",
        r#""Service""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].backendRefs[].weight",
        "1",
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].filters[].requestMirror.backendRef.group",
        r#""""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].filters[].requestMirror.backendRef.kind",
        r#""Service""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].filters[].requestMirror.fraction.denominator",
        "100",
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].matches[].headers[].type",
        r#""Exact""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].matches[].method.type",
        r#""Exact""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].sessionPersistence.cookie.lifetimeType",
        r#""Session""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].sessionPersistence.cookie.path",
        r#""/""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        GrpcRoute,
        "spec.rules[].sessionPersistence.cookieConfig.lifetimeType",
        r#""Session""#,
        None,
        ALL,
        Some(Release::V1_7)
    ),
    row!(
        GrpcRoute,
        "spec.rules[].sessionPersistence.type",
        r#""Cookie""#,
        None,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "status.parents[].parentRef.group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GrpcRoute,
        "status.parents[].parentRef.kind",
        r#""Gateway""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.addresses[].type",
        r#""IPAddress""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.allowedListeners.namespaces",
        r#"{"from":"None"}"#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.allowedListeners.namespaces.from",
        r#""None""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.listeners[].allowedRoutes",
        r#"{"namespaces":{"from":"Same"}}"#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.listeners[].allowedRoutes.kinds[].group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.listeners[].allowedRoutes.namespaces",
        r#"{"from":"Same"}"#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.listeners[].allowedRoutes.namespaces.from",
        r#""Same""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.listeners[].filters.requests[].externalAuth.backendRef.group",
        r#""""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        Gateway,
        "spec.listeners[].filters.requests[].externalAuth.backendRef.kind",
        r#""Service""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        Gateway,
        "spec.listeners[].tls.certificateRefs[].group",
        r#""""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.listeners[].tls.certificateRefs[].kind",
        r#""Secret""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.listeners[].tls.mode",
        r#""Terminate""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.tls.backend.clientCertificateRef.group",
        r#""""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.tls.backend.clientCertificateRef.kind",
        r#""Secret""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.tls.frontend.default.validation.mode",
        r#""AllowValidOnly""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "spec.tls.frontend.perPort[].tls.validation.mode",
        r#""AllowValidOnly""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "status",
        r#"{"conditions":[{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Accepted"},{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Programmed"}]}"#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "status.addresses[].type",
        r#""IPAddress""#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "status.conditions",
        r#"[{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Accepted"},{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Programmed"}]"#,
        ALL,
        ALL,
        None
    ),
    row!(
        Gateway,
        "status.listeners[].supportedKinds[].group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        GatewayClass,
        "status",
        r#"{"conditions":[{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Accepted"}]}"#,
        ALL,
        ALL,
        None
    ),
    row!(
        GatewayClass,
        "status.conditions",
        r#"[{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Accepted"}]"#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.parentRefs[].group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.parentRefs[].kind",
        r#""Gateway""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules",
        r#"[{"matches":[{"path":{"type":"PathPrefix","value":"/"}}]}]"#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].backendRefs[].filters[].cors.maxAge",
        "5",
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].backendRefs[].filters[].externalAuth.backendRef.group",
        r#""""#,
        None,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].backendRefs[].filters[].externalAuth.backendRef.kind",
        r#""Service""#,
        None,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].backendRefs[].filters[].requestMirror.backendRef.group",
        r#""""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].backendRefs[].filters[].requestMirror.backendRef.kind",
        r#""Service""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].backendRefs[].filters[].requestMirror.fraction.denominator",
        "100",
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].backendRefs[].filters[].requestRedirect.statusCode",
        "302",
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].backendRefs[].group",
        r#""""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].backendRefs[].kind",
        r#""Service""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].backendRefs[].weight",
        "1",
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].filters[].cors.maxAge",
        "5",
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].filters[].externalAuth.backendRef.group",
        r#""""#,
        None,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].filters[].externalAuth.backendRef.kind",
        r#""Service""#,
        None,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].filters[].requestMirror.backendRef.group",
        r#""""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].filters[].requestMirror.backendRef.kind",
        r#""Service""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].filters[].requestMirror.fraction.denominator",
        "100",
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].filters[].requestRedirect.statusCode",
        "302",
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].matches",
        r#"[{"path":{"type":"PathPrefix","value":"/"}}]"#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].matches[].headers[].type",
        r#""Exact""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].matches[].path",
        r#"{"type":"PathPrefix","value":"/"}"#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].matches[].path.type",
        r#""PathPrefix""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].matches[].path.value",
        r#""/""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].matches[].queryParams[].type",
        r#""Exact""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].retry.attempts",
        "1",
        Some(Release::V1_7),
        Some(Release::V1_7),
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].sessionPersistence.cookie.lifetimeType",
        r#""Session""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].sessionPersistence.cookie.path",
        r#""/""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        HttpRoute,
        "spec.rules[].sessionPersistence.cookieConfig.lifetimeType",
        r#""Session""#,
        None,
        ALL,
        Some(Release::V1_7)
    ),
    row!(
        HttpRoute,
        "spec.rules[].sessionPersistence.type",
        r#""Cookie""#,
        None,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "status.parents[].parentRef.group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        HttpRoute,
        "status.parents[].parentRef.kind",
        r#""Gateway""#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "spec.listeners[].allowedRoutes",
        r#"{"namespaces":{"from":"Same"}}"#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "spec.listeners[].allowedRoutes.kinds[].group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "spec.listeners[].allowedRoutes.namespaces",
        r#"{"from":"Same"}"#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "spec.listeners[].allowedRoutes.namespaces.from",
        r#""Same""#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "spec.listeners[].filters.requests[].externalAuth.backendRef.group",
        r#""""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        ListenerSet,
        "spec.listeners[].filters.requests[].externalAuth.backendRef.kind",
        r#""Service""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        ListenerSet,
        "spec.listeners[].tls.certificateRefs[].group",
        r#""""#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "spec.listeners[].tls.certificateRefs[].kind",
        r#""Secret""#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "spec.listeners[].tls.mode",
        r#""Terminate""#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "spec.parentRef.group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "spec.parentRef.kind",
        r#""Gateway""#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "status",
        r#"{"conditions":[{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Accepted"},{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Programmed"}]}"#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "status.conditions",
        r#"[{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Accepted"},{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Programmed"}]"#,
        ALL,
        ALL,
        None
    ),
    row!(
        ListenerSet,
        "status.listeners[].supportedKinds[].group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        TcpRoute,
        "spec.parentRefs[].group",
        r#""gateway.networking.k8s.io""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        TcpRoute,
        "spec.parentRefs[].kind",
        r#""Gateway""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        TcpRoute,
        "spec.rules[].backendRefs[].group",
        r#""""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        TcpRoute,
        "spec.rules[].backendRefs[].kind",
        r#""Service""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        TcpRoute,
        "spec.rules[].backendRefs[].weight",
        "1",
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        TcpRoute,
        "status.parents[].parentRef.group",
        r#""gateway.networking.k8s.io""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        TcpRoute,
        "status.parents[].parentRef.kind",
        r#""Gateway""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        TlsRoute,
        "spec.parentRefs[].group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        TlsRoute,
        "spec.parentRefs[].kind",
        r#""Gateway""#,
        ALL,
        ALL,
        None
    ),
    row!(
        TlsRoute,
        "spec.rules[].backendRefs[].group",
        r#""""#,
        ALL,
        ALL,
        None
    ),
    row!(
        TlsRoute,
        "spec.rules[].backendRefs[].kind",
        r#""Service""#,
        ALL,
        ALL,
        None
    ),
    row!(
        TlsRoute,
        "spec.rules[].backendRefs[].weight",
        "1",
        ALL,
        ALL,
        None
    ),
    row!(
        TlsRoute,
        "status.parents[].parentRef.group",
        r#""gateway.networking.k8s.io""#,
        ALL,
        ALL,
        None
    ),
    row!(
        TlsRoute,
        "status.parents[].parentRef.kind",
        r#""Gateway""#,
        ALL,
        ALL,
        None
    ),
    row!(
        UdpRoute,
        "spec.parentRefs[].group",
        r#""gateway.networking.k8s.io""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        UdpRoute,
        "spec.parentRefs[].kind",
        r#""Gateway""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        UdpRoute,
        "spec.rules[].backendRefs[].group",
        r#""""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        UdpRoute,
        "spec.rules[].backendRefs[].kind",
        r#""Service""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        UdpRoute,
        "spec.rules[].backendRefs[].weight",
        "1",
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        UdpRoute,
        "status.parents[].parentRef.group",
        r#""gateway.networking.k8s.io""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        UdpRoute,
        "status.parents[].parentRef.kind",
        r#""Gateway""#,
        Some(Release::V1_6),
        ALL,
        None
    ),
    row!(
        XBackend,
        "spec.sessionPersistence.cookie.lifetimeType",
        r#""Session""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XBackend,
        "spec.sessionPersistence.cookie.path",
        r#""/""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XBackend,
        "spec.sessionPersistence.type",
        r#""Cookie""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XBackend,
        "spec.tls",
        r#"{"mode":"None"}"#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XBackend,
        "spec.tls.clientCertificateRef.group",
        r#""""#,
        None,
        Some(Release::V1_6),
        None
    ),
    row!(
        XBackend,
        "spec.tls.clientCertificateRef.kind",
        r#""Secret""#,
        None,
        Some(Release::V1_6),
        None
    ),
    row!(
        XBackend,
        "status.ancestors[].ancestorRef.group",
        r#""gateway.networking.k8s.io""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XBackend,
        "status.ancestors[].ancestorRef.kind",
        r#""Gateway""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XBackend,
        "status.parents[].parentRef.group",
        r#""gateway.networking.k8s.io""#,
        None,
        Some(Release::V1_6),
        Some(Release::V1_7)
    ),
    row!(
        XBackend,
        "status.parents[].parentRef.kind",
        r#""Gateway""#,
        None,
        Some(Release::V1_6),
        Some(Release::V1_7)
    ),
    row!(
        XBackendTrafficPolicy,
        "spec.retryConstraint.budget",
        r#"{"interval":"10s","percent":20}"#,
        None,
        ALL,
        None
    ),
    row!(
        XBackendTrafficPolicy,
        "spec.retryConstraint.budget.interval",
        r#""10s""#,
        None,
        ALL,
        None
    ),
    row!(
        XBackendTrafficPolicy,
        "spec.retryConstraint.budget.percent",
        "20",
        None,
        ALL,
        None
    ),
    row!(
        XBackendTrafficPolicy,
        "spec.retryConstraint.minRetryRate",
        r#"{"count":10,"interval":"1s"}"#,
        None,
        ALL,
        None
    ),
    row!(
        XBackendTrafficPolicy,
        "spec.sessionPersistence.cookie.lifetimeType",
        r#""Session""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XBackendTrafficPolicy,
        "spec.sessionPersistence.cookie.path",
        r#""/""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XBackendTrafficPolicy,
        "spec.sessionPersistence.cookieConfig.lifetimeType",
        r#""Session""#,
        None,
        ALL,
        Some(Release::V1_7)
    ),
    row!(
        XBackendTrafficPolicy,
        "spec.sessionPersistence.type",
        r#""Cookie""#,
        None,
        ALL,
        None
    ),
    row!(
        XBackendTrafficPolicy,
        "status.ancestors[].ancestorRef.group",
        r#""gateway.networking.k8s.io""#,
        None,
        ALL,
        None
    ),
    row!(
        XBackendTrafficPolicy,
        "status.ancestors[].ancestorRef.kind",
        r#""Gateway""#,
        None,
        ALL,
        None
    ),
    row!(
        XMesh,
        "status",
        r#"{"conditions":[{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Accepted"}]}"#,
        None,
        ALL,
        None
    ),
    row!(
        XMesh,
        "status.conditions",
        r#"[{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Accepted"},{"lastTransitionTime":"1970-01-01T00:00:00Z","message":"Waiting for controller","reason":"Pending","status":"Unknown","type":"Programmed"}]"#,
        None,
        ALL,
        None
    ),
    row!(
        XTelemetryPolicy,
        "spec.tracing.mode",
        r#""ImplementationDefault""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XTelemetryPolicy,
        "spec.tracing.parentBasedSampling.mode",
        r#""ImplementationDefault""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XTelemetryPolicy,
        "spec.tracing.parentBasedSampling.samplingRate.denominator",
        "100",
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XTelemetryPolicy,
        "spec.tracing.provider.backendRef.group",
        r#""""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XTelemetryPolicy,
        "spec.tracing.provider.backendRef.kind",
        r#""Service""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XTelemetryPolicy,
        "spec.tracing.samplingRate.denominator",
        "100",
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XTelemetryPolicy,
        "status.ancestors[].ancestorRef.group",
        r#""gateway.networking.k8s.io""#,
        None,
        Some(Release::V1_7),
        None
    ),
    row!(
        XTelemetryPolicy,
        "status.ancestors[].ancestorRef.kind",
        r#""Gateway""#,
        None,
        Some(Release::V1_7),
        None
    ),
];

/// Applies to `object` (one whole object of `kind`, `null`s already pruned) every default that
/// `bundle`'s CRDs declare for `kind`, as the API server does: a missing property gets a copy
/// of its default; a present one, whatever its value, is left alone. Returns how many
/// properties were set. Parents are defaulted before their children, so defaults inside a
/// defaulted value apply as well. A path through a value of the wrong type (a string where the
/// schema has an object) is left for typing to refuse.
pub fn apply_defaults(kind: ResourceKind, bundle: Bundle, object: &mut Value) -> usize {
    let mut set = 0;
    // Rows are sorted by path, so a parent (`spec.rules`) comes before its children
    // (`spec.rules[].matches`): a path sorts before every path it prefixes.
    for (row, default) in CRD_DEFAULTS
        .iter()
        .zip(parsed())
        .filter(|(r, _)| r.kind == kind && r.declared_by(bundle))
    {
        // The text is held valid by a test; a row that failed to parse would set nothing.
        let Some(default) = default else {
            continue;
        };
        let (parent, field) = match row.path.rsplit_once('.') {
            Some((parent, field)) => (Some(parent), field),
            None => (None, row.path),
        };
        set += apply_at(object, parent.map(split_path), field, default);
    }
    set
}

/// Each row's value, parsed once per process (decoding a folder of manifests applies the same
/// rows to every object).
fn parsed() -> &'static [Option<Value>] {
    static PARSED: OnceLock<Vec<Option<Value>>> = OnceLock::new();
    PARSED.get_or_init(|| {
        CRD_DEFAULTS
            .iter()
            .map(|row| serde_json::from_str(row.value).ok())
            .collect()
    })
}

/// The segments of a parent path: `spec.rules[].matches[]` is `spec`, `rules[]`, `matches[]`.
fn split_path(path: &str) -> std::str::Split<'_, char> {
    path.split('.')
}

/// Sets `field` to `default` in every object that `parent` leads to from `value`.
fn apply_at<'p>(
    value: &mut Value,
    mut parent: Option<impl Iterator<Item = &'p str> + Clone>,
    field: &str,
    default: &Value,
) -> usize {
    let Some(segment) = parent.as_mut().and_then(Iterator::next) else {
        return set_missing(value, field, default);
    };
    let (key, items) = match segment.strip_suffix("[]") {
        Some(key) => (key, true),
        None => (segment, false),
    };
    let Some(child) = value.as_object_mut().and_then(|o| o.get_mut(key)) else {
        return 0;
    };
    if !items {
        return apply_at(child, parent, field, default);
    }
    let Value::Array(list) = child else {
        return 0;
    };
    list.iter_mut()
        .map(|item| apply_at(item, parent.clone(), field, default))
        .sum()
}

fn set_missing(value: &mut Value, field: &str, default: &Value) -> usize {
    let Some(object): Option<&mut Map<String, Value>> = value.as_object_mut() else {
        return 0;
    };
    if object.contains_key(field) {
        return 0;
    }
    object.insert(field.to_owned(), default.clone());
    1
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const V17: Bundle = Bundle::new(Release::V1_7, Channel::Standard);

    #[test]
    fn rows_are_valid_json_grouped_by_kind_sorted_by_path_and_unique() {
        for row in CRD_DEFAULTS {
            assert!(
                serde_json::from_str::<Value>(row.value).is_ok(),
                "{:?} {}",
                row.kind,
                row.path
            );
            assert!(
                row.standard.is_some() || row.experimental.is_some(),
                "{}",
                row.path
            );
        }
        let mut seen = std::collections::BTreeSet::new();
        for pair in CRD_DEFAULTS.windows(2) {
            if let [a, b] = pair {
                if a.kind != b.kind {
                    assert!(seen.insert(a.kind), "{:?} is not one group", a.kind);
                    continue;
                }
                assert!(
                    a.path < b.path,
                    "{:?} {} / {:?} {}",
                    a.kind,
                    a.path,
                    b.kind,
                    b.path
                );
            }
        }
    }

    // Gateway API ParentReference: group defaults to gateway.networking.k8s.io and kind to
    // Gateway; BackendRef: group "", kind Service, weight 1; HTTPRouteRule.matches defaults to
    // a PathPrefix "/" match (GEP-1364 / the HTTPRoute API reference).
    #[test]
    fn an_httproute_reads_as_the_api_server_stores_it() {
        let mut route = json!({
            "apiVersion": "gateway.networking.k8s.io/v1",
            "kind": "HTTPRoute",
            "metadata": {"name": "r", "namespace": "ns"},
            "spec": {
                "parentRefs": [{"kind": "Service", "name": "web"}, {"group": "", "kind": "Service", "name": "api"}],
                "rules": [
                    {"backendRefs": [{"name": "web", "port": 80}]},
                    {"matches": [{"headers": [{"name": "x", "value": "y"}]}], "backendRefs": [{"name": "web", "port": 80, "weight": 0}]},
                ],
            },
        });
        let set = apply_defaults(ResourceKind::HttpRoute, V17, &mut route);
        assert_eq!(
            route["spec"],
            json!({
                "parentRefs": [
                    {"group": "gateway.networking.k8s.io", "kind": "Service", "name": "web"},
                    {"group": "", "kind": "Service", "name": "api"},
                ],
                "rules": [
                    {
                        "matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
                        "backendRefs": [{"group": "", "kind": "Service", "name": "web", "port": 80, "weight": 1}],
                    },
                    {
                        "matches": [{"headers": [{"name": "x", "type": "Exact", "value": "y"}], "path": {"type": "PathPrefix", "value": "/"}}],
                        "backendRefs": [{"group": "", "kind": "Service", "name": "web", "port": 80, "weight": 0}],
                    },
                ],
            })
        );
        assert_eq!(set, 9);
        // Defaulting twice changes nothing more.
        let again = route.clone();
        assert_eq!(apply_defaults(ResourceKind::HttpRoute, V17, &mut route), 0);
        assert_eq!(route, again);
    }

    #[test]
    fn a_route_without_rules_gets_the_default_rule_and_its_defaults() {
        let mut route = json!({"spec": {"parentRefs": [{"name": "gw"}]}});
        apply_defaults(ResourceKind::HttpRoute, V17, &mut route);
        assert_eq!(
            route["spec"]["rules"],
            json!([{"matches": [{"path": {"type": "PathPrefix", "value": "/"}}]}])
        );
        assert_eq!(
            route["spec"]["parentRefs"][0],
            json!({"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"})
        );
    }

    // GEP-1731: `retry.attempts` defaults to 1 from v1.7; v1.6's experimental CRDs declare no
    // default.
    #[test]
    fn defaults_follow_the_release_and_channel() {
        let rule = || json!({"spec": {"rules": [{"retry": {"codes": [503]}}]}});
        let mut v17 = rule();
        apply_defaults(ResourceKind::HttpRoute, V17, &mut v17);
        assert_eq!(v17["spec"]["rules"][0]["retry"]["attempts"], json!(1));
        let mut v16 = rule();
        apply_defaults(
            ResourceKind::HttpRoute,
            Bundle::new(Release::V1_6, Channel::Experimental),
            &mut v16,
        );
        assert!(v16["spec"]["rules"][0]["retry"].get("attempts").is_none());
        // TCPRoute's standard CRD exists from v1.6 only.
        let tcp = || json!({"spec": {"parentRefs": [{"name": "gw"}], "rules": [{"backendRefs": [{"name": "b", "port": 1}]}]}});
        let mut v15 = tcp();
        let set = apply_defaults(
            ResourceKind::TcpRoute,
            Bundle::new(Release::V1_5, Channel::Standard),
            &mut v15,
        );
        assert_eq!((set, v15), (0, tcp()));
    }

    #[test]
    fn values_of_the_wrong_type_are_left_for_typing() {
        let mut route = json!({"spec": {"parentRefs": "gw", "rules": [3, {"matches": "x"}]}});
        let before = route.clone();
        assert_eq!(apply_defaults(ResourceKind::HttpRoute, V17, &mut route), 0);
        assert_eq!(route, before);
    }
}
