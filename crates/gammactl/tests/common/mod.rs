//! Running the real `gammactl` binary and comparing its output with expected files.
//!
//! Expected files live in `tests/expected/NAME.txt` and hold a transcript: the command, the
//! exit code, standard output and standard error. To regenerate them after a deliberate
//! change of output, run `GAMMACTL_BLESS=1 cargo test -p gammactl` and review the diff.

#![allow(dead_code)] // each test binary uses a different subset

pub mod live;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root: commands run there so paths in output read `examples/manifests/...`.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root exists")
}

/// What one run produced.
#[derive(Debug)]
pub struct Run {
    pub args: Vec<String>,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The transcript form stored in expected files.
    pub fn transcript(&self) -> String {
        format!(
            "$ gammactl {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
            self.args.join(" "),
            self.code,
            self.stdout,
            self.stderr
        )
    }
}

/// Runs `gammactl ARGS` in the workspace root, with `stdin` as standard input.
pub fn run_with_stdin(args: &[&str], stdin: Option<&str>) -> Run {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gammactl"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gammactl starts");
    if let Some(text) = stdin {
        let written = child
            .stdin
            .take()
            .expect("stdin is piped")
            .write_all(text.as_bytes());
        match written {
            Ok(()) => {}
            // gammactl may exit before it reads its input (a usage error is found first):
            // what it answered is the test's to judge, not the pipe's
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            Err(e) => panic!("stdin written: {e}"),
        }
    }
    let out = child.wait_with_output().expect("gammactl finishes");
    Run {
        args: args.iter().map(|s| s.to_string()).collect(),
        code: out.status.code().expect("exited, not killed"),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs `gammactl ARGS` in the workspace root.
pub fn run(args: &[&str]) -> Run {
    run_with_stdin(args, None)
}

/// Asserts the exit code, then compares the run's transcript with `tests/expected/NAME.txt`
/// (or writes it when `GAMMACTL_BLESS` is set).
pub fn check(name: &str, args: &[&str], code: i32) -> Run {
    let run = run(args);
    assert_eq!(
        run.code, code,
        "exit code of gammactl {args:?}\nstdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    compare(name, &run);
    run
}

/// Compares (or blesses) a transcript.
pub fn compare(name: &str, run: &Run) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expected")
        .join(format!("{name}.txt"));
    let actual = run.transcript();
    if std::env::var_os("GAMMACTL_BLESS").is_some() {
        std::fs::write(&path, &actual).expect("expected file written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "{} is missing; run GAMMACTL_BLESS=1 cargo test -p gammactl to create it",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "output of `gammactl {}` differs from {}\n(if the change is deliberate, regenerate with GAMMACTL_BLESS=1)\n--- expected\n{expected}\n--- actual\n{actual}",
            run.args.join(" "),
            path.display()
        );
    }
}

/// Runs `gammactl status -f INPUT --as CONTROLLER` at a fixed `--now` and asserts it exited 0.
pub fn status_as(input: &str, controller: &str) -> Run {
    let r = run(&[
        "status",
        "-f",
        input,
        "--as",
        controller,
        "--now",
        "2026-11-29T12:00:00Z",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r
}
