//! `gammactl convert authorization-policy --to istio|linkerd`: XAuthorizationPolicies
//! (GEP-3779, proposal) translated by gamma-authz into the policies of a mesh without the
//! proposal. The objects go to standard output, ready to apply; the report goes to standard
//! error, each finding located at its policy's file and line, the findings that change access
//! first (widened before narrowed); with `-o json`, as one JSON document in the form `convert
//! smi -o json` uses ([`super::report`]).

use gamma_authz::Config;
use gamma_authz::translate::linkerd::{DefaultPolicy, LinkerdOptions};
use gamma_authz::translate::{
    Direction, Finding, PortScope, Severity, TranslationReport, istio, linkerd,
};
use gamma_mesh::model::ObjectKey;
use serde::Serialize;

use crate::cli::{BaselineArg, ConvertAuthzArgs, Format, LinkerdDefaultPolicyArg, MeshArg};
use crate::failure::{Failure, input};
use crate::output::{emit, print, warn};

use super::report::{JsonFinding, JsonReport, Located};
use crate::style::Style;

/// What `kubectl apply -f` accepts as one JSON document holding many objects.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct List<'a> {
    api_version: &'static str,
    kind: &'static str,
    items: &'a [Item<'a>],
}

/// One translated object, serialized as itself (its fields in the mesh's order).
#[derive(Serialize)]
#[serde(untagged)]
enum Item<'a> {
    Istio(&'a istio::AuthorizationPolicy),
    Server(&'a linkerd::Server),
    Authentication(&'a linkerd::MeshTlsAuthentication),
    Policy(&'a linkerd::AuthorizationPolicy),
}

pub fn run(args: &ConvertAuthzArgs) -> Result<(), Failure> {
    let manifests = super::read_strict(&args.input)?;
    let snapshot = manifests.snapshot();
    let baseline = match args.baseline {
        BaselineArg::Allow => gamma_authz::Baseline::Allow,
        BaselineArg::Deny => gamma_authz::Baseline::Deny,
    };
    let config = Config::with_trust_domain(&args.trust_domain).baseline(baseline);
    let mut istio_out = None;
    let mut linkerd_out = None;
    match args.to {
        MeshArg::Istio => {
            let options =
                istio::IstioOptions::default().root_namespace(args.istio_root_namespace.as_str());
            istio_out = Some(istio::translate(&snapshot, &config, &options));
        }
        MeshArg::Linkerd => {
            let default_policy = match args.linkerd_default_policy {
                LinkerdDefaultPolicyArg::AllUnauthenticated => DefaultPolicy::AllUnauthenticated,
                LinkerdDefaultPolicyArg::AllAuthenticated => DefaultPolicy::AllAuthenticated,
                LinkerdDefaultPolicyArg::Deny => DefaultPolicy::Deny,
            };
            linkerd_out = Some(linkerd::translate(
                &snapshot,
                &config,
                &LinkerdOptions::default().default_policy(default_policy),
            ));
        }
    }
    let mut items: Vec<Item<'_>> = Vec::new();
    let mut report = &TranslationReport::default();
    if let Some(t) = &istio_out {
        items.extend(t.policies.iter().map(Item::Istio));
        report = &t.report;
    }
    if let Some(t) = &linkerd_out {
        items.extend(t.servers.iter().map(Item::Server));
        items.extend(t.authentications.iter().map(Item::Authentication));
        items.extend(t.policies.iter().map(Item::Policy));
        report = &t.report;
    }
    match args.output.format() {
        Format::Json => print(
            &List {
                api_version: "v1",
                kind: "List",
                items: &items,
            },
            Format::Json,
        )?,
        Format::Text | Format::Yaml => {
            let mut out = String::new();
            for item in &items {
                let doc = serde_saphyr::to_string(item).map_err(|e| {
                    input(format!("cannot encode a translated object as YAML: {e}"))
                })?;
                out.push_str("---\n");
                out.push_str(&doc);
                if !doc.ends_with('\n') {
                    out.push('\n');
                }
            }
            emit(&out);
        }
    }
    print_report(
        &manifests,
        report,
        items.len(),
        args.to,
        args.output.format(),
    )
}

/// A finding's place in the report, and its label: access widened, then narrowed, then the
/// rest by severity. Named in JSON as gamma-authz names its severities (`not-mappable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
enum Class {
    Widened,
    Narrowed,
    NotMappable,
    Approximated,
    Exact,
}

fn class(f: &Finding) -> Class {
    if f.directions.contains(&Direction::Widened) {
        Class::Widened
    } else if f.directions.contains(&Direction::Narrowed) {
        Class::Narrowed
    } else {
        match f.severity {
            Severity::NotMappable => Class::NotMappable,
            Severity::Approximated => Class::Approximated,
            _ => Class::Exact,
        }
    }
}

/// Whether `f` changes access (widened or narrowed): those come first.
fn rank(f: &Finding) -> u8 {
    match class(f) {
        Class::Widened => 0,
        Class::Narrowed => 1,
        _ => 2,
    }
}

/// What a translation finding says besides the common fields (`-o json`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Detail<'a> {
    /// The translation's own severity (`not-mappable`, `approximated`, `exact`).
    translation: Severity,
    /// The rule's index in `spec.rules`, when the finding is about one rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<usize>,
    /// Which ways access changes (empty: it does not).
    directions: &'a [Direction],
    /// The Pods whose verdicts may change (empty when access does not).
    pods: &'a [ObjectKey],
    /// Their ports that may change (with `directions` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    ports: Option<&'a PortScope>,
}

/// `-o json`: the counts the text's last line gives.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary {
    mesh: &'static str,
    policies: usize,
    objects: usize,
    widened: usize,
    narrowed: usize,
    other: usize,
}

fn print_report(
    manifests: &crate::manifests::Manifests,
    report: &TranslationReport,
    objects: usize,
    to: MeshArg,
    format: Format,
) -> Result<(), Failure> {
    let located = Located::new(manifests);
    let style = Style::stderr();
    let widened = report.findings().iter().filter(|f| rank(f) == 0).count();
    let narrowed = report.findings().iter().filter(|f| rank(f) == 1).count();
    let mesh = match to {
        MeshArg::Istio => "Istio",
        MeshArg::Linkerd => "Linkerd",
    };
    let mut findings: Vec<&Finding> = report.findings().iter().collect();
    findings.sort_by_key(|f| rank(f));
    let policies = manifests
        .objects
        .iter()
        .filter(|o| o.key().kind == gamma_mesh::model::ResourceKind::XAuthorizationPolicy)
        .count();
    let other = findings.len() - widened - narrowed;
    if format == Format::Json {
        // (The widened count is in the summary: no warning line outside the document.)
        let report = JsonReport {
            findings: findings
                .iter()
                .map(|f| {
                    JsonFinding::new(
                        &located,
                        class(f),
                        f.policy.as_ref(),
                        &f.field,
                        &f.message,
                        Detail {
                            translation: f.severity,
                            rule: f.rule,
                            directions: &f.directions,
                            pods: &f.pods,
                            ports: (!f.directions.is_empty()).then_some(&f.ports),
                        },
                    )
                })
                .collect(),
            summary: Summary {
                mesh: match to {
                    MeshArg::Istio => "istio",
                    MeshArg::Linkerd => "linkerd",
                },
                policies,
                objects,
                widened,
                narrowed,
                other,
            },
        };
        return super::report::write(&report);
    }
    if widened > 0 {
        warn(&style.red(&style.bold(&format!(
            "WARNING: the {mesh} policies ALLOW MORE than the XAuthorizationPolicies: {widened} finding{} below widen access; review them before applying",
            if widened == 1 { "" } else { "s" }
        ))));
    }
    for f in &findings {
        let label = match class(f) {
            Class::Widened => style.red(&style.bold("WIDENED ACCESS:")),
            Class::Narrowed => style.yellow("narrowed access:"),
            Class::NotMappable => style.yellow("not mappable:"),
            Class::Approximated => style.yellow("approximated:"),
            Class::Exact => "exact:".to_owned(),
        };
        let location = located.prefix(f.policy.as_ref(), &f.field);
        warn(&format!("{}{label} {}", style.bold(&location), f));
    }
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    warn(&format!(
        "{policies} XAuthorizationPolic{} translated into {objects} {mesh} object{}; {widened} widened, {narrowed} narrowed, {other} other finding{}",
        plural(policies, "y", "ies"),
        plural(objects, "", "s"),
        plural(other, "", "s"),
    ));
    Ok(())
}
