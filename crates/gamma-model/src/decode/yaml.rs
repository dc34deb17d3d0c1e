//! YAML input through `serde-saphyr`, with its budget set from [`DecodeOptions`].
//!
//! Documents are read as `serde_json::Value`s, keeping only the lines gamma-rs reports: the
//! line of each document's root and of each entry of a List's `items`. The line of a field error
//! is found afterwards, on the error path only, by walking the parser's events
//! ([`super::yaml_lines`]).

use std::fmt;

use serde::Deserialize;
use serde::de::{self, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::granit_parser::ErrorKind;
use serde_saphyr::{Error as YamlError, ExternalMessageSource, Location, Spanned};

use super::RawDocument;
use super::error::{DecodeError, Limit, Position, depth_message};
use super::options::DecodeOptions;

fn saphyr_options(options: &DecodeOptions) -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_reader_input_bytes = Some(options.max_input_bytes);
    budget.max_depth = options.max_depth;
    budget.flow_nesting_limit = options.max_depth;
    budget.max_documents = options.max_documents;
    budget.max_nodes = options.max_nodes;
    // Every node is at least one event; mapping and sequence ends and document markers add at
    // most as many again.
    budget.max_events = options.max_nodes.saturating_mul(2).saturating_add(16);
    budget.max_total_scalar_bytes = options.max_input_bytes;
    budget.max_recorded_anchor_events = options.max_nodes.min(options.max_alias_expansion);
    budget.max_recorded_anchor_bytes = options.max_input_bytes;
    let mut opts = serde_saphyr::Options::default();
    opts.budget = Some(budget);
    opts.alias_limits.max_total_replayed_events = options.max_alias_expansion;
    // Kubernetes manifests never need deeper alias-within-alias replay.
    opts.alias_limits.max_replay_stack_depth = options.max_depth.min(64);
    // YAML 1.2 booleans only (`true`/`false`): with YAML 1.1's `y`, `n`, `yes`, `on`, ... a
    // namespace `n` or a header value `on` would become a boolean and fail to decode.
    opts.strict_booleans = true;
    opts.with_snippet = false;
    opts.emit_comments = false;
    opts
}

/// Parses every non-empty YAML document of `input`.
pub(super) fn parse(input: &str, options: &DecodeOptions) -> Result<Vec<RawDocument>, DecodeError> {
    let docs: Vec<Spanned<RootValue>> =
        serde_saphyr::from_multiple_with_options(input, saphyr_options(options))
            .map_err(|e| convert_error(input, options, &e))?;
    Ok(docs
        .into_iter()
        .enumerate()
        .map(|(index, doc)| RawDocument {
            index,
            line: line(doc.referenced),
            value: doc.value.value,
            item_lines: doc.value.item_lines,
        })
        .collect())
}

fn line(location: Location) -> Option<usize> {
    match location.line() {
        0 => None,
        l => usize::try_from(l).ok(),
    }
}

fn convert_error(input: &str, options: &DecodeOptions, error: &YamlError) -> DecodeError {
    let mut inner = error;
    while let YamlError::AliasError { error, .. } | YamlError::WithSnippet { error, .. } = inner {
        inner = error;
    }
    let error_line = inner
        .location()
        .and_then(line)
        .or(error.location().and_then(line));
    let document = document_of_error(input, options, error_line);
    let at = Position::new(document, None, error_line);
    let limit = match inner {
        YamlError::Budget { breach, .. } => Some(match breach {
            BudgetBreach::Depth { .. } => Limit::Depth,
            BudgetBreach::Documents { .. } => Limit::Documents,
            BudgetBreach::Nodes { .. } => Limit::Nodes,
            BudgetBreach::InputBytes { .. } => Limit::InputBytes,
            BudgetBreach::Aliases { .. }
            | BudgetBreach::Anchors { .. }
            | BudgetBreach::AliasAnchorRatio { .. }
            | BudgetBreach::RecordedAnchorEvents { .. }
            | BudgetBreach::RecordedAnchorBytes { .. } => Limit::AliasExpansion,
            _ => Limit::Parser,
        }),
        YamlError::AliasReplayLimitExceeded { .. }
        | YamlError::AliasReplayStackDepthExceeded { .. }
        | YamlError::AliasExpansionLimitExceeded { .. }
        | YamlError::AliasReplayCounterOverflow { .. } => Some(Limit::AliasExpansion),
        // The scanner's own nesting guards. The flow guard is set to `max_depth` and counts
        // flow collections only, a subset of all open collections, so it trips only on input
        // that is over the depth limit anyway; it fires before the budget sees the events
        // because the scanner reads ahead of the parser (a `[` may open a flow key).
        YamlError::ExternalMessage { source, .. }
            if matches!(&**source, ExternalMessageSource::Parser(e)
                if matches!(e.kind(), ErrorKind::RecursionLimitExceeded)) =>
        {
            Some(Limit::Depth)
        }
        _ => None,
    };
    // One wording for every depth error, whichever guard caught it (budget, scanner, JSON
    // pre-scan), naming the configured limit.
    let message = match limit {
        Some(Limit::Depth) => depth_message(options.max_depth),
        _ => strip_location(&inner.to_string()).to_owned(),
    };
    match limit {
        Some(limit) => DecodeError::LimitExceeded { at, limit, message },
        None => DecodeError::Syntax { at, message },
    }
}

/// The parser's message without its trailing ` at line L, column C` (the [`Position`] carries
/// the line).
fn strip_location(message: &str) -> &str {
    let Some((text, position)) = message.rsplit_once(" at line ") else {
        return message;
    };
    let numeric = position
        .split(", column ")
        .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if numeric { text } else { message }
}

/// The index of the document an error is in: re-reads the stream document by document
/// (bounded by the same budget, per document) and counts the documents before the failing one.
/// Only runs on the error path.
fn document_of_error(input: &str, options: &DecodeOptions, error_line: Option<usize>) -> usize {
    let mut reader = input.as_bytes();
    let mut starts = Vec::new();
    for result in serde_saphyr::read_with_options::<_, Spanned<de::IgnoredAny>>(
        &mut reader,
        saphyr_options(options),
    ) {
        let start = match result {
            Ok(doc) => line(doc.referenced).unwrap_or(0),
            Err(_) => return starts.len(),
        };
        // Past the error: no need to read further (keeps the error path at most as costly as
        // the parse that failed).
        if error_line.is_some_and(|l| start > l) || starts.len() >= options.max_documents {
            break;
        }
        starts.push(start);
    }
    // Every document parsed on its own: the failure was a limit on the whole stream. Place it
    // by line.
    match error_line {
        Some(l) => starts.partition_point(|&s| s <= l).saturating_sub(1),
        None => starts.len().saturating_sub(1),
    }
}

/// Non-empty document `document` of YAML `input` as an untyped value, read again (error path
/// only; streams, so memory is one document's).
pub(super) fn reread(input: &str, options: &DecodeOptions, document: usize) -> Option<Value> {
    let mut reader = input.as_bytes();
    let doc = serde_saphyr::read_with_options::<_, RootValue>(&mut reader, saphyr_options(options))
        .nth(document)?
        .ok()?;
    Some(doc.value)
}

/// A document's value, with the lines of the entries of its `items` (for `kind: List`).
struct RootValue {
    value: Value,
    item_lines: Vec<usize>,
}

impl<'de> Deserialize<'de> for RootValue {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RootValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a YAML document")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RootValue, A::Error> {
                let mut object = Map::new();
                let mut item_lines = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let value = if key == "items" {
                        let items = map.next_value::<ItemsValue>()?;
                        item_lines = items.lines;
                        items.value
                    } else {
                        map.next_value::<Value>()?
                    };
                    object.insert(key, value);
                }
                Ok(RootValue {
                    value: Value::Object(object),
                    item_lines,
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<RootValue, A::Error> {
                plain(Value::deserialize(de::value::SeqAccessDeserializer::new(
                    seq,
                )))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<RootValue, E> {
                plain(Ok(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RootValue, E> {
                plain(Ok(Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RootValue, E> {
                plain(Ok(Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RootValue, E> {
                plain(Ok(Value::from(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RootValue, E> {
                plain(Ok(Value::from(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<RootValue, E> {
                plain(Ok(Value::Null))
            }
            fn visit_none<E: de::Error>(self) -> Result<RootValue, E> {
                plain(Ok(Value::Null))
            }
            fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<RootValue, D::Error> {
                RootValue::deserialize(d)
            }
        }
        d.deserialize_any(V)
    }
}

fn plain<E>(value: Result<Value, E>) -> Result<RootValue, E> {
    value.map(|value| RootValue {
        value,
        item_lines: Vec::new(),
    })
}

/// The value of a root `items` key: when a sequence, each entry keeps its line.
struct ItemsValue {
    value: Value,
    lines: Vec<usize>,
}

impl<'de> Deserialize<'de> for ItemsValue {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ItemsValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ItemsValue, A::Error> {
                let mut values = Vec::new();
                let mut lines = Vec::new();
                while let Some(item) = seq.next_element::<Spanned<Value>>()? {
                    lines.push(line(item.referenced).unwrap_or(0));
                    values.push(item.value);
                }
                Ok(ItemsValue {
                    value: Value::Array(values),
                    lines,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ItemsValue, A::Error> {
                other(Value::deserialize(de::value::MapAccessDeserializer::new(
                    map,
                )))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<ItemsValue, E> {
                other(Value::deserialize(v.into_deserializer()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ItemsValue, E> {
                other(Value::deserialize(v.into_deserializer()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ItemsValue, E> {
                other(Value::deserialize(v.into_deserializer()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<ItemsValue, E> {
                other(Value::deserialize(v.into_deserializer()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ItemsValue, E> {
                other(Value::deserialize(v.into_deserializer()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ItemsValue, E> {
                other(Ok(Value::Null))
            }
            fn visit_none<E: de::Error>(self) -> Result<ItemsValue, E> {
                other(Ok(Value::Null))
            }
            fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<ItemsValue, D::Error> {
                ItemsValue::deserialize(d)
            }
        }
        d.deserialize_any(V)
    }
}

fn other<E>(value: Result<Value, E>) -> Result<ItemsValue, E> {
    value.map(|value| ItemsValue {
        value,
        lines: Vec::new(),
    })
}
