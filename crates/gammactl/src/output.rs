//! Writing results: text for people, JSON or YAML for programs.

use std::io::Write;

use serde::Serialize;

use crate::cli::Format;
use crate::failure::{Failure, input};

/// Writes `text` to standard output. A closed pipe (`gammactl ... | head`) ends the process
/// quietly with success instead of panicking like `println!`.
pub fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    let result = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if let Err(e) = result {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("gammactl: cannot write output: {e}");
        std::process::exit(1);
    }
}

/// Writes `text` plus a newline to standard output.
pub fn emit_line(text: &str) {
    let mut s = String::with_capacity(text.len() + 1);
    s.push_str(text);
    s.push('\n');
    emit(&s);
}

/// Writes a message to standard error.
pub fn warn(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// `value` as pretty JSON or YAML (for [`Format::Text`], JSON: callers print text themselves
/// and use this only for structured data).
pub fn render<T: Serialize>(value: &T, format: Format) -> Result<String, Failure> {
    match format {
        Format::Yaml => serde_saphyr::to_string(value)
            .map_err(|e| input(format!("cannot encode the result as YAML: {e}"))),
        Format::Json | Format::Text => serde_json::to_string_pretty(value)
            .map(|mut s| {
                s.push('\n');
                s
            })
            .map_err(|e| input(format!("cannot encode the result as JSON: {e}"))),
    }
}

/// Prints `value` as JSON or YAML.
pub fn print<T: Serialize>(value: &T, format: Format) -> Result<(), Failure> {
    emit(&render(value, format)?);
    Ok(())
}
