//! `gammactl validate`: decode and validate everything, list every problem, then the counts.

use gamma::model::validate::{Channel, ValidateOptions};
use serde::Serialize;

use crate::check;
use crate::cli::{ChannelArg, Format, ValidateArgs};
use crate::failure::Failure;
use crate::output::{emit_line, print};
use crate::problem::{Problem, Severity};
use crate::style::Style;

/// The machine-readable report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    files: usize,
    objects: usize,
    errors: usize,
    warnings: usize,
    problems: &'a [Problem],
}

pub fn run(args: &ValidateArgs) -> Result<(), Failure> {
    let mut manifests = super::read(&args.input)?;
    let opts = ValidateOptions::channel(match args.channel {
        ChannelArg::Standard => Channel::Standard,
        ChannelArg::Experimental => Channel::Experimental,
    });
    let mut found = Vec::new();
    for object in &manifests.objects {
        for e in check::validate(&object.resource, &opts) {
            found.push(object.problem(Severity::Error, e.path.as_str(), e.kind.to_string()));
        }
    }
    manifests.problems.extend(found);
    // Sorted by file order then line, so the list reads top to bottom per file; the sort is
    // stable, keeping the order problems were found in within one line.
    let file_order: Vec<String> = manifests
        .problems
        .iter()
        .filter_map(|p| p.file.clone())
        .fold(Vec::new(), |mut acc, f| {
            if !acc.contains(&f) {
                acc.push(f);
            }
            acc
        });
    manifests.problems.sort_by_key(|p| {
        (
            p.file
                .as_ref()
                .and_then(|f| file_order.iter().position(|x| x == f)),
            p.line,
        )
    });
    let errors = manifests.problems.iter().filter(|p| p.is_error()).count();
    let warnings = manifests.problems.len() - errors;
    let report = Report {
        files: manifests.files,
        objects: manifests.objects.len(),
        errors,
        warnings,
        problems: &manifests.problems,
    };
    match args.output.format {
        Format::Text => print_text(&report),
        format => print(&report, format)?,
    }
    if errors > 0 {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}

fn print_text(report: &Report<'_>) {
    let style = Style::stdout();
    for p in report.problems {
        emit_line(&p.render(&style));
    }
    let counts = format!(
        "{} object{} in {} file{}: {} error{}, {} warning{}",
        report.objects,
        plural(report.objects),
        report.files,
        plural(report.files),
        report.errors,
        plural(report.errors),
        report.warnings,
        plural(report.warnings),
    );
    let line = if report.errors > 0 {
        style.red(&counts)
    } else {
        style.green(&counts)
    };
    emit_line(&line);
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
