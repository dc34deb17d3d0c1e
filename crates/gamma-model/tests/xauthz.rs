//! XAuthorizationPolicy, the proposal model of GEP-3779 ("Identity Based Authz for East-West
//! Traffic", text of the Gateway API v1.7.0 release tree): the GEP's own YAML decodes and
//! validates, every rule it states is an error at its field path, and the GEP's defects are
//! fixed (empty vs omitted `sources`, SPIFFE IDs with a path, name vs selector per kind).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use gamma_model::validate::ErrorKind;
use gamma_model::xauthz::XAuthorizationPolicy;
use gamma_model::{AnyResource, Validate, decode};

fn policy(spec: &str) -> XAuthorizationPolicy {
    let text = format!(
        "apiVersion: gateway.networking.x-k8s.io/v1alpha1\nkind: XAuthorizationPolicy\n\
         metadata: {{name: p, namespace: shop}}\nspec:\n{spec}"
    );
    match decode(&text).unwrap().remove(0) {
        AnyResource::XAuthorizationPolicy(p) => p,
        other => panic!("{:?}", other.kind()),
    }
}

/// The field paths of `p`'s validation errors, sorted.
fn error_paths(p: &XAuthorizationPolicy) -> Vec<String> {
    let mut out: Vec<String> = p
        .validate()
        .err()
        .map(|e| e.errors().iter().map(|e| e.path.to_string()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

const VALID: &str = "  targetRefs: [{group: '', kind: Pod, selector: {matchLabels: {app: web}}}]
  action: ALLOW
  enforcementLevel: Network
  rules:
  - sources:
    - {type: ServiceAccount, serviceAccount: {name: client}}
    - {type: ServiceAccount, serviceAccount: {namespace: ops, name: '*'}}
    - {type: SPIFFE, spiffe: 'spiffe://other.example/ns/x/sa/y'}
    networkAttributes: {ports: [8080, 9090]}
";

#[test]
fn a_complete_policy_decodes_and_validates() {
    let p = policy(VALID);
    assert_eq!(error_paths(&p), Vec::<String>::new());
    let rules = p.spec.rules.as_ref().unwrap();
    assert_eq!(rules[0].sources.as_ref().unwrap().len(), 3);
    assert_eq!(
        rules[0].network_attributes.as_ref().unwrap().ports,
        [8080, 9090]
    );
}

// GEP-3779 "Targeting All Pods in a Namespace", Option 3 (Recommended), and its NotIn
// example excluding gateways (`matchExpression` in the GEP is a typo for `matchExpressions`).
#[test]
fn the_geps_namespace_wide_targets_validate() {
    for target in [
        "[{kind: Pod, selector: {}}]",
        "[{kind: Pod, selector: {matchExpressions: [{key: purpose, operator: NotIn, values: [gateway]}]}}]",
    ] {
        let p = policy(&format!(
            "  targetRefs: {target}\n  action: ALLOW\n  enforcementLevel: Network\n"
        ));
        assert_eq!(error_paths(&p), Vec::<String>::new(), "{target}");
    }
}

// "If specified as an empty list, matches no sources ("allow nothing"). If omitted, matches
// any source." The GEP's `omitempty` would lose the difference; the model keeps it both ways.
#[test]
fn empty_sources_stay_distinct_from_omitted_sources_through_a_round_trip() {
    let p = policy(
        "  targetRefs: [{kind: Pod, selector: {}}]\n  action: ALLOW\n  enforcementLevel: Network\n  \
         rules: [{sources: []}, {}]\n",
    );
    let rules = p.spec.rules.as_ref().unwrap();
    assert_eq!(rules[0].sources, Some(vec![]));
    assert_eq!(rules[1].sources, None);
    let json = serde_json::to_value(&p).unwrap();
    assert_eq!(json["spec"]["rules"][0]["sources"], serde_json::json!([]));
    assert!(json["spec"]["rules"][1].get("sources").is_none());
    let back: XAuthorizationPolicy = serde_json::from_value(json).unwrap();
    assert_eq!(back, p);
}

// "When Kind is Pod, Name MUST be Empty, Selector MUST be set, Max targetRef length is 1.
// Otherwise multiple refs as long as Kind isn't Pod, selector MUST NOT be set."
#[test]
fn target_refs_follow_the_geps_pod_and_selector_rules() {
    let cases: &[(&str, &[&str])] = &[
        (
            "[{kind: Pod, name: web, selector: {}}]",
            &["spec.targetRefs[0].name"],
        ),
        ("[{kind: Pod}]", &["spec.targetRefs[0].selector"]),
        (
            "[{group: core, kind: Pod}]",
            &["spec.targetRefs[0].selector"],
        ),
        (
            "[{kind: Pod, selector: {}}, {kind: Pod, selector: {}}]",
            &["spec.targetRefs"],
        ),
        (
            "[{kind: Pod, selector: {}}, {group: '', kind: Service, name: web}]",
            &["spec.targetRefs"],
        ),
        (
            "[{group: '', kind: Service, name: web, selector: {}}]",
            &["spec.targetRefs[0].selector"],
        ),
        ("[{group: '', kind: Service}]", &["spec.targetRefs[0].name"]),
        ("[]", &["spec.targetRefs"]),
        (
            "[{group: '', kind: Service, name: a}, {group: '', kind: Service, name: b}]",
            &[],
        ),
    ];
    for (targets, want) in cases {
        let p = policy(&format!(
            "  targetRefs: {targets}\n  action: ALLOW\n  enforcementLevel: Network\n"
        ));
        assert_eq!(error_paths(&p), *want, "{targets}");
    }
}

#[test]
fn action_and_enforcement_level_are_required_and_have_one_value_each() {
    let p = policy("  targetRefs: [{kind: Pod, selector: {}}]\n");
    assert_eq!(error_paths(&p), ["spec.action", "spec.enforcementLevel"]);
    let e = p.validate().unwrap_err();
    assert!(e.errors().iter().all(|e| e.kind == ErrorKind::Required));
    let p = policy(
        "  targetRefs: [{kind: Pod, selector: {}}]\n  action: DENY\n  enforcementLevel: Application\n",
    );
    assert_eq!(error_paths(&p), ["spec.action", "spec.enforcementLevel"]);
    assert!(
        p.validate()
            .unwrap_err()
            .errors()
            .iter()
            .all(|e| e.is_unsupported_value())
    );
}

#[test]
fn sources_are_checked_by_type_with_strict_spiffe_ids() {
    let cases: &[(&str, &[&str])] = &[
        // The GEP's CEL accepts `spiffe://td` although its message asks for a path.
        (
            "{type: SPIFFE, spiffe: 'spiffe://td'}",
            &["spec.rules[0].sources[0].spiffe"],
        ),
        (
            "{type: SPIFFE, spiffe: 'spiffe://td/'}",
            &["spec.rules[0].sources[0].spiffe"],
        ),
        (
            "{type: SPIFFE, spiffe: 'http://td/x'}",
            &["spec.rules[0].sources[0].spiffe"],
        ),
        ("{type: SPIFFE}", &["spec.rules[0].sources[0].spiffe"]),
        (
            "{type: SPIFFE, spiffe: 'spiffe://td/x', serviceAccount: {name: a}}",
            &["spec.rules[0].sources[0].serviceAccount"],
        ),
        (
            "{type: ServiceAccount}",
            &["spec.rules[0].sources[0].serviceAccount"],
        ),
        (
            "{type: ServiceAccount, serviceAccount: {name: a}, spiffe: 'spiffe://td/x'}",
            &["spec.rules[0].sources[0].spiffe"],
        ),
        (
            "{type: ServiceAccount, serviceAccount: {namespace: ''}}",
            &[
                "spec.rules[0].sources[0].serviceAccount.name",
                "spec.rules[0].sources[0].serviceAccount.namespace",
            ],
        ),
        (
            "{type: ServiceAccount, serviceAccount: {name: 'Bad_Name'}}",
            &["spec.rules[0].sources[0].serviceAccount.name"],
        ),
        (
            "{serviceAccount: {name: a}}",
            &["spec.rules[0].sources[0].type"],
        ),
        ("{type: Namespace}", &["spec.rules[0].sources[0].type"]),
        ("{type: ServiceAccount, serviceAccount: {name: '*'}}", &[]),
    ];
    for (source, want) in cases {
        let p = policy(&format!(
            "  targetRefs: [{{kind: Pod, selector: {{}}}}]\n  action: ALLOW\n  \
             enforcementLevel: Network\n  rules: [{{sources: [{source}]}}]\n"
        ));
        assert_eq!(error_paths(&p), *want, "{source}");
    }
}

// `Ports []gatewayv1.PortNumber`: 1 to 65535.
#[test]
fn ports_are_port_numbers() {
    let p = policy(
        "  targetRefs: [{kind: Pod, selector: {}}]\n  action: ALLOW\n  enforcementLevel: Network\n  \
         rules: [{networkAttributes: {ports: [0, 1, 65535, 65536]}}]\n",
    );
    assert_eq!(
        error_paths(&p),
        [
            "spec.rules[0].networkAttributes.ports[0]",
            "spec.rules[0].networkAttributes.ports[3]"
        ]
    );
}

#[test]
fn a_bad_label_selector_is_an_error_at_its_expression() {
    let p = policy(
        "  targetRefs: [{kind: Pod, selector: {matchExpressions: [{key: a, operator: Near}, \
         {key: b, operator: In}]}}]\n  action: ALLOW\n  enforcementLevel: Network\n",
    );
    assert_eq!(
        error_paths(&p),
        [
            "spec.targetRefs[0].selector.matchExpressions[0].operator",
            "spec.targetRefs[0].selector.matchExpressions[1].values"
        ]
    );
}

#[test]
fn the_json_schema_keeps_sources_optional_and_lists_the_enums() {
    let schema = gamma_model::ResourceKind::XAuthorizationPolicy.json_schema();
    let text = serde_json::to_string(&schema).unwrap();
    for needle in [
        "\"ALLOW\"",
        "\"Network\"",
        "\"SPIFFE\"",
        "\"ServiceAccount\"",
        "targetRefs",
    ] {
        assert!(text.contains(needle), "{needle} missing: {text}");
    }
}
