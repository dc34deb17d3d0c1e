//! An ownership handoff on a real Kubernetes API server (tools/kube-testenv): two meshes, each
//! a gamma-kube runtime; a Namespace relabelled from one mesh to the other moves its routes.

mod common;

use common::*;
use gamma_arbiter::Identity;
use gamma_model::{AnyResource, ObjectKey, ResourceKind};
use gamma_testenv::Channel;
use gamma_testenv::harness::standard_server;
use kube::api::{Patch, PatchParams};
use serde_json::json;

gamma_testenv::test_main! {
    #[tokio] namespace_relabel_hands_off_make_before_break if standard_server,
}

const ISTIO: &str = "istio.io/gateway-controller";
const LINKERD: &str = "linkerd.io/policy-controller";

/// Whether `controller`'s entry for parent `front` says Accepted=True for the route's current
/// generation (Gateway API RouteParentStatus: conditions carry `observedGeneration`).
fn accepted_now(r: &AnyResource, controller: &str) -> bool {
    let generation = r.metadata().generation_or_zero();
    parents(r).iter().any(|p| {
        p.controller_name == controller
            && p.parent_ref.name == "front"
            && p.conditions.iter().any(|c| {
                c.type_ == "Accepted"
                    && serde_json::to_value(&c.status).unwrap() == "True"
                    && c.observed_generation == Some(generation)
            })
    })
}

fn has_entry(r: &AnyResource, controller: &str) -> bool {
    parents(r).iter().any(|p| p.controller_name == controller)
}

/// Make-before-break (the handoff protocol of docs/status-protocol.md): relabelling the
/// Namespace from istio to linkerd, the old owner keeps its entry (and its data plane) until
/// the new owner's entry says Accepted=True for the current generation; only then does it
/// remove its own. Proven on every resourceVersion of the route, recorded from a watch: no
/// version is without an owner's entry, and the first without istio's has linkerd's accepted.
async fn namespace_relabel_hands_off_make_before_break() {
    let env = gamma_testenv::server(Channel::Standard);
    let client = client(env).await;
    let ns = env.namespace_name("handoff");
    create_value(&client, namespace(&ns, json!({"gamma.rs/mesh": "istio"}))).await;
    for s in ["front", "back"] {
        create_value(&client, service(&ns, s)).await;
    }
    create_value(&client, http_route(&ns, "r1", "front", "back", 0)).await;
    let key = ObjectKey::new(ResourceKind::HttpRoute, ns.clone(), "r1");
    let history = History::record(&client, &[ResourceKind::HttpRoute]).await;

    let config = sample_config();
    let mut runtimes = Vec::new();
    for mesh in ["istio", "linkerd"] {
        let me = Identity::of_mesh(&config, mesh).unwrap();
        runtimes.push(spawn_runtime(&client, &config, me, |_| {}));
    }
    eventually(60, "istio accepted", || async {
        let r = get_route(&client, ResourceKind::HttpRoute, &ns, "r1").await?;
        (accepted_now(&r, ISTIO) && !has_entry(&r, LINKERD)).then_some(())
    })
    .await;

    api_of(&client, ResourceKind::Namespace, None)
        .patch(
            &ns,
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"gamma.rs/mesh": "linkerd"}}})),
        )
        .await
        .unwrap();
    eventually(60, "linkerd alone", || async {
        let r = get_route(&client, ResourceKind::HttpRoute, &ns, "r1").await?;
        (accepted_now(&r, LINKERD) && !has_entry(&r, ISTIO)).then_some(())
    })
    .await;
    for (state, _, _) in &mut runtimes {
        until(state, 30, "caught up", |s| s.pending == 0).await;
    }

    // The route's whole history: istio alone, then both, then linkerd alone.
    let versions = history.versions(&key);
    let first_owned = versions.iter().position(|r| has_entry(r, ISTIO)).unwrap();
    let released = versions
        .iter()
        .skip(first_owned)
        .position(|r| !has_entry(r, ISTIO))
        .map(|i| i + first_owned)
        .expect("istio released the route");
    for v in &versions[first_owned..] {
        assert!(
            has_entry(v, ISTIO) || has_entry(v, LINKERD),
            "resourceVersion {:?} has no owner's entry",
            v.metadata().resource_version
        );
    }
    assert!(
        accepted_now(&versions[released], LINKERD),
        "istio removed its entry before linkerd's was accepted"
    );
    assert!(
        versions[first_owned..released]
            .iter()
            .any(|v| has_entry(v, ISTIO) && accepted_now(v, LINKERD)),
        "no version shows both: break before make"
    );
    history.assert_one_controller_per_write();
    eprintln!(
        "{} versions: istio's entry from #{first_owned}, released at #{released}",
        versions.len()
    );
    for (_, stop, task) in runtimes {
        stop.send(true).unwrap();
        task.await.unwrap().unwrap();
    }
}
