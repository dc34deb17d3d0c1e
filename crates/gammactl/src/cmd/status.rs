//! `gammactl status`: the route status updates one controller would write: its own entries
//! merged into what is stored, foreign entries untouched (gamma-arbiter's status protocol),
//! with the `Accepted`/`ResolvedRefs` conditions gamma-resolve computes for owned parents; and
//! the Gateway, ListenerSet and BackendTLSPolicy status writes of a gateway controller, as
//! gamma-controller computes and merges them (one rule for the CLI and the controller).

use std::collections::BTreeMap;

use gamma_arbiter::Directive;
use gamma_arbiter::merge_outcome;
use gamma_arbiter::{MergeOutcome, ParentConditions};
use gamma_controller::{
    ObjectMerge, ObjectStatus, ReconcilerConfig, desired_object_statuses, keep_retained_entries,
    owned_service_parents, stored_handoff_directives,
};
use gamma_mesh::model::ObjectKey;
use gamma_mesh::model::gateway::{ConditionStatus, RouteStatus};
use gamma_mesh::model::meta::Time;
use gamma_resolve::RouteTable;
use gamma_resolve::gateway_status::GatewayStatus;
use gamma_resolve::status::RouteCondition;
use serde::Serialize;

use crate::cli::{Format, StatusArgs, StatusForm};
use crate::failure::{Failure, usage};
use crate::output::{emit, print, warn};
use crate::ownership::{Arbitration, describe_parent};
use crate::style::Style;

/// One route's update.
struct Update {
    route: ObjectKey,
    generation: i64,
    /// Whether the input says `metadata.generation` (a file written by hand does not): only
    /// then does a patch test it (a test of the 0 it defaults to fails on every stored object).
    generation_known: bool,
    /// The `metadata.resourceVersion` of the copy the status was merged into, if the input
    /// has one: the precondition that makes the write safe against a concurrent one.
    resource_version: Option<String>,
    outcome: MergeOutcome,
    /// The parents `me` no longer owns but still has an entry for, kept as stored until the
    /// new owner's entry is accepted (make-before-break): (parent, the new owners).
    retained: Vec<(String, Vec<String>)>,
}

/// One Gateway's, ListenerSet's or BackendTLSPolicy's update.
struct ObjectUpdate {
    object: ObjectKey,
    generation: i64,
    /// As [`Update::generation_known`].
    generation_known: bool,
    resource_version: Option<String>,
    merge: ObjectMerge,
}

/// A status to write: a route's, or a Gateway's, ListenerSet's or BackendTLSPolicy's.
#[derive(Serialize)]
#[serde(untagged)]
enum AnyStatus<'a> {
    Route(&'a RouteStatus),
    Object(&'a ObjectStatus),
}

/// A full object carrying only the status, as `kubectl apply --subresource=status` or a
/// controller's status write would send it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StatusObject<'a> {
    api_version: &'static str,
    kind: &'static str,
    metadata: Meta<'a>,
    status: AnyStatus<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Meta<'a> {
    name: &'a str,
    namespace: &'a str,
    /// An update carrying it fails with a conflict when the object changed since it was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_version: Option<&'a str>,
}

/// An RFC 6902 JSON Patch for one route: test the resourceVersion of the copy the status was
/// merged into (`status.parents` is an atomic list, so replacing it over a concurrent write
/// would drop another controller's entry), test the generation the status was computed for,
/// then replace the status.
#[derive(Serialize)]
struct Patch<'a> {
    /// The route patched (route patches).
    #[serde(skip_serializing_if = "Option::is_none")]
    route: Option<&'a ObjectKey>,
    /// The Gateway, ListenerSet or BackendTLSPolicy patched (their patches).
    #[serde(skip_serializing_if = "Option::is_none")]
    object: Option<&'a ObjectKey>,
    patch: Vec<PatchOp<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum PatchOp<'a> {
    Test {
        path: &'static str,
        value: serde_json::Value,
    },
    Add {
        path: &'static str,
        value: AnyStatus<'a>,
    },
}

pub fn run(args: &StatusArgs) -> Result<(), Failure> {
    let now = match &args.now {
        Some(text) => Time::parse(text).map_err(|e| usage(format!("--now {text:?}: {e}")))?,
        None => clock_now(),
    };
    let manifests = super::read_strict(&args.input)?;
    let snapshot = manifests.snapshot();
    let arb = Arbitration::new(
        &args.config,
        &snapshot,
        manifests.parent_ref_controllers.as_ref(),
    )?;
    let err_style = Style::stderr();
    for d in arb.registry().diagnostics() {
        warn(&format!("{} {d}", err_style.yellow("warning:")));
    }
    let me = arb.identity(&args.as_controller)?;
    // What the data plane would report for each (route, parentRef) it programs.
    // the table reads routes as the arbiter does (`coreGroupAlias` in --config)
    let options = crate::ownership::build_options(arb.arbiter.config())
        .with_bundles(&manifests.kinds)
        .with_mesh_binding(args.bind.binding());
    let table = RouteTable::build(&snapshot, &options);
    let mut supplied: BTreeMap<(&str, &str, &str, usize), ParentConditions> = BTreeMap::new();
    for p in table.parent_conditions() {
        let conditions = ParentConditions::new(p.conditions.iter().map(|c| {
            let status = if c.status {
                ConditionStatus::True
            } else {
                ConditionStatus::False
            };
            (
                c.type_.as_str(),
                status,
                c.reason.as_str(),
                c.message.as_str(),
            )
        }));
        supplied.insert(
            (
                p.kind.as_str(),
                p.namespace.as_str(),
                p.name.as_str(),
                p.parent_index,
            ),
            conditions,
        );
    }

    // Make-before-break, as the controller runtime: a parent `me` has an entry for but no
    // longer owns keeps that entry until the new owner's is accepted (docs/status-protocol.md)
    let grace =
        ReconcilerConfig::new(arb.arbiter.config().clone(), me.clone()).handoff_grace_seconds;
    let directives = stored_handoff_directives(&arb.decisions, &snapshot, &me, grace, now);
    let mut updates = Vec::new();
    // -n lists one namespace's objects, as kubectl get -n
    let listed = |ns: &str| args.input.namespace.as_ref().is_none_or(|n| n == ns);
    for (key, _) in arb.decisions.routes() {
        let route_ref = key.to_object_key();
        let route = &route_ref;
        if !listed(&route.namespace) {
            continue;
        }
        let Some((meta, stored)) = snapshot
            .get(route)
            .and_then(|r| r.as_route())
            .map(|v| (v.metadata, v.status))
        else {
            continue;
        };
        let lookup = |i: usize| {
            supplied
                .get(&(
                    route.kind.as_str(),
                    route.namespace.as_str(),
                    route.name.as_str(),
                    i,
                ))
                .cloned()
        };
        let Some(mut desired) =
            arb.arbiter
                .desired_status(&arb.decisions, &snapshot, route, &me, &lookup)
        else {
            continue;
        };
        let refs = crate::ownership::parent_refs(&snapshot, route);
        let mut retained_at = Vec::new();
        let mut retained = Vec::new();
        for (pair, directive) in directives.range(
            gamma_arbiter::PairKey {
                route: route.clone(),
                parent_index: 0,
            }..,
        ) {
            if pair.route != *route {
                break;
            }
            if let Directive::Retain { waiting_for, .. } = directive {
                retained_at.push(pair.parent_index);
                let parent = refs.get(pair.parent_index).map_or_else(
                    || format!("parentRefs[{}]", pair.parent_index),
                    |p| describe_parent(p, &route.namespace),
                );
                retained.push((parent, waiting_for.names().to_vec()));
            }
        }
        keep_retained_entries(&mut desired, refs, retained_at);
        let existing = stored.cloned().unwrap_or_default();
        let generation = meta.generation_or_zero();
        let outcome = merge_outcome(&existing, &desired, &me, generation, now);
        updates.push(Update {
            route: route_ref.clone(),
            generation,
            generation_known: meta.generation.is_some(),
            resource_version: meta.resource_version.clone(),
            outcome,
            retained,
        });
    }

    // Gateways, ListenerSets and BackendTLSPolicies: what gamma-controller would write
    let owned_services = owned_service_parents(&arb.decisions, &snapshot, &me);
    let objects: Vec<ObjectUpdate> =
        desired_object_statuses(&snapshot, &table, &me, &owned_services)
            .into_iter()
            .filter(|(object, _)| listed(&object.namespace))
            .filter_map(|(object, desired)| {
                let copy = snapshot.get(&object)?;
                let generation = copy.metadata().generation_or_zero();
                let merge = desired.merge_into(copy, generation, &me, now);
                Some(ObjectUpdate {
                    resource_version: copy.metadata().resource_version.clone(),
                    object,
                    generation,
                    generation_known: copy.metadata().generation.is_some(),
                    merge,
                })
            })
            .collect();
    let object_writes: Vec<(&ObjectUpdate, &ObjectStatus)> = objects
        .iter()
        .filter_map(|u| match &u.merge {
            ObjectMerge::Write { status, .. } => Some((u, status)),
            _ => None,
        })
        .collect();

    let writes: Vec<(&Update, &RouteStatus)> = updates
        .iter()
        .filter_map(|u| match &u.outcome {
            MergeOutcome::Write { status, .. } => Some((u, status)),
            _ => None,
        })
        .collect();
    let unversioned: Vec<String> = writes
        .iter()
        .filter(|(u, _)| u.resource_version.is_none())
        .map(|(u, _)| format!("{} {}/{}", u.route.kind, u.route.namespace, u.route.name))
        .chain(
            object_writes
                .iter()
                .filter(|(u, _)| u.resource_version.is_none())
                .map(|(u, _)| {
                    format!("{} {}/{}", u.object.kind, u.object.namespace, u.object.name)
                }),
        )
        .collect();
    // Said where the output is meant to be applied: patches, or objects for programs.
    let applicable = args.form == StatusForm::Patch || args.output.format() != Format::Text;
    if applicable && !unversioned.is_empty() {
        warn(&format!(
            "{} no metadata.resourceVersion in the input for {}: the {} cannot detect a \
             concurrent status write and would overwrite it (status.parents is an atomic \
             list), and where metadata.generation is missing too they test no generation. \
             Compute status from objects read from the cluster (kubectl get -o yaml) for \
             writes with the preconditions.",
            err_style.yellow("warning:"),
            unversioned.join(", "),
            if args.form == StatusForm::Patch {
                "patches"
            } else {
                "writes"
            }
        ));
    }
    match (args.output.format(), args.form) {
        (Format::Text, form) => {
            let style = Style::stdout();
            let mut text = render_text(&updates, &me.name, form, &style);
            // Gateways of classes this controller runs: their computed status
            let owned = table.gateway_status().iter().filter(|g| {
                listed(&g.namespace)
                    && snapshot
                        .gateway(&g.namespace, &g.name)
                        .and_then(|gw| snapshot.gateway_class(&gw.spec.gateway_class_name))
                        .is_some_and(|c| me.answers_to(&c.spec.controller_name))
            });
            for g in owned {
                text.push_str(&render_gateway(g, &style));
            }
            text.push_str(&super::listener_sets::render(
                &table, &snapshot, &me, &style,
            ));
            for (key, desired) in desired_object_statuses(&snapshot, &table, &me, &owned_services) {
                if let gamma_controller::DesiredObjectStatus::BackendTlsPolicy(entries) = &desired
                    && listed(&key.namespace)
                {
                    text.push_str(&render_policy(&key, entries, &style));
                }
            }
            emit(&text);
            Ok(())
        }
        // Routes first (in route order), then Gateways, ListenerSets and BackendTLSPolicies,
        // each by namespace and name.
        (f, StatusForm::Full) => {
            let routes = writes.iter().map(|(u, status)| StatusObject {
                api_version: "gateway.networking.k8s.io/v1",
                kind: u.route.kind.as_str(),
                metadata: Meta {
                    name: &u.route.name,
                    namespace: &u.route.namespace,
                    resource_version: u.resource_version.as_deref(),
                },
                status: AnyStatus::Route(status),
            });
            let others = object_writes.iter().map(|(u, status)| StatusObject {
                api_version: "gateway.networking.k8s.io/v1",
                kind: u.object.kind.as_str(),
                metadata: Meta {
                    name: &u.object.name,
                    namespace: &u.object.namespace,
                    resource_version: u.resource_version.as_deref(),
                },
                status: AnyStatus::Object(status),
            });
            let objects: Vec<StatusObject<'_>> = routes.chain(others).collect();
            print(&objects, f)
        }
        (f, StatusForm::Patch) => {
            let patches: Vec<Patch<'_>> = writes
                .iter()
                .map(|(u, status)| patch(u, status))
                .chain(object_writes.iter().map(|(u, status)| Patch {
                    route: None,
                    object: Some(&u.object),
                    patch: patch_ops(
                        u.resource_version.as_deref(),
                        u.generation_known.then_some(u.generation),
                        AnyStatus::Object(status),
                    ),
                }))
                .collect();
            print(&patches, f)
        }
    }
}

fn patch<'a>(u: &'a Update, status: &'a RouteStatus) -> Patch<'a> {
    Patch {
        route: Some(&u.route),
        object: None,
        patch: patch_ops(
            u.resource_version.as_deref(),
            u.generation_known.then_some(u.generation),
            AnyStatus::Route(status),
        ),
    }
}

/// Test the resourceVersion and the generation (each when the input has it), then replace the
/// status.
fn patch_ops<'a>(
    resource_version: Option<&'a str>,
    generation: Option<i64>,
    status: AnyStatus<'a>,
) -> Vec<PatchOp<'a>> {
    let mut patch = Vec::with_capacity(3);
    if let Some(rv) = resource_version {
        patch.push(PatchOp::Test {
            path: "/metadata/resourceVersion",
            value: rv.into(),
        });
    }
    if let Some(generation) = generation {
        patch.push(PatchOp::Test {
            path: "/metadata/generation",
            value: generation.into(),
        });
    }
    patch.push(PatchOp::Add {
        path: "/status",
        value: status,
    });
    patch
}

/// The fully qualified resource for kubectl (`httproutes.gateway.networking.k8s.io`): a bare
/// `httproute` may name another API group's resource of the same name.
fn qualified_resource(route: &ObjectKey) -> String {
    format!(
        "{}s.{}",
        route.kind.as_str().to_ascii_lowercase(),
        gamma_mesh::model::gateway::GROUP
    )
}

fn render_text(updates: &[Update], me: &str, form: StatusForm, style: &Style) -> String {
    let mut out = String::new();
    let (mut writes, mut unchanged, mut stale) = (0, 0, 0);
    for u in updates {
        let route = format!("{} {}/{}", u.route.kind, u.route.namespace, u.route.name);
        for (parent, to) in &u.retained {
            let to = if to.is_empty() {
                "nobody owns it now: kept until the grace period ends".to_owned()
            } else {
                format!(
                    "kept until {}'s entry is Accepted=True at generation {}",
                    to.join(", "),
                    u.generation
                )
            };
            out.push_str(&format!(
                "{}: {} {parent}: no longer owned; this controller's entry stays as stored, \
                 make-before-break ({to})\n",
                style.bold(&route),
                style.yellow("handing off")
            ));
        }
        match &u.outcome {
            MergeOutcome::Write { status, dropped } => {
                writes += 1;
                let version = u
                    .resource_version
                    .as_ref()
                    .map(|rv| format!(", resourceVersion {rv}"))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "{} (generation {}{version}): write\n",
                    style.bold(&route),
                    u.generation
                ));
                if form == StatusForm::Patch {
                    let json = serde_json::to_string(&patch(u, status).patch).unwrap_or_default();
                    out.push_str(&format!(
                        "  kubectl patch {} {} -n {} --subresource=status --type=json -p '{}'\n",
                        qualified_resource(&u.route),
                        u.route.name,
                        u.route.namespace,
                        json.replace('\'', "'\\''")
                    ));
                    continue;
                }
                for entry in &status.parents {
                    let mine = entry.controller_name == me;
                    let parent = describe_parent(&entry.parent_ref, &u.route.namespace);
                    let conditions: Vec<String> = entry
                        .conditions
                        .iter()
                        .map(|c| {
                            let text = format!("{}={} {}", c.type_, c.status.as_str(), c.reason);
                            match (&c.status, mine) {
                                (_, false) => style.dim(&text),
                                (ConditionStatus::True, true) => style.green(&text),
                                (_, true) => style.red(&text),
                            }
                        })
                        .collect();
                    let who = if mine {
                        String::new()
                    } else {
                        style.dim(&format!(" (kept: {})", entry.controller_name))
                    };
                    out.push_str(&format!("  {parent}{who}: {}\n", conditions.join(", ")));
                }
                for d in dropped {
                    out.push_str(&format!(
                        "  {} {} (32-entry cap)\n",
                        style.yellow("dropped:"),
                        describe_parent(d, &u.route.namespace)
                    ));
                }
            }
            MergeOutcome::Unchanged => unchanged += 1,
            MergeOutcome::Stale { stored, known } => {
                stale += 1;
                out.push_str(&format!(
                    "{route}: {} stored observedGeneration {stored} is newer than generation {known}; not written\n",
                    style.yellow("stale:")
                ));
            }
            _ => {}
        }
    }
    let summary = format!(
        "as {me}: {writes} route{} to write, {unchanged} with nothing to change, {stale} stale",
        if writes == 1 { "" } else { "s" }
    );
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&summary);
    out.push('\n');
    out
}

/// A Gateway's computed status (gamma-resolve's `gateway_status`): the Gateway's conditions,
/// then one line per listener with attachedRoutes, supportedKinds and its conditions.
fn render_gateway(g: &GatewayStatus, style: &Style) -> String {
    let conditions = |list: &[RouteCondition]| -> String {
        list.iter()
            .map(|c| {
                let text = format!(
                    "{}={} {}",
                    c.type_,
                    if c.status { "True" } else { "False" },
                    c.reason
                );
                // Conflicted is the one condition whose True is bad news
                if c.status != (c.type_ == "Conflicted") {
                    style.green(&text)
                } else {
                    style.red(&text)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = format!(
        "\n{}: {}\n",
        style.bold(&format!("Gateway {}/{}", g.namespace, g.name)),
        conditions(&g.conditions)
    );
    // why it is not accepted (for a Gateway left out, its first validation error), as for a
    // ListenerSet
    if let Some(c) = g.conditions.iter().find(|c| !c.status) {
        out.push_str(&format!(
            "  {}
",
            c.message
        ));
    }
    if g.attached_listener_sets > 0 {
        // GatewayStatus.attachedListenerSets (GEP-1713)
        out.push_str(&format!(
            "  attachedListenerSets {}\n",
            g.attached_listener_sets
        ));
    }
    for l in &g.listeners {
        let kinds: Vec<&str> = l.supported_kinds.iter().map(|k| k.as_str()).collect();
        out.push_str(&format!(
            "  listener {}: attachedRoutes {}, supportedKinds [{}]: {}\n",
            l.name,
            l.attached_routes,
            kinds.join(", "),
            conditions(&l.conditions)
        ));
    }
    out
}

/// `me`'s ancestor entries of one BackendTLSPolicy (GEP-713 PolicyAncestorStatus), one line per
/// ancestor; nothing when `me` is responsible for none of its ancestors.
fn render_policy(
    key: &ObjectKey,
    entries: &[gamma_mesh::model::gateway::PolicyAncestorStatus],
    style: &Style,
) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n{}\n",
        style.bold(&format!("BackendTLSPolicy {}/{}", key.namespace, key.name))
    );
    for e in entries {
        let conditions: Vec<String> = e
            .conditions
            .iter()
            .map(|c| {
                let text = format!("{}={} {}", c.type_, c.status.as_str(), c.reason);
                match c.status {
                    ConditionStatus::True => style.green(&text),
                    _ => style.red(&text),
                }
            })
            .collect();
        out.push_str(&format!(
            "  ancestor {}: {}\n",
            describe_parent(&e.ancestor_ref, &key.namespace),
            conditions.join(", ")
        ));
    }
    out
}

/// The system clock, to the second (the CLI's one use of the clock; `--now` overrides it).
fn clock_now() -> Time {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    Time::from_unix(secs, 0)
}
