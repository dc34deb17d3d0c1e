//! Requests for the resolve targets: mostly aimed at the generated Services and Gateways (so they
//! bind), with hostile parts mixed in: long paths, many headers, invalid UTF-8 header values,
//! percent-encoded slashes and dot segments.

use std::net::IpAddr;

use crate::generate::{CLUSTER_IPS, Gen, NAMESPACES, PORTS};
use gamma_resolve::{Protocol, Request, Scheme};

/// An owned request; [`OwnedRequest::as_request`] borrows it as a `gamma_resolve::Request`.
#[derive(Debug, Clone)]
pub struct OwnedRequest {
    /// Client namespace.
    pub source_namespace: Option<String>,
    /// Destination.
    pub destination: IpAddr,
    /// Destination port.
    pub port: u16,
    /// Protocol.
    pub protocol: Protocol,
    /// Scheme; `None` takes the listener's.
    pub scheme: Option<Scheme>,
    /// Host header.
    pub host: Option<String>,
    /// Method.
    pub method: Option<String>,
    /// Path and query.
    pub path_and_query: String,
    /// Headers, values as raw bytes.
    pub headers: Vec<(String, Vec<u8>)>,
    /// SNI.
    pub sni: Option<String>,
    /// The entropy for the backend pick.
    pub entropy: u64,
}

impl OwnedRequest {
    /// Borrows as the engine's request type.
    pub fn as_request(&self) -> Request<'_> {
        let mut r = Request::http(
            self.destination,
            self.port,
            self.method.as_deref().unwrap_or(""),
            &self.path_and_query,
        )
        .with_headers(&self.headers);
        r.method = self.method.as_deref();
        r.protocol = self.protocol;
        r.scheme = self.scheme;
        r.source_namespace = self.source_namespace.as_deref();
        r.host = self.host.as_deref();
        r.sni = self.sni.as_deref();
        r
    }
}

const PATHS: &[&str] = &[
    "/",
    "/api",
    "/api/",
    "/api/v1",
    "/api/v1/users?x=1",
    "/apiv1",
    "/a/../api",
    "/a/./b",
    "//api",
    "/api%2Fv1",
    "/api%2fv1",
    "/%2e%2e/api",
    "/api?q=one&q=two",
    "/api?",
    "/api#x",
    "/pkg.Svc/Get",
    "/helloworld.Greeter/SayHello",
    "/x/G",
    "",
    "*",
    "?x",
    "/é",
];

/// Generates a request; `addresses` are extra destinations (Gateway addresses) worth hitting.
pub fn request(g: &mut Gen, addresses: &[IpAddr]) -> OwnedRequest {
    let destination = match g.below(8) {
        0 => IpAddr::from([10, 1, 1, 1]),
        1 if !addresses.is_empty() => addresses[g.below(addresses.len())],
        2 => IpAddr::from(g.u.arbitrary::<[u8; 4]>().unwrap_or([0; 4])),
        _ => g
            .pick(CLUSTER_IPS)
            .parse()
            .unwrap_or(IpAddr::from([10, 96, 0, 1])),
    };
    let port = if g.chance(16) {
        g.u.arbitrary::<u16>().unwrap_or(0)
    } else {
        g.pick(PORTS) as u16
    };
    let protocol = g.pick(&[
        Protocol::Http,
        Protocol::Http,
        Protocol::Http,
        Protocol::Grpc,
        Protocol::Tls,
        Protocol::Tcp,
        Protocol::Udp,
    ]);
    let mut path_and_query = match g.below(8) {
        0 => g.text(200),
        // A long path: up to 1 MiB, built by repetition so the input stays small.
        1 => {
            let unit = g.pick(&["/a", "/api", "/%2F", "/..", "a"]);
            let times = 1usize << g.below(19);
            unit.repeat(times).chars().take(1 << 20).collect()
        }
        _ => g.pick(PATHS).to_owned(),
    };
    if g.chance(24) {
        path_and_query.push_str(&g.pick(&["?q=one", "?r=two&q=1", "?q", "?=x", "?q=%20"]));
    }
    let n_headers = match g.byte() {
        0..=199 => g.below(4),
        200..=247 => g.below(40),
        _ => 10_000,
    };
    let mut headers = Vec::with_capacity(n_headers.min(1024));
    for i in 0..n_headers {
        if i >= 8 {
            // Cheap bulk: many distinct names that match nothing, then the first headers repeated.
            if i % 2 == 0 {
                headers.push((format!("x-bulk-{i}"), b"v".to_vec()));
            } else if let Some(h) = headers.first().cloned() {
                headers.push(h);
            }
            continue;
        }
        let name = g
            .pick(&[
                "x-version",
                "X-Version",
                "x-user",
                "host",
                "env",
                "x-v",
                "X-V",
                "content-type",
            ])
            .to_owned();
        let value = match g.below(6) {
            0 => {
                let n = g.below(16);
                g.u.bytes(n).unwrap_or(&[]).to_vec()
            }
            1 => vec![0xff, 0xfe, b'v', 0x80],
            _ => g
                .pick(&["v1", "v2", "one", "two", "1", ""])
                .as_bytes()
                .to_vec(),
        };
        headers.push((name, value));
    }
    let host = if g.chance(160) {
        Some(
            g.pick(&[
                "example.com",
                "foo.example.com",
                "Foo.Example.com:8080",
                "web",
                "web.shop.svc.cluster.local",
                "bar.com",
                "[fd00::1]:80",
                "10.96.0.1",
                "",
                "é.com",
            ])
            .to_owned(),
        )
    } else {
        None
    };
    let sni = if g.chance(100) { host.clone() } else { None };
    let method = if g.chance(230) {
        Some(
            g.pick(&["GET", "POST", "PUT", "DELETE", "get", "BREW", ""])
                .to_owned(),
        )
    } else {
        None
    };
    let source_namespace = if g.chance(128) {
        Some(g.pick(NAMESPACES).to_owned())
    } else {
        None
    };
    OwnedRequest {
        source_namespace,
        destination,
        port,
        protocol,
        scheme: match g.below(3) {
            0 => None,
            1 => Some(Scheme::Http),
            _ => Some(Scheme::Https),
        },
        host,
        method,
        path_and_query,
        headers,
        sni,
        entropy: g.u.arbitrary::<u64>().unwrap_or(0),
    }
}
