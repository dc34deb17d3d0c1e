//! Reading a [`ArbiterConfig`] from its YAML or JSON text as a contract: an unknown key (a typo such
//! as `namespaceSelecter` or `defualt`), a value of the wrong type or a missing required key is
//! an error naming the line and the field path. A typo must never decode as a different
//! configuration (with serde's defaults a misspelt `default: true` silently registers no
//! default mesh, and a misspelt selector key selects every namespace), because every
//! controller sharing the cluster would then compute a different ownership table.

use std::collections::BTreeMap;

use gamma_model::gateway::{LabelSelector, LabelSelectorRequirement};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::ArbiterConfig;

/// Why a configuration text could not be read. The text is the input; the path points into it
/// (`meshes[0].namespaceSelector.matchLabels`), `.` when the document itself is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{path}: {message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
#[non_exhaustive]
pub struct ConfigDecodeError {
    /// The 1-based line of the offending node, when the parser knows it.
    pub line: Option<usize>,
    /// The 1-based column, when known.
    pub column: Option<usize>,
    /// The field path of the offending value.
    pub path: String,
    /// What is wrong, without position (that is in `line` and `column`).
    pub message: String,
}

impl ArbiterConfig {
    /// Decodes a configuration from YAML or JSON text (JSON when the first non-blank character
    /// is `{`), refusing unknown keys, wrong types and missing required keys. The result is
    /// not yet [validated](ArbiterConfig::validate) (empty or duplicate names); [`crate::Arbiter::new`]
    /// does that.
    ///
    /// ```
    /// use gamma_arbiter::ArbiterConfig;
    /// let err = ArbiterConfig::decode("meshes:\n- name: istio\n  controllerName: istio.io/c\n  defualt: true\n")
    ///     .unwrap_err();
    /// assert_eq!(err.line, Some(4));
    /// assert_eq!(err.path, "meshes[0].defualt");
    /// ```
    pub fn decode(text: &str) -> Result<ArbiterConfig, ConfigDecodeError> {
        if text.trim_start().starts_with('{') {
            decode_json(text)
        } else {
            decode_yaml(text)
        }
    }
}

fn decode_yaml<T: DeserializeOwned>(text: &str) -> Result<T, ConfigDecodeError> {
    let mut path = None;
    serde_saphyr::with_deserializer_from_str(text, |de| {
        serde_path_to_error::deserialize(de).map_err(|e| {
            path = Some(e.path().to_string());
            e.into_inner()
        })
    })
    .map_err(|e| {
        let location = e.location();
        let to_usize = |n: u64| usize::try_from(n).ok().filter(|n| *n > 0);
        let message = yaml_message(&e.without_snippet().to_string());
        ConfigDecodeError {
            line: location.and_then(|l| to_usize(l.line())),
            column: location.and_then(|l| to_usize(l.column())),
            path: missing_key_path(path.unwrap_or_else(|| ".".to_owned()), &message),
            message,
        }
    })
}

fn decode_json<T: DeserializeOwned>(text: &str) -> Result<T, ConfigDecodeError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de)
        .map_err(|e| json_error(e.path().to_string(), e.inner()))?;
    // trailing characters after the object
    de.end().map_err(|e| json_error(".".to_owned(), &e))?;
    Ok(value)
}

fn json_error(path: String, e: &serde_json::Error) -> ConfigDecodeError {
    let message = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = message.strip_suffix(&suffix).unwrap_or(&message).to_owned();
    ConfigDecodeError {
        line: (e.line() > 0).then_some(e.line()),
        column: (e.column() > 0).then_some(e.column()),
        path: missing_key_path(path, &message),
        message,
    }
}

/// The parser's message without its position (`line 5 column 14: ...` before, or
/// `... at line 4, column 3` after: the error carries it as fields) and without any rendered
/// source lines after the first.
fn yaml_message(rendered: &str) -> String {
    let digits = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    let first = rendered.lines().next().unwrap_or(rendered).trim_end();
    let mut text = first.strip_prefix("error: ").unwrap_or(first);
    if let Some(rest) = text.strip_prefix("line ")
        && let Some((position, after)) = rest.split_once(": ")
        && position.split(" column ").all(digits)
    {
        text = after;
    }
    if let Some(i) = text.rfind(" at line ")
        && let Some((l, c)) = text
            .get(i + " at line ".len()..)
            .and_then(|p| p.split_once(", column "))
        && digits(l)
        && digits(c)
    {
        text = text.get(..i).unwrap_or(text);
    }
    text.to_owned()
}

/// A Kubernetes label selector as the configuration spells it. The model's `LabelSelector`
/// tolerates unknown keys (manifests are checked by validation instead); in the configuration a
/// misspelt `matchLabels` would leave an empty selector, which selects every namespace.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(rename = "LabelSelector")]
pub(super) struct StrictSelector {
    /// Labels that must be present with exactly these values.
    #[serde(default)]
    match_labels: BTreeMap<String, String>,
    /// Set-based requirements.
    #[serde(default)]
    match_expressions: Vec<StrictRequirement>,
}

/// One set-based requirement of a label selector.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(rename = "LabelSelectorRequirement")]
struct StrictRequirement {
    /// The label key.
    key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    operator: String,
    /// The values for `In` and `NotIn`; empty for `Exists` and `DoesNotExist`.
    #[serde(default)]
    values: Vec<String>,
}

/// `deserialize_with` for [`super::MeshRegistration::namespace_selector`].
pub(super) fn strict_selector<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<LabelSelector>, D::Error> {
    Ok(
        Option::<StrictSelector>::deserialize(d)?.map(|s| LabelSelector {
            match_labels: s.match_labels,
            match_expressions: s
                .match_expressions
                .into_iter()
                .map(|r| LabelSelectorRequirement {
                    key: r.key,
                    operator: r.operator,
                    values: r.values,
                })
                .collect(),
        }),
    )
}

/// A missing key is reported by serde at its parent; the path names the key itself.
fn missing_key_path(path: String, message: &str) -> String {
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|m| m.split_once('`'))
        .map(|(key, _)| key);
    match missing {
        Some(key) if path == "." => key.to_owned(),
        Some(key) => format!("{path}.{key}"),
        None => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MESH: &str = "meshes:\n- name: istio\n  controllerName: istio.io/c\n";

    fn err(text: &str) -> ConfigDecodeError {
        ArbiterConfig::decode(text).unwrap_err()
    }

    #[test]
    fn misspelt_keys_are_errors_with_line_and_path() {
        let e = err(&format!("{MESH}  defualt: true\n"));
        assert_eq!((e.line, e.path.as_str()), (Some(4), "meshes[0].defualt"));
        assert!(e.message.starts_with("unknown field `defualt`"), "{e}");
        let e = err(&format!(
            "{MESH}  namespaceSelecter: {{matchLabels: {{a: b}}}}\n"
        ));
        assert_eq!(e.path, "meshes[0].namespaceSelecter");
        let e = err("keys:\n  namespaceMeshLabl: x\n");
        assert_eq!(
            (e.line, e.path.as_str()),
            (Some(2), "keys.namespaceMeshLabl")
        );
        let e = err("mesh: []\n");
        assert_eq!(e.path, "mesh");
    }

    #[test]
    fn a_misspelt_selector_key_is_not_an_empty_selector() {
        // An empty selector selects every namespace: `matchLabel` must not decode as one.
        let e = err(&format!(
            "{MESH}  namespaceSelector: {{matchLabel: {{a: b}}}}\n"
        ));
        assert_eq!(e.path, "meshes[0].namespaceSelector.matchLabel");
        let e = err(&format!(
            "{MESH}  namespaceSelector:\n    matchExpressions: [{{key: a, operater: In}}]\n"
        ));
        assert_eq!(
            e.path,
            "meshes[0].namespaceSelector.matchExpressions[0].operater"
        );
        let ok = ArbiterConfig::decode(&format!(
            "{MESH}  namespaceSelector: {{matchLabels: {{a: b}}}}\n"
        ))
        .unwrap();
        let selector = ok.meshes[0].namespace_selector.as_ref().unwrap();
        assert_eq!(
            selector.match_labels.get("a").map(String::as_str),
            Some("b")
        );
    }

    #[test]
    fn wrong_types_and_missing_keys_are_errors_with_line_and_path() {
        let e = err(&format!("{MESH}  default: maybe\n"));
        assert_eq!(
            (e.line, e.path.as_str(), e.message.as_str()),
            (Some(4), "meshes[0].default", "invalid boolean")
        );
        let e = err("meshes:\n- name: istio\n  default: true\n");
        // serde notices the missing key at the end of the entry (its last line)
        assert_eq!(e.line, Some(3));
        assert_eq!(e.path, "meshes[0].controllerName");
        assert!(e.message.contains("missing field `controllerName`"), "{e}");
        assert_eq!(
            e.to_string(),
            "line 3: meshes[0].controllerName: missing field `controllerName`"
        );
    }

    #[test]
    fn json_configurations_follow_the_same_contract() {
        let e = err(r#"{"meshes": [{"name": "a", "controllerName": "b", "defualt": true}]}"#);
        assert_eq!((e.line, e.path.as_str()), (Some(1), "meshes[0].defualt"));
        assert!(!e.message.contains("at line"), "{e}");
        let e = err("{\"meshes\": [\n  {\"name\": \"a\"}]}");
        assert_eq!(
            (e.line, e.path.as_str()),
            (Some(2), "meshes[0].controllerName")
        );
        let e = err("{\"meshes\": []} x");
        assert_eq!(e.path, ".");
        let c =
            ArbiterConfig::decode(r#"{"meshes": [{"name": "a", "controllerName": "b"}]}"#).unwrap();
        assert_eq!(c.meshes[0].controller_name, "b");
    }

    #[test]
    fn the_json_schema_states_the_same_contract() {
        // Editors validating against the schema must refuse what decode refuses.
        let schema = serde_json::to_value(schemars::schema_for!(ArbiterConfig)).unwrap();
        assert_eq!(schema["additionalProperties"], false);
        for def in [
            "MeshRegistration",
            "Keys",
            "LabelSelector",
            "LabelSelectorRequirement",
        ] {
            assert_eq!(schema["$defs"][def]["additionalProperties"], false, "{def}");
        }
    }
}
