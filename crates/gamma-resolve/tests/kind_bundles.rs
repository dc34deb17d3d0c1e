//! Each kind judged under what its own CRD declares ([`BuildOptions::with_bundles`]): a
//! cluster whose HTTPRoute CRD is of Gateway API v1.7 and whose other CRDs are of v1.6 (an
//! upgrade half applied) stores an HTTPRoute with `retry.attempts: 0` (v1.7's minimum is 0,
//! v1.6's 1) and a GRPCRoute with v1.6's session persistence (`sessionName`; v1.7 requires
//! `cookie` for the Cookie type). Each is accepted under its own CRD's rules; one bundle for
//! every kind would leave one of them out. The route kind's bundle also decides its hostname
//! precedence (`GatewayRouteHostnameIntersectionPrecedence`, v1.7).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::manifest::snapshot;
use gamma_model::validate::{Bundle, Channel, KindBundles, Release};
use gamma_model::{ResourceKind, RouteKind};
use gamma_resolve::*;

const V1_6: Bundle = Bundle::new(Release::V1_6, Channel::Experimental);
const V1_7: Bundle = Bundle::new(Release::V1_7, Channel::Experimental);

const MANIFESTS: &str = "
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {clusterIP: 10.96.0.10, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: rpc, namespace: shop}
spec: {clusterIP: 10.96.0.11, ports: [{port: 50051}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: no-retries, namespace: shop}
spec:
  parentRefs: [{group: '', kind: Service, name: web, port: 80}]
  rules: [{retry: {attempts: 0}, backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: sticky, namespace: shop}
spec:
  parentRefs: [{group: '', kind: Service, name: rpc, port: 50051}]
  rules: [{sessionPersistence: {type: Cookie, sessionName: s}, backendRefs: [{name: rpc, port: 50051}]}]
";

/// `Accepted` of the route's one parent.
fn accepted(table: &RouteTable, kind: RouteKind, name: &str) -> bool {
    let p = table
        .parent_conditions()
        .iter()
        .find(|p| p.kind == kind && p.name == name)
        .unwrap_or_else(|| panic!("{kind:?} {name} has a parent status"));
    p.conditions
        .iter()
        .find(|c| c.type_ == "Accepted")
        .unwrap()
        .status
}

fn verdicts(options: &BuildOptions) -> (bool, bool) {
    let table = RouteTable::build(&snapshot(MANIFESTS), options);
    (
        accepted(&table, RouteKind::Http, "no-retries"),
        accepted(&table, RouteKind::Grpc, "sticky"),
    )
}

#[test]
fn each_route_kind_is_validated_under_its_own_crds_bundle() {
    let kinds = KindBundles::new(V1_6).with_kind(ResourceKind::HttpRoute, V1_7);
    let options = BuildOptions::default().with_bundles(&kinds);
    assert_eq!(options.bundles(), kinds);
    assert_eq!(verdicts(&options), (true, true));
    // the same map built the other way round: the same verdicts
    let other = KindBundles::new(V1_7).with_kind(ResourceKind::GrpcRoute, V1_6);
    assert_eq!(
        verdicts(&BuildOptions::default().with_bundles(&other)),
        (true, true)
    );
    // one bundle for every kind leaves one route out
    assert_eq!(
        verdicts(&BuildOptions::default().with_bundle(V1_7)),
        (true, false)
    );
    assert_eq!(
        verdicts(&BuildOptions::default().with_bundle(V1_6)),
        (false, true)
    );
    // `with_bundle` after `with_bundles` is one bundle again
    let one = BuildOptions::default()
        .with_bundles(&kinds)
        .with_bundle(V1_6);
    assert!(one.bundles().is_uniform());
}

#[test]
fn an_update_keeps_judging_each_kind_under_its_own_bundle() {
    // the incremental path (the controller's) gives the full build's verdicts
    let kinds = KindBundles::new(V1_6).with_kind(ResourceKind::HttpRoute, V1_7);
    let options = BuildOptions::default()
        .with_bundles(&kinds)
        .with_keep_lowered_routes(true);
    let mut snap = snapshot(MANIFESTS);
    let table = RouteTable::build(&snap, &options);
    let route = gamma_model::decode(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\n\
         metadata: {name: sticky, namespace: shop, labels: {touched: 'yes'}}\n\
         spec:\n  parentRefs: [{group: '', kind: Service, name: rpc, port: 50051}]\n  \
         rules: [{sessionPersistence: {type: Cookie, sessionName: s}, backendRefs: [{name: rpc, port: 50051}]}]\n",
    )
    .unwrap()
    .remove(0);
    let key = gamma_model::ObjectKey::of(&route);
    let previous = snap.upsert(route);
    let updated = table.update(&snap, &options, &key, previous.as_deref());
    assert!(accepted(&updated, RouteKind::Grpc, "sticky"));
    assert!(accepted(&updated, RouteKind::Http, "no-retries"));
}
