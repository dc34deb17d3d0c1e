//! `gammactl explain`: how one request is resolved, step by step.

use gamma_resolve::Explanation;

use crate::cli::{ExplainArgs, Format};
use crate::engine::Engine;
use crate::failure::{Failure, input, usage};
use crate::output::{emit, emit_line, print};
use crate::request::RequestLine;
use crate::style::Style;

pub fn run(args: &ExplainArgs) -> Result<(), Failure> {
    let manifests = super::read_strict(&args.input)?;
    let engine = Engine::build(
        &manifests.snapshot(),
        &manifests.kinds,
        args.bind.binding(),
        args.config.build_options()?,
    );
    let line =
        RequestLine::from_args(&args.request, args.input.namespace.as_deref()).map_err(usage)?;
    line.destination().map_err(usage)?;
    let prepared = engine.prepare(&line).map_err(input)?;
    super::resolve::warn_about(&prepared, "");
    let mut explanation = engine.explain(&prepared, 0);
    // routes naming the Service through `group: core` without coreGroupAlias: not bound, said
    explanation
        .excluded
        .extend(engine.core_group_notes(&prepared));
    if args.follow {
        return follow(&engine, &prepared, explanation, args);
    }
    match args.output.format() {
        Format::Text => {
            let style = Style::stdout();
            emit_line(&format!(
                "request:   {}",
                style.bold(&super::resolve::describe(&prepared))
            ));
            if let Some(ip) = engine.assigned_address(&prepared.destination) {
                emit_line(&style.dim(&format!(
                    "note:      the Gateway has no address in the manifests; gammactl sends to {ip}"
                )));
            }
            if let Some(note) = engine.stand_in_note(&prepared.destination) {
                emit_line(&style.dim(&format!("note:      {note}")));
            }
            emit(&render(&explanation, &style, folding(args)));
            if let Some(why) = &prepared.unbound {
                emit_line(&style.dim(&format!("why:       {why}")));
            }
            Ok(())
        }
        f => print(&explanation, f),
    }
}

/// `--follow`: the first hop's explanation, then each later hop's, then how the chain ended.
fn follow(
    engine: &Engine,
    prepared: &crate::engine::Prepared,
    first: Explanation,
    args: &ExplainArgs,
) -> Result<(), Failure> {
    let trace = engine.trace(prepared, 0);
    let mut explanations = vec![first];
    explanations.extend(
        trace
            .hops
            .iter()
            .skip(1)
            .map(|h| engine.explain_hop(prepared, h)),
    );
    let authorization = super::verdict::at_end(engine, prepared, &trace, &args.verdict)?;
    match args.output.format() {
        Format::Text => {
            let style = Style::stdout();
            emit_line(&format!(
                "hop 1:     {}",
                style.bold(&super::resolve::describe(prepared))
            ));
            for (i, (hop, ex)) in trace.hops.iter().zip(&explanations).enumerate() {
                if i > 0 {
                    emit_line("");
                    emit_line(&format!(
                        "hop {}:     {}",
                        i + 1,
                        style.bold(&crate::chain::describe_hop(&hop.request))
                    ));
                }
                emit(&render(ex, &style, folding(args)));
            }
            emit_line("");
            emit_line(&format!(
                "end:       {}",
                style.bold(&trace.end.to_string())
            ));
            emit(&authorization.render(&style));
            Ok(())
        }
        f => print(
            &Followed {
                trace: &trace,
                explanations: &explanations,
                authorization: &authorization,
            },
            f,
        ),
    }
}

/// `explain --follow -o json`: the trace and every hop's explanation, in hop order, and the
/// authorization verdict where the request ends.
#[derive(serde::Serialize)]
struct Followed<'a> {
    trace: &'a gamma_resolve::Trace<'a>,
    explanations: &'a [Explanation],
    authorization: &'a super::verdict::Authorization,
}

/// How many candidates that do not match the text lists before it counts the rest, unless
/// `--all-candidates`.
const LISTED_MISSES: usize = 20;

/// The most non-matching candidates `render` lists (`None`: all).
fn folding(args: &ExplainArgs) -> Option<usize> {
    (!args.all_candidates).then_some(LISTED_MISSES)
}

/// The explanation for people: gamma-resolve's steps, with the candidates that also matched
/// but rank below the winner marked as such. Every candidate that matches is listed; of those
/// that do not, the first `listed_misses` (all with `None`), and each run of the rest is
/// counted in one line where it would have been, so the order of what is listed stays the
/// precedence order.
fn render(ex: &Explanation, style: &Style, listed_misses: Option<usize>) -> String {
    let mut out = String::new();
    let mut line = |l: String| {
        out.push_str(&l);
        out.push('\n');
    };
    line(format!("binding:   {}", ex.binding));
    for l in &ex.left_out {
        line(format!("left out:  {}", style.yellow(l)));
    }
    if let Some(s) = &ex.route_set {
        line(format!("route set: {s}"));
    }
    if let Some(k) = &ex.route_kind {
        line(format!(
            "kind:      {k} (on one Service port: GRPCRoute > HTTPRoute > TLSRoute > TCPRoute)"
        ));
    }
    for e in &ex.excluded {
        line(format!("excluded:  {}", style.yellow(e)));
    }
    // GEP-5224: the listener's pre-routing filters, a step before route matching
    if !ex.listener_filters.is_empty() {
        line(
            "listener filters (run before routing, in this order; they never change the listener):"
                .into(),
        );
        for (i, f) in ex.listener_filters.iter().enumerate() {
            line(format!("  {:>3}. {f}", i + 1));
        }
    }
    if !ex.candidates.is_empty() {
        line("candidates, in precedence order:".into());
        let mut winner: Option<usize> = None;
        let (mut misses, mut folded) = (0usize, 0usize);
        let fold_line = |n: usize| {
            style.dim(&format!(
                "       ... {n} more candidate{} that do{} not match (--all-candidates lists them)",
                if n == 1 { "" } else { "s" },
                if n == 1 { "es" } else { "" }
            ))
        };
        for (i, c) in ex.candidates.iter().enumerate() {
            if c.failed.is_some() {
                misses += 1;
                if listed_misses.is_some_and(|most| misses > most) {
                    folded += 1;
                    continue;
                }
            }
            if folded > 0 {
                line(fold_line(folded));
                folded = 0;
            }
            let name = c
                .rule_name
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
            let host = c
                .hostname
                .as_deref()
                .map(|h| format!(" host {h}"))
                .unwrap_or_default();
            // every condition of the match, not only the path
            let more: String = c.conditions.iter().map(|k| format!(", {k}")).collect();
            let head = format!(
                "  {:>3}. {} rule {}{} match {}{}: {}{more}",
                i + 1,
                c.route,
                c.rule,
                name,
                c.match_index,
                host,
                c.condition
            );
            let verdict = match (&c.failed, winner) {
                (Some(why), _) => format!("no: {why}"),
                (None, None) => {
                    winner = Some(i + 1);
                    style.green("MATCH, wins")
                }
                (None, Some(w)) => format!("matches, but ranks below #{w}"),
            };
            line(format!("{head} -> {verdict}"));
        }
        if folded > 0 {
            line(fold_line(folded));
        }
    }
    if let Some(w) = &ex.winner {
        line(format!("winner:    {}", style.green(w)));
    }
    if let Some(b) = &ex.backend_pick {
        line(format!("backend:   {b}"));
    }
    line(format!("decision:  {}", style.bold(&ex.decision)));
    out
}
