//! The regex mix: one Service port (`10.96.0.1:80`) with N HTTPRoute rules of which one in 50
//! (2%) has a `RegularExpression` path, over 190 distinct patterns of four shapes; the other
//! rules are the one-port fixture's (`PathPrefix /s{i}/api`, `Exact /s{i}/exact`, every third
//! with an exact `x-tenant` header match), and every fifth of them also matches the `GET`
//! method. At 10,000 rules: 200 regex rules, 190 distinct regexes (the last ten repeat the
//! first ten, so some regexes belong to two rules).
//!
//! Three request kinds: a path hit (a random rule), a regex-only hit (a random regex rule:
//! no exact or prefix key matches its path) and a 404 (no rule matches, so every regex of the
//! port is tried).

use gamma_resolve::input::*;

use crate::{Rng, http_rule, one_port_rule};

/// One rule in `REGEX_EVERY` has a regex path.
pub const REGEX_EVERY: usize = 50;
/// Distinct regexes of the mix (regex rule `m` uses pattern `m % REGEX_DISTINCT`).
pub const REGEX_DISTINCT: usize = 190;

/// Whether rule `i` of the mix has a regex path.
pub fn is_regex_rule(i: usize) -> bool {
    i % REGEX_EVERY == REGEX_EVERY / 2
}

/// Pattern number `k` of the mix: four shapes (versioned item ids, an alternation with an
/// optional tail, a file suffix after any path, a counted repetition).
pub fn regex_pattern(k: usize) -> String {
    match k % 4 {
        0 => format!("/r{k}/v[0-9]+/items/[a-z0-9-]+"),
        1 => format!("/r{k}/(users|groups)/[0-9]+(/.*)?"),
        2 => format!(r"/r{k}/.*\.(json|xml)"),
        _ => format!("/r{k}/[A-Za-z]+-[0-9]{{2,4}}"),
    }
}

/// A path pattern `k` matches (and no exact or prefix key of the mix does).
pub fn regex_path(k: usize) -> String {
    match k % 4 {
        0 => format!("/r{k}/v2/items/ab-12"),
        1 => format!("/r{k}/users/42/profile"),
        2 => format!("/r{k}/a/b/report.json"),
        _ => format!("/r{k}/abc-123"),
    }
}

fn mix_rule(i: usize) -> RuleIr {
    if is_regex_rule(i) {
        let k = (i / REGEX_EVERY) % REGEX_DISTINCT;
        let headers = if i.is_multiple_of(3) {
            vec![(
                "x-tenant".into(),
                StrMatch::Exact(format!("t{}", i % 7).into()),
            )]
        } else {
            vec![]
        };
        return http_rule(PathMatchIr::Regex(regex_pattern(k).into()), headers, i);
    }
    let mut rule = one_port_rule(i);
    if i.is_multiple_of(5)
        && let Some(MatchIr::Http { method, .. }) = rule.matches.first_mut()
    {
        *method = Some("GET".into());
    }
    rule
}

/// `rules` HTTPRoute rules of the mix on one Service port, 100 rules per route.
pub fn regex_mix(rules: usize) -> TableInput {
    crate::one_port_of(rules, mix_rule)
}

/// Rules per route of [`regex_mix_yaml`]: a valid HTTPRoute has at most 16 rules (and 128
/// matches), so the manifests group ten rules per route.
pub const YAML_RULES_PER_ROUTE: usize = 10;

/// The mix as [`regex_mix`] lowers it, in routes of [`YAML_RULES_PER_ROUTE`] rules: what
/// [`regex_mix_yaml`] lowers to.
pub fn regex_mix_small_routes(rules: usize) -> TableInput {
    crate::one_port_grouped(rules, YAML_RULES_PER_ROUTE, mix_rule)
}

/// What a request of the mix aims at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MixRequest {
    /// A random rule's path (98% exact or prefix keys, 2% regexes).
    PathHit,
    /// A random regex rule's path.
    RegexHit,
    /// A path no rule matches.
    NotFound,
}

/// A request (path, `x-tenant` value) of kind `kind` for the mix of `rules` rules, sent with
/// method `GET`.
pub fn regex_mix_request(rng: &mut Rng, rules: usize, kind: MixRequest) -> (String, String) {
    let rule = |i: usize| -> (String, String) {
        let tenant = format!("t{}", i % 7);
        if is_regex_rule(i) {
            (regex_path((i / REGEX_EVERY) % REGEX_DISTINCT), tenant)
        } else {
            crate::one_port_request(i)
        }
    };
    match kind {
        MixRequest::PathHit => rule(rng.below(rules)),
        MixRequest::RegexHit => {
            let m = rng.below(rules.div_ceil(REGEX_EVERY));
            rule((m * REGEX_EVERY + REGEX_EVERY / 2).min(rules.saturating_sub(1)))
        }
        MixRequest::NotFound => (format!("/none{}/x/y", rng.below(1000)), "t0".into()),
    }
}

/// The regex mix as manifests: the same Services and rules as [`regex_mix`], in routes of
/// [`YAML_RULES_PER_ROUTE`] rules ([`regex_mix_small_routes`]), written as YAML (multi-document) for builds from a [`gamma_model::Snapshot`], so that
/// `RouteTable::build` measures lowering (validation, defaults, regex checks) and compiling.
pub fn regex_mix_yaml(rules: usize) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(rules * 260);
    let service = |out: &mut String, name: &str, ip: std::net::IpAddr| {
        let _ = write!(
            out,
            "---\napiVersion: v1\nkind: Service\nmetadata: {{name: {name}, namespace: app}}\n\
             spec: {{clusterIP: {ip}, ports: [{{name: http, port: 80}}]}}\n"
        );
    };
    service(&mut out, "web", crate::svc_ip(0));
    for b in 0..8 {
        service(&mut out, &format!("b{b}"), crate::svc_ip(1000 + b));
    }
    let per_route = YAML_RULES_PER_ROUTE;
    for r in 0..rules.div_ceil(per_route) {
        // creationTimestamp 1,700,000,000 + r seconds (2023-11-14T22:13:20Z + r), as in
        // `one_port_of`
        let t = 22 * 3600 + 13 * 60 + 20 + r;
        let _ = write!(
            out,
            "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
             metadata: {{name: route-{r:05}, namespace: app, creationTimestamp: \
             \"2023-11-{:02}T{:02}:{:02}:{:02}Z\"}}\n\
             spec:\n  parentRefs: [{{group: \"\", kind: Service, name: web}}]\n  rules:\n",
            14 + t / 86_400,
            t % 86_400 / 3600,
            t % 3600 / 60,
            t % 60
        );
        for i in r * per_route..((r + 1) * per_route).min(rules) {
            let (path_type, value) = if is_regex_rule(i) {
                (
                    "RegularExpression",
                    regex_pattern((i / REGEX_EVERY) % REGEX_DISTINCT),
                )
            } else if i.is_multiple_of(2) {
                ("PathPrefix", format!("/s{i}/api"))
            } else {
                ("Exact", format!("/s{i}/exact"))
            };
            let _ = write!(
                out,
                "  - matches:\n    - path: {{type: {path_type}, value: '{value}'}}\n"
            );
            if i.is_multiple_of(3) {
                let _ = writeln!(
                    out,
                    "      headers: [{{name: x-tenant, value: t{}}}]",
                    i % 7
                );
            }
            if !is_regex_rule(i) && i.is_multiple_of(5) {
                out.push_str("      method: GET\n");
            }
            let _ = writeln!(
                out,
                "    backendRefs: [{{name: b{}, port: 80, weight: 3}}, {{name: b{}, port: 80, weight: 1}}]",
                i % 8,
                (i + 1) % 8
            );
        }
    }
    out
}
