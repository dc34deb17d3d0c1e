//! Requests as people and scripts write them: by flags, or as JSON lines
//! (`{"from":"shop","to":"checkout.shop:80","method":"GET","path":"/api/orders"}`), and the
//! destination forms `IP:PORT`, `SERVICE.NAMESPACE:PORT`, `gateway/NAMESPACE/NAME:PORT` and
//! `listenerset/NAMESPACE/NAME:PORT`.

use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cli::{ProtocolArg, RequestArgs, SchemeArg};

/// One request: a line of `gammactl resolve --requests FILE`, or the flags of `resolve` and
/// `explain`. Unknown fields are an error, so a typo (`"heders"`) cannot silently drop data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestLine {
    /// The client's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// `IP:PORT`, `SERVICE.NAMESPACE:PORT`, `gateway/NAMESPACE/NAME:PORT` or
    /// `listenerset/NAMESPACE/NAME:PORT`.
    pub to: String,
    /// The Host header (or :authority).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The HTTP method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The path, possibly with a query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Request headers: an object (`{"x-canary": "true"}`) or a list of `[name, value]` pairs
    /// (which may repeat a name).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "headers_in"
    )]
    #[schemars(with = "HeadersIn")]
    pub headers: Vec<(String, String)>,
    /// TLS server name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sni: Option<String>,
    /// `http` (default when a method or path is given), `grpc`, `tls` (default with `sni`),
    /// `tcp` (default otherwise) or `udp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<ProtocolArg>,
    /// `http` or `https`: what a RequestRedirect without `scheme` keeps. Default: `https`
    /// through a Gateway listener of protocol HTTPS (it terminates TLS), else `http`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<SchemeArg>,
    /// Entropy for the weighted backend pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entropy: Option<u64>,
}

/// The two accepted shapes of `headers`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only deserialized and described, never built in code
enum HeadersIn {
    /// `{"name": "value"}`.
    Object(BTreeMap<String, String>),
    /// `[["name", "value"], ...]`.
    Pairs(Vec<(String, String)>),
}

fn headers_in<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
    Ok(match HeadersIn::deserialize(d)? {
        HeadersIn::Object(m) => m.into_iter().collect(),
        HeadersIn::Pairs(p) => p,
    })
}

impl RequestLine {
    /// The request the flags describe; `namespace` (`-n`) is the client's when `--from` is not
    /// given.
    pub fn from_args(args: &RequestArgs, namespace: Option<&str>) -> Result<Self, String> {
        let to = args
            .to
            .clone()
            .ok_or("a destination is required: --to IP:PORT, SERVICE.NAMESPACE:PORT, gateway/NAMESPACE/NAME:PORT or listenerset/NAMESPACE/NAME:PORT")?;
        let mut headers = Vec::with_capacity(args.headers.len());
        for h in &args.headers {
            let (name, value) = h
                .split_once('=')
                .ok_or_else(|| format!("--header {h:?}: expected NAME=VALUE"))?;
            if name.is_empty() {
                return Err(format!("--header {h:?}: the header name is empty"));
            }
            headers.push((name.to_owned(), value.to_owned()));
        }
        let (method, path) = method_and_path(args.method.as_deref(), args.path.as_deref())?;
        Ok(RequestLine {
            from: args.from.clone().or_else(|| namespace.map(str::to_owned)),
            to,
            host: args.host.clone(),
            method,
            path,
            headers,
            sni: args.sni.clone(),
            protocol: args.protocol,
            scheme: args.scheme,
            entropy: args.entropy,
        })
    }

    /// The protocol, defaulted: HTTP when a method or path is given, else TCP.
    pub fn protocol(&self) -> ProtocolArg {
        self.protocol
            .unwrap_or(if self.method.is_some() || self.path.is_some() {
                ProtocolArg::Http
            } else if self.sni.is_some() {
                ProtocolArg::Tls
            } else {
                ProtocolArg::Tcp
            })
    }

    /// With `namespace` (`-n`) as the client's when the line gives none.
    pub fn in_namespace(mut self, namespace: Option<&str>) -> Self {
        if self.from.is_none() {
            self.from = namespace.map(str::to_owned);
        }
        self
    }

    /// The destination, parsed; a bare `SERVICE:PORT` is in the client's namespace, else in
    /// `default` (as kubectl: `-n` sets the client's, see [`RequestLine::in_namespace`]).
    pub fn destination(&self) -> Result<Destination, String> {
        Destination::parse_in(
            &self.to,
            Some(
                self.from
                    .as_deref()
                    .unwrap_or(crate::manifests::DEFAULT_NAMESPACE),
            ),
        )
    }
}

/// The positional `METHOD PATH` as meant: a first positional that looks like a path is the
/// path (`resolve --to IP:PORT /beta` is `GET /beta`, never the method `/beta` on `/`), and
/// `"GET /beta"` given as one argument is split. Anything else that cannot be a method (a
/// path after a path, a method with spaces, a path not starting with `/`) is refused rather
/// than resolved as some other request.
pub fn method_and_path(
    method: Option<&str>,
    path: Option<&str>,
) -> Result<(Option<String>, Option<String>), String> {
    let looks_like_path = |s: &str| s.starts_with('/');
    match (method, path) {
        (None, None) => Ok((None, None)),
        (Some(first), None) if looks_like_path(first) => Ok((None, Some(first.to_owned()))),
        (Some(first), None) if first.contains(char::is_whitespace) => {
            match first.split_whitespace().collect::<Vec<_>>().as_slice() {
                [m, p] if looks_like_path(p) && !looks_like_path(m) => {
                    Ok((Some((*m).to_owned()), Some((*p).to_owned())))
                }
                _ => Err(format!(
                    "{first:?}: expected METHOD PATH as two arguments (`GET /beta`) or a PATH \
                     alone (method GET)"
                )),
            }
        }
        (Some(first), Some(second)) if looks_like_path(first) => Err(format!(
            "{first:?} {second:?}: the first argument looks like a path; write METHOD PATH \
             (`GET {first}`) or the PATH alone"
        )),
        (Some(m), _) if !is_token(m) => Err(format!(
            "method {m:?} is not an HTTP method token (letters, digits and !#$%&'*+-.^_`|~, no \
             spaces)"
        )),
        (Some(_), Some(p)) if !looks_like_path(p) => Err(format!("path {p:?} must start with '/'")),
        (m, p) => Ok((m.map(str::to_owned), p.map(str::to_owned))),
    }
}

/// An RFC 9110 §5.6.2 token: what a method may be.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// A warning for a method that differs only in case from a standard one: methods are
/// case-sensitive (RFC 9110 §9.1), so `get` is not `GET` and a route matching `GET` does not
/// match it. The method is kept as written.
pub fn method_case_warning(method: &str) -> Option<String> {
    const STANDARD: [&str; 9] = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
    ];
    let upper = method.to_ascii_uppercase();
    (upper != method && STANDARD.contains(&upper.as_str())).then(|| {
        format!(
            "method {method:?} is not {upper:?}: HTTP methods are case-sensitive (RFC 9110 \
             section 9.1), so it is resolved as written and matches no rule that names {upper}"
        )
    })
}

/// Where a request is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// An address: a Service cluster IP (mesh) or anything else.
    Address(SocketAddr),
    /// A Service by name, looked up to its cluster IP.
    Service {
        /// The Service name.
        name: String,
        /// Its namespace.
        namespace: String,
        /// The Service port.
        port: u16,
    },
    /// A Gateway (north-south), by name.
    Gateway {
        /// The Gateway's namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// The listener port.
        port: u16,
    },
    /// A ListenerSet (GEP-1713), by name: its listeners are bound on its parent Gateway's
    /// addresses, so the request goes to that Gateway's address and the port.
    ListenerSet {
        /// The ListenerSet's namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// The port of one of its listeners.
        port: u16,
    },
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Destination::Address(a) => write!(f, "{a}"),
            Destination::Service {
                name,
                namespace,
                port,
            } => write!(f, "{name}.{namespace}:{port}"),
            Destination::Gateway {
                namespace,
                name,
                port,
            } => write!(f, "gateway/{namespace}/{name}:{port}"),
            Destination::ListenerSet {
                namespace,
                name,
                port,
            } => write!(f, "listenerset/{namespace}/{name}:{port}"),
        }
    }
}

impl Destination {
    /// Parses `IP:PORT` (`[v6]:PORT` for IPv6), `SERVICE.NAMESPACE[.svc...]:PORT` or
    /// `gateway/NAMESPACE/NAME:PORT`.
    #[cfg(test)]
    pub fn parse(text: &str) -> Result<Self, String> {
        Self::parse_in(text, None)
    }

    /// Parses `IP:PORT` (`[v6]:PORT` for IPv6), `SERVICE.NAMESPACE[.svc...]:PORT`,
    /// `gateway/NAMESPACE/NAME:PORT`, `listenerset/NAMESPACE/NAME:PORT`, and a bare
    /// `SERVICE:PORT` as the Service in `namespace`
    /// (the client's, `--from`), as DNS search paths resolve `web` to `web.NS` inside NS.
    pub fn parse_in(text: &str, namespace: Option<&str>) -> Result<Self, String> {
        if let Ok(addr) = text.parse::<SocketAddr>() {
            return Ok(Destination::Address(addr));
        }
        let expected = "expected IP:PORT, SERVICE.NAMESPACE:PORT, gateway/NAMESPACE/NAME:PORT or \
                        listenerset/NAMESPACE/NAME:PORT";
        let (host, port) = text
            .rsplit_once(':')
            .ok_or_else(|| format!("destination {text:?}: no port; {expected}"))?;
        let port: u16 = port
            .parse()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| format!("destination {text:?}: port {port:?} is not 1-65535"))?;
        for (prefix, listener_set) in [("gateway/", false), ("listenerset/", true)] {
            let Some(rest) = host.strip_prefix(prefix) else {
                continue;
            };
            let (namespace, name) = rest
                .split_once('/')
                .filter(|(ns, n)| !ns.is_empty() && !n.is_empty() && !n.contains('/'))
                .ok_or_else(|| format!("destination {text:?}: {expected}"))?;
            let (namespace, name) = (namespace.to_owned(), name.to_owned());
            return Ok(if listener_set {
                Destination::ListenerSet {
                    namespace,
                    name,
                    port,
                }
            } else {
                Destination::Gateway {
                    namespace,
                    name,
                    port,
                }
            });
        }
        if host.parse::<IpAddr>().is_ok() {
            // An IPv6 address without brackets: the port split above is ambiguous.
            return Err(format!(
                "destination {text:?}: write an IPv6 address in brackets, [ADDRESS]:PORT"
            ));
        }
        let host = host
            .strip_suffix(".svc.cluster.local")
            .or_else(|| host.strip_suffix(".svc"))
            .unwrap_or(host);
        if !host.contains('.')
            && !host.is_empty()
            && !host.contains('/')
            && let Some(namespace) = namespace
        {
            return Ok(Destination::Service {
                name: host.to_owned(),
                namespace: namespace.to_owned(),
                port,
            });
        }
        let (name, namespace) = host
            .split_once('.')
            .filter(|(n, ns)| !n.is_empty() && !ns.is_empty() && !ns.contains('.'))
            .ok_or_else(|| {
                if host.contains('.') || host.contains('/') {
                    format!("destination {text:?}: {expected}")
                } else {
                    format!(
                        "destination {text:?}: no namespace; write {host}.NAMESPACE:{port}, or \
                         give the namespace with -n or --from (then {host} is {host}.NAMESPACE)"
                    )
                }
            })?;
        Ok(Destination::Service {
            name: name.to_owned(),
            namespace: namespace.to_owned(),
            port,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_parse_in_all_three_forms() {
        assert_eq!(
            Destination::parse("10.96.10.20:80"),
            Ok(Destination::Address("10.96.10.20:80".parse().unwrap()))
        );
        assert_eq!(
            Destination::parse("[fd00::1]:80"),
            Ok(Destination::Address("[fd00::1]:80".parse().unwrap()))
        );
        assert_eq!(
            Destination::parse("checkout.shop:80"),
            Ok(Destination::Service {
                name: "checkout".into(),
                namespace: "shop".into(),
                port: 80
            })
        );
        assert_eq!(
            Destination::parse("checkout.shop.svc.cluster.local:80"),
            Destination::parse("checkout.shop:80")
        );
        assert_eq!(
            Destination::parse("gateway/edge/public:80"),
            Ok(Destination::Gateway {
                namespace: "edge".into(),
                name: "public".into(),
                port: 80
            })
        );
        // GEP-1713: a ListenerSet's listeners are addressed through it
        let ls = Destination::parse("listenerset/team/extra:8443");
        assert_eq!(
            ls,
            Ok(Destination::ListenerSet {
                namespace: "team".into(),
                name: "extra".into(),
                port: 8443
            })
        );
        assert_eq!(ls.unwrap().to_string(), "listenerset/team/extra:8443");
    }

    #[test]
    fn a_bare_service_name_is_looked_up_in_the_client_namespace() {
        assert_eq!(
            Destination::parse_in("web:8080", Some("shop")),
            Ok(Destination::Service {
                name: "web".into(),
                namespace: "shop".into(),
                port: 8080
            })
        );
        // A namespace written out wins over the client's.
        assert_eq!(
            Destination::parse_in("web.other:8080", Some("shop")),
            Destination::parse("web.other:8080")
        );
        let e = Destination::parse("web:8080").unwrap_err();
        assert!(e.contains("--from"), "{e}");
    }

    #[test]
    fn bad_destinations_say_what_is_expected() {
        for bad in [
            "checkout",
            "checkout.shop",
            "checkout.shop:0",
            "checkout.shop:http",
            "gateway/edge:80",
            "listenerset/team:80",
            "listenerset//x:80",
            "fd00::1:80",
            "a.b.c:80",
        ] {
            assert!(Destination::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn request_lines_accept_headers_as_object_or_pairs() {
        let a: RequestLine =
            serde_json::from_str(r#"{"to":"1.2.3.4:80","headers":{"x-a":"1"}}"#).unwrap();
        let b: RequestLine =
            serde_json::from_str(r#"{"to":"1.2.3.4:80","headers":[["x-a","1"]]}"#).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.headers, vec![("x-a".to_owned(), "1".to_owned())]);
    }

    #[test]
    fn request_lines_reject_unknown_fields() {
        let e =
            serde_json::from_str::<RequestLine>(r#"{"to":"1.2.3.4:80","heders":{}}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `heders`"), "{e}");
    }

    #[test]
    fn a_lone_path_is_the_path_and_one_spaced_argument_is_split() {
        let mp = |m: Option<&str>, p: Option<&str>| method_and_path(m, p);
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(mp(Some("/beta"), None), Ok((None, some("/beta"))));
        assert_eq!(
            mp(Some("GET /beta"), None),
            Ok((some("GET"), some("/beta")))
        );
        assert_eq!(mp(Some("GET"), Some("/a")), Ok((some("GET"), some("/a"))));
        assert_eq!(mp(Some("GET"), None), Ok((some("GET"), None)));
        for (m, p) in [
            (Some("/a"), Some("GET")),
            (Some("GET /a /b"), None),
            (Some("GET beta"), None),
            (Some("GET"), Some("beta")),
            (Some("GE T"), Some("/a")),
        ] {
            assert!(mp(m, p).is_err(), "{m:?} {p:?}");
        }
    }

    #[test]
    fn methods_differing_from_a_standard_one_only_in_case_are_warned_about() {
        assert!(method_case_warning("get").is_some());
        assert!(method_case_warning("Post").is_some());
        assert!(method_case_warning("GET").is_none());
        assert!(method_case_warning("PURGE").is_none());
        assert!(method_case_warning("purge").is_none());
    }

    #[test]
    fn protocol_defaults_follow_what_was_given() {
        let mut r = RequestLine {
            to: "1.2.3.4:80".into(),
            ..RequestLine::default()
        };
        assert_eq!(r.protocol(), ProtocolArg::Tcp);
        r.path = Some("/".into());
        assert_eq!(r.protocol(), ProtocolArg::Http);
    }
}
