//! The regex mix written as manifests (`regex_mix_yaml`, the input of the
//! `snapshot-regex-mix-<rules>` build measurements) is the same fixture as the lowered
//! `regex_mix_small_routes`: built from a snapshot it decides every request kind as the table built from
//! the lowered input does (Gateway API HTTPRoute matching precedence, one table either way).
#![allow(clippy::unwrap_used)]

use gamma_benches::regex_mix::{
    MixRequest, regex_mix_request, regex_mix_small_routes, regex_mix_yaml,
};
use gamma_benches::{Rng, svc_ip};
use gamma_model::Snapshot;
use gamma_resolve::{BuildOptions, Request, RouteTable};

#[test]
fn regex_mix_manifests_build_the_table_of_the_lowered_fixture() {
    let rules = 1_000;
    let snapshot = Snapshot::from_resources(gamma_model::decode(&regex_mix_yaml(rules)).unwrap());
    let from_snapshot = RouteTable::build(&snapshot, &BuildOptions::default());
    let from_input =
        RouteTable::from_input(&regex_mix_small_routes(rules), &BuildOptions::default());
    assert_eq!(from_snapshot.stats(), from_input.stats());
    assert!(from_snapshot.stats().regexes > 0);
    let mut rng = Rng::new(9);
    for kind in [
        MixRequest::PathHit,
        MixRequest::RegexHit,
        MixRequest::NotFound,
    ] {
        for _ in 0..300 {
            let (path, tenant) = regex_mix_request(&mut rng, rules, kind);
            let headers = [("x-tenant", tenant.as_str())];
            let req = Request::http(svc_ip(0), 80, "GET", &path).with_headers(&headers);
            let entropy = rng.next_u64();
            assert_eq!(
                format!("{:?}", from_snapshot.resolve(&req, entropy)),
                format!("{:?}", from_input.resolve(&req, entropy)),
                "{kind:?} {path}"
            );
        }
    }
}
