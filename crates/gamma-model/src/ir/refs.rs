//! Defaulted references: [`ParentRef`], [`BackendTarget`], [`WeightedBackend`].

use crate::ir::IrString;
use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;

use crate::gateway::{self, BackendRefExt, ParentKind};

/// A route's reference to a parent with every default applied (Gateway API ParentReference):
/// `group` defaults to `gateway.networking.k8s.io` (so `{kind: Service}` without `group: ""` is
/// *not* a Service parent), `kind` to `Gateway`, `namespace` to the route's.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ParentRef {
    /// The index of this reference in the route's `parentRefs` (status is keyed by the
    /// reference as written, so engines need to find it again).
    pub index: usize,
    /// The group (defaulted).
    pub group: String,
    /// The kind (defaulted).
    pub kind: String,
    /// The namespace (the route's when omitted).
    pub namespace: String,
    /// The name.
    pub name: String,
    /// The section (listener name, Service port name), if any.
    pub section_name: Option<String>,
    /// The port (listener port, Service port), if any.
    pub port: Option<u16>,
    /// **gamma-rs extension** (gateway-api#3444): the controllers allowed to implement the route
    /// for this parent; empty when not written. Validated `GatewayController` names, unique.
    pub controllers: Vec<String>,
}

impl ParentRef {
    /// Applies the defaults to a wire reference (number `index` of its route's `parentRefs`)
    /// of a route in `route_namespace`. Engines also use it for routes that failed validation
    /// as a whole, which are still reported per parentRef (a port outside `u16` becomes
    /// `None`).
    pub fn from_wire(
        index: usize,
        r: &gateway::ParentReference,
        route_namespace: &str,
    ) -> ParentRef {
        ParentRef {
            index,
            group: r.group_or_default().to_owned(),
            kind: r.kind_or_default().to_owned(),
            namespace: r.namespace_or(route_namespace).to_owned(),
            name: r.name.clone(),
            section_name: r.section_name.clone(),
            port: r.port.and_then(|p| u16::try_from(p).ok()),
            controllers: r.controllers.clone().unwrap_or_default(),
        }
    }

    /// What the reference points at (strict: only `group: ""` is the core group).
    pub fn parent_kind(&self) -> ParentKind {
        match (self.group.as_str(), self.kind.as_str()) {
            (gateway::GROUP, "Gateway") => ParentKind::Gateway,
            (gateway::GROUP, "ListenerSet") => ParentKind::ListenerSet,
            ("", "Service") => ParentKind::Service,
            _ => ParentKind::Other,
        }
    }
}

/// A backend object with the defaults applied: group `""`, kind `Service`, the route's
/// namespace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BackendTarget {
    /// The group (`""` for core; borrowed then, as for every other default).
    pub group: Cow<'static, str>,
    /// The kind (borrowed for `Service`: the default, and what almost every backendRef
    /// names, costs no allocation).
    pub kind: Cow<'static, str>,
    /// The namespace (the route's when omitted; then shared with the route's other defaulted
    /// references, not copied for each).
    pub namespace: Arc<str>,
    /// The name.
    pub name: IrString,
    /// The port (required, and present, for core Services).
    pub port: Option<u16>,
}

impl BackendTarget {
    /// `route_namespace` is shared by every reference that omits its namespace (most do).
    pub(crate) fn from_wire(b: &impl BackendRefExt, route_namespace: &Arc<str>) -> BackendTarget {
        BackendTarget {
            group: shared_or_owned(b.group_or_default(), ""),
            kind: shared_or_owned(b.kind_or_default(), "Service"),
            namespace: match b.namespace_raw() {
                Some(ns) => Arc::from(ns),
                None => Arc::clone(route_namespace),
            },
            name: IrString::from(b.name()),
            port: b.port().and_then(|p| u16::try_from(p).ok()),
        }
    }

    /// Whether this is a core Service.
    pub fn is_service(&self) -> bool {
        self.group.is_empty() && self.kind == "Service"
    }

    /// Whether the target lives outside `route_namespace` (may need a ReferenceGrant).
    pub fn is_cross_namespace(&self, route_namespace: &str) -> bool {
        *self.namespace != *route_namespace
    }
}

/// `common` itself when `v` is it, else a copy of `v`.
fn shared_or_owned(v: &str, common: &'static str) -> Cow<'static, str> {
    if v == common {
        Cow::Borrowed(common)
    } else {
        Cow::Owned(v.to_owned())
    }
}

/// A backend and its weight (default 1, at most 1,000,000; 0 receives no traffic).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WeightedBackend {
    /// The backend.
    pub target: BackendTarget,
    /// The weight.
    pub weight: u32,
}

impl WeightedBackend {
    /// Applies the defaults to a wire backendRef of a route in `route_namespace` (group `""`,
    /// kind `Service`, the route's namespace, weight 1): what every route conversion does. A
    /// reference that omits its namespace shares `route_namespace` instead of copying it;
    /// a weight outside `u32` becomes 0 (validation refuses it first).
    pub fn from_wire(b: &gateway::BackendRef, route_namespace: &Arc<str>) -> WeightedBackend {
        WeightedBackend {
            target: BackendTarget::from_wire(b, route_namespace),
            weight: u32::try_from(b.weight_or_default()).unwrap_or(0),
        }
    }
}

pub(crate) fn parent_refs(refs: &[gateway::ParentReference], ns: &str) -> Vec<ParentRef> {
    refs.iter()
        .enumerate()
        .map(|(i, r)| ParentRef::from_wire(i, r, ns))
        .collect()
}
