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

// GatewayTLSConfig.certificateRefs: a reference to a Secret that does not exist is
// ResolvedRefs=False InvalidCertificateRef. Whether the files hold every Secret is said, not
// counted: `--secrets-complete` says so even when they hold none, and files holding some
// Secret imply it; without either, a reference is checked by kind and ReferenceGrant only.
#[test]
fn certificate_refs_are_judged_missing_when_the_inputs_hold_every_secret() {
    const GATEWAY: &str = "crates/gammactl/tests/fixtures/certificate-ref.yaml";
    const SECRET: &str = "crates/gammactl/tests/fixtures/other-tls-secret.yaml";
    let status = |extra: &[&str]| {
        let mut args = vec![
            "status",
            "-f",
            GATEWAY,
            "--as",
            "example.com/gateway",
            "--now",
            "2026-11-29T12:00:00Z",
        ];
        args.extend_from_slice(extra);
        let r = common::run(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    let listener = |extra: &[&str]| {
        let out = status(extra);
        out.lines()
            .find(|l| l.starts_with("  listener https:"))
            .unwrap_or_else(|| panic!("{out}"))
            .to_owned()
    };
    assert!(
        listener(&[]).contains("ResolvedRefs=True ResolvedRefs"),
        "{}",
        listener(&[])
    );
    for extra in [&["--secrets-complete"][..], &["-f", SECRET]] {
        let l = listener(extra);
        assert!(
            l.contains("ResolvedRefs=False InvalidCertificateRef"),
            "{extra:?}: {l}"
        );
    }
    let json = status(&["--secrets-complete", "-o", "json"]);
    assert!(json.contains("Secret infra/cert does not exist"), "{json}");
    // a cluster read lists no Secrets: the flag would judge every reference missing
    let r = common::run(&[
        "status",
        "--kubeconfig",
        "/nonexistent",
        "--as",
        "example.com/gateway",
        "--secrets-complete",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--secrets-complete"), "{}", r.stderr);
}
