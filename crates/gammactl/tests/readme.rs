//! The outputs pasted in crates/gammactl/README.md and in the repository's README.md are real:
//! every ```console block starting with `$ gammactl ARGS` is re-run here and must print exactly
//! the rest of the block (standard output, then standard error). `GAMMACTL_BLESS=1` rewrites the
//! blocks from fresh runs.

mod common;

use std::path::Path;

/// Splits the README into text and console blocks: `(command, recorded output)` per block.
fn blocks(readme: &str) -> Vec<(usize, usize, String, String)> {
    let mut out = Vec::new();
    let mut search = 0;
    while let Some(start) = readme[search..].find("```console\n$ gammactl ") {
        let start = search + start;
        let body = start + "```console\n".len();
        let Some(end) = readme[body..].find("```") else {
            break;
        };
        let end = body + end;
        let block = &readme[body..end];
        let (first, rest) = block.split_once('\n').unwrap_or((block, ""));
        let command = first.trim_start_matches("$ gammactl ").to_owned();
        out.push((body, end, command, rest.to_owned()));
        search = end + 3;
    }
    out
}

#[test]
fn every_console_block_in_the_readme_matches_a_fresh_run() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    check_readme(&path, 10);
}

#[test]
fn every_console_block_in_the_repository_readme_matches_a_fresh_run() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    check_readme(&path, 2);
}

fn check_readme(path: &Path, at_least: usize) {
    let readme = std::fs::read_to_string(path).unwrap();
    let found = blocks(&readme);
    assert!(
        found.len() >= at_least,
        "expected at least {at_least} console examples in {}, found {}",
        path.display(),
        found.len()
    );
    let mut blessed = String::new();
    let mut last = 0;
    let mut mismatches = Vec::new();
    for (body, end, command, recorded) in &found {
        let args: Vec<&str> = command.split_whitespace().collect();
        let run = common::run(&args);
        let actual = format!("{}{}", run.stdout, run.stderr);
        if &actual != recorded {
            mismatches.push(format!(
                "$ gammactl {command}\n--- README\n{recorded}--- actual\n{actual}"
            ));
        }
        blessed.push_str(&readme[last..*body]);
        blessed.push_str(&format!("$ gammactl {command}\n{actual}"));
        last = *end;
    }
    blessed.push_str(&readme[last..]);
    if std::env::var_os("GAMMACTL_BLESS").is_some() {
        std::fs::write(path, blessed).unwrap();
        return;
    }
    assert!(
        mismatches.is_empty(),
        "README outputs are stale (regenerate with GAMMACTL_BLESS=1):\n{}",
        mismatches.join("\n")
    );
}
