//! One module per subcommand.

mod authorize;
mod authorize_gep;
mod convert;
mod convert_authz;
mod crd_extension;
mod explain;
mod listener_sets;
mod owners;
mod report;
mod resolve;
mod schema;
mod status;
mod validate;
mod verdict;

use gamma_mesh::model::validate::KindBundles;

use crate::cli::{Command, InputArgs};
use crate::failure::Failure;
use crate::manifests::Manifests;
use crate::output::warn;
use crate::style::Style;

/// Runs a subcommand.
pub fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Validate(args) => validate::run(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Resolve(args) => resolve::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Owners(args) => owners::run(&args),
        Command::Status(args) => status::run(&args),
        Command::Convert(crate::cli::ConvertCommand::Smi(args)) => convert::smi(&args),
        Command::Convert(crate::cli::ConvertCommand::AuthorizationPolicy(args)) => {
            convert_authz::run(&args)
        }
        Command::Authorize(args) => authorize::run(&args),
        Command::CrdExtension(crate::cli::CrdExtensionCommand::Controllers(args)) => {
            crd_extension::controllers(&args)
        }
        Command::CrdExtension(crate::cli::CrdExtensionCommand::AuthorizationPolicy(args)) => {
            authorize_gep::crd(&args)
        }
    }
}

/// Reads and decodes the `-f` inputs. Objects of kinds gamma-rs does not read are summarised
/// in one line on standard error (a folder of real manifests holds Deployments and ConfigMaps
/// by the dozen: a warning each would bury the ones that matter), unless `--quiet`.
pub fn read(args: &InputArgs) -> Result<Manifests, Failure> {
    load(args, false)
}

/// As [`read`], recording each object's unknown and missing fields (for `validate`).
pub fn read_checked(args: &InputArgs) -> Result<Manifests, Failure> {
    load(args, true)
}

/// [`read`] and [`read_checked`]. Files are read with the CRD defaults of the bundle they are
/// judged by (`--bundle-version` and `--channel`), as the API server applies them before
/// storing, so that a file reads as the object a cluster stores from it. Objects read from a
/// cluster were defaulted by its API server and are read as they are, and judged by the bundle
/// its CRDs name unless the flags say otherwise.
fn load(args: &InputArgs, checked: bool) -> Result<Manifests, Failure> {
    let (sources, problems, facts) = sources(args)?;
    let bundle = match &facts {
        Some(facts) => args.bundle_over(facts.bundle.unwrap_or_default()),
        None => args.bundle(),
    };
    let defaults = facts.is_none().then_some(bundle);
    let mut manifests = Manifests::load_in(&sources, problems, args.namespace(), checked, defaults);
    manifests.secrets_complete = args.secrets_complete;
    manifests.bundle = bundle;
    // Each kind under its own CRD's bundle on a cluster, unless the flags name one for all.
    let flags = args.bundle_version.is_some() || args.channel.is_some();
    manifests.kinds = match &facts {
        Some(facts) if !flags => facts
            .kinds
            .clone()
            .unwrap_or_else(|| KindBundles::new(bundle)),
        _ => KindBundles::new(bundle),
    };
    // The field the CRD extension declares: as the cluster's CRDs say, or as --crd-extension.
    manifests.controllers_declared = match &facts {
        Some(facts) => facts.parent_ref_controllers.is_declared(),
        None => args
            .crd_extensions
            .contains(&crate::cli::CrdExtensionArg::Controllers),
    };
    if let Some(facts) = facts {
        manifests.parent_ref_controllers = Some(facts.parent_ref_controllers);
        if !args.quiet {
            for note in &facts.notes {
                warn(&format!("{} {note}", Style::stderr().yellow("warning:")));
            }
        }
    }
    nothing_found(args, &manifests)?;
    Ok(summarise_skipped(args, manifests))
}

/// The input texts: the `-f` files, or one per object of the cluster named by `--kubeconfig`,
/// `--context` or `--cluster`, with what that cluster's CRDs say.
#[allow(clippy::type_complexity)]
fn sources(
    args: &InputArgs,
) -> Result<
    (
        Vec<crate::input::Source>,
        Vec<crate::problem::Problem>,
        Option<crate::cluster::ClusterFacts>,
    ),
    Failure,
> {
    if crate::cluster::wanted(args) {
        let (sources, facts) = crate::cluster::read(args)?;
        Ok((sources, Vec::new(), Some(facts)))
    } else {
        let (sources, problems) = crate::input::read_all(&args.files)?;
        Ok((sources, problems, None))
    }
}

/// `-f` inputs that hold no object at all (an empty folder, a folder of other files, empty
/// documents) are an input error (exit 1), as kubectl's `error: no objects passed to apply`:
/// answering "0 objects: 0 errors" would pass a mistyped path. Files that could not be read are
/// reported as such instead; a cluster with no objects is an answer, not an error.
fn nothing_found(args: &InputArgs, manifests: &Manifests) -> Result<(), Failure> {
    if crate::cluster::wanted(args)
        || !manifests.objects.is_empty()
        || !manifests.skipped.is_empty()
        || !manifests.problems.is_empty()
    {
        return Ok(());
    }
    let paths: Vec<String> = args.files.iter().map(|p| p.display().to_string()).collect();
    Err(crate::failure::input(format!(
        "no manifests found in {}: no objects passed (as kubectl: error: no objects passed to \
         apply)",
        paths.join(", ")
    )))
}

/// The one-line summary of the skipped kinds, unless `--quiet`; for files, the one note on
/// the namespaces they use but do not define (taken to exist, unlabelled).
fn summarise_skipped(args: &InputArgs, mut manifests: Manifests) -> Manifests {
    if !crate::cluster::wanted(args)
        && let Some(note) = manifests.assume_namespaces()
    {
        warn(&format!("{} {note}", Style::stderr().dim("note:")));
    }
    if !args.quiet
        && let Some(summary) = manifests.skipped_summary()
    {
        warn(&format!(
            "{} {summary} (--quiet hides this)",
            Style::stderr().yellow("warning:")
        ));
    }
    manifests
}

/// Reads the inputs for a command that needs them all: problems go to standard error, and any
/// error stops the command (exit 1) rather than answering from a partial cluster. Then what
/// the API server would refuse or prune of the objects goes to standard error as warnings
/// ([`warn_refused`]); the command answers for the objects as written all the same.
pub fn read_strict(args: &InputArgs) -> Result<Manifests, Failure> {
    let manifests = read(args)?;
    let style = Style::stderr();
    for p in &manifests.problems {
        warn(&p.render(&style));
    }
    if manifests.has_errors() {
        return Err(Failure::Reported);
    }
    warn_refused(&manifests);
    Ok(manifests)
}

/// One warning naming how many objects the API server of the bundle they are judged by would
/// refuse (under strict field validation) or prune fields of, then `validate`'s line for each
/// problem ([`crate::check::refused`]: the same wording, file:line, field path and fixes).
/// Standard error only: standard output stays the command's answer, machine-readable with
/// `-o json`/`yaml`. Neither the answer nor the exit code changes: `validate` is the judge.
fn warn_refused(manifests: &Manifests) {
    let refused = crate::check::refused(manifests);
    if refused.is_empty() {
        return;
    }
    let mut objects: Vec<_> = refused.iter().filter_map(|p| p.object.as_ref()).collect();
    objects.sort();
    objects.dedup();
    let n = objects.len();
    let style = Style::stderr();
    warn(&format!(
        "{} {n} object{} would not be stored as written by the API server of {}{}: refused, or \
         stored without {} unknown fields under fieldValidation Warn or Ignore; the answer below \
         is for the objects as written (`gammactl validate` reports the same):",
        style.yellow("warning:"),
        if n == 1 { "" } else { "s" },
        manifests.kinds,
        if manifests.controllers_declared {
            " with the CRD extension controllers"
        } else {
            ""
        },
        if n == 1 { "its" } else { "their" },
    ));
    for p in &refused {
        warn(&p.render(&style));
    }
}
