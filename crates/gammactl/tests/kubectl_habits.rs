//! kubectl habits: `-n/--namespace`, the `default` namespace, folders without Namespace
//! objects, and folders that define one object twice, read as kubectl reads them.
//! `fixtures/kubectl-habits/` is written for `kubectl apply -n NAMESPACE -f FOLDER`: no object
//! names a namespace, there are no Namespace objects, and two files define the same route.

mod common;

use common::run;

const DIR: &str = "crates/gammactl/tests/fixtures/kubectl-habits";
const LINKERD_DEFAULT: &str = "crates/gammactl/tests/fixtures/core-group-no-alias.yaml";
const NOTE: &str = "not defined in them";

#[test]
fn objects_and_bare_service_names_are_in_the_namespace_of_dash_n_else_default() {
    // without -n: `default`, for the objects and for `--to reviews:9080` (no --from needed)
    let r = run(&["resolve", "-f", DIR, "--to", "reviews:9080", "GET", "/"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("forward to default/reviews-v2:9080 (by HTTPRoute default/reviews"),
        "{}",
        r.stdout
    );
    // with -n: that namespace, for both
    let r = run(&[
        "resolve",
        "-n",
        "books",
        "-f",
        DIR,
        "--to",
        "reviews:9080",
        "GET",
        "/",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("forward to books/reviews-v2:9080 (by HTTPRoute books/reviews"),
        "{}",
        r.stdout
    );
    // -n is also the client's namespace (its consumer routes) when --from is not given
    let r = run(&[
        "explain",
        "--namespace",
        "books",
        "-f",
        DIR,
        "--to",
        "reviews:9080",
        "-o",
        "json",
        "GET",
        "/",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("books/reviews"), "{}", r.stdout);
}

#[test]
fn namespaces_the_files_use_but_do_not_define_are_assumed_with_one_note() {
    // mesh routes are owned and accepted, not "pending: waiting for Namespace default"
    let owners = run(&["owners", "--all", "-f", DIR, "--config", LINKERD_DEFAULT]);
    assert_eq!(owners.code, 0, "{}", owners.stderr);
    assert!(!owners.stdout.contains("pending:"), "{}", owners.stdout);
    assert!(
        owners.stdout.contains("linkerd owns 1;"),
        "{}",
        owners.stdout
    );
    let status = run(&[
        "status",
        "-f",
        DIR,
        "--config",
        LINKERD_DEFAULT,
        "--as",
        "linkerd",
        "--now",
        "2026-11-29T12:00:00Z",
    ]);
    assert!(
        status
            .stdout
            .contains("Service default/reviews:9080: Accepted=True Accepted"),
        "{}",
        status.stdout
    );
    // one note, in every subcommand that reads files
    for r in [
        owners,
        status,
        run(&["validate", "-f", DIR]),
        run(&["resolve", "-f", DIR, "--to", "reviews:9080"]),
        run(&["explain", "-f", DIR, "--to", "reviews:9080"]),
    ] {
        let notes: Vec<&str> = r.stderr.lines().filter(|l| l.contains(NOTE)).collect();
        assert_eq!(
            notes,
            [
                "note: 1 namespace the files use is not defined in them (default): taken to \
                 exist, with no labels (add the Namespace objects to give them labels)"
            ],
            "{:?}: {}",
            r.args,
            r.stderr
        );
    }
    // files that define their Namespaces get no note
    let r = run(&["validate", "-f", "examples/manifests"]);
    assert!(!r.stderr.contains(NOTE), "{}", r.stderr);
}

#[test]
fn an_object_defined_again_is_a_warning_and_the_later_definition_wins() {
    let r = run(&["validate", "-f", DIR]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(&format!(
            "{DIR}/30-route-v2.yaml:3: warning: HTTPRoute default/reviews: defined again (first \
             at {DIR}/20-route-v1.yaml:2); this later definition is the one used, as kubectl \
             apply would apply both in turn"
        )),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(": 0 errors, 1 warning"), "{}", r.stdout);
}

#[test]
fn listing_commands_show_only_the_namespace_of_dash_n() {
    let all = run(&[
        "owners",
        "--all",
        "-f",
        "examples/manifests",
        "--config",
        "examples/gamma-config.yaml",
    ]);
    let shop = run(&[
        "owners",
        "--all",
        "-f",
        "examples/manifests",
        "--config",
        "examples/gamma-config.yaml",
        "-n",
        "shop",
    ]);
    assert_eq!(shop.code, 0, "{}", shop.stderr);
    let rows = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.contains("Route "))
            .map(str::to_owned)
            .collect()
    };
    let (all, shop) = (rows(&all.stdout), rows(&shop.stdout));
    assert!(!shop.is_empty() && shop.len() < all.len(), "{shop:?}");
    assert!(shop.iter().all(|l| l.contains("Route shop/")), "{shop:?}");
    let status = run(&[
        "status",
        "-f",
        "examples/manifests",
        "--config",
        "examples/gamma-config.yaml",
        "--as",
        "istio",
        "--now",
        "2026-11-29T12:00:00Z",
        "-n",
        "shop",
        "-o",
        "json",
    ]);
    let objects: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    let objects = objects.as_array().unwrap();
    assert!(!objects.is_empty());
    assert!(
        objects.iter().all(|o| o["metadata"]["namespace"] == "shop"),
        "{objects:?}"
    );
}
