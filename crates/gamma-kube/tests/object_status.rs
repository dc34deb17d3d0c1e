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
    #[tokio] a_supplied_programmed_is_written_with_the_computed_status_at_the_new_generation
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
    web_behind_gateway(&client, &ns).await;
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

/// The controller of the supplier test (its own GatewayClass, so that the other tests'
/// runtimes on the shared server never write its objects).
const ME_SUPPLIER: &str = "example.com/gateway-controller-supplier";

/// An embedder that reports its data plane programmed every Gateway and listener, and adds a
/// condition of its own to its route entries.
#[derive(Debug)]
struct DataPlane;

impl gamma_controller::StatusSupplier for DataPlane {
    fn gateway(
        &self,
        _gateway: &gamma_model::gateway::Gateway,
        computed: &gamma_model::gateway::GatewayStatus,
    ) -> gamma_controller::Supplied {
        let programmed =
            || gamma_controller::supplied_condition("Programmed", true, "Programmed", "programmed");
        computed.listeners.iter().fold(
            gamma_controller::Supplied::new().with_condition(programmed()),
            |s, l| s.with_listener_condition(l.name.clone(), programmed()),
        )
    }

    fn route_parent(
        &self,
        _route: &gamma_model::ObjectKey,
        _parent_ref: &gamma_model::gateway::ParentReference,
        _computed: &[gamma_model::gateway::Condition],
    ) -> Vec<gamma_model::gateway::Condition> {
        vec![gamma_controller::supplied_condition(
            "example.com/DataPlane",
            true,
            "Synced",
            "in the data plane",
        )]
    }
}

fn gateway_condition<'a>(
    s: &'a gamma_model::gateway::GatewayStatus,
    type_: &str,
) -> Option<&'a gamma_model::gateway::Condition> {
    s.conditions.iter().find(|c| c.type_ == type_)
}

// Gateway API v1.7 "preserve foreign status" conformance (GatewayPreserveForeignConditions,
// HTTPRoute foreign entries): after a spec change, every condition of the implementation is at
// the new generation, a condition type it is not responsible for and another controller's
// route entry stay exactly as stored. The embedder's Programmed is supplied, so it goes in the
// same status write as the computed Accepted: no recorded version of the Gateway has one at the
// new generation without the other.
async fn a_supplied_programmed_is_written_with_the_computed_status_at_the_new_generation() {
    let env = gamma_testenv::server(Channel::Standard);
    let client = client(env).await;
    let ns = env.namespace_name("supplied");
    namespace_and_class(&client, &ns, ME_SUPPLIER).await;
    create_value(
        &client,
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "web", "namespace": ns},
               "spec": {"ports": [{"port": 80, "protocol": "TCP"}]}}),
    )
    .await;
    create_value(
        &client,
        gateway_of_class(
            &ns,
            json!({"listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}),
        ),
    )
    .await;
    // another controller's entry for a Gateway of its own, and a condition type nobody of
    // ours writes, seeded on the Gateway and its listener
    let foreign_parent = json!({
        "parentRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway",
                      "namespace": ns, "name": "elsewhere"},
        "controllerName": OTHER,
        "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted",
                        "message": "theirs", "observedGeneration": 1,
                        "lastTransitionTime": "2026-01-01T00:00:00Z"}]});
    create_value(
        &client,
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
               "metadata": {"name": "r", "namespace": ns},
               "spec": {"parentRefs": [{"name": "gw"}, {"name": "elsewhere"}],
                        "rules": [{"backendRefs": [{"name": "web", "port": 80}]}]},
               "status": {"parents": [foreign_parent]}}),
    )
    .await;
    let seeded = json!({"type": "example.com/Seeded", "status": "True", "reason": "Seeded",
                        "message": "", "observedGeneration": 1,
                        "lastTransitionTime": "2026-01-01T00:00:00Z"});
    let gateways = api_of(&client, ResourceKind::Gateway, Some(&ns));
    let mut current = gateways.get_status("gw").await.unwrap();
    current.data["status"] = json!({
        "conditions": [seeded.clone()],
        "listeners": [{"name": "http", "attachedRoutes": 0, "supportedKinds": [],
                       "conditions": [seeded.clone()]}]});
    gateways
        .replace_status("gw", &PostParams::default(), &current)
        .await
        .unwrap();
    let stored_route = get(&client, ResourceKind::HttpRoute, &ns, "r").await;
    let theirs = parents(&stored_route)
        .into_iter()
        .find(|p| p.controller_name == OTHER)
        .unwrap();
    let seeded_gw = match get(&client, ResourceKind::Gateway, &ns, "gw").await {
        AnyResource::Gateway(g) => g.status.unwrap(),
        other => panic!("{other:?}"),
    };
    let seeded_condition = gateway_condition(&seeded_gw, "example.com/Seeded")
        .unwrap()
        .clone();

    let key = gamma_model::ObjectKey::new(ResourceKind::Gateway, ns.clone(), "gw");
    let history = History::record(&client, &[ResourceKind::Gateway]).await;
    let runtime = Running::ready(
        &client,
        &ArbiterConfig::default(),
        Identity::new(ME_SUPPLIER),
        |c| {
            c.reconciler.status_supplier = std::sync::Arc::new(DataPlane);
        },
    )
    .await;
    let at = |generation: i64| {
        let ns = ns.clone();
        let client = client.clone();
        async move {
            eventually(60, "the Gateway's status at its generation", || async {
                match get(&client, ResourceKind::Gateway, &ns, "gw").await {
                    AnyResource::Gateway(g) => g.status.filter(|s| {
                        gateway_condition(s, "Accepted")
                            .is_some_and(|c| c.observed_generation == Some(generation))
                    }),
                    _ => None,
                }
            })
            .await
        }
    };
    let first = at(1).await;
    let programmed = gateway_condition(&first, "Programmed").unwrap();
    assert_eq!(programmed.status, ConditionStatus::True);
    assert_eq!(programmed.observed_generation, Some(1));

    // a spec change: generation 2
    gateways
        .patch(
            "gw",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"listeners": [
                {"name": "http", "port": 80, "protocol": "HTTP", "hostname": "second.example.com"}
            ]}})),
        )
        .await
        .unwrap();
    let second = at(2).await;
    for c in second
        .conditions
        .iter()
        .chain(second.listeners.iter().flat_map(|l| &l.conditions))
    {
        if c.type_ == "example.com/Seeded" {
            assert_eq!(
                c, &seeded_condition,
                "the foreign condition is kept as stored"
            );
        } else {
            assert_eq!(
                c.observed_generation,
                Some(2),
                "left at an old generation: {c:?}"
            );
        }
    }
    assert_eq!(
        second.listeners[0]
            .conditions
            .iter()
            .find(|c| c.type_ == "example.com/Seeded"),
        Some(&seeded_condition)
    );
    // one write: every recorded version with Accepted at generation 2 has Programmed there
    for v in history.versions(&key) {
        let AnyResource::Gateway(g) = v else { continue };
        let Some(s) = g.status else { continue };
        let generation_of = |t: &str| gateway_condition(&s, t).and_then(|c| c.observed_generation);
        if generation_of("Accepted") == Some(2) {
            assert_eq!(generation_of("Programmed"), Some(2), "{s:?}");
        }
    }

    // the route: our entry has the supplied condition at the route's generation, theirs is
    // untouched
    let route = eventually(60, "our route entry", || async {
        let r = get(&client, ResourceKind::HttpRoute, &ns, "r").await;
        parents(&r)
            .iter()
            .any(|p| {
                p.controller_name == ME_SUPPLIER
                    && p.conditions
                        .iter()
                        .any(|c| c.type_ == "example.com/DataPlane")
            })
            .then_some(r)
    })
    .await;
    let all = parents(&route);
    assert_eq!(
        all.iter().find(|p| p.controller_name == OTHER),
        Some(&theirs)
    );
    let ours = all
        .iter()
        .find(|p| p.controller_name == ME_SUPPLIER)
        .unwrap();
    let generation = route.metadata().generation;
    assert!(
        ours.conditions
            .iter()
            .all(|c| c.observed_generation == generation),
        "{ours:?}"
    );
    runtime.stop().await;
}
