//! One SMI HTTP match as Gateway API HTTPRoute matches.
//!
//! - `methods`: Gateway API has one method per match, so a list expands into one match per
//!   method (ORed, like SMI's list); `*` or no methods means no method condition.
//! - `pathRegex` (prefix-anchored in SMI) becomes a `RegularExpression` path `(?:p).*`, which
//!   under full-match semantics (gamma-rs, Envoy) accepts exactly the paths SMI's `^p` accepts.
//!   `.*` and an omitted regex become no path condition (Core `PathPrefix /`).
//! - header regexes (full-match in SMI, see [`crate::matching`]) stay as written as
//!   `RegularExpression` header matches; a value with no regex metacharacters becomes an
//!   `Exact` match (Core support, same meaning).

use gamma_model::gateway::{
    HttpHeaderMatch, HttpMethod, HttpPathMatch, HttpRouteMatch, MatchType, PathMatchType,
};
use gamma_model::smi::{HttpMatch, HttpRouteMethod};

/// Gateway API header matches per HTTPRoute match (HTTPRoute CRD v1.6.1).
const MAX_HEADERS: usize = 16;
/// Gateway API header value length (Gateway API HTTPHeaderMatch).
const MAX_HEADER_VALUE: usize = 4096;
/// Gateway API path value length (Gateway API HTTPPathMatch).
const MAX_PATH_VALUE: usize = 1024;

/// Why an SMI match cannot be expressed; `field` is relative to the match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Inexpressible {
    pub field: String,
    pub message: String,
}

/// The Gateway API path regex equivalent to SMI's prefix-anchored `pattern` under full-match
/// semantics, or `None` when the pattern admits every path.
pub fn path_regex_for_gateway(pattern: &str) -> Option<String> {
    let trimmed = pattern.strip_prefix('^').unwrap_or(pattern);
    if trimmed.is_empty() || trimmed == ".*" {
        None
    } else {
        Some(format!("(?:{pattern}).*"))
    }
}

fn is_header_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 256
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

pub(crate) fn convert_match(m: &HttpMatch) -> Result<Vec<HttpRouteMatch>, Inexpressible> {
    let mut base = HttpRouteMatch::default();
    if let Some(p) = &m.path_regex
        && let Some(value) = path_regex_for_gateway(p)
    {
        if value.chars().count() > MAX_PATH_VALUE {
            return Err(Inexpressible {
                field: "pathRegex".into(),
                message: format!(
                    "longer than the {MAX_PATH_VALUE} characters a Gateway API path value may have"
                ),
            });
        }
        base.path = Some(HttpPathMatch {
            type_: Some(PathMatchType::RegularExpression),
            value: Some(value),
        });
    }
    if m.headers.0.len() > MAX_HEADERS {
        return Err(Inexpressible {
            field: "headers".into(),
            message: format!(
                "more than the {MAX_HEADERS} header conditions a Gateway API match may have"
            ),
        });
    }
    let mut seen: Vec<String> = Vec::new();
    for h in m.headers.iter() {
        let field = format!("headers[{}]", h.name);
        if !is_header_name(&h.name) {
            return Err(Inexpressible {
                field,
                message: "not a valid Gateway API header name (RFC 7230 token)".into(),
            });
        }
        let lower = h.name.to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(Inexpressible {
                field,
                message: "repeats a header name in another case; Gateway API would ignore all but the first".into(),
            });
        }
        seen.push(lower);
        if h.value.is_empty() || h.value.chars().count() > MAX_HEADER_VALUE {
            return Err(Inexpressible {
                field,
                message: format!(
                    "a Gateway API header value has 1 to {MAX_HEADER_VALUE} characters"
                ),
            });
        }
        let exact = regex::escape(&h.value) == h.value;
        base.headers.push(HttpHeaderMatch {
            type_: Some(if exact {
                MatchType::Exact
            } else {
                MatchType::RegularExpression
            }),
            name: h.name.clone(),
            value: h.value.clone(),
        });
    }
    if m.any_method() {
        return Ok(vec![base]);
    }
    let mut methods: Vec<&HttpRouteMethod> = Vec::new();
    for x in &m.methods {
        if !methods.contains(&x) {
            methods.push(x);
        }
    }
    Ok(methods
        .into_iter()
        .map(|x| HttpRouteMatch {
            method: Some(HttpMethod::from(x.as_str())),
            ..base.clone()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_model::smi::HeaderFilters;

    fn smi(path: Option<&str>, methods: &[&str], headers: &[(&str, &str)]) -> HttpMatch {
        HttpMatch {
            name: "m".into(),
            methods: methods.iter().map(|x| HttpRouteMethod::from(*x)).collect(),
            path_regex: path.map(str::to_owned),
            headers: headers
                .iter()
                .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                .collect::<HeaderFilters>(),
        }
    }

    // Gateway API HTTPRouteMatch.method: one method per match; several matches OR.
    #[test]
    fn a_method_list_expands_into_one_match_per_method() {
        let out = convert_match(&smi(Some("/api/.*"), &["GET", "HEAD", "GET"], &[])).unwrap();
        let methods: Vec<_> = out.iter().map(|m| m.method.clone().unwrap()).collect();
        assert_eq!(methods, [HttpMethod::Get, HttpMethod::Head]);
        assert!(out.iter().all(|m| m.path == out[0].path));
        assert_eq!(
            convert_match(&smi(None, &["GET", "*"], &[])).unwrap().len(),
            1
        );
    }

    #[test]
    fn path_regexes_become_prefix_anchored_full_match_regexes() {
        assert_eq!(
            path_regex_for_gateway("/metrics").as_deref(),
            Some("(?:/metrics).*")
        );
        assert_eq!(path_regex_for_gateway(".*"), None);
        assert_eq!(path_regex_for_gateway("^.*"), None);
        let out = convert_match(&smi(Some(".*"), &[], &[])).unwrap();
        assert_eq!(out, [HttpRouteMatch::default()]);
    }

    #[test]
    fn literal_header_values_become_exact_and_regexes_stay_regexes() {
        let out = convert_match(&smi(
            None,
            &[],
            &[("x-tier", "gold"), ("user-agent", ".*Firefox.*")],
        ))
        .unwrap();
        assert_eq!(out[0].headers[0].type_, Some(MatchType::Exact));
        assert_eq!(out[0].headers[1].type_, Some(MatchType::RegularExpression));
        assert_eq!(out[0].headers[1].value, ".*Firefox.*");
    }

    #[test]
    fn invalid_header_names_and_empty_values_are_inexpressible() {
        let e = convert_match(&smi(None, &[], &[(":authority", "x")])).unwrap_err();
        assert_eq!(e.field, "headers[:authority]");
        assert!(convert_match(&smi(None, &[], &[("x", "")])).is_err());
        assert!(convert_match(&smi(None, &[], &[("X-A", "1"), ("x-a", "2")])).is_err());
    }
}
