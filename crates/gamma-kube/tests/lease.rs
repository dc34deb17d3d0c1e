//! Leader election on a real Kubernetes API server (tools/kube-testenv): replicas of one
//! controller share a `coordination.k8s.io/v1` Lease, and only its holder writes status, so
//! two replicas never both write the same entries (each would otherwise read-modify-write the
//! route in turn, one write per replica for every change). Also checked on the way: the
//! Prometheus counters agree with the runtime's state, and status writes carry the
//! controller's field manager.

mod common;

use std::time::Duration;

use common::*;
use gamma_arbiter::Identity;
use gamma_kube::LeaseConfig;
use gamma_kube::metrics::{Metrics, VerdictLabels};
use gamma_model::ResourceKind;
use gamma_testenv::Channel;
use gamma_testenv::harness::standard_server;
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use serde_json::json;

gamma_testenv::test_main! {
    #[tokio] only_the_lease_holder_writes_and_a_replica_takes_over_when_it_stops if standard_server,
}

const ISTIO: &str = "istio.io/gateway-controller";

/// The holder identity of Lease `name` in `ns`.
async fn holder(client: &kube::Client, ns: &str, name: &str) -> Option<String> {
    let api: Api<Lease> = Api::namespaced(client.clone(), ns);
    api.get_opt(name)
        .await
        .unwrap()?
        .spec?
        .holder_identity
        .filter(|h| !h.is_empty())
}

async fn accepted(client: &kube::Client, ns: &str, name: &str) -> bool {
    get_route(client, ResourceKind::HttpRoute, ns, name)
        .await
        .and_then(|r| condition(&r, ISTIO, "front", "Accepted"))
        .as_deref()
        == Some("True")
}

/// Two replicas of istio on one Lease: the holder alone reconciles and writes; when it stops
/// it releases the Lease, the other replica takes it, starts with a full reconcile, and
/// writes the status of routes created after.
async fn only_the_lease_holder_writes_and_a_replica_takes_over_when_it_stops() {
    let env = gamma_testenv::server(Channel::Standard);
    let client = client(env).await;
    let ns = env.namespace_name("lease");
    create_value(&client, namespace(&ns, json!({"gamma.rs/mesh": "istio"}))).await;
    for s in ["front", "back"] {
        create_value(&client, service(&ns, s)).await;
    }
    let config = sample_config();
    let me = Identity::of_mesh(&config, "istio").unwrap();
    let metrics = [Metrics::default(), Metrics::default()];
    let mut replicas: Vec<_> = ["replica-a", "replica-b"]
        .into_iter()
        .zip(&metrics)
        .map(|(holder, metrics)| {
            spawn_runtime(&client, &config, me.clone(), |c| {
                let mut lease = LeaseConfig::new(ns.clone(), "istio-leader", holder);
                lease.duration_seconds = 4;
                lease.grace_seconds = 1;
                c.lease = Some(lease);
                c.metrics = metrics.clone();
            })
        })
        .collect();
    for (state, _, _) in &mut replicas {
        until(state, 60, "ready", |s| s.ready).await;
    }
    let holder_name = eventually(30, "a holder", || holder(&client, &ns, "istio-leader")).await;
    let leader = usize::from(holder_name == "replica-b");
    let follower = 1 - leader;
    until(&mut replicas[leader].0, 30, "leading", |s| s.leader).await;
    assert!(!replicas[follower].0.borrow().leader);

    create_value(&client, http_route(&ns, "r1", "front", "back", 0)).await;
    eventually(60, "r1 accepted", || async {
        accepted(&client, &ns, "r1").await.then_some(())
    })
    .await;
    until(&mut replicas[leader].0, 30, "caught up", |s| s.pending == 0).await;
    assert!(replicas[leader].0.borrow().writes >= 1);
    let follower_state = replicas[follower].0.borrow().clone();
    assert_eq!(
        follower_state.writes, 0,
        "the follower wrote: {follower_state:?}"
    );
    assert_eq!(follower_state.reconciles, 0, "the follower reconciled");
    // The Prometheus counters say the same.
    let leader_writes = replicas[leader].0.borrow().writes;
    assert_eq!(metrics[leader].status_writes.get(), leader_writes);
    assert_eq!(metrics[follower].status_writes.get(), 0);
    let owned = VerdictLabels { verdict: "owned" };
    assert!(metrics[leader].decisions.get_or_create(&owned).get() >= 1);
    assert_eq!(metrics[follower].decisions.get_or_create(&owned).get(), 0);
    // The write is recorded under the controller's own field manager (one per controller
    // identity), so `managedFields` shows who wrote the status.
    let r1 = api_of(&client, ResourceKind::HttpRoute, Some(&ns))
        .get("r1")
        .await
        .unwrap();
    let managers: Vec<(String, Option<String>)> = r1
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .map(|m| (m.manager.clone().unwrap_or_default(), m.subresource.clone()))
        .collect();
    assert!(
        managers.contains(&(ISTIO.to_owned(), Some("status".to_owned()))),
        "{managers:?}"
    );

    // The holder stops (releasing the Lease); the other replica takes it over.
    let (_, stop, task) = replicas.remove(leader);
    stop.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(30), task)
        .await
        .expect("the holder stops")
        .unwrap()
        .unwrap();
    let (mut state, stop, task) = replicas.remove(0);
    until(&mut state, 60, "the other replica leading", |s| s.leader).await;
    let other = ["replica-a", "replica-b"][follower];
    eventually(30, "the Lease held by the other replica", || async {
        (holder(&client, &ns, "istio-leader").await.as_deref() == Some(other)).then_some(())
    })
    .await;
    create_value(&client, http_route(&ns, "r2", "front", "back", 0)).await;
    eventually(60, "r2 accepted", || async {
        accepted(&client, &ns, "r2").await.then_some(())
    })
    .await;
    until(&mut state, 30, "caught up", |s| {
        s.pending == 0 && s.writes >= 1
    })
    .await;
    stop.send(true).unwrap();
    task.await.unwrap().unwrap();
}
