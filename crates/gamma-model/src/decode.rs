//! Decoding manifests: multi-document YAML, or JSON (one object, an array, or a `kind: List`),
//! into typed [`Resource`]s.

use crate::resource::{Resource, ResourceKind};

/// Why a document could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The text is not well-formed YAML or JSON.
    #[error("document {document}{}: syntax error: {message}", line_suffix(*.line))]
    Syntax {
        /// The 0-based index of the document (YAML) or item (JSON array or List).
        document: usize,
        /// The 1-based line, when known.
        line: Option<usize>,
        /// What the parser said.
        message: String,
    },
    /// A document lacks `apiVersion` or `kind`.
    #[error("document {document}{}: missing {field}", line_suffix(*.line))]
    MissingTypeInfo {
        /// The 0-based document index.
        document: usize,
        /// The 1-based line, when known.
        line: Option<usize>,
        /// `apiVersion` or `kind`.
        field: &'static str,
    },
    /// The `apiVersion`/`kind` pair is not one gamma-rs models.
    #[error("document {document}{}: unsupported kind {api_version}/{kind}", line_suffix(*.line))]
    UnsupportedKind {
        /// The 0-based document index.
        document: usize,
        /// The 1-based line, when known.
        line: Option<usize>,
        /// The apiVersion found.
        api_version: String,
        /// The kind found.
        kind: String,
    },
    /// A field has the wrong shape for its type.
    #[error("document {document}{}: {kind} {path}: {message}", line_suffix(*.line))]
    Field {
        /// The 0-based document index.
        document: usize,
        /// The 1-based line, when known.
        line: Option<usize>,
        /// The kind being decoded.
        kind: ResourceKind,
        /// The field path, when known.
        path: String,
        /// What is wrong.
        message: String,
    },
}

fn line_suffix(line: Option<usize>) -> String {
    line.map(|l| format!(" (line {l})")).unwrap_or_default()
}

/// Decodes every document in `input`, YAML or JSON, detected by the first non-blank character
/// (`{` or `[` means JSON). Empty YAML documents are skipped. Stops at the first error.
///
/// ```
/// let docs = gamma_model::decode(r#"
/// apiVersion: gateway.networking.k8s.io/v1
/// kind: HTTPRoute
/// metadata: {name: web, namespace: shop}
/// spec:
///   parentRefs: [{group: "", kind: Service, name: web}]
/// "#).unwrap();
/// assert_eq!(docs.len(), 1);
/// assert_eq!(docs[0].kind(), gamma_model::ResourceKind::HttpRoute);
/// ```
pub fn decode(input: &str) -> Result<Vec<Resource>, DecodeError> {
    let values = parse_documents(input)?;
    let mut out = Vec::with_capacity(values.len());
    for (document, value) in values.into_iter().enumerate() {
        flatten_list(document, value, &mut out)?;
    }
    Ok(out)
}

fn parse_documents(input: &str) -> Result<Vec<serde_json::Value>, DecodeError> {
    let trimmed = input.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let v: serde_json::Value =
            serde_json::from_str(input).map_err(|e| DecodeError::Syntax {
                document: 0,
                line: Some(e.line()),
                message: e.to_string(),
            })?;
        return Ok(match v {
            serde_json::Value::Array(items) => items,
            other => vec![other],
        });
    }
    let docs: Vec<Option<serde_json::Value>> =
        serde_saphyr::from_multiple(input).map_err(|e| DecodeError::Syntax {
            document: 0,
            line: None,
            message: e.to_string(),
        })?;
    Ok(docs.into_iter().flatten().collect())
}

fn flatten_list(
    document: usize,
    value: serde_json::Value,
    out: &mut Vec<Resource>,
) -> Result<(), DecodeError> {
    let api_version = value.get("apiVersion").and_then(|v| v.as_str());
    let kind = value.get("kind").and_then(|v| v.as_str());
    let (Some(api_version), Some(kind)) = (api_version, kind) else {
        return Err(DecodeError::MissingTypeInfo {
            document,
            line: None,
            field: if api_version.is_none() {
                "apiVersion"
            } else {
                "kind"
            },
        });
    };
    if (kind == "List" || kind.ends_with("List") && api_version == "v1")
        && let Some(serde_json::Value::Array(items)) = value.get("items")
    {
        for item in items.clone() {
            flatten_list(document, item, out)?;
        }
        return Ok(());
    }
    // Kind names repeat across API groups (Gateway API and SMI TCPRoute): match both.
    let rk =
        ResourceKind::from_type(api_version, kind).ok_or_else(|| DecodeError::UnsupportedKind {
            document,
            line: None,
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
        })?;
    let resource = Resource::from_value(rk, value).map_err(|e| DecodeError::Field {
        document,
        line: None,
        kind: rk,
        path: String::new(),
        message: e.to_string(),
    })?;
    out.push(resource);
    Ok(())
}
