//! The report of the `convert` commands with `-o json`: the converted objects are on standard
//! output, so the report goes to standard error as one JSON document, `{"findings": [...],
//! "summary": {...}}`, the findings in the text report's order, each at its source object's
//! file and line. `convert smi` and `convert authorization-policy` share this form; each adds
//! its own severities, details and counts.

use std::collections::HashMap;

use gamma_mesh::model::ObjectKey;
use serde::Serialize;

use crate::cli::Format;
use crate::failure::Failure;
use crate::manifests::{Loaded, Manifests};
use crate::output::{render, warn};

/// The input objects by key, to locate findings.
pub struct Located<'a>(HashMap<ObjectKey, &'a Loaded>);

impl<'a> Located<'a> {
    /// Every object of `manifests`.
    pub fn new(manifests: &'a Manifests) -> Self {
        Located(manifests.objects.iter().map(|o| (o.key(), o)).collect())
    }

    /// The file and line of `field` (empty: the object itself) of `object`, if it was read.
    pub fn at(&self, object: &ObjectKey, field: &str) -> Option<(String, usize)> {
        self.0.get(object).map(|o| {
            let line = if field.is_empty() {
                o.origin.line
            } else {
                o.line_of(field)
            };
            (o.origin.file.clone(), line)
        })
    }

    /// [`Located::at`] as the text report prefixes a finding: `file:line: `.
    pub fn prefix(&self, object: Option<&ObjectKey>, field: &str) -> String {
        object
            .and_then(|k| self.at(k, field))
            .map(|(file, line)| format!("{file}:{line}: "))
            .unwrap_or_default()
    }
}

/// The report as one JSON document.
#[derive(Serialize)]
pub struct JsonReport<'a, S, D, C> {
    /// Every finding, in the text report's order.
    pub findings: Vec<JsonFinding<'a, S, D>>,
    /// The counts the text's last lines give.
    pub summary: C,
}

/// One finding.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonFinding<'a, S, D> {
    /// The text report's label, as one word (`widened`, `narrowed`, ...).
    pub severity: S,
    /// The source object: kind, namespace, name; absent for a finding about the whole
    /// conversion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<&'a ObjectKey>,
    /// The field path within it; empty for the whole object.
    pub field: &'a str,
    /// What changed, and why.
    pub message: &'a str,
    /// The XAuthorizationPolicy converted from it (`namespace/name`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// Where the source object (or the field) is in the input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Its line there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What this command says besides.
    #[serde(flatten)]
    pub detail: D,
}

impl<'a, S, D> JsonFinding<'a, S, D> {
    /// A finding about `field` of `object`, located in `located`.
    pub fn new(
        located: &Located<'_>,
        severity: S,
        object: Option<&'a ObjectKey>,
        field: &'a str,
        message: &'a str,
        detail: D,
    ) -> Self {
        let origin = object.and_then(|k| located.at(k, field));
        JsonFinding {
            severity,
            object,
            field,
            message,
            policy: None,
            file: origin.as_ref().map(|(file, _)| file.clone()),
            line: origin.map(|(_, line)| line),
            detail,
        }
    }
}

/// No detail besides the common fields.
#[derive(Serialize)]
pub struct NoDetail {}

/// Writes `report` on standard error.
pub fn write<S: Serialize, D: Serialize, C: Serialize>(
    report: &JsonReport<'_, S, D, C>,
) -> Result<(), Failure> {
    let text = render(report, Format::Json)?;
    warn(text.trim_end());
    Ok(())
}
