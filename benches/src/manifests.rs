//! Manifest inputs for the `model` bench: realistic mesh HTTPRoutes as YAML and JSON.

use std::fmt::Write;

/// `n` realistic mesh HTTPRoutes as multi-document YAML: each bound to a Service parent on a
/// port, with three rules (a path prefix with a header match, an exact path with a method and a
/// query match, and a catch-all), filters, and weighted backends. Deterministic.
pub fn http_routes_yaml(n: usize) -> String {
    let mut out = String::with_capacity(n * 1200);
    for i in 0..n {
        let ns = format!("team-{}", i % 20);
        let svc = format!("svc-{}", i % 100);
        // Writing to a String cannot fail.
        let _ = write!(
            out,
            r#"---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: route-{i}
  namespace: {ns}
  labels: {{app: {svc}, tier: backend}}
  creationTimestamp: "2026-01-05T10:00:00Z"
spec:
  parentRefs:
  - group: ""
    kind: Service
    name: {svc}
    port: 80
  hostnames: ["{svc}.{ns}.svc.cluster.local"]
  rules:
  - matches:
    - path: {{type: PathPrefix, value: /api/v{v}}}
      headers:
      - {{name: x-canary, value: "true"}}
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        set: [{{name: x-route, value: route-{i}}}]
    backendRefs:
    - {{name: {svc}-canary, port: 8080, weight: 10}}
  - matches:
    - path: {{type: Exact, value: /healthz}}
      method: GET
      queryParams:
      - {{name: verbose, value: "1"}}
    backendRefs:
    - {{name: {svc}-v1, port: 8080, weight: 90}}
    - {{name: {svc}-v2, port: 8080, weight: 10}}
    timeouts: {{request: 10s}}
  - backendRefs:
    - {{name: {svc}-v1, port: 8080}}
"#,
            v = i % 3 + 1,
        );
    }
    out
}

/// The same routes as a JSON array (what `kubectl get -o json` gives, minus the List wrapper).
pub fn http_routes_json(n: usize) -> String {
    let objects = gamma_model::decode(&http_routes_yaml(n)).unwrap_or_default();
    serde_json::to_string(&objects).unwrap_or_default()
}

/// A mesh cluster, decoded: `routes` HTTPRoutes, `per_service` on each Service (so
/// `routes / per_service` Services, `svc-{j}` in namespace `team-{j % 20}` at
/// [`crate::svc_ip`]`(j)`, port 80), each route as [`mesh_route_yaml`]. Decoded in pieces (a
/// document stream is limited to 16 MiB). Deterministic.
pub fn mesh_cluster(routes: usize, per_service: usize) -> Vec<gamma_model::AnyResource> {
    let per = per_service.max(1);
    let services = routes.div_ceil(per).max(1);
    let mut out = Vec::with_capacity(services + routes);
    let mut yaml = String::new();
    for j in 0..services {
        let _ = write!(
            yaml,
            "---\napiVersion: v1\nkind: Service\nmetadata: {{name: svc-{j}, namespace: team-{}}}\n\
             spec: {{clusterIP: {}, ports: [{{port: 80}}]}}\n",
            j % 20,
            crate::svc_ip(j)
        );
        if j % 2_000 == 1_999 {
            out.extend(gamma_model::decode(&std::mem::take(&mut yaml)).unwrap_or_default());
        }
    }
    for i in 0..routes {
        yaml.push_str(&mesh_route_yaml(i, per, services, 1));
        if i % 2_000 == 1_999 {
            out.extend(gamma_model::decode(&std::mem::take(&mut yaml)).unwrap_or_default());
        }
    }
    out.extend(gamma_model::decode(&yaml).unwrap_or_default());
    out
}

/// [`mesh_cluster`] with workloads: every Service has an EndpointSlice of three ready
/// endpoints ([`endpoint_slice_yaml`]), and every tenth Service (`svc-0`, `svc-10`, ...) is
/// headless, so that under `MeshBinding::Workloads` its routes bind at its endpoints (port
/// 80, the Service port, no `targetPort`).
pub fn workload_cluster(routes: usize, per_service: usize) -> Vec<gamma_model::AnyResource> {
    let services = routes.div_ceil(per_service.max(1)).max(1);
    let mut snapshot = gamma_model::Snapshot::from_resources(mesh_cluster(routes, per_service));
    let mut yaml = String::new();
    for j in 0..services {
        if j % 10 == 0 {
            let _ = write!(
                yaml,
                "---\napiVersion: v1\nkind: Service\nmetadata: {{name: svc-{j}, namespace: team-{}}}\n\
                 spec: {{clusterIP: None, ports: [{{port: 80}}]}}\n",
                j % 20
            );
        }
        yaml.push_str(&endpoint_slice_yaml(j, 0));
        if j % 2_000 == 1_999 {
            for r in gamma_model::decode(&std::mem::take(&mut yaml)).unwrap_or_default() {
                snapshot.upsert(r);
            }
        }
    }
    for r in gamma_model::decode(&yaml).unwrap_or_default() {
        snapshot.upsert(r);
    }
    snapshot.iter().map(|(_, r)| r.clone()).collect()
}

/// The EndpointSlice of Service `svc-{j}` in [`workload_cluster`]: three ready endpoints,
/// `10.{128+k}.{j / 256}.{j % 256}` for k = 0, 1 and 2 + `v` (the change the EndpointSlice
/// update benches apply moves the third endpoint).
pub fn endpoint_slice_yaml(j: usize, v: usize) -> String {
    let a = |k: usize| format!("10.{}.{}.{}", 128 + k, (j >> 8) & 255, j & 255);
    format!(
        "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\n\
         metadata: {{name: svc-{j}-abcde, namespace: team-{}, labels: {{kubernetes.io/service-name: svc-{j}}}}}\n\
         addressType: IPv4\nendpoints: [{{addresses: ['{}']}}, {{addresses: ['{}']}}, {{addresses: ['{}'], conditions: {{ready: true}}}}]\n\
         ports: [{{port: 80, protocol: TCP}}]\n",
        j % 20,
        a(0),
        a(1),
        a(2 + v)
    )
}

/// Route `i` of [`mesh_cluster`]: three rules (a path prefix with a header match, an exact
/// path with a method, a catch-all) whose backends are its own Service and the next one, with
/// `/r{i}/api/v{v}` as its first path (the change the incremental-update benches apply).
pub fn mesh_route_yaml(i: usize, per_service: usize, services: usize, v: usize) -> String {
    let j = i / per_service.max(1);
    let next = (j + 1) % services.max(1);
    format!(
        r#"---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: route-{i}
  namespace: team-{ns}
  creationTimestamp: "2026-01-05T10:00:00Z"
spec:
  parentRefs:
  - {{group: "", kind: Service, name: svc-{j}, port: 80}}
  rules:
  - matches:
    - path: {{type: PathPrefix, value: /r{i}/api/v{v}}}
      headers:
      - {{name: x-canary, value: "true"}}
    backendRefs:
    - {{name: svc-{j}, port: 80, weight: 10}}
    - {{name: svc-{next}, namespace: team-{nns}, port: 80, weight: 90}}
  - matches:
    - path: {{type: Exact, value: /r{i}/healthz}}
      method: GET
    backendRefs:
    - {{name: svc-{j}, port: 80}}
  - matches:
    - path: {{type: PathPrefix, value: /r{i}}}
    backendRefs:
    - {{name: svc-{j}, port: 80}}
"#,
        ns = j % 20,
        nns = next % 20,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamma_model::Validate;

    #[test]
    fn generated_routes_decode_valid_and_agree_across_formats() {
        let yaml = http_routes_yaml(1_000);
        let json = http_routes_json(1_000);
        eprintln!(
            "1,000 routes: YAML {} bytes, JSON {} bytes",
            yaml.len(),
            json.len()
        );
        let from_yaml = gamma_model::decode(&yaml).unwrap();
        assert_eq!(from_yaml.len(), 1_000);
        assert!(from_yaml.iter().all(|r| r.validate().is_ok()));
        assert_eq!(gamma_model::decode(&json).unwrap(), from_yaml);
    }
}
