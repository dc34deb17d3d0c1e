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

/// A producer route on `books/opinions` as Linkerd's docs write it (`group: core`), and one
/// with no group at all.
const MISGROUPED: &str = "\
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: core-group, namespace: books}
spec:
  parentRefs: [{group: core, kind: Service, name: opinions, port: 9080}]
  rules: [{backendRefs: [{name: opinions-v2, port: 9080}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: no-group, namespace: books}
spec:
  parentRefs: [{kind: Service, name: opinions, port: 9080}]
  rules: [{backendRefs: [{name: opinions-v2, port: 9080}]}]
";

fn with_books(extra: &str) -> String {
    let books = std::fs::read_to_string(common::root().join(BOOKS)).unwrap();
    format!("{books}\n---\n{extra}")
}

// ParentReference.group: the core group is "". Plain validate (no --refs) warns on both
// spellings and names the fix; --refs does not repeat it as a condition.
#[test]
fn plain_validate_warns_on_a_misgrouped_service_parent_naming_the_fix() {
    let input = with_books(MISGROUPED);
    let r = run_with_stdin(&["validate", "-f", "-"], Some(&input));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout
            .matches("write group: \"\" for a core Service")
            .count(),
        2,
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(
        "HTTPRoute books/core-group: spec.parentRefs[0]: group core is not the core API group"
    ));
    assert!(
        r.stdout
            .contains("HTTPRoute books/no-group: spec.parentRefs[0]: kind Service in group gateway.networking.k8s.io (what an omitted group defaults to)")
    );
    let refs = run_with_stdin(&["validate", "--refs", "-f", "-"], Some(&input));
    assert_eq!(
        refs.stdout.matches("spec.parentRefs[0]").count(),
        2,
        "{}",
        refs.stdout
    );
}

// The arbiter reports such a parent as not a Service, naming the fix; the opt-in
// `coreGroupAlias` policy (non-standard, as Linkerd) reads `core` as the core group, in the
// ownership table and the route table alike.
#[test]
fn a_misgrouped_service_parent_is_not_a_service_unless_the_config_aliases_core() {
    let input = with_books(MISGROUPED);
    let r = run_with_stdin(&["owners", "-f", "-", "--all"], Some(&input));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout
            .matches("not a Service (did you mean group: \"\"?)")
            .count(),
        2,
        "{}",
        r.stdout
    );

    let dir = std::env::temp_dir().join(format!("gammactl-core-alias-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.yaml");
    std::fs::write(
        &config,
        "meshes: [{name: linkerd, controllerName: linkerd.io/policy-controller, default: true}]\ncoreGroupAlias: true\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let o = run_with_stdin(
        &["owners", "-f", "-", "--all", "--config", config],
        Some(&input),
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.matches("not a Service").count(), 1, "{}", o.stdout);
    let s = run_with_stdin(
        &[
            "status",
            "-f",
            "-",
            "--config",
            config,
            "--as",
            "linkerd.io/policy-controller",
        ],
        Some(&input),
    );
    assert_eq!(s.code, 0, "{}", s.stderr);
    assert!(
        s.stdout.contains("HTTPRoute books/core-group"),
        "{}",
        s.stdout
    );
    assert!(
        !s.stdout.contains("HTTPRoute books/no-group"),
        "{}",
        s.stdout
    );
    assert!(!s.stdout.contains("NoMatchingParent"), "{}", s.stdout);
    std::fs::remove_dir_all(&dir).ok();
}

/// A route on `books/opinions` with two broken backendRefs: a Service that does not exist and
/// a port `books/stars` does not have.
const BROKEN_BACKENDS: &str = "\
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: broken, namespace: books}
spec:
  parentRefs: [{group: \"\", kind: Service, name: opinions, port: 9080}]
  rules:
  - backendRefs:
    - {name: opinions-v3, port: 9080}
    - {name: stars, port: 8080}
    - {name: opinions-v1, port: 9080}
";

// Route status ResolvedRefs: every unresolved backendRef is listed with its own reason, the
// missing port named, in the condition `validate --refs` shows; `explain` says why the picked
// backend is invalid.
#[test]
fn every_broken_backend_ref_is_reported_and_explained() {
    let input = with_books(BROKEN_BACKENDS);
    let r = run_with_stdin(&["validate", "--refs", "-f", "-"], Some(&input));
    assert_eq!(r.code, 0, "{}", r.stderr);
    // one line per broken backendRef, at its own field (and line), never one line per parent
    for expected in [
        // the reason once, not `BackendNotFound: BackendNotFound (...)`
        "HTTPRoute books/broken: spec.rules[0].backendRefs[0]: ResolvedRefs=False BackendNotFound \
         (books/opinions-v3)\n",
        "HTTPRoute books/broken: spec.rules[0].backendRefs[1]: ResolvedRefs=False BackendNotFound \
         (books/stars): the Service has no port 8080 (its ports: 9080)\n",
    ] {
        assert!(r.stdout.contains(expected), "{expected}\n{}", r.stdout);
    }
    assert!(!r.stdout.contains("backendRefs[2]"), "{}", r.stdout);
    assert!(
        !r.stdout.contains("spec.parentRefs[0]: ResolvedRefs"),
        "{}",
        r.stdout
    );
    // the route status condition itself still lists both, with the first reason
    let s = run_with_stdin(
        &[
            "status",
            "-f",
            "-",
            "--config",
            "examples/gamma-config.yaml",
            "--as",
            "linkerd.io/policy-controller",
            "-o",
            "json",
        ],
        Some(&input),
    );
    assert!(
        s.stdout.contains(
            "rule 0: backendRefs[0]: BackendNotFound (books/opinions-v3); \
             rule 0: backendRefs[1]: BackendNotFound (books/stars): the Service has no port 8080 (its ports: 9080)"
        ),
        "{}\n{}",
        s.stdout,
        s.stderr
    );
    // weights 1/1/1: entropy 2^63 picks backendRefs[1]
    let e = run_with_stdin(
        &[
            "explain",
            "-f",
            "-",
            "--to",
            "opinions.books:9080",
            "--entropy",
            "9223372036854775808",
            "GET",
            "/",
        ],
        Some(&input),
    );
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(
        e.stdout.contains(
            "the picked backend is invalid: backendRefs[1] books/stars:8080 (weighted pick from \
             entropy 9223372036854775808; rule 0): BackendNotFound (books/stars): the Service has \
             no port 8080 (its ports: 9080)"
        ),
        "{}",
        e.stdout
    );
}

/// A GRPCRoute on `books/opinions` invalid as a whole (its hostname breaks the CRD pattern).
const INVALID_GRPC: &str = "\
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: bad-grpc, namespace: books}
spec:
  parentRefs: [{group: \"\", kind: Service, name: opinions, port: 9080}]
  hostnames: [\"-not a hostname-\"]
  rules: [{backendRefs: [{name: opinions-v2, port: 9080}]}]
";

// The same holds for a batch of requests: `resolve --requests` notes the left-out route once,
// at the first request to the Service it names, not once per request and not never.
#[test]
fn a_route_left_out_for_invalidity_is_noted_once_by_resolve_requests() {
    let input = with_books(INVALID_GRPC);
    let dir = std::env::temp_dir().join(format!("gammactl-left-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let requests = dir.join("requests.jsonl");
    std::fs::write(
        &requests,
        "{\"to\": \"opinions.books:9080\", \"path\": \"/\"}\n\
         {\"to\": \"opinions.books:9080\", \"path\": \"/a\"}\n",
    )
    .unwrap();
    let r = run_with_stdin(
        &[
            "resolve",
            "-f",
            "-",
            "--requests",
            requests.to_str().unwrap(),
            "-o",
            "text",
        ],
        Some(&input),
    );
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let note = "requests.jsonl:1: note: GRPCRoute books/bad-grpc was left out: spec.hostnames[0]";
    assert!(r.stderr.contains(note), "{}", r.stderr);
    assert_eq!(r.stderr.matches("was left out").count(), 1, "{}", r.stderr);
    assert_eq!(
        r.stdout
            .matches("forward to books/opinions-v1:9080")
            .count(),
        2,
        "{}",
        r.stdout
    );
}

// A route left out of the table for invalidity stays visible: explain and resolve say so for
// the Service it names, on either channel (both take --channel), instead of silently showing
// the HTTPRoute as if the GRPCRoute did not exist.
#[test]
fn a_route_left_out_for_invalidity_is_named_by_explain_and_resolve() {
    let input = with_books(INVALID_GRPC);
    let note = "GRPCRoute books/bad-grpc was left out: spec.hostnames[0]";
    for channel in ["standard", "experimental"] {
        let e = run_with_stdin(
            &[
                "explain",
                "-f",
                "-",
                "--channel",
                channel,
                "--to",
                "opinions.books:9080",
                "GET",
                "/",
            ],
            Some(&input),
        );
        assert_eq!(e.code, 0, "{}", e.stderr);
        assert!(
            e.stdout.contains(&format!("left out:  {note}")),
            "{}",
            e.stdout
        );
        assert!(
            e.stdout
                .contains("winner:    HTTPRoute books/opinions rule 1"),
            "{}",
            e.stdout
        );
        let r = run_with_stdin(
            &[
                "resolve",
                "-f",
                "-",
                "--channel",
                channel,
                "--to",
                "opinions.books:9080",
                "GET",
                "/",
            ],
            Some(&input),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stdout.starts_with("forward to books/opinions-v1:9080"),
            "{}",
            r.stdout
        );
        assert!(r.stderr.contains(&format!("note: {note}")), "{}", r.stderr);
    }
    let s = run_with_stdin(
        &[
            "status",
            "-f",
            "-",
            "--channel",
            "experimental",
            "--config",
            "examples/gamma-config.yaml",
            "--as",
            "linkerd.io/policy-controller",
        ],
        Some(&input),
    );
    assert_eq!(s.code, 0, "{}", s.stderr);
    assert!(
        s.stdout.contains("GRPCRoute books/bad-grpc"),
        "{}",
        s.stdout
    );
}
