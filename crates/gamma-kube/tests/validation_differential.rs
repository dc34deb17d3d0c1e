//! gamma-model's validation against the real API server (tools/kube-testenv: kube-apiserver
//! v1.37 with the Gateway API v1.6.1 CRDs of one channel).
//!
//! Objects are generated from the CRDs themselves (`differential/gen.rs`): every served version
//! of every kind, one change per object to a base the server accepts (an upstream example of that
//! kind and version when there is one, else the smallest object the schema requires). Each is
//! sent as a server-side dry-run create with `fieldValidation=Strict` and validated by
//! gamma-model on the same channel in `Strict` mode ("As the API server" in docs/validation.md);
//! the two must both accept or both refuse. The API server is the specification (Kubernetes API
//! conventions; the CRDs' OpenAPI schemas and `x-kubernetes-validations`).
//!
//! CI runs a seeded sample of `GAMMA_DIFF_SAMPLE` objects per channel (default 3000); the seed
//! is `GAMMA_DIFF_SEED` or the day number, so it rotates daily, and is printed. `GAMMA_DIFF_FULL=1`
//! runs every generated object. A disagreement fails the test unless `KNOWN` lists it with its
//! reason (each entry is documented in docs/validation.md, "Known disagreements").

mod differential;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Instant;

use futures::StreamExt;
use gamma_model::ResourceKind;
use gamma_model::decode::{DecodeOptions, decode_documents};
use gamma_model::validate::{Channel as ModelChannel, ValidateOptions};
use gamma_testenv::Channel;
use serde_json::{Value, json};

use differential::apply::{apply, present_depth};
use differential::coverage::{self, Rule, shape};
use differential::crd::{self, Version};
use differential::generate::{self, Mutation, minimal};
use differential::server::{
    Answer, STATUS_TARGET, collection, create_status_target, dry_run_create, dry_run_status,
};
use differential::targeted;

/// A disagreement the test accepts, with its reason (docs/validation.md lists each).
struct Known {
    /// Whether a disagreement is this one: the case's `kind apiVersion label` text, the
    /// server's answer and gamma-model's errors.
    matches: fn(&str, &Answer, &Result<(), String>) -> bool,
    reason: &'static str,
}

const KNOWN: &[Known] = &[Known {
    matches: |_, server, ours| {
        matches!(server, Answer::Accepted)
            && ours.as_ref().is_err_and(|e| e.contains("expected i32"))
    },
    reason: "int32 fields without a maximum: the API server takes any int64 (format int32 is not \
             enforced), gamma-rs's wire types are i32",
}];

/// One side of a CEL rule's coverage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    /// A refused case named the rule at its node.
    Violated,
    /// An accepted case had the rule's node.
    Satisfied,
}

/// A side of a CEL rule no create can reach, with the reason. Matched on every version of
/// every kind by the rule's node and the start of its message.
struct Unreachable {
    node: &'static str,
    message: &'static str,
    side: Side,
    #[allow(dead_code)] // read by people: the list is the documentation
    reason: &'static str,
}

const UNREACHABLE: &[Unreachable] = &[Unreachable {
    node: "spec.rules[].matches[].path",
    message: "type must be one of ['Exact', 'PathPrefix', 'RegularExpression']",
    side: Side::Violated,
    reason: "the `type` enum lists the same three values, and the API server does not \
                 evaluate CEL rules once an enum check failed (\"some validation rules were not \
                 checked because the object was invalid\")",
}];

struct Case {
    kind: String,
    api_version: String,
    label: String,
    url: String,
    object: Value,
    /// Index into the channel's versions (for rule coverage).
    version: usize,
    /// A write of `status` to the status subresource of [`STATUS_TARGET`], not a create.
    status: bool,
}

impl Case {
    fn title(&self) -> String {
        format!("{} {} {}", self.kind, self.api_version, self.label)
    }
}

fn upstream() -> Option<PathBuf> {
    let dir = std::env::var_os("GAMMA_UPSTREAM_DIR").map(PathBuf::from);
    if dir.is_none() {
        eprintln!("skipped: GAMMA_UPSTREAM_DIR is not set: no CRDs to generate objects from");
    }
    dir
}

/// splitmix64: a tiny seeded generator, so a sample is reproducible from its printed seed.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn seed() -> u64 {
    match std::env::var("GAMMA_DIFF_SEED") {
        Ok(s) => s.parse().expect("GAMMA_DIFF_SEED must be a u64"),
        Err(_) => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs();
            secs / 86_400
        }
    }
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1")
}

fn sample_size() -> usize {
    std::env::var("GAMMA_DIFF_SAMPLE")
        .ok()
        .map(|s| s.parse().expect("GAMMA_DIFF_SAMPLE must be a number"))
        .unwrap_or(3000)
}

/// The document `object` becomes for `version`: its type, and metadata the API server accepts.
fn document(version: &Version, mut object: Value) -> Value {
    let o = object.as_object_mut().unwrap();
    o.remove("status");
    o.insert("apiVersion".into(), json!(version.api_version()));
    o.insert("kind".into(), json!(version.kind));
    let mut meta = json!({"name": "a"});
    if version.namespaced {
        meta["namespace"] = json!("default");
    }
    o.insert("metadata".into(), meta);
    object
}

/// Bases for kinds with no upstream example whose smallest object breaks a CEL rule (an
/// XBackend of type `ExternalHostname` needs its `externalHostname`).
fn extra_bases() -> Vec<(&'static str, Value)> {
    vec![(
        "XBackend",
        json!({"spec": {
            "type": "ExternalHostname",
            "externalHostname": {"hostname": "api.example.com"},
            "port": {"port": 443},
            "tls": {"mode": "ServerOnly", "validation": {
                "hostname": "api.example.com", "wellKnownCACertificates": "System"
            }}
        }}),
    )]
}

fn url_of(version: &Version) -> String {
    collection(
        &version.group,
        &version.version,
        &version.plural,
        version.namespaced.then_some("default"),
    )
}

/// gamma-model's errors, each as its field path and message: decoded with the field check and
/// validated on `channel`, Strict.
fn gamma_errors(object: &Value, channel: ModelChannel) -> Result<(), Vec<(String, String)>> {
    let text = serde_json::to_string(object).unwrap();
    let decoded = decode_documents(&text, &DecodeOptions::checking_fields())
        .map_err(|e| vec![(String::new(), e.to_string())])?;
    let [doc] = decoded.documents.as_slice() else {
        let n = decoded.documents.len();
        return Err(vec![(String::new(), format!("{n} documents"))]);
    };
    let report = doc.validate_with(&ValidateOptions::channel(channel));
    if report.errors.is_empty() {
        Ok(())
    } else {
        Err(report
            .errors
            .iter()
            .map(|e| (e.path.as_str().to_owned(), e.kind.to_string()))
            .collect())
    }
}

/// gamma-model's answer as one text (`path: message; ...`).
fn gamma_answer(object: &Value, channel: ModelChannel) -> Result<(), String> {
    gamma_errors(object, channel).map_err(|errors| {
        errors
            .iter()
            .map(|(path, message)| format!("{path}: {message}"))
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// The cases the sample always holds: for every CEL rule, the case gamma-model refuses with
/// the fewest errors among those it refuses with the rule's message at the rule's node (or
/// below it: the path match rules are reported at `path.value`), and the first case it accepts
/// with the rule's node present. gamma-model only picks them; the server's answers decide the
/// coverage, and the test fails on any rule they leave uncovered, so a wrong pick cannot hide
/// a rule. (Fewest errors: the API server does not evaluate CEL rules once a type or enum
/// check failed, where gamma-model still reports the rule.)
fn covering_cases(
    corpus: &[Case],
    rules: &[Vec<Rule>],
    versions: &[Version],
    channel: ModelChannel,
) -> BTreeSet<usize> {
    // (version, rule) -> (errors, case)
    let mut broken: BTreeMap<(usize, usize), (usize, usize)> = BTreeMap::new();
    let mut held: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (i, case) in corpus.iter().enumerate() {
        let v = case.version;
        match gamma_errors(&case.object, channel) {
            Ok(()) => {
                let present = coverage::present_nodes(&case.object, &versions[v].schema);
                for (j, r) in rules[v].iter().enumerate() {
                    if !r.transition && present.contains(&r.node) {
                        held.entry((v, j)).or_insert(i);
                    }
                }
            }
            Err(errors) => {
                for (j, r) in rules[v].iter().enumerate() {
                    let named = errors.iter().any(|(path, message)| {
                        let s = shape(path);
                        let at_node = s == r.node
                            || s.strip_prefix(r.node.as_str())
                                .is_some_and(|t| t.starts_with('.'));
                        at_node && message.contains(&r.message)
                    });
                    if !r.transition && named {
                        let best = broken.entry((v, j)).or_insert((errors.len(), i));
                        if errors.len() < best.0 {
                            *best = (errors.len(), i);
                        }
                    }
                }
            }
        }
    }
    broken
        .into_values()
        .map(|(_, i)| i)
        .chain(held.into_values())
        .collect()
}

async fn client(env: &gamma_testenv::TestEnv) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(env.kubeconfig()).unwrap();
    let config = kube::Config::from_custom_kubeconfig(
        kubeconfig,
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .unwrap();
    kube::Client::try_from(config).unwrap()
}

/// Sends every object (a dry-run create, or a dry-run status write when the flag is set), a
/// few at a time; answers in input order.
async fn answers(client: &kube::Client, cases: &[(String, Value, bool)]) -> Vec<Answer> {
    let mut out: Vec<(usize, Answer)> = futures::stream::iter(cases.iter().enumerate())
        .map(|(i, (url, object, status))| async move {
            let answer = if *status {
                dry_run_status(client, url, object).await
            } else {
                dry_run_create(client, url, object).await
            };
            (i, answer)
        })
        .buffer_unordered(8)
        .collect()
        .await;
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, a)| a).collect()
}

fn run(channel: Channel, dir: &str, model_channel: ModelChannel) {
    let Some(upstream) = upstream() else { return };
    let Some(env) = gamma_testenv::shared_or_skip(channel) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = runtime.block_on(client(env));

    let versions = crd::served_versions(&upstream, dir);
    let examples = crd::examples(&upstream);
    let mut not_modelled = Vec::new();
    let mut rules: Vec<Vec<Rule>> = Vec::new();

    // Bases: the upstream examples of each kind and version, and the smallest object; only
    // those the server accepts (so a case's answer is about its one change).
    let mut base_candidates: Vec<(usize, Value)> = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        rules.push(coverage::rules(
            &format!("{} {}", v.api_version(), v.kind),
            &v.schema,
        ));
        if ResourceKind::from_type(&v.api_version(), &v.kind).is_none() {
            not_modelled.push(format!("{} {}", v.kind, v.api_version()));
            continue;
        }
        // Examples of this version first, then of the kind's other versions (GatewayClass
        // v1beta1 has none of its own; the schemas of one kind's versions barely differ).
        let group = format!("{}/", v.group);
        let same_kind = |e: &&Value| {
            e["kind"] == v.kind.as_str()
                && e["apiVersion"]
                    .as_str()
                    .is_some_and(|a| a.starts_with(&group))
        };
        let (this, other): (Vec<&Value>, Vec<&Value>) = examples
            .iter()
            .filter(same_kind)
            .partition(|e| e["apiVersion"] == v.api_version().as_str());
        for e in this.into_iter().chain(other) {
            base_candidates.push((i, document(v, e.clone())));
        }
        for (kind, base) in extra_bases() {
            if kind == v.kind {
                base_candidates.push((i, document(v, base)));
            }
        }
        base_candidates.push((i, document(v, minimal(&v.schema))));
    }
    let probe: Vec<(String, Value, bool)> = base_candidates
        .iter()
        .map(|(i, o)| (url_of(&versions[*i]), o.clone(), false))
        .collect();
    let probed = runtime.block_on(answers(&client, &probe));
    let mut bases: BTreeMap<usize, Vec<Value>> = BTreeMap::new();
    let mut base_disagreements = Vec::new();
    for ((i, object), answer) in base_candidates.into_iter().zip(probed) {
        let ours = gamma_answer(&object, model_channel);
        match (&answer, &ours) {
            (Answer::Accepted, Ok(())) => bases.entry(i).or_default().push(object),
            (Answer::Refused(..), Err(_)) => {}
            _ => base_disagreements.push(format!(
                "base {} {}: server {answer:?}, gamma {ours:?}\n  {object}",
                versions[i].kind,
                versions[i].api_version()
            )),
        }
    }

    // The corpus: every mutation of every modelled version, on the base with most of the
    // mutated path already present.
    let mut corpus: Vec<Case> = Vec::new();
    let mut no_base = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        if ResourceKind::from_type(&v.api_version(), &v.kind).is_none() {
            continue;
        }
        let fallback = [document(v, minimal(&v.schema))];
        let candidates = match bases.get(&i) {
            Some(b) => b.as_slice(),
            None => {
                no_base.push(format!("{} {}", v.kind, v.api_version()));
                &fallback[..]
            }
        };
        for m in generate::mutations(v)
            .into_iter()
            .chain(targeted::mutations(v))
        {
            let Mutation { path, .. } = &m;
            let base = candidates
                .iter()
                .rev()
                .max_by_key(|b| present_depth(b, path))
                .unwrap();
            corpus.push(Case {
                kind: v.kind.clone(),
                api_version: v.api_version(),
                url: url_of(v),
                object: apply(base, &v.schema, &m),
                label: m.label,
                version: i,
                status: false,
            });
        }
        // Status: written to the subresource of one object created for real from the
        // kind's first base.
        let status_cases = targeted::status_mutations(v);
        if !status_cases.is_empty() {
            let mut target = candidates[0].clone();
            target["metadata"]["name"] = STATUS_TARGET.into();
            runtime.block_on(create_status_target(&client, &url_of(v), &target));
            for m in status_cases {
                corpus.push(Case {
                    kind: v.kind.clone(),
                    api_version: v.api_version(),
                    url: url_of(v),
                    object: apply(&target, &v.schema, &m),
                    label: m.label,
                    version: i,
                    status: true,
                });
            }
        }
    }
    // For working on the generator: only the cases whose title contains this text, each
    // printed with both answers (the coverage check is then skipped).
    let only = std::env::var("GAMMA_DIFF_ONLY").ok();
    if let Some(only) = &only {
        corpus.retain(|c| c.title().contains(only.as_str()));
    }
    let total = corpus.len();
    let seed = seed();
    let full = env_flag("GAMMA_DIFF_FULL") || only.is_some();
    let mut covering = 0;
    if !full {
        // The sample: the covering cases (the same every run), then a seeded share of the
        // others, Fisher-Yates on a seeded generator, up to the sample size in all.
        let started = Instant::now();
        let cover = covering_cases(&corpus, &rules, &versions, model_channel);
        covering = cover.len();
        eprintln!(
            "{dir}: {covering} covering cases chosen in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        type Numbered = Vec<(usize, Case)>;
        let (mut chosen, mut rest): (Numbered, Numbered) = corpus
            .into_iter()
            .enumerate()
            .partition(|(i, _)| cover.contains(i));
        let mut rng = SplitMix(seed);
        for i in (1..rest.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            rest.swap(i, j);
        }
        rest.truncate(sample_size().saturating_sub(chosen.len()));
        chosen.extend(rest);
        // Corpus order again, so a run reads in schema order.
        chosen.sort_by_key(|(i, _)| *i);
        corpus = chosen.into_iter().map(|(_, c)| c).collect();
    }
    eprintln!(
        "{dir}: {} versions ({} not modelled by gamma-rs: {}), {total} objects generated, {} sent ({}; seed {seed}, GAMMA_DIFF_SEED={seed} to repeat)",
        versions.len(),
        not_modelled.len(),
        not_modelled.join(", "),
        corpus.len(),
        if full {
            "full corpus".to_owned()
        } else {
            format!("{covering} covering every CEL rule, the rest a seeded sample")
        },
    );
    if !no_base.is_empty() {
        eprintln!("{dir}: no accepted base for {}", no_base.join(", "));
    }

    let started = Instant::now();
    let requests: Vec<(String, Value, bool)> = corpus
        .iter()
        .map(|c| (c.url.clone(), c.object.clone(), c.status))
        .collect();
    let server = runtime.block_on(answers(&client, &requests));
    let server_time = started.elapsed();

    let mut agree = 0;
    let mut accepted = 0;
    // Refusals by HTTP code: 400 for a strict decoding error (unknown field), 422 for an
    // invalid object.
    let mut codes: BTreeMap<u16, usize> = BTreeMap::new();
    let mut known: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unexplained = Vec::new();
    let mut violated: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut satisfied: BTreeSet<(usize, usize)> = BTreeSet::new();
    for (case, answer) in corpus.iter().zip(&server) {
        let ours = gamma_answer(&case.object, model_channel);
        if only.is_some() {
            eprintln!(
                "{}\n  object: {}\n  server: {answer:?}\n  gamma:  {ours:?}",
                case.title(),
                case.object
            );
        }
        let version_rules = &rules[case.version];
        match answer {
            Answer::Accepted => {
                accepted += 1;
                let present = coverage::present_nodes(&case.object, &versions[case.version].schema);
                for (j, r) in version_rules.iter().enumerate() {
                    if present.contains(&r.node) && !r.transition {
                        satisfied.insert((case.version, j));
                    }
                }
            }
            Answer::Refused(code, _, causes) => {
                *codes.entry(*code).or_default() += 1;
                for (j, r) in version_rules.iter().enumerate() {
                    if r.broken_by(causes) {
                        violated.insert((case.version, j));
                    }
                }
            }
        }
        let same = matches!(
            (answer, &ours),
            (Answer::Accepted, Ok(())) | (Answer::Refused(..), Err(_))
        );
        if same {
            agree += 1;
            continue;
        }
        let title = case.title();
        match KNOWN.iter().find(|k| (k.matches)(&title, answer, &ours)) {
            Some(k) => *known.entry(k.reason).or_default() += 1,
            None => unexplained.push(format!(
                "{title}\n  server: {answer:?}\n  gamma:  {ours:?}\n  object: {}",
                case.object
            )),
        }
    }

    let all_rules: usize = rules.iter().map(Vec::len).sum();
    let transition: usize = rules.iter().flatten().filter(|r| r.transition).count();
    let both = violated.intersection(&satisfied).count();
    eprintln!(
        "{dir}: {} objects, {accepted} accepted by the server, {agree} agreements, {} known disagreements, {} unexplained; {} dry runs in {:.1} s",
        corpus.len(),
        known.values().sum::<usize>(),
        unexplained.len(),
        corpus.len(),
        server_time.as_secs_f64(),
    );
    eprintln!(
        "{dir}: CEL rules: {all_rules} ({transition} transition rules, update only); seen violated {}, satisfied {}, both {both}",
        violated.len(),
        satisfied.len(),
    );
    eprintln!("{dir}: refusals by HTTP code: {codes:?}");
    // Every rule must have been seen broken and seen holding, but for the few `UNREACHABLE`
    // lists with its reason; a listed rule that was reached is an error too (the list is
    // stale).
    let mut uncovered = Vec::new();
    for (v, rs) in rules.iter().enumerate() {
        for (j, r) in rs.iter().enumerate().filter(|(_, r)| !r.transition) {
            for (side, seen) in [
                (Side::Violated, violated.contains(&(v, j))),
                (Side::Satisfied, satisfied.contains(&(v, j))),
            ] {
                let listed = UNREACHABLE.iter().any(|u| {
                    u.side == side && r.node == u.node && r.message.starts_with(u.message)
                });
                match (seen, listed) {
                    (false, false) => uncovered.push(format!("never seen {side:?}: {}", r.title())),
                    (true, true) => uncovered.push(format!(
                        "seen {side:?} but listed in UNREACHABLE: {}",
                        r.title()
                    )),
                    _ => {}
                }
            }
        }
    }
    if only.is_some() {
        uncovered.clear();
    }
    if !uncovered.is_empty() {
        eprintln!(
            "{dir}: {} CEL rule sides not covered:\n  {}",
            uncovered.len(),
            uncovered.join("\n  ")
        );
    }
    for (reason, n) in &known {
        eprintln!("{dir}: known ({n}): {reason}");
    }
    let mut failures = base_disagreements;
    failures.extend(unexplained);
    failures.extend(uncovered);
    if !failures.is_empty() {
        // Every disagreement in full beside the build, for reading at leisure.
        let report = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("validation-differential-{dir}.txt"));
        std::fs::write(&report, failures.join("\n")).unwrap();
        eprintln!("{dir}: every disagreement in {}", report.display());
    }
    assert!(
        failures.is_empty(),
        "{} disagreements with the API server or CEL rules not covered ({dir}):\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Every object of the sample is answered alike by gamma-model and the standard-channel server.
#[test]
fn gamma_model_answers_dry_run_creates_as_the_standard_channel_api_server() {
    run(Channel::Standard, "standard", ModelChannel::Standard);
}

/// The same on the experimental channel (more kinds, versions, fields and rules).
#[test]
fn gamma_model_answers_dry_run_creates_as_the_experimental_channel_api_server() {
    run(
        Channel::Experimental,
        "experimental",
        ModelChannel::Experimental,
    );
}

/// Class 8, numbers, on the real server (docs/validation.md, "Numbers"): the API server reads a
/// JSON number with a fraction or exponent as a float64 and an integer text as an int64; the
/// schema accepts a whole float for `type: integer`, but a CEL rule that reads the field
/// refuses the float64; a fraction, a whole float past 2^53 and an integer past int64 (read as
/// a float) are not integers; an in-range int64 past a `maximum` is out of range. gamma-model
/// must answer each alike.
#[test]
fn numbers_are_read_as_the_api_server_reads_them() {
    if upstream().is_none() {
        return;
    }
    let Some(env) = gamma_testenv::shared_or_skip(Channel::Standard) else {
        return;
    };
    let route = |backend: Value| {
        json!({
            "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
            "metadata": {"name": "numbers", "namespace": "default"},
            "spec": {"rules": [{"backendRefs": [backend]}]}
        })
    };
    // (what, object, the server accepts it)
    let cases = [
        (
            "weight 1.0: a whole float is an integer",
            route(json!({"name": "s", "port": 80, "weight": 1.0})),
            true,
        ),
        (
            "weight 1.5: not an integer",
            route(json!({"name": "s", "port": 80, "weight": 1.5})),
            false,
        ),
        (
            "port 80.0 of a Service reference: the CEL rule reads a float64",
            route(json!({"name": "s", "port": 80.0})),
            false,
        ),
        (
            "port 80.0 of another kind: no rule reads it",
            route(json!({"name": "s", "port": 80.0, "group": "x.io", "kind": "Foo"})),
            true,
        ),
        (
            "weight 2^53 + 1: an int64 past the maximum",
            route(json!({"name": "s", "port": 80, "weight": 9_007_199_254_740_993_i64})),
            false,
        ),
        (
            "weight 2^53 as a float: not an integer",
            route(json!({"name": "s", "port": 80, "weight": 9_007_199_254_740_992.0})),
            false,
        ),
        (
            "weight 2^64 - 1: past int64, read as a float",
            route(json!({"name": "s", "port": 80, "weight": u64::MAX})),
            false,
        ),
        (
            "port 65536: past the maximum",
            route(json!({"name": "s", "port": 65536})),
            false,
        ),
        (
            "port 65535: at the maximum",
            route(json!({"name": "s", "port": 65535})),
            true,
        ),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = runtime.block_on(client(env));
    let url = collection(
        "gateway.networking.k8s.io",
        "v1",
        "httproutes",
        Some("default"),
    );
    for (what, object, accepted) in cases {
        let answer = runtime.block_on(dry_run_create(&client, &url, &object));
        assert_eq!(
            matches!(answer, Answer::Accepted),
            accepted,
            "{what}: the server answered {answer:?}"
        );
        let ours = gamma_answer(&object, ModelChannel::Standard);
        assert_eq!(
            ours.is_ok(),
            accepted,
            "{what}: gamma-model answered {ours:?}"
        );
    }
}

/// The core objects routing reads, which have no CRD to generate from: EndpointSlice
/// (`addressType`, addresses for each address type, address counts, port names, protocols and
/// app protocols, port numbers) and Namespace names, each case a change to a valid object, sent
/// as dry-run creates and compared with gamma-model (Kubernetes `ValidateEndpointSliceCreate`,
/// `ValidateNamespace`). Every case runs every time: there are a few hundred.
#[test]
fn endpoint_slices_and_namespaces_are_validated_as_the_api_server_validates_them() {
    if upstream().is_none() {
        return;
    }
    let Some(env) = gamma_testenv::shared_or_skip(Channel::Standard) else {
        return;
    };
    let slice = |address_type: &str, addresses: Value, ports: Value| {
        json!({
            "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "web-1", "namespace": "default",
                         "labels": {"kubernetes.io/service-name": "web"}},
            "addressType": address_type,
            "endpoints": [{"addresses": addresses, "conditions": {"ready": true}}],
            "ports": ports
        })
    };
    let slices = collection("discovery.k8s.io", "v1", "endpointslices", Some("default"));
    let namespaces = collection("", "v1", "namespaces", None);
    let mut cases: Vec<(String, String, Value)> = Vec::new();
    let addresses = [
        "10.0.0.1",
        "010.0.0.1",
        "10.0.0.256",
        "1.2.3",
        "0.0.0.0",
        "127.0.0.1",
        "169.254.0.1",
        "224.0.0.1",
        "224.0.1.1",
        "255.255.255.255",
        "::ffff:10.0.0.1",
        "2001:db8::1",
        "::",
        "::1",
        "fe80::1",
        "febf::1",
        "ff02::1",
        "ff05::1",
        "2001:db8::1%eth0",
        "a.b",
        "a.b.",
        "a",
        "A.b",
        "a_b.c",
        "-a.b",
        "*.a.b",
        "",
    ];
    let long_label = format!("{}.b", "a".repeat(64));
    let long_name = format!(
        "{}.{}.{}.{}",
        "a".repeat(63),
        "a".repeat(63),
        "a".repeat(63),
        "a".repeat(61)
    );
    for address_type in ["IPv4", "IPv6", "FQDN", "", "Foo"] {
        for a in addresses
            .iter()
            .copied()
            .chain([long_label.as_str(), long_name.as_str()])
        {
            cases.push((
                format!("{address_type:?} address {a:?}"),
                slices.clone(),
                slice(address_type, json!([a]), json!([])),
            ));
        }
    }
    for n in [0, 1, 100, 101] {
        let list: Vec<String> = (0..n)
            .map(|i| format!("10.0.{}.{}", i / 200 + 1, i % 200 + 1))
            .collect();
        cases.push((
            format!("{n} addresses"),
            slices.clone(),
            slice("IPv4", json!(list), json!([])),
        ));
    }
    let port_cases = [
        ("one unnamed port", json!([{"port": 80}])),
        ("two unnamed ports", json!([{"port": 80}, {"port": 81}])),
        (
            "named ports",
            json!([{"name": "http", "port": 80}, {"name": "https", "port": 443}]),
        ),
        (
            "repeated name",
            json!([{"name": "http", "port": 80}, {"name": "http", "port": 81}]),
        ),
        (
            "name \"\" and unnamed",
            json!([{"name": "", "port": 80}, {"port": 81}]),
        ),
        ("name of 63", json!([{"name": "a".repeat(63), "port": 80}])),
        ("name of 64", json!([{"name": "a".repeat(64), "port": 80}])),
        ("upper-case name", json!([{"name": "Http", "port": 80}])),
        ("name with a dot", json!([{"name": "a.b", "port": 80}])),
        ("name starting with -", json!([{"name": "-a", "port": 80}])),
        ("protocol UDP", json!([{"port": 53, "protocol": "UDP"}])),
        ("protocol SCTP", json!([{"port": 53, "protocol": "SCTP"}])),
        ("protocol tcp", json!([{"port": 53, "protocol": "tcp"}])),
        ("protocol HTTP", json!([{"port": 53, "protocol": "HTTP"}])),
        (
            "appProtocol http",
            json!([{"port": 80, "appProtocol": "http"}]),
        ),
        (
            "appProtocol kubernetes.io/h2c",
            json!([{"port": 80, "appProtocol": "kubernetes.io/h2c"}]),
        ),
        (
            "appProtocol with a space",
            json!([{"port": 80, "appProtocol": "a b"}]),
        ),
        (
            "appProtocol a/b/c",
            json!([{"port": 80, "appProtocol": "a/b/c"}]),
        ),
        ("port 0", json!([{"port": 0}])),
        ("port -1", json!([{"port": -1}])),
        ("port 65535", json!([{"port": 65535}])),
        ("port 70000", json!([{"port": 70000}])),
        ("port absent (all ports)", json!([{"name": "all"}])),
    ];
    for (what, ports) in port_cases {
        cases.push((
            format!("ports: {what}"),
            slices.clone(),
            slice("IPv4", json!(["10.0.0.1"]), ports),
        ));
    }
    cases.push((
        "no endpoints".into(),
        slices.clone(),
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
               "metadata": {"name": "web-1", "namespace": "default"},
               "addressType": "IPv4", "endpoints": []}),
    ));
    for name in [
        "a".to_owned(),
        "a".repeat(63),
        "a".repeat(64),
        "a.b".into(),
        "A".into(),
        "a-".into(),
        "-a".into(),
        "1a".into(),
        "a_b".into(),
    ] {
        cases.push((
            format!("Namespace name {name:?}"),
            namespaces.clone(),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}),
        ));
    }
    for name in [
        "a".repeat(253),
        "a".repeat(254),
        "a.b".into(),
        "A".into(),
        "a..b".into(),
    ] {
        cases.push((
            format!("EndpointSlice name of {} characters", name.len()),
            slices.clone(),
            {
                let mut s = slice("IPv4", json!(["10.0.0.1"]), json!([]));
                s["metadata"]["name"] = json!(name);
                s
            },
        ));
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = runtime.block_on(client(env));
    let requests: Vec<(String, Value, bool)> = cases
        .iter()
        .map(|(_, u, o)| (u.clone(), o.clone(), false))
        .collect();
    let answers = runtime.block_on(answers(&client, &requests));
    let mut accepted = 0;
    let mut failures = Vec::new();
    for ((what, _, object), answer) in cases.iter().zip(&answers) {
        let ours = gamma_answer(object, ModelChannel::Standard);
        accepted += usize::from(matches!(answer, Answer::Accepted));
        if matches!(answer, Answer::Accepted) != ours.is_ok() {
            failures.push(format!("{what}\n  server: {answer:?}\n  gamma:  {ours:?}"));
        }
    }
    eprintln!(
        "core kinds: {} objects, {accepted} accepted by the server, {} disagreements",
        cases.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
