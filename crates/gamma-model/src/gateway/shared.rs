//! Types shared by the routes and Gateways: references to parents and backends.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::GROUP;

/// A reference from a route to the parent it wants to attach to: a Gateway (or ListenerSet), or
/// in a mesh a Service (`group: ""`, `kind: Service`).
///
/// Mind the upstream defaulting trap: an omitted `group` means `gateway.networking.k8s.io`, so
/// `{kind: Service, name: x}` without `group: ""` is **not** a Service parent (gateway-api#2309).
/// [`ParentReference::parent_kind`] applies the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParentReference {
    /// The API group of the parent; defaults to `gateway.networking.k8s.io`. `""` is the core group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The kind of the parent; defaults to `Gateway`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The namespace of the parent; defaults to the route's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The name of the parent.
    #[serde(default)]
    pub name: String,
    /// A section of the parent: a listener name for Gateways, a port name for Services.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section_name: Option<String>,
    /// A port of the parent: a listener port for Gateways, a Service port for Services.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// **gamma-rs extension (proposal, gateway-api#3444):** the controllers allowed to implement
    /// this route for this parent, when the parent is a Service: domain-prefixed controller
    /// names (as a GatewayClass `controllerName`), at most 16, each once. No upstream CRD
    /// declares it: the API server refuses it under strict field validation and prunes it
    /// otherwise, unless the CRD extension is installed (`gammactl crd-extension controllers`).
    /// The route annotation `gamma.rs/controllers` works on any cluster.
    //
    // The schema's limits are the typed validation's (`validate::common::parent_ref`: at most
    // `MAX_CONTROLLERS` = 16 names, each a `GatewayController` of 1 to 253 characters, no
    // duplicates). The CRD extension is generated from this schema (gamma-kube
    // `crd_extension`), and `tests/controllers_schema.rs` holds the schema and the typed
    // validation equal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        length(max = 16),
        inner(
            length(min = 1, max = 253),
            pattern(crate::validate::patterns::GATEWAY_CONTROLLER_PATTERN)
        ),
        extend("uniqueItems" = true)
    )]
    pub controllers: Option<Vec<String>>,
}

/// The kind of object a [`ParentReference`] points at, after upstream defaulting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
#[non_exhaustive]
pub enum ParentKind {
    /// `gateway.networking.k8s.io/Gateway`.
    Gateway,
    /// `gateway.networking.k8s.io/ListenerSet`.
    ListenerSet,
    /// Core `Service` (group exactly `""`): a mesh parent.
    Service,
    /// Anything else (including `core/Service` and `gateway.networking.k8s.io/Service`).
    Other,
}

impl ParentReference {
    /// A reference to a core Service, as GAMMA routes write it (`group: ""`, `kind: Service`).
    pub fn service(name: impl Into<String>) -> Self {
        ParentReference {
            group: Some(String::new()),
            kind: Some("Service".into()),
            name: name.into(),
            ..ParentReference::default()
        }
    }

    /// A reference to a Gateway (group and kind left to their defaults).
    pub fn gateway(name: impl Into<String>) -> Self {
        ParentReference {
            name: name.into(),
            ..ParentReference::default()
        }
    }

    /// The group with the upstream default (`gateway.networking.k8s.io`) applied.
    pub fn group_or_default(&self) -> &str {
        self.group.as_deref().unwrap_or(GROUP)
    }

    /// The kind with the upstream default (`Gateway`) applied.
    pub fn kind_or_default(&self) -> &str {
        self.kind.as_deref().unwrap_or("Gateway")
    }

    /// The parent's namespace: the one written, else the route's.
    pub fn namespace_or<'a>(&'a self, route_namespace: &'a str) -> &'a str {
        self.namespace.as_deref().unwrap_or(route_namespace)
    }

    /// What this reference points at, with the defaults applied. Strict: only `group: ""` is the
    /// core group (the spelling `core` seen in some docs is not, per the spec).
    pub fn parent_kind(&self) -> ParentKind {
        match (self.group_or_default(), self.kind_or_default()) {
            (GROUP, "Gateway") => ParentKind::Gateway,
            (GROUP, "ListenerSet") => ParentKind::ListenerSet,
            ("", "Service") => ParentKind::Service,
            _ => ParentKind::Other,
        }
    }

    /// [`ParentReference::parent_kind`] under the non-standard compatibility policy that reads
    /// `group: core` as the core group (Linkerd accepts it, and some docs write it). The
    /// Gateway API says the core group is `""` ([ParentReference.group]); use this only where
    /// an embedder opted in.
    ///
    /// [ParentReference.group]: https://gateway-api.sigs.k8s.io/reference/spec/#parentreference
    pub fn parent_kind_core_alias(&self) -> ParentKind {
        if self.is_core_alias_service() {
            ParentKind::Service
        } else {
            self.parent_kind()
        }
    }

    /// Whether this is `kind: Service` with `group: core`: the core Service under the
    /// compatibility policy of [`ParentReference::parent_kind_core_alias`], nothing otherwise.
    pub fn is_core_alias_service(&self) -> bool {
        self.kind.as_deref() == Some("Service") && self.group.as_deref() == Some("core")
    }

    /// For `kind: Service` with no `group`, with `group: gateway.networking.k8s.io` (what the
    /// API server stores for an omitted group: the answer is the same before and after
    /// defaulting), or with `group: core`: the group as it reads after defaulting, which no
    /// controller implements as a Service. `None` for every other reference, the core
    /// `group: ""` included. The fix is `group: ""`.
    pub fn misgrouped_service(&self) -> Option<&str> {
        if self.kind.as_deref() != Some("Service") {
            return None;
        }
        match self.group.as_deref() {
            None | Some(GROUP) => Some(GROUP),
            Some("core") => Some("core"),
            _ => None,
        }
    }

    /// Whether `other` names the same parent object (group, kind, namespace and name after
    /// defaulting), ignoring `sectionName`, `port` and `controllers`.
    pub fn same_parent(&self, route_namespace: &str, other: &ParentReference) -> bool {
        self.group_or_default() == other.group_or_default()
            && self.kind_or_default() == other.kind_or_default()
            && self.namespace_or(route_namespace) == other.namespace_or(route_namespace)
            && self.name == other.name
    }
}

/// A reference to a backend object (usually a Service) in the route's or another namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackendObjectReference {
    /// The API group; defaults to `""` (core).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The kind; defaults to `Service`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The name of the referent.
    #[serde(default)]
    pub name: String,
    /// The namespace; defaults to the route's. Cross-namespace references may need a
    /// ReferenceGrant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The destination port (the Service port, not the target port). Required for Services.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

/// A weighted reference to a backend (TCPRoute, TLSRoute, UDPRoute, and the base of the HTTP and
/// gRPC backend references).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackendRef {
    /// The API group; defaults to `""` (core).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The kind; defaults to `Service`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The name of the referent.
    #[serde(default)]
    pub name: String,
    /// The namespace; defaults to the route's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The destination port (the Service port). Required for Services.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// The relative weight, 0 to 1,000,000; defaults to 1. Weight 0 receives no traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
}

/// Accessors with upstream defaults, shared by every backend reference shape.
pub trait BackendRefExt {
    /// The group as written.
    fn group_raw(&self) -> Option<&str>;
    /// The kind as written.
    fn kind_raw(&self) -> Option<&str>;
    /// The name.
    fn name(&self) -> &str;
    /// The namespace as written.
    fn namespace_raw(&self) -> Option<&str>;
    /// The port as written.
    fn port(&self) -> Option<i32>;

    /// The group with the default (`""`) applied.
    fn group_or_default(&self) -> &str {
        self.group_raw().unwrap_or("")
    }
    /// The kind with the default (`Service`) applied.
    fn kind_or_default(&self) -> &str {
        self.kind_raw().unwrap_or("Service")
    }
    /// The namespace: the one written, else the route's.
    fn namespace_or<'a>(&'a self, route_namespace: &'a str) -> &'a str {
        self.namespace_raw().unwrap_or(route_namespace)
    }
    /// Whether this refers to a core Service.
    fn is_service(&self) -> bool {
        self.group_or_default() == "" && self.kind_or_default() == "Service"
    }
}

macro_rules! backend_ref_ext {
    ($t:ty) => {
        impl BackendRefExt for $t {
            fn group_raw(&self) -> Option<&str> {
                self.group.as_deref()
            }
            fn kind_raw(&self) -> Option<&str> {
                self.kind.as_deref()
            }
            fn name(&self) -> &str {
                &self.name
            }
            fn namespace_raw(&self) -> Option<&str> {
                self.namespace.as_deref()
            }
            fn port(&self) -> Option<i32> {
                self.port
            }
        }
    };
}
backend_ref_ext!(BackendObjectReference);
backend_ref_ext!(BackendRef);

impl BackendRef {
    /// A reference to Service `name` on `port`, weight left to its default.
    pub fn service(name: impl Into<String>, port: i32) -> Self {
        BackendRef {
            name: name.into(),
            port: Some(port),
            ..BackendRef::default()
        }
    }

    /// The weight with the default (1) applied.
    pub fn weight_or_default(&self) -> i32 {
        self.weight.unwrap_or(1)
    }
}

/// A reference to an object in the same namespace, by group, kind and name (`ExtensionRef`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalObjectReference {
    /// The API group (`""` for core).
    #[serde(default)]
    pub group: String,
    /// The kind.
    #[serde(default)]
    pub kind: String,
    /// The name.
    #[serde(default)]
    pub name: String,
}

/// A reference to a Secret (or other certificate holder), possibly in another namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecretObjectReference {
    /// The API group; defaults to `""`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The kind; defaults to `Secret`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The name.
    #[serde(default)]
    pub name: String,
    /// The namespace; defaults to the referrer's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// A reference to an object of any kind, with an optional namespace (`parametersRef`,
/// CA certificate references).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObjectReference {
    /// The API group (required; `""` is the core group). `None` (omitted) is reported by
    /// `validate()`: upstream requires the field, and an omitted group cannot be told apart
    /// from the valid `""` once defaulted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The kind.
    #[serde(default)]
    pub kind: String,
    /// The name.
    #[serde(default)]
    pub name: String,
    /// The namespace, where the kind is namespaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// A reference to a policy target: group, kind, name (and for some kinds a section).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalPolicyTargetReference {
    /// The API group of the target.
    #[serde(default)]
    pub group: String,
    /// The kind of the target.
    #[serde(default)]
    pub kind: String,
    /// The name of the target.
    #[serde(default)]
    pub name: String,
    /// A section of the target (a Service port name, for Services).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section_name: Option<String>,
}

/// A Kubernetes label selector: `matchLabels` AND every `matchExpressions` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    /// Labels that must be present with exactly these values.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub match_labels: std::collections::BTreeMap<String, String>,
    /// Set-based requirements.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One set-based requirement of a [`LabelSelector`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelectorRequirement {
    /// The label key.
    #[serde(default)]
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    #[serde(default)]
    pub operator: String,
    /// The values for `In` and `NotIn`; empty for `Exists` and `DoesNotExist`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// Why a label selector cannot be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SelectorError {
    /// The operator is not one of `In`, `NotIn`, `Exists`, `DoesNotExist`.
    #[error("matchExpressions[{index}].operator: unsupported operator {operator:?}")]
    UnknownOperator {
        /// The index of the expression.
        index: usize,
        /// The operator found.
        operator: String,
    },
    /// `In`/`NotIn` without values, or `Exists`/`DoesNotExist` with values.
    #[error("matchExpressions[{index}].values: {reason}")]
    BadValues {
        /// The index of the expression.
        index: usize,
        /// What is wrong.
        reason: &'static str,
    },
}

impl LabelSelector {
    /// Whether `labels` satisfy this selector, with Kubernetes semantics: an empty selector
    /// matches everything; `NotIn` and `DoesNotExist` match objects lacking the key.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use gamma_model::gateway::LabelSelector;
    /// let sel: LabelSelector = serde_json::from_str(
    ///     r#"{"matchExpressions":[{"key":"env","operator":"In","values":["prod","stage"]}]}"#,
    /// ).unwrap();
    /// let labels = BTreeMap::from([("env".to_string(), "prod".to_string())]);
    /// assert_eq!(sel.matches(&labels), Ok(true));
    /// ```
    pub fn matches(
        &self,
        labels: &std::collections::BTreeMap<String, String>,
    ) -> Result<bool, SelectorError> {
        for (index, e) in self.match_expressions.iter().enumerate() {
            let has_values = !e.values.is_empty();
            match e.operator.as_str() {
                "In" | "NotIn" if !has_values => {
                    return Err(SelectorError::BadValues {
                        index,
                        reason: "must be non-empty for In and NotIn",
                    });
                }
                "Exists" | "DoesNotExist" if has_values => {
                    return Err(SelectorError::BadValues {
                        index,
                        reason: "must be empty for Exists and DoesNotExist",
                    });
                }
                "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
                other => {
                    return Err(SelectorError::UnknownOperator {
                        index,
                        operator: other.to_owned(),
                    });
                }
            }
        }
        let labels_ok = self
            .match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v));
        let exprs_ok = self.match_expressions.iter().all(|e| {
            let got = labels.get(&e.key);
            match e.operator.as_str() {
                "In" => got.is_some_and(|v| e.values.contains(v)),
                "NotIn" => got.is_none_or(|v| !e.values.contains(v)),
                "Exists" => got.is_some(),
                _ => got.is_none(),
            }
        });
        Ok(labels_ok && exprs_ok)
    }
}

/// Makes a backend reference with filters (`HTTPBackendRef`, `GRPCBackendRef`) deserialize
/// through a flat wire struct instead of `#[serde(flatten)]`.
///
/// Why: serde buffers flattened content, which loses the path of a field error
/// (`backendRefs[0].port` would be reported as `backendRefs[0]`) and costs an extra copy. The
/// public struct keeps its `backend_ref` field; serialization still flattens; the JSON Schema is
/// the wire struct's, the same flat shape as the CRD.
macro_rules! flat_backend_ref {
    ($ty:ident, $wire:ident, $schema_name:literal, $filter:ty, $filters_doc:literal) => {
        #[derive(Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[schemars(rename = $schema_name)]
        struct $wire {
            /// The API group; defaults to `""` (core).
            #[serde(default)]
            group: Option<String>,
            /// The kind; defaults to `Service`.
            #[serde(default)]
            kind: Option<String>,
            /// The name of the referent.
            #[serde(default)]
            name: String,
            /// The namespace; defaults to the route's.
            #[serde(default)]
            namespace: Option<String>,
            /// The destination port (the Service port). Required for Services.
            #[serde(default)]
            port: Option<i32>,
            /// The relative weight, 0 to 1,000,000; defaults to 1. Weight 0 receives no traffic.
            #[serde(default)]
            weight: Option<i32>,
            #[doc = $filters_doc]
            #[serde(default)]
            filters: Vec<$filter>,
        }

        impl From<$wire> for $ty {
            fn from(w: $wire) -> Self {
                $ty {
                    backend_ref: BackendRef {
                        group: w.group,
                        kind: w.kind,
                        name: w.name,
                        namespace: w.namespace,
                        port: w.port,
                        weight: w.weight,
                    },
                    filters: w.filters,
                }
            }
        }
    };
}
pub(crate) use flat_backend_ref;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    // ParentReference.group: the core group is "" only; `core` and an omitted group (defaulting
    // to gateway.networking.k8s.io) are misgrouped Services, and only the opt-in compatibility
    // policy reads `core` as the core group.
    #[test]
    fn misgrouped_service_parents_are_named_and_core_is_an_opt_in_alias() {
        let parse = |j: &str| serde_json::from_str::<ParentReference>(j).unwrap();
        let none = parse(r#"{"kind":"Service","name":"x"}"#);
        let core = parse(r#"{"group":"core","kind":"Service","name":"x"}"#);
        let empty = parse(r#"{"group":"","kind":"Service","name":"x"}"#);
        assert_eq!(none.misgrouped_service(), Some(GROUP));
        // As stored: the API server writes the default group in.
        let defaulted =
            parse(r#"{"group":"gateway.networking.k8s.io","kind":"Service","name":"x"}"#);
        assert_eq!(defaulted.misgrouped_service(), Some(GROUP));
        assert_eq!(core.misgrouped_service(), Some("core"));
        assert_eq!(empty.misgrouped_service(), None);
        assert_eq!(parse(r#"{"name":"gw"}"#).misgrouped_service(), None);
        assert_eq!(core.parent_kind(), ParentKind::Other);
        assert_eq!(core.parent_kind_core_alias(), ParentKind::Service);
        assert_eq!(none.parent_kind_core_alias(), ParentKind::Other);
        assert_eq!(empty.parent_kind_core_alias(), ParentKind::Service);
    }

    // Gateway API ParentReference: an omitted group defaults to gateway.networking.k8s.io
    // (gateway-api#2309).
    #[test]
    fn parent_ref_without_group_is_not_a_service_parent() {
        let r: ParentReference = serde_json::from_str(r#"{"kind":"Service","name":"x"}"#).unwrap();
        assert_eq!(r.parent_kind(), ParentKind::Other);
        let r: ParentReference =
            serde_json::from_str(r#"{"group":"","kind":"Service","name":"x"}"#).unwrap();
        assert_eq!(r.parent_kind(), ParentKind::Service);
        let r: ParentReference =
            serde_json::from_str(r#"{"group":"core","kind":"Service","name":"x"}"#).unwrap();
        assert_eq!(r.parent_kind(), ParentKind::Other);
        let r: ParentReference = serde_json::from_str(r#"{"name":"gw"}"#).unwrap();
        assert_eq!(r.parent_kind(), ParentKind::Gateway);
    }

    #[test]
    fn backend_ref_defaults_to_core_service_weight_one() {
        let b: BackendRef = serde_json::from_str(r#"{"name":"svc","port":80}"#).unwrap();
        assert!(b.is_service());
        assert_eq!(b.weight_or_default(), 1);
        assert_eq!(b.namespace_or("ns"), "ns");
    }

    #[test]
    fn label_selector_semantics_match_kubernetes() {
        let empty = LabelSelector::default();
        assert_eq!(empty.matches(&labels(&[])), Ok(true));
        let sel = LabelSelector {
            match_labels: labels(&[("a", "1")]),
            match_expressions: vec![
                LabelSelectorRequirement {
                    key: "b".into(),
                    operator: "NotIn".into(),
                    values: vec!["x".into()],
                },
                LabelSelectorRequirement {
                    key: "c".into(),
                    operator: "DoesNotExist".into(),
                    values: vec![],
                },
            ],
        };
        assert_eq!(sel.matches(&labels(&[("a", "1")])), Ok(true));
        assert_eq!(sel.matches(&labels(&[("a", "1"), ("b", "x")])), Ok(false));
        assert_eq!(sel.matches(&labels(&[("a", "1"), ("c", "")])), Ok(false));
        assert_eq!(sel.matches(&labels(&[("a", "2")])), Ok(false));
        let bad = LabelSelector {
            match_expressions: vec![LabelSelectorRequirement {
                key: "k".into(),
                operator: "Has".into(),
                values: vec![],
            }],
            ..LabelSelector::default()
        };
        assert!(bad.matches(&labels(&[])).is_err());
    }
}
