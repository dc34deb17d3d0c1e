//! What the embedding controller supplies goes in the same status write as what gamma-rs
//! computes, at the same generation (`StatusSupplier`); no condition of the controller's own is
//! left at an old generation; and what it is not responsible for stays as stored (the Gateway
//! API v1.7 "preserve foreign status" conformance rule). Also the v1.7 Gateway verdicts that
//! depend on what the controller is given: `InvalidParameters` and `AddressesAssigned`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use std::sync::Arc;

use common::{CLASSES, ME, apply, now, snapshot, web_and_route};
use gamma_arbiter::{ArbiterConfig, Identity};
use gamma_controller::{
    Reconciler, ReconcilerConfig, StatusSupplier, Supplied, supplied_condition,
};
use gamma_model::gateway::{
    Condition, ConditionStatus, Gateway, GatewayStatus, GatewayStatusAddress, ParentReference,
};
use gamma_model::meta::Time;
use gamma_model::validate::{Bundle, Channel, Release};
use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot};

/// An embedder whose data plane took everything: `Programmed=True` on the Gateway and each
/// listener, the addresses it bound, and a condition of its own on its route entries.
#[derive(Debug, Default)]
struct DataPlane {
    addresses: Vec<GatewayStatusAddress>,
}

impl StatusSupplier for DataPlane {
    fn gateway(&self, _gateway: &Gateway, computed: &GatewayStatus) -> Supplied {
        let programmed = || supplied_condition("Programmed", true, "Programmed", "programmed");
        computed
            .listeners
            .iter()
            .fold(
                Supplied::new()
                    .with_condition(programmed())
                    // a computed type: the computed one wins
                    .with_condition(supplied_condition("Accepted", false, "Mine", "")),
                |s, l| s.with_listener_condition(l.name.clone(), programmed()),
            )
            .with_addresses(self.addresses.clone())
    }

    fn route_parent(
        &self,
        _route: &ObjectKey,
        _parent_ref: &ParentReference,
        _computed: &[Condition],
    ) -> Vec<Condition> {
        vec![supplied_condition(
            "example.com/DataPlane",
            true,
            "Synced",
            "",
        )]
    }
}

fn reconciler_with(supplier: DataPlane, bundle: Bundle) -> Reconciler {
    let mut config = ReconcilerConfig::new(ArbiterConfig::default(), Identity::new(ME))
        .with_status_supplier(Arc::new(supplier));
    config.build = config.build.with_bundle(bundle);
    Reconciler::new(config).unwrap()
}

/// Gateway `infra/gw` of our class at `generation`, with `extra` spec fields, and as stored a
/// foreign condition on it and on its listener, plus `Programmed` written for generation 1.
fn gateway_at(generation: u32, extra: &str) -> String {
    format!(
        r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: infra, generation: {generation}}}
spec:
  gatewayClassName: ours
  listeners: [{{name: http, port: 80, protocol: HTTP}}]
{extra}
status:
  conditions:
  - {{type: special.io/SomeField, status: "True", reason: Seeded, message: theirs, observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z"}}
  - {{type: Programmed, status: "True", reason: Programmed, message: "", observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z"}}
  listeners:
  - name: http
    attachedRoutes: 0
    supportedKinds: []
    conditions:
    - {{type: special.io/SomeField, status: "True", reason: Seeded, message: theirs, observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z"}}
"#
    )
}

fn gateway_write(snapshot: &Snapshot, r: &mut Reconciler, at: Time) -> GatewayStatus {
    let out = r.reconcile(snapshot, at);
    let [(key, status)] = &out.gateway_status_updates[..] else {
        panic!("{:?}", out.gateway_status_updates)
    };
    assert_eq!(key.name, "gw");
    status.clone()
}

fn cond<'a>(cs: &'a [Condition], type_: &str) -> &'a Condition {
    cs.iter().find(|c| c.type_ == type_).unwrap()
}

fn standard() -> Bundle {
    Bundle::new(Release::V1_7, Channel::Standard)
}

// GatewayConditionType Programmed, supplied: written with Accepted in one write, both at the
// Gateway's generation; a supplied condition of a computed type loses; the foreign condition
// (GatewayPreserveForeignConditions) stays byte for byte on the Gateway and the listener.
#[test]
fn a_supplied_programmed_is_written_with_the_computed_status_at_the_gateway_generation() {
    let mut r = reconciler_with(DataPlane::default(), standard());
    let s = snapshot(&[CLASSES, &gateway_at(2, ""), &web_and_route(80, None)]);
    let stored = match s
        .get(&ObjectKey::new(ResourceKind::Gateway, "infra", "gw"))
        .unwrap()
    {
        AnyResource::Gateway(g) => g.status.clone().unwrap(),
        other => panic!("{other:?}"),
    };
    let status = gateway_write(&s, &mut r, now());
    let accepted = cond(&status.conditions, "Accepted");
    assert_eq!(
        (&accepted.status, accepted.reason.as_str()),
        (&ConditionStatus::True, "Accepted")
    );
    let programmed = cond(&status.conditions, "Programmed");
    assert_eq!(programmed.status, ConditionStatus::True);
    assert_eq!(programmed.observed_generation, Some(2));
    assert_eq!(accepted.observed_generation, Some(2));
    let listener = &status.listeners[0];
    assert_eq!(
        cond(&listener.conditions, "Programmed").observed_generation,
        Some(2)
    );
    assert_eq!(
        status.conditions[0], stored.conditions[0],
        "foreign, in place"
    );
    assert_eq!(listener.conditions[0], stored.listeners[0].conditions[0]);
    for c in status
        .conditions
        .iter()
        .chain(status.listeners.iter().flat_map(|l| &l.conditions))
        .filter(|c| c.type_ != "special.io/SomeField")
    {
        assert_eq!(c.observed_generation, Some(2), "{c:?}");
    }
}

// Without a supplier, Programmed written for an older generation is not left there: it is
// refreshed to Unknown/Pending ("It should be set to Unknown if the controller performs updates
// to the status before it has all the information it needs"), the foreign condition is kept.
#[test]
fn without_a_supplier_an_old_programmed_is_refreshed_to_unknown() {
    let mut r = common::reconciler();
    let s = snapshot(&[CLASSES, &gateway_at(2, ""), &web_and_route(80, None)]);
    let status = gateway_write(&s, &mut r, now());
    let programmed = cond(&status.conditions, "Programmed");
    assert_eq!(
        (&programmed.status, programmed.reason.as_str()),
        (&ConditionStatus::Unknown, "Pending")
    );
    assert_eq!(programmed.observed_generation, Some(2));
    assert_eq!(
        cond(&status.conditions, "special.io/SomeField").message,
        "theirs"
    );
}

// Route entries: the supplied condition is written in our entry at the route's generation;
// once written, nothing more is written.
#[test]
fn a_supplied_route_condition_is_written_in_our_entry_at_the_route_generation() {
    let mut r = reconciler_with(DataPlane::default(), standard());
    let mut s = snapshot(&[CLASSES, &gateway_at(1, ""), &web_and_route(80, None)]);
    let out = r.reconcile(&s, now());
    let [(route, status)] = &out.status_updates[..] else {
        panic!("{:?}", out.status_updates)
    };
    let ours = &status.parents[0];
    assert_eq!(ours.controller_name, ME);
    let extra = cond(&ours.conditions, "example.com/DataPlane");
    assert_eq!(extra.observed_generation, Some(1));
    // stored, the next reconciliation writes nothing for the route
    let Some(AnyResource::HttpRoute(mut stored)) = s.get(route).cloned() else {
        panic!()
    };
    stored.status = Some(status.clone());
    s.upsert(stored.into());
    apply(&mut s, &out);
    let again = r.reconcile(&s, now());
    assert!(
        again.status_updates.is_empty(),
        "{:?}",
        again.status_updates
    );
    assert!(again.gateway_status_updates.is_empty());
}

// GatewayInfrastructure.parametersRef (conformance GatewayInvalidParametersRef): a ConfigMap
// that does not exist makes the Gateway Accepted=False InvalidParameters, and it is left out:
// the route naming it is not accepted. The ConfigMap created, it is accepted.
#[test]
fn a_missing_parameters_config_map_makes_the_gateway_invalid_parameters() {
    let params = "  infrastructure: {parametersRef: {group: \"\", kind: ConfigMap, name: params}}";
    let mut r = common::reconciler();
    let s = snapshot(&[CLASSES, &gateway_at(1, params), &web_and_route(80, None)]);
    let out = r.reconcile(&s, now());
    let status = &out.gateway_status_updates[0].1;
    let accepted = cond(&status.conditions, "Accepted");
    assert_eq!(
        (&accepted.status, accepted.reason.as_str()),
        (&ConditionStatus::False, "InvalidParameters")
    );
    assert!(
        accepted.message.contains("ConfigMap infra/params"),
        "{}",
        accepted.message
    );
    let route = &out.status_updates[0].1;
    assert_eq!(
        cond(&route.parents[0].conditions, "Accepted").status,
        ConditionStatus::False
    );
    const PARAMS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: params, namespace: infra}\ndata: {replicas: \"2\"}\n";
    let s = snapshot(&[
        CLASSES,
        &gateway_at(1, params),
        &web_and_route(80, None),
        PARAMS,
    ]);
    let out = common::reconciler().reconcile(&s, now());
    let accepted = cond(&out.gateway_status_updates[0].1.conditions, "Accepted");
    assert_eq!(accepted.status, ConditionStatus::True);
}

// "refers to an unsupported kind": with the embedder's kinds declared, another kind is
// InvalidParameters; a declared kind gamma-rs has no input for is the embedder's to resolve.
#[test]
fn a_parameters_kind_the_embedder_does_not_support_is_invalid_parameters() {
    let params =
        "  infrastructure: {parametersRef: {group: example.com, kind: Proxy, name: params}}";
    let s = snapshot(&[CLASSES, &gateway_at(1, params), &web_and_route(80, None)]);
    let with_kinds = |kinds: &[(&str, &str)]| {
        let mut config = ReconcilerConfig::new(ArbiterConfig::default(), Identity::new(ME));
        config.build = config
            .build
            .with_gateway_parameter_kinds(kinds.iter().copied());
        let mut r = Reconciler::new(config).unwrap();
        let out = r.reconcile(&s, now());
        cond(&out.gateway_status_updates[0].1.conditions, "Accepted").clone()
    };
    let refused = with_kinds(&[("", "ConfigMap")]);
    assert_eq!(
        (&refused.status, refused.reason.as_str()),
        (&ConditionStatus::False, "InvalidParameters")
    );
    assert!(
        refused.message.contains("not a supported kind"),
        "{}",
        refused.message
    );
    let resolved = with_kinds(&[("example.com", "Proxy")]);
    assert_eq!(resolved.status, ConditionStatus::True);
}

// GEP-5093 on v1.7 experimental: AddressesAssigned is computed from spec.addresses and the
// supplied addresses, and the routability of supplied addresses is written; on the standard
// channel neither (the field does not exist there, the API server would prune it).
#[test]
fn addresses_assigned_and_routability_only_where_the_bundle_has_them() {
    let requested = "  addresses: [{type: IPAddress, routability: Cluster}]";
    let bound = vec![GatewayStatusAddress {
        type_: Some("IPAddress".into()),
        value: "10.96.0.9".into(),
        routability: Some("Cluster".into()),
    }];
    let experimental = Bundle::new(Release::V1_7, Channel::Experimental);
    let s = snapshot(&[CLASSES, &gateway_at(1, requested), &web_and_route(80, None)]);
    let mut r = reconciler_with(
        DataPlane {
            addresses: bound.clone(),
        },
        experimental,
    );
    let status = gateway_write(&s, &mut r, now());
    let assigned = cond(&status.conditions, "AddressesAssigned");
    assert_eq!(
        (&assigned.status, assigned.reason.as_str()),
        (&ConditionStatus::True, "AddressesAssigned")
    );
    assert_eq!(status.addresses, bound);
    // nothing bound yet: NotAssigned
    let mut r = reconciler_with(DataPlane::default(), experimental);
    let status = gateway_write(&s, &mut r, now());
    assert_eq!(
        cond(&status.conditions, "AddressesAssigned").reason,
        "NotAssigned"
    );
    // the standard channel: no AddressesAssigned, no routability
    let standard_gw = gateway_at(1, "");
    let s = snapshot(&[CLASSES, &standard_gw, &web_and_route(80, None)]);
    let mut r = reconciler_with(
        DataPlane {
            addresses: bound.clone(),
        },
        standard(),
    );
    let status = gateway_write(&s, &mut r, now());
    assert!(
        status
            .conditions
            .iter()
            .all(|c| c.type_ != "AddressesAssigned"),
        "{status:?}"
    );
    assert_eq!(status.addresses[0].value, "10.96.0.9");
    assert_eq!(status.addresses[0].routability, None);
}
