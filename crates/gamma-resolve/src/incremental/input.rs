//! The lowered input of a scope: its routes taken from the parts that keep them lowered when
//! their stored objects are unchanged, lowered otherwise.

use std::sync::Arc;

use gamma_model::{AnyResource, Snapshot};

use super::probe::Probe;
use super::scope::NameRef;
use crate::build::Routes;
use crate::input::{RouteIr, TableInput};
use crate::lower::{Lowered, WireRules, kept_route};
use crate::regex::RegexPool;
use crate::table::{Part, Scope};

/// The stored object of each route of an input, in input order.
type Objects = Vec<Arc<AnyResource>>;

/// Up to this many distinct backend Services, a scope's input finds a repeated one by a
/// linear search.
const LINEAR: usize = 32;

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
    probe: &mut Probe<'s>,
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
        if let Some((ir, in_place)) = kept_route(&kept, &bundles, current) {
            routes.push(Arc::clone(ir));
            objects.push(Arc::clone(current));
            wire.push(
                in_place
                    .then(|| crate::lower::rules_in_place(current))
                    .flatten(),
            );
            continue;
        }
        // with the snapshot's kept verdict, as a full build: an unchanged route is not
        // validated again
        let (kind, ns, name) = k.id();
        if let Some((r, valid)) = snapshot.validated_route(probe.key(kind, ns, name), opts)
            && let Some((ir, rules)) = crate::lower::lower_for_reading(r, opts, valid, regexes)
        {
            routes.push(Arc::new(ir));
            objects.push(Arc::clone(r));
            wire.push(rules);
        }
    }
    // the scope's Services and its routes' backends: few distinct ones, named many times
    // (each route names its Services again), so a short list searched linearly, sorted once
    // (a set's insert compared strings at every level, for every backendRef)
    let mut services: Vec<NameRef<'_>> = Vec::with_capacity(scope.services.iter().len() + 8);
    services.extend(
        scope
            .services
            .iter()
            .map(|(ns, name)| (ns.as_str(), name.as_str())),
    );
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
                // past LINEAR names, every one is pushed and duplicates go in the sort below
                if services.len() > LINEAR || !services.contains(&(ns, name)) {
                    services.push((ns, name));
                }
            }
        }
    }
    // in snapshot order, as a full build reads them
    services.sort_unstable();
    services.dedup();
    for (ns, name) in services {
        if let Some(svc) = probe.service(snapshot, (ns, name)) {
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
