//! ListenerSet and BackendTLSPolicy status writes, and `attachedListenerSets`, for an embedding
//! gateway controller: GEP-1713 (a ListenerSet's status is its parent Gateway's controller's)
//! and GEP-713 PolicyStatus (each controller writes only the ancestor entries carrying its
//! `controllerName`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{CLASSES, ME, OTHER, apply, gateway, now, reconciler, snapshot, web_and_route};
use gamma_arbiter::Identity;
use gamma_controller::{DesiredObjectStatus, ObjectMerge, ObjectStatus, Reconciliation};
use gamma_model::gateway::{ConditionStatus, ListenerSetStatus, PolicyStatus};
use gamma_model::meta::Time;
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot};

/// Beside the two classes, our Gateway `infra/gw`, theirs `infra/other` (both admitting
/// ListenerSets from every namespace) and [`web_and_route`] (Service `infra/web`, port 443,
/// and a route on ours): a ListenerSet on each Gateway, a route on theirs, and a
/// BackendTLSPolicy on `web` that already carries another controller's ancestor entry.
const CLUSTER: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: team, namespace: team, generation: 2}
spec:
  parentRef: {name: gw, namespace: infra}
  listeners: [{name: extra, port: 8080, protocol: HTTP, hostname: team.example.com}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: theirs, namespace: team, generation: 1}
spec:
  parentRef: {name: other, namespace: infra}
  listeners: [{name: extra, port: 8080, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: theirs, namespace: infra, generation: 1}
spec:
  parentRefs: [{name: other}]
  rules: [{backendRefs: [{name: web, port: 443}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: tls, namespace: infra, generation: 3}
spec:
  targetRefs: [{group: "", kind: Service, name: web}]
  validation: {wellKnownCACertificates: System, hostname: web.example.com}
status:
  ancestors:
  - ancestorRef: {group: gateway.networking.k8s.io, kind: Gateway, namespace: infra, name: other}
    controllerName: other.example/gateway
    conditions:
    - {type: Accepted, status: "True", reason: Accepted, message: "theirs", observedGeneration: 3, lastTransitionTime: "2026-01-01T00:00:00Z"}
"#;

/// The whole cluster of these tests.
fn cluster() -> Snapshot {
    snapshot(&[
        CLASSES,
        &gateway("gw", "ours", 1),
        &gateway("other", "theirs", 1),
        &web_and_route(443, Some("https")),
        CLUSTER,
    ])
}

fn listener_set<'r>(r: &'r Reconciliation, name: &str) -> Option<&'r ListenerSetStatus> {
    r.listener_set_status_updates
        .iter()
        .find(|(k, _)| k.name == name)
        .map(|(_, s)| s)
}

fn policy(r: &Reconciliation) -> &PolicyStatus {
    let [(key, status)] = &r.backend_tls_policy_status_updates[..] else {
        panic!("{:?}", r.backend_tls_policy_status_updates)
    };
    assert_eq!(key.name, "tls");
    status
}

// GEP-1713: a ListenerSet's status is written by its parent Gateway's controller (the
// GatewayClass controllerName decides); the ListenerSet of another controller's Gateway gets
// nothing from us; once written, nothing more is written, and the conditions keep their
// lastTransitionTime.
#[test]
fn listener_set_status_is_written_for_the_listener_sets_of_our_gateways_only() {
    let mut r = reconciler();
    let mut snapshot = cluster();
    let out = r.reconcile(&snapshot, now());
    assert!(listener_set(&out, "theirs").is_none(), "{out:?}");
    let s = listener_set(&out, "team").expect("our ListenerSet gets status");
    let accepted = &s.conditions[0];
    assert_eq!(
        (accepted.type_.as_str(), &accepted.status),
        ("Accepted", &ConditionStatus::True)
    );
    assert_eq!(accepted.observed_generation, Some(2));
    assert_eq!(accepted.last_transition_time, now());
    assert_eq!(s.listeners[0].name, "extra");
    assert!(matches!(
        out.object_desired
            .get(&ObjectKey::new(ResourceKind::ListenerSet, "team", "team")),
        Some(DesiredObjectStatus::ListenerSet(_))
    ));
    apply(&mut snapshot, &out);
    let later = Time::parse("2026-02-01T00:10:00Z").unwrap();
    let again = r.reconcile(&snapshot, later);
    assert!(
        again.listener_set_status_updates.is_empty(),
        "{:?}",
        again.listener_set_status_updates
    );
}

// GatewayStatus.attachedListenerSets: "the total number of ListenerSets that have been
// successfully attached to this Gateway": our Gateway's status carries the computed count.
#[test]
fn the_gateway_write_carries_the_computed_attached_listener_sets() {
    let mut r = reconciler();
    let snapshot = cluster();
    let out = r.reconcile(&snapshot, now());
    let [(key, status)] = &out.gateway_status_updates[..] else {
        panic!("{:?}", out.gateway_status_updates)
    };
    assert_eq!(key.name, "gw");
    assert_eq!(status.attached_listener_sets, Some(1));
}

// PolicyStatus.ancestors (GEP-713): "implementations MUST ONLY populate ancestor status for
// the Ancestor resources they are responsible for. Implementations MUST use the
// ControllerName field to uniquely identify the entries in this list that they are
// responsible for." Our entry is for our Gateway only; the other controller's entry stays
// exactly as stored and first; nothing is written when unchanged.
#[test]
fn backend_tls_policy_status_adds_our_ancestor_and_keeps_the_other_controllers() {
    let mut r = reconciler();
    let mut snapshot = cluster();
    let stored = match snapshot.get(&ObjectKey::new(
        ResourceKind::BackendTlsPolicy,
        "infra",
        "tls",
    )) {
        Some(AnyResource::BackendTlsPolicy(p)) => p.status.clone().unwrap(),
        other => panic!("{other:?}"),
    };
    let out = r.reconcile(&snapshot, now());
    let s = policy(&out);
    assert_eq!(s.ancestors.len(), 2, "{s:?}");
    assert_eq!(s.ancestors[0], stored.ancestors[0]);
    let ours = &s.ancestors[1];
    assert_eq!(ours.controller_name, ME);
    assert_eq!(ours.ancestor_ref.name, "gw");
    assert_eq!(ours.ancestor_ref.kind.as_deref(), Some("Gateway"));
    let accepted = ours
        .conditions
        .iter()
        .find(|c| c.type_ == "Accepted")
        .unwrap();
    assert_eq!(accepted.status, ConditionStatus::True);
    assert_eq!(accepted.observed_generation, Some(3));
    assert!(
        !s.ancestors
            .iter()
            .any(|a| a.controller_name == ME && a.ancestor_ref.name == "other"),
        "never an entry of ours for the other controller's Gateway"
    );
    apply(&mut snapshot, &out);
    let again = r.reconcile(&snapshot, now());
    assert!(
        again.backend_tls_policy_status_updates.is_empty(),
        "{:?}",
        again.backend_tls_policy_status_updates
    );
}

// A write that met a conflict is merged again into the copy read back: an entry another
// controller wrote meanwhile survives the retry (the merge the writer runs is the one the
// reconciliation ran).
#[test]
fn a_policy_remerge_keeps_an_entry_written_meanwhile() {
    let mut r = reconciler();
    let snapshot = cluster();
    let out = r.reconcile(&snapshot, now());
    let key = ObjectKey::new(ResourceKind::BackendTlsPolicy, "infra", "tls");
    let desired = out.object_desired.get(&key).unwrap();
    // meanwhile, a third controller added its entry
    let Some(AnyResource::BackendTlsPolicy(mut fresh)) = snapshot.get(&key).cloned() else {
        panic!()
    };
    let mut third = fresh.status.as_ref().unwrap().ancestors[0].clone();
    third.controller_name = "third.example/mesh".into();
    fresh.status.as_mut().unwrap().ancestors.push(third.clone());
    let ObjectMerge::Write {
        status: ObjectStatus::BackendTlsPolicy(s),
        ..
    } = desired.merge_into(&fresh.clone().into(), 3, &Identity::new(ME), now())
    else {
        panic!()
    };
    let controllers: Vec<&str> = s
        .ancestors
        .iter()
        .map(|a| a.controller_name.as_str())
        .collect();
    assert_eq!(controllers, [OTHER, "third.example/mesh", ME]);
}
