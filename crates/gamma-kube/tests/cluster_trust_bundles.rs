//! BackendTLSPolicy CA references to ClusterTrustBundles (Gateway API v1.7 experimental,
//! GEP-5075) judged by gamma-kube on real API servers (tools/kube-testenv: kube-apiserver
//! v1.37.2 with the Gateway API v1.7.0 experimental CRDs), one per way a cluster serves the
//! `certificates.k8s.io` ClusterTrustBundle API: GA `v1` (Kubernetes 1.37's default), `v1beta1`
//! only (an older cluster that enables the beta), and not at all.
//!
//! BackendTLSPolicyValidation.caCertificateRefs (apis/v1/backendtlspolicy_types.go): "A
//! CACertificateRef is invalid if: It refers to a resource that cannot be resolved (e.g., the
//! referenced resource does not exist) [...] the Reason must be set to
//! `InvalidCACertificateRef` and the Message of the Condition must indicate which reference is
//! invalid and why", "If ALL CACertificateRefs are invalid, the implementation MUST also ensure
//! the `Accepted` Condition on the BackendTLSPolicy is set to `status: False`, with a Reason
//! `NoValidCACertificate`", and (experimental) "A single CACertificateRef to a
//! ClusterTrustBundle uses the cluster-scoped resource by name". Reported ignored (with the
//! reason) when the test environment is unavailable, unless GAMMA_REQUIRE_TESTENV=1.

mod common;

use common::*;
use gamma_arbiter::{ArbiterConfig, Identity};
use gamma_kube::kinds::api_resource;
use gamma_model::gateway::{Condition, ConditionStatus, PolicyAncestorStatus};
use gamma_model::{AnyResource, ResourceKind};
use gamma_testenv::harness::{experimental_server, release_servers};
use gamma_testenv::{Channel, Options, TestEnv};
use kube::api::{Api, DeleteParams, DynamicObject, PostParams};
use serde_json::json;

gamma_testenv::test_main! {
    #[tokio] served_at_v1_a_missing_bundle_is_an_invalid_ca_ref_until_it_is_created
        if release_servers && experimental_server,
    #[tokio] served_at_v1beta1_only_a_missing_bundle_is_an_invalid_ca_ref_until_it_is_created
        if release_servers && experimental_server,
    #[tokio] where_cluster_trust_bundles_are_not_served_none_are_watched_nor_judged_missing
        if release_servers && experimental_server,
    #[tokio] a_gateway_https_listener_validating_clients_against_a_missing_bundle_is_not_accepted_until_it_is_created
        if release_servers && experimental_server,
}

/// The release whose experimental channel lets a CA reference name a ClusterTrustBundle.
const RELEASE: &str = "v1.7.0";
const ME: &str = "example.com/gateway-controller-ctb";
const V1: &str = "certificates.k8s.io/v1";
const V1BETA1: &str = "certificates.k8s.io/v1beta1";
/// Every version Kubernetes has served ClusterTrustBundle at (k8s.io/api certificates: v1alpha1,
/// then v1beta1 from 1.33 and v1 from 1.37).
const KUBERNETES_VERSIONS: [&str; 3] = [V1, V1BETA1, "certificates.k8s.io/v1alpha1"];

/// A self-signed CA certificate (P-256, `CA:TRUE`, `keyCertSign`; made once with openssl, its
/// key discarded): the API server refuses a `trustBundle` without at least one X.509
/// certificate that has the CA bit and valid basic constraints (kube-apiserver's
/// ClusterTrustBundle validation), so a placeholder would not do.
const TEST_CA_PEM: &str = "-----BEGIN CERTIFICATE-----
MIIBnTCCAUOgAwIBAgIUMuo4oiVejsvk+AnRorG6BzEkYRYwCgYIKoZIzj0EAwIw
GzEZMBcGA1UEAwwQZ2FtbWEtcnMgdGVzdCBDQTAgFw0yNjEyMDcwNDU1MDJaGA8y
MTI2MTExMzA0NTUwMlowGzEZMBcGA1UEAwwQZ2FtbWEtcnMgdGVzdCBDQTBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABNosOvRRlD1x15WWabvXDLs6FfuYupJiOdMc
jqIl2/Fn2KnHR8PZdTX5whHX6KZZX0mUCkDEGezSxrHc6TOsQmujYzBhMB0GA1Ud
DgQWBBSprh/zAbhQeebWQp96txCde1EdADAfBgNVHSMEGDAWgBSprh/zAbhQeebW
Qp96txCde1EdADAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwIBBjAKBggq
hkjOPQQDAgNIADBFAiEAqhZi51PfUAmOTKRVvVYij4DFmZILnvE/s/jEHTf+G34C
IAq2dkkNbDadWQzaHLagwkYqm2v31prD8g3ljzRol4/c
-----END CERTIFICATE-----
";

/// A private server of `RELEASE`'s experimental CRDs whose kube-apiserver takes
/// `runtime_config` (the tests' preconditions say one can start).
fn private(runtime_config: &[&str]) -> TestEnv {
    let mut options = Options::default();
    options.runtime_config = runtime_config.iter().map(|&e| e.to_owned()).collect();
    TestEnv::start_release_with(RELEASE, Channel::Experimental, options)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The ClusterTrustBundle versions whose discovery document lists the resource: what the
/// server serves, asked as a client would, independently of gamma-rs's modelled versions and
/// `gamma_kube::served`.
async fn served_versions(client: &kube::Client) -> Vec<&'static str> {
    let mut out = Vec::new();
    for version in KUBERNETES_VERSIONS {
        match client.list_api_group_resources(version).await {
            Ok(list)
                if list
                    .resources
                    .iter()
                    .any(|r| r.name == "clustertrustbundles") =>
            {
                out.push(version)
            }
            Ok(_) => {}
            Err(kube::Error::Api(s)) if s.is_not_found() => {}
            Err(e) => panic!("discovery of {version}: {e}"),
        }
    }
    out
}

/// The ClusterTrustBundle API at `version`.
fn bundles(client: &kube::Client, version: &str) -> Api<DynamicObject> {
    Api::all_with(
        client.clone(),
        &api_resource(ResourceKind::ClusterTrustBundle, version),
    )
}

/// Creates ClusterTrustBundle `name` holding [`TEST_CA_PEM`] at `version`.
async fn create_bundle(client: &kube::Client, version: &str, name: &str) {
    let object: DynamicObject = serde_json::from_value(json!({
        "apiVersion": version, "kind": "ClusterTrustBundle",
        "metadata": {"name": name},
        "spec": {"trustBundle": TEST_CA_PEM},
    }))
    .unwrap();
    bundles(client, version)
        .create(&PostParams::default(), &object)
        .await
        .unwrap_or_else(|e| panic!("creating ClusterTrustBundle {name} at {version}: {e}"));
}

/// Namespace `ns` with Gateway `gw` of its own class (controller [`ME`]), Service `web` behind
/// it, and BackendTLSPolicy `tls` on `web` whose one CA reference names ClusterTrustBundle
/// `bundle`.
async fn policy_naming_a_bundle(client: &kube::Client, ns: &str, bundle: &str) {
    namespace_and_class(client, ns, ME).await;
    create_value(
        client,
        gateway_of_class(
            ns,
            json!({"listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}),
        ),
    )
    .await;
    web_behind_gateway(client, ns).await;
    create_value(
        client,
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "BackendTLSPolicy",
               "metadata": {"name": "tls", "namespace": ns},
               "spec": {"targetRefs": [{"group": "", "kind": "Service", "name": "web"}],
                        "validation": {"caCertificateRefs": [
                                           {"group": "certificates.k8s.io",
                                            "kind": "ClusterTrustBundle",
                                            "name": bundle}],
                                       "hostname": "web.example.com"}}}),
    )
    .await;
}

/// Our ancestor entry on policy `ns/tls` once there is one and, if `resolved` says, its
/// `ResolvedRefs` has that status (within 60 s).
async fn our_entry(
    client: &kube::Client,
    ns: &str,
    resolved: Option<ConditionStatus>,
) -> PolicyAncestorStatus {
    let what = format!("our ancestor entry with ResolvedRefs {resolved:?}");
    eventually(60, &what, || async {
        let policy = get_route(client, ResourceKind::BackendTlsPolicy, ns, "tls").await?;
        ancestors(&policy)
            .into_iter()
            .find(|a| a.controller_name == ME)
            .filter(|a| {
                resolved
                    .as_ref()
                    .is_none_or(|s| condition_of(a, "ResolvedRefs").status == *s)
            })
    })
    .await
}

fn condition_of<'a>(entry: &'a PolicyAncestorStatus, type_: &str) -> &'a Condition {
    entry
        .conditions
        .iter()
        .find(|c| c.type_ == type_)
        .unwrap_or_else(|| panic!("no {type_}: {entry:?}"))
}

/// The served path on a server whose discovery lists ClusterTrustBundles at `version` only: the
/// runtime watches them at that version, judges a reference to a bundle that does not exist
/// invalid, sees the bundle through its watch once it is created (no restart) and the
/// reference resolve, and sees it go again when it is deleted.
async fn missing_then_created_then_deleted(env: &TestEnv, version: &'static str) {
    let client = client(env).await;
    assert_eq!(served_versions(&client).await, [version]);
    let ns = env.namespace_name("ctb");
    // unsigned: any DNS subdomain without `:` (names with `:` are for a signerName's bundles)
    let bundle = format!("{ns}-roots");
    policy_naming_a_bundle(&client, &ns, &bundle).await;

    let runtime = Running::ready(&client, &ArbiterConfig::default(), Identity::new(ME), |c| {
        c.watch_cluster_trust_bundles = true
    })
    .await;
    let watching = runtime.state.borrow().watching.clone();
    assert_eq!(
        watching.get(&ResourceKind::ClusterTrustBundle),
        Some(&version),
        "{watching:?}"
    );

    // (a) the bundle does not exist: the one reference is invalid, so no reference is valid
    let entry = our_entry(&client, &ns, Some(ConditionStatus::False)).await;
    let resolved = condition_of(&entry, "ResolvedRefs");
    assert_eq!(resolved.reason, "InvalidCACertificateRef", "{entry:?}");
    assert!(
        resolved.message.contains(&bundle),
        "the message names the invalid reference: {}",
        resolved.message
    );
    let accepted = condition_of(&entry, "Accepted");
    assert_eq!(
        (&accepted.status, accepted.reason.as_str()),
        (&ConditionStatus::False, "NoValidCACertificate"),
        "{entry:?}"
    );

    // (b) created with a CA certificate: resolved and accepted, by the same runtime
    create_bundle(&client, version, &bundle).await;
    let entry = our_entry(&client, &ns, Some(ConditionStatus::True)).await;
    assert_eq!(
        condition_of(&entry, "ResolvedRefs").reason,
        "ResolvedRefs",
        "{entry:?}"
    );
    let accepted = condition_of(&entry, "Accepted");
    assert_eq!(
        (&accepted.status, accepted.reason.as_str()),
        (&ConditionStatus::True, "Accepted"),
        "{entry:?}"
    );

    // (c) deleted: the watch's delete makes it missing again
    bundles(&client, version)
        .delete(&bundle, &DeleteParams::default())
        .await
        .unwrap();
    let entry = our_entry(&client, &ns, Some(ConditionStatus::False)).await;
    assert_eq!(
        condition_of(&entry, "ResolvedRefs").reason,
        "InvalidCACertificateRef",
        "{entry:?}"
    );
    runtime.stop().await;
}

// Kubernetes 1.37 serves ClusterTrustBundle as GA at `certificates.k8s.io/v1`, by default and
// only there (beta versions are off by default): kube-testenv's default server.
async fn served_at_v1_a_missing_bundle_is_an_invalid_ca_ref_until_it_is_created() {
    let env = gamma_testenv::server_release(RELEASE, Channel::Experimental);
    missing_then_created_then_deleted(env, V1).await;
}

// A cluster before 1.37 serves the beta only where it enables it (kube-apiserver
// `--runtime-config=certificates.k8s.io/v1beta1/clustertrustbundles=true`); `v1` switched off
// stands in for the version such a cluster does not have.
async fn served_at_v1beta1_only_a_missing_bundle_is_an_invalid_ca_ref_until_it_is_created() {
    let env = private(&[
        "certificates.k8s.io/v1/clustertrustbundles=false",
        "certificates.k8s.io/v1beta1/clustertrustbundles=true",
    ]);
    missing_then_created_then_deleted(&env, V1BETA1).await;
    env.stop().unwrap();
}

// A cluster that serves no ClusterTrustBundle version (here 1.37 with `v1` switched off): the
// runtime watches none and does not mark the snapshot as holding them all, so a reference to a
// bundle it cannot see is not judged missing ("cannot be resolved" is not known of a resource
// that cannot be listed).
async fn where_cluster_trust_bundles_are_not_served_none_are_watched_nor_judged_missing() {
    let env = private(&["certificates.k8s.io/v1/clustertrustbundles=false"]);
    let client = client(&env).await;
    assert_eq!(served_versions(&client).await, Vec::<&str>::new());
    let ns = env.namespace_name("ctb");
    policy_naming_a_bundle(&client, &ns, "absent-roots").await;

    let runtime = Running::ready(
        &client,
        &ArbiterConfig::default(),
        Identity::new(ME),
        // asked for: the API not being served is what keeps them unwatched
        |c| c.watch_cluster_trust_bundles = true,
    )
    .await;
    let watching = runtime.state.borrow().watching.clone();
    assert!(
        !watching.contains_key(&ResourceKind::ClusterTrustBundle),
        "{watching:?}"
    );

    // the first entry written is the decision: nothing changes after it
    let entry = our_entry(&client, &ns, None).await;
    let resolved = condition_of(&entry, "ResolvedRefs");
    assert_eq!(
        (&resolved.status, resolved.reason.as_str()),
        (&ConditionStatus::True, "ResolvedRefs"),
        "{entry:?}"
    );
    runtime.stop().await;
    env.stop().unwrap();
}

/// (status, reason) of condition `type_` of listener `listener` of Gateway `ns/gw`, once the
/// Gateway's status has that listener with that condition at `status` (within 60 s).
async fn listener_condition(
    client: &kube::Client,
    ns: &str,
    listener: &str,
    type_: &str,
    status: ConditionStatus,
) -> Condition {
    let what = format!("listener {listener} {type_}={status:?}");
    eventually(60, &what, || async {
        let gw = get_route(client, ResourceKind::Gateway, ns, "gw").await?;
        let AnyResource::Gateway(gw) = gw else {
            return None;
        };
        gw.status?
            .listeners
            .into_iter()
            .find(|l| l.name == listener)?
            .conditions
            .into_iter()
            .find(|c| c.type_ == type_ && c.status == status)
    })
    .await
}

// FrontendTLSValidation.caCertificateRefs (v1.7.0, GEP-91 with GEP-5075's ClusterTrustBundles):
// a reference that "cannot be resolved" makes the HTTPS listener's `ResolvedRefs` False with
// `InvalidCACertificateRef`, and "If ALL CACertificateRefs are invalid" its `Accepted` False
// with `NoValidCACertificate`. The runtime sees the bundle created through its watch and
// rewrites the Gateway's status without a restart; the HTTP listener is not one "handling
// HTTPS traffic" and stays accepted throughout.
async fn a_gateway_https_listener_validating_clients_against_a_missing_bundle_is_not_accepted_until_it_is_created()
 {
    let env = gamma_testenv::server_release(RELEASE, Channel::Experimental);
    let client = client(env).await;
    let ns = env.namespace_name("ctb-gw");
    let bundle = format!("{ns}-clients");
    namespace_and_class(&client, &ns, ME).await;
    create_value(
        &client,
        gateway_of_class(
            &ns,
            json!({"listeners": [
                       {"name": "http", "port": 80, "protocol": "HTTP"},
                       {"name": "https", "port": 443, "protocol": "HTTPS",
                        "tls": {"certificateRefs": [{"name": "cert"}]}}],
                   "tls": {"frontend": {"default": {"validation": {"caCertificateRefs": [
                       {"group": "certificates.k8s.io", "kind": "ClusterTrustBundle",
                        "name": bundle}]}}}}}),
        ),
    )
    .await;
    let runtime = Running::ready(&client, &ArbiterConfig::default(), Identity::new(ME), |c| {
        c.watch_cluster_trust_bundles = true
    })
    .await;

    let c = listener_condition(&client, &ns, "https", "Accepted", ConditionStatus::False).await;
    assert_eq!(c.reason, "NoValidCACertificate", "{c:?}");
    let c = listener_condition(
        &client,
        &ns,
        "https",
        "ResolvedRefs",
        ConditionStatus::False,
    )
    .await;
    assert_eq!(c.reason, "InvalidCACertificateRef", "{c:?}");
    assert!(c.message.contains(&bundle), "{}", c.message);
    listener_condition(&client, &ns, "http", "Accepted", ConditionStatus::True).await;

    create_bundle(&client, V1, &bundle).await;
    listener_condition(&client, &ns, "https", "Accepted", ConditionStatus::True).await;
    let c = listener_condition(&client, &ns, "https", "ResolvedRefs", ConditionStatus::True).await;
    assert_eq!(c.reason, "ResolvedRefs", "{c:?}");
    bundles(&client, V1)
        .delete(&bundle, &DeleteParams::default())
        .await
        .unwrap();
    runtime.stop().await;
}
