//! [`DecodeError`] and the [`Position`] every error names.

use std::fmt;

use crate::resource::ResourceKind;

/// Where in the input something is: the document, the item of a list, and the line.
///
/// - `document` is the 0-based index of the YAML document among the non-empty documents of the
///   stream (empty documents, such as a trailing `---`, are not counted), or of the element of a
///   top-level JSON array (0 for a single JSON object).
/// - `item` is the 0-based index in the `items` of a `kind: List` document, if the object came
///   from one.
/// - `line` is 1-based: the line of the offending node when it could be found, else of the
///   object (or document) it belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    /// The 0-based document index (or JSON array element).
    pub document: usize,
    /// The 0-based index in a `kind: List`'s `items`, if any.
    pub item: Option<usize>,
    /// The 1-based line, when known.
    pub line: Option<usize>,
}

impl Position {
    pub(crate) fn new(document: usize, item: Option<usize>, line: Option<usize>) -> Self {
        Position {
            document,
            item,
            line,
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "document {}", self.document)?;
        if let Some(item) = self.item {
            write!(f, ", item {item}")?;
        }
        if let Some(line) = self.line {
            write!(f, " (line {line})")?;
        }
        Ok(())
    }
}

/// Which configurable limit of [`DecodeOptions`](super::DecodeOptions) an input exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// [`DecodeOptions::max_input_bytes`](super::DecodeOptions::max_input_bytes).
    InputBytes,
    /// [`DecodeOptions::max_depth`](super::DecodeOptions::max_depth).
    Depth,
    /// [`DecodeOptions::max_documents`](super::DecodeOptions::max_documents).
    Documents,
    /// [`DecodeOptions::max_nodes`](super::DecodeOptions::max_nodes).
    Nodes,
    /// [`DecodeOptions::max_alias_expansion`](super::DecodeOptions::max_alias_expansion), and the
    /// YAML parser's other anchor/alias safeguards (alias count, alias-to-anchor ratio, retained
    /// anchor size, replay depth).
    AliasExpansion,
    /// Another safeguard of the YAML parser (event count, scalar or comment bytes, merge keys).
    Parser,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::InputBytes => "input size",
            Limit::Depth => "nesting depth",
            Limit::Documents => "document count",
            Limit::Nodes => "node count",
            Limit::AliasExpansion => "YAML alias expansion",
            Limit::Parser => "YAML parser budget",
        })
    }
}

/// Why input could not be decoded. Every variant but [`DecodeError::TooLarge`] names the
/// [`Position`] (document index, list item and line); field errors also name the JSON field path
/// (`spec.rules[0].backendRefs[0].port`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input is larger than [`DecodeOptions::max_input_bytes`](super::DecodeOptions::max_input_bytes);
    /// refused before parsing.
    #[error("input is {size} bytes, more than the limit of {limit} bytes")]
    TooLarge {
        /// The input's size in bytes.
        size: usize,
        /// The configured limit.
        limit: usize,
    },
    /// The input exceeds a configured limit (nesting depth, documents, nodes, alias expansion).
    #[error("{at}: {limit} limit exceeded: {message}")]
    LimitExceeded {
        /// Where the limit was hit.
        at: Position,
        /// Which limit.
        limit: Limit,
        /// Details (the count reached, the configured maximum).
        message: String,
    },
    /// The text is not well-formed YAML or JSON.
    #[error("{at}: syntax error: {message}")]
    Syntax {
        /// Where the parser stopped.
        at: Position,
        /// What the parser said.
        message: String,
    },
    /// A document is not a mapping (an object), so it cannot be a Kubernetes object.
    #[error("{at}: expected an object with apiVersion and kind, found {found}")]
    NotAnObject {
        /// The document.
        at: Position,
        /// What was found (`a string`, `an array`, ...).
        found: &'static str,
    },
    /// An object lacks `apiVersion` or `kind`, or has a non-string one.
    #[error("{at}: missing {field}")]
    MissingTypeInfo {
        /// The object.
        at: Position,
        /// `apiVersion` or `kind`.
        field: &'static str,
    },
    /// The `apiVersion`/`kind` pair is not one gamma-rs models (see
    /// [`DecodeOptions::skip_unsupported`](super::DecodeOptions::skip_unsupported) to skip such
    /// objects instead).
    #[error("{at}: unsupported kind {api_version}/{kind}")]
    UnsupportedKind {
        /// The object.
        at: Position,
        /// The apiVersion found.
        api_version: String,
        /// The kind found.
        kind: String,
    },
    /// A field has the wrong shape for its type (wrong type, missing required field, number out
    /// of range).
    #[error("{at}: {kind} {}: {message}", display_path(path))]
    Field {
        /// The object; the line is the offending node's when it could be found.
        at: Position,
        /// The kind being decoded.
        kind: ResourceKind,
        /// The JSON field path in the object (`spec.rules[0].backendRefs[0].port`); empty for
        /// the object itself.
        path: String,
        /// What is wrong.
        message: String,
    },
}

fn display_path(path: &str) -> &str {
    if path.is_empty() { "(object)" } else { path }
}

impl DecodeError {
    /// Where the error is, for every variant but [`DecodeError::TooLarge`].
    pub fn position(&self) -> Option<&Position> {
        match self {
            DecodeError::TooLarge { .. } => None,
            DecodeError::LimitExceeded { at, .. }
            | DecodeError::Syntax { at, .. }
            | DecodeError::NotAnObject { at, .. }
            | DecodeError::MissingTypeInfo { at, .. }
            | DecodeError::UnsupportedKind { at, .. }
            | DecodeError::Field { at, .. } => Some(at),
        }
    }

    /// The 1-based line of the error, when known.
    pub fn line(&self) -> Option<usize> {
        self.position().and_then(|p| p.line)
    }

    /// The 0-based document index of the error, when it has one.
    pub fn document(&self) -> Option<usize> {
        self.position().map(|p| p.document)
    }

    /// The field path, for [`DecodeError::Field`].
    pub fn field_path(&self) -> Option<&str> {
        match self {
            DecodeError::Field { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The limit exceeded, for [`DecodeError::TooLarge`] and [`DecodeError::LimitExceeded`].
    pub fn limit(&self) -> Option<Limit> {
        match self {
            DecodeError::TooLarge { .. } => Some(Limit::InputBytes),
            DecodeError::LimitExceeded { limit, .. } => Some(*limit),
            _ => None,
        }
    }
}

/// The message of every [`Limit::Depth`] error, whichever guard caught it (the YAML budget, the
/// YAML scanner's flow and block guards, or the JSON pre-scan).
pub(crate) fn depth_message(max_depth: usize) -> String {
    format!("nesting deeper than the limit of {max_depth} levels (max_depth)")
}
