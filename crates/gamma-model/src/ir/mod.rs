//! The defaulted, validated view of routes that the engines consume.
//!
//! [`crate::gateway`] mirrors the wire format: optional fields stay optional and unknown enum
//! values are kept. This module is the next layer (the regex crate's HIR to the wire's AST):
//! every default the API server would apply is applied, every value has been validated, and the
//! types cannot hold what upstream forbids:
//!
//! - [`Hostname`] / [`PreciseHostname`] / [`HeaderName`] newtypes, constructed only from valid
//!   values;
//! - [`PathMatch`]`::{Exact(`[`Path`]`), Prefix(`[`PathPrefix`]`), RegularExpression}`, prefixes
//!   normalised (a trailing `/` dropped except for the root);
//! - header matches with lower-cased names, later case-insensitive duplicates dropped
//!   (Gateway API HTTPHeaderMatch); query-parameter duplicates (case-sensitive) dropped (Gateway
//!   API HTTPQueryParamMatch);
//! - [`Method`] with only the nine upstream methods;
//! - the strings copied out of the wire objects for every rule (paths, header and query names
//!   and values, backend names) as [`IrString`]s, which hold short text inline: converting a
//!   route allocates for its lists, not for each of its short strings;
//! - omitted `rules`, `matches` and `path` become `PathPrefix /` (Gateway API
//!   HTTPRouteRule.matches); backend refs get group `""`, kind `Service`, the route's namespace and
//!   weight 1 (Gateway API BackendObjectReference); parent refs get group
//!   `gateway.networking.k8s.io` and kind `Gateway` (Gateway API ParentReference); redirects get
//!   status 302 (Gateway API HTTPRequestRedirectFilter); mirrors get a [`Fraction`] (100/100 when
//!   neither `percent` nor `fraction` is set).
//!
//! # Whole routes and partially invalid routes
//!
//! [`HttpRoute::from_wire`] (and the GRPC/TLS/TCP/UDP equivalents) converts a route that is
//! valid as a whole and returns every validation error otherwise. Engines that must keep the
//! valid rules of a partially invalid route (Gateway API HTTPRouteRule.filters: an invalid rule
//! makes only that rule invalid; the route gets `PartiallyInvalid`) use
//! [`HttpRoute::from_wire_partial`]:
//!
//! - errors outside `spec.rules[i]` (metadata, parentRefs, hostnames, the rule count, the total
//!   number of matches, rule-name uniqueness) reject the route;
//! - a rule with errors is dropped and reported in [`Partial::dropped`], with its errors;
//! - when every rule is dropped the route is still returned, without rules, and every rule is
//!   in [`Partial::dropped`] ([`Partial::all_rules_dropped`]): such a route is invalid (Gateway
//!   API HTTPRouteRule.filters: "If all Route Rules in a Route are invalid, the entire Route
//!   would be considered invalid"), and an engine
//!   reports it rule by rule, with each rule's own reason, as it does for a partially invalid
//!   one.
//!
//! ```
//! use gamma_model::gateway::HttpRoute as WireRoute;
//! use gamma_model::ir::{HttpRoute, PathMatch};
//! use gamma_model::validate::ValidateOptions;
//!
//! let wire: WireRoute = serde_json::from_value(serde_json::json!({
//!     "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
//!     "metadata": {"name": "r", "namespace": "shop"},
//!     "spec": {
//!         "parentRefs": [{"group": "", "kind": "Service", "name": "cart", "port": 80}],
//!         "rules": [
//!             {"matches": [{"path": {"type": "PathPrefix", "value": "/v2/"}}],
//!              "backendRefs": [{"name": "cart-v2", "port": 80}]},
//!             {"matches": [{"path": {"value": "/a/.."}}]}
//!         ]
//!     }
//! })).unwrap();
//!
//! // As a whole the route is invalid (rule 1 has a bad path) ...
//! assert!(HttpRoute::from_wire(&wire).is_err());
//! // ... but rule 0 can be kept.
//! let partial = HttpRoute::from_wire_partial(&wire, &ValidateOptions::default()).unwrap();
//! assert!(partial.is_partially_invalid());
//! assert_eq!(partial.dropped[0].index, 1);
//! let route = partial.value;
//! assert_eq!(route.rules.len(), 1);
//! assert_eq!(route.rules[0].index, 0);
//! match &route.rules[0].matches[0].path {
//!     PathMatch::Prefix(p) => assert_eq!(p.as_str(), "/v2"),
//!     other => panic!("unexpected {other:?}"),
//! }
//! let backend = &route.rules[0].backend_refs[0].backend;
//! assert_eq!((&*backend.target.namespace, backend.weight), ("shop", 1));
//! ```

mod filter;
mod grpc;
mod http;
mod l4;
mod names;
mod path;
mod refs;
mod route;
mod string;

pub use filter::{ExtensionRef, Fraction, HeaderMatch, HeaderModifier, Mirror, ValueMatch};
pub use grpc::{GrpcBackend, GrpcFilter, GrpcMatch, GrpcMethodMatch, GrpcRoute, GrpcRule};
pub use http::{
    CorsPolicy, HttpBackend, HttpFilter, HttpMatch, HttpRoute, HttpRule, Method, PathModifier,
    QueryParamMatch, Redirect, RedirectScheme, RedirectStatus, Retry, Timeouts, UrlRewrite,
};
pub use l4::{L4Rule, TcpRoute, TlsRoute, UdpRoute};
pub use names::{HeaderName, Hostname, PreciseHostname};
pub use path::{Path, PathMatch, PathPrefix};
pub use refs::{BackendTarget, ParentRef, WeightedBackend};
pub use route::Route;
pub use string::IrString;

use serde::Serialize;

use crate::validate::{ValidationError, ValidationErrors};

/// A route converted with its invalid rules dropped.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Partial<T> {
    /// The route, holding only the valid rules.
    pub value: T,
    /// The rules that were dropped, in rule order.
    pub dropped: Vec<DroppedRule>,
    /// How many rules were kept.
    #[serde(skip)]
    kept: usize,
}

impl<T> Partial<T> {
    /// Whether any rule was dropped (the route's condition should carry `PartiallyInvalid`).
    pub fn is_partially_invalid(&self) -> bool {
        !self.dropped.is_empty()
    }

    /// The same conversion result around `f(value)` (e.g. a route kind wrapped in [`Route`]).
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Partial<U> {
        Partial {
            value: f(self.value),
            dropped: self.dropped,
            kept: self.kept,
        }
    }

    /// Whether every written rule was dropped (none was kept): the route is invalid, and
    /// [`Partial::dropped`] says why rule by rule.
    pub fn all_rules_dropped(&self) -> bool {
        !self.dropped.is_empty() && self.kept == 0
    }
}

/// A rule dropped from a partially invalid route, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct DroppedRule {
    /// The index of the rule in the route's `spec.rules`.
    pub index: usize,
    /// The rule's name, if it has one.
    pub name: Option<String>,
    /// Everything wrong with it (paths are from the route's root, e.g. `spec.rules[1]...`).
    pub errors: ValidationErrors,
}

impl DroppedRule {
    /// Whether the rule was dropped only because of values this version does not know
    /// (condition reason `UnsupportedValue` rather than a plain invalid rule).
    pub fn is_unsupported_value(&self) -> bool {
        self.errors
            .errors()
            .iter()
            .all(ValidationError::is_unsupported_value)
    }
}

/// Every validation error of `object`, after a cheap counting pass (no paths are built for a
/// valid object). Also returns the base path conversion should use: detached when the object
/// is valid (conversion cannot fail then, so its paths are never read), the root otherwise.
///
/// `known_valid`: the caller already knows the object is valid under `opts` (a verdict the
/// [`Snapshot`](crate::Snapshot) keeps): nothing is validated again.
fn collect<T: crate::validate::Validate + ?Sized>(
    object: &T,
    opts: &crate::validate::ValidateOptions,
    known_valid: bool,
) -> (Vec<ValidationError>, crate::validate::FieldPath) {
    use crate::validate::{Errors, FieldPath};
    if known_valid {
        return (Vec::new(), FieldPath::detached());
    }
    let mut probe = Errors::counting();
    object.collect_errors(&FieldPath::detached(), opts, &mut probe);
    if probe.is_empty() {
        return (Vec::new(), FieldPath::detached());
    }
    let mut errors = Errors::default();
    object.collect_errors(&FieldPath::root(), opts, &mut errors);
    (errors.into_vec(), FieldPath::root())
}

/// Splits validation errors into route-level ones and those inside `spec.rules[i]`.
fn partition(
    errors: Vec<ValidationError>,
    rule_count: usize,
) -> (Vec<ValidationError>, Vec<Vec<ValidationError>>) {
    let mut route = Vec::new();
    let mut rules: Vec<Vec<ValidationError>> = vec![Vec::new(); rule_count];
    for e in errors {
        match e.rule_index().and_then(|i| rules.get_mut(i)) {
            Some(bucket) => bucket.push(e),
            None => route.push(e),
        }
    }
    (route, rules)
}

/// The shared driver of `from_wire_partial`: `validate` collects every error of the route,
/// `convert` turns rule `i` (known to be valid) into its IR.
fn convert_partial<R, T>(
    errors: Vec<ValidationError>,
    rule_names: &[Option<String>],
    mut convert: impl FnMut(usize) -> Result<R, ValidationErrors>,
    build: impl FnOnce(Vec<R>) -> T,
) -> Result<Partial<T>, ValidationErrors> {
    // a valid route (every route of a validated snapshot) has no errors to sort into rules:
    // no bucket per rule is allocated then
    let mut rule_errors = if errors.is_empty() {
        Vec::new()
    } else {
        let (route_errors, rule_errors) = partition(errors, rule_names.len());
        if let Some(e) = ValidationErrors::from_vec(route_errors) {
            return Err(e);
        }
        rule_errors
    };
    // exact size: rules are large, and growing the list moves every converted rule
    let mut kept = Vec::with_capacity(rule_names.len());
    let mut dropped = Vec::new();
    for index in 0..rule_names.len() {
        let errs = rule_errors.get_mut(index).map(std::mem::take);
        let outcome = match errs.and_then(ValidationErrors::from_vec) {
            Some(e) => Err(e),
            None => convert(index),
        };
        match outcome {
            Ok(rule) => kept.push(rule),
            Err(errors) => dropped.push(DroppedRule {
                index,
                name: rule_names.get(index).cloned().flatten(),
                errors,
            }),
        }
    }
    Ok(Partial {
        kept: kept.len(),
        value: build(kept),
        dropped,
    })
}

/// A `ValidationErrors` for a state the callers rule out (a dropped rule always has errors).
fn unreachable_errors() -> ValidationErrors {
    ValidationErrors::single(ValidationError::new(
        crate::validate::FieldPath::from("spec.rules"),
        crate::validate::ErrorKind::Rule {
            message: "every rule is invalid".into(),
        },
    ))
}
