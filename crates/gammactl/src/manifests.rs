//! Manifests with provenance: every decoded object remembers the file, document and line it
//! came from, and every decode failure becomes a located [`Problem`].
//!
//! Files are split into documents here (YAML on `---` lines at column 0, JSON arrays into
//! their top-level items) so that one bad document does not hide the problems of the others,
//! and so that line numbers are known per document.

use std::collections::BTreeMap;
use std::sync::Arc;

use gamma_mesh::model::decode::Position;
use gamma_mesh::model::validate::FieldCheck;
use gamma_mesh::model::{AnyResource, DecodeError, ObjectKey, Snapshot};
use gamma_mesh::model::{DecodeOptions, decode_documents};

use crate::input::Source;
use crate::locate;
use crate::problem::{Problem, Severity};

/// The namespace of namespaced objects that name none, without `-n` (as kubectl).
pub const DEFAULT_NAMESPACE: &str = "default";

/// Where an object came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file name (or `<stdin>`).
    pub file: String,
    /// The 0-based index of the document within the file.
    pub document: usize,
    /// The 1-based line where the document's content starts.
    pub line: usize,
}

/// One decoded object and where it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The object.
    pub resource: AnyResource,
    /// Its unknown, missing and experimental-only fields (recorded by [`Manifests::load_in`]),
    /// for judging it as the API server does.
    pub fields: FieldCheck,
    /// Its file, document and line.
    pub origin: Origin,
    /// The document's text, for locating field paths; shared by every object of a `kind: List`
    /// document, so a large List costs its text once.
    text: Arc<str>,
    /// The file line of the document text's first line.
    first_line: usize,
    /// Where the object sits in its document's text: `items[3].` inside a `kind: List`.
    path_prefix: String,
}

impl Loaded {
    /// The object's identity.
    pub fn key(&self) -> ObjectKey {
        ObjectKey::of(&self.resource)
    }

    /// The file line of the field at `path`, or of the document when it cannot be found.
    pub fn line_of(&self, path: &str) -> usize {
        locate::line_of(&self.text, &format!("{}{path}", self.path_prefix))
            .map(|l| self.first_line + l - 1)
            .unwrap_or(self.origin.line)
    }

    /// A problem about this object, located at `path` (empty: the object itself).
    pub fn problem(&self, severity: Severity, path: &str, message: String) -> Problem {
        Problem {
            severity,
            file: Some(self.origin.file.clone()),
            document: Some(self.origin.document),
            line: Some(if path.is_empty() {
                self.origin.line
            } else {
                self.line_of(path)
            }),
            object: Some(self.key()),
            path: (!path.is_empty()).then(|| path.to_owned()),
            message,
        }
    }
}

/// Everything read from the `-f` inputs.
#[derive(Debug, Default)]
pub struct Manifests {
    /// Decoded objects in input order.
    pub objects: Vec<Loaded>,
    /// Problems met while reading and decoding, in input order.
    pub problems: Vec<Problem>,
    /// How many files were read.
    pub files: usize,
    /// The names of the files read, in input order.
    pub file_order: Vec<String>,
    /// The kinds of objects skipped because gamma-rs does not read them (`apps/v1 Deployment`,
    /// with the apiVersion), one entry per object in input order: summarised in one line, not a
    /// warning each.
    pub skipped: Vec<String>,
    /// `--secrets-complete`: the inputs hold every TLS Secret, even when they hold none.
    pub secrets_complete: bool,
    /// For a cluster read: whether its route CRDs declare `parentRefs[].controllers` (the
    /// gamma-rs CRD extension). `None` for files.
    pub parent_ref_controllers: Option<gamma_kube::crd_extension::Availability>,
    /// Whether the route CRDs the objects are judged by declare `parentRefs[].controllers`:
    /// as a cluster's CRDs say, or for files as `--crd-extension controllers` says.
    pub controllers_declared: bool,
    /// The Gateway API bundle the objects are judged by: `--bundle-version` and `--channel`
    /// where given, else for a cluster the bundle its CRDs name, else the newest release's
    /// standard channel.
    pub bundle: gamma_mesh::model::validate::Bundle,
    /// The bundle each kind is judged by: for a cluster read without `--bundle-version` and
    /// `--channel`, each kind's own CRD's (and [`Manifests::bundle`] for kinds without one);
    /// else [`Manifests::bundle`] for every kind.
    pub kinds: gamma_mesh::model::validate::KindBundles,
    /// Namespaces the objects are in that no Namespace object of the files defines (set by
    /// [`Manifests::assume_namespaces`]): the snapshot holds them, unlabelled, as a cluster
    /// where they were created with `kubectl create namespace` would.
    pub assumed_namespaces: Vec<String>,
}

impl Manifests {
    /// Decodes every source. Objects of kinds gamma-rs does not model are skipped with a
    /// warning; an object defined twice is a warning (the later definition is kept, as `kubectl
    /// apply` would apply both in turn). Objects without a namespace are in `default`.
    #[cfg(test)]
    pub fn load(sources: &[Source], problems: Vec<Problem>) -> Self {
        Self::load_in(sources, problems, DEFAULT_NAMESPACE, false, None)
    }

    /// Decodes every source as `Manifests::load` (the tests' reader) does, with `namespace` for
    /// namespaced objects that name none (`-n`, as kubectl), recording each object's unknown and
    /// missing fields, to judge it as the API server does (`validate`, and the warnings of every
    /// other command); with `validating`, an API version no CRD serves is an error (as the API
    /// server's 404), else a warning (the other commands read on without the object); with
    /// `defaults`, applying that bundle's CRD defaults as the API server does before storing, so
    /// that a file reads as the object the cluster stores from it (fields are checked before
    /// defaulting: defaults only add declared fields).
    pub fn load_in(
        sources: &[Source],
        problems: Vec<Problem>,
        namespace: &str,
        validating: bool,
        defaults: Option<gamma_mesh::model::validate::Bundle>,
    ) -> Self {
        let mut options = DecodeOptions::skipping_unsupported();
        options.check_fields = true;
        options.defaults = defaults.map(Into::into);
        Self::load_with(sources, problems, &options, namespace, validating)
    }

    fn load_with(
        sources: &[Source],
        mut problems: Vec<Problem>,
        options: &DecodeOptions,
        namespace: &str,
        validating: bool,
    ) -> Self {
        // `validate` answers what the API server would: 404 for a version no CRD serves.
        // Other commands read on without the object, and say so.
        let removed_version = if validating {
            Severity::Error
        } else {
            Severity::Warning
        };
        let docs = documents(sources);
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .min(docs.len() / DOCUMENTS_PER_THREAD);
        let mut objects = Vec::new();
        let mut skipped = Vec::new();
        for found in decode_all(&docs, options, removed_version, threads) {
            objects.extend(found.objects);
            problems.extend(found.problems);
            skipped.extend(found.skipped);
        }
        // kubectl: a namespaced object that names no namespace is in `-n`'s, else `default`
        for o in &mut objects {
            if o.resource.kind().is_namespaced() && o.resource.metadata().namespace.is_none() {
                o.resource.metadata_mut().namespace = Some(namespace.to_owned());
            }
        }
        // An object defined again (a folder holding alternative versions of one route) is what
        // `kubectl apply -f FOLDER` applies in turn: the later definition wins. A warning, not
        // an error: the folder applies, and the answer is the later one's.
        let mut seen: BTreeMap<ObjectKey, usize> = BTreeMap::new();
        for (i, o) in objects.iter().enumerate() {
            if let Some(prev) = seen.insert(o.key(), i)
                && let Some(p) = objects.get(prev)
            {
                problems.push(o.problem(
                    Severity::Warning,
                    "",
                    format!(
                        "defined again (first at {}:{}); this later definition is the one used, \
                         as kubectl apply would apply both in turn",
                        p.origin.file, p.origin.line
                    ),
                ));
            }
        }
        Manifests {
            objects,
            problems,
            files: sources.len(),
            file_order: sources.iter().map(|s| s.name.clone()).collect(),
            skipped,
            secrets_complete: false,
            parent_ref_controllers: None,
            controllers_declared: false,
            bundle: gamma_mesh::model::validate::Bundle::default(),
            kinds: gamma_mesh::model::validate::KindBundles::default(),
            assumed_namespaces: Vec::new(),
        }
    }

    /// Takes the namespaces the objects are in but no Namespace object defines as existing,
    /// unlabelled (files rarely hold the Namespaces: a route would otherwise stay pending,
    /// waiting for its Namespace), and returns the note that says so, once; `None` when every
    /// namespace is defined.
    pub fn assume_namespaces(&mut self) -> Option<String> {
        let defined: std::collections::BTreeSet<&str> = self
            .objects
            .iter()
            .filter(|o| o.resource.kind() == gamma_mesh::model::ResourceKind::Namespace)
            .map(|o| o.resource.metadata().name.as_str())
            .collect();
        let mut used: Vec<String> = self
            .objects
            .iter()
            .filter_map(|o| o.resource.metadata().namespace.as_deref())
            .filter(|ns| !defined.contains(ns))
            .map(str::to_owned)
            .collect();
        used.sort();
        used.dedup();
        self.assumed_namespaces = used;
        if self.assumed_namespaces.is_empty() {
            return None;
        }
        let n = self.assumed_namespaces.len();
        Some(format!(
            "{n} namespace{} the files use {} not defined in them ({}): taken to exist, with \
             no labels (add the Namespace objects to give them labels)",
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" },
            self.assumed_namespaces.join(", ")
        ))
    }

    /// The kinds skipped, sorted, each once.
    pub fn skipped_kinds(&self) -> Vec<&str> {
        let mut kinds: Vec<&str> = self.skipped.iter().map(String::as_str).collect();
        kinds.sort_unstable();
        kinds.dedup();
        kinds
    }

    /// `skipped 12 objects of 3 kinds gamma-rs does not read: apps/v1 Deployment, v1 ConfigMap,
    /// ...`, or
    /// `None` when nothing was skipped.
    pub fn skipped_summary(&self) -> Option<String> {
        if self.skipped.is_empty() {
            return None;
        }
        let kinds = self.skipped_kinds();
        let n = self.skipped.len();
        Some(format!(
            "skipped {n} object{} of {} kind{} gamma-rs does not read: {}",
            if n == 1 { "" } else { "s" },
            kinds.len(),
            if kinds.len() == 1 { "" } else { "s" },
            kinds.join(", ")
        ))
    }

    /// Whether any problem is an error.
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(Problem::is_error)
    }

    /// A snapshot of every object (later definitions replace earlier ones), and of the
    /// [`Manifests::assumed_namespaces`]. It holds every
    /// TLS Secret (`Snapshot::secrets_complete`: a certificate reference to a Secret it lacks
    /// is `InvalidCertificateRef`) when the inputs hold any Secret, or with
    /// `--secrets-complete`: files that bring Secrets bring all that matter, and a cluster
    /// read (which lists no Secrets) or files without any say nothing of them. Likewise it
    /// holds every ClusterTrustBundle (`Snapshot::cluster_trust_bundles_complete`) when the
    /// inputs hold any.
    pub fn snapshot(&self) -> Snapshot {
        let assumed = self.assumed_namespaces.iter().filter_map(|name| {
            serde_json::from_value(serde_json::json!({
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": name},
            }))
            .ok()
            .map(AnyResource::Namespace)
        });
        let snapshot = Snapshot::from_resources(
            assumed.chain(self.objects.iter().map(|o| o.resource.clone())),
        );
        let complete = self.secrets_complete || snapshot.secrets().next().is_some();
        // likewise ClusterTrustBundles (GEP-5075 CA references): files that bring one bring
        // all that matter
        let bundles = snapshot.cluster_trust_bundles().next().is_some();
        snapshot
            .with_secrets_complete(complete)
            .with_cluster_trust_bundles_complete(bundles)
    }
}

/// One document's text and where it sits in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RawDocument<'a> {
    index: usize,
    /// The file line of `text`'s first line.
    first_line: usize,
    /// The file line where content (not comments or `---`) starts.
    content_line: usize,
    text: &'a str,
    json: bool,
}

fn split_documents(text: &str) -> Vec<RawDocument<'_>> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return split_json(text);
    }
    // YAML: a line starting with `---` (then nothing, a space or a tab) begins a document.
    let mut chunks: Vec<(usize, usize)> = Vec::new(); // (byte start, file line)
    let mut offset = 0usize;
    chunks.push((0, 1));
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i > 0 && is_document_start(line) {
            chunks.push((offset, i + 1));
        }
        offset += line.len();
    }
    let mut out = Vec::new();
    for (n, &(start, first_line)) in chunks.iter().enumerate() {
        let end = chunks.get(n + 1).map_or(text.len(), |c| c.0);
        let chunk = text.get(start..end).unwrap_or("");
        let Some(content) = chunk.lines().position(|l| {
            let t = l.trim();
            !(t.is_empty() || t.starts_with('#') || t == "---" || t == "..." || t.starts_with('%'))
        }) else {
            continue; // empty document: skipped, as the decoder does
        };
        out.push(RawDocument {
            index: out.len(),
            first_line,
            content_line: first_line + content,
            text: chunk,
            json: false,
        });
    }
    out
}

fn is_document_start(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\n', '\r']))
}

/// A JSON text: a top-level array is split into its items (each decoded on its own); anything
/// else is one document.
fn split_json(text: &str) -> Vec<RawDocument<'_>> {
    let whole = || {
        let lead = text.len() - text.trim_start().len();
        let line = 1 + text.get(..lead).map_or(0, |s| s.matches('\n').count());
        vec![RawDocument {
            index: 0,
            first_line: 1,
            content_line: line,
            text,
            json: true,
        }]
    };
    let Some(items) = json_array_items(text) else {
        return whole();
    };
    // Lines are counted incrementally: items come in order, so the whole text is scanned once.
    let mut line = 1;
    let mut counted = 0;
    items
        .into_iter()
        .enumerate()
        .map(|(index, (start, end))| {
            line += text
                .get(counted..start)
                .map_or(0, |s| s.matches('\n').count());
            counted = start;
            RawDocument {
                index,
                first_line: line,
                content_line: line,
                text: text.get(start..end).unwrap_or(""),
                json: true,
            }
        })
        .collect()
}

/// Byte ranges of the top-level items of a JSON array, or `None` when the text is not a
/// well-formed array of objects (then the decoder reports the syntax error for the whole text).
fn json_array_items(text: &str) -> Option<Vec<(usize, usize)>> {
    let bytes = text.as_bytes();
    let mut i = text.len() - text.trim_start().len();
    if bytes.get(i) != Some(&b'[') {
        return None;
    }
    i += 1;
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut start = None;
    while let Some(&b) = bytes.get(i) {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => {
                    if depth == 0 {
                        if b != b'{' {
                            return None;
                        }
                        start = Some(i);
                    }
                    depth += 1;
                }
                b'}' | b']' => {
                    if depth == 0 {
                        // the closing bracket of the array itself
                        return text.get(i + 1..)?.trim().is_empty().then_some(items);
                    }
                    depth -= 1;
                    if depth == 0 {
                        items.push((start?, i + 1));
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// Every document of `sources`, in order, with its file's name.
fn documents(sources: &[Source]) -> Vec<(&str, RawDocument<'_>)> {
    sources
        .iter()
        .flat_map(|s| {
            split_documents(&s.text)
                .into_iter()
                .map(move |d| (s.name.as_str(), d))
        })
        .collect()
}

/// Documents each thread decodes at least: for fewer, a thread costs more than it saves.
const DOCUMENTS_PER_THREAD: usize = 64;

/// Decodes `docs` (file name, document), in order. Each document is decoded on its own, so a
/// large input is split into `threads` contiguous runs decoded at once (the caller offers as
/// many as the machine has cores, with at least [`DOCUMENTS_PER_THREAD`] documents each); the
/// results come back in input order, the same as one thread gives.
fn decode_all(
    docs: &[(&str, RawDocument<'_>)],
    options: &DecodeOptions,
    removed_version: Severity,
    threads: usize,
) -> Vec<Found> {
    let decode_run = |run: &[(&str, RawDocument<'_>)]| -> Vec<Found> {
        run.iter()
            .map(|(file, doc)| {
                let mut found = Found::new(removed_version);
                decode_document(file, doc, options, &mut found);
                found
            })
            .collect()
    };
    // one run (and `chunks` needs runs of at least one document)
    if threads <= 1 || docs.len() < 2 {
        return decode_run(docs);
    }
    let run = docs.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = docs
            .chunks(run)
            .map(|part| scope.spawn(move || decode_run(part)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// One document's results.
struct Found {
    objects: Vec<Loaded>,
    problems: Vec<Problem>,
    skipped: Vec<String>,
    /// How a removed API version of a kind gamma-rs reads is reported.
    removed_version: Severity,
}

impl Found {
    fn new(removed_version: Severity) -> Self {
        Found {
            objects: Vec::new(),
            problems: Vec::new(),
            skipped: Vec::new(),
            removed_version,
        }
    }
}

fn decode_document(file: &str, doc: &RawDocument<'_>, options: &DecodeOptions, found: &mut Found) {
    match decode_documents(doc.text, options) {
        Ok(decoded) => {
            let text: Arc<str> = Arc::from(doc.text);
            // Lines from the decoder are relative to this document's text.
            let file_line = |at: &Position| at.line.map(|l| doc.first_line + l - 1);
            for d in decoded.documents {
                let line = file_line(&d.at).unwrap_or(doc.content_line);
                found.objects.push(Loaded {
                    resource: d.resource,
                    fields: d.fields,
                    origin: Origin {
                        file: file.to_owned(),
                        document: doc.index,
                        line,
                    },
                    text: Arc::clone(&text),
                    first_line: doc.first_line,
                    path_prefix: d
                        .at
                        .item
                        .map(|i| format!("items[{i}]."))
                        .unwrap_or_default(),
                });
            }
            for skipped in decoded.skipped {
                let identity = (skipped.at.item.is_none())
                    .then(|| peek_identity(doc))
                    .flatten();
                let line = file_line(&skipped.at).or(Some(doc.content_line));
                skip(
                    file,
                    doc,
                    line,
                    &skipped.api_version,
                    &skipped.kind,
                    identity,
                    found,
                );
            }
        }
        Err(DecodeError::UnsupportedKind {
            api_version, kind, ..
        }) => skip(
            file,
            doc,
            Some(doc.content_line),
            &api_version,
            &kind,
            peek_identity(doc),
            found,
        ),
        Err(e) => found.problems.push(decode_problem(file, doc, &e)),
    }
}

/// An object gamma-rs does not decode. A kind it reads in a version the Gateway API no
/// longer serves (GRPCRoute `v1alpha2`) is a warning of its own, naming the version to write:
/// the route would otherwise silently be missing from every answer. Other kinds (Deployments,
/// ConfigMaps) are expected in real folders and only counted.
fn skip(
    file: &str,
    doc: &RawDocument<'_>,
    line: Option<usize>,
    api_version: &str,
    kind: &str,
    identity: Option<(String, String)>,
    found: &mut Found,
) {
    let Some(read) = read_versions(api_version, kind) else {
        // with its apiVersion: `policy.linkerd.io/v1beta3 HTTPRoute` is not the Gateway API's
        found.skipped.push(qualified_kind(api_version, kind));
        return;
    };
    let name = identity.map_or_else(String::new, |(ns, name)| {
        if ns.is_empty() {
            format!(" {name}")
        } else {
            format!(" {ns}/{name}")
        }
    });
    found.problems.push(Problem {
        severity: found.removed_version,
        file: Some(file.to_owned()),
        document: Some(doc.index),
        line,
        object: None,
        path: None,
        message: format!(
            "skipped {kind}{name}: {api_version} is a removed version of {kind}, no longer \
             served by the Gateway API CRDs; gamma-rs reads {read} (change apiVersion)"
        ),
    });
}

/// A skipped kind as the summary names it: with its apiVersion (`apps/v1 Deployment`,
/// `policy.linkerd.io/v1beta3 HTTPRoute`), so that a kind of another API group that shares a
/// name with one gamma-rs reads is not taken for it.
fn qualified_kind(api_version: &str, kind: &str) -> String {
    if api_version.is_empty() {
        kind.to_owned()
    } else {
        format!("{api_version} {kind}")
    }
}

/// The versions gamma-rs reads of `kind` in `api_version`'s API group, when it reads that
/// kind in that group at all (so `api_version` is a version it does not read).
fn read_versions(api_version: &str, kind: &str) -> Option<String> {
    let group = |v: &str| v.rsplit_once('/').map_or("", |(g, _)| g).to_owned();
    let wanted = group(api_version);
    gamma_mesh::model::ResourceKind::ALL
        .iter()
        .filter(|k| k.as_str() == kind)
        .map(|k| k.api_versions())
        .find(|versions| versions.iter().any(|v| group(v) == wanted))
        .map(|versions| versions.join(" or "))
}

fn decode_problem(file: &str, doc: &RawDocument<'_>, e: &DecodeError) -> Problem {
    let peek = peek_identity(doc);
    let mut problem = Problem {
        severity: Severity::Error,
        file: Some(file.to_owned()),
        document: Some(doc.index),
        line: Some(doc.content_line),
        object: None,
        path: None,
        message: String::new(),
    };
    match e {
        // Prefer the position the decoder reports; ask the parser directly when it has none.
        DecodeError::Syntax { at, message, .. } => {
            if let Some(l) = at.line.or_else(|| syntax_error_line(doc)) {
                problem.line = Some(doc.first_line + l - 1);
            }
            problem.message = format!("syntax error: {}", strip_position(first_line_of(message)));
        }
        DecodeError::MissingTypeInfo { field, .. } => {
            problem.message = format!("missing {field}: not a Kubernetes object");
        }
        DecodeError::Field {
            kind,
            path,
            message,
            ..
        } => {
            if let Some((ns, name)) = peek {
                let ns = if kind.is_namespaced() && ns.is_empty() {
                    "default".to_owned()
                } else {
                    ns
                };
                problem.object = Some(ObjectKey::new(*kind, ns, name));
            }
            // The decoder's line (relative to this document) finds the node also inside a
            // `kind: List`; the locator is the fallback when it has none.
            let line = e
                .line()
                .or_else(|| locate::line_of(doc.text, path).filter(|_| !path.is_empty()));
            if let Some(l) = line {
                problem.line = Some(doc.first_line + l - 1);
            }
            if !path.is_empty() {
                problem.path = Some(path.clone());
            }
            problem.message = first_line_of(message).to_owned();
        }
        DecodeError::NotAnObject { found, .. } => {
            problem.message = format!("expected an object with apiVersion and kind, found {found}");
        }
        DecodeError::LimitExceeded { limit, message, .. } => {
            problem.message = format!("{limit} limit exceeded: {message}");
        }
        other => problem.message = other.to_string(),
    }
    problem
}

/// Parser messages carry a position relative to the document (`error: line 6 column 18: ...`);
/// the problem already names the file line, so the relative one would only mislead.
fn strip_position(message: &str) -> &str {
    let m = message.strip_prefix("error: ").unwrap_or(message);
    if let Some(rest) = m.strip_prefix("line ")
        && let Some((position, text)) = rest.split_once(": ")
        && position
            .split(" column ")
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    {
        return text;
    }
    m
}

fn first_line_of(message: &str) -> &str {
    message.lines().next().unwrap_or(message).trim_end()
}

/// The line of a syntax error within the document, asked of the parser directly.
fn syntax_error_line(doc: &RawDocument<'_>) -> Option<usize> {
    if doc.json {
        let err = serde_json::from_str::<serde_json::Value>(doc.text).err()?;
        return (err.line() > 0).then_some(err.line());
    }
    let err = serde_saphyr::from_str::<serde_json::Value>(doc.text).err()?;
    usize::try_from(err.location()?.line()).ok()
}

/// The namespace and name of a document that did not decode, when its metadata can be read.
fn peek_identity(doc: &RawDocument<'_>) -> Option<(String, String)> {
    let value: serde_json::Value = if doc.json {
        serde_json::from_str(doc.text).ok()?
    } else {
        serde_saphyr::from_str(doc.text).ok()?
    };
    let meta = value.get("metadata")?;
    let name = meta.get("name")?.as_str()?.to_owned();
    let ns = meta
        .get("namespace")
        .and_then(|n| n.as_str())
        .unwrap_or("")
        .to_owned();
    Some((ns, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Decoding on several threads gives the objects, problems and skipped kinds of one thread,
    // in the same order: documents of every outcome (objects, a List, a skipped kind, a
    // syntax error, a removed version, an unknown field) spread over runs of uneven length.
    #[test]
    fn documents_decoded_on_several_threads_come_back_as_on_one() {
        let kinds = [
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns-{i}}\n",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d-{i}}\n",
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: [unclosed\n",
            "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: GRPCRoute\nmetadata: {name: g-{i}, namespace: a}\nspec: {}\n",
            "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: l-{i}}}\n- {apiVersion: v1, kind: Namespace, metadata: {name: ns-0}}\n",
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns-{i}, bogus: 1}\n",
        ];
        let text: String = (0..203)
            .map(|i| {
                format!(
                    "---\n{}",
                    kinds[i % kinds.len()].replace("{i}", &i.to_string())
                )
            })
            .collect();
        let sources = [
            source("a.yaml", &text),
            source("b.yaml", &text[..text.len() / 3]),
        ];
        let docs = documents(&sources);
        let mut options = DecodeOptions::skipping_unsupported();
        options.check_fields = true;
        let shown = |threads| {
            decode_all(&docs, &options, Severity::Error, threads)
                .iter()
                .map(|f| format!("{:?} {:?} {:?}", f.objects, f.problems, f.skipped))
                .collect::<Vec<_>>()
        };
        let one = shown(1);
        assert_eq!(one.len(), docs.len());
        assert!(
            one.iter().any(|d| d.contains("Deployment")),
            "a skipped kind"
        );
        assert!(one.iter().any(|d| d.contains("Error")), "an error");
        for threads in [2, 3, 7] {
            assert_eq!(shown(threads), one, "{threads} threads");
        }
    }

    fn source(name: &str, text: &str) -> Source {
        Source {
            name: name.into(),
            text: text.into(),
        }
    }

    const TWO: &str = "\
# leading comment
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
# the second
apiVersion: v1
kind: Namespace
metadata: {name: web}
";

    #[test]
    fn each_object_remembers_its_document_and_line() {
        let m = Manifests::load(&[source("ns.yaml", TWO)], Vec::new());
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let origins: Vec<_> = m.objects.iter().map(|o| o.origin.clone()).collect();
        assert_eq!(
            origins,
            vec![
                Origin {
                    file: "ns.yaml".into(),
                    document: 0,
                    line: 2
                },
                Origin {
                    file: "ns.yaml".into(),
                    document: 1,
                    line: 7
                },
            ]
        );
    }

    #[test]
    fn a_bad_document_does_not_hide_the_next_one() {
        let text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n";
        let m = Manifests::load(&[source("x.yaml", text)], Vec::new());
        assert_eq!(m.objects.len(), 1);
        assert_eq!(m.problems.len(), 1);
        assert_eq!(m.problems[0].document, Some(0));
        assert!(m.problems[0].message.starts_with("syntax error"));
    }

    #[test]
    fn unsupported_kinds_are_counted_not_warned_about_one_by_one() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: shop}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: c}\n";
        let m = Manifests::load(&[source("d.yaml", text)], Vec::new());
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        assert_eq!(
            m.skipped_summary().as_deref(),
            Some(
                "skipped 3 objects of 2 kinds gamma-rs does not read: apps/v1 Deployment, \
                 v1 ServiceAccount"
            )
        );
    }

    #[test]
    fn a_removed_version_of_a_kind_gamma_rs_reads_is_a_warning_naming_the_version() {
        let text = "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: GRPCRoute\nmetadata: {name: g, namespace: shop}\n";
        let m = Manifests::load(&[source("g.yaml", text)], Vec::new());
        assert!(m.skipped.is_empty());
        assert_eq!(m.problems.len(), 1);
        assert_eq!(m.problems[0].severity, Severity::Warning);
        assert!(
            m.problems[0].message.contains("shop/g")
                && m.problems[0].message.contains("removed version")
                && m.problems[0]
                    .message
                    .contains("gamma-rs reads gateway.networking.k8s.io/v1"),
            "{}",
            m.problems[0].message
        );
    }

    #[test]
    fn json_arrays_are_split_into_items_with_lines() {
        let text = "[\n {\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"a]\"}},\n {\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"b\"}}\n]\n";
        let m = Manifests::load(&[source("l.json", text)], Vec::new());
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let lines: Vec<_> = m
            .objects
            .iter()
            .map(|o| (o.origin.document, o.origin.line))
            .collect();
        assert_eq!(lines, vec![(0, 2), (1, 3)]);
    }

    #[test]
    fn json_syntax_errors_name_the_file_line() {
        let text = "[\n {\"apiVersion\": \"v1\", \"kind\": \"Namespace\",\n  \"metadata\": {\"name\": }}\n]\n";
        let m = Manifests::load(&[source("bad.json", text)], Vec::new());
        assert_eq!(m.problems.len(), 1, "{:?}", m.problems);
        assert_eq!(m.problems[0].line, Some(3));
    }

    #[test]
    fn list_items_have_their_own_lines_and_field_locations() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: b\n    labels: {x: y}\n";
        let m = Manifests::load(&[source("l.yaml", text)], Vec::new());
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let lines: Vec<_> = m.objects.iter().map(|o| o.origin.line).collect();
        assert_eq!(lines, vec![4, 7]);
        assert_eq!(m.objects[1].line_of("metadata.labels"), 11);
    }

    #[test]
    fn duplicate_objects_are_warnings_pointing_at_the_first() {
        let text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n";
        let m = Manifests::load(&[source("d.yaml", text)], Vec::new());
        // kubectl apply applies both in turn: the later one wins, nothing fails
        assert!(!m.has_errors());
        assert_eq!(m.problems[0].severity, Severity::Warning);
        assert!(m.problems[0].message.contains("first at d.yaml:1"));
    }

    #[test]
    fn parser_positions_relative_to_the_document_are_dropped() {
        assert_eq!(
            strip_position("error: line 6 column 18: mapping values are not allowed"),
            "mapping values are not allowed"
        );
        assert_eq!(strip_position("line 2: bad"), "bad");
        assert_eq!(strip_position("line of sight: x"), "line of sight: x");
    }

    #[test]
    fn document_markers_need_column_zero_and_a_separator() {
        assert!(is_document_start("---\n"));
        assert!(is_document_start("--- # c\n"));
        assert!(!is_document_start("----\n"));
        assert!(!is_document_start(" ---\n"));
    }

    proptest::proptest! {
        // Any text splits into documents that cover it in order, and loading never panics.
        #[test]
        fn splitting_and_loading_never_panic(text in "(---\n|\\[|\\]|\\{|\\}|\"|,|a: b\n|- x\n| |\n){0,40}") {
            let docs = split_documents(&text);
            for pair in docs.windows(2) {
                proptest::prop_assert!(pair[0].first_line <= pair[1].first_line);
            }
            let _ = Manifests::load(&[source("p.yaml", &text)], Vec::new());
        }
    }
}
