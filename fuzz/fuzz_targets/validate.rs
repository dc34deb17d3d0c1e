//! `validate`: structurally generated resources through decoding and `validate()`.
//!
//! Properties: never panics; every object that decodes survives a JSON round trip unchanged
//! in particular every object that validates; errors render; an object valid under the
//! experimental channel's rules is valid under the standard channel's (the experimental channel
//! is the standard one plus stricter rules); for routes, the engines' IR conversion agrees with
//! validation (a route that validates converts whole; a partial conversion drops rules exactly
//! when the route is invalid).
#![no_main]

use gamma_model::validate::{Channel, ValidateOptions};
use gamma_model::{AnyResource, Validate, ir};
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
        for (opts, valid) in [
            (
                ValidateOptions::channel(Channel::Standard),
                standard.is_ok(),
            ),
            (
                ValidateOptions::channel(Channel::Experimental),
                experimental.is_ok(),
            ),
        ] {
            check_ir(&resource, &opts, valid);
        }
        let json = serde_json::to_string(&resource).expect("a AnyResource encodes");
        let again = gamma_model::decode(&json)
            .unwrap_or_else(|e| panic!("re-decoding our own JSON failed: {e}\n{json}"));
        assert_eq!(again, vec![resource], "JSON round trip changed the object");
    }
});

/// The IR conversion agrees with validation (the property of gamma-model's tests/totality.rs,
/// under the fuzzer's inputs).
fn check_ir(resource: &AnyResource, opts: &ValidateOptions, valid: bool) {
    macro_rules! agree {
        ($wire:expr, $ir:ty) => {{
            let whole = <$ir>::from_wire_with($wire, opts);
            assert_eq!(
                whole.is_ok(),
                valid,
                "from_wire_with disagrees with validate()"
            );
            if let Ok(p) = <$ir>::from_wire_partial($wire, opts) {
                assert_eq!(p.dropped.is_empty(), valid, "partial conversion disagrees");
            }
        }};
    }
    match resource {
        AnyResource::HttpRoute(r) => agree!(r, ir::HttpRoute),
        AnyResource::GrpcRoute(r) => agree!(r, ir::GrpcRoute),
        AnyResource::TlsRoute(r) => agree!(r, ir::TlsRoute),
        AnyResource::TcpRoute(r) => agree!(r, ir::TcpRoute),
        AnyResource::UdpRoute(r) => agree!(r, ir::UdpRoute),
        _ => {}
    }
}
