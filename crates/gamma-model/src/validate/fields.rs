//! Field presence, as the API server sees it before any typed check: unknown fields, missing
//! required fields, and fields only the experimental channel's CRDs declare.
//!
//! Decoding is tolerant (a field added by a newer CRD must never make an object unreadable), so
//! the wire types drop unknown fields and default absent ones; what was dropped or absent can
//! only be seen in the untyped document. [`check_fields`] walks it against the kind's JSON
//! Schema ([`ResourceKind::json_schema`], which `tests/schema_vs_crd.rs` holds equal to the
//! CRDs' property names and `required` lists) and records:
//!
//! - **unknown fields**: what the API server's strict field validation (`fieldValidation=Strict`,
//!   kubectl's default) rejects as `unknown field "spec.parentRef"`, and `Warn` prunes;
//! - **missing required fields**: `Required value` (after `null`s are dropped, see decode);
//! - **experimental-only fields**: declared by the experimental CRDs only, so unknown fields on
//!   the standard channel ([`EXPERIMENTAL_ONLY`]).
//!
//! [`validate_checked`] merges that record with the typed validation, by channel and
//! [`FieldValidation`] mode. It runs only when asked ([`DecodeOptions::check_fields`]), so the
//! ordinary decode path does no per-field work for it.
//!
//! The core Service, Namespace, EndpointSlice and ConfigMap have no CRD, and gamma-rs models
//! them only in part, so their wire types' schemas are not the API server's: they are walked
//! against the field names of the API server's own OpenAPI document instead
//! ([`CORE_FIELD_SCHEMA`]), for unknown fields only (the API server's strict decoding of
//! built-in types; their required fields are the typed validation's). The SMI kinds are not walked. `metadata` is checked
//! against the whole Kubernetes `ObjectMeta`.
//!
//! [`DecodeOptions::check_fields`]: crate::DecodeOptions::check_fields

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::{Map, Value};

use super::floats::RuleFloat;
use super::options::FieldValidation;
use super::path::{push_field, push_index};
use super::{ErrorKind, FieldPath, Validate, ValidateOptions, ValidationError};
use crate::resource::{AnyResource, ResourceKind};
use crate::validate::Channel;

/// Fields the experimental channel's CRDs declare and the standard channel's do not, by kind,
/// as schema paths (`[]` for any list item), in any supported release: a release that lacks
/// one altogether says so in [`FIELD_SPANS`](super::FIELD_SPANS), and one that made it standard
/// in [`STANDARD_SINCE`](super::STANDARD_SINCE). The same for every served version of a kind;
/// `tests/fields_vs_crd.rs` derives this list from the two channels' CRDs of every release.
pub const EXPERIMENTAL_ONLY: &[(ResourceKind, &[&str])] = &[
    (
        ResourceKind::HttpRoute,
        &[
            "spec.useDefaultGateways",
            "spec.rules[].retry",
            "spec.rules[].sessionPersistence",
            "spec.rules[].filters[].externalAuth",
            "spec.rules[].backendRefs[].filters[].externalAuth",
        ],
    ),
    (
        ResourceKind::GrpcRoute,
        &["spec.useDefaultGateways", "spec.rules[].sessionPersistence"],
    ),
    (ResourceKind::TlsRoute, &["spec.useDefaultGateways"]),
    (ResourceKind::TcpRoute, &["spec.useDefaultGateways"]),
    (ResourceKind::UdpRoute, &["spec.useDefaultGateways"]),
    (
        ResourceKind::Gateway,
        &[
            "spec.addresses[].routability",
            "spec.defaultScope",
            "spec.listeners[].filters",
            "status.addresses[].routability",
        ],
    ),
    (ResourceKind::ListenerSet, &["spec.listeners[].filters"]),
];

/// Required by the kind's current schema but optional in an older served version:
/// (kind, `/version`, field).
const OPTIONAL_IN_VERSION: &[(ResourceKind, &str, &str)] =
    &[(ResourceKind::TlsRoute, "/v1alpha2", "spec.hostnames")];

/// Every field of the Kubernetes `ObjectMeta` (k8s.io/apimachinery `meta/v1`), which the API
/// server knows for every object even where gamma-rs models only a subset.
pub const OBJECT_META_FIELDS: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// The field names of the core kinds (Service, Namespace, EndpointSlice, ConfigMap) as the API
/// server knows them: its OpenAPI v3 document (`/openapi/v3/api/v1`,
/// `/openapi/v3/apis/discovery.k8s.io/v1`, Kubernetes v1.37) reduced to `properties`, `items`,
/// `additionalProperties` and `$ref`s, `{"kinds": {Kind: {"$ref"}}, "$defs": {...}}`. Derived
/// from a live API server and held equal to it by gamma-kube's
/// `core_kinds_have_the_api_servers_fields_and_refuse_unknown_ones` (`GAMMA_BLESS=1` rewrites
/// it), so no field name is written by hand.
pub const CORE_FIELD_SCHEMA: &str = include_str!("core_fields.json");

/// The schema [`Walk`] reads for a core kind: the kind's root and every definition.
fn core_schema(kind: ResourceKind) -> Option<Value> {
    let name = match kind {
        ResourceKind::Service => "Service",
        ResourceKind::Namespace => "Namespace",
        ResourceKind::EndpointSlice => "EndpointSlice",
        ResourceKind::ConfigMap => "ConfigMap",
        _ => return None,
    };
    // The embedded text is checked by a test; a parse failure would be a build defect, and
    // then the kind is not walked rather than the decode failing.
    let mut all: Value = serde_json::from_str(CORE_FIELD_SCHEMA).ok()?;
    let root = all.get("kinds")?.get(name)?.clone();
    let defs = all.get_mut("$defs")?.take();
    let mut schema = root;
    schema.as_object_mut()?.insert("$defs".into(), defs);
    Some(schema)
}

/// What [`check_fields`] found in one document.
///
/// Each list is in the order of the walk: list items in order, an object's members in the
/// order of `serde_json::Map` (sorted by key, or as written when a crate in the program turns
/// on serde_json's `preserve_order` feature), an object's missing fields in the order of its
/// schema's `required` list. Callers that report by position sort by line (gammactl does).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FieldCheck {
    /// Whether the document was walked (false for the SMI kinds, see the module docs).
    pub checked: bool,
    /// Fields no schema of the kind declares.
    pub unknown: Vec<FieldPath>,
    /// Required fields that are absent.
    pub missing: Vec<FieldPath>,
    /// Fields only the experimental channel declares ([`EXPERIMENTAL_ONLY`]).
    pub experimental: Vec<FieldPath>,
    /// Fields only some releases declare ([`FIELD_SPANS`](super::FIELD_SPANS)).
    pub release_bound: Vec<FieldPath>,
    /// Lists where the schema has an object.
    pub wrong_type: Vec<FieldPath>,
    /// Whole floats a CEL rule reads, which fail that rule ([`super::floats`]); found by
    /// decoding, which sees the numbers as written.
    pub rule_floats: Vec<RuleFloat>,
}

/// Walks the untyped object `value` of `kind` against the kind's schema.
///
/// Expects `null` members already dropped, as decoding does. Work and memory are linear in the
/// document; each kind's schema is generated once per process, on its first use.
pub fn check_fields(kind: ResourceKind, value: &Value) -> FieldCheck {
    match KindSchema::of(kind) {
        Some(schema) => schema.check(value),
        None => FieldCheck::default(),
    }
}

/// A kind's schema, ready to walk documents of that kind.
pub(crate) struct KindSchema {
    kind: ResourceKind,
    schema: Value,
}

impl KindSchema {
    /// The schema of `kind`, generated on first use and kept for the life of the process
    /// (`None` for the kinds that are not walked, SMI). Generating one costs about a million
    /// instructions (schemars derives it, then the CRDs' `required` lists are added), and
    /// callers that decode document by document (gammactl, so that one bad document does not
    /// hide the others) would otherwise pay that for every object.
    pub(crate) fn of(kind: ResourceKind) -> Option<&'static KindSchema> {
        const KINDS: usize = ResourceKind::ALL.len();
        static SCHEMAS: [OnceLock<Option<KindSchema>>; KINDS] = [const { OnceLock::new() }; KINDS];
        let i = ResourceKind::ALL.iter().position(|k| *k == kind)?;
        SCHEMAS
            .get(i)?
            .get_or_init(|| KindSchema::new(kind))
            .as_ref()
    }

    /// `None` for the kinds that are not walked (SMI).
    fn new(kind: ResourceKind) -> Option<KindSchema> {
        if let Some(schema) = core_schema(kind) {
            return Some(KindSchema { kind, schema });
        }
        has_crd(kind).then(|| KindSchema {
            kind,
            schema: Value::from(kind.json_schema()),
        })
    }

    pub(crate) fn check(&self, value: &Value) -> FieldCheck {
        let mut walk = Walk {
            defs: self.schema.get("$defs").and_then(Value::as_object),
            experimental: EXPERIMENTAL_ONLY
                .iter()
                .find(|(k, _)| *k == self.kind)
                .map_or(&[], |(_, paths)| *paths),
            release_bound: super::by_release::spans_of(self.kind)
                .map(|s| s.shape)
                .collect(),
            out: FieldCheck {
                checked: true,
                ..FieldCheck::default()
            },
            path: String::new(),
            shape: String::new(),
        };
        walk.node(value, &self.schema);
        // One wire type serves every version; older versions required less.
        let version = value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        for (kind, v, field) in OPTIONAL_IN_VERSION {
            if *kind == self.kind && version.ends_with(v) {
                walk.out.missing.retain(|p| p.as_str() != *field);
            }
        }
        walk.out
    }
}

/// Whether the kind is defined by a Gateway API CRD (and so is walked).
fn has_crd(kind: ResourceKind) -> bool {
    !matches!(
        kind,
        ResourceKind::Service
            | ResourceKind::Namespace
            | ResourceKind::EndpointSlice
            | ResourceKind::ConfigMap
            | ResourceKind::Secret
            | ResourceKind::ClusterTrustBundle
            | ResourceKind::Pod
            | ResourceKind::XAuthorizationPolicy
            | ResourceKind::TrafficSplit
            | ResourceKind::HttpRouteGroup
            | ResourceKind::SmiTcpRoute
            | ResourceKind::SmiUdpRoute
            | ResourceKind::TrafficTarget
    )
}

/// One walk of a document. The path (`spec.rules[0].retry`) and the schema path
/// (`spec.rules[].retry`, what [`EXPERIMENTAL_ONLY`] lists) of the node being walked are two
/// buffers grown and cut back as the walk goes down and up: a [`FieldPath`] is made only for a
/// finding, which a valid document has none of.
struct Walk<'a> {
    defs: Option<&'a Map<String, Value>>,
    experimental: &'a [&'a str],
    release_bound: Vec<&'static str>,
    out: FieldCheck,
    path: String,
    shape: String,
}

impl<'a> Walk<'a> {
    /// The schema a node stands for: `$ref` followed, the non-null branch of an `anyOf`.
    fn resolve(&self, mut schema: &'a Value) -> &'a Value {
        // Bounded: schemars emits a `$ref` or an `anyOf` of one schema and `null`, never a loop
        // of references without a type in between.
        for _ in 0..8 {
            if let Some(name) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            {
                match self.defs.and_then(|d| d.get(name)) {
                    Some(s) => schema = s,
                    None => return schema,
                }
            } else if let Some(Value::Array(any)) = schema.get("anyOf") {
                match any
                    .iter()
                    .find(|s| s.get("type").and_then(Value::as_str) != Some("null"))
                {
                    Some(s) => schema = s,
                    None => return schema,
                }
            } else {
                return schema;
            }
        }
        schema
    }

    /// The path of the node being walked.
    fn here(&self) -> FieldPath {
        FieldPath::from(self.path.as_str())
    }

    /// The path of field `name` of the node being walked.
    fn field(&self, name: &str) -> FieldPath {
        let mut text = self.path.clone();
        push_field(&mut text, name);
        FieldPath::from(text.as_str())
    }

    /// Walks `value` against `schema`; the buffers hold the node's path and shape.
    fn node(&mut self, value: &Value, schema: &'a Value) {
        let schema = self.resolve(schema);
        let (path_len, shape_len) = (self.path.len(), self.shape.len());
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = schema.get("properties") {
                    self.object(map, props, schema);
                } else if let Some(items) =
                    schema.get("additionalProperties").filter(|s| s.is_object())
                {
                    self.shape.push_str("{}");
                    for (k, v) in map {
                        self.path.push('[');
                        self.path.push_str(k);
                        self.path.push(']');
                        self.node(v, items);
                        self.path.truncate(path_len);
                    }
                }
                // Anything else is opaque (kept as JSON by gamma-rs): nothing to check.
            }
            Value::Array(items) => {
                if schema.get("properties").is_some() {
                    self.out.wrong_type.push(self.here());
                } else if let Some(item_schema) = schema.get("items") {
                    self.shape.push_str("[]");
                    for (i, v) in items.iter().enumerate() {
                        push_index(&mut self.path, i);
                        self.node(v, item_schema);
                        self.path.truncate(path_len);
                    }
                }
            }
            _ => {}
        }
        self.shape.truncate(shape_len);
    }

    fn object(
        &mut self,
        map: &Map<String, Value>,
        props: &'a Map<String, Value>,
        schema: &'a Value,
    ) {
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(name) {
                    let missing = self.field(name);
                    self.out.missing.push(missing);
                }
            }
        }
        let (path_len, shape_len) = (self.path.len(), self.shape.len());
        for (k, v) in map {
            push_field(&mut self.path, k);
            push_field(&mut self.shape, k);
            if self.shape == "metadata" {
                self.metadata(v);
            } else {
                match props.get(k) {
                    Some(sub) => {
                        if self.experimental.contains(&self.shape.as_str()) {
                            self.out.experimental.push(self.here());
                        }
                        if self.release_bound.contains(&self.shape.as_str()) {
                            self.out.release_bound.push(self.here());
                        }
                        self.node(v, sub);
                    }
                    None => self.out.unknown.push(self.here()),
                }
            }
            self.path.truncate(path_len);
            self.shape.truncate(shape_len);
        }
    }

    fn metadata(&mut self, value: &Value) {
        if let Value::Object(map) = value {
            for k in map.keys() {
                if !OBJECT_META_FIELDS.contains(&k.as_str()) {
                    let unknown = self.field(k);
                    self.out.unknown.push(unknown);
                }
            }
        }
    }
}

/// The outcome of [`validate_checked`]: errors (the object is refused) and warnings (it is
/// accepted; the API server returns them as `Warning` headers).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// Why the object would be refused; empty when it is valid.
    pub errors: Vec<ValidationError>,
    /// Unknown fields under [`FieldValidation::Warn`], and header values the engine refuses
    /// though the CRD admits them ([`ErrorKind::ControlCharacter`]).
    pub warnings: Vec<ValidationError>,
}

impl Report {
    /// Whether the object would be accepted.
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Validates `resource` together with what [`check_fields`] found in its document, as the API
/// server validates a create: the `apiVersion` served on the channel
/// ([`served`](super::served::served)), unknown fields per `opts.field_validation` (experimental-only
/// fields count as unknown on the standard channel), missing required fields, then every typed
/// rule ([`Validate`]). Under `Warn` and `Ignore`, errors inside a field the API server would
/// prune are dropped, as that field would not be there to check.
pub fn validate_checked(
    resource: &AnyResource,
    fields: &FieldCheck,
    opts: &ValidateOptions,
) -> Report {
    let kind = resource.kind();
    // each kind under its own CRD's bundle
    let opts = &*opts.for_kind(kind);
    let mut unknown: Vec<&FieldPath> = fields.unknown.iter().collect();
    if opts.channel == Channel::Standard {
        unknown.extend(
            fields
                .experimental
                .iter()
                .filter(|p| !super::by_release::standard_in(kind, &shape_of(p), opts.release)),
        );
    }
    unknown.extend(
        fields
            .release_bound
            .iter()
            .filter(|p| !super::by_release::declared(kind, &shape_of(p), opts.release)),
    );
    unknown.sort();
    // The API server's decoder stops at the first unknown field of a subtree: one below
    // another (a v1.7 field inside an experimental-only parent, on the standard channel) is not
    // reported again.
    let mut outer: Vec<&FieldPath> = Vec::with_capacity(unknown.len());
    for p in unknown {
        if !outer.iter().any(|o| is_within(p, o)) {
            outer.push(p);
        }
    }
    let unknown = outer;
    let unknown_errors = unknown
        .iter()
        .map(|p| ValidationError::new((*p).clone(), ErrorKind::UnknownField));
    let mut report = Report::default();
    // An unserved version never reaches decoding (404 Not Found).
    if let Some(message) =
        super::served::not_served_message(resource.kind(), resource.api_version(), opts.as_bundle())
    {
        report.errors.push(ValidationError::new(
            FieldPath::root().field("apiVersion"),
            ErrorKind::NotServed { message },
        ));
        return report;
    }
    match opts.field_validation {
        // The API server refuses a strict decoding error before validating anything else
        // (k8s.io/apiserver `endpoints/handlers/create.go`): the unknown fields are the answer.
        FieldValidation::Strict if !unknown.is_empty() => {
            report.errors.extend(unknown_errors);
            return report;
        }
        FieldValidation::Strict | FieldValidation::Ignore => {}
        FieldValidation::Warn => report.warnings.extend(unknown_errors),
    }
    // Pruned fields are not there to check.
    let pruned = |p: &FieldPath| unknown.iter().any(|u| is_within(p, u));
    for p in fields.wrong_type.iter().filter(|p| !pruned(p)) {
        report.errors.push(ValidationError::new(
            p.clone(),
            ErrorKind::WrongType { expected: "object" },
        ));
    }
    for f in &fields.rule_floats {
        if (opts.channel == Channel::Experimental || !f.experimental_only) && !pruned(&f.error.path)
        {
            report.errors.push(f.error.clone());
        }
    }
    for p in &fields.missing {
        if !pruned(p) && super::by_release::required_in(kind, &shape_of(p), opts.release) {
            report
                .errors
                .push(ValidationError::new(p.clone(), ErrorKind::Required));
        }
    }
    // Header values with CR, LF or NUL where the CRD admits them are valid for the API server
    // but never programmed by gamma-rs: warnings, so that `validate` says what the engine does.
    let engine = ValidateOptions {
        refuse_control_characters: true,
        ..opts.clone()
    };
    if let Err(typed) = resource.validate_with(&engine) {
        for e in typed {
            let list = if e.kind == ErrorKind::ControlCharacter {
                &mut report.warnings
            } else {
                &mut report.errors
            };
            if !pruned(&e.path) && !list.contains(&e) {
                list.push(e);
            }
        }
    }
    report
}

/// The shape of a field path: its indices and map keys written `[]` (`spec.rules[0].retry` is
/// `spec.rules[].retry`), as [`EXPERIMENTAL_ONLY`] and
/// [`STANDARD_SINCE`](super::STANDARD_SINCE) name fields.
fn shape_of(path: &FieldPath) -> String {
    let mut out = String::with_capacity(path.as_str().len());
    let mut in_brackets = false;
    for c in path.as_str().chars() {
        match c {
            '[' => {
                in_brackets = true;
                out.push_str("[]");
            }
            ']' => in_brackets = false,
            _ if in_brackets => {}
            _ => out.push(c),
        }
    }
    out
}

/// Whether `path` is `ancestor` or lies below it.
fn is_within(path: &FieldPath, ancestor: &FieldPath) -> bool {
    let (p, a) = (path.as_str(), ancestor.as_str());
    p.strip_prefix(a)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // A kind's schema is generated once and shared by every later walk (decoding document
    // by document must not pay schemars' generation per object); the kinds without a CRD or
    // core field list (SMI, Secret) have none.
    #[test]
    fn each_kinds_schema_is_generated_once_and_shared() {
        for kind in ResourceKind::ALL {
            let (a, b) = (KindSchema::of(*kind), KindSchema::of(*kind));
            match (a, b) {
                (Some(a), Some(b)) => assert!(std::ptr::eq(a, b), "{kind:?}"),
                (None, None) => assert!(
                    !has_crd(*kind) && core_schema(*kind).is_none(),
                    "{kind:?} has a schema to walk"
                ),
                _ => panic!("{kind:?}: one lookup found a schema, the other did not"),
            }
        }
        assert!(KindSchema::of(ResourceKind::HttpRoute).is_some());
        assert!(KindSchema::of(ResourceKind::Service).is_some());
        assert!(KindSchema::of(ResourceKind::TrafficSplit).is_none());
    }

    #[test]
    fn unknown_missing_and_experimental_fields_are_found_at_their_paths() {
        let doc = json!({
            "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
            "metadata": {"name": "r", "ownerReferences": [], "zz": 1},
            "spec": {
                "parentRef": [],
                "rules": [{"zz": 1, "retry": {}, "backendRefs": [{"port": 80}]}]
            }
        });
        let found = check_fields(ResourceKind::HttpRoute, &doc);
        let paths = |v: &[FieldPath]| v.iter().map(|p| p.as_str().to_owned()).collect::<Vec<_>>();
        assert_eq!(
            paths(&found.unknown),
            ["metadata.zz", "spec.parentRef", "spec.rules[0].zz"]
        );
        assert_eq!(paths(&found.missing), ["spec.rules[0].backendRefs[0].name"]);
        assert_eq!(paths(&found.experimental), ["spec.rules[0].retry"]);
    }

    #[test]
    fn a_list_where_the_schema_has_an_object_is_the_wrong_type() {
        // serde reads `[]` as a struct with every field absent; the API server refuses it
        // ("must be of type object").
        let doc = json!({
            "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
            "metadata": {"name": "r"},
            "spec": {"rules": [{"timeouts": [], "matches": [[]]}]}
        });
        let found = check_fields(ResourceKind::HttpRoute, &doc);
        let paths: Vec<_> = found.wrong_type.iter().map(FieldPath::as_str).collect();
        assert_eq!(
            paths,
            ["spec.rules[0].matches[0]", "spec.rules[0].timeouts"]
        );
    }

    #[test]
    fn core_kinds_are_walked_against_the_api_servers_field_names() {
        // Known to the API server though gamma-rs does not model them: sessionAffinity,
        // status.loadBalancer, an endpoint's hints; unknown: the misspellings.
        let service = json!({
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
            "spec": {"sessionAffinity": "ClientIP", "ports": [{"port": 80, "zz": 1}], "selectr": {}},
            "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.1", "zz": 1}]}}
        });
        let found = check_fields(ResourceKind::Service, &service);
        let paths: Vec<_> = found.unknown.iter().map(FieldPath::as_str).collect();
        assert_eq!(
            paths,
            [
                "spec.ports[0].zz",
                "spec.selectr",
                "status.loadBalancer.ingress[0].zz"
            ]
        );
        assert!(found.missing.is_empty());
        let slice = json!({
            "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "s"}, "addressType": "IPv4",
            "endpoints": [{"addresses": [], "hints": {"forZones": [{"name": "a", "zz": 1}]}}]
        });
        let found = check_fields(ResourceKind::EndpointSlice, &slice);
        let paths: Vec<_> = found.unknown.iter().map(FieldPath::as_str).collect();
        assert_eq!(paths, ["endpoints[0].hints.forZones[0].zz"]);
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"},
                        "spec": {"finalizers": []}, "zz": 1});
        let found = check_fields(ResourceKind::Namespace, &ns);
        let paths: Vec<_> = found.unknown.iter().map(FieldPath::as_str).collect();
        assert_eq!(paths, ["zz"]);
    }

    #[test]
    fn within_is_by_whole_segments() {
        let a = FieldPath::from("spec.rules[0].retry");
        assert!(is_within(&FieldPath::from("spec.rules[0].retry.codes"), &a));
        assert!(is_within(&a, &a));
        assert!(!is_within(&FieldPath::from("spec.rules[0].retryX"), &a));
    }
}
