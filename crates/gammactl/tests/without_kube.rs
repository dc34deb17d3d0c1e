//! gammactl built without its cargo feature `kube` (`--no-default-features`): files only, no
//! kube-rs, tokio or TLS in the build. Naming a cluster is then a usage error that names the
//! feature, never silently ignored. CI runs this file both ways (`.ci/run`); each test that
//! needs the other build shows as ignored.

mod common;

use common::run;

#[test]
#[cfg_attr(
    feature = "kube",
    ignore = "gammactl was built with the feature `kube`: run `cargo test -p gammactl --no-default-features --test without_kube`"
)]
fn naming_a_cluster_without_the_kube_feature_is_a_usage_error_naming_it() {
    for args in [
        &["owners", "--all", "--kubeconfig", "/nonexistent/kubeconfig"][..],
        &["validate", "--context", "prod"],
        &["status", "--cluster", "--as", "linkerd"],
        &[
            "crd-extension",
            "controllers",
            "--kubeconfig",
            "/nonexistent/kubeconfig",
        ],
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "gammactl {args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("cargo feature `kube`") && r.stderr.contains("--features kube"),
            "gammactl {args:?} does not name the feature: {}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{}", r.stdout);
    }
}

#[test]
#[cfg_attr(
    not(feature = "kube"),
    ignore = "gammactl was built without the feature `kube`"
)]
fn with_the_kube_feature_a_kubeconfig_is_read_not_refused() {
    let r = run(&["owners", "--all", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("cannot reach the cluster"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("cargo feature `kube`"), "{}", r.stderr);
}

/// The README's first command, and the printed CRD extension patches, need no cluster client.
#[test]
fn files_and_printed_patches_work_in_either_build() {
    let r = run(&[
        "explain",
        "-f",
        "examples/manifests",
        "--from",
        "shop",
        "--to",
        "10.96.10.20:80",
        "--header",
        "x-canary=true",
        "GET",
        "/api/orders",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("decision:  forward to shop/checkout-v2:80"),
        "{}",
        r.stdout
    );
    let r = run(&["crd-extension", "controllers", "--bundle-version", "v1.7"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("kubectl patch crd httproutes.gateway.networking.k8s.io"),
        "{}",
        r.stdout
    );
}
