//! One module per subcommand.

mod schema;
mod validate;

use crate::cli::Command;
use crate::failure::{Failure, usage};

/// Runs a subcommand.
pub fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Validate(args) => validate::run(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Resolve(_) | Command::Explain(_) => Err(usage(
            "resolve and explain are not available in this build yet",
        )),
        Command::Owners(_) | Command::Status(_) => Err(usage(
            "owners and status are not available in this build yet",
        )),
    }
}

use crate::cli::InputArgs;
use crate::manifests::Manifests;
use crate::output::warn;
use crate::style::Style;

/// Reads and decodes the `-f` inputs.
pub fn read(args: &InputArgs) -> Result<Manifests, Failure> {
    let (sources, problems) = crate::input::read_all(&args.files)?;
    Ok(Manifests::load(&sources, problems))
}

/// Reads the inputs for a command that needs them all: problems go to standard error, and any
/// error stops the command (exit 1) rather than answering from a partial cluster.
pub fn read_strict(args: &InputArgs) -> Result<Manifests, Failure> {
    let manifests = read(args)?;
    let style = Style::stderr();
    for p in &manifests.problems {
        warn(&p.render(&style));
    }
    if manifests.has_errors() {
        return Err(Failure::Reported);
    }
    Ok(manifests)
}
