//! `update`: `RouteTable::update` against `RouteTable::build` of the same snapshot.
//!
//! An input is a set of objects (generated, or a manifest decoded and mutated:
//! `frame::resources`) and a sequence of changes over them: upsert one of the objects, upsert a
//! mutated copy of one (the same key, other content: `frame::mutate`), or remove the key of one.
//! Names come from small shared pools, so keys collide and objects refer to each other. After
//! every change the table updated from the previous one must decide generated requests exactly
//! as a full build of the snapshot does, and report the same route parent conditions, Gateway,
//! ListenerSet and BackendTLSPolicy status; the previous table must still decide as before
//! (an update shares, never mutates, what readers hold). Build options, the hash seed, whether
//! lowered routes are kept (`keep_lowered_routes`) and whether the snapshot's Secrets are
//! complete come from the input.
#![no_main]

use gamma_fuzz::{cluster, frame, generate::Gen, request};
use gamma_model::{ObjectKey, Snapshot};
use gamma_resolve::{BuildOptions, MeshBinding, MeshHostnames, MeshReferenceGrants, RouteTable};
use libfuzzer_sys::fuzz_target;

/// The most changes one input applies (each is compared with a full build).
const MAX_CHANGES: usize = 8;
/// The most requests compared after each change.
const MAX_REQUESTS: usize = 8;

fuzz_target!(|data: &[u8]| {
    let (values, mut u) = frame::resources(data);
    let objects = cluster::decode_all(&values);
    if objects.is_empty() {
        return;
    }
    let addresses = cluster::snapshot(&values).1;
    let mut g = Gen::new(&mut u, 10_000);
    let mut options = BuildOptions::default().with_hash_seed(g.word());
    if g.chance(96) {
        options = options.with_mesh_hostnames(MeshHostnames::MatchHostHeader);
    }
    if g.chance(96) {
        options = options.with_mesh_reference_grants(MeshReferenceGrants::Enforce);
    }
    if g.chance(64) {
        options = options.with_mesh_binding(MeshBinding::Workloads);
    }
    options = options.with_keep_lowered_routes(g.chance(128));
    // a full build keeps no lowered routes: keeping them must change no result
    let scratch = options.clone().with_keep_lowered_routes(false);
    let mut snapshot = Snapshot::new().with_secrets_complete(g.chance(128));
    for o in &objects[..g.below(objects.len() + 1)] {
        snapshot.upsert(o.clone());
    }
    let mut table = RouteTable::build(&snapshot, &options);
    let changes = 1 + g.below(MAX_CHANGES);
    for step in 0..changes {
        let i = g.below(objects.len());
        let (key, previous) = match g.below(4) {
            0 => {
                let key = ObjectKey::of(&objects[i]);
                (key.clone(), snapshot.remove(&key))
            }
            1 => {
                // another version of object i: mutated, and kept only if it still decodes
                let Ok(value) = serde_json::to_value(&objects[i]) else {
                    continue;
                };
                let mut version = vec![value];
                frame::mutate(&mut g, &mut version);
                let Some(o) = cluster::decode_all(&version[..1]).into_iter().next() else {
                    continue;
                };
                (ObjectKey::of(&o), snapshot.upsert(o))
            }
            _ => (
                ObjectKey::of(&objects[i]),
                snapshot.upsert(objects[i].clone()),
            ),
        };
        let requests: Vec<_> = (0..1 + g.below(MAX_REQUESTS))
            .map(|_| request::request(&mut g, &addresses))
            .collect();
        let decide = |t: &RouteTable| -> Vec<String> {
            requests
                .iter()
                .map(|r| format!("{:?}", t.resolve(&r.as_request(), r.entropy)))
                .collect()
        };
        let before = decide(&table);
        let updated = table.update(&snapshot, &options, &key, previous.as_deref());
        let built = RouteTable::build(&snapshot, &scratch);
        for (n, (got, want)) in decide(&updated).iter().zip(decide(&built)).enumerate() {
            assert_eq!(
                *got,
                want,
                "change {step} ({key:?}): update and build disagree on {:?}",
                requests[n].as_request()
            );
        }
        assert_eq!(
            decide(&table),
            before,
            "change {step}: the previous table changed"
        );
        assert_eq!(
            updated.parent_conditions(),
            built.parent_conditions(),
            "change {step} ({key:?}): parent conditions differ"
        );
        assert_eq!(
            updated.gateway_status(),
            built.gateway_status(),
            "change {step} ({key:?}): Gateway status differs"
        );
        assert_eq!(
            updated.listener_set_status(),
            built.listener_set_status(),
            "change {step} ({key:?}): ListenerSet status differs"
        );
        assert_eq!(
            updated.backend_tls_policy_status(),
            built.backend_tls_policy_status(),
            "change {step} ({key:?}): BackendTLSPolicy status differs"
        );
        table = updated;
    }
});
