//! `gammactl convert authorization-policy --to istio|linkerd`: XAuthorizationPolicies
//! (GEP-3779, proposal) translated by gamma-authz into the policies of a mesh without the
//! proposal. The objects go to standard output, ready to apply; the report goes to standard
//! error, each finding located at its policy's file and line, the findings that change access
//! first (widened before narrowed).

use gamma_authz::Config;
use gamma_authz::translate::linkerd::{DefaultPolicy, LinkerdOptions};
use gamma_authz::translate::{Direction, Finding, Severity, TranslationReport, istio, linkerd};
use serde::Serialize;

use crate::cli::{BaselineArg, ConvertAuthzArgs, Format, LinkerdDefaultPolicyArg, MeshArg};
use crate::failure::{Failure, input};
use crate::output::{emit, print, warn};
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
    print_report(&manifests, report, items.len(), args.to);
    Ok(())
}

fn rank(f: &Finding) -> u8 {
    if f.directions.contains(&Direction::Widened) {
        0
    } else if f.directions.contains(&Direction::Narrowed) {
        1
    } else {
        2
    }
}

fn print_report(
    manifests: &crate::manifests::Manifests,
    report: &TranslationReport,
    objects: usize,
    to: MeshArg,
) {
    let by_key: std::collections::HashMap<_, _> =
        manifests.objects.iter().map(|o| (o.key(), o)).collect();
    let style = Style::stderr();
    let widened = report.findings().iter().filter(|f| rank(f) == 0).count();
    let narrowed = report.findings().iter().filter(|f| rank(f) == 1).count();
    let mesh = match to {
        MeshArg::Istio => "Istio",
        MeshArg::Linkerd => "Linkerd",
    };
    if widened > 0 {
        warn(&style.red(&style.bold(&format!(
            "WARNING: the {mesh} policies ALLOW MORE than the XAuthorizationPolicies: {widened} finding{} below widen access; review them before applying",
            if widened == 1 { "" } else { "s" }
        ))));
    }
    let mut findings: Vec<&Finding> = report.findings().iter().collect();
    findings.sort_by_key(|f| rank(f));
    for f in &findings {
        let label = match (rank(f), f.severity) {
            (0, _) => style.red(&style.bold("WIDENED ACCESS:")),
            (1, _) => style.yellow("narrowed access:"),
            (_, Severity::NotMappable) => style.yellow("not mappable:"),
            (_, Severity::Approximated) => style.yellow("approximated:"),
            _ => "exact:".to_owned(),
        };
        let location = f.policy.as_ref().and_then(|k| by_key.get(k)).map(|o| {
            let line = if f.field.is_empty() {
                o.origin.line
            } else {
                o.line_of(&f.field)
            };
            format!("{}:{line}: ", o.origin.file)
        });
        warn(&format!(
            "{}{label} {}",
            style.bold(location.as_deref().unwrap_or("")),
            f
        ));
    }
    let policies = manifests
        .objects
        .iter()
        .filter(|o| o.key().kind == gamma_mesh::model::ResourceKind::XAuthorizationPolicy)
        .count();
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    warn(&format!(
        "{policies} XAuthorizationPolic{} translated into {objects} {mesh} object{}; {widened} widened, {narrowed} narrowed, {} other finding{}",
        plural(policies, "y", "ies"),
        plural(objects, "", "s"),
        findings.len() - widened - narrowed,
        plural(findings.len() - widened - narrowed, "", "s"),
    ));
}
