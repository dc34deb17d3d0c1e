//! `gammactl schema KIND`: the JSON Schema of a resource kind or of the request/decision
//! format.

use gamma_mesh::model::ResourceKind;
use schemars::{Schema, schema_for};

use crate::cli::{Format, SchemaArgs};
use crate::failure::{Failure, usage};
use crate::output::{emit_line, print};

/// The non-resource schemas, with what they describe.
const FORMATS: &[(&str, &str)] = &[
    ("request", "one line of `gammactl resolve --requests FILE`"),
    (
        "decision",
        "what `gammactl resolve -o json` answers (gamma-resolve's Decision)",
    ),
    ("explanation", "what `gammactl explain -o json` answers"),
    (
        "config",
        "the arbiter configuration `--config` names (owners, status, resolve, explain, validate)",
    ),
];

pub fn run(args: &SchemaArgs) -> Result<(), Failure> {
    if args.kind.eq_ignore_ascii_case("list") {
        for kind in ResourceKind::ALL {
            emit_line(&format!(
                "{:<28} {}",
                kind.unique_name(),
                kind.api_versions().join(", ")
            ));
        }
        for (name, what) in FORMATS {
            emit_line(&format!("{name:<28} {what}"));
        }
        return Ok(());
    }
    let schema = schema_named(&args.kind).ok_or_else(|| {
        let mut names: Vec<&str> = ResourceKind::ALL.iter().map(|k| k.unique_name()).collect();
        names.extend(FORMATS.iter().map(|(n, _)| *n));
        usage(format!(
            "unknown schema {:?}; choose one of: {}",
            args.kind,
            names.join(", ")
        ))
    })?;
    let format = match args.output.format() {
        Format::Text => Format::Json,
        f => f,
    };
    print(&schema, format)
}

/// The schema for a kind name (any case) or format name.
fn schema_named(name: &str) -> Option<Schema> {
    if name.eq_ignore_ascii_case("request") {
        return Some(schema_for!(crate::request::RequestLine));
    }
    if name.eq_ignore_ascii_case("decision") {
        return Some(gamma_resolve::schema::decision());
    }
    if name.eq_ignore_ascii_case("explanation") {
        return Some(gamma_resolve::schema::explanation());
    }
    if name.eq_ignore_ascii_case("config") {
        return Some(schema_for!(gamma_arbiter::ArbiterConfig));
    }
    ResourceKind::ALL
        .iter()
        .find(|k| {
            k.unique_name().eq_ignore_ascii_case(name)
                || (k.as_str().eq_ignore_ascii_case(name)
                    && ResourceKind::from_kind_name(k.as_str()) == Some(**k))
        })
        .map(|k| k.json_schema())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_resource_kind_has_a_schema() {
        for kind in ResourceKind::ALL {
            assert!(schema_named(kind.unique_name()).is_some(), "{kind}");
        }
    }

    #[test]
    fn kind_names_match_in_any_case() {
        assert!(schema_named("httproute").is_some());
        assert!(schema_named("REQUEST").is_some());
        assert!(schema_named("Decision").is_some());
        assert!(schema_named("config").is_some());
        assert!(schema_named("Deployment").is_none());
    }
}
