//! Why a command failed, and the exit code that says so.
//!
//! Exit codes are part of the interface scripts rely on: 0 success, 1 the input has problems
//! (invalid manifests, unreadable files, unresolvable requests), 2 usage errors (bad flags or
//! arguments; clap's own parse errors already exit 2).

use std::fmt;
use std::process::ExitCode;

/// A failure that ends the command.
#[derive(Debug)]
pub enum Failure {
    /// The command line is wrong: exit 2.
    Usage(String),
    /// The input (manifests, request files, config) is wrong: exit 1.
    Input(String),
    /// The problems were already printed; only the exit code (1) is left to give.
    Reported,
}

impl Failure {
    /// The process exit code for this failure.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Failure::Usage(_) => ExitCode::from(2),
            Failure::Input(_) | Failure::Reported => ExitCode::from(1),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Usage(m) | Failure::Input(m) => f.write_str(m),
            Failure::Reported => f.write_str("problems reported above"),
        }
    }
}

/// Shorthand for a usage error.
pub fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

/// Shorthand for an input error.
pub fn input(message: impl Into<String>) -> Failure {
    Failure::Input(message.into())
}
