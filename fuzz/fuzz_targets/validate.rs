//! `validate`: structurally generated resources through decoding and `validate()`.
//!
//! Properties: never panics; every object that decodes survives a JSON round trip unchanged
//! (issue 2), in particular every object that validates; errors render; an object valid under the
//! experimental channel's rules is valid under the standard channel's (the experimental channel
//! is the standard one plus stricter rules).
#![no_main]

use gamma_model::Validate;
use gamma_model::validate::{Channel, ValidateOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (values, _) = gamma_fuzz::frame::resources(data);
    for resource in gamma_fuzz::cluster::decode_all(&values) {
        let standard = resource.validate_with(&ValidateOptions::channel(Channel::Standard));
        let experimental = resource.validate_with(&ValidateOptions::channel(Channel::Experimental));
        if let Err(e) = &standard {
            assert!(!e.is_empty(), "an Err holds at least one error");
            let _ = e.to_string();
        }
        if let Err(e) = &experimental {
            let _ = e.to_string();
        }
        if experimental.is_ok() {
            assert!(
                standard.is_ok(),
                "valid under experimental rules but not standard: {:?}",
                standard
            );
        }
        let json = serde_json::to_string(&resource).expect("a Resource encodes");
        let again = gamma_model::decode(&json)
            .unwrap_or_else(|e| panic!("re-decoding our own JSON failed: {e}\n{json}"));
        assert_eq!(again, vec![resource], "JSON round trip changed the object");
    }
});
