//! The JSON Schema of the `parentRefs[].controllers` extension (derived by schemars from
//! `ParentReference::controllers`) accepts exactly the lists gamma-model's typed validation
//! accepts. The CRD extension gamma-rs installs in the route CRDs (gamma-kube `crd_extension`,
//! `gammactl crd-extension controllers`) is generated from this schema, so the API server then
//! admits what `validate` admits (docs/ownership.md, "The `controllers` field on a real cluster").

use gamma_model::ResourceKind;
use gamma_model::schema::schema_for;
use gamma_model::{AnyResource, Validate};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The schema of `controllers`, as schemars derived it.
fn controllers_schema() -> Value {
    let schema = Value::from(schema_for(ResourceKind::HttpRoute));
    schema["$defs"]["ParentReference"]["properties"]["controllers"].clone()
}

/// Whether `list` satisfies the keywords of `schema` this extension uses (checked to be the
/// only ones by `the_schema_uses_only_keywords_a_structural_crd_schema_can_hold`).
fn schema_accepts(schema: &Value, list: &[String]) -> bool {
    if schema["maxItems"]
        .as_u64()
        .is_some_and(|max| list.len() as u64 > max)
    {
        return false;
    }
    if schema["uniqueItems"] == json!(true) {
        let mut seen = std::collections::HashSet::new();
        if !list.iter().all(|s| seen.insert(s)) {
            return false;
        }
    }
    let items = &schema["items"];
    let pattern = regex::Regex::new(items["pattern"].as_str().unwrap()).unwrap();
    list.iter().all(|s| {
        let chars = s.chars().count() as u64;
        items["minLength"].as_u64().is_none_or(|min| chars >= min)
            && items["maxLength"].as_u64().is_none_or(|max| chars <= max)
            && pattern.is_match(s)
    })
}

/// Whether the typed validation finds nothing wrong under `spec.parentRefs[0].controllers`.
fn validation_accepts(list: &[String]) -> bool {
    let route = json!({
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "r", "namespace": "n"},
        "spec": {"parentRefs": [{"group": "", "kind": "Service", "name": "s", "controllers": list}]},
    });
    let route = AnyResource::from_value(route).unwrap();
    match route.validate() {
        Ok(()) => true,
        Err(errors) => !errors.into_iter().any(|e| {
            e.path
                .as_str()
                .starts_with("spec.parentRefs[0].controllers")
        }),
    }
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn the_schema_uses_only_keywords_a_structural_crd_schema_can_hold() {
    let schema = controllers_schema();
    let keys: Vec<&str> = schema
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for key in &keys {
        assert!(
            ["description", "type", "items", "maxItems", "uniqueItems"].contains(key),
            "{key} in {schema}"
        );
    }
    let item_keys: Vec<&str> = schema["items"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for key in &item_keys {
        assert!(
            ["type", "minLength", "maxLength", "pattern"].contains(key),
            "{key} in {schema}"
        );
    }
}

#[test]
fn the_schema_and_the_typed_validation_agree_on_the_edges_of_every_limit() {
    let schema = controllers_schema();
    let many = |n: usize| -> Vec<String> { (0..n).map(|i| format!("example.net/c{i}")).collect() };
    let long = |n: usize| format!("example.net/{}", "x".repeat(n - "example.net/".len()));
    let cases: Vec<Vec<String>> = vec![
        Vec::new(),
        names(&["linkerd.io/policy-controller"]),
        names(&[
            "istio.io/gateway-controller",
            "linkerd.io/policy-controller",
        ]),
        many(16),
        many(17),
        names(&["a.io/x", "a.io/x"]),
        names(&[""]),
        vec![long(253)],
        vec![long(254)],
        names(&["example.net"]),
        names(&["example.net/"]),
        names(&["Example.net/x"]),
        names(&["example.net/a b"]),
        names(&["-example.net/x"]),
        names(&["example.net/path/with:colon;and=more"]),
    ];
    for list in cases {
        assert_eq!(
            schema_accepts(&schema, &list),
            validation_accepts(&list),
            "{list:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_schema_accepts_a_list_exactly_when_the_typed_validation_does(
        // valid names from a pool small enough to repeat, and anything near the pattern
        list in prop::collection::vec(
            prop_oneof!["[a-b]\\.io/[a-b]", "[a-z]{1,3}\\.[a-z]{1,3}/[a-z:%]{1,4}", "[a-zA-Z0-9./_ %:-]{0,14}"],
            0..19,
        ),
    ) {
        let schema = controllers_schema();
        prop_assert_eq!(schema_accepts(&schema, &list), validation_accepts(&list));
    }
}
