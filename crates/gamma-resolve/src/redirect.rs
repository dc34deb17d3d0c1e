//! `RequestRedirect` (Gateway API HTTPRequestRedirectFilter): the `Location` header computed from
//! the request.
//!
//! Port derivation when the filter sets no port: a filter `scheme` implies its well-known
//! port (http 80, https 443); otherwise the listener port (for a Gateway) or the Service
//! port (for a mesh route; the spec has no "listener" there, Gateway API
//! HTTPRequestRedirectFilter.port). The port is omitted from `Location` for http:80 and https:443
//! (Gateway API HTTPRequestRedirectFilter).

use std::fmt;
use std::net::IpAddr;

use serde::{Serialize, Serializer};

use crate::request::Scheme;
use crate::rewrite::RewrittenPath;

/// The host part of a `Location`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(
    clippy::exhaustive_enums,
    reason = "a Location host is a name or an IP address"
)]
pub enum LocationHost<'a> {
    /// A host name (from the filter or the request's Host, port stripped).
    Name(&'a str),
    /// The destination address, used when the request carried no Host.
    Ip(IpAddr),
}

impl fmt::Display for LocationHost<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name(n) => f.write_str(n),
            Self::Ip(IpAddr::V4(ip)) => write!(f, "{ip}"),
            Self::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
        }
    }
}

/// A computed redirect target. Renders (via `Display`, or `to_string()`) as an absolute URL;
/// holds only borrowed pieces so that resolving allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location<'a> {
    /// The scheme.
    pub scheme: Scheme,
    /// The host.
    pub host: LocationHost<'a>,
    /// The port, `None` when it is the scheme's well-known port.
    pub port: Option<u16>,
    /// The path.
    pub path: RewrittenPath<'a>,
    /// The request's query string, kept as received.
    pub query: Option<&'a str>,
}

/// Inputs of a redirect that come from the filter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RedirectSpec<'t> {
    /// `scheme`, if set.
    pub scheme: Option<Scheme>,
    /// `hostname`, if set.
    pub hostname: Option<&'t str>,
    /// `port`, if set.
    pub port: Option<u16>,
}

/// Inputs of a redirect that come from the request and its binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RedirectRequest<'a> {
    /// The request's scheme.
    pub scheme: Scheme,
    /// The normalised request host (port stripped), if any.
    pub host: Option<&'a str>,
    /// Destination address (used only when there is no host).
    pub address: IpAddr,
    /// The listener port (Gateway) or Service port (mesh) the request arrived on.
    pub bound_port: u16,
    /// The query string.
    pub query: Option<&'a str>,
}

impl<'a> Location<'a> {
    /// Computes the `Location` of a redirect (Gateway API HTTPRequestRedirectFilter). `path` is the
    /// already-modified path.
    pub fn compute(
        spec: RedirectSpec<'a>,
        req: RedirectRequest<'a>,
        path: RewrittenPath<'a>,
    ) -> Self {
        let scheme = spec.scheme.unwrap_or(req.scheme);
        let port = match (spec.port, spec.scheme) {
            (Some(p), _) => p,
            // a scheme-only redirect uses the scheme's well-known port, not the listener's
            (None, Some(s)) => s.default_port(),
            (None, None) => req.bound_port,
        };
        let host = match (spec.hostname, req.host) {
            (Some(h), _) => LocationHost::Name(h),
            (None, Some(h)) if !h.is_empty() => LocationHost::Name(h),
            _ => LocationHost::Ip(req.address),
        };
        Self {
            scheme,
            host,
            port: (port != scheme.default_port()).then_some(port),
            path,
            query: req.query,
        }
    }
}

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme.as_str(), self.host)?;
        if let Some(p) = self.port {
            write!(f, ":{p}")?;
        }
        write!(f, "{}", self.path)?;
        if let Some(q) = self.query {
            write!(f, "?{q}")?;
        }
        Ok(())
    }
}

impl Serialize for Location<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl schemars::JsonSchema for Location<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Location".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::PathModifier;
    use std::net::Ipv4Addr;

    fn req(scheme: Scheme, port: u16) -> RedirectRequest<'static> {
        RedirectRequest {
            scheme,
            host: Some("foo.example.com"),
            address: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            bound_port: port,
            query: None,
        }
    }

    fn loc(spec: RedirectSpec<'static>, r: RedirectRequest<'static>) -> String {
        Location::compute(spec, r, RewrittenPath::unchanged("/p")).to_string()
    }

    // Gateway API HTTPRequestRedirectFilter: a scheme-only redirect uses 443/80, never the listener
    // port.
    #[test]
    fn redirect_scheme_only_uses_well_known_port() {
        let spec = RedirectSpec {
            scheme: Some(Scheme::Https),
            ..Default::default()
        };
        assert_eq!(
            loc(spec, req(Scheme::Http, 8080)),
            "https://foo.example.com/p"
        );
        let spec = RedirectSpec {
            scheme: Some(Scheme::Http),
            ..Default::default()
        };
        assert_eq!(
            loc(spec, req(Scheme::Https, 8443)),
            "http://foo.example.com/p"
        );
    }

    // Gateway API HTTPRequestRedirectFilter: without scheme and port the listener (mesh: Service)
    // port is used, and omitted when it is the well-known port of the scheme.
    #[test]
    fn redirect_without_scheme_uses_bound_port_and_omits_default() {
        let spec = RedirectSpec::default();
        assert_eq!(
            loc(spec, req(Scheme::Http, 8080)),
            "http://foo.example.com:8080/p"
        );
        assert_eq!(loc(spec, req(Scheme::Http, 80)), "http://foo.example.com/p");
        assert_eq!(
            loc(spec, req(Scheme::Https, 443)),
            "https://foo.example.com/p"
        );
        assert_eq!(
            loc(spec, req(Scheme::Https, 80)),
            "https://foo.example.com:80/p"
        );
    }

    // Gateway API HTTPRequestRedirectFilter: an explicit port wins, and is still omitted for
    // http:80 / https:443.
    #[test]
    fn redirect_explicit_port_and_hostname() {
        let spec = RedirectSpec {
            scheme: Some(Scheme::Https),
            hostname: Some("bar.com"),
            port: Some(8443),
        };
        assert_eq!(loc(spec, req(Scheme::Http, 80)), "https://bar.com:8443/p");
        let spec = RedirectSpec {
            port: Some(80),
            ..Default::default()
        };
        assert_eq!(
            loc(spec, req(Scheme::Http, 9000)),
            "http://foo.example.com/p"
        );
    }

    #[test]
    fn redirect_keeps_query_and_rewrites_path() {
        let mut r = req(Scheme::Http, 80);
        r.query = Some("a=1");
        let path = RewrittenPath::apply(
            PathModifier::ReplacePrefixMatch {
                matched_prefix: "/old",
                replacement: "/new",
            },
            "/old/x",
        );
        let l = Location::compute(RedirectSpec::default(), r, path);
        assert_eq!(l.to_string(), "http://foo.example.com/new/x?a=1");
    }

    #[test]
    fn redirect_without_host_uses_address() {
        let mut r = req(Scheme::Http, 80);
        r.host = None;
        assert_eq!(loc(RedirectSpec::default(), r), "http://10.0.0.1/p");
        r.address = "fd00::1".parse().unwrap_or(r.address);
        assert_eq!(loc(RedirectSpec::default(), r), "http://[fd00::1]/p");
    }
}
