//! Gateway, ListenerSet and BackendTLSPolicy status written by gamma-kube on a real Kubernetes API
//! server (tools/kube-testenv, the Gateway API v1.6.1 standard-channel CRDs), for an embedding
//! gateway controller. GEP-713 PolicyStatus.ancestors: "implementations MUST ONLY populate ancestor
//! status for the Ancestor resources they are responsible for", identified by `controllerName`; the
//! list is atomic, so only a resourceVersion-guarded read-modify-write keeps another controller's
//! entry. Reported ignored (with the reason) when the test environment is unavailable, unless
//! GAMMA_REQUIRE_TESTENV=1.

mod common;

use common::*;
use gamma_arbiter::{ArbiterConfig, Identity};
use gamma_model::gateway::{ConditionStatus, PolicyAncestorStatus};
use gamma_model::{AnyResource, ResourceKind};
use gamma_testenv::harness::standard_server;
use gamma_testenv::{Channel, TestEnv};
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::{Value, json};

gamma_testenv::test_main! {
    #[tokio] gateway_listener_set_and_policy_status_are_written_keeping_other_controllers_entries
        if standard_server,
    #[tokio] tls_secrets_are_watched_by_field_selector_and_resolve_certificate_refs
        if standard_server,
    #[tokio] watching_secrets_with_none_in_the_cluster_a_certificate_ref_is_invalid
        if standard_server,
}

const ME: &str = "example.com/gateway-controller";
/// The Secrets test's own controller: the tests of this binary run at once against one API
/// server, and a runtime without `watch_secrets` that owned this test's Gateway too would
/// write `ResolvedRefs=True` for it (it reads no Secrets).
const ME_SECRETS: &str = "example.com/gateway-controller-secrets";
const OTHER: &str = "other.example/gateway-controller";
const THIRD: &str = "third.example/mesh-controller";

/// An ancestor entry of `controller` for Gateway `ns/name`.
fn foreign_entry(ns: &str, name: &str, controller: &str, message: &str) -> Value {
    json!({
        "ancestorRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway",
                        "namespace": ns, "name": name},
        "controllerName": controller,
        "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted",
                        "message": message, "observedGeneration": 1,
                        "lastTransitionTime": "2026-01-01T00:00:00Z"}],
    })
}

/// A server of this test's own (the shared one holds other tests' Secrets; the test's
/// precondition `standard_server` says one can start).
fn private() -> TestEnv {
    TestEnv::start(Channel::Standard).unwrap_or_else(|e| panic!("{e}"))
}

async fn get(client: &kube::Client, kind: ResourceKind, ns: &str, name: &str) -> AnyResource {
    get_route(client, kind, ns, name).await.unwrap()
}

fn ancestors(r: &AnyResource) -> Vec<PolicyAncestorStatus> {
    match r {
        AnyResource::BackendTlsPolicy(p) => p
            .status
            .as_ref()
            .map(|s| s.ancestors.clone())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn ours(r: &AnyResource) -> Option<PolicyAncestorStatus> {
    ancestors(r).into_iter().find(|a| a.controller_name == ME)
}

async fn gateway_listener_set_and_policy_status_are_written_keeping_other_controllers_entries() {
    let env = gamma_testenv::server(Channel::Standard);
    let client = client(env).await;
    let ns = env.namespace_name("objstatus");
    namespace_and_class(&client, &ns, ME).await;
    create_value(
        &client,
        gateway_of_class(
            &ns,
            json!({"allowedListeners": {"namespaces": {"from": "Same"}},
                   "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}),
        ),
    )
    .await;
    create_value(
        &client,
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "ListenerSet",
               "metadata": {"name": "team", "namespace": ns},
               "spec": {"parentRef": {"name": "gw"},
                        "listeners": [{"name": "extra", "port": 8080, "protocol": "HTTP",
                                       "hostname": "team.example.com"}]}}),
    )
    .await;
    create_value(
        &client,
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "web", "namespace": ns},
               "spec": {"ports": [{"name": "https", "port": 443, "protocol": "TCP"}]}}),
    )
    .await;
    create_value(
        &client,
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
               "metadata": {"name": "r", "namespace": ns},
               "spec": {"parentRefs": [{"name": "gw"}],
                        "rules": [{"backendRefs": [{"name": "web", "port": 443}]}]}}),
    )
    .await;
    // another controller already reports on the policy (for a Gateway of its own)
    let theirs = foreign_entry(&ns, "elsewhere", OTHER, "theirs");
    create_value(
        &client,
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "BackendTLSPolicy",
               "metadata": {"name": "tls", "namespace": ns},
               "spec": {"targetRefs": [{"group": "", "kind": "Service", "name": "web"}],
                        "validation": {"wellKnownCACertificates": "System",
                                       "hostname": "web.example.com"}},
               "status": {"ancestors": [theirs.clone()]}}),
    )
    .await;
    let stored_theirs = ancestors(&get(&client, ResourceKind::BackendTlsPolicy, &ns, "tls").await);

    let runtime = Running::ready(
        &client,
        &ArbiterConfig::default(),
        Identity::new(ME),
        |_| {},
    )
    .await;

    // the policy: our entry for our Gateway beside theirs, untouched
    let policy = eventually(60, "our ancestor entry", || async {
        let p = get(&client, ResourceKind::BackendTlsPolicy, &ns, "tls").await;
        ours(&p).is_some().then_some(p)
    })
    .await;
    let all = ancestors(&policy);
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(
        all[0], stored_theirs[0],
        "the other controller's entry is kept as stored"
    );
    let mine = ours(&policy).unwrap();
    assert_eq!(mine.ancestor_ref.name, "gw");
    assert_eq!(
        mine.conditions
            .iter()
            .find(|c| c.type_ == "Accepted")
            .map(|c| &c.status),
        Some(&ConditionStatus::True)
    );

    // the ListenerSet: Accepted by us; the Gateway: counts it in attachedListenerSets
    let ls = eventually(60, "ListenerSet Accepted", || async {
        match get(&client, ResourceKind::ListenerSet, &ns, "team").await {
            AnyResource::ListenerSet(ls) => ls.status.filter(|s| {
                s.conditions
                    .iter()
                    .any(|c| c.type_ == "Accepted" && c.status == ConditionStatus::True)
            }),
            _ => None,
        }
    })
    .await;
    assert_eq!(ls.listeners.len(), 1, "{ls:?}");
    assert_eq!(ls.listeners[0].name, "extra");
    let gw = eventually(60, "Gateway status", || async {
        match get(&client, ResourceKind::Gateway, &ns, "gw").await {
            AnyResource::Gateway(g) => g.status.filter(|s| s.attached_listener_sets.is_some()),
            _ => None,
        }
    })
    .await;
    assert_eq!(gw.attached_listener_sets, Some(1));
    assert!(
        gw.conditions
            .iter()
            .any(|c| c.type_ == "Accepted" && c.status == ConditionStatus::True),
        "{gw:?}"
    );

    // A third controller adds its entry (a guarded read-modify-write of its own), then the
    // policy's spec changes so that we write again: both foreign entries survive our write.
    let api = api_of(&client, ResourceKind::BackendTlsPolicy, Some(&ns));
    let mut current = api.get_status("tls").await.unwrap();
    current.data["status"]["ancestors"]
        .as_array_mut()
        .unwrap()
        .push(foreign_entry(&ns, "third", THIRD, "third"));
    api.replace_status("tls", &PostParams::default(), &current)
        .await
        .unwrap();
    api.patch(
        "tls",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"validation": {"hostname": "web2.example.com"}}})),
    )
    .await
    .unwrap();
    let policy = eventually(60, "our entry for generation 2", || async {
        let p = get(&client, ResourceKind::BackendTlsPolicy, &ns, "tls").await;
        let generation = ours(&p)?
            .conditions
            .first()
            .and_then(|c| c.observed_generation);
        (generation == Some(2)).then_some(p)
    })
    .await;
    let controllers: Vec<String> = ancestors(&policy)
        .into_iter()
        .map(|a| a.controller_name)
        .collect();
    assert_eq!(controllers, [OTHER, ME, THIRD], "{:?}", ancestors(&policy));
    assert_eq!(ancestors(&policy)[0], stored_theirs[0]);
    runtime.stop().await;
}

/// A Secret of `type_` with entries `tls.crt` and `tls.key` (placeholder bytes).
fn tls_like_secret(ns: &str, name: &str, type_: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": ns},
           "type": type_, "data": {"tls.crt": "Y2VydA==", "tls.key": "a2V5"}})
}

/// Namespace `ns` and Gateway `ns/gw` of a class of [`ME_SECRETS`], whose HTTPS listener
/// `https` names Secret `ns/cert`.
async fn gateway_naming_a_secret(client: &kube::Client, ns: &str) {
    namespace_and_class(client, ns, ME_SECRETS).await;
    create_value(
        client,
        gateway_of_class(
            ns,
            json!({"listeners": [{"name": "https", "port": 443, "protocol": "HTTPS",
                                  "hostname": "a.example.com",
                                  "tls": {"certificateRefs": [{"name": "cert"}]}}]}),
        ),
    )
    .await;
}

/// A runtime of [`ME_SECRETS`] watching Secrets, ready; and the `ResolvedRefs` its listener
/// `https` of Gateway `ns/gw` gets first, which must be `False InvalidCertificateRef` for
/// Secret `ns/cert` not existing (GatewayTLSConfig.certificateRefs).
async fn watching_secrets_cert_is_missing(client: &kube::Client, ns: &str) -> Running {
    let runtime = Running::ready(
        client,
        &ArbiterConfig::default(),
        Identity::new(ME_SECRETS),
        |c| {
            c.watch_secrets = true;
        },
    )
    .await;
    let (status, reason, message) = eventually(60, "ResolvedRefs on the listener", || async {
        listener_resolved_refs(client, ns).await
    })
    .await;
    assert_eq!(
        (status, reason.as_str()),
        (ConditionStatus::False, "InvalidCertificateRef"),
        "{message}"
    );
    assert!(
        message.contains(&format!("Secret {ns}/cert does not exist")),
        "{message}"
    );
    runtime
}

/// The `ResolvedRefs` condition of listener `https` of Gateway `ns/gw`: (status, reason, message).
async fn listener_resolved_refs(
    client: &kube::Client,
    ns: &str,
) -> Option<(ConditionStatus, String, String)> {
    let AnyResource::Gateway(g) = get(client, ResourceKind::Gateway, ns, "gw").await else {
        return None;
    };
    let c = g
        .status?
        .listeners
        .into_iter()
        .find(|l| l.name == "https")?
        .conditions
        .into_iter()
        .find(|c| c.type_ == "ResolvedRefs")?;
    Some((c.status, c.reason, c.message))
}

// RunConfig::watch_secrets: Secrets are watched with the field selector type=kubernetes.io/tls
// (the real API server supports it for Secrets), so an Opaque Secret is never received: a
// certificate reference to it reads as missing (GatewayTLSConfig.certificateRefs:
// InvalidCertificateRef); a kubernetes.io/tls Secret of that name resolves it.
async fn tls_secrets_are_watched_by_field_selector_and_resolve_certificate_refs() {
    let env = gamma_testenv::server(Channel::Standard);
    let client = client(env).await;
    let ns = env.namespace_name("secrets");
    gateway_naming_a_secret(&client, &ns).await;
    // an Opaque Secret named as the reference, and some other TLS Secret
    create_value(&client, tls_like_secret(&ns, "cert", "Opaque")).await;
    create_value(
        &client,
        tls_like_secret(&ns, "unrelated", "kubernetes.io/tls"),
    )
    .await;
    // the Opaque Secret is never received (the selector filters it): it reads as missing
    let runtime = watching_secrets_cert_is_missing(&client, &ns).await;

    // replaced by a kubernetes.io/tls Secret: the reference resolves
    api_of(&client, ResourceKind::Secret, Some(&ns))
        .delete("cert", &Default::default())
        .await
        .unwrap();
    create_value(&client, tls_like_secret(&ns, "cert", "kubernetes.io/tls")).await;
    eventually(60, "ResolvedRefs=True", || async {
        listener_resolved_refs(&client, &ns)
            .await
            .filter(|(s, _, _)| *s == ConditionStatus::True)
    })
    .await;
    runtime.stop().await;
}

// RunConfig::watch_secrets marks the snapshot as holding every TLS Secret: on a server of its
// own, where no Secret exists at all, a certificate reference names a Secret that does not
// exist (GatewayTLSConfig.certificateRefs: ResolvedRefs=False InvalidCertificateRef), judged
// by what the runtime watches, not by how many Secrets it has seen.
async fn watching_secrets_with_none_in_the_cluster_a_certificate_ref_is_invalid() {
    let env = private();
    let client = client(&env).await;
    let ns = env.namespace_name("nosecrets");
    gateway_naming_a_secret(&client, &ns).await;
    let secrets = api_of(&client, ResourceKind::Secret, None)
        .list(&Default::default())
        .await
        .unwrap();
    assert!(secrets.items.is_empty(), "{:?}", secrets.items);
    watching_secrets_cert_is_missing(&client, &ns)
        .await
        .stop()
        .await;
    env.stop().unwrap();
}
