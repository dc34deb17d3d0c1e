//! A Gateway API upgrade in place, on a real Kubernetes API server (tools/kube-testenv): the
//! runtime runs on the v1.6 CRDs (experimental channel), the v1.7 CRDs are installed over
//! them, and the runtime follows: it reports the new bundle, re-judges every route under the
//! new release's rules without a restart, and writes only the status that changed.
//!
//! The server is private (the test replaces its CRDs). The testenv installs no
//! `safe-upgrades` ValidatingAdmissionPolicy (tools/kube-testenv/README.md), so the CRDs are
//! replaced as an administrator who removed it would; an upgrade within one channel passes
//! that policy anyway.
//!
//! Beside it, without a server: each supported release's CRDs, as the runtime observes them,
//! name that release's bundle, and a half-applied upgrade follows the HTTPRoute CRD.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use common::*;
use gamma_arbiter::Identity;
use gamma_kube::metrics::Metrics;
use gamma_model::validate::{Bundle, Channel, Release};
use gamma_model::{AnyResource, ObjectKey, ResourceKind};
use gamma_testenv::TestEnv;
use gamma_testenv::harness::{experimental_server, release_trees};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::PostParams;
use serde_json::{Value, json};

gamma_testenv::test_main! {
    #[tokio] an_upgrade_in_place_switches_rules_without_losing_or_flapping_status
        if release_trees && experimental_server,
    the_crds_of_each_release_and_channel_name_that_bundle if release_trees,
    an_upgrade_half_applied_follows_the_httproute_crd_and_lists_the_rest if release_trees,
}

const ISTIO: &str = "istio.io/gateway-controller";

fn istio() -> Identity {
    Identity::of_mesh(&sample_config(), "istio").unwrap()
}

/// The runtime's log events (target `gamma_kube`), each as its level and fields (`message`
/// among them): a minimal `tracing` subscriber, installed for the whole test binary.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<LogEvent>>>);

/// One log event: its level and fields.
type LogEvent = (tracing::Level, BTreeMap<String, String>);

struct Fields(BTreeMap<String, String>);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl tracing::Subscriber for Logs {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.target().starts_with("gamma_kube")
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(BTreeMap::new());
        event.record(&mut fields);
        self.0
            .lock()
            .unwrap()
            .push((*event.metadata().level(), fields.0));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

impl Logs {
    /// The fields of the events at `level` whose message starts with `message`.
    fn find(&self, level: tracing::Level, message: &str) -> Vec<BTreeMap<String, String>> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(l, f)| *l == level && f["message"].starts_with(message))
            .map(|(_, f)| f.clone())
            .collect()
    }
}

/// An HTTPRoute `name` on mesh Service `parent` (port 80) with one rule (`rule`'s fields, and a
/// backendRef to Service `back` unless it has its own).
fn route_with(ns: &str, name: &str, parent: &str, rule: Value) -> Value {
    let mut rule = rule;
    if rule.get("backendRefs").is_none() {
        rule["backendRefs"] = json!([{"name": "back", "port": 80}]);
    }
    json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
           "metadata": {"name": name, "namespace": ns},
           "spec": {"parentRefs": [{"group": "", "kind": "Service", "name": parent, "port": 80}],
                    "rules": [rule]}})
}

/// `Accepted` of istio's entry for `parent` on the route, if the route and the entry exist.
async fn accepted(client: &kube::Client, ns: &str, name: &str, parent: &str) -> Option<String> {
    let r = get_route(client, ResourceKind::HttpRoute, ns, name).await?;
    condition(&r, ISTIO, parent, "Accepted")
}

fn resource_version(r: &AnyResource) -> u64 {
    r.metadata()
        .resource_version
        .as_deref()
        .unwrap()
        .parse()
        .unwrap()
}

async fn an_upgrade_in_place_switches_rules_without_losing_or_flapping_status() {
    let old = Bundle::new(Release::V1_6, Channel::Experimental);
    let new = Bundle::new(Release::V1_7, Channel::Experimental);
    let env = TestEnv::start_release(
        old.release.reference_patch(),
        gamma_testenv::Channel::Experimental,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let new_crds = match gamma_testenv::upstream::release_tree(new.release.reference_patch()) {
        Ok(tree) => crd_documents(&tree.join("config/crd/experimental")),
        Err(e) => panic!("{e}"), // the server above needed the release trees too
    };
    let logs = Logs::default();
    tracing::subscriber::set_global_default(logs.clone()).unwrap();
    let started = std::time::Instant::now();
    let client = client(&env).await;
    let ns = env.namespace_name("upgrade");
    create_value(&client, namespace(&ns, json!({"gamma.rs/mesh": "istio"}))).await;
    for s in ["front", "front2", "front3", "back"] {
        create_value(&client, service(&ns, s)).await;
    }
    // Valid under both releases' rules.
    let plain = route_with(&ns, "plain", "front", json!({}));
    let timeouts = route_with(
        &ns,
        "timeouts",
        "front",
        json!({"timeouts": {"request": "5s"}}),
    );
    // A port on a reference to an XBackend: accepted by v1.6's CRDs, refused by v1.7's
    // experimental ones ("Must not have port for Backend reference").
    let xbackend = route_with(
        &ns,
        "xbackend-port",
        "front2",
        json!({"backendRefs": [{"group": "gateway.networking.x-k8s.io", "kind": "XBackend",
                                "name": "api", "port": 80}]}),
    );
    // v1.7 only: retries disabled with `attempts: 0` (minimum 1 in v1.6) and a session
    // cookie in v1.7's shape (`cookie`; v1.6 had `sessionName` and `cookieConfig`).
    let v1_7_only = route_with(
        &ns,
        "v1-7-only",
        "front3",
        json!({"retry": {"attempts": 0},
               "sessionPersistence": {"type": "Cookie", "cookie": {"name": "session"}}}),
    );
    for r in [&plain, &timeouts, &xbackend] {
        create_value(&client, r.clone()).await;
    }
    let routes = ["plain", "timeouts", "xbackend-port"];
    let parent_of = BTreeMap::from([
        ("plain", "front"),
        ("timeouts", "front"),
        ("xbackend-port", "front2"),
        ("v1-7-only", "front3"),
    ]);
    // The v1.6 server refuses the v1.7 field.
    let api = api_of(&client, ResourceKind::HttpRoute, Some(&ns));
    let refused = api
        .create(
            &PostParams::default(),
            &serde_json::from_value(v1_7_only.clone()).unwrap(),
        )
        .await;
    assert!(
        matches!(&refused, Err(kube::Error::Api(s)) if s.code == 422),
        "{refused:?}"
    );

    let history = History::record(&client, &[ResourceKind::HttpRoute]).await;
    let mut registry = prometheus_client::registry::Registry::default();
    let metrics = Metrics::register(&mut registry);
    let run_metrics = metrics.clone();
    let mut running = Running::ready(&client, &sample_config(), istio(), move |c| {
        c.metrics = run_metrics;
    })
    .await;
    until(&mut running.state, 30, "the v1.6 bundle", |s| {
        s.bundle == Some(old) && s.bundle_disagreements.is_empty()
    })
    .await;
    for name in routes {
        eventually(60, "every route accepted under v1.6", || async {
            (accepted(&client, &ns, name, parent_of[name])
                .await
                .as_deref()
                == Some("True"))
            .then_some(())
        })
        .await;
    }
    until(&mut running.state, 30, "caught up", |s| s.pending == 0).await;
    let writes_before = running.state.borrow().writes;
    let mut before = BTreeMap::new();
    for name in routes {
        let r = get_route(&client, ResourceKind::HttpRoute, &ns, name)
            .await
            .unwrap();
        before.insert(name, resource_version(&r));
    }
    let ready_at = started.elapsed();
    // One list, no watch, reads the same bundle.
    let listed = gamma_kube::list::list_all(&client).await.unwrap();
    let choice = listed.bundle.unwrap();
    assert_eq!(choice.bundle, old);
    assert!(choice.disagreeing.is_empty() && listed.unannotated.is_empty());

    // The upgrade: every v1.7 CRD over the v1.6 ones, while the runtime runs.
    install_over(&client, &new_crds).await;
    until(&mut running.state, 60, "the v1.7 bundle", |s| {
        s.bundle == Some(new) && s.bundle_disagreements.is_empty() && s.bundle_changes == 1
    })
    .await;
    eventually(60, "the XBackend port re-judged under v1.7", || async {
        (accepted(&client, &ns, "xbackend-port", "front2")
            .await
            .is_some_and(|a| a != "True"))
        .then_some(())
    })
    .await;
    until(&mut running.state, 30, "caught up", |s| s.pending == 0).await;
    // Let any late event (a watch restarted by the CRD change, a relist) be reconciled too.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    until(&mut running.state, 30, "caught up", |s| s.pending == 0).await;
    // Reported: the bundle when first known and on the change, the CRDs of two bundles
    // while the upgrade was half applied (HTTPRoute's sorts after four others), and the end
    // of that.
    let field = |f: &BTreeMap<String, String>, k: &str| f.get(k).cloned().unwrap_or_default();
    let first = logs.find(tracing::Level::INFO, "Gateway API bundle");
    let (changed, first): (Vec<_>, Vec<_>) = first
        .into_iter()
        .partition(|f| f["message"].starts_with("Gateway API bundle changed"));
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(
        (field(&first[0], "release"), field(&first[0], "channel")),
        (old.release.to_string(), old.channel.as_str().to_owned())
    );
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(
        (
            field(&changed[0], "release"),
            field(&changed[0], "was_release")
        ),
        (new.release.to_string(), old.release.to_string())
    );
    let mixed = logs.find(
        tracing::Level::WARN,
        "Gateway API CRDs of more than one bundle",
    );
    assert_eq!(mixed.len(), 1, "{mixed:?}");
    assert!(
        field(&mixed[0], "disagreeing").contains(&format!(
            "backendtlspolicies.gateway.networking.k8s.io: {new}"
        )),
        "{mixed:?}"
    );
    let again = logs.find(tracing::Level::INFO, "Gateway API CRDs all name one bundle");
    assert_eq!(again.len(), 1, "{again:?}");
    assert!(
        logs.find(tracing::Level::WARN, "Gateway API CRD names no bundle")
            .is_empty()
    );

    let choice = gamma_kube::list::list_all(&client)
        .await
        .unwrap()
        .bundle
        .unwrap();
    assert_eq!((choice.bundle, choice.disagreeing.len()), (new, 0));

    let rejudged = ["xbackend-port"];
    let state = running.state.borrow().clone();
    assert_eq!(
        state.writes - writes_before,
        rejudged.len() as u64,
        "only the re-judged routes are written: {state:?}"
    );
    for name in routes {
        let r = get_route(&client, ResourceKind::HttpRoute, &ns, name)
            .await
            .unwrap();
        let key = ObjectKey::new(ResourceKind::HttpRoute, ns.as_str(), name);
        // Written once more only where the verdict changed; istio's entry on every version
        // once it had one (never lost), and no verdict that came back (no flap).
        let after: Vec<AnyResource> = history
            .versions(&key)
            .into_iter()
            .filter(|v| resource_version(v) > before[name])
            .collect();
        let expected = usize::from(rejudged.contains(&name));
        assert_eq!(after.len(), expected, "{name}: {after:?}");
        assert_eq!(resource_version(&r) > before[name], expected == 1, "{name}");
        let verdicts: Vec<Option<String>> = history
            .versions(&key)
            .iter()
            .map(|v| condition(v, ISTIO, parent_of[name], "Accepted"))
            .skip_while(Option::is_none)
            .collect();
        assert!(
            verdicts.iter().all(Option::is_some),
            "{name}: entry lost: {verdicts:?}"
        );
        let mut distinct = verdicts.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), 1 + expected, "{name}: {verdicts:?}");
    }

    // After the upgrade the v1.7 field is accepted, by the server and by the runtime.
    let created = create_value(&client, v1_7_only).await;
    assert_eq!(
        created.data["spec"]["rules"][0]["sessionPersistence"]["cookie"]["name"], "session",
        "the server kept the v1.7 field: {:?}",
        created.data
    );
    assert_eq!(created.data["spec"]["rules"][0]["retry"]["attempts"], 0);
    eventually(60, "the v1.7 route accepted", || async {
        (accepted(&client, &ns, "v1-7-only", "front3")
            .await
            .as_deref()
            == Some("True"))
        .then_some(())
    })
    .await;

    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    let info = |b: Bundle| {
        format!(
            "gamma_gateway_api_bundle_info{{release=\"{}\",channel=\"{}\"}} 1",
            b.release.as_str(),
            b.channel.as_str()
        )
    };
    assert!(text.contains(&info(new)), "{text}");
    assert!(!text.contains(&info(old)), "{text}");
    let state = running.state.borrow().clone();
    running.stop().await;
    eprintln!(
        "upgrade test: ready on {old} after {ready_at:?}, done after {:?}; {} reconciles, {} relists, {} status writes",
        started.elapsed(),
        state.reconciles,
        state.relists,
        state.writes
    );
}

/// The CRDs of a release tree's channel folder, as the API server would hand them out.
fn tree_crds(dir: &Path) -> Vec<CustomResourceDefinition> {
    crd_documents(dir)
        .into_iter()
        .map(|doc| serde_json::from_value(doc).unwrap())
        .collect()
}

/// Each release's CRDs, observed as the runtime observes a cluster's, name that release and
/// channel (gamma-kube's `bundle`).
fn the_crds_of_each_release_and_channel_name_that_bundle() {
    let trees = gamma_testenv::upstream::all_trees().expect("the test's precondition");
    for (version, dir) in trees {
        for channel in [Channel::Standard, Channel::Experimental] {
            let expected = Bundle::new(Release::parse(version).unwrap(), channel);
            let mut crds = gamma_kube::bundle::Crds::default();
            for crd in tree_crds(&dir.join("config/crd").join(channel.as_str())) {
                let seen = crds.observe(&crd).map(|s| (s.bundle, s.problem.clone()));
                assert_eq!(
                    seen,
                    Some((expected, None)),
                    "{version} {channel:?} {:?}",
                    crd.metadata.name
                );
            }
            let choice = crds.choose().unwrap();
            assert_eq!(choice.bundle, expected, "{version} {channel:?}");
            assert_eq!(choice.from, gamma_kube::bundle::REFERENCE_CRD);
            assert!(choice.disagreeing.is_empty(), "{choice:?}");
        }
    }
}

/// An upgrade applied to every CRD but HTTPRoute's keeps the old bundle (HTTPRoute's decides)
/// and lists the others as disagreeing; HTTPRoute's upgraded, the new bundle is chosen.
fn an_upgrade_half_applied_follows_the_httproute_crd_and_lists_the_rest() {
    let trees = gamma_testenv::upstream::all_trees().expect("the test's precondition");
    let [(old_version, old_dir), .., (new_version, new_dir)] = &trees[..] else {
        panic!("fewer than two releases: {trees:?}");
    };
    let old = Bundle::new(Release::parse(old_version).unwrap(), Channel::Experimental);
    let new = Bundle::new(Release::parse(new_version).unwrap(), Channel::Experimental);
    let mut crds = gamma_kube::bundle::Crds::default();
    for crd in tree_crds(&old_dir.join("config/crd/experimental")) {
        crds.observe(&crd);
    }
    let new_crds = tree_crds(&new_dir.join("config/crd/experimental"));
    let (httproute, others): (Vec<_>, Vec<_>) = new_crds
        .iter()
        .partition(|c| c.metadata.name.as_deref() == Some(gamma_kube::bundle::REFERENCE_CRD));
    // every CRD but HTTPRoute's upgraded: HTTPRoute's still decides
    for crd in &others {
        crds.observe(crd);
    }
    let choice = crds.choose().unwrap();
    assert_eq!(choice.bundle, old);
    assert_eq!(choice.disagreeing.len(), others.len());
    // then HTTPRoute's: the new bundle, and only CRDs the new release no longer ships
    // (none between these releases) would disagree
    for crd in httproute {
        crds.observe(crd);
    }
    let choice = crds.choose().unwrap();
    assert_eq!(choice.bundle, new);
    let stale: Vec<&str> = crds
        .names()
        .filter(|n| {
            !new_crds
                .iter()
                .any(|c| c.metadata.name.as_deref() == Some(*n))
        })
        .collect();
    assert_eq!(
        choice
            .disagreeing
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        stale
    );
}
