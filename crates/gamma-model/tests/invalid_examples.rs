//! Upstream's own fixtures: every manifest under `hack/invalid-examples` is rejected with an
//! error at the field that makes it invalid, and every manifest under `examples` validates.
//!
//! Every supported release's fixtures (v1.5.1, v1.6.1, v1.7.0, obtained as
//! `gamma_testenv::upstream` describes), each judged under its own release: the examples with
//! the API server's strict field validation, the invalid examples by the pinned field. The tests
//! print a message and return when the trees cannot be had.

use std::path::{Path, PathBuf};

use gamma_model::validate::{Bundle, Channel, Release, ValidateOptions};
use gamma_model::{DecodeOptions, Validate, decode, decode_documents};
use gamma_testenv::harness::release_trees;

gamma_testenv::test_main! {
    every_upstream_invalid_example_is_rejected_at_the_pinned_field if release_trees,
    standard_invalid_examples_are_rejected_on_both_channels if release_trees,
    every_upstream_example_validates_under_its_release if release_trees,
    every_upstream_example_route_converts_to_ir if release_trees,
}

/// Every supported release and its tree (the tests' precondition `release_trees`).
fn releases() -> Vec<(Release, PathBuf)> {
    let trees = gamma_testenv::upstream::all_trees().expect("the test's precondition");
    trees
        .into_iter()
        .map(|(v, dir)| (Release::parse(v).unwrap(), dir))
        .collect()
}

fn options(release: Release, relative: &str) -> ValidateOptions {
    ValidateOptions::bundle(Bundle::new(release, channel_of(relative)))
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `file`'s path below `root`, with `/` separators (as `EXPECTED` names files).
fn relative_to(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

fn channel_of(relative: &str) -> Channel {
    if relative.starts_with("experimental/") {
        Channel::Experimental
    } else {
        Channel::Standard
    }
}

/// Each invalid example and the field path of (one of) the errors that must reject it. Paths
/// are where the API server reports the failing marker or CEL rule (CEL rules on a list or
/// object are reported at that list or object, as upstream does).
const EXPECTED: &[(&str, &str)] = &[
    // ExternalAuth `http.path` fails the path pattern.
    (
        "experimental/httproute/invalid-filter-externalauth-bad-http-path.yaml",
        "spec.rules[0].filters[0].externalAuth.http.path",
    ),
    // `type: ExternalAuth` without `externalAuth` (union discipline, Gateway API
    // HTTPRouteRule.filters).
    (
        "experimental/httproute/invalid-filter-externalauth-empty.yaml",
        "spec.rules[0].filters[0]",
    ),
    // `externalAuth: {}`: protocol is required.
    (
        "experimental/httproute/invalid-filter-externalauth-no-protocol.yaml",
        "spec.rules[0].filters[0].externalAuth.protocol",
    ),
    // CR/LF in a header value (experimental pattern, Gateway API HTTPHeaderFilter).
    (
        "experimental/httproute/invalid-header-value.yaml",
        "spec.rules[0].filters[0].responseHeaderModifier.add[0].value",
    ),
    // Two listeners named `same`.
    (
        "standard/gateway/duplicate-listeners.yaml",
        "spec.listeners",
    ),
    // Hostname on a TCP listener.
    ("standard/gateway/hostname-tcp.yaml", "spec.listeners"),
    // Hostname on a UDP listener.
    ("standard/gateway/hostname-udp.yaml", "spec.listeners"),
    // `type: Hostname` with `foo.com:80` (the IP values are rejected too, at their `value`).
    (
        "standard/gateway/invalid-addresses.yaml",
        "spec.addresses[9]",
    ),
    // `bad>` is not a SectionName.
    (
        "standard/gateway/invalid-listener-name.yaml",
        "spec.listeners[0].name",
    ),
    // Port 123456789 is out of range.
    (
        "standard/gateway/invalid-listener-port.yaml",
        "spec.listeners[0].port",
    ),
    // HTTPS with `tls.mode: Passthrough`.
    ("standard/gateway/invalid-tls-mode.yaml", "spec.listeners"),
    // TLS settings on a TCP listener.
    ("standard/gateway/tlsconfig-tcp.yaml", "spec.listeners"),
    // `example` is not DOMAIN/PATH.
    (
        "standard/gatewayclass/invalid-controller.yaml",
        "spec.controllerName",
    ),
    // Header match names are list-map keys: an exact repeat is a duplicate.
    (
        "standard/httproute/duplicate-header-match.yaml",
        "spec.rules[0].matches[0].headers[1]",
    ),
    (
        "standard/httproute/duplicate-query-match.yaml",
        "spec.rules[0].matches[0].queryParams[1]",
    ),
    // A Service backend (defaulted kind) without a port.
    (
        "standard/httproute/httproute-portless-backend.yaml",
        "spec.rules[0].backendRefs[0]",
    ),
    (
        "standard/httproute/httproute-portless-service.yaml",
        "spec.rules[0].backendRefs[0]",
    ),
    (
        "standard/httproute/invalid-backend-group.yaml",
        "spec.rules[0].backendRefs[0].group",
    ),
    (
        "standard/httproute/invalid-backend-kind.yaml",
        "spec.rules[0].backendRefs[0].kind",
    ),
    (
        "standard/httproute/invalid-backend-port.yaml",
        "spec.rules[0].backendRefs[0].port",
    ),
    // `remove` is a set: `foo` twice.
    (
        "standard/httproute/invalid-filter-duplicate-header.yaml",
        "spec.rules[0].filters[0].requestHeaderModifier.remove[1]",
    ),
    // Two RequestHeaderModifier filters.
    (
        "standard/httproute/invalid-filter-duplicate.yaml",
        "spec.rules[0].filters",
    ),
    // RequestHeaderModifier without its field.
    (
        "standard/httproute/invalid-filter-empty.yaml",
        "spec.rules[0].filters[0]",
    ),
    // RequestHeaderModifier carrying `requestRedirect`.
    (
        "standard/httproute/invalid-filter-wrong-field.yaml",
        "spec.rules[0].filters[0]",
    ),
    (
        "standard/httproute/invalid-header-name.yaml",
        "spec.rules[0].matches[0].headers[0].name",
    ),
    (
        "standard/httproute/invalid-hostname.yaml",
        "spec.hostnames[0]",
    ),
    // A wildcard is not a PreciseHostname.
    (
        "standard/httproute/invalid-httpredirect-hostname.yaml",
        "spec.rules[0].filters[0].requestRedirect.hostname",
    ),
    (
        "standard/httproute/invalid-method.yaml",
        "spec.rules[0].matches[0].method",
    ),
    (
        "standard/httproute/invalid-path-alphanum-specialchars-mix.yaml",
        "spec.rules[0].matches[0].path.value",
    ),
    (
        "standard/httproute/invalid-path-specialchars.yaml",
        "spec.rules[0].matches[0].path.value",
    ),
    (
        "standard/httproute/invalid-request-redirect-with-backendref.yaml",
        "spec.rules[0]",
    ),
    ("standard/referencegrant/missing-from.yaml", "spec.from"),
    (
        "standard/referencegrant/missing-ns.yaml",
        "spec.from[0].namespace",
    ),
    ("standard/referencegrant/missing-to.yaml", "spec.to"),
    (
        "standard/tlsroute/invalid-hostname.yaml",
        "spec.hostnames[0]",
    ),
    ("standard/tlsroute/no-hostname.yaml", "spec.hostnames"),
];

// Gateway API CRDs v1.6.1: every upstream invalid example is rejected at the field that is wrong.
fn every_upstream_invalid_example_is_rejected_at_the_pinned_field() {
    for (release, dir) in releases() {
        let root = dir.join("hack/invalid-examples");
        let files = yaml_files(&root);
        assert!(!files.is_empty(), "no invalid examples under {root:?}");
        let mut seen = Vec::new();
        for file in &files {
            let relative = relative_to(&root, file);
            let expected = EXPECTED
                .iter()
                .find(|(f, _)| *f == relative)
                .map(|(_, p)| *p)
                .unwrap_or_else(|| panic!("no expected path pinned for {relative}"));
            let text = std::fs::read_to_string(file).unwrap();
            let objects = decode(&text).unwrap_or_else(|e| panic!("{relative}: {e}"));
            assert_eq!(objects.len(), 1, "{relative}");
            let opts = options(release, &relative);
            let errors = objects[0]
                .validate_with(&opts)
                .expect_err(&format!("{release} {relative} must be rejected"));
            assert!(
                errors.has_error_at(expected),
                "{release} {relative}: expected an error at {expected}, got: {errors}"
            );
            seen.push(relative);
        }
        for (f, _) in EXPECTED {
            assert!(
                seen.iter().any(|s| s == f),
                "{release}: pinned file {f} not found"
            );
        }
    }
}

// Gateway API CRDs v1.6.1: the standard-channel invalid examples are rejected by the standard rules
// alone.
fn standard_invalid_examples_are_rejected_on_both_channels() {
    for (release, dir) in releases() {
        let root = dir.join("hack/invalid-examples/standard");
        for file in yaml_files(&root) {
            let text = std::fs::read_to_string(&file).unwrap();
            for object in decode(&text).unwrap() {
                for channel in [Channel::Standard, Channel::Experimental] {
                    let opts = ValidateOptions::bundle(Bundle::new(release, channel));
                    assert!(
                        object.validate_with(&opts).is_err(),
                        "{file:?} accepted by {release} {channel:?}"
                    );
                }
            }
        }
    }
}

// Every upstream example is valid under its own release, as the API server checks a create
// (strict field validation, then every rule): on the standard channel for `examples/standard`,
// on the experimental channel for `examples/experimental`.
fn every_upstream_example_validates_under_its_release() {
    for (release, dir) in releases() {
        let root = dir.join("examples");
        let files = yaml_files(&root);
        assert!(!files.is_empty(), "no examples under {root:?}");
        let mut count = 0;
        let mut failures = Vec::new();
        for file in &files {
            let relative = relative_to(&root, file);
            let text = std::fs::read_to_string(file).unwrap();
            let decoded = decode_documents(&text, &DecodeOptions::checking_fields())
                .unwrap_or_else(|e| panic!("{relative}: {e}"));
            let opts = options(release, &relative);
            for doc in &decoded.documents {
                let report = doc.validate_with(&opts);
                if !report.is_ok() {
                    failures.push(format!(
                        "{release} {relative}: {} {}: {:?}",
                        doc.resource.kind(),
                        doc.resource.metadata().name,
                        report.errors
                    ));
                }
                count += 1;
            }
        }
        assert!(count > 0);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

// The IR accepts every route of every upstream example whole (defaulting never fails on valid
// input, and no rule is dropped).
fn every_upstream_example_route_converts_to_ir() {
    use gamma_model::ir;
    for (release, dir) in releases() {
        let root = dir.join("examples");
        let mut routes = 0;
        for file in yaml_files(&root) {
            let relative = relative_to(&root, &file);
            let opts = options(release, &relative);
            let text = std::fs::read_to_string(&file).unwrap();
            for object in decode(&text).unwrap() {
                let Some(result) = ir::Route::from_resource(&object, &opts) else {
                    continue;
                };
                let partial = result.unwrap_or_else(|e| panic!("{relative}: {e}"));
                assert!(
                    partial.dropped.is_empty(),
                    "{relative}: {:?}",
                    partial.dropped
                );
                assert_eq!(partial.value.kind(), object.kind());
                assert_eq!(partial.value.metadata().name, object.metadata().name);
                routes += 1;
            }
        }
        assert!(routes > 40, "{release}: only {routes} routes converted");
    }
}
