//! Decoding manifests: multi-document YAML, or JSON (one object, an array, or a `kind: List`),
//! into typed [`AnyResource`]s, within configurable limits that make hostile input cheap to refuse.
//!
//! - [`decode`] / [`decode_with`]: the objects only.
//! - [`decode_value`] / [`AnyResource::from_value`]: one object from an already-parsed JSON
//!   value (what a Kubernetes client returns), without a text round trip.
//! - [`decode_documents`]: each object with its [`Position`] (document index, List item, line),
//!   so tools can print `file:line` for later validation errors, and the objects skipped as
//!   unsupported when [`DecodeOptions::skip_unsupported`] is set.
//!
//! Input whose first non-blank character is `{` or `[` is JSON; anything else is YAML.
//! Kubernetes lists are flattened: `kind: List` (what `kubectl get -o yaml` prints) and typed
//! lists such as `HTTPRouteList` (what the API server returns; their items may omit
//! `apiVersion` and `kind`, which are then taken from the list).
//!
//! Every error names the document, the List item if any, the 1-based line, and for field errors
//! the JSON path of the field (`spec.rules[0].backendRefs[0].port`) with the line of that node.
//!
//! The entry points, [`DecodeError`] and [`DecodeOptions`] are at the crate root; this module
//! holds what [`decode_documents`] returns ([`Decoded`], [`Document`], [`Skipped`],
//! [`Position`]), the [`Limit`]s and [`field_line`].
//!
//! [`decode`]: crate::decode()
//! [`decode_with`]: crate::decode_with
//! [`decode_value`]: crate::decode_value
//! [`decode_documents`]: crate::decode_documents

pub(crate) mod entry;
pub(crate) mod error;
mod json;
mod normalize;
pub(crate) mod options;
pub(crate) mod value;
mod yaml;
mod yaml_lines;

pub use error::{Limit, Position};

// The crate root's surface (`gamma_model::{decode, decode_with, decode_documents,
// decode_value, DecodeError, DecodeOptions}`): defined here, exported only there, so each has
// one public path.
pub(crate) use error::DecodeError;
pub(crate) use options::DecodeOptions;

use serde_json::Value;

use crate::resource::{AnyResource, ResourceKind};
use crate::validate::fields::KindSchema;
use crate::validate::{FieldCheck, Report, ValidateOptions, validate_checked};

/// A decoded object and where it was in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Document {
    /// Where the object starts: document index, List item, and the line of its first field.
    pub at: Position,
    /// The object.
    pub resource: AnyResource,
    /// Its unknown, missing and experimental-only fields, when decoded with
    /// [`DecodeOptions::check_fields`] (otherwise empty, with `checked` false).
    pub fields: FieldCheck,
}

impl Document {
    /// Validates the object as the API server validates a create of it: unknown fields (see
    /// [`crate::validate::check_fields`]; only known when decoded with
    /// [`DecodeOptions::check_fields`]), missing required fields, then every typed rule.
    ///
    /// ```
    /// use gamma_model::{DecodeOptions, decode_documents};
    /// use gamma_model::validate::{FieldValidation, ValidateOptions};
    /// let input = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
    ///              metadata: {name: r}\nspec: {parentRef: [{name: gw}]}\n";
    /// let doc = &decode_documents(input, &DecodeOptions::checking_fields())?.documents[0];
    /// let report = doc.validate_with(&ValidateOptions::default());
    /// assert_eq!(report.errors[0].to_string(), "spec.parentRef: unknown field (not declared in the schema)");
    /// let mut warn = ValidateOptions::default();
    /// warn.field_validation = FieldValidation::Warn;
    /// assert!(doc.validate_with(&warn).is_ok());
    /// # Ok::<(), gamma_model::DecodeError>(())
    /// ```
    pub fn validate_with(&self, opts: &ValidateOptions) -> Report {
        validate_checked(&self.resource, &self.fields, opts)
    }
}

/// An object skipped because gamma-rs does not model its kind (with
/// [`DecodeOptions::skip_unsupported`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// Where the object starts.
    pub at: Position,
    /// Its `apiVersion`.
    pub api_version: String,
    /// Its `kind`.
    pub kind: String,
}

/// The result of [`decode_documents`](crate::decode_documents): the decoded objects in input order, and the skipped ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Decoded {
    /// The decoded objects, in input order.
    pub documents: Vec<Document>,
    /// Objects of unsupported kinds, in input order (only with
    /// [`DecodeOptions::skip_unsupported`]; otherwise they are errors).
    pub skipped: Vec<Skipped>,
}

impl Decoded {
    /// The objects alone, in input order.
    pub fn into_resources(self) -> Vec<AnyResource> {
        self.documents.into_iter().map(|d| d.resource).collect()
    }
}

/// One segment of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathSegment {
    /// An array index.
    Index(usize),
    /// An object key.
    Key(String),
}

impl PathSegment {
    /// A path from its segments as text, numbers as indexes (`["spec", "rules", "0"]`), for
    /// the line-finder tests.
    #[cfg(test)]
    pub(crate) fn parse_all(segments: &[&str]) -> Vec<PathSegment> {
        segments
            .iter()
            .map(|s| match s.parse::<usize>() {
                Ok(i) => PathSegment::Index(i),
                Err(_) => PathSegment::Key((*s).to_owned()),
            })
            .collect()
    }
}

/// A parsed document (a YAML document or a JSON array element), before typing.
pub(crate) struct RawDocument {
    /// The document index.
    pub(crate) index: usize,
    /// The line of its root node.
    pub(crate) line: Option<usize>,
    /// Its value.
    pub(crate) value: Value,
    /// The lines of the entries of its root `items` array, if it has one.
    pub(crate) item_lines: Vec<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Yaml,
}

struct Context<'a> {
    input: &'a str,
    options: &'a DecodeOptions,
    format: Format,
}

impl Context<'_> {
    fn document(&self, doc: RawDocument, out: &mut Decoded) -> Result<(), DecodeError> {
        let at = Position::new(doc.index, None, doc.line);
        let Value::Object(mut object) = doc.value else {
            return Err(DecodeError::NotAnObject {
                at,
                found: value_kind(&doc.value),
            });
        };
        let (api_version, kind) = type_info(&object, at)?;
        let item_kind = kind
            .strip_suffix("List")
            .filter(|k| kind == "List" || ResourceKind::from_kind_name(k).is_some());
        if let (Some(item_kind), Some(Value::Array(_))) = (item_kind, object.get("items")) {
            let item_kind = (!item_kind.is_empty()).then(|| item_kind.to_owned());
            let api_version = api_version.to_owned();
            let Some(Value::Array(items)) = object.remove("items") else {
                return Ok(());
            };
            for (i, mut item) in items.into_iter().enumerate() {
                let at = Position::new(
                    doc.index,
                    Some(i),
                    doc.item_lines
                        .get(i)
                        .copied()
                        .filter(|&l| l > 0)
                        .or(doc.line),
                );
                // Typed lists (`HTTPRouteList`) from the API server omit the items' type.
                if let (Some(item_kind), Value::Object(o)) = (&item_kind, &mut item) {
                    o.entry("apiVersion")
                        .or_insert_with(|| Value::String(api_version.clone()));
                    o.entry("kind")
                        .or_insert_with(|| Value::String(item_kind.clone()));
                }
                self.object(at, item, out)?;
            }
            return Ok(());
        }
        self.object(at, Value::Object(object), out)
    }

    fn object(&self, at: Position, mut value: Value, out: &mut Decoded) -> Result<(), DecodeError> {
        let Value::Object(object) = &value else {
            return Err(DecodeError::NotAnObject {
                at,
                found: value_kind(&value),
            });
        };
        let (api_version, kind) = type_info(object, at)?;
        // Kind names repeat across API groups (Gateway API and SMI TCPRoute): match both.
        let Some(rk) = ResourceKind::from_type(api_version, kind) else {
            let (api_version, kind) = (api_version.to_owned(), kind.to_owned());
            if self.options.skip_unsupported {
                out.skipped.push(Skipped {
                    at,
                    api_version,
                    kind,
                });
                return Ok(());
            }
            return Err(DecodeError::UnsupportedKind {
                at,
                api_version,
                kind,
            });
        };
        let api_version = api_version.to_owned();
        // Read before normalising: there `80.0` becomes 80.
        let rule_floats = if self.options.check_fields {
            crate::validate::floats::rule_floats(rk, &value)
        } else {
            Vec::new()
        };
        // `field: null` is absent and `80.0` is 80, as for the API server (see `normalize`).
        normalize::normalize(&mut value);
        // Then the CRD defaults, when asked: the stored form of the object.
        if let Some(bundles) = &self.options.defaults {
            crate::validate::apply_defaults(rk, bundles.of(rk), &mut value);
        }
        let fields = if self.options.check_fields {
            let mut fields = self.check_fields(rk, &value);
            fields.rule_floats = rule_floats;
            fields
        } else {
            FieldCheck::default()
        };
        match AnyResource::from_value_untracked(rk, value) {
            Ok(resource) => {
                out.documents.push(Document {
                    at,
                    resource,
                    fields,
                });
                Ok(())
            }
            Err(plain) => Err(self.field_error(at, rk, &api_version, plain)),
        }
    }

    fn check_fields(&self, kind: ResourceKind, value: &Value) -> FieldCheck {
        match KindSchema::of(kind) {
            Some(schema) => schema.check(value),
            None => FieldCheck::default(),
        }
    }

    /// Explains a typing failure (error path only): reads the object again and types it with
    /// path tracking, for the field path and the line of the offending node.
    fn field_error(
        &self,
        at: Position,
        kind: ResourceKind,
        api_version: &str,
        plain: serde_json::Error,
    ) -> DecodeError {
        let tracked = self.reread(at, kind, api_version).map(|mut value| {
            normalize::normalize(&mut value);
            if let Some(bundles) = &self.options.defaults {
                crate::validate::apply_defaults(kind, bundles.of(kind), &mut value);
            }
            AnyResource::from_value_tracked(kind, value)
        });
        let (mut segments, message) = match tracked {
            Some(Err(e)) => (path_segments(e.path()), e.into_inner().to_string()),
            _ => (Vec::new(), plain.to_string()),
        };
        // serde names a missing field in its message, at the path of the object that lacks
        // it; the API server reports it at the field's own path (`Required value`).
        if let Some(field) = message
            .strip_prefix("missing field `")
            .and_then(|m| m.strip_suffix('`'))
        {
            segments.push(PathSegment::Key(field.to_owned()));
        }
        let line = self.line_of(at, &segments).or(at.line);
        DecodeError::Field {
            at: Position { line, ..at },
            kind,
            path: format_path(&segments),
            message,
        }
    }

    /// The untyped value of the object at `at`, parsed again.
    fn reread(&self, at: Position, kind: ResourceKind, api_version: &str) -> Option<Value> {
        let document = match self.format {
            Format::Json => match serde_json::from_str::<Value>(self.input).ok()? {
                Value::Array(mut elements) => {
                    (at.document < elements.len()).then(|| elements.swap_remove(at.document))?
                }
                value => value,
            },
            Format::Yaml => yaml::reread(self.input, self.options, at.document)?,
        };
        let Some(item) = at.item else {
            return Some(document);
        };
        let Value::Object(mut list) = document else {
            return None;
        };
        let Some(Value::Array(mut items)) = list.remove("items") else {
            return None;
        };
        let mut value = (item < items.len()).then(|| items.swap_remove(item))?;
        // As in `document`: typed lists lend their items apiVersion and kind.
        if let Value::Object(o) = &mut value {
            o.entry("apiVersion")
                .or_insert_with(|| Value::String(api_version.to_owned()));
            o.entry("kind")
                .or_insert_with(|| Value::String(kind.as_str().to_owned()));
        }
        Some(value)
    }

    /// The line of the node at `path` inside the object at `at` (error path only).
    fn line_of(&self, at: Position, path: &[PathSegment]) -> Option<usize> {
        line_in(self.input, self.options, self.format, at, path)
    }
}

fn format_of(input: &str) -> Format {
    if input.trim_start().starts_with(['{', '[']) {
        Format::Json
    } else {
        Format::Yaml
    }
}

fn line_in(
    input: &str,
    options: &DecodeOptions,
    format: Format,
    at: Position,
    path: &[PathSegment],
) -> Option<usize> {
    let mut full = Vec::with_capacity(path.len() + 3);
    if format == Format::Json && input.trim_start().starts_with('[') {
        full.push(PathSegment::Index(at.document));
    }
    if let Some(item) = at.item {
        full.push(PathSegment::Key("items".into()));
        full.push(PathSegment::Index(item));
    }
    full.extend(path.iter().cloned());
    match format {
        Format::Json => json::line_of(input, options, &full),
        Format::Yaml => yaml_lines::line_of(input, options, at.document, &full),
    }
}

/// The 1-based line of the field at `path` in the object decoded at `at` from `input` (the same
/// input and options given to [`decode_documents`](crate::decode_documents)), or of its deepest existing ancestor: for
/// printing `file:line` next to a validation error.
///
/// `path` is a JSON field path as [`DecodeError::Field`] and validation errors write them:
/// `spec.rules[1].matches[0].path.value`, with map keys as `.key`, `[key]` or `["key"]`.
/// Returns `None` when the input no longer decodes. The input is parsed again: call it for
/// errors, not for every object.
///
/// ```
/// use gamma_model::{DecodeOptions, decode_documents};
/// use gamma_model::decode::field_line;
/// let input = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels:\n    team: x\n";
/// let options = DecodeOptions::default();
/// let doc = &decode_documents(input, &options)?.documents[0];
/// assert_eq!(field_line(input, &options, &doc.at, "metadata.labels[team]"), Some(6));
/// # Ok::<(), gamma_model::DecodeError>(())
/// ```
pub fn field_line(
    input: &str,
    options: &DecodeOptions,
    at: &Position,
    path: &str,
) -> Option<usize> {
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    if input.len() > options.max_input_bytes {
        return None;
    }
    let segments = parse_path(path)?;
    line_in(input, options, format_of(input), *at, &segments).or(at.line)
}

/// Parses `a.b[0].c`, `labels[key]` and `annotations["gamma.rs/x"]` into segments.
fn parse_path(path: &str) -> Option<Vec<PathSegment>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let (inner, after) = if r.starts_with('"') {
                // A JSON string, up to its closing quote.
                let mut end = None;
                let mut escaped = false;
                for (i, c) in r.char_indices().skip(1) {
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => {
                            end = Some(i);
                            break;
                        }
                        _ => escaped = false,
                    }
                }
                let end = end?;
                let key: String = serde_json::from_str(r.get(..=end)?).ok()?;
                out.push(PathSegment::Key(key));
                ("", r.get(end + 1..)?.strip_prefix(']')?)
            } else {
                r.split_once(']')?
            };
            if !inner.is_empty() {
                out.push(match inner.parse::<usize>() {
                    Ok(i) => PathSegment::Index(i),
                    Err(_) => PathSegment::Key(inner.to_owned()),
                });
            }
            rest = after;
        } else {
            let r = rest.strip_prefix('.').unwrap_or(rest);
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let (key, after) = r.split_at(end);
            if key.is_empty() {
                return None;
            }
            out.push(PathSegment::Key(key.to_owned()));
            rest = after;
        }
    }
    Some(out)
}

fn type_info(
    object: &serde_json::Map<String, Value>,
    at: Position,
) -> Result<(&str, &str), DecodeError> {
    let api_version = object.get("apiVersion").and_then(Value::as_str);
    let kind = object.get("kind").and_then(Value::as_str);
    match (api_version, kind) {
        (Some(a), Some(k)) => Ok((a, k)),
        (None, _) => Err(DecodeError::MissingTypeInfo {
            at,
            field: "apiVersion",
        }),
        (_, None) => Err(DecodeError::MissingTypeInfo { at, field: "kind" }),
    }
}

fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn path_segments(path: &serde_path_to_error::Path) -> Vec<PathSegment> {
    use serde_path_to_error::Segment;
    let mut out = Vec::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push(PathSegment::Index(*index)),
            Segment::Map { key } => out.push(PathSegment::Key(key.clone())),
            Segment::Enum { .. } => {}
            // Past a flattened or untagged value the path is unknown: stop at what is known.
            Segment::Unknown => break,
        }
    }
    out
}

/// Formats a path as `spec.rules[0].backendRefs[0].port`; keys that are not plain identifiers
/// are quoted (`metadata.annotations["gamma.rs/controllers"]`).
fn format_path(path: &[PathSegment]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            PathSegment::Index(i) => s.push_str(&format!("[{i}]")),
            PathSegment::Key(k)
                if !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
            {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            PathSegment::Key(k) => {
                s.push('[');
                s.push_str(&Value::String(k.clone()).to_string());
                s.push(']');
            }
        }
    }
    s
}

#[cfg(test)]
mod tests;
