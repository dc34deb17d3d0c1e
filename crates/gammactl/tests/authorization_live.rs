//! gamma-kube watching XAuthorizationPolicies (GEP-3779, proposal) and Pods on a real
//! Kubernetes API server (tools/kube-testenv), with the CRD `gammactl crd-extension
//! authorization-policy` prints installed while the runtime runs (an optional kind, picked up
//! when its CRD appears): `me`'s `Accepted` entry (GEP-713 PolicyStatus, the policy's Namespace
//! as ancestor) is written on every policy beside another controller's entry, which is kept;
//! a policy whose Pods are created later goes from `TargetNotFound` to `Accepted`; a policy
//! whose status already says what `me` wants is not written again. Then `gammactl authorize
//! --kubeconfig` reads the policies and Pods from the cluster and answers as for the same
//! objects as files. Reported ignored (with the reason) when Go is absent, unless
//! GAMMA_REQUIRE_TESTENV=1.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::live::{api, dump};

use std::time::Duration;

use gamma_mesh::arbiter::{ArbiterConfig, Identity};
use gamma_mesh::cluster::kinds::WATCHED;
use gamma_mesh::cluster::{RunConfig, Runner, State};
use gamma_mesh::controller::ReconcilerConfig;
use gamma_mesh::model::gateway::{ConditionStatus, PolicyAncestorStatus};
use gamma_mesh::model::{AnyResource, ResourceKind};
use gamma_testenv::harness::standard_server;
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::{Value, json};

gamma_testenv::test_main! {
    #[tokio] authorization_policy_status_is_written_for_me_and_follows_the_pods
        if standard_server,
}

const ME: &str = "example.com/mesh-controller";
const OTHER: &str = "other.example/mesh-controller";

/// Creates `value`, then writes its `status` (if any) through the status subresource.
async fn create(client: &kube::Client, mut value: Value) {
    let (group, version) = value["apiVersion"]
        .as_str()
        .unwrap()
        .rsplit_once('/')
        .map_or(("", value["apiVersion"].as_str().unwrap()), |(g, v)| (g, v));
    let ar = kube::core::ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk(
        group,
        version,
        value["kind"].as_str().unwrap(),
    ));
    let api: Api<DynamicObject> = match value["metadata"]["namespace"].as_str() {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &ar),
        None => Api::all_with(client.clone(), &ar),
    };
    let status = value.as_object_mut().unwrap().remove("status");
    let object: DynamicObject = serde_json::from_value(value).unwrap();
    let mut created = api.create(&PostParams::default(), &object).await.unwrap();
    if let Some(status) = status {
        created.data["status"] = status;
        let name = created.metadata.name.clone().unwrap();
        api.replace_status(&name, &PostParams::default(), &created)
            .await
            .unwrap();
    }
}

async fn policy(client: &kube::Client, ns: &str, name: &str) -> AnyResource {
    let api = api(client, ResourceKind::XAuthorizationPolicy, Some(ns));
    let o = api.get(name).await.unwrap();
    AnyResource::from_value(serde_json::to_value(o).unwrap()).unwrap()
}

fn ancestors(r: &AnyResource) -> Vec<PolicyAncestorStatus> {
    match r {
        AnyResource::XAuthorizationPolicy(p) => p
            .status
            .as_ref()
            .map(|s| s.ancestors.clone())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// `controller`'s `Accepted` condition on `r`: status, reason, message.
fn accepted(r: &AnyResource, controller: &str) -> Option<(ConditionStatus, String, String)> {
    let entry = ancestors(r)
        .into_iter()
        .find(|a| a.controller_name == controller)?;
    let c = entry
        .conditions
        .into_iter()
        .find(|c| c.type_ == "Accepted")?;
    Some((c.status, c.reason, c.message))
}

async fn eventually<T, F, Fut>(secs: u64, what: &str, mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(t) = f().await {
            return t;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn until(
    rx: &mut tokio::sync::watch::Receiver<State>,
    what: &str,
    f: impl Fn(&State) -> bool,
) {
    tokio::time::timeout(Duration::from_secs(60), rx.wait_for(|s| f(s)))
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
        .unwrap();
}

fn spec(targets: Value) -> Value {
    json!({"targetRefs": targets, "action": "ALLOW", "enforcementLevel": "Network",
           "rules": [{"sources": [{"type": "ServiceAccount", "serviceAccount": {"name": "web"}}],
                      "networkAttributes": {"ports": [5432]}}]})
}

async fn authorization_policy_status_is_written_for_me_and_follows_the_pods() {
    let env = gamma_testenv::server(gamma_testenv::Channel::Standard);
    let client = gamma_mesh::cluster::list::connect(Some(env.kubeconfig()), None)
        .await
        .unwrap();
    let ns = env.namespace_name("authzlive");
    create(
        &client,
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
    )
    .await;

    // The runtime starts before the CRD exists: the kind is missing, then watched.
    let mut config = RunConfig::new(ReconcilerConfig::new(
        ArbiterConfig::default(),
        Identity::new(ME),
    ));
    config.authorization_policies = true;
    let runner = Runner::new(config, client.clone());
    let mut state = runner.state();
    let (stop, mut stopped) = tokio::sync::watch::channel(false);
    let task = tokio::spawn(runner.run(async move {
        let _ = stopped.wait_for(|s| *s).await;
    }));
    until(&mut state, "ready without the CRD", |s| {
        s.ready && s.missing.contains(&ResourceKind::XAuthorizationPolicy)
    })
    .await;
    assert!(
        !state.borrow().watching.contains_key(&ResourceKind::Pod),
        "Pods are watched only while the policies are"
    );

    let printed = common::run(&["crd-extension", "authorization-policy", "-o", "json"]);
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    let crd: DynamicObject = serde_json::from_str(&printed.stdout).unwrap();
    let crds: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &kube::core::ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
        )),
    );
    crds.create(&PostParams::default(), &crd).await.unwrap();
    until(&mut state, "the policies and Pods watched", |s| {
        s.ready
            && s.watching.contains_key(&ResourceKind::XAuthorizationPolicy)
            && s.watching.contains_key(&ResourceKind::Pod)
    })
    .await;

    // `db` selects Pods that do not exist yet; another mesh already wrote its entry.
    let theirs = json!({
        "ancestorRef": {"group": "", "kind": "Namespace", "name": ns},
        "controllerName": OTHER,
        "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted",
                        "message": "theirs", "observedGeneration": 1,
                        "lastTransitionTime": "2026-01-01T00:00:00Z"}],
    });
    create(
        &client,
        json!({"apiVersion": "gateway.networking.x-k8s.io/v1alpha1", "kind": "XAuthorizationPolicy",
               "metadata": {"name": "db", "namespace": ns},
               "spec": spec(json!([{"group": "", "kind": "Pod", "selector": {"matchLabels": {"app": "db"}}}])),
               "status": {"ancestors": [theirs]}}),
    )
    .await;
    // `svc` targets a Service: GEP-3779 allows the kind, this engine selects no Pod by it.
    create(
        &client,
        json!({"apiVersion": "gateway.networking.x-k8s.io/v1alpha1", "kind": "XAuthorizationPolicy",
               "metadata": {"name": "svc", "namespace": ns},
               "spec": spec(json!([{"group": "", "kind": "Service", "name": "db"}]))}),
    )
    .await;
    let stored_theirs = ancestors(&policy(&client, &ns, "db").await);
    assert_eq!(stored_theirs.len(), 1);

    let db = eventually(60, "our entry on db", || async {
        let p = policy(&client, &ns, "db").await;
        accepted(&p, ME).is_some().then_some(p)
    })
    .await;
    let (status, reason, message) = accepted(&db, ME).unwrap();
    assert_eq!(
        (status, reason.as_str()),
        (ConditionStatus::False, "TargetNotFound"),
        "{message}"
    );
    let all = ancestors(&db);
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(
        all[0], stored_theirs[0],
        "the other controller's entry is kept as stored"
    );
    let mine = all.iter().find(|a| a.controller_name == ME).unwrap();
    assert_eq!(mine.ancestor_ref.kind.as_deref(), Some("Namespace"));
    assert_eq!(mine.ancestor_ref.name, ns);
    let svc = eventually(60, "our entry on svc", || async {
        let p = policy(&client, &ns, "svc").await;
        accepted(&p, ME).is_some().then_some(p)
    })
    .await;
    let (status, reason, message) = accepted(&svc, ME).unwrap();
    assert_eq!(
        (status, reason.as_str()),
        (ConditionStatus::False, "TargetNotFound")
    );
    assert!(message.contains("Service"), "{message}");

    // A Pod the selector selects arrives: db is Accepted, its other entry still as stored.
    create(
        &client,
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "db", "namespace": ns}}),
    )
    .await;
    create(
        &client,
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "db-0", "namespace": ns, "labels": {"app": "db"}},
               "spec": {"serviceAccountName": "db", "automountServiceAccountToken": false,
                        "containers": [{"name": "db", "image": "db"}]}}),
    )
    .await;
    let db = eventually(60, "db Accepted", || async {
        let p = policy(&client, &ns, "db").await;
        matches!(accepted(&p, ME), Some((ConditionStatus::True, _, _))).then_some(p)
    })
    .await;
    let (_, reason, message) = accepted(&db, ME).unwrap();
    assert_eq!(reason, "Accepted");
    assert_eq!(message, "selects 1 Pod");
    assert_eq!(ancestors(&db)[0], stored_theirs[0]);

    // At the fixed point nothing more is written: the writes counted stay as they are.
    let settle = |s: &State| s.pending == 0;
    until(&mut state, "caught up", settle).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let writes = state.borrow().writes;
    let version = match &db {
        AnyResource::XAuthorizationPolicy(p) => p.metadata.resource_version.clone(),
        _ => None,
    };
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        state.borrow().writes,
        writes,
        "no further writes at the fixed point"
    );
    let again = policy(&client, &ns, "db").await;
    assert_eq!(again.metadata().resource_version, version);

    stop.send(true).unwrap();
    task.await.unwrap().unwrap();

    authorize_reads_the_policies_and_pods_of_the_cluster(env, &client, &ns).await;
}

/// `gammactl authorize --kubeconfig` reads the XAuthorizationPolicies and Pods of the cluster
/// (gamma-kube's one-shot list, now that their CRD is installed) and answers as it does for
/// the same objects given as files, dumped with plain API lists (whole Pods, not the kept
/// fields): the same verdict and reason, the same explanation.
async fn authorize_reads_the_policies_and_pods_of_the_cluster(
    env: &gamma_testenv::TestEnv,
    client: &kube::Client,
    ns: &str,
) {
    // No kubelet runs on the test API server: db-0's IP is written through the status
    // subresource, as a kubelet would.
    const IP: &str = "10.244.7.10";
    let pods = api(client, ResourceKind::Pod, Some(ns));
    let mut pod = pods.get("db-0").await.unwrap();
    pod.data["status"] = json!({"podIP": IP, "podIPs": [{"ip": IP}],
                                "conditions": [{"type": "Ready", "status": "True"}]});
    pods.replace_status("db-0", &PostParams::default(), &pod)
        .await
        .unwrap();

    let files = env.work_dir().join("authz-dump");
    let kinds = WATCHED
        .into_iter()
        .chain([ResourceKind::XAuthorizationPolicy, ResourceKind::Pod]);
    dump(client, kinds, &files).await;
    let kubeconfig = env.kubeconfig().to_str().unwrap();
    let files = files.to_str().unwrap();
    let to = format!("{IP}:5432");
    // The policy `db` allows ServiceAccount web on port 5432, and nothing else.
    let cases = [
        (
            "web",
            "allow",
            format!("XAuthorizationPolicy {ns}/db rule 0"),
        ),
        (
            "api",
            "deny",
            format!("{ns}/db rule 0: no source names the peer"),
        ),
    ];
    for (account, verdict, reason) in cases {
        let from = format!("spiffe://cluster.local/ns/{ns}/sa/{account}");
        for format in ["text", "json"] {
            let with = |source: &[&str]| {
                let mut args = vec!["authorize"];
                args.extend_from_slice(source);
                args.extend(["--from-identity", &from, "--to", &to, "-o", format]);
                common::run(&args)
            };
            let live = with(&["--kubeconfig", kubeconfig]);
            let offline = with(&["-f", files]);
            assert_eq!(live.code, 0, "{}", live.stderr);
            assert_eq!(offline.code, 0, "{}", offline.stderr);
            // The proposal's CRD is no Gateway API CRD: it is not said to name no bundle.
            assert!(
                !live.stderr.contains("xauthorizationpolicies"),
                "{}",
                live.stderr
            );
            assert_eq!(
                live.stdout, offline.stdout,
                "authorize -o {format} from {account}: the cluster and its objects as files differ"
            );
            if format == "json" {
                let answer: Value = serde_json::from_str(&live.stdout).unwrap();
                assert_eq!(answer["verdict"], verdict, "{answer}");
                let said = answer["reason"].as_str().unwrap();
                assert!(said.contains(&reason), "{said}");
            }
        }
    }
}
