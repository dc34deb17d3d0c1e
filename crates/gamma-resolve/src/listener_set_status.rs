//! ListenerSet status for gateway controllers (GEP-1713), computed while building a table
//! ([`crate::RouteTable::listener_set_status`]): the ListenerSet's `Accepted`, and per listener
//! `Accepted`, `ResolvedRefs`, `Conflicted`, `attachedRoutes` and `supportedKinds`, with the
//! reasons of the Gateway API (ListenerSetConditionReason, ListenerEntryConditionReason).
//!
//! `Programmed=True` is the controller's to decide (it knows whether its data plane took the
//! configuration). Where nothing of a ListenerSet or listener can be programmed (it is not
//! accepted), `Programmed=False` with the same reason is computed here, as the upstream
//! conformance tests for ListenerSets expect.

use std::fmt;

use schemars::JsonSchema;
use serde::{Serialize, Serializer};

use crate::gateway_status::{
    self, CONFLICTED, LISTENERS_NOT_VALID, ListenerStatus, NO_CONFLICTS, implementation_specific,
};
use crate::input::{ListenerIr, ListenerSetIr, TableInput};
use crate::listener_set::{Attachment, Conflict, Merged, Rival};
use crate::status::{ACCEPTED, RouteCondition};

/// Condition type `Programmed`.
pub const PROGRAMMED: &str = "Programmed";
/// Reason `NotAllowed`: the parent Gateway's `allowedListeners` does not admit the ListenerSet.
pub const NOT_ALLOWED: &str = "NotAllowed";
/// Reason `ParentNotAccepted`: the parent Gateway is not accepted (or does not exist).
pub const PARENT_NOT_ACCEPTED: &str = "ParentNotAccepted";
/// Reason `Invalid`: the ListenerSet is syntactically or semantically invalid: it fails
/// validation under the channel's CRDs, or its parentRef is not a Gateway.
pub const INVALID: &str = "Invalid";

/// A Gateway by namespace and name: the parent a ListenerSet's `parentRef` names. It
/// displays and serializes as `namespace/name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, JsonSchema)]
#[schemars(with = "String")]
#[non_exhaustive]
pub struct GatewayRef {
    /// The Gateway's namespace.
    pub namespace: String,
    /// The Gateway's name.
    pub name: String,
}

impl GatewayRef {
    /// Gateway `namespace/name`.
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        GatewayRef {
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// Whether this is Gateway `namespace/name`.
    pub fn is(&self, namespace: &str, name: &str) -> bool {
        self.namespace == namespace && self.name == name
    }
}

impl fmt::Display for GatewayRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

impl Serialize for GatewayRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The computed status of one ListenerSet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListenerSetStatus {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// The parent Gateway, when the parentRef names an existing Gateway (serialized as
    /// `namespace/name`).
    pub gateway: Option<GatewayRef>,
    /// `Accepted`, and `Programmed=False` when it is not accepted.
    pub conditions: Vec<RouteCondition>,
    /// One entry per listener, in spec order; empty when the ListenerSet is not attached to
    /// its Gateway (its listeners are part of no Gateway).
    pub listeners: Vec<ListenerStatus>,
    /// For a ListenerSet left out (invalid): `ListenerSet ns/name was left out: <error>`, the
    /// note a request to its parent Gateway's addresses shows
    /// ([`crate::RouteTable::left_out_at`]).
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) left_out: Option<Box<str>>,
}

impl ListenerSetStatus {
    /// The condition of a type, if present.
    pub fn condition(&self, type_: &str) -> Option<&RouteCondition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }

    /// The listener of a name, if present.
    pub fn listener(&self, name: &str) -> Option<&ListenerStatus> {
        self.listeners.iter().find(|l| l.name == name)
    }

    /// Whether `Accepted` is `True`.
    pub fn is_accepted(&self) -> bool {
        self.condition(ACCEPTED).is_some_and(|c| c.status)
    }
}

/// Whether listener `li` of ListenerSet `lsi` is accepted for processing: a supported protocol
/// and no conflict.
pub(crate) fn listener_accepted(
    input: &TableInput,
    merged: &Merged,
    lsi: usize,
    li: usize,
) -> bool {
    let Some(l) = input
        .listener_sets
        .get(lsi)
        .and_then(|s| s.listeners.get(li))
    else {
        return false;
    };
    l.unsupported_protocol.is_none()
        && merged
            .sets
            .get(lsi)
            .and_then(|f| f.conflicts.get(li))
            .is_some_and(Option::is_none)
}

/// Computes every ListenerSet's status in input order; `attached(lsi, li)` counts the routes
/// attached to a listener.
pub(crate) fn compute(
    input: &TableInput,
    merged: &Merged,
    attached: impl Fn(usize, usize) -> u32,
) -> Vec<ListenerSetStatus> {
    input
        .listener_sets
        .iter()
        .enumerate()
        .map(|(lsi, ls)| listener_set(input, merged, lsi, ls, |li| attached(lsi, li)))
        .collect()
}

fn listener_set(
    input: &TableInput,
    merged: &Merged,
    lsi: usize,
    ls: &ListenerSetIr,
    attached: impl Fn(usize) -> u32,
) -> ListenerSetStatus {
    let attachment = merged
        .sets
        .get(lsi)
        .map_or(Attachment::NoParent, |f| f.attachment);
    let gw = attachment.gateway().and_then(|gi| input.gateways.get(gi));
    let gateway = gw.map(|g| GatewayRef::new(&g.namespace, &g.name));
    let rejected = |reason: &str, message: String| ListenerSetStatus {
        namespace: ls.namespace.clone(),
        name: ls.name.clone(),
        gateway: gateway.clone(),
        conditions: vec![
            RouteCondition::new(ACCEPTED, false, reason, message.clone()),
            RouteCondition::new(PROGRAMMED, false, reason, message),
        ],
        listeners: Vec::new(),
        left_out: None,
    };
    if let Some(invalid) = &ls.invalid {
        // the API server would not store it: left out whole (one verdict per object)
        let mut s = rejected(INVALID, invalid.message.clone());
        s.left_out = Some(
            format!(
                "ListenerSet {}/{} was left out: {}",
                ls.namespace, ls.name, invalid.message
            )
            .into(),
        );
        return s;
    }
    let gi = match (attachment, gw) {
        (Attachment::Attached(gi), Some(_)) => gi,
        (Attachment::NotAllowed(_), Some(g)) => {
            return rejected(
                NOT_ALLOWED,
                format!(
                    "Gateway {}/{} does not allow ListenerSets from namespace {} (spec.allowedListeners)",
                    g.namespace, g.name, ls.namespace
                ),
            );
        }
        _ => {
            return match &ls.parent {
                None => rejected(
                    INVALID,
                    "spec.parentRef: only a gateway.networking.k8s.io Gateway can be a parent"
                        .into(),
                ),
                Some((ns, name)) => rejected(
                    PARENT_NOT_ACCEPTED,
                    format!("the parent Gateway {ns}/{name} does not exist"),
                ),
            };
        }
    };
    let parent_accepted = gw.is_some_and(|g| {
        let conflicts = merged.gateway_conflicts.get(gi).map_or(&[][..], |c| &c[..]);
        gateway_status::gateway_accepted(g, conflicts)
    });
    let listeners: Vec<ListenerStatus> = ls
        .listeners
        .iter()
        .enumerate()
        .map(|(li, l)| {
            let conflict = merged
                .sets
                .get(lsi)
                .and_then(|f| f.conflicts.get(li).copied().flatten());
            listener_status(input, ls, l, conflict, attached(li))
        })
        .collect();
    if !parent_accepted {
        let mut s = rejected(
            PARENT_NOT_ACCEPTED,
            format!(
                "the parent Gateway {} is not accepted",
                gateway
                    .as_ref()
                    .map_or_else(|| "?".to_owned(), ToString::to_string)
            ),
        );
        s.listeners = listeners;
        return s;
    }
    // GEP-1713 ListenerSet Conditions: `ListenersNotValid`, "one or more listeners in the set
    // are invalid"; as for a Gateway, the ListenerSet stays accepted while one listener is
    // valid (accepted, its references resolved), and is not accepted when none is.
    let invalid: Vec<&str> = ls
        .listeners
        .iter()
        .zip(&listeners)
        .filter(|(l, st)| {
            !implementation_specific(l)
                && st.conditions.iter().any(|c| {
                    (c.type_ == ACCEPTED || c.type_ == crate::status::RESOLVED_REFS) && !c.status
                })
        })
        .map(|(l, _)| l.name.as_str())
        .collect();
    let counted = ls
        .listeners
        .iter()
        .filter(|l| !implementation_specific(l))
        .count();
    let conditions = if invalid.is_empty() {
        vec![RouteCondition::new(
            ACCEPTED,
            true,
            ACCEPTED,
            "the ListenerSet is accepted",
        )]
    } else {
        let message = format!("listeners not valid: {}", invalid.join(", "));
        let none_left = invalid.len() == counted;
        let mut c = vec![RouteCondition::new(
            ACCEPTED,
            !none_left,
            LISTENERS_NOT_VALID,
            message.clone(),
        )];
        if none_left {
            c.push(RouteCondition::new(
                PROGRAMMED,
                false,
                LISTENERS_NOT_VALID,
                message,
            ));
        }
        c
    };
    ListenerSetStatus {
        namespace: ls.namespace.clone(),
        name: ls.name.clone(),
        gateway,
        conditions,
        listeners,
        left_out: None,
    }
}

fn listener_status(
    input: &TableInput,
    ls: &ListenerSetIr,
    l: &ListenerIr,
    conflict: Option<Conflict>,
    attached_routes: u32,
) -> ListenerStatus {
    let mut conditions = Vec::with_capacity(4);
    match (&l.unsupported_protocol, conflict) {
        // an implementation-specific protocol: the controller's own, as on a Gateway
        (Some(_), _) => {}
        (None, Some(c)) => {
            // the upstream ListenerSet conformance tests expect the conflict reason on
            // Accepted and Programmed of the listener that lost
            let message = conflict_message(l, c);
            conditions.push(RouteCondition::new(
                ACCEPTED,
                false,
                c.reason,
                message.clone(),
            ));
            conditions.push(RouteCondition::new(PROGRAMMED, false, c.reason, message));
        }
        (None, None) => conditions.push(RouteCondition::new(
            ACCEPTED,
            true,
            ACCEPTED,
            "the listener is accepted",
        )),
    }
    // ReferenceGrants of the Gateway are not inherited by its ListenerSets (GEP-1713
    // ReferenceGrant Semantics): grants from the ListenerSet's own namespace and kind count
    conditions.push(gateway_status::resolved_refs(
        "ListenerSet",
        &ls.namespace,
        l,
        &input.grants,
    ));
    conditions.push(match conflict {
        Some(c) => RouteCondition::new(CONFLICTED, true, c.reason, conflict_message(l, c)),
        None => RouteCondition::new(CONFLICTED, false, NO_CONFLICTS, "no conflicts"),
    });
    ListenerStatus {
        name: l.name.clone(),
        supported_kinds: l.route_kinds().to_vec(),
        attached_routes,
        conditions,
    }
}

/// Says what the listener conflicts with, naming no other ListenerSet (GEP-1713: "The
/// controller should avoid setting any condition that exposes information from other users").
fn conflict_message(l: &ListenerIr, c: Conflict) -> String {
    match c.rival {
        Rival::Own => format!(
            "not distinct from another listener of this ListenerSet on port {}",
            l.port
        ),
        Rival::Gateway => format!(
            "conflicts with a listener of the parent Gateway on port {}, which takes precedence",
            l.port
        ),
        Rival::OtherSet => format!(
            "conflicts with a listener on port {} of another ListenerSet of the same Gateway that takes precedence (older, or first by namespace/name)",
            l.port
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{AllowedNamespaces, GatewayIr, ListenerProtocol};
    use crate::listener_set::merge;

    fn http(name: &str, port: u16, host: &str) -> ListenerIr {
        ListenerIr {
            name: name.into(),
            port,
            protocol: ListenerProtocol::Http,
            hostname: Some(host.into()),
            ..ListenerIr::default()
        }
    }

    fn input(gateway: Vec<ListenerIr>, set: Vec<ListenerIr>) -> TableInput {
        TableInput {
            gateways: vec![GatewayIr {
                namespace: "infra".into(),
                name: "gw".into(),
                listeners: gateway,
                allowed_listeners: Some(AllowedNamespaces::All),
                ..GatewayIr::default()
            }],
            listener_sets: vec![ListenerSetIr {
                namespace: "team".into(),
                name: "ls".into(),
                created: None,
                parent: Some(("infra".into(), "gw".into())),
                listeners: set,
                invalid: None,
            }],
            ..TableInput::default()
        }
    }

    fn status(input: &TableInput) -> ListenerSetStatus {
        let merged = merge(input);
        compute(input, &merged, |_, _| 0).remove(0)
    }

    // GEP-1713 ListenerSet Conditions: ListenersNotValid, "one or more listeners in the set are
    // invalid"; the ListenerSet stays accepted while one listener is valid.
    #[test]
    fn some_invalid_listeners_keep_the_listener_set_accepted_with_listeners_not_valid() {
        let gw = vec![http("web", 80, "a.example.com")];
        let s = status(&input(
            gw.clone(),
            vec![
                http("dup", 80, "a.example.com"),
                http("ok", 80, "b.example.com"),
            ],
        ));
        let c = s.condition(ACCEPTED).cloned().unwrap();
        assert_eq!((c.status, c.reason.as_str()), (true, LISTENERS_NOT_VALID));
        assert!(
            c.message.contains("dup") && !c.message.contains("ok"),
            "{c:?}"
        );
        assert!(
            s.condition(PROGRAMMED).is_none(),
            "Programmed=True is the controller's"
        );
        // with no valid listener left, not accepted, and nothing can be programmed
        let s = status(&input(gw, vec![http("dup", 80, "a.example.com")]));
        for type_ in [ACCEPTED, PROGRAMMED] {
            let c = s.condition(type_).cloned().unwrap();
            assert_eq!((c.status, c.reason.as_str()), (false, LISTENERS_NOT_VALID));
        }
    }

    // ListenerSetConditionReason ParentNotAccepted: "the parent Gateway is not accepted" (here
    // every listener of the Gateway conflicts, Gateway Listener docs: no winner).
    #[test]
    fn a_listener_set_of_a_gateway_not_accepted_is_parent_not_accepted() {
        let gw = vec![
            http("a", 80, "x.example.com"),
            http("b", 80, "x.example.com"),
        ];
        let s = status(&input(gw, vec![http("ok", 8080, "y.example.com")]));
        let c = s.condition(ACCEPTED).cloned().unwrap();
        assert_eq!((c.status, c.reason.as_str()), (false, PARENT_NOT_ACCEPTED));
        // its listeners are still reported, each valid on its own
        assert!(
            s.listener("ok")
                .and_then(|l| l.condition(ACCEPTED))
                .is_some_and(|c| c.status)
        );
    }
}
