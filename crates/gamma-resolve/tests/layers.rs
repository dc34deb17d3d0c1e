//! gamma-resolve's modules import one way, bottom to top (docs/architecture.md, "gamma-resolve
//! source layers"). Each file or folder of `src/` has a layer below; a file may import (`use
//! crate::...`, inline `crate::`/`super::` paths, outside `#[cfg(test)]` and `tests.rs`) only
//! from its own layer and the layers below, and import circles stay inside one folder.
//!
//! The layers, bottom to top:
//!
//! 1. vocabulary: hostnames, paths, rewrites, redirects, weights, precedence, fractions,
//!    headers, the request, status types, BackendTLSPolicy types, listener filter types, the
//!    keyed hash;
//! 2. the table's input (`input`) and its answer (`decision`);
//! 3. `regex/`: size limits, single regexes, regex sets, the NFA bound, the regex pool;
//! 4. conditions (`cond`), indexes (`index/`), lowering (`lower/`), listener conflicts and
//!    ListenerSet merging, Gateway and ListenerSet status from the input;
//! 5. `table/`: the compiled table, its parts, bindings, workloads, frontends, status;
//! 6. `build/`: compiling input into a table;
//! 7. queries: `resolve` (the hot path), `explain`, `view/`, `trace`;
//! 8. `incremental/`: updates;
//! 9. the façade: `api.rs` (every public method of `RouteTable`), `lib.rs`, `schema`, and the
//!    reference matcher (feature `reference`).
//!
//! A new module goes into the table: the test fails for a file in no layer.
#![allow(clippy::panic)]

use gamma_testenv::layers::{Layers, check};

const LAYERS: Layers<'static> = Layers {
    names: &[
        "vocabulary",
        "input",
        "regex",
        "conditions, indexes, lowering, listeners",
        "table",
        "build",
        "queries",
        "incremental",
        "facade",
    ],
    table: &[
        // 1 vocabulary
        ("backend_tls.rs", 1),
        ("fraction.rs", 1),
        ("hash.rs", 1),
        ("headers.rs", 1),
        ("hostname.rs", 1),
        ("listener_filter.rs", 1),
        ("timing.rs", 1),
        ("path.rs", 1),
        ("precedence.rs", 1),
        ("redirect.rs", 1),
        ("request.rs", 1),
        ("rewrite.rs", 1),
        ("status.rs", 1),
        ("weights.rs", 1),
        // 2 input and answer
        ("decision.rs", 2),
        ("input.rs", 2),
        // 3 regexes
        ("regex/", 3),
        // 4 conditions, indexes, lowering, listeners and their status
        ("cond.rs", 4),
        ("gateway_status.rs", 4),
        ("index/", 4),
        ("listener.rs", 4),
        ("listener_set.rs", 4),
        ("listener_set_status.rs", 4),
        ("lower/", 4),
        ("status_model.rs", 4),
        // 5 the compiled table
        ("table/", 5),
        // 6 the build
        ("build/", 6),
        // 7 queries
        ("explain.rs", 7),
        ("resolve.rs", 7),
        ("trace.rs", 7),
        ("view/", 7),
        // 8 updates
        ("incremental/", 8),
        // 9 the façade
        ("api.rs", 9),
        ("lib.rs", 9),
        ("reference.rs", 9),
        ("reference/", 9),
        ("schema.rs", 9),
    ],
};

#[test]
fn imports_run_one_way_from_the_vocabulary_up_to_the_facade() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let problems = check(&src, "", &LAYERS);
    if !problems.is_empty() {
        panic!(
            "gamma-resolve's source layers do not hold ({} problems; the table is in \
             crates/gamma-resolve/tests/layers.rs):\n{}",
            problems.len(),
            problems.join("\n")
        );
    }
}
