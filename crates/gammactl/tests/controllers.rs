//! Who `--as` may name, and how `owners` reports meshes that nothing registers.

mod common;

use common::run;

const M: &str = "examples/manifests";
const CONFIG: &str = "examples/gamma-config.yaml";

/// The sample cluster without its XMesh objects (10-meshes.yaml): with no `--config` either,
/// no mesh is registered, yet Namespaces still carry `gamma.rs/mesh` labels.
fn without_xmesh() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(common::root().join(M))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml") && n != "10-meshes.yaml")
        .map(|n| format!("{M}/{n}"))
        .collect();
    files.sort();
    files
}

fn args_with<'a>(files: &'a [String], rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["owners"];
    for f in files {
        args.extend(["-f", f.as_str()]);
    }
    args.extend_from_slice(rest);
    args
}

#[test]
fn an_unknown_as_name_is_an_error_listing_the_known_names() {
    for command in ["owners", "status"] {
        let r = run(&[command, "-f", M, "--config", CONFIG, "--as", "linkrd"]);
        assert_eq!(r.code, 2, "{command}: {}", r.stderr);
        assert!(r.stdout.is_empty());
        assert!(
            r.stderr
                .contains("--as \"linkrd\" names no registered mesh")
                && r.stderr.contains("linkerd (linkerd.io/policy-controller)")
                && r.stderr
                    .contains("GatewayClass controllers example.com/gateway-controller"),
            "{command}: {}",
            r.stderr
        );
    }
    // A GatewayClass controllerName is known without any mesh registration.
    let r = run(&["owners", "-f", M, "--as", "example.com/gateway-controller"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn owners_without_as_or_all_names_both() {
    let r = run(&["owners", "-f", M]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("<--as <CONTROLLER>|--all>"),
        "{}",
        r.stderr
    );
}

#[test]
fn without_config_or_xmesh_namespace_labels_do_not_invent_owners() {
    // The Namespace label (ladder level 3) names a mesh; with nothing registering it, no
    // controller owns the route (an unknown name never falls through to lower levels), and
    // the placeholder owner is not a controller to show as a column.
    let files = without_xmesh();
    let r = run(&args_with(&files, &["--all"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let header = r.stdout.lines().next().unwrap();
    assert!(!header.contains("xmesh:"), "{header}");
    let checkout = r
        .stdout
        .lines()
        .find(|l| l.starts_with("HTTPRoute shop/checkout "))
        .unwrap();
    assert!(
        checkout.contains("UNREGISTERED mesh istio at level 3"),
        "{checkout}"
    );
    assert!(
        r.stdout
            .contains(", 5 for unregistered meshes (istio, linkerd)\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("Namespace labels name meshes that nothing registers (istio, linkerd)")
            && r.stderr.contains("--config FILE"),
        "{}",
        r.stderr
    );
    // And `--as istio` is not a registered mesh there.
    let r = run(&args_with(&files, &["--as", "istio"]));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("names no registered mesh"),
        "{}",
        r.stderr
    );
}
