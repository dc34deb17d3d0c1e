//! Every command that reads manifests says, before its answer, what the API server of the
//! bundle the objects are judged by would refuse or prune of them: `validate`'s own lines (the
//! same wording, file:line, field path and fixes), as warnings on standard error. The answer
//! (standard output) and the exit code stay those for the objects as written; `validate` is the
//! judge (docs/gammactl.md, "What the API server would refuse"). The sample (examples/manifests)
//! writes `parentRefs[].controllers` on HTTPRoute shop/cart, which no upstream CRD declares.

mod common;

use common::run;

const SAMPLE: &str = "examples/manifests";
const CONFIG: &str = "examples/gamma-config.yaml";

/// The sample's bundle flags: it holds XMesh objects, served by the experimental channel only.
const CHANNEL: [&str; 2] = ["--channel", "experimental"];

/// The commands that read manifests, each on the sample (`-f` and `extra` are inserted after
/// the subcommand).
fn commands() -> Vec<Vec<&'static str>> {
    vec![
        vec!["owners", "--config", CONFIG, "--all"],
        vec![
            "status",
            "--config",
            CONFIG,
            "--as",
            "linkerd",
            "--now",
            "2026-11-29T12:00:00Z",
        ],
        vec![
            "resolve",
            "--from",
            "shop",
            "--to",
            "checkout.shop:80",
            "GET",
            "/api/orders",
        ],
        vec![
            "explain",
            "--from",
            "shop",
            "--to",
            "10.96.10.20:80",
            "--header",
            "x-canary=true",
            "GET",
            "/api/orders",
        ],
    ]
}

fn run_on_sample(command: &[&str], extra: &[&str]) -> common::Run {
    let mut args = vec![command[0], "-f", SAMPLE];
    args.extend_from_slice(&CHANNEL);
    args.extend_from_slice(extra);
    args.extend_from_slice(&command[1..]);
    run(&args)
}

/// The error lines of `validate` on the sample (its default, strict field validation): one
/// per problem, `file:line: Kind namespace/name: field.path: message`.
fn validate_errors(extra: &[&str]) -> Vec<String> {
    let r = run_on_sample(&["validate"], extra);
    r.stdout
        .lines()
        .filter(|l| l.starts_with(SAMPLE) && !l.contains(": warning: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_command_prints_validate_s_lines_for_what_the_api_server_would_refuse() {
    let errors = validate_errors(&[]);
    let cart = errors
        .iter()
        .find(|l| l.contains("HTTPRoute shop/cart: spec.parentRefs[0].controllers: unknown field"))
        .unwrap_or_else(|| panic!("validate reports shop/cart's controllers: {errors:#?}"));
    assert!(
        cart.contains("gammactl crd-extension controllers"),
        "the fixes: {cart}"
    );
    for command in commands() {
        let r = run_on_sample(&command, &[]);
        let lines: Vec<&str> = r.stderr.lines().collect();
        for line in &errors {
            assert!(
                lines.contains(&line.as_str()),
                "{command:?} prints validate's line\n{line}\nin\n{}",
                r.stderr
            );
        }
        let header = lines
            .iter()
            .position(|l| l.contains("would not be stored as written by the API server"))
            .unwrap_or_else(|| panic!("{command:?}: {}", r.stderr));
        assert!(lines[header].starts_with("warning: "), "{}", lines[header]);
        // The lines follow the one warning that introduces them, in validate's order.
        assert_eq!(
            lines[header + 1..header + 1 + errors.len()],
            errors.iter().map(String::as_str).collect::<Vec<_>>()[..],
            "{command:?}"
        );
    }
}

#[test]
fn with_the_crd_extension_no_command_warns_and_the_answers_are_the_same() {
    let extension = ["--crd-extension", "controllers"];
    assert!(
        validate_errors(&extension).is_empty(),
        "the sample is valid with the extension"
    );
    let without = validate_errors(&[]);
    for command in commands() {
        let with = run_on_sample(&command, &extension);
        assert!(
            !with.stderr.contains("would not be stored"),
            "{command:?}: {}",
            with.stderr
        );
        for line in &without {
            assert!(!with.stderr.contains(line.as_str()), "{command:?}: {line}");
        }
        // The warnings change nothing of the answer: the same output and exit code.
        let plain = run_on_sample(&command, &[]);
        assert_eq!(
            (plain.code, &plain.stdout),
            (with.code, &with.stdout),
            "{command:?}"
        );
    }
}

#[test]
fn json_output_stays_json_and_the_warnings_go_to_standard_error() {
    for command in commands() {
        let r = run_on_sample(&command, &["-o", "json"]);
        assert!(
            serde_json::from_str::<serde_json::Value>(&r.stdout).is_ok(),
            "{command:?}: {}",
            r.stdout
        );
        assert!(
            r.stderr
                .contains("HTTPRoute shop/cart: spec.parentRefs[0].controllers: unknown field"),
            "{command:?}: {}",
            r.stderr
        );
    }
}
