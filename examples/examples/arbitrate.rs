//! Deciding controller ownership with `gamma_mesh::arbiter`: which (route, parent) pairs one mesh
//! may program and write status for, when two meshes and a Gateway share a cluster.
//!
//! Loads the sample cluster (`examples/manifests/`) and its arbiter configuration
//! (`examples/gamma-config.yaml`), decides every (route, parentRef) once with
//! [`Arbiter::decide_all`], and prints how Istio (`istio.io/gateway-controller`, alias
//! `istio.io/mesh-controller`) sees each one: `Owned`, `Foreign`, `Conflict`,
//! `NotApplicable`, ..., with the ladder level and the signal that decided. Every controller
//! computing on the same snapshot and configuration reaches the same verdicts; only the view
//! (is it *me*?) differs.
//!
//! Run it with:
//!
//! ```sh
//! cargo run -p gamma-examples --example arbitrate
//! ```
//!
//! The expected verdicts are the ownership table of `examples/manifests/README.md`; the tests
//! at the bottom check this example against it.

use std::fmt::Write as _;

use gamma_mesh::arbiter::{Arbiter, Decisions, Identity, Ownership};
use gamma_mesh::model::gateway::ParentReference;
use gamma_mesh::model::{ObjectKey, Snapshot};

/// The controller this example decides for.
const ME: &str = "istio";

/// One row of the printed table: what `me` makes of one (route, parentRef).
struct Row {
    route: ObjectKey,
    parent: String,
    decision: Ownership,
}

/// A parentRef for people, with the defaults the API server applies made visible. An omitted
/// `group` means `gateway.networking.k8s.io`, even on `kind: Service` (the sample's trap).
fn describe_parent(p: &ParentReference, route_namespace: &str) -> String {
    let kind = p.kind.as_deref().unwrap_or("Gateway");
    let group = p.group.as_deref().unwrap_or("gateway.networking.k8s.io");
    let kind = match (group, kind) {
        ("", _) | ("gateway.networking.k8s.io", "Gateway" | "ListenerSet") => kind.to_owned(),
        (group, kind) => format!("{group}/{kind}"),
    };
    let ns = p.namespace.as_deref().unwrap_or(route_namespace);
    match p.port {
        Some(port) => format!("{kind} {ns}/{}:{port}", p.name),
        None => format!("{kind} {ns}/{}", p.name),
    }
}

/// `me`'s decision for every (route, parentRef), in route order then parentRef order.
fn rows(snapshot: &Snapshot, decisions: &Decisions, me: &Identity) -> Vec<Row> {
    decisions
        .for_controller(me)
        .map(|(key, i, decision)| {
            let route = key.to_object_key();
            let parent = snapshot
                .get(&route)
                .and_then(|r| r.as_route())
                .and_then(|r| r.parent_refs.get(i))
                .map_or_else(
                    || format!("parentRefs[{i}]"),
                    |p| describe_parent(p, &route.namespace),
                );
            Row {
                route,
                parent,
                decision,
            }
        })
        .collect()
}

/// A one-word label for a decision.
fn label(d: &Ownership) -> &'static str {
    match d {
        Ownership::Owned { .. } => "OWNED",
        Ownership::Foreign { .. } => "foreign",
        Ownership::Conflict { .. } => "CONFLICT",
        Ownership::Unclaimed => "unclaimed",
        Ownership::Pending { .. } => "pending",
        Ownership::NotApplicable | Ownership::NotAService { .. } => "n/a",
        _ => "other",
    }
}

/// Everything this example prints.
fn report(me: &Identity, rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "as {} (also {}):\n", me.name, me.aliases.join(", "));
    let routes: Vec<String> = rows
        .iter()
        .map(|r| format!("{} {}/{}", r.route.kind, r.route.namespace, r.route.name))
        .collect();
    let w_route = routes.iter().map(String::len).max().unwrap_or(0);
    let w_parent = rows.iter().map(|r| r.parent.len()).max().unwrap_or(0);
    for (route, row) in routes.iter().zip(rows) {
        let _ = writeln!(
            out,
            "{route:<w_route$}  {:<w_parent$}  {:<8}  {}",
            row.parent,
            label(&row.decision),
            row.decision
        );
    }
    let count = |l: &str| rows.iter().filter(|r| label(&r.decision) == l).count();
    let _ = writeln!(
        out,
        "\n{} owns {} pairs; {} foreign, {} in conflict, {} not applicable",
        me.name,
        count("OWNED"),
        count("foreign"),
        count("CONFLICT"),
        count("n/a")
    );
    out
}

fn main() -> Result<(), gamma_examples::BoxError> {
    let snapshot = gamma_examples::sample_snapshot()?;
    let config = gamma_examples::sample_config()?;
    // Who "me" is: the mesh's controllerName plus its aliases, from the shared configuration.
    let me = Identity::of_mesh(&config, ME).ok_or("the configuration does not register istio")?;
    let arbiter = Arbiter::new(config)?;
    let decisions = arbiter.decide_all(&snapshot);
    for d in decisions.registry().diagnostics() {
        eprintln!("warning: {d}");
    }
    print!("{}", report(&me, &rows(&snapshot, &decisions, &me)));
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Expectations are transcribed from the ownership table of examples/manifests/README.md
    //! ("Ownership: who owns each (route, parent)"), which follows the ownership ladder; they are
    //! not computed by the arbiter.

    use super::*;
    use gamma_mesh::arbiter::Level;

    const ISTIO: &str = "istio.io/gateway-controller";
    const LINKERD: &str = "linkerd.io/policy-controller";
    const GATEWAY: &str = "example.com/gateway-controller";

    /// What Istio should see: (route, verdict label, owners or candidates, ladder level).
    /// Level `None`: a Gateway parent (GatewayClass decides) or no decision at all.
    const EXPECTED: &[(&str, &str, &[&str], Option<u8>)] = &[
        ("HTTPRoute batch/reports", "OWNED", &[ISTIO], Some(2)),
        ("HTTPRoute batch/scheduler", "foreign", &[LINKERD], Some(5)),
        ("HTTPRoute inventory/stock", "OWNED", &[ISTIO], Some(2)),
        (
            "HTTPRoute legacy/billing",
            "CONFLICT",
            &[ISTIO, LINKERD],
            Some(4),
        ),
        ("HTTPRoute shop/cart", "foreign", &[LINKERD], Some(1)),
        (
            "HTTPRoute shop/catalog",
            "OWNED",
            &[ISTIO, LINKERD],
            Some(1),
        ),
        ("HTTPRoute shop/checkout", "OWNED", &[ISTIO], Some(3)),
        ("HTTPRoute shop/checkout-canary", "OWNED", &[ISTIO], Some(3)),
        ("HTTPRoute shop/checkout-qa-pin", "OWNED", &[ISTIO], Some(3)),
        (
            "HTTPRoute web/checkout-from-web",
            "foreign",
            &[LINKERD],
            Some(4),
        ),
        ("HTTPRoute web/frontend", "n/a", &[], None),
        ("HTTPRoute web/storefront", "foreign", &[GATEWAY], None),
        (
            "GRPCRoute payments/payments",
            "foreign",
            &[LINKERD],
            Some(3),
        ),
        ("TCPRoute payments/ledger", "foreign", &[LINKERD], Some(3)),
    ];

    fn decide() -> (Identity, Vec<Row>) {
        let snapshot = gamma_examples::sample_snapshot().unwrap();
        let config = gamma_examples::sample_config().unwrap();
        let me = Identity::of_mesh(&config, ME).unwrap();
        let decisions = Arbiter::new(config).unwrap().decide_all(&snapshot);
        let rows = rows(&snapshot, &decisions, &me);
        (me, rows)
    }

    #[test]
    fn istio_sees_the_verdicts_of_the_sample_readme() {
        let (_, rows) = decide();
        let mut seen: Vec<String> = Vec::new();
        for row in &rows {
            let route = format!(
                "{} {}/{}",
                row.route.kind, row.route.namespace, row.route.name
            );
            let Some((_, want, names, rung)) = EXPECTED.iter().find(|e| e.0 == route) else {
                panic!("{route} is not in the README's table");
            };
            assert_eq!(label(&row.decision), *want, "{route}: {}", row.decision);
            let (who, level): (Vec<&str>, Option<Level>) = match &row.decision {
                Ownership::Owned { owners, level, .. }
                | Ownership::Foreign { owners, level, .. } => (
                    owners.names().iter().map(String::as_str).collect(),
                    Some(*level),
                ),
                Ownership::Conflict {
                    candidates,
                    level,
                    candidate,
                    ..
                } => {
                    // Istio is one of the claimants, so it writes OwnershipConflict.
                    assert!(candidate, "{route}");
                    (
                        candidates.names().iter().map(String::as_str).collect(),
                        Some(*level),
                    )
                }
                _ => (Vec::new(), None),
            };
            assert_eq!(who, *names, "{route}: {}", row.decision);
            assert_eq!(
                level.and_then(|l| l.rung()),
                *rung,
                "{route}: {}",
                row.decision
            );
            seen.push(route);
        }
        // One parentRef per route in the sample: every row of the README, exactly once.
        seen.sort();
        let mut expected: Vec<&str> = EXPECTED.iter().map(|e| e.0).collect();
        expected.sort();
        assert_eq!(seen, expected);
    }

    #[test]
    fn the_printed_table_has_the_readme_summary_and_names_the_omitted_group_trap() {
        let (me, rows) = decide();
        let text = report(&me, &rows);
        // README summary: istio owns 6 pairs; 1 Conflict; 1 NotApplicable; the other 6 of the
        // 14 pairs belong to linkerd or the Gateway's controller.
        assert!(
            text.contains("istio.io/gateway-controller owns 6 pairs; 6 foreign, 1 in conflict, 1 not applicable"),
            "{text}"
        );
        // Gateway API ParentReference: `kind: Service` without `group` is not a core Service.
        let frontend = text
            .lines()
            .find(|l| l.starts_with("HTTPRoute web/frontend "))
            .unwrap();
        assert!(
            frontend.contains("gateway.networking.k8s.io/Service web/frontend"),
            "{frontend}"
        );
        // Level 2 through an alias: the waypoint's class is istio.io/mesh-controller.
        let stock = text
            .lines()
            .find(|l| l.starts_with("HTTPRoute inventory/stock "))
            .unwrap();
        assert!(
            stock.contains("OWNED") && stock.contains("level 2"),
            "{stock}"
        );
    }
}
