//! JSON Schemas of the stable JSON shapes: [`crate::RequestDoc`] (what tools send),
//! [`crate::Decision`] and [`crate::Explanation`] (what they get back), and
//! [`crate::status::ParentStatus`].

use schemars::{Schema, schema_for};

/// Schema of [`crate::RequestDoc`].
pub fn request() -> Schema {
    schema_for!(crate::RequestDoc)
}

/// Schema of [`crate::Decision`].
pub fn decision() -> Schema {
    schema_for!(crate::Decision<'static>)
}

/// Schema of [`crate::Explanation`].
pub fn explanation() -> Schema {
    schema_for!(crate::Explanation)
}

/// Schema of the list returned by [`crate::RouteTable::parent_conditions`].
pub fn parent_conditions() -> Schema {
    schema_for!(Vec<crate::status::ParentStatus>)
}

#[cfg(test)]
mod tests {
    // The schemas exist and name their top-level properties (a smoke test: the CLI publishes
    // them).
    #[test]
    fn schemas_describe_the_shapes() {
        let r = serde_json::to_value(super::request()).unwrap_or_default();
        assert!(r["properties"]["destination"].is_object(), "{r}");
        let d = serde_json::to_string(&super::decision()).unwrap_or_default();
        for word in ["forward", "redirect", "respond", "passthrough", "location"] {
            assert!(d.contains(word), "{word} missing in {d}");
        }
        let e = serde_json::to_value(super::explanation()).unwrap_or_default();
        assert!(e["properties"]["candidates"].is_object());
        let p = serde_json::to_string(&super::parent_conditions()).unwrap_or_default();
        assert!(p.contains("parentIndex"));
    }
}
