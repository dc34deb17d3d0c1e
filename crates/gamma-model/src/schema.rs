//! JSON Schema (draft 2020-12) of every top-level type, derived with `schemars` from the wire
//! types, so it describes exactly what [`decode`](crate::decode()) accepts.
//!
//! The schemas follow the upstream CRDs' `openAPIV3Schema` (property names, enums, and the
//! `required` lists), which `tests/schema_vs_crd.rs` checks resource by resource; the documented
//! differences are listed in `docs/schema.md`. `required` follows the CRD even where the Rust
//! field is `#[serde(default)]`: decoding is lenient so that one missing field does not hide a
//! whole object, and [`Validate`](crate::Validate) reports the missing field instead.
//!
//! ```
//! use gamma_model::{ResourceKind, schema::schema_for};
//! let schema = schema_for(ResourceKind::HttpRoute);
//! let props = schema.get("properties").and_then(|p| p.as_object()).unwrap();
//! assert!(props.contains_key("spec"));
//! ```

use schemars::Schema;
use serde_json::Value;

use crate::resource::ResourceKind;

/// The JSON Schema of objects of `kind`, as decoded (draft 2020-12, subschemas under `$defs`),
/// with the CRD's `required` lists. The same as [`ResourceKind::json_schema`].
pub fn schema_for(kind: ResourceKind) -> Schema {
    kind.json_schema()
}

impl ResourceKind {
    /// The JSON Schema of this kind's wire type (schemars), with the CRDs' `required` lists
    /// applied (see the [module docs](crate::schema)).
    pub fn json_schema(&self) -> Schema {
        let mut schema = self.derived_schema();
        apply_required(&mut schema);
        schema
    }
}

/// The schema of every kind, in [`ResourceKind::ALL`] order.
pub fn all_schemas() -> Vec<(ResourceKind, Schema)> {
    ResourceKind::ALL
        .iter()
        .map(|&kind| (kind, schema_for(kind)))
        .collect()
}

/// Fields the upstream CRDs require, by schema (type) name. The wire types default them on
/// decode (see the module docs), so `schemars` does not mark them; this table does.
/// `tests/schema_vs_crd.rs` checks it against the CRDs.
const REQUIRED: &[(&str, &[&str])] = &[
    // Top-level objects: every Gateway API CRD requires `spec`.
    ("BackendTlsPolicy", &["spec"]),
    ("Gateway", &["spec"]),
    ("GatewayClass", &["spec"]),
    ("GrpcRoute", &["spec"]),
    ("HttpRoute", &["spec"]),
    ("ListenerSet", &["spec"]),
    ("ReferenceGrant", &["spec"]),
    ("TcpRoute", &["spec"]),
    ("TlsRoute", &["spec"]),
    ("UdpRoute", &["spec"]),
    ("XBackend", &["spec"]),
    ("XBackendTrafficPolicy", &["spec"]),
    ("XMesh", &["spec"]),
    ("XTelemetryPolicy", &["spec"]),
    // Specs.
    ("BackendTlsPolicySpec", &["targetRefs", "validation"]),
    ("BackendTlsPolicyValidation", &["hostname"]),
    ("GatewayClassSpec", &["controllerName"]),
    ("GatewaySpec", &["gatewayClassName", "listeners"]),
    ("ListenerSetSpec", &["listeners", "parentRef"]),
    ("ReferenceGrantSpec", &["from", "to"]),
    ("TcpRouteSpec", &["rules"]),
    ("TlsRouteSpec", &["hostnames", "rules"]),
    ("UdpRouteSpec", &["rules"]),
    ("XBackendSpec", &["port", "type"]),
    ("XBackendTrafficPolicySpec", &["targetRefs"]),
    ("XMeshSpec", &["controllerName"]),
    ("XTelemetryPolicySpec", &["targetRefs"]),
    // Nested types.
    ("BackendObjectReference", &["name"]),
    ("BackendRef", &["name"]),
    (
        "Condition",
        &["lastTransitionTime", "message", "reason", "status", "type"],
    ),
    ("Fraction", &["numerator"]),
    ("FrontendTlsConfig", &["default"]),
    ("FrontendTlsValidation", &["caCertificateRefs"]),
    ("GatewayStatusAddress", &["value"]),
    ("GrpcBackendRef", &["name"]),
    ("GrpcHeaderMatch", &["name", "value"]),
    ("HttpBackendRef", &["name"]),
    ("HttpExternalAuthFilter", &["backendRef", "protocol"]),
    ("HttpHeader", &["name", "value"]),
    ("HttpHeaderMatch", &["name", "value"]),
    ("HttpQueryParamMatch", &["name", "value"]),
    ("HttpRequestMirrorFilter", &["backendRef"]),
    ("L4RouteRule", &["backendRefs"]),
    ("LabelSelectorRequirement", &["key", "operator"]),
    ("Listener", &["name", "port", "protocol"]),
    ("ListenerStatus", &["attachedRoutes", "conditions", "name"]),
    ("LocalObjectReference", &["group", "kind", "name"]),
    ("LocalPolicyTargetReference", &["group", "kind", "name"]),
    ("ObjectReference", &["group", "kind", "name"]),
    ("PolicyTargetReference", &["group", "kind", "name"]),
    (
        "PolicyAncestorStatus",
        &["ancestorRef", "conditions", "controllerName"],
    ),
    ("PolicyStatus", &["ancestors"]),
    ("ParentGatewayReference", &["name"]),
    ("ParentReference", &["name"]),
    ("ReferenceGrantFrom", &["group", "kind", "namespace"]),
    ("ReferenceGrantTo", &["group", "kind"]),
    ("RouteGroupKind", &["kind"]),
    (
        "RouteParentStatus",
        &["conditions", "controllerName", "parentRef"],
    ),
    ("RouteStatus", &["parents"]),
    ("SecretObjectReference", &["name"]),
    // v1.6's required `port.port`; v1.7 renamed it `number` and requires neither (a missing
    // field the release does not declare is not reported: validate::FIELD_SPANS).
    ("XBackendPort", &["port"]),
    ("EndpointSelector", &["matchLabels"]),
    ("SessionHeader", &["name"]),
    ("ListenerRequestFilter", &["type"]),
    ("ExternalHostname", &["hostname"]),
    ("SupportedFeature", &["name"]),
    ("TracingAttribute", &["name", "sourceType"]),
    ("TracingProvider", &["backendRef"]),
    ("TlsPortConfig", &["port", "tls"]),
];

/// Adds the CRDs' `required` lists to a generated schema (its root and `$defs`).
fn apply_required(schema: &mut Schema) {
    let root_name = schema
        .get("title")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(name) = root_name {
        set_required(schema.as_object_mut(), &name);
    }
    if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            set_required(def.as_object_mut(), name);
        }
    }
}

fn set_required(object: Option<&mut serde_json::Map<String, Value>>, name: &str) {
    let (Some(object), Some((_, fields))) = (object, REQUIRED.iter().find(|(n, _)| *n == name))
    else {
        return;
    };
    let mut required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    for f in *fields {
        if !required.iter().any(|r| r == f) {
            required.push((*f).to_owned());
        }
    }
    object.insert(
        "required".into(),
        Value::Array(required.into_iter().map(Value::String).collect()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_an_object_schema_with_api_version_kind_and_metadata() {
        for (kind, schema) in all_schemas() {
            let props = schema
                .get("properties")
                .and_then(Value::as_object)
                .unwrap_or_else(|| panic!("{kind}: no properties"));
            for field in ["apiVersion", "kind", "metadata"] {
                assert!(props.contains_key(field), "{kind}: no {field}");
            }
        }
    }
}
