//! `gammactl owners` and `gammactl status` on the sample cluster, against the ownership table
//! and expected status entries of examples/manifests/README.md (the ownership ladder).

mod common;

use common::{check, run};

const M: &str = "examples/manifests";
const CONFIG: &str = "examples/gamma-config.yaml";
const NOW: &str = "2026-11-29T12:00:00Z";

#[test]
fn owners_all_puts_every_controller_side_by_side() {
    let r = check(
        "owners-all",
        &["owners", "-f", M, "--config", CONFIG, "--all"],
        0,
    );
    // The sample README's summary line.
    assert!(
        r.stdout.ends_with(
            "istio owns 6, linkerd owns 6, example.com/gateway-controller owns 1; \
         1 conflict, 0 unclaimed, 0 pending, 1 not applicable\n"
        ),
        "{}",
        r.stdout
    );
    let row = |route: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(route))
            .unwrap_or_else(|| panic!("no row for {route}"))
            .to_owned()
    };
    // Level 1 shared ownership; level 4 conflict; the omitted-group trap (Gateway API
    // ParentReference).
    assert!(row("HTTPRoute shop/catalog ").contains("owns      owns"));
    assert!(row("HTTPRoute legacy/billing ").contains("CONFLICT  CONFLICT"));
    assert!(
        row("HTTPRoute web/frontend ").contains("gateway.networking.k8s.io/Service web/frontend")
    );
    assert!(row("HTTPRoute web/frontend ").contains("not applicable"));
    // Consumer route: the route's namespace decides at level 4 (README row 6).
    assert!(row("HTTPRoute web/checkout-from-web ").contains("level 4"));
}

#[test]
fn owners_as_one_controller_shows_its_decisions() {
    let r = check(
        "owners-as-istio",
        &["owners", "-f", M, "--config", CONFIG, "--as", "istio"],
        0,
    );
    assert!(
        r.stdout
            .starts_with("as istio.io/gateway-controller (also istio.io/mesh-controller)")
    );
    let stock = r
        .stdout
        .lines()
        .find(|l| l.starts_with("HTTPRoute inventory/stock "))
        .unwrap();
    // Level 2 delegation through a waypoint whose class names an alias of istio.
    assert!(
        stock.contains("owned") && stock.contains("istio.io/use-waypoint=waypoint"),
        "{stock}"
    );
    let cart = r
        .stdout
        .lines()
        .find(|l| l.starts_with("HTTPRoute shop/cart "))
        .unwrap();
    assert!(cart.contains("foreign (linkerd)"), "{cart}");
    assert!(r.stdout.ends_with(
        "istio.io/gateway-controller owns 6; 1 conflict, 0 unclaimed, 0 pending, 1 not applicable\n"
    ));
}

#[test]
fn an_alias_names_the_same_controller() {
    let by_name = run(&[
        "owners", "-f", M, "--config", CONFIG, "--as", "istio", "-o", "json",
    ]);
    let by_alias = run(&[
        "owners",
        "-f",
        M,
        "--config",
        CONFIG,
        "--as",
        "istio.io/mesh-controller",
        "-o",
        "json",
    ]);
    assert_eq!(by_name.code, 0);
    assert_eq!(by_name.stdout, by_alias.stdout);
}

#[test]
fn owners_json_carries_verdicts_and_decisions() {
    let r = run(&[
        "owners", "-f", M, "--config", CONFIG, "--as", "linkerd", "-o", "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 14);
    let scheduler = pairs
        .iter()
        .find(|p| p["route"]["name"] == "scheduler")
        .unwrap();
    assert_eq!(scheduler["verdict"]["verdict"], "owned");
    assert_eq!(scheduler["verdict"]["level"], "default");
    assert_eq!(scheduler["decision"]["decision"], "owned");
}

#[test]
fn without_a_config_xmesh_objects_still_register_the_meshes() {
    let r = run(&["owners", "-f", M, "--all"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // No selectors and no default without the config: legacy/billing and batch/scheduler
    // have no signal at levels 1-3.
    assert!(
        r.stdout.contains("2 unclaimed") || r.stdout.contains("unclaimed"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.lines().next().unwrap().contains("istio"));
}

#[test]
fn a_bad_config_is_an_input_error_naming_its_line() {
    // (the sample's bundle, so that the API server would store every object: the configuration
    // error is all standard error says)
    let r = run(&[
        "owners",
        "-f",
        M,
        "--channel",
        "experimental",
        "--crd-extension",
        "controllers",
        "--config",
        "crates/gammactl/tests/fixtures/bad-config.yaml",
        "--all",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "gammactl: error: invalid arbiter configuration: \
         crates/gammactl/tests/fixtures/bad-config.yaml:5: meshes[0].default: invalid boolean\n"
    );
}

#[test]
fn owners_needs_as_or_all() {
    assert_eq!(run(&["owners", "-f", M]).code, 2);
}

#[test]
fn status_as_istio_writes_its_entries_only() {
    let r = check(
        "status-istio",
        &[
            "status", "-f", M, "--config", CONFIG, "--as", "istio", "--now", NOW,
        ],
        0,
    );
    // Sample README: inventory/stock gets Accepted=True and ResolvedRefs=False/BackendNotFound;
    // legacy/billing gets Accepted=False/OwnershipConflict from each candidate.
    assert!(r.stdout.contains("HTTPRoute inventory/stock (generation 3): write\n  Service inventory/stock:8080: Accepted=True Accepted, ResolvedRefs=False BackendNotFound\n"));
    assert!(r.stdout.contains("HTTPRoute legacy/billing (generation 5): write\n  Service legacy/billing:8080: Accepted=False OwnershipConflict\n"));
    assert!(!r.stdout.contains("web/frontend"));
    assert!(!r.stdout.contains("shop/cart"));
}

#[test]
fn status_full_objects_for_the_gateway_controller() {
    let r = run(&[
        "status",
        "-f",
        M,
        "--config",
        CONFIG,
        "--as",
        "example.com/gateway-controller",
        "--now",
        NOW,
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let objects = v.as_array().unwrap();
    let routes: Vec<&serde_json::Value> = objects
        .iter()
        .filter(|o| o["kind"] == "HTTPRoute")
        .collect();
    assert_eq!(routes.len(), 1, "only web/storefront");
    // and the status of its Gateway, whose class this controller runs
    let gateways: Vec<&serde_json::Value> =
        objects.iter().filter(|o| o["kind"] == "Gateway").collect();
    assert_eq!(gateways.len(), 1, "{objects:?}");
    assert_eq!(gateways[0]["status"]["listeners"][0]["attachedRoutes"], 1);
    let o = routes[0];
    assert_eq!(o["metadata"]["name"], "storefront");
    let entry = &o["status"]["parents"][0];
    assert_eq!(entry["controllerName"], "example.com/gateway-controller");
    // ResolvedRefs=True thanks to the ReferenceGrant; observedGeneration = generation 3.
    let resolved = entry["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "ResolvedRefs")
        .unwrap();
    assert_eq!(resolved["status"], "True");
    assert_eq!(resolved["observedGeneration"], 3);
    assert_eq!(resolved["lastTransitionTime"], NOW);
}

#[test]
fn status_patches_test_the_generation_first() {
    let r = check(
        "status-patch-linkerd",
        &[
            "status", "-f", M, "--config", CONFIG, "--as", "linkerd", "--now", NOW, "--form",
            "patch", "-o", "json",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let catalog = v
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["route"]["name"] == "catalog")
        .unwrap();
    assert_eq!(catalog["patch"][0]["op"], "test");
    assert_eq!(catalog["patch"][0]["path"], "/metadata/generation");
    assert_eq!(catalog["patch"][1]["op"], "add");
    assert_eq!(
        catalog["patch"][1]["value"]["parents"][0]["controllerName"],
        "linkerd.io/policy-controller"
    );
}

#[test]
fn a_bad_now_is_a_usage_error() {
    let r = run(&["status", "-f", M, "--as", "istio", "--now", "yesterday"]);
    assert_eq!(r.code, 2);
}

#[test]
fn status_keeps_foreign_entries_and_refuses_stale_copies() {
    // Status protocol (docs/architecture.md "gamma-arbiter"): foreign entries stay untouched and in
    // place; never write when the stored observedGeneration is newer (Gateway API
    // RouteStatus.parents).
    let r = check(
        "status-stored",
        &[
            "status",
            "-f",
            "crates/gammactl/tests/fixtures/stored-status.yaml",
            "--as",
            "istio.io/gateway-controller",
            "--now",
            NOW,
        ],
        0,
    );
    assert!(r.stdout.contains(
        "  Service store/api:80 (kept: linkerd.io/policy-controller): Accepted=False NotOwned\n  \
         Service store/api:80: Accepted=True Accepted"
    ), "{}", r.stdout);
    assert!(r.stdout.contains(
        "HTTPRoute store/old-copy: stale: stored observedGeneration 2 is newer than generation 1"
    ));
}

// Without --config and XMesh objects no mesh is registered: the table has no mesh column, so
// `owners` says which controllers it knows and how to register meshes, rather than a silent
// table of unclaimed routes.
#[test]
fn owners_without_a_config_says_which_controllers_it_knows_and_how_to_register_meshes() {
    let none = common::run(&[
        "owners",
        "--all",
        "-f",
        "crates/gammactl/tests/fixtures/kubectl-habits",
    ]);
    assert_eq!(none.code, 0, "{}", none.stderr);
    assert!(
        none.stderr.contains(
            "note: no mesh is registered (no --config, no XMesh objects), so no controller is \
             known: register the meshes that share the cluster with --config FILE (see \
             examples/gamma-config.yaml) or XMesh objects"
        ),
        "{}",
        none.stderr
    );
    let gateways = common::run(&[
        "owners",
        "--all",
        "-f",
        "crates/gammactl/tests/fixtures/one-verdict-gateways.yaml",
    ]);
    assert!(
        gateways
            .stderr
            .contains("so the only controllers known are example.com/gateway: register"),
        "{}",
        gateways.stderr
    );
    // with a configuration, nothing to say
    let configured = common::run(&[
        "owners",
        "--all",
        "-f",
        "examples/manifests",
        "--config",
        "examples/gamma-config.yaml",
    ]);
    assert!(
        !configured.stderr.contains("no mesh is registered"),
        "{}",
        configured.stderr
    );
}
