//! A controller-shaped loop with `gamma_mesh::controller`: watch events in, status writes out.
//!
//! This is the shape of a mesh controller embedding gamma-rs. It keeps a [`Snapshot`] (its
//! informer cache), applies one watch event at a time, and after each one asks its
//! [`Reconciler`] to reconcile, which
//!
//! 1. decides ownership of every (route, parentRef) with the arbiter, as `me` (Istio);
//! 2. builds the [`RouteTable`] of only what `me` programs into its data plane (the parents
//!    it owns), which also yields the `Accepted`/`ResolvedRefs` conditions per parent;
//! 3. merges `me`'s desired status entries into each route's stored status, and returns only
//!    the writes that would change something.
//!
//! After a change to one object the loop calls [`Reconciler::reconcile_change`] (only the
//! affected pairs are re-decided); a periodic resync calls [`Reconciler::reconcile`]. Time is
//! an input (`now`), never read from a clock, so the run is reproducible. Each status write is
//! applied back to the cache and fed in as the watch event it causes: the controller answers
//! its own echo with no further write, so there are no patch loops.
//!
//! The events replay part of the sample cluster (`examples/manifests/`): objects arrive one by
//! one (a route before its Service: the decision is `Pending` and nothing is written), a
//! route owned by Linkerd appears (Istio writes nothing for it), the canary weights change
//! (new generation: a new `observedGeneration`), a backend Service is deleted and re-created
//! (`ResolvedRefs` flips and flips back), and the parent Service is deleted and re-created
//! (`Pending` again: the entry is kept, nothing flips).
//!
//! Run it with:
//!
//! ```sh
//! cargo run -p gamma-examples --example controller
//! ```

use std::fmt::Write as _;
use std::hash::{BuildHasher, RandomState};

use gamma_mesh::arbiter::{Identity, Ownership};
use gamma_mesh::controller::{Reconciler, ReconcilerConfig};
use gamma_mesh::model::gateway::{ConditionStatus, RouteStatus};
use gamma_mesh::model::meta::Time;
use gamma_mesh::model::{AnyResource, ObjectKey, ResourceKind, Snapshot};
use gamma_mesh::resolve::RouteTable;

/// One watch event.
enum Event {
    /// ADDED or MODIFIED: the object's new version (boxed: objects are large, markers small).
    Applied(Box<AnyResource>),
    /// MODIFIED by a spec edit (`kubectl edit`): the API server applies `edit` to the stored
    /// object, bumps `metadata.generation` and keeps the status.
    Edited(ObjectKey, fn(&mut AnyResource)),
    /// DELETED.
    Deleted(ObjectKey),
    /// A periodic resync: nothing changed.
    Resync,
}

impl Event {
    fn describe(&self) -> String {
        let name = |r: &ObjectKey| match r.namespace.as_str() {
            "" => format!("{} {}", r.kind, r.name),
            ns => format!("{} {ns}/{}", r.kind, r.name),
        };
        match self {
            Event::Applied(r) => format!("APPLIED {}", name(&ObjectKey::of(r))),
            Event::Edited(r, _) => format!("EDITED  {}", name(r)),
            Event::Deleted(r) => format!("DELETED {}", name(r)),
            Event::Resync => "RESYNC (nothing changed)".to_owned(),
        }
    }
}

/// Applies a status write to the cached route, as the API server's watch echo would: the
/// status subresource changes, `metadata.generation` does not.
fn write_status(snapshot: &mut Snapshot, route: &ObjectKey, status: RouteStatus) {
    let Some(mut object) = snapshot.get(route).cloned() else {
        return;
    };
    let Some(slot) = object.route_status_mut() else {
        return;
    };
    *slot = Some(status);
    snapshot.upsert(object);
}

/// What happened after one event.
struct Step {
    event: String,
    now: Time,
    /// The status writes the controller asked for.
    writes: Vec<(ObjectKey, RouteStatus)>,
    /// Writes asked for when the watch echo of those writes came back (none: no patch loop).
    echo_writes: Vec<(ObjectKey, RouteStatus)>,
    /// `me`'s pending decisions (an object the decision needs is missing).
    pending: Vec<String>,
    /// Notes for the operator (`gamma_mesh::controller::Diagnostic`), debug-printed.
    diagnostics: Vec<String>,
    /// The table built after the event (what `me` programs).
    table: RouteTable,
    /// The cache after the writes were applied.
    snapshot: Snapshot,
}

/// Runs the loop: apply each event to the cache, reconcile at `start + 1 min × event number`,
/// write the status updates back and handle their echo.
fn run(controller: &mut Reconciler, events: Vec<Event>, start: Time) -> Vec<Step> {
    let mut cache = Snapshot::new();
    let mut steps = Vec::new();
    for (minute, event) in (0_i64..).zip(events) {
        let description = event.describe();
        let now = Time::from_unix(start.unix_seconds() + 60 * minute, 0);
        let changed = match event {
            Event::Applied(object) => {
                let key = ObjectKey::of(&object);
                cache.upsert(*object);
                Some(key)
            }
            Event::Edited(key, edit) => {
                if let Some(mut object) = cache.get(&key).cloned() {
                    edit(&mut object);
                    let meta = object.metadata_mut();
                    meta.generation = Some(meta.generation_or_zero() + 1);
                    cache.upsert(object);
                }
                Some(key)
            }
            Event::Deleted(key) => {
                cache.remove(&key);
                Some(key)
            }
            Event::Resync => None,
        };
        // One object changed: the incremental path. A resync: everything.
        let r = match &changed {
            Some(key) => controller.reconcile_change(&cache, key, now),
            None => controller.reconcile(&cache, now),
        };
        let pending = r
            .decisions
            .iter()
            .filter(|(_, decision, _)| matches!(decision, Ownership::Pending { .. }))
            .map(|(pair, decision, _)| {
                let route = &pair.route;
                let i = pair.parent_index;
                format!(
                    "{} {}/{} parentRefs[{i}]: {decision}",
                    route.kind, route.namespace, route.name
                )
            })
            .collect();
        // A status write is itself a watch event on the route: handle it like any other.
        let mut echo_writes = Vec::new();
        for (route, status) in &r.status_updates {
            write_status(&mut cache, route, status.clone());
            echo_writes.extend(
                controller
                    .reconcile_change(&cache, route, now)
                    .status_updates,
            );
        }
        steps.push(Step {
            event: description,
            now,
            writes: r.status_updates,
            echo_writes,
            pending,
            diagnostics: r.diagnostics.iter().map(|d| format!("{d:?}")).collect(),
            table: r.table,
            snapshot: cache.clone(),
        });
    }
    steps
}

/// The event stream: sample objects one by one, then changes.
fn events(sample: &Snapshot) -> Result<Vec<Event>, gamma_examples::BoxError> {
    let get = |kind: ResourceKind, ns: &str, name: &str| -> Result<Box<AnyResource>, String> {
        sample
            .get(&ObjectKey::new(kind, ns, name))
            .cloned()
            .map(Box::new)
            .ok_or_else(|| format!("{kind} {ns}/{name} is not in the sample"))
    };
    let svc = |name: &str| get(ResourceKind::Service, "shop", name);

    Ok(vec![
        Event::Applied(get(ResourceKind::Namespace, "", "shop")?),
        // The route arrives before its Service (the Service informer has not synced yet).
        Event::Applied(get(ResourceKind::HttpRoute, "shop", "checkout")?),
        Event::Applied(svc("checkout")?),
        Event::Applied(svc("checkout-v1")?),
        Event::Applied(svc("checkout-v2")?),
        Event::Applied(svc("recommendations")?),
        // Linkerd's route (parentRefs[].controllers): nothing for Istio to write.
        Event::Applied(svc("cart")?),
        Event::Applied(get(ResourceKind::HttpRoute, "shop", "cart")?),
        Event::Resync,
        Event::Edited(
            ObjectKey::new(ResourceKind::HttpRoute, "shop", "checkout"),
            fifty_fifty,
        ),
        Event::Deleted(ObjectKey::new(ResourceKind::Service, "shop", "checkout-v2")),
        Event::Applied(svc("checkout-v2")?),
        // The parent Service goes away and comes back: Pending, the entry is kept.
        Event::Deleted(ObjectKey::new(ResourceKind::Service, "shop", "checkout")),
        Event::Applied(svc("checkout")?),
        Event::Resync,
    ])
}

/// The spec edit: the canary split of rule `api-split` goes from 90/10 to 50/50.
fn fifty_fifty(route: &mut AnyResource) {
    if let AnyResource::HttpRoute(r) = route {
        let rules = r.spec.rules.iter_mut().flatten();
        for rule in rules.filter(|rule| rule.name.as_deref() == Some("api-split")) {
            for backend in &mut rule.backend_refs {
                backend.backend_ref.weight = Some(50);
            }
        }
    }
}

/// The clock of the simulation: the first event's time.
fn start() -> Time {
    Time::from_unix(1_767_607_200, 0) // 2026-01-05T10:00:00Z
}

/// Istio's controller, configured like every controller in the cluster (the shared
/// `gamma-config.yaml`), and its controller name.
fn controller() -> Result<(Reconciler, String), gamma_examples::BoxError> {
    let config = gamma_examples::sample_config()?;
    let me = Identity::of_mesh(&config, "istio").ok_or("the configuration lacks istio")?;
    let name = me.name.clone();
    let mut settings = ReconcilerConfig::new(config, me);
    // A long-running controller keys its route tables' hashes with a per-process random seed,
    // so route authors cannot precompute colliding paths; decisions never depend on it.
    settings.build = settings
        .build
        .with_hash_seed(RandomState::new().hash_one("route-table"));
    let controller = Reconciler::new(settings)?;
    Ok((controller, name))
}

/// Everything this example prints: per event, the status writes (or that there are none).
fn report(me: &str, steps: &[Step]) -> String {
    let mut out = format!("controller {me}\n");
    for (n, step) in steps.iter().enumerate() {
        let _ = writeln!(out, "\n#{:<2} {}  {}", n + 1, step.now, step.event);
        for line in step.pending.iter().chain(&step.diagnostics) {
            let _ = writeln!(out, "    {line}");
        }
        if step.writes.is_empty() {
            let _ = writeln!(out, "    no status writes");
        }
        write_updates(&mut out, &step.writes);
        if !step.echo_writes.is_empty() {
            let _ = writeln!(
                out,
                "    the echo of those writes asked for more (a patch loop):"
            );
            write_updates(&mut out, &step.echo_writes);
        }
    }
    if let Some(last) = steps.last() {
        let routes = last
            .snapshot
            .iter()
            .filter(|(key, _)| key.kind.is_route())
            .count();
        let _ = writeln!(
            out,
            "\n{me} programs {} of the {routes} routes in its cache",
            last.table.stats().routes
        );
    }
    out
}

/// Prints status writes: each entry's parent, owner and conditions.
fn write_updates(out: &mut String, updates: &[(ObjectKey, RouteStatus)]) {
    for (route, status) in updates {
        let _ = writeln!(
            out,
            "    write {} {}/{} status:",
            route.kind, route.namespace, route.name
        );
        for entry in &status.parents {
            let p = &entry.parent_ref;
            let _ = writeln!(
                out,
                "      parent {} {}/{}{} by {}",
                p.kind.as_deref().unwrap_or("Gateway"),
                p.namespace.as_deref().unwrap_or(&route.namespace),
                p.name,
                p.port.map_or_else(String::new, |x| format!(":{x}")),
                entry.controller_name
            );
            for c in &entry.conditions {
                let _ = writeln!(
                    out,
                    "        {}={} {} (observedGeneration {}, since {})",
                    c.type_,
                    c.status.as_str(),
                    c.reason,
                    c.observed_generation.unwrap_or(0),
                    c.last_transition_time
                );
                // Why a condition is not True (message changes drive writes too).
                if c.status != ConditionStatus::True {
                    let _ = writeln!(out, "          {}", c.message);
                }
            }
        }
    }
}

fn main() -> Result<(), gamma_examples::BoxError> {
    let sample = gamma_examples::sample_snapshot()?;
    let (mut controller, me) = controller()?;
    let steps = run(&mut controller, events(&sample)?, start());
    print!("{}", report(&me, &steps));
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Expectations come from the status protocol, the sample README's ownership table
    //! and the sample manifests (which backends exist), not from the arbiter.

    use super::*;
    use gamma_mesh::model::gateway::Condition;
    use std::net::IpAddr;

    const ISTIO: &str = "istio.io/gateway-controller";

    fn steps() -> Vec<Step> {
        let sample = gamma_examples::sample_snapshot().unwrap();
        let (mut controller, _) = controller().unwrap();
        run(&mut controller, events(&sample).unwrap(), start())
    }

    fn step<'a>(steps: &'a [Step], event: &str) -> &'a Step {
        steps
            .iter()
            .find(|s| s.event == event)
            .unwrap_or_else(|| panic!("no event {event}"))
    }

    /// The one condition of `type_` on the single entry of the single write of `s`.
    fn written<'a>(s: &'a Step, type_: &str) -> &'a Condition {
        assert_eq!(s.writes.len(), 1, "{}", s.event);
        let (route, status) = &s.writes[0];
        assert_eq!(route.name, "checkout");
        assert_eq!(status.parents.len(), 1);
        status.parents[0]
            .conditions
            .iter()
            .find(|c| c.type_ == type_)
            .unwrap()
    }

    #[test]
    fn after_every_event_the_loop_converges_to_no_writes() {
        // Nothing is written when nothing would change, so the watch echo of a
        // controller's own write causes no further write (no patch loops)...
        let steps = steps();
        for s in &steps {
            assert!(s.echo_writes.is_empty(), "after {}", s.event);
        }
        // ...and the incremental path left nothing undone: a controller starting afresh on
        // each resulting cache (a restart, later) has nothing to write either.
        let later = Time::from_unix(start().unix_seconds() + 86_400, 0);
        for s in &steps {
            let (mut fresh, _) = controller().unwrap();
            let r = fresh.reconcile(&s.snapshot, later);
            assert!(r.status_updates.is_empty(), "after {}", s.event);
        }
    }

    #[test]
    fn a_resync_of_an_unchanged_snapshot_writes_nothing() {
        let steps = steps();
        let resyncs: Vec<&Step> = steps
            .iter()
            .filter(|s| s.event.starts_with("RESYNC"))
            .collect();
        assert_eq!(resyncs.len(), 2);
        assert!(resyncs.iter().all(|s| s.writes.is_empty()));
    }

    #[test]
    fn status_follows_the_events_and_only_ever_carries_istios_entries() {
        let steps = steps();
        // A route whose Service is not cached yet is Pending: nothing written.
        let early = step(&steps, "APPLIED HTTPRoute shop/checkout");
        assert!(early.writes.is_empty());
        assert_eq!(early.pending.len(), 1);

        // The Service arrives: Accepted, but the backends are not there yet (Gateway API route
        // conditions).
        let parent = step(&steps, "APPLIED Service shop/checkout");
        assert_eq!(written(parent, "Accepted").status, ConditionStatus::True);
        let refs = written(parent, "ResolvedRefs");
        assert_eq!(
            (&refs.status, refs.reason.as_str()),
            (&ConditionStatus::False, "BackendNotFound")
        );
        // observedGeneration is the route's metadata.generation, as the sample writes it.
        let sample = gamma_examples::sample_snapshot().unwrap();
        let generation = sample
            .http_route("shop", "checkout")
            .unwrap()
            .metadata
            .generation
            .unwrap();
        assert_eq!(
            written(parent, "Accepted").observed_generation,
            Some(generation)
        );

        // The last backend the route names (rule `recommendations`) resolves the refs.
        let resolved = step(&steps, "APPLIED Service shop/recommendations");
        assert_eq!(
            written(resolved, "ResolvedRefs").status,
            ConditionStatus::True
        );

        // shop/cart belongs to Linkerd (README ownership table, level 1): Istio writes nothing.
        assert!(
            step(&steps, "APPLIED HTTPRoute shop/cart")
                .writes
                .is_empty()
        );

        // New generation: a write carrying it, with Accepted's transition time kept.
        let accepted = written(step(&steps, "EDITED  HTTPRoute shop/checkout"), "Accepted");
        assert_eq!(accepted.observed_generation, Some(generation + 1));
        assert_eq!(accepted.last_transition_time, parent.now);

        // A backend deleted and re-created: ResolvedRefs flips, then flips back at that time.
        let gone = step(&steps, "DELETED Service shop/checkout-v2");
        assert_eq!(written(gone, "ResolvedRefs").status, ConditionStatus::False);
        let back = steps
            .iter()
            .rposition(|s| s.event == "APPLIED Service shop/checkout-v2")
            .unwrap();
        let back = &steps[back];
        assert_eq!(written(back, "ResolvedRefs").status, ConditionStatus::True);
        assert_eq!(written(back, "ResolvedRefs").last_transition_time, back.now);

        // The parent deleted: Pending, the entry stays as written; re-created: nothing to do.
        let deleted = step(&steps, "DELETED Service shop/checkout");
        assert!(deleted.writes.is_empty());
        assert_eq!(deleted.pending.len(), 1);
        let route = ObjectKey::new(ResourceKind::HttpRoute, "shop", "checkout");
        let kept = deleted
            .snapshot
            .get(&route)
            .and_then(|r| r.route_status())
            .unwrap();
        assert_eq!(kept.parents.len(), 1);
        let again = steps
            .iter()
            .rposition(|s| s.event == "APPLIED Service shop/checkout")
            .unwrap();
        assert!(steps[again].writes.is_empty());

        // Every entry ever written is Istio's own.
        for s in &steps {
            for (_, status) in &s.writes {
                assert!(status.parents.iter().all(|e| e.controller_name == ISTIO));
            }
        }
    }

    #[test]
    fn the_table_holds_only_what_istio_owns() {
        let steps = steps();
        let last = steps.last().unwrap();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        // shop/checkout (10.96.10.20, Istio's) is programmed; shop/cart (10.96.10.50, Linkerd's)
        // is not: for Istio's data plane it is plain Service traffic.
        let checkout =
            gamma_mesh::resolve::Request::http(ip("10.96.10.20"), 80, "GET", "/api/orders");
        let cart = gamma_mesh::resolve::Request::http(ip("10.96.10.50"), 80, "GET", "/api/cart");
        assert!(matches!(
            last.table.resolve(&checkout, 0),
            gamma_mesh::resolve::Decision::Forward(_)
        ));
        assert_eq!(
            last.table.resolve(&cart, 0),
            gamma_mesh::resolve::Decision::Passthrough
        );
    }

    #[test]
    fn the_printed_log_says_when_nothing_is_written() {
        let (_, me) = controller().unwrap();
        let text = report(&me, &steps());
        assert!(
            text.contains("RESYNC (nothing changed)\n    no status writes"),
            "{text}"
        );
        assert!(
            text.contains("ResolvedRefs=False BackendNotFound"),
            "{text}"
        );
    }
}
