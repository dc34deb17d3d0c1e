//! Conversions with the [`gateway-api`](https://docs.rs/gateway-api/0.22.0) crate's types
//! (kube-rs/gateway-api-rs), feature `gateway-api-rs`.
//!
//! Both sides are the Kubernetes API's JSON, so each conversion goes through a
//! `serde_json::Value` (never text), as [`crate::convert`] does for k8s-openapi.
//!
//! Version skew: gateway-api 0.22 models Gateway API v1.5.1 and is built on kube 4 and
//! k8s-openapi 0.28; gamma-model models v1.6.1, and gamma-kube is on kube 5 and k8s-openapi
//! 0.29. The two stacks share no Rust types (their `ObjectMeta`s are different types), so a
//! build with this feature compiles both (see `docs/kube.md` for the cost). Where the
//! schemas agree an object converts both ways and back to what it was; a gamma-model object
//! that uses what v1.5.1 lacks (a field added in v1.6.1, an enum value it does not know, an
//! `apiVersion` the type is not for) is refused with [`Error::Unrepresentable`] naming the
//! field path, never converted with that field dropped.
//!
//! Rust's orphan rule forbids `TryFrom` impls between two foreign crates' types here, so the
//! conversions are the functions [`to_gateway_api`] and [`from_gateway_api`], typed by the
//! gateway-api type through [`GatewayApiType`]:
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use gamma_kube::gateway_api_rs::{from_gateway_api, gateway_api, to_gateway_api};
//! use gamma_model::AnyResource;
//!
//! let text = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
//!             metadata: {name: web, namespace: shop}\n\
//!             spec: {parentRefs: [{group: '', kind: Service, name: web}]}\n";
//! let AnyResource::HttpRoute(ours) = gamma_model::decode(text)?.remove(0) else { panic!() };
//! let theirs: gateway_api::httproutes::HttpRoute = to_gateway_api(&ours)?;
//! assert_eq!(theirs.spec.parent_refs.as_ref().map(Vec::len), Some(1));
//! assert_eq!(from_gateway_api(&theirs)?, ours);
//! # Ok(())
//! # }
//! ```

/// The `gateway-api` crate these conversions are for (0.22).
pub use ::gateway_api;
use gamma_model::{AnyResource, DecodeError, ResourceKind};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why a conversion failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The gamma-model object has something the gateway-api type cannot hold: a field of
    /// Gateway API v1.6.1 that v1.5.1 lacks, or a value of a type or enum it does not take.
    /// Not retryable: the object itself does not fit.
    #[error("{kind} {path}: not representable in gateway-api 0.22 (Gateway API v1.5.1): {reason}")]
    Unrepresentable {
        /// The kind converted.
        kind: &'static str,
        /// The field path (`spec.rules[0].name`; `apiVersion` for a version the type is not
        /// for).
        path: String,
        /// What does not fit.
        reason: String,
    },
    /// The gateway-api object does not decode as the gamma-model type (a field gamma-rs
    /// reads has a shape it refuses). Not retryable.
    #[error("decoding a gateway-api object: {0}")]
    Decode(#[source] DecodeError),
    /// The gateway-api object decoded as another kind than its type's (it cannot: a bug).
    #[error("expected a {expected}, found a {found}")]
    WrongKind {
        /// The kind asked for.
        expected: &'static str,
        /// The kind found.
        found: &'static str,
    },
    /// An object did not serialize to JSON (only maps with non-string keys fail: a bug).
    #[error("serializing: {0}")]
    Serialize(#[source] serde_json::Error),
}

mod sealed {
    pub trait Sealed {}
}

/// A gateway-api type with a gamma-model counterpart of the same schema.
pub trait GatewayApiType: Serialize + DeserializeOwned + sealed::Sealed {
    /// The gamma-model type.
    type Model: Serialize;
    /// The kind.
    const KIND: ResourceKind;
    /// The `apiVersion` the gateway-api type is for.
    const API_VERSION: &'static str;
    /// The model object of `resource`, if it is one (else its kind).
    fn model(resource: AnyResource) -> Result<Self::Model, ResourceKind>;
}

/// The gateway-api object for `ours`. Fails with [`Error::Unrepresentable`] (naming the
/// field path) if it has anything the gateway-api type would drop or cannot hold.
pub fn to_gateway_api<T: GatewayApiType>(ours: &T::Model) -> Result<T, Error> {
    let kind = T::KIND.as_str();
    let value = serde_json::to_value(ours).map_err(Error::Serialize)?;
    let version = value.get("apiVersion").and_then(Value::as_str);
    if version != Some(T::API_VERSION) {
        return Err(Error::Unrepresentable {
            kind,
            path: "apiVersion".to_owned(),
            reason: format!(
                "the gateway-api type is for {}, the object is {}",
                T::API_VERSION,
                version.unwrap_or("without one")
            ),
        });
    }
    let theirs: T =
        serde_path_to_error::deserialize(&value).map_err(|e| Error::Unrepresentable {
            kind,
            path: e.path().to_string(),
            reason: e.inner().to_string(),
        })?;
    // serde ignores fields a type does not have: compare what comes back out to find them.
    let back = serde_json::to_value(&theirs).map_err(Error::Serialize)?;
    let mut path = String::new();
    if let Some(reason) = lost(&value, &back, &mut path) {
        return Err(Error::Unrepresentable { kind, path, reason });
    }
    Ok(theirs)
}

/// The gamma-model object for `theirs`. gamma-model models every field of Gateway API
/// v1.5.1 the engines read; fields it does not model (most of `metadata`, such as
/// `managedFields`) are not kept.
pub fn from_gateway_api<T: GatewayApiType>(theirs: &T) -> Result<T::Model, Error> {
    let value = serde_json::to_value(theirs).map_err(Error::Serialize)?;
    let resource = AnyResource::from_value(value).map_err(Error::Decode)?;
    T::model(resource).map_err(|found| Error::WrongKind {
        expected: T::KIND.as_str(),
        found: found.as_str(),
    })
}

/// The first value of `ours` that `theirs` lacks or holds otherwise, as a reason, with its
/// path in `path`. `null` counts as absent (the API server reads both alike). Recursion is as
/// deep as the value, which came from a decoded object (gamma-model bounds its depth).
fn lost(ours: &Value, theirs: &Value, path: &mut String) -> Option<String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                if value.is_null() {
                    continue;
                }
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                match b.get(key) {
                    None | Some(Value::Null) => {
                        return Some("the gateway-api type has no such field".to_owned());
                    }
                    Some(other) => {
                        if let Some(reason) = lost(value, other, path) {
                            return Some(reason);
                        }
                    }
                }
                path.truncate(len);
            }
            None
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!("{} items became {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(reason) = lost(x, y, path) {
                    return Some(reason);
                }
                path.truncate(len);
            }
            None
        }
        (a, b) if a == b => None,
        (a, b) => Some(format!("{a} became {b}")),
    }
}

macro_rules! gateway_api_types {
    ($( $theirs:ty => $variant:ident($ours:ty), $version:literal; )+) => {$(
        impl sealed::Sealed for $theirs {}
        impl GatewayApiType for $theirs {
            type Model = $ours;
            const KIND: ResourceKind = ResourceKind::$variant;
            const API_VERSION: &'static str = $version;
            fn model(resource: AnyResource) -> Result<$ours, ResourceKind> {
                match resource {
                    AnyResource::$variant(o) => Ok(o),
                    other => Err(other.kind()),
                }
            }
        }
    )+};
}

gateway_api_types! {
    ::gateway_api::httproutes::HttpRoute => HttpRoute(gamma_model::gateway::HttpRoute), "gateway.networking.k8s.io/v1";
    ::gateway_api::grpcroutes::GrpcRoute => GrpcRoute(gamma_model::gateway::GrpcRoute), "gateway.networking.k8s.io/v1";
    ::gateway_api::tlsroutes::TlsRoute => TlsRoute(gamma_model::gateway::TlsRoute), "gateway.networking.k8s.io/v1";
    ::gateway_api::gateways::Gateway => Gateway(gamma_model::gateway::Gateway), "gateway.networking.k8s.io/v1";
    ::gateway_api::gatewayclasses::GatewayClass => GatewayClass(gamma_model::gateway::GatewayClass), "gateway.networking.k8s.io/v1";
    ::gateway_api::listenersets::ListenerSet => ListenerSet(gamma_model::gateway::ListenerSet), "gateway.networking.k8s.io/v1";
    ::gateway_api::referencegrants::ReferenceGrant => ReferenceGrant(gamma_model::gateway::ReferenceGrant), "gateway.networking.k8s.io/v1";
    ::gateway_api::backendtlspolicies::BackendTlsPolicy => BackendTlsPolicy(gamma_model::gateway::BackendTlsPolicy), "gateway.networking.k8s.io/v1";
    ::gateway_api::experimental::httproutes::HttpRoute => HttpRoute(gamma_model::gateway::HttpRoute), "gateway.networking.k8s.io/v1";
    ::gateway_api::experimental::grpcroutes::GrpcRoute => GrpcRoute(gamma_model::gateway::GrpcRoute), "gateway.networking.k8s.io/v1";
    ::gateway_api::experimental::tlsroutes::TlsRoute => TlsRoute(gamma_model::gateway::TlsRoute), "gateway.networking.k8s.io/v1";
    ::gateway_api::experimental::tcproutes::TcpRoute => TcpRoute(gamma_model::gateway::TcpRoute), "gateway.networking.k8s.io/v1alpha2";
    ::gateway_api::experimental::udproutes::UdpRoute => UdpRoute(gamma_model::gateway::UdpRoute), "gateway.networking.k8s.io/v1alpha2";
    ::gateway_api::experimental::gateways::Gateway => Gateway(gamma_model::gateway::Gateway), "gateway.networking.k8s.io/v1";
    ::gateway_api::experimental::gatewayclasses::GatewayClass => GatewayClass(gamma_model::gateway::GatewayClass), "gateway.networking.k8s.io/v1";
    ::gateway_api::experimental::listenersets::ListenerSet => ListenerSet(gamma_model::gateway::ListenerSet), "gateway.networking.k8s.io/v1";
    ::gateway_api::experimental::referencegrants::ReferenceGrant => ReferenceGrant(gamma_model::gateway::ReferenceGrant), "gateway.networking.k8s.io/v1";
    ::gateway_api::experimental::xmeshes::XMesh => XMesh(gamma_model::xmesh::XMesh), "gateway.networking.x-k8s.io/v1alpha1";
    ::gateway_api::experimental::xbackendtrafficpolicies::XBackendTrafficPolicy => XBackendTrafficPolicy(gamma_model::xbackend::XBackendTrafficPolicy), "gateway.networking.x-k8s.io/v1alpha1";
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use ::gateway_api::experimental as x;
    use ::gateway_api::{
        backendtlspolicies, gatewayclasses, gateways, grpcroutes, httproutes, listenersets,
        referencegrants, tlsroutes,
    };

    use super::*;

    fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                yaml_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                out.push(path);
            }
        }
    }

    /// Every object of the upstream examples (Gateway API v1.6.1), with its file and its
    /// document as written; `None` (the test skips) without `GAMMA_UPSTREAM_DIR`.
    fn upstream() -> Option<Vec<(String, AnyResource, Value)>> {
        let Some(dir) = gamma_testenv::upstream::v1_6_1() else {
            eprintln!("skipped: GAMMA_UPSTREAM_DIR is not set (the Gateway API v1.6.1 release)");
            return None;
        };
        let root = PathBuf::from(dir).join("examples");
        let mut files = Vec::new();
        yaml_files(&root, &mut files);
        let mut out = Vec::new();
        for path in files {
            let name = path.strip_prefix(&root).unwrap().display().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            let documents: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
            for r in gamma_model::decode(&text).unwrap_or_else(|e| panic!("{name}: {e}")) {
                let document = documents
                    .iter()
                    .find(|d| {
                        d["kind"] == r.kind().as_str()
                            && d["metadata"]["name"] == r.metadata().name.as_str()
                    })
                    .unwrap_or_else(|| panic!("{name}: {} not found", r.metadata().name));
                out.push((name.clone(), r, document.clone()));
            }
        }
        assert!(!out.is_empty());
        Some(out)
    }

    /// `ours` to `T` and back is `ours` again, and `T` to gamma-model and back is the same
    /// `T`; the document as written, read by `T` itself, converts to `ours` too. Or the
    /// conversion is refused as unrepresentable.
    fn round_trip<T: GatewayApiType>(ours: &T::Model, document: &Value) -> Result<(), Error>
    where
        T::Model: PartialEq + std::fmt::Debug,
    {
        let theirs: T = match to_gateway_api(ours) {
            Ok(t) => t,
            Err(e @ Error::Unrepresentable { .. }) => return Err(e),
            Err(e) => panic!("{e}"),
        };
        let back = from_gateway_api(&theirs).unwrap();
        assert_eq!(&back, ours);
        let again: T = to_gateway_api(&back).unwrap();
        assert_eq!(
            serde_json::to_value(&again).unwrap(),
            serde_json::to_value(&theirs).unwrap()
        );
        let read: T = serde_json::from_value(document.clone()).unwrap();
        assert_eq!(&from_gateway_api(&read).unwrap(), ours);
        Ok(())
    }

    /// Converts `r` with every gateway-api type of its kind: (type, outcome) per type.
    fn convert_all(r: &AnyResource, d: &Value) -> Vec<(&'static str, Result<(), Error>)> {
        match r {
            AnyResource::HttpRoute(o) => vec![
                ("standard", round_trip::<httproutes::HttpRoute>(o, d)),
                ("experimental", round_trip::<x::httproutes::HttpRoute>(o, d)),
            ],
            AnyResource::GrpcRoute(o) => vec![
                ("standard", round_trip::<grpcroutes::GrpcRoute>(o, d)),
                ("experimental", round_trip::<x::grpcroutes::GrpcRoute>(o, d)),
            ],
            AnyResource::TlsRoute(o) => vec![
                ("standard", round_trip::<tlsroutes::TlsRoute>(o, d)),
                ("experimental", round_trip::<x::tlsroutes::TlsRoute>(o, d)),
            ],
            AnyResource::TcpRoute(o) => {
                vec![("experimental", round_trip::<x::tcproutes::TcpRoute>(o, d))]
            }
            AnyResource::UdpRoute(o) => {
                vec![("experimental", round_trip::<x::udproutes::UdpRoute>(o, d))]
            }
            AnyResource::Gateway(o) => vec![
                ("standard", round_trip::<gateways::Gateway>(o, d)),
                ("experimental", round_trip::<x::gateways::Gateway>(o, d)),
            ],
            AnyResource::GatewayClass(o) => vec![
                ("standard", round_trip::<gatewayclasses::GatewayClass>(o, d)),
                (
                    "experimental",
                    round_trip::<x::gatewayclasses::GatewayClass>(o, d),
                ),
            ],
            AnyResource::ListenerSet(o) => vec![
                ("standard", round_trip::<listenersets::ListenerSet>(o, d)),
                (
                    "experimental",
                    round_trip::<x::listenersets::ListenerSet>(o, d),
                ),
            ],
            AnyResource::ReferenceGrant(o) => vec![
                (
                    "standard",
                    round_trip::<referencegrants::ReferenceGrant>(o, d),
                ),
                (
                    "experimental",
                    round_trip::<x::referencegrants::ReferenceGrant>(o, d),
                ),
            ],
            AnyResource::BackendTlsPolicy(o) => vec![(
                "standard",
                round_trip::<backendtlspolicies::BackendTlsPolicy>(o, d),
            )],
            AnyResource::XMesh(o) => vec![("experimental", round_trip::<x::xmeshes::XMesh>(o, d))],
            AnyResource::XBackendTrafficPolicy(o) => vec![(
                "experimental",
                round_trip::<x::xbackendtrafficpolicies::XBackendTrafficPolicy>(o, d),
            )],
            _ => Vec::new(),
        }
    }

    /// The value at a path as `Error::Unrepresentable` names it (`a.b[0].c`).
    fn at<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
        let mut v = value;
        for part in path.split('.') {
            let (name, indices) = part.split_once('[').map_or((part, ""), |(n, i)| (n, i));
            if !name.is_empty() {
                v = v.get(name)?;
            }
            for i in indices.split('[').filter(|s| !s.is_empty()) {
                v = v.get(i.trim_end_matches(']').parse::<usize>().ok()?)?;
            }
        }
        Some(v)
    }

    /// Every upstream example of a kind that gateway-api 0.22 has round-trips through each of
    /// its types (standard and experimental channel), or is refused naming a field it has
    /// that v1.5.1 lacks; never converted with a field lost.
    #[test]
    fn upstream_examples_round_trip_through_gateway_api_types() {
        let Some(objects) = upstream() else { return };
        let mut converted: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        let mut refused = Vec::new();
        for (file, r, document) in &objects {
            let value = serde_json::to_value(r).unwrap();
            for (channel, outcome) in convert_all(r, document) {
                let kind = r.kind().as_str();
                match outcome {
                    Ok(()) => *converted.entry((kind, channel)).or_default() += 1,
                    Err(Error::Unrepresentable { path, reason, .. }) => {
                        let found = at(&value, &path);
                        assert!(
                            found.is_some_and(|v| !v.is_null()),
                            "{file}: refused at {path}, which the object does not have"
                        );
                        refused.push(format!("{file} {kind} ({channel}): {path}: {reason}"));
                    }
                    Err(e) => panic!("{file}: {e}"),
                }
            }
        }
        eprintln!("converted: {converted:?}");
        eprintln!("refused:\n{}", refused.join("\n"));
        // v1.6.1's TCPRoute and UDPRoute are v1; gateway-api 0.22 has only v1alpha2.
        assert!(
            refused.iter().all(|r| r.contains(": apiVersion: ")),
            "{refused:?}"
        );
        for kind in [
            "HTTPRoute",
            "GRPCRoute",
            "Gateway",
            "GatewayClass",
            "ReferenceGrant",
            "ListenerSet",
            "BackendTLSPolicy",
            "TLSRoute",
        ] {
            assert!(
                converted.contains_key(&(kind, "standard")),
                "no {kind} example converted: {converted:?}"
            );
        }
    }

    /// An enum value v1.5.1 does not have (gamma-model keeps unknown values; the gateway-api
    /// enum cannot hold them) is refused with the field path, not dropped or replaced.
    #[test]
    fn a_value_the_gateway_api_type_cannot_hold_is_refused_with_its_path() {
        let text = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
                    metadata: {name: web, namespace: shop}\n\
                    spec: {rules: [{matches: [{path: {type: Exact, value: /a}}]},\
                    {matches: [{path: {type: Glob, value: '/b/*'}}]}]}\n";
        let AnyResource::HttpRoute(ours) = gamma_model::decode(text).unwrap().remove(0) else {
            panic!("an HTTPRoute")
        };
        let err = to_gateway_api::<httproutes::HttpRoute>(&ours).unwrap_err();
        let Error::Unrepresentable { kind, path, reason } = &err else {
            panic!("{err}")
        };
        assert_eq!(*kind, "HTTPRoute");
        assert_eq!(path, "spec.rules[1].matches[0].path.type");
        assert!(reason.contains("Glob"), "{reason}");
        assert!(err.to_string().contains("v1.5.1"), "{err}");
    }

    /// Version skew is refused at `apiVersion`: the gateway-api type is for one version.
    #[test]
    fn another_api_version_is_refused() {
        let text = "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\n\
                    metadata: {name: g, namespace: shop}\n\
                    spec: {from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, \
                    namespace: web}], to: [{group: '', kind: Service}]}\n";
        let AnyResource::ReferenceGrant(ours) = gamma_model::decode(text).unwrap().remove(0) else {
            panic!("a ReferenceGrant")
        };
        let err = to_gateway_api::<referencegrants::ReferenceGrant>(&ours).unwrap_err();
        assert!(
            matches!(&err, Error::Unrepresentable { path, .. } if path == "apiVersion"),
            "{err}"
        );
    }

    /// What serde would drop silently is found by comparing the value before and after:
    /// a field the type lacks, a list that lost items, a value that changed.
    #[test]
    fn lost_names_the_first_field_that_did_not_survive() {
        let ours =
            serde_json::json!({"spec": {"a": 1, "gone": null, "rules": [{"x": 1}, {"new": true}]}});
        let theirs = serde_json::json!({"spec": {"a": 1, "rules": [{"x": 1}, {}]}});
        let mut path = String::new();
        let reason = lost(&ours, &theirs, &mut path).unwrap();
        assert_eq!(path, "spec.rules[1].new");
        assert!(reason.contains("no such field"), "{reason}");
        let mut path = String::new();
        let shorter = serde_json::json!({"spec": {"a": 1, "rules": [{"x": 1}]}});
        assert!(
            lost(&ours, &shorter, &mut path)
                .unwrap()
                .contains("2 items became 1")
        );
        assert_eq!(path, "spec.rules");
        let mut path = String::new();
        let changed = serde_json::json!({"spec": {"a": 2, "rules": [{"x": 1}, {"new": true}]}});
        assert!(lost(&ours, &changed, &mut path).is_some());
        assert_eq!(path, "spec.a");
        let mut path = String::new();
        assert_eq!(lost(&ours, &ours, &mut path), None, "null counts as absent");
        // Fields only `theirs` has (defaults it writes out) are not a loss.
        let mut path = String::new();
        let extra =
            serde_json::json!({"spec": {"a": 1, "b": [], "rules": [{"x": 1}, {"new": true}]}});
        assert_eq!(lost(&ours, &extra, &mut path), None);
    }
}
