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

/// The object out of its `AnyResource` variant, which boxes the large kinds.
trait Unboxed<T> {
    fn unboxed(self) -> T;
}

impl<T> Unboxed<T> for T {
    fn unboxed(self) -> T {
        self
    }
}

impl<T> Unboxed<T> for Box<T> {
    fn unboxed(self) -> T {
        *self
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
                    AnyResource::$variant(o) => Ok(o.unboxed()),
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
    use super::*;

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
