//! Validation of decoded objects against the upstream CRD rules, through gamma-model: as the API
//! server validates a create (unknown fields, missing required fields, then every typed rule).
//!
//! `parentRefs[].controllers` is a gamma-rs extension no upstream CRD declares: unless the CRD
//! extension is installed (`validate --crd-extension controllers`, or a cluster whose CRDs have
//! it), it is an unknown field where it is written, as the API server sees it (refused under
//! Strict, pruned under Warn and Ignore), and its message names the two fixes.

use gamma_mesh::model::validate::{
    ErrorKind, FieldPath, FieldValidation, Report, ValidateOptions, validate_checked,
};
use gamma_mesh::model::{AnyResource, ValidationError};

use crate::manifests::{Loaded, Manifests};
use crate::problem::{Problem, Severity};

/// The errors and warnings of one object (both empty when valid). `controllers_declared`: the
/// route CRDs declare `parentRefs[].controllers` (the gamma-rs CRD extension).
///
/// Under strict field validation the API server answers an object with unknown fields with
/// those alone (it refuses the strict decoding error before validating anything else, which
/// gamma-model's `validate_checked` mirrors); a person fixing the object then meets the next
/// problem on the next try. So every problem is listed at once: the unknown fields, then what
/// validation finds in the rest of the object (the unknown fields pruned).
pub fn validate(object: &Loaded, opts: &ValidateOptions, controllers_declared: bool) -> Report {
    let extension = if controllers_declared || !object.fields.checked {
        Vec::new()
    } else {
        controllers_fields(&object.resource)
    };
    let mut fields = object.fields.clone();
    fields.unknown.extend(extension);
    let mut report = validate_checked(&object.resource, &fields, opts);
    let unknown_only = opts.field_validation == FieldValidation::Strict
        && !report.errors.is_empty()
        && report
            .errors
            .iter()
            .all(|e| e.kind == ErrorKind::UnknownField);
    if unknown_only {
        let mut rest = opts.clone();
        rest.field_validation = FieldValidation::Ignore;
        let more = validate_checked(&object.resource, &fields, &rest);
        for e in more.errors {
            if !report.errors.contains(&e) {
                report.errors.push(e);
            }
        }
        report.warnings.extend(more.warnings);
    }
    report
}

/// The problems of `report` (of `object`) as `validate` lists them: the errors, then the
/// warnings, each at its field's line, with [`message`]'s wording.
pub fn problems(object: &Loaded, report: &Report) -> Vec<Problem> {
    let errors = report.errors.iter().map(|e| (Severity::Error, e));
    let warnings = report.warnings.iter().map(|e| (Severity::Warning, e));
    errors
        .chain(warnings)
        .map(|(severity, e)| object.problem(severity, e.path.as_str(), message(object, e)))
        .collect()
}

/// What the API server of the bundle the objects are judged by would refuse of them under
/// strict field validation (kubectl's default), or prune under Warn and Ignore: the errors
/// `validate` lists with its default `--field-validation strict`, line for line, in its order
/// (input file order, then line). Every command other than `validate` answers for the objects
/// as written and prints these as warnings first ([`crate::cmd`]), so that an answer a real
/// cluster would not give (it never stores the object, or stores it without the field) does
/// not pass silently; the answer itself is unchanged.
pub fn refused(manifests: &Manifests) -> Vec<Problem> {
    let opts = ValidateOptions::bundles(&manifests.kinds);
    let mut out: Vec<Problem> = manifests
        .objects
        .iter()
        .flat_map(|object| {
            let mut report = validate(object, &opts, manifests.controllers_declared);
            report.warnings.clear();
            problems(object, &report)
        })
        .collect();
    let order = &manifests.file_order;
    out.sort_by_key(|p| {
        (
            p.file
                .as_ref()
                .and_then(|f| order.iter().position(|x| x == f)),
            p.line,
        )
    });
    out
}

/// Where a route writes `controllers`: `spec.parentRefs[i].controllers` and
/// `status.parents[i].parentRef.controllers`.
pub fn controllers_fields(resource: &AnyResource) -> Vec<FieldPath> {
    let mut out = Vec::new();
    if let Some(route) = resource.as_route() {
        let refs = FieldPath::root().field("spec").field("parentRefs");
        for (i, r) in route.parent_refs.iter().enumerate() {
            if r.controllers.is_some() {
                out.push(refs.index(i).field("controllers"));
            }
        }
    }
    if let Some(status) = resource.route_status() {
        let parents = FieldPath::root().field("status").field("parents");
        for (i, p) in status.parents.iter().enumerate() {
            if p.parent_ref.controllers.is_some() {
                out.push(parents.index(i).field("parentRef").field("controllers"));
            }
        }
    }
    out
}

/// The message of a validation finding: for `controllers` reported as an unknown field, the
/// API server's reason and the two fixes (the route annotation, with the value to write, or the
/// CRD extension); for any other, the finding's own message.
pub fn message(object: &Loaded, error: &ValidationError) -> String {
    let is_extension = error.kind == ErrorKind::UnknownField
        && controllers_fields(&object.resource).contains(&error.path);
    if !is_extension {
        return error.kind.to_string();
    }
    let annotation = spec_parent_index(error.path.as_str())
        .and_then(|i| {
            object
                .resource
                .as_route()?
                .parent_refs
                .get(i)?
                .controllers
                .clone()
        })
        .map(|names| {
            format!(
                "the route annotation gamma.rs/controllers: \"{}\" (ladder level 1 on any \
                 cluster; it applies to every Service parent of the route)",
                names.join(",")
            )
        });
    let fixes = match annotation {
        Some(annotation) => format!(
            "write {annotation}, or install the CRD extension (gammactl crd-extension \
             controllers) and validate with --crd-extension controllers"
        ),
        None => "install the CRD extension (gammactl crd-extension controllers) and validate \
                 with --crd-extension controllers"
            .to_owned(),
    };
    format!(
        "{}: parentRefs[].controllers is a gamma-rs extension no upstream CRD declares, so the \
         API server refuses it under strict field validation (kubectl's default) and prunes it \
         otherwise; {fixes}",
        error.kind
    )
}

/// `i` of `spec.parentRefs[i].controllers`.
fn spec_parent_index(path: &str) -> Option<usize> {
    path.strip_prefix("spec.parentRefs[")?
        .strip_suffix("].controllers")?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controllers_is_found_in_spec_and_status_parent_refs() {
        let route = gamma_mesh::model::decode(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
             metadata: {name: r, namespace: n}\n\
             spec: {parentRefs: [{name: gw}, {group: '', kind: Service, name: s, controllers: [a.io/x]}]}\n\
             status: {parents: [{parentRef: {group: '', kind: Service, name: s, controllers: [a.io/x]},\
             controllerName: a.io/x, conditions: []}]}\n",
        )
        .unwrap()
        .remove(0);
        let paths: Vec<String> = controllers_fields(&route)
            .iter()
            .map(|p| p.as_str().to_owned())
            .collect();
        assert_eq!(
            paths,
            [
                "spec.parentRefs[1].controllers",
                "status.parents[0].parentRef.controllers"
            ]
        );
        assert_eq!(spec_parent_index(&paths[0]), Some(1));
        assert_eq!(spec_parent_index(&paths[1]), None);
    }
}
