//! A controller-shaped loop: watch events in, status writes out.
//!
//! This is the shape of a mesh controller embedding gamma-rs. It keeps a [`Snapshot`] (its
//! informer cache), applies one watch event at a time, and after each one reconciles:
//!
//! 1. decide ownership of every (route, parentRef) with the [`Arbiter`], as `me` (Istio);
//! 2. build the [`RouteTable`] of only what `me` owns (this is what it would program into its
//!    data plane), which also yields `Accepted`/`ResolvedRefs` conditions per parent;
//! 3. compute `me`'s desired status entries and [`merge`] them into each route's stored
//!    status, which returns `None` when nothing would change: the write is skipped.
//!
//! Time is an input (`now`), never read from a clock, so the run is reproducible. The
//! writes are applied back to the snapshot, as the API server's echo of a status update would
//! be, and a periodic resync of the unchanged snapshot writes nothing.
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

use gamma::arbiter::routes::route_parts;
use gamma::arbiter::{Arbiter, Decision, Identity, ParentConditions, merge};
use gamma::model::gateway::{ConditionStatus, RouteStatus};
use gamma::model::meta::Time;
use gamma::model::{ObjectRef, Resource, ResourceKind, Snapshot};
use gamma::resolve::ir::RouteKind;
use gamma::resolve::{BuildOptions, RouteParentKey, RouteTable};

/// One watch event.
enum Event {
    /// ADDED or MODIFIED: the object's new version (boxed: objects are large, markers small).
    Applied(Box<Resource>),
    /// MODIFIED by a spec edit (`kubectl edit`): the API server applies `edit` to the stored
    /// object, bumps `metadata.generation` and keeps the status.
    Edited(ObjectRef, fn(&mut Resource)),
    /// DELETED.
    Deleted(ObjectRef),
    /// A periodic resync: nothing changed.
    Resync,
}

impl Event {
    fn describe(&self) -> String {
        let name = |r: &ObjectRef| match r.namespace.as_str() {
            "" => format!("{} {}", r.kind, r.name),
            ns => format!("{} {ns}/{}", r.kind, r.name),
        };
        match self {
            Event::Applied(r) => format!("APPLIED {}", name(&ObjectRef::of(r))),
            Event::Edited(r, _) => format!("EDITED  {}", name(r)),
            Event::Deleted(r) => format!("DELETED {}", name(r)),
            Event::Resync => "RESYNC (nothing changed)".to_owned(),
        }
    }
}

/// The result of one reconciliation.
struct Reconciliation {
    /// What `me` programs: the routes of the parents it owns, nothing else.
    table: RouteTable,
    /// The status writes to make, only for routes whose status would change.
    status_updates: Vec<(ObjectRef, RouteStatus)>,
    /// `me`'s pending decisions (an object the decision needs is missing): for the log.
    pending: Vec<String>,
}

/// Arbiter + route table + status merge, for one controller (`me`).
struct Reconciler {
    arbiter: Arbiter,
    me: Identity,
}

fn route_kind(kind: ResourceKind) -> Option<RouteKind> {
    Some(match kind {
        ResourceKind::HttpRoute => RouteKind::Http,
        ResourceKind::GrpcRoute => RouteKind::Grpc,
        ResourceKind::TlsRoute => RouteKind::Tls,
        ResourceKind::TcpRoute => RouteKind::Tcp,
        ResourceKind::UdpRoute => RouteKind::Udp,
        _ => return None,
    })
}

impl Reconciler {
    fn reconcile(&self, snapshot: &Snapshot, now: Time) -> Reconciliation {
        // 1. Ownership: the same verdicts every controller computes; `me`'s view of them.
        let decisions = self.arbiter.decide_all(snapshot);
        let mut owned = Vec::new();
        let mut pending = Vec::new();
        for (route, i, decision) in decisions.for_controller(&self.me) {
            match decision {
                Decision::Owned { .. } => {
                    owned.extend(route_kind(route.kind).map(|kind| RouteParentKey {
                        kind,
                        namespace: route.namespace.clone(),
                        name: route.name.clone(),
                        parent_index: i,
                    }))
                }
                Decision::Pending { .. } => pending.push(format!(
                    "{} {}/{} parentRefs[{i}]: {decision}",
                    route.kind, route.namespace, route.name
                )),
                _ => {}
            }
        }

        // 2. The table of what `me` owns, and the conditions it computed for those parents.
        let table = RouteTable::build(snapshot, &BuildOptions::default().with_include(owned));
        let conditions = |route: &ObjectRef, i: usize| {
            let found = table.parent_conditions().iter().find(|p| {
                Some(p.kind) == route_kind(route.kind)
                    && p.namespace == route.namespace
                    && p.name == route.name
                    && p.parent_index == i
            })?;
            Some(ParentConditions::new(found.conditions.iter().map(|c| {
                let status = ConditionStatus::from(c.status);
                (
                    c.type_.as_str(),
                    status,
                    c.reason.as_str(),
                    c.message.as_str(),
                )
            })))
        };

        // 3. Desired entries merged into the stored status; `None` means: do not write.
        let mut status_updates = Vec::new();
        for (route, _) in decisions.routes() {
            let Some((meta, _, stored)) = snapshot.get(route).and_then(route_parts) else {
                continue;
            };
            let supplied = |i: usize| conditions(route, i);
            let Some(desired) = self
                .arbiter
                .desired_status(&decisions, snapshot, route, &self.me, &supplied)
            else {
                continue;
            };
            let stored = stored.cloned().unwrap_or_default();
            if let Some(status) = merge(&stored, &desired, &self.me, meta.generation_or_zero(), now)
            {
                status_updates.push((route.clone(), status));
            }
        }
        Reconciliation {
            table,
            status_updates,
            pending,
        }
    }
}

/// Applies a status write to the cached route, as the API server's watch echo would: the
/// status subresource changes, `metadata.generation` does not.
fn write_status(snapshot: &mut Snapshot, route: &ObjectRef, status: RouteStatus) {
    let Some(mut object) = snapshot.get(route).cloned() else {
        return;
    };
    let slot = match &mut object {
        Resource::HttpRoute(r) => &mut r.status,
        Resource::GrpcRoute(r) => &mut r.status,
        Resource::TlsRoute(r) => &mut r.status,
        Resource::TcpRoute(r) => &mut r.status,
        Resource::UdpRoute(r) => &mut r.status,
        _ => return,
    };
    *slot = Some(status);
    snapshot.upsert(object);
}

/// What happened after one event.
struct Step {
    event: String,
    now: Time,
    writes: Vec<(ObjectRef, RouteStatus)>,
    pending: Vec<String>,
    /// The table built after the event (what `me` programs).
    table: RouteTable,
    /// The cache after the writes were applied.
    snapshot: Snapshot,
}

/// Runs the loop: apply each event, reconcile at `start + 1 min × event number`, apply the
/// writes.
fn run(reconciler: &Reconciler, events: Vec<Event>, start: Time) -> Vec<Step> {
    let mut cache = Snapshot::new();
    let mut steps = Vec::new();
    for (minute, event) in (0_i64..).zip(events) {
        let description = event.describe();
        match event {
            Event::Applied(object) => {
                cache.upsert(*object);
            }
            Event::Edited(key, edit) => {
                if let Some(mut object) = cache.get(&key).cloned() {
                    edit(&mut object);
                    let meta = object.metadata_mut();
                    meta.generation = Some(meta.generation_or_zero() + 1);
                    cache.upsert(object);
                }
            }
            Event::Deleted(key) => {
                cache.remove(&key);
            }
            Event::Resync => {}
        }
        let now = Time::from_unix(start.unix_seconds() + 60 * minute, 0);
        let r = reconciler.reconcile(&cache, now);
        for (route, status) in &r.status_updates {
            write_status(&mut cache, route, status.clone());
        }
        steps.push(Step {
            event: description,
            now,
            writes: r.status_updates,
            pending: r.pending,
            table: r.table,
            snapshot: cache.clone(),
        });
    }
    steps
}

/// The event stream: sample objects one by one, then changes.
fn events(sample: &Snapshot) -> Result<Vec<Event>, gamma_examples::BoxError> {
    let get = |kind: ResourceKind, ns: &str, name: &str| -> Result<Box<Resource>, String> {
        sample
            .get(&ObjectRef::new(kind, ns, name))
            .cloned()
            .map(Box::new)
            .ok_or_else(|| format!("{kind} {ns}/{name} is not in the sample"))
    };
    let svc = |name: &str| get(ResourceKind::Service, "shop", name);
    let checkout = get(ResourceKind::HttpRoute, "shop", "checkout")?;

    Ok(vec![
        Event::Applied(get(ResourceKind::Namespace, "", "shop")?),
        // The route arrives before its Service (the Service informer has not synced yet).
        Event::Applied(checkout),
        Event::Applied(svc("checkout")?),
        Event::Applied(svc("checkout-v1")?),
        Event::Applied(svc("checkout-v2")?),
        Event::Applied(svc("recommendations")?),
        // Linkerd's route (parentRefs[].controllers): nothing for Istio to write.
        Event::Applied(svc("cart")?),
        Event::Applied(get(ResourceKind::HttpRoute, "shop", "cart")?),
        Event::Resync,
        Event::Edited(
            ObjectRef::new(ResourceKind::HttpRoute, "shop", "checkout"),
            fifty_fifty,
        ),
        Event::Deleted(ObjectRef::new(ResourceKind::Service, "shop", "checkout-v2")),
        Event::Applied(svc("checkout-v2")?),
        // The parent Service goes away and comes back: Pending, the entry is kept.
        Event::Deleted(ObjectRef::new(ResourceKind::Service, "shop", "checkout")),
        Event::Applied(svc("checkout")?),
        Event::Resync,
    ])
}

/// The spec edit: the canary split of rule `api-split` goes from 90/10 to 50/50.
fn fifty_fifty(route: &mut Resource) {
    if let Resource::HttpRoute(r) = route {
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

fn reconciler() -> Result<Reconciler, gamma_examples::BoxError> {
    let config = gamma_examples::sample_config()?;
    let me = Identity::of_mesh(&config, "istio").ok_or("the configuration lacks istio")?;
    let arbiter = Arbiter::new(config).map_err(|e| format!("invalid config: {e:?}"))?;
    Ok(Reconciler { arbiter, me })
}

/// Everything this example prints: per event, the status writes (or that there are none).
fn report(me: &Identity, steps: &[Step]) -> String {
    let mut out = format!("controller {}\n", me.name);
    for (n, step) in steps.iter().enumerate() {
        let _ = writeln!(out, "\n#{:<2} {}  {}", n + 1, step.now, step.event);
        for p in &step.pending {
            let _ = writeln!(out, "    {p}");
        }
        if step.writes.is_empty() {
            let _ = writeln!(out, "    no status writes");
        }
        for (route, status) in &step.writes {
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
                    // Why a False condition is False (the message changes drive writes too).
                    if c.status != ConditionStatus::True {
                        let _ = writeln!(out, "          {}", c.message);
                    }
                }
            }
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
            "\n{} programs {} of the {} routes in its cache",
            me.name,
            last.table.stats().routes,
            routes
        );
    }
    out
}

fn main() -> Result<(), gamma_examples::BoxError> {
    let sample = gamma_examples::sample_snapshot()?;
    let reconciler = reconciler()?;
    let steps = run(&reconciler, events(&sample)?, start());
    print!("{}", report(&reconciler.me, &steps));
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Expectations come from issue 4 (status protocol), the sample README's ownership table
    //! and the sample manifests (which backends exist), not from the arbiter.

    use super::*;
    use gamma::model::gateway::Condition;
    use std::net::IpAddr;

    const ISTIO: &str = "istio.io/gateway-controller";

    fn steps() -> Vec<Step> {
        let sample = gamma_examples::sample_snapshot().unwrap();
        run(&reconciler().unwrap(), events(&sample).unwrap(), start())
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
        // Issue 4: merge returns None when nothing would change, so a controller that re-reads
        // its own write does not write again (no patch loops).
        let reconciler = reconciler().unwrap();
        for s in steps() {
            let again = reconciler.reconcile(
                &s.snapshot,
                Time::from_unix(start().unix_seconds() + 86_400, 0),
            );
            assert!(again.status_updates.is_empty(), "after {}", s.event);
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
        // A route whose Service is not cached yet is Pending: nothing written (issue 4).
        let early = step(&steps, "APPLIED HTTPRoute shop/checkout");
        assert!(early.writes.is_empty());
        assert_eq!(early.pending.len(), 1);

        // The Service arrives: Accepted, but the backends are not there yet (§9.3).
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
        let route = ObjectRef::new(ResourceKind::HttpRoute, "shop", "checkout");
        let kept = deleted
            .snapshot
            .get(&route)
            .and_then(route_parts)
            .and_then(|p| p.2)
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
        let checkout = gamma::resolve::Request::http(ip("10.96.10.20"), 80, "GET", "/api/orders");
        let cart = gamma::resolve::Request::http(ip("10.96.10.50"), 80, "GET", "/api/cart");
        assert!(matches!(
            last.table.resolve(&checkout, 0),
            gamma::resolve::Decision::Forward(_)
        ));
        assert_eq!(
            last.table.resolve(&cart, 0),
            gamma::resolve::Decision::Passthrough
        );
    }

    #[test]
    fn the_printed_log_says_when_nothing_is_written() {
        let reconciler = reconciler().unwrap();
        let text = report(&reconciler.me, &steps());
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
