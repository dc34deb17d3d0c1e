//! Route status validation (Gateway API RouteStatus): what a controller may write.
//!
//! The API server validates the status subresource with the same schema; checking it here lets
//! a controller (the arbiter) verify its desired entries before writing them: at most 32 parent
//! entries, 1–8 conditions each, `metav1.Condition` field rules.

use super::common;
use super::patterns as p;
use super::{Errors, FieldPath, Validate, ValidateOptions};
use crate::gateway::{Condition, ConditionStatus, RouteStatus};

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
