//! What the build found wrong in its input.

use std::fmt;

use gamma_model::ObjectKey;
use serde::Serialize;

/// One problem with one object.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Finding {
    /// The object.
    pub object: ObjectKey,
    /// What is wrong, and what the engine does about it.
    pub message: String,
}

impl Finding {
    /// A finding about `object`.
    pub fn new(object: ObjectKey, message: impl Into<String>) -> Self {
        Finding {
            object,
            message: message.into(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.object, self.message)
    }
}

/// The findings of a build, in the order found (objects in key order).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    findings: Vec<Finding>,
}

impl Report {
    /// Adds a finding.
    pub fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    /// Every finding.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.findings.is_empty()
    }
}
