//! Reading `-f` inputs: files, folders (recursively, in sorted order) and standard input.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::failure::{Failure, usage};
use crate::problem::Problem;

/// The largest single input gammactl reads (64 MiB): bad input must not exhaust memory.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// How deep a folder tree is followed; deeper folders are reported, not read (symlink loops).
const MAX_DEPTH: usize = 32;

/// One input text and the name messages use for it.
#[derive(Debug, Clone)]
pub struct Source {
    /// The path as given (joined with the folder walk), or `<stdin>`.
    pub name: String,
    /// The whole text.
    pub text: String,
}

/// Reads every `-f` argument in order. A folder contributes its `*.yaml`, `*.yml` and `*.json`
/// files, recursively, sorted by path; a file named directly is read whatever its extension.
/// Unreadable inputs become problems (exit 1); `-` given twice is a usage error (exit 2).
pub fn read_all(paths: &[PathBuf]) -> Result<(Vec<Source>, Vec<Problem>), Failure> {
    let mut sources = Vec::new();
    let mut problems = Vec::new();
    let mut stdin_used = false;
    for path in paths {
        if path.as_os_str() == "-" {
            if stdin_used {
                return Err(usage("`-f -` (standard input) may be given only once"));
            }
            stdin_used = true;
            match read_limited(std::io::stdin().lock()) {
                Ok(text) => sources.push(Source {
                    name: "<stdin>".into(),
                    text,
                }),
                Err(e) => problems.push(Problem::file_error("<stdin>", e)),
            }
            continue;
        }
        collect(path, 0, true, &mut sources, &mut problems);
    }
    Ok((sources, problems))
}

fn collect(
    path: &Path,
    depth: usize,
    explicit: bool,
    sources: &mut Vec<Source>,
    problems: &mut Vec<Problem>,
) {
    let name = path.display().to_string();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            problems.push(Problem::file_error(&name, describe_io(&e)));
            return;
        }
    };
    if meta.is_dir() {
        if depth >= MAX_DEPTH {
            problems.push(Problem::file_error(
                &name,
                format!("folder nested deeper than {MAX_DEPTH} levels; not read"),
            ));
            return;
        }
        let entries = match std::fs::read_dir(path) {
            Ok(rd) => rd,
            Err(e) => {
                problems.push(Problem::file_error(&name, describe_io(&e)));
                return;
            }
        };
        let mut children: Vec<PathBuf> = Vec::new();
        for entry in entries {
            match entry {
                Ok(e) => children.push(e.path()),
                Err(e) => problems.push(Problem::file_error(&name, describe_io(&e))),
            }
        }
        children.sort();
        for child in children {
            collect(&child, depth + 1, false, sources, problems);
        }
        return;
    }
    if !explicit && !is_manifest_name(path) {
        return;
    }
    let result = std::fs::File::open(path)
        .map_err(|e| describe_io(&e))
        .and_then(read_limited);
    match result {
        Ok(text) => sources.push(Source { name, text }),
        Err(e) => problems.push(Problem::file_error(&name, e)),
    }
}

/// Whether a file found in a folder is read: `.yaml`, `.yml` or `.json`.
fn is_manifest_name(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "json")
    )
}

/// Reads at most [`MAX_INPUT_BYTES`], as UTF-8.
pub fn read_limited(reader: impl Read) -> Result<String, String> {
    read_up_to(reader, MAX_INPUT_BYTES)
}

fn read_up_to(reader: impl Read, limit: u64) -> Result<String, String> {
    let mut bytes = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| describe_io(&e))?;
    if bytes.len() as u64 > limit {
        return Err(format!("larger than {limit} bytes; not read"));
    }
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))
}

/// The I/O error as a short lower-case phrase (`permission denied`).
pub fn describe_io(e: &std::io::Error) -> String {
    let text = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => e.to_string(),
    };
    format!("cannot read: {text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_walk_reads_only_manifest_extensions() {
        assert!(is_manifest_name(Path::new("a/b.yaml")));
        assert!(is_manifest_name(Path::new("b.yml")));
        assert!(is_manifest_name(Path::new("b.json")));
        assert!(!is_manifest_name(Path::new("README.md")));
        assert!(!is_manifest_name(Path::new("yaml")));
    }

    #[test]
    fn oversized_input_is_refused_not_read() {
        let big = std::io::repeat(b'a').take(200);
        let err = read_up_to(big, 100).unwrap_err();
        assert!(err.contains("larger than"), "{err}");
    }
}
