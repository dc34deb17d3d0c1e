//! What an SMI HTTP match means, evaluated directly: the semantics both the authorizer and the
//! conversion's round-trip proof rely on.
//!
//! Decisions (the SMI documents leave some of this open; see `docs/smi-migration.md`):
//! - `pathRegex` is "anchored (`^`) to the beginning of the URI": it must match a **prefix** of
//!   the request path, not necessarily all of it (`/api` matches `/api/v1`). The query string is
//!   not part of the path.
//! - Header values are regular expressions that must match the **whole** header value, the
//!   reading of SMI's own examples (`.*Firefox.*`, `^(.*?;)?(type=insider)(;.*)?$`) and of the
//!   Envoy-based implementations. Header names compare case-insensitively; a request header
//!   sent several times matches when any of its values matches.
//! - `methods` empty or containing `*` admits every method.

use gamma_model::smi::{HttpMatch, HttpRouteMethod, compile_regex};
use regex::Regex;

/// An HTTP request as SMI matching sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpRequest {
    /// The method (`GET`).
    pub method: String,
    /// The path, without the query string (`/api/v1`).
    pub path: String,
    /// The headers, in order; names in any case.
    pub headers: Vec<(String, String)>,
}

impl HttpRequest {
    /// A request with no headers.
    pub fn new(method: impl Into<String>, path: impl Into<String>) -> Self {
        HttpRequest {
            method: method.into(),
            path: path.into(),
            headers: Vec::new(),
        }
    }

    /// This request with one more header.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// An SMI HTTP match compiled for evaluation.
#[derive(Debug, Clone)]
pub struct CompiledMatch {
    /// The match's name.
    pub name: String,
    methods: Option<Vec<String>>,
    path: Option<Regex>,
    headers: Vec<(String, Regex)>,
}

/// Why an SMI match cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: invalid regular expression: {message}")]
pub struct MatchError {
    /// The field (`pathRegex`, `headers[x-user]`).
    pub field: String,
    /// The regex engine's message.
    pub message: String,
}

impl CompiledMatch {
    /// Compiles `m` with the anchoring decisions of this module.
    pub fn compile(m: &HttpMatch) -> Result<CompiledMatch, MatchError> {
        let path = match &m.path_regex {
            Some(p) => Some(compile_regex(&prefix_anchored(p)).map_err(|e| MatchError {
                field: "pathRegex".into(),
                message: e.to_string(),
            })?),
            None => None,
        };
        let mut headers = Vec::new();
        for h in m.headers.iter() {
            let re = compile_regex(&full_anchored(&h.value)).map_err(|e| MatchError {
                field: format!("headers[{}]", h.name),
                message: e.to_string(),
            })?;
            headers.push((h.name.to_ascii_lowercase(), re));
        }
        let methods = (!m.any_method()).then(|| {
            m.methods
                .iter()
                .filter(|x| **x != HttpRouteMethod::All)
                .map(|x| x.as_str().to_owned())
                .collect()
        });
        Ok(CompiledMatch {
            name: m.name.clone(),
            methods,
            path,
            headers,
        })
    }

    /// Whether the request satisfies every condition of the match.
    pub fn admits(&self, req: &HttpRequest) -> bool {
        if let Some(methods) = &self.methods
            && !methods.contains(&req.method)
        {
            return false;
        }
        if let Some(p) = &self.path
            && !p.is_match(&req.path)
        {
            return false;
        }
        self.headers.iter().all(|(name, re)| {
            req.headers
                .iter()
                .any(|(n, v)| n.eq_ignore_ascii_case(name) && re.is_match(v))
        })
    }
}

/// `^(?:p)`: a match must start at the beginning of the subject.
pub fn prefix_anchored(pattern: &str) -> String {
    format!("^(?:{pattern})")
}

/// `^(?:p)$`: a match must cover the whole subject.
pub fn full_anchored(pattern: &str) -> String {
    format!("^(?:{pattern})$")
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_model::smi::HeaderFilters;

    fn m(path: Option<&str>, methods: &[&str], headers: &[(&str, &str)]) -> CompiledMatch {
        CompiledMatch::compile(&HttpMatch {
            name: "m".into(),
            methods: methods.iter().map(|x| HttpRouteMethod::from(*x)).collect(),
            path_regex: path.map(str::to_owned),
            headers: headers
                .iter()
                .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                .collect::<HeaderFilters>(),
        })
        .unwrap()
    }

    // smi-spec traffic-specs: "A regex is used to match against the URI and is anchored (^) to
    // the beginning of the URI".
    #[test]
    fn path_regex_is_anchored_at_the_start_only() {
        let metrics = m(Some("/metrics"), &[], &[]);
        assert!(metrics.admits(&HttpRequest::new("GET", "/metrics")));
        assert!(metrics.admits(&HttpRequest::new("GET", "/metrics/cpu")));
        assert!(!metrics.admits(&HttpRequest::new("GET", "/x/metrics")));
        let alt = m(Some("/a|/b"), &[], &[]);
        assert!(alt.admits(&HttpRequest::new("GET", "/b/c")));
        assert!(!alt.admits(&HttpRequest::new("GET", "/c/b")));
    }

    #[test]
    fn methods_star_and_empty_admit_everything() {
        assert!(m(None, &["*"], &[]).admits(&HttpRequest::new("PATCH", "/")));
        assert!(m(None, &[], &[]).admits(&HttpRequest::new("PATCH", "/")));
        let get = m(None, &["GET", "HEAD"], &[]);
        assert!(get.admits(&HttpRequest::new("HEAD", "/")));
        assert!(!get.admits(&HttpRequest::new("POST", "/")));
    }

    // smi-spec traffic-specs v1alpha2+: header filters are ANDed regexes.
    #[test]
    fn header_regexes_match_whole_values_case_insensitive_names_and_are_anded() {
        let ff = m(
            None,
            &[],
            &[("User-Agent", ".*Firefox.*"), ("x-tier", "gold")],
        );
        let req = HttpRequest::new("GET", "/")
            .header("user-agent", "Mozilla Firefox/1")
            .header("X-Tier", "gold");
        assert!(ff.admits(&req));
        let partial = HttpRequest::new("GET", "/")
            .header("user-agent", "Mozilla Firefox/1")
            .header("X-Tier", "golden");
        assert!(!ff.admits(&partial));
        assert!(!ff.admits(&HttpRequest::new("GET", "/").header("x-tier", "gold")));
    }
}
