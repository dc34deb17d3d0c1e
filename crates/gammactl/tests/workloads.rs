//! `--bind workloads` on the real binary (beyond the Gateway API spec; docs/workloads.md): a
//! headless Service's routes bind at its ready endpoints on the port's targetPort, for
//! `resolve`, `resolve --follow`, `explain` and `status`; `--bind cluster-ips`, the default, is
//! the GEP-1294 rule (cluster IPs only).

mod common;

use common::run;

const F: &str = "crates/gammactl/tests/fixtures/workloads.yaml";

// GEP-1294: by default a request to a pod IP binds nothing and passes through.
#[test]
fn by_default_an_endpoint_ip_passes_through() {
    for bind in [None, Some("cluster-ips")] {
        let mut args = vec![
            "explain",
            "-f",
            F,
            "--to",
            "10.1.0.1:5432",
            "--protocol",
            "tcp",
        ];
        args.extend(bind.map(|b| ["--bind", b]).into_iter().flatten());
        let r = run(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.contains("decision:  pass through"), "{}", r.stdout);
    }
}

// Opt-in: the ready endpoint binds the headless Service's routes; explain names the Service the
// binding came from and says it is a workload binding.
#[test]
fn explain_shows_the_endpoint_binding_and_its_headless_service() {
    let r = run(&[
        "explain",
        "-f",
        F,
        "--to",
        "10.1.0.1:5432",
        "--protocol",
        "tcp",
        "--bind",
        "workloads",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "binding:   Service data/db port 5432 (destination 10.1.0.1:5432 is a ready endpoint \
             of this headless Service"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("decision:  forward to data/db-proxy:5432")
    );
}

// EndpointSlice API: an endpoint with `conditions.ready: false` is not bound.
#[test]
fn a_not_ready_endpoint_stays_unbound() {
    let r = run(&[
        "resolve",
        "-f",
        F,
        "--to",
        "10.1.0.2:5432",
        "--protocol",
        "tcp",
        "--bind",
        "workloads",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("pass through"), "{}", r.stdout);
    // explain does not claim that headless Services never bind: under this policy they do
    let e = run(&[
        "explain",
        "-f",
        F,
        "--to",
        "10.1.0.2:5432",
        "--protocol",
        "tcp",
        "--bind",
        "workloads",
    ]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(
        e.stdout.contains(
            "no Service cluster IP, Gateway address or headless Service endpoint with routes"
        ),
        "{}",
        e.stdout
    );
    assert!(!e.stdout.contains("never bind"), "{}", e.stdout);
}

// Our conflict rule: an endpoint of two headless Services with routes binds neither.
#[test]
fn a_shared_endpoint_is_a_conflict_in_resolve_explain_and_status() {
    let args = [
        "-f",
        F,
        "--to",
        "10.1.0.9:5432",
        "--protocol",
        "tcp",
        "--bind",
        "workloads",
    ];
    let r = run(&[&["resolve"][..], &args].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("the destination is a ready endpoint of several headless Services"),
        "{}",
        r.stdout
    );
    let e = run(&[&["explain"][..], &args].concat());
    assert!(
        e.stdout.contains("data/db, data/db-replica"),
        "{}",
        e.stdout
    );
    let s = run(&[
        "status",
        "-f",
        F,
        "--config",
        "examples/gamma-config.yaml",
        "--as",
        "linkerd",
        "--bind",
        "workloads",
        "--now",
        "2026-11-29T12:00:00Z",
    ]);
    assert_eq!(s.code, 0, "{}", s.stderr);
    // db has an endpoint of its own (10.1.0.1): accepted; db-replica has none: Conflicted
    assert!(
        s.stdout
            .contains("Service data/db:5432: Accepted=True Accepted"),
        "{}",
        s.stdout
    );
    assert!(
        s.stdout
            .contains("Service data/db-replica:5432: Accepted=False Conflicted"),
        "{}",
        s.stdout
    );
}

// docs/chains.md: a trace starting at a workload-bound hop follows the backend to its next hop.
#[test]
fn follow_starts_at_a_workload_bound_hop() {
    let r = run(&[
        "resolve",
        "-f",
        F,
        "--to",
        "10.1.0.1:5432",
        "--protocol",
        "tcp",
        "--bind",
        "workloads",
        "--follow",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("hop 1:   Service data/db port 5432 (producer routes)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("end:     delivered to data/db-proxy:5432")
    );
}
