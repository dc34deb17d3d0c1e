//! `field: null` (or an empty YAML value) on an optional field is absent, as the API server
//! prunes non-nullable nulls before validating (k8s.io/apiextensions-apiserver,
//! `pkg/apiserver/schema/defaulting/prunenulls.go`); `null` list items are not pruned and fail
//! at their index.

use gamma_model::{DecodeError, Validate, decode};

const HEAD: &str = "apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  namespace: shop
";

fn decode_one(body: &str) -> gamma_model::AnyResource {
    let mut docs = decode(&format!("{HEAD}{body}")).unwrap_or_else(|e| panic!("{e}\n{body}"));
    assert_eq!(docs.len(), 1);
    docs.remove(0)
}

#[test]
fn null_lists_maps_objects_and_scalars_decode_as_if_absent() {
    let with_nulls = decode_one(
        "  labels: null
  annotations:
spec:
  hostnames: null
  parentRefs:
  - {group: \"\", kind: Service, name: web, port: null, sectionName: ~}
  rules:
  - name: null
    matches:
    - path: {type: PathPrefix, value: /}
      headers: null
      method:
    filters: null
    timeouts: null
    backendRefs:
    - {name: web, port: 80, weight: null, namespace: null, filters: null}
",
    );
    let without = decode_one(
        "spec:
  parentRefs:
  - {group: \"\", kind: Service, name: web}
  rules:
  - matches:
    - path: {type: PathPrefix, value: /}
    backendRefs:
    - {name: web, port: 80}
",
    );
    assert_eq!(with_nulls, without);
    with_nulls.validate().unwrap();
}

#[test]
fn null_in_json_is_absent_too() {
    let docs = decode(
        r#"{"apiVersion":"gateway.networking.k8s.io/v1","kind":"GRPCRoute",
            "metadata":{"name":"g","namespace":"shop","labels":null},
            "spec":{"parentRefs":[{"group":"","kind":"Service","name":"s","port":null}],
                    "hostnames":null,"rules":[{"matches":null,"backendRefs":[{"name":"s","port":50051}]}]}}"#,
    )
    .unwrap();
    docs[0].validate().unwrap();
}

#[test]
fn a_null_list_item_is_not_pruned_and_fails_at_its_index() {
    let err = decode(&format!(
        "{HEAD}spec:\n  hostnames: [a.example, null]\n  parentRefs: [{{name: gw}}]\n"
    ))
    .unwrap_err();
    match err {
        DecodeError::Field { path, .. } => assert_eq!(path, "spec.hostnames[1]"),
        other => panic!("unexpected {other}"),
    }
}
