//! A three-hop chain for `RouteTable::trace` (docs/chains.md): Gateway `infra/gw` forwards to
//! Service `shop/a`, whose producer route splits 1:1 between `shop/b1` and `shop/b2` (with a
//! header edit and a path rewrite on b2), whose own routes forward to `shop/c` (no routes).

use gamma_model::Snapshot;
use gamma_resolve::{BuildOptions, RouteTable};

/// The Gateway's address.
pub const CHAIN_GATEWAY: &str = "192.0.2.1";

const CHAIN: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  addresses: [{type: IPAddress, value: 192.0.2.1}]
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: edge, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: a, namespace: shop, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: from-infra, namespace: shop}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: infra}]
  to: [{group: "", kind: Service}]
---
apiVersion: v1
kind: Service
metadata: {name: a, namespace: shop}
spec: {clusterIP: 10.96.0.10, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: b1, namespace: shop}
spec: {clusterIP: 10.96.0.21, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: b2, namespace: shop}
spec: {clusterIP: 10.96.0.22, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: c, namespace: shop}
spec: {clusterIP: 10.96.0.30, ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a, namespace: shop}
spec:
  parentRefs: [{group: "", kind: Service, name: a}]
  rules:
  - backendRefs:
    - {name: b1, port: 80}
    - name: b2
      port: 80
      filters:
      - type: RequestHeaderModifier
        requestHeaderModifier: {set: [{name: x-track, value: b2}]}
      - type: URLRewrite
        urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /v2}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: b, namespace: shop}
spec:
  parentRefs: [{group: "", kind: Service, name: b1}, {group: "", kind: Service, name: b2}]
  rules: [{backendRefs: [{name: c, port: 80}]}]
"#;

/// The chain's table.
pub fn chain3() -> RouteTable {
    let resources = gamma_model::decode(CHAIN).unwrap_or_default();
    RouteTable::build(
        &Snapshot::from_resources(resources),
        &BuildOptions::default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_resolve::{Request, TraceEnd};

    // The fixture is the chain it claims: three hops, then shop/c's endpoints, either way the
    // split goes (GEP-1294: each hop resolved at the backend Service's frontend).
    #[test]
    fn the_chain_has_three_hops() {
        let table = chain3();
        let dst = CHAIN_GATEWAY
            .parse()
            .unwrap_or(std::net::Ipv4Addr::LOCALHOST.into());
        for e in [0, u64::MAX] {
            let req = Request::http(dst, 80, "GET", "/api/orders");
            let trace = table.trace(&req, e);
            assert_eq!(trace.hops.len(), 3);
            assert!(matches!(trace.end, TraceEnd::Delivered { backend } if backend.name == "c"));
        }
    }
}
