//! Route status validation (Gateway API RouteStatus): what a controller may write.
//!
//! The API server validates the status subresource with the same schema; checking it here lets
//! a controller (the arbiter) verify its desired entries before writing them: at most 32 parent
//! entries, 1–8 conditions each, `metav1.Condition` field rules.

use super::common;
use super::patterns as p;
use super::{Errors, FieldPath, Validate, ValidateOptions};
use crate::gateway::{
    Condition, ConditionStatus, ListenerSetStatus, ListenerStatus, PolicyStatus, RouteStatus,
};

/// The maximum number of `status.parents` entries on a route.
pub const MAX_STATUS_PARENTS: usize = 32;

impl Validate for RouteStatus {
    fn collect_errors(&self, path: &FieldPath, _opts: &ValidateOptions, errors: &mut Errors) {
        let ppath = path.field("parents");
        errors.items(&ppath, self.parents.len(), 0, MAX_STATUS_PARENTS);
        for (i, parent) in self.parents.iter().enumerate() {
            let ip = ppath.index(i);
            common::parent_ref(&parent.parent_ref, &ip.field("parentRef"), errors);
            errors.gateway_controller(&ip.field("controllerName"), &parent.controller_name);
            let cpath = ip.field("conditions");
            errors.items(&cpath, parent.conditions.len(), 1, 8);
            for (j, c) in parent.conditions.iter().enumerate() {
                condition(c, &cpath.index(j), errors);
            }
        }
    }
}

/// A `metav1.Condition`.
pub(crate) fn condition(c: &Condition, path: &FieldPath, errors: &mut Errors) {
    let tpath = path.field("type");
    if errors.length(&tpath, &c.type_, 1, 316) {
        errors.pattern(
            &tpath,
            &c.type_,
            p::is_condition_type,
            p::CONDITION_TYPE_PATTERN,
        );
    }
    if let ConditionStatus::Other(s) = &c.status {
        errors.unsupported(&path.field("status"), s, &["True", "False", "Unknown"]);
    }
    if let Some(g) = c.observed_generation {
        errors.range(&path.field("observedGeneration"), g, 0, i64::MAX);
    }
    let rpath = path.field("reason");
    if errors.length(&rpath, &c.reason, 1, 1024) {
        errors.pattern(
            &rpath,
            &c.reason,
            p::is_condition_reason,
            p::CONDITION_REASON_PATTERN,
        );
    }
    errors.length(&path.field("message"), &c.message, 0, 32768);
}

/// Upstream `ListenerSetStatus.conditions` and a listener entry's `conditions` MaxItems.
pub const MAX_STATUS_CONDITIONS: usize = 8;
/// Upstream `ListenerSetStatus.listeners` MaxItems.
pub const MAX_STATUS_LISTENERS: usize = 64;
/// Upstream `PolicyStatus.ancestors` MaxItems ("A maximum of 16 ancestors will be represented
/// in this list").
pub const MAX_STATUS_ANCESTORS: usize = 16;

/// Conditions keyed by `type` (`x-kubernetes-list-type: map`): at most `max`, each a valid
/// `metav1.Condition`, no type twice.
fn condition_map(list: &[Condition], path: &FieldPath, min: usize, errors: &mut Errors) {
    errors.items(path, list.len(), min, MAX_STATUS_CONDITIONS);
    for (j, c) in list.iter().enumerate() {
        condition(c, &path.index(j), errors);
    }
    errors.unique(path, list.iter().map(|c| c.type_.as_str()), Some("type"));
}

/// A ListenerSet's `status` (ListenerSetStatus, CRD v1.6.1): at most 8 conditions; at most 64
/// listener entries keyed by `name`, each with at most 8 supportedKinds and 8 conditions.
pub(crate) fn listener_set_status(s: &ListenerSetStatus, path: &FieldPath, errors: &mut Errors) {
    condition_map(&s.conditions, &path.field("conditions"), 0, errors);
    let lpath = path.field("listeners");
    errors.items(&lpath, s.listeners.len(), 0, MAX_STATUS_LISTENERS);
    for (i, l) in s.listeners.iter().enumerate() {
        listener_status(l, &lpath.index(i), errors);
    }
    errors.unique(
        &lpath,
        s.listeners.iter().map(|l| l.name.as_str()),
        Some("name"),
    );
}

/// One listener entry (ListenerEntryStatus, the shape of a Gateway's ListenerStatus).
fn listener_status(l: &ListenerStatus, path: &FieldPath, errors: &mut Errors) {
    errors.section_name(&path.field("name"), &l.name);
    let kpath = path.field("supportedKinds");
    errors.items(&kpath, l.supported_kinds.len(), 0, 8);
    for (k, kind) in l.supported_kinds.iter().enumerate() {
        let at = kpath.index(k);
        if let Some(g) = &kind.group {
            errors.group(&at.field("group"), g);
        }
        errors.kind(&at.field("kind"), &kind.kind);
    }
    condition_map(&l.conditions, &path.field("conditions"), 0, errors);
}

/// A policy's `status` (PolicyStatus, GEP-713): at most 16 ancestors, each with a valid
/// `ancestorRef`, a `controllerName` of the form `DOMAIN/PATH`, and 1 to 8 conditions.
pub(crate) fn policy_status(s: &PolicyStatus, path: &FieldPath, errors: &mut Errors) {
    let apath = path.field("ancestors");
    errors.items(&apath, s.ancestors.len(), 0, MAX_STATUS_ANCESTORS);
    for (i, a) in s.ancestors.iter().enumerate() {
        let ip = apath.index(i);
        common::parent_ref(&a.ancestor_ref, &ip.field("ancestorRef"), errors);
        errors.gateway_controller(&ip.field("controllerName"), &a.controller_name);
        condition_map(&a.conditions, &ip.field("conditions"), 1, errors);
    }
}
