//! What a Gateway listener admits, from its spec: the route kinds of `allowedRoutes.kinds`
//! that its protocol carries, and the entries it cannot serve (Gateway API
//! Listener.allowedRoutes and ListenerStatus.supportedKinds).

use gamma_model::gateway::RouteGroupKind;

use crate::ir::{ListenerProtocol, RouteKind};

/// The Gateway API group, the default of `RouteGroupKind.group`.
const GATEWAY_GROUP: &str = "gateway.networking.k8s.io";

/// Splits `allowedRoutes.kinds` into the kinds a listener of `protocol` serves (deduplicated,
/// in spec order) and the entries it cannot serve, as `group/Kind`: unknown kinds and kinds the
/// protocol does not carry (an HTTP listener serves HTTPRoute and GRPCRoute, TLS serves TLSRoute,
/// TCP TCPRoute, UDP UDPRoute). Listener.allowedRoutes: "Kinds specifies the groups and kinds of
/// Routes that are allowed to bind to this Gateway Listener"; ListenerConditionReason
/// InvalidRouteKinds: "the Listener has an invalid or unsupported Route kind".
pub(crate) fn listener_kinds(
    protocol: ListenerProtocol,
    listed: &[RouteGroupKind],
) -> (Vec<RouteKind>, Vec<String>) {
    let mut kinds = Vec::new();
    let mut invalid = Vec::new();
    for k in listed {
        let group = k.group.as_deref().unwrap_or(GATEWAY_GROUP);
        let kind = (group == GATEWAY_GROUP)
            .then(|| route_kind(&k.kind))
            .flatten()
            .filter(|kind| protocol.default_kinds().contains(kind));
        match kind {
            Some(kind) if !kinds.contains(&kind) => kinds.push(kind),
            Some(_) => {}
            None => invalid.push(format!("{group}/{}", k.kind)),
        }
    }
    (kinds, invalid)
}

fn route_kind(kind: &str) -> Option<RouteKind> {
    Some(match kind {
        "HTTPRoute" => RouteKind::Http,
        "GRPCRoute" => RouteKind::Grpc,
        "TLSRoute" => RouteKind::Tls,
        "TCPRoute" => RouteKind::Tcp,
        "UDPRoute" => RouteKind::Udp,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gk(group: Option<&str>, kind: &str) -> RouteGroupKind {
        RouteGroupKind {
            group: group.map(Into::into),
            kind: kind.into(),
        }
    }

    // ListenerStatus.supportedKinds lists only the valid kinds; the rest is InvalidRouteKinds.
    #[test]
    fn unknown_and_foreign_protocol_kinds_are_invalid() {
        let (ok, bad) = listener_kinds(
            ListenerProtocol::Http,
            &[
                gk(None, "HTTPRoute"),
                gk(Some("example.com"), "HTTPRoute"),
                gk(None, "FooRoute"),
                gk(None, "TCPRoute"),
                gk(Some(GATEWAY_GROUP), "HTTPRoute"),
            ],
        );
        assert_eq!(ok, vec![RouteKind::Http]);
        assert_eq!(
            bad,
            vec![
                "example.com/HTTPRoute",
                "gateway.networking.k8s.io/FooRoute",
                "gateway.networking.k8s.io/TCPRoute"
            ]
        );
        let (ok, bad) = listener_kinds(ListenerProtocol::Tcp, &[gk(None, "TCPRoute")]);
        assert_eq!((ok, bad.len()), (vec![RouteKind::Tcp], 0));
    }
}
