//! Object metadata as the API server validates it for every object (k8s.io/apimachinery
//! `pkg/api/validation/objectmeta.go`: `ValidateObjectMeta`, `ValidateLabels`,
//! `ValidateAnnotations`): names, `generateName`, label keys and values, annotation keys and
//! their total size (256 KiB). Each limit at the limit and one past it.

use gamma_model::validate::ErrorKind;
use gamma_model::{AnyResource, Validate, decode};
use serde_json::{Value, json};

fn route(metadata: Value) -> AnyResource {
    let doc = json!({
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
        "metadata": metadata,
        "spec": {"parentRefs": [{"name": "gw"}]}
    });
    decode(&doc.to_string()).unwrap().remove(0)
}

/// The (path, kind) of every error, or nothing when valid.
fn errors(r: &AnyResource) -> Vec<(String, ErrorKind)> {
    match r.validate() {
        Ok(()) => Vec::new(),
        Err(e) => e
            .into_iter()
            .map(|e| (e.path.as_str().to_owned(), e.kind))
            .collect(),
    }
}

fn paths(r: &AnyResource) -> Vec<String> {
    errors(r).into_iter().map(|(p, _)| p).collect()
}

/// A DNS-1123 subdomain of exactly `n` characters (labels of at most 63).
fn subdomain(n: usize) -> String {
    let mut s = String::new();
    while s.len() < n {
        if !s.is_empty() && (s.len() + 1).is_multiple_of(64) {
            s.push('.');
        } else {
            s.push('a');
        }
    }
    s
}

#[test]
fn names_are_dns_subdomains_of_at_most_253_characters() {
    assert!(paths(&route(json!({"name": subdomain(253)}))).is_empty());
    assert_eq!(
        errors(&route(json!({"name": subdomain(254)}))),
        [("metadata.name".into(), ErrorKind::TooLong { max: 253 })]
    );
    for bad in ["Web", "web_1", "-web", "web.", "a..b"] {
        assert_eq!(
            paths(&route(json!({"name": bad}))),
            ["metadata.name"],
            "{bad}"
        );
    }
}

#[test]
fn generate_name_stands_in_for_a_missing_name() {
    assert!(paths(&route(json!({"generateName": "web-"}))).is_empty());
    assert_eq!(
        errors(&route(json!({}))),
        [("metadata.name".into(), ErrorKind::Required)]
    );
    assert_eq!(
        paths(&route(json!({"generateName": "Web-"}))),
        ["metadata.generateName"]
    );
}

#[test]
fn namespaces_are_dns_labels() {
    assert!(paths(&route(json!({"name": "r", "namespace": "a".repeat(63)}))).is_empty());
    assert_eq!(
        paths(&route(json!({"name": "r", "namespace": "a".repeat(64)}))),
        ["metadata.namespace"]
    );
    assert_eq!(
        paths(&route(json!({"name": "r", "namespace": "a.b"}))),
        ["metadata.namespace"]
    );
}

#[test]
fn label_keys_are_qualified_names_and_values_at_most_63_characters() {
    let ok = json!({"name": "r", "labels": {
        "app": "a".repeat(63),
        format!("{}/{}", subdomain(253), "n".repeat(63)): "",
        "example.com/x": "a-b_c.d",
    }});
    assert!(paths(&route(ok)).is_empty());
    for key in [
        "-app".to_owned(),
        "n".repeat(64),
        format!("{}/n", subdomain(254)),
        "Example.com/x".to_owned(),
        "a/b/c".to_owned(),
        "/x".to_owned(),
    ] {
        let r = route(json!({"name": "r", "labels": {key.clone(): "v"}}));
        assert_eq!(paths(&r), ["metadata.labels"], "{key}");
    }
    let r = route(json!({"name": "r", "labels": {"app": "a".repeat(64)}}));
    assert_eq!(
        errors(&r),
        [(
            "metadata.labels[app]".into(),
            ErrorKind::TooLong { max: 63 }
        )]
    );
    let r = route(json!({"name": "r", "labels": {"app": "a b"}}));
    assert_eq!(paths(&r), ["metadata.labels[app]"]);
}

#[test]
fn annotation_keys_are_qualified_names_compared_lower_case_and_total_at_most_256_kib() {
    assert!(
        paths(&route(
            json!({"name": "r", "annotations": {"Gamma.RS/Owner": "x y"}})
        ))
        .is_empty()
    );
    assert_eq!(
        paths(&route(
            json!({"name": "r", "annotations": {"bad key": "x"}})
        )),
        ["metadata.annotations"]
    );
    let limit = 256 * 1024;
    let at = route(json!({"name": "r", "annotations": {"k": "v".repeat(limit - 1)}}));
    assert!(paths(&at).is_empty());
    let past = route(json!({"name": "r", "annotations": {"k": "v".repeat(limit)}}));
    assert_eq!(
        errors(&past),
        [(
            "metadata.annotations".into(),
            ErrorKind::TooLong { max: limit }
        )]
    );
}

#[test]
fn core_kinds_name_objects_by_their_own_rules() {
    let service = |name: &str| {
        decode(&format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: \"{name}\", namespace: shop}}\nspec: {{ports: [{{port: 80}}]}}\n"
        ))
        .unwrap()
        .remove(0)
    };
    assert!(paths(&service("web-1")).is_empty());
    // A DNS-1123 label (Kubernetes v1.37, KEP-5311 relaxed Service names): a digit may lead.
    assert!(paths(&service("1web")).is_empty());
    assert_eq!(paths(&service("Web")), ["metadata.name"]);
    assert_eq!(paths(&service("web.shop")), ["metadata.name"]);
    let namespace = |name: &str| {
        decode(&format!(
            "apiVersion: v1\nkind: Namespace\nmetadata: {{name: \"{name}\"}}\n"
        ))
        .unwrap()
        .remove(0)
    };
    assert!(paths(&namespace("1shop")).is_empty());
    assert_eq!(paths(&namespace("a.b")), ["metadata.name"]);
}

#[test]
fn a_cluster_scoped_object_may_carry_a_namespace_the_api_server_clears() {
    let class = decode(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\n\
         metadata: {name: c, namespace: Not_A_Label}\nspec: {controllerName: example.com/c}\n",
    )
    .unwrap()
    .remove(0);
    assert!(paths(&class).is_empty());
}
