//! `gammactl`: validate Gateway API / GAMMA manifests, resolve and explain requests, show route
//! ownership and status, print JSON Schemas.
//!
//! Exit codes: 0 success, 1 the input has problems, 2 usage errors.
#![forbid(unsafe_code)]

mod chain;
mod check;
mod cli;
mod cluster;
mod cmd;
mod engine;
mod failure;
mod input;
mod locate;
mod manifests;
mod output;
mod ownership;
mod problem;
mod request;
mod sample;
mod style;
mod table;

use std::process::ExitCode;

use clap::Parser;

use crate::failure::Failure;
use crate::style::Style;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cmd::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Reported) => Failure::Reported.exit_code(),
        Err(failure) => {
            let style = Style::stderr();
            let label = match failure {
                Failure::Usage(_) => "usage error:",
                _ => "error:",
            };
            output::warn(&format!("gammactl: {} {failure}", style.red(label)));
            failure.exit_code()
        }
    }
}
