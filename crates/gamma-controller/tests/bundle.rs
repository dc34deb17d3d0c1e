//! The bundle a reconciler validates against (`Reconciler::set_bundle`): switching it in place
//! revalidates every route under the new release's rules, with a full reconciliation, and
//! writes only the status that changed.

use gamma_arbiter::{ArbiterConfig, Identity, MeshRegistration};
use gamma_controller::{Reconciler, ReconcilerConfig, Reconciliation};
use gamma_model::gateway::{ConditionStatus, RouteStatus};
use gamma_model::meta::Time;
use gamma_model::validate::{Bundle, Channel, Release};
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot, decode};

const ME: &str = "istio.io/gateway-controller";

/// A mesh namespace with a Service and two routes on it: `plain`, valid in every release, and
/// `no-retries`, whose `retry.attempts: 0` v1.6 refuses (minimum 1) and v1.7 accepts (0
/// disables retries, GEP-1731).
const CLUSTER: &str = r#"
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {gamma.rs/mesh: istio}}
---
apiVersion: v1
kind: Service
metadata: {name: checkout, namespace: shop}
spec: {clusterIP: 10.96.0.10, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: plain, namespace: shop, generation: 1}
spec:
  parentRefs: [{group: "", kind: Service, name: checkout, port: 80}]
  rules: [{backendRefs: [{name: checkout, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: no-retries, namespace: shop, generation: 1}
spec:
  parentRefs: [{group: "", kind: Service, name: checkout, port: 80}]
  rules: [{retry: {attempts: 0}, backendRefs: [{name: checkout, port: 80}]}]
"#;

fn reconciler(bundle: Bundle) -> Reconciler {
    let arbiter = ArbiterConfig::new([MeshRegistration::new("istio", ME)]);
    let mut config = ReconcilerConfig::new(arbiter, Identity::new(ME));
    config.build = config.build.with_bundle(bundle);
    Reconciler::new(config).unwrap()
}

fn t(s: i64) -> Time {
    Time::from_unix(1_767_607_200 + s, 0)
}

fn route(name: &str) -> ObjectKey {
    ObjectKey::new(ResourceKind::HttpRoute, "shop", name)
}

/// Writes the status updates into the snapshot, as the API server would; returns the routes
/// written.
fn apply(snap: &mut Snapshot, r: &Reconciliation) -> Vec<ObjectKey> {
    let mut written = Vec::new();
    for (key, status) in &r.status_updates {
        let mut obj = snap.get(key).unwrap().clone();
        *obj.route_status_mut().unwrap() = Some(status.clone());
        snap.upsert(obj);
        written.push(key.clone());
    }
    written
}

fn status<'a>(snap: &'a Snapshot, key: &ObjectKey) -> &'a RouteStatus {
    match snap.get(key).unwrap() {
        AnyResource::HttpRoute(r) => r.status.as_ref().unwrap(),
        other => panic!("not an HTTPRoute: {other:?}"),
    }
}

/// `Accepted` of `me`'s one entry on the route.
fn accepted(snap: &Snapshot, key: &ObjectKey) -> bool {
    let s = status(snap, key);
    assert_eq!(s.parents.len(), 1, "{key:?}: {s:?}");
    s.parents[0]
        .conditions
        .iter()
        .any(|c| c.type_ == "Accepted" && c.status == ConditionStatus::True)
}

#[test]
fn setting_the_same_bundle_changes_nothing_and_a_new_one_reports_the_change() {
    let v1_6 = Bundle::new(Release::V1_6, Channel::Experimental);
    let mut r = reconciler(v1_6);
    assert_eq!(r.bundle(), v1_6);
    assert!(!r.set_bundle(v1_6));
    let v1_7 = Bundle::new(Release::V1_7, Channel::Experimental);
    assert!(r.set_bundle(v1_7));
    assert_eq!(r.bundle(), v1_7);
    assert!(!r.set_bundle(v1_7));
}

#[test]
fn an_upgrade_in_place_revalidates_every_route_and_writes_only_the_status_that_changed() {
    let mut snap = Snapshot::from_resources(decode(CLUSTER).unwrap());
    let mut r = reconciler(Bundle::new(Release::V1_6, Channel::Experimental));
    let first = r.reconcile(&snap, t(0));
    let mut written = apply(&mut snap, &first);
    written.sort();
    assert_eq!(written, [route("no-retries"), route("plain")]);
    assert!(accepted(&snap, &route("plain")));
    assert!(
        !accepted(&snap, &route("no-retries")),
        "v1.6 refuses retry.attempts 0: {:?}",
        status(&snap, &route("no-retries"))
    );
    // at the fixed point nothing is written
    assert!(r.reconcile(&snap, t(1)).status_updates.is_empty());
    let plain_before = status(&snap, &route("plain")).clone();

    // The CRDs are upgraded: the next reconciliation, even an incremental one for an
    // unrelated object, is a full one under v1.7's rules.
    assert!(r.set_bundle(Bundle::new(Release::V1_7, Channel::Experimental)));
    let service = ObjectKey::new(ResourceKind::Service, "shop", "checkout");
    let after = r.reconcile_change(&snap, &service, t(2));
    let written = apply(&mut snap, &after);
    assert_eq!(
        written,
        [route("no-retries")],
        "only the verdict that changed"
    );
    assert!(accepted(&snap, &route("no-retries")));
    assert_eq!(status(&snap, &route("plain")), &plain_before);
    assert!(
        r.reconcile_change(&snap, &service, t(3))
            .status_updates
            .is_empty()
    );

    // and back: a downgrade in place refuses the route again
    assert!(r.set_bundle(Bundle::new(Release::V1_6, Channel::Experimental)));
    let back = r.reconcile_change(&snap, &route("plain"), t(4));
    assert_eq!(apply(&mut snap, &back), [route("no-retries")]);
    assert!(!accepted(&snap, &route("no-retries")));
}
