use std::net::IpAddr;
use std::sync::Arc;

use gamma_model::{AnyResource, ObjectKey, ResourceKind, Snapshot};

use crate::input::RouteIr;
use crate::table::{BuildOptions, RouteTable};

const SNAPSHOT: &str = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: app}\n\
    spec: {clusterIP: 10.96.0.1, ports: [{port: 80}]}\n";

/// Upserts HTTPRoute `app/name` on Service `web` matching `path`; the object it replaced.
fn upsert(snapshot: &mut Snapshot, name: &str, path: &str) -> Option<Arc<AnyResource>> {
    let yaml = format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
         metadata: {{name: {name}, namespace: app}}\n\
         spec: {{parentRefs: [{{kind: Service, group: \"\", name: web}}], \
         rules: [{{matches: [{{path: {{type: PathPrefix, value: {path}}}}}], \
         backendRefs: [{{name: web, port: 80}}]}}]}}\n"
    );
    let mut previous = None;
    for r in gamma_model::decode(&yaml).unwrap_or_default() {
        previous = snapshot.upsert(r);
    }
    previous
}

/// The kept lowered form of route `name` in the newest part keeping it.
fn kept(t: &RouteTable, name: &str) -> Option<Arc<RouteIr>> {
    let key = ObjectKey::new(ResourceKind::HttpRoute, "app", name);
    t.parts
        .iter()
        .rev()
        .find_map(|p| p.lowered.entry(&key))
        .map(|(_, ir, _)| Arc::clone(ir))
}

/// Whether `a` and `b` keep route `name` as the same lowered form (not lowered again).
fn same_kept(a: &RouteTable, b: &RouteTable, name: &str) -> bool {
    kept(a, name)
        .zip(kept(b, name))
        .is_some_and(|(x, y)| Arc::ptr_eq(&x, &y))
}

/// Whether `t` decides requests to `web` for `paths` as a table built from scratch, and
/// reports the same parent conditions.
fn agrees_with_scratch(t: &RouteTable, snapshot: &Snapshot, options: &BuildOptions) -> bool {
    let scratch = RouteTable::build(snapshot, options);
    let ip = IpAddr::from([10, 96, 0, 1]);
    let decisions = |t: &RouteTable| -> Vec<String> {
        ["/a", "/a2", "/a3", "/b", "/c", "/x"]
            .iter()
            .map(|p| {
                let req = crate::Request::http(ip, 80, "GET", p);
                format!("{:?}", t.resolve(&req, 1))
            })
            .collect()
    };
    decisions(t) == decisions(&scratch) && t.parent_conditions() == scratch.parent_conditions()
}

fn snapshot_with(routes: &[(&str, &str)]) -> Snapshot {
    let mut snapshot = Snapshot::from_resources(gamma_model::decode(SNAPSHOT).unwrap_or_default());
    for (name, path) in routes {
        upsert(&mut snapshot, name, path);
    }
    snapshot
}

// With the option on, a full build keeps every route lowered, and an update lowers only
// the route that changed: whichever route of a Service changes first (cold), its other
// routes are the full build's, and a later change of another route takes the changed one
// from the update that lowered it.
#[test]
fn with_kept_routes_an_update_lowers_only_the_changed_route() {
    let mut snapshot = snapshot_with(&[("a", "/a"), ("b", "/b"), ("c", "/c")]);
    let options = BuildOptions::default().with_keep_lowered_routes(true);
    let full = RouteTable::build(&snapshot, &options);
    assert_eq!(full.parts[0].lowered.len(), 3, "every route kept");
    let key_a = ObjectKey::new(ResourceKind::HttpRoute, "app", "a");
    let previous = upsert(&mut snapshot, "a", "/a2");
    let first = full.update(&snapshot, &options, &key_a, previous.as_deref());
    assert!(same_kept(&first, &full, "b") && same_kept(&first, &full, "c"));
    assert!(
        !same_kept(&first, &full, "a"),
        "the changed route was lowered again"
    );
    assert!(agrees_with_scratch(&first, &snapshot, &options));
    let key_b = ObjectKey::new(ResourceKind::HttpRoute, "app", "b");
    let previous = upsert(&mut snapshot, "b", "/b2");
    let second = first.update(&snapshot, &options, &key_b, previous.as_deref());
    assert!(same_kept(&second, &first, "a") && same_kept(&second, &full, "c"));
    assert!(!same_kept(&second, &first, "b"));
    assert!(agrees_with_scratch(&second, &snapshot, &options));
    // without the option the full build keeps none, and the first update lowers all three
    let default = BuildOptions::default();
    let full = RouteTable::build(&snapshot, &default);
    assert_eq!(full.parts[0].lowered.len(), 0);
    let previous = upsert(&mut snapshot, "a", "/a3");
    let next = full.update(&snapshot, &default, &key_a, previous.as_deref());
    assert_eq!(next.parts.last().map(|p| p.lowered.len()), Some(3));
    assert!(agrees_with_scratch(&next, &snapshot, &default));
}

// Past a handful, a part's kept routes are a hash table by identity (a few are a list):
// the same routes are found and reused, the changed one is not.
#[test]
fn many_kept_routes_are_found_as_a_few_are() {
    let names: Vec<(String, String)> = (0..40)
        .map(|i| (format!("r{i}"), format!("/p{i}")))
        .collect();
    let routes: Vec<(&str, &str)> = names
        .iter()
        .map(|(n, p)| (n.as_str(), p.as_str()))
        .collect();
    let mut snapshot = snapshot_with(&routes);
    let options = BuildOptions::default().with_keep_lowered_routes(true);
    let full = RouteTable::build(&snapshot, &options);
    assert_eq!(full.parts[0].lowered.len(), 40);
    let key = ObjectKey::new(ResourceKind::HttpRoute, "app", "r7");
    let previous = upsert(&mut snapshot, "r7", "/a");
    let next = full.update(&snapshot, &options, &key, previous.as_deref());
    assert!(
        !same_kept(&next, &full, "r7"),
        "the changed route was lowered again"
    );
    assert!(
        (0..40)
            .filter(|i| *i != 7)
            .all(|i| same_kept(&next, &full, &format!("r{i}")))
    );
    assert_eq!(next.parts.last().map(|p| p.lowered.len()), Some(40));
    assert!(agrees_with_scratch(&next, &snapshot, &options));
    // and the update's own part (a table too) serves the next one
    let key = ObjectKey::new(ResourceKind::HttpRoute, "app", "r8");
    let previous = upsert(&mut snapshot, "r8", "/a2");
    let last = next.update(&snapshot, &options, &key, previous.as_deref());
    assert!(same_kept(&last, &next, "r7") && !same_kept(&last, &next, "r8"));
    assert!(agrees_with_scratch(&last, &snapshot, &options));
}

// A kept route lowered from an object the snapshot no longer holds is never used: the
// full build's part still keeps route a as it was after an update replaced it, and
// neither a later update nor a build reusing the table reads it (they decide `/a3` and
// `/a` as a build from scratch does).
#[test]
fn a_stale_kept_route_is_never_used() {
    let mut snapshot = snapshot_with(&[("a", "/a"), ("b", "/b")]);
    let options = BuildOptions::default().with_keep_lowered_routes(true);
    let full = RouteTable::build(&snapshot, &options);
    let stale = kept(&full, "a");
    let key_a = ObjectKey::new(ResourceKind::HttpRoute, "app", "a");
    let previous = upsert(&mut snapshot, "a", "/a3");
    let first = full.update(&snapshot, &options, &key_a, previous.as_deref());
    // the full build's part is shared, and still holds the old lowering of a
    assert!(Arc::ptr_eq(&first.parts[0], &full.parts[0]));
    let old = first.parts[0].lowered.entry(&key_a).map(|(_, ir, _)| ir);
    assert!(
        old.zip(stale.as_ref())
            .is_some_and(|(x, y)| Arc::ptr_eq(x, y))
    );
    let key_b = ObjectKey::new(ResourceKind::HttpRoute, "app", "b");
    let previous = upsert(&mut snapshot, "b", "/b2");
    let second = first.update(&snapshot, &options, &key_b, previous.as_deref());
    assert!(
        same_kept(&second, &first, "a"),
        "a from the update that lowered it"
    );
    assert!(
        !kept(&second, "a")
            .zip(stale.as_ref())
            .is_some_and(|(x, y)| Arc::ptr_eq(&x, y))
    );
    assert!(agrees_with_scratch(&second, &snapshot, &options));
    // a whole build reusing the oldest table: a is stale there, b too
    let rebuilt = RouteTable::build_reusing(&snapshot, &options, &full);
    assert!(!same_kept(&rebuilt, &full, "a") && !same_kept(&rebuilt, &full, "b"));
    assert!(agrees_with_scratch(&rebuilt, &snapshot, &options));
}

// A whole build reusing a table that keeps its routes takes those of unchanged objects
// (the same lowered form) and lowers the others; routes kept under another validation
// channel are never taken.
#[test]
fn a_build_reusing_a_table_takes_its_kept_routes_of_unchanged_objects() {
    let mut snapshot = snapshot_with(&[("a", "/a"), ("b", "/b"), ("c", "/c")]);
    let options = BuildOptions::default().with_keep_lowered_routes(true);
    let full = RouteTable::build(&snapshot, &options);
    upsert(&mut snapshot, "b", "/b2");
    let rebuilt = RouteTable::build_reusing(&snapshot, &options, &full);
    assert_eq!(rebuilt.parts.len(), 1);
    assert!(same_kept(&rebuilt, &full, "a") && same_kept(&rebuilt, &full, "c"));
    assert!(!same_kept(&rebuilt, &full, "b"));
    assert!(agrees_with_scratch(&rebuilt, &snapshot, &options));
    let other = options
        .clone()
        .with_channel(gamma_model::validate::Channel::Experimental);
    let elsewhere = RouteTable::build_reusing(&snapshot, &other, &rebuilt);
    assert!(!same_kept(&elsewhere, &rebuilt, "a"));
    assert!(agrees_with_scratch(&elsewhere, &snapshot, &other));
}

// The kept lowered routes are part of the immutable table: two updates from one table
// both reuse them (the same `Arc`, not lowered again), and the table needs no lock to be
// shared between threads.
#[test]
fn every_update_from_one_table_reuses_its_lowered_routes() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<RouteTable>();
    let mut snapshot = Snapshot::from_resources(gamma_model::decode(SNAPSHOT).unwrap_or_default());
    upsert(&mut snapshot, "a", "/a");
    upsert(&mut snapshot, "b", "/b");
    let options = BuildOptions::default();
    let full = RouteTable::build(&snapshot, &options);
    assert_eq!(full.parts[0].lowered.len(), 0, "a full build keeps none");
    let key = ObjectKey::new(ResourceKind::HttpRoute, "app", "a");
    let previous = upsert(&mut snapshot, "a", "/a2");
    let first = full.update(&snapshot, &options, &key, previous.as_deref());
    assert_eq!(
        first.parts.last().map(|p| p.lowered.len()),
        Some(2),
        "the scope: both routes of web"
    );
    let previous = upsert(&mut snapshot, "a", "/a3");
    let one = first.update(&snapshot, &options, &key, previous.as_deref());
    let two = first.update(&snapshot, &options, &key, previous.as_deref());
    let kept_b = kept(&first, "b");
    assert!(kept_b.is_some());
    for t in [&one, &two] {
        let b = kept(t, "b");
        assert!(
            b.as_ref()
                .zip(kept_b.as_ref())
                .is_some_and(|(x, y)| Arc::ptr_eq(x, y)),
            "route b was reused, not lowered again"
        );
        // the changed route was lowered again
        assert!(
            !kept(t, "a")
                .zip(kept(&first, "a"))
                .is_some_and(|(x, y)| Arc::ptr_eq(&x, &y))
        );
    }
    let scratch = RouteTable::build(&snapshot, &options);
    for t in [&one, &two] {
        assert_eq!(t.parent_conditions(), scratch.parent_conditions());
    }
}

/// Upserts HTTPRoute `app/a` on Service `web` matching `/a`, with `extra` in its metadata and
/// `status` after its spec; the object it replaced.
fn upsert_restated(snapshot: &mut Snapshot, extra: &str, status: &str) -> Option<Arc<AnyResource>> {
    let yaml = format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n\
         metadata: {{name: a, namespace: app{extra}}}\n\
         spec: {{parentRefs: [{{kind: Service, group: \"\", name: web}}], \
         rules: [{{matches: [{{path: {{type: PathPrefix, value: /a}}}}], \
         backendRefs: [{{name: web, port: 80}}]}}]}}\n{status}"
    );
    let mut previous = None;
    for r in gamma_model::decode(&yaml).unwrap_or_default() {
        previous = snapshot.upsert(r);
    }
    previous
}

/// `status.parents` of `n` valid entries.
fn status_parents(n: usize) -> String {
    let entry = "  - parentRef: {name: web}\n    controllerName: example.com/mesh\n    \
        conditions: [{type: Accepted, status: \"True\", reason: Accepted, message: ok, \
        lastTransitionTime: \"2024-01-01T00:00:00Z\", observedGeneration: 1}]\n";
    format!("status:\n  parents:\n{}", entry.repeat(n))
}

/// Routes `a` (on `/a`, as [`upsert_restated`] makes it) and `b` (on `b_path`) on Service
/// `web`, and the table built of them with `keep_lowered_routes` set to `keep`.
fn route_a_beside_b(keep: bool, b_path: &str) -> (BuildOptions, Snapshot, ObjectKey, RouteTable) {
    let options = BuildOptions::default().with_keep_lowered_routes(keep);
    let mut snapshot = snapshot_with(&[("b", b_path)]);
    upsert_restated(&mut snapshot, "", "");
    let key = ObjectKey::new(ResourceKind::HttpRoute, "app", "a");
    let table = RouteTable::build(&snapshot, &options);
    (options, snapshot, key, table)
}

/// Whether `b` is `a` shared: the same parts, none added.
fn shares_every_part(a: &RouteTable, b: &RouteTable) -> bool {
    a.parts.len() == b.parts.len() && a.parts.iter().zip(&b.parts).all(|(x, y)| Arc::ptr_eq(x, y))
}

// Status writes (any controller's), labels and annotations are most of a live route's watch
// events; the table reads none of them (the route's spec, name and creationTimestamp, and its
// validity), so the update is the table itself, with or without kept routes (without them,
// the old object is validated to know it was valid).
#[test]
fn a_status_or_label_change_shares_every_part() {
    for keep in [true, false] {
        let (options, mut snapshot, key, mut table) = route_a_beside_b(keep, "/b");
        for (extra, status) in [
            ("", status_parents(1)),
            (", labels: {team: x}", String::new()),
            (
                ", annotations: {note: y}, resourceVersion: \"9\", generation: 1",
                status_parents(2),
            ),
        ] {
            let previous = upsert_restated(&mut snapshot, extra, &status);
            let updated = table.update(&snapshot, &options, &key, previous.as_deref());
            assert!(
                shares_every_part(&table, &updated),
                "keep {keep}, {extra:?}"
            );
            assert!(agrees_with_scratch(&updated, &snapshot, &options));
            table = updated;
        }
    }
}

// RouteStatus.parents: at most 32 entries, and label keys are qualified names: the API server
// refuses such an object, so the table leaves the route out (as a full build does), though
// its spec did not change; and when it is fixed, the route is back.
#[test]
fn a_status_or_label_the_api_server_would_refuse_leaves_the_route_out() {
    for keep in [true, false] {
        let (options, mut snapshot, key, table) = route_a_beside_b(keep, "/");
        let to_a = |t: &RouteTable| {
            let req = crate::Request::http(IpAddr::from([10, 96, 0, 1]), 80, "GET", "/a");
            format!("{:?}", t.resolve(&req, 1)).contains("name: \"a\"")
        };
        assert!(to_a(&table));
        for (extra, status) in [
            ("", status_parents(33)),
            (", labels: {\"bad key!\": x}", String::new()),
        ] {
            let previous = upsert_restated(&mut snapshot, extra, &status);
            let refused = table.update(&snapshot, &options, &key, previous.as_deref());
            assert!(
                !shares_every_part(&table, &refused),
                "keep {keep}, {extra:?}"
            );
            assert!(agrees_with_scratch(&refused, &snapshot, &options));
            assert!(!to_a(&refused), "route a is left out");
            // fixed again: valid before? no, so the route is rebuilt, and back
            let previous = upsert_restated(&mut snapshot, "", &status_parents(1));
            let fixed = refused.update(&snapshot, &options, &key, previous.as_deref());
            assert!(!shares_every_part(&refused, &fixed));
            assert!(agrees_with_scratch(&fixed, &snapshot, &options));
            assert!(to_a(&fixed), "route a is back");
        }
    }
}

// An ownership change is an update with the route as its own previous and new `include`
// entries: it rebuilds the route whatever changed (here nothing), so the table follows the
// new entries; a status-only change right before leaves the table shared, and this second
// update still applies them.
#[test]
fn a_route_as_its_own_previous_is_rebuilt_under_new_include_entries() {
    let pair = |name: &str| crate::RouteParentKey {
        kind: gamma_model::RouteKind::Http,
        namespace: "app".into(),
        name: name.into(),
        parent_index: 0,
    };
    let both = BuildOptions {
        include: Some([pair("a"), pair("b")].into_iter().collect()),
        ..BuildOptions::default().with_keep_lowered_routes(true)
    };
    let only_b = BuildOptions {
        include: Some([pair("b")].into_iter().collect()),
        ..both.clone()
    };
    let mut snapshot = snapshot_with(&[("b", "/b")]);
    upsert_restated(&mut snapshot, "", "");
    let key = ObjectKey::new(ResourceKind::HttpRoute, "app", "a");
    let table = RouteTable::build(&snapshot, &both);
    let previous = upsert_restated(&mut snapshot, "", &status_parents(1));
    let shared = table.update(&snapshot, &only_b, &key, previous.as_deref());
    assert!(
        shares_every_part(&table, &shared),
        "a status write: nothing to rebuild"
    );
    let current = snapshot.get(&key).cloned();
    let moved = shared.update(&snapshot, &only_b, &key, current.as_ref());
    assert!(!shares_every_part(&shared, &moved));
    assert!(agrees_with_scratch(&moved, &snapshot, &only_b));
    assert!(
        !agrees_with_scratch(&shared, &snapshot, &only_b),
        "a was still included"
    );
}
