//! What a Gateway listener admits, from its spec: the route kinds of `allowedRoutes.kinds`
//! that its protocol carries, and the entries it cannot serve (Gateway API
//! Listener.allowedRoutes and ListenerStatus.supportedKinds).

use gamma_model::gateway::RouteGroupKind;

use crate::input::{ListenerIr, ListenerProtocol};
use gamma_model::RouteKind;

/// Reason `HostnameConflict` (Gateway API ListenerConditionReason).
pub(crate) const HOSTNAME_CONFLICT: &str = "HostnameConflict";
/// Reason `ProtocolConflict` (Gateway API ListenerConditionReason).
pub(crate) const PROTOCOL_CONFLICT: &str = "ProtocolConflict";

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
            .then(|| RouteKind::from_kind_name(&k.kind))
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

/// Why each listener of one Gateway is not distinct (`None`: distinct), in listener order.
///
/// Gateway API Listener docs: listeners that share a protocol must differ in Port or Hostname
/// (HTTP, HTTPS, TLS) or in Port (TCP, UDP); HTTP, HTTPS and TLS listeners that share a port
/// with a TCP listener are not distinct; "ALL indistinct Listeners must not be accepted", no
/// winner is picked. Besides, this project's choice: an HTTP listener and an HTTPS or TLS one
/// on the same port conflict (plain and TLS traffic on one port cannot be told apart by Host
/// or SNI), HTTPS and TLS share a port (SNI tells them apart), and UDP never conflicts with
/// the TCP-based protocols. Listeners of unsupported protocols take no part.
pub(crate) fn conflicts(listeners: &[ListenerIr]) -> Vec<Option<&'static str>> {
    conflicts_among(&listeners.iter().collect::<Vec<_>>())
}

/// [`conflicts`] of listeners given by reference (a subset of a resource's).
pub(crate) fn conflicts_among(listeners: &[&ListenerIr]) -> Vec<Option<&'static str>> {
    let mut out = vec![None; listeners.len()];
    let served = |l: &ListenerIr| l.unsupported_protocol.is_none();
    for (i, a) in listeners.iter().enumerate().filter(|(_, l)| served(l)) {
        for (j, b) in listeners.iter().enumerate().skip(i + 1) {
            if !served(b) || a.port != b.port {
                continue;
            }
            let Some(reason) = pair_conflict(a, b) else {
                continue;
            };
            for k in [i, j] {
                if let Some(slot) = out.get_mut(k) {
                    // a protocol conflict is the stronger statement
                    if slot.is_none() || reason == PROTOCOL_CONFLICT {
                        *slot = Some(reason);
                    }
                }
            }
        }
    }
    out
}

/// Whether two listeners are not distinct, and how ([`conflicts`] for one pair): both of a
/// served protocol, on one port, and not told apart by protocol or hostname.
pub(crate) fn conflict_between(a: &ListenerIr, b: &ListenerIr) -> Option<&'static str> {
    let served = |l: &ListenerIr| l.unsupported_protocol.is_none();
    if !served(a) || !served(b) || a.port != b.port {
        return None;
    }
    pair_conflict(a, b)
}

/// Whether two listeners on one port conflict, and how.
fn pair_conflict(a: &ListenerIr, b: &ListenerIr) -> Option<&'static str> {
    use ListenerProtocol::{Http, Https, Tcp, Tls, Udp};
    match (a.protocol, b.protocol) {
        (Udp, Udp) | (Tcp, Tcp) => Some(HOSTNAME_CONFLICT),
        (Udp, _) | (_, Udp) => None,
        (x, y) if x == y || matches!((x, y), (Https, Tls) | (Tls, Https)) => {
            let same = match (&a.hostname, &b.hostname) {
                (None, None) => true,
                (Some(x), Some(y)) => x.eq_ignore_ascii_case(y),
                _ => false,
            };
            // HTTPS and TLS with the same hostname: SNI cannot tell them apart
            same.then_some(HOSTNAME_CONFLICT)
        }
        (Tcp, _) | (_, Tcp) | (Http, _) | (_, Http) => Some(PROTOCOL_CONFLICT),
        _ => None,
    }
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

    fn l(port: u16, protocol: ListenerProtocol, host: Option<&str>) -> ListenerIr {
        ListenerIr {
            port,
            protocol,
            hostname: host.map(Into::into),
            ..ListenerIr::default()
        }
    }

    // Gateway API Listener docs: HTTP/HTTPS/TLS are distinct by Port and Hostname, TCP/UDP by
    // Port; listeners sharing a port with a TCP listener are not distinct; no winner.
    #[test]
    fn indistinct_listeners_all_conflict() {
        use ListenerProtocol::*;
        let ls = [
            l(80, Http, Some("a.example.com")),
            l(80, Http, Some("A.example.com")),
            l(80, Http, Some("b.example.com")),
            l(443, Https, Some("a.example.com")),
            l(443, Tls, Some("b.example.com")),
            l(9000, Tcp, None),
            l(9000, Tls, Some("c.example.com")),
            l(9000, Udp, None),
            l(53, Udp, None),
            l(53, Udp, None),
        ];
        assert_eq!(
            conflicts(&ls),
            vec![
                Some(HOSTNAME_CONFLICT),
                Some(HOSTNAME_CONFLICT),
                None,
                None,
                None,
                Some(PROTOCOL_CONFLICT),
                Some(PROTOCOL_CONFLICT),
                None,
                Some(HOSTNAME_CONFLICT),
                Some(HOSTNAME_CONFLICT),
            ]
        );
    }
}
