//! `--follow`: chains of hops (a Gateway route to a Service with mesh routes, and on), for
//! people. The engine's `Trace` and `Distribution` are the JSON forms.

use gamma_resolve::{Distribution, Hop, HopRequest, Trace};

use crate::style::Style;

/// `GET /v2/api to 10.96.0.22:8080 from shop, headers x-track=v2`: a later hop's request.
pub fn describe_hop(r: &HopRequest) -> String {
    let mut s = String::new();
    if r.protocol.is_http() {
        s.push_str(&format!(
            "{} {}",
            r.method.as_deref().unwrap_or("GET"),
            r.path
        ));
    } else {
        s.push_str(&format!("{} connection", r.protocol));
    }
    s.push_str(&format!(" to {}:{}", r.destination, r.port));
    if let Some(h) = &r.host {
        s.push_str(&format!(" host {h}"));
    }
    match &r.source_namespace {
        Some(ns) => s.push_str(&format!(" from {ns}")),
        None => s.push_str(" from an unknown namespace"),
    }
    if !r.header_edits.is_empty() {
        let edits: Vec<String> = r
            .header_edits
            .iter()
            .map(|h| match &h.value {
                Some(v) => format!("{}={v}", h.name),
                None => format!("{} removed", h.name),
            })
            .collect();
        s.push_str(&format!(", headers edited: {}", edits.join(", ")));
    }
    s
}

/// One line per hop (`hop 2: Service shop/a port 80, consumer routes of namespace infra:
/// forward to ...`) and the end.
pub fn render_trace(t: &Trace<'_>, style: &Style) -> String {
    let mut out = String::new();
    for (i, hop) in t.hops.iter().enumerate() {
        out.push_str(&format!("hop {}:   {}\n", i + 1, hop_line(hop)));
        if i > 0 {
            out.push_str(&format!(
                "          {}\n",
                style.dim(&format!("request: {}", describe_hop(&hop.request)))
            ));
        }
    }
    out.push_str(&format!("end:     {}\n", style.bold(&t.end.to_string())));
    out
}

/// What one hop bound to and did.
pub fn hop_line(hop: &Hop<'_>) -> String {
    let at = match (&hop.frontend, &hop.route_set) {
        (Some(f), Some(s)) => format!("{f} ({s}): "),
        (Some(f), None) => format!("{f}: "),
        _ => String::new(),
    };
    format!("{at}{}", hop.outcome)
}

/// The exact split: share in percent, the fraction, the end.
pub fn render_distribution(d: &Distribution<'_>) -> String {
    let mut out = String::new();
    for e in &d.ends {
        out.push_str(&format!(
            "{:>6.1}%  {:<12}  {}\n",
            e.share.to_f64() * 100.0,
            e.share.to_string(),
            e.end
        ));
    }
    out
}
