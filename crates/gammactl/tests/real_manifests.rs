//! gammactl on manifests as people write them (Services with selectors and ports only, no
//! `clusterIP`): `tests/fixtures/bookinfo-like.yaml`.

mod common;

use common::{run, run_with_stdin};

const BOOKS: &str = "crates/gammactl/tests/fixtures/bookinfo-like.yaml";

// ServiceSpec.clusterIP: only `None` makes a Service headless; an omitted clusterIP is
// allocated by the API server, so the Service is a parent (GEP-1294) and its routes are
// Accepted.
#[test]
fn a_service_without_cluster_ip_is_an_accepted_parent() {
    let r = run(&[
        "status",
        "-f",
        BOOKS,
        "--config",
        "examples/gamma-config.yaml",
        "--as",
        "linkerd.io/policy-controller",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("Service books/opinions:9080: Accepted=True Accepted, ResolvedRefs=True"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("NoMatchingParent"), "{}", r.stdout);
}

// Resolving by name works without a cluster IP: gammactl sends to a stand-in address from a
// reserved range and says so once.
#[test]
fn a_service_without_cluster_ip_resolves_by_name_through_a_stand_in() {
    let r = run(&[
        "resolve",
        "-f",
        BOOKS,
        "--to",
        "opinions.books:9080",
        "GET",
        "/beta/list",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "forward to books/opinions-v2:9080 (by HTTPRoute books/opinions rule 0)\n"
    );
    assert_eq!(r.stderr.matches("stand-in").count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("198.18.0.0/15"), "{}", r.stderr);

    let e = run(&[
        "explain",
        "-f",
        BOOKS,
        "--to",
        "opinions.books:9080",
        "GET",
        "/",
    ]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(
        e.stdout
            .contains("note:      the Service has no clusterIP in the manifests")
    );
    assert!(
        e.stdout
            .contains("binding:   Service books/opinions port 9080")
    );
}

// A batch names every stand-in it used in one note, not one per request.
#[test]
fn stand_in_addresses_are_noted_once_per_run() {
    let requests = r#"{"to":"opinions.books:9080","path":"/"}
{"to":"opinions.books:9080","path":"/beta"}
{"to":"stars.books:9080","path":"/"}
"#;
    let r = run_with_stdin(
        &["resolve", "-f", BOOKS, "--requests", "-", "-o", "text"],
        Some(requests),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 3, "{}", r.stdout);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("opinions.books 198.18."), "{}", r.stderr);
    assert!(r.stderr.contains("stars.books 198.18."), "{}", r.stderr);
}

// A stand-in never takes an address the input already uses: the first address of the range,
// held here by a real Service, is skipped.
#[test]
fn stand_in_addresses_never_collide_with_input_addresses() {
    let taken = "\
apiVersion: v1
kind: Service
metadata: {name: aaa, namespace: books}
spec:
  clusterIP: 198.18.0.1
  ports: [{name: http, port: 9080}]
";
    let manifests = format!(
        "{}\n---\n{taken}",
        std::fs::read_to_string(common::root().join(BOOKS)).unwrap()
    );
    for service in [
        "blurbs",
        "opinions",
        "opinions-v1",
        "opinions-v2",
        "stars",
        "storefront",
    ] {
        let to = format!("{service}.books:9080");
        let r = run_with_stdin(
            &["resolve", "-f", "-", "--to", &to, "GET", "/"],
            Some(&manifests),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stderr.contains("stand-in 198.18."), "{}", r.stderr);
        assert!(!r.stderr.contains("stand-in 198.18.0.1 "), "{}", r.stderr);
    }
}

// Headless is `clusterIP: None` only: such a Service still has no address to send to.
#[test]
fn a_headless_service_gets_no_stand_in() {
    let r = run(&[
        "resolve",
        "-f",
        "examples/manifests",
        "--to",
        "ledger-db.payments:5432",
    ]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("headless: clusterIP: None"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("stand-in"), "{}", r.stderr);
}
