//! `gammactl owners`: the arbiter's decision for every (route, parent), as one controller sees
//! it (`--as`) or for every controller side by side (`--all`).

use gamma_arbiter::{Identity, Level, Ownership, Verdict};
use gamma_mesh::model::ObjectKey;
use gamma_mesh::model::gateway::ParentReference;
use serde::Serialize;

use crate::cli::{Format, OwnersArgs};
use crate::failure::Failure;
use crate::output::{emit, emit_line, print, warn};
use crate::ownership::{Arbitration, describe_parent, parent_refs, unregistered_mesh};
use crate::style::Style;
use crate::table;

/// One (route, parent) in the machine-readable output.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Pair<'a> {
    route: ObjectKey,
    parent_index: usize,
    parent: String,
    parent_ref: Option<&'a ParentReference>,
    verdict: &'a Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<Ownership>,
    #[serde(skip_serializing_if = "Option::is_none")]
    owned_by: Option<Vec<String>>,
}

/// Counts for the summary.
#[derive(Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary {
    owned: Vec<OwnedCount>,
    conflict: usize,
    unclaimed: usize,
    pending: usize,
    not_applicable: usize,
    /// Pairs a Namespace label gives to a mesh nobody registered (no `--config` entry, no
    /// XMesh): owned by no controller.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unregistered: Vec<UnregisteredCount>,
}

/// How many pairs name one unregistered mesh.
#[derive(Serialize)]
struct UnregisteredCount {
    mesh: String,
    pairs: usize,
}

/// How many (route, parent) pairs one controller owns (shared ownership counts for each).
#[derive(Serialize)]
struct OwnedCount {
    controller: String,
    pairs: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    controller: Option<&'a Identity>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    controllers: Vec<Column<'a>>,
    pairs: Vec<Pair<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct Column<'a> {
    label: &'a str,
    identity: &'a Identity,
}

pub fn run(args: &OwnersArgs) -> Result<(), Failure> {
    let manifests = super::read_strict(&args.input)?;
    let snapshot = manifests.snapshot();
    let arb = Arbitration::new(
        &args.config,
        &snapshot,
        manifests.parent_ref_controllers.as_ref(),
    )?;
    let err_style = Style::stderr();
    for d in arb.registry().diagnostics() {
        warn(&format!("{} {d}", err_style.yellow("warning:")));
    }
    if arb.registry().meshes().is_empty() {
        warn(&format!(
            "{} {}",
            err_style.yellow("note:"),
            unregistered_note(&arb)
        ));
    }
    let me = args
        .as_controller
        .as_deref()
        .map(|n| arb.identity(n))
        .transpose()?;
    let columns = if args.all {
        arb.controllers()
    } else {
        Vec::new()
    };

    let mut pairs = Vec::new();
    let mut summary = Summary::default();
    let mut owned_count = vec![0usize; columns.len()];
    for (key, index, verdict) in arb.decisions.pairs() {
        let route_ref = key.to_object_key();
        let route = &route_ref;
        // -n lists one namespace's routes, as kubectl get -n
        if args
            .input
            .namespace
            .as_ref()
            .is_some_and(|ns| *ns != route.namespace)
        {
            continue;
        }
        let refs = parent_refs(&snapshot, route);
        let parent_ref = refs.get(index);
        let parent = parent_ref.map_or_else(
            || format!("parentRefs[{index}]"),
            |p| describe_parent(p, &route.namespace),
        );
        match verdict {
            Verdict::Owned { owners, .. } => {
                for mesh in owners.names().iter().filter_map(|o| unregistered_mesh(o)) {
                    match summary.unregistered.iter_mut().find(|u| u.mesh == mesh) {
                        Some(u) => u.pairs += 1,
                        None => summary.unregistered.push(UnregisteredCount {
                            mesh: mesh.to_owned(),
                            pairs: 1,
                        }),
                    }
                }
                for (c, (_, id)) in columns.iter().enumerate() {
                    if owners.names().iter().any(|o| id.answers_to(o))
                        && let Some(n) = owned_count.get_mut(c)
                    {
                        *n += 1;
                    }
                }
            }
            Verdict::Conflict { .. } => summary.conflict += 1,
            Verdict::Unclaimed => summary.unclaimed += 1,
            Verdict::Pending { .. } => summary.pending += 1,
            _ => summary.not_applicable += 1,
        }
        let owned_by = args.all.then(|| {
            columns
                .iter()
                .filter(|(_, id)| {
                    verdict
                        .owners()
                        .is_some_and(|o| o.names().iter().any(|n| id.answers_to(n)))
                })
                .map(|(label, _)| label.clone())
                .collect()
        });
        pairs.push(Pair {
            route: route_ref.clone(),
            parent_index: index,
            parent,
            parent_ref,
            verdict,
            decision: me.as_ref().map(|m| verdict.view(m, arb.registry())),
            owned_by,
        });
    }
    summary.owned = columns
        .iter()
        .zip(&owned_count)
        .map(|((label, _), n)| OwnedCount {
            controller: label.clone(),
            pairs: *n,
        })
        .collect();
    if let Some(m) = &me
        && !args.all
    {
        let n = pairs
            .iter()
            .filter(|p| p.decision.as_ref().is_some_and(Ownership::is_owned))
            .count();
        summary.owned = vec![OwnedCount {
            controller: m.name.clone(),
            pairs: n,
        }];
    }

    summary.unregistered.sort_by(|a, b| a.mesh.cmp(&b.mesh));
    if !summary.unregistered.is_empty() {
        let names: Vec<&str> = summary
            .unregistered
            .iter()
            .map(|u| u.mesh.as_str())
            .collect();
        warn(&format!(
            "{} Namespace labels name meshes that nothing registers ({}): no controller owns \
             their routes. Register them with --config FILE (see examples/gamma-config.yaml) or \
             XMesh objects.",
            err_style.yellow("note:"),
            names.join(", ")
        ));
    }
    let report = Report {
        controller: me.as_ref(),
        controllers: columns
            .iter()
            .map(|(label, identity)| Column { label, identity })
            .collect(),
        pairs,
        summary,
    };
    match args.output.format() {
        Format::Text => {
            let style = Style::stdout();
            if args.all {
                emit(&render_all(&report, &columns, &style));
            } else if let Some(m) = &me {
                emit(&render_one(&report, m, &arb.controllers(), &style));
            }
            emit_line(&render_summary(&report.summary, &style));
            Ok(())
        }
        f => print(&report, f),
    }
}

/// Said when no mesh is registered (no `--config`, no XMesh): which controllers are known all
/// the same (GatewayClass controllerNames, controllers the routes name), and how to register
/// meshes, since without one no mesh column and no mesh ownership can appear.
fn unregistered_note(arb: &Arbitration) -> String {
    let mut known: Vec<String> = arb
        .controllers()
        .into_iter()
        .map(|(label, _)| label)
        .chain(arb.class_controllers.iter().cloned())
        .collect();
    known.sort();
    known.dedup();
    let known = if known.is_empty() {
        "no controller is known".to_owned()
    } else {
        format!("the only controllers known are {}", known.join(", "))
    };
    format!(
        "no mesh is registered (no --config, no XMesh objects), so {known}: register the meshes \
         that share the cluster with --config FILE (see examples/gamma-config.yaml) or XMesh \
         objects"
    )
}

fn level_short(level: &Level) -> String {
    match level.rung() {
        Some(r) => format!("{r}"),
        None => "class".to_owned(),
    }
}

/// Controller names as mesh names where a mesh has them (`linkerd` for
/// `linkerd.io/policy-controller`), to keep the table narrow.
fn short_names(names: &[String], columns: &[(String, Identity)]) -> String {
    names
        .iter()
        .map(|n| {
            if let Some(mesh) = unregistered_mesh(n) {
                return format!("unregistered mesh {mesh}");
            }
            columns
                .iter()
                .find(|(_, id)| id.answers_to(n))
                .map_or_else(|| n.clone(), |(label, _)| label.clone())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_one(
    report: &Report<'_>,
    me: &Identity,
    columns: &[(String, Identity)],
    style: &Style,
) -> String {
    let mut head = format!("as {}", me.name);
    if !me.aliases.is_empty() {
        head.push_str(&format!(" (also {})", me.aliases.join(", ")));
    }
    let mut rows = vec![vec![
        "ROUTE".to_owned(),
        "PARENT".to_owned(),
        "DECISION".to_owned(),
        "LEVEL".to_owned(),
        "WHY".to_owned(),
    ]];
    for p in &report.pairs {
        let Some(d) = &p.decision else { continue };
        let (decision, level, why) = match d {
            Ownership::Owned {
                owners,
                level,
                evidence,
            } => (
                if owners.len() > 1 {
                    format!(
                        "owned (shared with {})",
                        short_names(&others(owners.names(), me), columns)
                    )
                } else {
                    "owned".to_owned()
                },
                level_short(level),
                evidence.to_string(),
            ),
            Ownership::Foreign {
                owners,
                level,
                evidence,
            } => (
                format!("foreign ({})", short_names(owners.names(), columns)),
                level_short(level),
                evidence.to_string(),
            ),
            Ownership::Conflict {
                candidates,
                level,
                evidence,
                ..
            } => (
                format!("CONFLICT ({})", short_names(candidates.names(), columns)),
                level_short(level),
                evidence.to_string(),
            ),
            Ownership::Pending { level, .. } => {
                ("pending".to_owned(), level_short(level), d.to_string())
            }
            Ownership::Unclaimed => ("UNCLAIMED".to_owned(), "-".to_owned(), d.to_string()),
            _ => ("not applicable".to_owned(), "-".to_owned(), d.to_string()),
        };
        rows.push(vec![
            format!("{} {}/{}", p.route.kind, p.route.namespace, p.route.name),
            p.parent.clone(),
            decision,
            level,
            why,
        ]);
    }
    let body = table::render(&rows, &|r, c, text| {
        if r == 0 {
            style.bold(text)
        } else if c == 2 && text.starts_with("owned") {
            style.green(text)
        } else if c == 2 && (text.starts_with("CONFLICT") || text == "UNCLAIMED") {
            style.red(text)
        } else {
            text.to_owned()
        }
    });
    format!("{head}\n\n{body}\n")
}

fn others(names: &[String], me: &Identity) -> Vec<String> {
    names
        .iter()
        .filter(|n| !me.answers_to(n))
        .cloned()
        .collect()
}

fn render_all(report: &Report<'_>, columns: &[(String, Identity)], style: &Style) -> String {
    let mut header = vec!["ROUTE".to_owned(), "PARENT".to_owned()];
    header.extend(columns.iter().map(|(l, _)| l.clone()));
    header.push("VERDICT".to_owned());
    let mut rows = vec![header];
    for p in &report.pairs {
        let mut row = vec![
            format!("{} {}/{}", p.route.kind, p.route.namespace, p.route.name),
            p.parent.clone(),
        ];
        for (_, id) in columns {
            let cell = match p.verdict {
                Verdict::Owned { owners, .. }
                    if owners.names().iter().any(|o| id.answers_to(o)) =>
                {
                    "owns"
                }
                Verdict::Conflict { candidates, .. }
                    if candidates.names().iter().any(|o| id.answers_to(o)) =>
                {
                    "CONFLICT"
                }
                _ => "-",
            };
            row.push(cell.to_owned());
        }
        row.push(match p.verdict {
            Verdict::Owned {
                owners,
                level,
                evidence,
            } if owners
                .names()
                .iter()
                .all(|o| unregistered_mesh(o).is_some()) =>
            {
                let meshes: Vec<&str> = owners
                    .names()
                    .iter()
                    .filter_map(|o| unregistered_mesh(o))
                    .collect();
                format!(
                    "UNREGISTERED mesh {} at {level}: {evidence}; nobody programs it",
                    meshes.join(", ")
                )
            }
            Verdict::Owned {
                owners,
                level,
                evidence,
            } => {
                let shared = if owners.len() > 1 { "shared, " } else { "" };
                format!("{shared}{level}: {evidence}")
            }
            Verdict::Conflict {
                level, evidence, ..
            } => {
                format!("CONFLICT at {level}: {evidence}; nobody programs it")
            }
            Verdict::Unclaimed => "UNCLAIMED: no level names a controller, no default".to_owned(),
            other => other.to_string(),
        });
        rows.push(row);
    }
    let last = columns.len() + 2;
    let body = table::render(&rows, &|r, c, text| {
        if r == 0 {
            style.bold(text)
        } else if text == "owns" {
            style.green(text)
        } else if text == "CONFLICT"
            || (c == last && text.starts_with("CONFLICT"))
            || (c == last && text.starts_with("UNCLAIMED"))
            || (c == last && text.starts_with("UNREGISTERED"))
        {
            style.red(text)
        } else {
            text.to_owned()
        }
    });
    format!("{body}\n")
}

fn render_summary(s: &Summary, style: &Style) -> String {
    let owned: Vec<String> = s
        .owned
        .iter()
        .map(|o| format!("{} owns {}", o.controller, o.pairs))
        .collect();
    let problems = format!(
        "{} conflict{}, {} unclaimed, {} pending, {} not applicable",
        s.conflict,
        if s.conflict == 1 { "" } else { "s" },
        s.unclaimed,
        s.pending,
        s.not_applicable
    );
    let unregistered: usize = s.unregistered.iter().map(|u| u.pairs).sum();
    let problems = if unregistered > 0 {
        let names: Vec<&str> = s.unregistered.iter().map(|u| u.mesh.as_str()).collect();
        format!(
            "{problems}, {unregistered} for unregistered meshes ({})",
            names.join(", ")
        )
    } else {
        problems
    };
    let problems = if s.conflict + s.unclaimed + unregistered > 0 {
        style.yellow(&problems)
    } else {
        problems
    };
    if owned.is_empty() {
        problems
    } else {
        format!("{}; {problems}", owned.join(", "))
    }
}
