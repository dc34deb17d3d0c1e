//! `gammactl validate`: decode and validate everything, list every problem, then the counts.

use gamma_mesh::model::validate::add_transition_errors;
use gamma_mesh::model::validate::{FieldValidation, ValidateOptions};
use serde::Serialize;

use crate::check;
use crate::cli::{FieldValidationArg, Format, ValidateArgs};
use crate::failure::Failure;
use crate::output::{emit_line, print};
use crate::problem::{Problem, Severity};
use crate::style::Style;

/// The machine-readable report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    /// The Gateway API release the objects were judged by (`v1.7`).
    gateway_api: &'static str,
    /// Its channel (`standard` or `experimental`).
    channel: &'static str,
    /// The CRD extensions taken as installed (`controllers`): from `--crd-extension`, or read
    /// from the cluster's CRDs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    crd_extensions: Vec<&'static str>,
    /// The kinds judged by another bundle than `gatewayApi` and `channel` (a cluster whose
    /// CRDs come from more than one bundle: each kind under its own CRD's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    kinds: Vec<KindBundle>,
    files: usize,
    /// Whether the objects were read from a cluster (`--kubeconfig`, ...), not from files: the
    /// text says so instead of a file count (the JSON has no other difference).
    #[serde(skip)]
    from_cluster: bool,
    objects: usize,
    errors: usize,
    warnings: usize,
    problems: &'a [Problem],
    /// Objects of kinds gamma-rs does not read (not problems: summarised on standard error).
    skipped: Skipped<'a>,
}

/// A kind judged by its own CRD's bundle.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct KindBundle {
    kind: &'static str,
    gateway_api: &'static str,
    channel: &'static str,
}

#[derive(Debug, Serialize)]
struct Skipped<'a> {
    objects: usize,
    kinds: Vec<&'a str>,
}

pub fn run(args: &ValidateArgs) -> Result<(), Failure> {
    let mut manifests = super::read_checked(&args.input)?;
    let mut opts = ValidateOptions::bundles(&manifests.kinds);
    opts.field_validation = match args.field_validation {
        FieldValidationArg::Strict => FieldValidation::Strict,
        FieldValidationArg::Warn => FieldValidation::Warn,
        FieldValidationArg::Ignore => FieldValidation::Ignore,
    };
    let old = match &args.old {
        Some(path) => {
            let (sources, problems) = crate::input::read_all(std::slice::from_ref(path))?;
            let old = crate::manifests::Manifests::load_in(
                &sources,
                problems,
                crate::manifests::DEFAULT_NAMESPACE,
                false,
                Some(manifests.bundle),
            );
            // The stored objects' own problems are not this run's: only unreadable input is.
            manifests
                .problems
                .extend(old.problems.into_iter().filter(|p| p.is_error()));
            old.objects
                .into_iter()
                .map(|o| (o.key(), o.resource))
                .collect()
        }
        None => std::collections::BTreeMap::new(),
    };
    // The field the CRD extension declares: as the cluster's CRDs say, or as --crd-extension.
    let controllers_declared = manifests.controllers_declared;
    let mut found = Vec::new();
    for object in &manifests.objects {
        let mut report = check::validate(object, &opts, controllers_declared);
        if let Some(stored) = old.get(&object.key()) {
            let release = opts.for_kind(object.resource.kind()).release;
            add_transition_errors(&mut report, stored, &object.resource, release);
        }
        found.extend(check::problems(object, &report));
        if report.errors.is_empty() {
            found.extend(dropped_rule_warnings(object, &report, &opts));
        }
    }
    let options = args.config.build_options()?;
    found.extend(parent_group_warnings(&manifests, options.core_group_alias));
    if args.refs {
        found.extend(reference_problems(&manifests, options));
    }
    manifests.problems.extend(found);
    // Sorted by input file order (unreadable files first), then line, so the list reads top
    // to bottom per file; the sort is stable, keeping the order problems were found in within
    // one line.
    let order = &manifests.file_order;
    manifests.problems.sort_by_key(|p| {
        (
            p.file
                .as_ref()
                .and_then(|f| order.iter().position(|x| x == f)),
            p.line,
        )
    });
    let errors = manifests.problems.iter().filter(|p| p.is_error()).count();
    // the one-line summary of skipped kinds (on standard error unless --quiet) is a warning too
    let skipped_warning = !args.input.quiet && !manifests.skipped.is_empty();
    let warnings = manifests.problems.len() - errors + usize::from(skipped_warning);
    let report = Report {
        gateway_api: opts.release.as_str(),
        channel: opts.channel.as_str(),
        crd_extensions: if controllers_declared {
            vec![gamma_kube::crd_extension::CONTROLLERS]
        } else {
            Vec::new()
        },
        kinds: manifests
            .kinds
            .overrides()
            .map(|(kind, b)| KindBundle {
                kind: kind.as_str(),
                gateway_api: b.release.as_str(),
                channel: b.channel.as_str(),
            })
            .collect(),
        files: manifests.files,
        from_cluster: manifests.parent_ref_controllers.is_some(),
        objects: manifests.objects.len(),
        errors,
        warnings,
        problems: &manifests.problems,
        skipped: Skipped {
            objects: manifests.skipped.len(),
            kinds: manifests.skipped_kinds(),
        },
    };
    match args.output.format() {
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
    let mut extensions: String = report
        .crd_extensions
        .iter()
        .map(|e| format!(", CRD extension {e}"))
        .collect();
    for k in &report.kinds {
        extensions.push_str(&format!(
            "; {} by its CRD's: Gateway API {}, {} channel",
            k.kind, k.gateway_api, k.channel
        ));
    }
    // a cluster read has one source text per object: "12 objects in 12 files" would mislead
    let source = if report.from_cluster {
        "from the cluster".to_owned()
    } else {
        format!("in {} file{}", report.files, plural(report.files))
    };
    let counts = format!(
        "{} object{} {source}: {} error{}, {} warning{} (Gateway API {}, {} channel{extensions})",
        report.objects,
        plural(report.objects),
        report.errors,
        plural(report.errors),
        report.warnings,
        plural(report.warnings),
        report.gateway_api,
        report.channel,
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

/// The conditions gamma-resolve computes for every (route, parentRef) that are not `True`, as
/// warnings located at the parentRef.
fn reference_problems(
    manifests: &crate::manifests::Manifests,
    options: gamma_resolve::BuildOptions,
) -> Vec<Problem> {
    let table = gamma_resolve::RouteTable::build(&manifests.snapshot(), &options);
    let by_key: std::collections::HashMap<gamma_mesh::model::ObjectKey, &crate::manifests::Loaded> =
        manifests.objects.iter().map(|o| (o.key(), o)).collect();
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for p in table.parent_conditions() {
        let key = gamma_mesh::model::ObjectKey::new(
            match gamma_mesh::model::ResourceKind::from_kind_name(p.kind.as_str()) {
                Some(k) => k,
                None => continue,
            },
            p.namespace.clone(),
            p.name.clone(),
        );
        let Some(object) = by_key.get(&key) else {
            continue;
        };
        // a misgrouped Service parent is already a warning of plain validate
        let misgrouped = object
            .resource
            .as_route()
            .and_then(|r| r.parent_refs.get(p.parent_index))
            .is_some_and(|r| r.misgrouped_service().is_some());
        if misgrouped {
            continue;
        }
        // each unresolved reference at its own field, once per route (a route with two
        // parents would otherwise report its backendRefs twice)
        for r in &p.unresolved {
            if seen.insert((key.clone(), r.field.clone(), r.message.clone())) {
                out.push(object.problem(
                    Severity::Warning,
                    &r.field,
                    format!(
                        "ResolvedRefs=False {}",
                        reason_and_message(&r.reason, &r.message)
                    ),
                ));
            }
        }
        // ResolvedRefs is already there, one line per reference
        let listed = |c: &gamma_resolve::status::RouteCondition| {
            !p.unresolved.is_empty() && c.type_ == gamma_resolve::status::RESOLVED_REFS
        };
        for c in p.conditions.iter().filter(|c| !c.status && !listed(c)) {
            out.push(object.problem(
                Severity::Warning,
                &format!("spec.parentRefs[{}]", p.parent_index),
                format!(
                    "{}=False {}",
                    c.type_,
                    reason_and_message(&c.reason, &c.message)
                ),
            ));
        }
    }
    out
}

/// `REASON: MESSAGE`, or the message alone when it already starts with the reason
/// (`BackendNotFound (books/opinions-v3)`), so that no reason is said twice.
fn reason_and_message(reason: &str, message: &str) -> String {
    let repeats = message
        .strip_prefix(reason)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ':']));
    if repeats {
        message.to_owned()
    } else {
        format!("{reason}: {message}")
    }
}

/// The rules of a route the API server would admit that gamma-rs does not serve, as warnings
/// at `spec.rules[i]`: the engine's own verdict ([`gamma_resolve::lower_route`], the lowering
/// `status`, `resolve` and `explain` read), so the four commands name the same rules with the
/// same reasons (the route's status: `PartiallyInvalid` "Dropped Rule", or `Accepted=False`
/// when no rule is left). A rule already warned about for a header value with CR, LF or NUL is
/// not warned twice.
fn dropped_rule_warnings(
    object: &crate::manifests::Loaded,
    report: &gamma_mesh::model::validate::Report,
    opts: &ValidateOptions,
) -> Vec<Problem> {
    let Some(route) = gamma_resolve::lower_route(&object.resource, opts) else {
        return Vec::new();
    };
    route
        .rules
        .iter()
        .enumerate()
        .filter_map(|(i, rule)| {
            let invalid = rule.invalid.as_ref()?;
            let at = format!("spec.rules[{i}]");
            let warned = report.warnings.iter().any(|w| {
                let p = w.path.as_str();
                p.strip_prefix(&at)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
            });
            (!warned).then(|| {
                object.problem(
                    Severity::Warning,
                    &at,
                    format!(
                        "rule {i} is dropped by gamma-rs ({}): {}",
                        invalid.reason, invalid.message
                    ),
                )
            })
        })
        .collect()
}

/// The parentRef group trap, warned by plain `validate` (no `--refs` needed): it is in the
/// object itself. Under `coreGroupAlias` (`--config`) `group: core` is bound, so the warning
/// says it is not portable instead.
fn parent_group_warnings(
    manifests: &crate::manifests::Manifests,
    core_group_alias: bool,
) -> Vec<Problem> {
    let mut out = Vec::new();
    // The defaulting trap (ParentReference.group): `kind: Service` without `group` means
    // gateway.networking.k8s.io/Service, which nothing implements; the route attaches nowhere
    // and no controller will ever report that in its status.
    for object in &manifests.objects {
        let Some(refs) = object.resource.as_route().map(|r| r.parent_refs) else {
            continue;
        };
        for (i, r) in refs.iter().enumerate() {
            if r.kind.as_deref() != Some("Service") {
                continue;
            }
            // Read or defaulted alike: a stored route carries the default group.
            let message = match r.group.as_deref() {
                None | Some(gamma_mesh::model::gateway::GROUP) => {
                    "kind Service in group gateway.networking.k8s.io (what an omitted group \
                     defaults to) is not the core Service, and no controller implements it: the \
                     route attaches to nothing; write group: \"\" for a core Service"
                }
                Some("core") if core_group_alias => {
                    "group core is read as the core API group under coreGroupAlias \
                     (non-standard, as Linkerd): other implementations bind nothing; write \
                     group: \"\" for a core Service"
                }
                // Upstream's docs once used `group: core`; the spec'd form is the empty group.
                Some("core") => {
                    "group core is not the core API group (that is the empty group): \
                     write group: \"\" for a core Service"
                }
                _ => continue,
            };
            out.push(object.problem(
                Severity::Warning,
                &format!("spec.parentRefs[{i}]"),
                message.to_owned(),
            ));
        }
    }
    out
}
