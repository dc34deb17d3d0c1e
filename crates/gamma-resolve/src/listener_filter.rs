//! A listener's pre-routing request filters ([GEP-5224], Gateway API v1.7, experimental):
//! `spec.listeners[].filters.requests` of a Gateway or a ListenerSet, lowered at build time
//! and carried on every [`crate::Decision`] for an HTTP or gRPC request that arrives through
//! that listener.
//!
//! What the proxy must do with them (Gateway API ListenerFilters): run them on every request
//! the listener accepts, **before route matching**, in the exact order written (never
//! reordered); evaluate route matching once, after the last one; never let them change which
//! listener handles the request (listener selection is decided from the SNI or the initial
//! `Host` header, which the filters may not modify). gamma-rs decides the listener and the
//! route from the request as the client sent it, so a decision with listener filters names
//! the same listener, route and backend as one without; a filter that rewrites what routing
//! reads (path, headers) is the data plane's to apply before it asks again.
//!
//! `ExtensionRef` filters follow [`crate::ExtensionRefs`], as route `ExtensionRef` filters
//! do: under [`crate::ExtensionRefs::Reject`] (the default) the engine cannot apply them, so
//! every request through the listener is answered 500
//! ([`crate::RespondReason::UnsupportedListenerFilter`]) rather than routed with a filter
//! skipped; under [`crate::ExtensionRefs::PassThrough`] they are carried for the embedder.
//!
//! [GEP-5224]: https://gateway-api.sigs.k8s.io/geps/gep-5224/

use std::fmt;

use gamma_model::gateway::HttpExternalAuthFilter;
use schemars::JsonSchema;
use serde::Serialize;

/// One pre-routing request filter of a listener (Gateway API ListenerFilter), lowered: the
/// references defaulted (group `""`, kind `Service`, the listener's resource namespace).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all_fields = "camelCase")]
#[non_exhaustive]
pub enum ListenerFilter {
    /// `ExternalAuth` (GEP-1494's filter, before routing): the request is authorized by the
    /// service `externalAuth.backendRef` names; it fails closed.
    ExternalAuth {
        /// The filter as written, with its `backendRef` defaulted.
        external_auth: HttpExternalAuthFilter,
    },
    /// `ExtensionRef`: an implementation-specific filter (only carried under
    /// [`crate::ExtensionRefs::PassThrough`]).
    ExtensionRef {
        /// The extension resource, in the listener's resource namespace.
        extension_ref: ExtensionRef,
    },
}

/// The resource an `ExtensionRef` listener filter names (a `LocalObjectReference`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct ExtensionRef {
    /// API group.
    pub group: String,
    /// Kind.
    pub kind: String,
    /// Name.
    pub name: String,
}

impl ExtensionRef {
    /// A reference to `group`/`kind` `name`.
    pub fn new(group: impl Into<String>, kind: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            group: group.into(),
            kind: kind.into(),
            name: name.into(),
        }
    }
}

impl ListenerFilter {
    /// An `ExternalAuth` filter.
    pub fn external_auth(filter: HttpExternalAuthFilter) -> Self {
        Self::ExternalAuth {
            external_auth: filter,
        }
    }

    /// An `ExtensionRef` filter.
    pub fn extension_ref(extension: ExtensionRef) -> Self {
        Self::ExtensionRef {
            extension_ref: extension,
        }
    }
}

impl fmt::Display for ListenerFilter {
    /// `ExternalAuth GRPC auth/ext-authz:9000` or `ExtensionRef example.com/Waf strict`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ExternalAuth { external_auth: a } => {
                f.write_str("ExternalAuth")?;
                if let Some(p) = &a.protocol {
                    write!(f, " {}", p.as_str())?;
                }
                let b = &a.backend_ref;
                let group = b.group.as_deref().unwrap_or("");
                let kind = b.kind.as_deref().unwrap_or("Service");
                if !(group.is_empty() && kind == "Service") {
                    let group = if group.is_empty() { "core" } else { group };
                    write!(f, " {group}/{kind}")?;
                }
                write!(f, " {}/{}", b.namespace.as_deref().unwrap_or(""), b.name)?;
                if let Some(p) = b.port {
                    write!(f, ":{p}")?;
                }
                Ok(())
            }
            Self::ExtensionRef { extension_ref: e } => {
                write!(f, "ExtensionRef {}/{} {}", e.group, e.kind, e.name)
            }
        }
    }
}

/// A listener's `filters` as a decision carries them (Gateway API ListenerFilters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListenerFilters {
    /// The request filters, in the order the proxy MUST run them, before route matching.
    pub requests: Vec<ListenerFilter>,
    /// Whether the engine can apply them: `false` when an `ExtensionRef` filter is present
    /// under [`crate::ExtensionRefs::Reject`], and every request through the listener is then
    /// answered 500.
    #[serde(skip)]
    pub(crate) applicable: bool,
}

impl ListenerFilters {
    /// The filters of one listener (none: nothing is stored or carried, the common case);
    /// `applicable` as the table's `ExtensionRef` policy judges them.
    pub(crate) fn new(requests: Vec<ListenerFilter>, applicable: bool) -> Self {
        Self {
            requests,
            applicable,
        }
    }

    /// Whether the engine can apply every filter (see [`crate::ExtensionRefs`]).
    pub fn applicable(&self) -> bool {
        self.applicable
    }
}

impl fmt::Display for ListenerFilters {
    /// `1. ExternalAuth ...; 2. ExtensionRef ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requests.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{}. {r}", i + 1)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_model::gateway::{BackendObjectReference, ExternalAuthProtocol};

    fn auth(namespace: &str, group: &str, kind: &str) -> ListenerFilter {
        ListenerFilter::external_auth(HttpExternalAuthFilter {
            protocol: Some(ExternalAuthProtocol::from("GRPC")),
            backend_ref: BackendObjectReference {
                group: Some(group.into()),
                kind: Some(kind.into()),
                name: "authz".into(),
                namespace: Some(namespace.into()),
                port: Some(9000),
            },
            ..HttpExternalAuthFilter::default()
        })
    }

    // ListenerFilters: "Implementations MUST execute the filters in the exact order they
    // appear here": the text numbers them in that order.
    #[test]
    fn filters_read_in_their_order_with_their_references() {
        let f = ListenerFilters::new(
            vec![
                auth("auth", "", "Service"),
                ListenerFilter::extension_ref(ExtensionRef::new("example.com", "Waf", "strict")),
                auth("auth", "gateway.networking.x-k8s.io", "XBackend"),
            ],
            true,
        );
        assert_eq!(
            f.to_string(),
            "1. ExternalAuth GRPC auth/authz:9000; 2. ExtensionRef example.com/Waf strict; \
             3. ExternalAuth GRPC gateway.networking.x-k8s.io/XBackend auth/authz:9000"
        );
    }

    // The JSON mirrors the upstream ListenerFilter union: `type` and the one payload field,
    // camelCase; whether the engine can apply them is not part of it.
    #[test]
    fn filters_serialize_as_the_upstream_union() {
        let f = ListenerFilters::new(
            vec![
                auth("auth", "", "Service"),
                ListenerFilter::extension_ref(ExtensionRef::new("example.com", "Waf", "strict")),
            ],
            false,
        );
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"requests": [
                {"type": "ExternalAuth", "externalAuth": {
                    "protocol": "GRPC",
                    "backendRef": {"group": "", "kind": "Service", "name": "authz",
                                   "namespace": "auth", "port": 9000}
                }},
                {"type": "ExtensionRef", "extensionRef": {
                    "group": "example.com", "kind": "Waf", "name": "strict"
                }}
            ]})
        );
        assert!(!f.applicable());
    }
}
