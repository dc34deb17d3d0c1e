//! The files of `src/validate/` import one way, bottom to top (docs/architecture.md,
//! "gamma-model's validate/ layers"): a file may import (`use super::...`, `use crate::...`,
//! inline paths, outside `#[cfg(test)]`) only from its own layer and the layers below, and no
//! two files import each other. `mod.rs` is the folder's surface: it defines nothing the
//! other files use, and re-exports.
//!
//! The layers, bottom to top:
//!
//! 1. paths, releases and patterns: `FieldPath` and its text helpers, the release and channel
//!    (and what each release serves and adds), the bundle of each kind, the options, the CRD
//!    patterns;
//! 2. errors and the `Validate` trait;
//! 3. checks shared by resources: object metadata, common route rules, floats, status;
//! 4. the resources, one file each (a resource may use another's checks: GRPCRoute
//!    HTTPRoute's, core the core kinds');
//! 5. whole documents: the untyped field walk (`fields.rs`) and update rules;
//! 6. `mod.rs`.
//!
//! A new file goes into the table: the test fails for a file in no layer.
#![allow(clippy::panic)]

use gamma_testenv::layers::{Layers, check};

const LAYERS: Layers<'static> = Layers {
    names: &[
        "paths, releases, options, patterns",
        "errors",
        "shared checks",
        "resources",
        "documents and updates",
        "surface",
    ],
    table: &[
        ("validate/by_release.rs", 1),
        ("validate/defaults.rs", 1),
        ("validate/kinds.rs", 1),
        ("validate/options.rs", 1),
        ("validate/path.rs", 1),
        ("validate/patterns.rs", 1),
        ("validate/release.rs", 1),
        ("validate/served.rs", 1),
        ("validate/error.rs", 2),
        ("validate/traits.rs", 2),
        ("validate/common.rs", 3),
        ("validate/floats.rs", 3),
        ("validate/meta.rs", 3),
        ("validate/status.rs", 3),
        ("validate/configmap.rs", 4),
        ("validate/core.rs", 4),
        ("validate/endpointslice.rs", 4),
        ("validate/gateway.rs", 4),
        ("validate/gateway_tls.rs", 4),
        ("validate/grpcroute.rs", 4),
        ("validate/httproute.rs", 4),
        ("validate/l4route.rs", 4),
        ("validate/policy.rs", 4),
        ("validate/service.rs", 4),
        ("validate/xauthz.rs", 4),
        ("validate/xbackend.rs", 4),
        ("validate/xtelemetry.rs", 4),
        ("validate/fields.rs", 5),
        ("validate/update.rs", 5),
        ("validate/mod.rs", 6),
    ],
};

#[test]
fn validate_imports_run_one_way() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems = check(&src, "validate", &LAYERS);
    if !problems.is_empty() {
        panic!(
            "the layers of gamma-model's src/validate do not hold ({} problems; the table is in \
             crates/gamma-model/tests/validate_layers.rs):\n{}",
            problems.len(),
            problems.join("\n")
        );
    }
}
