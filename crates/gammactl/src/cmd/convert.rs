//! `gammactl convert smi`: SMI traffic splits to Gateway API routes, and SMI TrafficTargets to
//! the proposed XAuthorizationPolicy (GEP-3779), through gamma-smi. The objects go to standard
//! output, ready to apply; the report goes to standard error, each finding located at its SMI
//! object's file and line, the findings that widen access first.

use gamma_mesh::model::{AnyResource, ResourceKind};
use gamma_mesh::smi::Severity;
use serde::Serialize;

use crate::cli::{ConvertSmiArgs, Format};
use crate::failure::{Failure, input};
use crate::output::{emit, print, warn};

use super::report::{JsonFinding, JsonReport, Located, NoDetail};
use crate::style::Style;

/// What `kubectl apply -f` accepts as one JSON document holding many objects.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct List<'a> {
    api_version: &'static str,
    kind: &'static str,
    items: &'a [AnyResource],
}

/// `convert smi -o json`: the counts the text's last lines give.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary {
    traffic_splits: usize,
    routes: usize,
    dropped: usize,
    approximated: usize,
    notes: usize,
    traffic_targets: usize,
    policies: usize,
    widened: usize,
    narrowed: usize,
    equal: usize,
}

pub fn smi(args: &ConvertSmiArgs) -> Result<(), Failure> {
    let manifests = super::read_strict(&args.input)?;
    let snapshot = manifests.snapshot();
    let mut conversion = gamma_mesh::smi::convert(&snapshot);
    let authz = gamma_mesh::smi::gep::convert_traffic_targets(&snapshot);
    conversion.resources.extend(
        authz
            .policies
            .iter()
            .cloned()
            .map(AnyResource::XAuthorizationPolicy),
    );
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
                    .map_err(|e| input(format!("cannot encode a converted object as YAML: {e}")))?;
                out.push_str("---\n");
                out.push_str(&doc);
                if !doc.ends_with('\n') {
                    out.push('\n');
                }
            }
            emit(&out);
        }
    }

    let located = Located::new(&manifests);
    let style = Style::stderr();
    let widened = authz
        .report
        .findings()
        .iter()
        .filter(|f| f.severity == Severity::Widened)
        .count();
    // (`-o json` says it in the report's `summary`.)
    if widened > 0 && args.output.format() != Format::Json {
        warn(&style.red(&style.bold(&format!(
            "WARNING: the converted authorization policies ALLOW MORE than the TrafficTargets: \
             {widened} finding{} below widen access; review them before applying",
            if widened == 1 { "" } else { "s" }
        ))));
    }
    // The routes' report speaks of TrafficTargets only to say the routes cannot carry them;
    // the policies' report says what became of them.
    let route_findings: Vec<_> = conversion
        .report
        .findings()
        .iter()
        .filter(|f| f.object.kind != ResourceKind::TrafficTarget)
        .collect();
    let count = |findings: &[&gamma_mesh::smi::Finding], s: Severity| {
        findings.iter().filter(|f| f.severity == s).count()
    };
    let dropped = count(&route_findings, Severity::Dropped);
    let approximated = count(&route_findings, Severity::Approximated);
    let notes = count(&route_findings, Severity::Note);
    let all_authz: Vec<_> = authz.report.findings().iter().collect();
    let narrowed = count(&all_authz, Severity::Narrowed);
    let equal = count(&all_authz, Severity::Equal);
    // Widened and narrowed access first (the policies' report is sorted so), then the routes.
    let (access, rest): (Vec<_>, Vec<_>) = authz
        .report
        .findings()
        .iter()
        .partition(|f| matches!(f.severity, Severity::Widened | Severity::Narrowed));
    let ordered: Vec<&gamma_mesh::smi::Finding> = access
        .into_iter()
        .chain(route_findings)
        .chain(rest)
        .collect();
    let splits = snapshot.traffic_splits().count();
    let routes = conversion.resources.len() - authz.policies.len();
    let targets = snapshot.traffic_targets().count();
    if args.output.format() == Format::Json {
        // The objects are on standard output; the report, as one JSON document, on standard
        // error, in the text's order (widened access first).
        let policy_of: std::collections::HashMap<&str, String> = authz
            .policies
            .iter()
            .filter_map(|p| {
                let from = p
                    .metadata
                    .annotations
                    .get(gamma_mesh::smi::SOURCE_ANNOTATION)?;
                let ns = p.metadata.namespace.as_deref().unwrap_or_default();
                Some((from.as_str(), format!("{ns}/{}", p.metadata.name)))
            })
            .collect();
        // Access findings of the TrafficTarget conversion first (widened, then narrowed),
        // then the routes', then the equal ones, as the text lists them.
        let findings = ordered
            .iter()
            .map(|f| JsonFinding {
                policy: policy_of.get(f.object.to_string().as_str()).cloned(),
                ..JsonFinding::new(
                    &located,
                    f.severity,
                    Some(&f.object),
                    &f.field,
                    &f.message,
                    NoDetail {},
                )
            })
            .collect();
        let report = JsonReport {
            findings,
            summary: Summary {
                traffic_splits: splits,
                routes,
                dropped,
                approximated,
                notes,
                traffic_targets: targets,
                policies: authz.policies.len(),
                widened,
                narrowed,
                equal,
            },
        };
        return super::report::write(&report);
    }
    for f in ordered {
        let label = match f.severity {
            Severity::Widened => style.red(&style.bold("WIDENED ACCESS:")),
            Severity::Narrowed => style.yellow("narrowed access:"),
            Severity::Equal => "equal access:".to_owned(),
            Severity::Dropped => style.red("dropped:"),
            Severity::Approximated => style.yellow("approximated:"),
            _ => "note:".to_owned(),
        };
        let location = located.prefix(Some(&f.object), &f.field);
        let field = if f.field.is_empty() {
            String::new()
        } else {
            format!("{}: ", f.field)
        };
        warn(&format!(
            "{}{label} {}: {field}{}",
            style.bold(&location),
            f.object,
            f.message
        ));
    }
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    warn(&format!(
        "{splits} TrafficSplit{} converted into {routes} route{}; {dropped} dropped, {approximated} approximated, {notes} note{}",
        plural(splits),
        plural(routes),
        plural(notes),
    ));
    if targets > 0 {
        warn(&format!(
            "{targets} TrafficTarget{} converted into {} XAuthorizationPolic{}; {widened} widened, {narrowed} narrowed, {equal} equal",
            plural(targets),
            authz.policies.len(),
            if authz.policies.len() == 1 {
                "y"
            } else {
                "ies"
            },
        ));
    }
    Ok(())
}
