//! Whole floats that a CEL rule reads: the one place where `80.0` is not `80`.
//!
//! The API server's schema validation accepts a whole float for `type: integer` (see
//! `decode/normalize.rs`), but it keeps the number a `float64`, and the CEL evaluator refuses a
//! `float64` where the schema says integer: a rule that reads the field fails with `invalid
//! data, expected int, got float64 evaluating rule: <the rule's message>`, reported at the
//! rule's node (k8s.io/apiserver `pkg/cel/common/values.go`, `UnstructuredToVal`). A rule that
//! never reads the field (the other branch of a `?:`, an `&&` already false) does not fail.
//!
//! Decoding makes the number an integer before typing, so this check reads the document as
//! written, before normalisation. A table per kind lists each integer field a CEL rule reads
//! (of v1.5.1, v1.6.1 and v1.7.0) and when it reads it; the differential test against a real API server
//! (`crates/gamma-kube/tests/validation_differential.rs`, which sends a whole float to every
//! integer field of every CRD version) holds the list complete.

use serde::Serialize;
use serde_json::Value;

use super::path::{push_field, push_index};
use super::{ErrorKind, FieldPath, ValidationError};
use crate::resource::ResourceKind;

/// When a rule reads the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum When {
    /// Every evaluation of the rule reads it.
    Always,
    /// "Must have port for Service reference": `(size(self.group) == 0 && self.kind ==
    /// 'Service') ? has(self.port) : true` reads `port` of a Service reference only (after the
    /// defaults `group: ""`, `kind: Service`).
    ServiceRef,
}

/// An integer field a CEL rule reads.
struct RuleRead {
    /// The field's schema path, `[]` for any list item.
    shape: &'static str,
    /// How many levels above the field the rule sits: 1 on the field's object, 2 on the list
    /// holding that object.
    up: usize,
    /// The rule's message.
    rule: &'static str,
    /// Only the experimental CRDs have this rule (or read the field in it).
    experimental_only: bool,
    when: When,
}

const MUST_HAVE_PORT: &str = "Must have port for Service reference";
const FRACTION: &str = "numerator must be less than or equal to denominator";
const PARENT_PORT: &str = "sectionName or port must be unique when parentRefs includes 2 or more references to the same parent";
const LISTENER: &str =
    "Combination of port, protocol and hostname must be unique for each listener";
const PER_PORT: &str = "Port for TLS configuration must be unique within the Gateway";

const fn read(shape: &'static str, up: usize, rule: &'static str, when: When) -> RuleRead {
    RuleRead {
        shape,
        up,
        rule,
        experimental_only: false,
        when,
    }
}

const fn experimental(shape: &'static str, up: usize, rule: &'static str) -> RuleRead {
    RuleRead {
        shape,
        up,
        rule,
        experimental_only: true,
        when: When::Always,
    }
}

const fn experimental_when(
    shape: &'static str,
    up: usize,
    rule: &'static str,
    when: When,
) -> RuleRead {
    RuleRead {
        shape,
        up,
        rule,
        experimental_only: true,
        when,
    }
}

/// Backend references and mirror fractions of a route with filters (HTTPRoute, GRPCRoute).
macro_rules! filter_route_reads {
    () => {
        [
            read(
                "spec.rules[].backendRefs[].port",
                1,
                MUST_HAVE_PORT,
                When::ServiceRef,
            ),
            read(
                "spec.rules[].filters[].requestMirror.backendRef.port",
                1,
                MUST_HAVE_PORT,
                When::ServiceRef,
            ),
            read(
                "spec.rules[].backendRefs[].filters[].requestMirror.backendRef.port",
                1,
                MUST_HAVE_PORT,
                When::ServiceRef,
            ),
            read(
                "spec.rules[].filters[].externalAuth.backendRef.port",
                1,
                MUST_HAVE_PORT,
                When::ServiceRef,
            ),
            read(
                "spec.rules[].backendRefs[].filters[].externalAuth.backendRef.port",
                1,
                MUST_HAVE_PORT,
                When::ServiceRef,
            ),
            read(
                "spec.rules[].filters[].requestMirror.fraction.numerator",
                1,
                FRACTION,
                When::Always,
            ),
            read(
                "spec.rules[].filters[].requestMirror.fraction.denominator",
                1,
                FRACTION,
                When::Always,
            ),
            read(
                "spec.rules[].backendRefs[].filters[].requestMirror.fraction.numerator",
                1,
                FRACTION,
                When::Always,
            ),
            read(
                "spec.rules[].backendRefs[].filters[].requestMirror.fraction.denominator",
                1,
                FRACTION,
                When::Always,
            ),
            experimental("spec.parentRefs[].port", 2, PARENT_PORT),
        ]
    };
}

const HTTP_GRPC: &[RuleRead] = &filter_route_reads!();
const L4: &[RuleRead] = &[
    read(
        "spec.rules[].backendRefs[].port",
        1,
        MUST_HAVE_PORT,
        When::ServiceRef,
    ),
    experimental("spec.parentRefs[].port", 2, PARENT_PORT),
];
const GATEWAY: &[RuleRead] = &[
    read("spec.listeners[].port", 2, LISTENER, When::Always),
    read(
        "spec.tls.frontend.perPort[].port",
        2,
        PER_PORT,
        When::Always,
    ),
];
const LISTENER_SET: &[RuleRead] = &[read("spec.listeners[].port", 2, LISTENER, When::Always)];
/// XTelemetryPolicy (v1.7, experimental only): the tracing provider's backend reference and
/// the two sampling fractions.
const X_TELEMETRY_POLICY: &[RuleRead] = &[
    experimental_when(
        "spec.tracing.provider.backendRef.port",
        1,
        MUST_HAVE_PORT,
        When::ServiceRef,
    ),
    experimental("spec.tracing.samplingRate.numerator", 1, FRACTION),
    experimental("spec.tracing.samplingRate.denominator", 1, FRACTION),
    experimental(
        "spec.tracing.parentBasedSampling.samplingRate.numerator",
        1,
        FRACTION,
    ),
    experimental(
        "spec.tracing.parentBasedSampling.samplingRate.denominator",
        1,
        FRACTION,
    ),
];

/// The integer fields CEL rules read, per kind (see the module docs).
fn rule_reads(kind: ResourceKind) -> &'static [RuleRead] {
    match kind {
        ResourceKind::HttpRoute | ResourceKind::GrpcRoute => HTTP_GRPC,
        ResourceKind::TlsRoute | ResourceKind::TcpRoute | ResourceKind::UdpRoute => L4,
        ResourceKind::Gateway => GATEWAY,
        ResourceKind::ListenerSet => LISTENER_SET,
        ResourceKind::XTelemetryPolicy => X_TELEMETRY_POLICY,
        _ => &[],
    }
}

/// A whole float that a CEL rule reads: the rule fails.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RuleFloat {
    /// The error, at the rule's node.
    pub error: ValidationError,
    /// Whether only the experimental channel's CRDs have the rule.
    pub experimental_only: bool,
}

/// Every whole float of the document `value` (as written, before decoding normalises it) that
/// a CEL rule of `kind` reads, in the order of the walk (see [`super::FieldCheck`]). Work is
/// linear in the document; nothing is allocated for a kind no rule of which reads an integer,
/// and for others only the two buffers of the walk (the node's path and schema path) and the
/// findings.
pub fn rule_floats(kind: ResourceKind, value: &Value) -> Vec<RuleFloat> {
    let reads = rule_reads(kind);
    let mut walk = Walk {
        reads,
        path: String::new(),
        shape: String::new(),
        out: Vec::new(),
    };
    if !reads.is_empty() {
        walk.node(value);
    }
    walk.out
}

fn is_whole_float(v: &Value) -> bool {
    v.as_f64()
        .is_some_and(|f| v.is_f64() && f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_991.0)
}

/// One walk of a document: the path (`spec.rules[0].backendRefs[1]`) and schema path
/// (`spec.rules[].backendRefs[]`) of the node being walked, grown and cut back in place; a
/// [`FieldPath`] is made only for a finding.
struct Walk {
    reads: &'static [RuleRead],
    path: String,
    shape: String,
    out: Vec<RuleFloat>,
}

impl Walk {
    fn node(&mut self, value: &Value) {
        // Only prefixes of a listed shape can lead to one.
        if !self.reads.iter().any(|r| r.shape.starts_with(&self.shape)) {
            return;
        }
        let (path_len, shape_len) = (self.path.len(), self.shape.len());
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    push_field(&mut self.path, k);
                    push_field(&mut self.shape, k);
                    if is_whole_float(v) {
                        self.found(map);
                    } else {
                        self.node(v);
                    }
                    self.path.truncate(path_len);
                    self.shape.truncate(shape_len);
                }
            }
            Value::Array(items) => {
                self.shape.push_str("[]");
                for (i, v) in items.iter().enumerate() {
                    push_index(&mut self.path, i);
                    self.node(v);
                    self.path.truncate(path_len);
                }
                self.shape.truncate(shape_len);
            }
            _ => {}
        }
    }

    /// The node walked is a whole float, a field of `map`: the rules that read it fail.
    fn found(&mut self, map: &serde_json::Map<String, Value>) {
        for r in self.reads.iter().filter(|r| r.shape == self.shape) {
            if r.when == When::ServiceRef && !is_service_ref(map) {
                continue;
            }
            self.out.push(RuleFloat {
                error: ValidationError::new(
                    up(&self.path, r.up),
                    ErrorKind::Rule {
                        message: format!(
                            "invalid data, expected int, got float64 evaluating rule: {}",
                            r.rule
                        ),
                    },
                ),
                experimental_only: r.experimental_only,
            });
        }
    }
}

/// A backend reference with the API server's defaults: `group` `""` and `kind` `Service`
/// when absent (or `null`, which is pruned before defaulting).
fn is_service_ref(map: &serde_json::Map<String, Value>) -> bool {
    let group = map.get("group").filter(|v| !v.is_null());
    let kind = map.get("kind").filter(|v| !v.is_null());
    group.is_none_or(|g| g.as_str() == Some("")) && kind.is_none_or(|k| k == "Service")
}

/// The path `levels` levels up from the path `field`: the field's object, or the list holding
/// it.
fn up(field: &str, levels: usize) -> FieldPath {
    let mut s = field;
    for _ in 0..levels {
        // Strip one `.name` or one `[i]`, whichever ends the path: `listeners[0].port` ->
        // `listeners[0]` -> `listeners`.
        s = match (s.rfind('.'), s.rfind('[')) {
            (Some(d), Some(b)) if b > d && s.ends_with(']') => &s[..b],
            (Some(d), _) => &s[..d],
            (None, Some(b)) if s.ends_with(']') => &s[..b],
            _ => "",
        };
    }
    FieldPath::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(kind: ResourceKind, v: Value) -> Vec<(String, bool)> {
        rule_floats(kind, &v)
            .into_iter()
            .map(|f| (f.error.path.as_str().to_owned(), f.experimental_only))
            .collect()
    }

    #[test]
    fn a_whole_float_port_of_a_service_reference_fails_must_have_port() {
        let route = json!({"spec": {"rules": [{"backendRefs": [
            {"name": "a", "port": 80.0},
            {"name": "b", "port": 80.0, "group": "x.io", "kind": "Foo"},
            {"name": "c", "port": 80},
            {"name": "d", "port": 80.0, "kind": null}
        ]}]}});
        assert_eq!(
            paths(ResourceKind::HttpRoute, route),
            [
                ("spec.rules[0].backendRefs[0]".to_owned(), false),
                ("spec.rules[0].backendRefs[3]".to_owned(), false)
            ]
        );
    }

    /// v1.7 XTelemetryPolicy: "Must have port for Service reference" on the tracing provider's
    /// `backendRef` and "numerator must be less than or equal to denominator" on each sampling
    /// rate read these integers (found by the differential test on the v1.7.0 experimental
    /// API server: "invalid data, expected int, got float64 evaluating rule").
    #[test]
    fn x_telemetry_policy_whole_floats_read_by_its_rules_fail_them() {
        let policy = json!({"spec": {"tracing": {
            "mode": "Enabled",
            "provider": {"backendRef": {"name": "otel", "port": 4317.0}},
            "samplingRate": {"numerator": 1.0},
            "parentBasedSampling": {"mode": "Enabled",
                                    "samplingRate": {"numerator": 1, "denominator": 2.0}}
        }}});
        assert_eq!(
            paths(ResourceKind::XTelemetryPolicy, policy),
            [
                (
                    "spec.tracing.parentBasedSampling.samplingRate".to_owned(),
                    true
                ),
                ("spec.tracing.provider.backendRef".to_owned(), true),
                ("spec.tracing.samplingRate".to_owned(), true),
            ]
        );
        let backend = json!({"spec": {"tracing": {"mode": "Enabled", "provider": {
            "backendRef": {"group": "gateway.networking.x-k8s.io", "kind": "XBackend",
                           "name": "otel", "port": 4317.0}}}}});
        assert_eq!(paths(ResourceKind::XTelemetryPolicy, backend), []);
    }

    #[test]
    fn list_rules_are_reported_at_the_list_and_fractions_at_their_object() {
        let gw = json!({"spec": {"listeners": [{"name": "a", "port": 80.0}]}});
        assert_eq!(
            paths(ResourceKind::Gateway, gw),
            [("spec.listeners".to_owned(), false)]
        );
        let route = json!({"spec": {"parentRefs": [{"name": "g", "port": 8.0}], "rules": [{"filters": [
            {"type": "RequestMirror", "requestMirror": {"fraction": {"numerator": 1.0}}}
        ]}]}});
        assert_eq!(
            paths(ResourceKind::GrpcRoute, route),
            [
                ("spec.parentRefs".to_owned(), true),
                (
                    "spec.rules[0].filters[0].requestMirror.fraction".to_owned(),
                    false
                )
            ]
        );
    }

    #[test]
    fn integers_fractions_and_unread_fields_are_not_reported() {
        let route = json!({"spec": {"rules": [{"backendRefs": [
            {"name": "a", "port": 80, "weight": 1.0},
            {"name": "b", "port": 80.5}
        ]}]}});
        assert!(paths(ResourceKind::HttpRoute, route).is_empty());
        assert!(paths(ResourceKind::ReferenceGrant, json!({"spec": {"port": 1.0}})).is_empty());
    }
}
