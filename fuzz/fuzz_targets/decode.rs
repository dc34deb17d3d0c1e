//! `decode`: arbitrary bytes, as YAML and as JSON, through `gamma_model::decode` and
//! `decode_documents` with tight limits, two inputs in three with field checks
//! (`check_fields`: unknown, missing and experimental-only fields).
//!
//! Properties: never panics; errors are the typed `DecodeError` and render; whatever decodes
//! survives a JSON round trip (encode, decode again) unchanged, which also drives the JSON half
//! of the decoder with realistic documents; limits only ever refuse: input that decodes under
//! tight limits (derived from the input's length, so seed files keep their meaning) decodes to
//! the same objects under the defaults.
#![no_main]

use gamma_model::{DecodeOptions, decode_documents};
use libfuzzer_sys::fuzz_target;

fn tight(len: usize) -> DecodeOptions {
    let mut o = DecodeOptions::default();
    o.max_depth = 2 + len % 16;
    o.max_nodes = 8 + (len * 7) % 400;
    o.max_documents = 1 + len % 5;
    o.max_alias_expansion = len % 64;
    o.max_input_bytes = 64 + (len * 13) % 8192;
    o.skip_unsupported = len % 2 == 0;
    o.check_fields = len % 3 != 0;
    o
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let default = gamma_model::decode(&text);
    match &default {
        Ok(resources) => {
            let json = serde_json::to_string(resources).expect("resources encode as JSON");
            let again = gamma_model::decode(&json)
                .unwrap_or_else(|e| panic!("re-decoding our own JSON failed: {e}\n{json}"));
            assert_eq!(&again, resources, "JSON round trip changed the objects");
        }
        Err(e) => {
            // The error must render (Display walks every field) and its accessors answer.
            let _ = e.to_string();
            let _ = (e.line(), e.document(), e.field_path(), e.limit());
        }
    }

    let options = tight(data.len());
    match decode_documents(&text, &options) {
        Ok(decoded) => {
            // The field checks' findings are paths into the document (never empty: the root
            // itself is never unknown, missing or experimental-only).
            for d in &decoded.documents {
                let f = &d.fields;
                assert!(options.check_fields || *f == Default::default());
                for p in f.unknown.iter().chain(&f.missing).chain(&f.experimental) {
                    assert!(!p.is_root(), "a field finding at the root: {f:?}");
                }
            }
            let mut loose = DecodeOptions::default();
            loose.skip_unsupported = options.skip_unsupported;
            loose.check_fields = options.check_fields;
            let again = decode_documents(&text, &loose)
                .expect("input within tight limits decodes under the default limits");
            assert_eq!(decoded, again, "limits changed what was decoded");
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
