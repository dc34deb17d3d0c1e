//! `gammactl resolve`: where requests go. One request by flags, many as JSON lines, or one
//! request sampled N times for its backend distribution.

use std::io::BufRead;
use std::path::Path;

use gamma_resolve::Decision;
use serde::Serialize;

use crate::cli::{Format, ResolveArgs};
use crate::engine::{Engine, Prepared};
use crate::failure::{Failure, input, usage};
use crate::output::{emit, emit_line, print, warn};
use crate::request::RequestLine;
use crate::sample::{self, Distribution};
use crate::style::Style;

pub fn run(args: &ResolveArgs) -> Result<(), Failure> {
    if args.requests.as_deref() == Some(Path::new("-"))
        && args.input.files.iter().any(|f| f.as_os_str() == "-")
    {
        return Err(usage(
            "standard input cannot hold both the manifests (-f -) and the requests (--requests -)",
        ));
    }
    let manifests = super::read_strict(&args.input)?;
    let engine = Engine::build(
        &manifests.snapshot(),
        &manifests.kinds,
        args.bind.binding(),
        args.config.build_options()?,
    );
    if let Some(file) = &args.requests {
        return batch(
            &engine,
            file,
            args.output.format,
            args.input.namespace.as_deref(),
        );
    }
    let line =
        RequestLine::from_args(&args.request, args.input.namespace.as_deref()).map_err(usage)?;
    line.destination().map_err(usage)?;
    let prepared = engine.prepare(&line).map_err(input)?;
    warn_about(&prepared, "");
    if let Some(note) = engine.stand_in_note(&prepared.destination) {
        warn(&format!("note: {}: {note}", prepared.destination));
    }
    // routes left out for invalidity would otherwise be invisible behind this decision
    for l in engine.table.left_out_at(prepared.address) {
        warn(&format!("note: {l}"));
    }
    for l in engine.core_group_notes(&prepared) {
        warn(&format!("note: {l}"));
    }
    if let Some(n) = args.sample {
        if n == 0 {
            return Err(usage("--sample needs at least 1"));
        }
        if args.follow {
            if args.verdict.from_identity.is_some() {
                return Err(usage(
                    "--from-identity decides one request where it ends: not with --sample",
                ));
            }
            return sample_chains(&engine, &prepared, n, args.output.format());
        }
        let dist = Distribution::count(
            (0..n).map(|i| outcome(&engine.resolve(&prepared, sample::entropy(i, n)))),
        );
        return match args.output.format() {
            Format::Text => {
                emit_line(&format!("{} samples of {}:", n, describe(&prepared)));
                emit(&dist.render());
                Ok(())
            }
            f => print(&dist, f),
        };
    }
    if args.follow {
        let trace = engine.trace(&prepared, 0);
        let authorization = super::verdict::at_end(&engine, &prepared, &trace, &args.verdict)?;
        return match args.output.format() {
            Format::Text => {
                let style = Style::stdout();
                emit(&crate::chain::render_trace(&trace, &style));
                emit(&authorization.render(&style));
                Ok(())
            }
            f => print(
                &Traced {
                    trace: &trace,
                    authorization: &authorization,
                },
                f,
            ),
        };
    }
    let decision = engine.resolve(&prepared, 0);
    match args.output.format() {
        Format::Text => {
            let style = Style::stdout();
            emit(&render_decision(&decision, &style));
            if let Some(why) = &prepared.unbound {
                emit_line(&format!("  {}", style.dim(why)));
            }
        }
        f => {
            if let Some(why) = &prepared.unbound {
                warn(&format!("{} {why}", Style::stderr().dim("note:")));
            }
            print(&decision, f)?;
        }
    }
    Ok(())
}

/// `resolve --follow -o json`: the engine's `Trace`, with the authorization verdict where the
/// request ends beside its fields.
#[derive(Serialize)]
struct Traced<'a> {
    #[serde(flatten)]
    trace: &'a gamma_resolve::Trace<'a>,
    authorization: &'a super::verdict::Authorization,
}

/// The request's warnings on standard error, after `prefix` (a `FILE:LINE: ` in batches).
pub fn warn_about(p: &Prepared, prefix: &str) {
    let style = Style::stderr();
    for w in &p.warnings {
        warn(&format!("{prefix}{} {w}", style.yellow("warning:")));
    }
}

/// One JSON value per request line; errors keep their line so output stays aligned.
fn batch(
    engine: &Engine,
    file: &Path,
    format: Option<Format>,
    namespace: Option<&str>,
) -> Result<(), Failure> {
    let stdin = file.as_os_str() == "-";
    let name = if stdin {
        "<stdin>".to_owned()
    } else {
        file.display().to_string()
    };
    let text = if stdin {
        crate::input::read_limited(std::io::stdin().lock())
    } else {
        std::fs::File::open(file)
            .map_err(|e| crate::input::describe_io(&e))
            .and_then(crate::input::read_limited)
    }
    .map_err(|e| input(format!("{name}: {e}")))?;
    let style = Style::stderr();
    let mut failed = 0usize;
    // the Services that were sent to through a stand-in address, noted once at the end
    let mut stand_ins = std::collections::BTreeSet::new();
    // addresses whose left-out routes were already noted: once per address, at its first request
    let mut noted = std::collections::BTreeSet::new();
    for (i, raw) in text.as_bytes().lines().enumerate() {
        let number = i + 1;
        let raw = raw.unwrap_or_default();
        if raw.trim().is_empty() {
            continue;
        }
        let result = serde_json::from_str::<RequestLine>(&raw)
            .map(|line| line.in_namespace(namespace))
            .map_err(|e| strip_json_position(&e.to_string()))
            .and_then(|line| engine.prepare(&line));
        match result {
            Ok(prepared) => {
                warn_about(&prepared, &format!("{name}:{number}: "));
                if let (
                    Some(ip),
                    crate::request::Destination::Service {
                        name, namespace, ..
                    },
                ) = (
                    engine.stand_in_address(&prepared.destination),
                    &prepared.destination,
                ) {
                    stand_ins.insert(format!("{name}.{namespace} {ip}"));
                }
                // as for one request: a route left out for invalidity would otherwise be
                // invisible behind these decisions
                if noted.insert(prepared.address) {
                    for l in engine.table.left_out_at(prepared.address) {
                        warn(&format!("{name}:{number}: note: {l}"));
                    }
                }
                let decision = engine.resolve(&prepared, 0);
                match format {
                    Some(Format::Text) => {
                        emit_line(&format!("{number}: {}: {decision}", describe(&prepared)))
                    }
                    Some(Format::Yaml) => {
                        emit("---\n");
                        print(&decision, Format::Yaml)?;
                    }
                    None | Some(Format::Json) => emit_line(&to_json(&decision)?),
                }
            }
            Err(message) => {
                failed += 1;
                warn(&format!(
                    "{}: {message}",
                    style.bold(&format!("{name}:{number}"))
                ));
                let error = LineError {
                    decision: "error",
                    line: number,
                    message: &message,
                };
                match format {
                    Some(Format::Text) => emit_line(&format!("{number}: error: {message}")),
                    Some(Format::Yaml) => {
                        emit("---\n");
                        print(&error, Format::Yaml)?;
                    }
                    None | Some(Format::Json) => emit_line(&to_json(&error)?),
                }
            }
        }
    }
    if !stand_ins.is_empty() {
        warn(&format!(
            "note: Services without a clusterIP in the manifests (the API server allocates one) \
             were sent to stand-in addresses from {} (reserved, unused in the input): {}",
            crate::engine::STAND_IN_RANGE,
            stand_ins.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if failed > 0 {
        Err(Failure::Reported)
    } else {
        Ok(())
    }
}

/// `--sample N --follow`: how N chains (entropies spread evenly) end, then the exact split.
fn sample_chains(
    engine: &Engine,
    prepared: &Prepared,
    n: u32,
    format: Format,
) -> Result<(), Failure> {
    let sampled = Distribution::count((0..n).map(|i| {
        engine
            .trace(prepared, sample::entropy(i, n))
            .end
            .to_string()
    }));
    let exact = engine
        .table
        .trace_distribution(&Engine::request(prepared))
        .map_err(|e| e.to_string());
    match format {
        Format::Text => {
            emit_line(&format!(
                "{} samples of {}, followed to the end:",
                n,
                describe(prepared)
            ));
            emit(&sampled.render());
            match &exact {
                Ok(d) => {
                    emit_line("exact end-to-end split:");
                    emit(&crate::chain::render_distribution(d));
                }
                Err(e) => warn(&format!("note: no exact split: {e}")),
            }
            Ok(())
        }
        f => {
            #[derive(Serialize)]
            struct Sampled<'a> {
                #[serde(flatten)]
                sampled: &'a Distribution,
                #[serde(skip_serializing_if = "Option::is_none")]
                exact: Option<&'a gamma_resolve::Distribution<'a>>,
                #[serde(skip_serializing_if = "Option::is_none")]
                exact_error: Option<&'a str>,
            }
            print(
                &Sampled {
                    sampled: &sampled,
                    exact: exact.as_ref().ok(),
                    exact_error: exact.as_ref().err().map(String::as_str),
                },
                f,
            )
        }
    }
}

/// The JSON line answered for a request that could not be resolved.
#[derive(Serialize)]
struct LineError<'a> {
    decision: &'static str,
    line: usize,
    message: &'a str,
}

fn to_json<T: Serialize>(value: &T) -> Result<String, Failure> {
    serde_json::to_string(value).map_err(|e| input(format!("cannot encode as JSON: {e}")))
}

/// serde_json appends ` at line 1 column 57`; within a one-line request the column is noise.
fn strip_json_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// `GET /api/orders to 10.96.10.20:80 from shop`.
pub fn describe(p: &Prepared) -> String {
    let mut s = String::new();
    if p.protocol.is_http() {
        s.push_str(&format!("{} {}", p.method, p.path));
        if p.protocol == gamma_resolve::Protocol::Grpc {
            s.push_str(" (gRPC)");
        }
        if p.scheme == gamma_resolve::Scheme::Https {
            s.push_str(" (https)");
        }
    } else {
        s.push_str(&format!("{} connection", p.protocol));
    }
    s.push_str(&format!(" to {}", p.destination));
    if !matches!(p.destination, crate::request::Destination::Address(_)) {
        s.push_str(&format!(" ({}:{})", p.address, p.port));
    }
    if let Some(h) = &p.line.host {
        s.push_str(&format!(" host {h}"));
    }
    for (k, v) in &p.line.headers {
        s.push_str(&format!(" {k}={v}"));
    }
    if let Some(ns) = &p.line.from {
        s.push_str(&format!(" from {ns}"));
    }
    s
}

/// The short label `--sample` counts.
fn outcome(d: &Decision<'_>) -> String {
    match d {
        Decision::Forward(f) => f.backend.to_string(),
        Decision::Redirect(r) => format!("redirect {} {}", r.status, r.location),
        Decision::Respond(r) => format!("{} ({})", r.status, r.reason),
        Decision::Passthrough => "passthrough".into(),
        _ => d.to_string(),
    }
}

/// A decision for people: the headline, then filters and timeouts when there are any.
pub fn render_decision(d: &Decision<'_>, style: &Style) -> String {
    let mut out = String::new();
    let headline = d.to_string();
    out.push_str(&match d {
        Decision::Forward(_) => style.green(&headline),
        Decision::Redirect(_) | Decision::Passthrough => style.yellow(&headline),
        _ => style.red(&headline),
    });
    out.push('\n');
    if let Decision::Forward(f) = d {
        let edits = [
            ("request headers", f.request_headers),
            ("response headers", f.response_headers),
            ("backend request headers", f.backend_request_headers),
            ("backend response headers", f.backend_response_headers),
        ];
        for (label, e) in edits {
            if e.is_empty() {
                continue;
            }
            let mut parts = Vec::new();
            parts.extend(e.set.iter().map(|(k, v)| format!("set {k}: {v}")));
            parts.extend(e.add.iter().map(|(k, v)| format!("add {k}: {v}")));
            parts.extend(e.remove.iter().map(|k| format!("remove {k}")));
            out.push_str(&format!("  {label}: {}\n", parts.join(", ")));
        }
        if let Some(t) = f.timeouts {
            let t = serde_json::to_value(t).unwrap_or_default();
            out.push_str(&format!("  timeouts: {}\n", compact(&t)));
        }
        if let Some(r) = f.retry {
            out.push_str(&format!("  retry: {}\n", retry_text(r)));
        }
        for m in f.mirrors {
            out.push_str(&format!(
                "  mirror: {}/{} ({}/{})\n",
                m.namespace, m.name, m.numerator, m.denominator
            ));
        }
    }
    out
}

/// `{"request":"10s"}` as `request 10s`.
/// A retry policy for people: how many retries (the default named as such), on which codes,
/// how far apart; or that it is off.
fn retry_text(r: &gamma_mesh::resolve::RetryPolicy) -> String {
    if r.is_disabled() {
        return "disabled (attempts 0)".into();
    }
    let mut parts = vec![match r.attempts {
        Some(n) => format!("attempts {n}"),
        None => format!("attempts {} (default)", r.attempts()),
    }];
    if !r.codes.is_empty() {
        let codes: Vec<String> = r.codes.iter().map(u16::to_string).collect();
        parts.push(format!("codes {}", codes.join(",")));
    }
    if let Some(b) = r.backoff {
        parts.push(format!(
            "backoff {}",
            gamma_mesh::resolve::gateway_duration(b)
        ));
    }
    parts.join(", ")
}

fn compact(v: &serde_json::Value) -> String {
    match v.as_object() {
        Some(map) => map
            .iter()
            .map(|(k, v)| {
                format!(
                    "{k} {}",
                    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
                )
            })
            .collect::<Vec<_>>()
            .join(", "),
        None => v.to_string(),
    }
}
