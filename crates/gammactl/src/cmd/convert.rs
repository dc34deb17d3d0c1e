//! `gammactl convert smi`: SMI traffic splits to Gateway API routes, through gamma-smi. The
//! routes go to standard output, ready to apply; the report goes to standard error, each
//! finding located at its SMI object's file and line.

use gamma_mesh::model::AnyResource;
use gamma_mesh::smi::Severity;
use serde::Serialize;

use crate::cli::{ConvertSmiArgs, Format};
use crate::failure::{Failure, input};
use crate::output::{emit, print, warn};
use crate::style::Style;

/// What `kubectl apply -f` accepts as one JSON document holding many objects.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct List<'a> {
    api_version: &'static str,
    kind: &'static str,
    items: &'a [AnyResource],
}

pub fn smi(args: &ConvertSmiArgs) -> Result<(), Failure> {
    let manifests = super::read_strict(&args.input)?;
    let snapshot = manifests.snapshot();
    let conversion = gamma_mesh::smi::convert(&snapshot);
    match args.output.format() {
        Format::Json => print(
            &List {
                api_version: "v1",
                kind: "List",
                items: &conversion.resources,
            },
            Format::Json,
        )?,
        Format::Text | Format::Yaml => {
            let mut out = String::new();
            for r in &conversion.resources {
                let doc = serde_saphyr::to_string(r)
                    .map_err(|e| input(format!("cannot encode a converted route as YAML: {e}")))?;
                out.push_str("---\n");
                out.push_str(&doc);
                if !doc.ends_with('\n') {
                    out.push('\n');
                }
            }
            emit(&out);
        }
    }

    let by_key: std::collections::HashMap<_, _> =
        manifests.objects.iter().map(|o| (o.key(), o)).collect();
    let style = Style::stderr();
    let (mut dropped, mut approximated, mut notes) = (0, 0, 0);
    for f in conversion.report.findings() {
        let label = match f.severity {
            Severity::Dropped => {
                dropped += 1;
                style.red("dropped:")
            }
            Severity::Approximated => {
                approximated += 1;
                style.yellow("approximated:")
            }
            _ => {
                notes += 1;
                "note:".to_owned()
            }
        };
        let location = by_key.get(&f.object).map(|o| {
            let line = if f.field.is_empty() {
                o.origin.line
            } else {
                o.line_of(&f.field)
            };
            format!("{}:{line}: ", o.origin.file)
        });
        let field = if f.field.is_empty() {
            String::new()
        } else {
            format!("{}: ", f.field)
        };
        warn(&format!(
            "{}{label} {}: {field}{}",
            style.bold(location.as_deref().unwrap_or("")),
            f.object,
            f.message
        ));
    }
    let splits = snapshot.traffic_splits().count();
    warn(&format!(
        "{splits} TrafficSplit{} converted into {} route{}; {dropped} dropped, {approximated} approximated, {notes} note{}",
        if splits == 1 { "" } else { "s" },
        conversion.resources.len(),
        if conversion.resources.len() == 1 {
            ""
        } else {
            "s"
        },
        if notes == 1 { "" } else { "s" },
    ));
    Ok(())
}
