//! From generated JSON values to the typed objects the engines read.

use std::net::IpAddr;

use gamma_model::{AnyResource, Snapshot};
use serde_json::Value;

/// Decodes each value through the public `decode` entry point (as JSON); values that do not
/// decode are dropped, as a controller would drop an object it cannot read.
pub fn decode_all(values: &[Value]) -> Vec<AnyResource> {
    let mut out = Vec::new();
    for v in values {
        let Ok(text) = serde_json::to_string(v) else {
            continue;
        };
        if let Ok(mut rs) = gamma_model::decode(&text) {
            out.append(&mut rs);
        }
    }
    out
}

/// A snapshot of the decodable values, and the IP addresses their Gateways declare (worth sending
/// requests to).
pub fn snapshot(values: &[Value]) -> (Snapshot, Vec<IpAddr>) {
    let resources = decode_all(values);
    let mut addresses = Vec::new();
    for r in &resources {
        if let AnyResource::Gateway(g) = r {
            for a in &g.spec.addresses {
                if let Some(ip) = a.value.as_deref().and_then(|v| v.parse().ok()) {
                    addresses.push(ip);
                }
            }
        }
    }
    (Snapshot::from_resources(resources), addresses)
}
