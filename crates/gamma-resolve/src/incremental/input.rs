//! The lowered input of a scope: its routes taken from the parts that keep them lowered when
//! their stored objects are unchanged, lowered otherwise.

use std::collections::BTreeSet;
use std::sync::Arc;

use gamma_model::{AnyResource, ObjectKey, Snapshot};

use super::scope::NameRef;
use crate::build::Routes;
use crate::input::{RouteIr, TableInput};
use crate::lower::{Lowered, WireRules, kept_route};
use crate::regex::RegexPool;
use crate::table::{Part, Scope};

/// The key and stored object of each route of an input, in input order.
type Objects = Vec<(ObjectKey, Arc<AnyResource>)>;

/// The input of a scope: its Services, Gateways and ListenerSets, the Services its routes
/// name as backends (for backend validity), every ReferenceGrant (`TableInput::routes`
/// empty); its routes (shared from `parts` when one kept a route lowered from the object the
/// snapshot holds, else lowered), with the stored object of each route and the rules the
/// build reads in place (in the same order).
pub(super) fn scope_input<'s>(
    snapshot: &'s Snapshot,
    scope: &Scope,
    current: &[Option<&'s Arc<AnyResource>>],
    opts: &crate::lower::Lowering,
    regexes: &mut RegexPool,
    parts: &[Arc<Part>],
) -> (TableInput, Vec<Arc<RouteIr>>, Objects, WireRules<'s>) {
    let mut input = TableInput::default();
    let mut routes = Vec::with_capacity(current.len());
    let mut objects = Vec::with_capacity(current.len());
    let mut wire = Vec::with_capacity(current.len());
    let kept: Vec<&Lowered> = parts.iter().map(|p| &p.lowered).collect();
    let bundles = opts.as_bundles();
    for (k, current) in scope.routes.iter().zip(current) {
        let Some(current) = current else {
            continue;
        };
        if let Some((ir, in_place)) = kept_route(&kept, &bundles, k, current) {
            routes.push(Arc::clone(ir));
            objects.push((k.clone(), Arc::clone(current)));
            wire.push(
                in_place
                    .then(|| crate::lower::rules_in_place(current))
                    .flatten(),
            );
            continue;
        }
        // with the snapshot's kept verdict, as a full build: an unchanged route is not
        // validated again
        if let Some((r, valid)) = snapshot.validated_route(k, opts)
            && let Some((ir, rules)) = crate::lower::lower_for_reading(r, opts, valid, regexes)
        {
            routes.push(Arc::new(ir));
            objects.push((k.clone(), Arc::clone(r)));
            wire.push(rules);
        }
    }
    let mut services: BTreeSet<NameRef<'_>> = scope
        .services
        .iter()
        .map(|(ns, name)| (ns.as_str(), name.as_str()))
        .collect();
    for r in Routes::shared(&routes, &wire).iter() {
        for rule in r.rules.iter() {
            let filters =
                std::iter::once(rule.filters).chain(rule.backends.iter().map(|b| b.filters));
            let mirrors = filters.flat_map(|f| f.mirrors.iter().map(|m| &m.backend));
            for (ns, name) in rule
                .backends
                .iter()
                .map(|b| (b.namespace, b.name))
                .chain(mirrors.map(|b| (&*b.namespace, b.name.as_str())))
            {
                services.insert((ns, name));
            }
        }
    }
    // in snapshot order, as a full build reads them
    for (ns, name) in services {
        if let Some(svc) = snapshot.service(ns, name) {
            input
                .services
                .push(crate::lower::lower_service(snapshot, svc));
        }
    }
    for (ns, name) in &scope.gateways {
        if let Some(gw) = snapshot.gateway(ns, name) {
            input
                .gateways
                .push(crate::lower::lower_checked_gateway(snapshot, gw, opts));
        }
    }
    for (ns, name) in &scope.listener_sets {
        if let Some(ls) = snapshot.listener_set(ns, name) {
            input
                .listener_sets
                .push(crate::lower::lower_checked_listener_set(snapshot, ls, opts));
        }
    }
    for g in snapshot.reference_grants() {
        input.grants.push(crate::lower::lower_grant(g));
    }
    // which policy each backend uses, and whether its CA references resolve
    crate::lower::lower_backend_tls(snapshot, opts, &mut input);
    (input, routes, objects, wire)
}
