//! gamma-model's structural defaulting (`DecodeOptions::defaults`, `CRD_DEFAULTS`) against the
//! real API server of every supported release and channel (tools/kube-testenv with that
//! bundle's CRDs): each object is sent as a server-side dry-run create, which answers with the
//! object as the server would store it, defaults applied and status reset; gamma-model must
//! produce the same `spec` and `status` from the object as sent.
//!
//! The objects: the release's upstream examples of each served kind and version, the smallest
//! object each schema requires, and for every default of the bundle the smallest object with
//! that default's parent made present (so the default itself is what the server adds; defaults
//! under `status` through a write of the status subresource, since a create resets status).
//! Every default the bundle declares must be seen applied by the server at least once.

mod common;

use gamma_testenv::harness::release_servers;

gamma_testenv::test_main! {
    v1_5_standard_defaults_as_the_api_server if release_servers,
    v1_5_experimental_defaults_as_the_api_server if release_servers,
    v1_6_standard_defaults_as_the_api_server if release_servers,
    v1_6_experimental_defaults_as_the_api_server if release_servers,
    v1_7_standard_defaults_as_the_api_server if release_servers,
    v1_7_experimental_defaults_as_the_api_server if release_servers,
}
#[allow(dead_code)]
// the differential's support, of which this test uses the CRD reader and generator
mod differential;

use std::collections::BTreeSet;

use common::client;
use differential::apply::ensure;
use differential::crd::{self, document};
use differential::generate::{Seg, minimal};
use differential::server::{
    collection, create_status_target, dry_run_status_stored, dry_run_stored,
};
use futures::StreamExt;
use gamma_model::ResourceKind;
use gamma_model::validate::{
    Bundle, CRD_DEFAULTS, Channel as ModelChannel, Release, apply_defaults,
};
use gamma_testenv::Channel;
use serde_json::{Value, json};

/// Bases for defaults whose parent the smallest object cannot carry past a CEL rule, by kind
/// and path prefix, as JSON: an XBackend of type `ExternalHostname` needs its
/// `externalHostname`, a client certificate mode `ClientAndServer`, and session persistence
/// type `EndpointSelector` (v1.7); an XTelemetryPolicy's tracing details need mode `Enabled`.
const BASES: &[(&str, &str, &str)] = &[
    ("XTelemetryPolicy", "spec.tracing.p", TRACING_ENABLED),
    (
        "XTelemetryPolicy",
        "spec.tracing.samplingRate",
        TRACING_ENABLED,
    ),
    (
        "XBackend",
        "spec.sessionPersistence",
        r#"{"spec": {"type": "EndpointSelector", "endpointSelector": {"matchLabels": {"app": "a"}},
            "port": {"port": 443}}}"#,
    ),
    (
        "XBackend",
        "",
        r#"{"spec": {"type": "ExternalHostname", "externalHostname": {"hostname": "api.example.com"},
            "port": {"port": 443},
            "tls": {"mode": "ClientAndServer", "clientCertificateRef": {"name": "client"},
                    "validation": {"hostname": "api.example.com", "wellKnownCACertificates": "System"}}}}"#,
    ),
];

/// An XTelemetryPolicy whose tracing is on: `provider`, the sampling rates and parent-based
/// sampling need mode `Enabled`, and `Enabled` needs a provider.
const TRACING_ENABLED: &str = r#"{"spec": {
    "targetRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "g"}],
    "tracing": {"mode": "Enabled", "provider": {"backendRef": {"name": "otel", "port": 4317}},
                "parentBasedSampling": {"mode": "Enabled"}}}}"#;

/// A row's parent path as generator segments (`spec.rules[].matches[]`).
fn segments(parent: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    for part in parent.split('.') {
        match part.strip_suffix("[]") {
            Some(key) => {
                out.push(Seg::Field(key.to_owned()));
                out.push(Seg::Item);
            }
            None => out.push(Seg::Field(part.to_owned())),
        }
    }
    out
}

/// Whether `value` has a member at `path` (a row path, `[]` for every item) anywhere.
fn present(value: &Value, path: &str) -> bool {
    fn walk(value: &Value, parts: &[&str]) -> bool {
        let Some((first, rest)) = parts.split_first() else {
            return true;
        };
        let (key, items) = match first.strip_suffix("[]") {
            Some(key) => (key, true),
            None => (*first, false),
        };
        let Some(child) = value.get(key) else {
            return false;
        };
        if items {
            child
                .as_array()
                .is_some_and(|l| l.iter().any(|item| walk(item, rest)))
        } else {
            walk(child, rest)
        }
    }
    walk(value, &path.split('.').collect::<Vec<_>>())
}

struct Case {
    kind: ResourceKind,
    title: String,
    url: String,
    object: Value,
    /// A write of `status` to the status subresource (a create resets status): the object
    /// without it (unused but for telling the cases apart).
    status_of: Option<Value>,
}

/// Makes the node at `path` present, as [`ensure`] does, with the `type` of each union on the
/// way naming the member the path takes (`filters[].requestMirror` needs `type:
/// RequestMirror`), then [`satisfy`]s the object.
fn ensure_typed(object: &mut Value, schema: &Value, path: &[Seg]) {
    ensure(object, schema, path);
    let (mut node, mut node_schema) = (&mut *object, schema);
    for seg in path {
        match seg {
            Seg::Field(key) => {
                let want = node_schema["properties"]["type"]["enum"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .find(|v| v.eq_ignore_ascii_case(key))
                    .map(str::to_owned);
                if let Some(want) = want {
                    node["type"] = json!(want);
                }
                node_schema = &node_schema["properties"][key.as_str()];
                node = &mut node[key.as_str()];
            }
            Seg::Item => {
                node_schema = &node_schema["items"];
                node = &mut node[0];
            }
            Seg::Key => break,
        }
    }
    satisfy(object, schema, "");
}

/// Satisfies, everywhere in `value` (the member `key` of its parent), the CEL rules the
/// smallest values break: a reference to a Service has a `port` ("Must have port for Service
/// reference"), a protocol union holds its protocol's member ("http must be specified when
/// protocol is set to 'HTTP'"), a Cookie session holds its `cookie`, a listener with filters
/// is HTTP ("filters may only be set when protocol is HTTP or HTTPS"), and an address holds an
/// IP.
fn satisfy(value: &mut Value, schema: &Value, key: &str) {
    match value {
        Value::Object(o) => {
            let props = &schema["properties"];
            let has = |name: &str| props.get(name).is_some();
            if has("port") && has("name") {
                o.entry("port").or_insert(json!(80));
            }
            if key == "addresses" && has("value") && o.get("type").is_none_or(|t| t == "IPAddress")
            {
                o.insert("value".into(), json!("192.0.2.1"));
            }
            if key == "listeners" && o.contains_key("filters") {
                o.insert("protocol".into(), json!("HTTP"));
            }
            if has("cookie") && has("type") && o.get("type").is_none_or(|t| t == "Cookie") {
                o.entry("cookie")
                    .or_insert_with(|| minimal(&props["cookie"]));
            }
            if let Some(protocol) = o.get("protocol").and_then(Value::as_str) {
                let member = protocol.to_ascii_lowercase();
                if has(&member) && !o.contains_key(&member) {
                    o.insert(member.clone(), minimal(&props[member.as_str()]));
                }
            }
            for (k, v) in o.iter_mut() {
                satisfy(v, &props[k.as_str()], k);
            }
        }
        Value::Array(items) => {
            for item in items {
                satisfy(item, &schema["items"], key);
            }
        }
        _ => {}
    }
}

fn cases(upstream: &std::path::Path, dir: &str, bundle: Bundle) -> Vec<Case> {
    let versions = crd::served_versions(upstream, dir);
    let examples = crd::examples(upstream);
    let mut out = Vec::new();
    for v in &versions {
        let Some(kind) = ResourceKind::from_type(&v.api_version(), &v.kind) else {
            continue;
        };
        let url = collection(
            &v.group,
            &v.version,
            &v.plural,
            v.namespaced.then_some("default"),
        );
        let mut push = |title: String, object: Value| {
            let status = object.get("status").cloned();
            let mut object = document(v, object);
            let status_of = status.map(|status| {
                let target = object.clone();
                object["status"] = status;
                target
            });
            out.push(Case {
                kind,
                title: format!("{} {} {title}", v.kind, v.api_version()),
                url: url.clone(),
                object,
                status_of,
            });
        };
        for (i, e) in examples
            .iter()
            .filter(|e| e["kind"] == v.kind.as_str() && e["apiVersion"] == v.api_version().as_str())
            .enumerate()
        {
            push(format!("example {i}"), e.clone());
        }
        let smallest = minimal(&v.schema);
        push("smallest".into(), smallest.clone());
        for row in CRD_DEFAULTS
            .iter()
            .filter(|r| r.kind == kind && r.declared_by(bundle))
        {
            let Some((parent, field)) = row.path.rsplit_once('.') else {
                continue; // a root default (`status`): the smallest object has it
            };
            // The base a default's parent is added to: a hand-made base where the smallest
            // object breaks a rule, else the smallest object.
            let mut object = BASES
                .iter()
                .find(|(k, prefix, _)| *k == v.kind && row.path.starts_with(prefix))
                .map_or_else(
                    || smallest.clone(),
                    |(_, _, b)| serde_json::from_str(b).unwrap(),
                );
            // XBackend `port.port` is `port.number` from v1.7.
            if v.schema["properties"]["spec"]["properties"]["port"]["properties"]
                .get("number")
                .is_some()
                && let Some(port) = object
                    .pointer_mut("/spec/port")
                    .and_then(Value::as_object_mut)
                && let Some(n) = port.remove("port")
            {
                port.insert("number".into(), n);
            }
            let parent = segments(parent);
            ensure_typed(&mut object, &v.schema, &parent);
            if let Some(o) = ensure(&mut object, &v.schema, &parent).as_object_mut() {
                o.remove(field);
            }
            push(format!("parent of {}", row.path), object);
        }
    }
    out
}

fn check(release: &str, channel: Channel) {
    let upstream = gamma_testenv::upstream::release_tree(release).expect("the test's precondition");
    let env = gamma_testenv::server_release(release, channel);
    let model_channel = if channel == Channel::Experimental {
        ModelChannel::Experimental
    } else {
        ModelChannel::Standard
    };
    let bundle = Bundle::new(Release::parse(release).unwrap(), model_channel);
    let cases = cases(&upstream, channel.as_str(), bundle);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let client = runtime.block_on(client(env));
    let creates: Vec<_> = runtime.block_on(
        futures::stream::iter(cases.iter().filter(|c| c.status_of.is_none()))
            .map(|c| dry_run_stored(&client, &c.url, &c.object))
            .buffered(8)
            .collect(),
    );
    // Status writes go to an object created for real, once per collection: the first object
    // of that collection the server accepted.
    let mut targets = BTreeSet::new();
    for (case, answer) in cases.iter().filter(|c| c.status_of.is_none()).zip(&creates) {
        if answer.is_ok() && targets.insert(case.url.clone()) {
            runtime.block_on(create_status_target(&client, &case.url, &case.object));
        }
    }
    let statuses: Vec<_> = runtime.block_on(
        futures::stream::iter(cases.iter().filter(|c| c.status_of.is_some()))
            .map(|c| dry_run_status_stored(&client, &c.url, &c.object))
            .buffered(8)
            .collect(),
    );
    let (mut creates, mut statuses) = (creates.into_iter(), statuses.into_iter());
    let answers: Vec<_> = cases
        .iter()
        .map(|c| {
            let next = if c.status_of.is_some() {
                statuses.next()
            } else {
                creates.next()
            };
            next.unwrap()
        })
        .collect();
    let mut accepted = 0;
    let mut mismatches = Vec::new();
    let mut refusals = Vec::new();
    let mut seen: BTreeSet<(ResourceKind, &str)> = BTreeSet::new();
    for (case, answer) in cases.iter().zip(answers) {
        let stored = match answer {
            Ok(stored) => stored,
            Err(refused) => {
                refusals.push((case.title.clone(), refused));
                continue;
            }
        };
        accepted += 1;
        let mut ours = case.object.clone();
        apply_defaults(case.kind, bundle, &mut ours);
        // A status write keeps the stored spec (of the target, defaulted when created).
        let parts: &[&str] = if case.status_of.is_some() {
            &["status"]
        } else {
            &["spec", "status"]
        };
        for part in parts.iter().copied() {
            if ours.get(part) != stored.get(part) {
                mismatches.push(format!(
                    "{}: {part}\n  server: {}\n  gamma:  {}",
                    case.title,
                    stored.get(part).unwrap_or(&Value::Null),
                    ours.get(part).unwrap_or(&Value::Null)
                ));
            }
        }
        for row in CRD_DEFAULTS
            .iter()
            .filter(|r| r.kind == case.kind && r.declared_by(bundle))
        {
            if present(&stored, row.path) && !present(&case.object, row.path) {
                seen.insert((row.kind, row.path));
            }
        }
    }
    let unseen: Vec<_> = CRD_DEFAULTS
        .iter()
        .filter(|r| r.declared_by(bundle) && !seen.contains(&(r.kind, r.path)))
        .map(|r| {
            let why = refusals
                .iter()
                .find(|(title, _)| {
                    title.ends_with(&format!(" parent of {}", r.path))
                        && title.starts_with(r.kind.as_str())
                })
                .map_or_else(|| "no refusal".to_owned(), |(_, a)| format!("{a:?}"));
            format!("{} {}: {why}", r.kind.as_str(), r.path)
        })
        .collect();
    eprintln!(
        "{release} {}: {} objects, {accepted} accepted, {} defaults seen applied, {} mismatches",
        channel.as_str(),
        cases.len(),
        seen.len(),
        mismatches.len()
    );
    assert!(
        mismatches.is_empty(),
        "{release} {}: gamma-model's defaults differ from the API server's on {} objects:\n{}",
        channel.as_str(),
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(
        unseen.is_empty(),
        "{release} {}: defaults never seen applied by the server: {unseen:#?}",
        channel.as_str()
    );
}

fn v1_5_standard_defaults_as_the_api_server() {
    check("v1.5.1", Channel::Standard);
}

fn v1_5_experimental_defaults_as_the_api_server() {
    check("v1.5.1", Channel::Experimental);
}

fn v1_6_standard_defaults_as_the_api_server() {
    check("v1.6.1", Channel::Standard);
}

fn v1_6_experimental_defaults_as_the_api_server() {
    check("v1.6.1", Channel::Experimental);
}

fn v1_7_standard_defaults_as_the_api_server() {
    check("v1.7.0", Channel::Standard);
}

fn v1_7_experimental_defaults_as_the_api_server() {
    check("v1.7.0", Channel::Experimental);
}
