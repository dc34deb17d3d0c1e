//! The engine-independent test vectors (`testdata/vectors`, read by gamma-resolve's
//! `tests/common/vectors.rs`, included here) through the real binary: every case as a line of
//! `gammactl resolve --requests -`, and again as the flags of `gammactl explain -o json`. The
//! library's engines run the same files (gamma-resolve `tests/vectors.rs`).

mod common;

#[path = "../../gamma-resolve/tests/common/vectors.rs"]
mod vectors;

use common::{run, run_with_stdin};
use vectors::{Expect, VectorRequest};

/// `explain`'s flags for a request.
fn flags(r: &VectorRequest) -> Vec<String> {
    let mut out = vec!["--to".to_owned(), r.to.clone()];
    let mut opt = |flag: &str, v: &Option<String>| {
        if let Some(v) = v {
            out.push(flag.to_owned());
            out.push(v.clone());
        }
    };
    opt("--from", &r.from);
    opt("--host", &r.host);
    opt("--sni", &r.sni);
    opt("--protocol", &r.protocol);
    opt("--entropy", &r.entropy.map(|e| e.to_string()));
    for (name, value) in &r.headers {
        out.push("--header".to_owned());
        out.push(format!("{name}={value}"));
    }
    if let Some(m) = &r.method {
        out.push(m.clone());
    }
    if let Some(p) = &r.path {
        out.push(p.clone());
    }
    out
}

#[test]
fn gammactl_resolve_and_explain_decide_every_vector_as_the_gateway_api_prescribes() {
    let scratch = std::env::temp_dir().join(format!("gammactl-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let mut failures = Vec::new();
    let mut cases = 0;
    for (path, file) in vectors::all() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let manifests = scratch.join(&name);
        std::fs::write(&manifests, &file.manifests).expect("manifests written");
        let manifests = manifests.to_string_lossy().into_owned();

        let lines: String = file
            .cases
            .iter()
            .map(|c| serde_json::to_string(&c.request).unwrap() + "\n")
            .collect();
        let resolved = run_with_stdin(
            &["resolve", "-f", &manifests, "--requests", "-", "--quiet"],
            Some(&lines),
        );
        assert_eq!(resolved.code, 0, "{name}: {}", resolved.stderr);
        let answers: Vec<&str> = resolved.stdout.lines().collect();
        assert_eq!(
            answers.len(),
            file.cases.len(),
            "{name}: one answer per line"
        );

        for (case, answer) in file.cases.iter().zip(answers) {
            cases += 1;
            let json: serde_json::Value = serde_json::from_str(answer).unwrap();
            let from_resolve = Expect::from_decision_json(&json);

            let mut args = vec![
                "explain".to_owned(),
                "-f".to_owned(),
                manifests.clone(),
                "-o".to_owned(),
                "json".to_owned(),
                "--quiet".to_owned(),
            ];
            args.extend(flags(&case.request));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let explained = run(&args);
            assert_eq!(
                explained.code, 0,
                "{name} {}: {}",
                case.name, explained.stderr
            );
            let json: serde_json::Value = serde_json::from_str(&explained.stdout).unwrap();
            let from_explain = Expect::from_decision_json(&json["decisionJson"]);

            for (command, got) in [("resolve", from_resolve), ("explain", from_explain)] {
                if got != case.expect {
                    failures.push(format!(
                        "{name} case {:?} ({}): gammactl {command} decided {got:?}, expected {:?}",
                        case.name, case.spec, case.expect
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(cases > 0, "no vector cases ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
