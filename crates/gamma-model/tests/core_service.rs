//! Service as the API server validates a create (k8s.io/kubernetes
//! `pkg/apis/core/validation/validation.go`, `ValidateService`), for the fields routing reads:
//! `clusterIP`/`clusterIPs` syntax and consistency, `None` only for headless, ports (numbers,
//! names, protocols, target ports), the type enum.

use gamma_model::{AnyResource, Validate, decode};

fn service(spec: &str) -> AnyResource {
    decode(&format!(
        "apiVersion: v1\nkind: Service\nmetadata: {{name: web, namespace: shop}}\nspec: {spec}\n"
    ))
    .unwrap()
    .remove(0)
}

fn paths(spec: &str) -> Vec<String> {
    match service(spec).validate() {
        Ok(()) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.path.as_str().to_owned()).collect(),
    }
}

#[test]
fn cluster_ips_must_be_ip_addresses_and_agree() {
    let ok = [
        "{clusterIP: 10.0.0.1, ports: [{port: 80}]}",
        "{clusterIP: 10.0.0.1, clusterIPs: [10.0.0.1, 'fd00::1'], ports: [{port: 80}]}",
        "{clusterIP: None}",
        "{ports: [{port: 80}]}",
        "{type: ExternalName, externalName: db.example.com}",
        // `type: ""` and `protocol: ""` are defaulted (ClusterIP, TCP) before validation.
        "{type: '', ports: [{port: 80, protocol: ''}]}",
    ];
    for spec in ok {
        assert!(paths(spec).is_empty(), "{spec}: {:?}", paths(spec));
    }
    let bad = [
        (
            "{clusterIP: 10.0.0.300, ports: [{port: 80}]}",
            "spec.clusterIP",
        ),
        (
            "{clusterIPs: [10.0.0.1, 10.0.0.2], ports: [{port: 80}]}",
            "spec.clusterIPs[1]",
        ),
        (
            "{clusterIP: 10.0.0.1, clusterIPs: [10.0.0.2], ports: [{port: 80}]}",
            "spec.clusterIPs[0]",
        ),
        (
            "{clusterIPs: [None, 10.0.0.1], ports: [{port: 80}]}",
            "spec.clusterIPs[0]",
        ),
        (
            "{type: NodePort, clusterIP: None, ports: [{port: 80}]}",
            "spec.clusterIP",
        ),
        (
            "{type: ExternalName, clusterIP: 10.0.0.1, externalName: db.example.com}",
            "spec.clusterIP",
        ),
        ("{type: ExternalName}", "spec.externalName"),
        ("{type: Headless, ports: [{port: 80}]}", "spec.type"),
        // clusterIPs is defaulted from clusterIP, never the reverse.
        (
            "{clusterIPs: [10.0.0.1], ports: [{port: 80}]}",
            "spec.clusterIPs",
        ),
        (
            "{clusterIPs: [None], ports: [{port: 80}]}",
            "spec.clusterIPs",
        ),
    ];
    for (spec, at) in bad {
        assert!(
            paths(spec).iter().any(|p| p == at),
            "{spec}: {:?}",
            paths(spec)
        );
    }
}

#[test]
fn ports_have_ranges_names_and_protocols() {
    assert!(paths("{ports: [{name: http, port: 65535, targetPort: 8080}, {name: grpc, port: 1, targetPort: grpc-web, protocol: UDP}]}").is_empty());
    let bad = [
        ("{ports: []}", "spec.ports"),
        ("{ports: [{port: 0}]}", "spec.ports[0].port"),
        ("{ports: [{port: 65536}]}", "spec.ports[0].port"),
        (
            "{ports: [{port: 80, targetPort: 65536}]}",
            "spec.ports[0].targetPort",
        ),
        (
            "{ports: [{port: 80, targetPort: a-very-long-port-name}]}",
            "spec.ports[0].targetPort",
        ),
        (
            "{ports: [{port: 80, targetPort: '8080'}]}",
            "spec.ports[0].targetPort",
        ),
        (
            "{ports: [{port: 80}, {name: b, port: 81}]}",
            "spec.ports[0].name",
        ),
        ("{ports: [{name: Http, port: 80}]}", "spec.ports[0].name"),
        (
            "{ports: [{name: a, port: 80}, {name: a, port: 81}]}",
            "spec.ports[1].name",
        ),
        (
            "{ports: [{name: a, port: 80}, {name: b, port: 80}]}",
            "spec.ports[1]",
        ),
        (
            "{ports: [{port: 80, protocol: HTTP}]}",
            "spec.ports[0].protocol",
        ),
        (
            "{ports: [{port: 80, appProtocol: 'not valid'}]}",
            "spec.ports[0].appProtocol",
        ),
    ];
    for (spec, at) in bad {
        assert!(
            paths(spec).iter().any(|p| p == at),
            "{spec}: {:?}",
            paths(spec)
        );
    }
    // Same number, other protocol: a different port.
    assert!(paths("{ports: [{name: a, port: 53}, {name: b, port: 53, protocol: UDP}]}").is_empty());
}
