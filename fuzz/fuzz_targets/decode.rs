//! `decode`: arbitrary bytes, as YAML and as JSON, through `gamma_model::decode`.
//!
//! Properties: never panics; errors are the typed `DecodeError` and render; whatever decodes
//! survives a JSON round trip (encode, decode again) unchanged (issue 2: "JSON round trip is
//! lossless"), which also drives the JSON half of the decoder with realistic documents.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match gamma_model::decode(&text) {
        Ok(resources) => {
            let json = serde_json::to_string(&resources).expect("resources encode as JSON");
            let again = gamma_model::decode(&json)
                .unwrap_or_else(|e| panic!("re-decoding our own JSON failed: {e}\n{json}"));
            assert_eq!(again, resources, "JSON round trip changed the objects");
        }
        Err(e) => {
            // The error must render (Display walks every field).
            let _ = e.to_string();
        }
    }
});
