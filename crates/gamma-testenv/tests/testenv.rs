//! The test environment itself: a real kube-apiserver started from `tools/kube-testenv`, ready
//! only once the Gateway API CRDs of its channel are served, and stopped without leftovers.
//! These tests are reported ignored (with the reason) where Go or the upstream release data are
//! absent, unless `GAMMA_REQUIRE_TESTENV=1`.

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use gamma_testenv::harness::{
    experimental_server, release_servers, release_trees, standard_server,
};
use gamma_testenv::{Channel, TestEnv};

gamma_testenv::test_main! {
    started_server_is_ready_on_loopback_with_an_admin_kubeconfig_and_stop_removes_its_temp_dir
        if standard_server,
    shared_servers_are_one_per_channel_with_that_channels_crds
        if standard_server && experimental_server,
    a_shared_server_per_release_installs_that_releases_crds if release_servers,
    every_supported_release_tree_is_obtained_with_its_own_crds if release_trees,
}

fn newest() -> &'static str {
    gamma_testenv::upstream::RELEASES.last().unwrap()
}

fn address(env: &TestEnv) -> SocketAddr {
    let url = env.server_url();
    let host_port = url.strip_prefix("https://").unwrap();
    host_port.parse().unwrap()
}

fn accepts_connections(addr: SocketAddr) -> bool {
    TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_ok()
}

/// `kubectl get crd -o name` through the environment's kubeconfig, when kubectl is installed.
fn kubectl_crds(kubeconfig: &Path) -> Option<String> {
    let output = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["get", "crd", "-o", "name"])
        .output()
        .ok()?;
    assert!(
        output.status.success(),
        "kubectl: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).unwrap())
}

fn started_server_is_ready_on_loopback_with_an_admin_kubeconfig_and_stop_removes_its_temp_dir() {
    let env = TestEnv::start(Channel::Standard).unwrap_or_else(|e| panic!("{e}"));
    // Loopback only: the server URL is 127.0.0.1 and the port takes connections.
    let addr = address(&env);
    assert!(addr.ip().is_loopback(), "{addr}");
    assert!(accepts_connections(addr));

    // The kubeconfig has what kubectl and kube-rs need: the server, the CA, a bearer token.
    let text = std::fs::read_to_string(env.kubeconfig()).unwrap();
    assert!(
        text.contains(&format!("server: {}", env.server_url())),
        "{text}"
    );
    assert!(text.contains("certificate-authority-data: "), "{text}");
    assert!(text.contains("token: "), "{text}");
    if let Some(crds) = kubectl_crds(env.kubeconfig()) {
        assert!(
            crds.contains("httproutes.gateway.networking.k8s.io"),
            "{crds}"
        );
        assert!(
            !crds.contains("xmeshes"),
            "standard channel has no XMesh: {crds}"
        );
    }

    // The server keeps its temp dir (etcd data, certificates) in the work dir while it runs...
    let work_dir = env.work_dir().to_path_buf();
    let temp_dirs: Vec<_> = std::fs::read_dir(&work_dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("kube-testenv-"))
        .collect();
    assert_eq!(temp_dirs.len(), 1, "{temp_dirs:?}");
    let server_temp = temp_dirs[0].path();
    assert!(
        server_temp.join("etcd-0").is_dir() || std::fs::read_dir(&server_temp).unwrap().count() > 0
    );

    // ... and removes it itself when told to stop (stop() errs if it is left behind).
    env.stop().unwrap();
    assert!(!server_temp.exists());
    assert!(!work_dir.exists());
    assert!(!accepts_connections(addr), "{addr} still served after stop");
}

fn shared_servers_are_one_per_channel_with_that_channels_crds() {
    let standard = gamma_testenv::server(Channel::Standard);
    let experimental = gamma_testenv::server(Channel::Experimental);
    // One server per channel per test binary: a second call gives the same one.
    let again = gamma_testenv::server(Channel::Standard);
    assert!(std::ptr::eq(standard, again));
    assert_ne!(standard.server_url(), experimental.server_url());
    assert_eq!(standard.channel(), Channel::Standard);
    assert_eq!(experimental.channel(), Channel::Experimental);
    assert!(accepts_connections(address(standard)));
    assert!(accepts_connections(address(experimental)));
    if let Some(crds) = kubectl_crds(experimental.kubeconfig()) {
        // XMesh is experimental-only (gateway.networking.x-k8s.io).
        assert!(
            crds.contains("xmeshes.gateway.networking.x-k8s.io"),
            "{crds}"
        );
    }
    if let Some(crds) = kubectl_crds(standard.kubeconfig()) {
        assert!(!crds.contains("xmeshes"), "{crds}");
    }
    // Namespace names are unique per call.
    assert_ne!(standard.namespace_name("t"), standard.namespace_name("t"));
}

fn a_shared_server_per_release_installs_that_releases_crds() {
    let newest = newest();
    let env = gamma_testenv::server_release(newest, Channel::Standard);
    let again = gamma_testenv::server_release(newest, Channel::Standard);
    assert!(std::ptr::eq(env, again));
    assert_eq!((env.release(), env.channel()), (newest, Channel::Standard));
    assert!(accepts_connections(address(env)));
    // the folder installed is that release's standard channel
    let crd = std::fs::read_to_string(
        env.crd_dir()
            .join("gateway.networking.k8s.io_httproutes.yaml"),
    )
    .unwrap();
    assert!(
        crd.contains(&format!(
            "gateway.networking.k8s.io/bundle-version: {newest}"
        )) && crd.contains("gateway.networking.k8s.io/channel: standard"),
        "{}",
        env.crd_dir().display()
    );
    // the server of `shared` keeps the default release's CRDs
    let standard = gamma_testenv::server(Channel::Standard);
    assert_eq!(standard.release(), gamma_testenv::DEFAULT_RELEASE);
    assert_ne!(standard.server_url(), env.server_url());
}

/// Every supported release's tree is found (under `$GAMMA_UPSTREAM_ROOT` or fetched) and
/// carries the bundle-version annotation of that release on its CRDs.
fn every_supported_release_tree_is_obtained_with_its_own_crds() {
    for version in gamma_testenv::upstream::RELEASES {
        let dir = gamma_testenv::upstream::release_tree(version).unwrap_or_else(|e| panic!("{e}"));
        let crd = dir
            .join("config/crd/standard")
            .join("gateway.networking.k8s.io_httproutes.yaml");
        let text = std::fs::read_to_string(&crd).unwrap();
        assert!(
            text.contains(&format!(
                "gateway.networking.k8s.io/bundle-version: {version}"
            )),
            "{} is not {version}'s",
            crd.display()
        );
        assert!(dir.join("examples").is_dir());
        assert!(dir.join("hack/invalid-examples").is_dir());
    }
}
