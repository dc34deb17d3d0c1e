//! The test environment itself: a real kube-apiserver started from `tools/kube-testenv`, ready
//! only once the Gateway API CRDs of its channel are served, and stopped without leftovers.
//! These tests skip (printing why) where Go or the upstream CRDs are absent, unless
//! `GAMMA_REQUIRE_TESTENV=1`.

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use gamma_testenv::{Channel, Error, REQUIRE_ENV, TestEnv};

/// `TestEnv::start`, or `None` (skip) when unavailable and not required.
fn start_or_skip(channel: Channel) -> Option<TestEnv> {
    match TestEnv::start(channel) {
        Ok(env) => Some(env),
        Err(e @ Error::Unavailable { .. }) if std::env::var(REQUIRE_ENV).as_deref() != Ok("1") => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
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

#[test]
fn started_server_is_ready_on_loopback_with_an_admin_kubeconfig_and_stop_removes_its_temp_dir() {
    let Some(env) = start_or_skip(Channel::Standard) else {
        return;
    };
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

#[test]
fn shared_servers_are_one_per_channel_with_that_channels_crds() {
    let Some(standard) = gamma_testenv::shared_or_skip(Channel::Standard) else {
        return;
    };
    let Some(experimental) = gamma_testenv::shared_or_skip(Channel::Experimental) else {
        return;
    };
    // One server per channel per test binary: a second call gives the same one.
    let again = gamma_testenv::shared_or_skip(Channel::Standard).unwrap();
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

#[test]
fn a_shared_server_per_release_installs_that_releases_crds() {
    let newest = *gamma_testenv::upstream::RELEASES.last().unwrap();
    let Some(env) = gamma_testenv::shared_release_or_skip(newest, Channel::Standard) else {
        return;
    };
    let again = gamma_testenv::shared_release_or_skip(newest, Channel::Standard).unwrap();
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
    if let Some(standard) = gamma_testenv::shared_or_skip(Channel::Standard) {
        assert_eq!(standard.release(), gamma_testenv::DEFAULT_RELEASE);
        assert_ne!(standard.server_url(), env.server_url());
    }
}
