//! `--bind workloads` on the real binary (beyond the Gateway API spec; docs/workloads.md): a
//! headless Service's routes bind at its ready endpoints on the port's targetPort, for
//! `resolve`, `resolve --follow`, `explain` (with `--follow`) and `status`; `--bind
//! cluster-ips`, the default, is the GEP-1294 rule (cluster IPs only).

mod common;

use common::{Run, run};

const F: &str = "crates/gammactl/tests/fixtures/workloads.yaml";

/// `gammactl COMMAND -f F --to TO --protocol tcp [--bind BIND] [EXTRA...]`, which must exit 0.
fn tcp(command: &str, to: &str, bind: Option<&str>, extra: &[&str]) -> Run {
    let mut args = vec![command, "-f", F, "--to", to, "--protocol", "tcp"];
    args.extend(bind.map(|b| ["--bind", b]).into_iter().flatten());
    args.extend_from_slice(extra);
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r
}

/// [`tcp`] with `--bind workloads`.
fn workloads(command: &str, to: &str, extra: &[&str]) -> Run {
    tcp(command, to, Some("workloads"), extra)
}

// GEP-1294: by default a request to a pod IP binds nothing and passes through.
#[test]
fn by_default_an_endpoint_ip_passes_through() {
    for bind in [None, Some("cluster-ips")] {
        let r = tcp("explain", "10.1.0.1:5432", bind, &[]);
        assert!(r.stdout.contains("decision:  pass through"), "{}", r.stdout);
    }
}

// Opt-in: the ready endpoint binds the headless Service's routes; explain names the Service the
// binding came from and says it is a workload binding.
#[test]
fn explain_shows_the_endpoint_binding_and_its_headless_service() {
    let r = workloads("explain", "10.1.0.1:5432", &[]);
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
    let r = workloads("resolve", "10.1.0.2:5432", &[]);
    assert!(r.stdout.starts_with("pass through"), "{}", r.stdout);
    // explain does not claim that headless Services never bind: under this policy they do
    let e = workloads("explain", "10.1.0.2:5432", &[]);
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
    let r = workloads("resolve", "10.1.0.9:5432", &[]);
    assert!(
        r.stdout
            .contains("the destination is a ready endpoint of several headless Services"),
        "{}",
        r.stdout
    );
    let e = workloads("explain", "10.1.0.9:5432", &[]);
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
    let r = workloads("resolve", "10.1.0.1:5432", &["--follow"]);
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

// docs/workloads.md (beyond the spec): under workload binding a call to the headless Service
// `db` lands on one of its ready endpoints, where db's routes apply, so `explain --follow`
// explains that hop too (sent to the lowest ready endpoint of db that is its alone, on the
// target port); with the default binding (GEP-1294: cluster IPs only) db is the final backend.
#[test]
fn explain_follow_continues_into_a_headless_backend_under_workload_binding() {
    let r = workloads("explain", "10.96.5.2:5432", &["--follow"]);
    for line in [
        "hop 2:     TCP connection to 10.1.0.1:5432 from data",
        "binding:   Service data/db port 5432 (destination 10.1.0.1:5432 is a ready endpoint of \
         this headless Service",
        "decision:  forward to data/db-proxy:5432 (by TCPRoute data/db-via-proxy rule 0)",
        "end:       delivered to data/db-proxy:5432",
    ] {
        assert!(r.stdout.contains(line), "{line} in\n{}", r.stdout);
    }
    let d = tcp("explain", "10.96.5.2:5432", None, &["--follow"]);
    assert!(!d.stdout.contains("hop 2:"), "{}", d.stdout);
    assert!(
        d.stdout.contains("end:       delivered to data/db:5432"),
        "{}",
        d.stdout
    );
    // and the JSON form carries both hops
    let j = workloads("explain", "10.96.5.2:5432", &["--follow", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).expect("JSON");
    let hops = v["trace"]["hops"].as_array().expect("hops");
    assert_eq!(hops.len(), 2, "{v}");
    assert_eq!(hops[1]["request"]["destination"], "10.1.0.1", "{v}");
    assert_eq!(hops[1]["frontend"]["name"], "db", "{v}");
}
