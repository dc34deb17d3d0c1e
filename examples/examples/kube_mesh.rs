//! A complete mesh controller on a live cluster: gamma-kube's `run` with the sample arbiter
//! configuration. It watches the cluster, decides ownership for its mesh, writes route status
//! safely beside other controllers, and holds a Lease so that only one replica writes.
//!
//! ```text
//! cargo run -p gamma-examples --example kube_mesh -- examples/gamma-config.yaml istio
//! ```
//!
//! It connects as kubectl would (`gamma_kube::list::connect`: the kubeconfig, else a pod's
//! service account), and stops on Ctrl-C, releasing its Lease. Without a cluster it exits with
//! the connection's error. gamma-kube logs through `tracing`; this example installs no
//! subscriber, so it logs nothing (a real controller adds one, e.g. `tracing_subscriber::fmt::init()`
//! from the tracing-subscriber crate); it prints its metrics when it stops.

use gamma_kube::{LeaseConfig, RunConfig, list::connect, metrics::Metrics};
use gamma_mesh::arbiter::{ArbiterConfig, Identity};
use gamma_mesh::controller::ReconcilerConfig;

#[tokio::main]
async fn main() -> Result<(), gamma_examples::BoxError> {
    let mut args = std::env::args().skip(1);
    let config_path = args
        .next()
        .unwrap_or_else(|| "examples/gamma-config.yaml".into());
    let mesh = args.next().unwrap_or_else(|| "istio".into());
    let arbiter = ArbiterConfig::decode(&std::fs::read_to_string(config_path)?)?;
    let me = Identity::of_mesh(&arbiter, &mesh).ok_or(format!("no mesh {mesh:?} in the config"))?;

    // `RunConfig::new` keys the route tables' hashes with a random seed per process.
    let reconciler = ReconcilerConfig::new(arbiter, me);
    let mut config = RunConfig::new(reconciler);
    let mut registry = prometheus_client::registry::Registry::default();
    config.metrics = Metrics::register(&mut registry);
    // Replicas share the Lease name; each needs its own holder identity (e.g. the pod name).
    let holder =
        std::env::var("POD_NAME").unwrap_or_else(|_| format!("{mesh}-{}", std::process::id()));
    config.lease = Some(LeaseConfig::new("default", format!("gamma-{mesh}"), holder));

    let client = connect(None, None).await?;
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    gamma_kube::run(config, client, shutdown).await?;
    // What a /metrics endpoint would serve.
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry)?;
    print!("{text}");
    Ok(())
}
