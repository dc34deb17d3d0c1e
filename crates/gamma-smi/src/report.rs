//! The conversion report: everything SMI expressed that the Gateway API output does not carry
//! over exactly, with the object and field it came from.

use std::fmt;

use gamma_model::ObjectKey;
use serde::Serialize;

/// How much of the SMI behaviour a finding affects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Severity {
    /// Access control only: the output allows requests the SMI objects denied (e.g. an
    /// HTTPRouteGroup match dropped from an L4 authorization policy). A security fact to review
    /// before applying.
    Widened,
    /// Part of the SMI object could not be expressed and is missing from the output.
    Dropped,
    /// Expressed, but not exactly (e.g. weights rounded to fit the Gateway API cap).
    Approximated,
    /// Expressed exactly, with a choice or a behaviour worth knowing about.
    Note,
    /// Access control only: the output denies requests the SMI objects allowed.
    Narrowed,
    /// Access control only: the output allows exactly what the SMI object allowed.
    Equal,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Dropped => "dropped",
            Severity::Approximated => "approximated",
            Severity::Note => "note",
            Severity::Widened => "widened",
            Severity::Narrowed => "narrowed",
            Severity::Equal => "equal",
        })
    }
}

/// One entry of the report.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// How much behaviour is affected.
    pub severity: Severity,
    /// The SMI object concerned.
    pub object: ObjectKey,
    /// The JSON field path within it (`spec.backends[1].service`); empty for the whole object.
    pub field: String,
    /// What happened and why.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.severity, self.object)?;
        if !self.field.is_empty() {
            write!(f, " {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Every finding of one conversion, in the (deterministic) order the objects were converted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    findings: Vec<Finding>,
}

impl Report {
    /// The findings.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Whether nothing was dropped, approximated, widened or narrowed (notes and equal
    /// findings do not count).
    pub fn is_lossless(&self) -> bool {
        self.findings
            .iter()
            .all(|f| matches!(f.severity, Severity::Note | Severity::Equal))
    }

    /// The findings about one object.
    pub fn about<'a>(&'a self, object: &'a ObjectKey) -> impl Iterator<Item = &'a Finding> + 'a {
        self.findings.iter().filter(move |f| &f.object == object)
    }

    /// Orders the findings by `rank` (lowest first), keeping the order within a rank.
    pub(crate) fn sort_by_severity_rank(&mut self, rank: impl Fn(Severity) -> u8) {
        self.findings.sort_by_key(|f| rank(f.severity));
    }

    pub(crate) fn push(
        &mut self,
        severity: Severity,
        object: &ObjectKey,
        field: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.findings.push(Finding {
            severity,
            object: object.clone(),
            field: field.into(),
            message: message.into(),
        });
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for finding in &self.findings {
            writeln!(f, "{finding}")?;
        }
        Ok(())
    }
}
