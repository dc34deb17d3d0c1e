//! `gammactl status` shows the Gateway and listener status of the Gateways whose class this
//! controller runs (GatewayClass `controllerName`), and no other Gateway's.

mod common;

use common::status_as;

const INPUT: &str = "crates/gammactl/tests/fixtures/gateway-status.yaml";

// ListenerStatus: attachedRoutes, supportedKinds (valid kinds only), ResolvedRefs=False
// InvalidRouteKinds for a listener listing only a kind it cannot serve (Gateway API
// ListenerConditionReason).
#[test]
fn status_shows_gateway_and_listener_status_of_own_gateways() {
    let r = status_as(INPUT, "example.com/gateway");
    assert!(
        r.stdout
            .contains("Gateway infra/edge: Accepted=True Accepted\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "  listener web: attachedRoutes 1, supportedKinds [HTTPRoute, GRPCRoute]: Accepted=True Accepted, ResolvedRefs=True ResolvedRefs, Conflicted=False NoConflicts\n"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "  listener foo: attachedRoutes 0, supportedKinds []: Accepted=True Accepted, ResolvedRefs=False InvalidRouteKinds"
        ),
        "{}",
        r.stdout
    );
    // the other class's Gateway is not ours to report
    assert!(!r.stdout.contains("infra/other"), "{}", r.stdout);
}

#[test]
fn status_shows_no_gateway_of_another_controller() {
    let r = status_as(INPUT, "other.example.com/gateway");
    assert!(
        r.stdout
            .contains("Gateway infra/other: Accepted=True Accepted"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("infra/edge:"), "{}", r.stdout);
}
