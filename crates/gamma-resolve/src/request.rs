//! The request being resolved: who sends it, where it goes, and what it looks like.
//!
//! [`Request`] borrows everything (the resolve path allocates nothing); [`RequestDoc`] is the
//! owned, serde/JSON-Schema form that tools exchange, convertible with
//! [`RequestDoc::as_request`].

use std::fmt;
use std::net::IpAddr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::headers::{HeaderLookup, NoHeaders};

/// URL scheme of a request or redirect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(
    clippy::exhaustive_enums,
    reason = "the URL schemes a Gateway API redirect may set are http and https"
)]
pub enum Scheme {
    /// `http`
    #[default]
    Http,
    /// `https`
    Https,
}

impl Scheme {
    /// The scheme's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Https => "https",
        }
    }

    /// The well-known port (80 or 443).
    pub fn default_port(self) -> u16 {
        match self {
            Self::Http => 80,
            Self::Https => 443,
        }
    }
}

/// Transport/application protocol of the request, which decides the route kinds that can
/// match it (HTTP and gRPC requests are matched by HTTPRoute or GRPCRoute rules, TLS by
/// TLSRoute SNI, and any TCP-carried request by a TCPRoute; UDP only by UDPRoute).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
#[non_exhaustive]
pub enum Protocol {
    /// HTTP/1.x or HTTP/2 (not gRPC).
    #[default]
    Http,
    /// gRPC (HTTP/2 with `:path` `/{service}/{method}`).
    Grpc,
    /// A TLS connection, matched by its SNI.
    Tls,
    /// An opaque TCP connection.
    Tcp,
    /// A UDP flow.
    Udp,
}

impl Protocol {
    /// True for protocols carried over TCP (everything but UDP).
    pub fn is_tcp_based(self) -> bool {
        !matches!(self, Self::Udp)
    }

    /// True for HTTP and gRPC.
    pub fn is_http(self) -> bool {
        matches!(self, Self::Http | Self::Grpc)
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Http => "HTTP",
            Self::Grpc => "GRPC",
            Self::Tls => "TLS",
            Self::Tcp => "TCP",
            Self::Udp => "UDP",
        })
    }
}

/// One request (or connection) to resolve. Borrowed from the caller.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// Namespace of the client workload; `None` when unknown (then only producer routes can
    /// apply, GEP-1294 namespace boundaries).
    pub source_namespace: Option<&'a str>,
    /// Labels of the client workload, if known (informational: consumer routes are scoped to
    /// a namespace, never to a workload, GEP-1294 namespace boundaries).
    pub source_labels: &'a [(&'a str, &'a str)],
    /// Destination address of the connection (a Service cluster IP in mesh, a Gateway address
    /// for Gateway parents).
    pub destination: IpAddr,
    /// Destination port.
    pub port: u16,
    /// The protocol.
    pub protocol: Protocol,
    /// The request scheme (what a redirect without a scheme keeps). `None`: the scheme of the
    /// listener the request arrives on: `https` through a Gateway listener with protocol
    /// `HTTPS` (it terminates TLS), else `http` (Gateway API reference, `Listener.protocol` and
    /// `HTTPRequestRedirectFilter.scheme`).
    pub scheme: Option<Scheme>,
    /// `Host` header or `:authority`, as received (port and case are handled by matching).
    pub host: Option<&'a str>,
    /// HTTP method (upper-case, as on the wire).
    pub method: Option<&'a str>,
    /// Request target: path and optional query (`/a/b?x=1`). For gRPC, `/{service}/{method}`.
    pub path_and_query: &'a str,
    /// Request headers.
    pub headers: &'a dyn HeaderLookup,
    /// TLS SNI, for TLS connections.
    pub sni: Option<&'a str>,
}

impl fmt::Debug for Request<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("source_namespace", &self.source_namespace)
            .field("destination", &self.destination)
            .field("port", &self.port)
            .field("protocol", &self.protocol)
            .field("host", &self.host)
            .field("method", &self.method)
            .field("path_and_query", &self.path_and_query)
            .field("sni", &self.sni)
            .finish_non_exhaustive()
    }
}

static NO_HEADERS: NoHeaders = NoHeaders;

impl<'a> Request<'a> {
    /// An HTTP request with no headers and default scheme, to be refined with the builder
    /// methods.
    ///
    /// ```
    /// use gamma_resolve::Request;
    /// let r = Request::http("10.96.0.10".parse().unwrap(), 80, "GET", "/v1?x=1")
    ///     .from_namespace("client")
    ///     .with_host("svc.ns");
    /// assert_eq!(r.port, 80);
    /// ```
    pub fn http(destination: IpAddr, port: u16, method: &'a str, path_and_query: &'a str) -> Self {
        Self {
            source_namespace: None,
            source_labels: &[],
            destination,
            port,
            protocol: Protocol::Http,
            scheme: None,
            host: None,
            method: Some(method),
            path_and_query,
            headers: &NO_HEADERS,
            sni: None,
        }
    }

    /// A gRPC call of `/{service}/{method}`, given as the `:path`.
    pub fn grpc(destination: IpAddr, port: u16, path: &'a str) -> Self {
        Self {
            protocol: Protocol::Grpc,
            method: Some("POST"),
            ..Self::http(destination, port, "POST", path)
        }
    }

    /// A connection of a non-HTTP protocol (TLS, TCP, UDP).
    pub fn connection(destination: IpAddr, port: u16, protocol: Protocol) -> Self {
        Self {
            protocol,
            method: None,
            ..Self::http(destination, port, "", "")
        }
    }

    /// Sets the client namespace.
    pub fn from_namespace(mut self, ns: &'a str) -> Self {
        self.source_namespace = Some(ns);
        self
    }

    /// Sets the Host/authority.
    pub fn with_host(mut self, host: &'a str) -> Self {
        self.host = Some(host);
        self
    }

    /// Sets the headers.
    pub fn with_headers(mut self, headers: &'a dyn HeaderLookup) -> Self {
        self.headers = headers;
        self
    }

    /// Sets the SNI.
    pub fn with_sni(mut self, sni: &'a str) -> Self {
        self.sni = Some(sni);
        self
    }

    /// Sets the scheme, in place of the listener's (see [`Request::scheme`]).
    pub fn with_scheme(mut self, scheme: Scheme) -> Self {
        self.scheme = Some(scheme);
        self
    }
}

/// One request header in [`RequestDoc`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Header {
    /// Header name (any case).
    pub name: String,
    /// Header value.
    pub value: String,
}

impl HeaderLookup for [Header] {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        self.iter()
            .find(|h| crate::headers::same_name(&h.name, name))
            .map(|h| h.value.as_bytes())
    }
}

impl HeaderLookup for Vec<Header> {
    fn first_value(&self, name: &str) -> Option<&[u8]> {
        self.as_slice().first_value(name)
    }
}

/// The owned, serializable form of a [`Request`]: the stable JSON shape tools exchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct RequestDoc {
    /// Namespace of the client workload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_namespace: Option<String>,
    /// Labels of the client workload.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_labels: Vec<(String, String)>,
    /// Destination IP address.
    pub destination: IpAddr,
    /// Destination port.
    pub port: u16,
    /// Protocol (default `HTTP`).
    #[serde(default)]
    pub protocol: Protocol,
    /// Scheme; absent: the listener's (see [`Request::scheme`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<Scheme>,
    /// Host/authority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// HTTP method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Path and query.
    #[serde(default)]
    pub path: String,
    /// Headers, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<Header>,
    /// TLS SNI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sni: Option<String>,
}

impl RequestDoc {
    /// A minimal document: destination and port, HTTP, everything else empty.
    pub fn new(destination: IpAddr, port: u16) -> Self {
        Self {
            source_namespace: None,
            source_labels: Vec::new(),
            destination,
            port,
            protocol: Protocol::Http,
            scheme: None,
            host: None,
            method: None,
            path: String::new(),
            headers: Vec::new(),
            sni: None,
        }
    }

    /// Borrows the document as a [`Request`]. `labels` is scratch space for the label
    /// pairs (pass an empty `Vec`; it is filled here).
    pub fn as_request<'a>(&'a self, labels: &'a mut Vec<(&'a str, &'a str)>) -> Request<'a> {
        labels.clear();
        labels.extend(
            self.source_labels
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
        );
        Request {
            source_namespace: self.source_namespace.as_deref(),
            source_labels: labels,
            destination: self.destination,
            port: self.port,
            protocol: self.protocol,
            scheme: self.scheme,
            host: self.host.as_deref(),
            method: self.method.as_deref(),
            path_and_query: &self.path,
            headers: &self.headers,
            sni: self.sni.as_deref(),
        }
    }
}

/// `ip:port`, IPv6 in brackets.
pub(crate) fn socket(ip: IpAddr, port: u16) -> String {
    std::net::SocketAddr::new(ip, port).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_doc_round_trips_and_borrows() {
        let json = r#"{"sourceNamespace":"a","destination":"10.0.0.1","port":80,
            "protocol":"GRPC","path":"/s/m","headers":[{"name":"X","value":"1"}]}"#;
        let doc: RequestDoc = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}"));
        let mut labels = Vec::new();
        let r = doc.as_request(&mut labels);
        assert_eq!(r.protocol, Protocol::Grpc);
        assert_eq!(r.headers.first_value("x"), Some(&b"1"[..]));
        let back = serde_json::to_string(&doc).unwrap_or_default();
        let again: RequestDoc = serde_json::from_str(&back).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(doc, again);
    }

    #[test]
    fn request_doc_rejects_unknown_fields() {
        let json = r#"{"destination":"10.0.0.1","port":80,"bogus":1}"#;
        assert!(serde_json::from_str::<RequestDoc>(json).is_err());
    }
}
