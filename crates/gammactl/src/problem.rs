//! A problem found in the input, with where it is: `file:line: kind namespace/name: field.path:
//! message`.

use std::fmt::Write as _;

use gamma_mesh::model::ObjectKey;
use serde::Serialize;

use crate::style::Style;

/// How bad a problem is. Errors make the command exit 1; warnings are shown and counted only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// The input is wrong.
    Error,
    /// Worth knowing, not wrong (an object of a kind gamma-rs does not model).
    Warning,
}

/// One problem, located as precisely as known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// Error or warning.
    pub severity: Severity,
    /// The file (or `<stdin>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The 0-based index of the document in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<usize>,
    /// The 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The object, when the document decoded far enough to know it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectKey>,
    /// The field path inside the object (`spec.rules[0].matches[0].path.value`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    /// An error about a whole file (unreadable, missing, too large).
    pub fn file_error(file: &str, message: impl Into<String>) -> Self {
        Problem {
            severity: Severity::Error,
            file: Some(file.to_owned()),
            document: None,
            line: None,
            object: None,
            path: None,
            message: message.into(),
        }
    }

    /// Whether this problem makes the command fail.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The one-line human form: `file:line: kind namespace/name: field.path: message`, each
    /// part present only when known.
    pub fn render(&self, style: &Style) -> String {
        let mut out = String::new();
        if let Some(file) = &self.file {
            let mut loc = file.clone();
            if let Some(line) = self.line {
                let _ = write!(loc, ":{line}");
            }
            let _ = write!(out, "{}: ", style.bold(&loc));
        }
        if self.severity == Severity::Warning {
            let _ = write!(out, "{} ", style.yellow("warning:"));
        }
        if let Some(object) = &self.object {
            let _ = write!(out, "{object}: ");
        }
        if let Some(path) = &self.path {
            let _ = write!(out, "{}: ", style.red(path));
        }
        out.push_str(&self.message);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_mesh::model::ResourceKind;

    #[test]
    fn render_puts_location_object_path_message_in_that_order() {
        let p = Problem {
            severity: Severity::Error,
            file: Some("a.yaml".into()),
            document: Some(1),
            line: Some(12),
            object: Some(ObjectKey::new(ResourceKind::HttpRoute, "shop", "cart")),
            path: Some("spec.rules[0].backendRefs[0].port".into()),
            message: "required value".into(),
        };
        assert_eq!(
            p.render(&Style::plain()),
            "a.yaml:12: HTTPRoute shop/cart: spec.rules[0].backendRefs[0].port: required value"
        );
    }

    #[test]
    fn render_omits_unknown_parts() {
        let p = Problem::file_error("gone.yaml", "cannot read: no such file or folder");
        assert_eq!(
            p.render(&Style::plain()),
            "gone.yaml: cannot read: no such file or folder"
        );
    }
}
