//! `validate`: structurally generated resources through decoding and `validate()`.
//!
//! Properties: never panics; every object that decodes survives a JSON round trip unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (values, _) = gamma_fuzz::frame::resources(data);
    for value in values {
        let text = serde_json::to_string(&value).expect("a Value encodes");
        let Ok(resources) = gamma_model::decode(&text) else {
            continue;
        };
        for resource in resources {
            let json = serde_json::to_string(&resource).expect("a Resource encodes");
            let again = gamma_model::decode(&json)
                .unwrap_or_else(|e| panic!("re-decoding our own JSON failed: {e}\n{json}"));
            assert_eq!(again, vec![resource], "JSON round trip changed the object");
        }
    }
});
