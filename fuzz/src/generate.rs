//! Turns fuzzer bytes into `serde_json::Value` trees shaped like gamma-rs resources.
//!
//! The model crates carry no `arbitrary` derives (and should not: they are wire types other crates
//! own). Instead this generator knows the *shape* of each kind and draws every leaf from a pool of
//! values that matter to the code under test: valid-looking ones (so objects get past decoding and
//! into validation and the engines), edge values (exactly at a CRD limit and one past it, empty,
//! wrong case, `..` segments, huge regex repetitions) and, with a small probability, anything at
//! all (a wrong JSON type, arbitrary text). A node budget bounds the size of every tree, so a
//! fuzzer input can never make the generator itself allocate without bound.

use arbitrary::Unstructured;
use serde_json::{Map, Value, json};

/// Kinds the generator can produce, as (`apiVersion`, `kind`).
pub const KINDS: &[(&str, &str)] = &[
    ("gateway.networking.k8s.io/v1", "HTTPRoute"),
    ("gateway.networking.k8s.io/v1beta1", "HTTPRoute"),
    ("gateway.networking.k8s.io/v1", "GRPCRoute"),
    ("gateway.networking.k8s.io/v1", "TLSRoute"),
    ("gateway.networking.k8s.io/v1alpha2", "TCPRoute"),
    ("gateway.networking.k8s.io/v1alpha2", "UDPRoute"),
    ("gateway.networking.k8s.io/v1", "Gateway"),
    ("gateway.networking.k8s.io/v1", "GatewayClass"),
    ("gateway.networking.k8s.io/v1", "ListenerSet"),
    ("gateway.networking.k8s.io/v1beta1", "ReferenceGrant"),
    ("gateway.networking.k8s.io/v1", "BackendTLSPolicy"),
    ("gateway.networking.x-k8s.io/v1alpha1", "XMesh"),
    ("v1", "Service"),
    ("v1", "Namespace"),
    ("discovery.k8s.io/v1", "EndpointSlice"),
];

/// Namespaces and names are drawn mostly from small pools so that generated objects refer to each
/// other (routes to Services, Gateways to GatewayClasses) and the engines have something to bind.
pub const NAMESPACES: &[&str] = &["default", "shop", "payments", "web", "mesh-system"];
/// Object names shared by every kind.
pub const NAMES: &[&str] = &["web", "api", "db", "gw", "mesh", "a", "b"];
/// Controller names (mesh and gateway) used by GatewayClasses, XMeshes and route status.
pub const CONTROLLERS: &[&str] = &[
    "example.com/mesh-a",
    "example.com/mesh-b",
    "example.net/gateway",
    "istio.io/mesh-controller",
];
/// Service cluster IPs: the resolve target sends requests to these.
pub const CLUSTER_IPS: &[&str] = &["10.96.0.1", "10.96.0.2", "10.96.0.3", "fd00::1", "None"];
/// Service ports: the resolve target sends requests to these.
pub const PORTS: &[i64] = &[80, 443, 8080, 9090];

/// A generator over fuzzer bytes with a node budget.
pub struct Gen<'a, 'b> {
    /// The fuzzer's bytes.
    pub u: &'b mut Unstructured<'a>,
    budget: usize,
    /// 0: never emit arbitrary (wrongly typed) nodes; higher: more often (1 in `256 / chaos`).
    chaos: u8,
}

impl<'a, 'b> Gen<'a, 'b> {
    /// A generator spending at most `budget` nodes.
    pub fn new(u: &'b mut Unstructured<'a>, budget: usize) -> Self {
        let chaos = u.arbitrary::<u8>().unwrap_or(0) % 8;
        Gen { u, budget, chaos }
    }

    fn spend(&mut self) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    /// Whether the generator has budget and bytes left.
    pub fn live(&self) -> bool {
        self.budget > 0 && !self.u.is_empty()
    }

    /// A byte; 0 when the input is exhausted.
    pub fn byte(&mut self) -> u8 {
        self.u.arbitrary::<u8>().unwrap_or(0)
    }

    /// Eight bytes as a `u64` (the route table's hash seed, for one).
    pub fn word(&mut self) -> u64 {
        (0..8).fold(0, |w, _| w << 8 | u64::from(self.byte()))
    }

    /// A coin that comes up true with probability about `n / 256`.
    pub fn chance(&mut self, n: u8) -> bool {
        self.byte() < n
    }

    /// An index below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        self.u.choose_index(n).unwrap_or(0)
    }

    /// One of `items` (which must be non-empty).
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        let i = self.below(items.len());
        // `below` returns an index in range; `items` is a non-empty constant pool.
        items[i].clone()
    }

    /// Arbitrary text of at most `max` bytes.
    pub fn text(&mut self, max: usize) -> String {
        let len = self.below(max + 1);
        let bytes = self.u.bytes(len.min(self.u.len())).unwrap_or(&[]);
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// Any JSON value at all (wrong types included), shallow.
    pub fn wild(&mut self) -> Value {
        match self.below(8) {
            0 => Value::Null,
            1 => Value::Bool(self.byte() & 1 == 1),
            2 => json!(self.u.arbitrary::<i64>().unwrap_or(0)),
            3 => json!(
                self.u
                    .arbitrary::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .unwrap_or(0.5)
            ),
            4 => json!([]),
            5 => json!({}),
            6 => json!([self.text(8)]),
            _ => Value::String(self.text(64)),
        }
    }

    /// `good` most of the time; a wild value with the chaos probability.
    fn or_wild(&mut self, good: Value) -> Value {
        if self.chaos > 0 && self.byte() < self.chaos * 4 {
            self.wild()
        } else {
            good
        }
    }

    /// A string drawn from `pool`, or (1 in 8) arbitrary text.
    pub fn str_from(&mut self, pool: &[&str]) -> Value {
        let s = if self.chance(32) {
            self.text(80)
        } else {
            self.pick(pool).to_owned()
        };
        self.or_wild(Value::String(s))
    }

    /// An integer drawn from `pool`, or (1 in 8) any `i64`.
    pub fn int_from(&mut self, pool: &[i64]) -> Value {
        let n = if self.chance(32) {
            self.u.arbitrary::<i64>().unwrap_or(0)
        } else {
            self.pick(pool)
        };
        self.or_wild(json!(n))
    }

    /// A list length: usually small, sometimes exactly `max` or `max + 1` (the CRD limit edges).
    pub fn len(&mut self, max: usize) -> usize {
        if !self.live() {
            return 0;
        }
        match self.byte() {
            0..=239 => self.below(4),
            240..=247 => max,
            _ => max + 1,
        }
    }

    /// A list of up to about `max` items. Past four items the first one is cloned, so a list at a
    /// CRD limit costs the generator (and the fuzzer's input) no more than a short one.
    pub fn list(&mut self, max: usize, mut item: impl FnMut(&mut Self) -> Value) -> Value {
        let n = self.len(max);
        let mut out = Vec::with_capacity(n.min(4));
        for i in 0..n {
            if i >= 4 {
                if let Some(first) = out.first().cloned() {
                    out.push(first);
                    continue;
                }
            }
            if !self.spend() {
                break;
            }
            out.push(item(self));
        }
        self.or_wild(Value::Array(out))
    }

    /// An object built by `fill`, costing one node.
    pub fn obj(&mut self, fill: impl FnOnce(&mut Self, &mut Map<String, Value>)) -> Value {
        let mut m = Map::new();
        if self.spend() {
            fill(self, &mut m);
        }
        self.or_wild(Value::Object(m))
    }

    /// Sets `key` with probability about `p / 256` (sometimes to an explicit `null`).
    pub fn maybe(
        &mut self,
        m: &mut Map<String, Value>,
        key: &str,
        p: u8,
        value: impl FnOnce(&mut Self) -> Value,
    ) {
        if !self.live() || !self.chance(p) {
            return;
        }
        let v = if self.chance(8) {
            Value::Null
        } else {
            value(self)
        };
        m.insert(key.to_owned(), v);
    }

    /// Sets `key` unless the input is exhausted or (1 in 32) it is left out to test `Required`.
    pub fn must(
        &mut self,
        m: &mut Map<String, Value>,
        key: &str,
        value: impl FnOnce(&mut Self) -> Value,
    ) {
        if self.chance(8) {
            return;
        }
        let v = value(self);
        m.insert(key.to_owned(), v);
    }

    // ---- leaf pools -------------------------------------------------------------------------

    /// A DNS-label-ish name.
    pub fn name(&mut self) -> Value {
        let long63 = "n".repeat(63);
        let long64 = "n".repeat(64);
        let long253 = "n".repeat(253);
        let mut pool: Vec<&str> = NAMES.to_vec();
        pool.extend([
            "", "UPPER", "-lead", "trail-", "a.b", "a_b", "é", &long63, &long64, &long253,
        ]);
        self.str_from(&pool)
    }

    /// A namespace name.
    pub fn namespace(&mut self) -> Value {
        let mut pool: Vec<&str> = NAMESPACES.to_vec();
        pool.extend(["", "Bad_NS", "kube-system"]);
        self.str_from(&pool)
    }

    /// A hostname as routes and listeners write them.
    pub fn hostname(&mut self) -> Value {
        let long = format!("{}.com", "h".repeat(250));
        let label64 = format!("{}.com", "h".repeat(64));
        self.str_from(&[
            "example.com",
            "*.example.com",
            "foo.example.com",
            "web",
            "web.shop.svc.cluster.local",
            "*",
            "*.*.com",
            "a..b",
            "10.0.0.1",
            "EXAMPLE.com",
            "",
            "-a.com",
            "foo.example.com.",
            &long,
            &label64,
        ])
    }

    /// A path value.
    pub fn path(&mut self) -> Value {
        let long = format!("/{}", "p".repeat(1024));
        self.str_from(&[
            "/",
            "/api",
            "/api/",
            "/api/v1",
            "/a/..",
            "/a/./b",
            "/..",
            "//",
            "/a//b",
            "/%2F",
            "/a%2fb",
            "/a%",
            "api",
            "",
            "/foo?bar",
            "/foo#frag",
            "/é",
            "/a b",
            &long,
        ])
    }

    /// A regular expression, including ones that blow up when compiled.
    pub fn regex(&mut self) -> Value {
        self.str_from(&[
            "/api/.*",
            ".*",
            "/v[0-9]+/.*",
            "(?i)abc",
            "^/x$",
            "[",
            "(a+)+",
            "a{1001}",
            "(a{1000}){1000}",
            "((a{100}){100}){100}",
            "\\p{L}{500}\\w{500}",
            "(?:[\\s\\S]{999}){999}",
            "\\",
            "",
            "\\bfoo\\b",
        ])
    }

    /// A header (or query parameter) name.
    pub fn header_name(&mut self) -> Value {
        let long = "h".repeat(257);
        self.str_from(&[
            "x-version",
            "X-Version",
            "x-user",
            "host",
            "Host",
            ":authority",
            "content-type",
            "bad name",
            "",
            "x\u{0}y",
            &long,
        ])
    }

    /// A header or query value.
    pub fn header_value(&mut self) -> Value {
        let long = "v".repeat(4097);
        self.str_from(&["v1", "v2", "", "a b", "é", "x\ny", &long])
    }

    /// A port number.
    pub fn port(&mut self) -> Value {
        let mut pool: Vec<i64> = PORTS.to_vec();
        pool.extend([
            0,
            1,
            65535,
            65536,
            -1,
            i64::from(i32::MAX),
            i64::from(i32::MIN),
            1 << 40,
        ]);
        self.int_from(&pool)
    }

    /// A backend weight.
    pub fn weight(&mut self) -> Value {
        self.int_from(&[0, 1, 2, 10, 50, 100, 1_000_000, 1_000_001, -1])
    }

    /// An RFC 3339 timestamp, valid or not.
    pub fn timestamp(&mut self) -> Value {
        self.str_from(&[
            "2024-01-01T00:00:00Z",
            "2024-01-01T00:00:01Z",
            "2024-01-01T00:00:00.5Z",
            "2023-06-30T12:00:00Z",
            "2024-01-01T02:00:00+02:00",
            "1970-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999Z",
            "0000-01-01T00:00:00Z",
            "2024-02-30T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "not a time",
            "",
        ])
    }

    /// A Gateway API duration.
    pub fn duration(&mut self) -> Value {
        self.str_from(&[
            "10s", "1h30m", "500ms", "0s", "1h1h", "10", "-1s", "99999h", "1.5s", "",
        ])
    }

    /// A controller name.
    pub fn controller(&mut self) -> Value {
        let mut pool: Vec<&str> = CONTROLLERS.to_vec();
        pool.extend(["no-slash", "Example.com/x", "example.com/", ""]);
        self.str_from(&pool)
    }

    /// A string-to-string map (labels, annotations, selectors).
    pub fn labels(&mut self) -> Value {
        self.obj(|g, m| {
            let n = g.len(4);
            for _ in 0..n {
                let k = g.pick(&[
                    "app",
                    "gamma.rs/mesh",
                    "gamma.rs/controller",
                    "gamma.rs/controllers",
                    "istio.io/use-waypoint",
                    "istio.io/use-waypoint-namespace",
                    "env",
                    "kubernetes.io/metadata.name",
                ]);
                let v = g.str_from(&[
                    "web",
                    "mesh",
                    "gw",
                    "none",
                    "prod",
                    "example.com/mesh-a",
                    "example.com/mesh-a,example.com/mesh-b",
                    "",
                ]);
                m.insert(k.to_owned(), v);
            }
        })
    }

    /// Object metadata; `namespaced` kinds usually get a namespace.
    pub fn metadata(&mut self, namespaced: bool) -> Value {
        self.obj(|g, m| {
            g.must(m, "name", Gen::name);
            if namespaced {
                g.maybe(m, "namespace", 230, Gen::namespace);
            } else {
                g.maybe(m, "namespace", 8, Gen::namespace);
            }
            g.maybe(m, "uid", 64, |g| g.str_from(&["u1", "u2"]));
            g.maybe(m, "generation", 128, |g| {
                g.int_from(&[0, 1, 2, 7, -1, i64::MAX])
            });
            g.maybe(m, "creationTimestamp", 160, Gen::timestamp);
            g.maybe(m, "labels", 64, Gen::labels);
            g.maybe(m, "annotations", 64, Gen::labels);
        })
    }
}

/// Generates one object of a kind chosen by the input.
pub fn resource(g: &mut Gen) -> Value {
    let (api_version, kind) = g.pick(KINDS);
    resource_of(g, api_version, kind)
}

/// Generates one object of the given kind.
pub fn resource_of(g: &mut Gen, api_version: &str, kind: &str) -> Value {
    let namespaced = !matches!(kind, "GatewayClass" | "XMesh" | "Namespace");
    let mut m = Map::new();
    m.insert("apiVersion".into(), Value::String(api_version.into()));
    m.insert("kind".into(), Value::String(kind.into()));
    m.insert("metadata".into(), g.metadata(namespaced));
    match kind {
        "HTTPRoute" => {
            m.insert("spec".into(), http_route_spec(g));
            g.maybe(&mut m, "status", 48, route_status);
        }
        "GRPCRoute" => {
            m.insert("spec".into(), grpc_route_spec(g));
            g.maybe(&mut m, "status", 48, route_status);
        }
        "TLSRoute" | "TCPRoute" | "UDPRoute" => {
            let tls = kind == "TLSRoute";
            m.insert("spec".into(), l4_route_spec(g, tls));
            g.maybe(&mut m, "status", 48, route_status);
        }
        "Gateway" => {
            m.insert("spec".into(), gateway_spec(g));
        }
        "ListenerSet" => {
            m.insert("spec".into(), listener_set_spec(g));
        }
        "GatewayClass" | "XMesh" => {
            let spec = g.obj(|g, s| {
                g.must(s, "controllerName", Gen::controller);
                g.maybe(s, "description", 32, |g| g.str_from(&["d", ""]));
                g.maybe(s, "parametersRef", 32, |g| {
                    g.obj(|g, p| {
                        g.must(p, "group", |g| g.str_from(&["", "example.com"]));
                        g.must(p, "kind", |g| g.str_from(&["ConfigMap", ""]));
                        g.must(p, "name", Gen::name);
                        g.maybe(p, "namespace", 64, Gen::namespace);
                    })
                });
            });
            m.insert("spec".into(), spec);
        }
        "ReferenceGrant" => {
            m.insert("spec".into(), reference_grant_spec(g));
        }
        "BackendTLSPolicy" => {
            m.insert("spec".into(), backend_tls_policy_spec(g));
        }
        "Service" => {
            m.insert("spec".into(), service_spec(g));
        }
        "EndpointSlice" => endpoint_slice(g, &mut m),
        _ => {}
    }
    Value::Object(m)
}

/// A parentRef: mostly core Services and Gateways, plus the defaulting traps.
pub fn parent_ref(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        match g.below(5) {
            // GAMMA: a core Service.
            0 | 1 => {
                m.insert("group".into(), json!(""));
                m.insert("kind".into(), json!("Service"));
            }
            // A Gateway, group and kind defaulted.
            2 => {}
            // The trap: kind Service without group "" is a Gateway-group reference.
            3 => {
                m.insert("kind".into(), json!("Service"));
            }
            _ => {
                g.maybe(m, "group", 200, |g| {
                    g.str_from(&["", "core", "gateway.networking.k8s.io", "example.com"])
                });
                g.maybe(m, "kind", 200, |g| {
                    g.str_from(&["Service", "Gateway", "ListenerSet", "Mesh", ""])
                });
            }
        }
        g.must(m, "name", Gen::name);
        g.maybe(m, "namespace", 64, Gen::namespace);
        g.maybe(m, "sectionName", 48, |g| {
            g.str_from(&["http", "https", "grpc", "tcp", "Bad"])
        });
        g.maybe(m, "port", 64, Gen::port);
        g.maybe(m, "controllers", 32, |g| g.list(16, Gen::controller));
    })
}

fn backend_fields(g: &mut Gen, m: &mut Map<String, Value>, weighted: bool) {
    g.maybe(m, "group", 24, |g| g.str_from(&["", "core", "example.com"]));
    g.maybe(m, "kind", 24, |g| {
        g.str_from(&["Service", "ServiceImport", "Bucket"])
    });
    g.must(m, "name", Gen::name);
    g.maybe(m, "namespace", 48, Gen::namespace);
    g.maybe(m, "port", 230, Gen::port);
    if weighted {
        g.maybe(m, "weight", 96, Gen::weight);
    }
}

fn backend_object_ref(g: &mut Gen) -> Value {
    g.obj(|g, m| backend_fields(g, m, false))
}

fn l4_backend_ref(g: &mut Gen) -> Value {
    g.obj(|g, m| backend_fields(g, m, true))
}

fn header_filter(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        let header = |g: &mut Gen| {
            g.obj(|g, h| {
                g.must(h, "name", Gen::header_name);
                g.must(h, "value", Gen::header_value);
            })
        };
        g.maybe(m, "set", 128, |g| g.list(16, header));
        g.maybe(m, "add", 96, |g| g.list(16, header));
        g.maybe(m, "remove", 64, |g| g.list(16, Gen::header_name));
    })
}

fn path_modifier(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        let full = g.chance(128);
        let ty = if full {
            "ReplaceFullPath"
        } else {
            "ReplacePrefixMatch"
        };
        m.insert("type".into(), g.str_from(&[ty, "ReplaceEverything"]));
        // Usually the matching field, sometimes the other one or both (union discipline).
        if full || g.chance(16) {
            g.maybe(m, "replaceFullPath", 230, Gen::path);
        }
        if !full || g.chance(16) {
            g.maybe(m, "replacePrefixMatch", 230, Gen::path);
        }
    })
}

fn mirror(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        m.insert("backendRef".into(), backend_object_ref(g));
        g.maybe(m, "percent", 48, |g| g.int_from(&[0, 50, 100, 101, -1]));
        g.maybe(m, "fraction", 32, |g| {
            g.obj(|g, f| {
                g.must(f, "numerator", |g| g.int_from(&[0, 1, 50, 100, 101, -1]));
                g.maybe(f, "denominator", 128, |g| g.int_from(&[0, 1, 100, 1000]));
            })
        });
    })
}

const HTTP_FILTERS: &[&str] = &[
    "RequestHeaderModifier",
    "ResponseHeaderModifier",
    "RequestMirror",
    "RequestRedirect",
    "URLRewrite",
    "ExtensionRef",
    "CORS",
    "ExternalAuth",
    "FancyNewFilter",
];

fn filter_payload(g: &mut Gen, ty: &str) -> (String, Value) {
    match ty {
        "RequestHeaderModifier" => ("requestHeaderModifier".into(), header_filter(g)),
        "ResponseHeaderModifier" => ("responseHeaderModifier".into(), header_filter(g)),
        "RequestMirror" => ("requestMirror".into(), mirror(g)),
        "RequestRedirect" => (
            "requestRedirect".into(),
            g.obj(|g, m| {
                g.maybe(m, "scheme", 64, |g| g.str_from(&["http", "https", "ftp"]));
                g.maybe(m, "hostname", 96, Gen::hostname);
                g.maybe(m, "path", 96, path_modifier);
                g.maybe(m, "port", 64, Gen::port);
                g.maybe(m, "statusCode", 96, |g| {
                    g.int_from(&[301, 302, 303, 307, 308, 200, 399])
                });
            }),
        ),
        "URLRewrite" => (
            "urlRewrite".into(),
            g.obj(|g, m| {
                g.maybe(m, "hostname", 96, Gen::hostname);
                g.maybe(m, "path", 160, path_modifier);
            }),
        ),
        "ExtensionRef" => (
            "extensionRef".into(),
            g.obj(|g, m| {
                g.must(m, "group", |g| g.str_from(&["example.com", ""]));
                g.must(m, "kind", |g| g.str_from(&["Fancy", ""]));
                g.must(m, "name", Gen::name);
            }),
        ),
        "CORS" => (
            "cors".into(),
            g.obj(|g, m| {
                g.maybe(m, "allowOrigins", 160, |g| {
                    g.list(64, |g| {
                        g.str_from(&[
                            "*",
                            "https://example.com",
                            "https://*.example.com",
                            "http://a:8080",
                            "example.com",
                            "https://*",
                        ])
                    })
                });
                g.maybe(m, "allowCredentials", 64, |g| json!(g.chance(128)));
                g.maybe(m, "allowMethods", 96, |g| {
                    g.list(9, |g| g.str_from(&["GET", "POST", "*", "get"]))
                });
                g.maybe(m, "allowHeaders", 64, |g| g.list(64, Gen::header_name));
                g.maybe(m, "exposeHeaders", 64, |g| g.list(64, Gen::header_name));
                g.maybe(m, "maxAge", 64, |g| g.int_from(&[0, 1, 5, 86400, -1]));
            }),
        ),
        "ExternalAuth" => (
            "externalAuth".into(),
            g.obj(|g, m| {
                g.must(m, "protocol", |g| g.str_from(&["HTTP", "GRPC", "SOAP"]));
                m.insert("backendRef".into(), backend_object_ref(g));
                g.maybe(m, "http", 64, |g| {
                    g.obj(|g, h| {
                        g.maybe(h, "path", 64, Gen::path);
                        g.maybe(h, "allowedHeaders", 64, |g| g.list(64, Gen::header_name));
                    })
                });
                g.maybe(m, "grpc", 64, |g| {
                    g.obj(|g, h| g.maybe(h, "allowedHeaders", 64, |g| g.list(64, Gen::header_name)))
                });
                g.maybe(m, "forwardBody", 32, |g| {
                    g.obj(|g, f| g.maybe(f, "maxSize", 200, |g| g.int_from(&[0, 1024, -1])))
                });
            }),
        ),
        _ => ("fancy".into(), json!({"x": 1})),
    }
}

fn filter(g: &mut Gen, types: &[&str]) -> Value {
    g.obj(|g, m| {
        let ty = g.pick(types);
        m.insert("type".into(), g.or_wild(json!(ty)));
        // Usually exactly the field named by `type`; sometimes none, or a second one as well.
        if !g.chance(16) {
            let (k, v) = filter_payload(g, ty);
            m.insert(k, v);
        }
        if g.chance(12) {
            let other = g.pick(types);
            let (k, v) = filter_payload(g, other);
            m.insert(k, v);
        }
    })
}

fn http_filter(g: &mut Gen) -> Value {
    filter(g, HTTP_FILTERS)
}

fn grpc_filter(g: &mut Gen) -> Value {
    filter(
        g,
        &[
            "RequestHeaderModifier",
            "ResponseHeaderModifier",
            "RequestMirror",
            "ExtensionRef",
            "URLRewrite",
        ],
    )
}

fn match_type(g: &mut Gen) -> Value {
    g.str_from(&["Exact", "RegularExpression", "Prefix"])
}

fn http_match(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        g.maybe(m, "path", 200, |g| {
            g.obj(|g, p| {
                let ty = g.pick(&["PathPrefix", "Exact", "RegularExpression", "Glob"]);
                g.maybe(p, "type", 220, |g| g.or_wild(json!(ty)));
                g.maybe(p, "value", 230, |g| {
                    if ty == "RegularExpression" {
                        g.regex()
                    } else {
                        g.path()
                    }
                });
            })
        });
        let hq = |g: &mut Gen| {
            g.obj(|g, h| {
                let regex = g.chance(48);
                if regex {
                    h.insert("type".into(), json!("RegularExpression"));
                } else {
                    g.maybe(h, "type", 64, match_type);
                }
                g.must(h, "name", Gen::header_name);
                g.must(
                    h,
                    "value",
                    |g| if regex { g.regex() } else { g.header_value() },
                );
            })
        };
        g.maybe(m, "headers", 96, |g| g.list(16, hq));
        g.maybe(m, "queryParams", 64, |g| g.list(16, hq));
        g.maybe(m, "method", 64, |g| {
            g.str_from(&["GET", "POST", "DELETE", "PATCH", "get", "BREW"])
        });
    })
}

fn http_backend_ref(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        backend_fields(g, m, true);
        g.maybe(m, "filters", 32, |g| g.list(16, http_filter));
    })
}

fn http_rule(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        g.maybe(m, "name", 48, |g| g.str_from(&["r1", "r2", "Bad Name", ""]));
        g.maybe(m, "matches", 200, |g| g.list(64, http_match));
        g.maybe(m, "filters", 96, |g| g.list(16, http_filter));
        g.maybe(m, "backendRefs", 220, |g| g.list(16, http_backend_ref));
        g.maybe(m, "timeouts", 32, |g| {
            g.obj(|g, t| {
                g.maybe(t, "request", 160, Gen::duration);
                g.maybe(t, "backendRequest", 160, Gen::duration);
            })
        });
        g.maybe(m, "retry", 32, |g| {
            g.obj(|g, r| {
                g.maybe(r, "codes", 160, |g| {
                    g.list(4, |g| g.int_from(&[500, 502, 503, 399, 600]))
                });
                g.maybe(r, "attempts", 128, |g| g.int_from(&[0, 1, 3, -1]));
                g.maybe(r, "backoff", 128, Gen::duration);
            })
        });
        g.maybe(m, "sessionPersistence", 16, |g| {
            g.obj(|g, s| {
                g.maybe(s, "sessionName", 128, |g| g.str_from(&["s", ""]));
                g.maybe(s, "absoluteTimeout", 96, Gen::duration);
                g.maybe(s, "type", 128, |g| {
                    g.str_from(&["Cookie", "Header", "Ticket"])
                });
                g.maybe(s, "cookieConfig", 64, |g| {
                    g.obj(|g, c| {
                        g.maybe(c, "lifetimeType", 200, |g| {
                            g.str_from(&["Session", "Permanent", "X"])
                        })
                    })
                });
            })
        });
    })
}

fn route_common(g: &mut Gen, m: &mut Map<String, Value>, hostnames: bool) {
    g.maybe(m, "parentRefs", 240, |g| g.list(32, parent_ref));
    if hostnames {
        g.maybe(m, "hostnames", 64, |g| g.list(16, Gen::hostname));
    }
    g.maybe(m, "useDefaultGateways", 8, |g| {
        g.str_from(&["All", "None", "Some"])
    });
}

/// An HTTPRoute spec.
pub fn http_route_spec(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        route_common(g, m, true);
        g.maybe(m, "rules", 230, |g| g.list(16, http_rule));
    })
}

/// A GRPCRoute spec.
pub fn grpc_route_spec(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        route_common(g, m, true);
        let gm = |g: &mut Gen| {
            g.obj(|g, mm| {
                g.maybe(mm, "method", 200, |g| {
                    g.obj(|g, me| {
                        let regex = g.chance(48);
                        if regex {
                            me.insert("type".into(), json!("RegularExpression"));
                        } else {
                            g.maybe(me, "type", 64, match_type);
                        }
                        g.maybe(me, "service", 200, |g| {
                            if regex {
                                g.regex()
                            } else {
                                g.str_from(&["pkg.Svc", "helloworld.Greeter", "a/b", ""])
                            }
                        });
                        g.maybe(me, "method", 160, |g| {
                            if regex {
                                g.regex()
                            } else {
                                g.str_from(&["Get", "SayHello", "a/b", ""])
                            }
                        });
                    })
                });
                g.maybe(mm, "headers", 64, |g| {
                    g.list(16, |g| {
                        g.obj(|g, h| {
                            g.maybe(h, "type", 64, match_type);
                            g.must(h, "name", Gen::header_name);
                            g.must(h, "value", Gen::header_value);
                        })
                    })
                });
            })
        };
        let rule = |g: &mut Gen| {
            g.obj(|g, r| {
                g.maybe(r, "name", 32, |g| g.str_from(&["r1", "r2"]));
                g.maybe(r, "matches", 200, |g| g.list(64, gm));
                g.maybe(r, "filters", 64, |g| g.list(16, grpc_filter));
                g.maybe(r, "backendRefs", 220, |g| {
                    g.list(16, |g| {
                        g.obj(|g, b| {
                            backend_fields(g, b, true);
                            g.maybe(b, "filters", 32, |g| g.list(16, grpc_filter));
                        })
                    })
                });
            })
        };
        g.maybe(m, "rules", 230, |g| g.list(16, rule));
    })
}

/// A TLSRoute (with hostnames) or TCPRoute/UDPRoute spec.
pub fn l4_route_spec(g: &mut Gen, tls: bool) -> Value {
    g.obj(|g, m| {
        route_common(g, m, tls);
        let rule = |g: &mut Gen| {
            g.obj(|g, r| {
                g.maybe(r, "name", 32, |g| g.str_from(&["r1", "r2"]));
                g.maybe(r, "backendRefs", 220, |g| g.list(16, l4_backend_ref));
            })
        };
        g.maybe(m, "rules", 240, |g| g.list(16, rule));
    })
}

fn listener(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        g.must(m, "name", |g| {
            g.str_from(&["http", "https", "tls", "tcp", "Bad Name"])
        });
        g.maybe(m, "hostname", 96, Gen::hostname);
        g.must(m, "port", Gen::port);
        g.must(m, "protocol", |g| {
            // HTTP twice: the listeners resolve_differential's oracle models
            g.str_from(&[
                "HTTP",
                "HTTP",
                "HTTPS",
                "TLS",
                "TCP",
                "UDP",
                "example.com/x",
                "bad",
            ])
        });
        g.maybe(m, "tls", 48, |g| {
            g.obj(|g, t| {
                g.maybe(t, "mode", 128, |g| {
                    g.str_from(&["Terminate", "Passthrough", "Other"])
                });
                g.maybe(t, "certificateRefs", 128, |g| {
                    g.list(64, |g| g.obj(|g, c| g.must(c, "name", Gen::name)))
                });
            })
        });
        g.maybe(m, "allowedRoutes", 96, |g| {
            g.obj(|g, a| {
                g.maybe(a, "namespaces", 160, |g| {
                    g.obj(|g, n| {
                        g.maybe(n, "from", 200, |g| {
                            g.str_from(&["All", "Same", "Selector", "None", "Some"])
                        });
                        g.maybe(n, "selector", 96, selector);
                    })
                });
                g.maybe(a, "kinds", 96, |g| {
                    g.list(8, |g| {
                        g.obj(|g, k| {
                            g.maybe(k, "group", 96, |g| {
                                g.str_from(&["gateway.networking.k8s.io", "", "x"])
                            });
                            g.must(k, "kind", |g| {
                                g.str_from(&[
                                    "HTTPRoute",
                                    "GRPCRoute",
                                    "TLSRoute",
                                    "TCPRoute",
                                    "Foo",
                                ])
                            });
                        })
                    })
                });
            })
        });
    })
}

fn selector(g: &mut Gen) -> Value {
    g.obj(|g, s| {
        g.maybe(s, "matchLabels", 160, Gen::labels);
        g.maybe(s, "matchExpressions", 96, |g| {
            g.list(4, |g| {
                g.obj(|g, e| {
                    g.must(e, "key", |g| g.str_from(&["app", "env", "gamma.rs/mesh"]));
                    g.must(e, "operator", |g| {
                        g.str_from(&["In", "NotIn", "Exists", "DoesNotExist", "Has"])
                    });
                    g.maybe(e, "values", 160, |g| {
                        g.list(4, |g| g.str_from(&["web", "prod", ""]))
                    });
                })
            })
        });
    })
}

/// A Gateway spec.
pub fn gateway_spec(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        g.must(m, "gatewayClassName", Gen::name);
        g.must(m, "listeners", |g| g.list(64, listener));
        g.maybe(m, "addresses", 96, |g| {
            g.list(16, |g| {
                g.obj(|g, a| {
                    g.maybe(a, "type", 128, |g| {
                        g.str_from(&["IPAddress", "Hostname", "example.com/x"])
                    });
                    g.must(a, "value", |g| {
                        g.str_from(&[
                            "10.0.0.9",
                            "10.96.0.1",
                            "gw.example.com",
                            "not an ip",
                            "fd00::9",
                        ])
                    });
                })
            })
        });
        g.maybe(m, "allowedListeners", 16, |g| {
            g.obj(|g, a| {
                g.maybe(a, "namespaces", 200, |g| {
                    g.obj(|g, n| {
                        g.maybe(n, "from", 200, |g| {
                            g.str_from(&["All", "Same", "Selector", "None"])
                        });
                        g.maybe(n, "selector", 64, selector);
                    })
                })
            })
        });
    })
}

fn listener_set_spec(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        m.insert(
            "parentRef".into(),
            g.obj(|g, p| {
                g.maybe(p, "group", 64, |g| {
                    g.str_from(&["gateway.networking.k8s.io", ""])
                });
                g.maybe(p, "kind", 64, |g| g.str_from(&["Gateway", "Service"]));
                g.must(p, "name", Gen::name);
                g.maybe(p, "namespace", 64, Gen::namespace);
            }),
        );
        g.must(m, "listeners", |g| g.list(64, listener));
    })
}

fn reference_grant_spec(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        g.must(m, "from", |g| {
            g.list(16, |g| {
                g.obj(|g, f| {
                    g.must(f, "group", |g| {
                        g.str_from(&["gateway.networking.k8s.io", ""])
                    });
                    g.must(f, "kind", |g| {
                        g.str_from(&["HTTPRoute", "GRPCRoute", "TLSRoute", "Gateway"])
                    });
                    g.must(f, "namespace", Gen::namespace);
                })
            })
        });
        g.must(m, "to", |g| {
            g.list(16, |g| {
                g.obj(|g, t| {
                    g.must(t, "group", |g| {
                        g.str_from(&["", "gateway.networking.k8s.io"])
                    });
                    g.must(t, "kind", |g| g.str_from(&["Service", "Secret"]));
                    g.maybe(t, "name", 96, Gen::name);
                })
            })
        });
    })
}

fn backend_tls_policy_spec(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        g.must(m, "targetRefs", |g| {
            g.list(16, |g| {
                g.obj(|g, t| {
                    g.must(t, "group", |g| g.str_from(&["", "example.com"]));
                    g.must(t, "kind", |g| g.str_from(&["Service", "Pod"]));
                    g.must(t, "name", Gen::name);
                    g.maybe(t, "sectionName", 64, |g| g.str_from(&["http", "Bad"]));
                })
            })
        });
        g.must(m, "validation", |g| {
            g.obj(|g, v| {
                g.maybe(v, "caCertificateRefs", 160, |g| {
                    g.list(8, |g| {
                        g.obj(|g, c| {
                            g.must(c, "group", |g| g.str_from(&["", "x"]));
                            g.must(c, "kind", |g| g.str_from(&["ConfigMap", "Secret"]));
                            g.must(c, "name", Gen::name);
                        })
                    })
                });
                g.maybe(v, "wellKnownCACertificates", 64, |g| {
                    g.str_from(&["System", "Other"])
                });
                g.must(v, "hostname", Gen::hostname);
                g.maybe(v, "subjectAltNames", 64, |g| {
                    g.list(5, |g| {
                        g.obj(|g, s| {
                            let host = g.chance(128);
                            s.insert(
                                "type".into(),
                                g.str_from(&[if host { "Hostname" } else { "URI" }, "Email"]),
                            );
                            if host || g.chance(16) {
                                g.maybe(s, "hostname", 230, Gen::hostname);
                            }
                            if !host || g.chance(16) {
                                g.maybe(s, "uri", 230, |g| {
                                    g.str_from(&["spiffe://cluster.local/ns/a/sa/b", "not a uri"])
                                });
                            }
                        })
                    })
                });
            })
        });
    })
}

fn service_spec(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        g.maybe(m, "type", 64, |g| {
            g.str_from(&[
                "ClusterIP",
                "NodePort",
                "LoadBalancer",
                "ExternalName",
                "Odd",
            ])
        });
        g.maybe(m, "clusterIP", 220, |g| {
            let mut pool: Vec<&str> = CLUSTER_IPS.to_vec();
            pool.extend(["", "not-an-ip", "10.96.0.256"]);
            g.str_from(&pool)
        });
        g.maybe(m, "clusterIPs", 64, |g| {
            g.list(2, |g| g.str_from(CLUSTER_IPS))
        });
        g.maybe(m, "ports", 230, |g| {
            g.list(4, |g| {
                g.obj(|g, p| {
                    g.maybe(p, "name", 160, |g| {
                        g.str_from(&["http", "https", "grpc", "tcp", ""])
                    });
                    g.maybe(p, "protocol", 64, |g| g.str_from(&["TCP", "UDP", "SCTP"]));
                    g.maybe(p, "appProtocol", 64, |g| {
                        g.str_from(&[
                            "http",
                            "kubernetes.io/h2c",
                            "kubernetes.io/ws",
                            "grpc",
                            "tls",
                        ])
                    });
                    g.must(p, "port", Gen::port);
                    g.maybe(p, "targetPort", 96, |g| {
                        if g.chance(128) {
                            g.port()
                        } else {
                            g.str_from(&["http", "web"])
                        }
                    });
                })
            })
        });
        g.maybe(m, "selector", 96, Gen::labels);
        g.maybe(m, "externalName", 16, Gen::hostname);
    })
}

fn endpoint_slice(g: &mut Gen, m: &mut Map<String, Value>) {
    // Slices name their Service in a label; usually one of the generated names.
    if let Some(Value::Object(meta)) = m.get_mut("metadata") {
        let svc = g.name();
        meta.insert(
            "labels".into(),
            json!({ "kubernetes.io/service-name": svc }),
        );
    }
    g.must(m, "addressType", |g| g.str_from(&["IPv4", "IPv6", "FQDN"]));
    g.maybe(m, "endpoints", 200, |g| {
        g.list(8, |g| {
            g.obj(|g, e| {
                g.must(e, "addresses", |g| {
                    g.list(2, |g| g.str_from(&["10.0.0.5", "10.0.0.6", "fd00::5"]))
                });
                g.maybe(e, "conditions", 160, |g| {
                    g.obj(|g, c| {
                        g.maybe(c, "ready", 200, |g| json!(g.chance(160)));
                        g.maybe(c, "serving", 64, |g| json!(g.chance(160)));
                        g.maybe(c, "terminating", 64, |g| json!(g.chance(32)));
                    })
                });
            })
        })
    });
    g.maybe(m, "ports", 160, |g| {
        g.list(4, |g| {
            g.obj(|g, p| {
                g.maybe(p, "name", 128, |g| g.str_from(&["http", ""]));
                g.maybe(p, "port", 200, Gen::port);
                g.maybe(p, "protocol", 64, |g| g.str_from(&["TCP", "UDP"]));
            })
        })
    });
}

/// A route status written by one or more controllers.
pub fn route_status(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        g.must(m, "parents", |g| {
            g.list(32, |g| {
                g.obj(|g, p| {
                    p.insert("parentRef".into(), parent_ref(g));
                    g.must(p, "controllerName", Gen::controller);
                    g.maybe(p, "conditions", 220, |g| g.list(8, condition));
                })
            })
        });
    })
}

/// A status condition.
pub fn condition(g: &mut Gen) -> Value {
    g.obj(|g, c| {
        g.must(c, "type", |g| {
            g.str_from(&["Accepted", "ResolvedRefs", "PartiallyInvalid", "Programmed"])
        });
        g.must(c, "status", |g| {
            g.str_from(&["True", "False", "Unknown", "Maybe"])
        });
        g.maybe(c, "observedGeneration", 160, |g| {
            g.int_from(&[0, 1, 2, 3, -1])
        });
        g.must(c, "lastTransitionTime", Gen::timestamp);
        g.must(c, "reason", |g| {
            g.str_from(&[
                "Accepted",
                "NoMatchingParent",
                "UnsupportedValue",
                "Conflicted",
                "OwnershipConflict",
                "",
            ])
        });
        g.maybe(c, "message", 96, |g| g.str_from(&["", "m"]));
    })
}

/// Mesh registration names, parallel to [`CONTROLLERS`].
pub const MESHES: &[&str] = &["mesh-a", "mesh-b", "gateway", "istio"];

/// A gamma-arbiter configuration (its JSON form): registrations for some of [`CONTROLLERS`],
/// with aliases, namespace selectors, a default and claimed parent kinds.
pub fn arbiter_config(g: &mut Gen) -> Value {
    g.obj(|g, m| {
        let n = 1 + g.below(CONTROLLERS.len());
        let mut meshes = Vec::new();
        for i in 0..n {
            let reg = g.obj(|g, r| {
                let name = MESHES.get(i).copied().unwrap_or("x");
                r.insert("name".into(), g.or_wild(json!(name)));
                let controller = CONTROLLERS.get(i).copied().unwrap_or("x/y");
                r.insert("controllerName".into(), json!(controller));
                g.maybe(r, "aliases", 48, |g| g.list(2, Gen::controller));
                g.maybe(r, "namespaceSelector", 64, selector);
                g.maybe(r, "default", 32, |g| json!(g.chance(128)));
                g.maybe(r, "parentKinds", 16, |g| {
                    g.list(2, |g| {
                        g.obj(|g, k| {
                            g.must(k, "group", |g| {
                                g.str_from(&["example.com", "", "gateway.networking.k8s.io"])
                            });
                            g.must(k, "kind", |g| g.str_from(&["Mesh", "Service", "Gateway"]));
                        })
                    })
                });
            });
            meshes.push(reg);
        }
        m.insert("meshes".into(), Value::Array(meshes));
        g.maybe(m, "noOwningControllerReporter", 48, Gen::controller);
    })
}
