//! ListenerSets (GEP-1713) through the real binary: `gammactl status` shows the status of the
//! ListenerSets of the controller's Gateways, and `resolve`/`explain` reach a ListenerSet's
//! routes through its Gateway (`--to gateway/NS/NAME:PORT`) or the ListenerSet itself
//! (`--to listenerset/NS/NAME:PORT`).

mod common;

use common::{run, status_as};

const INPUT: &str = "crates/gammactl/tests/fixtures/listener-sets.yaml";

// ListenerSetConditionReason NotAllowed (the Gateway's allowedListeners does not select the
// namespace); ListenerEntryStatus.attachedRoutes; GatewayStatus.attachedListenerSets.
#[test]
fn status_shows_listener_sets_of_own_gateways() {
    let r = status_as(INPUT, "example.com/gateway");
    for line in [
        "Gateway infra/edge: Accepted=True Accepted\n  attachedListenerSets 1\n",
        "ListenerSet team/extra (Gateway infra/edge): Accepted=True Accepted\n  listener app: attachedRoutes 1, supportedKinds [HTTPRoute, GRPCRoute]: Accepted=True Accepted, ResolvedRefs=True ResolvedRefs, Conflicted=False NoConflicts\n",
        "ListenerSet other/stray (Gateway infra/edge): Accepted=False NotAllowed, Programmed=False NotAllowed\n",
        // the route's ListenerSet parent gets its status like a Gateway parent
        "ListenerSet team/extra section app: Accepted=True Accepted, ResolvedRefs=True ResolvedRefs",
    ] {
        assert!(r.stdout.contains(line), "{line}\n---\n{}", r.stdout);
    }
    // another controller writes none of them
    let r = status_as(INPUT, "other.example.com/gateway");
    assert!(
        !r.stdout.contains("ListenerSet team/extra ("),
        "{}",
        r.stdout
    );
}

// ListenerSetSpec.listeners: "Listeners define logical endpoints that are bound on this
// referenced parent Gateway's addresses": the Gateway's address and the ListenerSet
// listener's port reach the ListenerSet's routes.
#[test]
fn a_gateway_destination_reaches_listener_set_routes() {
    let r = run(&[
        "explain",
        "-f",
        INPUT,
        "--to",
        "gateway/infra/edge:8080",
        "--host",
        "app.example.com",
        "GET",
        "/x",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("route set: listener app of ListenerSet team/extra (Gateway infra/edge)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("decision:  forward to team/app:80"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_listener_set_can_be_addressed_directly() {
    let r = run(&[
        "resolve",
        "-f",
        INPUT,
        "--to",
        "listenerset/team/extra:8080",
        "--host",
        "app.example.com",
        "GET",
        "/",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "forward to team/app:80 (by HTTPRoute team/app rule 0)\n"
    );
    // a port none of its listeners has, and a ListenerSet its Gateway does not admit
    for (to, says) in [
        (
            "listenerset/team/extra:9999",
            "ListenerSet team/extra has no listener on port 9999 (its ports: 8080)",
        ),
        (
            "listenerset/other/stray:9090",
            "ListenerSet other/stray is not accepted (NotAllowed:",
        ),
    ] {
        let r = run(&["resolve", "-f", INPUT, "--to", to, "GET", "/"]);
        assert_ne!(r.code, 0, "{to}: {}", r.stdout);
        assert!(r.stderr.contains(says), "{to}: {}", r.stderr);
    }
}
