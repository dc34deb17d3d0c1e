//! gamma-model's validation against the real API server (tools/kube-testenv: kube-apiserver
//! v1.37 with the CRDs of one Gateway API release and channel), for every supported release
//! (v1.5.1, v1.6.1, v1.7.0) and channel: one test each, gamma-model validating as that
//! release's `Bundle`.
//!
//! Objects are generated from the release's CRDs themselves (`differential/generate.rs`):
//! every served version of every kind, one change per object to a base the server accepts (an
//! upstream example of that kind and version when there is one, else the smallest object the
//! schema requires). Each is sent as a server-side dry-run create with `fieldValidation=Strict`
//! and validated by gamma-model on the same release and channel in `Strict` mode ("As the API
//! server" in docs/validation.md); the two must both accept or both refuse. The API server is
//! the specification (Kubernetes API conventions; the CRDs' OpenAPI schemas and
//! `x-kubernetes-validations`).
//!
//! CI runs a seeded sample of `GAMMA_DIFF_SAMPLE` objects per release and channel (default
//! 1000, plus every case that covers a CEL rule); the seed is `GAMMA_DIFF_SEED` or the day
//! number, so it rotates daily, and is printed. `GAMMA_DIFF_FULL=1` runs every generated
//! object. A disagreement fails the test unless `KNOWN` lists it with its reason (each entry is
//! documented in docs/validation.md, "Known disagreements").

mod differential;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Instant;

use futures::StreamExt;
use gamma_model::ResourceKind;
use gamma_model::validate::{Bundle, Channel as ModelChannel, Release, ValidateOptions};
use gamma_model::{DecodeOptions, decode_documents};
use gamma_testenv::Channel;
use serde_json::{Value, json};

use differential::apply::{apply, present_depth};
use differential::coverage::{self, Rule, shape};
use differential::crd::{self, Version, document};
use differential::generate::{self, Mutation, minimal};
use differential::server::{
    Answer, STATUS_TARGET, collection, create_status_target, dry_run_create, dry_run_status,
};
use differential::targeted;
use gamma_testenv::harness::{experimental_server, release_servers, standard_server};

gamma_testenv::test_main! {
    gamma_model_answers_dry_run_creates_as_the_v1_5_standard_api_server if release_servers,
    gamma_model_answers_dry_run_creates_as_the_v1_5_experimental_api_server if release_servers,
    gamma_model_answers_dry_run_creates_as_the_v1_6_standard_api_server if standard_server,
    gamma_model_answers_dry_run_creates_as_the_v1_6_experimental_api_server
        if experimental_server,
    gamma_model_answers_dry_run_creates_as_the_v1_7_standard_api_server if release_servers,
    gamma_model_answers_dry_run_creates_as_the_v1_7_experimental_api_server if release_servers,
    numbers_are_read_as_the_api_server_reads_them if standard_server,
    endpoint_slices_and_namespaces_are_validated_as_the_api_server_validates_them
        if standard_server,
    core_kinds_have_the_api_servers_fields_and_refuse_unknown_ones if standard_server,
    services_are_validated_as_the_api_server_validates_them if standard_server,
}

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
    reason: "int32 fields without a maximum: the API server takes any int64 (format int32 \
                 is not enforced), gamma-rs's wire types are i32",
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
    /// The shape (as in [`Rule::node`]) of the node the case changes.
    shape: String,
    /// A write of `status` to the status subresource of [`STATUS_TARGET`], not a create.
    status: bool,
}

impl Case {
    fn title(&self) -> String {
        format!("{} {} {}", self.kind, self.api_version, self.label)
    }
}

/// The shape (as in [`Rule::node`]: `spec.rules[].matches[]`) of a mutation's path.
fn shape_of(path: &[generate::Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            generate::Seg::Field(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            generate::Seg::Item | generate::Seg::Key => out.push_str("[]"),
        }
    }
    out
}

/// Whether a change at shape `changed` can break a rule at shape `node` or make its node
/// present: one of the two is the other or inside it.
fn related(changed: &str, node: &str) -> bool {
    let inside = |a: &str, b: &str| {
        b.is_empty()
            || a.strip_prefix(b)
                .is_some_and(|t| t.is_empty() || t.starts_with('.') || t.starts_with('['))
    };
    inside(changed, node) || inside(node, changed)
}

/// The tree of Gateway API `release` (`v1.7.0`), the CRDs to generate objects from (the tests'
/// preconditions, a server of that release, need it too).
fn upstream(release: &str) -> PathBuf {
    gamma_testenv::upstream::release_tree(release).expect("the test's precondition")
}

/// The API server with the CRDs of `release` and `channel`: the binary's shared server of the
/// channel for v1.6.1 (its default release, which the other tests use too), else one started
/// for that release.
fn release_env(release: &str, channel: Channel) -> &'static gamma_testenv::TestEnv {
    if release == "v1.6.1" {
        gamma_testenv::server(channel)
    } else {
        gamma_testenv::server_release(release, channel)
    }
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
        .unwrap_or(1000)
}

/// Bases for kinds with no upstream example whose smallest object breaks a CEL rule (an
/// XBackend of type `ExternalHostname` needs its `externalHostname`; an XTelemetryPolicy needs
/// `tracing`; v1.5.1 has no UDPRoute example, and its smallest one names a Service without a
/// port). The XBackend port is `{port}` before v1.7 and `{number}` from v1.7: both are
/// candidates, and a candidate the server refuses is no base.
fn extra_bases() -> Vec<(&'static str, Value)> {
    let backend = |port: Value| {
        json!({"spec": {
            "type": "ExternalHostname",
            "externalHostname": {"hostname": "api.example.com"},
            "port": port,
            "tls": {"mode": "ServerOnly", "validation": {
                "hostname": "api.example.com", "wellKnownCACertificates": "System"
            }}
        }})
    };
    vec![
        ("XBackend", backend(json!({"port": 443}))),
        ("XBackend", backend(json!({"number": 443}))),
        (
            "UDPRoute",
            json!({"spec": {
                "parentRefs": [{"name": "g"}],
                "rules": [{"backendRefs": [{"name": "dns", "port": 53}]}]
            }}),
        ),
        (
            "XTelemetryPolicy",
            json!({"spec": {
                "targetRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway",
                                "name": "g"}],
                "tracing": {"mode": "Enabled",
                            "provider": {"backendRef": {"name": "otel", "port": 4317}}}
            }}),
        ),
    ]
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
fn gamma_errors(object: &Value, bundle: Bundle) -> Result<(), Vec<(String, String)>> {
    let text = serde_json::to_string(object).unwrap();
    let decoded = decode_documents(&text, &DecodeOptions::checking_fields())
        .map_err(|e| vec![(String::new(), e.to_string())])?;
    let [doc] = decoded.documents.as_slice() else {
        let n = decoded.documents.len();
        return Err(vec![(String::new(), format!("{n} documents"))]);
    };
    let report = doc.validate_with(&ValidateOptions::bundle(bundle));
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

/// gamma-model's answer as one text (`path: message; ...`), validated as `bundle`.
fn gamma_answer(object: &Value, bundle: Bundle) -> Result<(), String> {
    gamma_errors(object, bundle).map_err(|errors| {
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
/// check failed, where gamma-model still reports the rule.) Only cases that change a rule's
/// node, a node inside it or one holding it are validated: the others leave every rule as the
/// accepted base has it, and validating the whole corpus of six releases and channels took
/// minutes of a debug build.
fn covering_cases(
    corpus: &[Case],
    rules: &[Vec<Rule>],
    versions: &[Version],
    bundle: Bundle,
) -> BTreeSet<usize> {
    // (version, rule) -> (errors, case)
    let mut broken: BTreeMap<(usize, usize), (usize, usize)> = BTreeMap::new();
    let mut held: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (i, case) in corpus.iter().enumerate() {
        let v = case.version;
        if !rules[v].iter().any(|r| related(&case.shape, &r.node)) {
            continue;
        }
        match gamma_errors(&case.object, bundle) {
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

/// A runtime and a client of `env`'s API server.
fn connect(env: &gamma_testenv::TestEnv) -> (tokio::runtime::Runtime, kube::Client) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = runtime.block_on(client(env));
    (runtime, client)
}

/// What the tests of core kinds validate as: the standard channel of v1.6, the release of the
/// shared servers ([`standard_env`]).
const STANDARD_V1_6: Bundle = Bundle::new(Release::V1_6, ModelChannel::Standard);

/// The standard channel's API server, for the tests of core kinds (their precondition
/// `standard_server`).
fn standard_env() -> &'static gamma_testenv::TestEnv {
    gamma_testenv::server(Channel::Standard)
}

/// Sends every case (what it is, collection URL, object) as a dry-run create and requires
/// gamma-model (standard channel, Strict) to accept exactly the objects the server accepts;
/// `kinds` names the group of cases in the summary line.
fn agree_with_the_server(
    env: &gamma_testenv::TestEnv,
    kinds: &str,
    cases: &[(String, String, Value)],
) {
    let (runtime, client) = connect(env);
    let requests: Vec<(String, Value, bool)> = cases
        .iter()
        .map(|(_, u, o)| (u.clone(), o.clone(), false))
        .collect();
    let answers = runtime.block_on(answers(&client, &requests));
    let mut accepted = 0;
    let mut failures = Vec::new();
    for ((what, _, object), answer) in cases.iter().zip(&answers) {
        let ours = gamma_answer(object, STANDARD_V1_6);
        accepted += usize::from(matches!(answer, Answer::Accepted));
        if matches!(answer, Answer::Accepted) != ours.is_ok() {
            failures.push(format!(
                "{what}\n  object: {object}\n  server: {answer:?}\n  gamma:  {ours:?}"
            ));
        }
    }
    eprintln!(
        "{kinds}: {} objects, {accepted} accepted by the server, {} disagreements",
        cases.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A Service `web` in `default` with `spec`.
fn service_object(spec: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Service",
           "metadata": {"name": "web", "namespace": "default"}, "spec": spec})
}

/// An EndpointSlice `web-1` of Service `web` in `default`: one ready endpoint with `addresses`.
fn slice_object(address_type: &str, addresses: Value, ports: Value) -> Value {
    json!({
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
        "metadata": {"name": "web-1", "namespace": "default",
                     "labels": {"kubernetes.io/service-name": "web"}},
        "addressType": address_type,
        "endpoints": [{"addresses": addresses, "conditions": {"ready": true}}],
        "ports": ports
    })
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

/// The differential for Gateway API `release` (`v1.7.0`) on `channel`, gamma-model validating as
/// `bundle` (the same release and channel).
fn run(release: &str, channel: Channel, bundle: Bundle) {
    let dir = channel.as_str();
    // What the summary lines and the report file are named after.
    let name = format!("{release} {dir}");
    let upstream = upstream(release);
    let env = release_env(release, channel);
    assert_eq!(env.release(), release, "the server runs the release's CRDs");
    let (runtime, client) = connect(env);

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
        let ours = gamma_answer(&object, bundle);
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
                shape: shape_of(path),
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
                    shape: shape_of(&m.path),
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
        let cover = covering_cases(&corpus, &rules, &versions, bundle);
        covering = cover.len();
        eprintln!(
            "{name}: {covering} covering cases chosen in {:.1} s",
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
        "{name}: {} versions ({} not modelled by gamma-rs: {}), {total} objects generated, {} sent ({}; seed {seed}, GAMMA_DIFF_SEED={seed} to repeat)",
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
        eprintln!("{name}: no accepted base for {}", no_base.join(", "));
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
        let ours = gamma_answer(&case.object, bundle);
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
        "{name}: {} objects, {accepted} accepted by the server, {agree} agreements, {} known disagreements, {} unexplained; {} dry runs in {:.1} s",
        corpus.len(),
        known.values().sum::<usize>(),
        unexplained.len(),
        corpus.len(),
        server_time.as_secs_f64(),
    );
    eprintln!(
        "{name}: CEL rules: {all_rules} ({transition} transition rules, update only); seen violated {}, satisfied {}, both {both}",
        violated.len(),
        satisfied.len(),
    );
    eprintln!("{name}: refusals by HTTP code: {codes:?}");
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
            "{name}: {} CEL rule sides not covered:\n  {}",
            uncovered.len(),
            uncovered.join("\n  ")
        );
    }
    for (reason, n) in &known {
        eprintln!("{name}: known ({n}): {reason}");
    }
    let mut failures = base_disagreements;
    failures.extend(unexplained);
    failures.extend(uncovered);
    if !failures.is_empty() {
        // Every disagreement in full beside the build, for reading at leisure.
        let report = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("validation-differential-{release}-{dir}.txt"));
        std::fs::write(&report, failures.join("\n")).unwrap();
        eprintln!("{name}: every disagreement in {}", report.display());
    }
    assert!(
        failures.is_empty(),
        "{} disagreements with the API server or CEL rules not covered ({name}):\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Every object of the sample is answered alike by gamma-model (v1.5, standard) and the server
/// with the Gateway API v1.5.1 standard-channel CRDs.
fn gamma_model_answers_dry_run_creates_as_the_v1_5_standard_api_server() {
    run(
        "v1.5.1",
        Channel::Standard,
        Bundle::new(Release::V1_5, ModelChannel::Standard),
    );
}

/// The same for v1.5.1's experimental channel (more kinds, versions, fields and rules).
fn gamma_model_answers_dry_run_creates_as_the_v1_5_experimental_api_server() {
    run(
        "v1.5.1",
        Channel::Experimental,
        Bundle::new(Release::V1_5, ModelChannel::Experimental),
    );
}

/// The same for v1.6.1's standard channel.
fn gamma_model_answers_dry_run_creates_as_the_v1_6_standard_api_server() {
    run(
        "v1.6.1",
        Channel::Standard,
        Bundle::new(Release::V1_6, ModelChannel::Standard),
    );
}

/// The same for v1.6.1's experimental channel.
fn gamma_model_answers_dry_run_creates_as_the_v1_6_experimental_api_server() {
    run(
        "v1.6.1",
        Channel::Experimental,
        Bundle::new(Release::V1_6, ModelChannel::Experimental),
    );
}

/// The same for v1.7.0's standard channel.
fn gamma_model_answers_dry_run_creates_as_the_v1_7_standard_api_server() {
    run(
        "v1.7.0",
        Channel::Standard,
        Bundle::new(Release::V1_7, ModelChannel::Standard),
    );
}

/// The same for v1.7.0's experimental channel.
fn gamma_model_answers_dry_run_creates_as_the_v1_7_experimental_api_server() {
    run(
        "v1.7.0",
        Channel::Experimental,
        Bundle::new(Release::V1_7, ModelChannel::Experimental),
    );
}

/// Class 8, numbers, on the real server (docs/validation.md, "Numbers"): the API server reads a
/// JSON number with a fraction or exponent as a float64 and an integer text as an int64; the
/// schema accepts a whole float for `type: integer`, but a CEL rule that reads the field
/// refuses the float64; a fraction, a whole float past 2^53 and an integer past int64 (read as
/// a float) are not integers; an in-range int64 past a `maximum` is out of range. gamma-model
/// must answer each alike.
fn numbers_are_read_as_the_api_server_reads_them() {
    let env = standard_env();
    let route = |backend: Value| {
        json!({
            "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
            "metadata": {"name": "numbers", "namespace": "default"},
            "spec": {"rules": [{"backendRefs": [backend]}]}
        })
    };
    // a backendRef to Service `s` with `weight`, or with `port` alone (and `more` fields)
    let weight = |w: Value| route(json!({"name": "s", "port": 80, "weight": w}));
    let port = |p: Value, more: Value| {
        let mut b = json!({"name": "s", "port": p});
        b.as_object_mut()
            .unwrap()
            .extend(more.as_object().unwrap().clone());
        route(b)
    };
    // (what, object, the server accepts it)
    let cases = [
        (
            "weight 1.0: a whole float is an integer",
            weight(json!(1.0)),
            true,
        ),
        ("weight 1.5: not an integer", weight(json!(1.5)), false),
        (
            "port 80.0 of a Service reference: the CEL rule reads a float64",
            port(json!(80.0), json!({})),
            false,
        ),
        (
            "port 80.0 of another kind: no rule reads it",
            port(json!(80.0), json!({"group": "x.io", "kind": "Foo"})),
            true,
        ),
        (
            "weight 2^53 + 1: an int64 past the maximum",
            weight(json!(9_007_199_254_740_993_i64)),
            false,
        ),
        (
            "weight 2^53 as a float: not an integer",
            weight(json!(9_007_199_254_740_992.0)),
            false,
        ),
        (
            "weight 2^64 - 1: past int64, read as a float",
            weight(json!(u64::MAX)),
            false,
        ),
        (
            "port 65536: past the maximum",
            port(json!(65536), json!({})),
            false,
        ),
        (
            "port 65535: at the maximum",
            port(json!(65535), json!({})),
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
        let ours = gamma_answer(&object, STANDARD_V1_6);
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
fn endpoint_slices_and_namespaces_are_validated_as_the_api_server_validates_them() {
    let env = standard_env();
    let slice = slice_object;
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

    agree_with_the_server(env, "core kinds", &cases);
}

/// The OpenAPI v3 `components.schemas` of the core kinds, from the server itself.
async fn core_components(client: &kube::Client) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for (root, version) in [
        ("/openapi/v3/api", "v1"),
        ("/openapi/v3/apis/discovery.k8s.io", "v1"),
    ] {
        let request = kube::core::Request::new(root)
            .get(version, &kube::api::GetParams::default())
            .unwrap();
        let text = client.request_text(request).await.unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        if let Some(schemas) = doc["components"]["schemas"].as_object() {
            out.extend(schemas.clone());
        }
    }
    out
}

/// Unknown fields on the core kinds (Service, Namespace, EndpointSlice, ConfigMap): the API server decodes
/// built-in types strictly under `fieldValidation=Strict` and refuses any field its OpenAPI
/// schema does not declare (400, `strict decoding error: unknown field "spec.zz"`), whether
/// gamma-rs models the field's parent or not. gamma-model embeds the server's field names
/// (`CORE_FIELD_SCHEMA`); this test derives them again from the server's own OpenAPI document
/// and requires the two to be equal (`GAMMA_BLESS=1` rewrites the embedded file), then sends an
/// unknown member on every object node of each kind, and objects that set known fields
/// gamma-rs does not model, which must not count as unknown.
fn core_kinds_have_the_api_servers_fields_and_refuse_unknown_ones() {
    let env = standard_env();
    let (runtime, client) = connect(env);
    let derived = differential::core::field_schema(&runtime.block_on(core_components(&client)));
    let embedded_path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../gamma-model/src/validate/core_fields.json");
    if env_flag("GAMMA_BLESS") {
        let text = serde_json::to_string_pretty(&derived).unwrap() + "\n";
        std::fs::write(&embedded_path, text).unwrap();
    }
    let embedded: Value = serde_json::from_str(gamma_model::validate::CORE_FIELD_SCHEMA).unwrap();
    assert!(
        embedded == derived,
        "{} differs from the API server's OpenAPI document; rerun with GAMMA_BLESS=1 and \
         review the diff",
        embedded_path.display()
    );

    let service = service_object(
        json!({"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80}]}),
    );
    let slice = slice_object(
        "IPv4",
        json!(["10.0.0.1"]),
        json!([{"name": "http", "port": 80}]),
    );
    let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "web"}});
    let config_map = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "ca", "namespace": "default"},
        "data": {"ca.crt": "-----BEGIN CERTIFICATE-----"}
    });
    let config_maps = collection("", "v1", "configmaps", Some("default"));
    let services = collection("", "v1", "services", Some("default"));
    let slices = collection("discovery.k8s.io", "v1", "endpointslices", Some("default"));
    let namespaces = collection("", "v1", "namespaces", None);
    let mut cases: Vec<(String, String, Value)> = Vec::new();
    for (kind, url, base) in [
        ("Service", &services, &service),
        ("EndpointSlice", &slices, &slice),
        ("Namespace", &namespaces, &namespace),
        ("ConfigMap", &config_maps, &config_map),
    ] {
        cases.push((format!("{kind} base"), url.clone(), base.clone()));
        for (label, object) in differential::core::unknown_field_objects(&derived, kind, base) {
            cases.push((format!("{kind} {label}"), url.clone(), object));
        }
    }
    // Known fields gamma-rs does not model, set to valid values.
    let mut known_service = service.clone();
    known_service["spec"]["sessionAffinity"] = json!("ClientIP");
    known_service["spec"]["sessionAffinityConfig"] = json!({"clientIP": {"timeoutSeconds": 60}});
    known_service["spec"]["internalTrafficPolicy"] = json!("Local");
    known_service["spec"]["publishNotReadyAddresses"] = json!(true);
    known_service["spec"]["ipFamilyPolicy"] = json!("SingleStack");
    known_service["spec"]["ipFamilies"] = json!(["IPv4"]);
    known_service["spec"]["trafficDistribution"] = json!("PreferClose");
    known_service["status"] = json!({"loadBalancer": {"ingress": [{"ip": "10.1.0.1"}]}});
    cases.push((
        "Service with known fields gamma-rs does not model".into(),
        services.clone(),
        known_service,
    ));
    let mut lb = service.clone();
    lb["spec"]["type"] = json!("LoadBalancer");
    lb["spec"]["externalTrafficPolicy"] = json!("Local");
    lb["spec"]["allocateLoadBalancerNodePorts"] = json!(true);
    lb["spec"]["loadBalancerSourceRanges"] = json!(["10.0.0.0/8"]);
    cases.push((
        "LoadBalancer Service with its fields".into(),
        services.clone(),
        lb,
    ));
    let mut known_slice = slice.clone();
    known_slice["endpoints"][0]["hostname"] = json!("pod-1");
    known_slice["endpoints"][0]["nodeName"] = json!("node-1");
    known_slice["endpoints"][0]["zone"] = json!("zone-a");
    known_slice["endpoints"][0]["hints"] = json!({"forZones": [{"name": "zone-a"}]});
    known_slice["endpoints"][0]["targetRef"] = json!({"kind": "Pod", "name": "pod-1"});
    known_slice["endpoints"][0]["conditions"] =
        json!({"ready": true, "serving": true, "terminating": false});
    cases.push((
        "EndpointSlice with known fields gamma-rs does not model".into(),
        slices.clone(),
        known_slice,
    ));
    let mut known_namespace = namespace.clone();
    known_namespace["spec"] = json!({"finalizers": ["kubernetes"]});
    cases.push((
        "Namespace with spec.finalizers".into(),
        namespaces.clone(),
        known_namespace,
    ));
    let mut known_config_map = config_map.clone();
    known_config_map["binaryData"] = json!({"a.bin": "AAEC"});
    known_config_map["immutable"] = json!(true);
    cases.push((
        "ConfigMap with binaryData and immutable".into(),
        config_maps.clone(),
        known_config_map,
    ));

    agree_with_the_server(env, "core kinds, unknown fields", &cases);
}

/// Service validation on the real server (Kubernetes `ValidateService` for the fields routing
/// reads; docs/validation.md, "Kubernetes core validation"): `type`, `clusterIP`/`clusterIPs`
/// (syntax, agreement, one per family, `None` only for headless ClusterIP Services, none for
/// ExternalName), ports (required unless headless or ExternalName, numbers, names, protocols,
/// unique port and protocol, target ports, app protocols), selector labels, `externalName`.
/// Cluster IPs are inside the test server's service range (10.96.0.0/16): one outside is the
/// allocator's answer about that cluster, not validation. Every case runs every time.
fn services_are_validated_as_the_api_server_validates_them() {
    let env = standard_env();
    let svc = service_object;
    let port = |p: Value| json!({"selector": {"app": "web"}, "ports": [p]});
    let url = collection("", "v1", "services", Some("default"));
    let mut cases: Vec<(String, String, Value)> = Vec::new();
    let mut add = |what: String, spec: Value| cases.push((what, url.clone(), svc(spec)));
    add("base".into(), port(json!({"port": 80})));
    for ty in ["ClusterIP", "NodePort", "LoadBalancer", "Foo", ""] {
        add(format!("type {ty:?}"), {
            let mut s = port(json!({"port": 80}));
            s["type"] = json!(ty);
            s
        });
    }
    add(
        "ExternalName with externalName".into(),
        json!({"type": "ExternalName", "externalName": "db.example.com"}),
    );
    add(
        "ExternalName without externalName".into(),
        json!({"type": "ExternalName"}),
    );
    add(
        "ExternalName with an invalid externalName".into(),
        json!({"type": "ExternalName", "externalName": "db_example.com"}),
    );
    add(
        "ExternalName with a clusterIP".into(),
        json!({"type": "ExternalName", "externalName": "db.example.com", "clusterIP": "10.96.0.20"}),
    );
    add(
        "ExternalName with ports".into(),
        json!({"type": "ExternalName", "externalName": "db.example.com", "ports": [{"port": 80}]}),
    );
    for ip in [
        "10.96.0.20",
        "10.96.0.300",
        "10.96.00.20",
        "abc",
        "None",
        "none",
        "",
        " 10.96.0.20",
    ] {
        add(format!("clusterIP {ip:?}"), {
            let mut s = port(json!({"port": 80}));
            s["clusterIP"] = json!(ip);
            s
        });
    }
    for (what, ips) in [
        ("one", json!(["10.96.0.21"])),
        ("two of one family", json!(["10.96.0.21", "10.96.0.22"])),
        ("None", json!(["None"])),
        ("None and an IP", json!(["None", "10.96.0.21"])),
        ("an invalid IP", json!(["10.96.0.256"])),
        ("empty", json!([])),
    ] {
        add(format!("clusterIPs {what}"), {
            let mut s = port(json!({"port": 80}));
            s["clusterIPs"] = ips;
            s
        });
    }
    add("clusterIP and clusterIPs that differ".into(), {
        let mut s = port(json!({"port": 80}));
        s["clusterIP"] = json!("10.96.0.23");
        s["clusterIPs"] = json!(["10.96.0.24"]);
        s
    });
    add("clusterIP and clusterIPs that agree".into(), {
        let mut s = port(json!({"port": 80}));
        s["clusterIP"] = json!("10.96.0.23");
        s["clusterIPs"] = json!(["10.96.0.23"]);
        s
    });
    add(
        "headless without ports".into(),
        json!({"clusterIP": "None", "selector": {"app": "web"}}),
    );
    add(
        "ClusterIP without ports".into(),
        json!({"selector": {"app": "web"}}),
    );
    add(
        "headless NodePort".into(),
        json!({"type": "NodePort", "clusterIP": "None", "ports": [{"port": 80}]}),
    );
    for p in [0, 1, 65535, 65536, -1] {
        add(format!("port {p}"), port(json!({"port": p})));
    }
    for t in [
        json!(0),
        json!(8080),
        json!(65536),
        json!("http"),
        json!("HTTP"),
        json!("http-alt"),
        json!("a-"),
        json!("-a"),
        json!("a--b"),
        json!("1234"),
        json!("abcdefghijklmnop"),
        json!(""),
    ] {
        add(
            format!("targetPort {t}"),
            port(json!({"port": 80, "targetPort": t})),
        );
    }
    for name in [
        "http",
        "Http",
        "a.b",
        "-a",
        "",
        &"a".repeat(63),
        &"a".repeat(64),
    ] {
        add(
            format!("port name {name:?}"),
            port(json!({"name": name, "port": 80})),
        );
    }
    for protocol in ["TCP", "UDP", "SCTP", "tcp", "HTTP", ""] {
        add(
            format!("protocol {protocol:?}"),
            port(json!({"port": 80, "protocol": protocol})),
        );
    }
    for app in [
        "http",
        "kubernetes.io/h2c",
        "a/b/c",
        "a b",
        "example.com/custom",
    ] {
        add(
            format!("appProtocol {app:?}"),
            port(json!({"port": 80, "appProtocol": app})),
        );
    }
    for (what, ports) in [
        ("two unnamed ports", json!([{"port": 80}, {"port": 81}])),
        (
            "two named ports",
            json!([{"name": "a", "port": 80}, {"name": "b", "port": 81}]),
        ),
        (
            "one port twice",
            json!([{"name": "a", "port": 80}, {"name": "b", "port": 80}]),
        ),
        (
            "one port, two protocols",
            json!([{"name": "a", "port": 53}, {"name": "b", "port": 53, "protocol": "UDP"}]),
        ),
        (
            "a name twice",
            json!([{"name": "a", "port": 80}, {"name": "a", "port": 81}]),
        ),
    ] {
        add(
            format!("ports: {what}"),
            json!({"selector": {"app": "web"}, "ports": ports}),
        );
    }
    for (what, selector) in [
        ("a prefixed key", json!({"example.com/app": "web"})),
        ("a key with a space", json!({"a b": "web"})),
        ("a value with a space", json!({"app": "a b"})),
        ("a value of 64", json!({"app": "a".repeat(64)})),
        ("an empty value", json!({"app": ""})),
    ] {
        add(
            format!("selector {what}"),
            json!({"selector": selector, "ports": [{"port": 80}]}),
        );
    }
    for name in [
        "web",
        "a.b",
        "Web",
        &"a".repeat(63),
        &"a".repeat(64),
        "1web",
    ] {
        let mut s = svc(port(json!({"port": 80})));
        s["metadata"]["name"] = json!(name);
        cases.push((format!("Service name {name:?}"), url.clone(), s));
    }
    agree_with_the_server(env, "Services", &cases);
}
